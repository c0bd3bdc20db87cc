"""From what the hooks recorded to turns: each response read through
:mod:`agentmetrics.formats` (the same readers, the same census), its usage and
model, the tool results the next requests sent back, and the framework events
merged in.

Nothing here guesses. A response that cannot be read exactly becomes a turn
with an ``error``; a stream that was not read to its end is one too.
"""

from __future__ import annotations

import base64
import importlib
import json
import struct
import zlib
from collections.abc import Iterable, Sequence
from typing import Any

import attrs

from agentmetrics._model import ToolCall
from agentmetrics.capture._records import Exchange, ModelEvent, ToolEvent, Turn, Usage
from agentmetrics.errors import AgentMetricsError

__all__ = ["case_line", "read_turns"]

#: Formats whose request bodies are read for tool results and user turns.
_CHAT_LIKE = ("openai_chat", "cohere", "ollama")


# --------------------------------------------------------------------------- bodies


def _decode(data: bytes, encoding: str | None) -> bytes:
    """A streamed body as the SDK saw it: httpx decodes Content-Encoding after the
    raw chunks the tee keeps."""
    if not encoding or encoding == "identity":
        return data
    for part in reversed([item.strip().lower() for item in encoding.split(",")]):
        if part in ("gzip", "x-gzip"):
            data = zlib.decompress(data, 16 + zlib.MAX_WBITS)
        elif part == "deflate":
            try:
                data = zlib.decompress(data)
            except zlib.error:
                data = zlib.decompress(data, -zlib.MAX_WBITS)
        elif part == "br":
            # httpx decodes br only when brotli is installed, zstd when zstandard is.
            data = importlib.import_module("brotli").decompress(data)
        elif part == "zstd":
            zstandard = importlib.import_module("zstandard")
            data = zstandard.ZstdDecompressor().decompressobj().decompress(data)
        elif part != "identity":
            raise ValueError(f"the response's Content-Encoding {encoding!r} is not one httpx "
                             f"decodes")
    return data


def _event_stream(data: bytes) -> list[dict[str, Any]]:
    """The messages of an AWS event stream (``application/vnd.amazon.eventstream``)
    as ``{event-type: payload}``, each checked against its CRCs."""
    events: list[dict[str, Any]] = []
    position = 0
    while position < len(data):
        if len(data) - position < 16:
            raise ValueError(f"the AWS event stream ends inside a message at byte {position}")
        total, headers_length, prelude_crc = struct.unpack_from(">III", data, position)
        if zlib.crc32(data[position:position + 8]) != prelude_crc or total > len(data) - position:
            raise ValueError(f"the AWS event stream's message at byte {position} is damaged")
        message = data[position:position + total]
        if zlib.crc32(message[:-4]) != struct.unpack_from(">I", message, total - 4)[0]:
            raise ValueError(f"the AWS event stream's message at byte {position} fails its CRC")
        headers: dict[str, str] = {}
        cursor = 12
        while cursor < 12 + headers_length:
            size = message[cursor]
            name = message[cursor + 1:cursor + 1 + size].decode()
            cursor += 1 + size
            kind = message[cursor]
            cursor += 1
            if kind == 7:  # string
                (length,) = struct.unpack_from(">H", message, cursor)
                headers[name] = message[cursor + 2:cursor + 2 + length].decode()
                cursor += 2 + length
            else:
                raise ValueError(f"the AWS event stream's header {name!r} has type {kind}, "
                                 f"which this reader does not know")
        payload = json.loads(message[12 + headers_length:-4] or b"{}")
        if headers.get(":message-type", "event") != "event":
            raise ValueError(f"the AWS event stream holds an {headers.get(':message-type')} "
                             f"message: {str(payload)[:200]}")
        events.append({headers.get(":event-type", "event"): payload})
        position += total
    return events


