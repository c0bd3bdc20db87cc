"""Edge-case payloads for Gemini (google-genai 3.6), built OFFLINE with the real SDK.

Responses come out of ``genai.Client(..., http_options=HttpOptions(base_url=...,
client_args={"transport": httpx2.MockTransport(handler)}))`` serving REST JSON / SSE
(camelCase, as the API sends it); the Vertex flavour (``vertexai=True``, express-mode api
key) for Vertex-only shapes (stream_function_call_arguments). Streams marked RECORDED
replay, chunk for chunk, real Vertex AI streams kept as vercel/ai test fixtures
(thoughtSignature values shortened); NOTES.md says where each came from.

The SDK has no accumulator for streamed function-call pieces (``partial_args``): the
ground truth of those streams is the documented semantics (a call opens with a name and
willContinue, its partialArgs fill JSON paths, stringValue pieces of one path join while
that piece's willContinue is true, the call ends at an empty ``functionCall {}`` or at a
piece whose willContinue is not true).

Provider: "gemini". Every name starts with "edge-".
"""

from __future__ import annotations

import contextlib
import copy
import json
import logging
from collections.abc import Iterator
from typing import Any

import httpx2
from google import genai
from google.genai import types

from payloads._scenario import Call, Scenario

PROVIDER = "gemini"
MODEL = "gemini-3-flash-preview"
BASE_URL = "http://gemini.test"
HOSTED_OFF = {"hosted_tools": False}
REFUSE_MALFORMED = r"(?i)malformed"
NO_AFC = types.AutomaticFunctionCallingConfig(disable=True)
STREAM_ARGS = types.GenerateContentConfig(
    tool_config=types.ToolConfig(function_calling_config=types.FunctionCallingConfig(
        stream_function_call_arguments=True)),
    automatic_function_calling=NO_AFC)


def _c(name: str, arguments: dict[str, Any] | None = None, cid: str | None = None) -> Call:
    return Call(name, {} if arguments is None else arguments, cid)


# -- mock server ------------------------------------------------------------------------------


class _Server:
    """A dict body is a JSON response; a list of dicts an SSE stream (alt=sse)."""

    def __init__(self) -> None:
        self.queue: list[Any] = []
        self.sse: list[str] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        body = self.queue.pop(0)
        if isinstance(body, list):
            text = "".join(f"data: {json.dumps(c, separators=(',', ':'), ensure_ascii=False)}"
                           "\r\n\r\n" for c in body)
            self.sse.append(text)
            return httpx2.Response(200, content=text.encode(),
                                   headers={"content-type": "text/event-stream"})
        return httpx2.Response(200, json=body)


_SERVER = _Server()
_CLIENTS: dict[bool, genai.Client] = {}


def _client(vertex: bool) -> genai.Client:
    if vertex not in _CLIENTS:
        options = types.HttpOptions(base_url=BASE_URL,
                                    client_args={"transport": httpx2.MockTransport(_SERVER)})
        _CLIENTS[vertex] = (genai.Client(vertexai=True, api_key="x", http_options=options)
                            if vertex else genai.Client(api_key="x", http_options=options))
    return _CLIENTS[vertex]


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    logger = logging.getLogger("google_genai")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


def generate(body: dict[str, Any], *, vertex: bool = False) -> types.GenerateContentResponse:
    _SERVER.queue.append(body)
    with _quiet():
        return _client(vertex).models.generate_content(
            model=MODEL, contents="Help me.",
            config=types.GenerateContentConfig(automatic_function_calling=NO_AFC))


def stream(chunks: list[dict[str, Any]], *, vertex: bool = False,
           config: types.GenerateContentConfig | None = None) -> list[Any]:
    _SERVER.queue.append(chunks)
    with _quiet():
        return list(_client(vertex).models.generate_content_stream(
            model=MODEL, contents="Help me.",
            config=config or types.GenerateContentConfig(automatic_function_calling=NO_AFC)))


# -- bodies -------------------------------------------------------------------------------------


def fc_part(name: str | None = None, args: Any = ..., fid: str | None = None,
            signature: str | None = None) -> dict[str, Any]:
    call: dict[str, Any] = {}
    if name is not None:
        call["name"] = name
    if args is not ...:
        call["args"] = args
    if fid is not None:
        call["id"] = fid
    part: dict[str, Any] = {"functionCall": call}
    if signature:
        part["thoughtSignature"] = signature
    return part


