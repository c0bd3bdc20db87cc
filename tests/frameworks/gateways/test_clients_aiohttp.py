"""The openai and anthropic async clients on aiohttp (``http_client=DefaultAioHttpClient()``: an httpx2 client over
an aiohttp transport), streamed and not, in an agent's loop. Both the httpx and the aiohttp hooks see each request;
the run must still have one turn per response (before issue 49: every call twice)."""

from __future__ import annotations

import pytest
from gateway_scenarios import check, run_anthropic_aiohttp, run_openai_aiohttp
from provider_server import ProviderServer


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
def test_openai_async_on_aiohttp(server: ProviderServer, stream: bool) -> None:
    out = run_openai_aiohttp(server, stream=stream)
    check(out, format="openai_chat", streamed=stream, sources={"http", "aiohttp"})


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
def test_anthropic_async_on_aiohttp(server: ProviderServer, stream: bool) -> None:
    out = run_anthropic_aiohttp(server, stream=stream)
    check(out, format="anthropic", streamed=stream, sources={"http", "aiohttp"})
