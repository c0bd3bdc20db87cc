"""Self-tests of the scripted provider server: the real SDKs, pointed at it, parse each scripted reply correctly."""

from __future__ import annotations

import asyncio
import http.client
import json
import threading
from typing import Any

from provider_replies import (
    Call,
    anthropic,
    bedrock_converse,
    bedrock_invoke_anthropic,
    cohere,
    encode_event,
    gemini,
    ollama,
    openai_chat,
    openai_responses,
    split_text,
)
from provider_server import Exchange, ProviderServer, Reply

CALLS = [
    Call("get_weather", {"city": "Paris", "unit": "celsius"}, "call_w1"),
    Call("search_docs", {"query": "ünïcode ✓ \"quoted\"", "filters": {"tags": ["a", "b"], "limit": 3}}, "call_s2"),
    Call("no_args", {}, "call_n3"),
]
EXPECTED = [(c.name, c.arguments, c.id) for c in CALLS]
TOOL_PARAMS: dict[str, Any] = {"type": "object", "properties": {}}
Triples = list[tuple[str, dict[str, Any], str]]


def only_exchange(server: ProviderServer, path_end: str) -> Exchange:
    assert len(server.exchanges) == 1, server.exchanges
    exchange = server.exchanges[0]
    assert exchange.method == "POST"
    assert exchange.path.endswith(path_end), exchange.path
    assert exchange.reply.status == 200
    assert server.pending == []
    return exchange


# the server itself


def test_body_and_chunks_reach_the_client_unchanged(server: ProviderServer) -> None:
    chunks = [b"data: one\n\n", b"data: tw", b"o\n\n", b"", b"data: [DONE]\n\n"]
    server.add(Reply(body=b'{"a": 1}', headers={"x-extra": "yes"}), Reply(chunks=chunks, content_type="text/event-stream"))
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    connection.request("POST", "/first?x=1", body=b'{"q": 1}', headers={"Content-Type": "application/json"})
    response = connection.getresponse()
    assert (response.status, response.read(), response.getheader("x-extra")) == (200, b'{"a": 1}', "yes")
    connection.request("GET", "/second")  # same keep-alive connection
    response = connection.getresponse()
    assert response.getheader("Transfer-Encoding") == "chunked"
    assert response.read() == b"".join(chunks) == server.exchanges[1].reply.sent
    connection.close()
    first, second = server.exchanges
    assert (first.method, first.path, first.query, first.body) == ("POST", "/first", "x=1", b'{"q": 1}')
    assert first.headers["content-type"] == "application/json"
    assert (second.method, second.path, second.body) == ("GET", "/second", b"")


def test_chunked_request_body_and_head(server: ProviderServer) -> None:
    server.add(Reply(body=b"ignored-by-head"), Reply(body=b"ok"))
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    connection.request("HEAD", "/h")
    response = connection.getresponse()
    assert (response.status, response.getheader("Content-Length"), response.read()) == (200, "15", b"")
    connection.request("POST", "/c", body=iter([b"hello ", b"world"]), encode_chunked=True)
    assert connection.getresponse().read() == b"ok"
    connection.close()
    assert server.exchanges[1].body == b"hello world"


def test_no_reply_and_wrong_path_answer_500() -> None:
    with ProviderServer() as server:
        server.add(Reply(body=b"{}", path="/v1/messages"), Reply(body=b"{}", match="never"))
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
        connection.request("POST", "/v2/chat", body=b"{}")
        response = connection.getresponse()
        assert response.status == 500
        assert "/v1/messages" in json.loads(response.read())["error"]["message"]
        connection.request("POST", "/v2/chat", body=b"{}")
        response = connection.getresponse()
        assert response.status == 500
        assert "no scripted reply" in json.loads(response.read())["error"]["message"]
        connection.close()
        assert len(server.errors) == 2
        assert [e.reply.status for e in server.exchanges] == [500, 500]
        assert len(server.pending) == 1


