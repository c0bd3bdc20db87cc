"""Edge-case payloads for OpenAI Chat Completions and the Responses API, built OFFLINE
with the real SDK (openai 3.57): every body goes through ``openai.OpenAI`` over an
``httpx2.MockTransport``; streams through ``client.chat.completions.create(stream=True)``
/ ``client.responses.create(stream=True)`` and, where the SDK has one, its own
accumulator (``ChatCompletionStreamState``, ``client.chat.completions.stream``,
``client.responses.stream``, ``ResponsesWebSocketAccumulator``).

Where the SDK's accumulator produces the calls, the builder ASSERTS that ``expected``
agrees with it (``_sdk_agrees``); where the SDK has no answer (it raises, or it mangles
an id), the builder asserts that too, and ``expected`` follows the documented
semantics instead. Bodies marked "recorded" are the bytes of real API responses from
other projects' VCR cassettes (/work/corpus/out), served verbatim. See NOTES.md.

Providers: "openai_chat", "openai_responses". Every name starts with "edge-".
"""

from __future__ import annotations

import copy
import json
import warnings
from typing import Any

import httpx2
import openai
from openai._models import construct_type_unchecked
from openai.lib.responses_websocket import ResponsesWebSocketAccumulator
from openai.lib.streaming.chat import ChatCompletionStreamState
from openai.types.chat import ChatCompletion, ChatCompletionChunk
from openai.types.responses.responses_server_event import ResponsesServerEvent

from payloads._scenario import Call, Scenario

CHAT = "openai_chat"
RESP = "openai_responses"
CREATED = 1_718_000_000
HOSTED_OFF = {"hosted_tools": False}

#: Fields of a hosted ``*_call`` item that are never arguments (docs/formats.md).
HOSTED_EXCLUDED = frozenset(
    {"type", "id", "call_id", "status", "output", "outputs", "result", "results", "error"})


def C(name: str, arguments: dict[str, Any] | None = None, id: str | None = None,
      raw: str | None = None) -> Call:
    return Call(name, {} if arguments is None else arguments, id, raw)


# ============================================================================================
# recorded bodies (VCR cassettes of other projects, extracted to /work/corpus/out)
# ============================================================================================

#: Each is (source repository, cassette path, body). The body text is the recorded bytes.
RECORDED: dict[str, tuple[str, str, str]] = {}


def _recorded(key: str, repo: str, path: str, body: str) -> str:
    RECORDED[key] = (repo, path, body)
    return body


# api.mistral.ai, Arize-ai/openinference, python/instrumentation/openinference-instrumentation-
# mistralai/tests/openinference/instrumentation/mistralai/cassettes/test_instrumentor/
# test_synchronous_streaming_chat_completions_with_tool_call_response_emits_expected_spans[False].yaml
MISTRAL_STREAM = _recorded(
    "mistral-stream", "Arize-ai/openinference",
    "python/instrumentation/openinference-instrumentation-mistralai/tests/openinference/"
    "instrumentation/mistralai/cassettes/test_instrumentor/test_synchronous_streaming_chat_"
    "completions_with_tool_call_response_emits_expected_spans[False].yaml",
    'data: {"id":"8d641f96950f401892c98eff1e4335cd","object":"chat.completion.chunk",'
    '"created":1724786761,"model":"mistral-small-latest","choices":[{"index":0,"delta":'
    '{"role":"assistant","content":""},"finish_reason":null,"logprobs":null}]}\n\n'
    'data: {"id":"8d641f96950f401892c98eff1e4335cd","object":"chat.completion.chunk",'
    '"created":1724786761,"model":"mistral-small-latest","choices":[{"index":0,"delta":'
    '{"content":null,"tool_calls":[{"id":"EscTeQY62","function":{"name":"get_weather",'
    '"arguments":"{\\"city\\": \\"San Francisco\\"}"}}]},"finish_reason":"tool_calls",'
    '"logprobs":null}],"usage":{"prompt_tokens":96,"total_tokens":119,"completion_tokens":23}}'
    '\n\ndata: [DONE]\n\n')

# api.inference.crusoecloud.com (vLLM), pydantic/pydantic-ai,
# tests/models/cassettes/test_crusoe/test_crusoe_tool_calling.yaml, interaction 0
CRUSOE_TOOL_CALL = _recorded(
    "crusoe-tool-call", "pydantic/pydantic-ai",
    "tests/models/cassettes/test_crusoe/test_crusoe_tool_calling.yaml#0",
    '{"choices": [{"finish_reason": "tool_calls", "index": 0, "logprobs": null, "message": '
    '{"annotations": null, "audio": null, "content": null, "function_call": null, "reasoning": '
    '"The user wants to know the weather in Paris. I\'ll call the get_weather function with '
    '\\"Paris\\" as the city.", "refusal": null, "role": "assistant", "tool_calls": '
    '[{"function": {"arguments": "{\\"city\\": \\"Paris\\"}", "name": "get_weather"}, "id": '
    '"chatcmpl-tool-bbb91941bf76335c", "type": "function"}]}, "routed_experts": null, '
    '"stop_reason": 154829, "token_ids": null}], "created": 1786479605, "id": '
    '"chatcmpl-0eb1633433141700", "kv_transfer_params": null, "metrics": null, "model": '
    '"zai/GLM-5.2", "object": "chat.completion", "prompt_logprobs": null, "prompt_text": null, '
    '"prompt_token_ids": null, "service_tier": null, "system_fingerprint": null, "usage": '
    '{"completion_tokens": 37, "completion_tokens_details": {"reasoning_tokens": 25}, '
    '"prompt_tokens": 167, "prompt_tokens_details": {"cached_tokens": 0, "multimodal_tokens": '
    'null}, "total_tokens": 204}}')

# generativelanguage.googleapis.com/v1beta/openai (Gemini's OpenAI compatibility),
# pydantic/pydantic-ai, tests/models/cassettes/test_openai/
# test_compatible_api_with_tool_calls_without_id.yaml, interaction 0
_SIG_LONG = ("AVSoXO4AzAXs7GGvOY63fp8CwJK3yR8HbUPhxhfN2HaPvJnscmZCkaWvckz5NL3nIMK+si/baQcsM2Q8"
             "ME9V1RQrb3w1IKceWfjO3kHPL11odY/p6Us4GkkvJqKU/OgUnbAMbuvNdX1pyXWZUrQ7WyXZ5F4mjbxBS"
             "CLiVOTdFlK53zn+ajq5JIuG9AYHgwE/sJxUUpvNd6RcWvZR3fQb8gufjCspiO2ZdInRcdGsz/+XftFHxF"
             "bXkdtCRAw74AtjlN5osb+KgDYojdohKIEit9DcTBe7hI7oEHWMfnqYSgGrrad4FJpNB3jXmSFevE2iYYK"
             "UBzWvxJNj8fIYrCC0g4rJ1aJvuoU=")
GEMINI_COMPAT_EMPTY_ID = _recorded(
    "gemini-compat-empty-id", "pydantic/pydantic-ai",
    "tests/models/cassettes/test_openai/test_compatible_api_with_tool_calls_without_id.yaml#0",
    json.dumps({"choices": [{"finish_reason": "tool_calls", "index": 0, "message": {
        "extra_content": {"google": {"thought": True, "thought_signature": _SIG_LONG}},
        "role": "assistant", "thought_signature": _SIG_LONG,
        "tool_calls": [{"function": {"arguments": "{}", "name": "get_current_time"},
                        "id": "", "type": "function"}]}}],
        "created": 1748902365, "id": "3SE-aKjdCcCEz7IPxpqjCA",
        "model": "gemini-2.5-pro-preview-05-06", "object": "chat.completion",
        "usage": {"completion_tokens": 12, "prompt_tokens": 35, "total_tokens": 109}}))

# myorg-myaccount.snowflakecomputing.com/api/v2/cortex/v1/chat/completions, pydantic/pydantic-ai,
# tests/models/cassettes/test_snowflake/*.yaml (a Go server: every zero value is sent)
def _snow_usage(completion: int, prompt: int) -> dict[str, Any]:
    return {"completion_tokens": completion, "completion_tokens_details": {
        "accepted_prediction_tokens": 0, "audio_tokens": 0, "reasoning_tokens": 0,
        "rejected_prediction_tokens": 0}, "prompt_tokens": prompt, "prompt_tokens_details": {
        "audio_tokens": 0, "cached_tokens": 0}, "total_tokens": completion + prompt}


def _snow_message(content: str, tool_calls: Any = None, **extra: Any) -> dict[str, Any]:
    message = {"annotations": None, "audio": {"data": "", "expires_at": 0, "id": "",
                                              "transcript": ""},
               "content": content, "function_call": {"arguments": "", "name": ""},
               "refusal": "", "role": "assistant", "tool_calls": tool_calls}
    message.update(extra)
    return message


def _snow_body(message: dict[str, Any], created: int, usage: tuple[int, int],
               model: str = "claude-sonnet-4-6") -> str:
    return json.dumps({"choices": [{"finish_reason": "", "index": 0, "logprobs": {
        "content": None, "refusal": None}, "message": message}], "created": created, "id": "",
        "model": model, "object": "chat.completion", "service_tier": "",
        "system_fingerprint": "", "usage": _snow_usage(*usage)}, ensure_ascii=False)


