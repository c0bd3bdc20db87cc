"""Ground-truth payloads for OpenAI Chat Completions, the Responses API and the
OpenAI Agents SDK, built OFFLINE with the real SDKs (openai 3.57, openai-agents 0.24).

Every response, stream and agent run goes through the SDK's own client
(``openai.OpenAI`` / ``openai.AsyncOpenAI``) talking to an ``httpx2.MockTransport``
that answers with JSON or server-sent-event bytes written by hand in the shape the
API documents. ``expected`` follows /work/helpers/SEMANTICS.md.

Providers: "openai_chat", "openai_responses", "openai_agents".
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import os
from collections.abc import Callable
from typing import Any

import httpx2
import openai
from openai.lib.streaming.chat import ChatCompletionStreamState
from openai.types.chat import (
    ChatCompletion,
    ChatCompletionAssistantMessageParam,
    ChatCompletionChunk,
    ChatCompletionContentPartTextParam,
    ChatCompletionMessageFunctionToolCallParam,
    ChatCompletionSystemMessageParam,
    ChatCompletionToolMessageParam,
    ChatCompletionUserMessageParam,
)
from openai.types.responses import (
    EasyInputMessageParam,
    Response,
    ResponseFunctionToolCallParam,
)
from openai.types.responses.response_input_param import FunctionCallOutput

from payloads._scenario import Call, Scenario

CHAT = "openai_chat"
RESP = "openai_responses"
AGENTS = "openai_agents"

CREATED = 1_718_000_000
CHAT_MODEL = "gpt-4o-2024-08-06"
RESP_MODEL = "gpt-4.1-2025-04-14"

#: n>1 choices where more than one holds calls.
REFUSE_ALTERNATIVES = r"(?i)alternative|choices"
#: finish_reason says tool_calls / function_call but no call is there.
REFUSE_MISSING = r"(?i)missing"

#: Responses fields that are never arguments of a hosted call (SEMANTICS.md).
HOSTED_EXCLUDED = frozenset(
    {"type", "id", "call_id", "status", "output", "outputs", "result", "results", "error",
     "execution", "fingerprint", "caller"}
)
#: Built-in tools the developer's code runs: kept with hosted_tools=False.
CLIENT_EXECUTED = frozenset({"computer_call", "local_shell_call", "shell_call", "apply_patch_call"})
NOT_HOSTED = frozenset({"function_call", "custom_tool_call", "mcp_call"})


#: OPENAI_PAYLOADS_STRICT=1 validates every hand-written body against the SDK's pydantic
#: types (the client itself only ``construct``s, without validation) and records what does
#: not validate here; the self-check prints it. Deliberately odd shapes are listed there.
_STRICT = bool(os.environ.get("OPENAI_PAYLOADS_STRICT"))
VALIDATION_PROBLEMS: list[str] = []


def _check(model: Any, data: Any, label: str) -> None:
    if not _STRICT:
        return
    try:
        model.model_validate(data)
    except Exception as exc:  # pydantic.ValidationError
        first = str(exc).splitlines()
        VALIDATION_PROBLEMS.append(f"{label}: {model.__name__}: {' | '.join(first[:3])}")


def C(name: str, arguments: dict[str, Any] | None = None, id: str | None = None,
      raw: str | None = None) -> Call:
    return Call(name, {} if arguments is None else arguments, id, raw)


# -- the SDK clients over a mock transport ----------------------------------------------------


class _Mock:
    """Answers each request with the next queued body: a dict (JSON) or SSE bytes/str."""

    def __init__(self) -> None:
        self.queue: list[Any] = []
        self.requests: list[httpx2.Request] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(request)
        body = self.queue.pop(0)
        if isinstance(body, str):
            body = body.encode()
        if isinstance(body, bytes):
            return httpx2.Response(200, content=body,
                                   headers={"content-type": "text/event-stream"})
        return httpx2.Response(200, json=body, headers={"x-request-id": "req_test"})


def _sync_client(mock: _Mock) -> openai.OpenAI:
    return openai.OpenAI(
        api_key="sk-test", base_url="http://test/v1", max_retries=0,
        http_client=openai.DefaultHttpxClient(transport=httpx2.MockTransport(mock)),
    )


def _async_client(mock: _Mock) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(
        api_key="sk-test", base_url="http://test/v1", max_retries=0,
        http_client=openai.DefaultAsyncHttpxClient(transport=httpx2.MockTransport(mock)),
    )


# -- forms ------------------------------------------------------------------------------------


def _dump(obj: Any) -> Any:
    if isinstance(obj, list):
        return [_dump(o) for o in obj]
    if hasattr(obj, "model_dump"):
        return obj.model_dump(mode="json")
    return obj


def _to_dict(obj: Any) -> Any:
    if isinstance(obj, list):
        return [_to_dict(o) for o in obj]
    if hasattr(obj, "to_dict"):
        return obj.to_dict()
    return obj


def _json_text(obj: Any) -> str:
    if hasattr(obj, "model_dump_json"):
        return obj.model_dump_json()
    return json.dumps(_dump(obj))


def _forms(provider: str, name: str, obj: Any, expected: tuple[Call, ...] | None, *,
           note: str = "", refusal: str | None = None, options: dict[str, Any] | None = None,
           json_bytes: bool = False, to_dict: bool = False, sse: str | None = None,
           sse_bytes: bool = False, object_form: bool = True) -> list[Scenario]:
    """The object, its model_dump(mode="json"), its JSON text, and optionally the
    to_dict() dump, the JSON as bytes, and the SSE text it was streamed as."""
    options = options or {}

    def sc(form: str, suffix: str, payload: Any) -> Scenario:
        return Scenario(provider, form, name + suffix, payload, expected, refusal,
                        dict(options), note)

    out = []
    if object_form:
        out.append(sc("object", "", obj))
    out.append(sc("dump", "", _dump(obj)))
    text = _json_text(obj)
    out.append(sc("json", "", text))
    if json_bytes:
        out.append(sc("json", "-bytes", text.encode()))
    if to_dict:
        out.append(sc("dump", "-to-dict", _to_dict(obj)))
    if sse is not None:
        out.append(sc("sse", "", sse))
        if sse_bytes:
            out.append(sc("sse", "-bytes", sse.encode()))
    return out


def _no_hosted(expected: tuple[Call, ...], hosted: set[str]) -> tuple[Call, ...]:
    return tuple(c for c in expected if c.name not in hosted)


# ============================================================================================
# Chat Completions
# ============================================================================================

_CHAT_TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "parameters": {
        "type": "object", "properties": {"city": {"type": "string"}}}}},
    {"type": "function", "function": {"name": "get_time", "parameters": {
        "type": "object", "properties": {"tz": {"type": "string"}}}}},
    {"type": "custom", "custom": {"name": "run_sql", "description": "Run one SQL query"}},
]
_USER_Q = [{"role": "user", "content": "What's the weather and time in Paris?"}]
_USAGE = {"prompt_tokens": 52, "completion_tokens": 18, "total_tokens": 70,
          "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
          "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0,
                                        "accepted_prediction_tokens": 0,
                                        "rejected_prediction_tokens": 0}}


def _fn(call_id: str | None, name: str, arguments: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def _custom(call_id: str, name: str, text: str) -> dict[str, Any]:
    return {"id": call_id, "type": "custom", "custom": {"name": name, "input": text}}


def _assistant(content: str | None = None, tool_calls: list | None = None,
               function_call: dict | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content, "refusal": None,
                               "annotations": []}
    if tool_calls is not None:
        message["tool_calls"] = tool_calls
    if function_call is not None:
        message["function_call"] = function_call
    return message


def _finish_for(message: dict[str, Any]) -> str:
    if message.get("tool_calls"):
        return "tool_calls"
    if message.get("function_call"):
        return "function_call"
    return "stop"


def _completion(completion_id: str, *messages: dict[str, Any],
                finish: list[str] | None = None) -> dict[str, Any]:
    return {
        "id": completion_id, "object": "chat.completion", "created": CREATED,
        "model": CHAT_MODEL, "service_tier": "default", "system_fingerprint": "fp_test",
        "choices": [
            {"index": i, "message": m, "logprobs": None,
             "finish_reason": finish[i] if finish else _finish_for(m)}
            for i, m in enumerate(messages)
        ],
        "usage": _USAGE,
    }


# -- chunks -----------------------------------------------------------------------------------

_MISSING = object()


def _piece(index: Any = 0, call_id: str | None = None, name: str | None = None,
           arguments: str | None = None) -> dict[str, Any]:
    """One ``delta.tool_calls[]`` piece; ``index=_MISSING`` leaves the key out."""
    piece: dict[str, Any] = {}
    if index is not _MISSING:
        piece["index"] = index
    if call_id is not None:
        piece["id"] = call_id
        piece["type"] = "function"
    function: dict[str, Any] = {}
    if name is not None:
        function["name"] = name
    if arguments is not None:
        function["arguments"] = arguments
    piece["function"] = function
    return piece


def _split(text: str, size: int = 7) -> list[str]:
    return [text[i:i + size] for i in range(0, len(text), size)] or [""]


def _call_pieces(index: Any, call_id: str | None, name: str, arguments: str,
                 size: int = 7) -> list[dict[str, Any]]:
    """How OpenAI streams one call: id+name with empty arguments, then argument text."""
    pieces = [_piece(index, call_id, name, "")]
    if arguments:
        pieces += [_piece(index, arguments=part) for part in _split(arguments, size)]
    return pieces


def _chunk(completion_id: str, delta: dict[str, Any] | None = None, finish: str | None = None,
           *, index: int = 0, choices: list | None = None, **extra: Any) -> dict[str, Any]:
    if choices is None:
        choices = [{"index": index, "delta": delta or {}, "logprobs": None,
                    "finish_reason": finish}]
    chunk = {"id": completion_id, "object": "chat.completion.chunk", "created": CREATED,
             "model": CHAT_MODEL, "service_tier": "default", "system_fingerprint": "fp_test",
             "choices": choices, "usage": None}
    chunk.update(extra)
    return chunk


def _usage_chunk(completion_id: str) -> dict[str, Any]:
    return _chunk(completion_id, choices=[], usage=_USAGE)


def _tool_stream(completion_id: str, pieces: list[dict[str, Any]], finish: str = "tool_calls",
                 *, usage: bool = True, per_chunk: int = 1) -> list[dict[str, Any]]:
    """role chunk, tool-call pieces (``per_chunk`` per chunk), finish chunk, usage chunk."""
    chunks = [_chunk(completion_id, {"role": "assistant", "content": None, "refusal": None})]
    for i in range(0, len(pieces), per_chunk):
        chunks.append(_chunk(completion_id, {"tool_calls": pieces[i:i + per_chunk]}))
    chunks.append(_chunk(completion_id, {}, finish))
    if usage:
        chunks.append(_usage_chunk(completion_id))
    return chunks


def _text_stream(completion_id: str, text: str, finish: str = "stop",
                 usage: bool = True) -> list[dict[str, Any]]:
    chunks = [_chunk(completion_id, {"role": "assistant", "content": "", "refusal": None})]
    chunks += [_chunk(completion_id, {"content": part}) for part in _split(text, 5)]
    chunks.append(_chunk(completion_id, {}, finish))
    if usage:
        chunks.append(_usage_chunk(completion_id))
    return chunks


def _sse_chat(chunks: list[dict[str, Any]]) -> str:
    return "".join(f"data: {json.dumps(c, separators=(',', ':'))}\n\n" for c in chunks) + \
        "data: [DONE]\n\n"


class _Chat:
    def __init__(self) -> None:
        self.mock = _Mock()
        self.client = _sync_client(self.mock)

    def create(self, body: dict[str, Any], **kw: Any) -> ChatCompletion:
        _check(ChatCompletion, body, body["id"])
        self.mock.queue.append(body)
        return self.client.chat.completions.create(
            model="gpt-4o", messages=_USER_Q, tools=_CHAT_TOOLS, **kw)

    def stream(self, chunks: list[dict[str, Any]], **kw: Any) -> tuple[list[ChatCompletionChunk], str]:
        for c in chunks:
            _check(ChatCompletionChunk, c, f"chunk {c['id']!r}")
        sse = _sse_chat(chunks)
        self.mock.queue.append(sse.encode())
        stream = self.client.chat.completions.create(
            model="gpt-4o", messages=_USER_Q, tools=_CHAT_TOOLS, stream=True,
            stream_options={"include_usage": True}, **kw)
        return list(stream), sse

    def stream_final(self, chunks: list[dict[str, Any]]):
        self.mock.queue.append(_sse_chat(chunks).encode())
        with self.client.chat.completions.stream(
                model="gpt-4o", messages=_USER_Q, tools=_CHAT_TOOLS[:2],
                stream_options={"include_usage": True}) as stream:
            for _ in stream:
                pass
            return stream.get_final_completion()


def _chat_scenarios() -> list[Scenario]:
    chat = _Chat()
    out: list[Scenario] = []
    weather = '{"city": "Paris", "unit": "celsius"}'
    time_args = '{"tz": "Europe/Paris", "format": {"clock": 24, "seconds": false}}'
    w_args = {"city": "Paris", "unit": "celsius"}
    t_args = {"tz": "Europe/Paris", "format": {"clock": 24, "seconds": False}}

    # --- single responses -------------------------------------------------------------------
    one = chat.create(_completion("chatcmpl-one", _assistant(
        tool_calls=[_fn("call_w1", "get_weather", weather)])))
    out += _forms(CHAT, "one-call", one, (C("get_weather", w_args, "call_w1"),),
                  json_bytes=True, to_dict=True, note="finish_reason tool_calls, content null")

    parallel = chat.create(_completion("chatcmpl-par", _assistant(tool_calls=[
        _fn("call_p1", "get_weather", weather), _fn("call_p2", "get_time", time_args)])))
    out += _forms(CHAT, "parallel-calls", parallel,
                  (C("get_weather", w_args, "call_p1"), C("get_time", t_args, "call_p2")),
                  note="two parallel calls; nested argument object")

    custom = chat.create(_completion("chatcmpl-custom", _assistant(tool_calls=[
        _custom("call_c1", "run_sql", "SELECT city, temp FROM weather WHERE city = 'Paris';"),
        _fn("call_c2", "get_time", '{"tz": "UTC"}')])))
    out += _forms(CHAT, "custom-tool-call", custom, (
        C("run_sql", {"input": "SELECT city, temp FROM weather WHERE city = 'Paris';"}, "call_c1"),
        C("get_time", {"tz": "UTC"}, "call_c2")),
        to_dict=True, note="type custom: free-text input, not JSON; next to a function call")

    legacy = chat.create(_completion("chatcmpl-legacy", _assistant(
        function_call={"name": "get_weather", "arguments": '{"city": "Oslo"}'})))
    out += _forms(CHAT, "legacy-function-call", legacy, (C("get_weather", {"city": "Oslo"}),),
                  note="deprecated functions API: message.function_call, no id; "
                       "finish_reason function_call")

    malformed = chat.create(_completion("chatcmpl-bad", _assistant(tool_calls=[
        _fn("call_b1", "get_weather", '{"city": "Par'),
        _fn("call_b2", "get_weather", '["Paris", "Oslo"]'),
        _fn("call_b3", "get_weather", '"Paris"'),
        _fn("call_b4", "get_weather", "{'city': 'Paris'}")])))
    out += _forms(CHAT, "malformed-arguments", malformed, (
        C("get_weather", {}, "call_b1", '{"city": "Par'),
        C("get_weather", {}, "call_b2", '["Paris", "Oslo"]'),
        C("get_weather", {}, "call_b3", '"Paris"'),
        C("get_weather", {}, "call_b4", "{'city': 'Paris'}")),
        json_bytes=True,
        note="truncated JSON, a JSON array, a JSON string, Python-repr quotes: kept raw")

    empty_args = chat.create(_completion("chatcmpl-empty", _assistant(tool_calls=[
        _fn("call_e1", "get_time", ""), _fn("call_e2", "get_time", "{}")])))
    out += _forms(CHAT, "empty-arguments", empty_args,
                  (C("get_time", {}, "call_e1"), C("get_time", {}, "call_e2")),
                  note="'' arguments (some providers for no-arg tools) and '{}'")

    stop = chat.create(_completion("chatcmpl-stop", _assistant(
        tool_calls=[_fn("call_st1", "get_weather", weather)]), finish=["stop"]))
    out += _forms(CHAT, "calls-with-finish-reason-stop", stop,
                  (C("get_weather", w_args, "call_st1"),), object_form=True,
                  note="OpenAI-compatible servers (Ollama, vLLM, Gemini's compat layer) often "
                       "send finish_reason stop with tool calls: read them")

    text = chat.create(_completion("chatcmpl-text", _assistant("It is sunny in Paris.")))
    out += _forms(CHAT, "text-only", text, (), to_dict=True, note="no call: []")

    null_tc = chat.create(_completion("chatcmpl-nulltc", {
        "role": "assistant", "content": "Hi!", "tool_calls": None, "function_call": None}))
    out += _forms(CHAT, "text-explicit-null-tool-calls", null_tc, (),
                  note="tool_calls: null and function_call: null sent explicitly")

    missing = chat.create(_completion("chatcmpl-missing", _assistant(None),
                                      finish=["tool_calls"]))
    out += _forms(CHAT, "finish-tool-calls-without-calls", missing, None, refusal=REFUSE_MISSING,
                  note="finish_reason tool_calls but no call in the message: refused")
    missing_empty = chat.create(_completion("chatcmpl-missing2", _assistant(None, tool_calls=[]),
                                            finish=["tool_calls"]))
    out += _forms(CHAT, "finish-tool-calls-empty-list", missing_empty, None,
                  refusal=REFUSE_MISSING, object_form=False,
                  note="finish_reason tool_calls with tool_calls: []: refused")

    n2_first = chat.create(_completion(
        "chatcmpl-n2a", _assistant(tool_calls=[_fn("call_n1", "get_weather", weather)]),
        _assistant("I think it is sunny.")), n=2)
    out += _forms(CHAT, "n2-only-first-choice-has-calls", n2_first,
                  (C("get_weather", w_args, "call_n1"),),
                  note="n=2, choice 1 is text: reads choice 0 normally")

    n2_both = chat.create(_completion(
        "chatcmpl-n2b", _assistant(tool_calls=[_fn("call_n1", "get_weather", weather)]),
        _assistant(tool_calls=[_fn("call_n2", "get_weather", '{"city": "Lyon"}')])), n=2)
    out += _forms(CHAT, "n2-both-choices-have-calls", n2_both, None,
                  refusal=REFUSE_ALTERNATIVES,
                  note="n=2 alternatives both calling tools are not one trajectory: refused")

    # --- one ChatCompletion per turn ---------------------------------------------------------
    turns = [
        chat.create(_completion("chatcmpl-t1", _assistant(
            tool_calls=[_fn("call_t1", "get_weather", weather)]))),
        chat.create(_completion("chatcmpl-t2", _assistant(tool_calls=[
            _fn("call_t2", "get_time", time_args),
            _custom("call_t3", "run_sql", "SELECT 1")]))),
        chat.create(_completion("chatcmpl-t3", _assistant("Sunny, 14:05."))),
    ]
    turns_expected = (C("get_weather", w_args, "call_t1"), C("get_time", t_args, "call_t2"),
                      C("run_sql", {"input": "SELECT 1"}, "call_t3"))
    out += _forms(CHAT, "turns", turns, turns_expected, json_bytes=True, to_dict=True,
                  note="a list of ChatCompletion objects, one per agent turn")

    # --- conversations (request-style message lists) ----------------------------------------
    convo = [
        {"role": "system", "content": "You are a travel assistant."},
        {"role": "user", "content": [{"type": "text", "text": "Weather and time in Paris?"}]},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_k1", "type": "function",
             "function": {"name": "get_weather", "arguments": weather}},
            {"id": "call_k2", "type": "function",
             "function": {"name": "get_time", "arguments": time_args}}]},
        {"role": "tool", "tool_call_id": "call_k1", "content": '{"temp": 18}'},
        {"role": "tool", "tool_call_id": "call_k2", "content": "14:05"},
        {"role": "assistant", "content": "18 degrees, 14:05. Anything else?"},
        {"role": "user", "content": "Count the rows in weather."},
        {"role": "assistant", "tool_calls": [
            {"id": "call_k3", "type": "custom",
             "custom": {"name": "run_sql", "input": "SELECT COUNT(*) FROM weather"}}]},
        {"role": "tool", "tool_call_id": "call_k3", "content": "42"},
        {"role": "assistant", "content": "42 rows."},
    ]
    convo_expected = (C("get_weather", w_args, "call_k1"), C("get_time", t_args, "call_k2"),
                      C("run_sql", {"input": "SELECT COUNT(*) FROM weather"}, "call_k3"))
    out.append(Scenario(CHAT, "dump", "conversation", convo, convo_expected,
                        note="request-style messages as users write them; tool results are "
                             "not calls; first user message has content parts"))
    out.append(Scenario(CHAT, "json", "conversation", json.dumps(convo), convo_expected))
    out.append(Scenario(CHAT, "json", "conversation-bytes",
                        json.dumps(convo, indent=2).encode(), convo_expected))

    typed = [
        ChatCompletionSystemMessageParam(role="system", content="You are a travel assistant."),
        ChatCompletionUserMessageParam(role="user", content=[
            ChatCompletionContentPartTextParam(type="text", text="Weather in Paris?")]),
        ChatCompletionAssistantMessageParam(role="assistant", content=None, tool_calls=[
            ChatCompletionMessageFunctionToolCallParam(
                id="call_k1", type="function",
                function={"name": "get_weather", "arguments": weather})]),
        ChatCompletionToolMessageParam(role="tool", tool_call_id="call_k1",
                                       content='{"temp": 18}'),
        ChatCompletionAssistantMessageParam(role="assistant", content="18 degrees."),
    ]
    out.append(Scenario(CHAT, "dump", "conversation-typeddicts", typed,
                        (C("get_weather", w_args, "call_k1"),),
                        note="built with the SDK's *MessageParam TypedDicts (plain dicts at "
                             "run time)"))

    # The documented loop: messages.append(completion.choices[0].message) -- a pydantic
    # ChatCompletionMessage among plain dicts.
    t1 = turns[0]
    mixed = [
        {"role": "user", "content": "Weather in Paris?"},
        t1.choices[0].message,
        {"role": "tool", "tool_call_id": "call_t1", "content": '{"temp": 18}'},
        turns[1].choices[0].message,
        {"role": "tool", "tool_call_id": "call_t2", "content": "14:05"},
        {"role": "tool", "tool_call_id": "call_t3", "content": "1"},
        turns[2].choices[0].message,
    ]
    out.append(Scenario(CHAT, "list", "conversation-with-message-objects", mixed,
                        turns_expected,
                        note="messages.append(completion.choices[0].message): "
                             "ChatCompletionMessage objects mixed with dicts"))
    out.append(Scenario(CHAT, "list", "conversation-with-message-dumps",
                        [m.model_dump(mode="json") if hasattr(m, "model_dump") else m
                         for m in mixed], turns_expected,
                        note="same, messages dumped with model_dump (nulls for audio, "
                             "function_call, ...)"))

    legacy_convo = [
        {"role": "user", "content": "Weather in Oslo?"},
        {"role": "assistant", "content": None,
         "function_call": {"name": "get_weather", "arguments": '{"city": "Oslo"}'}},
        {"role": "function", "name": "get_weather", "content": '{"temp": 3}'},
        {"role": "assistant", "content": "3 degrees."},
    ]
    out.append(Scenario(CHAT, "dump", "conversation-legacy-function-call", legacy_convo,
                        (C("get_weather", {"city": "Oslo"}),),
                        note="functions API: assistant function_call, role function result"))

    # --- streams -----------------------------------------------------------------------------
    def stream_forms(name: str, chunks: list[dict[str, Any]], expected, *, note: str,
                     refusal: str | None = None, sse_bytes: bool = False,
                     json_bytes: bool = False, to_dict: bool = False, **kw: Any) -> None:
        objects, sse = chat.stream(chunks, **kw)
        out.extend(_forms(CHAT, name, objects, expected, note=note, refusal=refusal, sse=sse,
                          sse_bytes=sse_bytes, json_bytes=json_bytes, to_dict=to_dict))

    s_one = _tool_stream("chatcmpl-s1", _call_pieces(0, "call_s1", "get_weather", weather))
    stream_forms("stream-one-call-usage-chunk", s_one, (C("get_weather", w_args, "call_s1"),),
                 sse_bytes=True, json_bytes=True, to_dict=True,
                 note="stream_options include_usage: last chunk has choices [] and usage")

    azure_first = {"choices": [], "created": 0, "id": "", "model": "", "object": "",
                   "prompt_filter_results": [{"prompt_index": 0, "content_filter_results": {
                       "hate": {"filtered": False, "severity": "safe"},
                       "self_harm": {"filtered": False, "severity": "safe"},
                       "sexual": {"filtered": False, "severity": "safe"},
                       "violence": {"filtered": False, "severity": "safe"}}}]}
    s_azure = [azure_first] + _tool_stream("chatcmpl-az", _call_pieces(
        0, "call_az1", "get_weather", weather), usage=False)
    for c in s_azure[1:]:
        for choice in c["choices"]:
            choice["content_filter_results"] = {}
    stream_forms("stream-azure-prompt-filter-first-chunk", s_azure,
                 (C("get_weather", w_args, "call_az1"),),
                 note="Azure OpenAI: first chunk has choices [], id '', "
                      "prompt_filter_results")

    p0 = _call_pieces(0, "call_i1", "get_weather", weather)
    p1 = _call_pieces(1, "call_i2", "get_time", time_args)
    interleaved = []
    for i in range(max(len(p0), len(p1))):
        interleaved += p0[i:i + 1] + p1[i:i + 1]
    s_inter = _tool_stream("chatcmpl-inter", interleaved)
    stream_forms("stream-parallel-interleaved", s_inter,
                 (C("get_weather", w_args, "call_i1"), C("get_time", t_args, "call_i2")),
                 note="two parallel calls whose argument pieces alternate by index")

    s_seq = _tool_stream("chatcmpl-seq", _call_pieces(0, "call_q1", "get_weather", weather)
                         + _call_pieces(1, "call_q2", "get_time", time_args), per_chunk=2)
    stream_forms("stream-parallel-sequential", s_seq,
                 (C("get_weather", w_args, "call_q1"), C("get_time", t_args, "call_q2")),
                 note="OpenAI's usual order: all of call 0, then call 1; two pieces per chunk")

    for label, idx in (("no-index", _MISSING), ("index-null", None)):
        pieces = (_call_pieces(idx, "call_x1", "get_weather", weather)
                  + _call_pieces(idx, "call_x2", "get_time", time_args))
        stream_forms(f"stream-{label}-new-id-starts-call", _tool_stream(f"chatcmpl-{label}",
                                                                        pieces),
                     (C("get_weather", w_args, "call_x1"), C("get_time", t_args, "call_x2")),
                     to_dict=label == "no-index",
                     note=f"tool-call deltas with {label.replace('-', ' ')}: a new id starts "
                          "the next call (the 'get_weatherget_time' bug); the SDK turns a "
                          "missing index into index=None")

    reuse = (_call_pieces(0, "call_r1", "get_weather", weather)
             + _call_pieces(0, "call_r2", "get_time", time_args))
    stream_forms("stream-reused-index-0", _tool_stream("chatcmpl-reuse", reuse),
                 (C("get_weather", w_args, "call_r1"), C("get_time", t_args, "call_r2")),
                 note="a provider that sends index 0 for every call, with different ids")

    legacy_chunks = [_chunk("chatcmpl-fc", {"role": "assistant", "content": None,
                                            "function_call": {"name": "get_weather",
                                                              "arguments": ""}})]
    legacy_chunks += [_chunk("chatcmpl-fc", {"function_call": {"arguments": part}})
                      for part in _split('{"city": "Oslo"}', 5)]
    legacy_chunks += [_chunk("chatcmpl-fc", {}, "function_call"), _usage_chunk("chatcmpl-fc")]
    stream_forms("stream-legacy-function-call", legacy_chunks,
                 (C("get_weather", {"city": "Oslo"}),),
                 note="deprecated functions API streamed: delta.function_call pieces")

    s_a = _tool_stream("chatcmpl-turnA", _call_pieces(0, "call_a1", "get_weather", weather))
    s_b = _tool_stream("chatcmpl-turnB", _call_pieces(0, "call_b1", "get_time", time_args)
                       + _call_pieces(1, "call_b2", "get_weather", '{"city": "Lyon"}'))
    objs_a, sse_a = chat.stream(s_a)
    objs_b, sse_b = chat.stream(s_b)
    two_expected = (C("get_weather", w_args, "call_a1"), C("get_time", t_args, "call_b1"),
                    C("get_weather", {"city": "Lyon"}, "call_b2"))
    out += _forms(CHAT, "stream-two-completions", objs_a + objs_b, two_expected,
                  sse=sse_a + sse_b, sse_bytes=True,
                  note="two turns' chunks in one list, index restarting at 0, told apart "
                       "by chunk id; the SSE text has two data: [DONE] lines")

    stream_forms("stream-text-only", _text_stream("chatcmpl-st", "It is sunny in Paris."), (),
                 note="no call: []")

    stream_forms("stream-finish-tool-calls-without-calls",
                 _text_stream("chatcmpl-sm", "", finish="tool_calls"), None,
                 refusal=REFUSE_MISSING,
                 note="finish_reason tool_calls, no tool_calls delta at all: refused")

    n2_chunks = [_chunk("chatcmpl-sn2", choices=[
        {"index": 0, "delta": {"role": "assistant", "content": None}, "logprobs": None,
         "finish_reason": None},
        {"index": 1, "delta": {"role": "assistant", "content": ""}, "logprobs": None,
         "finish_reason": None}])]
    n2_chunks += [_chunk("chatcmpl-sn2", {"tool_calls": [p]}) for p in
                  _call_pieces(0, "call_sn1", "get_weather", weather)]
    n2_chunks += [_chunk("chatcmpl-sn2", {"content": "Sunny."}, index=1),
                  _chunk("chatcmpl-sn2", {}, "tool_calls"),
                  _chunk("chatcmpl-sn2", {}, "stop", index=1),
                  _usage_chunk("chatcmpl-sn2")]
    stream_forms("stream-n2-only-first-choice-has-calls", n2_chunks,
                 (C("get_weather", w_args, "call_sn1"),), n=2,
                 note="n=2 streamed: choice 1 is text; choice 0 reads normally")
    n2b = [n2_chunks[0]]
    n2b += [_chunk("chatcmpl-sn2", {"tool_calls": [p]}) for p in
            _call_pieces(0, "call_sn1", "get_weather", weather)]
    n2b += [_chunk("chatcmpl-sn2", {"tool_calls": [p]}, index=1) for p in
            _call_pieces(0, "call_sn2", "get_weather", '{"city": "Lyon"}')]
    n2b += [_chunk("chatcmpl-sn2", {}, "tool_calls"),
            _chunk("chatcmpl-sn2", {}, "tool_calls", index=1),
            _usage_chunk("chatcmpl-sn2")]
    stream_forms("stream-n2-both-choices-have-calls", n2b, None, refusal=REFUSE_ALTERNATIVES,
                 n=2, note="n=2 streamed, both choices call tools: refused")

    repeated = [_piece(0, "call_rn1", "get_weather", "")] + [
        _piece(0, None, "get_weather", part) for part in _split(weather)]
    stream_forms("stream-name-repeated-in-every-piece", _tool_stream("chatcmpl-rn", repeated),
                 (C("get_weather", w_args, "call_rn1"),),
                 note="some OpenAI-compatible servers repeat the name in every piece: "
                      "not appended")

    whole = [_piece(0, "call_wh1", "get_weather", weather), _piece(1, "call_wh2", "get_time",
                                                                    time_args)]
    stream_forms("stream-whole-calls-in-one-chunk", _tool_stream("chatcmpl-wh", whole,
                                                                 per_chunk=2),
                 (C("get_weather", w_args, "call_wh1"), C("get_time", t_args, "call_wh2")),
                 note="OpenAI-compatible servers that send each call whole in one chunk")

    truncated = _tool_stream("chatcmpl-tr", _call_pieces(0, "call_tr1", "get_weather",
                                                         '{"city": "Pa'), finish="length")
    stream_forms("stream-truncated-arguments", truncated,
                 (C("get_weather", {}, "call_tr1", '{"city": "Pa'),),
                 note="max_tokens hit mid-arguments (finish_reason length): kept raw")

    no_args = _tool_stream("chatcmpl-na", [_piece(0, "call_na1", "get_time", "")])
    stream_forms("stream-empty-arguments", no_args, (C("get_time", {}, "call_na1"),),
                 note="a call whose arguments never get any text")

    # --- the SDK's own stream accumulators -------------------------------------------------
    final = chat.stream_final(s_inter)
    out += _forms(CHAT, "stream-final-completion", final,
                  (C("get_weather", w_args, "call_i1"), C("get_time", t_args, "call_i2")),
                  note="client.chat.completions.stream(...).get_final_completion(): a "
                       "ParsedChatCompletion (tool calls carry parsed_arguments)")
    state = ChatCompletionStreamState()
    for chunk in chat.stream(s_b)[0]:
        state.handle_chunk(chunk)
    out += _forms(CHAT, "stream-state-final-completion", state.get_final_completion(),
                  two_expected[1:],
                  note="ChatCompletionStreamState().handle_chunk(...) then "
                       "get_final_completion()")
    return out


# ============================================================================================
# Responses
# ============================================================================================


def _response(response_id: str, output: list[dict[str, Any]], *, status: str = "completed",
              tools: list | None = None) -> dict[str, Any]:
    return {
        "id": response_id, "object": "response", "created_at": CREATED, "status": status,
        "background": False, "error": None, "incomplete_details": None, "instructions": None,
        "max_output_tokens": None, "model": RESP_MODEL, "output": output,
        "parallel_tool_calls": True, "previous_response_id": None,
        "reasoning": {"effort": None, "summary": None}, "service_tier": "default",
        "store": True, "temperature": 1.0,
        "text": {"format": {"type": "text"}, "verbosity": "medium"},
        "tool_choice": "auto", "tools": tools or [], "top_p": 1.0, "truncation": "disabled",
        "usage": {"input_tokens": 80, "input_tokens_details": {"cached_tokens": 0,
                                                               "cache_write_tokens": 0},
                  "output_tokens": 30, "output_tokens_details": {"reasoning_tokens": 0},
                  "total_tokens": 110},
        "user": None, "metadata": {},
    }


def _fc(n: str, name: str, arguments: str) -> dict[str, Any]:
    return {"type": "function_call", "id": f"fc_{n}", "call_id": f"call_{n}", "name": name,
            "arguments": arguments, "status": "completed"}


def _message(n: str, text: str) -> dict[str, Any]:
    return {"type": "message", "id": f"msg_{n}", "status": "completed", "role": "assistant",
            "content": [{"type": "output_text", "text": text, "annotations": [],
                         "logprobs": []}]}


def _reasoning(n: str) -> dict[str, Any]:
    return {"type": "reasoning", "id": f"rs_{n}", "summary": [
        {"type": "summary_text", "text": "The user wants the weather; call get_weather."}]}


def _strip_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_strip_nulls(v) for v in value]
    return value


def _hosted_call(item: dict[str, Any]) -> Call:
    """A hosted/built-in ``*_call`` item as SEMANTICS.md reads it (nulls dropped at every
    depth, so the SDK object, its model_dump and the raw API JSON give the same arguments)."""
    if "arguments" in item:  # tool_search_call: the item's own arguments
        arguments = item["arguments"]
    else:
        arguments = {k: _strip_nulls(v) for k, v in item.items()
                     if k not in HOSTED_EXCLUDED and v is not None}
    return Call(item["type"][: -len("_call")], arguments, item.get("call_id") or item["id"])


def _is_hosted(item: dict[str, Any]) -> bool:
    return item["type"] not in CLIENT_EXECUTED and item.get("execution") != "client"


# One raw item of every *_call output type in openai 3.57 (types.responses.ResponseOutputItem).
HOSTED_ITEMS: dict[str, dict[str, Any]] = {
    "web_search_call": {
        "type": "web_search_call", "id": "ws_1", "status": "completed",
        "action": {"type": "search", "query": "weather Paris today",
                   "sources": [{"type": "url", "url": "https://weather.example/paris"}]}},
    "file_search_call": {
        "type": "file_search_call", "id": "fs_1", "status": "completed",
        "queries": ["refund policy", "returns window"],
        "results": [{"file_id": "file-1", "filename": "policy.pdf", "score": 0.92,
                     "text": "Returns within 30 days.", "attributes": {}}]},
    "code_interpreter_call": {
        "type": "code_interpreter_call", "id": "ci_1", "status": "completed",
        "code": "import math\nprint(math.sqrt(2))", "container_id": "cntr_1",
        "outputs": [{"type": "logs", "logs": "1.4142135623730951\n"}]},
    "computer_call": {
        "type": "computer_call", "id": "cu_1", "call_id": "call_cu1", "status": "completed",
        "action": {"type": "click", "button": "left", "x": 156, "y": 302},
        "pending_safety_checks": []},
    "image_generation_call": {
        "type": "image_generation_call", "id": "ig_1", "status": "completed",
        "result": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
        "revised_prompt": "A watercolor of the Eiffel Tower at dusk",
        "action": "generate", "background": "opaque", "output_format": "png",
        "quality": "high", "size": "1024x1024"},
    "local_shell_call": {
        "type": "local_shell_call", "id": "lsh_1", "call_id": "call_lsh1",
        "status": "completed",
        "action": {"type": "exec", "command": ["ls", "-la", "/tmp"], "env": {"LANG": "C"},
                   "timeout_ms": 5000}},
    "shell_call": {
        "type": "shell_call", "id": "sh_1", "call_id": "call_sh1", "status": "completed",
        "action": {"commands": ["python --version", "pip list"], "timeout_ms": 10000,
                   "max_output_length": 4096}},
    "apply_patch_call": {
        "type": "apply_patch_call", "id": "apc_1", "call_id": "call_apc1",
        "status": "completed",
        "operation": {"type": "update_file", "path": "src/app.py",
                      "diff": "@@\n-print('hi')\n+print('hello')\n"}},
    "tool_search_call": {
        "type": "tool_search_call", "id": "tsc_1", "call_id": None, "status": "completed",
        "execution": "server", "arguments": {"query": "calendar tools"}},
}

MCP_CALL = {"type": "mcp_call", "id": "mcp_1", "server_label": "deepwiki",
            "name": "ask_question",
            "arguments": '{"repoName": "openai/openai-python", "question": "streaming?"}',
            "output": "Use stream=True.", "error": None, "approval_request_id": None,
            "status": "completed"}
MCP_CALL_EXPECTED = C("ask_question", {"repoName": "openai/openai-python",
                                       "question": "streaming?"}, "mcp_1")
MCP_LIST_TOOLS = {"type": "mcp_list_tools", "id": "mcpl_1", "server_label": "deepwiki",
                  "tools": [{"name": "ask_question", "description": "Ask about a repo",
                             "input_schema": {"type": "object", "properties": {
                                 "repoName": {"type": "string"},
                                 "question": {"type": "string"}}},
                             "annotations": {"read_only": True}}],
                  "error": None}
MCP_APPROVAL = {"type": "mcp_approval_request", "id": "mcpr_1", "server_label": "deepwiki",
                "name": "ask_question", "arguments": '{"repoName": "openai/openai-python"}'}
MCP_APPROVAL_EXPECTED = C("ask_question", {"repoName": "openai/openai-python"}, "mcpr_1")


class _Resp:
    def __init__(self) -> None:
        self.mock = _Mock()
        self.client = _sync_client(self.mock)

    def create(self, body: dict[str, Any]) -> Response:
        _check(Response, body, body["id"])
        self.mock.queue.append(body)
        return self.client.responses.create(model="gpt-4.1", input="Weather in Paris?")

    def stream(self, events: list[dict[str, Any]]) -> tuple[list[Any], str]:
        for e in events:
            _check(_EVENT_ADAPTER, e, f"event {e['type']}")
        sse = _sse_responses(events)
        self.mock.queue.append(sse.encode())
        return list(self.client.responses.create(model="gpt-4.1", input="Weather in Paris?",
                                                 stream=True)), sse

    def stream_final(self, events: list[dict[str, Any]]) -> Any:
        self.mock.queue.append(_sse_responses(events).encode())
        with self.client.responses.stream(model="gpt-4.1", input="Weather in Paris?") as s:
            for _ in s:
                pass
            return s.get_final_response()


class _EventAdapter:
    __name__ = "ResponseStreamEvent"

    def model_validate(self, data: Any) -> Any:
        import pydantic
        from openai.types.responses import ResponseStreamEvent

        return pydantic.TypeAdapter(ResponseStreamEvent).validate_python(data)


_EVENT_ADAPTER = _EventAdapter()


def _sse_responses(events: list[dict[str, Any]]) -> str:
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e, separators=(',', ':'))}\n\n"
                   for e in events)


def _response_events(response: dict[str, Any]) -> list[dict[str, Any]]:
    """The documented event sequence that streams ``response`` (function calls get
    argument deltas, messages text deltas, other items just added/done)."""
    seq = iter(range(10_000))
    pending = dict(response, status="in_progress", output=[], usage=None)
    events = [{"type": "response.created", "sequence_number": next(seq), "response": pending},
              {"type": "response.in_progress", "sequence_number": next(seq),
               "response": pending}]
    for i, item in enumerate(response["output"]):
        if item["type"] == "function_call":
            events.append({"type": "response.output_item.added", "sequence_number": next(seq),
                           "output_index": i,
                           "item": dict(item, arguments="", status="in_progress")})
            for part in _split(item["arguments"], 9):
                events.append({"type": "response.function_call_arguments.delta",
                               "sequence_number": next(seq), "item_id": item["id"],
                               "output_index": i, "delta": part})
            events.append({"type": "response.function_call_arguments.done",
                           "sequence_number": next(seq), "item_id": item["id"],
                           "output_index": i, "name": item["name"],
                           "arguments": item["arguments"]})
        elif item["type"] == "message":
            text = item["content"][0]["text"]
            events.append({"type": "response.output_item.added", "sequence_number": next(seq),
                           "output_index": i,
                           "item": dict(item, content=[], status="in_progress")})
            empty_part = {"type": "output_text", "text": "", "annotations": [], "logprobs": []}
            events.append({"type": "response.content_part.added", "sequence_number": next(seq),
                           "item_id": item["id"], "output_index": i, "content_index": 0,
                           "part": empty_part})
            for part in _split(text, 6):
                events.append({"type": "response.output_text.delta",
                               "sequence_number": next(seq), "item_id": item["id"],
                               "output_index": i, "content_index": 0, "delta": part,
                               "logprobs": []})
            events.append({"type": "response.output_text.done", "sequence_number": next(seq),
                           "item_id": item["id"], "output_index": i, "content_index": 0,
                           "text": text, "logprobs": []})
            events.append({"type": "response.content_part.done", "sequence_number": next(seq),
                           "item_id": item["id"], "output_index": i, "content_index": 0,
                           "part": item["content"][0]})
        else:
            events.append({"type": "response.output_item.added", "sequence_number": next(seq),
                           "output_index": i, "item": dict(item, status="in_progress")})
            if item["type"] == "web_search_call":
                for kind in ("in_progress", "searching", "completed"):
                    events.append({"type": f"response.web_search_call.{kind}",
                                   "sequence_number": next(seq), "item_id": item["id"],
                                   "output_index": i})
        events.append({"type": "response.output_item.done", "sequence_number": next(seq),
                       "output_index": i, "item": item})
    events.append({"type": "response.completed", "sequence_number": next(seq),
                   "response": response})
    return events


def _responses_scenarios() -> list[Scenario]:
    r = _Resp()
    out: list[Scenario] = []
    weather = '{"city": "Paris", "unit": "celsius"}'
    w_args = {"city": "Paris", "unit": "celsius"}
    hosted_names = {t[: -len("_call")] for t, item in HOSTED_ITEMS.items() if _is_hosted(item)}

    one = r.create(_response("resp_one", [_reasoning("1"), _fc("1", "get_weather", weather)]))
    out += _forms(RESP, "function-call", one, (C("get_weather", w_args, "call_1"),),
                  json_bytes=True, to_dict=True,
                  note="reasoning item then function_call; id is call_id, not fc_ id")

    par = r.create(_response("resp_par", [
        _fc("p1", "get_weather", weather),
        _fc("p2", "get_time", '{"tz": "Europe/Paris", "opts": {"seconds": true}}')]))
    out += _forms(RESP, "parallel-function-calls", par, (
        C("get_weather", w_args, "call_p1"),
        C("get_time", {"tz": "Europe/Paris", "opts": {"seconds": True}}, "call_p2")),
        note="two function_call items in one response")

    custom = r.create(_response("resp_custom", [
        {"type": "custom_tool_call", "id": "ctc_1", "call_id": "call_ct1",
         "name": "apply_diff", "input": "*** Begin Patch\n+hello\n*** End Patch"},
        _message("c", "Patched.")]))
    out += _forms(RESP, "custom-tool-call", custom, (
        C("apply_diff", {"input": "*** Begin Patch\n+hello\n*** End Patch"}, "call_ct1"),),
        to_dict=True, note="custom tool: free-text input")

    bad = r.create(_response("resp_bad", [
        _fc("b1", "get_weather", '{"city": "Par'), _fc("b2", "get_time", ""),
        _fc("b3", "get_weather", "[1, 2]")]))
    out += _forms(RESP, "function-call-bad-arguments", bad, (
        C("get_weather", {}, "call_b1", '{"city": "Par'), C("get_time", {}, "call_b2"),
        C("get_weather", {}, "call_b3", "[1, 2]")),
        note="truncated JSON and a JSON array kept raw; empty arguments give {} and no raw")

    mcp = r.create(_response("resp_mcp", [MCP_LIST_TOOLS, MCP_APPROVAL,
                                          dict(MCP_CALL, approval_request_id="mcpr_1"),
                                          _message("m", "Use stream=True.")]))
    out += _forms(RESP, "mcp-list-approval-call", mcp, (MCP_CALL_EXPECTED,), to_dict=True,
                  note="mcp_list_tools is not a call; the approval request answered by the "
                       "mcp_call (approval_request_id) is that call's earlier view; mcp_call is "
                       "the call (id = item id)")
    out += _forms(RESP, "mcp-list-approval-call-no-hosted", mcp, (MCP_CALL_EXPECTED,),
                  object_form=False, options={"hosted_tools": False},
                  note="mcp_call is kept with hosted_tools=False")

    approval_only = r.create(_response("resp_appr", [MCP_LIST_TOOLS, MCP_APPROVAL]))
    out += _forms(RESP, "mcp-approval-request-only", approval_only, (MCP_APPROVAL_EXPECTED,),
                  note="a pending approval request names the tool and arguments the model "
                       "chose: the agent's call, even before it is approved")

    failed_mcp = dict(MCP_CALL, id="mcp_2", output=None, status="failed",
                      error={"type": "mcp_tool_execution_error", "content": [
                          {"type": "text", "text": "repo not found"}]})
    failed = r.create(_response("resp_mcpf", [failed_mcp]))
    out += _forms(RESP, "mcp-call-failed", failed,
                  (C("ask_question", MCP_CALL_EXPECTED.arguments, "mcp_2"),),
                  note="a failed mcp_call is still a call")

    for kind, item in HOSTED_ITEMS.items():
        name = kind.replace("_", "-")
        resp = r.create(_response(f"resp_{kind}", [item, _message(kind, "Done.")]))
        out += _forms(RESP, name, resp, (_hosted_call(item),),
                      note=f"hosted tool {kind}: name without _call, arguments = fields "
                           "minus type/id/call_id/status/result fields/nulls")
        if _is_hosted(item):
            out += _forms(RESP, f"{name}-no-hosted", resp, (), object_form=False,
                          options={"hosted_tools": False},
                          note=f"{kind} left out with hosted_tools=False")
        else:
            out += _forms(RESP, f"{name}-no-hosted", resp, (_hosted_call(item),),
                          object_form=False, options={"hosted_tools": False},
                          note=f"{kind}: a built-in tool the developer's code runs, kept with "
                               "hosted_tools=False")
    client_search = dict(HOSTED_ITEMS["tool_search_call"], id="tsc_2", call_id="call_ts2",
                         execution="client", arguments={"goal": "a weather tool"})
    resp = r.create(_response("resp_client_search", [client_search]))
    out += _forms(RESP, "tool-search-client-no-hosted", resp,
                  (C("tool_search", {"goal": "a weather tool"}, "call_ts2"),), object_form=False,
                  options={"hosted_tools": False},
                  note="execution 'client': the developer runs the search, so the call is kept "
                       "with hosted_tools=False; arguments are the item's own")

    all_items = [_reasoning("a"), MCP_LIST_TOOLS, *HOSTED_ITEMS.values(),
                 _fc("a1", "get_weather", weather),
                 {"type": "custom_tool_call", "id": "ctc_a", "call_id": "call_cta",
                  "name": "apply_diff", "input": "+x"},
                 MCP_APPROVAL, MCP_CALL, _message("a", "All done.")]
    every = r.create(_response("resp_all", all_items))
    every_expected = tuple(
        _hosted_call(i) for i in HOSTED_ITEMS.values()) + (
        C("get_weather", w_args, "call_a1"), C("apply_diff", {"input": "+x"}, "call_cta"),
        MCP_APPROVAL_EXPECTED, MCP_CALL_EXPECTED)
    out += _forms(RESP, "every-item-type", every, every_expected, json_bytes=True,
                  to_dict=True, note="every *_call output type of the SDK in one response, "
                                     "in output order")
    out += _forms(RESP, "every-item-type-no-hosted", every,
                  _no_hosted(every_expected, hosted_names), options={"hosted_tools": False},
                  note="hosted_tools=False keeps function_call, custom_tool_call, mcp_call")

    ws_only = r.create(_response("resp_ws", [HOSTED_ITEMS["web_search_call"],
                                             _message("ws", "It is 18 degrees in Paris.")],
                                 tools=[{"type": "web_search", "search_context_size": "medium",
                                         "user_location": None}]))
    ws_expected = (_hosted_call(HOSTED_ITEMS["web_search_call"]),)
    out += _forms(RESP, "web-search-and-message", ws_only, ws_expected, json_bytes=True,
                  to_dict=True,
                  note="only a web_search_call and a message; the top-level 'text' key made "
                       "today's reader send it to the Gemini reader")
    out += _forms(RESP, "web-search-and-message-no-hosted", ws_only, (), object_form=False,
                  options={"hosted_tools": False}, note="hosted_tools=False: []")

    text = r.create(_response("resp_text", [_reasoning("t"), _message("t", "Hello!")]))
    out += _forms(RESP, "reasoning-and-message", text, (), note="no call: []")

    outputs = r.create(_response("resp_outs", [
        {"type": "function_call_output", "id": "fco_1", "call_id": "call_x", "output": "18",
         "status": "completed"},
        {"type": "compaction", "id": "cmp_1", "encrypted_content": "gAAAA..."},
        _message("o", "ok")]))
    out += _forms(RESP, "outputs-and-compaction-only", outputs, (),
                  note="function_call_output and compaction items are not calls")

    program = r.create(_response("resp_prog", [
        {"type": "program", "id": "prog_1", "call_id": "call_prog1",
         "code": "const w = await tools.get_weather({city: 'Paris'}); return w;",
         "fingerprint": "fp_1"},
        dict(_fc("pg1", "get_weather", '{"city": "Paris"}'),
             caller={"type": "program", "caller_id": "call_prog1"}),
        {"type": "program_output", "id": "progo_1", "call_id": "call_prog1",
         "result": "18", "status": "completed"},
        _message("pg", "18 degrees.")]))
    out += _forms(RESP, "programmatic-tool-calling", program,
                  (C("program", {"code": "const w = await tools.get_weather({city: 'Paris'}); "
                                          "return w;"}, "call_prog1"),
                   C("get_weather", {"city": "Paris"}, "call_pg1")),
                  note="a 'program' item (programmatic tool calling: code the model wrote, run by "
                       "the API) is a hosted call, as a code_interpreter_call is; the "
                       "function_call the program made (caller.type program) is a call too")
    out += _forms(RESP, "programmatic-tool-calling-no-hosted", program,
                  (C("get_weather", {"city": "Paris"}, "call_pg1"),), object_form=False,
                  options={"hosted_tools": False},
                  note="hosted_tools=False leaves out the program, keeps the call it made")

    # --- a list of responses, one per turn --------------------------------------------------
    turns = [
        r.create(_response("resp_t1", [_reasoning("t1"), _fc("t1", "get_weather", weather)])),
        r.create(_response("resp_t2", [HOSTED_ITEMS["web_search_call"],
                                       _fc("t2", "get_time", '{"tz": "UTC"}'),
                                       {"type": "custom_tool_call", "id": "ctc_t3",
                                        "call_id": "call_t3", "name": "apply_diff",
                                        "input": "+y"}])),
        r.create(_response("resp_t3", [_message("t3", "Done.")])),
    ]
    turns_expected = (C("get_weather", w_args, "call_t1"),
                      _hosted_call(HOSTED_ITEMS["web_search_call"]),
                      C("get_time", {"tz": "UTC"}, "call_t2"),
                      C("apply_diff", {"input": "+y"}, "call_t3"))
    out += _forms(RESP, "turns", turns, turns_expected, json_bytes=True, to_dict=True,
                  note="a list of Response objects, one per turn")
    out += _forms(RESP, "turns-no-hosted", turns, _no_hosted(turns_expected, hosted_names),
                  object_form=False, options={"hosted_tools": False})

    # --- input-item conversations ------------------------------------------------------------
    items = [
        {"role": "developer", "content": "You are a travel assistant."},
        {"role": "user", "content": "Weather and time in Paris?"},
        {"type": "function_call", "call_id": "call_i1", "name": "get_weather",
         "arguments": weather},
        {"type": "function_call", "call_id": "call_i2", "name": "get_time",
         "arguments": '{"tz": "Europe/Paris"}'},
        {"type": "function_call_output", "call_id": "call_i1", "output": '{"temp": 18}'},
        {"type": "function_call_output", "call_id": "call_i2", "output": "14:05"},
        {"role": "assistant", "content": "18 degrees at 14:05."},
        {"role": "user", "content": [{"type": "input_text", "text": "Patch the app."}]},
        {"type": "custom_tool_call", "call_id": "call_i3", "name": "apply_diff",
         "input": "+z"},
        {"type": "custom_tool_call_output", "call_id": "call_i3", "output": "ok"},
        {"type": "message", "role": "assistant",
         "content": [{"type": "output_text", "text": "Patched."}]},
    ]
    items_expected = (C("get_weather", w_args, "call_i1"),
                      C("get_time", {"tz": "Europe/Paris"}, "call_i2"),
                      C("apply_diff", {"input": "+z"}, "call_i3"))
    out.append(Scenario(RESP, "dump", "input-items", items, items_expected,
                        note="input items as users write them: easy messages, function_call "
                             "and function_call_output items (no item id)"))
    out.append(Scenario(RESP, "json", "input-items", json.dumps(items), items_expected))
    out.append(Scenario(RESP, "json", "input-items-bytes", json.dumps(items).encode(),
                        items_expected))

    typed = [
        EasyInputMessageParam(role="user", content="Weather in Paris?"),
        ResponseFunctionToolCallParam(type="function_call", call_id="call_i1",
                                      name="get_weather", arguments=weather),
        FunctionCallOutput(type="function_call_output", call_id="call_i1",
                           output='{"temp": 18}'),
        EasyInputMessageParam(role="assistant", content="18 degrees."),
    ]
    out.append(Scenario(RESP, "dump", "input-items-typeddicts", typed,
                        (C("get_weather", w_args, "call_i1"),),
                        note="built with the SDK's *Param TypedDicts (plain dicts)"))

    # The documented loop: input_list += response.output; then function_call_output dicts.
    loop: list[Any] = [{"role": "user", "content": "Weather in Paris?"}]
    loop += turns[0].output
    loop.append({"type": "function_call_output", "call_id": "call_t1", "output": '{"t": 18}'})
    loop += turns[1].output
    loop += [{"type": "function_call_output", "call_id": "call_t2", "output": "14:05"},
             {"type": "custom_tool_call_output", "call_id": "call_t3", "output": "ok"}]
    loop += turns[2].output
    out.append(Scenario(RESP, "list", "input-items-with-output-objects", loop, turns_expected,
                        note="input_list += response.output: pydantic output items (reasoning, "
                             "web_search_call, function_call...) mixed with dicts"))
    out.append(Scenario(RESP, "list", "input-items-with-output-objects-no-hosted", loop,
                        _no_hosted(turns_expected, hosted_names),
                        options={"hosted_tools": False}))

    listed_items = [
        dict(_message("u", "Weather in Paris?"), role="user", id="msg_u",
             content=[{"type": "input_text", "text": "Weather in Paris?"}]),
        _fc("l1", "get_weather", weather),
        {"type": "function_call_output", "id": "fco_l1", "call_id": "call_l1",
         "output": '{"temp": 18}', "status": "completed"},
    ]
    r.mock.queue.append({"object": "list", "data": listed_items, "first_id": "msg_u",
                         "last_id": "fco_l1", "has_more": False})
    page = r.client.responses.input_items.list("resp_one")
    out += _forms(RESP, "input-items-listed", list(page.data),
                  (C("get_weather", w_args, "call_l1"),),
                  note="client.responses.input_items.list(...).data: ResponseItem objects")

    # --- streams ----------------------------------------------------------------------------
    stream_resp = _response("resp_stream", [_reasoning("s"), _fc("s1", "get_weather", weather),
                                            _fc("s2", "get_time", '{"tz": "UTC"}')])
    events, sse = r.stream(_response_events(stream_resp))
    stream_expected = (C("get_weather", w_args, "call_s1"), C("get_time", {"tz": "UTC"},
                                                               "call_s2"))
    out += _forms(RESP, "stream-function-calls", events, stream_expected, sse=sse,
                  sse_bytes=True, json_bytes=True,
                  note="client.responses.create(stream=True) events: output_item.added, "
                       "function_call_arguments.delta/done, ..., response.completed")

    ws_stream = _response("resp_wss", [HOSTED_ITEMS["web_search_call"],
                                       _message("wss", "It is 18 degrees.")])
    events2, sse2 = r.stream(_response_events(ws_stream))
    out += _forms(RESP, "stream-web-search-and-message", events2, ws_expected, sse=sse2,
                  note="streamed hosted call + text")
    out += _forms(RESP, "stream-web-search-and-message-no-hosted", events2, (),
                  object_form=False, options={"hosted_tools": False})

    text_stream = _response("resp_ts", [_message("ts", "Hello there!")])
    events3, sse3 = r.stream(_response_events(text_stream))
    out += _forms(RESP, "stream-text-only", events3, (), sse=sse3, note="no call: []")

    final = r.stream_final(_response_events(stream_resp))
    out += _forms(RESP, "stream-final-response", final, stream_expected,
                  note="client.responses.stream(...).get_final_response(): ParsedResponse "
                       "(function calls carry parsed_arguments)")
    return out


# ============================================================================================
# Agents SDK
# ============================================================================================


def _run_async(coro_factory: Callable[[], Any]) -> Any:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro_factory())
    with concurrent.futures.ThreadPoolExecutor(1) as pool:  # called from inside a loop
        return pool.submit(lambda: asyncio.run(coro_factory())).result()


def _agent_runs() -> dict[str, tuple[Any, tuple[Call, ...]]]:
    from agents import (
        Agent,
        OpenAIChatCompletionsModel,
        OpenAIResponsesModel,
        Runner,
        WebSearchTool,
        function_tool,
        set_tracing_disabled,
    )

    set_tracing_disabled(True)

    @function_tool
    def get_weather(city: str) -> str:
        """The weather in a city."""
        return f"18 degrees in {city}"

    @function_tool
    def get_time(tz: str) -> str:
        """The time in a time zone."""
        return f"14:05 {tz}"

    weather = '{"city": "Paris"}'
    runs: dict[str, tuple[Any, tuple[Call, ...]]] = {}

    async def run(model_kind: str, bodies: list[dict[str, Any]], tools: list) -> Any:
        mock = _Mock()
        mock.queue.extend(bodies)
        client = _async_client(mock)
        model = (OpenAIResponsesModel(model="gpt-4.1", openai_client=client)
                 if model_kind == "responses"
                 else OpenAIChatCompletionsModel(model="gpt-4o", openai_client=client))
        agent = Agent(name="travel", instructions="Help with travel.", tools=tools,
                      model=model)
        return await Runner.run(agent, "Weather and time in Paris?")

    async def all_runs() -> None:
        res = await run("responses", [
            _response("resp_a1", [_fc("ag1", "get_weather", weather)]),
            _response("resp_a2", [_message("ag", "18 degrees in Paris.")])], [get_weather])
        runs["responses-one-call"] = (res, (C("get_weather", {"city": "Paris"}, "call_ag1"),))

        res = await run("responses", [
            _response("resp_b1", [_reasoning("b"), _fc("bg1", "get_weather", weather),
                                  _fc("bg2", "get_time", '{"tz": "Europe/Paris"}')]),
            _response("resp_b2", [_message("bg", "18 degrees, 14:05.")])],
            [get_weather, get_time])
        runs["responses-parallel-calls"] = (res, (
            C("get_weather", {"city": "Paris"}, "call_bg1"),
            C("get_time", {"tz": "Europe/Paris"}, "call_bg2")))

        res = await run("responses", [
            _response("resp_c1", [HOSTED_ITEMS["web_search_call"],
                                  _message("cw", "It is 18 degrees.")])],
            [WebSearchTool()])
        runs["responses-web-search"] = (res, (_hosted_call(HOSTED_ITEMS["web_search_call"]),))

        res = await run("chat", [
            _completion("chatcmpl-ag1", _assistant(tool_calls=[
                _fn("call_cg1", "get_weather", weather)])),
            _completion("chatcmpl-ag2", _assistant("18 degrees in Paris."))], [get_weather])
        runs["chat-one-call"] = (res, (C("get_weather", {"city": "Paris"}, "call_cg1"),))

        res = await run("chat", [
            _completion("chatcmpl-ag3", _assistant(tool_calls=[
                _fn("call_cg2", "get_weather", weather),
                _fn("call_cg3", "get_time", '{"tz": "Europe/Paris"}')])),
            _completion("chatcmpl-ag4", _assistant("18 degrees, 14:05."))],
            [get_weather, get_time])
        runs["chat-parallel-calls"] = (res, (
            C("get_weather", {"city": "Paris"}, "call_cg2"),
            C("get_time", {"tz": "Europe/Paris"}, "call_cg3")))

    _run_async(all_runs)
    return runs


def _agents_scenarios() -> list[Scenario]:
    out: list[Scenario] = []
    for name, (result, expected) in _agent_runs().items():
        opts = {}
        variants: list[tuple[str, str, Any, str]] = [
            ("object", "run-result", result,
             "the RunResult itself (new_items, raw_responses, to_input_list())"),
            ("object", "new-items", list(result.new_items),
             "RunItem dataclasses (ToolCallItem.raw_item is the pydantic output item; "
             "ToolCallOutputItem.raw_item is a dict)"),
            ("list", "new-items-raw", [item.raw_item for item in result.new_items],
             "[item.raw_item for item in result.new_items]: pydantic items and dicts"),
            ("dump", "new-items-input", [item.to_input_item() for item in result.new_items],
             "[item.to_input_item() for item in result.new_items]"),
            ("object", "raw-responses", list(result.raw_responses),
             "ModelResponse pydantic dataclasses, each with .output items"),
            ("dump", "to-input-list", result.to_input_list(),
             "result.to_input_list(): the user message, function_call, "
             "function_call_output and message items as dicts"),
            ("json", "to-input-list", json.dumps(result.to_input_list()), ""),
        ]
        if name == "responses-one-call":
            variants.append(("json", "to-input-list-bytes",
                             json.dumps(result.to_input_list(), indent=2).encode(), ""))
        for form, kind, payload, note in variants:
            out.append(Scenario(AGENTS, form, f"{name}-{kind}", payload, expected, None,
                                dict(opts), note))
        if name == "responses-web-search":
            for form, kind, payload, note in variants:
                out.append(Scenario(AGENTS, form, f"{name}-{kind}-no-hosted", payload, (),
                                    None, {"hosted_tools": False}, note))
    return out


# ============================================================================================
# scenarios
# ============================================================================================


def scenarios() -> list[Scenario]:
    return _chat_scenarios() + _responses_scenarios() + _agents_scenarios()


# ============================================================================================
# writers: conversations as turns of Call -> one real form of the format
# ============================================================================================


def _ids(turns: list[list[Call]], prefix: str) -> list[list[tuple[Call, str, str]]]:
    """(call, call id, item id) with deterministic ids where the call has none."""
    return [[(call, call.id if call.id else f"{prefix}_{t}_{i}", f"fc_{t}_{i}")
             for i, call in enumerate(turn)] for t, turn in enumerate(turns)]


def _expect(call: Call, call_id: str | None) -> Call:
    return Call(call.name if call.name else "<unnamed>", dict(call.arguments or {}), call_id)


def _args(call: Call) -> str:
    return json.dumps(call.arguments or {})


def _chat_completion_bodies(turns: list[list[Call]]) -> tuple[list[dict], tuple[Call, ...]]:
    bodies, expected = [], []
    for t, turn in enumerate(_ids(turns, "call")):
        if turn:
            message = _assistant(tool_calls=[_fn(cid, c.name, _args(c)) for c, cid, _ in turn])
        else:
            message = _assistant(f"Turn {t}: no tool needed.")
        bodies.append(_completion(f"chatcmpl-w{t}", message))
        expected += [_expect(c, cid) for c, cid, _ in turn]
    return bodies, tuple(expected)


def write_chat_completions_per_turn(turns: list[list[Call]]):
    bodies, expected = _chat_completion_bodies(turns)
    return [ChatCompletion.model_validate(b) for b in bodies], expected


def write_chat_completions_per_turn_dump(turns: list[list[Call]]):
    objects, expected = write_chat_completions_per_turn(turns)
    return [o.model_dump(mode="json") for o in objects], expected


def _chat_stream_chunks(turns: list[list[Call]]) -> tuple[list[dict], tuple[Call, ...]]:
    chunks, expected = [], []
    for t, turn in enumerate(_ids(turns, "call")):
        cid = f"chatcmpl-ws{t}"
        if turn:
            pieces = []
            for i, (c, call_id, _) in enumerate(turn):
                pieces += _call_pieces(i, call_id, c.name, _args(c), size=5 + (i % 4))
            chunks += _tool_stream(cid, pieces)
        else:
            chunks += _text_stream(cid, f"Turn {t}: no tool needed.")
        expected += [_expect(c, call_id) for c, call_id, _ in turn]
    return chunks, tuple(expected)


def write_chat_stream(turns: list[list[Call]]):
    chunks, expected = _chat_stream_chunks(turns)
    return [ChatCompletionChunk.model_validate(c) for c in chunks], expected


def write_chat_stream_sse(turns: list[list[Call]]):
    chunks, expected = _chat_stream_chunks(turns)
    per_completion: dict[str, list[dict]] = {}
    for c in chunks:
        per_completion.setdefault(c["id"], []).append(c)
    return "".join(_sse_chat(cs) for cs in per_completion.values()), expected


def write_chat_conversation(turns: list[list[Call]]):
    messages: list[dict[str, Any]] = [
        ChatCompletionSystemMessageParam(role="system", content="You are helpful."),
        ChatCompletionUserMessageParam(role="user", content=[
            ChatCompletionContentPartTextParam(type="text", text="Please help.")]),
    ]
    expected = []
    for t, turn in enumerate(_ids(turns, "call")):
        if turn:
            messages.append(ChatCompletionAssistantMessageParam(
                role="assistant", content=None, tool_calls=[
                    ChatCompletionMessageFunctionToolCallParam(
                        id=cid, type="function",
                        function={"name": c.name, "arguments": _args(c)})
                    for c, cid, _ in turn]))
            messages += [ChatCompletionToolMessageParam(role="tool", tool_call_id=cid,
                                                        content=f"result {t}.{i}")
                         for i, (_, cid, _) in enumerate(turn)]
        else:
            messages.append(ChatCompletionAssistantMessageParam(
                role="assistant", content=f"Turn {t}: no tool needed."))
            messages.append(ChatCompletionUserMessageParam(role="user", content="Go on."))
        expected += [_expect(c, cid) for c, cid, _ in turn]
    return messages, tuple(expected)


def write_responses_per_turn(turns: list[list[Call]]):
    responses, expected = [], []
    for t, turn in enumerate(_ids(turns, "call")):
        output = [{"type": "function_call", "id": iid, "call_id": cid, "name": c.name,
                   "arguments": _args(c), "status": "completed"} for c, cid, iid in turn]
        if not turn:
            output = [_message(f"w{t}", f"Turn {t}: no tool needed.")]
        responses.append(Response.model_validate(_response(f"resp_w{t}", output)))
        expected += [_expect(c, cid) for c, cid, _ in turn]
    return responses, tuple(expected)


def write_responses_per_turn_dump(turns: list[list[Call]]):
    objects, expected = write_responses_per_turn(turns)
    return [o.model_dump(mode="json") for o in objects], expected


def write_responses_input_items(turns: list[list[Call]]):
    items: list[dict[str, Any]] = [EasyInputMessageParam(role="user", content="Please help.")]
    expected = []
    for t, turn in enumerate(_ids(turns, "call")):
        items += [ResponseFunctionToolCallParam(type="function_call", call_id=cid, name=c.name,
                                                arguments=_args(c)) for c, cid, _ in turn]
        items += [FunctionCallOutput(type="function_call_output", call_id=cid,
                                     output=f"result {t}.{i}")
                  for i, (_, cid, _) in enumerate(turn)]
        if not turn:
            items.append(EasyInputMessageParam(role="assistant",
                                               content=f"Turn {t}: no tool needed."))
        expected += [_expect(c, cid) for c, cid, _ in turn]
    return items, tuple(expected)


def writers() -> dict[str, Callable[[list[list[Call]]], tuple[object, tuple[Call, ...]]]]:
    return {
        "chat_completions_per_turn": write_chat_completions_per_turn,
        "chat_completions_per_turn_dump": write_chat_completions_per_turn_dump,
        "chat_stream": write_chat_stream,
        "chat_stream_sse": write_chat_stream_sse,
        "chat_conversation": write_chat_conversation,
        "responses_per_turn": write_responses_per_turn,
        "responses_per_turn_dump": write_responses_per_turn_dump,
        "responses_input_items": write_responses_input_items,
    }
