"""The scripted agent every gateway test runs, and how a captured run is summed up.

The "model" asks for two calls at once (get_weather Paris, get_weather Tokyo), then one (get_time Paris), then
answers in text; each response carries its own usage (:data:`USAGES`). Each ``run_*`` function drives one real
library through those three responses against a :class:`ProviderServer` and returns :func:`outcome`: plain JSON, so
that the same function serves a test in this process and one in a fresh interpreter (:func:`in_subprocess`).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

from provider_replies import Call, anthropic, gemini, openai_chat, openai_responses
from provider_server import ProviderServer, Reply

import agentmetrics as am
from agentmetrics.errors import CaptureError

HERE = Path(__file__).resolve().parent
TESTS = HERE.parents[1]
REPO = TESTS.parent

ANSWER = "Paris is sunny at 10:00; Tokyo is rainy."
#: (input_tokens, output_tokens) of the three responses, distinct so a turn counted twice shows.
USAGES = [(101, 11), (202, 22), (303, 33)]
TOTAL = [606, 66, 672, 3, 0]  # Usage(input, output, total, turns, unreported) of the whole run
NAMES = [["get_weather", "get_weather"], ["get_time"], []]
ARGUMENTS = [[{"city": "Paris"}, {"city": "Tokyo"}], [{"city": "Paris"}], []]
AGENT = "weather_agent"

#: Call ids in each provider's style; Gemini's wire has none.
IDS: dict[str, list[list[str | None]]] = {
    "openai_chat": [["call_w1", "call_w2"], ["call_t1"], []],
    "openai_responses": [["call_w1", "call_w2"], ["call_t1"], []],
    "anthropic": [["toolu_01w1", "toolu_01w2"], ["toolu_01t1"], []],
    "gemini": [[None, None], [None], []],
}


def get_weather(city: str) -> dict[str, str]:
    """The weather in a city."""
    return {"city": city, "sky": "sunny" if city == "Paris" else "rainy"}


def get_time(city: str) -> dict[str, str]:
    """The local time in a city."""
    return {"city": city, "time": "10:00"}


TOOLS: dict[str, Callable[..., dict[str, str]]] = {"get_weather": get_weather, "get_time": get_time}
#: What the three calls return, in order.
RESULTS = [get_weather("Paris"), get_weather("Tokyo"), get_time("Paris")]


def script(server: ProviderServer, format: str, *, stream: bool) -> list[Reply]:
    """Queue the three responses in ``format`` (a provider_replies builder's name); returns them."""
    builder: Callable[..., Reply] = {
        "openai_chat": openai_chat,
        "openai_responses": openai_responses,
        "anthropic": anthropic,
        "gemini": lambda *args, **kw: gemini(*args, include_ids=False, **kw),
    }[format]
    replies = []
    for names, arguments, ids, (inp, out) in zip(NAMES, ARGUMENTS, IDS[format], USAGES):
        calls = [Call(name, args, call_id or "") for name, args, call_id in zip(names, arguments, ids)]
        replies.append(builder(calls, None if calls else ANSWER, stream=stream, input_tokens=inp,
                               output_tokens=out))
    server.add(*replies)
    return replies


def results_sent(body: dict[str, Any]) -> list[Any]:
    """The tool results a request body sends back, in conversation order (Chat Completions, Responses,
    Anthropic Messages, Gemini)."""
    out: list[Any] = []
    for message in body.get("messages") or body.get("input") or body.get("contents") or ():
        if not isinstance(message, dict):
            continue
        if message.get("role") == "tool":
            out.append(message["content"])
        elif message.get("type") == "function_call_output":
            out.append(message["output"])
        content = message.get("content")
        if isinstance(content, list):
            out.extend(block["content"] for block in content
                       if isinstance(block, dict) and block.get("type") == "tool_result")
        for part in message.get("parts") or ():
            if "functionResponse" in part:
                out.append(part["functionResponse"]["response"])
    return out


def plain(value: Any) -> Any:
    """A tool result as sent (JSON text, or an object) as the object it encodes."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def outcome(run: Any, server: ProviderServer, answer: Any) -> dict[str, Any]:
    """What a test checks, as JSON: the turns, the run's totals, and what the server saw."""
    turns = [{"source": t.source, "format": t.format, "streamed": t.streamed, "agent": t.agent, "error": t.error,
              "calls": [[c.name, c.arguments, c.id, c.output] for c in t.tool_calls],
              "usage": [t.usage.input_tokens, t.usage.output_tokens, t.usage.total_tokens, t.usage.turns,
                        t.usage.unreported]} for t in run.turns]
    try:
        names: Any = [call.name for call in run.tool_calls]
    except CaptureError as error:
        names = f"CaptureError: {error}"
    usage = run.usage
    bodies = [json.loads(exchange.body) for exchange in server.exchanges]
    return {
        "turns": turns,
        "tool_names": names,
        "total": [usage.input_tokens, usage.output_tokens, usage.total_tokens, usage.turns, usage.unreported],
        "answer": answer,
        "requests": len(bodies),
        "request_stream": [body.get("stream") for body in bodies],
        "served_stream": [exchange.reply.streamed for exchange in server.exchanges],
        "sent_back": results_sent(bodies[-1]) if bodies else [],
        "server_errors": list(server.errors),
        "pending": len(server.pending),
    }


def evidence(out: dict[str, Any]) -> list[Any]:
    """``[(t.source, t.format, [c.name for c in t.tool_calls], t.usage) for t in run.turns]``, as JSON."""
    return [(t["source"], t["format"], [c[0] for c in t["calls"]], t["usage"][:2]) for t in out["turns"]]


def check(out: dict[str, Any], *, format: str, streamed: bool, sources: set[str], agent: str | None = None,
          answer: str | None = ANSWER) -> None:
    """The run is exactly what the server sent: one turn per response, its calls (names, arguments, ids), its
    usage, each call's output the result the agent sent back, the agent named where a framework names it."""
    shown = f"evidence: {evidence(out)}"
    assert out["server_errors"] == [] and out["pending"] == 0, out["server_errors"]
    if answer is not None:
        assert out["answer"] == answer
    assert out["requests"] == 3
    assert out["served_stream"] == [streamed] * 3
    turns = out["turns"]
    assert [t["error"] for t in turns] == [None] * len(turns), \
        f"{shown}; errors: {[t['error'] for t in turns]}; run.tool_calls: {out['tool_names']}"
    assert len(turns) == 3, shown
    ids = IDS[format]
    assert [[(c[0], c[1], c[2]) for c in t["calls"]] for t in turns] == \
        [list(zip(n, a, i)) for n, a, i in zip(NAMES, ARGUMENTS, ids)], shown
    assert [t["usage"] for t in turns] == [[i, o, i + o, 1, 0] for i, o in USAGES], shown
    assert out["total"] == TOTAL, shown
    assert out["tool_names"] == [name for names in NAMES for name in names], shown
    assert [t["format"] for t in turns] == [format] * 3, shown
    assert [t["streamed"] for t in turns] == [streamed] * 3, shown
    assert len({t["source"] for t in turns}) == 1 and turns[0]["source"] in sources, shown
    outputs = [c[3] for t in turns for c in t["calls"]]
    assert outputs == out["sent_back"], shown
    assert [plain(value) for value in outputs] == RESULTS
    assert [t["agent"] for t in turns] == [agent] * 3, shown


# --------------------------------------------------------------------------- plain clients, in an agent's loop


_QUESTION = "Weather and time in Paris, weather in Tokyo?"


def _chat_follow(messages: list[dict[str, Any]], message: Any) -> str | None:
    """The agent's answer, or (None) the model's calls and their results added to ``messages``."""
    if not message.tool_calls:
        return str(message.content)
    messages.append({"role": "assistant", "content": message.content, "tool_calls": [
        {"id": c.id, "type": "function", "function": {"name": c.function.name, "arguments": c.function.arguments}}
        for c in message.tool_calls]})
    for call in message.tool_calls:
        result = TOOLS[call.function.name](**json.loads(call.function.arguments))
        messages.append({"role": "tool", "tool_call_id": call.id, "content": json.dumps(result)})
    return None


def _chat_loop(step: Callable[[list[dict[str, Any]]], Any]) -> str:
    """The Chat Completions agent loop; ``step`` sends the messages and gives the assistant message."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": _QUESTION}]
    for _ in range(3):
        answer = _chat_follow(messages, step(messages))
        if answer is not None:
            return answer
    raise AssertionError("the agent did not answer in three steps")


async def _achat_loop(step: Callable[[list[dict[str, Any]]], Any]) -> str:
    messages: list[dict[str, Any]] = [{"role": "user", "content": _QUESTION}]
    for _ in range(3):
        answer = _chat_follow(messages, await step(messages))
        if answer is not None:
            return answer
    raise AssertionError("the agent did not answer in three steps")


CHAT_TOOLS = [{"type": "function", "function": {"name": name, "description": tool.__doc__, "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}
    for name, tool in TOOLS.items()]


async def close_litellm() -> None:
    """Close litellm's cached async clients (their aiohttp sessions belong to this event loop) and forget them, so
    the next asyncio.run builds new ones."""
    import litellm
    from litellm.llms.custom_httpx.async_client_cleanup import close_litellm_async_clients

    await close_litellm_async_clients()
    litellm.in_memory_llm_clients_cache.flush_cache()


def run_litellm_completion(server: ProviderServer, *, stream: bool) -> dict[str, Any]:
    import litellm

    script(server, "openai_chat", stream=stream)

    def step(messages: list[dict[str, Any]]) -> Any:
        response = litellm.completion(model="openai/gpt-4o-mini", api_base=server.url + "/v1", api_key="sk-test",
                                      messages=messages, tools=CHAT_TOOLS, stream=stream,
                                      **({"stream_options": {"include_usage": True}} if stream else {}))
        if stream:
            response = litellm.stream_chunk_builder(list(response), messages=messages)
        return response.choices[0].message

    with am.capture() as run:
        answer = _chat_loop(step)
    return outcome(run, server, answer)


def run_litellm_acompletion(server: ProviderServer, *, stream: bool) -> dict[str, Any]:
    import litellm

    script(server, "openai_chat", stream=stream)

    async def step(messages: list[dict[str, Any]]) -> Any:
        response = await litellm.acompletion(
            model="openai/gpt-4o-mini", api_base=server.url + "/v1", api_key="sk-test", messages=messages,
            tools=CHAT_TOOLS, stream=stream, **({"stream_options": {"include_usage": True}} if stream else {}))
        if stream:
            response = litellm.stream_chunk_builder([chunk async for chunk in response], messages=messages)
        return response.choices[0].message

    async def main() -> tuple[Any, str]:
        async with am.capture() as run:
            answer = await _achat_loop(step)
        await close_litellm()
        return run, answer

    run, answer = asyncio.run(main())
    return outcome(run, server, answer)


RESPONSES_TOOLS = [{"type": "function", "name": t["function"]["name"], "description": t["function"]["description"],
                    "parameters": t["function"]["parameters"]} for t in CHAT_TOOLS]


def run_litellm_responses(server: ProviderServer, *, stream: bool, model: str = "openai/gpt-4.1",
                          served_stream: bool | None = None) -> dict[str, Any]:
    """litellm.responses in an agent's loop; ``served_stream`` is what the server answers with (default: ``stream``)."""
    import litellm

    script(server, "openai_responses", stream=stream if served_stream is None else served_stream)
    items: list[Any] = [{"role": "user", "content": "Weather and time in Paris, weather in Tokyo?"}]
    answer = None
    with am.capture() as run:
        for _ in range(3):
            response = litellm.responses(model=model, api_base=server.url + "/v1", api_key="sk-test", input=items,
                                         tools=RESPONSES_TOOLS, stream=stream)
            if stream:
                events = list(response)
                response = next(event.response for event in events if event.type == "response.completed")
            calls = [item for item in response.output if item.type == "function_call"]
            if not calls:
                answer = next(part.text for item in response.output if item.type == "message"
                              for part in item.content)
                break
            for call in calls:
                result = TOOLS[call.name](**json.loads(call.arguments))
                items.append({"type": "function_call", "call_id": call.call_id, "name": call.name,
                              "arguments": call.arguments})
                items.append({"type": "function_call_output", "call_id": call.call_id, "output": json.dumps(result)})
    return outcome(run, server, answer)


def run_openai_aiohttp(server: ProviderServer, *, stream: bool) -> dict[str, Any]:
    import openai

    script(server, "openai_chat", stream=stream)

    async def main() -> tuple[Any, str]:
        async with openai.AsyncOpenAI(base_url=server.url + "/v1", api_key="sk-test", max_retries=0,
                                      http_client=openai.DefaultAioHttpClient()) as client:

            async def step(messages: list[dict[str, Any]]) -> Any:
                if stream:
                    async with client.chat.completions.stream(model="gpt-4o-mini", messages=messages,
                                                              tools=CHAT_TOOLS) as events:
                        async for _ in events:
                            pass
                        completion = await events.get_final_completion()
                else:
                    completion = await client.chat.completions.create(model="gpt-4o-mini", messages=messages,
                                                                      tools=CHAT_TOOLS)
                return completion.choices[0].message

            async with am.capture() as run:
                answer = await _achat_loop(step)
        return run, answer

    run, answer = asyncio.run(main())
    return outcome(run, server, answer)


ANTHROPIC_TOOLS = [{"name": t["function"]["name"], "description": t["function"]["description"],
                    "input_schema": t["function"]["parameters"]} for t in CHAT_TOOLS]


def _anthropic_step_results(message: Any, messages: list[dict[str, Any]]) -> str | None:
    """Append the assistant turn and the tool results; the answer when there are no calls."""
    uses = [block for block in message.content if block.type == "tool_use"]
    if not uses:
        return str(message.content[0].text)
    messages.append({"role": "assistant", "content": [block.model_dump(exclude_none=True) for block in message.content]})
    messages.append({"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": block.id, "content": json.dumps(TOOLS[block.name](**block.input))}
        for block in uses]})
    return None


