"""Ground-truth Ollama /api/chat payloads, built offline with the real SDK.

Every response object here comes out of ``ollama.Client`` (its constructor
forwards ``transport=`` to ``httpx.Client``) talking to an
``httpx.MockTransport`` that serves /api/chat bodies: recorded from a live
Ollama by other projects' VCR cassettes where they exist (see ``SOURCES`` at
the bottom and each Scenario.note), Ollama's documented examples, or
hand-written in the shape the Ollama server (api/types.go, server/routes.go)
produces.

Shapes (see NOTES.md next to this file):

* response: ``message.tool_calls`` = [{id?, function {index, name, arguments:
  an OBJECT}}], ``done`` true, ``done_reason`` "stop" even when calling tools
  (there is no "tool_calls" finish reason, so a response can never say its
  calls are missing). ``id`` ("call_" + 8 characters) exists since Ollama
  v0.12.10, ``function.index`` since v0.4.7; older bodies and the docs have neither.
* The Python SDK (ollama 0.6.3, and ollama-python's main branch) DROPS ``id``
  and ``function.index``: its ``Message.ToolCall`` has only ``function {name,
  arguments}``, and pydantic ignores extra keys. So SDK objects and their dumps
  carry no call ids, while the raw body ("rest" forms) does: the expected ids
  differ between forms of the same response, on purpose.
* stream (NDJSON, one ChatResponse per line): each tool call arrives WHOLE in
  one chunk (never in pieces), with its id; chunks have done false; the last
  chunk has done true, done_reason and the metrics, and may itself carry the
  call(s). A call is sent once: the calls of a stream are the concatenation of
  every chunk's tool_calls.
* request messages: {role "tool", tool_name, content} results (and
  ``tool_call_id`` since v0.12.10, which the SDK also drops).

Provider: "ollama".
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import httpx
import ollama

from payloads._scenario import Call, Scenario, source_note

PROVIDER = "ollama"
MODEL = "qwen3"
HOST = "http://127.0.0.1:1"  # never contacted: the transport answers
NDJSON = "application/x-ndjson"
JSON = "application/json; charset=utf-8"
STREAM_ERROR = r"(?i)(error|failed)"


# -- mock server ---------------------------------------------------------------------------


class _Server:
    """A MockTransport handler serving queued (body text, content type) pairs."""

    def __init__(self) -> None:
        self.queue: list[tuple[str, str]] = []
        self.requests: list[dict[str, Any]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(json.loads(request.content or b"{}"))
        body, content_type = self.queue.pop(0)
        return httpx.Response(200, content=body.encode(), headers={"content-type": content_type})


_SERVER = _Server()
_CLIENT: ollama.Client | None = None


def _client() -> ollama.Client:
    global _CLIENT
    if _CLIENT is None:
        _CLIENT = ollama.Client(host=HOST, transport=httpx.MockTransport(_SERVER))
    return _CLIENT


_QUESTION = [{"role": "user", "content": "What's the weather in Paris?"}]


def _chat(body: str | dict[str, Any], messages: list[Any] | None = None, **kwargs: Any) -> Any:
    """client.chat(...) answered with ``body`` (JSON text served verbatim, or a dict)."""
    _SERVER.queue.append((body if isinstance(body, str) else json.dumps(body), JSON))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _client().chat(model=MODEL, messages=messages or _QUESTION, **kwargs)


def _stream(ndjson: str, messages: list[Any] | None = None) -> list[Any]:
    """client.chat(..., stream=True): the ChatResponse chunks the SDK yields."""
    _SERVER.queue.append((ndjson, NDJSON))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return list(_client().chat(model=MODEL, messages=messages or _QUESTION, stream=True))


# -- body builders (the server's JSON, in the recorded shapes) ------------------------------

_CREATED = "2026-08-07T06:08:09.335586Z"
_METRICS = {"total_duration": 1735248334, "load_duration": 139246000, "prompt_eval_count": 292,
            "prompt_eval_duration": 247164000, "eval_count": 143, "eval_duration": 1337032000}


def _call(name: str, arguments: dict[str, Any], index: int | None = None,
          cid: str | None = None) -> dict[str, Any]:
    """A tool call as the server writes it: {"id", "function": {"index", "name", "arguments"}}
    (id first, function.index first: api/types.go field order)."""
    function: dict[str, Any] = {}
    if index is not None:
        function["index"] = index
    function.update(name=name, arguments=arguments)
    return ({"id": cid} if cid is not None else {}) | {"function": function}


def _body(*, content: str = "", tool_calls: list[dict[str, Any]] | None = None, thinking: str = "",
          done: bool = True, model: str = "qwen3.6:latest") -> dict[str, Any]:
    """One /api/chat response (or stream chunk): message {role, content, thinking?,
    tool_calls?} then done, done_reason and the metrics when done."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if thinking:
        message["thinking"] = thinking
    if tool_calls:
        message["tool_calls"] = tool_calls
    body: dict[str, Any] = {"model": model, "created_at": _CREATED, "message": message, "done": done}
    if done:
        body["done_reason"] = "stop"
        body.update(_METRICS)
    return body


#: Go's encoding/json (the server) writes non-ASCII as UTF-8 but escapes <, >, & and
#: U+2028/U+2029. U+0085 it leaves raw, which breaks the SDK (httpx's iter_lines splits
#: lines on it): escaped here so every payload stays readable by the SDK.
_GO_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028",
               "\u2029": "\\u2029", "\x85": "\\u0085"}


def _go_json(value: Any) -> str:
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    for char, escape in _GO_ESCAPES.items():
        text = text.replace(char, escape)
    return text


def _ndjson(chunks: list[dict[str, Any]]) -> str:
    """NDJSON as the server streams it: compact JSON objects, one per line (recorded)."""
    return "".join(_go_json(c) + "\n" for c in chunks)


def _pieces(text: str, size: int) -> list[str]:
    return [text[i: i + size] for i in range(0, len(text), size)]


def _chunks(*, thinking: str = "", content: str = "", call_chunks: Sequence[list[dict[str, Any]]] = (),
            final_calls: list[dict[str, Any]] | None = None, piece: int = 6) -> list[dict[str, Any]]:
    """A stream: thinking pieces, content pieces, then one chunk per entry of
    ``call_chunks`` (each a list of WHOLE calls), then the done chunk (which holds
    ``final_calls`` when given, as when the parser completes a call on the last token)."""
    out = [_body(thinking=p, done=False) for p in _pieces(thinking, piece)]
    out += [_body(content=p, done=False) for p in _pieces(content, piece)]
    out += [_body(tool_calls=calls, done=False) for calls in call_chunks]
    out.append(_body(tool_calls=final_calls))
    return out


# -- forms --------------------------------------------------------------------------------


