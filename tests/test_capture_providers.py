"""agentmetrics.capture() against the real provider SDKs, pointed at the scripted loopback server.

Each SDK client is default-constructed with only its base URL (or boto3's endpoint_url) changed: every request goes
through the hooks exactly as in production (httpx/httpx2 ``send``, botocore ``_make_api_call`` and ``EventStream``).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import provider_replies as replies
import pytest
from provider_replies import Call
from provider_server import ProviderServer, Reply

import agentmetrics as am
from agentmetrics import AgentTestCase, CaptureError, UnreadableCase
from agentmetrics.capture import Run, Usage

USER = "What's the weather in Paris?"
CALLS = [
    Call("get_weather", {"city": "Paris", "unit": "celsius"}, "call_w1"),
    Call("search_docs", {"query": "ünïcode ✓ \"quoted\"", "filters": {"tags": ["a", "b"], "limit": 3}}, "call_s2"),
]
SECOND = [Call("book_table", {"city": "Paris", "people": 2}, "call_b3")]
IN, OUT = 123, 45
MODEL_ID = "anthropic.claude-3-haiku-20240307-v1:0"
INVOKE_VERSION = "bedrock-2023-05-31"


def triples(calls: Any) -> list[tuple[str, dict[str, Any], str | None]]:
    return [(call.name, call.arguments, call.id) for call in calls]


def dump(value: Any) -> Any:
    """An SDK result as plain values (pydantic models dumped; the server's Date header left out)."""
    if isinstance(value, list):
        return [dump(item) for item in value]
    if isinstance(value, dict):
        return {key: dump(item) for key, item in value.items() if key != "ResponseMetadata"}
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="python", exclude={"sdk_http_response"})
    return value


# --------------------------------------------------------------------------- providers


class Provider:
    """One provider API through its real SDK: how to build its client, call it, and send tool results back."""

    name = ""
    format = ""
    provider = ""
    source = "http"
    async_source = "http"  # the hook its async client goes through
    model = ""  # the model the turn reports
    has_async = True
    ids = True
    raw_path = ""  # the endpoint a raw httpx client posts to
    error_type: Any = Exception
    error_body = b"{}"  # the provider's error body (a 400)
    error_headers: tuple[tuple[str, str], ...] = ()

    def reply(self, calls: list[Call], *, stream: bool, text: str | None = None) -> Reply:
        raise NotImplementedError

    def client(self, server: ProviderServer) -> Any:
        raise NotImplementedError

    def close(self, client: Any) -> None:
        client.close()

    def aclient(self, server: ProviderServer) -> Any:
        raise NotImplementedError

    async def aclose(self, client: Any) -> None:
        await client.close()

    def first(self) -> Any:
        """The first request's messages: the user's question."""
        return [{"role": "user", "content": USER}]

    def create(self, client: Any, messages: Any, *, stream: bool) -> Any:
        """Make the request; a stream is read to its end. Returns the SDK's result."""
        raise NotImplementedError

    async def acreate(self, client: Any, messages: Any, *, stream: bool) -> Any:
        raise NotImplementedError

    def early(self, client: Any) -> None:
        """Open a stream, read its first event, close it."""
        raise NotImplementedError

    async def aearly(self, client: Any) -> None:
        raise NotImplementedError

    def followup(self, messages: Any, response: Any) -> tuple[Any, list[Any]]:
        """The second request's messages (the model's calls and their results, in the provider's documented
        shape) and the output the capture should give each call."""
        raise NotImplementedError

    def raw_request(self) -> bytes:
        return json.dumps({"model": "m", "messages": self.first(), "stream": True}).encode()


