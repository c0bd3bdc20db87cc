"""agentmetrics.capture() around real agent frameworks, on the scripted loopback provider server.

Real components throughout: a LangGraph ReAct agent on langchain-openai's ChatOpenAI with real ``@tool``
functions, the OpenAI Agents SDK (Responses and Chat Completions models, handoffs), the OpenTelemetry SDK with
the openai-v2 instrumentation, and the openai client itself (threads, tasks, nested captures, lazy install).

A hook, once installed, stays installed for the process; so what depends on a hook *never* having been
installed (``capture(hooks=["langchain"])`` seeing no HTTP, the OpenTelemetry global provider, the lazy
post-import hook) runs in a fresh interpreter (:func:`in_subprocess`), which imports this module for the same
agents and scripts.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import gc
import json
import os
import subprocess
import sys
import textwrap
import threading
import warnings
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx2
import openai
import pytest
from provider_replies import Call, openai_chat, openai_responses
from provider_server import ProviderServer, Reply

import agentmetrics as am
from agentmetrics.errors import CaptureError

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent

ORDER = "12345"
GET = Call("GetOrder", {"order_id": ORDER}, "call_get_1")
CANCEL = Call("CancelOrder", {"order_id": ORDER, "reason": "arrived late"}, "call_cancel_2")
ANSWER = "Order 12345 is cancelled."
SCRIPTED = [(GET.name, GET.arguments, GET.id), (CANCEL.name, CANCEL.arguments, CANCEL.id)]
ORDER_RECORD = {"order_id": ORDER, "status": "shipped", "items": ["kettle"]}
CANCELLED = f"order {ORDER} cancelled (arrived late)"


def triples(calls: Any) -> list[tuple[str, Any, Any]]:
    return [(call.name, call.arguments, call.id) for call in calls]


def tool_results_sent(server: ProviderServer) -> dict[str, Any]:
    """What each request sent back as tool results, by call id (Chat Completions and Responses bodies)."""
    sent: dict[str, Any] = {}
    for exchange in server.exchanges:
        body = json.loads(exchange.body)
        for item in body.get("messages") or body.get("input") or ():
            if not isinstance(item, dict):
                continue
            if item.get("role") == "tool":
                sent[item["tool_call_id"]] = item["content"]
            elif item.get("type") == "function_call_output":
                sent[item["call_id"]] = item["output"]
    return sent


def in_subprocess(code: str, timeout: float = 120) -> Any:
    """Run ``code`` in a fresh interpreter (tests/ on the path); it prints one JSON value last."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(TESTS), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=timeout, env=env, cwd=REPO, check=False)
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def turn_rows(run: Any) -> list[dict[str, Any]]:
    """The turns as JSON (what the subprocesses print)."""
    return [{"source": turn.source, "agent": turn.agent, "error": turn.error, "streamed": turn.streamed,
             "calls": [[c.name, c.arguments, c.id, c.output] for c in turn.tool_calls]} for turn in run.turns]


def check_alone(turns: list[dict[str, Any]], source: str) -> list[Any]:
    """A run that only a framework hook saw: every turn from it, read, with the scripted calls (their outputs
    returned for the caller to check). The final text-only turn is missing (see
    test_framework_only_run_keeps_its_text_turn), so the number of turns is not checked here."""
    assert turns and [turn["source"] for turn in turns] == [source] * len(turns)
    assert [turn["error"] for turn in turns] == [None] * len(turns)
    calls = [call for turn in turns for call in turn["calls"]]
    assert [(name, args, call_id) for name, args, call_id, _ in calls] == [tuple(c) for c in SCRIPTED]
    assert [len(turn["calls"]) for turn in turns[:2]] == [1, 1]
    return [call[3] for call in calls]


# --------------------------------------------------------------------------- LangGraph / LangChain


def lc_tools() -> list[Any]:
    from langchain_core.tools import tool

    @tool
    def GetOrder(order_id: str) -> dict:
        """Look up an order by its id."""
        return {**ORDER_RECORD, "order_id": order_id}

    @tool
    def CancelOrder(order_id: str, reason: str) -> str:
        """Cancel an order."""
        return f"order {order_id} cancelled ({reason})"

    return [GetOrder, CancelOrder]


def build_react_agent(server: ProviderServer, streaming: bool) -> tuple[Any, Any, Any]:
    """A real LangGraph ReAct agent on ChatOpenAI pointed at the server, with its two HTTP clients."""
    from langchain_openai import ChatOpenAI

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # LangGraphDeprecatedSinceV10: create_react_agent moved to langchain
        from langgraph.prebuilt import create_react_agent
    sync_client, async_client = openai.DefaultHttpxClient(), openai.DefaultAsyncHttpxClient()
    model = ChatOpenAI(base_url=server.url + "/v1", api_key="sk-test", model="gpt-4o-mini", max_retries=0,
                       streaming=streaming, http_client=sync_client, http_async_client=async_client)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        agent = create_react_agent(model, lc_tools())
    return agent, sync_client, async_client


