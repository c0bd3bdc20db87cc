"""Ground-truth OpenTelemetry GenAI payloads, built offline with the real SDKs.

Every trace here is recorded by the real OpenTelemetry SDK (TracerProvider +
SimpleSpanProcessor + InMemorySpanExporter; LoggerProvider +
SimpleLogRecordProcessor + InMemoryLogRecordExporter for log-based events)
while REAL instrumentations drive REAL SDK clients that talk to an
``httpx2.MockTransport``:

- opentelemetry-instrumentation-openai-v2 around ``openai.OpenAI`` chat
  completions (content capture ``span_only`` / ``event_only`` /
  ``span_and_event`` / off, the legacy v1.30 ``gen_ai.choice`` event path,
  streaming);
- opentelemetry-instrumentation-google-genai around ``genai.Client``
  ``generate_content`` (function calls, code execution, automatic function
  calling, capture off);
- Traceloop's opentelemetry-instrumentation-openai (attributes and events);
- openinference-instrumentation-openai (``llm.output_messages.*``).

``execute_tool`` spans are created by hand with the tracer, as agent
frameworks do, and once through opentelemetry-util-genai's own
``TelemetryHandler.tool``.

Forms per trace: the ``ReadableSpan`` objects, one span alone, ``to_json()``
text (list of texts, one JSON list, ConsoleSpanExporter output), OTLP made by
the real encoder (``encode_spans`` -> protobuf -> ``MessageToDict``, camelCase
and snake_case, JSON text and bytes, one export per batch as a list and as
JSON lines, and the OTLP/JSON-spec variant with hex ids and integer enums).

Determinism: ids come from a counting IdGenerator, time from a fake clock that
is patched into the SDK only while a trace is recorded; env vars and
instrumentations are restored/uninstrumented after each trace.

Compatibility shim (see FINDINGS.md): opentelemetry-instrumentation-openai-v2
2.4b0 imports ``opentelemetry.util.genai.instruments`` and calls
``TelemetryHandler.start_inference``, both gone from the installed
opentelemetry-util-genai 1.3b0 (renamed ``_instruments`` / ``inference``).
While an openai-v2 trace is recorded, the missing names are aliased to the new
ones; nothing else of the instrumentation is touched.
"""

from __future__ import annotations

import base64
import contextlib
import importlib
import io
import json
import logging
import os
import sys
import types
from typing import Any
from collections.abc import Callable, Iterator, Sequence

import httpx2
import openai
from google.protobuf.json_format import MessageToDict, MessageToJson
from opentelemetry import trace as trace_api
from opentelemetry.exporter.otlp.proto.common._log_encoder import encode_logs
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import (
    InMemoryLogRecordExporter,
    SimpleLogRecordProcessor,
)
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import ConsoleSpanExporter, SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.id_generator import IdGenerator
from opentelemetry.trace import SpanKind, Status, StatusCode

from payloads._scenario import Call, Scenario

PROVIDER = "otel"
CAPTURE = r"(?i)content capture"
ALTERNATIVES = r"(?i)alternative"

_RESOURCE = Resource({"service.name": "weather-agent", "service.version": "1.0.0"})
_T0 = 1_767_225_600_000_000_000  # 2026-01-01T00:00:00Z in ns
_MS = 1_000_000


# --------------------------------------------------------------------------- #
# Deterministic recording
# --------------------------------------------------------------------------- #


class _CountingIds(IdGenerator):
    """Fixed, distinct ids per trace number (the SDK's generator is random)."""

    def __init__(self, trace_no: int) -> None:
        self._no = trace_no
        self._traces = 0
        self._spans = 0

    def generate_trace_id(self) -> int:
        self._traces += 1
        return 0x4BF92F3577B34DA6A3CE000000000000 | (self._no << 16) | self._traces

    def generate_span_id(self) -> int:
        self._spans += 1
        return 0x00F067AA00000000 | (self._no << 16) | self._spans


class _Clock:
    def __init__(self, start: int) -> None:
        self.now = start

    def __call__(self) -> int:
        self.now += _MS
        return self.now


@contextlib.contextmanager
def _fake_clock(start: int) -> Iterator[_Clock]:
    """Patch the SDK's ``time_ns`` (spans and log records) with a 1 ms step clock."""
    import opentelemetry._logs._internal as api_logs
    import opentelemetry.sdk._logs._internal as sdk_logs
    import opentelemetry.sdk.trace as sdk_trace

    clock = _Clock(start)
    saved = [(module, module.time_ns) for module in (sdk_trace, api_logs, sdk_logs)]
    for module, _ in saved:
        module.time_ns = clock
    try:
        yield clock
    finally:
        for module, original in saved:
            module.time_ns = original


@contextlib.contextmanager
def _env(**values: str | None) -> Iterator[None]:
    """Set (or, for None, unset) env vars; restore them all afterwards."""
    saved = {key: os.environ.get(key) for key in values}
    # google-genai's instrumentor sets OTEL_INSTRUMENTATION_GENAI_EMIT_EVENT
    # itself: always restore that one too.
    saved.setdefault("OTEL_INSTRUMENTATION_GENAI_EMIT_EVENT",
                     os.environ.get("OTEL_INSTRUMENTATION_GENAI_EMIT_EVENT"))
    try:
        for key, value in values.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


class _Recorder:
    """One trace: providers, in-memory exporters, a fake clock and an agent tracer."""

    def __init__(self, trace_no: int) -> None:
        self.trace_no = trace_no
        self.span_exporter = InMemorySpanExporter()
        self.log_exporter = InMemoryLogRecordExporter()
        self.tp = TracerProvider(
            resource=_RESOURCE, id_generator=_CountingIds(trace_no), shutdown_on_exit=False
        )
        self.tp.add_span_processor(SimpleSpanProcessor(self.span_exporter))
        self.lp = LoggerProvider(resource=_RESOURCE, shutdown_on_exit=False)
        self.lp.add_log_record_processor(SimpleLogRecordProcessor(self.log_exporter))
        self.tracer = self.tp.get_tracer("weather_agent.framework", "0.3.1")
        self._clock_cm = _fake_clock(_T0 + trace_no * 1_000_000 * _MS)

    def __enter__(self) -> _Recorder:
        self.clock = self._clock_cm.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self._clock_cm.__exit__(*exc)

    @property
    def spans(self) -> list[ReadableSpan]:
        """Spans in export order (= END order with SimpleSpanProcessor)."""
        return list(self.span_exporter.get_finished_spans())

    @property
    def logs(self) -> list[Any]:
        return list(self.log_exporter.get_finished_logs())


# --------------------------------------------------------------------------- #
# Instrumentations (each instrumented only while its trace is recorded)
# --------------------------------------------------------------------------- #


# Modules whose classes the instrumentations patch (Traceloop wraps lazily imported ones).
_PATCHED_MODULES = (
    "openai.resources.chat.completions", "openai.resources.completions",
    "openai.resources.embeddings", "openai.resources.images", "openai.resources.responses",
    "openai.resources.beta.assistants", "openai.resources.beta.chat.completions",
    "openai.resources.beta.threads.messages", "openai.resources.beta.threads.runs",
    "openai.resources.beta.realtime.realtime", "google.genai.models",
)


@contextlib.contextmanager
def _restore_patched_classes() -> Iterator[None]:
    """Put back every class attribute an instrumentation patched.

    Needed because Traceloop 0.62.4's uninstrument() unwraps nothing (it calls
    ``unwrap("openai.resources.chat.completions", "Completions.create")``, which
    resolves the wrong object), and openai-v2's unwrap of a stacked wrapper leaves
    a BoundFunctionWrapper behind.
    """
    for name in _PATCHED_MODULES:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    prefixes = ("openai.resources", "openai._client", "google.genai.models")
    classes = {id(obj): obj for mod_name, mod in list(sys.modules.items())
               if mod_name.startswith(prefixes) and mod is not None
               for obj in vars(mod).values()
               if isinstance(obj, type) and obj.__module__.startswith(("openai", "google"))}
    saved = {cls: dict(vars(cls)) for cls in classes.values()}
    try:
        yield
    finally:
        for cls, before in saved.items():
            now = vars(cls)
            for key in [k for k in now if k not in before]:
                with contextlib.suppress(AttributeError, TypeError):
                    delattr(cls, key)
            for key, value in before.items():
                if now.get(key) is not value:
                    with contextlib.suppress(AttributeError, TypeError):
                        setattr(cls, key, value)