class OpenAIChat(Provider):
    name = format = "openai_chat"
    provider = "openai_compatible"
    model = "gpt-4o-mini-2024-07-18"
    raw_path = "/v1/chat/completions"
    error_body = json.dumps({"error": {"message": "Invalid 'messages'.", "type": "invalid_request_error", "param": "messages", "code": None}}).encode()

    @property
    def error_type(self) -> Any:
        import openai

        return openai.BadRequestError

    def reply(self, calls: list[Call], *, stream: bool, text: str | None = None) -> Reply:
        return replies.openai_chat(calls, text, model=self.model, stream=stream, input_tokens=IN, output_tokens=OUT)

    def client(self, server: ProviderServer) -> Any:
        import openai

        return openai.OpenAI(base_url=server.url + "/v1", api_key="sk-test", max_retries=0)

    def aclient(self, server: ProviderServer) -> Any:
        import openai

        return openai.AsyncOpenAI(base_url=server.url + "/v1", api_key="sk-test", max_retries=0)

    def _kwargs(self, messages: Any, stream: bool) -> dict[str, Any]:
        extra: dict[str, Any] = {"stream": True, "stream_options": {"include_usage": True}} if stream else {}
        return {"model": "gpt-4o-mini", "messages": messages, **extra}

    def create(self, client: Any, messages: Any, *, stream: bool) -> Any:
        result = client.chat.completions.create(**self._kwargs(messages, stream))
        return list(result) if stream else result

    async def acreate(self, client: Any, messages: Any, *, stream: bool) -> Any:
        result = await client.chat.completions.create(**self._kwargs(messages, stream))
        return [chunk async for chunk in result] if stream else result

    def early(self, client: Any) -> None:
        stream = client.chat.completions.create(**self._kwargs(self.first(), True))
        for _ in stream:
            break
        stream.close()

    async def aearly(self, client: Any) -> None:
        stream = await client.chat.completions.create(**self._kwargs(self.first(), True))
        async for _ in stream:
            break
        await stream.close()

    def followup(self, messages: Any, response: Any) -> tuple[Any, list[Any]]:
        message = response.choices[0].message
        outputs = ["18°C and sunny", json.dumps({"hits": 2})]
        results = [{"role": "tool", "tool_call_id": call.id, "content": output}
                   for call, output in zip(message.tool_calls, outputs)]
        return [*messages, message, *results], outputs


class OpenAIResponses(Provider):
    name = format = "openai_responses"
    provider = "openai_compatible"
    model = "gpt-4.1-2025-04-14"
    raw_path = "/v1/responses"
    error_body = OpenAIChat.error_body

    @property
    def error_type(self) -> Any:
        import openai

        return openai.BadRequestError

    def reply(self, calls: list[Call], *, stream: bool, text: str | None = None) -> Reply:
        return replies.openai_responses(calls, text, model=self.model, stream=stream, input_tokens=IN, output_tokens=OUT)

    client = OpenAIChat.client
    aclient = OpenAIChat.aclient

    def create(self, client: Any, messages: Any, *, stream: bool) -> Any:
        result = client.responses.create(model="gpt-4.1", input=messages, stream=stream)
        return list(result) if stream else result

    async def acreate(self, client: Any, messages: Any, *, stream: bool) -> Any:
        result = await client.responses.create(model="gpt-4.1", input=messages, stream=stream)
        return [event async for event in result] if stream else result

    def early(self, client: Any) -> None:
        stream = client.responses.create(model="gpt-4.1", input=self.first(), stream=True)
        for _ in stream:
            break
        stream.close()

    async def aearly(self, client: Any) -> None:
        stream = await client.responses.create(model="gpt-4.1", input=self.first(), stream=True)
        async for _ in stream:
            break
        await stream.close()

    def followup(self, messages: Any, response: Any) -> tuple[Any, list[Any]]:
        calls = [item for item in response.output if item.type == "function_call"]
        outputs = ["18°C and sunny", json.dumps({"hits": 2})]
        results = [{"type": "function_call_output", "call_id": call.call_id, "output": output}
                   for call, output in zip(calls, outputs)]
        return [*messages, *response.output, *results], outputs

    def raw_request(self) -> bytes:
        return json.dumps({"model": "m", "input": USER, "stream": True}).encode()


