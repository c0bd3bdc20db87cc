"""One recorded exchange read as a turn: its calls (through the API, or a
text protocol's), usage and model, and the tool results its request sent back.

Nothing here guesses. A response that cannot be read exactly becomes a turn
with an ``error``; a stream that was not read to its end is one too."""

from __future__ import annotations

from typing import Any

import attrs

from agentmetrics.capture._answer import answer_text
from agentmetrics.capture._reading._bodies import json_value, reader_payload, received, stream_ended
from agentmetrics.capture._reading._requests import (
    declares_tools,
    read_messages,
    read_results,
    read_user_input,
)
from agentmetrics.capture._reading._usage import read_model, read_usage
from agentmetrics.capture._records import Exchange, Turn, Usage
from agentmetrics.capture._text import calls_in_text, results_in_text, taught, tools_in_prompt
from agentmetrics.errors import AgentMetricsError
from agentmetrics.formats import tool_calls_from
from agentmetrics.formats._payload import to_tree
from agentmetrics.model._model import ToolCall

__all__ = ["Read", "read_exchange", "text_calls"]


@attrs.define
class Read:
    """One exchange read: its turn and what its request sent back."""

    turn: Turn
    results: list[tuple[str | None, str | None, Any]]
    seq: int


def text_calls(text: str | None, tools: dict[str, list[str]] | None) -> tuple[str, tuple[ToolCall, ...]]:
    """The calls a text-protocol agent asked for in a response's text, with the
    protocol (``("api", ())`` when it asked for none); ``tools`` are those the
    prompt offers a code action. Raises ``ValueError`` naming why and the fix
    when it asked in a way that cannot be read exactly."""
    if not text:
        return "api", ()
    try:
        found = calls_in_text(text, tools=tools)
    except ValueError as why:
        raise ValueError(
            f"the model asked for tools in its text, not through the API, and those calls "
            f"cannot be read exactly: {why} Fix: give the agent its tools through the "
            f"provider's tool-calling API (a tool-calling agent rather than a text-protocol "
            f"one), or score this run from the tools it executed.") from None
    if found is None:
        return "api", ()
    protocol, calls = found
    return protocol, tuple(calls)


def _request(exchange: Exchange) -> Any:
    request = exchange.request
    if exchange.source == "botocore" and exchange.format == "bedrock":
        return request
    return json_value(request)


def read_exchange(exchange: Exchange) -> Read | None:
    """The exchange as a turn (None: a failed request, not a model response)."""
    if exchange._read is not None:
        return exchange._read  # type: ignore[no-any-return]
    state = exchange.state
    if exchange.status is not None and exchange.status >= 400 and state != "open":
        return None
    request = _request(exchange)
    request_format = "anthropic" if exchange.format == "bedrock_invoke" else exchange.format
    messages = read_messages(request_format, request)
    user_turn, user_input = read_user_input(request_format, request)
    results = read_results(request_format, request)
    latency = None if exchange.ended is None else exchange.ended - exchange.started
    error = None
    calls: tuple[ToolCall, ...] = ()
    usage = Usage(turns=1, unreported=1)
    model = read_model(None, request, exchange.model_hint)
    protocol = "api"
    if state == "open":
        error = ("its response was still being read when the calls were asked for "
                 f"({received(exchange)} so far). Fix: read the stream to its end (or "
                 f"leave the SDK's stream context) before reading run.tool_calls.")
    elif state == "failed":
        error = f"reading it failed ({exchange.error}); the response is incomplete."
    else:
        try:
            payload, format = reader_payload(exchange)
            try:
                tree = to_tree(payload)
                ended = state != "closed" or stream_ended(format, tree)
            except (AgentMetricsError, ValueError):
                if state != "closed":
                    raise
                ended = False
            if not ended:
                raise ValueError(
                    f"its stream was closed before it ended ({received(exchange)}), so "
                    f"the calls it was making may be incomplete. Fix: read the stream to its "
                    f"end inside the capture (iterate it fully, or call .get_final_message() "
                    f"or the SDK's equivalent).")
            calls = tuple(tool_calls_from(tree, format=format))
            if not calls and not declares_tools(request) and taught(messages):
                protocol, calls = text_calls(answer_text(format, tree), tools_in_prompt(messages))
            usage = read_usage(tree)
            model = read_model(tree, request, exchange.model_hint)
        except (AgentMetricsError, ValueError, ImportError) as failure:
            error = str(failure)
    provider, endpoint = exchange.label()
    turn = Turn(index=0, provider=provider, format=exchange.format,
                endpoint=endpoint, model=model, tool_calls=calls, usage=usage,
                latency=latency, streamed=exchange.streamed, source=exchange.source,
                user_turn=user_turn, user_input=user_input if user_turn else None, error=error,
                protocol=protocol)
    read = Read(turn, results + results_in_text(messages), exchange.seq)
    if state != "open":
        exchange._read = read
    return read
