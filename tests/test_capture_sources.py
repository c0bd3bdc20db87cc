"""One model response is one turn, however many hooks saw it.

Each pair of hooks that can see the same response, with real components on the scripted loopback server:

- an httpx2 client over an aiohttp transport (the openai and anthropic SDKs' ``DefaultAioHttpClient``, litellm's
  default async transport): the httpx hook and the aiohttp hook;
- an httpx client over an httpx2 transport: the httpx hook twice;
- anthropic 2.x's own OpenTelemetry span beside the wire, with message content and without;
- a GenAI span that gives Gemini's calls ids the wire does not have (as google-adk does) beside the wire;
- a span whose calls disagree with the wire's: the turn carries an error, neither account is kept.

A property test then drives the merge itself with any number of framework views of each response.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import anthropic
import httpx
import httpx2
import openai
import provider_replies as replies
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from provider_replies import Call
from provider_server import ProviderServer

import agentmetrics as am
from agentmetrics import CaptureError
from agentmetrics.capture import Usage

USER = "What is the weather in Paris and Tokyo, and the time in Paris?"
FIRST = [Call("get_weather", {"city": "Paris"}, "call_w1"), Call("get_weather", {"city": "Tokyo"}, "call_w2")]
SECOND = [Call("get_time", {"city": "Paris"}, "call_t3")]
ANSWER = "Paris: sunny, 21 C; Tokyo: rain, 17 C; it is 14:05 in Paris."
#: Each response's usage, distinct, so that a response counted twice shows in the sums.
USAGE = [(101, 11), (202, 22), (303, 33)]
SCRIPTED = [(call.name, call.arguments, call.id) for call in FIRST + SECOND]
TOOLS_OPENAI = [{"type": "function", "function": {"name": name, "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}}}} for name in ("get_weather", "get_time")]
TOOLS_ANTHROPIC = [{"name": name, "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}}}
                   for name in ("get_weather", "get_time")]


def tool(name: str, arguments: dict[str, Any]) -> str:
    return f"{name}({arguments['city']}) = ok"


def script(server: ProviderServer, builder: Any, *, stream: bool, **extra: Any) -> None:
    for calls, text, (inp, out) in zip((FIRST, SECOND, []), (None, None, ANSWER), USAGE):
        server.add(builder(calls, text, stream=stream, input_tokens=inp, output_tokens=out, **extra))


@pytest.fixture
def server() -> Iterator[ProviderServer]:
    with ProviderServer() as running:
        yield running


def check_exact(run: Any, source: str, *, ids: bool = True, outputs: bool = True) -> None:
    """Three turns from ``source``, the scripted calls, each response's usage once."""
    turns = run.turns
    assert [(turn.source, turn.error) for turn in turns] == [(source, None)] * 3
    assert [len(turn.tool_calls) for turn in turns] == [2, 1, 0]
    expected = SCRIPTED if ids else [(name, arguments, None) for name, arguments, _ in SCRIPTED]
    assert [(call.name, call.arguments, call.id) for call in run.tool_calls] == expected
    assert [(turn.usage.input_tokens, turn.usage.output_tokens) for turn in turns] == USAGE
    total = run.usage
    assert (total.input_tokens, total.output_tokens, total.turns, total.unreported) == (606, 66, 3, 0)
    if outputs:
        assert [call.output for call in run.tool_calls] == [tool(name, args) for name, args, _ in SCRIPTED]


# --------------------------------------------------------------------------- conversations


async def openai_conversation(client: Any, *, stream: bool) -> str:
    messages: list[Any] = [{"role": "user", "content": USER}]
    for _ in range(3):
        if stream:
            async with client.chat.completions.stream(model="gpt-4o-mini", messages=messages,
                                                      tools=TOOLS_OPENAI) as events:
                completion = await events.get_final_completion()
        else:
            completion = await client.chat.completions.create(model="gpt-4o-mini", messages=messages,
                                                              tools=TOOLS_OPENAI)
        message = completion.choices[0].message
        if not message.tool_calls:
            return str(message.content)
        messages.append(message.model_dump(exclude_none=True))
        for call in message.tool_calls:
            result = tool(call.function.name, json.loads(call.function.arguments))
            messages.append({"role": "tool", "tool_call_id": call.id, "content": result})
    raise AssertionError("the scripted model never answered")


