"""OpenTelemetry GenAI traces: spans, log events, OTLP JSON exports, output messages.

The calls of a trace are what its model spans requested and its tool spans
ran, in span start order:

- the tool-call parts of a model span's output messages: the
  ``gen_ai.output.messages`` attribute, or the same messages on the span's
  ``gen_ai.client.inference.operation.details`` event, or, in the older event
  mode, its ``gen_ai.choice`` events, or an instrumentation's own attributes
  (OpenInference's ``llm.output_messages.N.message.tool_calls.M.*``,
  Traceloop's older ``gen_ai.completion.N.tool_calls.M.*``);
- ``execute_tool`` spans (``gen_ai.tool.name``, ``gen_ai.tool.call.id``,
  ``gen_ai.tool.call.arguments``). A tool span that ran a requested call (the
  same id; without ids, the same name, in order) is that call, not another.

Requested calls are never merged with each other, even when ids repeat (some
instrumentations invent ids such as ``get_weather_0`` per response). Input
messages and input events are what a span was given, not its calls.
A model span that says it stopped for tool calls but whose content was not
captured is refused; a tool span whose arguments were not captured gives a
call whose ``raw_arguments`` is :data:`NOT_CAPTURED`.
"""

from __future__ import annotations

import base64
import binascii
import datetime
import re
from typing import Any

import attrs

from agentmetrics.formats._census import CAPTURE_HINT, INPUT_EVENTS, decoded_attribute, scan
from agentmetrics.formats._ledger import Ledger, as_dict, as_list, refuse, text
from agentmetrics.formats._openai_responses import hosted_arguments
from agentmetrics.formats._payload import Path

__all__ = ["NOT_CAPTURED", "read_otel"]

NAME = "otel"

#: ``raw_arguments`` of a call whose arguments telemetry did not record
#: (content capture off): the call is known, its arguments are not.
NOT_CAPTURED = "<not captured>"

_DETAILS_EVENT = "gen_ai.client.inference.operation.details"
_CHOICE_EVENT = "gen_ai.choice"
_TOOL_REASONS = frozenset({"tool_calls", "tool_call", "function_call", "tool_use"})
_TRACELOOP = re.compile(r"^gen_ai\.completion\.(\d+)\.tool_calls\.(\d+)\.name$")
_TRACELOOP_LEGACY = re.compile(r"^gen_ai\.completion\.(\d+)\.function_call\.name$")
_OPENINFERENCE = re.compile(
    r"^llm\.output_messages\.(\d+)\.message\.tool_calls\.(\d+)\.tool_call\.function\.name$")
_SPAN_KEYS = frozenset({"traceId", "trace_id", "spanId", "span_id", "context",
                        "startTimeUnixNano", "start_time_unix_nano", "start_time"})
_LOG_KEYS = frozenset({"eventName", "event_name", "observedTimeUnixNano",
                       "observed_time_unix_nano", "observed_timestamp", "severityNumber",
                       "severity_number"})
_ALTERNATIVES = ("the alternatives are separate answers (n>1 choices or candidates), not one "
                 "trajectory: keep the spans of one answer, or read its messages yourself.")


@attrs.define(slots=True)
class _Record:
    """A span or a log record, with what ordering and linking need."""

    node: dict[str, Any]
    path: Path
    attributes: dict[str, Any]
    time: int | None
    span: str | None  # the span id, canonical hex
    order: int
    is_log: bool
    events: list[_Record] = attrs.Factory(list)

    @property
    def event_name(self) -> str | None:
        name = self.node.get("eventName", self.node.get("event_name"))
        return name if isinstance(name, str) else None


def _nanos(value: object, path: Path) -> int | None:
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str):
        if value.isdigit():
            return int(value)
        try:  # to_json() writes ISO 8601 times
            moment = datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            pass
        else:
            if moment.tzinfo is None:
                moment = moment.replace(tzinfo=datetime.timezone.utc)
            delta = moment - datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
            return (delta.days * 86_400 + delta.seconds) * 1_000_000_000 + (
                delta.microseconds * 1_000)
    raise refuse(NAME, path, "a time (Unix nanoseconds, or an ISO 8601 time)",
                 repr(value)[:40], "pass the exporter's output unchanged.")


