"""What users pass, as one JSON tree: SDK objects, JSON text and SSE streams in.

Every reader and the call census work on the tree this module returns, so a
path such as ``output[1].arguments`` means the same thing to all of them.
No SDK is imported: objects are recognised by what they can do
(``model_dump``, ``to_dict``, ``to_json_dict``, a span's ``get_span_context``).
"""

from __future__ import annotations

import datetime
import enum
import json
import uuid
from collections.abc import Iterable, Mapping
from decimal import Decimal
from typing import Any

from agentmetrics.errors import InvalidCaseError
from agentmetrics.model._model import describe

__all__ = ["MAX_DEPTH", "Path", "render", "to_tree"]

#: A position inside a payload: keys and list indices from the top.
Path = tuple[str | int, ...]

#: Deeper payloads are refused: no real trace nests this far, and a hostile
#: one must not exhaust the interpreter's stack.
MAX_DEPTH = 200

_SCALARS = (str, int, float, bool, type(None))


def render(path: Path) -> str:
    """``output[1].arguments``; keys that are not identifiers are quoted."""
    text = ""
    for step in path:
        if isinstance(step, int):
            text += f"[{step}]"
        elif step.isidentifier():
            text += f".{step}" if text else step
        else:
            text += f"[{json.dumps(step)}]"
    return text or "the payload"


def _where(path: Path) -> str:
    return "the payload" if not path else f"{render(path)}"


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _loads(text: str, path: Path) -> Any:
    try:
        return json.loads(text, parse_constant=_refuse_constant)
    except RecursionError:
        raise InvalidCaseError(
            f"{_where(path)}: JSON text nested too deeply to read. Fix: pass the payload "
            f"as data, or trim it."
        ) from None
    except ValueError as error:
        raise InvalidCaseError(
            f"{_where(path)}: expected JSON text, a stream of 'data:' lines or JSON lines; "
            f"got text that does not parse ({error}). Fix: pass the payload as the SDK "
            f"object, its model_dump(mode='json'), or its exact JSON text."
        ) from None


def _is_sse(text: str) -> bool:
    head = text.lstrip()[:6]
    return head.startswith(("data:", "event:", ":"))


def _sse_events(text: str, path: Path) -> list[Any]:
    """The JSON data of each server-sent event; ``[DONE]`` ends the stream."""
    events: list[Any] = []
    data: list[str] = []

    def flush() -> None:
        if data:
            body = "\n".join(data)
            data.clear()
            if body.strip() != "[DONE]":
                events.append(_loads(body, path + (len(events),)))

    for line in text.splitlines():
        if not line.strip():
            flush()
        elif line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))
        elif line.startswith((":", "event:", "id:", "retry:")):
            continue
        else:
            raise InvalidCaseError(
                f"{_where(path)}: expected server-sent events ('data: {{...}}' lines), got the "
                f"line {line[:60]!r}. Fix: pass the raw stream text unchanged, or the list of "
                f"decoded events."
            )
    flush()
    return events


def _text(text: str, path: Path) -> Any:
    """JSON text, JSON lines (one document a line) or server-sent events."""
    text = text.removeprefix("\ufeff")
    if not text.strip():
        raise InvalidCaseError(
            f"{_where(path)}: expected JSON text, got {'an empty' if not text else 'a blank'} "
            f"string. Fix: pass the payload itself."
        )
    if _is_sse(text):
        return _sse_events(text, path)
    try:
        return json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as error:
        if error.msg != "Extra data":
            return _loads(text, path)  # raises with the message
    except (ValueError, RecursionError):
        return _loads(text, path)  # raises with the message
    # Several documents: JSON lines (OpenTelemetry's file exporter), or pretty
    # objects one after another (its console exporter).
    decoder = json.JSONDecoder(parse_constant=_refuse_constant)
    documents: list[Any] = []
    position, end = 0, len(text)
    while position < end:
        while position < end and text[position].isspace():
            position += 1
        if position == end:
            break
        try:
            document, position = decoder.raw_decode(text, position)
        except (ValueError, RecursionError):
            _loads(text[position:], path + (len(documents),))  # raises with the message
            raise  # pragma: no cover - _loads raised already
        documents.append(document)
    return documents