def candidate(parts: list[dict[str, Any]] | None, finish: str | None = "STOP",
              **extra: Any) -> dict[str, Any]:
    cand: dict[str, Any] = {"index": 0, **extra}
    if parts is not None:
        cand["content"] = {"role": "model", "parts": parts}
    if finish:
        cand["finishReason"] = finish
    return cand


def response(cands: list[dict[str, Any]], rid: str = "resp-e1") -> dict[str, Any]:
    return {"candidates": cands, "modelVersion": MODEL, "responseId": rid,
            "usageMetadata": {"promptTokenCount": 40, "candidatesTokenCount": 12,
                              "totalTokenCount": 52}}


# Recorded Vertex AI streams (vercel/ai packages/google/src/__fixtures__/*.chunks.txt): the
# chunks as the API sent them (one JSON object a line there, an SSE event each here).


def _opening(name: str, signature: str | None = None) -> dict[str, Any]:
    part: dict[str, Any] = {"functionCall": {"name": name, "willContinue": True}}
    if signature:
        part["thoughtSignature"] = signature
    return part


def _partial(path: str, **value: Any) -> dict[str, Any]:
    """One partialArgs piece (stringValue / numberValue / boolValue / nullValue; a string
    piece with willContinue=True continues that path)."""
    cont = value.pop("more", False)
    outer = value.pop("outer", True)
    arg = {"jsonPath": path, **value}
    if cont:
        arg["willContinue"] = True
    call: dict[str, Any] = {"partialArgs": [arg]}
    if outer:
        call["willContinue"] = True
    return {"functionCall": call}


def _string(path: str, *pieces: str) -> list[dict[str, Any]]:
    """How Vertex streams a string value: each piece with willContinue, then ''."""
    return ([_partial(path, stringValue=p, more=True) for p in pieces]
            + [_partial(path, stringValue="")])


END = {"functionCall": {}}
CONTINUE = {"functionCall": {"willContinue": True}}


def _recorded_stream(model: str, created: str, rid: str, traffic: str,
                     last_usage: dict[str, Any], parts: list[list[dict[str, Any]]],
                     finish_last: bool) -> list[dict[str, Any]]:
    chunks = []
    for i, ps in enumerate(parts):
        last = i == len(parts) - 1
        cand: dict[str, Any] = {"content": {"role": "model", "parts": ps}}
        if last and finish_last:
            cand["finishReason"] = "STOP"
        chunks.append({"candidates": [cand],
                       "usageMetadata": last_usage if last else {"trafficType": traffic},
                       "modelVersion": model, "createTime": created, "responseId": rid})
    return chunks


def _usage(prompt: int, cand: int, thoughts: int, traffic: str) -> dict[str, Any]:
    return {"promptTokenCount": prompt, "candidatesTokenCount": cand,
            "totalTokenCount": prompt + cand + thoughts, "trafficType": traffic,
            "promptTokensDetails": [{"modality": "TEXT", "tokenCount": prompt}],
            "candidatesTokensDetails": [{"modality": "TEXT", "tokenCount": cand}],
            "thoughtsTokenCount": thoughts}


# google-stream-tool-call-arguments.chunks.txt (gemini-3.1-pro-preview)
TWO_CALLS = _recorded_stream(
    "gemini-3.1-pro-preview", "2026-04-02T17:03:50.399550Z", "dqHOab6xGLzWodAPkPuViA4",
    "ON_DEMAND", _usage(26, 23, 132, "ON_DEMAND"), [
        [_opening("getWeather", "CiMBjz1rX25KieIB4d4AwFn8")],
        *[[p] for p in _string("$.location", "Boston")], [END],
        [_opening("getWeather")],
        *[[p] for p in _string("$.location", "San Francisco")], [END]], finish_last=True)

# google-stream-no-args-tool-call.chunks.txt (gemini-3-flash-preview)
_THOUGHT = ("**Processing User Requests**\n\nI've started by understanding the user's "
            "instructions. Currently, I'm focusing on the initial steps: reading the specified "
            "theme using the appropriate tool. Next, I plan to tackle reading the screens, "
            "beginning with screen \"A,\" then proceeding with \"B\" and \"C\" in parallel as "
            "instructed.\n\n\n")