class Anthropic(Provider):
    name = format = provider = "anthropic"
    model = "claude-sonnet-4-5-20250929"
    raw_path = "/v1/messages"
    error_body = json.dumps({"type": "error", "error": {"type": "invalid_request_error", "message": "messages: field required"}}).encode()

    @property
    def error_type(self) -> Any:
        import anthropic

        return anthropic.BadRequestError

    def reply(self, calls: list[Call], *, stream: bool, text: str | None = None) -> Reply:
        return replies.anthropic(calls, text, model=self.model, stream=stream, input_tokens=IN, output_tokens=OUT)

    def client(self, server: ProviderServer) -> Any:
        import anthropic

        return anthropic.Anthropic(base_url=server.url, api_key="sk-ant-test", max_retries=0)

    def aclient(self, server: ProviderServer) -> Any:
        import anthropic

        return anthropic.AsyncAnthropic(base_url=server.url, api_key="sk-ant-test", max_retries=0)

    def _kwargs(self, messages: Any) -> dict[str, Any]:
        return {"model": "claude-sonnet-4-5", "max_tokens": 256, "messages": messages}

    def create(self, client: Any, messages: Any, *, stream: bool) -> Any:
        if not stream:
            return client.messages.create(**self._kwargs(messages))
        with client.messages.stream(**self._kwargs(messages)) as events:
            seen = list(events)
            return [*seen, events.get_final_message()]

    async def acreate(self, client: Any, messages: Any, *, stream: bool) -> Any:
        if not stream:
            return await client.messages.create(**self._kwargs(messages))
        async with client.messages.stream(**self._kwargs(messages)) as events:
            seen = [event async for event in events]
            return [*seen, await events.get_final_message()]

    def early(self, client: Any) -> None:
        with client.messages.stream(**self._kwargs(self.first())) as events:
            for _ in events:
                break

    async def aearly(self, client: Any) -> None:
        async with client.messages.stream(**self._kwargs(self.first())) as events:
            async for _ in events:
                break

    def followup(self, messages: Any, response: Any) -> tuple[Any, list[Any]]:
        uses = [block for block in response.content if block.type == "tool_use"]
        results = [
            {"type": "tool_result", "tool_use_id": uses[0].id, "content": "18°C and sunny"},
            {"type": "tool_result", "tool_use_id": uses[1].id, "content": [{"type": "text", "text": "2 hits"}]},
        ]
        sent = [*messages, {"role": "assistant", "content": response.content}, {"role": "user", "content": results}]
        return sent, ["18°C and sunny", "2 hits"]


class Gemini(Provider):
    name = format = provider = "gemini"
    async_source = "aiohttp"  # google-genai's async client takes aiohttp when it is installed
    model = "gemini-2.5-flash"
    raw_path = "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    error_body = json.dumps({"error": {"code": 400, "message": "Invalid JSON payload received.", "status": "INVALID_ARGUMENT"}}).encode()

    @property
    def error_type(self) -> Any:
        from google.genai import errors

        return errors.ClientError

    def reply(self, calls: list[Call], *, stream: bool, text: str | None = None) -> Reply:
        return replies.gemini(calls, text, model=self.model, stream=stream, input_tokens=IN, output_tokens=OUT,
                              include_ids=self.ids)

    def client(self, server: ProviderServer) -> Any:
        from google import genai
        from google.genai import types

        return genai.Client(api_key="test-key", http_options=types.HttpOptions(base_url=server.url))

    def aclient(self, server: ProviderServer) -> Any:
        return self.client(server)

    async def aclose(self, client: Any) -> None:
        await client.aio.aclose()
        client.close()

    def first(self) -> Any:
        from google.genai import types

        return [types.Content(role="user", parts=[types.Part(text=USER)])]

    def create(self, client: Any, messages: Any, *, stream: bool) -> Any:
        if stream:
            return list(client.models.generate_content_stream(model="gemini-2.5-flash", contents=messages))
        return client.models.generate_content(model="gemini-2.5-flash", contents=messages)

    async def acreate(self, client: Any, messages: Any, *, stream: bool) -> Any:
        models = client.aio.models
        if stream:
            return [chunk async for chunk in await models.generate_content_stream(model="gemini-2.5-flash", contents=messages)]
        return await models.generate_content(model="gemini-2.5-flash", contents=messages)

    def early(self, client: Any) -> None:
        stream = client.models.generate_content_stream(model="gemini-2.5-flash", contents=self.first())
        for _ in stream:
            break
        stream.close()

    async def aearly(self, client: Any) -> None:
        stream = await client.aio.models.generate_content_stream(model="gemini-2.5-flash", contents=self.first())
        async for _ in stream:
            break
        await stream.aclose()

    def followup(self, messages: Any, response: Any) -> tuple[Any, list[Any]]:
        from google.genai import types

        outputs = [{"result": "18°C and sunny"}, {"result": {"hits": 2}}]
        parts = [types.Part.from_function_response(name=call.name, response=output)
                 for call, output in zip(response.function_calls, outputs)]
        sent = [*messages, response.candidates[0].content, types.Content(role="user", parts=parts)]
        return sent, outputs

    def raw_request(self) -> bytes:
        return json.dumps({"contents": [{"role": "user", "parts": [{"text": USER}]}]}).encode()


