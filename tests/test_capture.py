"""agentmetrics.capture(): the calls of a live agent, from the responses its
SDK received, on a real loopback server (tests/provider_server.py) with the
real openai client. Provider-by-provider coverage is in
test_capture_providers.py, frameworks and isolation in
test_capture_frameworks.py; here: the run's API, multi-turn pairing, the
guarantees (never fewer calls, never a secret), saving and the pytest
integration."""

from __future__ import annotations

import asyncio
import gzip
import json
import pickle
import sys
from collections.abc import Iterator
from typing import Any

import httpx2
import openai
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from provider_replies import Call, openai_chat, openai_responses
from provider_server import ProviderServer, Reply

import agentmetrics as am
from agentmetrics import AgentTestCase, CaptureError, ToolCall, UnreadableCase
from agentmetrics.capture import HOOKS, Run, Turn, Usage

SECRET = "sk-proj-Zq9SECRETsecretSECRET0042"
GET = Call("GetOrder", {"order_id": "12345"}, "call_get")
CANCEL = Call("CancelOrder", {"order_id": "12345", "reason": "changed my mind"}, "call_cancel")


@pytest.fixture
def client(server: ProviderServer) -> Iterator[openai.OpenAI]:
    with openai.OpenAI(base_url=server.url + "/v1", api_key=SECRET, max_retries=0) as made:
        yield made


def ask(client: openai.OpenAI, messages: list[dict[str, Any]], stream: bool = False) -> Any:
    if not stream:
        return client.chat.completions.create(model="gpt-4o-mini", messages=messages)
    return list(client.chat.completions.create(model="gpt-4o-mini", messages=messages,
                                               stream=True))


def names(calls: Any) -> list[str]:
    return [call.name for call in calls]


# -- one response -------------------------------------------------------------------


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_a_response_gives_its_calls_turn_and_usage(server, client, stream):
    server.add(openai_chat([GET, CANCEL], stream=stream, input_tokens=120, output_tokens=33))
    with am.capture() as run:
        ask(client, [{"role": "user", "content": "Cancel order 12345"}], stream)
    assert run.tool_calls == (ToolCall("GetOrder", GET.arguments, id="call_get"),
                              ToolCall("CancelOrder", CANCEL.arguments, id="call_cancel"))
    (turn,) = run.turns
    assert isinstance(turn, Turn)
    assert (turn.index, turn.format, turn.source, turn.streamed, turn.error) == (
        0, "openai_chat", "http", stream, None)
    assert turn.provider == "openai_compatible"  # 127.0.0.1 is not api.openai.com
    assert turn.endpoint == f"{server.url}/v1/chat/completions"
    assert turn.model == "gpt-4o-mini-2024-07-18"
    assert turn.usage == Usage(120, 33, 153, turns=1)
    assert turn.latency is not None and turn.latency > 0
    assert turn.user_turn and turn.user_input == "Cancel order 12345"
    assert run.usage == Usage(120, 33, 153, turns=1)
    assert repr(run) == "<Run: 1 turn, 2 tool calls (GetOrder, CancelOrder)>"


def test_the_sdk_gets_the_same_objects_with_or_without_capture(server, client):
    for _ in range(2):
        server.add(openai_chat([GET, CANCEL]), openai_chat([GET, CANCEL], stream=True))
    messages = [{"role": "user", "content": "Cancel order 12345"}]
    plain = ask(client, messages), ask(client, messages, stream=True)
    with am.capture() as run:
        captured = ask(client, messages), ask(client, messages, stream=True)
    assert captured[0].model_dump() == plain[0].model_dump()
    assert [chunk.model_dump() for chunk in captured[1]] == [c.model_dump() for c in plain[1]]
    assert len(run.turns) == 2


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_the_bytes_the_client_reads_are_the_bytes_the_server_sent(server, stream):
    reply = openai_chat([GET], stream=stream)
    server.add(reply)
    url = server.url + "/v1/chat/completions"
    with httpx2.Client() as raw, am.capture() as run, raw.stream("POST", url, json={}) as got:
        received = b"".join(got.iter_raw())
    assert received == reply.sent
    assert run.tool_calls[0].name == "GetOrder"
    # Both bodies were read lazily: "streamed" is what the server sent, not how it was read.
    assert run.turns[0].streamed is stream