def anthropic_follow(messages: list[Any], message: Any) -> str | None:
    """The agent's answer, or (None) the model's calls and their results added to ``messages``."""
    uses = [block for block in message.content if block.type == "tool_use"]
    if not uses:
        return "".join(block.text for block in message.content if block.type == "text")
    messages.append({"role": "assistant", "content": [block.model_dump() for block in message.content]})
    messages.append({"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": use.id, "content": tool(use.name, use.input)} for use in uses]})
    return None


def anthropic_conversation(client: Any, *, stream: bool) -> str:
    messages: list[Any] = [{"role": "user", "content": USER}]
    for _ in range(3):
        if stream:
            with client.messages.stream(model="claude-sonnet-4-5", max_tokens=256, messages=messages,
                                        tools=TOOLS_ANTHROPIC) as events:
                message = events.get_final_message()
        else:
            message = client.messages.create(model="claude-sonnet-4-5", max_tokens=256, messages=messages,
                                             tools=TOOLS_ANTHROPIC)
        answer = anthropic_follow(messages, message)
        if answer is not None:
            return answer
    raise AssertionError("the scripted model never answered")


async def aanthropic_conversation(client: Any, *, stream: bool) -> str:
    messages: list[Any] = [{"role": "user", "content": USER}]
    for _ in range(3):
        if stream:
            async with client.messages.stream(model="claude-sonnet-4-5", max_tokens=256, messages=messages,
                                              tools=TOOLS_ANTHROPIC) as events:
                message = await events.get_final_message()
        else:
            message = await client.messages.create(model="claude-sonnet-4-5", max_tokens=256, messages=messages,
                                                   tools=TOOLS_ANTHROPIC)
        answer = anthropic_follow(messages, message)
        if answer is not None:
            return answer
    raise AssertionError("the scripted model never answered")


# --------------------------------------------------------------------------- httpx over aiohttp


HOOKS = {"all": (None, "http"), "httpx alone": (["httpx"], "http"), "aiohttp alone": (["aiohttp"], "aiohttp")}


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
@pytest.mark.parametrize("hooks", sorted(HOOKS))
def test_openai_on_aiohttp_is_one_turn_per_response(server: ProviderServer, hooks: str, stream: bool) -> None:
    """openai's DefaultAioHttpClient: an httpx2 client whose transport is aiohttp. Both hooks see each response;
    the capture holds it once (it held every call twice)."""
    script(server, replies.openai_chat, stream=stream)
    chosen, source = HOOKS[hooks]

    async def main() -> Any:
        async with openai.AsyncOpenAI(base_url=server.url + "/v1", api_key="sk-test", max_retries=0,
                                      http_client=openai.DefaultAioHttpClient()) as client:
            with am.capture(hooks=chosen) as run:
                assert await openai_conversation(client, stream=stream) == ANSWER
        return run

    run = asyncio.run(main())
    assert server.errors == [] and len(server.exchanges) == 3
    check_exact(run, source)
    assert [turn.streamed for turn in run.turns] == [stream] * 3


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
def test_anthropic_on_aiohttp_is_one_turn_per_response(server: ProviderServer, stream: bool) -> None:
    script(server, replies.anthropic, stream=stream)

    async def main() -> Any:
        async with anthropic.AsyncAnthropic(base_url=server.url, api_key="sk-ant-test", max_retries=0,
                                            http_client=anthropic.DefaultAioHttpClient()) as client:
            with am.capture() as run:
                assert await aanthropic_conversation(client, stream=stream) == ANSWER
        return run

    run = asyncio.run(main())
    assert server.errors == []
    check_exact(run, "http")