def _invoke_events(events: Iterable[Any]) -> list[Any]:
    """``InvokeModelWithResponseStream`` events (``{"chunk": {"bytes": ...}}``) as
    the model's own stream events."""
    out = []
    for event in events:
        chunk = event.get("chunk") if isinstance(event, dict) else None
        data = chunk.get("bytes") if isinstance(chunk, dict) else None
        if data is None:
            raise ValueError(f"expected a chunk event with bytes, got {str(event)[:120]}")
        if isinstance(data, str):
            data = base64.b64decode(data)
        out.append(json.loads(data))
    return out


def _json(value: Any) -> Any:
    if isinstance(value, (bytes, bytearray, memoryview, str)):
        try:
            return json.loads(bytes(value) if not isinstance(value, str) else value)
        except (ValueError, UnicodeDecodeError):
            return None
    return value


def _payload(exchange: Exchange) -> tuple[Any, str | None]:
    """The response as readers take it, and the format to read it as (None: detect)."""
    format: str | None = exchange.format
    chunks = exchange.received()
    if exchange.source == "botocore":
        if format == "bedrock":
            return (list(chunks) if exchange.streamed else chunks[0]), format
        request = _json(exchange.request)
        format = "anthropic" if isinstance(request, dict) and "anthropic_version" in request \
            else None
        if exchange.streamed:
            return _invoke_events(chunks), format
        return chunks[0], format
    data = _decode(b"".join(chunks), exchange.encoding)
    if format and format.startswith("bedrock") and exchange.streamed:
        events = _event_stream(data)
        if format == "bedrock_invoke":
            return _invoke_events(events), "anthropic"
        return events, format
    if format == "bedrock_invoke":
        return data, "anthropic"
    return data, format


# --------------------------------------------------------------------------- stream ends

_LAST_EVENTS = {
    "openai_responses": ("response.completed", "response.incomplete", "response.failed"),
    "anthropic": ("message_stop",),
    "cohere": ("message-end",),
}


def _ended(format: str | None, tree: Any) -> bool:
    """Whether a stream the SDK closed had reached its end: the format's last
    event is there (an SDK stops reading at ``[DONE]`` or ``message_stop``
    and closes the response without waiting for the connection to end)."""
    events = tree if isinstance(tree, list) else [tree]
    dicts = [event for event in events if isinstance(event, dict)]
    if not dicts:
        return False
    last = dicts[-1]
    if format in _LAST_EVENTS:
        return any(event.get("type") in _LAST_EVENTS[format] for event in dicts[-3:])
    if format == "openai_chat":
        finished = {choice.get("index", 0) for event in dicts for choice in
                    event.get("choices") or () if isinstance(choice, dict)
                    and choice.get("finish_reason")}
        started = {choice.get("index", 0) for event in dicts for choice in
                   event.get("choices") or () if isinstance(choice, dict)}
        return bool(finished) and finished >= started
    if format == "gemini":
        candidates = last.get("candidates") or []
        return bool(candidates) and all(isinstance(c, dict) and c.get("finishReason")
                                        for c in candidates)
    if format == "ollama":
        return last.get("done") is True
    if format == "bedrock":
        return any("messageStop" in event for event in dicts[-3:])
    return False


# --------------------------------------------------------------------------- usage, model

_USAGE_KEYS = (  # (input, output, total, extra input, extra output)
    ("prompt_tokens", "completion_tokens", "total_tokens", (), ()),
    ("input_tokens", "output_tokens", "total_tokens",
     ("cache_read_input_tokens", "cache_creation_input_tokens"), ()),
    ("inputTokens", "outputTokens", "totalTokens", (), ()),
    ("promptTokenCount", "candidatesTokenCount", "totalTokenCount", (), ("thoughtsTokenCount",)),
    ("prompt_eval_count", "eval_count", None, (), ()),
)