@contextlib.contextmanager
def react_agent(server: ProviderServer, *, streaming: bool = False) -> Iterator[Any]:
    agent, sync_client, async_client = build_react_agent(server, streaming)
    try:
        yield agent
    finally:
        sync_client.close()
        asyncio.run(async_client.aclose())


@contextlib.asynccontextmanager
async def areact_agent(server: ProviderServer, *, streaming: bool = False) -> AsyncIterator[Any]:
    agent, sync_client, async_client = build_react_agent(server, streaming)
    try:
        yield agent
    finally:
        sync_client.close()
        await async_client.aclose()


def script_orders(server: ProviderServer, builder: Any = openai_chat, *, stream: bool = False,
                  first: Call | None = None) -> None:
    replies = [builder([first], stream=stream)] if first is not None else []
    server.add(*replies, builder([GET], stream=stream), builder([CANCEL], stream=stream),
               builder(text=ANSWER, stream=stream))


INPUT = {"messages": [("user", "Cancel order 12345, it arrived late")]}
NAMED = {"metadata": {"lc_agent_name": "orders"}}


def check_wire_run(run: Any, server: ProviderServer, *, streamed: bool = False) -> None:
    turns = run.turns
    assert [turn.source for turn in turns] == ["http"] * 3
    assert [turn.streamed for turn in turns] == [streamed] * 3
    assert [turn.error for turn in turns] == [None] * 3
    assert [triples(turn.tool_calls) for turn in turns] == [SCRIPTED[:1], SCRIPTED[1:], []]
    assert triples(run.tool_calls) == SCRIPTED
    sent = tool_results_sent(server)
    get, cancel = run.tool_calls
    assert (get.output, cancel.output) == (sent[GET.id], sent[CANCEL.id])
    assert json.loads(get.output) == ORDER_RECORD  # what the real tool returned, as LangChain sent it
    assert cancel.output == CANCELLED
    assert turns[0].user_turn and not turns[1].user_turn and not turns[2].user_turn
    assert run.usage.turns == 3 and run.usage.unreported == 0
    case = run.case(expected_tool_calls=["GetOrder", "CancelOrder"])
    assert [call.name for call in case.tool_calls] == ["GetOrder", "CancelOrder"]


def test_langgraph_react_agent_wire_turns(server: ProviderServer) -> None:
    with react_agent(server) as agent:
        script_orders(server)
        plain = agent.invoke(INPUT)
        bodies_plain = [exchange.body for exchange in server.exchanges]
        server.exchanges.clear()
        script_orders(server)
        with am.capture() as run:
            captured = agent.invoke(INPUT, config=NAMED)
    # The capture changes nothing the agent does or sends.
    assert [m.content for m in captured["messages"]] == [m.content for m in plain["messages"]]
    assert captured["messages"][-1].content == ANSWER
    assert [json.loads(b)["messages"] for b in bodies_plain] == \
        [json.loads(e.body)["messages"] for e in server.exchanges]
    check_wire_run(run, server)
    # lc_agent_name from the run's metadata enriches the wire turns whose calls LangChain reported.
    assert [turn.agent for turn in run.turns[:2]] == ["orders", "orders"]


def test_langgraph_react_agent_streamed(server: ProviderServer) -> None:
    with react_agent(server, streaming=True) as agent:
        script_orders(server, stream=True)
        with am.capture() as run:
            chunks = list(agent.stream(INPUT, stream_mode="values"))
    assert chunks[-1]["messages"][-1].content == ANSWER
    check_wire_run(run, server, streamed=True)


def test_langgraph_react_agent_stream_mode_messages(server: ProviderServer) -> None:
    with react_agent(server, streaming=True) as agent:
        script_orders(server, stream=True)
        with am.capture() as run:
            tokens = [chunk for chunk, _ in agent.stream(INPUT, stream_mode="messages")]
    assert "".join(t.content for t in tokens if t.type == "AIMessageChunk" and isinstance(t.content, str)) \
        == ANSWER
    check_wire_run(run, server, streamed=True)


def test_langgraph_react_agent_async(server: ProviderServer) -> None:
    async def main() -> tuple[Any, Any]:
        async with areact_agent(server) as agent, am.capture() as run:
            result = await agent.ainvoke(INPUT, config=NAMED)
        return run, result

    script_orders(server)
    run, result = asyncio.run(main())
    assert result["messages"][-1].content == ANSWER
    check_wire_run(run, server)