class Httpx2Transport(httpx.BaseTransport):
    """An httpx transport that sends each request through an httpx2 client (as a gateway that wraps one
    client library in the other does): the httpx hook sees the request twice, once per library."""

    def __init__(self) -> None:
        self._client = httpx2.Client()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        sent = self._client.send(self._client.build_request(
            request.method, str(request.url), headers=list(request.headers.raw), content=request.read()))
        return httpx.Response(sent.status_code, headers=[(k, v) for k, v in sent.headers.raw
                                                         if k.lower() not in (b"content-encoding",
                                                                              b"content-length")],
                              content=sent.content)

    def close(self) -> None:
        self._client.close()


def test_httpx_over_httpx2_is_one_turn_per_response(server: ProviderServer) -> None:
    script(server, replies.anthropic, stream=False)
    with httpx.Client(transport=Httpx2Transport()) as http, am.capture() as run:
        messages: list[Any] = [{"role": "user", "content": USER}]
        for _ in range(3):
            body = http.post(server.url + "/v1/messages", json={
                "model": "claude-sonnet-4-5", "max_tokens": 256, "messages": messages}).json()
            uses = [block for block in body["content"] if block["type"] == "tool_use"]
            messages.append({"role": "assistant", "content": body["content"]})
            messages.append({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": use["id"], "content": tool(use["name"], use["input"])}
                for use in uses]})
    check_exact(run, "http")


# --------------------------------------------------------------------------- OpenTelemetry beside the wire


def tracer_provider() -> Any:
    """An SDK TracerProvider of the test's own (not the global one) with the capture's span processor, and an
    in-memory exporter to show the spans really were made."""
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    provider = TracerProvider()
    exporter = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    provider.add_span_processor(am.capture.span_processor())
    provider.exporter = exporter  # type: ignore[attr-defined]
    return provider


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
@pytest.mark.parametrize("content", ["metadata_only", "content"])
def test_anthropic_span_beside_the_wire(server: ProviderServer, content: str, stream: bool) -> None:
    """anthropic 2.x makes a span of each API call; by default it holds usage but no messages. Beside the wire
    it adds nothing: no turn, no usage (it was a fourth and fifth turn with the usage counted twice)."""
    script(server, replies.anthropic, stream=stream)
    provider = tracer_provider()
    client = anthropic.Anthropic(base_url=server.url, api_key="sk-ant-test", max_retries=0, open_telemetry={
        "tracer_provider": provider, "traces": {"content_mode": content}})
    with client, am.capture() as run:
        assert anthropic_conversation(client, stream=stream) == ANSWER
    spans = provider.exporter.get_finished_spans()
    assert len(spans) == 3 and all(span.attributes["gen_ai.operation.name"] == "chat" for span in spans)
    assert all(("gen_ai.output.messages" in span.attributes) == (content == "content") for span in spans)
    assert all(span.attributes["gen_ai.usage.input_tokens"] for span in spans)
    check_exact(run, "http")


def test_anthropic_spans_alone(server: ProviderServer) -> None:
    """The otel hook alone: spans with content are the turns; spans without content say a response happened
    but not its calls, so each is an error (the run's calls raise), never a turn of zero calls."""
    provider = tracer_provider()
    for content in ("content", "metadata_only"):
        script(server, replies.anthropic, stream=False)
        client = anthropic.Anthropic(base_url=server.url, api_key="sk-ant-test", max_retries=0, open_telemetry={
            "tracer_provider": provider, "traces": {"content_mode": content}})
        with client, am.capture(hooks=["otel"]) as run:
            assert anthropic_conversation(client, stream=False) == ANSWER
        if content == "content":
            check_exact(run, "otel", outputs=False)
        else:
            assert [turn.source for turn in run.turns] == ["otel"] * 3
            assert all("without its messages" in str(turn.error) for turn in run.turns)
            with pytest.raises(CaptureError, match="message content capture"):
                _ = run.tool_calls


