"""haystack-ai's Agent on OpenAIChatGenerator under agentmetrics.capture(), with a streaming callback and
without."""

from __future__ import annotations

from typing import Any

import pytest
from agent_script import ANSWER, PROMPT, STEPS, USAGE, check_run, get_time, get_weather, request_bodies, save_fixture
from provider_replies import openai_chat
from provider_server import ProviderServer

import agentmetrics as am

pytest.importorskip("haystack")


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
def test_haystack_agent(server: ProviderServer, stream: bool) -> None:
    from haystack.components.agents import Agent
    from haystack.components.generators.chat import OpenAIChatGenerator
    from haystack.dataclasses import ChatMessage
    from haystack.tools import create_tool_from_function
    from haystack.utils import Secret

    for calls, (inp, out) in zip(STEPS, USAGE):
        server.add(openai_chat(list(calls), None if calls else ANSWER, stream=stream, input_tokens=inp,
                               output_tokens=out))
    pieces: list[str] = []

    def on_chunk(chunk: Any) -> None:
        pieces.append(chunk.content or "")

    generator = OpenAIChatGenerator(api_key=Secret.from_token("sk-test"), model="gpt-4o-mini",
                                    api_base_url=server.url + "/v1", max_retries=0)
    agent = Agent(chat_generator=generator, tools=[create_tool_from_function(get_weather),
                                                   create_tool_from_function(get_time)],
                  system_prompt="You answer weather questions.", streaming_callback=on_chunk if stream else None)
    agent.warm_up()
    try:
        with am.capture() as run:
            result = agent.run(messages=[ChatMessage.from_user(PROMPT)])
    finally:
        generator.client.close()
    assert result["messages"][-1].text == ANSWER
    assert ("".join(pieces) == ANSWER) if stream else not pieces
    save_fixture(f"haystack_{'stream' if stream else 'plain'}_requests", request_bodies(server))
    check_run(run, server)
