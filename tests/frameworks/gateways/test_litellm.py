"""litellm under capture(): completion (sync), acompletion on its default transport (aiohttp under httpx) and with
DISABLE_AIOHTTP_TRANSPORT=True (plain httpx; litellm reads it when it builds its cached async client, so a fresh
interpreter), and the Responses
API, each streamed and not, in an agent's loop (two parallel calls, one call, a text answer)."""

from __future__ import annotations

from typing import Any

import pytest
from gateway_scenarios import (
    check,
    in_subprocess,
    run_litellm_acompletion,
    run_litellm_completion,
    run_litellm_responses,
)
from provider_server import ProviderServer


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
def test_completion_sync(server: ProviderServer, stream: bool) -> None:
    out = run_litellm_completion(server, stream=stream)
    assert out["request_stream"] == ([True] * 3 if stream else [None] * 3)
    check(out, format="openai_chat", streamed=stream, sources={"http"})


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
def test_acompletion_default_transport(server: ProviderServer, stream: bool) -> None:
    """litellm's default async transport: httpx.AsyncClient over its aiohttp transport. Both hooks see each request;
    the run must still have one turn per response (before issue 49: every call twice, once per hook)."""
    import os

    assert os.environ.get("DISABLE_AIOHTTP_TRANSPORT") is None  # the default transport: aiohttp
    out = run_litellm_acompletion(server, stream=stream)
    check(out, format="openai_chat", streamed=stream, sources={"http", "aiohttp"})


@pytest.fixture(scope="module")
def no_aiohttp() -> Any:
    return in_subprocess("""
        from gateway_scenarios import run_litellm_acompletion
        from provider_server import ProviderServer
        OUT = {}
        for stream in (False, True):
            with ProviderServer() as server:
                OUT[str(stream)] = run_litellm_acompletion(server, stream=stream)
    """, env={"DISABLE_AIOHTTP_TRANSPORT": "True"})


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
def test_acompletion_without_aiohttp_transport(no_aiohttp: Any, stream: bool) -> None:
    check(no_aiohttp[str(stream)], format="openai_chat", streamed=stream, sources={"http"})


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
def test_responses(server: ProviderServer, stream: bool) -> None:
    """litellm.responses(..., stream=True) asks the server to stream (the request body says "stream": true) and the
    captured turns say streamed=True; without stream, "stream": false and streamed=False."""
    out = run_litellm_responses(server, stream=stream)
    assert out["request_stream"] == [stream] * 3
    check(out, format="openai_responses", streamed=stream, sources={"http"})


def test_responses_fake_stream_is_litellm_not_the_capture(server: ProviderServer) -> None:
    """For a model its price map marks supports_native_streaming=false (o1-pro, gpt-5-pro), litellm's
    OpenAIResponsesAPIConfig.should_fake_stream leaves "stream" out of the body and replays the JSON answer as events:
    the wire is not streamed, so the capture is right to say streamed=False."""
    out = run_litellm_responses(server, stream=True, model="openai/o1-pro", served_stream=False)
    assert out["request_stream"] == [None] * 3
    check(out, format="openai_responses", streamed=False, sources={"http"})