def _span_id(value: object) -> str | None:
    """A span id as lower-case hex, from hex, ``0x`` hex, base64 (protobuf JSON) or int."""
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:016x}" if value else None
    if not isinstance(value, str) or not value:
        return None
    text = value.removeprefix("0x").lower()
    if len(text) == 16 and all(c in "0123456789abcdef" for c in text):
        return text
    try:
        raw = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return text
    return raw.hex() if len(raw) == 8 else text


def _first(node: dict[str, Any], *keys: str) -> Any:
    return next((node[key] for key in keys if key in node), None)


def _record(node: dict[str, Any], path: Path, out: list[_Record], is_log: bool) -> None:
    context = as_dict(node.get("context"))
    if is_log:
        time_key = next((k for k in ("timeUnixNano", "time_unix_nano", "timestamp")
                         if node.get(k) not in (None, "0", 0)), None)
        time_key = time_key or next((k for k in ("observedTimeUnixNano",
                                                 "observed_time_unix_nano", "observed_timestamp")
                                     if k in node), None)
    else:
        time_key = next((k for k in ("startTimeUnixNano", "start_time_unix_nano", "start_time")
                         if k in node), None)
    time = _nanos(node[time_key], path + (time_key,)) if time_key else None
    span = _span_id(_first(node, "spanId", "span_id") or context.get("span_id"))
    out.append(_Record(node, path, as_dict(node.get("attributes")), time, span, len(out), is_log))


def _collect(tree: Any, path: Path, out: list[_Record]) -> None:
    if isinstance(tree, list):
        for index, item in enumerate(tree):
            _collect(item, path + (index,), out)
        return
    if not isinstance(tree, dict):
        raise refuse(NAME, path, "a span, a log record, an OTLP export or a list of them",
                     type(tree).__name__, "pass spans or the exporter's JSON.")
    for top, middle, leaf, is_log in (
        ("resourceSpans", "scopeSpans", "spans", False),
        ("resource_spans", "scope_spans", "spans", False),
        ("resourceLogs", "scopeLogs", "logRecords", True),
        ("resource_logs", "scope_logs", "log_records", True),
    ):
        if top not in tree:
            continue
        for r, resource in enumerate(as_list(tree[top])):
            for s, scope in enumerate(as_list(as_dict(resource).get(middle))):
                for n, item in enumerate(as_list(as_dict(scope).get(leaf))):
                    here = path + (top, r, middle, s, leaf, n)
                    if not isinstance(item, dict):
                        raise refuse(NAME, here, "a span or log record object",
                                     type(item).__name__, "pass the exporter's JSON unchanged.")
                    _record(item, here, out, is_log)
        return
    if any(key in tree for key in _LOG_KEYS) or ("body" in tree and "name" not in tree):
        _record(tree, path, out, is_log=True)
    elif isinstance(tree.get("attributes"), dict) and (
            "name" in tree or any(key in tree for key in _SPAN_KEYS)):
        _record(tree, path, out, is_log=False)
    elif "parts" in tree and "role" in tree:
        _record(tree, path, out, is_log=False)  # one bare output message
    else:
        raise refuse(NAME, path, "a span (name and attributes), a log record (eventName and "
                     "body), an OTLP export (resourceSpans, resourceLogs) or GenAI messages "
                     "(role and parts)", f"an object with keys {sorted(tree)[:8]}",
                     "pass spans, log records, the exporter's JSON, or gen_ai.output.messages.")


