"""tests/frameworks/gateways: agentmetrics.capture() under LLM gateways and agent frameworks (litellm, google-adk,
the openai and anthropic clients on aiohttp, anthropic's own OpenTelemetry spans), offline against the loopback
ProviderServer. Run as the README says; the folder's pytest.ini makes it its own root, so tests/conftest.py (and
its test dependencies) stay out."""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
TESTS = HERE.parents[1]
for folder in (TESTS, HERE):  # provider_server, provider_replies; gateway_scenarios
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

# litellm fetches its model price map from GitHub at import unless told to use the copy it ships (offline here).
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

REQUIRED = ("litellm", "google.adk", "google.genai", "openai", "anthropic", "aiohttp", "opentelemetry.sdk")
_missing = [name for name in REQUIRED if importlib.util.find_spec(name.split(".")[0]) is None
            or importlib.util.find_spec(name) is None]
if _missing:  # collected from the main suite in an environment without these libraries: nothing to run
    collect_ignore_glob = ["test_*.py"]


@pytest.fixture
def server() -> Iterator[object]:
    """A loopback provider server for the test; the test fails if it saw an error or a scripted reply went unused."""
    from provider_server import ProviderServer

    with ProviderServer() as running:
        yield running
        assert running.errors == []
        assert running.pending == []
