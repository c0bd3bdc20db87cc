"""What a capture holds: the raw exchanges the hooks saw, the framework
events, and the public, read forms (:class:`Turn`, :class:`Usage`)."""

from __future__ import annotations

import time
from typing import Any

import attrs

from agentmetrics.model._model import ToolCall

__all__ = ["Exchange", "ModelEvent", "ToolEvent", "Turn", "Usage"]


class Exchange:
    """One request to a model endpoint and its response, as the hooks saw it.

    ``provider`` and ``endpoint`` may be None with ``url`` set: :meth:`label`
    works them out when the run is read.

    Mutable while the response is being read: a streamed body grows chunk by
    chunk as the SDK consumes it (``state`` is ``"open"`` until the stream
    ends, then ``"complete"``; ``"closed"`` when it was closed before its end;
    ``"failed"`` when reading it raised)."""

    __slots__ = (
        "_read",
        "chunks",
        "encoding",
        "ended",
        "endpoint",
        "error",
        "format",
        "model_hint",
        "provider",
        "request",
        "seq",
        "source",
        "started",
        "state",
        "status",
        "streamed",
        "url",
    )

    def __init__(self, seq: int, source: str, provider: str | None, format: str,
                 endpoint: str | None, request: Any, *, model_hint: str | None = None,
                 url: Any = None) -> None:
        self.seq = seq
        self.source = source
        self.provider = provider
        self.format = format
        self.endpoint = endpoint
        #: The request's URL object (httpx), when ``provider`` and ``endpoint`` are
        #: left to be worked out at read time, off the agent's path.
        self.url = url
        self.request = request
        self.model_hint = model_hint
        self.status: int | None = None
        self.encoding: str | None = None
        #: What arrived: a list, or (a teed httpx stream) a dict of the chunks in order.
        self.chunks: Any = []
        self.streamed = False
        self.started = time.perf_counter()
        self.ended: float | None = None
        self.state = "open"
        self.error: str | None = None
        self._read: Any = None

    def label(self) -> tuple[str, str]:
        """``(provider, endpoint)``, worked out from ``url`` the first time."""
        if self.provider is None or self.endpoint is None:
            from agentmetrics.capture._endpoints import endpoint_label, provider_of

            url = self.url
            self.provider = provider_of(url.host, self.format)
            self.endpoint = endpoint_label(url.scheme, url.host, url.port, url.path)
        return self.provider, self.endpoint

    def add(self, chunk: Any) -> None:
        self.chunks.append(chunk)

    def received(self) -> list[Any]:
        """The chunks (bytes, or events through botocore) that arrived, in order."""
        chunks = self.chunks
        return list(chunks.values()) if isinstance(chunks, dict) else list(chunks)

    def finish(self, state: str = "complete", error: str | None = None) -> None:
        if self.state == "open":
            self.ended = time.perf_counter()
            self.state = state
            self.error = error
            if isinstance(self.chunks, dict):  # the tee's store, as a list: less to keep
                self.chunks = list(self.chunks.values())


@attrs.frozen(slots=True)
class ModelEvent:
    """A model result a framework hook reported (LangChain, the Agents SDK,
    OpenTelemetry): the HTTP layer may have seen the same response.

    ``started`` and ``seq`` bracket the model call (the framework's start and
    end of it): a wire exchange numbered between them was made during it.
    ``content`` is False for a result that says a response happened but not
    what it held (a span recorded without message content). ``text`` is the
    response's text when it has no calls (read for a text protocol's calls if
    no wire response is beside it)."""

    seq: int
    source: str
    calls: tuple[ToolCall, ...]
    model: str | None = None
    agent: str | None = None
    usage: Usage | None = None
    provider: str | None = None
    error: str | None = None
    started: int | None = None
    content: bool = True
    text: str | None = attrs.field(default=None, repr=False)


@attrs.frozen(slots=True)
class ToolEvent:
    """A tool execution a framework hook reported, with its output."""

    seq: int
    source: str
    name: str | None
    call_id: str | None
    output: Any
    agent: str | None = None


def _count(value: object) -> int:
    if value is None or isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"expected a token count (an int >= 0), got {value!r}")
    return value


@attrs.frozen(slots=True)
class Usage:
    """Token usage: one response's, or the totals of a run.

    ``turns`` counts the responses summed; ``unreported`` those among them
    that reported no usage (their tokens are not in the totals, so a total
    with ``unreported > 0`` is a lower bound)."""

    input_tokens: int = attrs.field(default=0, converter=_count)
    output_tokens: int = attrs.field(default=0, converter=_count)
    total_tokens: int = attrs.field(default=0, converter=_count)
    turns: int = attrs.field(default=0, converter=_count)
    unreported: int = attrs.field(default=0, converter=_count)

    def __add__(self, other: Usage) -> Usage:
        if not isinstance(other, Usage):
            return NotImplemented
        return Usage(self.input_tokens + other.input_tokens,
                     self.output_tokens + other.output_tokens,
                     self.total_tokens + other.total_tokens,
                     self.turns + other.turns, self.unreported + other.unreported)


@attrs.frozen(slots=True)
class Turn:
    """One model response a capture recorded.

    ``provider`` and ``format`` say who answered and how it was read;
    ``endpoint`` is the URL it came from (credentials masked, no query);
    ``tool_calls`` are the calls the model made in it, in order, with the
    outputs the next request sent back (or that a framework saw executed);
    ``latency`` is seconds from the request to the response's last byte;
    ``source`` the hook that saw it (``"http"``, ``"aiohttp"``, ``"botocore"``,
    ``"langchain"``, ``"openai_agents"``, ``"otel"``); ``agent`` the agent that
    made it, where a framework named one. ``error`` says why the response could
    not be read (its calls are then empty and not to be trusted: reading
    ``Run.tool_calls`` raises). ``user_turn`` is true when the request was the
    user's own message (not tool results sent back), ``user_input`` that
    message. ``protocol`` says how the model asked for its calls: ``"api"``
    (the provider's tool-calling API) or the text protocol they were read from
    in the response's text (``"react"``: ``Action:`` / ``Action Input:``;
    ``"code"``: a code action of plain tool calls)."""

    index: int
    provider: str
    format: str
    endpoint: str
    model: str | None
    tool_calls: tuple[ToolCall, ...]
    usage: Usage
    latency: float | None
    streamed: bool
    source: str
    agent: str | None = None
    user_turn: bool = False
    user_input: Any = attrs.field(default=None, repr=False)
    error: str | None = None
    protocol: str = "api"
