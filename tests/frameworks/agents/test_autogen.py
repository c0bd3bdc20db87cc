"""autogen-agentchat under agentmetrics.capture(): AssistantAgent on OpenAIChatCompletionClient, streamed
(``model_client_stream=True``) and not, and a RoundRobinGroupChat team of two agents.

In the team, the first agent (``weather_agent``) makes the three model responses of the script (two calls,
one call, its text reply); the second (``reviewer``) then answers ``TERMINATE`` in a fourth response."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from agent_script import ANSWER, PROMPT, STEPS, USAGE, check_run, get_time, get_weather, request_bodies, save_fixture
from provider_replies import openai_chat
from provider_server import ProviderServer

import agentmetrics as am

pytest.importorskip("autogen_agentchat")
pytest.importorskip("autogen_ext.models.openai")


def client(server: ProviderServer) -> Any:
    from autogen_core.models import ModelFamily, ModelInfo
    from autogen_ext.models.openai import OpenAIChatCompletionClient

    info = ModelInfo(vision=False, function_calling=True, json_output=True, family=ModelFamily.GPT_4O,
                     structured_output=True, multiple_system_messages=True)
    return OpenAIChatCompletionClient(model="gpt-4o-mini", api_key="sk-test", base_url=server.url + "/v1",
                                      model_info=info, max_retries=0)


def weather_agent(model: Any, stream: bool) -> Any:
    from autogen_agentchat.agents import AssistantAgent

    # reflect_on_tool_use: after each round of tools the agent asks the model again, until it answers in text.
    return AssistantAgent("weather_agent", model_client=model, tools=[get_weather, get_time],
                          system_message="You answer weather questions.", model_client_stream=stream,
                          reflect_on_tool_use=True, max_tool_iterations=5)


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
def test_assistant_agent(server: ProviderServer, stream: bool) -> None:
    for calls, (inp, out) in zip(STEPS, USAGE):
        server.add(openai_chat(list(calls), None if calls else ANSWER, stream=stream, input_tokens=inp,
                               output_tokens=out))
    model = client(server)
    agent = weather_agent(model, stream)

    async def main() -> Any:
        try:
            if stream:
                result = None
                async for item in agent.run_stream(task=PROMPT):
                    result = item
                return result
            return await agent.run(task=PROMPT)
        finally:
            await model.close()

    with am.capture() as run:
        result = asyncio.run(main())
    assert result.messages[-1].content == ANSWER
    save_fixture(f"autogen_assistant_{'stream' if stream else 'plain'}_requests", request_bodies(server))
    check_run(run, server)


def test_round_robin_team(server: ProviderServer) -> None:
    from autogen_agentchat.agents import AssistantAgent
    from autogen_agentchat.conditions import MaxMessageTermination, TextMentionTermination
    from autogen_agentchat.teams import RoundRobinGroupChat

    steps = (*STEPS, ())
    texts = (None, None, ANSWER, "TERMINATE")
    for calls, text, (inp, out) in zip(steps, texts, USAGE):
        server.add(openai_chat(list(calls), text, input_tokens=inp, output_tokens=out))
    model = client(server)
    reviewer = AssistantAgent("reviewer", model_client=model, system_message="Check the answer; say TERMINATE.")
    team = RoundRobinGroupChat([weather_agent(model, False), reviewer],
                               termination_condition=TextMentionTermination("TERMINATE") | MaxMessageTermination(12))

    async def main() -> Any:
        try:
            return await team.run(task=PROMPT)
        finally:
            await model.close()

    with am.capture() as run:
        result = asyncio.run(main())
    texts_said = [(message.source, message.content) for message in result.messages
                  if type(message).__name__ == "TextMessage"]
    assert texts_said[-2:] == [("weather_agent", ANSWER), ("reviewer", "TERMINATE")]
    save_fixture("autogen_team_requests", request_bodies(server))
    check_run(run, server, steps=steps)