def test_a_gzipped_stream_is_decoded_as_the_client_decodes_it(server, client):
    reply = openai_chat([GET, CANCEL], stream=True)
    body = gzip.compress(reply.sent)
    server.add(Reply(chunks=[body[:40], body[40:]], content_type="text/event-stream",
                     headers={"content-encoding": "gzip"}))
    with am.capture() as run:
        ask(client, [{"role": "user", "content": "x"}], stream=True)
    assert names(run.tool_calls) == ["GetOrder", "CancelOrder"]


def test_responses_api_stream_and_async_client(server):
    server.add(openai_responses([GET], stream=True), openai_responses([CANCEL]))

    async def agent() -> None:
        async with openai.AsyncOpenAI(base_url=server.url + "/v1", api_key=SECRET) as aclient:
            stream = await aclient.responses.create(model="gpt-4.1", input="Cancel", stream=True)
            async for _ in stream:
                pass
            await aclient.responses.create(model="gpt-4.1", input="again")

    async def main() -> Run:
        async with am.capture() as run:
            await agent()
        return run

    run = asyncio.run(main())
    assert names(run.tool_calls) == ["GetOrder", "CancelOrder"]
    assert [turn.format for turn in run.turns] == ["openai_responses"] * 2
    assert [turn.streamed for turn in run.turns] == [True, False]


# -- several turns ------------------------------------------------------------------


def _two_turns(client: openai.OpenAI, server: ProviderServer, stream: bool) -> list[Any]:
    """A hand-written agent loop: the model calls tools, the loop runs them and sends the
    results back, until the model answers."""
    tools = {"GetOrder": lambda order_id: {"id": order_id, "status": "shipped"},
             "CancelOrder": lambda order_id, reason: f"order {order_id} cancelled"}
    server.add(openai_chat([GET], stream=stream), openai_chat([CANCEL], stream=stream),
               openai_chat(text="Done: order 12345 is cancelled.", stream=stream))
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Cancel order 12345"}]
    outputs = []
    while True:
        if stream:
            chunks = ask(client, messages, stream=True)
            deltas = [c for chunk in chunks for choice in chunk.choices
                      for c in choice.delta.tool_calls or ()]
            calls: dict[int, dict[str, str]] = {}
            for delta in deltas:
                entry = calls.setdefault(delta.index, {"id": "", "name": "", "arguments": ""})
                entry["id"] += delta.id or ""
                entry["name"] += delta.function.name or ""
                entry["arguments"] += delta.function.arguments or ""
            found = list(calls.values())
        else:
            message = ask(client, messages).choices[0].message
            found = [{"id": c.id, "name": c.function.name, "arguments": c.function.arguments}
                     for c in message.tool_calls or ()]
        if not found:
            return outputs
        messages.append({"role": "assistant", "tool_calls": [
            {"id": c["id"], "type": "function",
             "function": {"name": c["name"], "arguments": c["arguments"]}} for c in found]})
        for call in found:
            output = tools[call["name"]](**json.loads(call["arguments"]))
            outputs.append(output)
            messages.append({"role": "tool", "tool_call_id": call["id"],
                             "content": json.dumps(output) if isinstance(output, dict) else output})


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_outputs_are_paired_from_the_results_the_next_request_sent(server, client, stream):
    with am.capture() as run:
        outputs = _two_turns(client, server, stream)
    assert len(run.turns) == 3
    assert [len(turn.tool_calls) for turn in run.turns] == [1, 1, 0]
    assert [turn.user_turn for turn in run.turns] == [True, False, False]
    assert [call.output for call in run.tool_calls] == [json.dumps(outputs[0]), outputs[1]]
    case = run.case(input="Cancel order 12345", expected_tool_calls=["GetOrder", "CancelOrder"],
                    id="cancel-1", metadata={"agent": "v2"})
    assert isinstance(case, AgentTestCase)
    assert case.tool_names == ("GetOrder", "CancelOrder")
    assert case.metadata == {"captured_turns": 3, "captured_model": "gpt-4o-mini-2024-07-18",
                             "agent": "v2", "id": "cancel-1"}
    assert am.ToolSelectionAccuracy(order_matters=True).evaluate(case).value == 1.0
    assert run.usage.turns == 3 and run.usage.input_tokens == 3 * 82


