"""The OpenTelemetry hook: a span processor on the global SDK
``TracerProvider`` (or any provider it is added to: :class:`SpanProcessor`),
recording the model spans of any GenAI instrumentation (the openai-v2 and
google-genai instrumentations, OpenInference, Traceloop, ADK) and the tool
execution spans with their results and agent names."""

from __future__ import annotations

import functools
import json
import weakref
from types import ModuleType
from typing import Any

from agentmetrics.capture._frameworks import model_event, record, said, tool_event, usage_of
from agentmetrics.capture._state import Recorder, next_seq, recorders

__all__ = ["entered", "install", "processor"]

_PROCESSOR: Any = None
_PROVIDERS: weakref.WeakSet[Any] = weakref.WeakSet()
_MODULE: Any = None

_MODEL_OPERATIONS = frozenset({"chat", "text_completion", "generate_content", "completion"})

#: Where the GenAI instrumentations put a response's messages: the semantic
#: conventions' ``gen_ai.output.messages``, Traceloop's ``gen_ai.completion.*``,
#: OpenInference's ``llm.output_messages.*`` (attributes), and the events of
#: the span that carry them. A model span with none of them only says that a
#: response happened (anthropic 2.x's own span, ADK's ``generate_content``
#: without content capture).
_CONTENT_PREFIXES = ("gen_ai.output.messages", "gen_ai.completion.", "llm.output_messages.")
_CONTENT_EVENTS = frozenset({"gen_ai.choice", "gen_ai.client.inference.operation.details"})


def _said(attributes: dict[str, Any]) -> str | None:
    """The text of a model span's output: the first output message's text parts
    (``gen_ai.output.messages``), or OpenInference's or Traceloop's first
    completion's content."""
    value = attributes.get("gen_ai.output.messages")
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            value = None
    if isinstance(value, list) and value and isinstance(value[0], dict):
        parts = value[0].get("parts")
        if isinstance(parts, list):
            return said([{"text": part.get("content")} for part in parts
                         if isinstance(part, dict) and part.get("type") == "text"])
    return said(_first(attributes, "llm.output_messages.0.message.content",
                       "gen_ai.completion.0.content"))


def _has_content(attributes: dict[str, Any], span: Any) -> bool:
    if any(key.startswith(_CONTENT_PREFIXES) for key in attributes):
        return True
    return any(getattr(event, "name", None) in _CONTENT_EVENTS for event in span.events or ())


def _first(attributes: Any, *names: str) -> Any:
    for name in names:
        value = attributes.get(name)
        if value is not None:
            return value
    return None


def install(module: ModuleType) -> None:
    global _PROCESSOR, _MODULE

    class Processor(module.SpanProcessor):  # type: ignore[misc, name-defined]
        """Records the spans that start where a capture is open."""

        def __init__(self) -> None:
            self._spans: dict[int, tuple[tuple[Recorder, ...], int]] = {}

        def on_start(self, span: Any, parent_context: Any = None) -> None:
            found = recorders("otel")
            if found:
                self._spans[span.context.span_id] = (found, next_seq())

        def on_end(self, span: Any) -> None:
            found, started = self._spans.pop(span.context.span_id, ((), None))
            if not found:
                return
            attributes = dict(span.attributes or {})
            operation = attributes.get("gen_ai.operation.name")
            kind = attributes.get("openinference.span.kind")
            agent = _first(attributes, "gen_ai.agent.name", "agent.name")
            if operation == "execute_tool" or kind == "TOOL":
                record(found, tool_event(
                    "otel", _first(attributes, "gen_ai.tool.name", "tool.name"),
                    _first(attributes, "gen_ai.tool.call.id", "tool_call.id"),
                    _first(attributes, "gen_ai.tool.call.result", "output.value",
                           "gcp.vertex.agent.tool_response"), agent))
            elif operation in _MODEL_OPERATIONS or kind == "LLM" or (
                    operation is None and "llm.request.type" in attributes):
                record(found, model_event(
                    "otel", [span], "otel", started=started,
                    content=_has_content(attributes, span),
                    text=functools.partial(_said, attributes),
                    model=_first(attributes, "gen_ai.response.model", "gen_ai.request.model",
                                 "llm.model_name"),
                    agent=agent, provider=_first(attributes, "gen_ai.provider.name",
                                                 "gen_ai.system", "llm.provider",
                                                 "llm.system"),
                    usage=usage_of(_first(attributes, "gen_ai.usage.input_tokens",
                                          "gen_ai.usage.prompt_tokens",
                                          "llm.token_count.prompt"),
                                   _first(attributes, "gen_ai.usage.output_tokens",
                                          "gen_ai.usage.completion_tokens",
                                          "llm.token_count.completion"))))

        def shutdown(self) -> None:
            pass

        def force_flush(self, timeout_millis: int = 30000) -> bool:
            return True

    _MODULE = module
    _PROCESSOR = Processor()
    entered()


def processor() -> Any:
    """The span processor, to add to a ``TracerProvider`` that is not the global one."""
    if _PROCESSOR is None:
        import opentelemetry.sdk.trace as sdk_trace

        install(sdk_trace)
    return _PROCESSOR


def entered() -> None:
    """Add the processor to the global provider (a provider set since, too)."""
    if _MODULE is None:
        return
    from opentelemetry import trace

    provider = trace.get_tracer_provider()
    if isinstance(provider, _MODULE.TracerProvider) and provider not in _PROVIDERS:
        provider.add_span_processor(_PROCESSOR)
        _PROVIDERS.add(provider)