_SNOW_SIG = ('EvABCmcIDxABGAIqQFM/jYu4+m2g6fS9iiCUBIS45wLt7DdCQHB0qE7xpn8yZKDDAVY9GGV6zNWApQNA'
              'm8GJt8tEJUdsXjw1dTmu+OEyEWNsYXVkZS1zb25uZXQtNC02OABCCHRoaW5raW5nEgwm+8JGUtw/04vq'
              'hQYaDEMH3O/Tk/u4Ma35PyIwxmOSxfYhf9241w6X/2C/qLVXxmTjZv96q97L6Z+XL2RHebYbSsWNsxOT'
              'nS/ZqkZrKjd6apu9z4RZ01LZrKu4EEx+EU73OCjN3InMvsXiiYcfEQgE76iaKpYvdtHzGnfUlp5tlxxT'
              '1L42GAE=')

SNOW_TOOL_CALL = _recorded(
    "snowflake-tool-call", "pydantic/pydantic-ai",
    "tests/models/cassettes/test_snowflake/test_snowflake_tool_calling.yaml#0",
    _snow_body(_snow_message("", [{"custom": {"input": "", "name": ""}, "function": {
        "arguments": "{\"city\":\"Mexico City\"}", "name": "get_weather"},
        "id": "toolu_bdrk_015BgHUFs4HS1TVWWwNRNxip", "type": "function"}]), 1783468049, (55, 568)))
SNOW_TOOL_ANSWER = _recorded(
    "snowflake-tool-answer", "pydantic/pydantic-ai",
    "tests/models/cassettes/test_snowflake/test_snowflake_tool_calling.yaml#1",
    _snow_body(_snow_message("The weather in Mexico City is currently sunny with a pleasant "
                             "temperature of 25°C."), 1783468051, (21, 642)))
SNOW_TEXT = _recorded(
    "snowflake-text", "pydantic/pydantic-ai",
    "tests/models/cassettes/test_snowflake/test_snowflake_model_simple.yaml#0",
    _snow_body(_snow_message("4"), 1783468047, (5, 22)))
SNOW_THINKING_CALL = _recorded(
    "snowflake-thinking-tool-call", "pydantic/pydantic-ai",
    "tests/models/cassettes/test_snowflake/test_snowflake_thinking.yaml#0",
    _snow_body(_snow_message(
        "Sure! Let me check that for you!",
        [{"custom": {"input": "", "name": ""}, "function": {
            "arguments": "{\"city\":\"Mexico City\"}", "name": "get_weather"},
          "id": "toolu_bdrk_01VmA9jmWpws4HgPqjhtGo6i", "type": "function"}],
        reasoning_details=[{"format": "anthropic-claude-v1", "id": "reasoning-text-1",
                            "index": 0, "signature": _SNOW_SIG,
                            "text": "Let me get the weather for Mexico City.",
                            "type": "reasoning.text"}]), 1783468054, (81, 597)))
SNOW_STREAM_TEXT = _recorded(
    "snowflake-stream-text", "pydantic/pydantic-ai",
    "tests/models/cassettes/test_snowflake/test_snowflake_model_streaming.yaml#0",
    'data: {"choices":[{"delta":{"content":"4","refusal":"","role":"assistant","tool_calls":'
    'null},"index":0,"logprobs":{"content":null,"refusal":null}}],"created":0,"id":"","model":'
    '"claude-sonnet-4-6","object":"chat.completion.chunk","service_tier":"","system_fingerprint"'
    ':""}\n\ndata: {"choices":[{"delta":{"content":"","refusal":"","role":"assistant",'
    '"tool_calls":null},"index":0,"logprobs":{"content":null,"refusal":null}}],"created":0,'
    '"id":"","model":"claude-sonnet-4-6","object":"chat.completion.chunk","service_tier":"",'
    '"system_fingerprint":""}\n\ndata: {"choices":[],"created":0,"id":"","model":'
    '"claude-sonnet-4-6","object":"chat.completion.chunk","service_tier":"",'
    '"system_fingerprint":"","usage":{"completion_tokens":5,"completion_tokens_details":'
    '{"accepted_prediction_tokens":0,"audio_tokens":0,"reasoning_tokens":0,'
    '"rejected_prediction_tokens":0},"prompt_tokens":22,"prompt_tokens_details":'
    '{"audio_tokens":0,"cached_tokens":0},"total_tokens":27}}\n\ndata: [DONE]\n\n')


# api.writer.com/v1/chat, traceloop/openllmetry, packages/opentelemetry-instrumentation-writer/
# tests/cassettes/test_chat/*.yaml: every chunk carries `delta` AND `message` (here equal to
# the delta, not cumulative; the Writer SDK documents `message` as deprecated for streaming).
_WRITER_EXTRA = {"graph_data": {"sources": None, "status": None, "subqueries": None},
                 "llm_data": None, "image_data": None, "translation_data": None,
                 "web_search_data": None, "refusal": None}


def _writer_chunk(cid: str, created: int, content: Any = None, tool_calls: Any = None,
                  finish: str | None = None) -> dict[str, Any]:
    part = {"content": content, "role": "assistant", "tool_calls": tool_calls, **_WRITER_EXTRA}
    return {"id": cid, "object": "chat.completion.chunk", "choices": [
        {"index": 0, "finish_reason": finish, "message": copy.deepcopy(part),
         "delta": copy.deepcopy(part), "logprobs": None, "trace_details": None}],
        "created": created, "model": "palmyra-x4", "usage": None, "system_fingerprint": "v1",
        "service_tier": None}


def _writer_stream(cid: str, created: int, calls: list[tuple[str, str, list[str]]],
                   usage: dict[str, Any]) -> str:
    chunks = [_writer_chunk(cid, created)]
    for index, (call_id, name, pieces) in enumerate(calls):
        chunks.append(_writer_chunk(cid, created, tool_calls=[
            {"index": index, "id": call_id, "type": "function",
             "function": {"name": name, "arguments": None}}]))
        for piece in pieces:
            chunks.append(_writer_chunk(cid, created, tool_calls=[
                {"index": index, "id": None, "type": None,
                 "function": {"name": None, "arguments": piece}}]))
    chunks.append(_writer_chunk(cid, created, finish="tool_calls"))
    chunks.append({"id": cid, "object": "chat.completion.chunk", "choices": [],
                   "created": created, "model": "palmyra-x4", "usage": usage,
                   "system_fingerprint": "v1", "service_tier": None})
    return "".join(f"data: {json.dumps(c, separators=(',', ':'))}\n\n" for c in chunks)


_WRITER_CITIES = ["Zakopane", "Warsaw", "Lodz", "Katowice", "Krakow", "Poznan", "Lublin"]
_WRITER_STREAM_IDS = ["5ac885d9b1b54a66b11f014a1ecb5b9d", "368eedfd835c4186b5cb97c69d803cf0",
                      "af73f77676e3402e9e04a4f867552ddd", "e9d9b531d7954d789c1ccc21dbdd3be0",
                      "a5155160b47c4f5c9f02eb234cac9e7c", "aad9face17d14c7296dd569213e61f47",
                      "938c427496df48f3b2efb60d6a854461"]
_WRITER_IDS = ["429aded05dbe483697404967c567cbd6", "d5ac8291d8b749cda1d03b18baa013fa",
               "cd3559179f45440f8b62c90061810568", "6d25c273232f49febba77f29ec73f103",
               "f639e3c813c9409baf07d08ca2e2e456", "f17729a2f75f46afb9a74d66b80580ff",
               "d3982e8dc28241fbad74d2b7168a3aa6"]
WRITER_STREAM_ONE = _recorded(
    "writer-stream-one", "traceloop/openllmetry",
    "packages/opentelemetry-instrumentation-writer/tests/cassettes/test_chat/"
    "test_writer_async_streaming_chat_tool_call_request_legacy.yaml",
    _writer_stream("a2c90cfe-1887-47df-9b3b-f8a20ba21ff2", 1755878837,
                   [("chatcmpl-tool-a31f1a5690b14b7daf0e78d2a2d23da2", "get_weather",
                     ['{"location":', ' "Zakopane"}'])],
                   {"prompt_tokens": 194, "total_tokens": 216, "completion_tokens": 22,
                    "prompt_token_details": None, "completion_tokens_details": None}))
WRITER_STREAM_SEVEN = _recorded(
    "writer-stream-seven", "traceloop/openllmetry",
    "packages/opentelemetry-instrumentation-writer/tests/cassettes/test_chat/"
    "test_writer_async_streaming_chat_multiple_tool_call_requests_legacy.yaml",
    _writer_stream("1908e68d-0a48-4394-a155-d160bca81742", 1756221269,
                   [(f"chatcmpl-tool-{h}", "get_weather", ['{"location":', f' "{city}"}}'])
                    for h, city in zip(_WRITER_STREAM_IDS, _WRITER_CITIES)],
                   {"prompt_tokens": 212, "total_tokens": 365, "completion_tokens": 153,
                    "prompt_token_details": None, "completion_tokens_details": None}))
WRITER_SEVEN = _recorded(
    "writer-seven", "traceloop/openllmetry",
    "packages/opentelemetry-instrumentation-writer/tests/cassettes/test_chat/"
    "test_writer_async_chat_multiple_tool_call_requests_legacy.yaml",
    json.dumps({"id": "48dfd042-80b7-49ac-8cd9-ea800839a0dc", "object": "chat.completion",
                "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
                    "content": None, "role": "assistant", "tool_calls": [
                        {"index": None, "id": f"chatcmpl-tool-{h}", "type": "function",
                         "function": {"name": "get_weather",
                                      "arguments": json.dumps({"location": city})}}
                        for h, city in zip(_WRITER_IDS, _WRITER_CITIES)], **_WRITER_EXTRA},
                    "logprobs": None, "trace_details": None}],
                "created": 1756221098, "model": "palmyra-x4",
                "usage": {"prompt_tokens": 212, "total_tokens": 365, "completion_tokens": 153,
                          "prompt_token_details": None, "completion_tokens_details": None},
                "system_fingerprint": "v1", "service_tier": None}))