def span_messages(calls: list[tuple[str, dict[str, Any], str | None]], text: str | None = None) -> str:
    parts: list[Any] = [{"type": "tool_call", "name": name, "arguments": arguments, "id": call_id}
                        for name, arguments, call_id in calls]
    if text is not None:
        parts.append({"type": "text", "content": text})
    return json.dumps([{"role": "assistant", "parts": parts, "finish_reason": "stop"}])


def test_span_ids_the_wire_lacks_are_matched_by_position(server: ProviderServer) -> None:
    """Gemini sends no call ids; google-adk's spans give its calls ids of its own (get_weather_0, ...). The span
    is the wire's response, matched by the calls' places in it: one turn, the wire's calls (no ids), the
    span's agent name."""
    from google import genai
    from google.genai import types

    script(server, replies.gemini, stream=False, include_ids=False)
    provider = tracer_provider()
    tracer = provider.get_tracer("test-agent-framework")
    client = genai.Client(api_key="test-key", http_options=types.HttpOptions(base_url=server.url))
    contents: list[Any] = [types.Content(role="user", parts=[types.Part(text=USER)])]
    with am.capture() as run:
        for step in range(3):
            with tracer.start_as_current_span("call_llm") as span:
                response = client.models.generate_content(model="gemini-2.5-flash", contents=contents)
                calls = response.function_calls or []
                span.set_attributes({
                    "gen_ai.operation.name": "generate_content", "gen_ai.agent.name": "weather_agent",
                    "gen_ai.output.messages": span_messages(
                        [(call.name, dict(call.args or {}), f"{call.name}_{step}_{n}") for n, call in
                         enumerate(calls)], None if calls else response.text)})
            contents.append(response.candidates[0].content)
            if calls:
                contents.append(types.Content(role="user", parts=[types.Part(function_response=types.FunctionResponse(
                    name=call.name, response={"result": tool(call.name, dict(call.args or {}))})) for call in calls]))
    check_exact(run, "http", ids=False, outputs=False)
    assert [turn.agent for turn in run.turns] == ["weather_agent"] * 3


def test_a_span_that_disagrees_with_the_wire_is_an_error(server: ProviderServer) -> None:
    """Two accounts of one response that differ: the turn says so, and the run's calls raise rather than keep
    either (or both)."""
    script(server, replies.openai_chat, stream=False)
    provider = tracer_provider()
    tracer = provider.get_tracer("test-agent-framework")

    async def main() -> Any:
        async with openai.AsyncOpenAI(base_url=server.url + "/v1", api_key="sk-test", max_retries=0) as client:
            with am.capture() as run:
                messages: list[Any] = [{"role": "user", "content": USER}]
                with tracer.start_as_current_span("chat") as span:
                    await client.chat.completions.create(model="gpt-4o-mini", messages=messages)
                    span.set_attributes({"gen_ai.operation.name": "chat", "gen_ai.output.messages": span_messages(
                        [("get_weather", {"city": "Lyon"}, "call_w1")])})
        return run

    run = asyncio.run(main())
    (turn,) = run.turns
    assert turn.source == "http" and "disagree" in str(turn.error) and "[get_weather, get_weather]" in str(turn.error)
    with pytest.raises(CaptureError, match="disagree"):
        _ = run.tool_calls


def test_a_span_seen_by_no_wire_hook_is_a_turn_of_its_own() -> None:
    """A framework's response that no HTTP hook saw (a client the capture does not hook) is kept from its span."""
    provider = tracer_provider()
    tracer = provider.get_tracer("test-agent-framework")
    with am.capture() as run, tracer.start_as_current_span("chat") as span:
        span.set_attributes({"gen_ai.operation.name": "chat", "gen_ai.usage.input_tokens": 5,
                             "gen_ai.usage.output_tokens": 2,
                             "gen_ai.output.messages": span_messages([("get_time", {"city": "Paris"}, "c1")])})
    (turn,) = run.turns
    assert (turn.source, turn.error, turn.usage.input_tokens) == ("otel", None, 5)
    assert [(call.name, call.arguments, call.id) for call in run.tool_calls] == [("get_time", {"city": "Paris"}, "c1")]