def _decode_bytes(value: bytes | bytearray | memoryview, path: Path) -> str:
    try:
        return bytes(value).decode("utf-8")
    except UnicodeDecodeError as error:
        raise InvalidCaseError(
            f"{_where(path)}: expected UTF-8 JSON bytes, got bytes that are not UTF-8 "
            f"({error.reason} at byte {error.start}). Fix: decode the text with its encoding "
            f"and pass a str."
        ) from None


def _hex(value: object, width: int) -> str | None:
    """A trace or span id as the hex OTLP JSON uses; None for no id."""
    return f"{value:0{width}x}" if isinstance(value, int) and value else None


def _span(span: Any) -> dict[str, Any]:
    """An OpenTelemetry ``ReadableSpan`` as the fields readers use."""
    context = span.get_span_context()
    parent = getattr(span, "parent", None)
    events = [
        {"name": event.name, "timeUnixNano": event.timestamp,
         "attributes": dict(event.attributes or {})}
        for event in getattr(span, "events", ()) or ()
    ]
    return {
        "name": span.name,
        "traceId": _hex(context.trace_id, 32),
        "spanId": _hex(context.span_id, 16),
        "parentSpanId": None if parent is None else _hex(parent.span_id, 16),
        "startTimeUnixNano": span.start_time,
        "endTimeUnixNano": span.end_time,
        "attributes": dict(span.attributes or {}),
        "events": events,
    }


def _log_record(readable: Any) -> dict[str, Any]:
    """An OpenTelemetry ``ReadableLogRecord`` (an event) as the fields readers use."""
    record = readable.log_record
    return {
        "eventName": getattr(record, "event_name", None),
        "body": record.body,
        "attributes": dict(record.attributes or {}),
        "timeUnixNano": record.timestamp,
        "observedTimeUnixNano": record.observed_timestamp,
        "traceId": _hex(record.trace_id, 32),
        "spanId": _hex(record.span_id, 16),
    }


def _convert(value: Any, path: Path) -> Any:
    """One object that is not JSON data, converted by what it offers."""
    kind = type(value)
    try:
        if callable(getattr(kind, "model_dump", None)):  # pydantic v2: SDK types, LangChain
            # warnings=False: an SDK object holding a type its models do not know
            # (a new item type) dumps it as is, instead of warning about it.
            try:
                return value.model_dump(mode="json", warnings=False)
            except TypeError as error:
                if "warnings" not in str(error):
                    raise
                return value.model_dump(mode="json")  # a model_dump without that option
        if callable(getattr(kind, "get_span_context", None)) and hasattr(value, "attributes"):
            return _span(value)  # OpenTelemetry ReadableSpan
        if hasattr(value, "log_record") and callable(getattr(kind, "to_json", None)):
            return _log_record(value)  # OpenTelemetry ReadableLogRecord
        if hasattr(value, "new_items") and hasattr(value, "raw_responses"):
            return list(value.new_items)  # an Agents SDK run result: this run's items
        if hasattr(value, "raw_item") and callable(getattr(kind, "to_input_item", None)):
            return value.raw_item  # an Agents SDK run item
        for method in ("to_json_dict", "to_dict"):
            if callable(getattr(kind, method, None)):
                return getattr(value, method)()
        if isinstance(getattr(value, "output", None), list) and hasattr(value, "usage"):
            return {"output": value.output}  # an Agents SDK model response
    except InvalidCaseError:
        raise
    except Exception as error:  # an SDK object that cannot serialise itself
        raise InvalidCaseError(
            f"{_where(path)}: could not turn the {kind.__name__} into data "
            f"({type(error).__name__}: {error}). Fix: pass its JSON dump instead."
        ) from None
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, (uuid.UUID, Decimal)):
        return str(value)
    if isinstance(value, (set, frozenset)):
        raise InvalidCaseError(
            f"{_where(path)}: expected a list, got a {kind.__name__}, whose order is not "
            f"defined. Fix: pass a list in the order the agent acted."
        )
    if isinstance(value, Iterable) and not isinstance(value, (str, bytes, Mapping)):
        return list(value)  # a stream object or generator of chunks
    raise InvalidCaseError(
        f"{_where(path)}: cannot read {describe(value)}. Expected JSON data (dict, list, "
        f"str, number, bool, None), JSON text, or an SDK object with model_dump(), to_dict() "
        f"or to_json_dict(), or an OpenTelemetry span. Fix: pass the object's JSON dump."
    )


_ANY_VALUE = {
    "stringValue": str, "string_value": str, "boolValue": bool, "bool_value": bool,
    "intValue": int, "int_value": int, "doubleValue": float, "double_value": float,
    "bytesValue": str, "bytes_value": str,
}