# ============================================================================================
# the SDK client over a mock transport
# ============================================================================================


class _Mock:
    def __init__(self) -> None:
        self.queue: list[Any] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        body = self.queue.pop(0)
        if isinstance(body, dict):
            return httpx2.Response(200, json=body)
        if isinstance(body, str) and not body.lstrip().startswith(("data:", "event:")):
            return httpx2.Response(200, content=body.encode(),
                                   headers={"content-type": "application/json"})
        data = body.encode() if isinstance(body, str) else body
        return httpx2.Response(200, content=data, headers={"content-type": "text/event-stream"})


_MOCK = _Mock()
_CLIENT = openai.OpenAI(api_key="sk-test", base_url="http://test/v1", max_retries=0,
                        http_client=openai.DefaultHttpxClient(
                            transport=httpx2.MockTransport(_MOCK)))
_MESSAGES = [{"role": "user", "content": "What's the weather in Paris?"}]
_TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}}}}]


def chat_create(body: dict[str, Any] | str) -> ChatCompletion:
    _MOCK.queue.append(body)
    return _CLIENT.chat.completions.create(model="gpt-4o", messages=_MESSAGES, tools=_TOOLS)


def chat_stream(sse: str) -> list[ChatCompletionChunk]:
    _MOCK.queue.append(sse)
    return list(_CLIENT.chat.completions.create(model="gpt-4o", messages=_MESSAGES,
                                                tools=_TOOLS, stream=True))


def chat_stream_final(sse: str) -> Any:
    """client.chat.completions.stream(...).get_final_completion(); raises what the SDK raises."""
    _MOCK.queue.append(sse)
    try:
        with _CLIENT.chat.completions.stream(model="gpt-4o", messages=_MESSAGES,
                                             tools=_TOOLS) as stream:
            for _ in stream:
                pass
            return stream.get_final_completion()
    finally:
        _MOCK.queue.clear()


def state_final(chunks: list[ChatCompletionChunk]) -> Any:
    state = ChatCompletionStreamState()
    for chunk in chunks:
        state.handle_chunk(chunk)
    return state.get_final_completion()


def sdk_chat_calls(completion: Any) -> tuple[Call, ...]:
    """The calls of choices[0] of an SDK (Parsed)ChatCompletion, parsed like the SEMANTICS
    (an id of '' is no id)."""
    out = []
    for tc in completion.choices[0].message.tool_calls or []:
        fn = tc.function
        text = fn.arguments or ""
        try:
            args = json.loads(text) if text else {}
            raw = None if isinstance(args, dict) else text
        except ValueError:
            args, raw = {}, text
        out.append(Call(fn.name, args if isinstance(args, dict) else {}, tc.id or None, raw))
    return tuple(out)


def _sdk_agrees(sdk: tuple[Call, ...], expected: tuple[Call, ...], label: str) -> None:
    assert sdk == expected, f"{label}: the SDK's accumulator gives {sdk}, expected {expected}"


def _sdk_fails(fn: Any, label: str) -> str:
    try:
        fn()
    except Exception as exc:  # the SDK's own accumulator cannot take this shape
        return f"{type(exc).__name__}: {exc}"
    raise AssertionError(f"{label}: expected the SDK accumulator to fail")


# -- forms ------------------------------------------------------------------------------------


def _dump(obj: Any) -> Any:
    if isinstance(obj, list):
        return [_dump(o) for o in obj]
    if hasattr(obj, "model_dump"):
        # warnings=False: an item type the SDK does not know is constructed as the union's
        # first member (ResponseOutputMessage), and dumping it warns.
        return obj.model_dump(mode="json", warnings=False)
    return obj


def _forms(provider: str, name: str, obj: Any, expected: tuple[Call, ...] | None, note: str,
           *, sse: str | None = None, raw: Any = None, refusal: str | None = None,
           options: dict[str, Any] | None = None, object_form: bool = True) -> list[Scenario]:
    """object, model_dump(mode="json"), its JSON text, the raw JSON the API sent (``raw``),
    and the SSE text (``sse``) with its bytes."""
    opts = options or {}

    def sc(form: str, suffix: str, payload: Any, extra: str = "") -> Scenario:
        return Scenario(provider, form, name + suffix, payload, expected, refusal, dict(opts),
                        (note + extra).strip())

    out = []
    if object_form:
        out.append(sc("object", "", obj))
    out.append(sc("dump", "", _dump(obj), ' model_dump(mode="json").'))
    out.append(sc("json", "", json.dumps(_dump(obj))))
    if raw is not None:
        out.append(sc("dump", "-raw", raw, " The JSON as the API sent it."))
    if sse is not None:
        out.append(sc("sse", "", sse, " The SSE text as the API sent it."))
        out.append(sc("sse", "-bytes", sse.encode()))
    return out


# -- chunk builders -----------------------------------------------------------------------------

_MISSING = object()


def piece(index: Any = _MISSING, call_id: Any = _MISSING, name: Any = _MISSING,
          arguments: Any = _MISSING, type_: Any = _MISSING, **extra: Any) -> dict[str, Any]:
    """One delta.tool_calls[] piece; an argument left _MISSING leaves its key out."""
    out: dict[str, Any] = {}
    if index is not _MISSING:
        out["index"] = index
    if call_id is not _MISSING:
        out["id"] = call_id
    if type_ is not _MISSING:
        out["type"] = type_
    function: dict[str, Any] = {}
    if name is not _MISSING:
        function["name"] = name
    if arguments is not _MISSING:
        function["arguments"] = arguments
    out["function"] = function
    out.update(extra)
    return out


def chunk(cid: str, delta: dict[str, Any] | None = None, finish: str | None = None,
          *, choices: list | None = None, model: str = "gpt-4o-2024-08-06",
          **extra: Any) -> dict[str, Any]:
    if choices is None:
        choices = [{"index": 0, "delta": delta or {}, "logprobs": None,
                    "finish_reason": finish}]
    out = {"id": cid, "object": "chat.completion.chunk", "created": CREATED, "model": model,
           "system_fingerprint": "fp_test", "choices": choices}
    out.update(extra)
    return out


def tool_stream(cid: str, pieces: list[dict[str, Any]], finish: str = "tool_calls", *,
                lead: list[dict[str, Any]] | None = None, usage: bool = True,
                **kw: Any) -> list[dict[str, Any]]:
    chunks = [chunk(cid, {"role": "assistant", "content": None}, **kw)]
    chunks += lead or []
    chunks += [chunk(cid, {"tool_calls": [p]}, **kw) for p in pieces]
    chunks.append(chunk(cid, {}, finish, **kw))
    if usage:
        chunks.append(chunk(cid, choices=[], usage={"prompt_tokens": 40, "completion_tokens": 20,
                                                     "total_tokens": 60}, **kw))
    return chunks


def sse_of(chunks: list[dict[str, Any]], done: bool = True) -> str:
    text = "".join(f"data: {json.dumps(c, separators=(',', ':'))}\n\n" for c in chunks)
    return text + ("data: [DONE]\n\n" if done else "")


def split(text: str, size: int = 6) -> list[str]:
    return [text[i:i + size] for i in range(0, len(text), size)]


# ============================================================================================
# Chat Completions
# ============================================================================================