def test_langgraph_agent_name_on_the_text_turn(server: ProviderServer) -> None:
    with react_agent(server) as agent:
        script_orders(server)
        with am.capture() as run:
            agent.invoke(INPUT, config=NAMED)
    assert [turn.agent for turn in run.turns] == ["orders"] * 3


LANGCHAIN_ONLY = """
    import asyncio, json
    import agentmetrics as am
    import test_capture_frameworks as t
    from provider_server import ProviderServer

    out = {}
    with ProviderServer() as server:
        with t.react_agent(server) as agent:
            t.script_orders(server)
            with am.capture(hooks=["langchain"]) as run:
                result = agent.invoke(t.INPUT, config=t.NAMED)
            out["sync"] = t.turn_rows(run)
            out["answer"] = result["messages"][-1].content
            out["sent"] = t.tool_results_sent(server)

            async def main():
                async with t.areact_agent(server) as agent, am.capture(hooks=["langchain"]) as run:
                    await agent.ainvoke(t.INPUT)
                return t.turn_rows(run)

            t.script_orders(server)
            out["async"] = asyncio.run(main())
        with t.react_agent(server, streaming=True) as agent:
            t.script_orders(server, stream=True)
            with am.capture(hooks=["langchain"]) as run:
                list(agent.stream(t.INPUT, stream_mode="values"))
            out["streamed"] = t.turn_rows(run)
        out["errors"] = server.errors
    import sys
    out["httpx_hooked"] = getattr(sys.modules["httpx2"].Client.send, "__agentmetrics_capture__", False)
    print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def langchain_only() -> Any:
    return in_subprocess(LANGCHAIN_ONLY)


@pytest.mark.parametrize("mode", ["sync", "async", "streamed"])
def test_langchain_hook_alone(langchain_only: Any, mode: str) -> None:
    out = langchain_only
    assert out["errors"] == [] and out["answer"] == ANSWER
    assert out["httpx_hooked"] is False  # the httpx hook was never installed in that process
    turns = out[mode]
    # Outputs from LangChain's tool executions: the ToolMessage content, as the next request sent it.
    get, cancel = check_alone(turns, "langchain")
    assert json.loads(get) == ORDER_RECORD and cancel == CANCELLED
    assert (get, cancel) == (out["sent"][GET.id], out["sent"][CANCEL.id])
    assert [turn["agent"] for turn in turns] == (["orders"] if mode == "sync" else [None]) * len(turns)


def test_hooks_restrict_what_is_recorded(server: ProviderServer) -> None:
    with am.capture():
        pass  # installs the httpx hook, as any earlier capture in the process does
    server.add(openai_chat([GET]))
    with openai.OpenAI(base_url=server.url + "/v1", api_key="sk-test", max_retries=0) as client, \
            am.capture(hooks=["langchain"]) as run:
        client.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "hi"}])
    assert run.turns == ()


# --------------------------------------------------------------------------- OpenAI Agents SDK


@pytest.fixture(scope="module")
def agents_tracing() -> Iterator[None]:
    """Tracing on, with no exporter to OpenAI's backend (the capture registers its processor on entry)."""
    import agents
    from agents.tracing import get_trace_provider

    provider = get_trace_provider()
    saved = (tuple(provider._multi_processor._processors), provider._disabled,
             getattr(provider, "_manual_disabled", None))
    agents.set_trace_processors([])
    agents.set_tracing_disabled(False)  # tests/payloads/openai_payloads.py disables it for the process
    yield
    agents.set_trace_processors(list(saved[0]))
    provider._disabled = saved[1]
    if hasattr(provider, "_manual_disabled"):
        provider._manual_disabled = saved[2]


def sdk_tools() -> list[Any]:
    from agents import function_tool

    @function_tool
    def GetOrder(order_id: str) -> dict:
        """Look up an order by its id."""
        return {**ORDER_RECORD, "order_id": order_id}

    @function_tool
    def CancelOrder(order_id: str, reason: str) -> str:
        """Cancel an order."""
        return f"order {order_id} cancelled ({reason})"

    return [GetOrder, CancelOrder]


def sdk_agent(client: Any, kind: str, name: str = "Orders", **extra: Any) -> Any:
    from agents import Agent, OpenAIChatCompletionsModel, OpenAIResponsesModel

    model = OpenAIResponsesModel("gpt-4.1", client) if kind == "responses" \
        else OpenAIChatCompletionsModel("gpt-4o-mini", client)
    return Agent(name=name, instructions="Help with orders.", tools=sdk_tools(), model=model, **extra)


def builder_of(kind: str) -> Any:
    return openai_responses if kind == "responses" else openai_chat


async def run_sdk(agent: Any, mode: str) -> Any:
    from agents import Runner

    if mode == "streamed":
        result = Runner.run_streamed(agent, "Cancel order 12345, it arrived late")
        async for _ in result.stream_events():
            pass
        return result
    return await Runner.run(agent, "Cancel order 12345, it arrived late")