def _sc(form: str, name: str, payload: Any, expected: tuple[Call, ...] | None, note: str,
        refusal: str | None = None) -> Scenario:
    return Scenario(PROVIDER, form, name, payload, expected, refusal, {}, note.strip())


def _no_ids(calls: tuple[Call, ...]) -> tuple[Call, ...]:
    return tuple(Call(c.name, c.arguments, None, c.raw_arguments) for c in calls)


_SDK_NOTE = " The SDK drops the call ids (and function.index): no ids here."


def _model_forms(base: str, obj: Any, expected: tuple[Call, ...], note: str, *,
                 raw: str | list[str] | None = None) -> list[Scenario]:
    """The SDK object (ids None), dict(obj), model_dump(mode="json"),
    model_dump(exclude_none=True), model_dump_json(); and the body as the server
    sent it (with ids): parsed ("rest"), verbatim, bytes. ``expected`` carries
    the server's ids."""
    sdk = _no_ids(expected)
    many = isinstance(obj, list)
    dump = [o.model_dump(mode="json") for o in obj] if many else obj.model_dump(mode="json")
    slim = [o.model_dump(exclude_none=True) for o in obj] if many else obj.model_dump(exclude_none=True)
    out = [
        _sc("object", f"{base}-object", obj, sdk, note + _SDK_NOTE),
        _sc("object", f"{base}-dict-object", [dict(o) for o in obj] if many else dict(obj), sdk,
            note + _SDK_NOTE + " dict(response): a plain dict whose 'message' is still an SDK Message "
                               "(the SDK's models are subscriptable: response['message']['tool_calls'])."),
        _sc("dump", f"{base}-dump", dump, sdk,
            note + _SDK_NOTE + ' model_dump(mode="json"): every optional field present, null.'),
        _sc("dump", f"{base}-exclude-none-dump", slim, sdk, note + _SDK_NOTE + " model_dump(exclude_none=True)."),
        _sc("json", f"{base}-json", json.dumps(dump), sdk, note + _SDK_NOTE),
    ]
    if not many:
        out.append(_sc("json", f"{base}-model-dump-json", obj.model_dump_json(), sdk,
                       note + _SDK_NOTE + " model_dump_json()."))
    if raw is not None:
        parsed = [json.loads(r) for r in raw] if isinstance(raw, list) else json.loads(raw)
        text = json.dumps(parsed) if isinstance(raw, list) else raw
        rest = " The body as the server sent it (ids kept)."
        out += [_sc("dump", f"{base}-rest", parsed, expected, note + rest + " Parsed (requests .json())."),
                _sc("json", f"{base}-rest-json", text, expected, note + rest),
                _sc("json", f"{base}-rest-json-bytes", text.encode(), expected, note + rest + " Bytes.")]
    return out


def _stream_forms(base: str, chunks: list[Any], ndjson: str, expected: tuple[Call, ...],
                  note: str) -> list[Scenario]:
    """SDK chunk objects and their dumps (ids None); the NDJSON text the server sent
    (form "json"), as str and bytes, and its lines parsed (ids kept)."""
    sdk = _no_ids(expected)
    dumped = [c.model_dump(mode="json") for c in chunks]
    lines = [json.loads(line) for line in ndjson.splitlines() if line.strip()]
    return [
        _sc("object", f"{base}-object", chunks, sdk, note + _SDK_NOTE),
        _sc("dump", f"{base}-dump", dumped, sdk, note + _SDK_NOTE),
        _sc("json", f"{base}-json", json.dumps(dumped), sdk, note + _SDK_NOTE),
        _sc("json", f"{base}-rest-json", ndjson, expected,
            note + " The NDJSON text as streamed (application/x-ndjson), ids kept."),
        _sc("json", f"{base}-rest-json-bytes", ndjson.encode(), expected, note + " NDJSON as bytes."),
        _sc("dump", f"{base}-rest", lines, expected, note + " The NDJSON lines, each parsed."),
    ]



# -- single responses ---------------------------------------------------------------------


def _basic() -> list[Scenario]:
    out: list[Scenario] = []

    raw = _RECORDED["TOOL_CALL"]
    out += _model_forms(
        "one-call", _chat(raw), (Call("get_current_weather", {"city": "Paris"}, "call_gsiiy8py"),),
        "Recorded (Ollama 2026, qwen3.6): content '', thinking text, tool_calls [{id, function "
        "{index 0, name, arguments object}}], done true, done_reason 'stop'." + source_note(SOURCES, "TOOL_CALL"), raw=raw)

    raw = _RECORDED["CALLABLE_TOOL_CALL"]
    out += _model_forms(
        "callable-tool-call", _chat(raw), (Call("add_two_numbers", {"a": 2, "b": 3}, "call_2k7ryu9k"),),
        "Recorded call of a tool the SDK built from a Python function (tools=[add_two_numbers]); "
        "integer arguments." + source_note(SOURCES, "CALLABLE_TOOL_CALL"), raw=raw)

    raw = _DOCS["API_TOOLS_RESPONSE"]
    out += _model_forms(
        "documented-call-without-id", _chat(raw), (Call("get_weather", {"city": "Tokyo"}),),
        "Documented non-streaming tool call: no id, no function.index (servers before v0.12.10 "
        "send no id): no id in any form." + source_note(SOURCES, "API_TOOLS_RESPONSE"), raw=raw)

    raw = _DOCS["API_LEGACY_TOOLS_RESPONSE"]
    out += _model_forms(
        "legacy-call", _chat(raw),
        (Call("get_current_weather", {"format": "celsius", "location": "Paris, FR"}),),
        "Documented 2024 (llama3.2) tool call response, the oldest shape: function {name, "
        "arguments} only." + source_note(SOURCES, "API_LEGACY_TOOLS_RESPONSE"), raw=raw)

    calls = [_call("get_temperature", {"city": "New York"}, 0, "call_4nq8v2xa"),
             _call("get_conditions", {"city": "New York"}, 1, "call_k7d3m9pz"),
             _call("get_temperature", {"city": "London"}, 2, "call_w1e5r8ty"),
             _call("get_conditions", {"city": "London"}, 3, "call_b6h2j0lc")]
    body = _body(tool_calls=calls, thinking="Two cities, two tools each: four calls.")
    out += _model_forms(
        "parallel-calls", _chat(body),
        (Call("get_temperature", {"city": "New York"}, "call_4nq8v2xa"),
         Call("get_conditions", {"city": "New York"}, "call_k7d3m9pz"),
         Call("get_temperature", {"city": "London"}, "call_w1e5r8ty"),
         Call("get_conditions", {"city": "London"}, "call_b6h2j0lc")),
        "Four parallel calls (the docs' parallel example: two tools, two cities) with index 0..3 "
        "and ids. Hand-written in the recorded shape.", raw=json.dumps(body))

    body = _body(tool_calls=[_call("list_open_tickets", {}, 0, "call_0z9y8x7w")])
    out += _model_forms(
        "no-argument-call", _chat(body), (Call("list_open_tickets", {}, "call_0z9y8x7w"),),
        "A tool with no parameters: arguments {} (the server marshals empty arguments as {}, "
        "api/types.go ToolCallFunctionArguments.MarshalJSON). Hand-written.", raw=json.dumps(body))

    nested = {"query": {"city": "Paris", "dates": ["2025-07-01", "2025-07-02"],
                        "filters": {"max_price": 250.5, "refundable": True, "tags": None}},
              "limit": 3, "note": "naïve \"café\" ☕"}
    body = _body(tool_calls=[_call("search_hotels", nested, 0, "call_n3s7t1d9")])
    out += _model_forms(
        "nested-arguments", _chat(body), (Call("search_hotels", nested, "call_n3s7t1d9"),),
        "Nested object arguments (array, float, bool, null, non-ASCII). Hand-written.",
        raw=json.dumps(body, ensure_ascii=False))

    body = _body(content="Let me check the forecast for you.",
                 tool_calls=[_call("get_forecast", {"city": "Paris", "days": 3}, 0, "call_f4r3c4st")])
    out += _model_forms(
        "text-plus-call", _chat(body), (Call("get_forecast", {"city": "Paris", "days": 3}, "call_f4r3c4st"),),
        "Text content next to a call (a non-streamed response joins the content and the calls of "
        "every chunk). Hand-written.", raw=json.dumps(body))

    raw = _RECORDED["TEXT"]
    out += _model_forms("text-only", _chat(raw), (),
                        "Recorded plain answer (llama3, 2024): no tool_calls key." + source_note(SOURCES, "TEXT"), raw=raw)
    raw = _RECORDED["THINKING_TEXT"]
    out += _model_forms("thinking-answer", _chat(raw), (),
                        "Recorded answer with thinking text: no call." + source_note(SOURCES, "THINKING_TEXT"), raw=raw)
    return out


