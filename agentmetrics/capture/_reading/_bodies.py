"""A recorded response as the readers take it: its body decoded as the SDK
saw it (Content-Encoding, AWS event streams, Bedrock's invoke chunks), and
whether a stream the SDK closed had reached its end."""

from __future__ import annotations

import base64
import importlib
import json
import struct
import zlib
from collections.abc import Iterable
from typing import Any

from agentmetrics.capture._records import Exchange

__all__ = ["json_value", "reader_payload", "received", "stream_ended"]


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


def json_value(value: Any) -> Any:
    if isinstance(value, (bytes, bytearray, memoryview, str)):
        try:
            return json.loads(bytes(value) if not isinstance(value, str) else value)
        except (ValueError, UnicodeDecodeError):
            return None
    return value


def reader_payload(exchange: Exchange) -> tuple[Any, str | None]:
    """The response as readers take it, and the format to read it as (None: detect)."""
    format: str | None = exchange.format
    chunks = exchange.received()
    if exchange.source == "botocore":
        if format == "bedrock":
            return (list(chunks) if exchange.streamed else chunks[0]), format
        request = json_value(exchange.request)
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


def stream_ended(format: str | None, tree: Any) -> bool:
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


def received(exchange: Exchange) -> str:
    """How much of a stream arrived: bytes over HTTP, events through botocore."""
    chunks = exchange.received()
    if exchange.source == "botocore":
        return f"{len(chunks)} event{'s' * (len(chunks) != 1)} received"
    return f"{sum(len(chunk) for chunk in chunks)} bytes received"