@pytest.mark.usefixtures("agents_tracing")
@pytest.mark.parametrize("mode", ["run", "streamed"])
@pytest.mark.parametrize("kind", ["responses", "chat"])
def test_agents_sdk_wire_turns(server: ProviderServer, kind: str, mode: str) -> None:
    async def main() -> tuple[Any, Any]:
        async with openai.AsyncOpenAI(base_url=server.url + "/v1", api_key="sk-test", max_retries=0) as client:
            agent = sdk_agent(client, kind)
            with am.capture() as run:
                result = await run_sdk(agent, mode)
        return run, result

    script_orders(server, builder_of(kind), stream=mode == "streamed")
    run, result = asyncio.run(main())
    assert result.final_output == ANSWER
    turns = run.turns
    assert [turn.source for turn in turns] == ["http"] * 3
    assert [turn.error for turn in turns] == [None] * 3
    assert [turn.format for turn in turns] == [f"openai_{kind}"] * 3
    assert triples(run.tool_calls) == SCRIPTED
    sent = tool_results_sent(server)
    get, cancel = run.tool_calls
    assert (get.output, cancel.output) == (sent[GET.id], sent[CANCEL.id])
    # The Agents SDK sends a dict result back as str(dict).
    assert get.output == str(ORDER_RECORD) and cancel.output == CANCELLED


def test_agents_sdk_run_sync(server: ProviderServer, agents_tracing: None) -> None:
    from agents import Runner

    script_orders(server, openai_responses)
    # run_sync runs (and closes) its own event loop: no kept-alive connection may outlive it.
    http_client = openai.DefaultAsyncHttpxClient(limits=httpx2.Limits(max_keepalive_connections=0))
    client = openai.AsyncOpenAI(base_url=server.url + "/v1", api_key="sk-test", max_retries=0,
                                http_client=http_client)
    try:
        with am.capture() as run:
            result = Runner.run_sync(sdk_agent(client, "responses"), "Cancel order 12345")
    finally:
        asyncio.run(client.close())
        with warnings.catch_warnings():
            # Runner.run_sync leaves its own event loop unclosed: collect it here, not in a later test.
            warnings.simplefilter("ignore", ResourceWarning)
            gc.collect()
    assert result.final_output == ANSWER
    assert triples(run.tool_calls) == SCRIPTED
    assert [call.output for call in run.tool_calls] == [str(ORDER_RECORD), CANCELLED]


def test_agents_sdk_processor_registered_again_after_set_trace_processors(
        server: ProviderServer, agents_tracing: None) -> None:
    import agents
    from agents.tracing import get_trace_provider

    with am.capture():
        pass
    agents.set_trace_processors([])  # drops the capture's processor
    script_orders(server, openai_responses)

    async def main() -> Any:
        async with openai.AsyncOpenAI(base_url=server.url + "/v1", api_key="sk-test", max_retries=0) as client:
            with am.capture() as run:
                await run_sdk(sdk_agent(client, "responses"), "run")
        return run

    run = asyncio.run(main())
    assert len(get_trace_provider()._multi_processor._processors) == 1
    assert [type(event).__name__ for event in run._recorder.events] == \
        ["ModelEvent", "ToolEvent", "ModelEvent", "ToolEvent", "ModelEvent"]


@pytest.mark.usefixtures("agents_tracing")
@pytest.mark.parametrize("kind", ["responses", "chat"])
def test_agents_sdk_turn_agent_name(server: ProviderServer, kind: str) -> None:
    async def main() -> Any:
        async with openai.AsyncOpenAI(base_url=server.url + "/v1", api_key="sk-test", max_retries=0) as client:
            with am.capture() as run:
                await run_sdk(sdk_agent(client, kind), "run")
        return run

    script_orders(server, builder_of(kind))
    run = asyncio.run(main())
    assert [turn.agent for turn in run.turns[:2]] == ["Orders", "Orders"]


def test_agents_sdk_handoff_agent_names(server: ProviderServer, agents_tracing: None) -> None:
    handoff = Call("transfer_to_orders", {}, "call_handoff_0")

    async def main() -> tuple[Any, Any]:
        async with openai.AsyncOpenAI(base_url=server.url + "/v1", api_key="sk-test", max_retries=0) as client:
            orders = sdk_agent(client, "responses")
            triage = sdk_agent(client, "responses", name="Triage", handoffs=[orders])
            with am.capture() as run:
                result = await run_sdk(triage, "run")
        return run, result

    script_orders(server, openai_responses, first=handoff)
    run, result = asyncio.run(main())
    assert result.final_output == ANSWER and result.last_agent.name == "Orders"
    assert [call.name for call in run.tool_calls] == ["transfer_to_orders", "GetOrder", "CancelOrder"]
    assert [turn.agent for turn in run.turns] == ["Triage", "Orders", "Orders", "Orders"]