def _anthropic_messages() -> list[dict[str, Any]]:
    return [{"role": "user", "content": "Weather and time in Paris, weather in Tokyo?"}]


async def _anthropic_async(client: Any, stream: bool) -> str:
    messages = _anthropic_messages()
    for _ in range(3):
        if stream:
            async with client.messages.stream(model="claude-sonnet-4-5", max_tokens=256, messages=messages,
                                              tools=ANTHROPIC_TOOLS) as events:
                message = await events.get_final_message()
        else:
            message = await client.messages.create(model="claude-sonnet-4-5", max_tokens=256, messages=messages,
                                                   tools=ANTHROPIC_TOOLS)
        answer = _anthropic_step_results(message, messages)
        if answer is not None:
            return answer
    raise AssertionError("the agent did not answer in three steps")


def run_anthropic_aiohttp(server: ProviderServer, *, stream: bool) -> dict[str, Any]:
    import anthropic as sdk

    script(server, "anthropic", stream=stream)

    async def main() -> tuple[Any, str]:
        async with sdk.AsyncAnthropic(base_url=server.url, api_key="sk-test", max_retries=0,
                                      http_client=sdk.DefaultAioHttpClient()) as client, am.capture() as run:
            answer = await _anthropic_async(client, stream)
        return run, answer

    run, answer = asyncio.run(main())
    return outcome(run, server, answer)