def test_user_turns_make_a_multi_turn_case(server, client):
    server.add(openai_chat([GET]), openai_chat(text="It shipped."), openai_chat([CANCEL]),
               openai_chat(text="Cancelled."))
    history: list[dict[str, Any]] = []
    with am.capture() as run:
        for text in ("Where is order 12345?", "Cancel it"):
            history.append({"role": "user", "content": text})
            while True:
                message = ask(client, history).choices[0].message
                history.append(message.model_dump(exclude_none=True))
                if not message.tool_calls:
                    break
                for call in message.tool_calls:
                    history.append({"role": "tool", "tool_call_id": call.id, "content": "ok"})
    case = run.case(expected_turns=[["GetOrder"], ["CancelOrder"]])
    assert isinstance(case, AgentTestCase) and case.turns is not None
    assert [turn.input for turn in case.turns] == ["Where is order 12345?", "Cancel it"]
    assert [turn.tool_names for turn in case.turns] == [("GetOrder",), ("CancelOrder",)]
    assert [call.output for turn in case.turns for call in turn.tool_calls] == ["ok", "ok"]
    assert am.per_turn(am.ToolSelectionAccuracy()).evaluate(case).value == 1.0
    with pytest.raises(CaptureError, match=r"one list of calls per user turn \(2 captured"):
        run.case(expected_turns=[["GetOrder"]])


def test_an_independent_reference_agrees_on_random_conversations(server, client):
    """Differential: for random call sequences, the captured calls equal what the
    server sent, in order, with the outputs the loop sent back."""

    @settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.lists(st.lists(st.sampled_from(["A", "B", "C"]), min_size=1, max_size=3),
                    min_size=1, max_size=3), st.booleans())
    def check(turns: list[list[str]], stream: bool) -> None:
        sent = [[Call(name, {"n": i, "t": t}, f"call_{t}_{i}") for i, name in enumerate(names)]
                for t, names in enumerate(turns)]
        server.add(*(openai_chat(calls, stream=stream) for calls in sent),
                   openai_chat(text="done", stream=stream))
        messages: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
        with am.capture() as run:
            for calls in sent:
                ask(client, messages, stream)
                messages.append({"role": "assistant", "tool_calls": [
                    {"id": c.id, "type": "function",
                     "function": {"name": c.name, "arguments": c.arguments_json}}
                    for c in calls]})
                messages += [{"role": "tool", "tool_call_id": c.id, "content": f"out-{c.id}"}
                             for c in calls]
            ask(client, messages, stream)
        reference = [(c.name, c.arguments, c.id, f"out-{c.id}") for calls in sent for c in calls]
        assert [(c.name, c.arguments, c.id, c.output) for c in run.tool_calls] == reference

    check()


# -- the guarantees -----------------------------------------------------------------


def test_no_traffic_is_an_error_not_zero_calls():
    with am.capture() as run:
        pass
    assert run.turns == ()
    with pytest.raises(CaptureError, match="recorded no model response"):
        run.tool_calls  # noqa: B018
    recorded = run.case(errors="record", id="cancel-7")
    assert isinstance(recorded, UnreadableCase) and "no model response" in recorded.message
    assert recorded.id == "cancel-7"
    (row,) = am.evaluate([recorded], am.ToolSelectionAccuracy(), errors="record").to_dicts()
    assert "no model response" in row["tool_selection_accuracy_error"]


def test_other_requests_are_not_turns(server, client):
    server.add(Reply(body=b'{"data": [{"embedding": [0.1]}]}'), openai_chat([GET]))
    with am.capture() as run, httpx2.Client() as raw:
        raw.post(server.url + "/v1/embeddings", json={"input": "x"})  # not a model call
        ask(client, [{"role": "user", "content": "x"}])
    assert names(run.tool_calls) == ["GetOrder"]


def test_an_error_response_is_not_a_turn(server, client):
    server.add(Reply(status=429, body=b'{"error": {"message": "slow down", "type": "rate"}}'))
    with am.capture() as run, pytest.raises(openai.RateLimitError):
        ask(client, [{"role": "user", "content": "x"}])
    assert run.turns == ()


def test_an_unreadable_response_is_named_and_never_zero_calls(server, client):
    # A response whose call is in a shape the readers do not know: the census sees a
    # call-like node the reader did not read, and the capture refuses.
    body = json.loads(openai_chat([GET]).sent)
    body["choices"][0]["message"]["tool_calls"][0]["function"] = {"nme": "GetOrder"}
    server.add(Reply(body=json.dumps(body).encode(), path="/chat/completions"))
    with am.capture() as run:
        client.chat.completions.with_raw_response.create(model="m", messages=[])
    (turn,) = run.turns
    assert turn.error is not None and turn.tool_calls == ()
    with pytest.raises(CaptureError) as raised:
        run.tool_calls  # noqa: B018
    message = str(raised.value)
    assert "turn 0: the openai_compatible response from" in message
    assert "/v1/chat/completions (read as openai_chat, via http)" in message
    assert run.errors == (message.split(". Its calls")[0],)
    assert isinstance(run.case(errors="record"), UnreadableCase)