def _any_value(value: Any, path: Path) -> Any:
    """An OTLP JSON ``AnyValue`` (``{"stringValue": "x"}``) as the value it holds."""
    if not isinstance(value, Mapping):
        return value
    for key, kind in _ANY_VALUE.items():
        if key in value:
            item = value[key]
            if isinstance(item, kind) and not (kind is not bool and isinstance(item, bool)):
                return item
            if kind in (int, float) and isinstance(item, (str, int)) and not isinstance(
                    item, bool):
                try:
                    return kind(item)  # int64 travels as a JSON string
                except ValueError:
                    pass
            raise InvalidCaseError(
                f"{render(path + (key,))}: expected an OTLP {key} holding a "
                f"{kind.__name__}, got {describe(item)}. Fix: pass the exporter's output "
                f"unchanged."
            )
    for key in ("arrayValue", "array_value"):
        if key in value:
            values = value[key].get("values", []) if isinstance(value[key], Mapping) else None
            if not isinstance(values, list):
                break
            return [_any_value(item, path + (key, index)) for index, item in enumerate(values)]
    for key in ("kvlistValue", "kvlist_value"):
        if key in value:
            values = value[key].get("values", []) if isinstance(value[key], Mapping) else None
            if not isinstance(values, list):
                break
            return _key_values(values, path + (key,))
    if not value:
        return None  # an empty AnyValue: the attribute is set to nothing
    raise InvalidCaseError(
        f"{render(path)}: expected an OTLP AnyValue (stringValue, intValue, doubleValue, "
        f"boolValue, bytesValue, arrayValue or kvlistValue), got {describe(value)}. Fix: pass "
        f"the exporter's output unchanged."
    )


def _is_any_value(value: Any) -> bool:
    """An OTLP log body: one AnyValue key, or ``{}`` for no body."""
    return type(value) is dict and (not value or (len(value) == 1 and (
        next(iter(value)) in _ANY_VALUE or next(iter(value)) in _COMPOUND)))


_COMPOUND = frozenset({"arrayValue", "array_value", "kvlistValue", "kvlist_value"})
#: Keys of an OTLP log record beside its ``body``: only there is ``body`` an AnyValue
#: (a tool's arguments may well hold a key named "body").
_LOG_KEYS = frozenset({"timeUnixNano", "time_unix_nano", "observedTimeUnixNano",
                       "observed_time_unix_nano", "severityNumber", "severity_number",
                       "severityText", "severity_text", "eventName", "event_name"})


def _is_key_values(value: Any) -> bool:
    return type(value) is list and bool(value) and all(
        isinstance(item, Mapping) and "key" in item and "value" in item for item in value)


def _key_values(items: list[Any], path: Path) -> dict[str, Any]:
    """OTLP JSON attributes (``[{"key": k, "value": {AnyValue}}]``) as a dict."""
    out: dict[str, Any] = {}
    for index, item in enumerate(items):
        key = item.get("key") if isinstance(item, Mapping) else None
        if not isinstance(key, str):
            raise InvalidCaseError(
                f"{render(path + (index,))}: expected an OTLP key/value pair with a string "
                f"'key', got {describe(item)}. Fix: pass the exporter's output unchanged."
            )
        out[key] = _any_value(item.get("value"), path + (key,))
    return out


def _is_invoke_chunk(chunk: object) -> bool:
    return (type(chunk) is dict and len(chunk) == 1 and "bytes" in chunk
            and isinstance(chunk["bytes"], (bytes, bytearray, memoryview)))


def _invoke_chunk(chunk: dict[str, Any], path: Path) -> Any:
    """An event of Bedrock's ``invoke_model_with_response_stream`` (``{"chunk":
    {"bytes": b"..."}}``, as boto3 yields it) as the model's own stream event
    those bytes hold (Anthropic's, Nova's, ...)."""
    return _loads(_decode_bytes(chunk["bytes"], path), path)