@contextlib.contextmanager
def _openai_v2_compat() -> Iterator[None]:
    """Alias the two util-genai names openai-v2 2.4b0 needs (see module doc)."""
    import opentelemetry.util.genai as util_genai
    from opentelemetry.util.genai import _instruments
    from opentelemetry.util.genai.handler import TelemetryHandler

    name = "opentelemetry.util.genai.instruments"
    added_module = False
    try:
        __import__(name)
    except ImportError:
        module = types.ModuleType(name)
        module.create_duration_histogram = (  # type: ignore[attr-defined]
            lambda meter: _instruments._Instruments(meter).operation_duration)
        module.create_token_histogram = (  # type: ignore[attr-defined]
            lambda meter: _instruments._Instruments(meter).token_usage)
        sys.modules[name] = module
        util_genai.instruments = module  # type: ignore[attr-defined]
        added_module = True
    added_alias = not hasattr(TelemetryHandler, "start_inference")
    if added_alias:
        TelemetryHandler.start_inference = TelemetryHandler.inference  # type: ignore[attr-defined]
    try:
        yield
    finally:
        if added_alias:
            del TelemetryHandler.start_inference  # type: ignore[attr-defined]
        if added_module:
            # openai_v2.instruments already holds the functions it imported.
            sys.modules.pop(name, None)
            with contextlib.suppress(AttributeError):
                del util_genai.instruments  # type: ignore[attr-defined]


@contextlib.contextmanager
def _openai_v2(rec: _Recorder, capture: str | None, *, legacy: bool = False) -> Iterator[None]:
    """openai-v2 with OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=capture.

    legacy=True: the v1.30 path (``gen_ai.choice`` log events, capture "true"/
    "false"), i.e. what ``instrument()`` wires when ``is_experimental_mode()``
    is False. util-genai 1.3b0 hard-codes it to True, so it is forced to False
    while instrumenting.
    """
    with _env(
        OTEL_SEMCONV_STABILITY_OPT_IN=None if legacy else "gen_ai_latest_experimental",
        OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=capture,
        OTEL_INSTRUMENTATION_GENAI_EMIT_EVENT=None,
    ), _openai_v2_compat(), _restore_patched_classes():
        import opentelemetry.instrumentation.openai_v2 as openai_v2

        instrumentor = openai_v2.OpenAIInstrumentor()
        original = openai_v2.is_experimental_mode
        util_log = logging.getLogger("opentelemetry.util.genai.utils")
        level = util_log.level
        if legacy:
            openai_v2.is_experimental_mode = lambda: False
            # The (unused) TelemetryHandler warns that "true" is no capture mode.
            util_log.setLevel(logging.ERROR)
        try:
            instrumentor.instrument(tracer_provider=rec.tp, logger_provider=rec.lp)
        finally:
            openai_v2.is_experimental_mode = original
            util_log.setLevel(level)
        try:
            yield
        finally:
            instrumentor.uninstrument()


@contextlib.contextmanager
def _traceloop(rec: _Recorder, *, use_attributes: bool = True,
               trace_content: bool = True) -> Iterator[None]:
    from opentelemetry.instrumentation.openai import OpenAIInstrumentor
    from opentelemetry.instrumentation.openai.shared.config import Config

    with _env(TRACELOOP_TRACE_CONTENT="true" if trace_content else "false"), \
            _restore_patched_classes():
        instrumentor = OpenAIInstrumentor(use_attributes=use_attributes)
        instrumentor.instrument(tracer_provider=rec.tp, logger_provider=rec.lp)
        try:
            yield
        finally:
            instrumentor.uninstrument()
            Config.use_legacy_attributes = True
            Config.event_logger = None


@contextlib.contextmanager
def _openinference(rec: _Recorder, *, hide_outputs: bool = False) -> Iterator[None]:
    from openinference.instrumentation import TraceConfig
    from openinference.instrumentation.openai import OpenAIInstrumentor

    with _restore_patched_classes():
        instrumentor = OpenAIInstrumentor()
        instrumentor.instrument(tracer_provider=rec.tp,
                                config=TraceConfig(hide_outputs=hide_outputs))
        try:
            yield
        finally:
            instrumentor.uninstrument()


@contextlib.contextmanager
def _google_genai(rec: _Recorder, capture: str | None) -> Iterator[None]:
    from opentelemetry.instrumentation.google_genai import GoogleGenAiSdkInstrumentor

    quiet = logging.getLogger("google_genai.models")
    level = quiet.level
    quiet.setLevel(logging.ERROR)  # "Direct use of AFC ... not recommended"
    with _env(OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=capture,
              OTEL_INSTRUMENTATION_GENAI_EMIT_EVENT=None), _restore_patched_classes():
        instrumentor = GoogleGenAiSdkInstrumentor()
        # 1.3b0 declares google-genai<3; the installed 3.6 works: skip the check.
        instrumentor.instrument(tracer_provider=rec.tp, logger_provider=rec.lp,
                                skip_dep_check=True)
        try:
            yield
        finally:
            instrumentor.uninstrument()
            quiet.setLevel(level)


# --------------------------------------------------------------------------- #
# Mock servers
# --------------------------------------------------------------------------- #


def _responder(items: list[Any]) -> Callable[[httpx2.Request], httpx2.Response]:
    queue = list(items)

    def handler(request: httpx2.Request) -> httpx2.Response:
        item = queue.pop(0)
        if isinstance(item, str):  # SSE text
            return httpx2.Response(200, headers={"content-type": "text/event-stream"},
                                   content=item.encode())
        return httpx2.Response(200, json=item)

    return handler


def _openai_client(items: list[Any]) -> openai.OpenAI:
    return openai.OpenAI(
        api_key="sk-test", base_url="http://test/v1", max_retries=0,
        http_client=openai.DefaultHttpxClient(transport=httpx2.MockTransport(_responder(items))),
    )


def _genai_client(items: list[Any]) -> Any:
    from google import genai
    from google.genai import types as gtypes

    return genai.Client(api_key="test-key", http_options=gtypes.HttpOptions(
        httpx_client=httpx2.Client(transport=httpx2.MockTransport(_responder(items)))))