def test_match_routes_concurrent_requests() -> None:
    with ProviderServer() as server:
        server.add(*(Reply(body=f"reply-{i}".encode(), match=f"worker-{i}", delay=0.01) for i in reversed(range(8))))
        server.add(Reply(body=b"fifo"))
        results: dict[int, bytes] = {}
        barrier = threading.Barrier(8)

        def worker(i: int) -> None:
            connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
            barrier.wait()
            connection.request("POST", "/x", body=json.dumps({"who": f"worker-{i}"}).encode())
            results[i] = connection.getresponse().read()
            connection.close()

        threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(10)
        assert results == {i: f"reply-{i}".encode() for i in range(8)}
        assert len(server.exchanges) == 8
        assert all(e.reply.match is not None and e.reply.match.encode() in e.body for e in server.exchanges)
        assert [r.body for r in server.pending] == [b"fifo"]
        assert server.errors == []


def test_split_text_and_event_encoder() -> None:
    assert split_text("{}") == ["{", "}"]
    assert "".join(split_text('{"a":"ü"}', 4)) == '{"a":"ü"}'
    from botocore.eventstream import EventStreamBuffer

    buffer = EventStreamBuffer()
    buffer.add_data(encode_event(b'{"x":1}', {":event-type": "metadata", ":message-type": "event"}))
    (message,) = list(buffer)
    assert (message.headers, message.payload) == ({":event-type": "metadata", ":message-type": "event"}, b'{"x":1}')


# OpenAI


def _openai_tools() -> list[dict[str, Any]]:
    return [{"type": "function", "function": {"name": c.name, "parameters": TOOL_PARAMS}} for c in CALLS]


def _chat_from_chunks(chunks: list[Any]) -> tuple[Triples, str | None, Any]:
    calls: dict[int, dict[str, str]] = {}
    finish, usage = None, None
    for chunk in chunks:
        if chunk.usage is not None:
            usage = chunk.usage
        for choice in chunk.choices:
            finish = choice.finish_reason or finish
            for delta in choice.delta.tool_calls or []:
                entry = calls.setdefault(delta.index, {"id": "", "name": "", "arguments": ""})
                entry["id"] += delta.id or ""
                entry["name"] += (delta.function.name or "") if delta.function else ""
                entry["arguments"] += (delta.function.arguments or "") if delta.function else ""
    triples = [(e["name"], json.loads(e["arguments"]), e["id"]) for _, e in sorted(calls.items())]
    return triples, finish, usage


def test_openai_chat(server: ProviderServer) -> None:
    import openai

    client = openai.OpenAI(base_url=server.url + "/v1", api_key="sk-test", max_retries=0)
    server.add(openai_chat(CALLS, "Let me check.", input_tokens=11, output_tokens=7))
    completion = client.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "hi"}], tools=_openai_tools())
    message = completion.choices[0].message
    assert [(t.function.name, json.loads(t.function.arguments), t.id) for t in message.tool_calls or []] == EXPECTED
    assert (message.content, completion.choices[0].finish_reason) == ("Let me check.", "tool_calls")
    assert (completion.usage.prompt_tokens, completion.usage.completion_tokens) == (11, 7)
    only_exchange(server, "/v1/chat/completions")

    server.exchanges.clear()
    server.add(openai_chat(CALLS, stream=True))
    stream = client.chat.completions.create(
        model="gpt-4o-mini", messages=[{"role": "user", "content": "hi"}], tools=_openai_tools(), stream=True,
        stream_options={"include_usage": True},
    )
    triples, finish, usage = _chat_from_chunks(list(stream))
    assert (triples, finish, usage.total_tokens) == (EXPECTED, "tool_calls", 99)
    assert only_exchange(server, "/v1/chat/completions").reply.sent.endswith(b"data: [DONE]\n\n")

    server.exchanges.clear()
    server.add(openai_chat(CALLS[:1], stream=True))
    with client.chat.completions.stream(model="gpt-4o-mini", messages=[{"role": "user", "content": "hi"}]) as helper:
        final = helper.get_final_completion()
    (tool_call,) = final.choices[0].message.tool_calls or []
    assert (tool_call.function.name, json.loads(tool_call.function.arguments), tool_call.id) == EXPECTED[0]
    client.close()