def _chat_stream_scenarios() -> list[Scenario]:
    out: list[Scenario] = []
    paris = '{"city": "Paris"}'

    def stream_case(name: str, chunks: list[dict[str, Any]], expected: tuple[Call, ...], note: str,
                    *, sdk: str = "agrees", final_form: bool = True) -> list[Any]:
        """sdk: "agrees" (ChatCompletionStreamState and chat.completions.stream give
        ``expected``; their final completion becomes a scenario too), "fails" (the SDK's
        accumulator raises), or "differs" (it gives something else; noted)."""
        sse = sse_of(chunks)
        objects = chat_stream(sse)
        extra = ""
        if sdk == "agrees":
            final = state_final(objects)
            _sdk_agrees(sdk_chat_calls(final), expected, name)
            _sdk_agrees(sdk_chat_calls(chat_stream_final(sse)), expected, name + " (stream())")
        elif sdk == "differs":
            got = sdk_chat_calls(state_final(objects))
            assert got != expected, name
            extra = f" (ChatCompletionStreamState gives {[(c.name, c.arguments, c.id) for c in got]}.)"
        elif sdk == "fails":
            reason = _sdk_fails(lambda: state_final(objects), name)
            extra = f" The SDK's ChatCompletionStreamState raises on it ({reason})."
        out.extend(_forms(CHAT, name, objects, expected, note + extra, sse=sse))
        if sdk == "agrees" and final_form:
            out.extend(_forms(CHAT, name + "-sdk-final", final, expected,
                              "ChatCompletionStreamState().get_final_completion() of the same "
                              "stream."))
        return objects

    # 1. a function NAME in two pieces, same index, the id repeated --------------------------
    chunks = tool_stream("chatcmpl-e-ns1", [
        piece(0, "call_ns1", "get_", "", "function"),
        piece(0, "call_ns1", "weather", "", "function"),
        piece(0, arguments='{"city": '), piece(0, arguments='"Paris"}')])
    expected = (C("get_weather", {"city": "Paris"}, "call_ns1"),)
    sse = sse_of(chunks)
    objects = chat_stream(sse)
    final = state_final(objects)
    got = sdk_chat_calls(final)
    assert got == (C("get_weather", {"city": "Paris"}, "call_ns1call_ns1"),), got
    out += _forms(CHAT, "edge-stream-name-split-id-repeated", objects, expected,
                  "The function name arrives in two pieces ('get_' + 'weather') with the same "
                  "index and the SAME id repeated. The SDK's accumulate_delta concatenates every "
                  "string, so it gives name 'get_weather' (right) and id 'call_ns1call_ns1' "
                  "(an artifact): the name is concatenated, a repeated id is the same id.",
                  sse=sse)
    out += _forms(CHAT, "edge-stream-name-split-id-repeated-sdk-final", final,
                  (C("get_weather", {"city": "Paris"}, "call_ns1call_ns1"),),
                  "What ChatCompletionStreamState().get_final_completion() builds from that "
                  "stream: its tool call literally has id 'call_ns1call_ns1'; read as it is.")

    stream_case("edge-stream-name-split", tool_stream("chatcmpl-e-ns2", [
        piece(0, "call_ns2", "edit_ex", "", "function"), piece(0, name="isting_file"),
        piece(0, arguments='{"path": "a.py"}')]),
        (C("edit_existing_file", {"path": "a.py"}, "call_ns2"),),
        "Name streamed in pieces ('edit_ex' + 'isting_file'), id only on the first piece: "
        "continuedev/continue#5849 reports Gemini's OpenAI layer doing this. The SDK "
        "concatenates: 'edit_existing_file'.")

    stream_case("edge-stream-name-empty-continuation", tool_stream("chatcmpl-e-ne", [
        piece(0, "call_ne1", "get_weather", "", "function")] + [
        piece(0, name="", arguments=p) for p in split(paris)]),
        (C("get_weather", {"city": "Paris"}, "call_ne1"),),
        "Continuation pieces carry function.name '' (not null, not absent): empty name = "
        "no new name. The SDK concatenates '' (no-op).")

    # fresh id on every fragment: Kimi (name absent) and LM Studio (name '') ----------------
    kimi = [piece(0, "tool_OEUd7", "skill_view", "", "function")] + [
        piece(0, f"tool_frag{i}", arguments=p, type_="function")
        for i, p in enumerate(['{"', "name", '":', ' "pdf', '"}'])]
    stream_case("edge-stream-fresh-id-per-fragment", tool_stream("chatcmpl-e-kimi", kimi),
                (C("skill_view", {"name": "pdf"}, "tool_OEUd7"),),
                "One call whose every argument fragment has a NEW id at the same index and no "
                "name (Kimi K2 coding endpoint, LM Studio: NousResearch/hermes-agent#45164, "
                "#5254, #106943). A nameless piece cannot start a call: one call, id = the id of "
                "the piece that carried the name. (The SDK concatenates all the ids.)",
                sdk="differs")
    lms = [piece(0, "701601222", "shell", "", "function")] + [
        piece(0, f"tool-call-{i + 1}", "", p, "function")
        for i, p in enumerate(["{\n", " ", ' "', "command", '": "ls"', "\n}"])]
    stream_case("edge-stream-fresh-id-empty-name", tool_stream("chatcmpl-e-lms", lms),
                (C("shell", {"command": "ls"}, "701601222"),),
                "LM Studio (gemma-4): first piece {name 'shell', arguments '', id '701601222'}, "
                "then 'tool-call-1', 'tool-call-2', ... each with name '' and one argument "
                "fragment (hermes-agent#5254). One call.", sdk="differs")

    # tool-call indexes starting at 1 ------------------------------------------------------
    lead = [chunk("chatcmpl-e-ix1", {"content": "Let me check the weather."})]
    stream_case("edge-stream-index-starts-at-1", tool_stream("chatcmpl-e-ix1", [
        piece(1, "tooluse_2ZNq3", "get_weather", "", "function"),
        piece(1, arguments='{"city":'), piece(1, arguments=' "Paris"}')], lead=lead),
        (C("get_weather", {"city": "Paris"}, "tooluse_2ZNq3"),),
        "A Bedrock->OpenAI gateway copies the content-block index, so the only call has "
        "index 1 after a text block (aws-samples/bedrock-access-gateway#134, "
        "agentgateway#2965, litellm#32759).", sdk="fails")
    stream_case("edge-stream-index-1-and-2", tool_stream("chatcmpl-e-ix2", [
        piece(1, "tooluse_kZJM", "top_song", type_="function"),
        piece(1, None, arguments='{"sign":', type_=None),
        piece(1, None, arguments=' "WZPZ"}', type_=None),
        piece(2, "tooluse_r8Qx", "get_weather", type_="function"),
        piece(2, None, arguments='{"city": "Paris"}', type_=None)],
        lead=[chunk("chatcmpl-e-ix2", {"content": "I'll call both tools."})]),
        (C("top_song", {"sign": "WZPZ"}, "tooluse_kZJM"),
         C("get_weather", {"city": "Paris"}, "tooluse_r8Qx")),
        "Two calls at indexes 1 and 2 (agentgateway#2965 snapshot shape: the opening piece "
        "has no arguments key, later pieces id null / type null).", sdk="fails")

    # Mistral: no index, each chunk a whole call with its id ----------------------------------
    objects = chat_stream(MISTRAL_STREAM)
    reason = _sdk_fails(lambda: state_final(objects), "mistral")
    out += _forms(CHAT, "edge-stream-mistral-recorded", objects,
                  (C("get_weather", {"city": "San Francisco"}, "EscTeQY62"),),
                  "RECORDED api.mistral.ai stream: the call arrives whole in one piece with no "
                  "index and no type, finish_reason tool_calls and usage in the SAME chunk. "
                  f"The SDK's accumulator raises ({reason}).", sse=MISTRAL_STREAM)
    mistral2 = [chunk("cmpl-e-mis2", {"role": "assistant", "content": ""},
                      model="mistral-small-latest"),
                chunk("cmpl-e-mis2", {"content": None, "tool_calls": [
                    {"id": "Kp0sN9x2a", "function": {"name": "get_weather",
                                                     "arguments": '{"city": "Paris"}'}},
                    {"id": "Zq4Lr7c1B", "function": {"name": "get_time",
                                                     "arguments": '{"tz": "Europe/Paris"}'}}]},
                      "tool_calls", model="mistral-small-latest",
                      usage={"prompt_tokens": 96, "total_tokens": 131, "completion_tokens": 35})]
    stream_case("edge-stream-mistral-parallel", mistral2,
                (C("get_weather", {"city": "Paris"}, "Kp0sN9x2a"),
                 C("get_time", {"tz": "Europe/Paris"}, "Zq4Lr7c1B")),
                "Mistral style, two whole calls (no index, no type) in ONE delta, with "
                "finish_reason and usage on that chunk.", sdk="fails")

    # choices: [] chunks and Azure asynchronous-filter annotation chunks mid-stream ----------
    azure_note = {"choices": [{"index": 0, "finish_reason": None,
                               "content_filter_offsets": {"check_offset": 35,
                                                          "start_offset": 35, "end_offset": 78},
                               "content_filter_results": {
                                   "hate": {"filtered": False, "severity": "safe"},
                                   "violence": {"filtered": False, "severity": "safe"}}}],
                  "created": 0, "id": "", "model": "", "object": ""}
    pieces = [piece(0, "call_az1", "get_weather", "", "function")] + [
        piece(0, arguments=p) for p in split(paris)]
    chunks = [chunk("chatcmpl-e-az", {"role": "assistant", "content": None})]
    for i, p in enumerate(pieces):
        chunks.append(chunk("chatcmpl-e-az", {"tool_calls": [p]}))
        if i == 1:
            chunks.append(copy.deepcopy(azure_note))
        if i == 2:
            chunks.append(chunk("chatcmpl-e-az", choices=[]))
    chunks += [chunk("chatcmpl-e-az", {}, "tool_calls"), copy.deepcopy(azure_note),
               chunk("chatcmpl-e-az", choices=[], usage={"prompt_tokens": 9,
                                                          "completion_tokens": 9,
                                                          "total_tokens": 18})]
    sse = sse_of(chunks)
    objects = chat_stream(sse)
    final = chat_stream_final(sse)
    _sdk_agrees(sdk_chat_calls(final), (C("get_weather", {"city": "Paris"}, "call_az1"),),
                "azure")
    out += _forms(CHAT, "edge-stream-azure-async-filter-mid-stream", objects,
                  (C("get_weather", {"city": "Paris"}, "call_az1"),),
                  "Azure OpenAI asynchronous filter: annotation chunks (object '', id '', a "
                  "choice with content_filter_offsets/results and NO delta) and a choices [] "
                  "chunk arrive in the MIDDLE of the tool-call pieces (learn.microsoft.com/azure/"
                  "foundry/openai/concepts/content-streaming). client.chat.completions.stream() "
                  "skips the object '' chunks (_is_valid_chat_completion_chunk_weak) and agrees.",
                  sse=sse)

    # vLLM stop_reason inside choices -------------------------------------------------------
    vchunks = tool_stream("chatcmpl-e-vllm", [piece(0, "chatcmpl-tool-9f1e", "get_weather", "",
                                                    "function")] +
                          [piece(0, arguments=p) for p in split(paris)],
                          model="Qwen/Qwen3-32B", usage=False)
    for c in vchunks:
        for ch in c["choices"]:
            ch["stop_reason"] = None
            ch["token_ids"] = None
    vchunks[-1]["choices"][0]["stop_reason"] = 151658
    vchunks.append(chunk("chatcmpl-e-vllm", choices=[], model="Qwen/Qwen3-32B",
                         usage={"prompt_tokens": 99, "completion_tokens": 21,
                                "total_tokens": 120}, prompt_token_ids=None))
    stream_case("edge-stream-vllm-stop-reason", vchunks,
                (C("get_weather", {"city": "Paris"}, "chatcmpl-tool-9f1e"),),
                "vLLM: every choice carries 'stop_reason' (null, then the stop token id "
                "151658 on the finish chunk) and 'token_ids'; 'stop_reason' is also an "
                "Anthropic key, so it must not steer detection away from openai_chat "
                "(recorded shape: pydantic-ai test_crusoe cassettes).")

    # Gemini OpenAI compatibility: extra_content.google.thought_signature ------------------
    def gem(*pieces_: dict[str, Any]) -> list[dict[str, Any]]:
        return [chunk("e-gem-s", {"role": "assistant", "tool_calls": [p]}, model="gemini-3-flash")
                for p in pieces_] + [chunk("e-gem-s", {}, "tool_calls", model="gemini-3-flash")]

    sig = {"google": {"thought_signature": "CiMBjz1rX25KieIB4d4AwFn8"}}
    stream_case("edge-stream-gemini-compat-no-index-extra-content", gem(
        piece(call_id="function-call-11812", type_="function", name="get_weather",
              arguments='{"city":"Paris"}', extra_content=sig),
        piece(call_id="function-call-11813", type_="function", name="get_time",
              arguments='{"tz":"Europe/Paris"}')),
        (C("get_weather", {"city": "Paris"}, "function-call-11812"),
         C("get_time", {"tz": "Europe/Paris"}, "function-call-11813")),
        "Gemini / Vertex AI OpenAI-compatible stream: whole calls without 'index' "
        "(openai/openai-python#2806, PR #3246), the first with extra_content.google."
        "thought_signature (ai.google.dev/gemini-api/docs/thought-signatures). "
        "extra_content is not an argument.", sdk="fails")
    stream_case("edge-stream-gemini-compat-indexed-extra-content", gem(
        piece(0, "function-call-2201", "get_weather", '{"city":"Paris"}', "function",
              extra_content=sig),
        piece(1, "function-call-2202", "get_time", '{"tz":"Europe/Paris"}', "function")),
        (C("get_weather", {"city": "Paris"}, "function-call-2201"),
         C("get_time", {"tz": "Europe/Paris"}, "function-call-2202")),
        "Same with indexes (as proxies like QuantumNous/new-api#671 add them); the SDK "
        "keeps extra_content on the tool call (it accumulates unknown keys).")

    # Snowflake-style zero values in a stream (synthesized: no recorded tool stream) ----------
    zero = {"custom": {"input": "", "name": ""}}
    snow = [chunk("", {"content": "", "refusal": "", "role": "assistant", "tool_calls": [
        piece(0, "toolu_bdrk_01Sn0w", "get_weather", "", "function", **copy.deepcopy(zero))]},
        model="claude-sonnet-4-6")] + [
        chunk("", {"content": "", "refusal": "", "role": "assistant", "tool_calls": [
            piece(0, "", "", p, "function", **copy.deepcopy(zero))]}, model="claude-sonnet-4-6")
        for p in ['{"city":', '"Mexico City"}']]
    snow.append(chunk("", choices=[], model="claude-sonnet-4-6",
                      usage={"prompt_tokens": 568, "completion_tokens": 55, "total_tokens": 623}))
    stream_case("edge-stream-go-zero-values", snow,
                (C("get_weather", {"city": "Mexico City"}, "toolu_bdrk_01Sn0w"),),
                "SYNTHESIZED in the Snowflake Cortex style (a Go server sends every zero value): "
                "chunk id '', no finish_reason key, each piece repeats id '' / name '' / type "
                "'function' and an empty custom {name '', input ''}. Empty strings are absent "
                "values: one function call, no custom call.")
    return out


