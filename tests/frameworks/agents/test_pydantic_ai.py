"""pydantic-ai agents (OpenAI Chat, OpenAI Responses, Anthropic models) under agentmetrics.capture().

Each mode drives ``Agent`` with the two real tools against the scripted server: ``run_sync``, ``run``
(async) and ``run_stream`` (the streamed run, text read to its end)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from agent_script import ANSWER, PROMPT, STEPS, USAGE, check_run, get_time, get_weather, request_bodies, save_fixture
from provider_replies import anthropic, openai_chat, openai_responses
from provider_server import ProviderServer, Reply

import agentmetrics as am

pytest.importorskip("pydantic_ai")

AGENT = "weather_agent"

REPLIES: dict[str, Callable[..., Reply]] = {"chat": openai_chat, "responses": openai_responses,
                                            "anthropic": anthropic}


def build(server: ProviderServer, kind: str) -> tuple[Any, Any]:
    """The agent, and the SDK client it posts with (the test closes it on the loop that used it)."""
    from pydantic_ai import Agent

    if kind == "anthropic":
        from anthropic import AsyncAnthropic
        from pydantic_ai.models.anthropic import AnthropicModel
        from pydantic_ai.providers.anthropic import AnthropicProvider

        client: Any = AsyncAnthropic(api_key="sk-test", base_url=server.url)
        model: Any = AnthropicModel("claude-sonnet-4-5", provider=AnthropicProvider(anthropic_client=client))
    else:
        from openai import AsyncOpenAI
        from pydantic_ai.models.openai import OpenAIChatModel, OpenAIResponsesModel
        from pydantic_ai.providers.openai import OpenAIProvider

        client = AsyncOpenAI(base_url=server.url + "/v1", api_key="sk-test")
        provider = OpenAIProvider(openai_client=client)
        model = (OpenAIChatModel if kind == "chat" else OpenAIResponsesModel)("gpt-4o-mini", provider=provider)
    agent = Agent(model, name=AGENT, tools=[get_weather, get_time], instructions="You answer weather questions.")
    return agent, client


def script(server: ProviderServer, kind: str, stream: bool) -> None:
    for calls, (inp, out) in zip(STEPS, USAGE):
        server.add(REPLIES[kind](list(calls), None if calls else ANSWER, stream=stream,
                                 input_tokens=inp, output_tokens=out))


@pytest.mark.parametrize("kind", ["chat", "responses", "anthropic"])
@pytest.mark.parametrize("mode", ["run_sync", "run", "run_stream"])
def test_pydantic_ai(server: ProviderServer, kind: str, mode: str) -> None:
    script(server, kind, stream=mode == "run_stream")
    agent, client = build(server, kind)

    async def streamed() -> str:
        async with agent.run_stream(PROMPT) as result:
            return "".join([piece async for piece in result.stream_text(delta=True)])

    async def run_async() -> str:
        try:
            return (await agent.run(PROMPT)).output if mode == "run" else await streamed()
        finally:
            await client.close()

    with am.capture() as run:
        if mode == "run_sync":
            # run_sync drives the thread's event loop: a fresh one, closed here with the client it used.
            loop = asyncio.new_event_loop()
            asyncio.set_event_loop(loop)
            try:
                output = agent.run_sync(PROMPT).output
            finally:
                loop.run_until_complete(client.close())
                loop.close()
                asyncio.set_event_loop(None)
        else:
            output = asyncio.run(run_async())
    assert output == ANSWER
    save_fixture(f"pydantic_ai_{kind}_{mode}_requests", request_bodies(server))
    check_run(run, server)
