"""LangChain payloads built with the real langchain-core (1.8), offline.

Provider "langchain". What is built here, and how:

* ``AIMessage`` objects the way the provider integrations build them. The
  OpenAI ones start as a real ``ChatCompletion`` / ``ChatCompletionChunk``
  stream from the ``openai`` SDK talking to an ``httpx2.MockTransport``; the
  Anthropic ones as a real ``anthropic`` ``Message``. The conversion into
  LangChain messages builds the fields the provider integrations document
  (they are not installed; our own code, using langchain-core's
  ``parse_tool_call`` / ``make_invalid_tool_call`` / ``tool_call_chunk``),
  and every message is then passed through a real
  ``BaseChatModel`` (``invoke`` / ``stream``) so LangChain itself assigns ids,
  response metadata, the ``chunk_position="last"`` chunk and the v1 content.
* streams: lists of ``AIMessageChunk`` as ``BaseChatModel.stream`` yields
  them. Expected calls are CHECKED at build time against
  ``functools.reduce(operator.add, chunks)`` (LangChain's own merge).
* serialized forms: ``model_dump()``, ``model_dump_json()``,
  ``message_to_dict`` / ``messages_to_dict``, ``langchain_core.load.dumpd`` /
  ``dumps``, and lists mixing objects and dicts.

Ordering rule used for ``expected`` (SEMANTICS.md, LangChain): per AI
message, ``tool_calls`` first, then ``invalid_tool_calls``; hosted
(server-side) tool calls found only in ``content`` blocks are placed in
content order (see FINDINGS.md).
"""

from __future__ import annotations

import copy
import functools
import json
import operator
import uuid
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import httpx2
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.language_models.fake_chat_models import (
    FakeMessagesListChatModel,
    GenericFakeChatModel,
)
from langchain_core.load import dumpd, dumps
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    message_to_dict,
    messages_to_dict,
)
from langchain_core.messages.tool import tool_call_chunk
from langchain_core.output_parsers.openai_tools import make_invalid_tool_call, parse_tool_call
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from pydantic import Field

from payloads._scenario import Call, Scenario

PROVIDER = "langchain"
_CREATED = 1_735_689_600  # 2025-01-01T00:00:00Z, fixed
_OPENAI_MODEL = "gpt-4o-mini-2024-07-18"
_ANTHROPIC_MODEL = "claude-sonnet-4-20250514"


def _run_id(n: int) -> uuid.UUID:
    return uuid.UUID(int=0xC0FFEE_0000 + n)


# ------------------------------------------------------------------------------------------
# Real SDK clients on a mock transport
# ------------------------------------------------------------------------------------------


class _Replay:
    """A handler for httpx2.MockTransport that answers with the next queued body."""

    def __init__(self) -> None:
        self.queue: list[tuple[bytes, str]] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        body, ctype = self.queue.pop(0)
        return httpx2.Response(200, content=body, headers={"content-type": ctype})


_REPLAY = _Replay()


@functools.cache
def _clients() -> tuple[Any, Any]:
    """The real openai and anthropic clients on the mock transport (imported lazily: the
    writers do not need them, and importing anthropic alone takes about a second)."""
    import anthropic
    import openai

    return (
        openai.OpenAI(api_key="sk-test", base_url="http://test/v1",
                      http_client=openai.DefaultHttpxClient(
                          transport=httpx2.MockTransport(_REPLAY))),
        anthropic.Anthropic(api_key="sk-ant-test", base_url="http://test",
                            http_client=anthropic.DefaultHttpxClient(
                                transport=httpx2.MockTransport(_REPLAY))),
    )


def _openai_completion(message: dict[str, Any], finish_reason: str, rid: str) -> dict[str, Any]:
    """A ChatCompletion from the openai SDK, dumped as langchain-openai dumps it."""
    body = {
        "id": rid,
        "object": "chat.completion",
        "created": _CREATED,
        "model": _OPENAI_MODEL,
        "system_fingerprint": "fp_0123456789",
        "service_tier": "default",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": None,
                                             "refusal": None, **message},
                     "logprobs": None, "finish_reason": finish_reason}],
        "usage": {"prompt_tokens": 80, "completion_tokens": 20, "total_tokens": 100},
    }
    _REPLAY.queue.append((json.dumps(body).encode(), "application/json"))
    completion = _clients()[0].chat.completions.create(
        model=_OPENAI_MODEL, messages=[{"role": "user", "content": "hi"}]
    )
    return completion.model_dump()