# -- conversations ------------------------------------------------------------------------


def _conversations() -> list[Scenario]:
    out: list[Scenario] = []
    answer = _body(content="It is 18°C and sunny in Paris.")
    first = _chat(_RECORDED["TOOL_CALL"])
    messages: list[Any] = [*_QUESTION, first.message,
                           {"role": "tool", "tool_name": "get_current_weather", "content": "18°C, sunny"}]
    second = _chat(answer, messages=list(messages))
    sent = _SERVER.requests[-1]["messages"]
    expected: tuple[Call, ...] = (Call("get_current_weather", {"city": "Paris"}, "call_gsiiy8py"),)
    note = "The recorded call, a tool result, then an answer." + source_note(SOURCES, "TOOL_CALL")
    out += _model_forms("responses-per-turn", [first, second], expected,
                        "A list of ChatResponse objects, one per turn. " + note,
                        raw=[_RECORDED["TOOL_CALL"], json.dumps(answer)])
    out.append(_sc("list", "conversation-sdk-objects", [*messages, second.message], _no_ids(expected),
                   "Request-style messages as the docs build them (messages.append(response.message)): "
                   "SDK Message objects among plain dicts; the tool result {role 'tool', tool_name, "
                   "content} is a result, not a call." + _SDK_NOTE + note))
    out.append(_sc("dump", "conversation-request-messages", sent, _no_ids(expected),
                   "The JSON 'messages' the SDK sent: the assistant message serialized WITHOUT id/index "
                   "(and without content ''), then the tool message." + note))
    out.append(_sc("json", "conversation-request-messages-json", json.dumps(sent), _no_ids(expected),
                   "Same, as JSON text." + note))

    # the docs' streaming loop: one accumulated assistant dict holding SDK ToolCall objects
    calls = [_call("get_temperature", {"city": "New York"}, 0, "call_s1t2r3m4"),
             _call("get_temperature", {"city": "London"}, 1, "call_s5t6r7m8")]
    chunks = _stream(_ndjson(_chunks(thinking="Two cities.", call_chunks=[[calls[0]], [calls[1]]])))
    tool_calls = [tc for ch in chunks for tc in ch.message.tool_calls or []]
    convo = [{"role": "user", "content": "What is the temperature in New York and London?"},
             {"role": "assistant", "thinking": "Two cities.", "content": "", "tool_calls": tool_calls},
             {"role": "tool", "tool_name": "get_temperature", "content": "22°C"},
             {"role": "tool", "tool_name": "get_temperature", "content": "15°C"}]
    out.append(_sc("list", "streamed-conversation-sdk-objects", convo,
                   (Call("get_temperature", {"city": "New York"}), Call("get_temperature", {"city": "London"})),
                   "The docs' streaming loop: an assistant dict built from the accumulated chunks "
                   "({'thinking', 'content', 'tool_calls': [SDK ToolCall objects]}), then tool results. "
                   "Two calls of the same tool. Source: ollama/ollama:docs/capabilities/tool-calling.mdx "
                   "'Tool calling with streaming'." + _SDK_NOTE))

    body = json.loads(_DOCS["TC_PARALLEL_REQUEST"])
    docs_calls = (Call("get_temperature", {"city": "New York"}), Call("get_conditions", {"city": "New York"}),
                  Call("get_temperature", {"city": "London"}), Call("get_conditions", {"city": "London"}))
    note = ("Documented request body (REST): assistant tool_calls [{type 'function', function {index, "
            "name, arguments}}] with no ids, then four {role 'tool', tool_name, content} results."
            + source_note(SOURCES, "TC_PARALLEL_REQUEST"))
    out.append(_sc("dump", "rest-request-messages", body["messages"], docs_calls, note))
    out.append(_sc("dump", "rest-request-body", body, docs_calls, note + " The whole body (model, messages, stream)."))
    out.append(_sc("json", "rest-request-body-json", json.dumps(body), docs_calls, note + " As JSON text."))

    convo = [
        {"role": "user", "content": "Book a table for two at 8pm and text Sam."},
        {"role": "assistant", "content": "",
         "tool_calls": [{"id": "call_b00k1ng2", "function": {"index": 0, "name": "book_table",
                                                             "arguments": {"party_size": 2, "time": "20:00"}}}]},
        {"role": "tool", "tool_name": "book_table", "tool_call_id": "call_b00k1ng2", "content": "Booked, ref 4411"},
        {"role": "assistant", "content": "Booked. Now texting Sam.",
         "tool_calls": [{"id": "call_sms0s3nd", "function": {"index": 0, "name": "send_sms",
                                                             "arguments": {"to": "Sam", "body": "Dinner at 8"}}}]},
        {"role": "tool", "tool_name": "send_sms", "tool_call_id": "call_sms0s3nd", "content": "sent"},
        {"role": "assistant", "content": "Done: table booked and Sam has been texted."},
    ]
    expected = (Call("book_table", {"party_size": 2, "time": "20:00"}, "call_b00k1ng2"),
                Call("send_sms", {"to": "Sam", "body": "Dinner at 8"}, "call_sms0s3nd"))
    note = ("A REST conversation as a current server round-trips it: assistant calls with id + "
            "function.index (index restarts at 0 per message), tool results with tool_name AND "
            "tool_call_id (api/types.go Message). Hand-written.")
    out.append(_sc("dump", "rest-conversation-with-ids", convo, expected, note))
    out.append(_sc("json", "rest-conversation-with-ids-json", json.dumps(convo), expected, note))
    return out