def test_a_stream_left_unread_is_an_error(server, client):
    server.add(openai_chat([GET, CANCEL], stream=True))
    with am.capture() as run:
        stream = client.chat.completions.create(model="m", messages=[], stream=True)
        next(iter(stream))
        with pytest.raises(CaptureError, match="still being read"):
            run.tool_calls  # noqa: B018
        stream.close()
    with pytest.raises(CaptureError, match="closed before it ended"):
        run.tool_calls  # noqa: B018


def test_only_the_block_is_recorded(server, client):
    server.add(openai_chat([GET]), openai_chat([CANCEL]), openai_chat([GET]))
    ask(client, [])
    with am.capture() as run:
        ask(client, [])
    ask(client, [])
    assert names(run.tool_calls) == ["CancelOrder"]


def test_secrets_appear_in_nothing_the_capture_gives(server, tmp_path):
    """The API key (header) and credentials in the URL (user info, ?key=) reach no
    output: turns, reprs, errors, the saved file, the case, pickles."""
    body = json.loads(openai_chat([GET]).sent)
    server.add(openai_chat([GET], stream=True), Reply(body=b"not json", path="/chat/completions"))
    host = server.url.removeprefix("http://")
    url = f"http://user:{SECRET}@{host}/v1"
    with openai.OpenAI(base_url=url, api_key=SECRET, max_retries=0,
                       default_query={"key": SECRET}) as leaky, am.capture() as run:
        ask(leaky, [{"role": "user", "content": "x"}], stream=True)
        leaky.chat.completions.with_raw_response.create(model="m", messages=[])
    channels = [repr(run), repr(run.turns), str(run.errors), repr(run.usage)]
    try:
        run.tool_calls  # noqa: B018
    except CaptureError as error:
        channels.append(str(error))
        channels.append(repr(error))
    else:
        raise AssertionError("the unreadable response was not refused")
    recorded = run.case(errors="record")
    channels.append(repr(recorded))
    with pytest.raises(CaptureError):
        run.save(tmp_path / "runs.jsonl")
    channels.append(repr(pickle.dumps(run.turns)))
    assert run.turns[0].endpoint == f"http://{host}/v1/chat/completions"  # no user info, no query
    for channel in channels:
        assert SECRET not in channel, channel
    assert body  # the reply was real


def test_save_writes_a_case_file_evaluate_reads(server, client, tmp_path):
    path = tmp_path / "runs.jsonl"
    with am.capture() as run:
        _two_turns(client, server, stream=False)
    run.save(path, input="Cancel order 12345", expected_tool_calls=["GetOrder", "CancelOrder"],
             metadata={"id": "cancel-1"})
    run.save(path, input="again", expected_tool_calls=["GetOrder"])
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2 and SECRET not in lines[0] and "127.0.0.1" not in lines[0]
    cases = list(am.read_cases(path))
    assert [case.tool_names for case in cases] == [("GetOrder", "CancelOrder")] * 2
    assert cases[0].tool_calls == run.tool_calls  # names, arguments and ids
    assert [call.output for call in cases[0].tool_calls] == [
        call.output for call in run.tool_calls]
    assert cases[0].metadata == {"id": "cancel-1", "captured_turns": 3,
                                 "captured_model": "gpt-4o-mini-2024-07-18"}
    # What capture measured besides the calls is kept too (issue 51).
    assert cases[0].latency == run.latency and cases[0].latency > 0
    assert cases[0].usage == run.case().usage
    result = am.evaluate(cases, am.ToolSelectionAccuracy())
    assert [row["tool_selection_accuracy"] for row in result.to_dicts()] == [1.0, 0.5]
    # The one model every response came from is what the run was made with.
    assert run.model == "gpt-4o-mini-2024-07-18" and run.models == (run.model,)
    assert result.config == {"model": "gpt-4o-mini-2024-07-18"}