def run_anthropic(server: ProviderServer, *, mode: str, **options: Any) -> dict[str, Any]:
    """The default (httpx2) anthropic client: ``mode`` is sync, async or stream (sync streaming)."""
    import anthropic as sdk

    script(server, "anthropic", stream=mode == "stream")
    if mode == "async":
        async def main() -> tuple[Any, str]:
            async with sdk.AsyncAnthropic(base_url=server.url, api_key="sk-test", max_retries=0,
                                          **options) as client, am.capture() as run:
                answer = await _anthropic_async(client, False)
            return run, answer

        run, answer = asyncio.run(main())
        return outcome(run, server, answer)
    messages = _anthropic_messages()
    answer = None
    with sdk.Anthropic(base_url=server.url, api_key="sk-test", max_retries=0, **options) as client, \
            am.capture() as run:
        for _ in range(3):
            if mode == "stream":
                with client.messages.stream(model="claude-sonnet-4-5", max_tokens=256, messages=messages,
                                            tools=ANTHROPIC_TOOLS) as events:
                    message = events.get_final_message()
            else:
                message = client.messages.create(model="claude-sonnet-4-5", max_tokens=256, messages=messages,
                                                 tools=ANTHROPIC_TOOLS)
            answer = _anthropic_step_results(message, messages)
            if answer is not None:
                break
    return outcome(run, server, answer)