_WEATHER_TOOL = {"type": "function", "function": {
    "name": "get_weather", "description": "Current weather for a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                   "required": ["city"]}}}
_TIME_TOOL = {"type": "function", "function": {
    "name": "get_time", "description": "Local time in a time zone",
    "parameters": {"type": "object", "properties": {"tz": {"type": "string"}}}}}
_TOOLS = [_WEATHER_TOOL, _TIME_TOOL]


def _chat_completion(cid: str, calls: Sequence[tuple[str, str, str]] = (), *,
                     content: str | None = None, finish: str | None = None,
                     function_call: tuple[str, str] | None = None,
                     n: int = 1) -> dict[str, Any]:
    """A chat.completion body as the API returns it; calls = (id, name, arguments text)."""
    choices = []
    for index in range(n):
        message: dict[str, Any] = {"role": "assistant", "content": content, "refusal": None,
                                   "annotations": []}
        if calls:
            message["tool_calls"] = [
                {"id": f"{i}" if index == 0 else f"{i}_{index}", "type": "function",
                 "function": {"name": name, "arguments": args}}
                for i, name, args in calls]
        if function_call:
            message["function_call"] = {"name": function_call[0], "arguments": function_call[1]}
        reason = finish or ("tool_calls" if calls else "function_call" if function_call else "stop")
        choices.append({"index": index, "message": message, "logprobs": None,
                        "finish_reason": reason})
    return {"id": cid, "object": "chat.completion", "created": 1767225600,
            "model": "gpt-4o-2024-08-06", "system_fingerprint": "fp_otel",
            "choices": choices,
            "usage": {"prompt_tokens": 82, "completion_tokens": 17, "total_tokens": 99}}


def _chat_sse(cid: str) -> str:
    """A streamed chat completion: two parallel calls, arguments split over chunks."""
    def chunk(delta: dict[str, Any] | None, finish: str | None = None,
              usage: dict[str, Any] | None = None) -> str:
        body: dict[str, Any] = {"id": cid, "object": "chat.completion.chunk",
                                "created": 1767225600, "model": "gpt-4o-2024-08-06",
                                "system_fingerprint": "fp_otel",
                                "choices": [] if delta is None else [
                                    {"index": 0, "delta": delta, "logprobs": None,
                                     "finish_reason": finish}]}
        if usage is not None:
            body["usage"] = usage
        return f"data: {json.dumps(body)}\n\n"

    tc = lambda **kw: {"tool_calls": [kw]}  # noqa: E731
    parts = [
        chunk({"role": "assistant", "content": None, "refusal": None}),
        chunk(tc(index=0, id="call_s1", type="function",
                 function={"name": "get_weather", "arguments": ""})),
        chunk(tc(index=0, function={"arguments": "{\"city\": "})),
        chunk(tc(index=0, function={"arguments": "\"Paris\", \"unit\": \"C\"}"})),
        chunk(tc(index=1, id="call_s2", type="function",
                 function={"name": "get_time", "arguments": "{\"tz\""})),
        chunk(tc(index=1, function={"arguments": ": \"CET\"}"})),
        chunk({}, finish="tool_calls"),
        chunk(None, usage={"prompt_tokens": 82, "completion_tokens": 40, "total_tokens": 122}),
        "data: [DONE]\n\n",
    ]
    return "".join(parts)


def _gemini_response(rid: str, parts: list[dict[str, Any]], *, finish: str = "STOP",
                     extra_candidates: Sequence[list[dict[str, Any]]] = ()) -> dict[str, Any]:
    candidates = [{"content": {"role": "model", "parts": parts}, "finishReason": finish, "index": 0}]
    for index, more in enumerate(extra_candidates, start=1):
        candidates.append({"content": {"role": "model", "parts": more},
                           "finishReason": finish, "index": index})
    return {"candidates": candidates,
            "usageMetadata": {"promptTokenCount": 31, "candidatesTokenCount": 12,
                              "totalTokenCount": 43},
            "modelVersion": "gemini-2.5-flash", "responseId": rid}


# --------------------------------------------------------------------------- #
# Forms
# --------------------------------------------------------------------------- #


def _console_text(spans: Sequence[ReadableSpan]) -> str:
    """What ConsoleSpanExporter prints: each span's to_json() + os.linesep."""
    out = io.StringIO()
    exporter = ConsoleSpanExporter(out=out)
    exporter.export(spans)
    return out.getvalue()


def _b64_to_hex(value: str) -> str:
    return base64.b64decode(value).hex()


def _spec_ids(data: Any) -> Any:
    """OTLP/JSON spec: trace/span ids are hex, not protobuf-JSON base64."""
    if isinstance(data, dict):
        return {key: (_b64_to_hex(value) if key in ("traceId", "spanId", "parentSpanId")
                      and isinstance(value, str) else _spec_ids(value))
                for key, value in data.items()}
    if isinstance(data, list):
        return [_spec_ids(item) for item in data]
    return data


def _otlp(spans: Sequence[ReadableSpan], *, snake: bool = False) -> dict[str, Any]:
    return MessageToDict(encode_spans(spans), preserving_proto_field_name=snake)


def _otlp_spec_line(spans: Sequence[ReadableSpan]) -> str:
    data = MessageToDict(encode_spans(spans), use_integers_for_enums=True)
    return json.dumps(_spec_ids(data), separators=(",", ":"))


def _otlp_logs(logs: Sequence[Any], *, snake: bool = False) -> dict[str, Any]:
    return MessageToDict(encode_logs(logs), preserving_proto_field_name=snake)


#: raw_arguments of a call whose arguments telemetry did not record.
NOT_CAPTURED = "<not captured>"


def _calls(*calls: Call) -> tuple[Call, ...]:
    return tuple(calls)


class _Out:
    """Collects scenarios; the span-form fan-out lives here."""

    def __init__(self) -> None:
        self.items: list[Scenario] = []

    def add(self, form: str, name: str, payload: Any, expected: tuple[Call, ...] | None, *,
            note: str, options: dict[str, Any] | None = None,
            refusal: str | None = None) -> None:
        if expected is None and refusal is None:
            refusal = CAPTURE
        self.items.append(Scenario(PROVIDER, form, name, payload, expected,
                                   refusal=refusal if expected is None else None,
                                   options=dict(options or {}), note=note))

    def spans(self, name: str, spans: list[ReadableSpan], expected: tuple[Call, ...] | None, *,
              note: str, full: bool = True, alone: ReadableSpan | None = None,
              options: dict[str, Any] | None = None, refusal: str | None = None) -> None:
        """All span forms of one trace. ``alone``: the one span that holds the calls."""
        kw = dict(note=note, options=options, refusal=refusal)
        self.add("object", name, spans, expected, **kw)
        self.add("dump", f"{name}/otlp", _otlp(spans), expected, **kw)
        self.add("json", f"{name}/to-json-list",
                 json.dumps([json.loads(s.to_json()) for s in spans], indent=2), expected, **kw)
        if alone is not None:
            self.add("object", f"{name}/span-alone", alone, expected, **kw)
            self.add("json", f"{name}/span-alone-to-json", alone.to_json(), expected, **kw)
        if not full:
            return
        self.add("object", f"{name}/exporter-tuple", tuple(spans), expected, **kw)
        self.add("list", f"{name}/to-json-texts", [s.to_json() for s in spans], expected, **kw)
        self.add("dump", f"{name}/to-json-dicts", [json.loads(s.to_json()) for s in spans],
                 expected, **kw)
        self.add("json", f"{name}/console-exporter", _console_text(spans), expected, **kw)
        self.add("dump", f"{name}/otlp-snake", _otlp(spans, snake=True), expected, **kw)
        self.add("json", f"{name}/otlp-json", MessageToJson(encode_spans(spans)), expected, **kw)
        self.add("json", f"{name}/otlp-json-bytes",
                 MessageToJson(encode_spans(spans), indent=None).encode(), expected, **kw)
        self.add("list", f"{name}/otlp-batches", [_otlp([s]) for s in spans], expected, **kw)
        self.add("json", f"{name}/otlp-jsonl",
                 "\n".join(MessageToJson(encode_spans([s]), indent=None) for s in spans) + "\n",
                 expected, **kw)
        self.add("json", f"{name}/otlp-spec-jsonl",
                 "\n".join(_otlp_spec_line([s]) for s in spans) + "\n", expected, **kw)

    def logs(self, name: str, spans: list[ReadableSpan], logs: list[Any],
             expected: tuple[Call, ...] | None, *, note: str,
             options: dict[str, Any] | None = None) -> None:
        """Log-event forms: log records alone, mixed with spans, OTLP logs."""
        kw = dict(note=note, options=options)
        self.add("object", f"{name}/log-records", logs, expected, **kw)
        self.add("list", f"{name}/spans-and-log-records", [*spans, *logs], expected, **kw)
        self.add("dump", f"{name}/otlp-logs", _otlp_logs(logs), expected, **kw)
        self.add("dump", f"{name}/otlp-logs-snake", _otlp_logs(logs, snake=True), expected, **kw)
        self.add("list", f"{name}/otlp-traces-and-logs", [_otlp(spans), _otlp_logs(logs)],
                 expected, **kw)
        self.add("list", f"{name}/log-to-json-texts", [r.to_json() for r in logs], expected, **kw)
        self.add("json", f"{name}/otlp-logs-json-bytes",
                 MessageToJson(encode_logs(logs), indent=None).encode(), expected, **kw)


# --------------------------------------------------------------------------- #
# Expected calls used in several traces
# --------------------------------------------------------------------------- #

A = Call("get_weather", {"city": "Paris"}, "call_a")
B = Call("get_time", {"tz": "CET"}, "call_b")
C = Call("get_weather", {"city": "Rome", "days": [1, 2], "opts": {"unit": "C"}}, "call_c")
_A = ("call_a", "get_weather", "{\"city\": \"Paris\"}")
_B = ("call_b", "get_time", "{\"tz\":\"CET\"}")
_C = ("call_c", "get_weather", json.dumps({"city": "Rome", "days": [1, 2], "opts": {"unit": "C"}}))
_USER = {"role": "user", "content": "Weather and time in Paris, then Rome?"}


def _turn2_messages() -> list[dict[str, Any]]:
    """Request of turn 2: earlier calls are INPUT context, not calls of this turn."""
    return [
        {"role": "system", "content": "You are a weather agent."},
        _USER,
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": i, "type": "function", "function": {"name": n, "arguments": a}}
            for i, n, a in (_A, _B)]},
        {"role": "tool", "tool_call_id": "call_a", "content": "{\"temp\": 21}"},
        {"role": "tool", "tool_call_id": "call_b", "content": "14:05"},
    ]


def _turn3_messages() -> list[dict[str, Any]]:
    return [*_turn2_messages(),
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": _C[0], "type": "function", "function": {"name": _C[1], "arguments": _C[2]}}]},
            {"role": "tool", "tool_call_id": "call_c", "content": "{\"temp\": 25}"}]