# --------------------------------------------------------------------------- the merge, as a property


def wire_exchange(seq: int, calls: list[tuple[str, dict[str, Any], str | None]], usage: tuple[int, int]) -> Any:
    from agentmetrics.capture._records import Exchange

    body = replies.openai_chat([Call(name, arguments, call_id or "") for name, arguments, call_id in calls],
                               None if calls else "done", input_tokens=usage[0], output_tokens=usage[1]).body
    exchange = Exchange(seq, "http", "openai", "openai_chat", "http://127.0.0.1/v1/chat/completions",
                        json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]}).encode())
    exchange.status = 200
    exchange.chunks = [body]
    exchange.finish()
    return exchange


responses = st.lists(st.lists(st.tuples(st.sampled_from(["a", "b", "c"]), st.integers(0, 3)), max_size=3),
                     min_size=1, max_size=5)
views = st.lists(st.tuples(st.sampled_from(["otel", "langchain", "openai_agents"]),
                           st.sampled_from(["same", "invented ids", "no content", "unreadable"]),
                           st.booleans()), max_size=4)


@settings(max_examples=300, deadline=None)
@given(responses, st.data())
def test_any_number_of_views_of_a_response_is_one_turn(script_: list[list[tuple[str, int]]], data: Any) -> None:
    """Each response on the wire, with any number of framework views of it (its calls with the wire's ids or
    invented ones, no content, or unreadable), each bracketing the request: as many turns as responses, the
    wire's calls and ids, each response's usage once."""
    from agentmetrics.capture._reading import read_turns
    from agentmetrics.capture._records import ModelEvent

    seq = 0
    exchanges, events, expected = [], [], []
    for number, made in enumerate(script_):
        calls = [(name, {"x": value}, f"id{number}_{n}") for n, (name, value) in enumerate(made)]
        expected.append(calls)
        seen = data.draw(views)
        starts = list(range(seq, seq + len(seen)))
        seq += len(seen)
        exchanges.append(wire_exchange(seq, calls, (10 + number, number)))
        seq += 1
        for start, (source, how, agent) in zip(starts, seen):
            from agentmetrics import ToolCall

            reported = tuple(ToolCall(name, arguments, id=None if how == "invented ids" else call_id)
                             if how != "invented ids" else ToolCall(name, arguments, id=f"{name}_{n}")
                             for n, (name, arguments, call_id) in enumerate(calls))
            events.append(ModelEvent(seq, source, () if how in ("no content", "unreadable") else reported,
                                     agent="agent" if agent else None, usage=Usage(99, 99, turns=1),
                                     error="unreadable" if how == "unreadable" else None, started=start,
                                     content=how != "no content"))
            seq += 1
    turns = read_turns(exchanges, events)
    assert [[(call.name, call.arguments, call.id) for call in turn.tool_calls] for turn in turns] == expected
    assert [turn.error for turn in turns] == [None] * len(expected)
    assert sum(turn.usage.input_tokens for turn in turns) == sum(10 + number for number in range(len(expected)))


def reference_outputs(reads: list[Any], tools: list[Any]) -> list[list[Any]]:
    """Outputs paired as the capture's documentation says, by scanning every later request and every execution:
    the first later request holding the call's result (by id; a result sent without an id, by name; a call
    without an id, by name among the results that request added), else the first execution of that id, or of
    that name after the response."""
    tools = list(tools)
    out = []
    for position, read in enumerate(reads):
        used: set[tuple[int, int]] = set()
        outputs = []
        for call in read.turn.tool_calls:
            output: Any = None
            found = False
            for number in range(position + 1, len(reads)):
                start = 0 if call.id is not None else len(reads[number - 1].results)
                for slot in range(start, len(reads[number].results)):
                    call_id, name, value = reads[number].results[slot]
                    matches = (call_id == call.id) if call.id is not None and call_id is not None \
                        else name == call.name
                    if (number, slot) not in used and matches:
                        output, found = value, True
                        used.add((number, slot))
                        break
                if found:
                    break
            if not found:
                for event in tools:
                    if (event.call_id == call.id) if call.id is not None and event.call_id \
                            else (event.name == call.name and event.seq > read.seq):
                        output = event.output
                        tools.remove(event)
                        break
            outputs.append(output)
        out.append(outputs)
    return out


