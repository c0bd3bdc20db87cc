from __future__ import annotations

import functools
import hashlib
import json
import os
import sys
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

# The framework matrix runs in venvs of its own (`make frameworks`; their pins are
# not this suite's), each folder under tests/frameworks/pytest.ini.
collect_ignore = ["frameworks"]
#: Read-only material beside the repository; CI has it, a user's clone does not.
SHARED = REPO.parent / "shared"


def warns_if_empty(cases):
    """``pytest.warns(EmptyEvaluationWarning)`` when ``cases`` is empty (evaluate()
    of nothing warns), else a context that expects nothing."""
    import contextlib

    if len(cases):
        return contextlib.nullcontext()
    return pytest.warns(agentmetrics.EmptyEvaluationWarning, match="was given 0 cases")


def empty_result(metrics):
    """``evaluate([], metrics)``, checking that it warns as it should."""
    with pytest.warns(agentmetrics.EmptyEvaluationWarning, match="was given 0 cases"):
        return agentmetrics.evaluate([], metrics, progress=False)


def load_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


@pytest.fixture(scope="session")
def _histories(tmp_path_factory):
    """One folder for every test's run history (a folder a test would cost a
    mkdir for each of the suite's 13,000 tests, and their removal after)."""
    return tmp_path_factory.mktemp("histories")


def _stamp(entry: str) -> int:
    try:
        return os.stat(entry or ".").st_mtime_ns
    except OSError:
        return 0


_SCANS: dict[tuple[object, ...], list[registry.EntryPointSpec]] = {}


_real_scan = registry.scan


@functools.wraps(_real_scan)
def _remembered_scan(path=None):
    """The entry-point scan, done again only when ``sys.path`` or one of its
    folders changed (a test that adds a plugin's dist-info adds a folder or a
    file to one, which changes the folder's time). Each test starts with a
    rescan (:func:`_isolated`); repeating the same 7 ms scan of this
    environment for thousands of tests only cost time."""
    if path is not None:
        return _real_scan(path)
    key = (tuple(sys.path), tuple(map(_stamp, sys.path)))
    found = _SCANS.get(key)
    if found is None:
        if len(_SCANS) > 256:
            _SCANS.clear()
        found = _SCANS[key] = _real_scan()
    return list(found)  # the registry adds to the list it is given


registry.scan = _remembered_scan


@pytest.fixture(autouse=True)
def _isolated(_histories, request):
    """Every test starts and ends with a rescanned, registration-free registry,
    and records the runs it saves in a history of its own (a file in the
    session's folder), never in the repository's .agentmetrics/. One autouse
    fixture, the variable set and restored by hand: each of the suite's 13,700
    tests pays for one fixture, where it paid for three (with monkeypatch)."""
    name = hashlib.sha256(request.node.nodeid.encode()).hexdigest()[:24]
    before = os.environ.get("AGENTMETRICS_HISTORY")
    os.environ["AGENTMETRICS_HISTORY"] = str(_histories / f"runs-{name}.sqlite")
    registry.refresh()
    try:
        with registry.isolated():
            yield
    finally:
        if before is None:
            os.environ.pop("AGENTMETRICS_HISTORY", None)
        else:
            os.environ["AGENTMETRICS_HISTORY"] = before


@pytest.fixture
def examples_path() -> Path:
    return Path(agentmetrics.__file__).parent / "examples" / "tau2_airline.jsonl"


#: Under xdist, ``make test`` runs ``-n 2 --dist loadscope`` (pyproject.toml's addopts
#: give the --dist): each module goes whole to one worker, so a module-scoped
#: fixture (the peers' run, the discovery venv, the dask cluster) is built once,
#: and the mypy runs in tests/test_typing.py, which share .mypy_cache, run one at
#: a time. These modules spend most of their time waiting on a subprocess (the
#: peers' driver, pip, mypy, a cluster, an inner pytest); they are handed out
#: first, so the other worker's CPU-bound modules run while they wait rather than
#: after. (xdist_group marks would say this per test, but --dist loadgroup does not
#: group under pytest 9.2: pytest-xdist issue 1386.) Then the modules that take
#: longest, longest first (seconds measured in one ``make test`` on 2 cores): the
#: short ones left at the end let both workers finish within a second or two of
#: each other, where a 20 s module handed out last kept one worker busy alone.
FIRST_UNDER_XDIST = (
    "tests/test_engines.py",
    "plugins/agent-tool-metrics-compat/tests/test_against_peers.py",
    "tests/test_report_browser.py",
    "tests/test_statistics.py",
    "tests/test_ingestion.py",
    "tests/test_batch_differential.py",
    "tests/test_plugin_discovery.py",
    "tests/test_capture_frameworks.py",
    "tests/test_typing.py",
    "tests/test_pytest_plugin.py",
    "tests/test_dask.py",
    # CPU-bound, longest first
    "tests/test_recorded.py",  # 21 s
    "plugins/agent-tool-metrics-compat/tests/test_compat.py",  # 20 s
    "plugins/agent-tool-metrics-judge/tests/test_hostile_server.py",  # 15 s
    "tests/test_capture_providers.py",  # 14 s
    "plugins/agent-tool-metrics-tooluse/tests/test_batch_values.py",  # 13 s
    "tests/test_distributions.py",  # 10 s
    "tests/test_capture.py",
    "plugins/agent-tool-metrics-trajectory/tests/test_trajectory_match.py",
    "tests/test_columnar.py",
    "tests/test_report.py",  # 8 s
    "tests/test_arrow_lines.py",
    "tests/test_expectations.py",
    "tests/test_census.py",
    "tests/test_datasets_fuzz.py",
    "plugins/agent-tool-metrics-compat/tests/test_bfcl_against_bfcl.py",  # 6 s
    "tests/test_docs.py",
    "plugins/agent-tool-metrics-tooluse/tests/test_tooluse.py",
    "plugins/agent-tool-metrics-judge/tests/test_tool_call_appropriateness.py",
    "tests/test_compare.py",
    "tests/test_browser_harness.py",  # 5 s
)


def pytest_collection_modifyitems(config, items):
    if hasattr(config, "workerinput"):  # an xdist worker; a serial run keeps its order
        rank = {path: i for i, path in enumerate(FIRST_UNDER_XDIST)}
        items.sort(key=lambda item: rank.get(item.nodeid.partition("::")[0], len(rank)))


def pytest_configure(config):
    # Plots in tests and docs examples draw off-screen.
    import os

    os.environ.setdefault("MPLBACKEND", "Agg")


@pytest.fixture
def server():
    """A loopback provider server (tests/provider_server.py) for the test, stopped
    after it; the test fails if the server saw an error or a scripted reply went
    unused."""
    from provider_server import ProviderServer

    with ProviderServer() as running:
        yield running
        assert running.errors == []
        assert running.pending == []
