"""The compatibility metrics against the peers themselves: deepeval, ragas,
agentevals, Google ADK and MLflow, run offline in their own environment
(``.venv-peers``, built by ``make test``: their pins conflict with the main
test environment) through ``tests/peers/drive.py``, on generated cases and
the 50 bundled tau2 runs, every option combination, single and batched.

Without ``.venv-peers`` these tests skip, unless AGENTMETRICS_REQUIRE_PEERS
is set (``make test`` sets it), when they fail.
"""

from __future__ import annotations

import json
import math
import os
import random
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agentmetrics import (
    AgentTestCase,
    InvalidCaseError,
    Metric,
    ToolCall,
    ToolCallBatch,
    example_cases,
    per_turn,
)
from agentmetrics_compat import (
    AdkToolTrajectory,
    AgentevalsTrajectory,
    DeepevalToolCorrectness,
    MlflowToolCallCorrectness,
    RagasToolCallAccuracy,
    RagasToolCallF1,
)

REPO = Path(__file__).resolve().parents[3]
PEERS_PYTHON = REPO / ".venv-peers" / "bin" / "python"
DRIVER = REPO / "tests" / "peers" / "drive.py"

# -- cases --------------------------------------------------------------------

ARGUMENTS: list[dict[str, Any]] = [
    {}, {"x": 1}, {"x": 1.0}, {"x": True}, {"x": "1"}, {"x": 2}, {"x": None}, {"x": [1, 2]},
    {"x": 1, "y": 2}, {"y": 2, "x": 1}, {"y": {"u": 1, "v": 2}}, {"y": {"u": 1, "v": 3}}, {"y": {"u": 1}},
    {"x": 1, "y": {"u": 1, "v": 2}}, {"x": 1, "z": {"w": {"k": 1}}}, {"x": 1, "z": {"w": {"k": 2}}},
    {"x": "a b"}, {"x": "A B"},
]
OUTPUTS: list[Any] = [None, None, "ok", 1, 1.0, {"r": 1}]


def _call(rng: random.Random) -> ToolCall:
    return ToolCall(rng.choice("abc"), rng.choice(ARGUMENTS), output=rng.choice(OUTPUTS))


def _perturbed(rng: random.Random, expected: list[ToolCall]) -> list[ToolCall]:
    """Near misses: the expected calls shuffled, dropped, repeated, changed, or with extras."""
    calls = list(expected)
    for _ in range(rng.randint(0, 3)):
        move = rng.choice(["swap", "drop", "repeat", "change", "extra", "rename"])
        if move == "extra" or not calls:
            calls.insert(rng.randint(0, len(calls)), _call(rng))
            continue
        k = rng.randrange(len(calls))
        if move == "swap":
            j = rng.randrange(len(calls))
            calls[k], calls[j] = calls[j], calls[k]
        elif move == "drop":
            del calls[k]
        elif move == "repeat":
            calls.insert(k, calls[k])
        elif move == "change":
            calls[k] = ToolCall(calls[k].name, rng.choice(ARGUMENTS), output=calls[k].output)
        else:
            calls[k] = ToolCall(rng.choice("abc"), calls[k].arguments, output=rng.choice(OUTPUTS))
    return calls


def generated_cases(n: int, seed: int) -> list[AgentTestCase]:
    rng = random.Random(seed)
    cases = []
    for k in range(n):
        expected = [_call(rng) for _ in range(rng.choice([0, 1, 1, 2, 2, 3, 4, 5]))]
        if k % 2:
            called = [_call(rng) for _ in range(rng.choice([0, 1, 2, 3, 4, 5]))]
        else:
            called = _perturbed(rng, expected)
        cases.append(AgentTestCase(tool_calls=called, expected_tool_calls=expected))
    return cases


def sessions(n: int, seed: int) -> list[AgentTestCase]:
    """Multi-invocation sessions for ADK: each turn one invocation."""
    rng = random.Random(seed)
    turns = generated_cases(4 * n, seed + 1)
    return [AgentTestCase(turns=[turns.pop() for _ in range(rng.randint(1, 4))]) for _ in range(n)]


CASES = generated_cases(1200, seed=20261201) + example_cases()
SESSIONS = sessions(150, seed=17)


def _wire(calls: tuple[ToolCall, ...] | None) -> list[dict[str, Any]]:
    out = []
    for call in calls or ():
        item: dict[str, Any] = {"name": call.name, "arguments": call.arguments}
        if call.output is not None:
            item["output"] = call.output
        out.append(item)
    return out


def _wire_case(case: AgentTestCase) -> dict[str, Any]:
    if case.turns is not None:
        return {"turns": [_wire_case(turn) for turn in case.turns]}
    return {"called": _wire(case.tool_calls), "expected": _wire(case.expected_tool_calls)}


# -- runs: the peer's options and ours side by side -----------------------------

Run = tuple[str, dict[str, Any], Callable[[], Metric], list[AgentTestCase]]
PARAMS = [[], ["input_parameters"], ["output"], ["input_parameters", "output"]]
RUNS: list[Run] = []
for params in PARAMS:
    for mode in ({}, {"should_consider_ordering": True}, {"should_exact_match": True}):
        RUNS.append(("deepeval", {"evaluation_params": params, **mode},
                     lambda p=params, m=mode: DeepevalToolCorrectness(evaluation_params=p, **m), CASES))
for mode in ({}, {"should_consider_ordering": True}):
    RUNS.append(("deepeval", {"evaluation_params": ["input_parameters"], "strict_mode": True, **mode},
                 lambda m=mode: DeepevalToolCorrectness(evaluation_params=["input_parameters"],
                                                        strict_mode=True, **m), CASES))