AGENTS_ONLY = """
    import asyncio, json
    import agents, openai
    import agentmetrics as am
    import test_capture_frameworks as t
    from provider_server import ProviderServer

    agents.set_trace_processors([])
    out = {}

    async def main(server, kind, mode):
        async with openai.AsyncOpenAI(base_url=server.url + "/v1", api_key="sk-test", max_retries=0) as client:
            with am.capture(hooks=["openai_agents"]) as run:
                result = await t.run_sdk(t.sdk_agent(client, kind), mode)
        return t.turn_rows(run), result.final_output

    with ProviderServer() as server:
        for kind in ("responses", "chat"):
            for mode in ("run", "streamed"):
                t.script_orders(server, t.builder_of(kind), stream=mode == "streamed")
                out[f"{kind}-{mode}"], out[f"{kind}-{mode}-answer"] = asyncio.run(main(server, kind, mode))
        out["errors"] = server.errors
    print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def agents_only() -> Any:
    return in_subprocess(AGENTS_ONLY)


def check_agents_only(out: Any, key: str) -> None:
    assert out["errors"] == [] and out[f"{key}-answer"] == ANSWER
    # Outputs from the function spans: the tool's own return value (a dict stays a dict there).
    assert check_alone(out[key], "openai_agents") == [ORDER_RECORD, CANCELLED]


@pytest.mark.parametrize("key", ["responses-run", "responses-streamed", "chat-run"])
def test_agents_sdk_hook_alone(agents_only: Any, key: str) -> None:
    check_agents_only(agents_only, key)


def test_agents_sdk_hook_alone_streamed_chat(agents_only: Any) -> None:
    check_agents_only(agents_only, "chat-streamed")


def test_agents_sdk_hook_alone_agent_name(agents_only: Any) -> None:
    assert [turn["agent"] for turn in agents_only["responses-run"]] == ["Orders"] * 3


# --------------------------------------------------------------------------- OpenTelemetry

#: The openai-v2 instrumentation's set-up, for OTEL_AGENT (below): its content
#: capture settings, and the two names openai-v2 2.4b0 needs that util-genai
#: 1.3b0 renamed (see tests/payloads/otel_payloads.py).
OPENAI_V2 = """
    os.environ["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"] = "span_only"
    os.environ["OTEL_SEMCONV_STABILITY_OPT_IN"] = "gen_ai_latest_experimental"
    import sys, types
    import opentelemetry.util.genai as util_genai
    from opentelemetry.util.genai import _instruments
    from opentelemetry.util.genai.handler import TelemetryHandler
    shim = types.ModuleType("opentelemetry.util.genai.instruments")
    shim.create_duration_histogram = lambda meter: _instruments._Instruments(meter).operation_duration
    shim.create_token_histogram = lambda meter: _instruments._Instruments(meter).token_usage
    sys.modules[shim.__name__] = util_genai.instruments = shim
    if not hasattr(TelemetryHandler, "start_inference"):
        TelemetryHandler.start_inference = TelemetryHandler.inference
    from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor
