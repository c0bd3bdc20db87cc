"""The LangChain / LangGraph hook: a callback handler that LangChain adds to
every run configured in a context where a capture is open (through
``register_configure_hook``, as LangSmith's tracer is added), recording each
chat model's result and each tool's executed output with its call id."""

from __future__ import annotations

import functools
from contextvars import ContextVar
from types import ModuleType
from typing import Any

from agentmetrics.capture._frameworks import model_event, record, said, tool_event, usage_of
from agentmetrics.capture._state import Recorder, next_seq, recorders

__all__ = ["entered", "exited", "install"]

_VAR: ContextVar[Any] = ContextVar("agentmetrics_langchain_handler", default=None)
_HANDLER: Any = None


def _agent(metadata: Any) -> Any:
    if isinstance(metadata, dict):
        return metadata.get("lc_agent_name")
    return None


def install(module: ModuleType) -> None:
    global _HANDLER
    from langchain_core.callbacks import BaseCallbackHandler

    class Handler(BaseCallbackHandler):
        """Records into the captures open where each run started."""

        run_inline = True
        raise_error = False

        def __init__(self) -> None:
            self._runs: dict[Any, tuple[tuple[Recorder, ...], Any, Any, int | None]] = {}

        def _start(self, run_id: Any, metadata: Any, extra: Any = None) -> None:
            found = recorders("langchain")
            if found:
                self._runs[run_id] = (found, metadata, extra, next_seq())

        def on_chat_model_start(self, serialized: Any, messages: Any, *, run_id: Any,
                                metadata: Any = None, **kwargs: Any) -> None:
            self._start(run_id, metadata)

        def on_llm_start(self, serialized: Any, prompts: Any, *, run_id: Any,
                         metadata: Any = None, **kwargs: Any) -> None:
            self._start(run_id, metadata)

        def on_llm_end(self, response: Any, *, run_id: Any, **kwargs: Any) -> None:
            found, metadata, _, started = self._runs.pop(run_id, ((), None, None, None))
            if not found:
                return
            metadata = metadata if isinstance(metadata, dict) else {}
            for generations in response.generations[:1]:
                for generation in generations[:1]:
                    message = getattr(generation, "message", None)
                    if message is None:
                        continue
                    usage = getattr(message, "usage_metadata", None) or {}
                    output = response.llm_output if isinstance(response.llm_output, dict) else {}
                    record(found, model_event(
                        "langchain", message, "langchain", started=started,
                        text=functools.partial(said, getattr(message, "content", None)),
                        model=metadata.get("ls_model_name") or output.get("model_name"),
                        agent=_agent(metadata), provider=metadata.get("ls_provider"),
                        usage=usage_of(usage.get("input_tokens"), usage.get("output_tokens"),
                                       usage.get("total_tokens"))))

        def on_llm_error(self, error: BaseException, *, run_id: Any, **kwargs: Any) -> None:
            self._runs.pop(run_id, None)

        def on_tool_start(self, serialized: Any, input_str: Any, *, run_id: Any,
                          metadata: Any = None, tool_call_id: Any = None,
                          **kwargs: Any) -> None:
            name = serialized.get("name") if isinstance(serialized, dict) else None
            self._start(run_id, metadata, (kwargs.get("name") or name, tool_call_id))

        def on_tool_end(self, output: Any, *, run_id: Any, **kwargs: Any) -> None:
            found, metadata, extra, _ = self._runs.pop(run_id, ((), None, None, None))
            if not found:
                return
            name, call_id = extra if extra else (None, None)
            call_id = getattr(output, "tool_call_id", None) or call_id
            value = getattr(output, "content", output) if hasattr(output, "tool_call_id") \
                else output
            record(found, tool_event("langchain", name, call_id, value, _agent(metadata)))

        def on_tool_error(self, error: BaseException, *, run_id: Any, **kwargs: Any) -> None:
            self._runs.pop(run_id, None)

    _HANDLER = Handler()
    module.register_configure_hook(_VAR, True)
    if recorders("langchain"):
        _VAR.set(_HANDLER)


def entered() -> None:
    _VAR.set(_HANDLER)


def exited() -> None:
    _VAR.set(_HANDLER if recorders("langchain") else None)