names = st.sampled_from(["a", "b"])
ids = st.one_of(st.none(), st.sampled_from(["i1", "i2", "i3"]))


@settings(max_examples=500, deadline=None)
@given(st.lists(st.tuples(st.lists(st.tuples(names, ids), max_size=3),
                          st.lists(st.tuples(ids, st.one_of(st.none(), names)), max_size=3)), min_size=1, max_size=6),
       st.lists(st.tuples(st.integers(0, 20), names, ids), max_size=6))
def test_outputs_are_paired_as_a_scan_of_every_request_would(script_: Any, executions: Any) -> None:
    """The indexed pairing (linear in the run) against the scan it replaced (quadratic), on runs of any shape:
    calls with and without ids, results added request by request, executions reported with and without ids."""
    from agentmetrics import ToolCall
    from agentmetrics.capture._reading._exchange import Read
    from agentmetrics.capture._reading._merge import pair_outputs
    from agentmetrics.capture._records import ToolEvent, Turn

    reads, results = [], []
    for number, (calls, added) in enumerate(script_):
        results = results + [(call_id, name, f"out{number}_{k}") for k, (call_id, name) in enumerate(added)]
        turn = Turn(index=number, provider="p", format="openai_chat", endpoint="e", model=None,
                    tool_calls=tuple(ToolCall(name, {}, id=call_id) for name, call_id in calls),
                    usage=Usage(turns=1), latency=None, streamed=False, source="http")
        reads.append(Read(turn, list(results), number * 10))
    tools = sorted((ToolEvent(seq, "otel", name, call_id, f"ran{seq}") for seq, name, call_id in executions),
                   key=lambda event: event.seq)
    paired = pair_outputs(reads, tools)
    assert [[call.output for call in turn.tool_calls] for turn in paired] == reference_outputs(reads, tools)


def test_the_new_errors_carry_no_secret(server: ProviderServer) -> None:
    """The errors of this issue (two accounts that disagree, a text-protocol request that cannot be read) name the
    turn and the endpoint, never the key or the URL's credentials."""
    secret = "sk-proj-Zq9SECRETsecretSECRET0049"
    code = "Thought: loop\n<code>\nfor city in ['Paris']:\n    get_weather(city=city)\n"
    server.add(replies.openai_chat(FIRST), replies.openai_chat([], code))
    provider = tracer_provider()
    tracer = provider.get_tracer("test-agent-framework")
    url = f"http://user:{secret}@{server.url.removeprefix('http://')}/v1"
    with openai.OpenAI(base_url=url, api_key=secret, max_retries=0, default_query={"key": secret}) as leaky, \
            am.capture() as run:
        with tracer.start_as_current_span("chat") as span:
            leaky.chat.completions.create(model="m", messages=[{"role": "user", "content": USER}])
            span.set_attributes({"gen_ai.operation.name": "chat",
                                 "gen_ai.output.messages": span_messages([("get_time", {"city": "Lyon"}, None)])})
        leaky.chat.completions.create(model="m", messages=[{"role": "system", "content": "Use <code> tags."},
                                                           {"role": "user", "content": USER}])
    assert ["disagree" in str(turn.error) for turn in run.turns] == [True, False]
    assert "asked for tools in its text" in str(run.turns[1].error)
    channels = [repr(run), repr(run.turns), str(run.errors), repr(run.case(errors="record"))]
    with pytest.raises(CaptureError) as raised:
        _ = run.tool_calls
    channels += [str(raised.value), repr(raised.value)]
    assert all(secret not in channel for channel in channels)