"""


@pytest.fixture(scope="module")
def otel_run() -> Any:
    return in_subprocess(otel_agent(OPENAI_V2))


def test_otel_hook_alone(otel_run: Any) -> None:
    out = otel_run
    assert out["errors"] == [] and out["otel-answer"] == ANSWER
    assert out["otel-spans"].count("chat gpt-4o-mini") == 3  # the instrumentation really ran
    # Outputs from the execute_tool spans (matched by gen_ai.tool.call.id).
    assert check_alone(out["otel"], "otel") == [out["sent"][GET.id], out["sent"][CANCEL.id]]


def test_otel_and_wire_not_duplicated(otel_run: Any) -> None:
    out = otel_run
    assert out["all-answer"] == ANSWER
    assert out["all-spans"].count("chat gpt-4o-mini") == 3
    turns = out["all"]
    assert len(turns) == 3  # one per response: the spans only enrich the wire turns
    assert [turn["source"] for turn in turns] == ["http"] * 3
    calls = [call for turn in turns for call in turn["calls"]]
    assert [(name, args, call_id) for name, args, call_id, _ in calls] == [tuple(c) for c in SCRIPTED]
    assert [call[3] for call in calls] == [out["sent"][GET.id], out["sent"][CANCEL.id]]


@pytest.mark.parametrize("which", ["langchain_only", "agents_only", "otel_run"])
def test_framework_only_run_keeps_its_text_turn(request: pytest.FixtureRequest, which: str) -> None:
    out = request.getfixturevalue(which)
    turns = out["sync" if which == "langchain_only" else "responses-run" if which == "agents_only" else "otel"]
    assert [len(turn["calls"]) for turn in turns] == [1, 1, 0]


# --------------------------------------------------------------------------- isolation


def worker_reply(i: int) -> Reply:
    return openai_chat([Call(f"tool_{i}", {"worker": i}, f"call_w{i}")], match=f"worker-{i}:", delay=0.0)


def ask(client: openai.OpenAI, i: int) -> None:
    client.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": f"worker-{i}:"}])


async def aask(client: openai.AsyncOpenAI, i: int) -> None:
    await client.chat.completions.create(model="gpt-4o-mini",
                                         messages=[{"role": "user", "content": f"worker-{i}:"}])


def mine(i: int) -> list[tuple[str, Any, Any]]:
    return [(f"tool_{i}", {"worker": i}, f"call_w{i}")]


def test_threads_each_see_their_own(server: ProviderServer) -> None:
    server.add(*(worker_reply(i) for i in reversed(range(8))))
    seen: dict[int, Any] = {}
    barrier = threading.Barrier(8)

    def worker(client: openai.OpenAI, i: int) -> None:
        barrier.wait()
        with am.capture() as run:
            ask(client, i)
            barrier.wait(timeout=10)  # all eight captures open at once
        seen[i] = triples(run.tool_calls)

    with openai.OpenAI(base_url=server.url + "/v1", api_key="sk-test", max_retries=0) as client:
        threads = [threading.Thread(target=worker, args=(client, i)) for i in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert seen == {i: mine(i) for i in range(8)}


def test_tasks_each_see_their_own(server: ProviderServer) -> None:
    server.add(*(worker_reply(i) for i in reversed(range(8))))

    async def task(client: openai.AsyncOpenAI, i: int, everyone: asyncio.Event, opened: list[int]) -> Any:
        async with am.capture() as run:
            opened.append(i)
            if len(opened) == 8:
                everyone.set()
            await everyone.wait()
            await aask(client, i)
        return triples(run.tool_calls)

    async def main() -> list[Any]:
        everyone, opened = asyncio.Event(), []
        async with openai.AsyncOpenAI(base_url=server.url + "/v1", api_key="sk-test", max_retries=0) as client:
            return await asyncio.gather(*(task(client, i, everyone, opened) for i in range(8)))

    assert asyncio.run(main()) == [mine(i) for i in range(8)]


def test_sync_capture_inside_a_running_loop(server: ProviderServer) -> None:
    """As in Jupyter: a plain `with` in a cell whose code runs inside the kernel's event loop."""
    server.add(worker_reply(1), worker_reply(2))

    async def cell() -> tuple[Any, Any]:
        async with openai.AsyncOpenAI(base_url=server.url + "/v1", api_key="sk-test", max_retries=0) as client:
            with am.capture() as run:
                await aask(client, 1)
                await asyncio.gather(aask(client, 2))  # a task started inside the block
            return run, asyncio.get_running_loop()

    run, loop = asyncio.run(cell())
    assert loop is not None
    assert triples(run.tool_calls) == mine(1) + mine(2)


def test_nested_captures(server: ProviderServer) -> None:
    server.add(worker_reply(1), worker_reply(2), worker_reply(3))
    with openai.OpenAI(base_url=server.url + "/v1", api_key="sk-test", max_retries=0) as client:
        with am.capture() as outer:
            ask(client, 1)
            with am.capture() as inner:
                ask(client, 2)
            ask(client, 3)
        with pytest.raises(CaptureError, match="no model response"):
            _ = am.capture().run.tool_calls
    assert triples(outer.tool_calls) == mine(1) + mine(2) + mine(3)
    assert triples(inner.tool_calls) == mine(2)


def test_threads_and_the_context(server: ProviderServer) -> None:
    server.add(*(worker_reply(i) for i in range(1, 7)))

    def in_thread(target: Any) -> None:
        thread = threading.Thread(target=target)
        thread.start()
        thread.join()

    with openai.OpenAI(base_url=server.url + "/v1", api_key="sk-test", max_retries=0) as client:
        with am.capture() as run:
            ask(client, 1)
            in_thread(lambda: ask(client, 2))  # a plain thread has a fresh context: not recorded
            context = contextvars.copy_context()
            in_thread(lambda: context.run(ask, client, 3))  # the capture's context: recorded
        assert triples(run.tool_calls) == mine(1) + mine(3)

        with am.capture() as alone:
            in_thread(lambda: ask(client, 4))
        assert alone.turns == ()
        with pytest.raises(CaptureError, match="copy_context"):
            _ = alone.tool_calls

        with am.capture(scope="process") as process:
            ask(client, 5)
            in_thread(lambda: ask(client, 6))
        assert triples(process.tool_calls) == mine(5) + mine(6)