def _usage(tree: Any) -> Usage:
    """The response's token usage: the usage objects in it, the last value of each
    field winning (a stream repeats and completes them as it goes)."""
    found: dict[str, int] = {}

    def count(value: Any) -> bool:
        return isinstance(value, int) and not isinstance(value, bool) and value >= 0

    def visit(node: Any, key: str | None, depth: int) -> None:
        if depth > 6:
            return
        if isinstance(node, list):
            for item in node:
                visit(item, key, depth + 1)
            return
        if not isinstance(node, dict) or key == "billed_units":
            return
        for inp, out, total, extra_in, extra_out in _USAGE_KEYS:
            if count(node.get(inp)) or count(node.get(out)):
                for name, field in ((inp, "in"), (out, "out"), (total, "total")):
                    if name and count(node.get(name)):
                        found[field] = node[name]
                for name in extra_in:
                    if count(node.get(name)):
                        found[f"in:{name}"] = node[name]
                for name in extra_out:
                    if count(node.get(name)):
                        found[f"out:{name}"] = node[name]
                break
        for child_key, child in node.items():
            if isinstance(child, (dict, list)):
                visit(child, child_key, depth + 1)

    visit(tree, None, 0)
    if "in" not in found and "out" not in found:
        return Usage(turns=1, unreported=1)
    inp = found.get("in", 0) + sum(v for k, v in found.items() if k.startswith("in:"))
    out = found.get("out", 0) + sum(v for k, v in found.items() if k.startswith("out:"))
    return Usage(inp, out, found.get("total", inp + out), turns=1)


def _model(tree: Any, request: Any, hint: str | None) -> str | None:
    items = tree if isinstance(tree, list) else [tree]
    for item in items[:8]:
        if not isinstance(item, dict):
            continue
        for holder in (item, item.get("response"), item.get("message"), item.get("data")):
            if isinstance(holder, dict):
                for key in ("model", "modelVersion"):
                    if isinstance(holder.get(key), str) and holder[key]:
                        return str(holder[key])
    if isinstance(request, dict) and isinstance(request.get("model"), str):
        return str(request["model"])
    return hint


# --------------------------------------------------------------------------- requests


def _text_of(content: Any) -> Any:
    """A tool result's content: text as text, one JSON value as that value,
    anything else as given."""
    if isinstance(content, list):
        texts = [block.get("text") for block in content if isinstance(block, dict)]
        if content and all(isinstance(text, str) for text in texts):
            return "".join(texts)  # type: ignore[arg-type]
        if len(content) == 1 and isinstance(content[0], dict) and "json" in content[0]:
            return content[0]["json"]
    return content


def _messages(format: str, request: Any) -> list[Any]:
    if not isinstance(request, dict):
        return []
    if format == "gemini":
        found = request.get("contents")
    elif format == "openai_responses":
        found = request.get("input")
    else:
        found = request.get("messages")
    return found if isinstance(found, list) else []


def _results(format: str, request: Any) -> list[tuple[str | None, str | None, Any]]:
    """The tool results a request sends back: (call id, tool name, output)."""
    out: list[tuple[str | None, str | None, Any]] = []
    for message in _messages(format, request):
        if not isinstance(message, dict):
            continue
        if format in _CHAT_LIKE:
            if message.get("role") == "tool":
                out.append((message.get("tool_call_id"), message.get("tool_name")
                            or message.get("name"), _text_of(message.get("content"))))
            elif message.get("role") == "function":
                out.append((None, message.get("name"), message.get("content")))
        elif format == "openai_responses":
            if message.get("type") == "function_call_output":
                out.append((message.get("call_id"), None, _text_of(message.get("output"))))
        elif format in ("anthropic", "bedrock_invoke"):
            for block in message.get("content") or ():
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    out.append((block.get("tool_use_id"), None, _text_of(block.get("content"))))
        elif format == "bedrock":
            for block in message.get("content") or ():
                result = block.get("toolResult") if isinstance(block, dict) else None
                if isinstance(result, dict):
                    out.append((result.get("toolUseId"), None, _text_of(result.get("content"))))
        elif format == "gemini":
            for part in message.get("parts") or ():
                response = (part.get("functionResponse") or part.get("function_response")
                            ) if isinstance(part, dict) else None
                if isinstance(response, dict):
                    out.append((response.get("id"), response.get("name"),
                                response.get("response")))
    return out


