"""The AWS hook: Bedrock Runtime calls made through botocore (and so boto3).

``BaseClient._make_api_call`` is where every operation of every client,
created before the capture or inside it, passes; the wrapper looks at
``bedrock-runtime``'s ``Converse``, ``ConverseStream``, ``InvokeModel`` and
``InvokeModelWithResponseStream`` only, and costs one context-variable read
outside a capture. A stream (``response["stream"]``, ``response["body"]``) is
the same ``EventStream`` object the caller gets: its events are kept as the
caller iterates it. ``InvokeModel``'s body is read once and handed back as a
``StreamingBody`` over the same bytes.
"""

from __future__ import annotations

import functools
import io
from collections.abc import Iterator
from types import ModuleType
from typing import Any
from urllib.parse import urlsplit

from agentmetrics.capture._endpoints import endpoint_label
from agentmetrics.capture._records import Exchange
from agentmetrics.capture._state import next_seq, recorders

__all__ = ["install"]

_MARK = "__agentmetrics_capture__"
_ATTRIBUTE = "_agentmetrics_exchange"
_OPERATIONS = {"Converse": ("converse", "bedrock"),
               "ConverseStream": ("converse-stream", "bedrock"),
               "InvokeModel": ("invoke", "bedrock_invoke"),
               "InvokeModelWithResponseStream": ("invoke-with-response-stream", "bedrock_invoke")}


def _copy(value: Any) -> Any:
    """A copy of the JSON-like parts of a response, so later changes by the caller
    do not change what was recorded."""
    if isinstance(value, dict):
        return {key: _copy(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copy(item) for item in value]
    return value


def _body(body: Any) -> Any:
    """InvokeModel's body: bytes or str as given; a seekable file read, and put back
    where it was (boto3 accepts either)."""
    if hasattr(body, "read") and hasattr(body, "seek") and hasattr(body, "tell"):
        try:
            position = body.tell()
            data = body.read()
            body.seek(position)
        except (OSError, ValueError):
            return None
        return data
    return body


def _exchange(client: Any, operation: str, params: dict[str, Any]) -> Exchange | None:
    meta = client.meta
    if meta.service_model.service_name != "bedrock-runtime" or operation not in _OPERATIONS:
        return None
    path, format = _OPERATIONS[operation]
    model = params.get("modelId") if isinstance(params, dict) else None
    url = urlsplit(str(meta.endpoint_url))
    label = endpoint_label(url.scheme, url.hostname or "", url.port,
                           f"{url.path.rstrip('/')}/model/{model}/{path}")
    request = _copy(params) if format == "bedrock" else _body(params.get("body"))
    return Exchange(next_seq(), "botocore", "bedrock", format, label, request,
                    model_hint=model if isinstance(model, str) else None)


def install(module: ModuleType) -> None:
    """Wrap ``botocore.client.BaseClient._make_api_call`` and
    ``botocore.eventstream.EventStream.__iter__`` (once)."""
    import importlib

    eventstream = importlib.import_module("botocore.eventstream")
    response = importlib.import_module("botocore.response")
    base = module.BaseClient
    if getattr(base._make_api_call, _MARK, False):
        return
    original_call = base._make_api_call
    event_stream = eventstream.EventStream
    original_iter = event_stream.__iter__
    streaming_body = response.StreamingBody

    @functools.wraps(original_call)
    def make_api_call(self: Any, operation_name: str, api_params: Any) -> Any:
        found = recorders("botocore")
        if not found:
            return original_call(self, operation_name, api_params)
        exchange = _exchange(self, operation_name, api_params)
        if exchange is None:
            return original_call(self, operation_name, api_params)
        result = original_call(self, operation_name, api_params)
        exchange.status = (result.get("ResponseMetadata") or {}).get("HTTPStatusCode", 200)
        stream = result.get("stream") if operation_name == "ConverseStream" else (
            result.get("body") if operation_name == "InvokeModelWithResponseStream" else None)
        if stream is not None:
            exchange.streamed = True
            setattr(stream, _ATTRIBUTE, exchange)
        elif operation_name == "InvokeModel":
            data = result["body"].read()
            result["body"] = streaming_body(io.BytesIO(data), len(data))
            exchange.add(data)
            exchange.finish()
        else:
            exchange.add({key: _copy(value) for key, value in result.items()
                          if key != "ResponseMetadata"})
            exchange.finish()
        for recorder in found:
            recorder.exchanges.append(exchange)
        return result

    @functools.wraps(original_iter)
    def iterate(self: Any) -> Iterator[Any]:
        exchange = getattr(self, _ATTRIBUTE, None)
        if exchange is None:
            yield from original_iter(self)
            return
        try:
            for event in original_iter(self):
                exchange.add(_copy(event))
                yield event
        except GeneratorExit:
            exchange.finish("closed")
            raise
        except BaseException as error:
            exchange.finish("failed", f"{type(error).__name__} while the stream was read")
            raise
        exchange.finish()

    original_close = event_stream.close

    @functools.wraps(original_close)
    def close(self: Any) -> None:
        try:
            original_close(self)
        finally:
            exchange = getattr(self, _ATTRIBUTE, None)
            if exchange is not None:
                exchange.finish("closed")

    setattr(make_api_call, _MARK, True)
    base._make_api_call = make_api_call
    event_stream.__iter__ = iterate
    event_stream.close = close
