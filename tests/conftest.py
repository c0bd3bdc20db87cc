from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import settings

import agentmetrics
from agentmetrics import registry

# No per-example deadline: on a loaded 2-core CI machine a slow example is not
# a failure (speed is measured in benchmarks/, never asserted in tests).
settings.register_profile("agentmetrics", deadline=None, print_blob=True)
settings.load_profile("agentmetrics")

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
#: Read-only material beside the repository; CI has it, a user's clone does not.
SHARED = REPO.parent / "shared"


def load_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


@pytest.fixture(autouse=True)
def _fresh_registry():
    """Every test starts and ends with a rescanned, registration-free registry."""
    registry.refresh()
    with registry.isolated():
        yield


@pytest.fixture
def examples_path() -> Path:
    return Path(agentmetrics.__file__).parent / "examples" / "tau2_airline.jsonl"


def pytest_configure(config):
    # Plots in tests and docs examples draw off-screen.
    import os

    os.environ.setdefault("MPLBACKEND", "Agg")