@attrs.define(slots=True)
class _Calls:
    """Calls requested so far, awaiting the tool span that runs them."""

    ledger: Ledger
    hosted_tools: bool
    pending: list[tuple[str | None, str]] = attrs.Factory(list)  # (id, name)

    def request(self, path: Path, name: object, arguments: object, call_id: object) -> None:
        call = self.ledger.add(path, name, arguments, call_id)
        self.pending.append((call.id, call.name))

    def execute(self, record: _Record) -> None:
        attributes = record.attributes
        call_id = attributes.get("gen_ai.tool.call.id")
        call_id = str(call_id) if isinstance(call_id, (str, int)) and call_id != "" else None
        name = attributes.get("gen_ai.tool.name")
        match = next((i for i, (i_d, n) in enumerate(self.pending)
                      if (i_d == call_id if call_id is not None else (i_d is None and n == name))),
                     None)
        if match is not None:  # the tool span of a call a model span requested
            self.pending.pop(match)
            self.ledger.mark(record.path, call_id)
            return
        arguments = attributes.get("gen_ai.tool.call.arguments", NOT_CAPTURED)
        self.ledger.add(record.path, name, arguments, call_id)


def _messages(messages: Any, path: Path, calls: _Calls) -> bool:
    """Tool-call parts of GenAI output messages; True when there were messages."""
    if isinstance(messages, dict):
        messages = [messages]
    if not isinstance(messages, list):
        raise refuse(NAME, path, "GenAI messages (a list of {role, parts})",
                     type(messages).__name__,
                     "pass the attribute as the instrumentation records it.")
    holding = [m for m, message in enumerate(messages) if isinstance(message, dict) and any(
        isinstance(part, dict) and part.get("type") in ("tool_call", "server_tool_call")
        for part in as_list(message.get("parts")))]
    if len(holding) > 1:
        raise refuse(NAME, path, "one output message with the calls",
                     f"{len(holding)} alternative output messages with calls", _ALTERNATIVES)
    for m, message in enumerate(messages):
        parts = message.get("parts") if isinstance(message, dict) else None
        if parts is None:
            continue
        if not isinstance(parts, list):
            raise refuse(NAME, path + (m, "parts"), "a list of parts", type(parts).__name__,
                         "pass the attribute as the instrumentation records it.")
        for p, part in enumerate(parts):
            if not isinstance(part, dict):
                continue
            here = path + (m, "parts", p)
            kind = part.get("type")
            if kind == "tool_call":
                calls.request(here, part.get("name"), part.get("arguments"), part.get("id"))
            elif kind == "server_tool_call":
                if not calls.hosted_tools:
                    calls.ledger.skip(here, part.get("id"))
                    continue
                details = part.get("server_tool_call")
                arguments = part.get("arguments")
                if arguments is None and isinstance(details, dict):
                    arguments = hosted_arguments(details)
                calls.request(here, part.get("name"), arguments, part.get("id"))
    return True


def _output_messages(record: _Record, calls: _Calls) -> bool:
    if "gen_ai.output.messages" not in record.attributes:
        return False
    value = record.attributes["gen_ai.output.messages"]
    messages = decoded_attribute(value)
    here = record.path + ("attributes", "gen_ai.output.messages")
    if messages is None and value is not None:
        raise refuse(NAME, here, "JSON text of GenAI messages", repr(value)[:60],
                     "pass the attribute as the instrumentation records it.")
    return _messages(messages or [], here, calls)


def _flattened(record: _Record, calls: _Calls) -> bool:
    """OpenInference's and Traceloop's older tool calls, one attribute per field."""
    attributes = record.attributes
    found: list[tuple[tuple[int, int], str]] = []
    for key in attributes:
        match = _TRACELOOP.match(key) or _OPENINFERENCE.match(key) or _TRACELOOP_LEGACY.match(key)
        if match:
            groups = match.groups()
            found.append(((int(groups[0]), int(groups[1]) if len(groups) > 1 else 0), key))
    if len({rank[0] for rank, _ in found}) > 1:
        raise refuse(NAME, record.path, "the calls of one output message",
                     "calls in several alternative output messages", _ALTERNATIVES)
    for _, key in sorted(found):
        prefix = key.removesuffix(".name")
        if prefix.endswith(".function"):  # OpenInference: tool_call.function.name
            arguments = attributes.get(prefix + ".arguments")
            prefix = prefix.removesuffix(".function")
        else:
            arguments = attributes.get(prefix + ".arguments")
        calls.request(record.path + ("attributes", prefix), attributes.get(key), arguments,
                      attributes.get(prefix + ".id"))
    return bool(found) or any(key.startswith(("gen_ai.completion.", "llm.output_messages."))
                              for key in attributes)