def _tool_span(rec: _Recorder, call: Call | None, *, args_text: str | None = None,
               name: str | None = None, result: str = "ok", omit_name: bool = False) -> None:
    """A hand-made execute_tool span as agent frameworks make them (starts now, ends now)."""
    tool_name = name or (call.name if call else "tool")
    attrs: dict[str, Any] = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.type": "function"}
    if not omit_name:
        attrs["gen_ai.tool.name"] = tool_name
    if call is not None and call.id is not None:
        attrs["gen_ai.tool.call.id"] = call.id
    if args_text is not None:
        attrs["gen_ai.tool.call.arguments"] = args_text
    elif call is not None:
        attrs["gen_ai.tool.call.arguments"] = json.dumps(call.arguments)
    attrs["gen_ai.tool.call.result"] = result
    span_name = "execute_tool" if omit_name else f"execute_tool {tool_name}"
    with rec.tracer.start_as_current_span(span_name, kind=SpanKind.INTERNAL, attributes=attrs):
        pass


@contextlib.contextmanager
def _agent_span(rec: _Recorder, name: str = "weather_agent") -> Iterator[Any]:
    with rec.tracer.start_as_current_span(
            f"invoke_agent {name}", kind=SpanKind.INTERNAL,
            attributes={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": name,
                        "gen_ai.provider.name": "openai"}) as span:
        yield span


def _chat_span(rec: _Recorder, output_messages: Any, *, finish: Sequence[str] = ("tool_calls",),
               as_text: bool = True, input_messages: Any = None) -> None:
    """A hand-made inference span per the GenAI conventions (as frameworks emit them)."""
    attrs: dict[str, Any] = {
        "gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "gpt-4o", "gen_ai.response.model": "gpt-4o-2024-08-06",
        "gen_ai.response.finish_reasons": tuple(finish),
    }
    if input_messages is not None:
        attrs["gen_ai.input.messages"] = json.dumps(input_messages)
    if output_messages is not None:
        attrs["gen_ai.output.messages"] = json.dumps(output_messages) if as_text else output_messages
    with rec.tracer.start_as_current_span("chat gpt-4o", kind=SpanKind.CLIENT, attributes=attrs):
        pass


def _part(call: Call) -> dict[str, Any]:
    return {"type": "tool_call", "id": call.id, "name": call.name, "arguments": call.arguments}


# --------------------------------------------------------------------------- #
# openai-v2
# --------------------------------------------------------------------------- #


def _openai_v2_scenarios(out: _Out) -> None:
    # 1. Agent loop: 3 chat spans (openai-v2, span_only) + hand-made execute_tool spans.
    with _Recorder(1) as rec, _openai_v2(rec, "span_only"):
        client = _openai_client([
            _chat_completion("chatcmpl-t1", [_A, _B]),
            _chat_completion("chatcmpl-t2", [_C]),
            _chat_completion("chatcmpl-t3", content="Paris 21C at 14:05; Rome 25C."),
        ])
        with _agent_span(rec):
            client.chat.completions.create(model="gpt-4o", messages=[_USER], tools=_TOOLS)
            _tool_span(rec, A)
            _tool_span(rec, B)
            client.chat.completions.create(model="gpt-4o", messages=_turn2_messages(), tools=_TOOLS)
            _tool_span(rec, C)
            client.chat.completions.create(model="gpt-4o", messages=_turn3_messages(), tools=_TOOLS)
    out.spans("openai-v2-agent-loop", rec.spans, _calls(A, B, C),
              note="openai-v2 span_only: 3 chat spans with gen_ai.output.messages, each call also "
                   "an execute_tool span with the same gen_ai.tool.call.id (must come back once); "
                   "turns 2-3 carry earlier calls in gen_ai.input.messages (context, not calls); "
                   "the invoke_agent root starts first and ends last.")

    # 2. One chat call, span_only: the span alone is the natural payload.
    with _Recorder(2) as rec, _openai_v2(rec, "span_only"):
        _openai_client([_chat_completion("chatcmpl-one", [_A, _B])]).chat.completions.create(
            model="gpt-4o", messages=[_USER], tools=_TOOLS)
    spans = rec.spans
    out.spans("openai-v2-span-only-parallel-calls", spans, _calls(A, B), alone=spans[0],
              note="openai-v2 2.4b0, OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=span_only: "
                   "gen_ai.output.messages JSON text with two tool_call parts (arguments as "
                   "objects), finish_reasons ('tool_calls',).")
    # The bare attribute value, as text and as a list.
    value = spans[0].attributes["gen_ai.output.messages"]
    out.add("json", "openai-v2-bare-output-messages-text", value, _calls(A, B),
            note="the gen_ai.output.messages attribute value alone (JSON text, no span).")
    out.add("dump", "openai-v2-bare-output-messages-list", json.loads(value), _calls(A, B),
            note="the gen_ai.output.messages value alone, parsed: a list of "
                 "{role, parts, finish_reason, name: null}.")
    out.add("json", "openai-v2-bare-output-messages-bytes", value.encode(), _calls(A, B),
            note="the gen_ai.output.messages value alone as UTF-8 bytes.")

    # 3. event_only: content goes to gen_ai.client.inference.operation.details log events.
    with _Recorder(3) as rec, _openai_v2(rec, "event_only"):
        _openai_client([_chat_completion("chatcmpl-ev", [_A, _B])]).chat.completions.create(
            model="gpt-4o", messages=[_USER], tools=_TOOLS)
    out.logs("openai-v2-event-only", rec.spans, rec.logs, _calls(A, B),
             note="openai-v2 event_only: the span has no content; one "
                  "gen_ai.client.inference.operation.details log record carries "
                  "gen_ai.output.messages as a STRUCTURED attribute (list of dicts, OTLP "
                  "kvlistValue/arrayValue), linked to the span by trace_id/span_id.")
    out.spans("openai-v2-event-only-spans-without-logs", rec.spans, None, full=False,
              alone=rec.spans[0],
              note="event_only mode, but only the spans handed over: finish_reasons say "
                   "tool_calls and the content went to log events: refuse (content capture).")

    # 4. span_and_event: the same calls in the span AND in the log event: once.
    with _Recorder(4) as rec, _openai_v2(rec, "span_and_event"):
        _openai_client([_chat_completion("chatcmpl-both", [_A, _B])]).chat.completions.create(
            model="gpt-4o", messages=[_USER], tools=_TOOLS)
    out.add("list", "openai-v2-span-and-event/spans-and-log-records", [*rec.spans, *rec.logs],
            _calls(A, B), note="span_and_event: gen_ai.output.messages on the span AND on the "
                               "log event of that span (same span_id): each call once.")
    out.add("list", "openai-v2-span-and-event/otlp-traces-and-logs",
            [_otlp(rec.spans), _otlp_logs(rec.logs)], _calls(A, B),
            note="span_and_event as two OTLP exports (traces, logs): each call once.")
    out.spans("openai-v2-span-and-event", rec.spans, _calls(A, B), full=False,
              note="span_and_event, spans only.")

    # 5. Capture off (default): no content anywhere -> refuse.
    with _Recorder(5) as rec, _openai_v2(rec, None):
        _openai_client([_chat_completion("chatcmpl-off", [_A, _B])]).chat.completions.create(
            model="gpt-4o", messages=[_USER], tools=_TOOLS)
    assert not rec.logs
    out.spans("openai-v2-capture-off", rec.spans, None, alone=rec.spans[0],
              note="openai-v2 with content capture off (the default): the span says "
                   "finish_reasons=('tool_calls',) and holds no call: REFUSED, name content capture.")

    # 6. Streaming (span_only): the wrapper joins the deltas itself.
    with _Recorder(6) as rec, _openai_v2(rec, "span_only"):
        stream = _openai_client([_chat_sse("chatcmpl-stream")]).chat.completions.create(
            model="gpt-4o", messages=[_USER], tools=_TOOLS, stream=True,
            stream_options={"include_usage": True})
        for _ in stream:
            pass
    s1 = Call("get_weather", {"city": "Paris", "unit": "C"}, "call_s1")
    s2 = Call("get_time", {"tz": "CET"}, "call_s2")
    out.spans("openai-v2-stream", rec.spans, _calls(s1, s2), full=False, alone=rec.spans[0],
              note="stream=True: openai-v2's ChatStreamWrapper joins the tool-call deltas by index "
                   "and records one gen_ai.output.messages on the span.")

    # 7. Malformed / non-object arguments from the model.
    with _Recorder(7) as rec, _openai_v2(rec, "span_only"):
        _openai_client([_chat_completion("chatcmpl-bad", [
            ("call_t", "get_weather", "{\"city\": \"Par"),
            ("call_e", "get_time", ""),
            ("call_q", "search", "\"just a string\""),
        ])]).chat.completions.create(model="gpt-4o", messages=[_USER], tools=_TOOLS)
    out.spans("openai-v2-bad-arguments", rec.spans, _calls(
        Call("get_weather", {}, "call_t", raw_arguments="{\"city\": \"Par"),
        Call("get_time", {}, "call_e"),
        Call("search", {}, "call_q", raw_arguments="just a string"),
    ), full=False, alone=rec.spans[0],
        note="openai-v2 keeps undecodable argument text as a STRING in the part (truncated "
             "JSON -> raw text); empty text -> arguments null; the JSON string argument "
             "'\"just a string\"' is DECODED by openai-v2 to the bare string 'just a string', "
             "which is all the span holds (lossy: raw_arguments is that string).")

    # 8. n=2: two alternative answers with calls -> refuse.
    with _Recorder(8) as rec, _openai_v2(rec, "span_only"):
        _openai_client([_chat_completion("chatcmpl-n2", [_A], n=2)]).chat.completions.create(
            model="gpt-4o", messages=[_USER], tools=_TOOLS, n=2)
    out.spans("openai-v2-n2-alternatives", rec.spans, None, full=False, alone=rec.spans[0],
              refusal=ALTERNATIVES,
              note="n=2: gen_ai.output.messages holds one message per choice, both with calls: "
                   "alternatives, not one trajectory: REFUSED.")

    # 9. Legacy v1.30 event path: gen_ai.choice log records.
    with _Recorder(9) as rec, _openai_v2(rec, "true", legacy=True):
        client = _openai_client([_chat_completion("chatcmpl-l1", [_A, _B]),
                                 _chat_completion("chatcmpl-l2", [_C])])
        client.chat.completions.create(model="gpt-4o", messages=[_USER], tools=_TOOLS)
        client.chat.completions.create(model="gpt-4o", messages=_turn2_messages(), tools=_TOOLS)
    out.logs("openai-v2-legacy-events", rec.spans, rec.logs, _calls(A, B, C),
             note="openai-v2 legacy path (no OTEL_SEMCONV_STABILITY_OPT_IN, capture 'true'): "
                  "gen_ai.choice log records, body.message.tool_calls[].function.arguments JSON "
                  "text; the 2nd request's gen_ai.assistant.message event repeats calls a, b "
                  "as INPUT (body.tool_calls): context, not calls.")
    out.spans("openai-v2-legacy-events-spans-only", rec.spans, None, full=False,
              note="legacy event path, spans only (gen_ai.system=openai, finish_reasons "
                   "tool_calls, no content): REFUSED, content capture.")

    with _Recorder(10) as rec, _openai_v2(rec, "false", legacy=True):
        _openai_client([_chat_completion("chatcmpl-l3", [_A, _B])]).chat.completions.create(
            model="gpt-4o", messages=[_USER], tools=_TOOLS)
    out.logs("openai-v2-legacy-events-capture-off", rec.spans, rec.logs, _calls(
        Call("get_weather", {}, "call_a", NOT_CAPTURED), Call("get_time", {}, "call_b", NOT_CAPTURED)),
        note="legacy path with capture off: gen_ai.choice still carries each tool call's id and "
             "function.name, only the arguments are dropped. Decided: the calls come back, their "
             "arguments flagged as not captured (raw_arguments '<not captured>').")