# -- streams ------------------------------------------------------------------------------


def _streams() -> list[Scenario]:
    out: list[Scenario] = []

    nd = _ndjson([json.loads(_DOCS["API_STREAM_TOOL_CHUNK"]), json.loads(_DOCS["API_STREAM_FINAL_CHUNK"])])
    out += _stream_forms(
        "stream-documented-call", _stream(nd), nd, (Call("get_weather", {"city": "Tokyo"}),),
        "The documented tool stream: one chunk (done false) holding the whole call (no id), then "
        "the done chunk (done_reason 'stop', metrics, no calls)."
        + source_note(SOURCES, "API_STREAM_TOOL_CHUNK", "API_STREAM_FINAL_CHUNK"))

    call = _call("get_current_weather", {"city": "Paris"}, 0, "call_9xk2m4qp")
    nd = _ndjson(_chunks(thinking="The user wants the weather in Paris.", call_chunks=[[call]]))
    out += _stream_forms(
        "stream-one-call", _stream(nd), nd, (Call("get_current_weather", {"city": "Paris"}, "call_9xk2m4qp"),),
        "Thinking pieces (content ''), then one chunk with the whole call (id, index 0), then the "
        "done chunk. Hand-written in the recorded chunk shape (server/routes.go ChatHandler).")

    calls = [_call("get_temperature", {"city": "New York"}, 0, "call_a1b2c3d4"),
             _call("get_temperature", {"city": "London"}, 1, "call_e5f6g7h8")]
    expected = (Call("get_temperature", {"city": "New York"}, "call_a1b2c3d4"),
                Call("get_temperature", {"city": "London"}, "call_e5f6g7h8"))
    nd = _ndjson(_chunks(call_chunks=[[calls[0]], [calls[1]]]))
    out += _stream_forms(
        "stream-two-calls-separate-chunks", _stream(nd), nd, expected,
        "Two calls of the same tool, each whole in its own chunk (index 0 then 1: the index counts "
        "calls across the whole response). Concatenate, do not merge by index or name.")
    nd = _ndjson(_chunks(call_chunks=[calls]))
    out += _stream_forms("stream-two-calls-one-chunk", _stream(nd), nd, expected,
                         "Two calls in one chunk's tool_calls.")

    nd = _ndjson(_chunks(content="", final_calls=[_call("get_weather", {"location": "Seattle, WA",
                                                                         "unit": "celsius"}, 0, "call_f1n4lch7")]))
    out += _stream_forms(
        "stream-call-in-final-chunk", _stream(nd), nd,
        (Call("get_weather", {"location": "Seattle, WA", "unit": "celsius"}, "call_f1n4lch7"),),
        "The call arrives in the done:true chunk itself (the parser completes it on the last token): "
        "the shape server/routes_generate_test.go 'messages with tools (streaming)' asserts.")

    nd = _ndjson(_chunks(call_chunks=[[_call("list_open_tickets", {}, 0, "call_n0args00")]]))
    out += _stream_forms("stream-no-argument-call", _stream(nd), nd,
                         (Call("list_open_tickets", {}, "call_n0args00"),),
                         "A no-parameter call in a stream: arguments {}.")

    nested = {"itinerary": [{"city": "Lyon", "nights": 2}, {"city": "Nice", "nights": 3}],
              "options": {"budget": 1200.5, "flexible": False, "notes": None}}
    nd = _ndjson(_chunks(thinking="Plan first.", content="I'll plan the trip.",
                         call_chunks=[[_call("plan_trip", nested, 0, "call_pl4ntr1p")]]))
    out += _stream_forms("stream-content-then-call", _stream(nd), nd,
                         (Call("plan_trip", nested, "call_pl4ntr1p"),),
                         "Thinking pieces, content pieces, then a call with nested arguments.")

    nd = _RECORDED["STREAM_TEXT_NDJSON"]
    out += _stream_forms("stream-text-only", _stream(nd), nd, (),
                         "Recorded text stream (llama3): no call." + source_note(SOURCES, "STREAM_TEXT_NDJSON"))

    first = _stream(_ndjson(_chunks(call_chunks=[[calls[0]], [calls[1]]])))
    second = _stream(_ndjson(_chunks(content="22°C in New York, 15°C in London.")))
    chunks = first + second
    note = "Chunks of two streams (calls, then the answer), concatenated." + _SDK_NOTE
    dumped = [c.model_dump(mode="json") for c in chunks]
    out += [_sc("object", "stream-two-turns-object", chunks, _no_ids(expected), note),
            _sc("dump", "stream-two-turns-dump", dumped, _no_ids(expected), note),
            _sc("json", "stream-two-turns-json", json.dumps(dumped), _no_ids(expected), note)]

    # a stream the server ended with an error line (the SDK raises ResponseError on it, so
    # only the wire text can hold it)
    lines = _ndjson(_chunks(thinking="I should call get_weather.")[:-1]
                    + [{"error": "failed to parse JSON: unexpected end of JSON input"}])
    note = ("A stream that ended with an {\"error\": ...} line instead of a done chunk (what "
            "server/routes.go ChatHandler sends when the model's tool-call text fails to parse; "
            "the qwen3 parser's message). The call the model attempted is missing: REFUSED. "
            "(A proposal: the only failure signal Ollama has, since done_reason is 'stop' even with calls.)")
    out += [_sc("json", "stream-error-line-rest-json", lines, None, note, STREAM_ERROR),
            _sc("dump", "stream-error-line-rest",
                [json.loads(x) for x in lines.splitlines()], None, note, STREAM_ERROR)]
    return out


def scenarios() -> list[Scenario]:
    _SERVER.queue.clear()  # a failed earlier build must not leave bodies behind
    return _basic() + _conversations() + _streams()


# -- writers -----------------------------------------------------------------------------