def test_openai_chat_async(server: ProviderServer) -> None:
    import openai

    async def run() -> tuple[Any, list[Any]]:
        client = openai.AsyncOpenAI(base_url=server.url + "/v1", api_key="sk-test", max_retries=0)
        completion = await client.chat.completions.create(model="m", messages=[{"role": "user", "content": "a"}])
        stream = await client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "b"}], stream=True, stream_options={"include_usage": True}
        )
        chunks = [chunk async for chunk in stream]
        await client.close()
        return completion, chunks

    server.add(openai_chat(CALLS, match='"a"'), openai_chat(CALLS, "text", stream=True, match='"b"'))
    completion, chunks = asyncio.run(run())
    message = completion.choices[0].message
    assert [(t.function.name, json.loads(t.function.arguments), t.id) for t in message.tool_calls or []] == EXPECTED
    assert _chat_from_chunks(chunks)[0] == EXPECTED
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == "text"
    assert [e.path for e in server.exchanges] == ["/v1/chat/completions"] * 2


def _responses_calls(output: list[Any]) -> Triples:
    return [(item.name, json.loads(item.arguments), item.call_id) for item in output if item.type == "function_call"]


def test_openai_responses(server: ProviderServer) -> None:
    import openai

    client = openai.OpenAI(base_url=server.url + "/v1", api_key="sk-test", max_retries=0)
    tools: Any = [{"type": "function", "name": c.name, "parameters": TOOL_PARAMS, "strict": False} for c in CALLS]
    server.add(openai_responses(CALLS, "Checking."))
    response = client.responses.create(model="gpt-4.1", input="hi", tools=tools)
    assert _responses_calls(response.output) == EXPECTED
    assert (response.output_text, response.usage.input_tokens if response.usage else None) == ("Checking.", 91)
    only_exchange(server, "/v1/responses")

    server.exchanges.clear()
    server.add(openai_responses(CALLS, "Checking.", stream=True))
    events = list(client.responses.create(model="gpt-4.1", input="hi", tools=tools, stream=True))
    assert [e.sequence_number for e in events] == list(range(len(events)))
    assert events[0].type == "response.created" and events[-1].type == "response.completed"
    assert _responses_calls(events[-1].response.output) == EXPECTED
    deltas: dict[str, str] = {}
    for event in events:
        if event.type == "response.function_call_arguments.delta":
            deltas[event.item_id] = deltas.get(event.item_id, "") + event.delta
    assert len(deltas) == 3 and [json.loads(d) for d in deltas.values()] == [c.arguments for c in CALLS]
    only_exchange(server, "/v1/responses")

    server.exchanges.clear()
    server.add(openai_responses(CALLS, stream=True))
    with client.responses.stream(model="gpt-4.1", input="hi", tools=tools) as helper:
        final = helper.get_final_response()
    assert _responses_calls(final.output) == EXPECTED
    client.close()


def test_openai_responses_async(server: ProviderServer) -> None:
    import openai

    async def run() -> tuple[Any, list[Any]]:
        client = openai.AsyncOpenAI(base_url=server.url + "/v1", api_key="sk-test", max_retries=0)
        response = await client.responses.create(model="m", input="a")
        events = [event async for event in await client.responses.create(model="m", input="b", stream=True)]
        await client.close()
        return response, events

    server.add(openai_responses(CALLS, match='"a"'), openai_responses(CALLS, stream=True, match='"b"'))
    response, events = asyncio.run(run())
    assert _responses_calls(response.output) == EXPECTED
    assert _responses_calls(events[-1].response.output) == EXPECTED
    assert [e.path for e in server.exchanges] == ["/v1/responses"] * 2


# Anthropic


def _anthropic_calls(content: list[Any]) -> Triples:
    return [(block.name, block.input, block.id) for block in content if block.type == "tool_use"]