def test_a_capture_is_not_reentrant() -> None:
    block = am.capture()
    with block, pytest.raises(CaptureError, match="already open"):
        block.__enter__()


# --------------------------------------------------------------------------- lazy install

LAZY = """
    import json, sys
    import agentmetrics
    heavy = ("httpx", "httpx2", "openai", "botocore", "langchain_core", "agents", "opentelemetry")
    out = {"imported": sorted(name for name in sys.modules if name.split(".")[0] in heavy)}

    with agentmetrics.capture() as first:
        import openai
    out["first"] = len(first.turns)

    from provider_replies import Call, openai_chat
    from provider_server import ProviderServer
    with ProviderServer() as server:
        server.add(openai_chat([Call("GetOrder", {"order_id": "12345"}, "call_get_1")]))
        with openai.OpenAI(base_url=server.url + "/v1", api_key="sk-test", max_retries=0) as client, \\
                agentmetrics.capture() as run:
            client.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "hi"}])
        out["calls"] = [[c.name, c.arguments, c.id] for c in run.tool_calls]
        out["source"] = [turn.source for turn in run.turns]
        out["errors"] = server.errors
    print(json.dumps(out))
"""


def test_lazy_install_through_the_import_hook() -> None:
    out = in_subprocess(LAZY)
    assert out["imported"] == []
    assert out["first"] == 0
    assert out["errors"] == []
    assert out["calls"] == [["GetOrder", {"order_id": "12345"}, "call_get_1"]]
    assert out["source"] == ["http"]


def test_streamed_response_is_teed_unchanged(server: ProviderServer) -> None:
    """The SDK sees the same bytes with the capture as without it (httpx2 client directly)."""
    reply = openai_chat([GET], stream=True)
    server.add(reply)
    body = {"model": "gpt-4o-mini", "stream": True, "messages": [{"role": "user", "content": "hi"}]}
    with httpx2.Client() as client, am.capture() as run, \
            client.stream("POST", server.url + "/v1/chat/completions", json=body) as response:
        received = b"".join(response.iter_bytes())
    assert received == reply.sent
    assert triples(run.tool_calls) == SCRIPTED[:1]


# --------------------------------------------------------------------------- OpenTelemetry: OpenInference, Traceloop

#: A chat-completions agent with execute_tool spans made by hand, under one instrumentation of the openai client;
#: INSTRUMENT is replaced by the code that sets it up (one per process: each patches openai).
OTEL_AGENT = """
    import json, os
    INSTRUMENT
    import openai
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    import agentmetrics as am
    import test_capture_frameworks as t
    from provider_server import ProviderServer

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    OpenAIInstrumentor().instrument()
    tracer = trace.get_tracer("orders.framework")
    TOOLS = [{"type": "function", "function": {"name": name, "parameters": {"type": "object"}}}
             for name in ("GetOrder", "CancelOrder")]

    def agent(client):
        messages = [{"role": "user", "content": "Cancel order 12345"}]
        for _ in range(3):
            reply = client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=TOOLS)
            message = reply.choices[0].message
            if not message.tool_calls:
                return message.content
            messages.append(message.model_dump(exclude_none=True))
            for call in message.tool_calls:
                with tracer.start_as_current_span(f"execute_tool {call.function.name}") as span:
                    result = t.CANCELLED if call.function.name == "CancelOrder" else json.dumps(t.ORDER_RECORD)
                    span.set_attributes({"gen_ai.operation.name": "execute_tool",
                                         "gen_ai.tool.name": call.function.name,
                                         "gen_ai.tool.call.id": call.id,
                                         "gen_ai.tool.call.result": result,
                                         "gen_ai.agent.name": "orders"})
                messages.append({"role": "tool", "tool_call_id": call.id, "content": result})

    out = {}
    with ProviderServer() as server, openai.OpenAI(base_url=server.url + "/v1", api_key="sk-test",
                                                   max_retries=0) as client:
        for key, hooks in (("otel", ["otel"]), ("all", None)):
            t.script_orders(server)
            exporter.clear()
            with am.capture(hooks=hooks) as run:
                out[f"{key}-answer"] = agent(client)
            out[key] = t.turn_rows(run)
            out[f"{key}-usage"] = [[turn.usage.input_tokens, turn.usage.output_tokens, turn.usage.unreported]
                                   for turn in run.turns]
            out[f"{key}-models"] = [[turn.model, turn.provider] for turn in run.turns]
            out[f"{key}-spans"] = [span.name for span in exporter.get_finished_spans()]
        out["sent"] = t.tool_results_sent(server)
        out["errors"] = server.errors
    print(json.dumps(out))
"""

