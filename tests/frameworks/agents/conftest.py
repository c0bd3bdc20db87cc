"""Fixtures for the agent-framework matrix: tests/ on sys.path (for provider_server and provider_replies),
the loopback server, and the third-party warnings these frameworks raise (see README.md here)."""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

# haystack sends usage telemetry by default: nothing leaves this machine from a test.
os.environ.setdefault("HAYSTACK_TELEMETRY_ENABLED", "False")

for _path in (Path(__file__).resolve().parents[2], Path(__file__).resolve().parent):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from provider_server import ProviderServer  # noqa: E402


@pytest.fixture
def server() -> Iterator[ProviderServer]:
    with ProviderServer() as running:
        yield running


#: Warnings the frameworks raise from their own modules; ours still fail the run.
FRAMEWORK_WARNINGS = (
    "ignore::DeprecationWarning:pydantic_ai.*",
    "ignore::DeprecationWarning:smolagents.*",
    "ignore::DeprecationWarning:llama_index.*",
    "ignore::DeprecationWarning:workflows.*",
    "ignore::DeprecationWarning:haystack.*",
    "ignore::DeprecationWarning:autogen_agentchat.*",
    "ignore::DeprecationWarning:autogen_core.*",
    "ignore::DeprecationWarning:autogen_ext.*",
    "ignore::UserWarning:autogen_ext.*",
    "ignore::UserWarning:autogen_agentchat.*",
)
if importlib.util.find_spec("pydantic") is not None:
    # The frameworks' own use of deprecated pydantic APIs (a module filter cannot name the framework: the
    # warning is attributed elsewhere); agentmetrics does not use pydantic.
    FRAMEWORK_WARNINGS += ("ignore::pydantic.warnings.PydanticDeprecationWarning",)
HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # Only this folder's tests relax them (the main suite, collecting this folder too, keeps its own).
    for item in items:
        if HERE in Path(str(item.path)).resolve().parents:
            for line in FRAMEWORK_WARNINGS:
                item.add_marker(pytest.mark.filterwarnings(line))