def test_anthropic(server: ProviderServer) -> None:
    import anthropic as sdk

    client = sdk.Anthropic(base_url=server.url, api_key="sk-ant-test", max_retries=0)
    kwargs: Any = {"model": "claude-sonnet-4-5", "max_tokens": 100, "messages": [{"role": "user", "content": "hi"}]}
    server.add(anthropic(CALLS, "I'll look."))
    message = client.messages.create(**kwargs)
    assert _anthropic_calls(message.content) == EXPECTED
    assert (message.stop_reason, message.usage.input_tokens, message.usage.output_tokens) == ("tool_use", 512, 71)
    only_exchange(server, "/v1/messages")

    server.exchanges.clear()
    server.add(anthropic(CALLS, "I'll look.", stream=True))
    with client.messages.stream(**kwargs) as stream:
        partial = [e.delta.partial_json for e in stream if e.type == "content_block_delta" and e.delta.type == "input_json_delta"]
        final = stream.get_final_message()
    assert _anthropic_calls(final.content) == EXPECTED
    assert final.content[0].type == "text" and final.content[0].text == "I'll look."
    assert (final.stop_reason, final.usage.output_tokens) == ("tool_use", 71)
    assert len(partial) >= 6
    only_exchange(server, "/v1/messages")

    server.exchanges.clear()
    server.add(anthropic(CALLS, stream=True))
    raw = list(client.messages.create(**kwargs, stream=True))
    assert [e.type for e in raw][:3] == ["message_start", "content_block_start", "content_block_delta"]
    client.close()


def test_anthropic_async(server: ProviderServer) -> None:
    import anthropic as sdk

    async def run() -> tuple[Any, Any]:
        client = sdk.AsyncAnthropic(base_url=server.url, api_key="sk-ant-test", max_retries=0)
        message = await client.messages.create(model="c", max_tokens=9, messages=[{"role": "user", "content": "a"}])
        async with client.messages.stream(model="c", max_tokens=9, messages=[{"role": "user", "content": "b"}]) as stream:
            final = await stream.get_final_message()
        await client.close()
        return message, final

    server.add(anthropic(CALLS, match='"a"'), anthropic(CALLS, stream=True, match='"b"'))
    message, final = asyncio.run(run())
    assert _anthropic_calls(message.content) == _anthropic_calls(final.content) == EXPECTED
    assert [e.path for e in server.exchanges] == ["/v1/messages"] * 2


# Google Gemini


def _genai_client(server: ProviderServer) -> Any:
    from google import genai
    from google.genai import types

    return genai.Client(api_key="test-key", http_options=types.HttpOptions(base_url=server.url))


def _genai_config() -> Any:
    from google.genai import types

    declarations = [types.FunctionDeclaration(name=c.name, parameters_json_schema=TOOL_PARAMS) for c in CALLS]
    return types.GenerateContentConfig(tools=[types.Tool(function_declarations=declarations)])


def _gemini_calls(function_calls: list[Any] | None) -> Triples:
    return [(f.name, f.args, f.id) for f in function_calls or []]


def _gemini_expected(server_reply: Reply) -> Triples:
    body = server_reply.sent.decode()
    ids = [call["functionCall"]["id"] for call in _gemini_parts(body)]
    return [(c.name, c.arguments, i) for c, i in zip(CALLS, ids)]


def _gemini_parts(body: str) -> list[dict[str, Any]]:
    payloads = [json.loads(line[6:]) for line in body.split("\r\n") if line.startswith("data: ")] or [json.loads(body)]
    return [p for payload in payloads for p in payload["candidates"][0]["content"]["parts"] if "functionCall" in p]