def _chat_response_scenarios() -> list[Scenario]:
    out: list[Scenario] = []

    def recorded(name: str, body: str, expected: tuple[Call, ...], note: str) -> None:
        completion = chat_create(body)
        _sdk_agrees(sdk_chat_calls(completion), expected, name)
        out.extend(_forms(CHAT, name, completion, expected, note, raw=json.loads(body)))

    recorded("edge-vllm-stop-reason-recorded", CRUSOE_TOOL_CALL,
             (C("get_weather", {"city": "Paris"}, "chatcmpl-tool-bbb91941bf76335c"),),
             "RECORDED Crusoe (vLLM) response: choices[0] has 'stop_reason': 154829 (an int "
             "token id) beside finish_reason 'tool_calls', plus 'token_ids', 'routed_experts', "
             "top-level 'prompt_token_ids'.")
    body = json.loads(CRUSOE_TOOL_CALL)
    body["choices"][0]["stop_reason"] = "</tool_call>"
    body["id"] = "chatcmpl-e-vllm-str"
    recorded("edge-vllm-stop-reason-string", json.dumps(body),
             (C("get_weather", {"city": "Paris"}, "chatcmpl-tool-bbb91941bf76335c"),),
             "vLLM with a stop STRING: stop_reason '</tool_call>' (vLLM sends the matched stop "
             "string or token id, or null).")

    completion = chat_create(GEMINI_COMPAT_EMPTY_ID)
    out += _forms(CHAT, "edge-gemini-compat-empty-id-recorded", completion,
                  (C("get_current_time", {}, None),),
                  "RECORDED generativelanguage.googleapis.com/v1beta/openai response: the tool "
                  "call has id '' (older Gemini models), and the message carries "
                  "extra_content.google {thought, thought_signature} plus a bare "
                  "thought_signature. CHOSEN: id '' is no id (None).",
                  raw=json.loads(GEMINI_COMPAT_EMPTY_ID))

    body = {"id": "e-gem-par", "object": "chat.completion", "created": CREATED,
            "model": "gemini-3-flash", "choices": [{"index": 0, "finish_reason": "tool_calls",
                                                    "message": {"role": "assistant",
                                                                "tool_calls": [
        {"extra_content": {"google": {"thought_signature": "CiMBjz1rX25KieIB4d4AwFn8"}},
         "function": {"arguments": '{"city":"Paris"}', "name": "get_weather"},
         "id": "function-call-2201", "type": "function"},
        {"function": {"arguments": '{"tz":"Europe/Paris"}', "name": "get_time"},
         "id": "function-call-2202", "type": "function"}]}}],
            "usage": {"completion_tokens": 30, "prompt_tokens": 60, "total_tokens": 90}}
    recorded("edge-gemini-compat-extra-content", json.dumps(body),
             (C("get_weather", {"city": "Paris"}, "function-call-2201"),
              C("get_time", {"tz": "Europe/Paris"}, "function-call-2202")),
             "Gemini / Vertex AI OpenAI compatibility, parallel calls: only the first "
             "tool_call has extra_content.google.thought_signature (the documented shape, "
             "ai.google.dev/gemini-api/docs/thought-signatures#openai; openai-php/client#768).")

    recorded("edge-snowflake-tool-call-recorded", SNOW_TOOL_CALL,
             (C("get_weather", {"city": "Mexico City"}, "toolu_bdrk_015BgHUFs4HS1TVWWwNRNxip"),),
             "RECORDED Snowflake Cortex (Go server): the function tool call also carries "
             "'custom': {'input': '', 'name': ''} (a zero value, not a custom call), the "
             "message carries 'function_call': {'arguments': '', 'name': ''}, finish_reason ''.")
    recorded("edge-snowflake-text-recorded", SNOW_TEXT, (),
             "RECORDED Snowflake Cortex answer with no call: function_call {'name': '', "
             "'arguments': ''} is a zero value, not a legacy function call; tool_calls null.")
    recorded("edge-snowflake-thinking-tool-call-recorded", SNOW_THINKING_CALL,
             (C("get_weather", {"city": "Mexico City"}, "toolu_bdrk_01VmA9jmWpws4HgPqjhtGo6i"),),
             "RECORDED Snowflake Cortex: text, reasoning_details, a function call with the "
             "zero-valued custom, the zero-valued function_call.")
    turns = [chat_create(SNOW_TOOL_CALL), chat_create(SNOW_TOOL_ANSWER)]
    out += _forms(CHAT, "edge-snowflake-turns-recorded", turns,
                  (C("get_weather", {"city": "Mexico City"},
                     "toolu_bdrk_015BgHUFs4HS1TVWWwNRNxip"),),
                  "Both RECORDED turns of test_snowflake_tool_calling.yaml: every response has "
                  "id '' (so turns cannot be told apart by id) and a zero function_call.",
                  raw=[json.loads(SNOW_TOOL_CALL), json.loads(SNOW_TOOL_ANSWER)])
    objects = chat_stream(SNOW_STREAM_TEXT)
    out += _forms(CHAT, "edge-snowflake-stream-text-recorded", objects, (),
                  "RECORDED Snowflake stream: chunk id '', created 0, no finish_reason key at "
                  "all, refusal '', tool_calls null, a final choices [] usage chunk.",
                  sse=SNOW_STREAM_TEXT)

    writer = chat_create(WRITER_SEVEN)
    expected7 = tuple(C("get_weather", {"location": city}, f"chatcmpl-tool-{h}")
                      for h, city in zip(_WRITER_IDS, _WRITER_CITIES))
    expected7s = tuple(C("get_weather", {"location": city}, f"chatcmpl-tool-{h}")
                       for h, city in zip(_WRITER_STREAM_IDS, _WRITER_CITIES))
    _sdk_agrees(sdk_chat_calls(writer), expected7, "writer")
    out += _forms(CHAT, "edge-writer-seven-calls-recorded", writer, expected7,
                  "RECORDED api.writer.com response: seven parallel calls, each tool call with "
                  "'index': null inside the non-streamed message, plus graph_data/llm_data/... "
                  "keys.", raw=json.loads(WRITER_SEVEN))

    for name, sse, expected in (
            ("edge-writer-stream-one-call-recorded", WRITER_STREAM_ONE,
             (C("get_weather", {"location": "Zakopane"},
                "chatcmpl-tool-a31f1a5690b14b7daf0e78d2a2d23da2"),)),
            ("edge-writer-stream-seven-calls-recorded", WRITER_STREAM_SEVEN, expected7s)):
        objects = chat_stream(sse)
        reason = _sdk_fails(lambda objs=objects: state_final(objs), name)
        out += _forms(CHAT, name, objects, expected,
                      "RECORDED api.writer.com stream: every choice has BOTH 'delta' and "
                      "'message', equal to each other in every recorded chunk (a copy of the "
                      "delta, not a cumulative message; the Writer SDK marks 'message' "
                      "'deprecated for streaming, use delta'). Pieces: {index, id, name, "
                      "arguments null}, then {id null, type null, name null, arguments ...}; "
                      "no [DONE]. Read the deltas once; the message copies are not more calls. "
                      "The openai SDK's ChatCompletionStreamState fails on it (the 'type': null "
                      f"of the continuation pieces overwrites 'function': {reason}).",
                      sse=sse)
    return out