#: How each instrumentation is set up. Both record the calls' names, arguments (as JSON text) and ids by default;
#: the content settings are pinned to those defaults so that the environment cannot turn content capture off.
OTEL_INSTRUMENTATIONS = {
    # openinference-instrumentation-openai 0.1.66: llm.output_messages.0.message.tool_calls.N.tool_call.{id,
    # function.name,function.arguments} on a "ChatCompletion" span (openinference.span.kind LLM); the
    # OPENINFERENCE_HIDE_OUTPUTS / OPENINFERENCE_HIDE_OUTPUT_MESSAGES settings (default false) would drop them.
    "openinference": """
        for name in ("OPENINFERENCE_HIDE_OUTPUTS", "OPENINFERENCE_HIDE_OUTPUT_MESSAGES"):
            os.environ[name] = "false"
        from openinference.instrumentation.openai import OpenAIInstrumentor
    """,
    # Traceloop's opentelemetry-instrumentation-openai 0.62.4: gen_ai.output.messages JSON (tool_call parts with
    # id, name, arguments) on an "openai.chat" span; TRACELOOP_TRACE_CONTENT (default true) must not be false.
    "traceloop": """
        os.environ["TRACELOOP_TRACE_CONTENT"] = "true"
        from opentelemetry.instrumentation.openai import OpenAIInstrumentor
    """,
}
MODEL_SPAN = {"openinference": "ChatCompletion", "traceloop": "openai.chat"}


def otel_agent(setup: str) -> str:
    """OTEL_AGENT with an instrumentation's set-up in place of INSTRUMENT."""
    return OTEL_AGENT.replace("    INSTRUMENT", textwrap.indent(textwrap.dedent(setup).strip(), " " * 4), 1)


@pytest.fixture(scope="module", params=sorted(OTEL_INSTRUMENTATIONS))
def otel_other(request: pytest.FixtureRequest) -> tuple[str, Any]:
    """The OTEL_AGENT agent under one instrumentation, in its own process (see OTEL_INSTRUMENTATIONS)."""
    return request.param, in_subprocess(otel_agent(OTEL_INSTRUMENTATIONS[request.param]))


def test_other_instrumentation_hook_alone(otel_other: tuple[str, Any]) -> None:
    """capture(hooks=["otel"]) under OpenInference / Traceloop: 3 turns from the model spans alone, with the
    scripted calls (names, arguments, ids) and the outputs of the execute_tool spans."""
    name, out = otel_other
    assert out["errors"] == [] and out["otel-answer"] == ANSWER
    assert out["otel-spans"].count(MODEL_SPAN[name]) == 3  # the instrumentation really ran
    turns = out["otel"]
    assert len(turns) == 3
    assert [turn["source"] for turn in turns] == ["otel"] * 3
    assert [turn["error"] for turn in turns] == [None] * 3
    assert [[(n, args, call_id) for n, args, call_id, _ in turn["calls"]] for turn in turns] == \
        [[tuple(SCRIPTED[0])], [tuple(SCRIPTED[1])], []]
    assert [call[3] for turn in turns for call in turn["calls"]] == [out["sent"][GET.id], out["sent"][CANCEL.id]]
    # The usage and model the spans carry (the scripted replies: 82 in, 17 out).
    assert out["otel-usage"] == [[82, 17, 0]] * 3
    assert [model for model, _ in out["otel-models"]] == ["gpt-4o-mini-2024-07-18"] * 3


def test_other_instrumentation_and_wire_not_duplicated(otel_other: tuple[str, Any]) -> None:
    """All hooks under OpenInference / Traceloop: the spans only enrich the wire turns (matched by call id)."""
    name, out = otel_other
    assert out["all-answer"] == ANSWER
    assert out["all-spans"].count(MODEL_SPAN[name]) == 3
    turns = out["all"]
    assert len(turns) == 3
    assert [turn["source"] for turn in turns] == ["http"] * 3
    assert [turn["error"] for turn in turns] == [None] * 3
    assert [[(n, args, call_id) for n, args, call_id, _ in turn["calls"]] for turn in turns] == \
        [[tuple(SCRIPTED[0])], [tuple(SCRIPTED[1])], []]
    assert [call[3] for turn in turns for call in turn["calls"]] == [out["sent"][GET.id], out["sent"][CANCEL.id]]
    assert out["all-usage"] == [[82, 17, 0]] * 3


# OpenInference sets llm.provider only when the host tells it (not on a loopback or
# self-hosted base_url), but always llm.system: the hook reads both.
@pytest.mark.parametrize("otel_other", ["traceloop", "openinference"], indirect=True)
def test_other_instrumentation_provider(otel_other: tuple[str, Any]) -> None:
    """The provider of an otel-only turn is the API the span names (gen_ai.provider.name for Traceloop,
    llm.system for OpenInference: both "openai"), never the hook's own name."""
    _, out = otel_other
    assert [provider for _, provider in out["otel-models"]] == ["openai"] * 3