def test_gemini(server: ProviderServer) -> None:
    client = _genai_client(server)
    calls = [Call(c.name, c.arguments, c.id) for c in CALLS]
    expected = [(c.name, c.arguments, c.id) for c in calls]
    server.add(gemini(calls, "Sure."))
    response = client.models.generate_content(model="gemini-2.5-flash", contents="hi", config=_genai_config())
    assert _gemini_calls(response.function_calls) == expected
    assert response.usage_metadata.prompt_token_count == 143
    exchange = only_exchange(server, "/models/gemini-2.5-flash:generateContent")
    assert exchange.path.split("/")[1] in ("v1", "v1beta")  # google-genai 3.x defaults to v1; GOOGLE_GENAI_API_VERSION=beta gives v1beta
    assert exchange.headers["x-goog-api-key"] == "test-key"

    server.exchanges.clear()
    server.add(gemini(calls, "Sure, checking.", stream=True))
    chunks = list(client.models.generate_content_stream(model="gemini-2.5-flash", contents="hi", config=_genai_config()))
    assert len(chunks) == 4
    assert "".join(c.text or "" for c in chunks[:3]) == "Sure, checking."
    assert [t for c in chunks for t in _gemini_calls(c.function_calls)] == expected
    exchange = only_exchange(server, "/models/gemini-2.5-flash:streamGenerateContent")
    assert exchange.query == "alt=sse"

    server.exchanges.clear()
    server.add(gemini([Call("no_id", {"x": 1})], include_ids=False))
    response = client.models.generate_content(model="gemini-2.5-flash", contents="hi")
    assert _gemini_calls(response.function_calls) == [("no_id", {"x": 1}, None)]
    client.close()


def test_gemini_async(server: ProviderServer) -> None:
    async def run() -> tuple[Any, list[Any]]:
        client = _genai_client(server)
        response = await client.aio.models.generate_content(model="gemini-2.5-flash", contents="a")
        stream = await client.aio.models.generate_content_stream(model="gemini-2.5-flash", contents="b")
        chunks = [chunk async for chunk in stream]
        await client.aio.aclose()
        return response, chunks

    server.add(gemini(CALLS, match='"a"'), gemini(CALLS, "t", stream=True, match='"b"'))
    response, chunks = asyncio.run(run())
    assert _gemini_calls(response.function_calls) == EXPECTED
    assert [t for c in chunks for t in _gemini_calls(c.function_calls)] == EXPECTED
    assert sorted(e.path.rsplit(":", 1)[1] for e in server.exchanges) == ["generateContent", "streamGenerateContent"]


# Cohere


def _cohere_calls(tool_calls: list[Any] | None) -> Triples:
    return [(t.function.name, json.loads(t.function.arguments), t.id) for t in tool_calls or []]


def _cohere_stream_calls(events: list[Any]) -> tuple[Triples, str]:
    calls: dict[int, dict[str, str]] = {}
    plan = ""
    for event in events:
        if event.type == "tool-plan-delta":
            plan += event.delta.message.tool_plan
        elif event.type == "tool-call-start":
            head = event.delta.message.tool_calls
            calls[event.index] = {"id": head.id, "name": head.function.name, "arguments": head.function.arguments or ""}
        elif event.type == "tool-call-delta":
            calls[event.index]["arguments"] += event.delta.message.tool_calls.function.arguments
    return [(c["name"], json.loads(c["arguments"]), c["id"]) for _, c in sorted(calls.items())], plan


def test_cohere(server: ProviderServer) -> None:
    import cohere as sdk

    with sdk.ClientV2(api_key="co-test", base_url=server.url) as client:
        messages: Any = [{"role": "user", "content": "hi"}]
        server.add(cohere(CALLS, "I will use the tools."))
        response = client.chat(model="command-a-03-2025", messages=messages)
        assert _cohere_calls(response.message.tool_calls) == EXPECTED
        assert (response.message.tool_plan, response.finish_reason) == ("I will use the tools.", "TOOL_CALL")
        assert response.usage.tokens.input_tokens == 1508
        only_exchange(server, "/v2/chat")

        server.exchanges.clear()
        server.add(cohere(CALLS, "I will use the tools.", stream=True))
        events = list(client.chat_stream(model="command-a-03-2025", messages=messages))
        assert _cohere_stream_calls(events) == (EXPECTED, "I will use the tools.")
        assert events[0].type == "message-start" and events[-1].type == "message-end"
        assert (events[-1].delta.finish_reason, events[-1].delta.usage.tokens.output_tokens) == ("TOOL_CALL", 67)
        only_exchange(server, "/v2/chat")

        server.exchanges.clear()
        server.add(cohere([], "Hello there.", stream=True))
        events = list(client.chat_stream(model="command-a-03-2025", messages=messages))
        assert "".join(e.delta.message.content.text for e in events if e.type == "content-delta") == "Hello there."