# ============================================================================================
# Responses
# ============================================================================================


def response(rid: str, output: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    body = {"id": rid, "object": "response", "created_at": CREATED, "status": "completed",
            "error": None, "incomplete_details": None, "instructions": None,
            "model": "gpt-5.6", "output": output, "parallel_tool_calls": True,
            "tool_choice": "auto", "tools": [], "text": {"format": {"type": "text"}},
            "usage": {"input_tokens": 80, "input_tokens_details": {"cached_tokens": 0},
                      "output_tokens": 30, "output_tokens_details": {"reasoning_tokens": 0},
                      "total_tokens": 110},
            "metadata": {}}
    body.update(extra)
    return body


def fc(n: str, name: str, arguments: str, **extra: Any) -> dict[str, Any]:
    return {"type": "function_call", "id": f"fc_{n}", "call_id": f"call_{n}", "name": name,
            "arguments": arguments, "status": "completed", **extra}


def message(n: str, text: str) -> dict[str, Any]:
    return {"type": "message", "id": f"msg_{n}", "status": "completed", "role": "assistant",
            "content": [{"type": "output_text", "text": text, "annotations": [],
                         "logprobs": []}]}


def events_for(resp: dict[str, Any], *, completed_output: str = "full",
               stream_id: str | None = None, done_only: bool = False) -> list[dict[str, Any]]:
    """The documented event sequence for ``resp``. completed_output: "full" (the final
    response.completed carries the output), "null", "missing" or "empty" (as some backends
    send it)."""
    seq = iter(range(100_000))
    pending = dict(resp, status="in_progress", output=[], usage=None)
    ev: list[dict[str, Any]] = [
        {"type": "response.created", "sequence_number": next(seq), "response": pending},
        {"type": "response.in_progress", "sequence_number": next(seq), "response": pending}]
    for i, item in enumerate(resp["output"]):
        kind = item["type"]
        base = {"output_index": i}
        if done_only:  # only the finished item, as some backends send it
            pass
        elif kind == "function_call":
            ev.append({"type": "response.output_item.added", "sequence_number": next(seq),
                       **base, "item": dict(item, arguments="", status="in_progress")})
            for part in split(item["arguments"], 7):
                ev.append({"type": "response.function_call_arguments.delta",
                           "sequence_number": next(seq), "item_id": item["id"], **base,
                           "delta": part})
            ev.append({"type": "response.function_call_arguments.done",
                       "sequence_number": next(seq), "item_id": item["id"], **base,
                       "name": item["name"], "arguments": item["arguments"]})
        elif kind == "mcp_call":
            ev.append({"type": "response.output_item.added", "sequence_number": next(seq),
                       **base, "item": dict(item, arguments="", output=None,
                                            status="in_progress")})
            ev.append({"type": "response.mcp_call.in_progress", "sequence_number": next(seq),
                       "item_id": item["id"], **base})
            for part in split(item["arguments"], 9):
                ev.append({"type": "response.mcp_call_arguments.delta",
                           "sequence_number": next(seq), "item_id": item["id"], **base,
                           "delta": part})
            ev.append({"type": "response.mcp_call_arguments.done", "sequence_number": next(seq),
                       "item_id": item["id"], **base, "arguments": item["arguments"]})
            ev.append({"type": "response.mcp_call.completed", "sequence_number": next(seq),
                       "item_id": item["id"], **base})
        elif kind == "mcp_list_tools":
            ev.append({"type": "response.output_item.added", "sequence_number": next(seq),
                       **base, "item": dict(item, tools=[])})
            ev.append({"type": "response.mcp_list_tools.in_progress",
                       "sequence_number": next(seq), "item_id": item["id"], **base})
            ev.append({"type": "response.mcp_list_tools.completed",
                       "sequence_number": next(seq), "item_id": item["id"], **base})
        elif kind == "message":
            text = item["content"][0]["text"]
            ev.append({"type": "response.output_item.added", "sequence_number": next(seq),
                       **base, "item": dict(item, content=[], status="in_progress")})
            ev.append({"type": "response.content_part.added", "sequence_number": next(seq),
                       "item_id": item["id"], **base, "content_index": 0,
                       "part": {"type": "output_text", "text": "", "annotations": [],
                                "logprobs": []}})
            for part in split(text, 8):
                ev.append({"type": "response.output_text.delta", "sequence_number": next(seq),
                           "item_id": item["id"], **base, "content_index": 0, "delta": part,
                           "logprobs": []})
            ev.append({"type": "response.output_text.done", "sequence_number": next(seq),
                       "item_id": item["id"], **base, "content_index": 0, "text": text,
                       "logprobs": []})
            ev.append({"type": "response.content_part.done", "sequence_number": next(seq),
                       "item_id": item["id"], **base, "content_index": 0,
                       "part": item["content"][0]})
        else:
            added = dict(item)
            if "status" in added:
                added["status"] = "in_progress"
            if kind == "tool_search_call":
                added["arguments"] = {}
            ev.append({"type": "response.output_item.added", "sequence_number": next(seq),
                       **base, "item": added})
        ev.append({"type": "response.output_item.done", "sequence_number": next(seq), **base,
                   "item": item})
    final = copy.deepcopy(resp)
    if completed_output == "null":
        final["output"] = None
    elif completed_output == "missing":
        del final["output"]
    elif completed_output == "empty":
        final["output"] = []
    ev.append({"type": "response.completed", "sequence_number": next(seq), "response": final})
    if stream_id is not None:
        for e in ev:
            e["stream_id"] = stream_id
    return ev


def sse_events(events: list[dict[str, Any]]) -> str:
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e, separators=(',', ':'))}\n\n"
                   for e in events)


def resp_create(body: dict[str, Any]) -> Any:
    _MOCK.queue.append(body)
    return _CLIENT.responses.create(model="gpt-5.6", input="Help me.")


def resp_stream(sse: str) -> list[Any]:
    _MOCK.queue.append(sse)
    return list(_CLIENT.responses.create(model="gpt-5.6", input="Help me.", stream=True))


def resp_stream_final(sse: str) -> Any:
    _MOCK.queue.append(sse)
    try:
        # the SDK's own to_dict() warns on an item type it does not know
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with _CLIENT.responses.stream(model="gpt-5.6", input="Help me.") as stream:
                for _ in stream:
                    pass
                return stream.get_final_response()
    finally:
        _MOCK.queue.clear()


def _strip_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_strip_nulls(v) for v in value]
    return value


def hosted_call(item: dict[str, Any]) -> Call:
    """A built-in ``*_call`` item as docs/formats.md reads it; an item with its own
    ``arguments`` object (tool_search_call) has those as its arguments (the SEMANTICS the
    main suite moved to: 'execution' is not an argument the model chose)."""
    if isinstance(item.get("arguments"), dict):
        return Call(item["type"][: -len("_call")], _strip_nulls(item["arguments"]),
                    item.get("call_id") or item["id"])
    args = {k: _strip_nulls(v) for k, v in item.items()
            if k not in HOSTED_EXCLUDED and v is not None}
    return Call(item["type"][: -len("_call")], args, item.get("call_id") or item["id"])