def test_a_case_gets_the_blocks_latency_and_the_usage_every_response_reported(server, client):
    with am.capture() as run:
        assert run.latency is None  # not ended yet
        _two_turns(client, server, stream=False)
    assert run.latency is not None and run.latency > 0
    case = run.case("Cancel order 12345", ["GetOrder", "CancelOrder"], expected_output="done")
    assert case.latency == run.latency and case.expected_output == "done"
    usage = run.usage
    assert usage.turns and not usage.unreported
    assert case.usage == {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens,
                          "total_tokens": usage.total_tokens}
    multi = run.case("Cancel order 12345", expected_turns=[["GetOrder", "CancelOrder"]])
    assert multi.latency == run.latency and multi.usage == case.usage


def test_a_run_with_a_response_that_reported_no_usage_gives_no_usage():
    # A sum missing a response's tokens is a lower bound: it is not the run's usage.
    assert Run._usage_of([]) is None
    def turn(usage):
        return Turn(index=0, provider="openai", format="openai_chat", endpoint="/v1/chat/completions",
                    model="m", tool_calls=(), usage=usage, latency=0.1, streamed=False, source="httpx")

    reported = turn(Usage(3, 2, 5, turns=1))
    silent = turn(Usage(turns=1, unreported=1))
    assert Run._usage_of([reported]) == {"input_tokens": 3, "output_tokens": 2, "total_tokens": 5}
    assert Run._usage_of([reported, silent]) is None


# -- the context manager ------------------------------------------------------------


def test_parameters_are_checked():
    with pytest.raises(am.InvalidParameterError, match="scope: expected 'context' or 'process'"):
        am.capture(scope="thread")  # type: ignore[arg-type]
    with pytest.raises(am.InvalidParameterError, match="hooks: expected names from"):
        am.capture(hooks=["requests"])
    with pytest.raises(am.InvalidParameterError, match="hooks: expected names from"):
        am.capture(hooks="httpx")
    assert HOOKS == ("httpx", "aiohttp", "botocore", "langchain", "openai_agents", "otel")
    opened = am.capture()
    with opened, pytest.raises(CaptureError, match="already open"), opened:
        pass
    with pytest.raises(am.InvalidParameterError, match="errors: expected"):
        Run.case(opened.run, errors="ignore")  # type: ignore[arg-type]


def test_a_capture_records_after_an_exception_in_the_block(server, client):
    server.add(openai_chat([GET]))
    with pytest.raises(RuntimeError), am.capture() as run:
        ask(client, [])
        raise RuntimeError("the agent crashed after its first call")
    assert names(run.tool_calls) == ["GetOrder"]
    # agentmetrics.capture is the subpackage, callable: one object, both ways.
    import agentmetrics.capture as package

    assert am.capture is package and callable(package) and package.Run is Run


# -- pytest -------------------------------------------------------------------------

AGENT_TESTS = '''
import openai
import pytest

URL = {url!r}


def agent(request):
    """A stand-in agent: one model call through the real openai client."""
    with openai.OpenAI(base_url=URL + "/v1", api_key="sk-test", max_retries=0) as client:
        return client.chat.completions.create(
            model="m", messages=[{{"role": "user", "content": request}}])


@pytest.mark.agent_metric("tool_selection_accuracy", threshold=0.9, capture=True)
def test_marker_captures_the_body(agent_eval):
    agent("[[good]] Cancel order 12345")
    agent_eval.expect(["GetOrder", "CancelOrder"])
    assert agent_eval.run.tool_names == ("GetOrder", "CancelOrder")


@pytest.mark.agent_metric("tool_selection_accuracy", capture=True,
                          expected_tool_calls=["GetOrder", "CancelOrder"])
def test_marker_expected_calls_and_a_miss(agent_eval):
    agent("[[bad]] Cancel order 12345")


@pytest.mark.agent_metric("tool_selection_accuracy")
def test_fixture_capture(agent_eval):
    with agent_eval.capture(expected_tool_calls=["GetOrder"], input="Where?") as run:
        agent("[[fixture]] Where is order 12345?")
    assert agent_eval.cases[0].input == "Where?"
    assert run.tool_names == ("GetOrder",)


@pytest.mark.agent_metric("tool_selection_accuracy", capture=True)
def test_no_expectation(agent_eval):
    agent("[[noexp]] hi")


@pytest.mark.agent_metric("tool_selection_accuracy", capture=True)
def test_no_traffic(agent_eval):
    agent_eval.expect(["GetOrder"])
'''


