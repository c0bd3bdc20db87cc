"""llama-index agents under agentmetrics.capture(): FunctionAgent (native tool calls, streamed and not) and
ReActAgent (the tools are requested in the model's text: ``Thought:`` / ``Action:`` / ``Action Input:``).

ReAct asks for one tool a response, so its script has four responses: get_weather for Paris, then for
Tokyo, then get_time, then the answer."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from agent_script import ANSWER, PROMPT, STEPS, USAGE, check_run, get_time, get_weather, request_bodies, save_fixture
from provider_replies import Call, openai_chat
from provider_server import ProviderServer

import agentmetrics as am

pytest.importorskip("llama_index.core")
pytest.importorskip("llama_index.llms.openai")

AGENT = "weather_agent"
REACT_STEPS = ((STEPS[0][0],), (STEPS[0][1],), STEPS[1], ())


def react_text(call: Call | None) -> str:
    """A response that follows llama-index's ReAct system prompt."""
    if call is None:
        return f"Thought: I can answer without using any more tools. I'll use the user's language to answer\n" \
               f"Answer: {ANSWER}"
    return (f"Thought: The current language of the user is: English. I need to use a tool to help me answer the "
            f"question.\nAction: {call.name}\nAction Input: {json.dumps(call.arguments)}")


def tools() -> list[Any]:
    from llama_index.core.tools import FunctionTool

    return [FunctionTool.from_defaults(get_weather), FunctionTool.from_defaults(get_time)]


def llm(server: ProviderServer) -> Any:
    from llama_index.llms.openai import OpenAI

    return OpenAI(model="gpt-4o-mini", api_key="sk-test", api_base=server.url + "/v1", max_retries=0)


async def drive(agent: Any, client: Any) -> str:
    try:
        handler = agent.run(user_msg=PROMPT)
        async for _ in handler.stream_events():
            pass
        return str(await handler)
    finally:
        # The SDK clients the LLM made, closed on the loop that used them.
        if client._aclient is not None:
            await client._aclient.close()
        if client._client is not None:
            client._client.close()


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
def test_function_agent(server: ProviderServer, stream: bool) -> None:
    from llama_index.core.agent.workflow import FunctionAgent

    for calls, (inp, out) in zip(STEPS, USAGE):
        server.add(openai_chat(list(calls), None if calls else ANSWER, stream=stream, input_tokens=inp,
                               output_tokens=out))
    model = llm(server)
    agent = FunctionAgent(name=AGENT, description="Weather.", tools=tools(), llm=model, streaming=stream,
                          system_prompt="You answer weather questions.")
    with am.capture() as run:
        output = asyncio.run(drive(agent, model))
    assert output == ANSWER
    save_fixture(f"llama_index_function_{'stream' if stream else 'plain'}_requests", request_bodies(server))
    check_run(run, server)


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
def test_react_agent(server: ProviderServer, stream: bool) -> None:
    from llama_index.core.agent.workflow import ReActAgent

    for calls, (inp, out) in zip(REACT_STEPS, USAGE):
        server.add(openai_chat(text=react_text(calls[0] if calls else None), stream=stream, input_tokens=inp,
                               output_tokens=out))
    model = llm(server)
    agent = ReActAgent(name=AGENT, description="Weather.", tools=tools(), llm=model, streaming=stream)
    with am.capture() as run:
        output = asyncio.run(drive(agent, model))
    assert output == ANSWER
    save_fixture(f"llama_index_react_{'stream' if stream else 'plain'}_requests", request_bodies(server))
    check_run(run, server, steps=REACT_STEPS, ids=False)