# --------------------------------------------------------------------------- Google ADK


def run_adk(server: ProviderServer, *, model: str, sse: bool = False) -> dict[str, Any]:
    """An ADK LlmAgent with the two function tools, run by InMemoryRunner; ``model`` is "gemini" (google-genai
    pointed at the server) or "litellm" (LiteLlm, openai/gpt-4o-mini at the server's /v1)."""
    from google.adk.agents import LlmAgent
    from google.adk.agents.run_config import RunConfig, StreamingMode
    from google.adk.runners import InMemoryRunner
    from google.genai import types

    if model == "gemini":
        from google.adk.models.google_llm import Gemini

        llm: Any = Gemini(model="gemini-2.5-flash", base_url=server.url,
                          client_kwargs={"api_key": "test-key", "vertexai": False})
        script(server, "gemini", stream=sse)
    else:
        from google.adk.models.lite_llm import LiteLlm

        llm = LiteLlm(model="openai/gpt-4o-mini", api_base=server.url + "/v1", api_key="sk-test")
        script(server, "openai_chat", stream=sse)
    agent = LlmAgent(name=AGENT, model=llm, instruction="Answer questions on weather and time.",
                     tools=[get_weather, get_time])
    config = RunConfig(streaming_mode=StreamingMode.SSE if sse else StreamingMode.NONE)

    async def main() -> tuple[Any, Any]:
        runner = InMemoryRunner(agent=agent, app_name="gateways")
        session = await runner.session_service.create_session(app_name="gateways", user_id="user")
        message = types.Content(role="user", parts=[types.Part(text="Weather and time in Paris, weather in Tokyo?")])
        texts = []
        async with am.capture() as run:
            async for event in runner.run_async(user_id="user", session_id=session.id, new_message=message,
                                                run_config=config):
                if event.content and event.content.parts and not event.partial:
                    texts.extend(part.text for part in event.content.parts if part.text)
        await runner.close()
        if model == "litellm":
            await close_litellm()
        return run, texts[-1] if texts else None

    run, answer = asyncio.run(main())
    return outcome(run, server, answer)


