"""Ground-truth Gemini (google-genai) payloads, built offline with the real SDK.

Responses come out of ``genai.Client(api_key="x", http_options=HttpOptions(
base_url=..., client_args={"transport": httpx2.MockTransport(handler)}))``
serving hand-written REST JSON / SSE (camelCase, as the API sends it). The
streaming partial-argument case uses the Vertex flavour of the client
(``vertexai=True``, express-mode api key), the only one that accepts
``stream_function_call_arguments``. Automatic function calling (AFC) runs
real Python functions against the mock.

Provider: "gemini". See FINDINGS.md next to this file.
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Callable, Iterator
from typing import Any

import httpx2
from google import genai
from google.genai import types

from payloads._scenario import Call, Scenario

PROVIDER = "gemini"
MODEL = "gemini-3-flash"
BASE_URL = "http://gemini.test"
HOSTED_OFF = {"hosted_tools": False}
ALTERNATIVES = r"(?i)(candidate|alternative)"
NO_AFC = types.AutomaticFunctionCallingConfig(disable=True)
SIG = "dGhvdWdodC1zaWduYXR1cmUtMDE="  # thoughtSignature: base64 bytes on the wire


# -- mock server ---------------------------------------------------------------------------


class _Server:
    """Serves queued bodies: a dict is a JSON response, a list of dicts is an
    SSE stream (``data: {...}\\r\\n\\r\\n`` per chunk, as the API sends it)."""

    def __init__(self) -> None:
        self.queue: list[Any] = []
        self.requests: list[dict[str, Any]] = []
        self.sse: list[str] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(json.loads(request.content or b"{}"))
        body = self.queue.pop(0)
        if isinstance(body, list):
            text = _sse(body)
            self.sse.append(text)
            return httpx2.Response(
                200, content=text.encode(), headers={"content-type": "text/event-stream"}
            )
        return httpx2.Response(200, json=body)


def _sse(chunks: list[dict[str, Any]]) -> str:
    return "".join(f"data: {json.dumps(c, separators=(',', ':'))}\r\n\r\n" for c in chunks)


_SERVER = _Server()
_CLIENTS: dict[str, genai.Client] = {}


def _client(vertex: bool = False) -> genai.Client:
    key = "vertex" if vertex else "mldev"
    if key not in _CLIENTS:
        options = types.HttpOptions(
            base_url=BASE_URL, client_args={"transport": httpx2.MockTransport(_SERVER)}
        )
        if vertex:
            _CLIENTS[key] = genai.Client(vertexai=True, api_key="x", http_options=options)
        else:
            _CLIENTS[key] = genai.Client(api_key="x", http_options=options)
    return _CLIENTS[key]


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """The SDK logs a warning for AFC through Models.generate_content; keep test output clean."""
    logger = logging.getLogger("google_genai")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


def _generate(body: dict[str, Any], contents: Any = "What's the weather in Paris?",
              config: Any = None) -> types.GenerateContentResponse:
    _SERVER.queue.append(body)
    with _quiet():
        return _client().models.generate_content(model=MODEL, contents=contents, config=config)


def _stream(chunks: list[dict[str, Any]], config: Any = None, vertex: bool = False) -> list[Any]:
    _SERVER.queue.append(chunks)
    with _quiet():
        return list(
            _client(vertex).models.generate_content_stream(
                model=MODEL, contents="What's the weather in Paris?", config=config
            )
        )


# -- REST bodies (camelCase, by hand) -------------------------------------------------------


def _fc(name: str, args: dict[str, Any] | None = None, fid: str | None = None,
        signature: str | None = None) -> dict[str, Any]:
    call: dict[str, Any] = {"name": name}
    if args is not None:
        call["args"] = args
    if fid is not None:
        call["id"] = fid
    part: dict[str, Any] = {"functionCall": call}
    if signature is not None:
        part["thoughtSignature"] = signature
    return part


def _text(text: str, thought: bool = False) -> dict[str, Any]:
    return {"text": text, "thought": True} if thought else {"text": text}


def _candidate(parts: list[dict[str, Any]], index: int = 0, finish: str | None = "STOP") -> dict[str, Any]:
    cand: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": index}
    if finish:
        cand["finishReason"] = finish
    return cand


def _response(parts: list[dict[str, Any]] | None = None, rid: str = "resp-01",
              candidates: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {
        "candidates": candidates if candidates is not None else [_candidate(parts or [])],
        "usageMetadata": {"promptTokenCount": 42, "candidatesTokenCount": 17, "totalTokenCount": 59},
        "modelVersion": MODEL,
        "responseId": rid,
    }


def _chunk(parts: list[dict[str, Any]], rid: str, finish: str | None = None) -> dict[str, Any]:
    chunk: dict[str, Any] = {
        "candidates": [_candidate(parts, finish=finish)],
        "modelVersion": MODEL,
        "responseId": rid,
    }
    if finish:
        chunk["usageMetadata"] = {"promptTokenCount": 42, "candidatesTokenCount": 17,
                                  "totalTokenCount": 59}
    return chunk


# -- forms --------------------------------------------------------------------------------


def _dump(value: Any, **kw: Any) -> Any:
    if isinstance(value, list):
        return [_dump(v, **kw) for v in value]
    return value.model_dump(mode="json", **kw)


def _forms(
    base: str,
    obj: Any,
    expected: tuple[Call, ...] | None,
    note: str,
    *,
    rest: Any = None,
    sse: str | None = None,
    refusal: str | None = None,
    options: dict[str, Any] | None = None,
    variants: bool = False,
) -> list[Scenario]:
    """object, model_dump(mode="json"), model_dump_json(exclude_none=True), the
    REST JSON (camelCase, as served) and SSE where given; with ``variants`` also
    exclude_none / to_json_dict / by_alias dumps."""
    opts = options or {}

    def sc(form: str, suffix: str, payload: Any, extra: str = "") -> Scenario:
        return Scenario(PROVIDER, form, f"{base}-{suffix}", payload, expected, refusal,
                        dict(opts), (note + extra).strip())

    out = [
        sc("object", "object", obj),
        sc("dump", "dump", _dump(obj), ' model_dump(mode="json"): every optional field, null.'),
    ]
    if isinstance(obj, list):
        out.append(sc("json", "json", json.dumps(_dump(obj, exclude_none=True))))
    else:
        out.append(sc("json", "json", obj.model_dump_json(exclude_none=True)))
    if variants:
        out.append(sc("dump", "exclude-none", _dump(obj, exclude_none=True),
                      ' model_dump(mode="json", exclude_none=True).'))
        to_json_dict = [o.to_json_dict() for o in obj] if isinstance(obj, list) else obj.to_json_dict()
        out.append(sc("dump", "to-json-dict", to_json_dict, " to_json_dict() (snake_case, no nulls)."))
        out.append(sc("dump", "by-alias", _dump(obj, by_alias=True, exclude_none=True),
                      ' model_dump(mode="json", by_alias=True, exclude_none=True): camelCase keys.'))
    if rest is not None:
        out.append(sc("dump", "rest", rest, " The REST JSON (camelCase) the API sent."))
        out.append(sc("json", "rest-json-bytes", json.dumps(rest).encode(), " REST JSON as bytes."))
    if sse is not None:
        out.append(sc("sse", "sse", sse, " The SSE text the API sent (alt=sse)."))
        out.append(sc("sse", "sse-bytes", sse.encode(), " The SSE text as bytes."))
    return out



# -- scenarios ------------------------------------------------------------------------------


def _responses() -> list[Scenario]:
    out: list[Scenario] = []

    body = _response([
        _text("I'll check the weather."),
        _fc("get_weather", {"city": "Paris", "unit": "celsius"}, "fc_7f3a9b2c", signature=SIG),
    ])
    resp = _generate(body)
    out += _forms("call-with-id", resp, (Call("get_weather", {"city": "Paris", "unit": "celsius"}, "fc_7f3a9b2c"),),
                  "A functionCall with an id (and a thoughtSignature on its part) after a text part.",
                  rest=body, variants=True)

    body = _response([_fc("get_weather", {"city": "Paris"}, signature=SIG)])
    resp = _generate(body)
    out += _forms("call-without-id", resp, (Call("get_weather", {"city": "Paris"}),),
                  "A functionCall without id (older models / Vertex): id None.", rest=body)

    nested = {"origin": "CDG", "legs": [{"to": "JFK", "date": "2026-03-01"}, {"to": "SFO", "date": None}],
              "flexible": True, "max_price": 950.5}
    body = _response([
        _fc("get_weather", {"city": "Paris"}, "fc_par_1", signature=SIG),
        _fc("search_flights", nested, "fc_par_2"),
        _fc("list_bookings", None, "fc_par_3"),
    ])
    resp = _generate(body)
    out += _forms("parallel-calls", resp,
                  (Call("get_weather", {"city": "Paris"}, "fc_par_1"), Call("search_flights", nested, "fc_par_2"),
                   Call("list_bookings", {}, "fc_par_3")),
                  "Parallel functionCall parts (thoughtSignature only on the first); nested args with a "
                  "null; a call with no args key at all (args None in the SDK) gives {}.", rest=body)

    body = _response([
        _text("**Planning** I need the forecast first.", thought=True),
        _text("Let me look that up."),
        _fc("get_forecast", {"city": "Paris", "days": 3}, signature=SIG),
    ])
    resp = _generate(body)
    out += _forms("thought-text-and-call", resp, (Call("get_forecast", {"city": "Paris", "days": 3}),),
                  "A thought summary part (thought: true), a text part, then a call.", rest=body)

    body = _response([_text("It is 18 degrees and sunny in Paris.")])
    out += _forms("text-only", _generate(body), (), "A plain answer: no call, gives [].", rest=body)

    code = "import math\nprint(math.sqrt(2))"
    body = _response([
        _text("I'll compute it."),
        {"executableCode": {"language": "PYTHON", "code": code}},
        {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "1.4142135623730951\n"}},
        _text("The square root of 2 is about 1.414."),
    ])
    resp = _generate(body, config=types.GenerateContentConfig(
        tools=[types.Tool(code_execution=types.ToolCodeExecution())]))
    exec_call = Call("code_execution", {"code": code, "language": "PYTHON"})
    note = ("Built-in code execution: executableCode (a hosted call: name code_execution, "
            "{code, language}, id None) and codeExecutionResult (a result, not a call).")
    out += _forms("code-execution", resp, (exec_call,), note, rest=body)
    out += _forms("code-execution-hosted-off", resp, (), note + " hosted_tools=False.",
                  options=HOSTED_OFF)

    body = _response([
        {"executableCode": {"id": "exec_01", "language": "PYTHON", "code": "print(6 * 7)"}},
        {"codeExecutionResult": {"id": "exec_01", "outcome": "OUTCOME_OK", "output": "42\n"}},
        _fc("record_answer", {"value": 42}, "fc_rec_1"),
    ])
    resp = _generate(body, config=types.GenerateContentConfig(
        tools=[types.Tool(code_execution=types.ToolCodeExecution())]))
    out += _forms("code-execution-with-id", resp,
                  (Call("code_execution", {"code": "print(6 * 7)", "language": "PYTHON"}, "exec_01"),
                   Call("record_answer", {"value": 42}, "fc_rec_1")),
                  "google-genai 3.x ExecutableCode has an optional `id` (CodeExecutionResult echoes it). "
                  "CHOSEN (SEMANTICS says id None): id = executable_code.id when present, and `id` is "
                  "not an argument. Then a function call.", rest=body)

    body = _response(candidates=[
        _candidate([_fc("get_weather", {"city": "Paris"}, "fc_cand_0")], index=0),
        _candidate([_text("Paris is usually mild in spring.")], index=1),
    ])
    out += _forms("candidates-first-only", _generate(body), (Call("get_weather", {"city": "Paris"}, "fc_cand_0"),),
                  "candidateCount=2: only the first candidate holds a call: reads normally.", rest=body)

    body = _response(candidates=[
        _candidate([_fc("get_weather", {"city": "Paris"}, "fc_alt_0")], index=0),
        _candidate([_fc("get_weather", {"city": "Paris, FR"}, "fc_alt_1")], index=1),
    ])
    out += _forms("candidates-both-calls", _generate(body), None,
                  "Two candidates both holding calls: alternatives, not one trajectory: REFUSED.",
                  rest=body, refusal=ALTERNATIVES)

    body = _response([
        {"toolCall": {"id": "tc_search_1", "toolType": "GOOGLE_SEARCH_WEB",
                      "args": {"queries": ["Paris weather today"]}}, "thoughtSignature": SIG},
        {"toolResponse": {"id": "tc_search_1", "toolType": "GOOGLE_SEARCH_WEB",
                          "response": {"results": [{"title": "Meteo Paris", "url": "https://meteo.example"}]}}},
        _text("Searching done; converting."),
        _fc("convert_units", {"value": 18, "to": "F"}, "fc_conv_1"),
    ])
    resp = _generate(body, config=types.GenerateContentConfig(
        tools=[types.Tool(google_search=types.GoogleSearch()),
               types.Tool(function_declarations=[types.FunctionDeclaration(name="convert_units")])],
        tool_config=types.ToolConfig(include_server_side_tool_invocations=True)))
    note = ("Gemini API server-side tool invocations (tool_config.include_server_side_tool_invocations): "
            "a toolCall part (toolType GOOGLE_SEARCH_WEB, args, id) and its toolResponse. SEMANTICS GAP, "
            "CHOSEN: a hosted call named toolType lower-cased, args as arguments, id = toolCall.id.")
    out += _forms("server-side-tool-call", resp,
                  (Call("google_search_web", {"queries": ["Paris weather today"]}, "tc_search_1"),
                   Call("convert_units", {"value": 18, "to": "F"}, "fc_conv_1")), note, rest=body)
    out += _forms("server-side-tool-call-hosted-off", resp,
                  (Call("convert_units", {"value": 18, "to": "F"}, "fc_conv_1"),), note + " hosted_tools=False.",
                  options=HOSTED_OFF)
    return out


def _streams() -> list[Scenario]:
    out: list[Scenario] = []

    chunks = [
        _chunk([_text("I'll check both.")], "resp-s1"),
        _chunk([_fc("get_weather", {"city": "Paris"}, "fc_s1_a", signature=SIG),
                _fc("get_time", {"timezone": "Europe/Paris"}, "fc_s1_b")], "resp-s1"),
        _chunk([_text("")], "resp-s1", finish="STOP"),
    ]
    objs = _stream(chunks)
    expected = (Call("get_weather", {"city": "Paris"}, "fc_s1_a"),
                Call("get_time", {"timezone": "Europe/Paris"}, "fc_s1_b"))
    out += _forms("stream-calls-one-chunk", objs, expected,
                  "generate_content_stream chunks: a text chunk, both calls in one chunk, a final chunk "
                  "(empty text, finishReason, usage). rest = the JSON array streamGenerateContent sends "
                  "without alt=sse.", rest=chunks, sse=_SERVER.sse[-1])

    chunks = [
        _chunk([_text("Thinking about flights.", thought=True)], "resp-s2"),
        _chunk([_fc("search_flights", {"from": "CDG", "to": "JFK"}, signature=SIG)], "resp-s2"),
        _chunk([_text("Also hotels: ")], "resp-s2"),
        _chunk([_fc("search_hotels", {"city": "New York", "nights": 3, "filters": {"stars": [4, 5]}})], "resp-s2"),
        _chunk([_fc("get_exchange_rate", {"base": "EUR", "quote": "USD"})], "resp-s2", finish="STOP"),
    ]
    objs = _stream(chunks)
    out += _forms("stream-calls-several-chunks", objs,
                  (Call("search_flights", {"from": "CDG", "to": "JFK"}),
                   Call("search_hotels", {"city": "New York", "nights": 3, "filters": {"stars": [4, 5]}}),
                   Call("get_exchange_rate", {"base": "EUR", "quote": "USD"})),
                  "Calls arriving one per chunk (each complete; Gemini never splits a call unless "
                  "stream_function_call_arguments is on), text between them, finishReason on the last.",
                  rest=chunks, sse=_SERVER.sse[-1])

    # Vertex: stream_function_call_arguments -> partialArgs / willContinue
    chunks = [
        _chunk([{"functionCall": {"name": "get_weather", "id": "fc_vx_1", "willContinue": True},
                 "thoughtSignature": SIG}], "resp-vx"),
        _chunk([{"functionCall": {"partialArgs": [{"jsonPath": "$.city", "stringValue": "Par",
                                                   "willContinue": True}], "willContinue": True}}], "resp-vx"),
        _chunk([{"functionCall": {"partialArgs": [{"jsonPath": "$.city", "stringValue": "is",
                                                   "willContinue": True}], "willContinue": True}}], "resp-vx"),
        _chunk([{"functionCall": {"partialArgs": [{"jsonPath": "$.city", "stringValue": ""},
                                                  {"jsonPath": "$.days", "numberValue": 3},
                                                  {"jsonPath": "$.hourly", "boolValue": True}],
                                  "willContinue": True}}], "resp-vx"),
        _chunk([{"functionCall": {}}], "resp-vx"),
        _chunk([{"functionCall": {"name": "get_time", "willContinue": True}}], "resp-vx"),
        _chunk([{"functionCall": {"partialArgs": [{"jsonPath": "$.options.format", "stringValue": "24h"},
                                                  {"jsonPath": "$.timezone", "stringValue": "Europe/",
                                                   "willContinue": True}], "willContinue": True}}], "resp-vx"),
        _chunk([{"functionCall": {"partialArgs": [{"jsonPath": "$.timezone", "stringValue": "Paris"}],
                                  "willContinue": True}}], "resp-vx"),
        _chunk([{"functionCall": {}}], "resp-vx", finish="STOP"),
    ]
    config = types.GenerateContentConfig(
        tool_config=types.ToolConfig(function_calling_config=types.FunctionCallingConfig(
            stream_function_call_arguments=True)),
        automatic_function_calling=NO_AFC,
    )
    objs = _stream(chunks, config=config, vertex=True)
    out += _forms("stream-partial-args", objs,
                  (Call("get_weather", {"city": "Paris", "days": 3, "hourly": True}, "fc_vx_1"),
                   Call("get_time", {"options": {"format": "24h"}, "timezone": "Europe/Paris"})),
                  "Vertex AI stream_function_call_arguments: a call opens with {name, id?, willContinue: "
                  "true}, then unnamed functionCall parts carry partialArgs (jsonPath + stringValue pieces "
                  "joined while willContinue, numberValue, boolValue), then an EMPTY functionCall {} "
                  "closes it. SEMANTICS GAP, CHOSEN: one call per opened call, args assembled from the "
                  "jsonPaths (numberValue 3 arrives as 3.0, equal to 3). Read naively it gives "
                  "'get_weather' {} plus several '<unnamed>' calls.", rest=chunks, sse=_SERVER.sse[-1])
    return out


def _turns_and_afc() -> list[Scenario]:
    out: list[Scenario] = []

    # one response per turn (manual function calling loop)
    bodies = [
        _response([_fc("get_weather", {"city": "Paris"})], rid="resp-t1"),
        _response([_fc("get_weather", {"city": "Lyon"}, "fc_t2_a"),
                   _fc("get_time", {"timezone": "Europe/Paris"}, "fc_t2_b")], rid="resp-t2"),
        _response([_text("Paris 18C, Lyon 21C, it is 14:05.")], rid="resp-t3"),
    ]
    responses = [_generate(b) for b in bodies]
    turn_calls = (Call("get_weather", {"city": "Paris"}), Call("get_weather", {"city": "Lyon"}, "fc_t2_a"),
                  Call("get_time", {"timezone": "Europe/Paris"}, "fc_t2_b"))
    out += _forms("responses-per-turn", responses, turn_calls,
                  "A list of GenerateContentResponse, one per turn (the last one text only).", rest=bodies)

    # AFC: a real Python function; first response calls it, second answers
    def get_weather(city: str) -> dict:
        """Current weather for a city."""
        return {"city": city, "forecast": "sunny", "celsius": 18}

    def get_time(timezone: str) -> str:
        """Current time in a timezone."""
        return "14:05"

    _SERVER.queue.append(_response([_fc("get_weather", {"city": "Paris"}, "fc_afc_1")], rid="resp-afc-1"))
    body = _response([_text("It is sunny and 18C in Paris.")], rid="resp-afc-2")
    resp = _generate(body, config=types.GenerateContentConfig(tools=[get_weather]))
    out += _forms("afc-history", resp, (Call("get_weather", {"city": "Paris"}, "fc_afc_1"),),
                  "Automatic function calling: automatic_function_calling_history = [user, model "
                  "(function_call), user (function_response)]; the final candidate (text) is NOT repeated "
                  "in the history.")

    # AFC with parallel calls, then the remote-call budget runs out: the last call is returned
    _SERVER.queue.append(_response([_fc("get_weather", {"city": "Paris"}, "fc_afc_p1"),
                                    _fc("get_time", {"timezone": "Europe/Paris"}, "fc_afc_p2")],
                                   rid="resp-afc-3"))
    body = _response([_fc("get_weather", {"city": "Lyon"}, "fc_afc_p3")], rid="resp-afc-4")
    resp = _generate(body, config=types.GenerateContentConfig(
        tools=[get_weather, get_time],
        automatic_function_calling=types.AutomaticFunctionCallingConfig(maximum_remote_calls=2)))
    out += _forms("afc-history-final-call", resp,
                  (Call("get_weather", {"city": "Paris"}, "fc_afc_p1"),
                   Call("get_time", {"timezone": "Europe/Paris"}, "fc_afc_p2"),
                   Call("get_weather", {"city": "Lyon"}, "fc_afc_p3")),
                  "AFC ran two parallel calls (in the history), then maximum_remote_calls was reached: the "
                  "final candidate holds a call the SDK did not run. History calls, then the final one.")

    # AFC while streaming: the round-1 chunks (with the call) are yielded too, and every
    # round-2 chunk carries the same history (which repeats the round-1 call)
    _SERVER.queue.append([_chunk([_fc("get_weather", {"city": "Paris"}, "fc_afc_s1")], "resp-afc-s1",
                                 finish="STOP")])
    chunks = [_chunk([_text("It is sunny ")], "resp-afc-s2"),
              _chunk([_text("and 18C.")], "resp-afc-s2", finish="STOP")]
    objs = _stream(chunks, config=types.GenerateContentConfig(tools=[get_weather]))
    out += _forms("afc-stream-chunks", objs, (Call("get_weather", {"city": "Paris"}, "fc_afc_s1"),),
                  "AFC with generate_content_stream: chunk 1 holds the call; chunks 2-3 each carry "
                  "automatic_function_calling_history (the SAME list: user, the model content with that "
                  "call, the function_response). The call must come back once.")

    # chat history from client.chats (AFC inside Chat.send_message)
    _SERVER.queue += [
        _response([_fc("get_weather", {"city": "Paris"}, "fc_chat_1")], rid="resp-chat-1"),
        _response([_text("Sunny, 18C.")], rid="resp-chat-2"),
        _response([_fc("get_time", {"timezone": "Europe/Paris"}, "fc_chat_2"),
                   _fc("get_weather", {"city": "Nice"}, "fc_chat_3")], rid="resp-chat-3"),
        _response([_text("14:05, and Nice is sunny too.")], rid="resp-chat-4"),
    ]
    with _quiet():
        chat = _client().chats.create(model=MODEL, config=types.GenerateContentConfig(tools=[get_weather, get_time]))
        chat.send_message("Weather in Paris?")
        chat.send_message("And the time there, and Nice's weather?")
    history = chat.get_history()
    chat_calls = (Call("get_weather", {"city": "Paris"}, "fc_chat_1"),
                  Call("get_time", {"timezone": "Europe/Paris"}, "fc_chat_2"),
                  Call("get_weather", {"city": "Nice"}, "fc_chat_3"))
    out += _forms("chat-history", history, chat_calls,
                  "chat.get_history() after two send_message turns with AFC: user, model(call), "
                  "user(function_response), model(text), ... (list of types.Content).")
    sent = _SERVER.requests[-1]["contents"]
    out += [
        Scenario(PROVIDER, "dump", "chat-request-contents-rest", sent, chat_calls,
                 note="The REST `contents` (camelCase) the SDK sent on the last chat request: the whole "
                      "history, function_response turns with role user."),
        Scenario(PROVIDER, "json", "chat-request-contents-rest-json", json.dumps(sent), chat_calls,
                 note="Same as JSON text."),
    ]

    # chat streaming without AFC: the history keeps one Content per CHUNK
    chunk_bodies = [
        _chunk([_text("Checking.")], "resp-cs"),
        _chunk([_fc("get_weather", {"city": "Paris"}, "fc_cs_1")], "resp-cs"),
        _chunk([_fc("get_time", {"timezone": "Europe/Paris"}, "fc_cs_2")], "resp-cs", finish="STOP"),
    ]
    _SERVER.queue.append(chunk_bodies)
    with _quiet():
        chat = _client().chats.create(model=MODEL, config=types.GenerateContentConfig(
            tools=[get_weather, get_time], automatic_function_calling=NO_AFC))
        list(chat.send_message_stream("Weather and time in Paris?"))
    out += _forms("chat-history-stream", chat.get_history(),
                  (Call("get_weather", {"city": "Paris"}, "fc_cs_1"),
                   Call("get_time", {"timezone": "Europe/Paris"}, "fc_cs_2")),
                  "chat.send_message_stream (AFC off): get_history() records one model Content per "
                  "streamed chunk (three model contents in a row for one answer).")
    return out


def _parts_and_contents() -> list[Scenario]:
    out: list[Scenario] = []
    body = _response([
        _text("Checking."),
        _fc("get_weather", {"city": "Paris", "unit": "celsius"}, "fc_part_1", signature=SIG),
        _fc("get_time", None),
    ])
    resp = _generate(body)
    content = resp.candidates[0].content
    part = content.parts[1]
    rest_part = body["candidates"][0]["content"]["parts"][1]
    one = (Call("get_weather", {"city": "Paris", "unit": "celsius"}, "fc_part_1"),)
    out += _forms("part-function-call", part, one,
                  "A single types.Part holding function_call (args under function_call.args; "
                  "thought_signature is bytes, base64 in JSON dumps).", rest=rest_part, variants=True)
    out.append(Scenario(PROVIDER, "object", "part-from-function-call",
                        types.Part.from_function_call(name="get_weather", args={"city": "Rome"}),
                        (Call("get_weather", {"city": "Rome"}),),
                        note="types.Part.from_function_call(name=, args=): no id."))
    parts = list(content.parts)
    two = one + (Call("get_time", {}),)
    out += _forms("parts-list", parts, two, "A list of types.Part (text, call with id, call without args).",
                  rest=body["candidates"][0]["content"]["parts"], variants=True)
    out += _forms("content-model", content, two, "A types.Content with role 'model'.",
                  rest=body["candidates"][0]["content"], variants=True)

    exec_part = types.Part.from_executable_code(code="print(1 + 1)", language=types.Language.PYTHON)
    out += _forms("part-executable-code", exec_part,
                  (Call("code_execution", {"code": "print(1 + 1)", "language": "PYTHON"}),),
                  "types.Part.from_executable_code(...): a hosted code_execution call.")

    user = types.Content(role="user", parts=[
        types.Part.from_function_response(name="get_weather", response={"result": {"forecast": "sunny"}}),
        types.Part.from_text(text="Thanks, and tomorrow?"),
    ])
    out += _forms("content-user-function-response", user, (),
                  "A user Content with a function_response part: a result, not a call: [].")

    # Lists mixing SDK objects and JSON data, as a hand-kept chat history is.
    history = [types.Content(role="user", parts=[types.Part.from_text(text="Weather in Paris?")]),
               content.model_dump(mode="json", exclude_none=True), user,
               resp.candidates[0].content.model_dump_json(exclude_none=True)]
    out.append(Scenario(PROVIDER, "list", "history-mixed-objects-and-dumps", history, two + two,
                        note="Contents as SDK objects, model_dump dicts and model_dump_json text "
                             "in one chat history."))
    out.append(Scenario(PROVIDER, "list", "responses-object-and-rest-json",
                        [resp, body], two + two,
                        note="One turn's GenerateContentResponse object, the next turn's REST "
                             "JSON (camelCase)."))
    return out


def scenarios() -> list[Scenario]:
    _SERVER.queue.clear()  # a failed earlier build must not leave bodies behind
    return _responses() + _streams() + _turns_and_afc() + _parts_and_contents()


# -- writers -----------------------------------------------------------------------------


def _expected(call: Call) -> Call:
    return Call(call.name if call.name else "<unnamed>", dict(call.arguments or {}), call.id)


def _rest_call(call: Call) -> dict[str, Any]:
    # a call without arguments is sent without "args" (the SDK then has args None)
    return _fc(call.name, dict(call.arguments) if call.arguments else None, call.id)


def write_responses_per_turn(turns: list[list[Call]]) -> tuple[object, tuple[Call, ...]]:
    """A list of GenerateContentResponse (through the client), one per turn."""
    payload, expected = [], []
    for t, turn in enumerate(turns):
        parts = [_rest_call(c) for c in turn] or [_text(f"Turn {t}: nothing to call.")]
        if turn and t % 2:
            parts.insert(0, _text(f"Turn {t}."))
        payload.append(_generate(_response(parts, rid=f"resp-w{t:03d}")))
        expected += [_expected(c) for c in turn]
    return payload, tuple(expected)


def write_stream_chunks(turns: list[list[Call]]) -> tuple[object, tuple[Call, ...]]:
    """generate_content_stream chunks, one stream per turn, concatenated: a
    text chunk, the calls one or two per chunk, a final chunk with finishReason."""
    payload: list[Any] = []
    expected: list[Call] = []
    for t, turn in enumerate(turns):
        rid = f"resp-ws{t:03d}"
        chunks = [_chunk([_text(f"Turn {t}. ")], rid)]
        step = 1 + t % 2
        for i in range(0, len(turn), step):
            chunks.append(_chunk([_rest_call(c) for c in turn[i : i + step]], rid))
        chunks.append(_chunk([_text("")], rid, finish="STOP"))
        payload += _stream(chunks)
        expected += [_expected(c) for c in turn]
    return payload, tuple(expected)


def write_contents(turns: list[list[Call]]) -> tuple[object, tuple[Call, ...]]:
    """A list of types.Content: the user question, then per turn a model Content
    (function_call parts, or text for an empty turn) and a user Content with the
    function_response parts."""
    payload = [types.Content(role="user", parts=[types.Part.from_text(text="Please help.")])]
    expected: list[Call] = []
    for t, turn in enumerate(turns):
        if not turn:
            payload.append(types.Content(role="model", parts=[types.Part.from_text(text=f"Turn {t}.")]))
            payload.append(types.Content(role="user", parts=[types.Part.from_text(text="Go on.")]))
            continue
        payload.append(types.Content(role="model", parts=[
            types.Part(function_call=types.FunctionCall(
                name=c.name, args=dict(c.arguments) if c.arguments else None, id=c.id))
            for c in turn
        ]))
        payload.append(types.Content(role="user", parts=[
            types.Part(function_response=types.FunctionResponse(name=c.name, id=c.id, response={"result": "ok"}))
            for c in turn
        ]))
        expected += [_expected(c) for c in turn]
    return payload, tuple(expected)


def writers() -> dict[str, Callable[[list[list[Call]]], tuple[object, tuple[Call, ...]]]]:
    return {
        "responses_per_turn": write_responses_per_turn,
        "stream_chunks": write_stream_chunks,
        "contents": write_contents,
    }