class GeminiNoIds(Gemini):
    name = "gemini_no_ids"
    ids = False


class Cohere(Provider):
    name = format = provider = "cohere"
    model = "command-a-03-2025"  # the v2 response does not echo it: the request's
    raw_path = "/v2/chat"
    error_body = json.dumps({"id": "7a3b5c1e-0000-4000-a000-000000000000", "message": "invalid request: messages is required"}).encode()

    @property
    def error_type(self) -> Any:
        import cohere

        return cohere.BadRequestError

    def reply(self, calls: list[Call], *, stream: bool, text: str | None = None) -> Reply:
        return replies.cohere(calls, text, stream=stream, input_tokens=IN, output_tokens=OUT)

    def client(self, server: ProviderServer) -> Any:
        import cohere

        return cohere.ClientV2(api_key="co-test", base_url=server.url)

    def close(self, client: Any) -> None:
        client.__exit__(None, None, None)

    def aclient(self, server: ProviderServer) -> Any:
        import cohere

        return cohere.AsyncClientV2(api_key="co-test", base_url=server.url)

    async def aclose(self, client: Any) -> None:
        await client.__aexit__(None, None, None)

    def create(self, client: Any, messages: Any, *, stream: bool) -> Any:
        if stream:
            return list(client.chat_stream(model=self.model, messages=messages))
        return client.chat(model=self.model, messages=messages)

    async def acreate(self, client: Any, messages: Any, *, stream: bool) -> Any:
        if stream:
            return [event async for event in client.chat_stream(model=self.model, messages=messages)]
        return await client.chat(model=self.model, messages=messages)

    def early(self, client: Any) -> None:
        stream = client.chat_stream(model=self.model, messages=self.first())
        for _ in stream:
            break
        stream.close()

    async def aearly(self, client: Any) -> None:
        stream = client.chat_stream(model=self.model, messages=self.first())
        async for _ in stream:
            break
        await stream.aclose()

    def followup(self, messages: Any, response: Any) -> tuple[Any, list[Any]]:
        calls = response.message.tool_calls
        document = [{"type": "document", "document": {"data": json.dumps({"temperature": 18, "sky": "sunny"})}}]
        results = [
            {"role": "tool", "tool_call_id": calls[0].id, "content": document},
            {"role": "tool", "tool_call_id": calls[1].id, "content": [{"type": "text", "text": "2 hits"}]},
        ]
        assistant = {"role": "assistant", "tool_plan": response.message.tool_plan, "tool_calls": calls}
        # A text block's output is its text; a document block is kept as sent.
        return [*messages, assistant, *results], [document, "2 hits"]


class Ollama(Provider):
    name = format = provider = "ollama"
    model = "llama3.2:latest"
    raw_path = "/api/chat"
    error_body = json.dumps({"error": "model 'llama3.2' not found"}).encode()

    @property
    def error_type(self) -> Any:
        import ollama

        return ollama.ResponseError

    def reply(self, calls: list[Call], *, stream: bool, text: str | None = None) -> Reply:
        return replies.ollama(calls, text, model=self.model, stream=stream, input_tokens=IN, output_tokens=OUT,
                              include_ids=self.ids)

    def client(self, server: ProviderServer) -> Any:
        import ollama

        return ollama.Client(host=server.url)

    def aclient(self, server: ProviderServer) -> Any:
        import ollama

        return ollama.AsyncClient(host=server.url)

    def create(self, client: Any, messages: Any, *, stream: bool) -> Any:
        result = client.chat(model="llama3.2", messages=messages, stream=stream)
        return list(result) if stream else result

    async def acreate(self, client: Any, messages: Any, *, stream: bool) -> Any:
        result = await client.chat(model="llama3.2", messages=messages, stream=stream)
        return [part async for part in result] if stream else result

    def early(self, client: Any) -> None:
        stream = client.chat(model="llama3.2", messages=self.first(), stream=True)
        for _ in stream:
            break
        stream.close()

    async def aearly(self, client: Any) -> None:
        stream = await client.chat(model="llama3.2", messages=self.first(), stream=True)
        async for _ in stream:
            break
        await stream.aclose()

    def followup(self, messages: Any, response: Any) -> tuple[Any, list[Any]]:
        outputs = ["18°C and sunny", "2 hits"]
        results = [{"role": "tool", "content": output, "tool_name": call.function.name}
                   for call, output in zip(response.message.tool_calls, outputs)]
        return [*messages, response.message, *results], outputs


