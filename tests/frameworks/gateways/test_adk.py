"""google-adk under capture(): an LlmAgent with two function tools, run by InMemoryRunner, on Gemini (google-genai
pointed at the loopback server; its async client uses aiohttp) and on LiteLlm (openai/gpt-4o-mini at the server's
/v1: litellm's acompletion, httpx over aiohttp), without and with SSE streaming, without OpenTelemetry (in this
process) and under a global SDK TracerProvider with ADK's span content on and off (fresh interpreters; see
gateway_scenarios.ADK_CONTENT for ADK's settings).

Expected everywhere: one turn per response the server sent, the calls exactly as on the wire (Gemini's wire has no
call ids: None, whatever ids ADK makes up), usage once, each output what ADK sent back, and with OpenTelemetry the
agent's name (from ADK's spans) on every turn. Sample spans: data/adk_*.json.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from gateway_scenarios import ADK_CONTENT, ADK_OTEL, AGENT, HERE, check, in_subprocess, run_adk
from provider_server import ProviderServer

FORMAT = {"gemini": "gemini", "litellm": "openai_chat"}
SOURCES = {"gemini": {"aiohttp", "http"}, "litellm": {"http", "aiohttp"}}
CASES = [("gemini", False), ("gemini", True), ("litellm", False), ("litellm", True)]
IDS = [f"{model}-{'sse' if sse else 'json'}" for model, sse in CASES]


@pytest.mark.parametrize(("model", "sse"), CASES, ids=IDS)
def test_adk_without_otel(server: ProviderServer, model: str, sse: bool) -> None:
    """Nothing names the agent without OpenTelemetry: agent None. On LiteLlm both the httpx and the aiohttp hook
    see each request (httpx over aiohttp; every call came twice before issue 49)."""
    out = run_adk(server, model=model, sse=sse)
    check(out, format=FORMAT[model], streamed=sse, sources=SOURCES[model], agent=None)


@pytest.fixture(scope="module", params=[True, False], ids=["content", "no_content"])
def adk_otel(request: pytest.FixtureRequest) -> tuple[bool, Any]:
    return request.param, in_subprocess(ADK_OTEL, env=ADK_CONTENT[request.param], otel=True)


def model_spans(out: dict[str, Any]) -> list[dict[str, Any]]:
    return [span["attributes"] for span in out["spans"]
            if span["attributes"].get("gen_ai.operation.name") == "generate_content"]


@pytest.mark.parametrize(("model", "sse"), CASES, ids=IDS)
def test_adk_with_otel(adk_otel: tuple[bool, Any], model: str, sse: bool) -> None:
    """Before issue 49: on Gemini with content, ADK's spans carry invented ids (get_weather_0) and the calls came
    twice; without content, each span of a response with calls was an extra turn with its usage again; on
    LiteLlm every call came twice (httpx over aiohttp), and with SSE and content the run raised CaptureError (the
    span holds the partial streamed responses as alternative output messages). Now: one turn a response, the
    wire's calls, the agent named by the spans."""
    content, outs = adk_otel
    out = outs[f"{model}-{'sse' if sse else 'json'}"]
    spans = model_spans(out)
    assert len(spans) == 3 and {s["gen_ai.agent.name"] for s in spans} == {AGENT}  # ADK really traced
    assert all(("gen_ai.output.messages" in s) is content for s in spans)
    check(out, format=FORMAT[model], streamed=sse, sources=SOURCES[model], agent=AGENT)


@pytest.mark.parametrize(("model", "sse"), CASES, ids=IDS)
def test_adk_span_keys_match_the_fixture(adk_otel: tuple[bool, Any], model: str, sse: bool) -> None:
    """data/adk_spans_<content>.json: ADK's generate_content span of the first response (parallel calls) and its
    execute_tool spans per case, as ADK 2.13 sets them today; a change in ADK's spans shows here."""
    content, outs = adk_otel
    case = f"{model}-{'sse' if sse else 'json'}"
    sample = json.loads((HERE / "data" / f"adk_spans_{'content' if content else 'no_content'}.json").read_text())
    spans = outs[case]["spans"]
    assert sorted(model_spans(outs[case])[0]) == sorted(sample[case]["generate_content"])
    tools = [s["attributes"] for s in spans if s["attributes"].get("gen_ai.operation.name") == "execute_tool"]
    assert [sorted(t) for t in tools] == [sorted(t) for t in sample[case]["execute_tool"]]