NO_ARGS = _recorded_stream(
    "gemini-3-flash-preview", "2026-05-04T20:01:02.264968Z", "_vr4aYiWEJnYodAPkujX0QM",
    "PROVISIONED_THROUGHPUT", _usage(249, 58, 183, "PROVISIONED_THROUGHPUT"), [
        [{"text": _THOUGHT, "thought": True}],
        [{"functionCall": {"name": "read_theme"}, "thoughtSignature": "AY89a18a8/Loc2wl5oft+F3q"}],
        *[x for screen in "ABC" for x in
          ([[_opening("read_screen")]] + [[p] for p in _string("$.id", screen)] + [[END]])],
        [{"text": ""}]], finish_last=True)

# google-stream-tool-call-array-arguments-missing-terminal-function-call.chunks.txt
_LAST_PRICE = _partial("$.operations[1].price", numberValue=0.3, outer=False)
NO_TERMINAL = _recorded_stream(
    "gemini-3-flash-preview", "2026-05-19T14:59:42.780296Z", "3noMaojQL_2s6tkPiO26qQ4",
    "PROVISIONED_THROUGHPUT", _usage(54, 74, 121, "PROVISIONED_THROUGHPUT"), [
        [_opening("writeItems", "AY89a19ZkXSMGh/bSOlwTCxl")],
        *[[p] for p in _string("$.operations[0].action", "add")],
        *[[p] for p in _string("$.operations[0].description", "Fresh red apple")],
        *[[p] for p in _string("$.operations[0].itemid", "apple_001")],
        [_partial("$.operations[0].price", numberValue=0.5)],
        *[[p] for p in _string("$.operations[1].action", "add")],
        *[[p] for p in _string("$.operations[1].description", "Ripe yellow banana")],
        *[[p] for p in _string("$.operations[1].itemid", "banana_001")],
        [_LAST_PRICE], [{"text": ""}]], finish_last=True)

# google-vertex-stream-tool-call-arguments-nested.1.chunks.txt (gemini-3.1-pro-preview)
_INGREDIENTS = [("16 oz", "Lasagna noodles"), ("1 lb", "Ground beef"),
                ("15 oz", "Ricotta cheese"), ("3 cups", "Mozzarella cheese"),
                ("1/2 cup", "Parmesan cheese"), ("24 oz", "Tomato sauce"), ("1", "Egg"),
                ("2 cloves", "Garlic"), ("1 tsp", "Salt"), ("1/2 tsp", "Pepper")]
_STEPS = [("Preheat oven to 375°F (190°C).",),
          ("Cook lasagna noodles according to package directions, drain and set aside", "."),
          ("Brown ground beef with minced garlic in a skillet. Drain fat and stir in tomato "
           "sauce. Simmer for 10 minutes.",),
          ("In a bowl, mix ricotta cheese, egg, salt, pepper, and Parmesan cheese.",),
          ("In a 9x13 baking dish, spread a", " thin layer of meat sauce."),
          ("Layer noodles, ricotta mixture, mozzarella, and meat sauce. Repeat.",),
          ("Top with remaining mozzarella cheese.",),
          ("Cover with foil and bake for 25 minutes.",),
          ("Remove foil and bake for another 25 minutes until golden.",),
          ("Let stand for 15 minutes before serving.",)]
_nested_parts: list[list[dict[str, Any]]] = [[_opening("cookRecipe", "CmIBjz1rX0OQAtrZnJaEf6TJ")]]
for _i, (_amount, _name) in enumerate(_INGREDIENTS):
    _nested_parts += [[p] for p in _string(f"$.recipe.ingredients[{_i}].amount", _amount)]
    _nested_parts += [[p] for p in _string(f"$.recipe.ingredients[{_i}].name", _name)]
    _nested_parts.append([CONTINUE])
_nested_parts += [[p] for p in _string("$.recipe.name", "Lasagna")]
for _i, _pieces in enumerate(_STEPS):
    _nested_parts += [[p] for p in _string(f"$.recipe.steps[{_i}]", *_pieces)]