class OllamaNoIds(Ollama):
    name = "ollama_no_ids"
    ids = False


def _bedrock_client(server: ProviderServer) -> Any:
    import boto3
    from botocore.config import Config

    return boto3.client("bedrock-runtime", region_name="us-east-1", endpoint_url=server.url, aws_access_key_id="x",
                        aws_secret_access_key="y", config=Config(retries={"max_attempts": 1}))


class Bedrock(Provider):
    """boto3's converse / converse_stream."""

    name = "bedrock_converse"
    format = provider = "bedrock"
    source = "botocore"
    model = MODEL_ID  # Converse does not echo it: the modelId called
    has_async = False
    raw_path = f"/model/{MODEL_ID}/converse-stream"
    error_body = json.dumps({"message": "The provided model identifier is invalid."}).encode()
    error_headers = (("x-amzn-ErrorType", "ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/"),)

    @property
    def error_type(self) -> Any:
        from botocore.exceptions import ClientError

        return ClientError

    def reply(self, calls: list[Call], *, stream: bool, text: str | None = None) -> Reply:
        return replies.bedrock_converse(calls, text, model=MODEL_ID, stream=stream, input_tokens=IN, output_tokens=OUT)

    def client(self, server: ProviderServer) -> Any:
        return _bedrock_client(server)

    def first(self) -> Any:
        return [{"role": "user", "content": [{"text": USER}]}]

    def create(self, client: Any, messages: Any, *, stream: bool) -> Any:
        if stream:
            return list(client.converse_stream(modelId=MODEL_ID, messages=messages)["stream"])
        return client.converse(modelId=MODEL_ID, messages=messages)

    def early(self, client: Any) -> None:
        stream = client.converse_stream(modelId=MODEL_ID, messages=self.first())["stream"]
        for _ in stream:
            break
        stream.close()

    def followup(self, messages: Any, response: Any) -> tuple[Any, list[Any]]:
        message = response["output"]["message"]
        uses = [block["toolUse"] for block in message["content"] if "toolUse" in block]
        results = [
            {"toolResult": {"toolUseId": uses[0]["toolUseId"], "content": [{"text": "18°C and sunny"}]}},
            {"toolResult": {"toolUseId": uses[1]["toolUseId"], "content": [{"json": {"hits": 2}}]}},
        ]
        return [*messages, message, {"role": "user", "content": results}], ["18°C and sunny", {"hits": 2}]


class BedrockInvoke(Bedrock):
    """boto3's invoke_model / invoke_model_with_response_stream with an Anthropic Messages body."""

    name = "bedrock_invoke_anthropic"
    format = "bedrock_invoke"
    model = "claude-3-5-sonnet-20241022"  # the Anthropic body echoes its model
    raw_path = f"/model/{MODEL_ID}/invoke-with-response-stream"

    def reply(self, calls: list[Call], *, stream: bool, text: str | None = None) -> Reply:
        return replies.bedrock_invoke_anthropic(calls, text, model=self.model, stream=stream, input_tokens=IN,
                                                output_tokens=OUT)

    def first(self) -> Any:
        return [{"role": "user", "content": USER}]

    @staticmethod
    def body(messages: Any) -> str:
        return json.dumps({"anthropic_version": INVOKE_VERSION, "max_tokens": 256, "messages": messages})

    def create(self, client: Any, messages: Any, *, stream: bool) -> Any:
        if stream:
            response = client.invoke_model_with_response_stream(modelId=MODEL_ID, body=self.body(messages))
            return [json.loads(event["chunk"]["bytes"]) for event in response["body"]]
        response = client.invoke_model(modelId=MODEL_ID, body=self.body(messages))
        return json.loads(response["body"].read())

    def early(self, client: Any) -> None:
        stream = client.invoke_model_with_response_stream(modelId=MODEL_ID, body=self.body(self.first()))["body"]
        for _ in stream:
            break
        stream.close()

    def followup(self, messages: Any, response: Any) -> tuple[Any, list[Any]]:
        uses = [block for block in response["content"] if block["type"] == "tool_use"]
        results = [
            {"type": "tool_result", "tool_use_id": uses[0]["id"], "content": "18°C and sunny"},
            {"type": "tool_result", "tool_use_id": uses[1]["id"], "content": [{"type": "text", "text": "2 hits"}]},
        ]
        sent = [*messages, {"role": "assistant", "content": response["content"]}, {"role": "user", "content": results}]
        return sent, ["18°C and sunny", "2 hits"]

    def raw_request(self) -> bytes:
        return self.body(self.first()).encode()