def _turn_calls(turn: list[Call], t: int) -> tuple[list[dict[str, Any]], list[Call]]:
    raw, expected = [], []
    for i, call in enumerate(turn):
        cid = call.id if call.id is not None else f"call_w{t:02d}x{i:03d}"
        raw.append(_call(call.name, dict(call.arguments or {}), i, cid))
        expected.append(Call(call.name, dict(call.arguments or {}), cid))
    return raw, expected


def _turn_body(turn: list[Call], t: int) -> tuple[dict[str, Any], list[Call]]:
    raw, expected = _turn_calls(turn, t)
    if not raw:
        return _body(content=f"Turn {t}: nothing to call."), []
    return _body(content=f"Turn {t}." if t % 2 else "", tool_calls=raw), expected


def write_responses_per_turn(turns: list[list[Call]]) -> tuple[object, tuple[Call, ...]]:
    """ChatResponse objects through the client, one per turn (the SDK drops ids)."""
    payload: list[Any] = []
    expected: list[Call] = []
    for t, turn in enumerate(turns):
        body, exp = _turn_body(turn, t)
        payload.append(_chat(body))
        expected += _no_ids(tuple(exp))
    return payload, tuple(expected)


def write_rest_responses_per_turn(turns: list[list[Call]]) -> tuple[object, tuple[Call, ...]]:
    """The response bodies as the server sent them (parsed JSON, ids kept), one per turn."""
    payload: list[Any] = []
    expected: list[Call] = []
    for t, turn in enumerate(turns):
        body, exp = _turn_body(turn, t)
        _chat(body)  # the SDK parses it
        payload.append(body)
        expected += exp
    return payload, tuple(expected)


def write_conversation(turns: list[list[Call]]) -> tuple[object, tuple[Call, ...]]:
    """The 'messages' the SDK sends after the run: user, then per turn the
    assistant message (response.message) and one tool result per call."""
    messages: list[Any] = [{"role": "user", "content": "Please help."}]
    expected: list[Call] = []
    for t, turn in enumerate(turns):
        body, exp = _turn_body(turn, t)
        response = _chat(body, messages=list(messages))
        messages.append(response.message)
        messages += [{"role": "tool", "tool_name": c.name, "content": "ok"} for c in turn]
        if not turn:
            messages.append({"role": "user", "content": "Go on."})
        expected += _no_ids(tuple(exp))
    _chat(_body(content="Done."), messages=messages)
    return _SERVER.requests[-1]["messages"], tuple(expected)


def _turn_stream(turn: list[Call], t: int) -> tuple[str, list[Call]]:
    raw, expected = _turn_calls(turn, t)
    if not raw:
        return _ndjson(_chunks(content=f"Turn {t}: nothing to call.")), []
    how = t % 3  # each call in its own chunk / all in one chunk / all in the done chunk
    if how == 0:
        chunks = _chunks(thinking=f"Turn {t}.", call_chunks=[[c] for c in raw])
    elif how == 1:
        chunks = _chunks(content=f"Turn {t}.", call_chunks=[raw])
    else:
        chunks = _chunks(final_calls=raw)
    return _ndjson(chunks), expected


def write_stream_chunks(turns: list[list[Call]]) -> tuple[object, tuple[Call, ...]]:
    """ChatResponse chunks of client.chat(stream=True), one stream per turn, concatenated."""
    payload: list[Any] = []
    expected: list[Call] = []
    for t, turn in enumerate(turns):
        text, exp = _turn_stream(turn, t)
        payload += _stream(text)
        expected += _no_ids(tuple(exp))
    return payload, tuple(expected)


def write_rest_stream_ndjson(turns: list[list[Call]]) -> tuple[object, tuple[Call, ...]]:
    """The NDJSON text of one stream per turn, concatenated (ids kept)."""
    text, expected = "", list[Call]()
    for t, turn in enumerate(turns):
        part, exp = _turn_stream(turn, t)
        _stream(part)  # the SDK parses it
        text += part
        expected += exp
    return text, tuple(expected)


def writers() -> dict[str, Callable[[list[list[Call]]], tuple[object, tuple[Call, ...]]]]:
    return {
        "responses_per_turn": write_responses_per_turn,
        "rest_responses_per_turn": write_rest_responses_per_turn,
        "conversation": write_conversation,
        "stream_chunks": write_stream_chunks,
        "rest_stream_ndjson": write_rest_stream_ndjson,
    }


# -- recorded and documented bodies -----------------------------------------------------------