def _user_input(format: str, request: Any) -> tuple[bool, Any]:
    """Whether the request's last message is the user's own (a new user turn, not
    tool results sent back), and its text."""
    messages = _messages(format, request)
    if format == "openai_responses" and isinstance(request, dict) and isinstance(
            request.get("input"), str):
        return True, request["input"]
    if not messages:
        return False, None
    last = messages[-1]
    if not isinstance(last, dict):
        return False, None
    role = last.get("role")
    if format in _CHAT_LIKE:
        return role == "user", _text_of(last.get("content"))
    if format == "openai_responses":
        return (role == "user" and last.get("type", "message") == "message",
                _text_of(last.get("content")))
    content = last.get("content") if format != "gemini" else last.get("parts")
    if role != "user" or not isinstance(content, (list, str)):
        return False, None
    if isinstance(content, str):
        return True, content
    blocks = [block for block in content if isinstance(block, dict)]
    if any(block.get("type") == "tool_result" or "toolResult" in block
           or "functionResponse" in block or "function_response" in block for block in blocks):
        return False, None
    return True, _text_of([{"text": block.get("text")} for block in blocks if "text" in block])


# --------------------------------------------------------------------------- turns


@attrs.define
class _Read:
    """One exchange read: its turn and what its request sent back."""

    turn: Turn
    results: list[tuple[str | None, str | None, Any]]
    seq: int


def _request(exchange: Exchange) -> Any:
    request = exchange.request
    if exchange.source == "botocore" and exchange.format == "bedrock":
        return request
    return _json(request)


def _received(exchange: Exchange) -> str:
    """How much of a stream arrived: bytes over HTTP, events through botocore."""
    chunks = exchange.received()
    if exchange.source == "botocore":
        return f"{len(chunks)} event{'s' * (len(chunks) != 1)} received"
    return f"{sum(len(chunk) for chunk in chunks)} bytes received"


def _read_exchange(exchange: Exchange) -> _Read | None:
    """The exchange as a turn (None: a failed request, not a model response)."""
    from agentmetrics.formats import tool_calls_from
    from agentmetrics.formats._payload import to_tree

    if exchange._read is not None:
        return exchange._read  # type: ignore[no-any-return]
    state = exchange.state
    if exchange.status is not None and exchange.status >= 400 and state != "open":
        return None
    request = _request(exchange)
    request_format = "anthropic" if exchange.format == "bedrock_invoke" else exchange.format
    user_turn, user_input = _user_input(request_format, request)
    results = _results(request_format, request)
    latency = None if exchange.ended is None else exchange.ended - exchange.started
    error = None
    calls: tuple[ToolCall, ...] = ()
    usage = Usage(turns=1, unreported=1)
    model = _model(None, request, exchange.model_hint)
    if state == "open":
        error = ("its response was still being read when the calls were asked for "
                 f"({_received(exchange)} so far). Fix: read the stream to its end (or "
                 f"leave the SDK's stream context) before reading run.tool_calls.")
    elif state == "failed":
        error = f"reading it failed ({exchange.error}); the response is incomplete."
    else:
        try:
            payload, format = _payload(exchange)
            try:
                tree = to_tree(payload)
                ended = state != "closed" or _ended(format, tree)
            except (AgentMetricsError, ValueError):
                if state != "closed":
                    raise
                ended = False
            if not ended:
                raise ValueError(
                    f"its stream was closed before it ended ({_received(exchange)}), so "
                    f"the calls it was making may be incomplete. Fix: read the stream to its "
                    f"end inside the capture (iterate it fully, or call .get_final_message() "
                    f"or the SDK's equivalent).")
            calls = tuple(tool_calls_from(tree, format=format))
            usage = _usage(tree)
            model = _model(tree, request, exchange.model_hint)
        except (AgentMetricsError, ValueError, ImportError) as failure:
            error = str(failure)
    provider, endpoint = exchange.label()
    turn = Turn(index=0, provider=provider, format=exchange.format,
                endpoint=endpoint, model=model, tool_calls=calls, usage=usage,
                latency=latency, streamed=exchange.streamed, source=exchange.source,
                user_turn=user_turn, user_input=user_input if user_turn else None, error=error)
    read = _Read(turn, results, exchange.seq)
    if state != "open":
        exchange._read = read
    return read