def sdk_resp_calls(resp_obj: Any) -> tuple[Call, ...]:
    """Function / mcp / tool_search / other *_call items of an SDK Response, read like
    docs/formats.md (used to check the SDK's accumulators agree)."""
    out = []
    for item in resp_obj.output or []:
        data = (item.model_dump(mode="json", warnings=False) if hasattr(item, "model_dump")
                else dict(item))
        data.pop("parsed_arguments", None)
        kind = data["type"]
        if kind == "function_call":
            out.append(C(data["name"], json.loads(data["arguments"] or "{}"), data["call_id"]))
        elif kind == "mcp_call":
            out.append(C(data["name"], json.loads(data["arguments"] or "{}"), data["id"]))
        elif kind.endswith("_call"):
            out.append(hosted_call(data))
    return tuple(out)


def _resp_forms(name: str, obj: Any, expected: tuple[Call, ...] | None, note: str, *,
                sse: str | None = None, raw: Any = None, options: dict[str, Any] | None = None,
                object_form: bool = True, refusal: str | None = None) -> list[Scenario]:
    return _forms(RESP, name, obj, expected, note, sse=sse, raw=raw, options=options,
                  object_form=object_form, refusal=refusal)


# -- items ---------------------------------------------------------------------------------------

TS_CLIENT = {"type": "tool_search_call", "id": "tsc_c1", "call_id": "call_abc123",
             "execution": "client", "status": "completed",
             "arguments": {"goal": "Find the shipping ETA tool for order_42."}}
TS_CLIENT_OUT = {"type": "tool_search_output", "id": "tso_c1", "call_id": "call_abc123",
                 "execution": "client", "status": "completed", "tools": [
                     {"type": "function", "name": "get_shipping_eta",
                      "description": "Look up shipping ETA details for an order.",
                      "defer_loading": True, "strict": True,
                      "parameters": {"type": "object",
                                     "properties": {"order_id": {"type": "string"}},
                                     "required": ["order_id"], "additionalProperties": False}}]}
TS_SERVER = {"type": "tool_search_call", "id": "tsc_s1", "call_id": None, "execution": "server",
             "status": "completed", "arguments": {"paths": ["crm"]}}
TS_SERVER_OUT = {"type": "tool_search_output", "id": "tso_s1", "call_id": None,
                 "execution": "server", "status": "completed", "tools": [
                     {"type": "namespace", "name": "crm",
                      "description": "CRM tools for customer lookup and order management.",
                      "tools": [{"type": "function", "name": "list_open_orders",
                                 "description": "List open orders for a customer ID.",
                                 "defer_loading": True,
                                 "parameters": {"type": "object", "properties": {
                                     "customer_id": {"type": "string"}},
                                     "required": ["customer_id"],
                                     "additionalProperties": False}}]}]}
TS_CLIENT_CALL = C("tool_search", {"goal": "Find the shipping ETA tool for order_42."},
                   "call_abc123")
TS_SERVER_CALL = C("tool_search", {"paths": ["crm"]}, "tsc_s1")

MCP_LIST = {"type": "mcp_list_tools", "id": "mcpl_e1", "server_label": "deepwiki",
            "tools": [{"name": "ask_question", "description": "Ask about a repository",
                       "input_schema": {"type": "object", "properties": {
                           "repoName": {"type": "string"}, "question": {"type": "string"}}},
                       "annotations": {"read_only": True}}], "error": None}
MCP_ARGS = '{"repoName":"openai/openai-python","question":"How do I stream?"}'
MCP_APPROVAL = {"type": "mcp_approval_request", "id": "mcpr_e1", "server_label": "deepwiki",
                "name": "ask_question", "arguments": MCP_ARGS}
MCP_CALL = {"type": "mcp_call", "id": "mcp_e2", "server_label": "deepwiki",
            "name": "ask_question", "arguments": MCP_ARGS, "approval_request_id": "mcpr_e1",
            "output": "Pass stream=True.", "error": None, "status": "completed"}
MCP_EXPECTED = C("ask_question", {"repoName": "openai/openai-python",
                                  "question": "How do I stream?"}, "mcp_e2")

FUTURE = {"type": "future_tool_call", "id": "ftc_1", "call_id": "call_ftc1",
          "status": "completed", "action": {"type": "lookup", "query": "Paris weather"}}


