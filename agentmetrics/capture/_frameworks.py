"""What the framework hooks share: turning a framework's model result into a
:class:`ModelEvent`, read through :mod:`agentmetrics.formats` like any
response."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agentmetrics.capture._records import ModelEvent, ToolEvent, Usage
from agentmetrics.capture._state import Recorder, next_seq
from agentmetrics.capture._text import message_text
from agentmetrics.errors import AgentMetricsError
from agentmetrics.formats import tool_calls_from
from agentmetrics.model._model import ToolCall

__all__ = ["model_event", "record", "said", "tool_event", "usage_of"]


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def usage_of(input_tokens: Any, output_tokens: Any, total: Any = None) -> Usage:
    def count(value: Any) -> int | None:
        return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 \
            else None

    inp, out, tot = count(input_tokens), count(output_tokens), count(total)
    if inp is None and out is None:
        return Usage(turns=1, unreported=1)
    return Usage(inp or 0, out or 0, tot if tot is not None else (inp or 0) + (out or 0),
                 turns=1)


def said(content: Any) -> str | None:
    """The text of a message's content (a string, or its text blocks joined), or None."""
    return message_text(content) or None


def model_event(source: str, payload: Any, format: str, *, model: Any = None,
                agent: Any = None, usage: Usage | None = None, provider: Any = None,
                started: int | None = None, content: bool = True,
                text: Callable[[], str | None] | None = None) -> ModelEvent:
    """A framework's model result, its calls read as ``format``; ``started`` is
    the :func:`next_seq` taken when the framework began the call, ``content``
    False when the result does not hold the response's messages; ``text`` gives
    the response's text, taken only when it has no calls (a text-protocol agent
    writes its calls there: read if no wire response is beside it)."""

    seq = next_seq()
    calls: tuple[ToolCall, ...] = ()
    error = None
    answer = None
    if content:
        try:
            calls = tuple(tool_calls_from(payload, format=format))
        except (AgentMetricsError, ValueError) as failure:
            error = str(failure)
        if not calls and error is None and text is not None:
            answer = text()
    return ModelEvent(seq, source, calls, model=_text(model), agent=_text(agent), usage=usage,
                      provider=_text(provider), error=error, started=started, content=content,
                      text=answer)


def tool_event(source: str, name: Any, call_id: Any, output: Any, agent: Any = None) -> ToolEvent:
    return ToolEvent(next_seq(), source, _text(name), _text(call_id), output, agent=_text(agent))


def record(recorders: tuple[Recorder, ...], event: Any) -> None:
    for recorder in recorders:
        recorder.events.append(event)