PROVIDERS = [OpenAIChat(), OpenAIResponses(), Anthropic(), Gemini(), Cohere(), Ollama(), Bedrock(), BedrockInvoke()]
ASYNC = [provider for provider in PROVIDERS if provider.has_async]
HTTP = [provider for provider in PROVIDERS if provider.source == "http"]
by_name = pytest.mark.parametrize("provider", PROVIDERS, ids=lambda p: p.name)


def expected(calls: list[Call], provider: Provider) -> list[tuple[str, dict[str, Any], str | None]]:
    return [(call.name, call.arguments, call.id if provider.ids else None) for call in calls]


@pytest.fixture
def sync_client(request: pytest.FixtureRequest, server: ProviderServer) -> Iterator[Any]:
    provider: Provider = request.node.callspec.params["provider"]
    client = provider.client(server)
    try:
        yield client
    finally:
        provider.close(client)


def check_first_turn(run: Run, provider: Provider, *, streamed: bool, source: str | None = None) -> None:
    assert triples(run.tool_calls) == expected(CALLS, provider)
    assert all(call.output is None for call in run.tool_calls)
    assert run.errors == ()
    (turn,) = run.turns
    assert (turn.index, turn.format, turn.provider, turn.model, turn.streamed, turn.source) == (
        0, provider.format, provider.provider, provider.model, streamed, source or provider.source)
    assert turn.usage == Usage(IN, OUT, IN + OUT, turns=1, unreported=0)
    assert run.usage == turn.usage
    assert turn.error is None
    assert turn.user_turn and turn.user_input == USER
    assert turn.latency is not None and turn.latency >= 0
    assert turn.endpoint.startswith("http://127.0.0.1:")


# --------------------------------------------------------------------------- 1. one turn, sync and async


@by_name
@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_one_turn_sync(provider: Provider, stream: bool, server: ProviderServer, sync_client: Any) -> None:
    server.add(provider.reply(CALLS, stream=stream, text="Let me check."))
    with am.capture() as run:
        provider.create(sync_client, provider.first(), stream=stream)
    check_first_turn(run, provider, streamed=stream)
    assert server.exchanges[0].path.endswith(server.exchanges[0].reply.path or "")


@pytest.mark.parametrize("provider", ASYNC, ids=lambda p: p.name)
@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_one_turn_async(provider: Provider, stream: bool, server: ProviderServer) -> None:
    server.add(provider.reply(CALLS, stream=stream, text="Let me check."))

    async def main() -> Run:
        client = provider.aclient(server)
        try:
            async with am.capture() as run:
                await provider.acreate(client, provider.first(), stream=stream)
        finally:
            await provider.aclose(client)
        return run

    check_first_turn(asyncio.run(main()), provider, streamed=stream, source=provider.async_source)


# --------------------------------------------------------------------------- 2. streams unchanged


@pytest.mark.parametrize("provider", PROVIDERS, ids=lambda p: p.name)
@pytest.mark.parametrize("library", ["httpx", "httpx2"])
def test_raw_stream_bytes_unchanged(provider: Provider, library: str, server: ProviderServer) -> None:
    """A raw client of the hooked library gets, inside a capture, exactly the bytes the server sent; the capture
    reads the same calls from them (Bedrock's event stream included, read from HTTP)."""
    import importlib

    httpx = importlib.import_module(library)
    reply = provider.reply(CALLS, stream=True, text="Let me check.")
    server.add(reply)
    with am.capture() as run, httpx.Client() as client, client.stream(
            "POST", server.url + provider.raw_path, content=provider.raw_request(),
            headers={"content-type": "application/json"}) as response:
        received = list(response.iter_raw())
    assert b"".join(received) == reply.sent
    assert len(received) > 1  # the stream came in pieces, as sent
    assert triples(run.tool_calls) == expected(CALLS, provider)
    (turn,) = run.turns
    assert (turn.source, turn.streamed, turn.format, turn.error) == ("http", True, provider.format, None)
    assert turn.usage == Usage(IN, OUT, IN + OUT, turns=1, unreported=0)