RUNS.append(("ragas_f1", {}, RagasToolCallF1, CASES))
for strict in (True, False):
    RUNS.append(("ragas_accuracy", {"strict_order": strict},
                 lambda s=strict: RagasToolCallAccuracy(strict_order=s), CASES))
for trajectory in ("unordered", "subset", "superset"):
    for args in ("exact", "ignore", "subset", "superset"):
        RUNS.append(("agentevals", {"trajectory_match_mode": trajectory, "tool_args_match_mode": args},
                     lambda t=trajectory, a=args: AgentevalsTrajectory(trajectory_match_mode=t,
                                                                       tool_args_match_mode=a), CASES))
OVERRIDES = {"a": ["y.u", "x"], "b": "ignore", "c": "superset"}
RUNS.append(("agentevals", {"trajectory_match_mode": "superset", "tool_args_match_mode": "exact",
                            "tool_args_match_overrides": OVERRIDES},
             lambda: AgentevalsTrajectory(trajectory_match_mode="superset",
                                          tool_args_match_overrides=OVERRIDES), CASES))
for match in ("EXACT", "IN_ORDER", "ANY_ORDER"):
    for ignore in (False, True):
        RUNS.append(("adk", {"match_type": match, "ignore_args": ignore},
                     lambda m=match, i=ignore: AdkToolTrajectory(match_type=m, ignore_args=i), CASES))
        RUNS.append(("adk", {"match_type": match, "ignore_args": ignore},
                     lambda m=match, i=ignore: per_turn("adk_tool_trajectory", aggregate="mean",
                                                        match_type=m, ignore_args=i),
                     SESSIONS))


for ordering in (False, True):
    RUNS.append(("mlflow", {"should_consider_ordering": ordering},
                 lambda o=ordering: MlflowToolCallCorrectness(should_consider_ordering=o), CASES))

#: Peers that refuse some cases (MLflow: no expected calls): there, ours must refuse too.
REFUSING = {"mlflow"}


def _label(run: Run) -> str:
    peer, options, _, cases = run
    shown = ",".join(f"{k}={v}" for k, v in options.items() if v != [])
    return f"{peer}[{shown}]" + ("-sessions" if cases is SESSIONS else "")


@pytest.fixture(scope="module")
def peer_results() -> list[list[dict[str, Any]]]:
    if not PEERS_PYTHON.exists():
        message = (f"the peers' environment {PEERS_PYTHON.parent.parent} is missing; "
                   f"`make test` builds it (or: make .venv-peers/.installed)")
        if os.environ.get("AGENTMETRICS_REQUIRE_PEERS"):
            pytest.fail(message)
        pytest.skip(message)
    request = {
        "cases": [_wire_case(c) for c in CASES],
        "sessions": [_wire_case(c) for c in SESSIONS],
        "runs": [{"peer": peer, "options": options, "on": "sessions" if cases is SESSIONS else "cases"}
                 for peer, options, _, cases in RUNS],
    }
    done = subprocess.run([str(PEERS_PYTHON), str(DRIVER)], input=json.dumps(request), text=True,
                          capture_output=True, timeout=900, cwd=REPO)
    assert done.returncode == 0, done.stderr[-4000:]
    response = json.loads(done.stdout)
    assert response["network_attempts"] == 0
    assert response["versions"] == {"deepeval": "4.3.1", "ragas": "0.4.3", "agentevals": "0.0.9",
                                    "google-adk": "2.13.0", "mlflow": "3.17.2"}
    results: list[list[dict[str, Any]]] = response["results"]
    assert len(results) == len(RUNS)
    return results


@pytest.mark.parametrize("k", range(len(RUNS)), ids=[_label(r) for r in RUNS])
def test_equal_to_the_peer_single_and_batched(peer_results, k):
    peer, options, make, cases = RUNS[k]
    metric = make()
    theirs = peer_results[k]
    assert len(theirs) == len(cases)
    batched = metric.evaluate_batch(ToolCallBatch.from_cases(cases), errors="record")
    sums_of_fractions = peer == "deepeval" and "input_parameters" in options["evaluation_params"]
    mismatches = []
    refused = 0
    for row, (case, their) in enumerate(zip(cases, theirs, strict=True)):
        if "error" in their and peer in REFUSING:  # the peer refuses the case: so must we
            with pytest.raises(InvalidCaseError):
                metric.evaluate(case)
            assert row in batched.errors
            refused += 1
            continue
        assert "error" not in their, f"{_label(RUNS[k])} row {row}: the peer raised {their['error']}"
        single = metric.evaluate(case)
        assert batched.values[row] == single.value and batched.passed[row] == single.passed
        want = float(their["score"])
        # deepeval sums argument credit over a set, in an order that varies between
        # processes: the last bit may differ.
        same = math.isclose(single.value, want, rel_tol=0, abs_tol=1e-12) if sums_of_fractions \
            else single.value == want
        if peer == "deepeval" and abs(want - metric.threshold) > 1e-9:
            same = same and single.passed == their["success"]
        if peer == "adk":
            same = same and single.passed == (their["status"] == "PASSED")
        if not same:
            mismatches.append(f"row {row}: ours {single.value!r} ({single.reason}), theirs {their}, "
                              f"case {case!r}")
    assert not mismatches, f"{len(mismatches)} of {len(cases)} differ:\n" + "\n".join(mismatches[:5])
    assert len(batched.errors) == refused  # and no other case refused by us alone


def test_the_generated_cases_reach_every_outcome(peer_results):
    """The generator is not too easy: each run sees several distinct scores,
    and both outcomes of every pass/fail metric."""
    for k, run in enumerate(RUNS):
        values = {round(float(r["score"]), 9) for r in peer_results[k] if "error" not in r}
        assert len(values) >= 2, (_label(run), values)