def _agree(reported: Sequence[ToolCall], wire: Sequence[ToolCall]) -> bool:
    """Whether a framework's calls are the wire response's: the same calls in the
    same order, by name and (where both have them) arguments. Not by id: a
    framework may give ids the wire does not have (ADK names Gemini's calls
    ``get_weather_0``, LangChain gives them UUIDs)."""
    return len(reported) == len(wire) and all(
        ours.name == theirs.name and (not ours.arguments_given or not theirs.arguments_given
                                      or ours.arguments == theirs.arguments)
        for ours, theirs in zip(reported, wire))


def _same_ids(reported: Sequence[ToolCall], wire: Sequence[ToolCall]) -> bool:
    return all(ours.id == theirs.id for ours, theirs in zip(reported, wire))


def _names(calls: Sequence[ToolCall]) -> str:
    return "[" + ", ".join(call.name for call in calls) + "]"


def _event_turn(event: ModelEvent, error: str | None) -> _Read:
    turn = Turn(index=0, provider=event.provider or event.source, format=event.source,
                endpoint="", model=event.model, tool_calls=event.calls,
                usage=event.usage or Usage(turns=1, unreported=1), latency=None,
                streamed=False, source=event.source, agent=event.agent, error=error)
    return _Read(turn, [], event.seq)


def _merge_events(reads: list[_Read], models: Sequence[ModelEvent]) -> None:
    """The framework hooks' model results, merged into the wire turns: one
    response, one turn, however many hooks saw it.

    A result is the wire response made between the framework's start and end of
    the call (its window) whose calls agree with it; it adds the agent's name and
    nothing else (no turn, no usage). A result without content (a span recorded
    without messages), or one that could not be read, adds nothing to a window
    that holds a wire response. Where the wire response in its window has other
    calls, that turn carries an error: neither account is kept. A result with no
    wire response in its window (a client no hook sees) is a turn of its own;
    then without content its calls are unknown, an error, never zero calls."""
    wire = len(reads)
    matched: dict[int, set[str]] = {}
    for event in sorted(models, key=lambda item: item.seq):
        window = [position for position in range(wire) if reads[position].seq < event.seq
                  and (event.started is None or reads[position].seq > event.started)]
        fresh = [position for position in window
                 if event.source not in matched.get(position, set())]
        if not event.content or event.error is not None:
            if window:
                if event.agent and len(window) == 1:
                    _name_agent(reads[window[0]], event.agent)
                continue
            reads.append(_event_turn(event, event.error or (
                f"the {event.source} hook saw a model response without its messages (a span "
                f"recorded without message content) and no HTTP hook saw that response, so its "
                f"calls are unknown. Fix: turn on the instrumentation's message content capture "
                f"(e.g. OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true), or let "
                f"capture() see the client's HTTP traffic (see docs/capture.md).")))
            continue
        agreeing = [position for position in fresh or window
                    if _agree(event.calls, reads[position].turn.tool_calls)]
        if agreeing:
            same = [position for position in agreeing
                    if _same_ids(event.calls, reads[position].turn.tool_calls)]
            position = (same or agreeing)[0]
            matched.setdefault(position, set()).add(event.source)
            if event.agent:
                _name_agent(reads[position], event.agent)
            continue
        if window:
            position = (fresh or window)[-1]
            read = reads[position]
            matched.setdefault(position, set()).add(event.source)
            if read.turn.error is None:
                read.turn = attrs.evolve(read.turn, error=(
                    f"the {event.source} hook reported the calls {_names(event.calls)} for "
                    f"the response the wire shows with {_names(read.turn.tool_calls)}; the two "
                    f"disagree, so neither is taken. Fix: report this at agentmetrics' issue "
                    f"tracker; capture(hooks=[...]) without {event.source!r} reads the wire "
                    f"alone."))
            continue
        reads.append(_event_turn(event, None))