@pytest.mark.parametrize("provider", PROVIDERS, ids=lambda p: p.name)
@pytest.mark.parametrize("library", ["httpx", "httpx2"])
def test_raw_stream_bytes_unchanged_async(provider: Provider, library: str, server: ProviderServer) -> None:
    import importlib

    httpx = importlib.import_module(library)
    reply = provider.reply(CALLS, stream=True)
    server.add(reply)

    async def main() -> tuple[bytes, Run]:
        async with am.capture() as run, httpx.AsyncClient() as client, client.stream(
                "POST", server.url + provider.raw_path, content=provider.raw_request()) as response:
            received = b"".join([chunk async for chunk in response.aiter_raw()])
        return received, run

    received, run = asyncio.run(main())
    assert received == reply.sent
    assert triples(run.tool_calls) == expected(CALLS, provider)
    assert run.turns[0].streamed and run.turns[0].error is None


@by_name
@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_sdk_result_unchanged(provider: Provider, stream: bool, server: ProviderServer, sync_client: Any) -> None:
    """The SDK parses the same result inside a capture as outside one."""
    server.add(provider.reply(CALLS, stream=stream, text="Let me check."))
    outside = provider.create(sync_client, provider.first(), stream=stream)
    server.add(provider.reply(CALLS, stream=stream, text="Let me check."))
    with am.capture() as run:
        inside = provider.create(sync_client, provider.first(), stream=stream)
    assert type(inside) is type(outside)
    assert dump(inside) == dump(outside)
    assert triples(run.tool_calls) == expected(CALLS, provider)
    first, second = server.exchanges
    assert first.reply.sent == second.reply.sent
    assert first.body == second.body  # the request is not changed either


@pytest.mark.parametrize("provider", ASYNC, ids=lambda p: p.name)
def test_sdk_result_unchanged_async_stream(provider: Provider, server: ProviderServer) -> None:
    server.add(provider.reply(CALLS, stream=True, text="Let me check."), provider.reply(CALLS, stream=True, text="Let me check."))

    async def main() -> tuple[Any, Any, Run]:
        client = provider.aclient(server)
        try:
            outside = await provider.acreate(client, provider.first(), stream=True)
            async with am.capture() as run:
                inside = await provider.acreate(client, provider.first(), stream=True)
        finally:
            await provider.aclose(client)
        return outside, inside, run

    outside, inside, run = asyncio.run(main())
    assert dump(inside) == dump(outside)
    assert triples(run.tool_calls) == expected(CALLS, provider)


# --------------------------------------------------------------------------- 3. several turns


TWO_TURNS = [*PROVIDERS[:4], GeminiNoIds(), Cohere(), Ollama(), OllamaNoIds(), Bedrock(), BedrockInvoke()]


@pytest.mark.parametrize("provider", TWO_TURNS, ids=lambda p: p.name)
def test_two_turns_tool_results(provider: Provider, server: ProviderServer, sync_client: Any) -> None:
    server.add(provider.reply(CALLS, stream=False, text="Let me check."))
    server.add(provider.reply(SECOND, stream=False, text="Booking."))
    with am.capture() as run:
        first = provider.create(sync_client, provider.first(), stream=False)
        messages, outputs = provider.followup(provider.first(), first)
        provider.create(sync_client, messages, stream=False)
    calls = run.tool_calls
    assert triples(calls) == expected(CALLS, provider) + expected(SECOND, provider)
    assert [call.output for call in calls] == [*outputs, None]
    one, two = run.turns
    assert [len(one.tool_calls), len(two.tool_calls)] == [2, 1]
    assert (one.index, two.index, one.user_turn, two.user_turn) == (0, 1, True, False)
    assert one.user_input == USER and two.user_input is None
    assert run.usage == Usage(2 * IN, 2 * OUT, 2 * (IN + OUT), turns=2, unreported=0)
    names = [call.name for call in calls]
    case = run.case(input=USER, expected_tool_calls=names)
    assert isinstance(case, AgentTestCase)
    assert case.tool_calls == calls
    assert [c.name for c in case.expected_tool_calls or ()] == names
    assert case.metadata["captured_turns"] == 2
    (turn,) = run.case(expected_turns=[names]).turns or ()
    assert turn.input == USER and turn.tool_calls == calls


# --------------------------------------------------------------------------- 4. a stream closed early


