"""Ground-truth Cohere Chat payloads (API v2 and v1), built offline with the real SDK.

Every response object here comes out of ``cohere.ClientV2`` (``/v2/chat``) or
``cohere.Client`` (``/v1/chat``) talking to an ``httpx.MockTransport`` that
serves response bodies. Wherever one exists, the body is one recorded from the
live API by another project's VCR cassette or test fixture, verbatim (see
``SOURCES`` at the bottom and each Scenario.note); the rest are hand-written by
us in the shapes Cohere documents (https://docs.cohere.com/reference/chat and
chat-stream) or the recorded ones.

Shapes (see NOTES.md next to this file):

* v2 response: ``message.tool_calls`` = [{id, type "function", function {name,
  arguments: JSON *text*}}], ``message.tool_plan``, ``finish_reason`` "TOOL_CALL".
  A tool with no parameters comes back with arguments ``"null"`` (recorded) or
  ``"{}"``: both read as ``{}`` with ``raw_arguments`` None (a decision, see
  NOTES.md).
* v2 stream (SSE, ``event:`` + ``data:`` lines, then ``data: [DONE]``):
  message-start, [content-start/delta/end], tool-plan-delta..., per call
  tool-call-start (``delta.message.tool_calls`` is ONE object, id + name, arguments
  "") / tool-call-delta (argument text pieces) / tool-call-end, message-end
  (``delta.finish_reason``). A call with no arguments has no tool-call-delta.
* v1 response: ``tool_calls`` = [{name, parameters: object}], NO call ids,
  ``finish_reason`` "COMPLETE" even with calls, and ``chat_history`` repeating
  every call of the conversation (CHATBOT ``tool_calls``; TOOL ``tool_results``
  hold copies of calls, which are results, not calls).
* v1 stream: NDJSON (``application/stream+json``), ``event_type`` stream-start,
  tool-calls-chunk, tool-calls-generation, stream-end (``response`` = the whole
  v1 response again).

Provider: "cohere".
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable
from typing import Any

import cohere
import httpx

from payloads._scenario import Call, Scenario, dump_models, source_note

PROVIDER = "cohere"
MODEL_V2 = "command-a-03-2025"
MODEL_V1 = "command-r-plus-08-2024"
MISSING_CALLS = r"(?i)(missing|tool_call)"
SSE = "text/event-stream"
NDJSON = "application/stream+json"  # what /v1/chat streams are served as (recorded)
JSON = "application/json"


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
_CLIENTS: dict[str, Any] = {}


def _http() -> httpx.Client:
    return httpx.Client(transport=httpx.MockTransport(_SERVER))


def _v2() -> cohere.ClientV2:
    if "v2" not in _CLIENTS:
        _CLIENTS["v2"] = cohere.ClientV2(api_key="test", httpx_client=_http())
    return _CLIENTS["v2"]


def _v1() -> cohere.Client:
    if "v1" not in _CLIENTS:
        _CLIENTS["v1"] = cohere.Client(api_key="test", httpx_client=_http())
    return _CLIENTS["v1"]


def _text(body: Any) -> str:
    return body if isinstance(body, str) else json.dumps(body)


_QUESTION: list[Any] = [{"role": "user", "content": "What's the weather in Paris?"}]


def _chat_v2(body: Any, messages: list[Any] | None = None, **kwargs: Any) -> Any:
    """client.chat(...) (v2) answered with ``body`` (dict, or JSON text served verbatim)."""
    _SERVER.queue.append((_text(body), JSON))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _v2().chat(model=MODEL_V2, messages=messages or _QUESTION, **kwargs)


def _stream_v2(sse_text: str, messages: list[Any] | None = None) -> list[Any]:
    """client.chat_stream(...) (v2): the event objects the SDK yields."""
    _SERVER.queue.append((sse_text, SSE))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return list(_v2().chat_stream(model=MODEL_V2, messages=messages or _QUESTION))


def _chat_v1(body: Any, message: str = "What's the weather in Paris?", **kwargs: Any) -> Any:
    """client.chat(...) (v1) answered with ``body``."""
    _SERVER.queue.append((_text(body), JSON))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _v1().chat(message=message, model=MODEL_V1, **kwargs)


def _stream_v1(ndjson: str, message: str = "What's the weather in Paris?") -> list[Any]:
    """client.chat_stream(...) (v1): the event objects the SDK yields (NDJSON lines)."""
    _SERVER.queue.append((ndjson, NDJSON))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return list(_v1().chat_stream(message=message, model=MODEL_V1))


# -- body builders (the API's JSON, by hand, in the recorded shapes) -------------------------


def _usage(inp: int = 120, out: int = 40) -> dict[str, Any]:
    return {"billed_units": {"input_tokens": inp, "output_tokens": out},
            "tokens": {"input_tokens": inp + 900, "output_tokens": out + 30}}


def _v2_call(cid: str, name: str, arguments: str) -> dict[str, Any]:
    return {"id": cid, "type": "function", "function": {"name": name, "arguments": arguments}}


def _v2_body(rid: str, *, tool_calls: list[dict[str, Any]] | None = None, tool_plan: str | None = None,
             content: list[dict[str, Any]] | None = None, finish_reason: str = "TOOL_CALL",
             **message_extra: Any) -> dict[str, Any]:
    """A /v2/chat response body: keys absent rather than null, as the API sends them."""
    message: dict[str, Any] = {"role": "assistant"}
    if tool_plan is not None:
        message["tool_plan"] = tool_plan
    if tool_calls is not None:
        message["tool_calls"] = tool_calls
    if content is not None:
        message["content"] = content
    message.update(message_extra)
    return {"id": rid, "message": message, "finish_reason": finish_reason, "usage": _usage()}


def _pieces(text: str, size: int) -> list[str]:
    return [text[i: i + size] for i in range(0, len(text), size)]


def _v2_events(rid: str, *, tool_plan: str = "", contents: tuple[tuple[str, str], ...] = (),
               calls: tuple[tuple[str, str, str], ...] = (), finish_reason: str = "TOOL_CALL",
               citations: tuple[dict[str, Any], ...] = (), piece: int = 7) -> list[dict[str, Any]]:
    """Stream events for one v2 message, in the recorded order: message-start,
    content blocks (("thinking"|"text", text)), tool-plan-delta pieces, per call
    (id, name, arguments text) tool-call-start/delta.../end, citations, message-end.
    A call whose arguments text is "" gets no tool-call-delta (as recorded)."""
    events: list[dict[str, Any]] = [{
        "id": rid, "type": "message-start",
        "delta": {"message": {"role": "assistant", "content": [], "tool_plan": "", "tool_calls": [],
                              "citations": []}},
    }]
    for index, (kind, text) in enumerate(contents):
        events.append({"type": "content-start", "index": index,
                       "delta": {"message": {"content": {"type": kind, kind: ""}}}})
        for part in _pieces(text, piece):
            events.append({"type": "content-delta", "index": index,
                           "delta": {"message": {"content": {kind: part}}}})
        if kind == "text":
            for c_index, citation in enumerate(citations):
                events.append({"type": "citation-start", "index": c_index,
                               "delta": {"message": {"citations": citation}}})
                events.append({"type": "citation-end", "index": c_index})
        events.append({"type": "content-end", "index": index})
    for part in _pieces(tool_plan, piece):
        events.append({"type": "tool-plan-delta", "delta": {"message": {"tool_plan": part}}})
    for index, (cid, name, arguments) in enumerate(calls):
        events.append({"type": "tool-call-start", "index": index,
                       "delta": {"message": {"tool_calls": _v2_call(cid, name, "")}}})
        for part in _pieces(arguments, piece):
            events.append({"type": "tool-call-delta", "index": index,
                           "delta": {"message": {"tool_calls": {"function": {"arguments": part}}}}})
        events.append({"type": "tool-call-end", "index": index})
    events.append({"type": "message-end",
                   "delta": {"finish_reason": finish_reason, "usage": _usage()}})
    return events


def _sse(events: list[dict[str, Any]], done: bool = True) -> str:
    """SSE text as /v2/chat streams it (recorded): an ``event:`` line naming the
    type, a compact ``data:`` line, a blank line; then ``data: [DONE]``."""
    text = "".join(f"event: {e['type']}\ndata: {json.dumps(e, separators=(',', ':'))}\n\n" for e in events)
    return text + ("data: [DONE]\n\n" if done else "")


def _lines_to_sse(ndjson: str) -> str:
    """A fixture holding one event JSON per line (vercel/ai's *.chunks.txt) as the wire SSE."""
    return _sse([json.loads(line) for line in ndjson.splitlines() if line.strip()])


def _v1_call(name: str, parameters: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "parameters": parameters}


def _v1_body(rid: str, text: str, chat_history: list[dict[str, Any]],
             tool_calls: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """A /v1/chat response body in the documented shape (finish_reason COMPLETE even
    with calls; ``tool_calls`` absent when there are none)."""
    body: dict[str, Any] = {"response_id": rid, "text": text, "generation_id": f"gen-{rid}",
                            "chat_history": chat_history, "finish_reason": "COMPLETE",
                            "meta": {"api_version": {"version": "1"},
                                     "billed_units": {"input_tokens": 64, "output_tokens": 27},
                                     "tokens": {"input_tokens": 1003, "output_tokens": 27}}}
    if tool_calls is not None:
        body["tool_calls"] = tool_calls
    return body


def _ndjson(events: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(e) + "\n" for e in events)


def _v1_stream_events(body: dict[str, Any], *, piece: int = 8) -> list[dict[str, Any]]:
    """v1 stream events for a response ``body`` (shapes documented at https://docs.cohere.com/v1/docs/streaming):
    stream-start, tool-calls-chunk (text pieces, then per call a name delta and
    parameter pieces), tool-calls-generation (text + whole calls), stream-end
    (finish_reason + the whole response again)."""
    events: list[dict[str, Any]] = [
        {"is_finished": False, "event_type": "stream-start", "generation_id": body["generation_id"]}]
    calls = body.get("tool_calls") or []
    if calls:
        for part in _pieces(body["text"], piece):
            events.append({"is_finished": False, "event_type": "tool-calls-chunk", "text": part})
        for index, call in enumerate(calls):
            events.append({"is_finished": False, "event_type": "tool-calls-chunk",
                           "tool_call_delta": {"index": index, "name": call["name"]}})
            for part in _pieces(json.dumps(call["parameters"], indent=12), piece):
                events.append({"is_finished": False, "event_type": "tool-calls-chunk",
                               "tool_call_delta": {"index": index, "parameters": part}})
        events.append({"is_finished": False, "event_type": "tool-calls-generation",
                       "text": body["text"], "tool_calls": calls})
    else:
        for part in _pieces(body["text"], piece):
            events.append({"is_finished": False, "event_type": "text-generation", "text": part})
    events.append({"is_finished": True, "event_type": "stream-end", "response": body,
                   "finish_reason": body["finish_reason"]})
    return events


# -- forms --------------------------------------------------------------------------------


def _sc(form: str, name: str, payload: Any, expected: tuple[Call, ...] | None, note: str,
        refusal: str | None = None) -> Scenario:
    return Scenario(PROVIDER, form, name, payload, expected, refusal, {}, note.strip())


def _model_forms(base: str, obj: Any, expected: tuple[Call, ...] | None, note: str, *,
                 refusal: str | None = None, raw: str | list[str] | None = None) -> list[Scenario]:
    """object / model_dump(mode="json") / model_dump() / JSON text / model_dump_json(), and when
    ``raw`` (the body text the server sent, or one per turn) is given: that text
    parsed ("rest" dump), verbatim ("rest-json") and as bytes."""
    dumped = dump_models(obj)
    out = [
        _sc("object", f"{base}-object", obj, expected, note, refusal),
        _sc("dump", f"{base}-dump", dumped, expected,
            note + ' model_dump(mode="json"): Fern models leave unset fields out; numbers '
                   "in usage become floats.", refusal),
        _sc("dump", f"{base}-python-dump",
            [o.model_dump() for o in obj] if isinstance(obj, list) else obj.model_dump(), expected,
            note + " model_dump() (python mode): unlike mode='json', every field present, null.", refusal),
        _sc("json", f"{base}-json", json.dumps(dumped), expected, note, refusal),
    ]
    if not isinstance(obj, list):
        out.append(_sc("json", f"{base}-model-dump-json", obj.model_dump_json(), expected,
                       note + " model_dump_json().", refusal))
    if raw is not None:
        parsed = [json.loads(r) for r in raw] if isinstance(raw, list) else json.loads(raw)
        text = json.dumps(parsed) if isinstance(raw, list) else raw
        out += [
            _sc("dump", f"{base}-rest", parsed, expected,
                note + " The body as the API sent it, parsed (requests/httpx .json()).", refusal),
            _sc("json", f"{base}-rest-json", text, expected, note + " The body text as sent.", refusal),
            _sc("json", f"{base}-rest-json-bytes", text.encode(), expected,
                note + " The body as bytes.", refusal),
        ]
    return out


def _stream_forms(base: str, events: list[Any], wire: str | None, expected: tuple[Call, ...] | None,
                  note: str, *, refusal: str | None = None, wire_form: str = "sse",
                  event_lines: str | None = None) -> list[Scenario]:
    """The SDK's event objects, their dumps, the dumps as JSON text, and the wire text
    (SSE for v2, NDJSON -- form "json" -- for v1) as str and bytes."""
    dumped = [e.model_dump(mode="json") for e in events]
    out = [
        _sc("object", f"{base}-object", events, expected, note, refusal),
        _sc("dump", f"{base}-dump", dumped, expected, note, refusal),
        _sc("json", f"{base}-json", json.dumps(dumped), expected, note, refusal),
    ]
    if wire is not None:
        suffix = "sse" if wire_form == "sse" else "rest-json"
        out += [
            _sc(wire_form, f"{base}-{suffix}", wire, expected, note, refusal),
            _sc(wire_form, f"{base}-{suffix}-bytes", wire.encode(), expected, note, refusal),
        ]
    if event_lines is not None:
        out.append(_sc("json", f"{base}-event-lines-json", event_lines, expected,
                       note + " The fixture file itself: one event JSON per line (SSE data only).",
                       refusal))
    return out



# -- v2: single responses -----------------------------------------------------------------


def _v2_basic() -> list[Scenario]:
    out: list[Scenario] = []

    raw = _RECORDED["V2_ONE_CALL"]
    out += _model_forms(
        "v2-one-call", _chat_v2(raw), (Call("get_weather", {"city": "Paris"}, "get_weather_9gpb31r7h7mj"),),
        "Recorded /v2/chat answer with one call: message {role, tool_calls, tool_plan} (no content "
        "key), finish_reason TOOL_CALL; arguments is JSON text." + source_note(SOURCES, "V2_ONE_CALL"), raw=raw)

    raw = _RECORDED["V2_PARALLEL"]
    out += _model_forms(
        "v2-parallel-calls", _chat_v2(raw),
        (Call("weather", {"location": "San Francisco"}, "weather_dqgshstja6p9"),
         Call("cityAttractions", {"city": "San Francisco"}, "cityAttractions_dcxfx4myvx68")),
        "Recorded parallel calls in one message (ids are name_ + 12 random characters), a "
        "tool_plan and cached_tokens in usage." + source_note(SOURCES, "V2_PARALLEL"), raw=raw)

    raw = _RECORDED["V2_NULL_ARGS"]
    out += _model_forms(
        "v2-null-arguments", _chat_v2(raw), (Call("currentTime", {}, "currentTime_tf4dywn8wgnk"),),
        "Recorded call of a tool with no parameters: arguments is the text 'null' (the SDK keeps "
        "the str 'null'). Read as arguments {} with raw_arguments None: 'null' is how Cohere says "
        "'no arguments' (vercel/ai maps it to '{}' for the same reason), not malformed text."
        + source_note(SOURCES, "V2_NULL_ARGS"), raw=raw)

    body = _v2_body("7d1c2f40-5b8e-4c1a-9e0b-2f6a1d3c4b5e", tool_plan="I will list the open tickets.",
                    tool_calls=[_v2_call("list_open_tickets_4h2kq9zd1x7m", "list_open_tickets", "{}")])
    out += _model_forms(
        "v2-empty-object-arguments", _chat_v2(body),
        (Call("list_open_tickets", {}, "list_open_tickets_4h2kq9zd1x7m"),),
        "No-parameter tool whose arguments is '{}' (the other spelling of no arguments): {} and "
        "raw_arguments None. Hand-written in the recorded shape.", raw=json.dumps(body))

    nested = {"query": {"city": "Paris", "dates": ["2025-07-01", "2025-07-02"],
                        "filters": {"max_price": 250.5, "refundable": True, "tags": None}},
              "limit": 3}
    unicode_args = {"city": "Zürich", "note": "naïve \"quoted\" café ☕", "unit": "celsius"}
    body = _v2_body(
        "a3f9e1d2-6c4b-4f0e-8a7d-1b2c3d4e5f60",
        tool_plan="I will search hotels in Paris and check the weather in Zürich.",
        tool_calls=[
            # Cohere's argument text is often pretty-printed ("{\n    \"location\": ...}", recorded
            # in the streams); both spellings must parse the same.
            _v2_call("search_hotels_m2x8c4v6b1n3", "search_hotels", json.dumps(nested, indent=4)),
            _v2_call("get_weather_q9w8e7r6t5y4", "get_weather", json.dumps(unicode_args, ensure_ascii=False)),
        ])
    out += _model_forms(
        "v2-nested-arguments", _chat_v2(body),
        (Call("search_hotels", nested, "search_hotels_m2x8c4v6b1n3"),
         Call("get_weather", unicode_args, "get_weather_q9w8e7r6t5y4")),
        "Nested arguments (object, array, float, bool, null) as indented JSON text, and a second "
        "call with non-ASCII and escaped quotes in its text. Hand-written.", raw=json.dumps(body))

    raw = _DOCS["V2_OPENAPI_TOOLS"]
    out += _model_forms(
        "v2-thinking-plus-calls", _chat_v2(raw),
        (Call("check_flight_status", {"flight_number": "LH1234"}, "check_flight_status_w7k2p9xq4m1d"),
         Call("list_airport_lounges", {"airport_code": "FRA"}, "list_airport_lounges_b3n8v5c2z6ht")),
        "A v2 answer in the documented 'Tools' shape: message.content holds a thinking block AND "
        "tool_calls, no tool_plan (reasoning models put the plan in content)." + source_note(SOURCES, "V2_OPENAPI_TOOLS"),
        raw=raw)

    body = _v2_body("c4d5e6f7-0a1b-4c2d-8e3f-405162738495", tool_plan="Let me check the weather first.",
                    content=[{"type": "text", "text": "Paris is lovely in July. Let me check the forecast."}],
                    tool_calls=[_v2_call("get_forecast_z1x2c3v4b5n6", "get_forecast", '{"city":"Paris","days":3}')])
    out += _model_forms(
        "v2-text-plus-call", _chat_v2(body),
        (Call("get_forecast", {"city": "Paris", "days": 3}, "get_forecast_z1x2c3v4b5n6"),),
        "A text content block next to a call (and a tool_plan). Hand-written; the recorded "
        "answers put text only in call-free turns.", raw=json.dumps(body))

    raw = _RECORDED["V2_TEXT"]
    out += _model_forms("v2-text-only", _chat_v2(raw), (),
                        "Recorded plain answer (finish_reason COMPLETE): no call." + source_note(SOURCES, "V2_TEXT"),
                        raw=raw)

    raw = _RECORDED["V2_ONE_CALL_ANSWER"]
    out += _model_forms(
        "v2-answer-citing-tool-results", _chat_v2(raw), (),
        "Recorded answer after a tool result: citations[].sources[] are {type 'tool', id "
        "'get_weather_9gpb31r7h7mj:0', tool_output}: references to a call's result, not calls."
        + source_note(SOURCES, "V2_ONE_CALL_ANSWER"), raw=raw)

    stripped = json.loads(_RECORDED["V2_ONE_CALL"])
    del stripped["message"]["tool_calls"]
    out += _model_forms(
        "v2-tool-call-finish-without-calls", _chat_v2(stripped), None,
        "finish_reason TOOL_CALL and a tool_plan, but message.tool_calls is gone (a logger or "
        "proxy dropped it): REFUSED, the calls are missing. The recorded one-call body with "
        "tool_calls deleted." + source_note(SOURCES, "V2_ONE_CALL"), refusal=MISSING_CALLS, raw=json.dumps(stripped))
    stripped["message"]["tool_calls"] = []
    out += _model_forms(
        "v2-tool-call-finish-empty-calls", _chat_v2(stripped), None,
        "finish_reason TOOL_CALL with tool_calls [] : REFUSED as missing.", refusal=MISSING_CALLS)
    return out


# -- v2: conversations --------------------------------------------------------------------


_TOKYO = (Call("get_time", {"location": "Tokyo"}, "get_time_dp3men9jrvhf"),
          Call("get_weather", {"location": "Tokyo"}, "get_weather_d7arjgsc96yf"))
_PARIS = (Call("get_weather", {"city": "Paris"}, "get_weather_mvsbdckzn39c"),
          Call("final_result", {"city": "Paris", "summary": "Sunny, 22C"}, "final_result_5ey6n45w0dgv"))


def _v2_conversations() -> list[Scenario]:
    out: list[Scenario] = []
    question = [{"role": "user", "content": "What time is it in Tokyo and what's the weather?"}]

    # the recorded pair: parallel calls, then the answer citing both results; run the documented
    # loop: messages.append(response.message), then one tool message per call
    first = _chat_v2(_RECORDED["V2_TOKYO_CALLS"], messages=list(question))
    messages: list[Any] = [*question, first.message]
    for call, result in zip(first.message.tool_calls, ("4:20 PM", "Sunny 20 degrees Celsius")):
        messages.append({"role": "tool", "tool_call_id": call.id,
                         "content": [{"type": "document", "document": {"data": json.dumps({"content": result})}}]})
    second = _chat_v2(_RECORDED["V2_TOKYO_ANSWER"], messages=list(messages))
    sent = _SERVER.requests[-1]["messages"]
    note = "Recorded pair: parallel calls, then the answer whose citations cite the tool results."
    src = source_note(SOURCES, "V2_TOKYO_CALLS", "V2_TOKYO_ANSWER")
    out += _model_forms("v2-responses-per-turn", [first, second], _TOKYO,
                        "A list of V2ChatResponse objects, one per turn. " + note + src,
                        raw=[_RECORDED["V2_TOKYO_CALLS"], _RECORDED["V2_TOKYO_ANSWER"]])
    out.append(_sc("list", "v2-conversation-sdk-objects", [*messages, second.message], _TOKYO,
                   "Request-style messages as the docs build them (messages.append(response.message)): "
                   "an AssistantMessageResponse OBJECT among plain dicts, tool messages "
                   "{role 'tool', tool_call_id, content [document]} (results, not calls), then the "
                   "final answer's message object." + src))
    out.append(_sc("list", "v2-mixed-turns", [first, second.model_dump(mode="json")], _TOKYO,
                   "Several turns held differently: the first turn's V2ChatResponse object, the "
                   "second's model_dump(mode='json')." + src))
    out.append(_sc("dump", "v2-conversation-request-messages", sent, _TOKYO,
                   "The JSON 'messages' the SDK sent for the second turn: the assistant message "
                   "serialized with tool_plan + tool_calls, then the tool messages." + src))
    out.append(_sc("json", "v2-conversation-request-messages-json", json.dumps(sent), _TOKYO,
                   "Same, as JSON text." + src))

    # the recorded two-turn run where both turns call a tool
    q = [{"role": "user", "content": "What's the weather in Paris? Then give the final result."}]
    r1 = _chat_v2(_RECORDED["V2_PARIS_WEATHER"], messages=list(q))
    m = [*q, r1.message, {"role": "tool", "tool_call_id": r1.message.tool_calls[0].id,
                          "content": "Sunny, 22C in Paris"}]
    r2 = _chat_v2(_RECORDED["V2_PARIS_FINAL"], messages=list(m))
    out += _model_forms(
        "v2-two-calling-turns", [r1, r2], _PARIS,
        "Recorded run with a call in each of two turns (get_weather, then final_result); the "
        "tool message content is a plain string here." + source_note(SOURCES, "V2_PARIS_WEATHER", "V2_PARIS_FINAL"),
        raw=[_RECORDED["V2_PARIS_WEATHER"], _RECORDED["V2_PARIS_FINAL"]])

    # a conversation of plain dicts, with the tool results and a final answer
    convo = [
        {"role": "system", "content": "You are a cooking assistant."},
        {"role": "user", "content": "Find me recipes with leeks and recipes with chickpeas."},
        {"role": "assistant", "tool_plan": "I will search the recipe index for leeks and for chickpeas.",
         "tool_calls": [
             {"id": "search_recipes_p4q8r2s6t0uv", "type": "function",
              "function": {"name": "search_recipes", "arguments": '{"ingredient":"leeks","limit":2}'}},
             {"id": "search_recipes_a9b3c7d1e5fg", "type": "function",
              "function": {"name": "search_recipes", "arguments": '{"ingredient":"chickpeas","limit":2}'}},
         ]},
        {"role": "tool", "tool_call_id": "search_recipes_p4q8r2s6t0uv",
         "content": [{"type": "document",
                      "document": {"data": '{"title": "Leek and potato soup"}', "id": "recipe-1"}}]},
        {"role": "tool", "tool_call_id": "search_recipes_a9b3c7d1e5fg",
         "content": [{"type": "document", "document": {"data": '{"title": "Chickpea and spinach curry"}'}}]},
        {"role": "assistant", "content": [{"type": "text", "text": "I found one recipe for each."}]},
    ]
    _chat_v2(_RECORDED["V2_TEXT"], messages=convo)  # the SDK accepts it as a request
    expected = (Call("search_recipes", {"ingredient": "leeks", "limit": 2}, "search_recipes_p4q8r2s6t0uv"),
                Call("search_recipes", {"ingredient": "chickpeas", "limit": 2}, "search_recipes_a9b3c7d1e5fg"))
    note = ("Request-style conversation of plain dicts (tool calls as dictionaries, not ToolCallV2 "
            "objects), with the tool results and an answer: two calls of the same tool. Hand-written "
            "in the request shape documented at https://docs.cohere.com/v2/docs/tool-use-overview.")
    out.append(_sc("dump", "v2-request-conversation", convo, expected, note))
    out.append(_sc("json", "v2-request-conversation-json", json.dumps(convo), expected, note))
    return out


# -- v2: streams --------------------------------------------------------------------------


def _v2_streams() -> list[Scenario]:
    out: list[Scenario] = []

    sse = _RECORDED["V2_STREAM_TOKYO_SSE"]
    tokyo = (Call("get_time", {"location": "Tokyo"}, "get_time_dg5wwc00d8v5"),
             Call("get_weather", {"location": "Tokyo"}, "get_weather_bc8241gkqss5"))
    out += _stream_forms(
        "v2-stream-two-calls", _stream_v2(sse), sse, tokyo,
        "Recorded SSE of client.chat_stream(): tool-plan-delta pieces, then per call tool-call-start "
        "(delta.message.tool_calls is ONE object: id, type, function {name, arguments ''}), "
        "tool-call-delta argument pieces of pretty-printed JSON, tool-call-end; message-end "
        "{finish_reason TOOL_CALL}; a final 'data: [DONE]' the SDK drops." + source_note(SOURCES, "V2_STREAM_TOKYO_SSE"))

    lines = _RECORDED["V2_STREAM_PARALLEL_CHUNKS"]
    sse = _lines_to_sse(lines)
    out += _stream_forms(
        "v2-stream-parallel-calls", _stream_v2(sse), sse,
        (Call("weather", {"location": "San Francisco"}, "weather_e8p4pn45zt0t"),
         Call("cityAttractions", {"city": "San Francisco"}, "cityAttractions_pyxssbwnq9fq")),
        "Recorded stream events (vercel/ai fixture, one event JSON per line; the SSE forms add the "
        "'event:' lines and [DONE] the wire has)." + source_note(SOURCES, "V2_STREAM_PARALLEL_CHUNKS"),
        event_lines=lines)

    lines = _RECORDED["V2_STREAM_EMPTY_CALL_CHUNKS"]
    sse = _lines_to_sse(lines)
    out += _stream_forms(
        "v2-stream-no-argument-call", _stream_v2(sse), sse,
        (Call("currentTime", {}, "currentTime_y46ar19t5gvw"),),
        "Recorded stream of a call with no arguments: tool-call-start (arguments '') then "
        "tool-call-end, NO tool-call-delta at all. Arguments {} and raw_arguments None."
        + source_note(SOURCES, "V2_STREAM_EMPTY_CALL_CHUNKS"), event_lines=lines)

    stream = _DOCS["V2_OPENAPI_TOOLS_STREAM"]
    events = [item["data"] for item in json.loads(stream)]
    sse = _sse(events)
    out += _stream_forms(
        "v2-stream-documented", _stream_v2(sse), sse,
        (Call("get_exchange_rate", {"currency_pair": "GBP/EUR"}, "get_exchange_rate_r5t1y8u3i0pq"),
         Call("list_bank_holidays", {"country": "Ireland"}, "list_bank_holidays_h2j6k9l4m7nb")),
        "A v2 stream in the documented 'Tools' stream shape: message-start whose delta.message "
        "holds only role, tool-plan-delta token pieces, two calls with argument text in small "
        "pieces." + source_note(SOURCES, "V2_OPENAPI_TOOLS_STREAM"))

    nested = {"itinerary": [{"city": "Lyon", "nights": 2}, {"city": "Nice", "nights": 3}],
              "options": {"budget": 1200.0, "flexible": False, "notes": None}}
    calls = (("plan_trip_k3j4h5g6f7d8", "plan_trip", json.dumps(nested, indent=4)),
             ("list_open_tickets_p0o9i8u7y6t5", "list_open_tickets", ""),
             ("translate_a1s2d3f4g5h6", "translate", json.dumps({"text": "Grüße aus Köln", "to": "en"},
                                                              ensure_ascii=False)))
    events = _v2_events("d7e8f9a0-1b2c-4d3e-8f4a-5b6c7d8e9f01",
                        contents=(("thinking", "The user wants a trip plan, their tickets and a translation."),),
                        calls=calls, piece=5)
    sse = _sse(events)
    out += _stream_forms(
        "v2-stream-thinking-then-calls", _stream_v2(sse), sse,
        (Call("plan_trip", nested, "plan_trip_k3j4h5g6f7d8"),
         Call("list_open_tickets", {}, "list_open_tickets_p0o9i8u7y6t5"),
         Call("translate", {"text": "Grüße aus Köln", "to": "en"}, "translate_a1s2d3f4g5h6")),
        "A thinking content block (content-start/delta/end) then three calls: nested arguments in "
        "5-character pieces, a no-argument call (no delta) between them, non-ASCII text. "
        "Hand-written in the recorded event shapes.")

    lines = _RECORDED["V2_STREAM_TEXT_CHUNKS"]
    sse = _lines_to_sse(lines)
    out += _stream_forms("v2-stream-text-only", _stream_v2(sse), sse, (),
                         "Recorded text stream (content-start/delta/end, message-end COMPLETE): no call."
                         + source_note(SOURCES, "V2_STREAM_TEXT_CHUNKS"), event_lines=lines)

    events = _v2_events("e1f2a3b4-c5d6-4e7f-8091-a2b3c4d5e6f7",
                        tool_plan="I will look up the weather in Paris.", calls=())
    sse = _sse(events)
    out += _stream_forms(
        "v2-stream-tool-call-finish-without-calls", _stream_v2(sse), sse, None,
        "tool-plan-delta pieces and message-end finish_reason TOOL_CALL, but no tool-call-start "
        "(the call events were filtered out): REFUSED, the calls are missing.", refusal=MISSING_CALLS)

    # two turns of streaming: the recorded call stream, then an answer stream with citations
    first = _stream_v2(_RECORDED["V2_STREAM_TOKYO_SSE"])
    citations = (
        {"start": 24, "end": 31, "text": "4:20 PM", "type": "TEXT_CONTENT",
         "sources": [{"type": "tool", "id": "get_time_dg5wwc00d8v5:0", "tool_output": {"content": "4:20 PM"}}]},
        {"start": 48, "end": 53, "text": "sunny", "type": "TEXT_CONTENT",
         "sources": [{"type": "tool", "id": "get_weather_bc8241gkqss5:0",
                      "tool_output": {"content": "Sunny 20 degrees Celsius"}}]},
    )
    answer = _stream_v2(_sse(_v2_events(
        "f0e1d2c3-b4a5-4968-8776-655443322110", finish_reason="COMPLETE", citations=citations,
        contents=(("text", "The current time in Tokyo is 4:20 PM and it is sunny."),))))
    events = first + answer
    note = ("Event objects of two streams (the recorded call stream, then an answer stream with "
            "citation-start/citation-end events citing the calls' results), concatenated: indexes "
            "restart at 0 in the second stream." + source_note(SOURCES, "V2_STREAM_TOKYO_SSE"))
    dumped = [e.model_dump(mode="json") for e in events]
    out += [_sc("object", "v2-stream-two-turns-object", events, tokyo, note),
            _sc("dump", "v2-stream-two-turns-dump", dumped, tokyo, note),
            _sc("json", "v2-stream-two-turns-json", json.dumps(dumped), tokyo, note)]
    return out


# -- v1 ------------------------------------------------------------------------------------


_TOOLS_V1 = [
    {"name": "get_platform", "description": "Looks up the departure platform and time of a train",
     "parameter_definitions": {"train": {"description": "Train number, such as 'IC 2315'", "type": "str",
                                         "required": True}}},
    {"name": "find_my_booking", "description": "Finds the user's train booking for a day",
     "parameter_definitions": {"date": {"description": "Travel day, written YYYY/MM/DD", "type": "str"}}},
]


def _v1_scenarios() -> list[Scenario]:
    out: list[Scenario] = []

    raw = _DOCS["V1_OPENAPI_TOOLS"]
    out += _model_forms(
        "v1-two-calls", _chat_v1(raw, tools=_TOOLS_V1),
        (Call("list_support_tickets", {"office": "Berlin"}),
         Call("get_on_call_rota", {"week": "2024-W47"})),
        "A /v1/chat answer in the documented 'Tools' shape: tool_calls [{name, parameters}] with NO ids, "
        "finish_reason COMPLETE (v1 has no TOOL_CALL), and chat_history's last CHATBOT entry "
        "repeating the same two calls: each call must come back ONCE." + source_note(SOURCES, "V1_OPENAPI_TOOLS"),
        raw=raw)

    raw = _DOCS["V1_MULTISTEP_2"]
    multistep = (Call("find_my_booking", {"date": "2024/11/18"}), Call("get_platform", {"train": "IC 2315"}))
    out += _model_forms(
        "v1-multi-step-response", _chat_v1(raw),
        multistep,
        "A multi-step answer in the documented v1 shape: chat_history USER, CHATBOT (find_my_booking), "
        "TOOL (tool_results[].call: a copy of the call the client sent back, here with different "
        "parameters: a result, not a call), CHATBOT (get_platform); top-level tool_calls repeats "
        "the last CHATBOT's. The conversation's calls: find_my_booking, get_platform."
        + source_note(SOURCES, "V1_MULTISTEP_2"), raw=raw)

    raw = _DOCS["V1_MULTISTEP_3"]
    out += _model_forms(
        "v1-multi-step-final-answer", _chat_v1(raw), multistep,
        "The final multi-step answer in the documented v1 shape: no top-level tool_calls; chat_history "
        "holds both calls (CHATBOT entries) and two TOOL entries (the second's call copy with another "
        "parameter key); citations/documents name tools ('get_platform:0:4:0', tool_name) without "
        "being calls." + source_note(SOURCES, "V1_MULTISTEP_3"), raw=raw)

    history: list[dict[str, Any]] = [{"role": "USER", "message": "Any open tickets?"},
               {"role": "CHATBOT", "message": "I will list the open tickets.",
                "tool_calls": [_v1_call("list_open_tickets", {})]}]
    body = _v1_body("0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9", "I will list the open tickets.", history,
                    [_v1_call("list_open_tickets", {})])
    out += _model_forms("v1-no-argument-call", _chat_v1(body), (Call("list_open_tickets", {}),),
                        "v1 call of a tool with no parameters: parameters {}. Hand-written in the "
                        "documented shape.", raw=json.dumps(body))

    raw = _RECORDED["V1_TEXT"]
    out += _model_forms("v1-text-only", _chat_v1(raw), (),
                        "Recorded v1 plain answer: text + chat_history (USER, CHATBOT), no tool_calls key."
                        + source_note(SOURCES, "V1_TEXT"), raw=raw)

    # a consistent multi-step run through the v1 client: each response's chat_history holds the
    # whole conversation so far, so the list repeats earlier calls
    q = "Which platform does my train on Monday leave from?"
    booking = _v1_call("find_my_booking", {"date": "2024/11/25"})
    platform = _v1_call("get_platform", {"train": "ICE 578"})
    h1: list[dict[str, Any]] = [{"role": "USER", "message": q},
          {"role": "CHATBOT", "message": "I will look up the booking first.", "tool_calls": [booking]}]
    t1 = {"role": "TOOL", "tool_results": [{"call": booking, "outputs": [{"train": "ICE 578"}]}]}
    h2: list[dict[str, Any]] = [
        *h1, t1, {"role": "CHATBOT", "message": "Now I will look up the platform of ICE 578.",
                  "tool_calls": [platform]}]
    t2 = {"role": "TOOL", "tool_results": [{"call": platform, "outputs": [{"platform": "12"}]}]}
    h3: list[dict[str, Any]] = [*h2, t2, {"role": "CHATBOT", "message": "ICE 578 leaves from platform 12."}]
    bodies = [_v1_body("run-1", "I will look up the booking first.", h1, [booking]),
              _v1_body("run-2", "Now I will look up the platform of ICE 578.", h2, [platform]),
              _v1_body("run-3", "ICE 578 leaves from platform 12.", h3)]
    r1 = _chat_v1(bodies[0], message=q, tools=_TOOLS_V1)
    r2 = _chat_v1(bodies[1], message="", chat_history=r1.chat_history, tools=_TOOLS_V1,
                  tool_results=[{"call": r1.tool_calls[0], "outputs": [{"train": "ICE 578"}]}])
    r3 = _chat_v1(bodies[2], message="", chat_history=r2.chat_history, tools=_TOOLS_V1,
                  tool_results=[{"call": r2.tool_calls[0], "outputs": [{"platform": "12"}]}])
    request = _SERVER.requests[-1]
    run = (Call("find_my_booking", {"date": "2024/11/25"}), Call("get_platform", {"train": "ICE 578"}))
    out += _model_forms(
        "v1-responses-per-turn", [r1, r2, r3], run,
        "A list of the three v1 responses of one multi-step run (the documented loop: chat_history="
        "res.chat_history, tool_results=[...]). Each response's chat_history repeats the earlier "
        "calls and its tool_calls repeats its own: the run made TWO calls. Hand-written in the "
        "multi-step shape documented at https://docs.cohere.com/v1/reference/chat.",
        raw=[json.dumps(b) for b in bodies])
    out.append(_sc("dump", "v1-request-body", request, run,
                   "The JSON body the v1 SDK sent for the last step: message '', chat_history "
                   "(CHATBOT tool_calls = the calls; TOOL tool_results = results), tool_results "
                   "(results, each with a copy of its call), tools."))
    out.append(_sc("json", "v1-request-body-json", json.dumps(request), run, "Same, as JSON text."))
    out.append(_sc("list", "v1-chat-history-sdk-objects", list(r3.chat_history or []), run,
                   "res.chat_history of the last response as the SDK holds it: UserMessage, "
                   "ChatbotMessage (tool_calls), ToolMessage (tool_results), ... objects."))
    out.append(_sc("dump", "v1-chat-history", request["chat_history"], run,
                   "Only the request's chat_history list (USER, CHATBOT, TOOL, CHATBOT)."))

    # v1 stream: calls in pieces, then whole, then again in stream-end's response
    calls = [_v1_call("count_vowels", {"text": "harbour"}), _v1_call("count_vowels", {"text": "meadow"})]
    text = "I will call count_vowels two times, one call per word."
    body = _v1_body("5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a8b9", text,
                    [{"role": "USER", "message": "How many vowels are in 'harbour' and in 'meadow'?"},
                     {"role": "CHATBOT", "message": text, "tool_calls": calls}], calls)
    nd = _ndjson(_v1_stream_events(body))
    out += _stream_forms(
        "v1-stream-two-calls", _stream_v1(nd), nd,
        (Call("count_vowels", {"text": "harbour"}), Call("count_vowels", {"text": "meadow"})),
        "v1 stream (NDJSON lines, 'application/stream+json'): tool-calls-chunk text pieces, then per "
        "call a tool_call_delta {index, name} and parameter-text pieces; tool-calls-generation "
        "with the whole calls; stream-end whose response repeats them (tool_calls and chat_history). "
        "Two calls of the same tool, each ONCE. Written by us in the event shapes documented at "
        "https://docs.cohere.com/v1/docs/streaming.",
        wire_form="json")

    nd = _RECORDED["V1_STREAM_TEXT_NDJSON"]
    out += _stream_forms("v1-stream-text-only", _stream_v1(nd), nd, (),
                         "Recorded v1 text stream (stream-start, text-generation..., stream-end "
                         "with the response): no call." + source_note(SOURCES, "V1_STREAM_TEXT_NDJSON"), wire_form="json")
    return out


def scenarios() -> list[Scenario]:
    _SERVER.queue.clear()  # a failed earlier build must not leave bodies behind
    return _v2_basic() + _v2_conversations() + _v2_streams() + _v1_scenarios()


# -- writers -----------------------------------------------------------------------------


def _ids(turn: list[Call], t: int) -> list[tuple[Call, str]]:
    return [(call, call.id if call.id is not None else f"{call.name}_w{t:02d}x{i:02d}k7m2q9")
            for i, call in enumerate(turn)]


def _args(call: Call) -> dict[str, Any]:
    return dict(call.arguments or {})


def write_v2_responses_per_turn(turns: list[list[Call]]) -> tuple[object, tuple[Call, ...]]:
    """V2ChatResponse objects through the client, one per turn. No-argument calls
    carry arguments "null" (as recorded); an empty turn is a text answer."""
    payload: list[Any] = []
    expected: list[Call] = []
    for t, turn in enumerate(turns):
        if not turn:
            body = _v2_body(f"w2-{t:03d}", content=[{"type": "text", "text": f"Turn {t}: nothing to call."}],
                            finish_reason="COMPLETE")
        else:
            calls = [_v2_call(cid, c.name, json.dumps(_args(c)) if c.arguments else "null")
                     for c, cid in _ids(turn, t)]
            body = _v2_body(f"w2-{t:03d}", tool_plan=f"Turn {t}: calling {len(turn)} tool(s).",
                            tool_calls=calls)
            expected += [Call(c.name, _args(c), cid) for c, cid in _ids(turn, t)]
        payload.append(_chat_v2(body))
    return payload, tuple(expected)


def write_v2_conversation(turns: list[list[Call]]) -> tuple[object, tuple[Call, ...]]:
    """The 'messages' the v2 SDK sends: user, then per turn an assistant message
    (tool_plan + tool_calls, or text for an empty turn) and one tool message per call."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Please help."}]
    expected: list[Call] = []
    for t, turn in enumerate(turns):
        if not turn:
            messages.append({"role": "assistant", "content": f"Turn {t}: nothing to call."})
            messages.append({"role": "user", "content": "Go on."})
            continue
        ids = _ids(turn, t)
        messages.append({"role": "assistant", "tool_plan": f"Turn {t}.",
                         "tool_calls": [_v2_call(cid, c.name, json.dumps(_args(c))) for c, cid in ids]})
        messages += [{"role": "tool", "tool_call_id": cid, "content": "ok"} for _, cid in ids]
        expected += [Call(c.name, _args(c), cid) for c, cid in ids]
    _chat_v2(_RECORDED["V2_TEXT"], messages=messages)
    return _SERVER.requests[-1]["messages"], tuple(expected)


def write_v2_stream_events(turns: list[list[Call]]) -> tuple[object, tuple[Call, ...]]:
    """Event objects of client.chat_stream(), one stream per turn, concatenated.
    A no-argument call has no tool-call-delta (as recorded)."""
    payload: list[Any] = []
    expected: list[Call] = []
    for t, turn in enumerate(turns):
        ids = _ids(turn, t)
        if turn:
            events = _v2_events(f"ws-{t:03d}", tool_plan=f"Turn {t}.", piece=3 + t % 5,
                                calls=tuple((cid, c.name, json.dumps(_args(c)) if c.arguments else "")
                                            for c, cid in ids))
        else:
            events = _v2_events(f"ws-{t:03d}", contents=(("text", f"Turn {t}: nothing to call."),),
                                finish_reason="COMPLETE")
        payload += _stream_v2(_sse(events))
        expected += [Call(c.name, _args(c), cid) for c, cid in ids]
    return payload, tuple(expected)


def write_v1_final_response(turns: list[list[Call]]) -> tuple[object, tuple[Call, ...]]:
    """One v1 NonStreamedChatResponse whose chat_history holds the whole run:
    per turn a CHATBOT entry (with tool_calls) and a TOOL entry with the results
    (each result repeats its call); top-level tool_calls repeats the last turn's.
    v1 calls have no ids."""
    history: list[dict[str, Any]] = [{"role": "USER", "message": "Please help."}]
    expected: list[Call] = []
    last: list[dict[str, Any]] = []
    for t, turn in enumerate(turns):
        calls = [_v1_call(c.name, _args(c)) for c in turn]
        entry: dict[str, Any] = {"role": "CHATBOT", "message": f"Turn {t}."}
        if calls:
            entry["tool_calls"] = calls
        history.append(entry)
        expected += [Call(c.name, _args(c), None) for c in turn]
        if t < len(turns) - 1:
            history.append({"role": "TOOL", "tool_results": [{"call": c, "outputs": [{"ok": True}]}
                                                              for c in calls]}
                           if calls else {"role": "USER", "message": "Go on."})
        last = calls
    body = _v1_body("w1-final", f"Turn {len(turns) - 1}.", history, last or None)
    return _chat_v1(body), tuple(expected)


def writers() -> dict[str, Callable[[list[list[Call]]], tuple[object, tuple[Call, ...]]]]:
    return {
        "v2_responses_per_turn": write_v2_responses_per_turn,
        "v2_conversation": write_v2_conversation,
        "v2_stream_events": write_v2_stream_events,
        "v1_final_response": write_v1_final_response,
    }


# -- recorded bodies, and bodies written in the documented shapes ---------------------------------

#: Response bodies recorded from the live API by other projects' VCR cassettes /
#: fixtures (see SOURCES), verbatim.
_RECORDED: dict[str, str] = {}
SOURCES: dict[str, str] = {}
SOURCES['V2_ONE_CALL'] = (
    'pydantic/pydantic-ai:tests/models/cassettes/test_tool_choice_matrix/test_tool_choice_matrix[auto'
    '-cohere].yaml (interaction 0)'
)
_RECORDED['V2_ONE_CALL'] = (
    '{"finish_reason": "TOOL_CALL", "id": "5481bf9b-876e-487f-88fe-6b59a9a5b96c", "message": {"role":'
    ' "assistant", "tool_calls": [{"function": {"arguments": "{\\"city\\":\\"Paris\\"}", "name": "get_wea'
    'ther"}, "id": "get_weather_9gpb31r7h7mj", "type": "function"}], "tool_plan": "I will use the \'ge'
    't_weather\' tool to find the weather in Paris."}, "usage": {"billed_units": {"input_tokens": 41, '
    '"output_tokens": 25}, "cached_tokens": 144, "tokens": {"input_tokens": 1441, "output_tokens": 54'
    '}}}'
)
SOURCES['V2_ONE_CALL_ANSWER'] = (
    'pydantic/pydantic-ai:tests/models/cassettes/test_tool_choice_matrix/test_tool_choice_matrix[auto'
    '-cohere].yaml (interaction 1)'
)
_RECORDED['V2_ONE_CALL_ANSWER'] = (
    '{"finish_reason": "COMPLETE", "id": "72974c62-f509-4dc9-b3b0-f2a42a8b611b", "message": {"citatio'
    'ns": [{"end": 39, "sources": [{"id": "get_weather_9gpb31r7h7mj:0", "tool_output": {"content": "S'
    'unny, 22C in Paris"}, "type": "tool"}], "start": 34, "text": "sunny", "type": "TEXT_CONTENT"}, {'
    '"end": 48, "sources": [{"id": "get_weather_9gpb31r7h7mj:0", "tool_output": {"content": "Sunny, 2'
    '2C in Paris"}, "type": "tool"}], "start": 44, "text": "22C.", "type": "TEXT_CONTENT"}], "content'
    '": [{"text": "The weather in Paris is currently sunny and 22C.", "type": "text"}], "role": "assi'
    'stant"}, "usage": {"billed_units": {"input_tokens": 51, "output_tokens": 13}, "cached_tokens": 1'
    '440, "tokens": {"input_tokens": 1533, "output_tokens": 36}}}'
)
SOURCES['V2_PARALLEL'] = (
    'vercel/ai:packages/cohere/src/__fixtures__/cohere-tool-call.json (interaction 0)'
)
_RECORDED['V2_PARALLEL'] = (
    '{\n'
    '  "id": "f201af17-e24a-4396-8f6a-98e8bf9c3432",\n'
    '  "message": {\n'
    '    "role": "assistant",\n'
    '    "tool_plan": "I will use the weather tool to find out the weather in San Francisco. I will a'
    'lso use the cityAttractions tool to find out what attractions are in San Francisco.",\n'
    '    "tool_calls": [\n'
    '      {\n'
    '        "id": "weather_dqgshstja6p9",\n'
    '        "type": "function",\n'
    '        "function": {\n'
    '          "name": "weather",\n'
    '          "arguments": "{\\"location\\":\\"San Francisco\\"}"\n'
    '        }\n'
    '      },\n'
    '      {\n'
    '        "id": "cityAttractions_dcxfx4myvx68",\n'
    '        "type": "function",\n'
    '        "function": {\n'
    '          "name": "cityAttractions",\n'
    '          "arguments": "{\\"city\\":\\"San Francisco\\"}"\n'
    '        }\n'
    '      }\n'
    '    ]\n'
    '  },\n'
    '  "finish_reason": "TOOL_CALL",\n'
    '  "usage": {\n'
    '    "billed_units": {\n'
    '      "input_tokens": 119,\n'
    '      "output_tokens": 52\n'
    '    },\n'
    '    "tokens": {\n'
    '      "input_tokens": 1549,\n'
    '      "output_tokens": 103\n'
    '    },\n'
    '    "cached_tokens": 992\n'
    '  }\n'
    '}\n'
)
SOURCES['V2_NULL_ARGS'] = (
    'vercel/ai:packages/cohere/src/__fixtures__/cohere-null-args.json (interaction 0)'
)
_RECORDED['V2_NULL_ARGS'] = (
    '{\n'
    '  "id": "316f0604-ff50-49f6-ba38-c64616e972b4",\n'
    '  "message": {\n'
    '    "role": "assistant",\n'
    '    "tool_plan": "I will use the currentTime tool to find the current time.",\n'
    '    "tool_calls": [\n'
    '      {\n'
    '        "id": "currentTime_tf4dywn8wgnk",\n'
    '        "type": "function",\n'
    '        "function": {\n'
    '          "name": "currentTime",\n'
    '          "arguments": "null"\n'
    '        }\n'
    '      }\n'
    '    ]\n'
    '  },\n'
    '  "finish_reason": "TOOL_CALL",\n'
    '  "usage": {\n'
    '    "billed_units": {\n'
    '      "input_tokens": 46,\n'
    '      "output_tokens": 14\n'
    '    },\n'
    '    "tokens": {\n'
    '      "input_tokens": 1445,\n'
    '      "output_tokens": 43\n'
    '    },\n'
    '    "cached_tokens": 992\n'
    '  }\n'
    '}\n'
)
SOURCES['V2_TEXT'] = (
    'vercel/ai:packages/cohere/src/__fixtures__/cohere-text.json (interaction 0)'
)
_RECORDED['V2_TEXT'] = (
    '{\n'
    '  "id": "e7592632-1e3d-424f-b129-bd5f9f980f7b",\n'
    '  "message": {\n'
    '    "role": "assistant",\n'
    '    "content": [\n'
    '      {\n'
    '        "type": "text",\n'
    '        "text": "The capital of France is Paris."\n'
    '      }\n'
    '    ]\n'
    '  },\n'
    '  "finish_reason": "COMPLETE",\n'
    '  "usage": {\n'
    '    "billed_units": {\n'
    '      "input_tokens": 12,\n'
    '      "output_tokens": 7\n'
    '    },\n'
    '    "tokens": {\n'
    '      "input_tokens": 507,\n'
    '      "output_tokens": 10\n'
    '    },\n'
    '    "cached_tokens": 448\n'
    '  }\n'
    '}\n'
)
SOURCES['V2_PARIS_WEATHER'] = (
    'pydantic/pydantic-ai:tests/models/cassettes/test_tool_choice_matrix/test_tool_choice_matrix[tool'
    's_plus_output-cohere].yaml (interaction 0)'
)
_RECORDED['V2_PARIS_WEATHER'] = (
    '{"finish_reason": "TOOL_CALL", "id": "2db88225-f4e2-47f5-b3f6-3d2d0e4b3a5b", "message": {"role":'
    ' "assistant", "tool_calls": [{"function": {"arguments": "{\\"city\\":\\"Paris\\"}", "name": "get_wea'
    'ther"}, "id": "get_weather_mvsbdckzn39c", "type": "function"}], "tool_plan": "I will use one or '
    'more of the available tools to find the answer"}, "usage": {"billed_units": {"input_tokens": 81,'
    ' "output_tokens": 22}, "cached_tokens": 1024, "tokens": {"input_tokens": 1530, "output_tokens": '
    '33}}}'
)
SOURCES['V2_PARIS_FINAL'] = (
    'pydantic/pydantic-ai:tests/models/cassettes/test_tool_choice_matrix/test_tool_choice_matrix[tool'
    's_plus_output-cohere].yaml (interaction 1)'
)
_RECORDED['V2_PARIS_FINAL'] = (
    '{"finish_reason": "TOOL_CALL", "id": "60f8006b-4528-4586-bc9f-3fc03da47dac", "message": {"role":'
    ' "assistant", "tool_calls": [{"function": {"arguments": "{\\"city\\":\\"Paris\\",\\"summary\\":\\"Sunny'
    ', 22C\\"}", "name": "final_result"}, "id": "final_result_5ey6n45w0dgv", "type": "function"}], "to'
    'ol_plan": "I will use one or more of the available tools to find the answer"}, "usage": {"billed'
    '_units": {"input_tokens": 91, "output_tokens": 31}, "cached_tokens": 1024, "tokens": {"input_tok'
    'ens": 1622, "output_tokens": 44}}}'
)
SOURCES['V2_TOKYO_CALLS'] = (
    'traceloop/openllmetry:packages/opentelemetry-instrumentation-cohere/tests/cassettes/test_chat/te'
    'st_cohere_v2_chat_legacy_with_tool_calls_and_history.yaml (interaction 0)'
)
_RECORDED['V2_TOKYO_CALLS'] = (
    '{"id":"965405bb-b9da-4dc5-b329-e708a795e188","message":{"role":"assistant","tool_plan":"I will s'
    'earch for the current time and weather in Tokyo.","tool_calls":[{"id":"get_time_dp3men9jrvhf","t'
    'ype":"function","function":{"name":"get_time","arguments":"{\\"location\\":\\"Tokyo\\"}"}},{"id":"ge'
    't_weather_d7arjgsc96yf","type":"function","function":{"name":"get_weather","arguments":"{\\"locat'
    'ion\\":\\"Tokyo\\"}"}}]},"finish_reason":"TOOL_CALL","usage":{"billed_units":{"input_tokens":62,"ou'
    'tput_tokens":28},"tokens":{"input_tokens":968,"output_tokens":83}}}'
)
SOURCES['V2_TOKYO_ANSWER'] = (
    'traceloop/openllmetry:packages/opentelemetry-instrumentation-cohere/tests/cassettes/test_chat/te'
    'st_cohere_v2_chat_legacy_with_tool_calls_and_history.yaml (interaction 1)'
)
_RECORDED['V2_TOKYO_ANSWER'] = (
    '{"id":"00f7ec58-cd22-4b62-b068-0e7ece6bbf67","message":{"role":"assistant","content":[{"type":"t'
    'ext","text":"The current time in Tokyo is 4:20 PM and the weather is sunny with a temperature of'
    ' 20°C."}],"citations":[{"start":29,"end":36,"text":"4:20 PM","sources":[{"type":"tool","id":"get'
    '_time_dp3men9jrvhf:0","tool_output":{"content":"4:20 PM"}}],"type":"TEXT_CONTENT"},{"start":56,"'
    'end":89,"text":"sunny with a temperature of 20°C.","sources":[{"type":"tool","id":"get_weather_d'
    '7arjgsc96yf:0","tool_output":{"content":"Sunny 20 degrees Celsius"}}],"type":"TEXT_CONTENT"}]},"'
    'finish_reason":"COMPLETE","usage":{"billed_units":{"input_tokens":94,"output_tokens":27},"tokens'
    '":{"input_tokens":1094,"output_tokens":102}}}'
)
SOURCES['V2_STREAM_TOKYO_SSE'] = (
    'traceloop/openllmetry:packages/opentelemetry-instrumentation-cohere/tests/cassettes/test_chat/te'
    'st_cohere_v2_chat_legacy_with_tool_calls_and_streaming.yaml (interaction 0)'
)
_RECORDED['V2_STREAM_TOKYO_SSE'] = (
    'event: message-start\n'
    'data: {"id":"e6d757a9-f0f3-40fe-9b8a-44cdc3bd18a7","type":"message-start","delta":{"message":{"r'
    'ole":"assistant","content":[],"tool_plan":"","tool_calls":[],"citations":[]}}}\n'
    '\n'
    'event: tool-plan-delta\n'
    'data: {"type":"tool-plan-delta","delta":{"message":{"tool_plan":"I"}}}\n'
    '\n'
    'event: tool-plan-delta\n'
    'data: {"type":"tool-plan-delta","delta":{"message":{"tool_plan":" will"}}}\n'
    '\n'
    'event: tool-plan-delta\n'
    'data: {"type":"tool-plan-delta","delta":{"message":{"tool_plan":" search"}}}\n'
    '\n'
    'event: tool-plan-delta\n'
    'data: {"type":"tool-plan-delta","delta":{"message":{"tool_plan":" for"}}}\n'
    '\n'
    'event: tool-plan-delta\n'
    'data: {"type":"tool-plan-delta","delta":{"message":{"tool_plan":" the"}}}\n'
    '\n'
    'event: tool-plan-delta\n'
    'data: {"type":"tool-plan-delta","delta":{"message":{"tool_plan":" current"}}}\n'
    '\n'
    'event: tool-plan-delta\n'
    'data: {"type":"tool-plan-delta","delta":{"message":{"tool_plan":" time"}}}\n'
    '\n'
    'event: tool-plan-delta\n'
    'data: {"type":"tool-plan-delta","delta":{"message":{"tool_plan":" and"}}}\n'
    '\n'
    'event: tool-plan-delta\n'
    'data: {"type":"tool-plan-delta","delta":{"message":{"tool_plan":" weather"}}}\n'
    '\n'
    'event: tool-plan-delta\n'
    'data: {"type":"tool-plan-delta","delta":{"message":{"tool_plan":" in"}}}\n'
    '\n'
    'event: tool-plan-delta\n'
    'data: {"type":"tool-plan-delta","delta":{"message":{"tool_plan":" Tokyo"}}}\n'
    '\n'
    'event: tool-plan-delta\n'
    'data: {"type":"tool-plan-delta","delta":{"message":{"tool_plan":"."}}}\n'
    '\n'
    'event: tool-call-start\n'
    'data: {"type":"tool-call-start","index":0,"delta":{"message":{"tool_calls":{"id":"get_time_dg5ww'
    'c00d8v5","type":"function","function":{"name":"get_time","arguments":""}}}}}\n'
    '\n'
    'event: tool-call-delta\n'
    'data: {"type":"tool-call-delta","index":0,"delta":{"message":{"tool_calls":{"function":{"argumen'
    'ts":"{\\n    \\""}}}}}\n'
    '\n'
    'event: tool-call-delta\n'
    'data: {"type":"tool-call-delta","index":0,"delta":{"message":{"tool_calls":{"function":{"argumen'
    'ts":"location"}}}}}\n'
    '\n'
    'event: tool-call-delta\n'
    'data: {"type":"tool-call-delta","index":0,"delta":{"message":{"tool_calls":{"function":{"argumen'
    'ts":"\\":"}}}}}\n'
    '\n'
    'event: tool-call-delta\n'
    'data: {"type":"tool-call-delta","index":0,"delta":{"message":{"tool_calls":{"function":{"argumen'
    'ts":" \\""}}}}}\n'
    '\n'
    'event: tool-call-delta\n'
    'data: {"type":"tool-call-delta","index":0,"delta":{"message":{"tool_calls":{"function":{"argumen'
    'ts":"Tokyo"}}}}}\n'
    '\n'
    'event: tool-call-delta\n'
    'data: {"type":"tool-call-delta","index":0,"delta":{"message":{"tool_calls":{"function":{"argumen'
    'ts":"\\""}}}}}\n'
    '\n'
    'event: tool-call-delta\n'
    'data: {"type":"tool-call-delta","index":0,"delta":{"message":{"tool_calls":{"function":{"argumen'
    'ts":"\\n"}}}}}\n'
    '\n'
    'event: tool-call-delta\n'
    'data: {"type":"tool-call-delta","index":0,"delta":{"message":{"tool_calls":{"function":{"argumen'
    'ts":"}"}}}}}\n'
    '\n'
    'event: tool-call-end\n'
    'data: {"type":"tool-call-end","index":0}\n'
    '\n'
    'event: tool-call-start\n'
    'data: {"type":"tool-call-start","index":1,"delta":{"message":{"tool_calls":{"id":"get_weather_bc'
    '8241gkqss5","type":"function","function":{"name":"get_weather","arguments":""}}}}}\n'
    '\n'
    'event: tool-call-delta\n'
    'data: {"type":"tool-call-delta","index":1,"delta":{"message":{"tool_calls":{"function":{"argumen'
    'ts":"{\\n    \\""}}}}}\n'
    '\n'
    'event: tool-call-delta\n'
    'data: {"type":"tool-call-delta","index":1,"delta":{"message":{"tool_calls":{"function":{"argumen'
    'ts":"location"}}}}}\n'
    '\n'
    'event: tool-call-delta\n'
    'data: {"type":"tool-call-delta","index":1,"delta":{"message":{"tool_calls":{"function":{"argumen'
    'ts":"\\":"}}}}}\n'
    '\n'
    'event: tool-call-delta\n'
    'data: {"type":"tool-call-delta","index":1,"delta":{"message":{"tool_calls":{"function":{"argumen'
    'ts":" \\""}}}}}\n'
    '\n'
    'event: tool-call-delta\n'
    'data: {"type":"tool-call-delta","index":1,"delta":{"message":{"tool_calls":{"function":{"argumen'
    'ts":"Tokyo"}}}}}\n'
    '\n'
    'event: tool-call-delta\n'
    'data: {"type":"tool-call-delta","index":1,"delta":{"message":{"tool_calls":{"function":{"argumen'
    'ts":"\\""}}}}}\n'
    '\n'
    'event: tool-call-delta\n'
    'data: {"type":"tool-call-delta","index":1,"delta":{"message":{"tool_calls":{"function":{"argumen'
    'ts":"\\n"}}}}}\n'
    '\n'
    'event: tool-call-delta\n'
    'data: {"type":"tool-call-delta","index":1,"delta":{"message":{"tool_calls":{"function":{"argumen'
    'ts":"}"}}}}}\n'
    '\n'
    'event: tool-call-end\n'
    'data: {"type":"tool-call-end","index":1}\n'
    '\n'
    'event: message-end\n'
    'data: {"type":"message-end","delta":{"finish_reason":"TOOL_CALL","usage":{"billed_units":{"input'
    '_tokens":62,"output_tokens":28},"tokens":{"input_tokens":968,"output_tokens":83}}}}\n'
    '\n'
    'data: [DONE]\n'
    '\n'
)
SOURCES['V2_STREAM_PARALLEL_CHUNKS'] = (
    'vercel/ai:packages/cohere/src/__fixtures__/cohere-tool-call.chunks.txt (interaction 0)'
)
_RECORDED['V2_STREAM_PARALLEL_CHUNKS'] = (
    '{"id":"2941521a-b87a-45f6-9b0d-235fd66c3025","type":"message-start","delta":{"message":{"role":"'
    'assistant","content":[],"tool_plan":"","tool_calls":[],"citations":[]}}}\n'
    '{"type":"tool-plan-delta","delta":{"message":{"tool_plan":"I"}}}\n'
    '{"type":"tool-plan-delta","delta":{"message":{"tool_plan":" will"}}}\n'
    '{"type":"tool-plan-delta","delta":{"message":{"tool_plan":" use"}}}\n'
    '{"type":"tool-plan-delta","delta":{"message":{"tool_plan":" the"}}}\n'
    '{"type":"tool-plan-delta","delta":{"message":{"tool_plan":" weather"}}}\n'
    '{"type":"tool-plan-delta","delta":{"message":{"tool_plan":" tool"}}}\n'
    '{"type":"tool-plan-delta","delta":{"message":{"tool_plan":" to"}}}\n'
    '{"type":"tool-plan-delta","delta":{"message":{"tool_plan":" find"}}}\n'
    '{"type":"tool-plan-delta","delta":{"message":{"tool_plan":" the"}}}\n'
    '{"type":"tool-plan-delta","delta":{"message":{"tool_plan":" weather"}}}\n'
    '{"type":"tool-plan-delta","delta":{"message":{"tool_plan":" in"}}}\n'
    '{"type":"tool-plan-delta","delta":{"message":{"tool_plan":" San"}}}\n'
    '{"type":"tool-plan-delta","delta":{"message":{"tool_plan":" Francisco"}}}\n'
    '{"type":"tool-plan-delta","delta":{"message":{"tool_plan":" and"}}}\n'
    '{"type":"tool-plan-delta","delta":{"message":{"tool_plan":" the"}}}\n'
    '{"type":"tool-plan-delta","delta":{"message":{"tool_plan":" city"}}}\n'
    '{"type":"tool-plan-delta","delta":{"message":{"tool_plan":"At"}}}\n'
    '{"type":"tool-plan-delta","delta":{"message":{"tool_plan":"tract"}}}\n'
    '{"type":"tool-plan-delta","delta":{"message":{"tool_plan":"ions"}}}\n'
    '{"type":"tool-plan-delta","delta":{"message":{"tool_plan":" tool"}}}\n'
    '{"type":"tool-plan-delta","delta":{"message":{"tool_plan":" to"}}}\n'
    '{"type":"tool-plan-delta","delta":{"message":{"tool_plan":" find"}}}\n'
    '{"type":"tool-plan-delta","delta":{"message":{"tool_plan":" attractions"}}}\n'
    '{"type":"tool-plan-delta","delta":{"message":{"tool_plan":" in"}}}\n'
    '{"type":"tool-plan-delta","delta":{"message":{"tool_plan":" San"}}}\n'
    '{"type":"tool-plan-delta","delta":{"message":{"tool_plan":" Francisco"}}}\n'
    '{"type":"tool-plan-delta","delta":{"message":{"tool_plan":"."}}}\n'
    '{"type":"tool-call-start","index":0,"delta":{"message":{"tool_calls":{"id":"weather_e8p4pn45zt0t'
    '","type":"function","function":{"name":"weather","arguments":""}}}}}\n'
    '{"type":"tool-call-delta","index":0,"delta":{"message":{"tool_calls":{"function":{"arguments":"{'
    '\\""}}}}}\n'
    '{"type":"tool-call-delta","index":0,"delta":{"message":{"tool_calls":{"function":{"arguments":"l'
    'ocation"}}}}}\n'
    '{"type":"tool-call-delta","index":0,"delta":{"message":{"tool_calls":{"function":{"arguments":"\\'
    '":"}}}}}\n'
    '{"type":"tool-call-delta","index":0,"delta":{"message":{"tool_calls":{"function":{"arguments":" '
    '\\""}}}}}\n'
    '{"type":"tool-call-delta","index":0,"delta":{"message":{"tool_calls":{"function":{"arguments":"S'
    'an"}}}}}\n'
    '{"type":"tool-call-delta","index":0,"delta":{"message":{"tool_calls":{"function":{"arguments":" '
    'Francisco"}}}}}\n'
    '{"type":"tool-call-delta","index":0,"delta":{"message":{"tool_calls":{"function":{"arguments":"\\'
    '"}"}}}}}\n'
    '{"type":"tool-call-end","index":0}\n'
    '{"type":"tool-call-start","index":1,"delta":{"message":{"tool_calls":{"id":"cityAttractions_pyxs'
    'sbwnq9fq","type":"function","function":{"name":"cityAttractions","arguments":""}}}}}\n'
    '{"type":"tool-call-delta","index":1,"delta":{"message":{"tool_calls":{"function":{"arguments":"{'
    '\\""}}}}}\n'
    '{"type":"tool-call-delta","index":1,"delta":{"message":{"tool_calls":{"function":{"arguments":"c'
    'ity"}}}}}\n'
    '{"type":"tool-call-delta","index":1,"delta":{"message":{"tool_calls":{"function":{"arguments":"\\'
    '":"}}}}}\n'
    '{"type":"tool-call-delta","index":1,"delta":{"message":{"tool_calls":{"function":{"arguments":" '
    '\\""}}}}}\n'
    '{"type":"tool-call-delta","index":1,"delta":{"message":{"tool_calls":{"function":{"arguments":"S'
    'an"}}}}}\n'
    '{"type":"tool-call-delta","index":1,"delta":{"message":{"tool_calls":{"function":{"arguments":" '
    'Francisco"}}}}}\n'
    '{"type":"tool-call-delta","index":1,"delta":{"message":{"tool_calls":{"function":{"arguments":"\\'
    '"}"}}}}}\n'
    '{"type":"tool-call-end","index":1}\n'
    '{"type":"message-end","delta":{"finish_reason":"TOOL_CALL","usage":{"billed_units":{"input_token'
    's":119,"output_tokens":44},"tokens":{"input_tokens":1549,"output_tokens":95},"cached_tokens":150'
    '4}}}'
)
SOURCES['V2_STREAM_EMPTY_CALL_CHUNKS'] = (
    'vercel/ai:packages/cohere/src/__fixtures__/cohere-empty-tool-call.chunks.txt (interaction 0)'
)
_RECORDED['V2_STREAM_EMPTY_CALL_CHUNKS'] = (
    '{"id":"66dec7d7-45e6-427c-8fd9-7d6375d12046","type":"message-start","delta":{"message":{"role":"'
    'assistant","content":[],"tool_plan":"","tool_calls":[],"citations":[]}}}\n'
    '{"type":"tool-plan-delta","delta":{"message":{"tool_plan":"I"}}}\n'
    '{"type":"tool-plan-delta","delta":{"message":{"tool_plan":" will"}}}\n'
    '{"type":"tool-plan-delta","delta":{"message":{"tool_plan":" use"}}}\n'
    '{"type":"tool-plan-delta","delta":{"message":{"tool_plan":" the"}}}\n'
    '{"type":"tool-plan-delta","delta":{"message":{"tool_plan":" currentTime"}}}\n'
    '{"type":"tool-plan-delta","delta":{"message":{"tool_plan":" tool"}}}\n'
    '{"type":"tool-plan-delta","delta":{"message":{"tool_plan":" to"}}}\n'
    '{"type":"tool-plan-delta","delta":{"message":{"tool_plan":" find"}}}\n'
    '{"type":"tool-plan-delta","delta":{"message":{"tool_plan":" the"}}}\n'
    '{"type":"tool-plan-delta","delta":{"message":{"tool_plan":" current"}}}\n'
    '{"type":"tool-plan-delta","delta":{"message":{"tool_plan":" time"}}}\n'
    '{"type":"tool-plan-delta","delta":{"message":{"tool_plan":"."}}}\n'
    '{"type":"tool-call-start","index":0,"delta":{"message":{"tool_calls":{"id":"currentTime_y46ar19t'
    '5gvw","type":"function","function":{"name":"currentTime","arguments":""}}}}}\n'
    '{"type":"tool-call-end","index":0}\n'
    '{"type":"message-end","delta":{"finish_reason":"TOOL_CALL","usage":{"billed_units":{"input_token'
    's":46,"output_tokens":14},"tokens":{"input_tokens":1445,"output_tokens":43},"cached_tokens":704}'
    '}}'
)
SOURCES['V2_STREAM_TEXT_CHUNKS'] = (
    'vercel/ai:packages/cohere/src/__fixtures__/cohere-text.chunks.txt (interaction 0)'
)
_RECORDED['V2_STREAM_TEXT_CHUNKS'] = (
    '{"id":"321d178c-2c12-44d3-ae42-2f5510f6b1cc","type":"message-start","delta":{"message":{"role":"'
    'assistant","content":[],"tool_plan":"","tool_calls":[],"citations":[]}}}\n'
    '{"type":"content-start","index":0,"delta":{"message":{"content":{"type":"text","text":""}}}}\n'
    '{"type":"content-delta","index":0,"delta":{"message":{"content":{"text":"The"}}}}\n'
    '{"type":"content-delta","index":0,"delta":{"message":{"content":{"text":" capital"}}}}\n'
    '{"type":"content-delta","index":0,"delta":{"message":{"content":{"text":" of"}}}}\n'
    '{"type":"content-delta","index":0,"delta":{"message":{"content":{"text":" France"}}}}\n'
    '{"type":"content-delta","index":0,"delta":{"message":{"content":{"text":" is"}}}}\n'
    '{"type":"content-delta","index":0,"delta":{"message":{"content":{"text":" Paris"}}}}\n'
    '{"type":"content-delta","index":0,"delta":{"message":{"content":{"text":"."}}}}\n'
    '{"type":"content-end","index":0}\n'
    '{"type":"message-end","delta":{"finish_reason":"COMPLETE","usage":{"billed_units":{"input_tokens'
    '":12,"output_tokens":7},"tokens":{"input_tokens":507,"output_tokens":10},"cached_tokens":448}}}'
)
SOURCES['V1_TEXT'] = (
    'traceloop/openllmetry:packages/opentelemetry-instrumentation-cohere/tests/cassettes/test_chat/te'
    'st_cohere_chat_legacy.yaml (interaction 0)'
)
_RECORDED['V1_TEXT'] = (
    '{"response_id":"440f51f4-3e47-44b6-a5d7-5ba33edcfc58","text":"Arrrr, matey! Shiver me timbers, h'
    "ere's a pirate-style joke for ye:\\n\\nWhy did the pirate want to join the circus? \\n\\nArrrr, beca"
    'use he wanted to be a trapeze arrrrrrtist! \\n\\nYe scurvy dogs and seafaring scalawags better tha'
    'n that ye hath seen the last! \\n\\nHonestly, I be tired of these pirate puns, I need a pirate hol'
    'iday on a nice quiet beach, with not enough rum to get too crazy but just enough to forget all m'
    'e worries.","generation_id":"4f73027b-5f1f-478c-9906-97d0ec74e19a","chat_history":[{"role":"USER'
    '","message":"Tell me a joke, pirate style"},{"role":"CHATBOT","message":"Arrrr, matey! Shiver me'
    " timbers, here's a pirate-style joke for ye:\\n\\nWhy did the pirate want to join the circus? \\n\\n"
    'Arrrr, because he wanted to be a trapeze arrrrrrtist! \\n\\nYe scurvy dogs and seafaring scalawags'
    ' better than that ye hath seen the last! \\n\\nHonestly, I be tired of these pirate puns, I need a'
    ' pirate holiday on a nice quiet beach, with not enough rum to get too crazy but just enough to f'
    'orget all me worries."}],"finish_reason":"COMPLETE","meta":{"api_version":{"version":"1"},"bille'
    'd_units":{"input_tokens":58,"output_tokens":119},"tokens":{"input_tokens":69,"output_tokens":119'
    '}}}'
)
SOURCES['V1_STREAM_TEXT_NDJSON'] = (
    'traceloop/openllmetry:packages/opentelemetry-instrumentation-cohere/tests/cassettes/test_chat/te'
    'st_cohere_chat_legacy_with_streaming.yaml (interaction 0)'
)
_RECORDED['V1_STREAM_TEXT_NDJSON'] = (
    '{"is_finished":false,"event_type":"stream-start","generation_id":"a7cd9d01-255f-44a2-a186-834f94'
    '2bf61e"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":"Ar"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":"rr"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":"r"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":","}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" mate"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":"y"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":"!"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" Sh"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":"iver"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" me"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" tim"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":"bers"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":","}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" here"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":"\'s"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" a"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" pirate"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":"-"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":"themed"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" joke"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" for"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" ye"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":":"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":"\\n\\nWhy"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" did"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" the"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" pirate"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" go"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" to"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" the"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" dentist"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":"?"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":"\\n\\nA"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":":"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" Because"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" he"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" wanted"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" to"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" find"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" some"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" treasure"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":"!"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" AR"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":"RR"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":"RR"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":"!!!"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" \\n\\nP"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":"irates"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" love"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" loot"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":"in"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":"\'"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" gold"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":","}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" and"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" sometimes"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" forget"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" to"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" take"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" care"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" of"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" their"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" teeth"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":","}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" so"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" I"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" hope"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" ye"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" appreciate"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" me"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" pirate"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":"-"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":"themed"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" joke"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" there"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":","}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" ye"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" sc"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":"ur"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":"vy"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" dog"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":"!"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" \\n\\nIf"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" ye"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" want"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" more"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" pirate"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" humor"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":","}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" let"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" me"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" know"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" and"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" I"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":"\'ll"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" be"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" happy"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" to"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" sail"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" through"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" some"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" more"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" pirate"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":"-"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":"y"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":" comedy"}\n'
    '{"is_finished":false,"event_type":"text-generation","text":"!"}\n'
    '{"is_finished":true,"event_type":"stream-end","response":{"response_id":"12c00d26-e3bb-48c0-8c49'
    '-262155b57d64","text":"Arrrr, matey! Shiver me timbers, here\'s a pirate-themed joke for ye:\\n\\nW'
    'hy did the pirate go to the dentist?\\n\\nA: Because he wanted to find some treasure! ARRRRR!!! \\n'
    "\\nPirates love lootin' gold, and sometimes forget to take care of their teeth, so I hope ye appr"
    'eciate me pirate-themed joke there, ye scurvy dog! \\n\\nIf ye want more pirate humor, let me know'
    ' and I\'ll be happy to sail through some more pirate-y comedy!","generation_id":"a7cd9d01-255f-44'
    'a2-a186-834f942bf61e","chat_history":[{"role":"USER","message":"Tell me a joke, pirate style"},{'
    '"role":"CHATBOT","message":"Arrrr, matey! Shiver me timbers, here\'s a pirate-themed joke for ye:'
    '\\n\\nWhy did the pirate go to the dentist?\\n\\nA: Because he wanted to find some treasure! ARRRRR!'
    "!! \\n\\nPirates love lootin' gold, and sometimes forget to take care of their teeth, so I hope ye"
    ' appreciate me pirate-themed joke there, ye scurvy dog! \\n\\nIf ye want more pirate humor, let me'
    ' know and I\'ll be happy to sail through some more pirate-y comedy!"}],"finish_reason":"COMPLETE"'
    ',"meta":{"api_version":{"version":"1"},"warnings":["model \'command\' is deprecated and will be re'
    'moved September 15 2025. Please consider upgrading to a newer model to avoid future service disr'
    'uptions"],"billed_units":{"input_tokens":7,"output_tokens":115},"tokens":{"input_tokens":69,"out'
    'put_tokens":116}}},"finish_reason":"COMPLETE"}\n'
)
#: Bodies we wrote ourselves in the wire shapes Cohere documents for /v1/chat and /v2/chat
#: (https://docs.cohere.com/reference/chat, https://docs.cohere.com/reference/chat-stream):
#: the documented keys, nesting, event kinds and quirks, with our own tools and texts.
_DOCS: dict[str, str] = {}
SOURCES['V1_OPENAPI_TOOLS'] = (
    'written in the shape documented at https://docs.cohere.com/reference/chat (and chat-stream)'
    ': a /v1/chat response with two tool calls'
)
_DOCS['V1_OPENAPI_TOOLS'] = (
    '{"text": "I will first look up the open support tickets for the Berlin office. Then, I will find '
    'out who is on call during week 47.", "generation_id": "e2a94c7d-1f38-4b65-8d0a-93c7e5f1b246", "ch'
    'at_history": [{"role": "USER", "message": "Could you pull the open support tickets for the Berlin'
    ' office, and also tell me who is on call in week 47 so I can hand them over?"}, {"role": "CHATBOT'
    '", "message": "I will first look up the open support tickets for the Berlin office. Then, I will '
    'find out who is on call during week 47.", "tool_calls": [{"name": "list_support_tickets", "parame'
    'ters": {"office": "Berlin"}}, {"name": "get_on_call_rota", "parameters": {"week": "2024-W47"}}]}]'
    ', "finish_reason": "COMPLETE", "meta": {"api_version": {"version": "1"}, "billed_units": {"input_'
    'tokens": 118, "output_tokens": 61}, "tokens": {"input_tokens": 1019, "output_tokens": 117}}, "too'
    'l_calls": [{"name": "list_support_tickets", "parameters": {"office": "Berlin"}}, {"name": "get_on'
    '_call_rota", "parameters": {"week": "2024-W47"}}]}'
)
SOURCES['V2_OPENAPI_TOOLS'] = (
    'written in the shape documented at https://docs.cohere.com/reference/chat (and chat-stream)'
    ': a /v2/chat response with a thinking block and two tool calls'
)
_DOCS['V2_OPENAPI_TOOLS'] = (
    '{"id": "4b7e2c91-d36a-4f58-a0e3-7c19f5b2e864", "message": {"role": "assistant", "content": [{"typ'
    'e": "thinking", "thinking": "First I will check the status of flight LH1234. Then, I will look fo'
    'r the lounges at Frankfurt airport the traveller can use while waiting."}], "tool_calls": [{"id":'
    ' "check_flight_status_w7k2p9xq4m1d", "type": "function", "function": {"name": "check_flight_statu'
    's", "arguments": "{\\"flight_number\\": \\"LH1234\\"}"}}, {"id": "list_airport_lounges_b3n8v5c2z6ht",'
    ' "type": "function", "function": {"name": "list_airport_lounges", "arguments": "{\\"airport_code\\"'
    ': \\"FRA\\"}"}}]}, "finish_reason": "TOOL_CALL", "usage": {"billed_units": {"input_tokens": 143, "o'
    'utput_tokens": 58}, "tokens": {"input_tokens": 1067, "output_tokens": 111}}}'
)
SOURCES['V2_OPENAPI_TOOLS_STREAM'] = (
    'written in the shape documented at https://docs.cohere.com/reference/chat (and chat-stream)'
    ': /v2/chat stream events with two tool calls, as [{event, data}]'
)
_DOCS['V2_OPENAPI_TOOLS_STREAM'] = (
    '[{"event": "message-start", "data": {"type": "message-start", "id": "c83f1a5e-7d92-4b06-9e4f-2a6d'
    '8b1c3e70", "delta": {"message": {"role": "assistant"}}}}, {"event": "tool-plan-delta", "data": {"'
    'type": "tool-plan-delta", "delta": {"message": {"tool_plan": "I"}}}}, {"event": "tool-plan-delta"'
    ', "data": {"type": "tool-plan-delta", "delta": {"message": {"tool_plan": " will"}}}}, {"event": "'
    'tool-plan-delta", "data": {"type": "tool-plan-delta", "delta": {"message": {"tool_plan": " use"}}'
    '}}, {"event": "tool-plan-delta", "data": {"type": "tool-plan-delta", "delta": {"message": {"tool_'
    'plan": " the"}}}}, {"event": "tool-plan-delta", "data": {"type": "tool-plan-delta", "delta": {"me'
    'ssage": {"tool_plan": " get"}}}}, {"event": "tool-plan-delta", "data": {"type": "tool-plan-delta"'
    ', "delta": {"message": {"tool_plan": "_"}}}}, {"event": "tool-plan-delta", "data": {"type": "tool'
    '-plan-delta", "delta": {"message": {"tool_plan": "exchange"}}}}, {"event": "tool-plan-delta", "da'
    'ta": {"type": "tool-plan-delta", "delta": {"message": {"tool_plan": "_"}}}}, {"event": "tool-plan'
    '-delta", "data": {"type": "tool-plan-delta", "delta": {"message": {"tool_plan": "rate"}}}}, {"eve'
    'nt": "tool-plan-delta", "data": {"type": "tool-plan-delta", "delta": {"message": {"tool_plan": " '
    'tool"}}}}, {"event": "tool-plan-delta", "data": {"type": "tool-plan-delta", "delta": {"message": '
    '{"tool_plan": " to"}}}}, {"event": "tool-plan-delta", "data": {"type": "tool-plan-delta", "delta"'
    ': {"message": {"tool_plan": " find"}}}}, {"event": "tool-plan-delta", "data": {"type": "tool-plan'
    '-delta", "delta": {"message": {"tool_plan": " the"}}}}, {"event": "tool-plan-delta", "data": {"ty'
    'pe": "tool-plan-delta", "delta": {"message": {"tool_plan": " GBP"}}}}, {"event": "tool-plan-delta'
    '", "data": {"type": "tool-plan-delta", "delta": {"message": {"tool_plan": "/"}}}}, {"event": "too'
    'l-plan-delta", "data": {"type": "tool-plan-delta", "delta": {"message": {"tool_plan": "EUR"}}}}, '
    '{"event": "tool-plan-delta", "data": {"type": "tool-plan-delta", "delta": {"message": {"tool_plan'
    '": " rate"}}}}, {"event": "tool-plan-delta", "data": {"type": "tool-plan-delta", "delta": {"messa'
    'ge": {"tool_plan": "."}}}}, {"event": "tool-plan-delta", "data": {"type": "tool-plan-delta", "del'
    'ta": {"message": {"tool_plan": " I"}}}}, {"event": "tool-plan-delta", "data": {"type": "tool-plan'
    '-delta", "delta": {"message": {"tool_plan": " will"}}}}, {"event": "tool-plan-delta", "data": {"t'
    'ype": "tool-plan-delta", "delta": {"message": {"tool_plan": " also"}}}}, {"event": "tool-plan-del'
    'ta", "data": {"type": "tool-plan-delta", "delta": {"message": {"tool_plan": " use"}}}}, {"event":'
    ' "tool-plan-delta", "data": {"type": "tool-plan-delta", "delta": {"message": {"tool_plan": " the"'
    '}}}}, {"event": "tool-plan-delta", "data": {"type": "tool-plan-delta", "delta": {"message": {"too'
    'l_plan": " list"}}}}, {"event": "tool-plan-delta", "data": {"type": "tool-plan-delta", "delta": {'
    '"message": {"tool_plan": "_"}}}}, {"event": "tool-plan-delta", "data": {"type": "tool-plan-delta"'
    ', "delta": {"message": {"tool_plan": "bank"}}}}, {"event": "tool-plan-delta", "data": {"type": "t'
    'ool-plan-delta", "delta": {"message": {"tool_plan": "_"}}}}, {"event": "tool-plan-delta", "data":'
    ' {"type": "tool-plan-delta", "delta": {"message": {"tool_plan": "holidays"}}}}, {"event": "tool-p'
    'lan-delta", "data": {"type": "tool-plan-delta", "delta": {"message": {"tool_plan": " tool"}}}}, {'
    '"event": "tool-plan-delta", "data": {"type": "tool-plan-delta", "delta": {"message": {"tool_plan"'
    ': " to"}}}}, {"event": "tool-plan-delta", "data": {"type": "tool-plan-delta", "delta": {"message"'
    ': {"tool_plan": " find"}}}}, {"event": "tool-plan-delta", "data": {"type": "tool-plan-delta", "de'
    'lta": {"message": {"tool_plan": " the"}}}}, {"event": "tool-plan-delta", "data": {"type": "tool-p'
    'lan-delta", "delta": {"message": {"tool_plan": " bank"}}}}, {"event": "tool-plan-delta", "data": '
    '{"type": "tool-plan-delta", "delta": {"message": {"tool_plan": " holidays"}}}}, {"event": "tool-p'
    'lan-delta", "data": {"type": "tool-plan-delta", "delta": {"message": {"tool_plan": " in"}}}}, {"e'
    'vent": "tool-plan-delta", "data": {"type": "tool-plan-delta", "delta": {"message": {"tool_plan": '
    '" Ireland"}}}}, {"event": "tool-plan-delta", "data": {"type": "tool-plan-delta", "delta": {"messa'
    'ge": {"tool_plan": " in"}}}}, {"event": "tool-plan-delta", "data": {"type": "tool-plan-delta", "d'
    'elta": {"message": {"tool_plan": " 2"}}}}, {"event": "tool-plan-delta", "data": {"type": "tool-pl'
    'an-delta", "delta": {"message": {"tool_plan": "0"}}}}, {"event": "tool-plan-delta", "data": {"typ'
    'e": "tool-plan-delta", "delta": {"message": {"tool_plan": "2"}}}}, {"event": "tool-plan-delta", "'
    'data": {"type": "tool-plan-delta", "delta": {"message": {"tool_plan": "5"}}}}, {"event": "tool-pl'
    'an-delta", "data": {"type": "tool-plan-delta", "delta": {"message": {"tool_plan": "."}}}}, {"even'
    't": "tool-call-start", "data": {"type": "tool-call-start", "index": 0, "delta": {"message": {"too'
    'l_calls": {"id": "get_exchange_rate_r5t1y8u3i0pq", "type": "function", "function": {"name": "get_'
    'exchange_rate", "arguments": ""}}}}}}, {"event": "tool-call-delta", "data": {"type": "tool-call-d'
    'elta", "index": 0, "delta": {"message": {"tool_calls": {"function": {"arguments": "{\\""}}}}}}, {"'
    'event": "tool-call-delta", "data": {"type": "tool-call-delta", "index": 0, "delta": {"message": {'
    '"tool_calls": {"function": {"arguments": "currency"}}}}}}, {"event": "tool-call-delta", "data": {'
    '"type": "tool-call-delta", "index": 0, "delta": {"message": {"tool_calls": {"function": {"argumen'
    'ts": "_pair"}}}}}}, {"event": "tool-call-delta", "data": {"type": "tool-call-delta", "index": 0, '
    '"delta": {"message": {"tool_calls": {"function": {"arguments": "\\": "}}}}}}, {"event": "tool-call'
    '-delta", "data": {"type": "tool-call-delta", "index": 0, "delta": {"message": {"tool_calls": {"fu'
    'nction": {"arguments": "\\""}}}}}}, {"event": "tool-call-delta", "data": {"type": "tool-call-delta'
    '", "index": 0, "delta": {"message": {"tool_calls": {"function": {"arguments": "GBP"}}}}}}, {"even'
    't": "tool-call-delta", "data": {"type": "tool-call-delta", "index": 0, "delta": {"message": {"too'
    'l_calls": {"function": {"arguments": "/"}}}}}}, {"event": "tool-call-delta", "data": {"type": "to'
    'ol-call-delta", "index": 0, "delta": {"message": {"tool_calls": {"function": {"arguments": "EUR"}'
    '}}}}}, {"event": "tool-call-delta", "data": {"type": "tool-call-delta", "index": 0, "delta": {"me'
    'ssage": {"tool_calls": {"function": {"arguments": "\\"}"}}}}}}, {"event": "tool-call-end", "data":'
    ' {"type": "tool-call-end", "index": 0}}, {"event": "tool-call-start", "data": {"type": "tool-call'
    '-start", "index": 1, "delta": {"message": {"tool_calls": {"id": "list_bank_holidays_h2j6k9l4m7nb"'
    ', "type": "function", "function": {"name": "list_bank_holidays", "arguments": ""}}}}}}, {"event":'
    ' "tool-call-delta", "data": {"type": "tool-call-delta", "index": 1, "delta": {"message": {"tool_c'
    'alls": {"function": {"arguments": "{\\""}}}}}}, {"event": "tool-call-delta", "data": {"type": "too'
    'l-call-delta", "index": 1, "delta": {"message": {"tool_calls": {"function": {"arguments": "countr'
    'y"}}}}}}, {"event": "tool-call-delta", "data": {"type": "tool-call-delta", "index": 1, "delta": {'
    '"message": {"tool_calls": {"function": {"arguments": "\\": "}}}}}}, {"event": "tool-call-delta", "'
    'data": {"type": "tool-call-delta", "index": 1, "delta": {"message": {"tool_calls": {"function": {'
    '"arguments": "\\""}}}}}}, {"event": "tool-call-delta", "data": {"type": "tool-call-delta", "index"'
    ': 1, "delta": {"message": {"tool_calls": {"function": {"arguments": "Ire"}}}}}}, {"event": "tool-'
    'call-delta", "data": {"type": "tool-call-delta", "index": 1, "delta": {"message": {"tool_calls": '
    '{"function": {"arguments": "land"}}}}}}, {"event": "tool-call-delta", "data": {"type": "tool-call'
    '-delta", "index": 1, "delta": {"message": {"tool_calls": {"function": {"arguments": "\\"}"}}}}}}, '
    '{"event": "tool-call-end", "data": {"type": "tool-call-end", "index": 1}}, {"event": "message-end'
    '", "data": {"type": "message-end", "delta": {"finish_reason": "TOOL_CALL", "usage": {"billed_unit'
    's": {"input_tokens": 134, "output_tokens": 77}, "tokens": {"input_tokens": 1602, "output_tokens":'
    ' 128}}}}}]'
)
SOURCES['V1_MULTISTEP_1'] = (
    'written in the shape documented at https://docs.cohere.com/reference/chat (and chat-stream)'
    ': the first /v1/chat response of a multi-step run'
)
_DOCS['V1_MULTISTEP_1'] = (
    '{"response_id": "1f4c8a2e-93b7-4d05-8e6a-b52d7c0f9e13", "text": "I will look up the user\'s bookin'
    'g first and then find the platform of that train.", "generation_id": "7a3e9d15-c2f8-4b64-9a07-e1d'
    '6b8c4f250", "chat_history": [{"role": "USER", "message": "Which platform does my train home today'
    ' leave from?"}, {"role": "CHATBOT", "message": "I will look up the user\'s booking first and then '
    'find the platform of that train.", "tool_calls": [{"name": "find_my_booking", "parameters": {"dat'
    'e": "2024/11/18"}}]}], "finish_reason": "COMPLETE", "meta": {"api_version": {"version": "1"}, "bi'
    'lled_units": {"input_tokens": 57, "output_tokens": 31}, "tokens": {"input_tokens": 991, "output_t'
    'okens": 31}}, "tool_calls": [{"name": "find_my_booking", "parameters": {"date": "2024/11/18"}}]}'
)
SOURCES['V1_MULTISTEP_2'] = (
    'written in the shape documented at https://docs.cohere.com/reference/chat (and chat-stream)'
    ': the second /v1/chat response of a multi-step run'
)
_DOCS['V1_MULTISTEP_2'] = (
    '{"response_id": "b86d2f07-4e1a-4c93-a5f8-0d7e3b9c6a41", "text": "The booking is for train IC 2315'
    '. Now I will find the platform it leaves from.", "generation_id": "3e9b7c51-a04d-4f28-b6e3-5c1f8d'
    '2a7e96", "chat_history": [{"role": "USER", "message": "Which platform does my train home today le'
    'ave from?"}, {"role": "CHATBOT", "message": "I will look up the user\'s booking first and then fin'
    'd the platform of that train.", "tool_calls": [{"name": "find_my_booking", "parameters": {"date":'
    ' "2024/11/18"}}]}, {"role": "TOOL", "tool_results": [{"call": {"name": "find_my_booking", "parame'
    'ters": {"date": "2024/11/12"}}, "outputs": [{"train": "IC 2315"}]}]}, {"role": "CHATBOT", "messag'
    'e": "The booking is for train IC 2315. Now I will find the platform it leaves from.", "tool_calls'
    '": [{"name": "get_platform", "parameters": {"train": "IC 2315"}}]}], "finish_reason": "COMPLETE",'
    ' "meta": {"api_version": {"version": "1"}, "billed_units": {"input_tokens": 88, "output_tokens": '
    '24}, "tokens": {"input_tokens": 1096, "output_tokens": 24}}, "tool_calls": [{"name": "get_platfor'
    'm", "parameters": {"train": "IC 2315"}}]}'
)
SOURCES['V1_MULTISTEP_3'] = (
    'written in the shape documented at https://docs.cohere.com/reference/chat (and chat-stream)'
    ': the final /v1/chat response of a multi-step run'
)
_DOCS['V1_MULTISTEP_3'] = (
    '{"response_id": "5d0a8e63-7b2c-4f91-8d4e-a9c3f6b1e027", "text": "Your train IC 2315 leaves from p'
    'latform 7 at 17:42 — it is running on time.", "generation_id": "c9f2e4a8-1d76-4b30-9e5c-6a8b2d0f3'
    'e14", "chat_history": [{"role": "USER", "message": "Which platform does my train home today leave'
    ' from?"}, {"role": "CHATBOT", "message": "I will look up the user\'s booking first and then find t'
    'he platform of that train", "tool_calls": [{"name": "find_my_booking", "parameters": {"date": "20'
    '24/11/18"}}]}, {"role": "TOOL", "tool_results": [{"call": {"name": "find_my_booking", "parameters'
    '": {"date": "2024/11/12"}}, "outputs": [{"train": "IC 2315"}]}]}, {"role": "CHATBOT", "message": '
    '"The booking is for train IC 2315. Now I will find the platform it leaves from.", "tool_calls": ['
    '{"name": "get_platform", "parameters": {"train": "IC 2315"}}]}, {"role": "TOOL", "tool_results": '
    '[{"call": {"name": "get_platform", "parameters": {"date": "IC 2315"}}, "outputs": [{"departure": '
    '"17:42", "platform": "7", "status": "running on time"}]}]}, {"role": "CHATBOT", "message": "Your '
    'train IC 2315 leaves from platform 7 at 17:42 — it is running on time."}], "finish_reason": "COMP'
    'LETE", "meta": {"api_version": {"version": "1"}, "billed_units": {"input_tokens": 131, "output_to'
    'kens": 19}, "tokens": {"input_tokens": 1207, "output_tokens": 19}}, "citations": [{"start": 11, "'
    'end": 18, "text": "IC 2315", "document_ids": ["find_my_booking:0:2:0"]}, {"start": 31, "end": 41,'
    ' "text": "platform 7", "document_ids": ["get_platform:0:4:0"]}, {"start": 45, "end": 50, "text": '
    '"17:42", "document_ids": ["get_platform:0:4:0"]}], "documents": [{"id": "find_my_booking:0:2:0", '
    '"tool_name": "find_my_booking", "train": "IC 2315"}, {"departure": "17:42", "id": "get_platform:0'
    ':4:0", "platform": "7", "status": "running on time", "tool_name": "get_platform"}]}'
)