# --------------------------------------------------------------------------- #
# google-genai
# --------------------------------------------------------------------------- #


def _gemini_tools() -> Any:
    from google.genai import types as gtypes

    return gtypes.GenerateContentConfig(tools=[
        gtypes.Tool(function_declarations=[
            gtypes.FunctionDeclaration(name="get_weather", description="Current weather",
                                       parameters={"type": "object",
                                                   "properties": {"city": {"type": "string"}}}),
            gtypes.FunctionDeclaration(name="get_time", description="Local time",
                                       parameters={"type": "object",
                                                   "properties": {"tz": {"type": "string"}}})]),
        gtypes.Tool(code_execution=gtypes.ToolCodeExecution())])


def _google_scenarios(out: _Out) -> None:
    parts = [
        {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}},
        {"functionCall": {"name": "get_time", "args": {"tz": "CET"}, "id": "fc-time-1"}},
        {"executableCode": {"language": "PYTHON", "code": "print(6 * 7)"}},
        {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "42\n"}},
    ]
    gw = Call("get_weather", {"city": "Paris"}, "get_weather_0")
    gt = Call("get_time", {"tz": "CET"}, "fc-time-1")
    code = Call("code_execution", {"code": "print(6 * 7)", "language": "PYTHON"}, None)

    # 11. span_only, one generate_content with function calls and code execution.
    with _Recorder(11) as rec, _google_genai(rec, "span_only"):
        _genai_client([_gemini_response("resp-g1", parts)]).models.generate_content(
            model="gemini-2.5-flash", contents="Weather and time in Paris? Also 6*7.",
            config=_gemini_tools())
    call_span = next(s for s in rec.spans if s.name.startswith("generate_content"))
    out.spans("google-genai-function-calls", rec.spans, _calls(gw, gt, code), alone=call_span,
              note="google-genai instrumentation span_only: functionCall without id gets the id "
                   "'<name>_<part index>' INVENTED by the instrumentation (get_weather_0); a "
                   "Gemini id is kept (fc-time-1); executableCode becomes a server_tool_call part "
                   "{name: code_execution, server_tool_call: {type, code, language}} (hosted); "
                   "codeExecutionResult a server_tool_call_response part (not a call). "
                   "finish_reasons is ('stop',): Gemini says STOP for function calls.")
    out.spans("google-genai-function-calls-no-hosted", rec.spans, _calls(gw, gt), full=False,
              alone=call_span, options={"hosted_tools": False},
              note="hosted_tools=False leaves out the server_tool_call (code_execution).")
    value = call_span.attributes["gen_ai.output.messages"]
    out.add("json", "google-genai-bare-output-messages-text", value, _calls(gw, gt, code),
            note="gen_ai.output.messages value alone: tool_call + server_tool_call + "
                 "server_tool_call_response parts.")
    out.add("dump", "google-genai-bare-output-messages-list", json.loads(value),
            _calls(gw, gt, code), note="the same value parsed (list).")
    out.add("list", "google-genai-function-calls/spans-and-log-records", [*rec.spans, *rec.logs],
            _calls(gw, gt, code),
            note="google-genai forces OTEL_INSTRUMENTATION_GENAI_EMIT_EVENT=true: in span_only "
                 "mode an operation.details log event without content comes along; calls from "
                 "the span.")

    # 12. event_only: the calls only in the log event (structured attribute).
    with _Recorder(12) as rec, _google_genai(rec, "event_only"):
        _genai_client([_gemini_response("resp-g2", parts)]).models.generate_content(
            model="gemini-2.5-flash", contents="Weather and time in Paris? Also 6*7.",
            config=_gemini_tools())
    out.logs("google-genai-event-only", rec.spans, rec.logs, _calls(gw, gt, code),
             note="google-genai event_only: gen_ai.output.messages is a structured log "
                  "attribute of gen_ai.client.inference.operation.details.")

    # 12b. Two candidates, both with calls: alternatives.
    with _Recorder(17) as rec, _google_genai(rec, "span_only"):
        from google.genai import types as gtypes
        _genai_client([_gemini_response(
            "resp-g8", [{"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}}],
            extra_candidates=[[{"functionCall": {"name": "get_weather",
                                                 "args": {"city": "Paris, FR"}}}]])
        ]).models.generate_content(
            model="gemini-2.5-flash", contents="Weather in Paris?",
            config=gtypes.GenerateContentConfig(candidate_count=2, tools=_gemini_tools().tools))
    out.spans("google-genai-two-candidates", rec.spans, None, full=False, alone=rec.spans[0],
              refusal=ALTERNATIVES,
              note="candidate_count=2, both candidates call get_weather: two output messages "
                   "(both ids 'get_weather_0'): alternatives, REFUSED.")

    # 13. Two turns, both calls without Gemini ids: the invented ids repeat.
    with _Recorder(13) as rec, _google_genai(rec, "span_only"):
        client = _genai_client([
            _gemini_response("resp-g3", [{"functionCall": {"name": "get_weather",
                                                           "args": {"city": "Paris"}}}]),
            _gemini_response("resp-g4", [{"functionCall": {"name": "get_weather",
                                                           "args": {"city": "Rome"}}}]),
        ])
        chat = client.chats.create(model="gemini-2.5-flash", config=_gemini_tools())
        chat.send_message("Weather in Paris?")
        from google.genai import types as gtypes
        chat.send_message(gtypes.Part.from_function_response(name="get_weather",
                                                             response={"temp": 21}))
    out.spans("google-genai-two-turns-repeated-ids", rec.spans, _calls(
        Call("get_weather", {"city": "Paris"}, "get_weather_0"),
        Call("get_weather", {"city": "Rome"}, "get_weather_0")),
        note="two generate_content spans (Chat.send_message); both calls lack a Gemini id, so the "
             "instrumentation names both 'get_weather_0': two different calls with the same id "
             "(a reader must not dedupe output-message parts by id); turn 2's input messages "
             "repeat call 1 as context.")

    # 14. Automatic function calling: execute_tool spans from the instrumentation, no ids.
    def get_weather(city: str) -> dict[str, Any]:
        """Current weather for a city."""
        return {"temp": 21 if city == "Paris" else 25}

    from google.genai import types as gtypes
    afc_responses = [
        _gemini_response("resp-g5", [{"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}},
                                     {"functionCall": {"name": "get_weather", "args": {"city": "Rome"}}}]),
        _gemini_response("resp-g6", [{"text": "Paris 21C, Rome 25C."}]),
    ]
    with _Recorder(14) as rec, _google_genai(rec, "span_only"):
        _genai_client(list(afc_responses)).models.generate_content(
            model="gemini-2.5-flash", contents="Weather in Paris and Rome?",
            config=gtypes.GenerateContentConfig(tools=[get_weather]))
    afc = _calls(Call("get_weather", {"city": "Paris"}, None),
                 Call("get_weather", {"city": "Rome"}, None))
    out.spans("google-genai-afc", rec.spans, afc,
              note="automatic function calling: ONE generate_content span (started first, ended "
                   "last) whose output messages hold only the final text; the calls are the two "
                   "execute_tool spans the instrumentation wraps around the Python tool: "
                   "gen_ai.tool.call.arguments is the bound arguments as JSON, NO gen_ai.tool.call.id.")

    # 15. Capture off.
    with _Recorder(15) as rec, _google_genai(rec, None):
        _genai_client([_gemini_response("resp-g7", parts)]).models.generate_content(
            model="gemini-2.5-flash", contents="Weather and time in Paris?", config=_gemini_tools())
    out.spans("google-genai-capture-off", rec.spans, (), full=False, alone=rec.spans[0],
              note="google-genai with capture off: finish_reasons ('stop',), no content: nothing "
                   "says calls were made, so [] (the calls are silently lost; see FINDINGS).")
    with _Recorder(16) as rec, _google_genai(rec, None):
        _genai_client(list(afc_responses)).models.generate_content(
            model="gemini-2.5-flash", contents="Weather in Paris and Rome?",
            config=gtypes.GenerateContentConfig(tools=[get_weather]))
    out.spans("google-genai-afc-capture-off", rec.spans, _calls(
        Call("get_weather", {}, None, NOT_CAPTURED), Call("get_weather", {}, None, NOT_CAPTURED)),
        full=False,
        note="AFC with capture off: the execute_tool spans keep gen_ai.tool.name but drop "
             "gen_ai.tool.call.arguments: read as calls whose arguments are flagged not captured.")


# --------------------------------------------------------------------------- #
# Traceloop and OpenInference
# --------------------------------------------------------------------------- #


def _traceloop_scenarios(out: _Out) -> None:
    with _Recorder(21) as rec, _traceloop(rec):
        client = _openai_client([_chat_completion("chatcmpl-tl1", [_A, _B]),
                                 _chat_completion("chatcmpl-tl2", [_C])])
        with _agent_span(rec):
            client.chat.completions.create(model="gpt-4o", messages=[_USER], tools=_TOOLS)
            client.chat.completions.create(model="gpt-4o", messages=_turn2_messages(), tools=_TOOLS)
    out.spans("traceloop-output-messages", rec.spans, _calls(A, B, C),
              alone=None,
              note="Traceloop opentelemetry-instrumentation-openai 0.62.4 (default "
                   "use_attributes=True): NO gen_ai.completion.N.* attributes any more; "
                   "gen_ai.output.messages JSON with tool_call parts, finish_reason 'tool_call' "
                   "(singular, mapped from tool_calls) and gen_ai.response.finish_reasons "
                   "('tool_call',); turn 2's gen_ai.input.messages repeats a, b (context).")

    with _Recorder(22) as rec, _traceloop(rec):
        _openai_client([_chat_completion("chatcmpl-tl3", function_call=(
            "get_weather", "{\"city\": \"Paris\"}"))]).chat.completions.create(
            model="gpt-4o", messages=[_USER],
            functions=[_WEATHER_TOOL["function"]])
    out.spans("traceloop-legacy-function-call", rec.spans,
              _calls(Call("get_weather", {"city": "Paris"}, None)), full=False,
              alone=rec.spans[0],
              note="legacy function_call answer: Traceloop writes a tool_call part WITHOUT an id "
                   "key; finish_reason function_call -> 'tool_call'.")

    with _Recorder(23) as rec, _traceloop(rec, use_attributes=False):
        _openai_client([_chat_completion("chatcmpl-tl4", [_A, _B])]).chat.completions.create(
            model="gpt-4o", messages=[_USER], tools=_TOOLS)
    out.logs("traceloop-events", rec.spans, rec.logs, _calls(A, B),
             note="Traceloop use_attributes=False: gen_ai.choice log records whose body has "
                  "tool_calls at the TOP level (not inside message as openai-v2 legacy does), "
                  "message.role dropped; the span has no content.")

    with _Recorder(24) as rec, _traceloop(rec, trace_content=False):
        _openai_client([_chat_completion("chatcmpl-tl5", [_A, _B])]).chat.completions.create(
            model="gpt-4o", messages=[_USER], tools=_TOOLS)
    out.spans("traceloop-capture-off", rec.spans, None, full=False, alone=rec.spans[0],
              note="TRACELOOP_TRACE_CONTENT=false: finish_reasons ('tool_call',) (singular!) "
                   "and no content: REFUSED, content capture.")


def _openinference_scenarios(out: _Out) -> None:
    with _Recorder(31) as rec, _openinference(rec):
        client = _openai_client([_chat_completion("chatcmpl-oi1", [_A, _B]),
                                 _chat_completion("chatcmpl-oi2", [_C])])
        client.chat.completions.create(model="gpt-4o", messages=[_USER], tools=_TOOLS)
        client.chat.completions.create(model="gpt-4o", messages=_turn2_messages(), tools=_TOOLS)
    out.spans("openinference-output-messages", rec.spans, _calls(A, B, C),
              note="openinference-instrumentation-openai: "
                   "llm.output_messages.0.message.tool_calls.N.tool_call.{id,function.name,"
                   "function.arguments} (arguments JSON text); output.value repeats the whole "
                   "response JSON (same calls again, never count twice); turn 2's "
                   "llm.input_messages.2.message.tool_calls.* are context.")

    with _Recorder(32) as rec, _openinference(rec, hide_outputs=True):
        _openai_client([_chat_completion("chatcmpl-oi3", [_A, _B])]).chat.completions.create(
            model="gpt-4o", messages=[_USER], tools=_TOOLS)
    out.spans("openinference-hide-outputs", rec.spans, None, full=False, alone=rec.spans[0],
              note="TraceConfig(hide_outputs=True): output.value '__REDACTED__', no "
                   "llm.output_messages.*, llm.finish_reason 'tool_calls': REFUSED, content capture.")


# --------------------------------------------------------------------------- #
# Hand-made execute_tool / chat spans (agent frameworks)
# --------------------------------------------------------------------------- #

P1 = Call("get_weather", {"city": "Paris"}, "call_1")
P2 = Call("get_time", {"tz": "CET"}, "call_2")


def _handmade_scenarios(out: _Out) -> None:
    # 41. Chat requested two calls, only one executed.
    with _Recorder(41) as rec, _agent_span(rec):
        _chat_span(rec, [{"role": "assistant", "parts": [_part(P1), _part(P2)],
                          "finish_reason": "tool_call"}],
                   input_messages=[{"role": "user", "parts": [
                       {"type": "text", "content": "Weather and time in Paris?"}]}])
        _tool_span(rec, P1, result="{\"temp\": 21}")
        _chat_span(rec, [{"role": "assistant", "parts": [
            {"type": "text", "content": "21C in Paris."}], "finish_reason": "stop"}],
            finish=("stop",))
    out.spans("requested-two-executed-one", rec.spans, _calls(P1, P2),
              note="chat span requested call_1 and call_2 (gen_ai.output.messages); only call_1 "
                   "has an execute_tool span (same gen_ai.tool.call.id): call_1 once, call_2 "
                   "still a call.")

    # 42. Parallel tool spans: the long first one ends last (export order != start order).
    with _Recorder(42) as rec:
        t1 = Call("fetch_report", {"id": 7}, "call_slow")
        t2 = Call("get_weather", {"city": "Paris"}, "call_fast1")
        t3 = Call("get_time", {"tz": "CET"}, "call_fast2")
        with _agent_span(rec) as root:
            ctx = trace_api.set_span_in_context(root)
            spans = []
            for call in (t1, t2, t3):
                spans.append(rec.tracer.start_span(
                    f"execute_tool {call.name}", context=ctx, kind=SpanKind.INTERNAL,
                    attributes={"gen_ai.operation.name": "execute_tool",
                                "gen_ai.tool.name": call.name, "gen_ai.tool.call.id": call.id,
                                "gen_ai.tool.call.arguments": json.dumps(call.arguments)}))
            spans[2].end()
            spans[1].end()
            spans[0].set_status(Status(StatusCode.ERROR, "timeout"))
            spans[0].set_attribute("error.type", "TimeoutError")
            spans[0].end()
    exported = rec.spans
    assert [s.name for s in exported][:3] == ["execute_tool get_time", "execute_tool get_weather",
                                             "execute_tool fetch_report"]
    out.spans("parallel-tools-long-first-span", exported, _calls(t1, t2, t3),
              note="three parallel execute_tool spans started fetch_report, get_weather, "
                   "get_time; exported (end order) get_time, get_weather, fetch_report, then the "
                   "root: order by START time. The slow one failed (status ERROR): still a call.")
    out.spans("parallel-tools-reversed-list", list(reversed(exported)), _calls(t1, t2, t3),
              full=False, note="the same spans handed over in reverse order.")

    # 43. Odd execute_tool spans: bad arguments, no id, no arguments; and one without a name.
    with _Recorder(43) as rec:
        _tool_span(rec, Call("get_weather", {}, "call_t"), args_text="{\"city\": \"Par")
        _tool_span(rec, Call("lookup", {}, "call_arr"), args_text="[1, 2]")
        _tool_span(rec, Call("get_time", {"tz": "UTC"}, None))
        _tool_span(rec, Call("ping", {}, "call_noargs"), args_text=None, result="pong")
        _tool_span(rec, Call("get_date", {}, "call_empty"), args_text="")
    spans = rec.spans
    # ping: no arguments attribute at all
    assert "gen_ai.tool.call.arguments" in spans[3].attributes  # json.dumps({}) -> "{}"
    out.spans("execute-tool-odd-spans", spans, _calls(
        Call("get_weather", {}, "call_t", raw_arguments="{\"city\": \"Par"),
        Call("lookup", {}, "call_arr", raw_arguments="[1, 2]"),
        Call("get_time", {"tz": "UTC"}, None),
        Call("ping", {}, "call_noargs"),
        Call("get_date", {}, "call_empty"),
    ), full=False, note="execute_tool spans: truncated arguments JSON (raw kept), a JSON array "
                        "(raw kept), no gen_ai.tool.call.id (id None), '{}' arguments, empty "
                        "argument text ({} and no raw).")
    with _Recorder(143) as rec:
        _tool_span(rec, Call("get_weather", {"city": "Paris"}, "call_w"))
        _tool_span(rec, Call("x", {"q": 1}, "call_noname"), omit_name=True)
    out.spans("execute-tool-span-without-name", rec.spans, None, full=False,
              refusal=r"expected the name of the tool called, got no name",
              note="an execute_tool span without gen_ai.tool.name (span name just "
                   "'execute_tool'): which tool ran is unknown, so the trace is refused, not "
                   "read with a made-up name.")
    with _Recorder(44) as rec, rec.tracer.start_as_current_span("execute_tool ping", attributes={
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "ping"}):
        pass
    out.spans("execute-tool-no-arguments-attribute", rec.spans,
              _calls(Call("ping", {}, None, NOT_CAPTURED)), full=False, alone=rec.spans[0],
              note="execute_tool span with only gen_ai.tool.name (arguments are Opt-In): the "
                   "arguments are flagged not captured.")

    # 45. server_tool_call parts + tool_call parts; hosted_tools=False.
    web = Call("web_search", {"query": "weather Paris today"}, "ws_1")
    interp = Call("code_interpreter", {"code": "print(2+2)", "container_id": "cntr_1"}, "ci_1")
    out_msgs = [{"role": "assistant", "parts": [
        {"type": "server_tool_call", "id": "ws_1", "name": "web_search",
         "server_tool_call": {"type": "web_search", "query": "weather Paris today"}},
        {"type": "server_tool_call_response", "id": "ws_1",
         "server_tool_call_response": {"type": "web_search", "results": [{"url": "https://x"}]}},
        {"type": "server_tool_call", "id": "ci_1", "name": "code_interpreter",
         "server_tool_call": {"type": "code_interpreter", "code": "print(2+2)",
                              "container_id": "cntr_1", "outputs": None}},
        _part(P1),
        {"type": "text", "content": "Let me check the weather."},
    ], "finish_reason": "tool_call"}]
    with _Recorder(45) as rec:
        _chat_span(rec, out_msgs, finish=("tool_call",))
    out.spans("server-tool-call-parts", rec.spans, _calls(web, interp, P1), full=False,
              alone=rec.spans[0],
              note="server_tool_call parts (hosted tools): name from part.name, arguments = the "
                   "server_tool_call object minus 'type' and null fields, id = part id; "
                   "server_tool_call_response parts are results, not calls.")
    out.spans("server-tool-call-parts-no-hosted", rec.spans, _calls(P1), full=False,
              alone=rec.spans[0], options={"hosted_tools": False},
              note="hosted_tools=False: only the tool_call part.")
    out.add("json", "bare-output-messages-server-tool-call-text", json.dumps(out_msgs),
            _calls(web, interp, P1), note="the value alone as JSON text.")
    out.add("dump", "bare-output-messages-server-tool-call-list", out_msgs,
            _calls(web, interp, P1), note="the value alone as a list.")

    # 46. Output messages as a structured (non-text) span attribute is impossible (spans
    # only take primitives); frameworks with string arguments inside parts:
    msgs = [{"role": "assistant", "parts": [
        {"type": "tool_call", "id": "call_s", "name": "get_weather",
         "arguments": "{\"city\": \"Paris\"}"},
        {"type": "tool_call", "id": "call_n", "name": "get_time", "arguments": None},
        {"type": "tool_call", "id": "call_m", "name": "noop"},
    ], "finish_reason": "tool_call"}]
    expected = _calls(Call("get_weather", {"city": "Paris"}, "call_s"),
                      Call("get_time", {}, "call_n"), Call("noop", {}, "call_m"))
    out.add("json", "bare-output-messages-argument-shapes-text", json.dumps(msgs), expected,
            note="tool_call parts whose arguments are JSON TEXT of an object (parsed), null, "
                 "missing.")
    out.add("dump", "bare-output-messages-argument-shapes-list", msgs, expected,
            note="same as a list.")
    nameless = [{"role": "assistant", "parts": [
        {"type": "tool_call", "id": "call_s", "name": "get_weather", "arguments": {"city": "P"}},
        {"type": "tool_call", "id": "call_u", "arguments": {"a": 1}}],
        "finish_reason": "tool_call"}]
    out.add("dump", "bare-output-messages-part-without-name", nameless, None,
            refusal=r"at \[0\]\.parts\[1\], expected the name of the tool called, got no name",
            note="a tool_call part with arguments and no name: refused, not '<unnamed>'.")
    out.add("dump", "bare-output-messages-text-only", [{"role": "assistant", "parts": [
        {"type": "text", "content": "Hello!"}], "finish_reason": "stop"}], (),
        note="an output-messages value with no call: [].")

    # 47. util-genai's own TelemetryHandler (what frameworks built on it emit).
    from opentelemetry.util.genai.handler import TelemetryHandler
    from opentelemetry.util.genai.types import OutputMessage, Text, ToolCallRequestPart

    def util_trace(no: int, capture: str | None) -> list[ReadableSpan]:
        with _Recorder(no) as rec, _env(OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=capture,
                                        OTEL_INSTRUMENTATION_GENAI_EMIT_EVENT=None):
            handler = TelemetryHandler(tracer_provider=rec.tp, logger_provider=rec.lp)
            with handler.invoke_local_agent(request_model="gpt-4o", agent_name="weather_agent"):
                with handler.inference("openai", request_model="gpt-4o") as inf:
                    inf.output_messages = [OutputMessage(role="assistant", finish_reason="tool_calls", parts=[
                        ToolCallRequestPart(arguments=P1.arguments, name=P1.name, id=P1.id),
                        ToolCallRequestPart(arguments=P2.arguments, name=P2.name, id=P2.id)])]
                for call in (P1, P2):
                    with handler.tool(call.name) as tool:
                        tool.tool_call_id = call.id
                        if tool.should_capture_content:
                            tool.arguments = call.arguments
                            tool.tool_result = {"ok": True}
                with handler.inference("openai", request_model="gpt-4o") as inf:
                    inf.output_messages = [OutputMessage(role="assistant", finish_reason="stop",
                                                         parts=[Text(content="Done.")])]
            return rec.spans

    out.spans("util-genai-handler-agent", util_trace(47, "span_only"), _calls(P1, P2),
              full=False,
              note="opentelemetry-util-genai TelemetryHandler: invoke_agent + inference + "
                   "execute_tool (handler.tool) spans; tool arguments JSON text; calls in both "
                   "the inference output messages and the tool spans: once each.")
    out.spans("util-genai-handler-agent-capture-off", util_trace(48, None), None, full=False,
        note="the same with capture off: inference spans say tool_calls without content; the "
             "execute_tool spans keep name and id, but a requested call that never ran would be "
             "lost: REFUSED, content capture.")

    # 49. An empty trace (agent answered directly) and a trace with no GenAI at all.
    with _Recorder(49) as rec, _agent_span(rec):
        _chat_span(rec, [{"role": "assistant", "parts": [{"type": "text", "content": "Hi"}],
                          "finish_reason": "stop"}], finish=("stop",))
    out.spans("no-calls", rec.spans, (), full=False, note="chat answered with text: [].")


# --------------------------------------------------------------------------- #
# Public API
# --------------------------------------------------------------------------- #


def scenarios() -> list[Scenario]:
    out = _Out()
    _openai_v2_scenarios(out)
    _google_scenarios(out)
    _traceloop_scenarios(out)
    _openinference_scenarios(out)
    _handmade_scenarios(out)
    return out.items


# ----- writers -------------------------------------------------------------- #

_WRITER_T0 = _T0 + 900 * 1_000_000 * _MS


def _unique_ids(turns: list[list[Call]], *, require: bool) -> list[list[Call]]:
    """Make repeated ids distinct (invented ids are returned in the expected calls);
    with ``require`` also invent ids for calls that have none."""
    seen: set[str] = set()
    fixed: list[list[Call]] = []
    for t, turn in enumerate(turns):
        row = []
        for i, call in enumerate(turn):
            cid = call.id
            if (require and cid is None) or (cid is not None and cid in seen):
                cid = f"call_t{t}_{i}"
                k = 0
                while cid in seen:
                    k += 1
                    cid = f"call_t{t}_{i}_{k}"
            if cid is not None:
                seen.add(cid)
            row.append(Call(call.name, call.arguments, cid, call.raw_arguments))
        fixed.append(row)
    return fixed


def _expected(turns: list[list[Call]]) -> tuple[Call, ...]:
    return tuple(Call(c.name, dict(c.arguments or {}), c.id) for turn in turns for c in turn)


class _Writer:
    """Hand-made spans with explicit, deterministic times."""

    def __init__(self) -> None:
        self.exporter = InMemorySpanExporter()
        self.tp = TracerProvider(resource=_RESOURCE, id_generator=_CountingIds(900),
                                 shutdown_on_exit=False)
        self.tp.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.tracer = self.tp.get_tracer("weather_agent.framework", "0.3.1")
        self.now = _WRITER_T0

    def tick(self) -> int:
        self.now += _MS
        return self.now

    def root(self) -> Any:
        return self.tracer.start_span(
            "invoke_agent weather_agent", kind=SpanKind.INTERNAL, start_time=self.tick(),
            attributes={"gen_ai.operation.name": "invoke_agent",
                        "gen_ai.agent.name": "weather_agent"})

    def chat(self, ctx: Any, turn: list[Call]) -> None:
        parts: list[dict[str, Any]] = [
            {"type": "tool_call", "id": c.id, "name": c.name, "arguments": c.arguments}
            for c in turn]
        if not parts:
            parts = [{"type": "text", "content": "Done."}]
        finish = "tool_calls" if turn else "stop"
        span = self.tracer.start_span("chat gpt-4o", context=ctx, kind=SpanKind.CLIENT,
                                      start_time=self.tick(), attributes={
            "gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai",
            "gen_ai.request.model": "gpt-4o", "gen_ai.response.finish_reasons": (finish,),
            "gen_ai.output.messages": json.dumps(
                [{"role": "assistant", "parts": parts, "finish_reason": finish}])})
        span.end(end_time=self.tick())

    def tools(self, ctx: Any, turn: list[Call]) -> None:
        """Parallel execute_tool spans of one turn: started in order, ended in REVERSE."""
        open_spans = []
        for call in turn:
            attrs: dict[str, Any] = {"gen_ai.operation.name": "execute_tool",
                                     "gen_ai.tool.name": call.name,
                                     "gen_ai.tool.call.arguments": json.dumps(call.arguments)}
            if call.id is not None:
                attrs["gen_ai.tool.call.id"] = call.id
            open_spans.append(self.tracer.start_span(
                f"execute_tool {call.name}", context=ctx, kind=SpanKind.INTERNAL,
                start_time=self.tick(), attributes=attrs))
        for span in reversed(open_spans):
            span.end(end_time=self.tick())

    def spans(self) -> list[ReadableSpan]:
        return list(self.exporter.get_finished_spans())


def write_execute_tool_spans(turns: list[list[Call]]) -> tuple[object, tuple[Call, ...]]:
    """ReadableSpans: an invoke_agent root and one execute_tool span per call (export order).

    A call without id gets a span without gen_ai.tool.call.id. A REPEATED id is replaced by
    an invented one: two execute_tool spans with one call id are a retry of one call or two
    calls, which SEMANTICS does not settle; the property tests stay out of it."""
    turns = _unique_ids(turns, require=False)
    w = _Writer()
    root = w.root()
    ctx = trace_api.set_span_in_context(root)
    for turn in turns:
        w.tools(ctx, turn)
    root.end(end_time=w.tick())
    return w.spans(), _expected(turns)


def write_output_messages(turns: list[list[Call]]) -> tuple[object, tuple[Call, ...]]:
    """ReadableSpans: one chat span per turn with gen_ai.output.messages (ids may be null)."""
    w = _Writer()
    root = w.root()
    ctx = trace_api.set_span_in_context(root)
    for turn in turns:
        w.chat(ctx, turn)
    root.end(end_time=w.tick())
    return w.spans(), _expected(turns)


def write_otlp_json(turns: list[list[Call]]) -> tuple[object, tuple[Call, ...]]:
    """OTLP JSON (camelCase resourceSpans) of a full agent trace: per turn a chat span with
    the calls in gen_ai.output.messages AND one execute_tool span per call (same id, so each
    call must come back once). Ids are required to pair them: missing or repeated ids are
    replaced by invented distinct ones, returned in the expected calls."""
    turns = _unique_ids(turns, require=True)
    w = _Writer()
    root = w.root()
    ctx = trace_api.set_span_in_context(root)
    for turn in turns:
        w.chat(ctx, turn)
        w.tools(ctx, turn)
    root.end(end_time=w.tick())
    return _otlp(w.spans()), _expected(turns)


def writers() -> dict[str, Callable[[list[list[Call]]], tuple[object, tuple[Call, ...]]]]:
    return {
        "execute_tool_spans": write_execute_tool_spans,
        "otlp_json": write_otlp_json,
        "output_messages": write_output_messages,
    }
