"""The aiohttp hook: ``ClientSession._request``, which every aiohttp request
goes through (google-genai's async client takes this path when aiohttp is
installed; so do clients built on aiohttp directly).

A response's body is recorded as it arrives in its ``StreamReader`` (decoded,
when the session decompresses, as the caller will read it): the bytes already
buffered when the response is handed back, then every ``feed_data``, until
``feed_eof`` (the body ended) or the response is released or closed before it
did. The caller reads the same reader, untouched. Outside a capture the
request wrapper costs one context-variable read and ``feed_data`` one
dictionary lookup.
"""

from __future__ import annotations

import functools
import json
from types import ModuleType
from typing import Any

from agentmetrics.capture._endpoints import classify, endpoint_label, provider_of, streamed
from agentmetrics.capture._records import Exchange
from agentmetrics.capture._state import SENDING, next_seq, recorders, sending

__all__ = ["install"]

_MARK = "__agentmetrics_capture__"
#: The readers being recorded, by id, with the reader itself (so its id is not
#: reused while it is here).
_READERS: dict[int, tuple[Any, Exchange]] = {}


def _body(data: Any, payload: Any) -> bytes | None:
    if payload is not None:
        try:
            return json.dumps(payload).encode()
        except (TypeError, ValueError):
            return None
    if isinstance(data, str):
        return data.encode()
    if isinstance(data, (bytes, bytearray)):
        return bytes(data)
    return None


def install(module: ModuleType) -> None:
    """Wrap ``aiohttp.ClientSession._request`` and the response's stream (once)."""
    import importlib

    streams = importlib.import_module("aiohttp.streams")
    reqrep = importlib.import_module("aiohttp.client_reqrep")
    session_class = module.ClientSession
    if getattr(session_class._request, _MARK, False):
        return
    reader_class = streams.StreamReader
    response_class = reqrep.ClientResponse
    original_request = session_class._request
    original_feed, original_eof = reader_class.feed_data, reader_class.feed_eof
    original_release, original_close = response_class.release, response_class.close

    @functools.wraps(original_request)
    async def request(self: Any, method: str, url: Any, *args: Any, **kwargs: Any) -> Any:
        found = recorders("aiohttp")
        if found:
            found = sending(found)  # an httpx client over an aiohttp transport records it
        if not found:
            return await original_request(self, method, url, *args, **kwargs)
        token = SENDING.set(SENDING.get() + found)
        try:
            response = await original_request(self, method, url, *args, **kwargs)
        finally:
            SENDING.reset(token)
        where = response.url
        format = classify(method.upper(), where.path)
        if format is None:
            return response
        exchange = Exchange(next_seq(), "aiohttp", provider_of(where.host or "", format), format,
                            endpoint_label(where.scheme, where.host or "", where.port,
                                           where.path),
                            _body(kwargs.get("data"), kwargs.get("json")))
        exchange.status = response.status
        exchange.streamed = streamed(response.headers.get("Content-Type"), where.path)
        decompress = kwargs.get("auto_decompress")
        if not (getattr(self, "_auto_decompress", True) if decompress is None else decompress):
            exchange.encoding = response.headers.get("Content-Encoding")
        reader = response.content
        buffered = list(getattr(reader, "_buffer", ()))
        for chunk in buffered:
            exchange.add(chunk)
        if reader.is_eof():
            exchange.finish()
        else:
            _READERS[id(reader)] = (reader, exchange)
        for recorder in found:
            recorder.exchanges.append(exchange)
        return response

    @functools.wraps(original_feed)
    def feed_data(self: Any, data: bytes, *args: Any) -> Any:
        entry = _READERS.get(id(self))
        if entry is not None and entry[0] is self and data:
            entry[1].add(bytes(data))
        return original_feed(self, data, *args)

    @functools.wraps(original_eof)
    def feed_eof(self: Any) -> Any:
        entry = _READERS.pop(id(self), None)
        try:
            return original_eof(self)
        finally:
            if entry is not None and entry[0] is self:
                entry[1].finish()

    def ended(response: Any) -> None:
        entry = _READERS.pop(id(response.content), None)
        if entry is not None and entry[0] is response.content:
            entry[1].finish("closed")

    @functools.wraps(original_release)
    def release(self: Any) -> Any:
        try:
            return original_release(self)
        finally:
            ended(self)

    @functools.wraps(original_close)
    def close(self: Any) -> None:
        try:
            original_close(self)
        finally:
            ended(self)

    setattr(request, _MARK, True)
    session_class._request = request
    reader_class.feed_data = feed_data
    reader_class.feed_eof = feed_eof
    response_class.release = release
    response_class.close = close