def _openai_stream(deltas: Sequence[tuple[dict[str, Any] | None, str | None]], rid: str,
                   usage: bool = True) -> list[dict[str, Any]]:
    """chat.completion.chunk objects from the openai SDK's own SSE stream, dumped.

    ``deltas``: (delta, finish_reason) per chunk; a delta of None makes a
    ``choices: []`` chunk."""
    lines = []
    for delta, finish in deltas:
        chunk = {"id": rid, "object": "chat.completion.chunk", "created": _CREATED,
                 "model": _OPENAI_MODEL, "system_fingerprint": "fp_0123456789",
                 "service_tier": "default",
                 "choices": [] if delta is None else [
                     {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]}
        lines.append(chunk)
    if usage:
        lines.append({"id": rid, "object": "chat.completion.chunk", "created": _CREATED,
                      "model": _OPENAI_MODEL, "system_fingerprint": "fp_0123456789",
                      "service_tier": "default", "choices": [],
                      "usage": {"prompt_tokens": 80, "completion_tokens": 20,
                                "total_tokens": 100}})
    sse = "".join(f"data: {json.dumps(c)}\n\n" for c in lines) + "data: [DONE]\n\n"
    _REPLAY.queue.append((sse.encode(), "text/event-stream"))
    stream = _clients()[0].chat.completions.create(
        model=_OPENAI_MODEL, messages=[{"role": "user", "content": "hi"}], stream=True,
        stream_options={"include_usage": True},
    )
    return [c.model_dump() for c in stream]


def _anthropic_message(content: list[dict[str, Any]], stop_reason: str, rid: str) -> dict:
    body = {"id": rid, "type": "message", "role": "assistant", "model": _ANTHROPIC_MODEL,
            "content": content, "stop_reason": stop_reason, "stop_sequence": None,
            "usage": {"input_tokens": 120, "output_tokens": 40}}
    _REPLAY.queue.append((json.dumps(body).encode(), "application/json"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        message = _clients()[1].messages.create(
            model=_ANTHROPIC_MODEL, max_tokens=512, messages=[{"role": "user", "content": "hi"}]
        )
    return message.model_dump()


# ------------------------------------------------------------------------------------------
# Provider payloads into LangChain messages. The provider integrations are not
# installed; these build the same message fields they document (tool calls
# parsed with langchain-core's own helpers), in code of our own.
# ------------------------------------------------------------------------------------------


def _usage(usage: dict[str, Any] | None, prompt: str, completion: str) -> dict[str, int] | None:
    if not usage:
        return None
    spent = {"input_tokens": usage[prompt], "output_tokens": usage[completion]}
    return {**spent, "total_tokens": spent["input_tokens"] + spent["output_tokens"]}


def _parsed_calls(raw_calls: list[dict[str, Any]]) -> tuple[list[Any], list[Any]]:
    """OpenAI tool calls as LangChain's valid and invalid tool calls."""
    valid: list[Any] = []
    invalid: list[Any] = []
    for raw in raw_calls:
        try:
            valid.append(parse_tool_call(raw, return_id=True))
        except Exception as error:
            invalid.append(make_invalid_tool_call(raw, str(error)))
    return valid, invalid


def _lc_from_openai(resp: dict[str, Any], *, v0_additional_kwargs: bool = False) -> AIMessage:
    """A chat completion as an AIMessage. ``v0_additional_kwargs`` also keeps
    the raw OpenAI ``tool_calls`` in ``additional_kwargs``, as 0.x releases of
    the integration did."""
    choice = resp["choices"][0]
    message = choice["message"]
    raw_calls = message.get("tool_calls") or []
    valid, invalid = _parsed_calls(raw_calls)
    extras: dict[str, Any] = {"refusal": message.get("refusal")}
    if raw_calls and v0_additional_kwargs:
        extras["tool_calls"] = raw_calls
    if message.get("function_call"):
        extras["function_call"] = dict(message["function_call"])
    metadata = {key: resp.get(key) for key in ("system_fingerprint", "id", "service_tier")}
    metadata.update(token_usage=resp["usage"], model_name=resp["model"], logprobs=None,
                    finish_reason=choice["finish_reason"], model_provider="openai")
    return AIMessage(content=message.get("content") or "", additional_kwargs=extras,
                     response_metadata=metadata, id=resp["id"], tool_calls=valid,
                     invalid_tool_calls=invalid,
                     usage_metadata=_usage(resp["usage"], "prompt_tokens", "completion_tokens"))


def _piece_chunks(raw_pieces: list[dict[str, Any]]) -> list[Any]:
    """Streamed OpenAI tool-call pieces as LangChain tool_call_chunks (none when a
    piece lacks its index key altogether)."""
    if any("index" not in piece for piece in raw_pieces):
        return []
    return [tool_call_chunk(name=(piece.get("function") or {}).get("name"),
                            args=(piece.get("function") or {}).get("arguments"),
                            id=piece.get("id"), index=piece["index"])
            for piece in raw_pieces]


def _lc_chunks_from_openai(chunks: list[dict[str, Any]], *,
                           v0_additional_kwargs: bool = False) -> list[ChatGenerationChunk]:
    """Each streamed chat completion chunk as a ChatGenerationChunk."""
    out = []
    for chunk in chunks:
        if not chunk["choices"]:  # the usage chunk
            out.append(ChatGenerationChunk(message=AIMessageChunk(
                content="", usage_metadata=_usage(chunk.get("usage"), "prompt_tokens",
                                                  "completion_tokens"))))
            continue
        choice = chunk["choices"][0]
        delta = choice["delta"]
        raw_pieces = delta.get("tool_calls") or []
        extras = {"tool_calls": raw_pieces} if raw_pieces and v0_additional_kwargs else {}
        message = AIMessageChunk(content=delta.get("content") or "", additional_kwargs=extras,
                                 id=delta.get("id"), tool_call_chunks=_piece_chunks(raw_pieces))
        info: dict[str, Any] = {}
        if choice.get("finish_reason"):
            info = {"finish_reason": choice["finish_reason"], "model_name": chunk["model"],
                    "system_fingerprint": chunk["system_fingerprint"],
                    "service_tier": chunk["service_tier"]}
            message.chunk_position = "last"
        message.response_metadata["model_provider"] = "openai"
        out.append(ChatGenerationChunk(message=message, generation_info=info or None))
    return out


def _lc_from_anthropic(data: dict[str, Any]) -> AIMessage:
    """An Anthropic message as an AIMessage: the content blocks kept as content,
    the tool_use blocks also as tool_calls."""
    content = []
    for block in copy.deepcopy(data["content"]):
        if "citations" in block and block["citations"] is None:
            del block["citations"]
        content.append(block)
    calls = [{"type": "tool_call", "id": block["id"], "name": block["name"],
              "args": block["input"]} for block in content if block["type"] == "tool_use"]
    metadata = {key: value for key, value in data.items()
                if key not in ("content", "role", "type")}
    metadata.update(model_name=data["model"], model_provider="anthropic")
    return AIMessage(content=content, tool_calls=calls, response_metadata=metadata,
                     usage_metadata=_usage(data["usage"], "input_tokens", "output_tokens"))


class _ScriptedChatModel(BaseChatModel):
    """A chat model that replays prepared ChatGenerationChunks through LangChain's own
    ``stream()`` machinery (id assignment, metadata, final ``chunk_position`` chunk)."""

    script: list[Any] = Field(default_factory=list, repr=False)

    @property
    def _llm_type(self) -> str:
        return "scripted-replay"

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):  # type: ignore[override]
        merged = functools.reduce(operator.add, self._stream(messages))
        return ChatResult(generations=[ChatGeneration(message=merged.message)])

    def _stream(self, messages, stop=None, run_manager=None, **kwargs) -> Iterator[ChatGenerationChunk]:  # type: ignore[override]
        for chunk in self.script:
            yield copy.deepcopy(chunk)


@functools.cache
def _scripted(output_version: str | None) -> _ScriptedChatModel:
    # One instance per output_version: BaseChatModel caches its own serialization.
    return _ScriptedChatModel(output_version=output_version)


@functools.cache
def _fake_list(output_version: str | None) -> FakeMessagesListChatModel:
    return FakeMessagesListChatModel(responses=[AIMessage("")], output_version=output_version)


def _stream_through_langchain(script: list[ChatGenerationChunk], run: int,
                              output_version: str | None = None) -> list[AIMessageChunk]:
    model = _scripted(output_version)
    model.script = script
    return list(model.stream("hi", config={"run_id": _run_id(run)}))


def _invoke_through_langchain(message: AIMessage, run: int,
                              output_version: str | None = None) -> AIMessage:
    """FakeMessagesListChatModel.invoke: LangChain's own generate path (id, v1 content)."""
    model = _fake_list(output_version)
    model.responses = [message]
    model.i = 0
    return model.invoke("hi", config={"run_id": _run_id(run)})


# ------------------------------------------------------------------------------------------
# Reading LangChain's own merged result (used only to CHECK expected values)
# ------------------------------------------------------------------------------------------


def _calls_of(message: AIMessage) -> tuple[Call, ...]:
    calls = []
    for tc in message.tool_calls:
        calls.append(Call(tc["name"] or "<unnamed>", dict(tc["args"]), tc.get("id")))
    for tc in message.invalid_tool_calls:
        args = tc.get("args")
        calls.append(Call(tc.get("name") or "<unnamed>", {}, tc.get("id"),
                          raw_arguments=args if args else None))
    return tuple(calls)


def _merge(chunks: Sequence[AIMessageChunk]) -> AIMessageChunk:
    return functools.reduce(operator.add, chunks)


def _check(label: str, got: tuple[Call, ...], expected: tuple[Call, ...]) -> None:
    if got != expected:
        raise AssertionError(f"{label}: LangChain gives {got!r}, expected {expected!r}")


# ------------------------------------------------------------------------------------------
# Forms
# ------------------------------------------------------------------------------------------


def _scenario(form: str, name: str, payload: Any, expected: tuple[Call, ...] | None,
              note: str, refusal: str | None = None, options: dict | None = None) -> Scenario:
    return Scenario(PROVIDER, form, name, payload, expected, refusal=refusal,
                    options=options or {}, note=note)


def _message_forms(name: str, message: BaseMessage, expected, note: str, **kw) -> list[Scenario]:
    """One message in every form LangChain gives it."""
    return [
        _scenario("object", name, message, expected, note, **kw),
        _scenario("dump", f"{name}-model-dump", message.model_dump(), expected, note, **kw),
        _scenario("dump", f"{name}-message-to-dict", message_to_dict(message), expected, note, **kw),
        _scenario("dump", f"{name}-dumpd", dumpd(message), expected, note, **kw),
        _scenario("json", f"{name}-model-dump-json", message.model_dump_json(), expected, note, **kw),
        _scenario("json", f"{name}-dumps", dumps(message), expected, note, **kw),
        _scenario("json", f"{name}-message-to-dict-bytes",
                  json.dumps(message_to_dict(message)).encode(), expected, note, **kw),
    ]


def _mixed(messages: Sequence[BaseMessage]) -> list[Any]:
    """Objects and the three dict forms, in rotation."""
    makers: list[Callable[[BaseMessage], Any]] = [
        lambda m: m, message_to_dict, dumpd, lambda m: m.model_dump()]
    return [makers[i % len(makers)](m) for i, m in enumerate(messages)]


def _list_forms(name: str, messages: Sequence[BaseMessage], expected, note: str,
                **kw) -> list[Scenario]:
    """A list of messages (conversation or stream) in every form."""
    messages = list(messages)
    return [
        _scenario("object", name, messages, expected, note, **kw),
        _scenario("dump", f"{name}-model-dump", [m.model_dump() for m in messages], expected,
                  note, **kw),
        _scenario("dump", f"{name}-messages-to-dict", messages_to_dict(messages), expected,
                  note, **kw),
        _scenario("dump", f"{name}-dumpd", dumpd(messages), expected, note, **kw),
        _scenario("json", f"{name}-model-dump-json",
                  json.dumps([m.model_dump(mode="json") for m in messages]), expected, note, **kw),
        _scenario("json", f"{name}-dumps", dumps(messages), expected, note, **kw),
        _scenario("json", f"{name}-messages-to-dict-bytes",
                  json.dumps(messages_to_dict(messages)).encode(), expected, note, **kw),
        _scenario("list", f"{name}-mixed", _mixed(messages), expected, note, **kw),
    ]


def _state_forms(name: str, messages: Sequence[BaseMessage], expected, note: str) -> list[Scenario]:
    """LangGraph state ``{"messages": [...]}`` (what ``create_agent`` / a StateGraph with
    ``MessagesState`` returns from ``invoke``), in every form."""
    messages = list(messages)
    state = {"messages": messages}
    return [
        _scenario("object", name, state, expected, note),
        _scenario("dump", f"{name}-messages-to-dict", {"messages": messages_to_dict(messages)},
                  expected, note),
        _scenario("dump", f"{name}-dumpd", dumpd(state), expected,
                  note + " dumpd(state) is also how LangGraph's JsonPlusSerializer writes "
                  "messages into checkpoints (lc/type/id/kwargs)."),
        _scenario("dump", f"{name}-model-dump", {"messages": [m.model_dump() for m in messages]},
                  expected, note),
        _scenario("json", f"{name}-dumps", dumps(state), expected, note),
        _scenario("json", f"{name}-messages-to-dict-bytes",
                  json.dumps({"messages": messages_to_dict(messages)}).encode(), expected, note),
        _scenario("list", f"{name}-mixed", {"messages": _mixed(messages)}, expected, note),
    ]


def _stream_forms(name: str, chunks: Sequence[AIMessageChunk], expected, note: str,
                  **kw) -> list[Scenario]:
    """A stream: every list form, plus the merged chunk itself."""
    merged = _merge(chunks)
    return _list_forms(name, chunks, expected, note, **kw) + [
        _scenario("object", f"{name}-merged", merged, expected,
                  note + " (the merged AIMessageChunk itself)", **kw),
        _scenario("dump", f"{name}-merged-model-dump", merged.model_dump(), expected,
                  note + " (the merged AIMessageChunk, model_dump)", **kw),
    ]


# ------------------------------------------------------------------------------------------
# OpenAI-style raw tool calls
# ------------------------------------------------------------------------------------------


def _raw(call_id: str | None, name: str, arguments: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def _pieces(text: str, size: int) -> list[str]:
    return [text[i:i + size] for i in range(0, len(text), size)] or [""]


def _stream_deltas(calls: Sequence[tuple[str | None, str, str]], size: int, *,
                   text: str = "", with_index: bool = True,
                   ) -> list[tuple[dict[str, Any] | None, str | None]]:
    """OpenAI chat stream deltas: optional text, then each call as a first piece
    (index, id, name, empty arguments) and its argument text in ``size``-char pieces."""
    deltas: list[tuple[dict[str, Any] | None, str | None]] = [
        ({"role": "assistant", "content": "" if text else None, "refusal": None}, None)]
    for word in _pieces(text, 6) if text else []:
        deltas.append(({"content": word}, None))
    for index, (call_id, name, arguments) in enumerate(calls):
        first = {"id": call_id, "type": "function", "function": {"name": name, "arguments": ""}}
        if with_index:
            first = {"index": index, **first}
        deltas.append(({"tool_calls": [first]}, None))
        for piece in _pieces(arguments, size):
            more: dict[str, Any] = {"function": {"arguments": piece}}
            if with_index:
                more = {"index": index, **more}
            deltas.append(({"tool_calls": [more]}, None))
    deltas.append(({}, "tool_calls" if calls else "stop"))
    return deltas


# ------------------------------------------------------------------------------------------
# Scenarios
# ------------------------------------------------------------------------------------------

_WEATHER = Call("get_weather", {"city": "Paris", "unit": "celsius"}, "call_Wx7kP2")
_TIME = Call("get_time", {"timezone": "Europe/Paris"}, "call_Tm3qR8")
_SEARCH = Call("search_flights", {"from": "CDG", "to": "JFK",
                                  "filters": {"max_stops": 1, "cabins": ["economy", "premium"]}},
               "call_Fl9zD4")


def _args(call: Call) -> str:
    return json.dumps(call.arguments)


def _ai_message_scenarios() -> list[Scenario]:
    out: list[Scenario] = []

    # 1. tool_calls, as langchain-openai 1.x builds them (no additional_kwargs copy).
    resp = _openai_completion({"tool_calls": [_raw(_WEATHER.id, _WEATHER.name, _args(_WEATHER)),
                                              _raw(_TIME.id, _TIME.name, _args(_TIME))]},
                              "tool_calls", "chatcmpl-lc001")
    msg = _invoke_through_langchain(_lc_from_openai(resp), 1)
    expected = (_WEATHER, _TIME)
    _check("ai-tool-calls", _calls_of(msg), expected)
    out += _message_forms("ai-tool-calls", msg, expected,
                          "AIMessage.tool_calls as langchain-openai 1.x builds it from a "
                          "ChatCompletion (two parallel calls).")

    # 2. invalid_tool_calls only: malformed arguments.
    bad = '{"city": "Paris", "unit": celsius}'
    resp = _openai_completion({"tool_calls": [_raw("call_Bd1aX0", "get_weather", bad)]},
                              "tool_calls", "chatcmpl-lc002")
    msg = _invoke_through_langchain(_lc_from_openai(resp), 2)
    expected = (Call("get_weather", {}, "call_Bd1aX0", raw_arguments=bad),)
    _check("ai-invalid-tool-call", _calls_of(msg), expected)
    out += _message_forms("ai-invalid-tool-call", msg, expected,
                          "Malformed arguments land in invalid_tool_calls (args = the raw text, "
                          "error = the parser message); the call must still come back.")

    # 3. both, produced valid / invalid / valid.
    bad2 = '{"timezone": "Europe/Paris"'
    resp = _openai_completion({"tool_calls": [
        _raw(_WEATHER.id, _WEATHER.name, _args(_WEATHER)),
        _raw("call_Bd2tZ5", "get_time", bad2),
        _raw(_SEARCH.id, _SEARCH.name, _args(_SEARCH))]}, "tool_calls", "chatcmpl-lc003")
    msg = _invoke_through_langchain(_lc_from_openai(resp), 3)
    expected = (_WEATHER, _SEARCH, Call("get_time", {}, "call_Bd2tZ5", raw_arguments=bad2))
    _check("ai-valid-invalid-valid", _calls_of(msg), expected)
    out += _message_forms(
        "ai-valid-invalid-valid", msg, expected,
        "The model produced valid, invalid (truncated JSON), valid. LangChain splits them into "
        "tool_calls and invalid_tool_calls, losing the interleaving; per SEMANTICS the expected "
        "order is tool_calls then invalid_tool_calls (the true order is not in this payload).")

    # 4. langchain-openai 0.x: raw OpenAI tool_calls duplicated in additional_kwargs.
    resp = _openai_completion({"tool_calls": [
        _raw(_WEATHER.id, _WEATHER.name, _args(_WEATHER)),
        _raw(_TIME.id, _TIME.name, _args(_TIME)),
        _raw("call_Bd3yQ1", "search_flights", '{"from": "CDG", "to": ')]},
        "tool_calls", "chatcmpl-lc004")
    msg = _invoke_through_langchain(_lc_from_openai(resp, v0_additional_kwargs=True), 4)
    expected = (_WEATHER, _TIME,
                Call("search_flights", {}, "call_Bd3yQ1", raw_arguments='{"from": "CDG", "to": '))
    _check("ai-openai-v0-additional-kwargs", _calls_of(msg), expected)
    out += _message_forms(
        "ai-openai-v0-additional-kwargs", msg, expected,
        "langchain-openai 0.x kept the raw OpenAI tool_calls in additional_kwargs['tool_calls'] "
        "(same calls, one of them invalid) next to tool_calls/invalid_tool_calls: once each.")

    # 5. Only additional_kwargs['tool_calls'] given: LangChain's own validator fills tool_calls.
    raw_only = [_raw(_WEATHER.id, _WEATHER.name, _args(_WEATHER)),
                _raw("call_Bd4nM2", "get_time", "not json at all")]
    msg = AIMessage(content="", additional_kwargs={"tool_calls": raw_only}, id="chatcmpl-lc005")
    expected = (_WEATHER, Call("get_time", {}, "call_Bd4nM2", raw_arguments="not json at all"))
    _check("ai-additional-kwargs-only", _calls_of(msg), expected)
    out.append(_scenario("object", "ai-additional-kwargs-only", msg, expected,
                         "AIMessage(additional_kwargs={'tool_calls': raw}) only: LangChain's "
                         "_backwards_compat_tool_calls validator parses them into tool_calls."))
    legacy = message_to_dict(msg)
    for key in ("tool_calls", "invalid_tool_calls", "usage_metadata"):
        legacy["data"].pop(key)
    legacy_note = ("message_to_dict as written before tool_calls existed (langchain-core < 0.1.47 "
                   "stored only additional_kwargs['tool_calls']); messages_from_dict of this "
                   "dict gives back both calls (checked).")
    from langchain_core.messages import messages_from_dict
    _check("ai-legacy-dict", _calls_of(messages_from_dict([legacy])[0]), expected)
    out.append(_scenario("dump", "ai-legacy-additional-kwargs-message-to-dict", legacy, expected,
                         legacy_note))
    out.append(_scenario("json", "ai-legacy-additional-kwargs-message-to-dict-json",
                         json.dumps(legacy), expected, legacy_note))

    # 6. Anthropic: tool_use blocks in content AND tool_calls.
    data = _anthropic_message([
        {"type": "text", "text": "I'll check both."},
        {"type": "tool_use", "id": "toolu_01A1", "name": "get_weather", "input": _WEATHER.arguments},
        {"type": "tool_use", "id": "toolu_01B2", "name": "get_time", "input": {}},
    ], "tool_use", "msg_01LcAnth1")
    msg = _invoke_through_langchain(_lc_from_anthropic(data), 6)
    expected = (Call("get_weather", _WEATHER.arguments, "toolu_01A1"),
                Call("get_time", {}, "toolu_01B2"))
    _check("ai-anthropic-tool-use-blocks", _calls_of(msg), expected)
    out += _message_forms(
        "ai-anthropic-tool-use-blocks", msg, expected,
        "langchain-anthropic: content is the list of Anthropic blocks (tool_use with input) "
        "and tool_calls repeats them; each call once. Second call has empty input {}.")

    # 7. v1 standard content blocks (output_version='v1'): 'tool_call' blocks in content.
    resp = _openai_completion({"content": "Checking.", "tool_calls": [
        _raw(_WEATHER.id, _WEATHER.name, _args(_WEATHER)),
        _raw(_SEARCH.id, _SEARCH.name, _args(_SEARCH))]}, "tool_calls", "chatcmpl-lc007")
    msg = _invoke_through_langchain(_lc_from_openai(resp), 7, output_version="v1")
    assert msg.content[1]["type"] == "tool_call", msg.content
    expected = (_WEATHER, _SEARCH)
    _check("ai-v1-content-blocks", _calls_of(msg), expected)
    out += _message_forms(
        "ai-v1-content-blocks", msg, expected,
        "output_version='v1': content is standard blocks [text, tool_call, tool_call] and "
        "tool_calls repeats them; response_metadata.output_version == 'v1'. Each call once.")

    # 7b. AIMessage(content_blocks=[...]) built by hand (the typed v1 constructor).
    msg = AIMessage(content_blocks=[
        {"type": "text", "text": "On it."},
        {"type": "tool_call", "id": "call_Cb1", "name": "get_time", "args": {"timezone": "UTC"}},
    ], id="lc-v1-manual")
    expected = (Call("get_time", {"timezone": "UTC"}, "call_Cb1"),)
    _check("ai-v1-content-blocks-constructor", _calls_of(msg), expected)
    out += _message_forms(
        "ai-v1-content-blocks-constructor", msg, expected,
        "AIMessage(content_blocks=[...tool_call...]): the constructor copies tool_call blocks "
        "into tool_calls; content keeps them too. Once.")

    # 8. Anthropic server tool (hosted web_search) + client tool_use.
    data = _anthropic_message([
        {"type": "text", "text": "Let me search first."},
        {"type": "server_tool_use", "id": "srvtoolu_01W", "name": "web_search",
         "input": {"query": "Paris weather today"}},
        {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01W", "content": [
            {"type": "web_search_result", "url": "https://example.com/paris", "title": "Paris",
             "encrypted_content": "EncR1", "page_age": None}]},
        {"type": "tool_use", "id": "toolu_01C3", "name": "get_weather",
         "input": _WEATHER.arguments},
    ], "tool_use", "msg_01LcAnth2")
    msg = _invoke_through_langchain(_lc_from_anthropic(data), 8)
    hosted = Call("web_search", {"query": "Paris weather today"}, "srvtoolu_01W")
    client = Call("get_weather", _WEATHER.arguments, "toolu_01C3")
    _check("ai-anthropic-server-tool-use (tool_calls part)", _calls_of(msg), (client,))
    note = ("langchain-anthropic with a hosted tool: server_tool_use only in content (NOT in "
            "tool_calls), tool_use in both. Chosen (not in SEMANTICS' LangChain section): the "
            "hosted call counts, as for Anthropic, in content order; hosted_tools=False drops it.")
    out += _message_forms("ai-anthropic-server-tool-use", msg, (hosted, client), note)
    out += [_scenario("object", "ai-anthropic-server-tool-use-no-hosted", msg, (client,), note,
                      options={"hosted_tools": False}),
            _scenario("dump", "ai-anthropic-server-tool-use-no-hosted-model-dump",
                      msg.model_dump(), (client,), note, options={"hosted_tools": False})]

    # 8b. Same in v1: server_tool_call / server_tool_result / tool_call blocks.
    msg_v1 = _invoke_through_langchain(_lc_from_anthropic(data), 9, output_version="v1")
    assert [b["type"] for b in msg_v1.content] == [
        "text", "server_tool_call", "server_tool_result", "tool_call"], msg_v1.content
    note_v1 = ("The same Anthropic answer with output_version='v1': content blocks "
               "server_tool_call (hosted web_search) and tool_call. " + note.split(". ", 1)[1])
    out += _message_forms("ai-v1-server-tool-call", msg_v1, (hosted, client), note_v1)
    out += [_scenario("object", "ai-v1-server-tool-call-no-hosted", msg_v1, (client,), note_v1,
                      options={"hosted_tools": False}),
            _scenario("dump", "ai-v1-server-tool-call-no-hosted-dumpd", dumpd(msg_v1), (client,),
                      note_v1, options={"hosted_tools": False})]

    # 9. A tool call without an id.
    msg = AIMessage(content="", tool_calls=[
        {"name": "get_time", "args": {"timezone": "UTC"}, "id": None}], id="lc-noid")
    expected = (Call("get_time", {"timezone": "UTC"}, None),)
    _check("ai-tool-call-without-id", _calls_of(msg), expected)
    out += _message_forms("ai-tool-call-without-id", msg, expected,
                          "ToolCall.id is Optional: some integrations (HuggingFace, older "
                          "Ollama) give none. id must come back None.")

    # 10. text only: no calls.
    resp = _openai_completion({"content": "It is sunny in Paris."}, "stop", "chatcmpl-lc010")
    msg = _invoke_through_langchain(_lc_from_openai(resp), 10)
    out += _message_forms("ai-text-only", msg, (), "A plain answer: no call-like content, [].")

    # 11. finish_reason says tool_calls, but the message has none.
    resp = _openai_completion({"content": ""}, "tool_calls", "chatcmpl-lc011")
    msg = _invoke_through_langchain(_lc_from_openai(resp), 11)
    out += _message_forms(
        "ai-finish-tool-calls-without-calls", msg, None,
        "response_metadata.finish_reason == 'tool_calls' with no tool_calls, invalid_tool_calls "
        "or additional_kwargs: the calls are missing (e.g. an OpenAI-compatible server whose tool "
        "parser failed). SEMANTICS' general refusal rule, applied to response_metadata.",
        refusal=r"(?i)missing")

    # 12. legacy OpenAI function_call in additional_kwargs (OpenAIFunctionsAgent era).
    resp = _openai_completion({"function_call": {"name": "get_weather",
                                                 "arguments": _args(_WEATHER)}},
                              "function_call", "chatcmpl-lc012")
    msg = _invoke_through_langchain(_lc_from_openai(resp), 12)
    assert not msg.tool_calls
    expected = (Call("get_weather", _WEATHER.arguments, None),)
    out += _message_forms(
        "ai-legacy-function-call", msg, expected,
        "Legacy functions API: additional_kwargs['function_call'] = {name, arguments}; LangChain "
        "itself leaves tool_calls empty. Chosen: it is a call (id None), as for OpenAI chat.")
    return out


def _conversation_scenarios() -> list[Scenario]:
    out: list[Scenario] = []
    sysm = SystemMessage("You are a travel assistant.", id="sys-1")
    human = HumanMessage("Weather and time in Paris, then flights to NYC?", id="human-1")
    resp = _openai_completion({"tool_calls": [_raw(_WEATHER.id, _WEATHER.name, _args(_WEATHER)),
                                              _raw(_TIME.id, _TIME.name, _args(_TIME))]},
                              "tool_calls", "chatcmpl-lc101")
    ai1 = _invoke_through_langchain(_lc_from_openai(resp), 101)
    t1 = ToolMessage("18 C, light rain", tool_call_id=_WEATHER.id, name=_WEATHER.name, id="tool-1")
    t2 = ToolMessage("14:05", tool_call_id=_TIME.id, name=_TIME.name, id="tool-2")
    data = _anthropic_message([
        {"type": "text", "text": "Now the flights."},
        {"type": "tool_use", "id": "toolu_01D4", "name": _SEARCH.name, "input": _SEARCH.arguments},
    ], "tool_use", "msg_01LcConv")
    ai2 = _invoke_through_langchain(_lc_from_anthropic(data), 102)
    t3 = ToolMessage([{"type": "text", "text": "AF 006, 1 stop"}], tool_call_id="toolu_01D4",
                     name=_SEARCH.name, id="tool-3")
    resp = _openai_completion({"content": "Rainy, 14:05, AF 006."}, "stop", "chatcmpl-lc103")
    ai3 = _invoke_through_langchain(_lc_from_openai(resp), 103)
    conversation = [sysm, human, ai1, t1, t2, ai2, t3, ai3]
    expected = (_WEATHER, _TIME, Call(_SEARCH.name, _SEARCH.arguments, "toolu_01D4"))
    out += _list_forms(
        "conversation-three-calls", conversation, expected,
        "System, Human, AI(2 parallel calls, OpenAI), 2 ToolMessages, AI(Anthropic tool_use "
        "block + tool_calls), ToolMessage, final AI text. ToolMessages are results, not calls.")

    # With an invalid call then a retry.
    bad = '{"city": Paris}'
    resp = _openai_completion({"tool_calls": [_raw("call_Bd5", "get_weather", bad)]},
                              "tool_calls", "chatcmpl-lc111")
    ai_bad = _invoke_through_langchain(_lc_from_openai(resp), 111)
    t_bad = ToolMessage("Error: invalid JSON arguments", tool_call_id="call_Bd5",
                        status="error", id="tool-bad")
    resp = _openai_completion({"tool_calls": [_raw(_WEATHER.id, _WEATHER.name, _args(_WEATHER))]},
                              "tool_calls", "chatcmpl-lc112")
    ai_ok = _invoke_through_langchain(_lc_from_openai(resp), 112)
    t_ok = ToolMessage("18 C", tool_call_id=_WEATHER.id, id="tool-ok")
    conversation = [HumanMessage("Weather in Paris?", id="human-2"), ai_bad, t_bad, ai_ok, t_ok]
    expected = (Call("get_weather", {}, "call_Bd5", raw_arguments=bad), _WEATHER)
    out += _list_forms(
        "conversation-invalid-then-retry", conversation, expected,
        "An invalid call (kept, raw_arguments), a ToolMessage with status='error', then the "
        "corrected call.")

    conversation = [HumanMessage("Hi", id="human-3"), ai3]
    out += _list_forms("conversation-no-calls", conversation, (),
                       "Human + AI text only: [].")
    return out


def _langgraph_scenarios() -> list[Scenario]:
    out: list[Scenario] = []
    human = HumanMessage("What's the weather in Paris, and the time there and in Tokyo?",
                         id="f1e0c6d2-0001")
    resp = _openai_completion({"tool_calls": [_raw(_WEATHER.id, _WEATHER.name, _args(_WEATHER))]},
                              "tool_calls", "chatcmpl-lg001")
    ai1 = _invoke_through_langchain(_lc_from_openai(resp), 201)
    t1 = ToolMessage("18 C, light rain", tool_call_id=_WEATHER.id, name=_WEATHER.name,
                     id="f1e0c6d2-0002")
    tokyo = Call("get_time", {"timezone": "Asia/Tokyo"}, "call_Tk5sB1")
    resp = _openai_completion({"tool_calls": [_raw(_TIME.id, _TIME.name, _args(_TIME)),
                                              _raw(tokyo.id, tokyo.name, _args(tokyo))]},
                              "tool_calls", "chatcmpl-lg002")
    ai2 = _invoke_through_langchain(_lc_from_openai(resp), 202)
    t2 = ToolMessage("14:05", tool_call_id=_TIME.id, name=_TIME.name, id="f1e0c6d2-0003")
    t3 = ToolMessage("22:05", tool_call_id=tokyo.id, name=tokyo.name, id="f1e0c6d2-0004")
    resp = _openai_completion({"content": "Rainy in Paris; 14:05 there, 22:05 in Tokyo."},
                              "stop", "chatcmpl-lg003")
    ai3 = _invoke_through_langchain(_lc_from_openai(resp), 203)
    out += _state_forms("langgraph-state-react-agent", [human, ai1, t1, ai2, t2, t3, ai3],
                        (_WEATHER, _TIME, tokyo),
                        "LangGraph state {'messages': [...]} as a ReAct agent returns it: "
                        "one call, then two parallel calls, then the answer.")
    out += _state_forms("langgraph-state-no-calls", [HumanMessage("Hi", id="f1e0c6d2-0101"), ai3],
                        (), "LangGraph state with no tool call: [].")
    return out


def _stream_scenarios() -> list[Scenario]:
    out: list[Scenario] = []

    # 1. Three calls, args split into many pieces: 17 tool-call chunks for 3 calls.
    calls = [(_WEATHER.id, _WEATHER.name, _args(_WEATHER)), (_TIME.id, _TIME.name, _args(_TIME)),
             (_SEARCH.id, _SEARCH.name, _args(_SEARCH))]
    sizes = {0: 10, 1: 8, 2: 18}  # 5 + 4 + 5 argument pieces
    deltas = [({"role": "assistant", "content": None, "refusal": None}, None)]
    for index, (call_id, name, arguments) in enumerate(calls):
        deltas.append(({"tool_calls": [{"index": index, "id": call_id, "type": "function",
                                        "function": {"name": name, "arguments": ""}}]}, None))
        for piece in _pieces(arguments, sizes[index]):
            deltas.append(({"tool_calls": [{"index": index,
                                            "function": {"arguments": piece}}]}, None))
    deltas.append(({}, "tool_calls"))
    sdk_chunks = _openai_stream(deltas, "chatcmpl-st001")
    chunks = _stream_through_langchain(_lc_chunks_from_openai(sdk_chunks), 301)
    with_calls = [c for c in chunks if c.tool_call_chunks]
    assert len(with_calls) == 17, len(with_calls)
    per_chunk = sum(len(c.tool_calls) + len(c.invalid_tool_calls) for c in chunks)
    assert per_chunk == 17, per_chunk
    assert chunks[-1].chunk_position == "last"
    expected = (_WEATHER, _TIME, _SEARCH)
    _check("stream-three-calls-17-chunks", _calls_of(_merge(chunks)), expected)
    out += _stream_forms(
        "stream-three-calls-17-chunks", chunks, expected,
        "langchain-openai stream of 3 parallel calls: 17 chunks carry tool_call_chunks (index per "
        "call, id+name on the first piece only, args in pieces). EVERY chunk also has its own "
        "tool_calls/invalid_tool_calls parsed from its piece (17 in all): reading them per chunk "
        "gives '17 calls for 3'. Merged with + they are 3. Also: a usage chunk (choices: []) and "
        "the final empty chunk_position='last' chunk LangChain appends.")

    # 2. Text, then one call.
    deltas = _stream_deltas([(_WEATHER.id, _WEATHER.name, _args(_WEATHER))], 7,
                            text="Let me look that up for you.")
    chunks = _stream_through_langchain(
        _lc_chunks_from_openai(_openai_stream(deltas, "chatcmpl-st002")), 302)
    expected = (_WEATHER,)
    _check("stream-text-then-call", _calls_of(_merge(chunks)), expected)
    out += _stream_forms("stream-text-then-call", chunks, expected,
                         "Content text streamed first, then one call in 7-char pieces.")

    # 3. langchain-openai 0.x: raw deltas in additional_kwargs['tool_calls'] too.
    deltas = _stream_deltas([(_WEATHER.id, _WEATHER.name, _args(_WEATHER)),
                             (_TIME.id, _TIME.name, _args(_TIME))], 9)
    chunks = _stream_through_langchain(
        _lc_chunks_from_openai(_openai_stream(deltas, "chatcmpl-st003"),
                               v0_additional_kwargs=True), 303)
    merged = _merge(chunks)
    assert len(merged.additional_kwargs["tool_calls"]) == 2
    expected = (_WEATHER, _TIME)
    _check("stream-openai-v0-additional-kwargs", _calls_of(merged), expected)
    out += _stream_forms(
        "stream-openai-v0-additional-kwargs", chunks, expected,
        "langchain-openai 0.x streams: each chunk also carries the raw delta in "
        "additional_kwargs['tool_calls'] (merged by index too). Same calls: once.")

    # 4. index null (OpenAI-compatible server that omits index): LangChain's merge.
    deltas = _stream_deltas([(_WEATHER.id, _WEATHER.name, _args(_WEATHER)),
                             (_TIME.id, _TIME.name, _args(_TIME))], 12, with_index=False)
    sdk_chunks = _openai_stream(deltas, "chatcmpl-st004")
    assert sdk_chunks[1]["choices"][0]["delta"]["tool_calls"][0]["index"] is None
    chunks = _stream_through_langchain(_lc_chunks_from_openai(sdk_chunks), 304)
    fragments = _calls_of(_merge(chunks))
    assert len(fragments) == len([c for c in chunks if c.tool_call_chunks]) > 2, fragments
    expected = (_WEATHER, _TIME)
    out += _stream_forms(
        "stream-index-null-split-args", chunks, expected,
        "Tool-call deltas WITHOUT index (the openai SDK dumps a missing index as None; "
        "langchain-openai passes index=None). LangChain's merge_lists only merges pieces whose "
        "index is an int, so LangChain itself turns the 2 calls into "
        f"{len(fragments)} fragments (checked above). Decided: agentmetrics reads the calls the "
        "agent made: a piece with no index, no id and no name continues the previous call, as "
        "in OpenAI streams, so the 2 real calls come back.")

    # 5. index None with complete calls per chunk (Ollama-style integrations).
    script = [ChatGenerationChunk(message=AIMessageChunk(content="", tool_calls=[
                  {"name": _WEATHER.name, "args": _WEATHER.arguments, "id": _WEATHER.id}])),
              ChatGenerationChunk(message=AIMessageChunk(content="", tool_calls=[
                  {"name": _TIME.name, "args": _TIME.arguments, "id": _TIME.id}])),
              ChatGenerationChunk(message=AIMessageChunk(
                  content="", chunk_position="last",
                  response_metadata={"done_reason": "stop", "model_provider": "ollama"}))]
    chunks = _stream_through_langchain(script, 305)
    assert all(tc["index"] is None for c in chunks for tc in c.tool_call_chunks)
    expected = (_WEATHER, _TIME)
    _check("stream-index-none-whole-calls", _calls_of(_merge(chunks)), expected)
    out += _stream_forms(
        "stream-index-none-whole-calls", chunks, expected,
        "Integrations that stream each call whole (AIMessageChunk(tool_calls=[...]), e.g. "
        "langchain-ollama): LangChain derives tool_call_chunks with index=None and args = "
        "json.dumps(args); merged, each stays its own call, which is right here.")

    # 6. langchain-anthropic style: content blocks with index + tool_call_chunks.
    script = [
        ChatGenerationChunk(message=AIMessageChunk(
            content=[], id="msg_01LcStream",
            response_metadata={"model_name": _ANTHROPIC_MODEL, "model_provider": "anthropic"},
            usage_metadata={"input_tokens": 120, "output_tokens": 0, "total_tokens": 120})),
        ChatGenerationChunk(message=AIMessageChunk(
            content=[{"type": "text", "text": "Checking", "index": 0}])),
        ChatGenerationChunk(message=AIMessageChunk(
            content=[{"type": "text", "text": " both.", "index": 0}])),
    ]
    for block_index, (call_id, name, call) in enumerate(
            [("toolu_01S1", "get_weather", _WEATHER), ("toolu_01S2", "get_time", _TIME)], 1):
        script.append(ChatGenerationChunk(message=AIMessageChunk(
            content=[{"type": "tool_use", "id": call_id, "name": name, "input": {},
                      "caller": None, "index": block_index}],
            tool_call_chunks=[tool_call_chunk(name=name, id=call_id, args="",
                                              index=block_index)])))
        for piece in _pieces(_args(call), 6):
            script.append(ChatGenerationChunk(message=AIMessageChunk(
                content=[{"type": "input_json_delta", "partial_json": piece,
                          "index": block_index}],
                tool_call_chunks=[tool_call_chunk(name=None, id=None, args=piece,
                                                  index=block_index)])))
    script.append(ChatGenerationChunk(message=AIMessageChunk(
        content=[], chunk_position="last",
        response_metadata={"stop_reason": "tool_use", "stop_sequence": None},
        usage_metadata={"input_tokens": 0, "output_tokens": 40, "total_tokens": 40})))
    chunks = _stream_through_langchain(script, 306)
    merged = _merge(chunks)
    tool_use = [b for b in merged.content if b.get("type") == "tool_use"]
    assert len(tool_use) == 2 and tool_use[0]["input"] == {} and "partial_json" in tool_use[0]
    expected = (Call("get_weather", _WEATHER.arguments, "toolu_01S1"),
                Call("get_time", _TIME.arguments, "toolu_01S2"))
    _check("stream-anthropic-blocks", _calls_of(merged), expected)
    out += _stream_forms(
        "stream-anthropic-blocks", chunks, expected,
        "langchain-anthropic stream: content blocks carry 'index' (tool_use with input {} then "
        "input_json_delta pieces) AND tool_call_chunks with the same index. Merged, content has "
        "tool_use blocks whose input is STILL {} with the JSON text in 'partial_json'; the args "
        "are in tool_calls. Each call once, with its full args.")

    # 7. Truncated / malformed streamed args: LangChain's partial-JSON parse decides.
    deltas = _stream_deltas([("call_Tr1", "get_weather", '{"city": "Paris", "unit": "cel'),
                             ("call_Tr2", "get_time", "timezone=UTC")], 8)
    deltas[-1] = ({}, "length")
    chunks = _stream_through_langchain(
        _lc_chunks_from_openai(_openai_stream(deltas, "chatcmpl-st007")), 307)
    _check("stream-truncated-args", _calls_of(_merge(chunks)), (
        Call("get_weather", {"city": "Paris", "unit": "cel"}, "call_Tr1"),
        Call("get_time", {}, "call_Tr2", raw_arguments="timezone=UTC")))
    expected = (Call("get_weather", {}, "call_Tr1", raw_arguments='{"city": "Paris", "unit": "cel'),
                Call("get_time", {}, "call_Tr2", raw_arguments="timezone=UTC"))
    out += _stream_forms(
        "stream-truncated-args", chunks, expected,
        "Stream cut by max tokens mid-arguments: LangChain's merge parses tool_call_chunks with "
        "parse_partial_json, so '{\"city\": \"Paris\", \"unit\": \"cel' becomes a VALID call "
        "{city: Paris, unit: cel} (checked above). Decided: agentmetrics never completes "
        "truncated arguments; the text is kept as raw_arguments, as for any malformed call.")

    # 8. output_version='v1' stream: content holds tool_call_chunk blocks.
    deltas = _stream_deltas([(_WEATHER.id, _WEATHER.name, _args(_WEATHER)),
                             (_SEARCH.id, _SEARCH.name, _args(_SEARCH))], 11, text="Sure.")
    chunks = _stream_through_langchain(
        _lc_chunks_from_openai(_openai_stream(deltas, "chatcmpl-st008")), 308,
        output_version="v1")
    merged = _merge(chunks)
    assert any(b.get("type") == "tool_call" for b in merged.content), merged.content
    expected = (_WEATHER, _SEARCH)
    _check("stream-v1", _calls_of(merged), expected)
    out += _stream_forms(
        "stream-v1-content-blocks", chunks, expected,
        "output_version='v1': each chunk's content is a list of standard blocks "
        "(tool_call_chunk with index); merged with chunk_position='last', LangChain turns them "
        "into 'tool_call' blocks, repeating tool_calls. Once each.")

    # 9. GenericFakeChatModel (langchain-core's own fake) streaming raw OpenAI tool_calls.
    raw = [_raw(_WEATHER.id, _WEATHER.name, _args(_WEATHER)),
           _raw("call_Gf2", "get_time", '{"timezone": ')]
    fake = GenericFakeChatModel(messages=iter([AIMessage(
        content="Checking now", additional_kwargs={"tool_calls": raw}, id="fake-1")]))
    chunks = list(fake.stream("hi", config={"run_id": _run_id(309)}))
    _check("stream-generic-fake-tool-calls", _calls_of(_merge(chunks)),
           (_WEATHER, Call("get_time", {}, "call_Gf2")))
    expected = (_WEATHER, Call("get_time", {}, "call_Gf2", raw_arguments='{"timezone": '))
    out += _stream_forms(
        "stream-generic-fake-tool-calls", chunks, expected,
        "langchain-core's GenericFakeChatModel streams additional_kwargs['tool_calls'] in one "
        "chunk; the AIMessageChunk validator builds tool_call_chunks (index None) from them. "
        "LangChain parses the truncated '{\"timezone\": ' as partial JSON -> a VALID call with "
        "args {} (checked above); agentmetrics keeps the text as raw_arguments.")

    # 10. GenericFakeChatModel streaming a legacy function_call.
    fake = GenericFakeChatModel(messages=iter([AIMessage(
        content="", additional_kwargs={"function_call": {
            "name": "get_weather", "arguments": _args(_WEATHER)}}, id="fake-2")]))
    chunks = list(fake.stream("hi", config={"run_id": _run_id(310)}))
    merged = _merge(chunks)
    assert merged.additional_kwargs["function_call"]["arguments"] == _args(_WEATHER)
    assert not merged.tool_calls
    out += _stream_forms(
        "stream-generic-fake-legacy-function-call", chunks,
        (Call("get_weather", _WEATHER.arguments, None),),
        "GenericFakeChatModel splits a legacy function_call's arguments at ',' into "
        "additional_kwargs pieces; merged they are one call (id None). LangChain's tool_calls "
        "stay empty; chosen: it is a call, as for OpenAI's legacy function_call.")

    # 11. Two model calls' chunks in one list (an agent loop streamed with stream_mode='messages').
    deltas1 = _stream_deltas([(_WEATHER.id, _WEATHER.name, _args(_WEATHER))], 10)
    deltas2 = _stream_deltas([(_TIME.id, _TIME.name, _args(_TIME)),
                              (_SEARCH.id, _SEARCH.name, _args(_SEARCH))], 10)
    first = _stream_through_langchain(
        _lc_chunks_from_openai(_openai_stream(deltas1, "chatcmpl-st011a")), 311)
    second = _stream_through_langchain(
        _lc_chunks_from_openai(_openai_stream(deltas2, "chatcmpl-st011b")), 312)
    chunks = first + second
    expected = (_WEATHER, _TIME, _SEARCH)
    _check("stream-two-model-calls", _calls_of(_merge(first)) + _calls_of(_merge(second)),
           expected)
    naive = _calls_of(_merge(chunks))
    assert naive != expected and naive[1].arguments == {}, naive
    assert {c.id for c in first} != {c.id for c in second}
    out += _list_forms(
        "stream-two-model-calls", chunks, expected,
        "Chunks of two successive model calls in one list (LangGraph stream_mode='messages' "
        "collected): each call's chunks share one message id (lc_run--<run id>), ids differ "
        "between calls, both restart at index 0. Expected = each model call merged with + "
        "(checked). Merging the WHOLE list with + is wrong: the 2nd call's id-less argument "
        "pieces for index 0 merge into the 1st call's index-0 entry, so get_time comes back "
        "with args {} (parse_partial_json keeps only the first JSON object).")
    return out


def scenarios() -> list[Scenario]:
    return (_ai_message_scenarios() + _conversation_scenarios() + _langgraph_scenarios()
            + _stream_scenarios())


# ------------------------------------------------------------------------------------------
# Writers: random conversations -> real LangChain payloads
# ------------------------------------------------------------------------------------------


def _expected_call(call: Call, call_id: str | None) -> Call:
    return Call(call.name or "<unnamed>", dict(call.arguments or {}), call_id)


def _with_ids(turns: list[list[Call]]) -> list[list[tuple[Call, str]]]:
    """Invent deterministic ids for calls that have none (tool results need them)."""
    return [[(c, c.id if c.id is not None else f"call_t{t}_{i}") for i, c in enumerate(turn)]
            for t, turn in enumerate(turns)]


def _write_ai_messages(turns: list[list[Call]]) -> tuple[object, tuple[Call, ...]]:
    """One AIMessage per turn (ids kept as given, None included)."""
    messages, expected = [], []
    for t, turn in enumerate(turns):
        if not turn:
            messages.append(AIMessage(content="Nothing to call.", id=f"ai-{t}"))
            continue
        messages.append(AIMessage(content="", id=f"ai-{t}", tool_calls=[
            {"name": c.name, "args": dict(c.arguments or {}), "id": c.id} for c in turn]))
        expected += [_expected_call(c, c.id) for c in turn]
    return messages, tuple(expected)


def _write_chunk_stream(turns: list[list[Call]]) -> tuple[object, tuple[Call, ...]]:
    """All turns' AIMessageChunks (langchain-openai stream conversion through
    BaseChatModel.stream) in one list; merged with + they give the calls."""
    chunks: list[AIMessageChunk] = []
    expected = []
    for t, turn in enumerate(_with_ids(turns)):
        sdk = []
        for delta, finish in _stream_deltas(
                [(call_id, c.name, json.dumps(c.arguments or {})) for c, call_id in turn], 5,
                text="" if turn else "Done."):
            sdk.append({"id": f"chatcmpl-w{t}", "model": _OPENAI_MODEL,
                        "system_fingerprint": "fp_0123456789", "service_tier": "default",
                        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
        chunks += _stream_through_langchain(_lc_chunks_from_openai(sdk), 900 + t)
        expected += [_expected_call(c, call_id) for c, call_id in turn]
    return chunks, tuple(expected)


def _conversation(turns: list[list[Call]]) -> tuple[list[BaseMessage], tuple[Call, ...]]:
    messages: list[BaseMessage] = [HumanMessage("Please help.", id="human-0")]
    expected = []
    for t, turn in enumerate(_with_ids(turns)):
        if not turn:
            messages.append(AIMessage(content="Nothing to call.", id=f"ai-{t}"))
            continue
        messages.append(AIMessage(content="", id=f"ai-{t}", tool_calls=[
            {"name": c.name, "args": dict(c.arguments or {}), "id": call_id}
            for c, call_id in turn]))
        messages += [ToolMessage("ok", tool_call_id=call_id, name=c.name or None,
                                 id=f"tool-{t}-{i}") for i, (c, call_id) in enumerate(turn)]
        expected += [_expected_call(c, call_id) for c, call_id in turn]
    messages.append(AIMessage(content="All done.", id="ai-final"))
    return messages, tuple(expected)


def _write_messages_to_dict(turns: list[list[Call]]) -> tuple[object, tuple[Call, ...]]:
    messages, expected = _conversation(turns)
    return messages_to_dict(messages), expected


def _write_langgraph_state(turns: list[list[Call]]) -> tuple[object, tuple[Call, ...]]:
    messages, expected = _conversation(turns)
    return {"messages": messages}, expected


def writers() -> dict[str, Callable[[list[list[Call]]], tuple[object, tuple[Call, ...]]]]:
    return {
        "ai_messages": _write_ai_messages,
        "chunk_stream": _write_chunk_stream,
        "messages_to_dict": _write_messages_to_dict,
        "langgraph_state": _write_langgraph_state,
    }