# --------------------------------------------------------------------------- a fresh interpreter

#: Sets a global SDK TracerProvider with an in-memory exporter (before anything is captured).
OTEL_SETUP = """
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    EXPORTER = InMemorySpanExporter()
    PROVIDER = TracerProvider()
    PROVIDER.add_span_processor(SimpleSpanProcessor(EXPORTER))
    trace.set_tracer_provider(PROVIDER)
"""


def spans() -> list[dict[str, Any]]:
    """The finished spans of the global provider's in-memory exporter (set by OTEL_SETUP), as JSON."""
    import __main__

    return [{"name": span.name, "attributes": dict(span.attributes or {})}
            for span in __main__.EXPORTER.get_finished_spans()]


def in_subprocess(body: str, *, env: dict[str, str] | None = None, otel: bool = False, timeout: float = 150) -> Any:
    """Run ``body`` in a fresh interpreter (tests/ and this folder on the path, ``env`` added to the environment,
    with OTEL_SETUP first when ``otel``); ``body`` sets ``OUT``, printed as JSON."""
    code = "import json\n" + (textwrap.dedent(OTEL_SETUP) if otel else "") + textwrap.dedent(body) + \
        "\nprint(json.dumps(OUT))\n"
    path = os.pathsep.join(filter(None, [str(HERE), str(TESTS), os.environ.get("PYTHONPATH")]))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "PYTHONPATH": path, **(env or {})}, cwd=REPO, check=False)
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


# --------------------------------------------------------------------------- the fresh-interpreter runs

#: anthropic's client spans (global provider), each mode, in the default "metadata_only" mode and in "content".
ANTHROPIC_OTEL = """
    from gateway_scenarios import run_anthropic, spans
    from provider_server import ProviderServer
    OUT = {}
    for content in (False, True):
        options = {"open_telemetry": {"traces": {"content_mode": "content"}}} if content else {}
        for mode in ("sync", "async", "stream"):
            EXPORTER.clear()
            with ProviderServer() as server:
                out = run_anthropic(server, mode=mode, **options)
            out["spans"] = spans()
            OUT[f"{mode}-{'content' if content else 'metadata'}"] = out
"""

#: ADK on Gemini and on LiteLlm, without and with SSE, under a global provider (ADK's spans; its content setting is
#: the environment's, see ADK_CONTENT).
ADK_OTEL = """
    from gateway_scenarios import run_adk, spans
    from provider_server import ProviderServer
    OUT = {}
    for model in ("gemini", "litellm"):
        for sse in (False, True):
            EXPORTER.clear()
            with ProviderServer() as server:
                out = run_adk(server, model=model, sse=sse)
            out["spans"] = spans()
            OUT[f"{model}-{'sse' if sse else 'json'}"] = out
"""

#: ADK 2.13's telemetry settings (google/adk/telemetry/context.py, _schema_version.py): schema 2 (the default,
#: OTel GenAI semconv 1.44: invoke_workflow > invoke_agent > generate_content / execute_tool spans) puts message
#: content (gen_ai.input.messages, gen_ai.output.messages, gen_ai.system_instructions) on the generate_content span
#: only when OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT is SPAN_ONLY or SPAN_AND_EVENT ("true" means
#: EVENT_ONLY: log events, not spans). ADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS (default true) is for schema 1's
#: legacy spans only.
ADK_CONTENT = {
    True: {"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "SPAN_ONLY", "ADK_TELEMETRY_SCHEMA_VERSION_OPT_IN": "2"},
    False: {"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "NO_CONTENT",
            "ADK_TELEMETRY_SCHEMA_VERSION_OPT_IN": "2"},
}
