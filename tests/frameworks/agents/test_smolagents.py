"""smolagents under agentmetrics.capture(): ToolCallingAgent (native tool calls, streamed and not) and
CodeAgent (the model writes a Python code action that calls the tools; a text protocol).

A ToolCallingAgent ends by calling its ``final_answer`` tool, so its third response is that call, not
text; a CodeAgent ends with a code action that calls ``final_answer(...)``."""

from __future__ import annotations

from typing import Any

import pytest
from agent_script import ANSWER, PROMPT, STEPS, USAGE, check_run, get_time, get_weather, request_bodies, save_fixture
from provider_replies import Call, openai_chat
from provider_server import ProviderServer

import agentmetrics as am

pytest.importorskip("smolagents")

FINAL = Call("final_answer", {"answer": ANSWER}, "call_final")
TOOL_STEPS = (STEPS[0], STEPS[1], (FINAL,))

#: The CodeAgent's three responses: code actions, as a model following smolagents' prompt writes them
#: (the closing tag is smolagents' stop sequence, so the model's text ends before it).
CODE_TEXTS = (
    'Thought: I will get the weather in both cities with `get_weather`.\n<code>\n'
    'paris = get_weather(city="Paris")\ntokyo = get_weather(city="Tokyo")\nprint(paris, tokyo)\n',
    'Thought: Now the time in Paris with `get_time`.\n<code>\nparis_time = get_time(city="Paris")\n'
    'print(paris_time)\n',
    f'Thought: I have everything; I give the final answer.\n<code>\nfinal_answer("{ANSWER}")\n',
)
CODE_STEPS = (STEPS[0], STEPS[1], (Call("final_answer", {"answer": ANSWER}),))


def tools() -> list[Any]:
    from smolagents import tool

    return [tool(get_weather), tool(get_time)]


def model(server: ProviderServer) -> Any:
    from smolagents import OpenAIServerModel

    return OpenAIServerModel(model_id="gpt-4o-mini", api_base=server.url + "/v1", api_key="sk-test")


def run_agent(server: ProviderServer, kind: str, replies: list[Any], stream: bool) -> Any:
    """Script ``replies``, run a smolagents agent of ``kind`` in a capture, and return the run."""
    import smolagents

    for reply in replies:
        server.add(reply)
    llm = model(server)
    agent = getattr(smolagents, kind)(tools=tools(), model=llm, name="weather_agent", stream_outputs=stream,
                                      verbosity_level=0, max_steps=4)
    try:
        with am.capture() as run:
            output = agent.run(PROMPT)
    finally:
        llm.client.close()
    assert output == ANSWER
    name = {"ToolCallingAgent": "tool_calling", "CodeAgent": "code"}[kind]
    save_fixture(f"smolagents_{name}_{'stream' if stream else 'plain'}_requests", request_bodies(server))
    return run


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
def test_tool_calling_agent(server: ProviderServer, stream: bool) -> None:
    run = run_agent(server, "ToolCallingAgent", [
        openai_chat(list(calls), stream=stream, input_tokens=inp, output_tokens=out)
        for calls, (inp, out) in zip(TOOL_STEPS, USAGE)], stream)
    # smolagents sends the results back as one user message, "Observation:\n" and the outputs joined by
    # newlines (sorted by call id): the lone get_time result reads exactly, the two parallel get_weather results
    # cannot be split exactly (an output may hold a newline), and final_answer's result is never sent.
    check_run(run, server, steps=TOOL_STEPS, outputs=[None, None, "14:05", None])


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
def test_code_agent(server: ProviderServer, stream: bool) -> None:
    run = run_agent(server, "CodeAgent", [
        openai_chat(text=text, stream=stream, input_tokens=inp, output_tokens=out)
        for text, (inp, out) in zip(CODE_TEXTS, USAGE)], stream)
    # The observation is the code's print log, not any tool's output: no output can be read.
    check_run(run, server, steps=CODE_STEPS, ids=False, outputs=[None] * 4)