#: Response bodies recorded from the live API by other projects' VCR cassettes /
#: fixtures (see SOURCES), verbatim.
_RECORDED: dict[str, str] = {}
SOURCES: dict[str, str] = {}
SOURCES['TOOL_CALL'] = (
    'Arize-ai/openinference:python/instrumentation/openinference-instrumentation-ollama/tests/openinf'
    'erence/instrumentation/ollama/cassettes/test_instrumentor/test_chat_with_tool_call.yaml (interac'
    'tion 0)'
)
_RECORDED['TOOL_CALL'] = (
    '{"model":"qwen3.6:latest","created_at":"2026-08-07T06:08:09.335586Z","message":{"role":"assistan'
    't","content":"","thinking":"Thinking Process:\\n1.  **Identify User Intent**: The user wants to k'
    'now the current weather in Paris.\\n2.  **Identify Required Tool**: The user explicitly instructe'
    'd to use `get_current_weather`.\\n3.  **Check Tool Parameters**: `get_current_weather` requires a'
    ' `city` parameter (string).\\n4.  **Extract Parameters**: City = \\"Paris\\".\\n5.  **Construct Tool'
    ' Call**: `get_current_weather(city=\\"Paris\\")`.\\n6.  **Execute Tool Call**: Make the call.✅","to'
    'ol_calls":[{"id":"call_gsiiy8py","function":{"index":0,"name":"get_current_weather","arguments":'
    '{"city":"Paris"}}}]},"done":true,"done_reason":"stop","total_duration":1735248334,"load_duration'
    '":139246000,"prompt_eval_count":292,"prompt_eval_duration":247164000,"eval_count":143,"eval_dura'
    'tion":1337032000}'
)
SOURCES['CALLABLE_TOOL_CALL'] = (
    'Arize-ai/openinference:python/instrumentation/openinference-instrumentation-ollama/tests/openinf'
    'erence/instrumentation/ollama/cassettes/test_instrumentor/test_chat_with_callable_tool.yaml (int'
    'eraction 0)'
)
_RECORDED['CALLABLE_TOOL_CALL'] = (
    '{"model":"qwen3.6:latest","created_at":"2026-08-07T06:08:11.017589Z","message":{"role":"assistan'
    't","content":"","thinking":"Thinking Process:\\n1. Identify the user\'s request: The user wants to'
    ' calculate 2 + 3 using the `add_two_numbers` tool.\\n2. Check the available tools: `add_two_numbe'
    'rs(a, b)` is available.\\n3. Map the request to the tool parameters: a = 2, b = 3.\\n4. Construct '
    'the tool call: `add_two_numbers(a=2, b=3)`.\\n5. Execute the tool call and return the result.✅","'
    'tool_calls":[{"id":"call_2k7ryu9k","function":{"index":0,"name":"add_two_numbers","arguments":{"'
    'a":2,"b":3}}}]},"done":true,"done_reason":"stop","total_duration":1671921584,"load_duration":140'
    '923875,"prompt_eval_count":310,"prompt_eval_duration":155740000,"eval_count":145,"eval_duration"'
    ':1361034000}'
)
SOURCES['TEXT'] = (
    'traceloop/openllmetry:packages/opentelemetry-instrumentation-ollama/tests/cassettes/test_chat/te'
    'st_ollama_async_chat_legacy.yaml (interaction 0)'
)
_RECORDED['TEXT'] = (
    '{"model":"llama3","created_at":"2024-05-24T21:01:59.481632Z","message":{"role":"assistant","cont'
    'ent":"A joke about OpenTelemetry! Here it is:\\n\\nWhy did the OpenTelemetry span go to therapy?\\n'
    '\\nBecause it was struggling to instrument its issues!\\n\\n(Get it? \\"Instrument\\" has a double me'
    'aning here, referring both to the act of collecting metrics and traces in OpenTelemetry, as well'
    ' as working through one\'s problems... okay, maybe it\'s just a techie joke)"},"done_reason":"stop'
    '","done":true,"total_duration":2685412125,"load_duration":3494667,"prompt_eval_duration":1495120'
    '00,"eval_count":79,"eval_duration":2530305000}'
)
SOURCES['THINKING_TEXT'] = (
    'Arize-ai/openinference:python/instrumentation/openinference-instrumentation-ollama/tests/openinf'
    'erence/instrumentation/ollama/cassettes/test_instrumentor/test_async_chat.yaml (interaction 0)'
)
_RECORDED['THINKING_TEXT'] = (
    '{"model":"qwen3.6:latest","created_at":"2026-08-07T06:08:14.73237Z","message":{"role":"assistant'
    '","content":"The sky appears blue because Earth\'s atmosphere scatters shorter blue wavelengths o'
    'f sunlight more effectively than longer red wavelengths, and human eyes are more sensitive to bl'
    'ue light.","thinking":"Here\'s a thinking process:\\n\\n1.  **Analyze User Input:**\\n   - **Questio'
    'n:** Why is the sky blue?\\n   - **Constraint:** Answer in one sentence.\\n\\n2.  **Identify Key Sc'
    'ientific Concept:**\\n   - The sky appears blue due to Rayleigh scattering.\\n   - Sunlight contai'
    "ns all colors of the visible spectrum.\\n   - Earth's atmosphere scatters shorter wavelengths (bl"
    'ue/violet) more than longer wavelengths (red/yellow).\\n   - Our eyes are more sensitive to blue '
    'than violet, so we perceive the sky as blue.\\n\\n3.  **Draft - Mental Refinement (aiming for one '
    "sentence):**\\n   The sky appears blue because Earth's atmosphere scatters shorter blue wavelengt"
    'hs of sunlight more effectively than longer red wavelengths, and our eyes are more sensitive to '
    'blue light.\\n\\n4.  **Check Constraints:**\\n   - Answers the question? Yes.\\n   - One sentence? Y'
    'es.\\n   - Accurate? Yes.\\n   - Concise? Yes.\\n\\n5.  **Final Polish:**\\n   The sky appears blue b'
    "ecause Earth's atmosphere scatters shorter blue wavelengths of sunlight more than longer red wav"
    "elengths, and our eyes are more sensitive to blue light. \\n   (Wait, let's verify if it's strict"
    'ly one sentence. Yes, it has one period at the end.)\\n   Could be slightly tighter: The sky appe'
    "ars blue because Earth's atmosphere scatters shorter blue wavelengths of sunlight more effective"
    'ly than longer red ones, and human eyes are more sensitive to blue light.\\n\\n   All good. Meets '
    'all criteria. Output matches response.✅"},"done":true,"done_reason":"stop","total_duration":3699'
    '126583,"load_duration":141507000,"prompt_eval_count":21,"prompt_eval_duration":59398000,"eval_co'
    'unt":369,"eval_duration":3484161000}'
)
SOURCES['STREAM_TEXT_NDJSON'] = (
    'traceloop/openllmetry:packages/opentelemetry-instrumentation-ollama/tests/cassettes/test_chat/te'
    'st_ollama_async_streaming_chat_legacy.yaml (interaction 0)'
)
_RECORDED['STREAM_TEXT_NDJSON'] = (
    '{"model":"llama3","created_at":"2024-05-24T20:57:43.314639Z","message":{"role":"assistant","cont'
    'ent":"Here"},"done":false}\n'
    '{"model":"llama3","created_at":"2024-05-24T20:57:43.35235Z","message":{"role":"assistant","conte'
    'nt":"\'s"},"done":false}\n'
    '{"model":"llama3","created_at":"2024-05-24T20:57:43.385164Z","message":{"role":"assistant","cont'
    'ent":" one"},"done":false}\n'
    '{"model":"llama3","created_at":"2024-05-24T20:57:43.417543Z","message":{"role":"assistant","cont'
    'ent":":\\n\\n"},"done":false}\n'
    '{"model":"llama3","created_at":"2024-05-24T20:57:43.450152Z","message":{"role":"assistant","cont'
    'ent":"Why"},"done":false}\n'
    '{"model":"llama3","created_at":"2024-05-24T20:57:43.482043Z","message":{"role":"assistant","cont'
    'ent":" did"},"done":false}\n'
    '{"model":"llama3","created_at":"2024-05-24T20:57:43.514545Z","message":{"role":"assistant","cont'
    'ent":" the"},"done":false}\n'
    '{"model":"llama3","created_at":"2024-05-24T20:57:43.54707Z","message":{"role":"assistant","conte'
    'nt":" Open"},"done":false}\n'
    '{"model":"llama3","created_at":"2024-05-24T20:57:43.579607Z","message":{"role":"assistant","cont'
    'ent":"Te"},"done":false}\n'
    '{"model":"llama3","created_at":"2024-05-24T20:57:43.612007Z","message":{"role":"assistant","cont'
    'ent":"lemetry"},"done":false}\n'
    '{"model":"llama3","created_at":"2024-05-24T20:57:43.644286Z","message":{"role":"assistant","cont'
    'ent":" collector"},"done":false}\n'
    '{"model":"llama3","created_at":"2024-05-24T20:57:43.675887Z","message":{"role":"assistant","cont'
    'ent":" go"},"done":false}\n'
    '{"model":"llama3","created_at":"2024-05-24T20:57:43.707508Z","message":{"role":"assistant","cont'
    'ent":" to"},"done":false}\n'
    '{"model":"llama3","created_at":"2024-05-24T20:57:43.73913Z","message":{"role":"assistant","conte'
    'nt":" therapy"},"done":false}\n'
    '{"model":"llama3","created_at":"2024-05-24T20:57:43.770842Z","message":{"role":"assistant","cont'
    'ent":"?\\n\\n"},"done":false}\n'
    '{"model":"llama3","created_at":"2024-05-24T20:57:43.802547Z","message":{"role":"assistant","cont'
    'ent":"Because"},"done":false}\n'
    '{"model":"llama3","created_at":"2024-05-24T20:57:43.834286Z","message":{"role":"assistant","cont'
    'ent":" it"},"done":false}\n'
    '{"model":"llama3","created_at":"2024-05-24T20:57:43.866186Z","message":{"role":"assistant","cont'
    'ent":" was"},"done":false}\n'
    '{"model":"llama3","created_at":"2024-05-24T20:57:43.898085Z","message":{"role":"assistant","cont'
    'ent":" feeling"},"done":false}\n'
    '{"model":"llama3","created_at":"2024-05-24T20:57:43.929883Z","message":{"role":"assistant","cont'
    'ent":" a"},"done":false}\n'
    '{"model":"llama3","created_at":"2024-05-24T20:57:43.961608Z","message":{"role":"assistant","cont'
    'ent":" little"},"done":false}\n'
    '{"model":"llama3","created_at":"2024-05-24T20:57:43.995116Z","message":{"role":"assistant","cont'
    'ent":" \\""},"done":false}\n'
    '{"model":"llama3","created_at":"2024-05-24T20:57:44.027619Z","message":{"role":"assistant","cont'
    'ent":"instrument"},"done":false}\n'
    '{"model":"llama3","created_at":"2024-05-24T20:57:44.060146Z","message":{"role":"assistant","cont'
    'ent":"ed"},"done":false}\n'
    '{"model":"llama3","created_at":"2024-05-24T20:57:44.09357Z","message":{"role":"assistant","conte'
    'nt":"\\""},"done":false}\n'
    '{"model":"llama3","created_at":"2024-05-24T20:57:44.126064Z","message":{"role":"assistant","cont'
    'ent":" and"},"done":false}\n'
    '{"model":"llama3","created_at":"2024-05-24T20:57:44.158584Z","message":{"role":"assistant","cont'
    'ent":" wanted"},"done":false}\n'
    '{"model":"llama3","created_at":"2024-05-24T20:57:44.190859Z","message":{"role":"assistant","cont'
    'ent":" to"},"done":false}\n'
    '{"model":"llama3","created_at":"2024-05-24T20:57:44.222676Z","message":{"role":"assistant","cont'
    'ent":" get"},"done":false}\n'
    '{"model":"llama3","created_at":"2024-05-24T20:57:44.254487Z","message":{"role":"assistant","cont'
    'ent":" to"},"done":false}\n'
    '{"model":"llama3","created_at":"2024-05-24T20:57:44.286333Z","message":{"role":"assistant","cont'
    'ent":" the"},"done":false}\n'
    '{"model":"llama3","created_at":"2024-05-24T20:57:44.318196Z","message":{"role":"assistant","cont'
    'ent":" \\""},"done":false}\n'
    '{"model":"llama3","created_at":"2024-05-24T20:57:44.350028Z","message":{"role":"assistant","cont'
    'ent":"root"},"done":false}\n'
    '{"model":"llama3","created_at":"2024-05-24T20:57:44.38255Z","message":{"role":"assistant","conte'
    'nt":" cause"},"done":false}\n'
    '{"model":"llama3","created_at":"2024-05-24T20:57:44.415106Z","message":{"role":"assistant","cont'
    'ent":"\\""},"done":false}\n'
    '{"model":"llama3","created_at":"2024-05-24T20:57:44.447679Z","message":{"role":"assistant","cont'
    'ent":" of"},"done":false}\n'
    '{"model":"llama3","created_at":"2024-05-24T20:57:44.479642Z","message":{"role":"assistant","cont'
    'ent":" its"},"done":false}\n'
    '{"model":"llama3","created_at":"2024-05-24T20:57:44.512194Z","message":{"role":"assistant","cont'
    'ent":" issues"},"done":false}\n'
    '{"model":"llama3","created_at":"2024-05-24T20:57:44.546057Z","message":{"role":"assistant","cont'
    'ent":"!\\n\\n"},"done":false}\n'
    '{"model":"llama3","created_at":"2024-05-24T20:57:44.578047Z","message":{"role":"assistant","cont'
    'ent":"(S"},"done":false}\n'
    '{"model":"llama3","created_at":"2024-05-24T20:57:44.610194Z","message":{"role":"assistant","cont'
    'ent":"orry"},"done":false}\n'
    '{"model":"llama3","created_at":"2024-05-24T20:57:44.642175Z","message":{"role":"assistant","cont'
    'ent":","},"done":false}\n'
    '{"model":"llama3","created_at":"2024-05-24T20:57:44.673987Z","message":{"role":"assistant","cont'
    'ent":" I"},"done":false}\n'
    '{"model":"llama3","created_at":"2024-05-24T20:57:44.705946Z","message":{"role":"assistant","cont'
    'ent":" know"},"done":false}\n'
    '{"model":"llama3","created_at":"2024-05-24T20:57:44.73786Z","message":{"role":"assistant","conte'
    'nt":" it"},"done":false}\n'
    '{"model":"llama3","created_at":"2024-05-24T20:57:44.770164Z","message":{"role":"assistant","cont'
    'ent":"\'s"},"done":false}\n'
    '{"model":"llama3","created_at":"2024-05-24T20:57:44.8019Z","message":{"role":"assistant","conten'
    't":" a"},"done":false}\n'
    '{"model":"llama3","created_at":"2024-05-24T20:57:44.83377Z","message":{"role":"assistant","conte'
    'nt":" bit"},"done":false}\n'
    '{"model":"llama3","created_at":"2024-05-24T20:57:44.865741Z","message":{"role":"assistant","cont'
    'ent":" of"},"done":false}\n'
    '{"model":"llama3","created_at":"2024-05-24T20:57:44.897763Z","message":{"role":"assistant","cont'
    'ent":" a"},"done":false}\n'
    '{"model":"llama3","created_at":"2024-05-24T20:57:44.929758Z","message":{"role":"assistant","cont'
    'ent":" \\""},"done":false}\n'
    '{"model":"llama3","created_at":"2024-05-24T20:57:44.96171Z","message":{"role":"assistant","conte'
    'nt":"span"},"done":false}\n'
    '{"model":"llama3","created_at":"2024-05-24T20:57:44.99532Z","message":{"role":"assistant","conte'
    'nt":"ner"},"done":false}\n'
    '{"model":"llama3","created_at":"2024-05-24T20:57:45.027595Z","message":{"role":"assistant","cont'
    'ent":"\\"..."},"done":false}\n'
    '{"model":"llama3","created_at":"2024-05-24T20:57:45.059559Z","message":{"role":"assistant","cont'
    'ent":")\\n\\n"},"done":false}\n'
    '{"model":"llama3","created_at":"2024-05-24T20:57:45.091531Z","message":{"role":"assistant","cont'
    'ent":"("},"done":false}\n'
    '{"model":"llama3","created_at":"2024-05-24T20:57:45.123591Z","message":{"role":"assistant","cont'
    'ent":"Do"},"done":false}\n'
    '{"model":"llama3","created_at":"2024-05-24T20:57:45.157127Z","message":{"role":"assistant","cont'
    'ent":" you"},"done":false}\n'
    '{"model":"llama3","created_at":"2024-05-24T20:57:45.18932Z","message":{"role":"assistant","conte'
    'nt":" want"},"done":false}\n'
    '{"model":"llama3","created_at":"2024-05-24T20:57:45.222642Z","message":{"role":"assistant","cont'
    'ent":" another"},"done":false}\n'
    '{"model":"llama3","created_at":"2024-05-24T20:57:45.255202Z","message":{"role":"assistant","cont'
    'ent":" one"},"done":false}\n'
    '{"model":"llama3","created_at":"2024-05-24T20:57:45.287166Z","message":{"role":"assistant","cont'
    'ent":"?)"},"done":false}\n'
    '{"model":"llama3","created_at":"2024-05-24T20:57:45.320606Z","message":{"role":"assistant","cont'
    'ent":""},"done_reason":"stop","done":true,"total_duration":3722518334,"load_duration":1534053125'
    ',"prompt_eval_count":17,"prompt_eval_duration":179676000,"eval_count":63,"eval_duration":2006086'
    '000}\n'
)
#: Documented examples from ollama/ollama (commit fb307609), JSON text.
_DOCS: dict[str, str] = {}
SOURCES['API_STREAM_TOOL_CHUNK'] = (
    'ollama/ollama:docs/api.md "Chat request (Streaming with tools)" first chunk'
)
_DOCS['API_STREAM_TOOL_CHUNK'] = (
    '{"model": "llama3.2", "created_at": "2025-07-07T20:22:19.184789Z", "message": {"role": "assistan'
    't", "content": "", "tool_calls": [{"function": {"name": "get_weather", "arguments": {"city": "To'
    'kyo"}}}]}, "done": false}'
)
SOURCES['API_STREAM_FINAL_CHUNK'] = (
    'ollama/ollama:docs/api.md "Chat request (Streaming with tools)" final response'
)
_DOCS['API_STREAM_FINAL_CHUNK'] = (
    '{"model": "llama3.2", "created_at": "2025-07-07T20:22:19.19314Z", "message": {"role": "assistant'
    '", "content": ""}, "done_reason": "stop", "done": true, "total_duration": 182242375, "load_durat'
    'ion": 41295167, "prompt_eval_count": 169, "prompt_eval_duration": 24573166, "eval_count": 15, "e'
    'val_duration": 115959084}'
)
SOURCES['API_TOOLS_RESPONSE'] = (
    'ollama/ollama:docs/api.md "Chat request (No streaming, with tools)" response'
)
_DOCS['API_TOOLS_RESPONSE'] = (
    '{"model": "llama3.2", "created_at": "2025-07-07T20:32:53.844124Z", "message": {"role": "assistan'
    't", "content": "", "tool_calls": [{"function": {"name": "get_weather", "arguments": {"city": "To'
    'kyo"}}}]}, "done_reason": "stop", "done": true, "total_duration": 3244883583, "load_duration": 2'
    '969184542, "prompt_eval_count": 169, "prompt_eval_duration": 141656333, "eval_count": 18, "eval_'
    'duration": 133293625}'
)
SOURCES['API_LEGACY_TOOLS_RESPONSE'] = (
    'ollama/ollama:docs/api.md "Chat request (with tools)" response'
)
_DOCS['API_LEGACY_TOOLS_RESPONSE'] = (
    '{"model": "llama3.2", "created_at": "2024-07-22T20:33:28.123648Z", "message": {"role": "assistan'
    't", "content": "", "tool_calls": [{"function": {"name": "get_current_weather", "arguments": {"fo'
    'rmat": "celsius", "location": "Paris, FR"}}}]}, "done_reason": "stop", "done": true, "total_dura'
    'tion": 885095291, "load_duration": 3753500, "prompt_eval_count": 122, "prompt_eval_duration": 32'
    '8493000, "eval_count": 33, "eval_duration": 552222000}'
)
SOURCES['API_HISTORY_ANSWER'] = (
    'ollama/ollama:docs/api.md "Chat request (With history, with tools)" response'
)
_DOCS['API_HISTORY_ANSWER'] = (
    '{"model": "llama3.2", "created_at": "2025-07-07T20:43:37.688511Z", "message": {"role": "assistan'
    't", "content": "The current temperature in Toronto is 11°C."}, "done_reason": "stop", "done": tr'
    'ue, "total_duration": 890771750, "load_duration": 707634750, "prompt_eval_count": 94, "prompt_ev'
    'al_duration": 91703208, "eval_count": 11, "eval_duration": 90282125}'
)
SOURCES['TC_PARALLEL_REQUEST'] = (
    'ollama/ollama:docs/capabilities/tool-calling.mdx "Parallel tool calling" second request'
)
_DOCS['TC_PARALLEL_REQUEST'] = (
    '{"model": "qwen3", "messages": [{"role": "user", "content": "What are the current weather condit'
    'ions and temperature in New York and London?"}, {"role": "assistant", "tool_calls": [{"type": "f'
    'unction", "function": {"index": 0, "name": "get_temperature", "arguments": {"city": "New York"}}'
    '}, {"type": "function", "function": {"index": 1, "name": "get_conditions", "arguments": {"city":'
    ' "New York"}}}, {"type": "function", "function": {"index": 2, "name": "get_temperature", "argume'
    'nts": {"city": "London"}}}, {"type": "function", "function": {"index": 3, "name": "get_condition'
    's", "arguments": {"city": "London"}}}]}, {"role": "tool", "tool_name": "get_temperature", "conte'
    'nt": "22°C"}, {"role": "tool", "tool_name": "get_conditions", "content": "Partly cloudy"}, {"rol'
    'e": "tool", "tool_name": "get_temperature", "content": "15°C"}, {"role": "tool", "tool_name": "g'
    'et_conditions", "content": "Rainy"}], "stream": false}'
)