def test_the_marker_and_the_fixture_capture_and_score(pytester, server):
    server.add(openai_chat([GET, CANCEL], match="[[good]]"), openai_chat([GET], match="[[bad]]"),
               openai_chat([GET], match="[[fixture]]"), openai_chat([GET], match="[[noexp]]"))
    pytester.makepyfile(test_agent=AGENT_TESTS.format(url=server.url))
    result = pytester.runpytest("-p", "no:randomly", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, failed=3)
    result.stdout.fnmatch_lines([
        "*test_marker_expected_calls_and_a_miss*",
        "*agent_metric: 1 of 1 evaluations did not pass*",
        "*Missing expected tool: CancelOrder*",
    ])
    result.stdout.fnmatch_lines(["*no expected calls were stated. Fix: call agent_eval.expect*"])
    result.stdout.fnmatch_lines(["*capture=True): the capture recorded no model response*"])
    assert "Traceback" not in result.stdout.str()


def test_the_marker_captures_on_xdist_workers(pytester, server):
    """Each worker is a process of its own: its captures see its own tests' calls."""
    server.add(openai_chat([GET, CANCEL], match="[[good]]"), openai_chat([GET], match="[[bad]]"),
               openai_chat([GET], match="[[fixture]]"), openai_chat([GET], match="[[noexp]]"))
    pytester.makepyfile(test_agent=AGENT_TESTS.format(url=server.url))
    result = pytester.runpytest_subprocess("-p", "no:randomly", "-p", "no:cacheprovider",
                                           "-n", "2")
    result.assert_outcomes(passed=2, failed=3)
    result.stdout.fnmatch_lines(["*Missing expected tool: CancelOrder*"])


# -- fuzz: the capture's own readers ------------------------------------------------

from provider_replies import (  # noqa: E402
    anthropic,
    bedrock_converse,
    cohere,
    encode_event,
    gemini,
    ollama,
)

from agentmetrics.capture._reading import _bodies, _exchange, _requests, _usage  # noqa: E402
from agentmetrics.capture._text import results_in_text, taught, tools_in_prompt  # noqa: E402
from agentmetrics.capture._records import Exchange  # noqa: E402

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["role", "content", "messages", "input", "contents", "parts", "type",
                         "tool_call_id", "usage", "input_tokens", "output_tokens", "model",
                         "functionResponse", "toolResult", "text", "name", "id", "x"]),
        inner, max_size=5),
    max_leaves=25)
FORMATS = ["openai_chat", "openai_responses", "anthropic", "gemini", "bedrock", "cohere",
           "ollama", "bedrock_invoke", "gemini_interactions"]


@settings(max_examples=300, deadline=None)
@given(JSON, st.sampled_from(FORMATS))
@example({"contents": [{"parts": True}]}, "gemini")  # a CI run found it: parts not a list
@example({"messages": [{"role": "user", "content": 7}]}, "anthropic")
def test_request_and_usage_readers_never_crash(tree, format):
    results = _requests.read_results(format, tree)
    assert all(len(result) == 3 for result in results)
    messages = _requests.read_messages(format, tree)
    assert all(len(result) == 3 for result in results_in_text(messages))
    assert isinstance(taught(messages), bool) and isinstance(tools_in_prompt(messages), dict)
    starts, _ = _requests.read_user_input(format, tree)
    assert isinstance(starts, bool)
    usage = _usage.read_usage(tree)
    assert usage.turns == 1 and min(usage.input_tokens, usage.output_tokens) >= 0
    _usage.read_model(tree, tree, None)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200))
def test_the_event_stream_decoder_refuses_or_reads(data):
    try:
        events = _bodies._event_stream(data)
    except (ValueError, UnicodeDecodeError):
        return
    assert all(isinstance(event, dict) and len(event) == 1 for event in events)


def test_the_event_stream_decoder_reads_what_the_encoder_wrote_and_checks_its_crcs():
    message = encode_event(b'{"a": 1}', {":event-type": "messageStop", ":message-type": "event",
                                          ":content-type": "application/json"})
    assert _bodies._event_stream(message * 2) == [{"messageStop": {"a": 1}}] * 2
    damaged = message[:-1] + bytes([message[-1] ^ 1])
    with pytest.raises(ValueError, match="fails its CRC"):
        _bodies._event_stream(damaged)
    with pytest.raises(ValueError, match="ends inside a message"):
        _bodies._event_stream(message[:10])