_nested_parts.append([END])
NESTED = _recorded_stream(
    "gemini-3.1-pro-preview", "2026-04-07T16:49:58.333958Z", "tjXVaYaxFISTq8YP_MWiyAo",
    "ON_DEMAND", _usage(31, 684, 1026, "ON_DEMAND"), _nested_parts, finish_last=True)
NESTED_ARGS = {"recipe": {
    "ingredients": [{"amount": a, "name": n} for a, n in _INGREDIENTS],
    "name": "Lasagna",
    "steps": ["".join(p) for p in _STEPS]}}

# pydantic/pydantic-ai tests/models/cassettes/test_multimodal_tool_returns/
# test_multimodal_tool_return_matrix[direct-binary-audio-google_vertex].yaml: the whole body
UNEXPECTED_RECORDED = {
    "candidates": [{"avgLogprobs": -18.224568342149926, "content": {"parts": [
        {"functionCall": {"args": {}, "name": "list_files"},
         "thoughtSignature": "CtAEAY89a19PnUfUJ55Ta5yURztfq+IGIByR98Cujglx3QOfUiGL"}],
        "role": "model"},
        "finishMessage": "Unexpected tool call: Model tried to call an undeclared function: "
                         "list_files",
        "finishReason": "UNEXPECTED_TOOL_CALL"}],
    "createTime": "2026-02-17T04:28:18.088960Z", "modelVersion": "gemini-3-flash-preview",
    "responseId": "Yu6TaYC3BcuQq7UPp8rOsAY",
    "usageMetadata": {"candidatesTokenCount": 3, "candidatesTokensDetails": [
        {"modality": "TEXT", "tokenCount": 3}], "promptTokenCount": 22, "promptTokensDetails": [
        {"modality": "TEXT", "tokenCount": 22}], "thoughtsTokenCount": 142,
        "totalTokenCount": 167, "trafficType": "ON_DEMAND"}}


# -- forms ----------------------------------------------------------------------------------------


def _dump(value: Any, **kw: Any) -> Any:
    if isinstance(value, list):
        return [_dump(v, **kw) for v in value]
    return value.model_dump(mode="json", **kw)


def _forms(base: str, obj: Any, expected: tuple[Call, ...] | None, note: str, *,
           rest: Any = None, sse: str | None = None, refusal: str | None = None,
           options: dict[str, Any] | None = None, variants: bool = False) -> list[Scenario]:
    opts = options or {}

    def sc(form: str, suffix: str, payload: Any, extra: str = "") -> Scenario:
        return Scenario(PROVIDER, form, f"{base}-{suffix}", payload, expected, refusal,
                        dict(opts), (note + extra).strip())

    out = [sc("object", "object", obj),
           sc("dump", "dump", _dump(obj), ' model_dump(mode="json").'),
           sc("json", "json", json.dumps(_dump(obj, exclude_none=True)),
              ' model_dump(mode="json", exclude_none=True) as JSON text.')]
    if variants:
        to_json_dict = ([o.to_json_dict() for o in obj] if isinstance(obj, list)
                        else obj.to_json_dict())
        out.append(sc("dump", "to-json-dict", to_json_dict, " to_json_dict() (no nulls)."))
        out.append(sc("dump", "by-alias", _dump(obj, by_alias=True, exclude_none=True),
                      ' model_dump(mode="json", by_alias=True, exclude_none=True): camelCase.'))
    if rest is not None:
        out.append(sc("dump", "rest", rest, " The REST JSON (camelCase) the API sent."))
        out.append(sc("json", "rest-json", json.dumps(rest, ensure_ascii=False),
                      " The REST JSON as text."))
    if sse is not None:
        out.append(sc("sse", "sse", sse, " The SSE text (alt=sse)."))
        out.append(sc("sse", "sse-bytes", sse.encode()))
    return out


def _sdk_function_calls(resp: types.GenerateContentResponse) -> tuple[Call, ...]:
    return tuple(_c(f.name, f.args or {}, f.id) for f in resp.function_calls or [])


# -- scenarios ------------------------------------------------------------------------------------