def test_cohere_async(server: ProviderServer) -> None:
    import cohere as sdk

    async def run() -> tuple[Any, list[Any]]:
        async with sdk.AsyncClientV2(api_key="co-test", base_url=server.url) as client:
            response = await client.chat(model="c", messages=[{"role": "user", "content": "a"}])
            events = [e async for e in client.chat_stream(model="c", messages=[{"role": "user", "content": "b"}])]
        return response, events

    server.add(cohere(CALLS, match='"a"'), cohere(CALLS, stream=True, match='"b"'))
    response, events = asyncio.run(run())
    assert _cohere_calls(response.message.tool_calls) == _cohere_stream_calls(events)[0] == EXPECTED
    assert [e.path for e in server.exchanges] == ["/v2/chat"] * 2


# Ollama


def _ollama_calls(tool_calls: list[Any] | None) -> list[tuple[str, dict[str, Any]]]:
    return [(t.function.name, dict(t.function.arguments)) for t in tool_calls or []]


NAMES_ARGS = [(c.name, c.arguments) for c in CALLS]


def test_ollama(server: ProviderServer) -> None:
    import ollama as sdk

    client = sdk.Client(host=server.url)
    server.add(ollama(CALLS))
    response = client.chat(model="llama3.2", messages=[{"role": "user", "content": "hi"}], stream=False)
    assert _ollama_calls(response.message.tool_calls) == NAMES_ARGS
    assert (response.done, response.done_reason, response.prompt_eval_count, response.eval_count) == (True, "stop", 176, 22)
    only_exchange(server, "/api/chat")

    server.exchanges.clear()
    server.add(ollama(CALLS, "Calling tools.", stream=True))
    parts = list(client.chat(model="llama3.2", messages=[{"role": "user", "content": "hi"}], stream=True))
    assert [t for p in parts for t in _ollama_calls(p.message.tool_calls)] == NAMES_ARGS
    assert "".join(p.message.content or "" for p in parts) == "Calling tools."
    assert parts[-1].done and not any(p.done for p in parts[:-1])
    exchange = only_exchange(server, "/api/chat")
    assert exchange.reply.content_type == "application/x-ndjson"
    assert all(line.endswith(b"\n") for line in exchange.reply.chunks or [])
    client.close()


def test_ollama_async(server: ProviderServer) -> None:
    import ollama as sdk

    async def run() -> tuple[Any, list[Any]]:
        client = sdk.AsyncClient(host=server.url)
        response = await client.chat(model="m", messages=[{"role": "user", "content": "a"}])
        parts = [p async for p in await client.chat(model="m", messages=[{"role": "user", "content": "b"}], stream=True)]
        await client.close()
        return response, parts

    server.add(ollama(CALLS, match='"a"'), ollama(CALLS, stream=True, match='"b"'))
    response, parts = asyncio.run(run())
    assert _ollama_calls(response.message.tool_calls) == NAMES_ARGS
    assert [t for p in parts for t in _ollama_calls(p.message.tool_calls)] == NAMES_ARGS
    assert [e.path for e in server.exchanges] == ["/api/chat"] * 2


# Bedrock


def _bedrock_client(server: ProviderServer) -> Any:
    import boto3
    from botocore.config import Config

    return boto3.client(
        "bedrock-runtime",
        region_name="us-east-1",
        endpoint_url=server.url,
        aws_access_key_id="x",
        aws_secret_access_key="y",
        config=Config(retries={"max_attempts": 1}),
    )