STREAMS = {
    "openai_chat": openai_chat([GET, CANCEL], stream=True),
    "openai_responses": openai_responses([GET, CANCEL], stream=True),
    "anthropic": anthropic([GET, CANCEL], stream=True),
    "gemini": gemini([GET, CANCEL], stream=True),
    "cohere": cohere([GET, CANCEL], stream=True),
    "ollama": ollama([GET, CANCEL], stream=True),
    "bedrock": bedrock_converse([GET, CANCEL], stream=True),
}


def _read(format: str, data: bytes, state: str) -> Any:
    exchange = Exchange(0, "http", "p", format, "http://model.test/x", b"{}")
    exchange.streamed = True
    exchange.status = 200
    exchange.add(data)
    exchange.finish(state)
    return _exchange.read_exchange(exchange)


@pytest.mark.parametrize("format", sorted(STREAMS))
def test_a_stream_cut_anywhere_is_refused_or_read_whole(format):
    """Never fewer calls without an error: every prefix of a real stream, closed
    there, gives an error or every call the whole stream holds."""
    sent = STREAMS[format].sent
    whole = _read(format, sent, "complete").turn
    assert whole.error is None and names(whole.tool_calls) == ["GetOrder", "CancelOrder"]
    cuts = sorted({*range(0, len(sent), 7), *(len(b"".join(STREAMS[format].chunks[:i]))
                                             for i in range(len(STREAMS[format].chunks)))})
    refused = 0
    for cut in cuts:
        turn = _read(format, sent[:cut], "closed").turn
        if turn.error is None:
            assert turn.tool_calls == whole.tool_calls, (format, cut)
        else:
            refused += 1
    assert refused >= len(cuts) - 3  # only cuts at or after the last event can be read


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300), st.sampled_from(sorted(STREAMS)),
       st.sampled_from(["complete", "closed", "failed"]))
def test_any_body_gives_a_turn_or_an_error_never_an_exception(data, format, state):
    read = _read(format, data, state)
    assert read is not None
    assert read.turn.error is not None or state != "failed"


# -- aiohttp ------------------------------------------------------------------------


def _aiohttp_run(server: ProviderServer, consume: Any) -> tuple[Run, Any]:
    import aiohttp

    async def main() -> tuple[Run, Any]:
        async with aiohttp.ClientSession() as session, am.capture() as run:
            got = await consume(session, server.url + "/v1/chat/completions")
        return run, got

    return asyncio.run(main())


def test_aiohttp_streams_are_recorded_as_they_arrive_and_reach_the_caller_unchanged(server):
    reply = openai_chat([GET, CANCEL], stream=True)
    server.add(reply, openai_chat([GET]), Reply(body=b'{"data": []}'))

    async def consume(session: Any, url: str) -> bytes:
        async with session.post(url, json={"model": "m", "messages": [
                {"role": "user", "content": "Cancel order 12345"}]}) as response:
            got = b"".join([chunk async for chunk in response.content.iter_any()])
        async with session.post(url, data=b'{"model": "m"}') as response:
            await response.json()
        async with session.post(url.replace("chat/completions", "embeddings"), json={}) as r:
            await r.read()  # not a model endpoint: not recorded
        return got

    run, got = _aiohttp_run(server, consume)
    assert got == reply.sent
    assert [turn.source for turn in run.turns] == ["aiohttp", "aiohttp"]
    assert [turn.streamed for turn in run.turns] == [True, False]
    assert names(run.tool_calls) == ["GetOrder", "CancelOrder", "GetOrder"]
    assert run.turns[0].user_input == "Cancel order 12345"


def test_aiohttp_a_response_released_before_its_end_is_refused(server):
    reply = openai_chat([GET, CANCEL], stream=True)
    reply.delay = 0.05  # the rest is still on its way when the caller stops
    server.add(reply)

    async def consume(session: Any, url: str) -> None:
        async with session.post(url, json={"model": "m"}) as response:
            await response.content.readline()

    run, _ = _aiohttp_run(server, consume)
    with pytest.raises(CaptureError, match="closed before it ended"):
        run.tool_calls  # noqa: B018