def _finish_reasons() -> list[Scenario]:
    out: list[Scenario] = []
    resp = generate(UNEXPECTED_RECORDED, vertex=True)
    expected = (_c("list_files"),)
    assert _sdk_function_calls(resp) == expected
    note = ("RECORDED Vertex AI response (gemini-3-flash-preview): finishReason "
            "UNEXPECTED_TOOL_CALL WITH the functionCall part present ({name: list_files, args: "
            "{}}, a thoughtSignature), finishMessage 'Unexpected tool call: Model tried to call "
            "an undeclared function: list_files'. The model did call list_files (a tool it was "
            "not given): read it; nothing is missing (the finishMessage names the call that is "
            "there). response.function_calls agrees.")
    out += _forms("edge-unexpected-tool-call-recorded", resp, expected, note,
                  rest=UNEXPECTED_RECORDED, variants=True)
    chunks = [{**copy.deepcopy(UNEXPECTED_RECORDED), "usageMetadata": {"trafficType": "ON_DEMAND"}}]
    chunks[0]["candidates"][0].pop("finishReason")
    chunks[0]["candidates"][0].pop("finishMessage")
    chunks.append({"candidates": [{"content": {"role": "model", "parts": [{"text": ""}]},
                                   "finishReason": "UNEXPECTED_TOOL_CALL",
                                   "finishMessage": "Unexpected tool call: Model tried to call "
                                                    "an undeclared function: list_files"}],
                   "usageMetadata": UNEXPECTED_RECORDED["usageMetadata"],
                   "modelVersion": "gemini-3-flash-preview",
                   "responseId": "Yu6TaYC3BcuQq7UPp8rOsAY"})
    objs = stream(chunks, vertex=True)
    out += _forms("edge-stream-unexpected-tool-call", objs, expected,
                  "The same streamed: the call in one chunk, UNEXPECTED_TOOL_CALL on the last "
                  "(empty-text) chunk. " + note, rest=chunks, sse=_SERVER.sse[-1])

    body = response([candidate([
        {"text": "I'll get the weather and the time."},
        fc_part("get_weather", {"city": "Paris"}, signature="Cp4NAY89a19P")],
        "MALFORMED_FUNCTION_CALL",
        finishMessage="Malformed function call: print(default_api.get_time(tz='Europe/Paris', "
                      "format=24h))")], rid="resp-e-malformed")
    resp = generate(body)
    out += _forms("edge-malformed-function-call-with-call", resp, None,
                  "finishReason MALFORMED_FUNCTION_CALL WITH a functionCall part present "
                  "(NousResearch/hermes-agent#83886 keeps MALFORMED authoritative 'even if the "
                  "response payload contains a parsed functionCall'): the finishMessage quotes "
                  "a second call (get_time) the API could not parse, which is NOT in the parts. "
                  "Reading get_weather alone would return fewer calls than the model made: "
                  "REFUSED.", rest=body, refusal=REFUSE_MALFORMED)

    body = response([{"finishReason": "MALFORMED_FUNCTION_CALL", "index": 0}],
                    rid="resp-e-malformed2")
    body.pop("modelVersion")
    body.pop("responseId")
    body["usageMetadata"] = {"promptTokenCount": 2595, "totalTokenCount": 2595,
                             "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 2595}]}
    resp = generate(body)
    out += _forms("edge-malformed-function-call-no-content", resp, None,
                  "The usual MALFORMED_FUNCTION_CALL shape (pydantic/pydantic-ai#3095 quotes "
                  "the chunk): a candidate with only finishReason and index, no content, no "
                  "finishMessage: the call is missing: REFUSED.", rest=body,
                  refusal=REFUSE_MALFORMED)
    return out


def _partial_args() -> list[Scenario]:
    out: list[Scenario] = []
    cases = [
        ("edge-stream-partial-args-two-calls-recorded", TWO_CALLS,
         (_c("getWeather", {"location": "Boston"}), _c("getWeather", {"location": "San Francisco"})),
         "RECORDED Vertex AI stream_function_call_arguments (gemini-3.1-pro-preview): each call "
         "opens with {name, willContinue: true} (a thoughtSignature on the first), one "
         "partialArgs piece per chunk (stringValue 'Boston' with willContinue, then '' without), "
         "and an EMPTY functionCall {} closes it; two calls to the same function, no ids."),
        ("edge-stream-partial-args-no-args-call-recorded", NO_ARGS,
         (_c("read_theme"), _c("read_screen", {"id": "A"}), _c("read_screen", {"id": "B"}),
          _c("read_screen", {"id": "C"})),
         "RECORDED Vertex AI stream: a thought, then {functionCall: {name: read_theme}} with NO "
         "args and NO willContinue (a complete call with no arguments, not an opening), then "
         "three read_screen calls streamed with partialArgs and closed by {}."),
        ("edge-stream-partial-args-no-terminal-recorded", NO_TERMINAL,
         (_c("writeItems", {"operations": [
             {"action": "add", "description": "Fresh red apple", "itemid": "apple_001",
              "price": 0.5},
             {"action": "add", "description": "Ripe yellow banana", "itemid": "banana_001",
              "price": 0.3}]}),),
         "RECORDED Vertex AI stream: array paths ($.operations[0].price, numberValue), and NO "
         "empty functionCall {} at the end: the last piece has no outer willContinue, which "
         "ends the call; then an empty text chunk with finishReason STOP."),
        ("edge-stream-partial-args-nested-recorded", NESTED,
         (_c("cookRecipe", NESTED_ARGS),),
         "RECORDED Vertex AI stream (76 chunks): nested paths ($.recipe.ingredients[3].name, "
         "$.recipe.steps[4]), strings in several pieces, and bare {functionCall: "
         "{willContinue: true}} pieces (no name, no partialArgs) between ingredients, which "
         "carry nothing."),
    ]
    for name, chunks, expected, note in cases:
        objs = stream(copy.deepcopy(chunks), vertex=True, config=STREAM_ARGS)
        out += _forms(name, objs, expected, note, rest=chunks, sse=_SERVER.sse[-1])

    # the shape of google-genai's own test history (tests/models/test_function_call_streaming.py)
    chunks = [
        {"candidates": [candidate([_opening("get_current_weather", "CiMBjz1rX25K")], None)],
         "modelVersion": "gemini-3-pro-preview", "responseId": "resp-e-sdk"},
        {"candidates": [candidate([{"functionCall": {"name": "get_current_weather",
                                                     "partialArgs": [
            {"jsonPath": "$.location", "stringValue": "Bos", "willContinue": True}],
            "willContinue": True}}], None)],
         "modelVersion": "gemini-3-pro-preview", "responseId": "resp-e-sdk"},
        {"candidates": [candidate([{"functionCall": {"name": "get_current_weather",
                                                     "partialArgs": [
            {"jsonPath": "$.location", "stringValue": "ton"},
            {"jsonPath": "$.unit", "stringValue": "C"}], "willContinue": True}}], None)],
         "modelVersion": "gemini-3-pro-preview", "responseId": "resp-e-sdk"},
        {"candidates": [candidate([{"functionCall": {"name": "get_current_weather",
                                                     "partialArgs": [
            {"jsonPath": "$.country", "nullValue": "NULL_VALUE"}], "willContinue": False}}],
            "STOP")], "modelVersion": "gemini-3-pro-preview", "responseId": "resp-e-sdk",
         "usageMetadata": {"promptTokenCount": 40, "candidatesTokenCount": 12,
                           "totalTokenCount": 52}}]
    objs = stream(chunks, vertex=True, config=STREAM_ARGS)
    out += _forms("edge-stream-partial-args-name-repeated-null", objs,
                  (_c("get_current_weather", {"location": "Boston", "unit": "C",
                                              "country": None}),),
                  "The shape of the SDK's own test history (google/genai/tests/models/"
                  "test_function_call_streaming.py): every partial piece REPEATS the name, a "
                  "nullValue 'NULL_VALUE' (a JSON null), and the call ends with willContinue "
                  "false instead of an empty {}. One call, not three.", rest=chunks,
                  sse=_SERVER.sse[-1])

    # the Gemini API (not Vertex) splitting name and args (reported, not recorded)
    chunks = [
        {"candidates": [candidate([fc_part("mcp_list_dir", {}, signature="CqwLAY89a1Qw")], None)],
         "modelVersion": MODEL, "responseId": "resp-e-split"},
        {"candidates": [candidate([fc_part(args={"path": "/some/path"})], "STOP")],
         "modelVersion": MODEL, "responseId": "resp-e-split",
         "usageMetadata": {"promptTokenCount": 40, "candidatesTokenCount": 12,
                           "totalTokenCount": 52}}]
    objs = stream(chunks)
    out += _forms("edge-stream-nameless-args-continuation", objs, None,
                  "REPORTED (smallmain/vscode-unify-chat-provider#48, fix #49; not recorded): "
                  "the Gemini API streams a call as {name, args: {}} then a chunk with "
                  "{args: {...}} and NO name. CHOSEN: refused, naming the nameless call. "
                  "Merging it into the call before is a guess the protocol does not state "
                  "(the first call is complete, not streamed with willContinue), and reading "
                  "it naively would give 'mcp_list_dir' {} plus an unnamed call.",
                  rest=chunks, sse=_SERVER.sse[-1],
                  refusal=r"expected the name of the tool called, got no name")
    return out


def _function_calls_and_no_args() -> list[Scenario]:
    out: list[Scenario] = []
    body = response([candidate([
        {"text": "Refreshing, then listing."},
        fc_part("refresh_cache", fid="fc_e_1", signature="CiMBjz1rX25K"),
        fc_part("list_bookings", None, "fc_e_2"),
        fc_part("get_time", {}, "fc_e_3"),
        fc_part("get_weather", {"city": "Paris", "days": 3}, "fc_e_4")])], rid="resp-e-noargs")
    resp = generate(body)
    expected = (_c("refresh_cache", {}, "fc_e_1"), _c("list_bookings", {}, "fc_e_2"),
                _c("get_time", {}, "fc_e_3"),
                _c("get_weather", {"city": "Paris", "days": 3}, "fc_e_4"))
    assert _sdk_function_calls(resp) == expected
    out += _forms("edge-calls-without-args", resp, expected,
                  "functionCall with no 'args' key, with 'args': null, with 'args': {}, and a "
                  "normal one: all three empty forms are a call with no arguments ({}).",
                  rest=body)

    # response.function_calls: the SDK's list of FunctionCall objects
    fcs = resp.function_calls
    assert sorted(fcs[0].model_dump(mode="json")) == ["args", "id", "name", "partial_args",
                                                      "will_continue"]
    out += _forms("edge-response-function-calls", list(fcs), expected,
                  "response.function_calls: a list of types.FunctionCall, not parts. A "
                  "FunctionCall dump has exactly the keys id, args, name, partial_args, "
                  "will_continue (camelCase partialArgs / willContinue by alias); no "
                  "'functionCall' wrapper, no 'type'.", variants=True)
    out += _forms("edge-function-call-single", fcs[3], expected[3:],
                  "A single types.FunctionCall (response.function_calls[0] style), not in a "
                  "list.", variants=True)

    objs = stream(copy.deepcopy(TWO_CALLS), vertex=True, config=STREAM_ARGS)
    pieces = [f for chunk in objs for f in (chunk.function_calls or [])]
    assert len(pieces) == 8 and pieces[3].model_dump(exclude_none=True) == {}
    out += _forms("edge-stream-function-calls-pieces", pieces,
                  (_c("getWeather", {"location": "Boston"}),
                   _c("getWeather", {"location": "San Francisco"})),
                  "[f for chunk in stream for f in chunk.function_calls or []] over the "
                  "RECORDED partial-args stream: eight FunctionCall pieces (name+will_continue, "
                  "partial_args pieces, an all-None FunctionCall() closing each call). "
                  "Assembled: two calls.", variants=True)
    return out


def scenarios() -> list[Scenario]:
    _SERVER.queue.clear()
    return _finish_reasons() + _partial_args() + _function_calls_and_no_args()


def writers() -> dict[str, Any]:
    return {}


if __name__ == "__main__":
    import collections
    import sys

    got = scenarios()
    print(len(got), "scenarios")
    print(collections.Counter((s.provider, s.form) for s in got))
    ids = [s.id for s in got]
    assert len(ids) == len(set(ids))
    if "-v" in sys.argv:
        for s in got:
            print(s.id, "->", None if s.expected is None else [(c.name, c.id) for c in s.expected])
