"""The OpenAI Agents SDK hook: a tracing processor recording each model
response (Responses or Chat Completions) with the agent that made it, and each
function tool's executed output."""

from __future__ import annotations

import functools
import weakref
from types import ModuleType
from typing import Any

from agentmetrics.capture._frameworks import model_event, record, said, tool_event, usage_of
from agentmetrics.capture._state import Recorder, next_seq, recorders

__all__ = ["entered", "install"]

_PROCESSOR: Any = None
_PROVIDERS: weakref.WeakSet[Any] = weakref.WeakSet()
_MODULE: Any = None


def _response_text(response: Any) -> str | None:
    """The text of a Responses API response object (the SDK's ``output_text``)."""
    return said(getattr(response, "output_text", None))


def _generation_text(output: list[Any]) -> str | None:
    """The text of a generation span's output: its first message's content."""
    first = output[0] if output else None
    return said(first.get("content")) if isinstance(first, dict) else None


def install(module: ModuleType) -> None:
    global _PROCESSOR, _MODULE

    class Processor(module.TracingProcessor):  # type: ignore[misc, name-defined]
        def __init__(self) -> None:
            self._spans: dict[str, tuple[tuple[Recorder, ...], Any, int | None]] = {}
            self._agents: dict[str, str] = {}

        def on_trace_start(self, trace: Any) -> None:
            pass

        def on_trace_end(self, trace: Any) -> None:
            pass

        def on_span_start(self, span: Any) -> None:
            found = recorders("openai_agents")
            if not found:
                return
            data = span.span_data
            agent = data.name if getattr(data, "type", None) == "agent" else self._agents.get(
                span.parent_id)
            if agent is not None:  # every span under an agent's knows it ("turn" spans between)
                self._agents[span.span_id] = agent
            self._spans[span.span_id] = (found, agent, next_seq())

        def on_span_end(self, span: Any) -> None:
            found, agent, started = self._spans.pop(span.span_id, ((), None, None))
            self._agents.pop(span.span_id, None)
            if not found:
                return
            data = span.span_data
            kind = getattr(data, "type", None)
            if kind == "function":
                record(found, tool_event("openai_agents", data.name, None, data.output, agent))
            elif kind == "response" and data.response is not None:
                response = data.response
                usage = getattr(response, "usage", None)
                record(found, model_event(
                    "openai_agents", response, "openai_responses", started=started,
                    text=functools.partial(_response_text, response),
                    model=getattr(response, "model", None), agent=agent, provider="openai",
                    usage=usage_of(getattr(usage, "input_tokens", None),
                                   getattr(usage, "output_tokens", None),
                                   getattr(usage, "total_tokens", None))))
            elif kind == "generation" and data.output is not None:
                usage = data.usage if isinstance(data.usage, dict) else {}
                output = list(data.output)
                # A streamed Chat Completions generation holds the SDK's Response, as a dict.
                responses = bool(output) and all(
                    isinstance(item, dict) and item.get("object") == "response" for item in output)
                record(found, model_event(
                    "openai_agents", output, "openai_responses" if responses else "openai_chat",
                    started=started, text=functools.partial(_generation_text, output),
                    model=data.model,
                    agent=agent, usage=usage_of(usage.get("input_tokens"),
                                                usage.get("output_tokens"))))

        def shutdown(self) -> None:
            pass

        def force_flush(self) -> None:
            pass

    _MODULE = module
    _PROCESSOR = Processor()
    entered()


def _registered(provider: Any) -> bool:
    multi = getattr(provider, "_multi_processor", None)
    processors = getattr(multi, "_processors", None)
    if isinstance(processors, (list, tuple)):
        return _PROCESSOR in processors
    return provider in _PROVIDERS


def entered() -> None:
    """Register the processor with the SDK's trace provider (again, if
    ``set_trace_processors`` or a new provider replaced it)."""
    if _MODULE is None:
        return
    provider = _MODULE.get_trace_provider()
    if not _registered(provider):
        provider.register_processor(_PROCESSOR)
        _PROVIDERS.add(provider)