def check_closed_early(run: Run, provider: Provider) -> None:
    (turn,) = run.turns
    assert turn.streamed and turn.error is not None
    with pytest.raises(CaptureError) as raised:
        run.tool_calls  # noqa: B018
    message = str(raised.value)
    assert f"the {provider.provider} response from {turn.endpoint}" in message
    assert turn.endpoint.endswith(provider.raw_path.split("?")[0].rsplit("/", 1)[-1])
    assert "stream was closed before it ended" in message
    assert len(run.errors) == 1
    case = run.case(errors="record")
    assert isinstance(case, UnreadableCase)
    assert "stream was closed before it ended" in case.message
    with pytest.raises(CaptureError, match="closed before it ended"):
        run.case()


@by_name
def test_stream_closed_early(provider: Provider, server: ProviderServer, sync_client: Any) -> None:
    server.add(provider.reply(CALLS, stream=True, text="Let me check."))
    with am.capture() as run:
        provider.early(sync_client)
    check_closed_early(run, provider)


@pytest.mark.parametrize("provider", ASYNC, ids=lambda p: p.name)
def test_stream_closed_early_async(provider: Provider, server: ProviderServer) -> None:
    reply = provider.reply(CALLS, stream=True, text="Let me check.")
    if provider.async_source == "aiohttp":
        # aiohttp records what arrived, not what was read: a stream that arrived whole
        # before the caller stopped is whole. Paced, the rest is still on its way.
        reply.delay = 0.05
    server.add(reply)

    async def main() -> Run:
        client = provider.aclient(server)
        try:
            async with am.capture() as run:
                await provider.aearly(client)
        finally:
            await provider.aclose(client)
        return run

    check_closed_early(asyncio.run(main()), provider)


def test_bedrock_stream_closed_with_iterator_kept(server: ProviderServer) -> None:
    provider = Bedrock()
    client = provider.client(server)
    server.add(provider.reply(CALLS, stream=True))
    try:
        with am.capture() as run:
            stream = client.converse_stream(modelId=MODEL_ID, messages=provider.first())["stream"]
            events = iter(stream)
            assert "messageStart" in next(events)
            stream.close()
        (turn,) = run.turns
        assert turn.error is not None and "stream was closed before it ended" in turn.error
    finally:
        del events
        client.close()


# --------------------------------------------------------------------------- 5. HTTP errors


@by_name
@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_http_error_is_not_a_turn(provider: Provider, stream: bool, server: ProviderServer, sync_client: Any) -> None:
    error = Reply(status=400, body=provider.error_body, headers=dict(provider.error_headers))
    server.add(error)
    with am.capture() as run:
        with pytest.raises(provider.error_type):
            provider.create(sync_client, provider.first(), stream=stream)
        assert run.turns == ()
        with pytest.raises(CaptureError, match="recorded no model response"):
            run.tool_calls  # noqa: B018
        server.add(provider.reply(CALLS, stream=stream))
        provider.create(sync_client, provider.first(), stream=stream)
    assert [exchange.reply.status for exchange in server.exchanges] == [400, 200]
    assert len(run.turns) == 1
    assert triples(run.tool_calls) == expected(CALLS, provider)
    assert run.usage.turns == 1


@pytest.mark.parametrize("provider", ASYNC, ids=lambda p: p.name)
def test_http_error_is_not_a_turn_async(provider: Provider, server: ProviderServer) -> None:
    server.add(Reply(status=400, body=provider.error_body))

    async def main() -> Run:
        client = provider.aclient(server)
        try:
            async with am.capture() as run:
                with pytest.raises(provider.error_type):
                    await provider.acreate(client, provider.first(), stream=True)
        finally:
            await provider.aclose(client)
        return run

    assert asyncio.run(main()).turns == ()


def test_bedrock_invoke_file_like_body_tool_results(server: ProviderServer) -> None:
    import io

    provider = BedrockInvoke()
    client = provider.client(server)
    server.add(provider.reply(CALLS, stream=False), provider.reply(SECOND, stream=False))
    try:
        with am.capture() as run:
            first = json.loads(client.invoke_model(
                modelId=MODEL_ID, body=io.BytesIO(provider.body(provider.first()).encode()))["body"].read())
            messages, outputs = provider.followup(provider.first(), first)
            client.invoke_model(modelId=MODEL_ID, body=io.BytesIO(provider.body(messages).encode()))["body"].read()
        assert triples(run.tool_calls) == expected(CALLS + SECOND, provider)  # the calls are read either way
        assert run.turns[0].user_input == USER
        assert [call.output for call in run.tool_calls] == [*outputs, None]
    finally:
        client.close()