def _choice(record: _Record, calls: _Calls) -> bool:
    """An older ``gen_ai.choice`` event: a choice's message and its tool calls."""
    body = record.node.get("body")
    if not isinstance(body, dict):
        return False
    index = body.get("index", 0)
    where: Path = ("body", "tool_calls")
    items = body.get("tool_calls")
    if items is None:
        where, items = ("body", "message", "tool_calls"), as_dict(body.get("message")).get(
            "tool_calls")
    if not isinstance(items, list) or not items:
        return True
    if index not in (0, None):
        raise refuse(NAME, record.path + ("body", "index"), "the calls of one choice",
                     f"calls in choice {index!r}", _ALTERNATIVES)
    for j, item in enumerate(items):
        if not isinstance(item, dict):
            continue
        function = as_dict(item.get("function"))
        arguments = function["arguments"] if "arguments" in function else NOT_CAPTURED
        calls.request(record.path + where + (j,), function.get("name"), arguments,
                      item.get("id"))
    return True


def _says_tool_calls(attributes: dict[str, Any]) -> bool:
    reasons = attributes.get("gen_ai.response.finish_reasons")
    if isinstance(reasons, str):
        reasons = [reasons]
    if isinstance(reasons, list) and _TOOL_REASONS.intersection(
            r for r in reasons if isinstance(r, str)):
        return True
    return text(attributes.get("llm.finish_reason")) in _TOOL_REASONS


def _model_span(record: _Record, calls: _Calls) -> None:
    """A model span's requested calls, from the first source that holds its content."""
    content = _output_messages(record, calls) or _flattened(record, calls)
    for event in record.events:
        name = event.event_name
        if name in (_DETAILS_EVENT, _CHOICE_EVENT):
            if content:  # the span holds the messages too: the event is a copy
                for site in scan(event.node, event.path).sites:
                    calls.ledger.mark(site.path, site.id)
            elif name == _DETAILS_EVENT:
                content = _output_messages(event, calls) or content
            else:
                content = _choice(event, calls) or content
    if not content and _says_tool_calls(record.attributes):
        raise refuse(
            NAME, record.path, "the tool calls the model requested", "a model span whose "
            "finish reasons say it called tools, with no message content on it or on its log "
            "events", "pass the span's log events with it if the instrumentation writes "
            "content there; otherwise turn on message content capture and record again."
            + CAPTURE_HINT)


def read_otel(tree: Any, ledger: Ledger, *, hosted_tools: bool = True) -> None:
    """Spans (dicts, ``ReadableSpan`` objects, ``to_json()``), log records
    (``ReadableLogRecord``, OTLP logs), OTLP JSON exports or a list of them, or
    bare ``gen_ai.output.messages``."""
    calls = _Calls(ledger, hosted_tools)
    if isinstance(tree, list) and tree and all(
            isinstance(item, dict) and "parts" in item and "attributes" not in item
            for item in tree):
        _messages(tree, (), calls)  # bare output messages
        return
    records: list[_Record] = []
    _collect(tree, (), records)
    spans = {record.span: record for record in records if not record.is_log and record.span}
    top: list[_Record] = []
    for record in records:
        owner = spans.get(record.span) if record.is_log and record.span else None
        if owner is not None:
            owner.events.append(record)  # an event of a span in the payload
        else:
            top.append(record)
    if all(record.time is not None for record in top):
        top.sort(key=lambda record: (record.time, record.order))
    for record in top:
        attributes = record.attributes
        if record.is_log:
            name = record.event_name
            if name in INPUT_EVENTS:
                continue
            if name == _CHOICE_EVENT:
                _choice(record, calls)
            elif not _output_messages(record, calls) and _says_tool_calls(attributes):
                _model_span(record, calls)  # raises: content not captured
        elif "parts" in record.node and "role" in record.node:
            _messages(record.node, record.path, calls)
        elif attributes.get("gen_ai.operation.name") == "execute_tool" or (
                "gen_ai.tool.name" in attributes):
            calls.execute(record)
        else:
            _model_span(record, calls)