MODEL_ID = "anthropic.claude-3-haiku-20240307-v1:0"
BEDROCK_PATH = "/model/anthropic.claude-3-haiku-20240307-v1%3A0/"


def test_bedrock_converse(server: ProviderServer) -> None:
    client = _bedrock_client(server)
    messages = [{"role": "user", "content": [{"text": "hi"}]}]
    server.add(bedrock_converse(CALLS, "Let me look."))
    response = client.converse(modelId=MODEL_ID, messages=messages)
    content = response["output"]["message"]["content"]
    assert content[0] == {"text": "Let me look."}
    assert [(b["toolUse"]["name"], b["toolUse"]["input"], b["toolUse"]["toolUseId"]) for b in content[1:]] == EXPECTED
    assert (response["stopReason"], response["usage"]["totalTokens"], response["metrics"]["latencyMs"]) == ("tool_use", 391, 924)
    assert only_exchange(server, BEDROCK_PATH + "converse").path == BEDROCK_PATH + "converse"

    server.exchanges.clear()
    server.add(bedrock_converse(CALLS, "Let me look.", stream=True))
    events = list(client.converse_stream(modelId=MODEL_ID, messages=messages)["stream"])
    calls: dict[int, dict[str, str]] = {}
    text = ""
    for event in events:
        if "contentBlockStart" in event:
            start = event["contentBlockStart"]
            tool = start["start"]["toolUse"]
            calls[start["contentBlockIndex"]] = {"name": tool["name"], "id": tool["toolUseId"], "input": ""}
        elif "contentBlockDelta" in event:
            delta = event["contentBlockDelta"]
            if "toolUse" in delta["delta"]:
                calls[delta["contentBlockIndex"]]["input"] += delta["delta"]["toolUse"]["input"]
            else:
                text += delta["delta"]["text"]
    assert [(c["name"], json.loads(c["input"]), c["id"]) for _, c in sorted(calls.items())] == EXPECTED
    assert text == "Let me look."
    assert [next(iter(e)) for e in events][-2:] == ["messageStop", "metadata"]
    assert events[-2]["messageStop"]["stopReason"] == "tool_use"
    assert events[-1]["metadata"]["usage"]["outputTokens"] == 38
    assert only_exchange(server, "/converse-stream").path == BEDROCK_PATH + "converse-stream"
    client.close()


def test_bedrock_invoke_anthropic(server: ProviderServer) -> None:
    client = _bedrock_client(server)
    body = json.dumps({"anthropic_version": "bedrock-2023-05-31", "max_tokens": 50, "messages": [{"role": "user", "content": "hi"}]})
    server.add(bedrock_invoke_anthropic(CALLS, "Sure."))
    response = client.invoke_model(modelId=MODEL_ID, body=body)
    payload = json.loads(response["body"].read())
    assert [(b["name"], b["input"], b["id"]) for b in payload["content"] if b["type"] == "tool_use"] == EXPECTED
    assert payload["stop_reason"] == "tool_use"
    assert response["ResponseMetadata"]["HTTPHeaders"]["x-amzn-bedrock-input-token-count"] == "474"
    only_exchange(server, BEDROCK_PATH + "invoke")

    server.exchanges.clear()
    server.add(bedrock_invoke_anthropic(CALLS, stream=True))
    response = client.invoke_model_with_response_stream(modelId=MODEL_ID, body=body)
    events = [json.loads(e["chunk"]["bytes"]) for e in response["body"]]
    blocks: dict[int, dict[str, str]] = {}
    for event in events:
        if event["type"] == "content_block_start":
            blocks[event["index"]] = {**event["content_block"], "json": ""}
        elif event["type"] == "content_block_delta":
            blocks[event["index"]]["json"] += event["delta"]["partial_json"]
    assert [(b["name"], json.loads(b["json"]), b["id"]) for _, b in sorted(blocks.items())] == EXPECTED
    assert events[-1]["amazon-bedrock-invocationMetrics"]["outputTokenCount"] == 55
    only_exchange(server, BEDROCK_PATH + "invoke-with-response-stream")
    client.close()