def _responses_scenarios() -> list[Scenario]:
    out: list[Scenario] = []
    weather = '{"city": "Paris"}'

    # 1. tool_search_call, execution "client" ------------------------------------------------
    body = response("resp_e_ts1", [
        {"type": "reasoning", "id": "rs_e1", "summary": []}, TS_CLIENT],
        tools=[{"type": "tool_search", "execution": "client",
                "description": "Find the project-specific tools needed to continue the task.",
                "parameters": {"type": "object", "properties": {"goal": {"type": "string"}},
                               "required": ["goal"], "additionalProperties": False}}])
    resp_obj = resp_create(body)
    _sdk_agrees(sdk_resp_calls(resp_obj), (TS_CLIENT_CALL,), "tool search client")
    note = ("tool_search_call with execution 'client': the model asks the DEVELOPER to run "
            "the search and stops; the app answers with a tool_search_output with the same "
            "call_id (developers.openai.com/api/docs/guides/tools-tool-search, 'Client-executed "
            "tool search'; the Agents SDK raises 'Handle the tool_search_call yourself and "
            "return a matching tool_search_output'). It is the agent's call to a client tool: "
            "name tool_search, arguments = the item's own 'arguments' object (what the model "
            "filled in against the developer's parameters schema), id = call_id, and it is NOT "
            "a hosted call (kept with hosted_tools=False).")
    out += _resp_forms("edge-tool-search-client", resp_obj, (TS_CLIENT_CALL,), note, raw=body)
    out += _resp_forms("edge-tool-search-client-no-hosted", resp_obj, (TS_CLIENT_CALL,),
                       note, options=HOSTED_OFF, object_form=False)

    events = events_for(body)
    sse = sse_events(events)
    objs = resp_stream(sse)
    _sdk_agrees(sdk_resp_calls(resp_stream_final(sse)), (TS_CLIENT_CALL,), "ts stream")
    out += _resp_forms("edge-stream-tool-search-client", objs, (TS_CLIENT_CALL,),
                       "Streamed: output_item.added (arguments {}, in_progress), output_item.done "
                       "(the arguments), response.completed. " + note, sse=sse)
    out += _resp_forms("edge-stream-tool-search-client-no-hosted", objs, (TS_CLIENT_CALL,),
                       "hosted_tools=False keeps it.", options=HOSTED_OFF, object_form=False)

    items = [{"role": "user", "content": "Find the shipping ETA tool first, then use it for "
                                          "order_42."},
             TS_CLIENT, TS_CLIENT_OUT,
             fc("xyz456", "get_shipping_eta", '{"order_id":"order_42"}',
                namespace="get_shipping_eta"),
             {"type": "function_call_output", "call_id": "call_xyz456", "output": "2 days"}]
    items_expected = (TS_CLIENT_CALL,
                      C("get_shipping_eta", {"order_id": "order_42"}, "call_xyz456"))
    out.append(Scenario(RESP, "dump", "edge-tool-search-client-conversation", items,
                        items_expected,
                        note="The documented two-turn input list: tool_search_call (client), "
                             "the app's tool_search_output (a result, not a call), then the "
                             "loaded function called with 'namespace'."))
    out.append(Scenario(RESP, "json", "edge-tool-search-client-conversation", json.dumps(items),
                        items_expected))
    out.append(Scenario(RESP, "dump", "edge-tool-search-client-conversation-no-hosted", items,
                        items_expected, options=dict(HOSTED_OFF)))

    body = response("resp_e_ts2", [TS_SERVER, TS_SERVER_OUT,
                                   fc("abc123", "list_open_orders",
                                      '{"customer_id":"CUST-12345"}', namespace="crm")])
    resp_obj = resp_create(body)
    server_expected = (TS_SERVER_CALL, C("list_open_orders", {"customer_id": "CUST-12345"},
                                         "call_abc123"))
    _sdk_agrees(sdk_resp_calls(resp_obj), server_expected, "tool search server")
    out += _resp_forms("edge-tool-search-server-namespace", resp_obj, server_expected,
                       "The documented hosted tool search: tool_search_call (server, call_id "
                       "null), tool_search_output, then function_call with namespace 'crm'. "
                       "CHOSEN: the call's name is 'list_open_orders' (namespace is not part "
                       "of the name, nor an argument).", raw=body)
    out += _resp_forms("edge-tool-search-server-namespace-no-hosted", resp_obj,
                       server_expected[1:], "hosted_tools=False drops the server search.",
                       options=HOSTED_OFF, object_form=False)

    # 2. items that only the output_item.done events hold ----------------------------------
    ws_item = {"type": "web_search_call", "id": "ws_e1", "status": "completed",
               "action": {"type": "search", "query": "weather Paris today"}}
    body = response("resp_e_null", [ws_item, fc("n1", "get_weather", weather)])
    expected = (hosted_call(ws_item), C("get_weather", {"city": "Paris"}, "call_n1"))
    for mode, why in (("null", "output: null (the chatgpt.com Codex backend: "
                               "openai/openai-python#3321, #3325; fixed by PR #3345)"),
                      ("missing", "no 'output' key at all")):
        sse = sse_events(events_for(body, completed_output=mode))
        objs = resp_stream(sse)
        final = resp_stream_final(sse)
        _sdk_agrees(sdk_resp_calls(final), expected, f"completed {mode}")
        out += _resp_forms(f"edge-stream-completed-output-{mode}", objs, expected,
                           f"response.completed carries {why}: the items exist only in the "
                           "output_item.done events. client.responses.stream() recovers them "
                           "from the done events (ResponseStreamState.accumulate_event) and "
                           "agrees.", sse=sse)
        out += _resp_forms(f"edge-stream-completed-output-{mode}-sdk-final", final, expected,
                           "client.responses.stream(...).get_final_response() of that stream.")

    sse = sse_events(events_for(body, completed_output="empty"))
    objs = resp_stream(sse)
    final = resp_stream_final(sse)
    assert sdk_resp_calls(final) == (), "the SDK treats an explicit [] as authoritative"
    out += _resp_forms("edge-stream-completed-output-empty", objs, expected,
                       "response.completed carries output: [] although two items were "
                       "finished by output_item.done (ChatGPT-subscription Responses backend: "
                       "BerriAI/litellm#32724, #30933). The SDK's get_final_response() keeps the "
                       "explicit [] (so it has no calls); the model did make both calls, which "
                       "the done events hold. CHOSEN: read them from the done events.", sse=sse)

    sse = sse_events(events_for(body, completed_output="null", done_only=True))
    objs = resp_stream(sse)
    final = resp_stream_final(sse)
    _sdk_agrees(sdk_resp_calls(final), expected, "done only")
    out += _resp_forms("edge-stream-done-events-only", objs, expected,
                       "Each item arrives ONLY as response.output_item.done (no "
                       "output_item.added, no argument deltas) and response.completed has "
                       "output null: the done events are the only copy of the calls. "
                       "client.responses.stream() recovers them and agrees.", sse=sse)
    out += _resp_forms("edge-stream-done-events-only-sdk-final", final, expected,
                       "client.responses.stream(...).get_final_response() of that stream.")

    future_body = response("resp_e_fut", [FUTURE, message("fut", "Sunny.")])
    fut_expected = (hosted_call(FUTURE),)
    for mode in ("full", "null"):
        sse = sse_events(events_for(future_body, completed_output=mode))
        objs = resp_stream(sse)
        final = resp_stream_final(sse)
        _sdk_agrees(sdk_resp_calls(final), fut_expected, f"future {mode}")
        what = ("appears in output_item.added/done AND in response.completed's output: one call"
                if mode == "full" else
                "appears only in output_item.added/done (response.completed output null)")
        out += _resp_forms(f"edge-stream-unknown-call-type-{mode}", objs, fut_expected,
                           f"SYNTHESIZED forward-compatibility case: an item type openai 3.57 "
                           f"does not know ('future_tool_call'); it {what}. Read by the "
                           "documented rule for any other *_call. The SDK constructs the unknown "
                           "item as ResponseOutputMessage (the union's first member, its type "
                           "kept 'future_tool_call', extra fields kept), and model_dump() on it "
                           "emits PydanticSerializationUnexpectedValue warnings: dump SDK objects "
                           "with warnings=False.", sse=sse)

    # 3. mcp_approval_request, then mcp_call with approval_request_id ------------------------
    turn1 = response("resp_e_mcp1", [MCP_LIST, MCP_APPROVAL])
    turn2 = response("resp_e_mcp2", [MCP_CALL, message("mcp", "Pass stream=True.")],
                     previous_response_id="resp_e_mcp1")
    turns = [resp_create(turn1), resp_create(turn2)]
    note = ("MCP with require_approval: turn 1 holds mcp_list_tools and an "
            "mcp_approval_request (id, name, arguments, server_label); the app answers with an "
            "mcp_approval_response (approve true); turn 2 holds the mcp_call whose "
            "approval_request_id names the request. One call (the mcp_call, id = its item "
            "id), not two: the request is the same call awaiting approval "
            "(platform.openai.com/docs/guides/tools-connectors-mcp#approvals).")
    out += _resp_forms("edge-mcp-approval-then-call-turns", turns, (MCP_EXPECTED,), note,
                       raw=[turn1, turn2])
    out += _resp_forms("edge-mcp-approval-then-call-turns-no-hosted", turns, (MCP_EXPECTED,),
                       "mcp_call is kept with hosted_tools=False.", options=HOSTED_OFF,
                       object_form=False)

    convo = [{"role": "user", "content": "How do I stream with openai-python?"},
             MCP_LIST, MCP_APPROVAL,
             {"type": "mcp_approval_response", "approval_request_id": "mcpr_e1",
              "approve": True},
             MCP_CALL, message("mcp", "Pass stream=True.")]
    out.append(Scenario(RESP, "dump", "edge-mcp-approval-then-call-input-items", convo,
                        (MCP_EXPECTED,), note="The same as one input-item list, with the "
                                              "mcp_approval_response item. " + note))
    out.append(Scenario(RESP, "json", "edge-mcp-approval-then-call-input-items",
                        json.dumps(convo), (MCP_EXPECTED,)))

    sse = sse_events(events_for(turn1)) + sse_events(events_for(turn2))
    objs = resp_stream(sse)
    out += _resp_forms("edge-stream-mcp-approval-then-call", objs, (MCP_EXPECTED,),
                       "Both turns streamed and concatenated (two response.completed): the "
                       "request's output_item events, then mcp_call.in_progress, "
                       "mcp_call_arguments.delta/done, mcp_call.completed. " + note, sse=sse)

    denied = [{"role": "user", "content": "How do I stream with openai-python?"},
              MCP_LIST, MCP_APPROVAL,
              {"type": "mcp_approval_response", "approval_request_id": "mcpr_e1",
               "approve": False, "reason": "not now"},
              message("mcpd", "I was not allowed to ask the wiki.")]
    denied_expected = (C("ask_question", {"repoName": "openai/openai-python",
                                          "question": "How do I stream?"}, "mcpr_e1"),)
    out.append(Scenario(RESP, "dump", "edge-mcp-approval-denied-input-items", denied,
                        denied_expected,
                        note="The approval was DENIED (mcp_approval_response approve false): no "
                             "mcp_call ever appears. The request is the only record of the call "
                             "the model chose: one call, id = the request id. (docs/formats.md "
                             "still says approval requests are not calls; the main suite's "
                             "working copy already reads a lone request as a call.)"))
    out.append(Scenario(RESP, "json", "edge-mcp-approval-denied-input-items", json.dumps(denied),
                        denied_expected))
    out.append(Scenario(RESP, "dump", "edge-mcp-approval-denied-input-items-no-hosted", denied,
                        denied_expected, options=dict(HOSTED_OFF),
                        note="MCP calls are kept with hosted_tools=False."))

    # 4. several response.completed events in one stream ------------------------------------
    r1 = response("resp_e_t1", [fc("t1", "get_weather", weather)])
    r2 = response("resp_e_t2", [TS_CLIENT, fc("t2", "get_time", '{"tz": "Europe/Paris"}')],
                  previous_response_id="resp_e_t1")
    r3 = response("resp_e_t3", [message("t3", "18 degrees at 14:05.")],
                  previous_response_id="resp_e_t2")
    multi_expected = (C("get_weather", {"city": "Paris"}, "call_t1"), TS_CLIENT_CALL,
                      C("get_time", {"tz": "Europe/Paris"}, "call_t2"))
    sse = sse_events(events_for(r1)) + sse_events(events_for(r2)) + sse_events(events_for(r3))
    objs = resp_stream(sse)
    reason = _sdk_fails(lambda: resp_stream_final(sse), "multi")
    out += _resp_forms("edge-stream-three-responses", objs, multi_expected,
                       "Three responses' events in one stream (an agent loop logging every "
                       "turn's events to one file): three response.created ... "
                       "response.completed runs, sequence_number restarting at 0. "
                       "client.responses.stream() refuses a second response "
                       f"({reason}); read each response's calls, in order.", sse=sse)

    ws_events: list[dict[str, Any]] = []
    sdk_calls: list[Call] = []
    for r in (r1, r2, r3):
        evs = events_for(r, stream_id="conversation")
        acc = ResponsesWebSocketAccumulator()
        for e in evs:
            acc.add_event(construct_type_unchecked(value=copy.deepcopy(e),
                                                   type_=ResponsesServerEvent))
        sdk_calls += sdk_resp_calls(acc.get_final_response())
        ws_events += evs
    _sdk_agrees(tuple(sdk_calls), multi_expected, "websocket")
    ws_objects = [construct_type_unchecked(value=copy.deepcopy(e), type_=ResponsesServerEvent)
                  for e in ws_events]
    out += _resp_forms("edge-websocket-three-responses", ws_objects, multi_expected,
                       "Responses WebSocket mode (client.responses.connect(): one socket, one "
                       "response.create per turn): the events of three responses, each with "
                       "stream_id, parsed as ResponsesConnection.parse_event does "
                       "(construct_type_unchecked(..., ResponsesServerEvent)). "
                       "ResponsesWebSocketAccumulator, reset per turn, agrees.")
    return out


def scenarios() -> list[Scenario]:
    _MOCK.queue.clear()
    return _chat_stream_scenarios() + _chat_response_scenarios() + _responses_scenarios()


def writers() -> dict[str, Any]:
    return {}


if __name__ == "__main__":  # a summary for the helper's report
    import collections
    import sys

    got = scenarios()
    print(len(got), "scenarios")
    print(collections.Counter((s.provider, s.form) for s in got))
    ids = [s.id for s in got]
    assert len(ids) == len(set(ids)), [i for i in ids if ids.count(i) > 1]
    if "-v" in sys.argv:
        for s in got:
            print(s.id, "->", None if s.expected is None else [(c.name, c.id) for c in s.expected])