def _walk(value: Any, path: Path, depth: int) -> Any:
    if depth > MAX_DEPTH:
        raise InvalidCaseError(
            f"{_where(path)}: nested more than {MAX_DEPTH} levels deep; expected a provider "
            f"payload. Fix: pass the payload, not a structure that contains it this deeply."
        )
    kind = type(value)
    if kind is dict:
        if len(value) == 1 and "chunk" in value and _is_invoke_chunk(value["chunk"]):
            return _walk(_invoke_chunk(value["chunk"], path + ("chunk", "bytes")), path, depth + 1)
        out: dict[str, Any] | None = None
        for index, (key, item) in enumerate(value.items()):
            if type(key) is not str:
                raise InvalidCaseError(
                    f"{_where(path)}: expected string keys, got the key {describe(key)}. "
                    f"Fix: pass JSON data, whose object keys are strings."
                )
            new = item
            if key == "attributes" and _is_key_values(item):
                new = _key_values(item, path + (key,))
            elif key == "body" and _is_any_value(item) and not _LOG_KEYS.isdisjoint(value):
                new = _any_value(item, path + (key,))
            if type(new) not in (str, int, bool, type(None)):
                new = _walk(new, path + (key,), depth + 1)
            if new is not item and out is None:
                out = dict(list(value.items())[:index])
            if out is not None:
                out[key] = new
        return value if out is None else out
    if kind is list:
        items: list[Any] | None = None
        for index, item in enumerate(value):
            new = item if type(item) in (str, int, bool, type(None)) else _walk(
                item, path + (index,), depth + 1)
            if new is not item and items is None:
                items = value[:index]
            if items is not None:
                items.append(new)
        return value if items is None else items
    if kind is float:
        if value != value or value in (float("inf"), float("-inf")):
            raise InvalidCaseError(
                f"{_where(path)}: expected a finite number, got {value!r}, which JSON cannot "
                f"hold. Fix: send null or a number."
            )
        return value
    if kind in (str, int, bool, type(None)):
        return value
    if isinstance(value, (bytes, bytearray, memoryview)):
        return value if path else _walk(_text(_decode_bytes(value, path), path), path, depth)
    if isinstance(value, Mapping):
        return _walk(dict(value), path, depth)
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        return _walk(list(value), path, depth)
    if isinstance(value, (str, int, float)) and not isinstance(value, enum.Enum):
        return _walk((str if isinstance(value, str) else
                      int if isinstance(value, int) else float)(value), path, depth)
    return _walk(_convert(value, path), path, depth + 1)


def _plain(value: Any) -> bool:
    """Whether ``value`` is JSON data that :func:`_walk` would return unchanged:
    string keys, finite floats, no ``attributes`` or ``body`` (which may be OTLP's
    to convert; a Bedrock chunk holds bytes, which are not JSON data), not too
    deep. Told in one loop without building a path: the common case of a parsed
    JSON line."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    pop, push = stack.pop, stack.append
    while stack:
        node, depth = pop()
        if depth >= MAX_DEPTH:
            return False
        if type(node) is dict:
            if "attributes" in node or "body" in node:
                return False
            for key, item in node.items():
                kind = type(item)
                if type(key) is not str:
                    return False
                if kind is str or kind is int or kind is bool or item is None:
                    continue
                if kind is dict or kind is list:
                    push((item, depth + 1))
                elif kind is not float or item - item != 0.0:  # not JSON, NaN or infinite
                    return False
        else:  # the same loop without keys: one loop for both costs a call or a set a node
            for item in node:
                kind = type(item)
                if kind is str or kind is int or kind is bool or item is None:
                    continue
                if kind is dict or kind is list:
                    push((item, depth + 1))
                elif kind is not float or item - item != 0.0:
                    return False
    return True


def _tree(value: Any) -> Any:
    """``value`` as :func:`_walk` gives it, at once when it is plain JSON data."""
    return value if type(value) in (dict, list) and _plain(value) else _walk(value, (), 0)


def to_tree(payload: object) -> Any:
    """``payload`` as plain JSON data (dicts, lists, str, numbers, bool, None).

    Text (str or bytes) at the top, or as an item of a top-level list, is read
    as JSON, JSON lines or server-sent events. Raises InvalidCaseError, with
    the path, for anything that cannot be read exactly.
    """
    if isinstance(payload, (bytes, bytearray, memoryview)):
        payload = _decode_bytes(payload, ())
    if isinstance(payload, str):
        return _tree(_text(payload, ()))
    if isinstance(payload, (list, tuple)) and any(
        isinstance(item, (str, bytes, bytearray)) for item in payload
    ):
        payload = [
            _text(_decode_bytes(item, (index,)) if not isinstance(item, str) else item, (index,))
            if isinstance(item, (str, bytes, bytearray)) else item
            for index, item in enumerate(payload)
        ]
    return _tree(payload)