def _name_agent(read: _Read, agent: str) -> None:
    if read.turn.agent is None:
        read.turn = attrs.evolve(read.turn, agent=agent)


def _pair_outputs(reads: list[_Read], tools: list[ToolEvent]) -> list[Turn]:
    """Each call with its output: from the first later request that sent its result
    back (by id; for a call without one, by name and order among the results that
    request added to the conversation), else from a tool execution a framework
    saw (by id, or by name and order after the response)."""
    fresh = [read.results[len(reads[position - 1].results):] if position else read.results
             for position, read in enumerate(reads)]
    tools = list(tools)
    turns = []
    for position, read in enumerate(reads):
        used: set[tuple[int, int]] = set()
        calls = []
        for call in read.turn.tool_calls:
            output, found = call.output, call.output is not None
            for number in range(position + 1, len(reads)):
                if found:
                    break
                pool = reads[number].results if call.id is not None else fresh[number]
                for slot, (call_id, name, value) in enumerate(pool):
                    if (number, slot) in used:
                        continue
                    if (call_id == call.id) if call.id is not None and call_id is not None \
                            else name == call.name:
                        output, found = value, True
                        used.add((number, slot))
                        break
            if not found:
                for event in tools:
                    if (event.call_id == call.id) if call.id is not None and event.call_id \
                            else (event.name == call.name and event.seq > read.seq):
                        output, found = event.output, True
                        tools.remove(event)
                        break
            calls.append(attrs.evolve(call, output=output) if found and output is not call.output
                         else call)
        turns.append(attrs.evolve(read.turn, tool_calls=tuple(calls)))
    return turns


def read_turns(exchanges: Sequence[Exchange], events: Sequence[Any]) -> tuple[Turn, ...]:
    """The turns of a capture, in the order the responses were made."""
    # Copies: an exchange keeps its read, which the merge below must not change
    # (a nested capture holds the same exchange with other events).
    reads = [attrs.evolve(read) for read in (_read_exchange(exchange) for exchange in
                                             sorted(exchanges, key=lambda item: item.seq))
             if read is not None]
    models = [event for event in events if isinstance(event, ModelEvent)]
    tools = sorted((event for event in events if isinstance(event, ToolEvent)),
                   key=lambda event: event.seq)
    _merge_events(reads, models)
    reads.sort(key=lambda read: read.seq)
    turns = _pair_outputs(reads, tools)
    out = []
    for index, turn in enumerate(turns):
        user_turn = turn.user_turn or index == 0
        out.append(attrs.evolve(turn, index=index, user_turn=user_turn))
    return tuple(out)


def _call_record(call: ToolCall) -> dict[str, Any]:
    # none given: null, which reads back so (a missing key reads as {})
    record: dict[str, Any] = {"name": call.name,
                              "arguments": call.arguments if call.arguments_given else None}
    if call.id is not None:
        record["id"] = call.id
    if call.output is not None:
        record["output"] = call.output
    if call.raw_arguments is not None:
        record["raw_arguments"] = call.raw_arguments
    return record


def case_line(case: Any) -> dict[str, Any]:
    """A case as one line of a JSONL case file (what ``read_cases`` reads back)."""
    record: dict[str, Any] = {}
    if case.input is not None:
        record["input"] = case.input
    if case.actual_output is not None:
        record["actual_output"] = case.actual_output
    if case.tool_calls is not None:
        record["tool_calls"] = [_call_record(call) for call in case.tool_calls]
    if case.expected_tool_calls is not None:
        record["expected_tool_calls"] = [_call_record(call) for call in case.expected_tool_calls]
    if case.metadata:
        record["metadata"] = case.metadata
    if case.turns is not None:
        record["turns"] = [case_line(turn) for turn in case.turns]
    return record
