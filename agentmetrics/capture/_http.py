"""The HTTP hook: ``send`` of httpx's (and httpx2's) ``Client`` and
``AsyncClient``, which every request of the openai, anthropic, google-genai,
cohere, ollama, groq and mistralai clients goes through, default-constructed
clients and custom transports included.

Outside a capture the wrapper costs one context-variable read. Inside one, a
request to a model endpoint (:mod:`._endpoints`) is recorded: its body, and
its response as the SDK reads it. A response read whole is taken once read; a
streamed one is teed, chunk by chunk, as the SDK consumes it, through a byte
stream that yields the very chunks it receives (the SDK sees the same bytes,
at the same moments). Nothing is parsed here: reading happens when the run is
asked for its calls.

While a request is sent, :data:`~._state.SENDING` names the captures it is
recorded into, so a hook beneath this one (an aiohttp transport, an httpx2
client wrapped in an httpx transport) does not record the same response again.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import AsyncIterator, Iterator
from types import ModuleType
from typing import Any

from agentmetrics.capture._endpoints import classify, streamed
from agentmetrics.capture._records import Exchange
from agentmetrics.capture._state import SENDING, next_seq, recorders, sending

__all__ = ["install"]

_MARK = "__agentmetrics_capture__"


class _End:
    """An iterator of nothing, chained after a stream: reaching it means the stream
    was read to its end."""

    __slots__ = ("_exchange",)

    def __init__(self, exchange: Exchange) -> None:
        self._exchange = exchange

    def __iter__(self) -> _End:
        return self

    def __next__(self) -> bytes:
        self._exchange.finish()
        raise StopIteration


def _exchange(request: Any) -> Exchange | None:
    """The record of a request to a model endpoint (None for any other request).
    Only what must be taken now is: the URL object and the body; the provider
    and the endpoint's label are worked out when the run is read."""
    url = request.url
    format = classify(request.method, url.path)
    if format is None:
        return None
    try:
        body: Any = request.content
    except Exception:  # a streamed upload: no body to read tool results from
        body = None
    return Exchange(next_seq(), "http", None, format, None, body, url=url)


def _took(exchange: Exchange, response: Any) -> bool:
    """Take a response that is already read; False when the SDK reads it later."""
    exchange.status = response.status_code
    exchange.streamed = streamed(response.headers.get("content-type"), response.url.path)
    if not response.is_stream_consumed:  # a body the SDK reads later (a stream or not)
        exchange.encoding = response.headers.get("content-encoding")
        return False
    exchange.chunks.append(response.content)  # decoded, as the SDK has it
    exchange.finish()
    return True


def install(module: ModuleType) -> None:
    """Wrap ``module.Client.send`` and ``module.AsyncClient.send`` (once)."""
    client, async_client = module.Client, module.AsyncClient
    if getattr(client.send, _MARK, False):
        return
    sync_stream, async_stream = module.SyncByteStream, module.AsyncByteStream

    class Tee(sync_stream):  # type: ignore[misc, valid-type]
        """The response's own stream, its chunks also kept in the exchange.

        The iterator it gives is all C (``map`` over ``dict.setdefault``, which
        stores a chunk and hands it on): no Python frame runs per chunk. The
        one Python call, :class:`_End`, runs once, when the stream is exhausted."""

        __slots__ = ("_exchange", "_inner")

        def __init__(self, inner: Any, exchange: Exchange) -> None:
            self._inner = inner
            self._exchange = exchange

        def __iter__(self) -> Iterator[bytes]:
            store: dict[int, bytes] = {}
            self._exchange.chunks = store
            return map(store.setdefault, itertools.count(),
                       itertools.chain(self._inner, _End(self._exchange)))

        def close(self) -> None:
            try:
                self._inner.close()
            finally:
                self._exchange.finish("closed")

    class AsyncTee(async_stream):  # type: ignore[misc, valid-type]
        __slots__ = ("_exchange", "_inner")

        def __init__(self, inner: Any, exchange: Exchange) -> None:
            self._inner = inner
            self._exchange = exchange

        async def __aiter__(self) -> AsyncIterator[bytes]:
            exchange = self._exchange
            keep = exchange.chunks.append
            try:
                async for chunk in self._inner:
                    keep(chunk)
                    yield chunk
            except GeneratorExit:
                raise
            except BaseException as error:
                exchange.finish("failed", f"{type(error).__name__} while the stream was read")
                raise
            exchange.finish()

        async def aclose(self) -> None:
            try:
                await self._inner.aclose()
            finally:
                self._exchange.finish("closed")

    original_send = client.send
    original_async_send = async_client.send

    @functools.wraps(original_send)
    def send(self: Any, request: Any, *args: Any, **kwargs: Any) -> Any:
        found = recorders("httpx")
        if found:
            found = sending(found)
        exchange = _exchange(request) if found else None
        if exchange is None:
            return original_send(self, request, *args, **kwargs)
        token = SENDING.set(SENDING.get() + found)
        try:
            response = original_send(self, request, *args, **kwargs)
        finally:
            SENDING.reset(token)
        if not _took(exchange, response):
            response.stream = Tee(response.stream, exchange)
        for recorder in found:
            recorder.exchanges.append(exchange)
        return response

    @functools.wraps(original_async_send)
    async def async_send(self: Any, request: Any, *args: Any, **kwargs: Any) -> Any:
        found = recorders("httpx")
        if found:
            found = sending(found)
        exchange = _exchange(request) if found else None
        if exchange is None:
            return await original_async_send(self, request, *args, **kwargs)
        token = SENDING.set(SENDING.get() + found)
        try:
            response = await original_async_send(self, request, *args, **kwargs)
        finally:
            SENDING.reset(token)
        if not _took(exchange, response):
            response.stream = AsyncTee(response.stream, exchange)
        for recorder in found:
            recorder.exchanges.append(exchange)
        return response

    setattr(send, _MARK, True)
    setattr(async_send, _MARK, True)
    client.send = send
    async_client.send = async_send