# -- more clients on httpx: groq and mistralai ----------------------------------------


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_groq_client(server, stream):
    groq = pytest.importorskip("groq")
    server.add(openai_chat([GET, CANCEL], stream=stream, model="llama-3.3-70b-versatile"))
    with groq.Groq(base_url=server.url, api_key=SECRET, max_retries=0) as client, \
            am.capture() as run:
        got = client.chat.completions.create(model="llama-3.3-70b-versatile", stream=stream,
                                             messages=[{"role": "user", "content": "Cancel"}])
        if stream:
            list(got)
    assert server.exchanges[-1].path == "/openai/v1/chat/completions"
    assert names(run.tool_calls) == ["GetOrder", "CancelOrder"]
    assert run.turns[0].model == "llama-3.3-70b-versatile"


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_mistralai_client(server, stream):
    mistralai = pytest.importorskip("mistralai.client")  # mistralai 2+: the client lives here
    if stream:
        # Mistral streams each call whole, in one delta (not its arguments piece by piece).
        calls = [{"id": call.id, "function": {"name": call.name, "arguments": call.arguments_json},
                  "index": index} for index, call in enumerate([GET, CANCEL])]
        head = {"id": "cmpl-1", "object": "chat.completion.chunk", "created": 1750000000,
                "model": "mistral-large-latest"}
        events = [
            {**head, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""},
                                  "finish_reason": None}]},
            {**head, "choices": [{"index": 0, "delta": {"tool_calls": calls},
                                  "finish_reason": "tool_calls"}],
             "usage": {"prompt_tokens": 90, "completion_tokens": 30, "total_tokens": 120}},
        ]
        server.add(Reply(chunks=[f"data: {json.dumps(event)}\n\n".encode() for event in events]
                         + [b"data: [DONE]\n\n"], content_type="text/event-stream"))
    else:
        server.add(openai_chat([GET, CANCEL], model="mistral-large-latest"))
    messages = [{"role": "user", "content": "Cancel order 12345"}]
    with mistralai.Mistral(api_key=SECRET, server_url=server.url) as client, \
            am.capture() as run:
        if stream:
            for _ in client.chat.stream(model="mistral-large-latest", messages=messages):
                pass
        else:
            client.chat.complete(model="mistral-large-latest", messages=messages)
    assert server.exchanges[-1].path == "/v1/chat/completions"
    assert run.tool_calls == (ToolCall("GetOrder", GET.arguments, id="call_get"),
                              ToolCall("CancelOrder", CANCEL.arguments, id="call_cancel"))


# -- the span processor, for a TracerProvider of your own -----------------------------


def test_span_processor_on_a_provider_of_your_own():
    from opentelemetry.sdk.trace import TracerProvider

    from agentmetrics.capture import span_processor

    provider = TracerProvider()  # not the global one
    provider.add_span_processor(span_processor())
    tracer = provider.get_tracer("my.agent")
    output = [{"role": "assistant", "parts": [
        {"type": "tool_call", "id": "call_1", "name": "GetOrder",
         "arguments": {"order_id": "12345"}}], "finish_reason": "tool_call"}]
    with am.capture(hooks=["otel"]) as run:
        with tracer.start_as_current_span("chat gpt-4o-mini") as span:
            span.set_attributes({"gen_ai.operation.name": "chat",
                                 "gen_ai.provider.name": "openai",
                                 "gen_ai.request.model": "gpt-4o-mini",
                                 "gen_ai.usage.input_tokens": 12, "gen_ai.usage.output_tokens": 3,
                                 "gen_ai.output.messages": json.dumps(output)})
        with tracer.start_as_current_span("execute_tool GetOrder") as span:
            span.set_attributes({"gen_ai.operation.name": "execute_tool",
                                 "gen_ai.tool.name": "GetOrder", "gen_ai.tool.call.id": "call_1",
                                 "gen_ai.tool.call.result": "shipped"})
    with tracer.start_as_current_span("chat gpt-4o-mini"):
        pass  # outside the capture: not recorded
    (turn,) = run.turns
    assert (turn.source, turn.provider, turn.model, turn.usage.total_tokens) == (
        "otel", "openai", "gpt-4o-mini", 15)
    assert run.tool_calls == (ToolCall("GetOrder", {"order_id": "12345"}, id="call_1",
                                       output="shipped"),)
    provider.shutdown()


def test_span_processor_without_opentelemetry_names_the_extra(monkeypatch):
    from agentmetrics.capture import span_processor

    monkeypatch.setitem(sys.modules, "opentelemetry.sdk.trace", None)
    with pytest.raises(am.MissingDependencyError, match=r"agent-tool-metrics\[otel\]"):
        span_processor()
