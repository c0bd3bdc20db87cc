"""agentmetrics.capture._text: tool calls asked for in a model's text (ReAct, JSON action blobs, smolagents code
actions) and tool results sent back as text. Standard library, agentmetrics, pytest and hypothesis only, so
that these tests can also run in the main suite; the request fixtures under data/ are what the real
frameworks sent (llama-index 0.14 ReActAgent, smolagents 1.26 ToolCallingAgent and CodeAgent, autogen 0.7)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentmetrics.model._model import ToolCall
from agentmetrics.capture._text import calls_in_text, results_in_text, tools_in_prompt

DATA = Path(__file__).resolve().parent / "frameworks" / "agents" / "data"
TOOLS = {"get_weather": ["city"], "get_time": ["city"], "final_answer": ["answer"]}


def request(name: str) -> dict[str, Any]:
    return json.loads((DATA / f"{name}_request.json").read_text(encoding="utf-8"))


# --------------------------------------------------------------------------- ReAct


LLAMA_REACT = ("Thought: The current language of the user is: English. I need to use a tool to help me answer the "
               "question.\nAction: get_weather\nAction Input: {\"city\": \"Paris\"}")


def test_llama_index_react_action_reads_exactly() -> None:
    assert calls_in_text(LLAMA_REACT) == ("react", [ToolCall("get_weather", {"city": "Paris"})])


def test_react_variants() -> None:
    # LangChain's classic single-input tools take the bare string: kept as raw arguments, flagged.
    assert calls_in_text("Thought: I should look it up\nAction: search\nAction Input: weather in Paris") == (
        "react", [ToolCall("search", {}, raw_arguments="weather in Paris")])
    # LangChain numbers its lines in some prompts; an empty input is no arguments.
    assert calls_in_text("Action 1: get_time\nAction 1 Input: ") == ("react", [ToolCall("get_time", {})])
    # An input fenced as JSON reads as the object inside.
    assert calls_in_text('Thought: t\nAction: get_time\nAction Input: ```json\n{"city": "Paris"}\n```') == (
        "react", [ToolCall("get_time", {"city": "Paris"})])
    # LangChain's structured-chat blob; its "Final Answer" action is an answer.
    blob = 'Thought: t\nAction:\n```\n{"action": "get_time", "action_input": {"city": "Paris"}}\n```'
    assert calls_in_text(blob) == ("react", [ToolCall("get_time", {"city": "Paris"})])
    assert calls_in_text('```json\n{"action": "Final Answer", "action_input": "It is 14:05."}\n```') is None


@pytest.mark.parametrize(("text", "why"), [
    ("Thought: t\nAction: a\nAction Input: {}\nAction: b\nAction Input: {}", "2 'Action:' lines"),
    ("Thought: I will call it\nAction: get_time", "without exactly one 'Action Input:'"),
    ("Thought: t\nAction: get_time\nAction Input: {}\nAnswer: 14:05", "both an action and a final answer"),
    ("Thought: t\nAction: get time now\nAction Input: {}", "not one tool name"),
    ("Thought: t\nAction: get_time\nAction Input: {}\nObservation: 14:05", "'Observation:' the model wrote"),
])
def test_react_texts_that_cannot_be_read_exactly_raise(text: str, why: str) -> None:
    with pytest.raises(ValueError, match=why):
        calls_in_text(text)


names = st.from_regex(r"[A-Za-z_][A-Za-z0-9_.\-]{0,30}", fullmatch=True)
json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=20),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner,
                                                                                       max_size=3), max_leaves=8)
thoughts = st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=60).filter(
    lambda text: ":" not in text)


@given(name=names, arguments=st.dictionaries(st.text(max_size=10), json_values, max_size=4), thought=thoughts,
       indent=st.booleans())
def test_react_round_trip(name: str, arguments: dict[str, Any], thought: str, indent: bool) -> None:
    text = f"Thought: {thought}\nAction: {name}\nAction Input: {json.dumps(arguments, indent=2 if indent else None)}"
    assert calls_in_text(text) == ("react", [ToolCall(name, arguments)])


# --------------------------------------------------------------------------- answers


@pytest.mark.parametrize("text", [
    "",
    "Paris is sunny (21 C) at 14:05.",
    "Thought: I can answer without using any more tools.\nAnswer: Paris is sunny.",
    "Thought: I can answer.\nAnswer: genres are\nAction: explosions\nDrama: tears",
    "Here is how to call it:\n```python\nget_weather(city=\"Paris\")\n```",
    "Use <code>get_weather(city=\"Paris\")</code> to ask.",
    "Action: lots of explosions and car chases.",
    "Genres:\nAction: fast\nComedy: funny",
    "The Action Input field takes JSON.",
    "Final Answer: done",
    "```json\n{\"action\": \"Final Answer\", \"action_input\": \"done\"}\n```",
])
def test_plain_answers_ask_for_no_tool(text: str) -> None:
    assert calls_in_text(text, tools=TOOLS) is None
    assert calls_in_text(text) is None


@given(st.text())
def test_arbitrary_text_never_crashes(text: str) -> None:
    for tools in (None, TOOLS):
        try:
            found = calls_in_text(text, tools=tools)
        except ValueError as error:
            assert str(error)
        else:
            assert found is None or (found[0] in ("react", "code") and all(
                isinstance(call, ToolCall) for call in found[1]))


@given(st.text(alphabet=st.characters(blacklist_characters=":<`"), max_size=200))
def test_text_without_markers_is_an_answer(text: str) -> None:
    assert calls_in_text(text, tools=TOOLS) is None


# --------------------------------------------------------------------------- code actions


def test_code_actions_read_exactly() -> None:
    text = ('Thought: I will get the weather.\n<code>\nparis = get_weather(city="Paris")\n'
            'tokyo = get_weather("Tokyo")\nprint(paris, tokyo)\n')
    assert calls_in_text(text, tools=TOOLS) == (
        "code", [ToolCall("get_weather", {"city": "Paris"}), ToolCall("get_weather", {"city": "Tokyo"})])
    closed = 'Thought: done\n<code>\nfinal_answer("It is 14:05.")\n</code>'
    assert calls_in_text(closed, tools=TOOLS) == ("code", [ToolCall("final_answer", {"answer": "It is 14:05."})])
    # smolagents runs every block, joined; markdown tags (code_block_tags="markdown") after a Thought.
    two = '<code>\nget_time(city="Paris")\n</code>\nThen:\n<code>\nprint(get_weather(city="Tokyo"))\n</code>'
    assert calls_in_text(two, tools=TOOLS) == (
        "code", [ToolCall("get_time", {"city": "Paris"}), ToolCall("get_weather", {"city": "Tokyo"})])
    markdown = 'Thought: time\n```py\nget_time(city="Paris")\n```'
    assert calls_in_text(markdown, tools=TOOLS) == ("code", [ToolCall("get_time", {"city": "Paris"})])
    # Literal arguments: tuples as lists; code that calls no tool asks for none.
    assert calls_in_text('<code>\nget_time(city=("a", 1), n=-2)\n', tools=["get_time"]) == (
        "code", [ToolCall("get_time", {"city": ["a", 1], "n": -2})])
    assert calls_in_text("<code>\nx = 5 + 3\nprint(x)\n", tools=TOOLS) is None


@pytest.mark.parametrize(("code", "why"), [
    ('for city in ["Paris", "Tokyo"]:\n    get_weather(city=city)', "not a straight sequence"),
    ('city = "Paris"\nget_weather(city=city)', "not a literal"),
    ('helper("Paris")', "calls something other than a tool"),
    ('get_weather(city="Paris").upper()', "calls something other than a tool"),
    ('import os\nget_time(city="Paris")', "not a straight sequence"),
    ('get_time("Paris", "x")', "positional arguments"),
    ('get_time(**{"city": "Paris"})', r"\*\*arguments"),
    ('get_time(city={1, 2})', "no JSON value"),
    ('get_time(city="Paris"', "not valid Python"),
])
def test_code_actions_that_cannot_be_read_exactly_raise(code: str, why: str) -> None:
    with pytest.raises(ValueError, match=why):
        calls_in_text(f"Thought: t\n<code>\n{code}\n</code>", tools=TOOLS)


def test_code_action_without_known_tools_raises() -> None:
    with pytest.raises(ValueError, match="cannot be read exactly without running it.*tools it may call are not"):
        calls_in_text('Thought: t\n<code>\nget_time(city="Paris")\n')


def test_tools_in_smolagents_prompt() -> None:
    assert tools_in_prompt(request("smolagents_code")["messages"]) == TOOLS
    assert tools_in_prompt(request("llama_index_react")["messages"]) == {}


def test_recorded_code_actions_read_with_the_prompts_tools() -> None:
    messages = request("smolagents_code")["messages"]
    tools = tools_in_prompt(messages)
    said = [message["content"][0]["text"] for message in messages if message["role"] == "assistant"]
    # smolagents puts the model's text back with its own note appended; the model's text is before it.
    texts = [text[:text.index("\nCalling tools:")] for text in said]
    assert [calls_in_text(text, tools=tools) for text in texts] == [
        ("code", [ToolCall("get_weather", {"city": "Paris"}), ToolCall("get_weather", {"city": "Tokyo"})]),
        ("code", [ToolCall("get_time", {"city": "Paris"})]),
    ]


# --------------------------------------------------------------------------- results


def test_llama_index_observations() -> None:
    assert results_in_text(request("llama_index_react")["messages"]) == [
        (None, "get_weather", "sunny, 21 C"), (None, "get_weather", "rain, 17 C"), (None, "get_time", "14:05")]


def test_smolagents_observations() -> None:
    # The two parallel results came back joined in one message: not split. The lone one reads with its id.
    assert results_in_text(request("smolagents_tool_calling")["messages"]) == [("call_t_paris", "get_time", "14:05")]
    # A code action's observation is its print log, no tool's output.
    assert results_in_text(request("smolagents_code")["messages"]) == []
    assert results_in_text(request("autogen_team")["messages"]) == []


def test_results_keep_the_text_exactly() -> None:
    messages = [
        {"role": "assistant", "content": "Thought: t\nAction: get_time\nAction Input: {}"},
        {"role": "user", "content": "Observation: line one\n  line two "},
        {"role": "user", "content": "Observation: not after an action"},
        {"role": "assistant", "content": "Calling tools:\n[{'id': 'c1', 'type': 'function', 'function': "
                                         "{'name': 'get_weather', 'arguments': {'city': 'Paris'}}}]"},
        {"role": "user", "content": [{"type": "text", "text": "Observation:\nsunny\n21 C"}]},
    ]
    assert results_in_text(messages) == [(None, "get_time", "line one\n  line two "),
                                         ("c1", "get_weather", "sunny\n21 C")]


@given(st.lists(st.fixed_dictionaries({"role": st.sampled_from(["user", "assistant", "tool", "system"]),
                                       "content": st.text(max_size=80)}), max_size=6))
def test_results_never_crash(messages: list[dict[str, Any]]) -> None:
    for call_id, name, output in results_in_text(messages):
        assert call_id is None or isinstance(call_id, str)
        assert isinstance(name, str) and isinstance(output, str)


# --------------------------------------------------------------------------- through the capture


REACT_STEP = "Thought: I need the weather.\nAction: get_weather\nAction Input: {\"city\": \"Paris\"}"


@pytest.mark.parametrize("builder", ["openai_chat", "openai_responses", "anthropic", "gemini", "cohere", "ollama",
                                     "bedrock_converse"])
@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
def test_a_response_text_is_read_in_every_api(builder: str, stream: bool) -> None:
    """The text a text-protocol agent writes its request in, from each API's response, whole and streamed (the
    scripted replies cut the text over several events)."""
    import provider_replies

    from agentmetrics.capture._answer import answer_text
    from agentmetrics.capture._reading._bodies import reader_payload
    from agentmetrics.capture._records import Exchange
    from agentmetrics.formats._payload import to_tree

    reply = getattr(provider_replies, builder)([], REACT_STEP, stream=stream)
    format = {"bedrock_converse": "bedrock"}.get(builder, builder)
    exchange = Exchange(0, "http", "p", format, "e", b"{}")
    exchange.streamed = stream
    exchange.chunks = [reply.sent]
    exchange.finish()
    payload, read_as = reader_payload(exchange)
    assert answer_text(read_as, to_tree(payload)) == REACT_STEP


def react_script(server: Any, *, stream: bool) -> None:
    import provider_replies

    server.add(provider_replies.openai_chat([], REACT_STEP, stream=stream, input_tokens=10, output_tokens=1))
    server.add(provider_replies.openai_chat([], "Thought: I can answer.\nAnswer: sunny", stream=stream,
                                            input_tokens=20, output_tokens=2))


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
def test_a_react_agents_calls_are_read_from_its_text_with_their_outputs(stream: bool) -> None:
    """A ReAct loop on the real openai client (no API tools in the request): the call it wrote is a call, with
    protocol "react", and its output is the Observation the agent sent back."""
    import openai
    from provider_server import ProviderServer

    import agentmetrics as am

    with ProviderServer() as server, openai.OpenAI(base_url=server.url + "/v1", api_key="sk-test",
                                                   max_retries=0) as client:
        react_script(server, stream=stream)
        messages: list[Any] = [{"role": "system", "content": "Answer with Thought/Action/Action Input."},
                               {"role": "user", "content": "Weather in Paris?"}]
        with am.capture() as run:
            for _ in range(2):
                if stream:
                    text = "".join(chunk.choices[0].delta.content or "" for chunk in client.chat.completions.create(
                        model="m", messages=messages, stream=True) if chunk.choices)
                else:
                    text = client.chat.completions.create(model="m", messages=messages).choices[0].message.content
                messages += [{"role": "assistant", "content": text},
                             {"role": "user", "content": "Observation: sunny, 21 C"}]
    assert [(turn.protocol, turn.error) for turn in run.turns] == [("react", None), ("api", None)]
    assert [(call.name, call.arguments, call.id, call.output) for call in run.tool_calls] == [
        ("get_weather", {"city": "Paris"}, None, "sunny, 21 C")]


def test_a_text_answer_to_a_prompt_that_teaches_no_protocol_is_an_answer() -> None:
    """A chat whose prompt never teaches a text protocol: a reply explaining ReAct is an answer, not a call."""
    import openai
    from provider_server import ProviderServer

    import agentmetrics as am

    with ProviderServer() as server, openai.OpenAI(base_url=server.url + "/v1", api_key="sk-test",
                                                   max_retries=0) as client:
        react_script(server, stream=False)
        with am.capture() as run:
            client.chat.completions.create(model="m", messages=[{"role": "user", "content": "What is ReAct?"}])
    assert [(turn.protocol, turn.tool_calls, turn.error) for turn in run.turns] == [("api", (), None)]


def test_a_text_answer_to_a_request_that_offers_api_tools_is_an_answer() -> None:
    """With tools offered through the API, what the model writes is its answer, whatever it says."""
    import openai
    from provider_server import ProviderServer

    import agentmetrics as am

    tools = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]
    with ProviderServer() as server, openai.OpenAI(base_url=server.url + "/v1", api_key="sk-test",
                                                   max_retries=0) as client:
        react_script(server, stream=False)
        with am.capture() as run:
            client.chat.completions.create(model="m", messages=[
                {"role": "system", "content": "Thought/Action/Action Input."}, {"role": "user", "content": "hi"}],
                tools=tools)
    assert [(turn.protocol, turn.tool_calls) for turn in run.turns] == [("api", ())]


def test_a_code_action_that_cannot_be_read_is_an_error_naming_the_turn() -> None:
    """A code action that loops over its tools: its calls depend on running it, so the turn is refused (the run's
    calls raise, naming the turn), never read as zero calls."""
    import openai
    import provider_replies
    from provider_server import ProviderServer

    import agentmetrics as am
    from agentmetrics import CaptureError

    system = ("Write Python in <code> tags. You can call these tools:\ndef get_weather(city: string) -> string:\n"
              "    ...\n")
    code = "Thought: loop over them\n<code>\nfor city in ['Paris', 'Tokyo']:\n    print(get_weather(city=city))\n"
    with ProviderServer() as server, openai.OpenAI(base_url=server.url + "/v1", api_key="sk-test",
                                                   max_retries=0) as client:
        server.add(provider_replies.openai_chat([], code))
        with am.capture() as run:
            client.chat.completions.create(model="m", messages=[{"role": "system", "content": system},
                                                                {"role": "user", "content": "weather?"}])
    (turn,) = run.turns
    assert "asked for tools in its text" in str(turn.error) and "not a straight sequence" in str(turn.error)
    with pytest.raises(CaptureError, match="turn 0: .*asked for tools in its text"):
        _ = run.tool_calls


def test_a_framework_result_no_wire_saw_is_read_for_its_text_protocol() -> None:
    """A LangChain chat model no HTTP hook sees (langchain-core's own GenericFakeChatModel, which makes no request)
    and a GenAI span alone: the ReAct step in their text is a call, never zero calls; a code action, whose tools
    are not known there, is an error naming the turn."""
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage
    from opentelemetry.sdk.trace import TracerProvider

    import agentmetrics as am
    from agentmetrics import CaptureError

    model = GenericFakeChatModel(messages=iter([AIMessage(content=REACT_STEP)]))
    with am.capture() as run:
        model.invoke("Weather in Paris?")
    assert [(turn.source, turn.protocol) for turn in run.turns] == [("langchain", "react")]
    assert [(call.name, call.arguments) for call in run.tool_calls] == [("get_weather", {"city": "Paris"})]

    provider = TracerProvider()
    provider.add_span_processor(am.capture.span_processor())
    tracer = provider.get_tracer("test-agent-framework")
    code = "Thought: t\n<code>\nget_weather(city=\"Paris\")\n"
    with am.capture(hooks=["otel"]) as run:
        for text in (REACT_STEP, code):
            with tracer.start_as_current_span("chat") as span:
                span.set_attributes({"gen_ai.operation.name": "chat", "gen_ai.output.messages": json.dumps(
                    [{"role": "assistant", "parts": [{"type": "text", "content": text}]}])})
    first, second = run.turns
    assert (first.protocol, [call.name for call in first.tool_calls]) == ("react", ["get_weather"])
    assert "asked for tools in its text" in str(second.error) and "not known" in str(second.error)
    with pytest.raises(CaptureError, match="turn 1: "):
        _ = run.tool_calls
