"""The compatibility metrics against the peers themselves: deepeval, ragas,
agentevals, Google ADK and MLflow, run offline in their own environment
(``.venv-peers``, built by ``make test``: their pins conflict with the main
test environment) through ``tests/peers/drive.py``, on generated cases and
the 50 bundled tau2 runs, every option combination, single and batched; and
MLflow on its own inputs (a TOOL span's inputs of any kind, expected calls
without arguments), where the differences left are an exact, documented list.

Without ``.venv-peers`` these tests skip, unless AGENTMETRICS_REQUIRE_PEERS
is set (``make test`` sets it), when they fail.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import random
import re
import subprocess
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from agentmetrics import (
    AgentMetricsWarning,
    AgentTestCase,
    InvalidCaseError,
    Metric,
    ToolCall,
    ToolCallBatch,
    UserFunctionError,
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
    mlflow_expected_calls,
    mlflow_tool_call,
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


# -- the edge cases real data holds (issue 31), as seeded generated categories ------

#: Arguments as they arrive: absent (None), empty, objects, and text that is not
#: an object (kept in raw_arguments), which every peer but MLflow refuses.
EDGE_ARGUMENTS: list[Any] = [
    None, None, {}, {}, {"x": 1}, {"x": 1.0}, {"x": None}, {"q": "x"},
    {"call": {"tool_name": "a"}}, {"call": {"tool_name": "b", "x": 1}}, {"call": {"tool_name": None}},
    {"call": {"tool_name": 5}}, {"call": "a"},
    "[]", "[1]", '"x"', '""', "0", "false", "null text", "{x: oops",
]
NESTED: list[Any] = [
    {"x": [1, [2, 3]]}, {"x": [1, [2, 3.0]]}, {"x": [{"k": 1, "j": 2}]}, {"x": [{"j": 2, "k": 1}]},
    {"y": {"u": [1, 2], "v": {"w": [None]}}}, {"y": {"u": [1, 2], "v": {"w": []}}}, {"x": [[]]}, {"x": []},
]
UNICODE_NAMES = ["a", "b", "caf\u00e9", "cafe\u0301", "\u641c\u7d22", "\U0001f50d", "a b", " a"]
UNICODE_VALUES: list[Any] = [{"q": "caf\u00e9"}, {"q": "cafe\u0301"}, {"q": "\U0001f600"},
                             {"\u00e9": 1}, {"q": "\x00"}, {"q": "a" * 300}]


def _edge_call(rng: random.Random, names: list[str], pool: list[Any]) -> ToolCall:
    arguments = rng.choice(pool)
    name = rng.choice(names)
    if isinstance(arguments, str):
        return ToolCall(name, raw_arguments=arguments, output=rng.choice(OUTPUTS))
    return ToolCall(name, arguments, output=rng.choice(OUTPUTS))


def _near(rng: random.Random, expected: list[ToolCall], fresh: Callable[[], ToolCall]) -> list[ToolCall]:
    calls = list(expected)
    for _ in range(rng.randint(0, 3)):
        move = rng.choice(["swap", "drop", "repeat", "extra", "none", "empty"])
        if move == "extra" or not calls:
            calls.insert(rng.randint(0, len(calls)), fresh())
            continue
        k = rng.randrange(len(calls))
        if move == "swap":
            j = rng.randrange(len(calls))
            calls[k], calls[j] = calls[j], calls[k]
        elif move == "drop":
            del calls[k]
        elif move == "repeat":
            calls.insert(k, calls[k])
        elif calls[k].arguments_valid and not calls[k].arguments:  # absent <-> empty
            calls[k] = ToolCall(calls[k].name, {} if move == "empty" else None, output=calls[k].output)
    return calls


def edge_cases(seed: int) -> dict[str, list[AgentTestCase]]:
    """Seeded categories: absent, empty and non-object arguments; repeated
    identical calls; nested lists; unicode; 50-call sequences."""
    rng = random.Random(seed)
    out: dict[str, list[AgentTestCase]] = {}

    def category(n: int, names: list[str], pool: list[Any], lengths: list[int]) -> list[AgentTestCase]:
        cases = []
        for k in range(n):
            def fresh() -> ToolCall:
                return _edge_call(rng, names, pool)
            expected = [fresh() for _ in range(rng.choice(lengths))]
            called = _near(rng, expected, fresh) if k % 2 == 0 else [fresh() for _ in range(rng.choice(lengths))]
            cases.append(AgentTestCase(tool_calls=called, expected_tool_calls=expected))
        return cases

    out["arguments"] = category(240, ["a", "b"], EDGE_ARGUMENTS, [0, 1, 1, 2, 2, 3])
    repeated = []
    for _ in range(60):
        call = _edge_call(rng, ["a", "b"], [None, {}, {"x": 1}])
        other = _edge_call(rng, ["a", "b"], [None, {}, {"x": 1}])
        repeated.append(AgentTestCase(tool_calls=[call] * rng.randint(1, 4) + [other] * rng.randint(0, 2),
                                      expected_tool_calls=[call] * rng.randint(1, 4)))
    out["repeats"] = repeated
    out["nested"] = category(60, ["a", "b"], NESTED, [1, 1, 2, 3])
    out["unicode"] = category(60, UNICODE_NAMES, UNICODE_VALUES + [{}, None], [1, 2, 3])
    long = []
    for k in range(20):
        expected = [_edge_call(rng, ["a", "b", "c"], [{}, {"x": 1}, {"x": 2}]) for _ in range(50)]
        called = list(expected)
        if k % 4 == 1:
            called = called[1:] + called[:1]
        elif k % 4 == 2:
            called[rng.randrange(50)] = _edge_call(rng, ["a", "b", "c"], [{"x": 3}])
        elif k % 4 == 3:
            called = [expected[0]] * 50
        long.append(AgentTestCase(tool_calls=called, expected_tool_calls=expected))
    out["fifty"] = long
    return out


CASES = generated_cases(1200, seed=20261201) + example_cases()
SESSIONS = sessions(150, seed=17)
EDGE = edge_cases(seed=31)
EDGE_CASES = [c for cases in EDGE.values() for c in cases]


def _wire(calls: tuple[ToolCall, ...] | None) -> list[dict[str, Any]]:
    """Calls as the driver takes them: no "arguments" when none were given,
    the text itself when it was not an object."""
    out = []
    for call in calls or ():
        item: dict[str, Any] = {"name": call.name}
        if not call.arguments_valid:
            item["arguments"] = call.raw_arguments
        elif call.arguments_given:
            item["arguments"] = call.arguments
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


#: MLflow writes a trace to its store for every list of calls made (about 50 ms
#: each): it scores 500 of the generated cases and the 50 tau2 runs.
MLFLOW_CASES = CASES[:500] + CASES[-50:]
for ordering in (False, True):
    RUNS.append(("mlflow", {"should_consider_ordering": ordering},
                 lambda o=ordering: MlflowToolCallCorrectness(should_consider_ordering=o), MLFLOW_CASES))

# Every option set again on the edge cases (issue 31).
RUNS += [(peer, options, make, EDGE_CASES) for peer, options, make, cases in list(RUNS)
         if cases is CASES or cases is MLFLOW_CASES]


def _expected_as_asked(cases: list[AgentTestCase], compare: bool) -> list[AgentTestCase]:
    """What MLflow, which has no compare_arguments, is given for ours: with True,
    every expected call given its arguments ({} where none were); with False,
    none given (arguments that are not an object stay: MLflow refuses them
    whatever it compares)."""
    def asked(call: ToolCall) -> ToolCall:
        if not call.arguments_valid or call.arguments_given != (not compare):
            return call
        return ToolCall(call.name, {} if compare else None, output=call.output)
    return [AgentTestCase(tool_calls=c.tool_calls, expected_tool_calls=[asked(e) for e in c.expected_tool_calls or ()])
            for c in cases]


#: The cases the peer is sent, where they are not the cases we score (by run index):
#: compare_arguments=True/False against MLflow given what that option asks for.
SENT: dict[int, list[AgentTestCase]] = {}
#: The lists of cases MLflow is sent for compare_arguments True and False, by list name.
ASKED: dict[str, list[AgentTestCase]] = {}
for scored in (MLFLOW_CASES, EDGE_CASES):
    for compare in (True, False):
        sent = _expected_as_asked(scored, compare)
        ASKED[f"{'mlflow' if scored is MLFLOW_CASES else 'edge'}-compare-{str(compare).lower()}"] = sent
        for ordering in (False, True):
            SENT[len(RUNS)] = sent
            RUNS.append(("mlflow", {"should_consider_ordering": ordering},
                         lambda o=ordering, c=compare: MlflowToolCallCorrectness(should_consider_ordering=o,
                                                                                  compare_arguments=c),
                         scored))


# agentevals' overrides of every kind, as agentevals reads them; the functions are
# the driver's own (tests/peers/drive.py FUNCTIONS), named in the request.
def _truthy_x(first: dict[str, Any], second: dict[str, Any]) -> Any:
    return first.get("x", 0) and "yes"


def _falsy_list(first: dict[str, Any], second: dict[str, Any]) -> Any:
    return [] if first == second else [1]


def _fails_on_y(first: dict[str, Any], second: dict[str, Any]) -> Any:
    if "y" in first:
        raise KeyError("no y here")
    return True


FIRST = CASES[:300]
FUNCTIONS = {"truthy_x": _truthy_x, "falsy_list": _falsy_list, "fails_on_y": _fails_on_y}
OVERRIDE_KINDS: list[dict[str, Any]] = [
    {"a": []}, {"a": ""}, {"a": None}, {"a": 0}, {"a": "bogus"}, {"a": "EXACT"}, {"a": [""]},
    {"a": ["x", 1]}, {"a": {"x": 1}}, {"a": {"function": "truthy_x"}}, {"b": {"function": "falsy_list"}},
    {"a": {"function": "fails_on_y"}}, {"a": ["y.u"], "b": "superset", "c": []},
]


def _ours(overrides: dict[str, Any]) -> dict[str, Any]:
    return {tool: FUNCTIONS[rule["function"]] if isinstance(rule, dict) and set(rule) == {"function"}
            else rule for tool, rule in overrides.items()}


for overrides in OVERRIDE_KINDS:
    for trajectory in ("unordered", "subset", "superset"):
        for args in ("exact", "ignore"):
            RUNS.append(("agentevals", {"trajectory_match_mode": trajectory, "tool_args_match_mode": args,
                                        "tool_args_match_overrides": overrides},
                         lambda t=trajectory, a=args, o=overrides: AgentevalsTrajectory(
                             trajectory_match_mode=t, tool_args_match_mode=a,
                             tool_args_match_overrides=_ours(o)), FIRST))


#: The request's lists of cases, by name.
LISTS = {"cases": CASES, "first": FIRST, "mlflow": MLFLOW_CASES, "sessions": SESSIONS,
         "edge": EDGE_CASES, **ASKED}


def _label(k: int) -> str:
    peer, options, _, cases = RUNS[k]
    shown = ",".join(f"{key}={value}" for key, value in options.items() if value != [])
    label = f"{peer}[{shown}]" + {id(SESSIONS): "-sessions", id(EDGE_CASES): "-edge"}.get(id(cases), "")
    return label + (f"-sent-{_on(SENT[k])}" if k in SENT else "")


def _on(cases: list[AgentTestCase]) -> str:
    """The name of the request's list a run scores."""
    return next(name for name, listed in LISTS.items() if listed is cases)


def _peers_answer(request: str) -> dict[str, Any]:
    """The driver's answer to ``request``. The peers are pinned and the request is
    fixed, so the answer is a function of the request, the driver's source and
    the peers' requirements: it is kept in ``.venv-peers/answers/`` under the
    digest of the three, and a run with the same three reads it instead of
    running the peers again (a warm ``make test`` saves their 100 s). A fresh
    peers' environment (a clean clone, CI, changed requirements) has none, so
    the peers run. ``AGENTMETRICS_PEERS_FRESH=1`` runs them regardless."""
    digest = hashlib.sha256()
    for part in (request.encode(), DRIVER.read_bytes(), (REPO / "tests/peers/requirements.txt").read_bytes()):
        digest.update(hashlib.sha256(part).digest())
    kept = PEERS_PYTHON.parent.parent / "answers" / f"{digest.hexdigest()}.json"
    if kept.is_file() and not os.environ.get("AGENTMETRICS_PEERS_FRESH"):
        return json.loads(kept.read_text(encoding="utf-8"))  # type: ignore[no-any-return]
    done = subprocess.run([str(PEERS_PYTHON), str(DRIVER)], input=request, text=True,
                          capture_output=True, timeout=900, cwd=REPO)
    assert done.returncode == 0, done.stderr[-4000:]
    response: dict[str, Any] = json.loads(done.stdout)
    kept.parent.mkdir(exist_ok=True)
    partial = kept.with_suffix(f".{os.getpid()}.tmp")
    partial.write_text(done.stdout, encoding="utf-8")
    partial.replace(kept)  # whole or not at all
    return response


@pytest.fixture(scope="module")
def peer_results() -> list[list[dict[str, Any]]]:
    if not PEERS_PYTHON.exists():
        message = (f"the peers' environment {PEERS_PYTHON.parent.parent} is missing; "
                   f"`make test` builds it (or: make .venv-peers/.installed)")
        if os.environ.get("AGENTMETRICS_REQUIRE_PEERS"):
            pytest.fail(message)
        pytest.skip(message)
    request: dict[str, Any] = {name: [_wire_case(c) for c in cases] for name, cases in LISTS.items()}
    request.update(SHAPE_LISTS)  # already as the driver takes them
    request["runs"] = [{"peer": peer, "options": options, "on": _on(SENT.get(k, cases))}
                       for k, (peer, options, _, cases) in enumerate(RUNS)]
    request["runs"] += [{"peer": "mlflow", "options": {"should_consider_ordering": ordering},
                         "on": _shapes_as_asked(compare)} for ordering, compare in SHAPE_RUNS]
    response = _peers_answer(json.dumps(request))  # key order kept: ragas compares str(value)
    assert response["network_attempts"] == 0
    assert response["versions"] == {"deepeval": "4.3.1", "ragas": "0.4.3", "agentevals": "0.0.9",
                                    "google-adk": "2.13.0", "mlflow": "3.17.2"}
    results: list[list[dict[str, Any]]] = response["results"]
    assert len(results) == len(RUNS) + len(SHAPE_RUNS)
    return results


@pytest.mark.parametrize("k", range(len(RUNS)), ids=[_label(k) for k in range(len(RUNS))])
def test_equal_to_the_peer_single_and_batched(peer_results, k):
    peer, options, make, cases = RUNS[k]
    with warnings.catch_warnings():  # an unknown override mode warns that it ignores arguments
        warnings.simplefilter("ignore", AgentMetricsWarning)
        metric = make()
    theirs = peer_results[k]
    assert len(theirs) == len(cases)
    batched = metric.evaluate_batch(ToolCallBatch.from_cases(cases), errors="record")
    sums_of_fractions = peer == "deepeval" and "input_parameters" in options["evaluation_params"]
    mismatches = []
    refused = 0
    for row, (case, their) in enumerate(zip(cases, theirs, strict=True)):
        if "error" in their:  # the peer refuses the case: so must we, single and batched
            try:
                single = metric.evaluate(case)
            except (InvalidCaseError, UserFunctionError):
                assert row in batched.errors
                refused += 1
                continue
            mismatches.append(f"row {row}: the peer refuses ({their['error'][:120]}), we score "
                              f"{single.value!r} ({single.reason}); case {case!r}")
            continue
        try:
            single = metric.evaluate(case)
        except (InvalidCaseError, UserFunctionError) as error:
            mismatches.append(f"row {row}: the peer scores {their}, we refuse: {error}; case {case!r}")
            continue
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
    for k in range(len(RUNS)):
        values = {round(float(r["score"]), 9) for r in peer_results[k] if "error" not in r}
        assert len(values) >= 2, (_label(k), values)


# -- MLflow given its own inputs (issue 48) ----------------------------------------------
#
# MLflow scores inputs a ToolCall cannot hold: a TOOL span's inputs may be text,
# a list or a number, and an expected call may leave its arguments out (MLflow:
# "check the name only"). These cases are MLflow's inputs as they are, in the
# driver's form; ours are built from them with mlflow_tool_call and
# mlflow_expected_calls, or straight (AgentTestCase given the same mappings).

MISSING = object()  # no "arguments" (or no "name") in the call's mapping
SHAPE_INPUTS: list[Any] = [  # a TOOL span's inputs
    MISSING, None, None, {}, {}, {"x": 1}, {"x": 1.0}, {"x": "1"}, {"x": None}, {"x": 1, "y": 2}, {"y": 2, "x": 1},
    {"y": {"u": [1, {"k": 2}]}}, {"y": {"u": [1, {"k": 2.0}]}}, {"x": []}, {"x": {}},
    {"call": {"tool_name": "a"}}, {"call": {"tool_name": "b", "x": 1}}, {"call": {"tool_name": None}},
    [], [1], [{"x": 1}], [[]], "", "x", "[]", "[1]", '""', '{"x": 1}', "null", "0",
    0, 0.0, False, 1, True,
]
SHAPE_EXPECTED: list[Any] = [  # an expected call's arguments
    MISSING, MISSING, MISSING, None, None, None, {}, {}, {}, {"x": 1}, {"x": 1}, {"x": 1.0}, {"x": "1"},
    {"x": None}, {"x": 1, "y": 2}, {"y": 2, "x": 1}, {"y": {"u": [1, {"k": 2}]}}, {"y": {"u": [1, {"k": 2.0}]}},
    {"x": []}, {"call": {"tool_name": "a"}}, [], "", [1], 0,
]


def _mapping(name: Any, arguments: Any) -> dict[str, Any]:
    """A call's mapping, without the keys given as MISSING."""
    return {key: value for key, value in (("name", name), ("arguments", arguments)) if value is not MISSING}


def _shape_call(rng: random.Random, names: list[Any], pool: list[Any]) -> dict[str, Any]:
    name = rng.choice(names)
    return _mapping(name, rng.choice(pool))


def mlflow_shapes(n: int, seed: int) -> list[dict[str, Any]]:
    """Cases as MLflow takes them: the calls made (a TOOL span's name and
    inputs) and expected (name and arguments, either left out now and then);
    half near misses of the expected calls, half drawn apart."""
    rng = random.Random(seed)
    called_names = ["a"] * 12 + ["b"] * 12 + [""]
    expected_names = [*called_names, MISSING]
    cases = []
    for k in range(n):
        expected = [_shape_call(rng, expected_names, SHAPE_EXPECTED) for _ in range(rng.choice([0, 1, 1, 1, 2, 2, 3]))]
        if k % 2:
            called = [_shape_call(rng, called_names, SHAPE_INPUTS) for _ in range(rng.choice([0, 1, 2, 3]))]
        else:
            called = []
            for want in expected:
                name = want.get("name", "a")
                if isinstance(want.get("arguments"), dict) and rng.random() < 0.6:
                    called.append({"name": name, "arguments": want["arguments"]})
                else:
                    called.append(_shape_call(rng, [name], SHAPE_INPUTS))
            if rng.random() < 0.3:
                rng.shuffle(called)
            if rng.random() < 0.2:
                called.insert(rng.randint(0, len(called)), _shape_call(rng, called_names, SHAPE_INPUTS))
        cases.append({"called": called, "expected": expected})
    return cases


def _as_asked(case: dict[str, Any], compare: bool | str) -> dict[str, Any]:
    """What MLflow is given for our compare_arguments (see _expected_as_asked)."""
    if compare == "auto":
        return case
    expected = []
    for call in case["expected"]:
        call = dict(call)
        if compare and call.get("arguments") is None:
            call["arguments"] = {}
        elif not compare and isinstance(call.get("arguments"), dict):
            del call["arguments"]
        expected.append(call)
    return {"called": case["called"], "expected": expected}


COMPARES: tuple[bool | str, ...] = ("auto", True, False)
SHAPES = mlflow_shapes(400, seed=48)
SHAPE_RUNS = [(ordering, compare) for ordering in (False, True) for compare in COMPARES]


def _shapes_as_asked(compare: bool | str) -> str:
    return f"mlflow-shapes-{str(compare).lower()}"


SHAPE_LISTS = {_shapes_as_asked(compare): [_as_asked(case, compare) for case in SHAPES] for compare in COMPARES}


def _mlflow_says(case: dict[str, Any], ordering: bool) -> float | str:
    """MLflow's ToolCallCorrectness, exact mode, on a case as MLflow takes it:
    1.0, 0.0, or "E" where it raises. Written from mlflow 3.17.2's source
    (extract_tools_called_from_trace, parse_tool_call_expectations,
    ToolCallCorrectness.__call__, get_tool_call_signature) and its trace
    store, independently of the metric."""
    def read_back(inputs: Any) -> Any:
        # the store keeps text that is the JSON of an object, a list or a text as it is
        # (and so gives back the decoded value); any other text as a JSON string
        if not isinstance(inputs, str):
            return inputs
        try:
            decoded = json.loads(inputs)
        except ValueError:
            return inputs
        return decoded if isinstance(decoded, (dict, list, str)) else inputs

    made = []
    for call in case["called"]:  # the trace's TOOL spans, as FunctionCall(name, inputs or None)
        inputs = read_back(call.get("arguments"))
        name = call["name"]
        if isinstance(inputs, dict) and isinstance(inputs.get("call"), dict) and "tool_name" in inputs["call"]:
            name = inputs["call"]["tool_name"]
        inputs = inputs or None
        if not (name is None or isinstance(name, str)) or not (inputs is None or isinstance(inputs, (str, dict))):
            return "E"  # FunctionCall's fields: name str | None, arguments str | dict | None
        made.append((name, inputs))
    expected = []
    for call in case["expected"]:
        arguments = call.get("arguments")
        if arguments is not None and not isinstance(arguments, dict):
            return "E"  # "Arguments must be a dict"
        expected.append((call.get("name"), arguments))
    if not expected:
        return "E"  # no expectations: exact mode raises
    include = all(arguments is not None for _, arguments in expected)
    if len(made) != len(expected):
        return 0.0

    def signature(name: Any, arguments: Any) -> Any:
        if not include:
            return name
        if isinstance(arguments, str):
            raise TypeError("Arguments must be a dict")
        return f"{name}({json.dumps(arguments or {}, sort_keys=True)})"

    try:
        got = [signature(*call) for call in made]
        want = [signature(*call) for call in expected]
    except TypeError:
        return "E"
    return float(got == want if ordering else set(got) == set(want))


def _from_mlflow(case: dict[str, Any]) -> AgentTestCase:
    return AgentTestCase(
        tool_calls=[mlflow_tool_call(call["name"], call.get("arguments")) for call in case["called"]],
        expected_tool_calls=mlflow_expected_calls(case["expected"]))


def _straight(case: dict[str, Any]) -> AgentTestCase:
    return AgentTestCase(tool_calls=case["called"], expected_tool_calls=case["expected"])


def _blank_name(case: dict[str, Any]) -> bool:
    return any(not call.get("name") for call in case["called"] + case["expected"])


def _number_inputs(case: dict[str, Any]) -> bool:
    return any(type(call.get("arguments")) in (int, float, bool) for call in case["called"])


def _not_an_object(case: dict[str, Any]) -> bool:
    return any(call.get("arguments") is not None and not isinstance(call["arguments"], dict)
               for call in case["called"] + case["expected"])


def _left_out(case: dict[str, Any]) -> bool:
    return any("arguments" not in call for call in case["expected"])


#: Where the metric, given MLflow's own inputs, refuses a case MLflow scores:
#: (when it applies, the refusal's message). Each is listed with its reason in
#: docs/coming-from.md ("From MLflow") and on the metric's page. Exact: a
#: difference outside the list fails, and so does an entry no case shows.
FROM_ITS_INPUTS: dict[str, tuple[Callable[[dict[str, Any]], bool], str]] = {
    "a blank or missing tool name": (_blank_name, r"ToolCall\.name: expected a non-empty str"),
    "a number or a boolean as a span's inputs": (
        _number_inputs, r"^mlflow_tool_call: the inputs of the call of .* are (int|float|bool) "),
}
#: The same, for cases built straight from MLflow's mappings (AgentTestCase).
STRAIGHT_REFUSED: dict[str, tuple[Callable[[dict[str, Any]], bool], str]] = {
    "a blank or missing tool name": (_blank_name, r"ToolCall\.name: expected a non-empty str|no 'name' key"),
    "arguments that are not an object": (_not_an_object, r"ToolCall\.arguments: expected a mapping"),
}
#: ... and scored otherwise: an expected call without "arguments" is given and
#: empty for AgentTestCase (so arguments are compared), "name only" for MLflow.
LEFT_OUT = "an expected call without 'arguments', read as given and empty"


def _score(metric: Metric, case: AgentTestCase) -> float | str:
    try:
        return metric.evaluate(case).value
    except InvalidCaseError:
        return "E"


def _documented(listed: dict[str, tuple[Callable[[dict[str, Any]], bool], str]], case: dict[str, Any],
                error: InvalidCaseError) -> str | None:
    return next((name for name, (applies, message) in listed.items()
                 if applies(case) and re.search(message, str(error))), None)


def _shape_differences(results: list[list[dict[str, Any]]], j: int, straight: bool
                       ) -> tuple[list[str], set[str]]:
    """The undocumented differences from MLflow of option set ``j`` on SHAPES
    (ours from MLflow's inputs, or built straight), and the documented ones seen."""
    ordering, compare = SHAPE_RUNS[j]
    theirs = results[len(RUNS) + j]
    both_given = results[len(RUNS) + SHAPE_RUNS.index((ordering, True))]
    sent = SHAPE_LISTS[_shapes_as_asked(compare)]
    metric = MlflowToolCallCorrectness(should_consider_ordering=ordering, compare_arguments=compare)
    listed = STRAIGHT_REFUSED if straight else FROM_ITS_INPUTS
    undocumented, seen, built = [], set(), []
    for row, (case, their) in enumerate(zip(SHAPES, theirs, strict=True)):
        want = "E" if "error" in their else float(their["score"])
        assert _mlflow_says(sent[row], ordering) == want, (row, sent[row], their)  # the reference is MLflow
        try:
            ours = _straight(case) if straight else _from_mlflow(case)
        except InvalidCaseError as error:
            reason = _documented(listed, case, error)
            if want != "E" and reason is None:
                undocumented.append(f"row {row}: MLflow {their}, we refuse: {error}; case {case}")
            elif want != "E":
                seen.add(reason)  # type: ignore[arg-type]
            continue
        built.append(ours)
        got = _score(metric, ours)
        if got == want:
            continue
        if straight and compare == "auto" and _left_out(case) and "error" not in both_given[row] \
                and got == float(both_given[row]["score"]):
            seen.add(LEFT_OUT)
            continue
        undocumented.append(f"row {row}: MLflow {their}, ours {got!r}; case {case}")
    single = [_score(metric, ours) for ours in built]
    batched = metric.evaluate_batch(ToolCallBatch.from_cases(built), errors="record")
    assert [("E" if row in batched.errors else value) for row, value in enumerate(batched.values.tolist())] == single
    return undocumented, seen


@pytest.mark.parametrize("straight", [False, True], ids=["from-its-inputs", "built-straight"])
@pytest.mark.parametrize("j", range(len(SHAPE_RUNS)),
                         ids=[f"ordering={o},compare_arguments={c}" for o, c in SHAPE_RUNS])
def test_mlflow_given_its_own_inputs(peer_results, j, straight):
    """MLflow's answer on its own inputs, or a refusal listed in FROM_ITS_INPUTS
    (built straight: STRAIGHT_REFUSED, LEFT_OUT); single and batched alike."""
    undocumented, _ = _shape_differences(peer_results, j, straight)
    assert not undocumented, f"{len(undocumented)} of {len(SHAPES)} differ:\n" + "\n".join(undocumented[:5])


def test_every_listed_mlflow_difference_is_seen(peer_results):
    """The lists are exact: each listed difference occurs on these cases."""
    for straight, listed in ((False, set(FROM_ITS_INPUTS)), (True, {*STRAIGHT_REFUSED, LEFT_OUT})):
        seen: set[str] = set()
        for j in range(len(SHAPE_RUNS)):
            seen |= _shape_differences(peer_results, j, straight)[1]
        assert seen == listed, (straight, seen)


_LEAF = st.one_of(st.none(), st.booleans(), st.integers(-2, 2), st.sampled_from([1.0, 0.5, -0.0, 1e16]),
                  st.sampled_from(["", "a", "A", "1", "caf\u00e9"]))
_VALUE = st.recursive(_LEAF, lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(st.sampled_from(["x", "y", "u"]), inner, max_size=3), max_leaves=8)
_OBJECT = st.dictionaries(st.sampled_from(["x", "y", "call"]), _VALUE, max_size=3) | st.sampled_from(
    [{"call": {"tool_name": "a"}}, {"call": {"tool_name": "b", "x": 1}}, {"call": {"tool_name": None}},
     {"call": {"tool_name": 5}}])
_TEXTS = ["", " ", "x", "[]", "[1]", '""', '"x"', "0", "null", "false", '{"x": 1}',
          '{"call": {"tool_name": "b"}}', "{x: oops"]
_INPUTS = st.one_of(st.sampled_from([MISSING, None, {}, "", [], '""', "[]", "x"]), st.sampled_from(SHAPE_INPUTS),
                    _OBJECT, st.lists(_VALUE, max_size=2), st.sampled_from(_TEXTS),
                    st.sampled_from([0, 0.0, False, 1, 2.5, True]))
_EXPECTED_ARGUMENTS = st.one_of(st.sampled_from(SHAPE_EXPECTED), _OBJECT)


_CALLED = st.builds(_mapping, st.sampled_from(["a", "b", ""]), _INPUTS)
_EXPECTED = st.builds(_mapping, st.sampled_from(["a", "b", "", MISSING]), _EXPECTED_ARGUMENTS)


@st.composite
def _mlflow_cases(draw: st.DrawFn) -> dict[str, Any]:
    expected = draw(st.lists(_EXPECTED, max_size=3))
    if draw(st.booleans()):  # near misses: each expected call made, with its arguments or others
        called = [_mapping(call.get("name") or "a", draw(st.just(call.get("arguments", MISSING)) | _INPUTS))
                  for call in expected]
        called = draw(st.permutations(called))
    else:
        called = draw(st.lists(_CALLED, max_size=3))
    return {"called": called, "expected": expected}


def _made_as(inputs: Any, against: Any = None, compare: bool | str = True) -> dict[str, Any]:
    """Keyword arguments of the property below: one call made with ``inputs``
    against one expected with ``against``."""
    return {"case": {"called": [_mapping("a", inputs)], "expected": [_mapping("a", against)]},
            "ordering": False, "compare": compare}


@settings(max_examples=600, deadline=None)
@given(case=_mlflow_cases(), ordering=st.booleans(), compare=st.sampled_from(COMPARES))
@example(**_made_as("")).via("issue 48: '' is no arguments for MLflow")
@example(**_made_as([])).via("issue 48: [] likewise")
@example(**_made_as('""')).via("the JSON text of '' reads back as ''")
@example(**_made_as("x", compare="auto")).via("text: by name, MLflow's rule")
@example(**_made_as("x", {})).via("text: refused where arguments are compared")
@example(**_made_as([1], compare="auto")).via("a non-empty list: refused always")
@example(**_made_as({"x": 1}, MISSING, compare="auto")).via("an expected call without arguments: by name")
def test_mlflow_inputs_scored_as_mlflow_scores_them(case, ordering, compare):
    """Against the reference (checked against MLflow itself above): MLflow's
    answer, or a refusal listed in FROM_ITS_INPUTS."""
    want = _mlflow_says(_as_asked(case, compare), ordering)
    try:
        ours = _from_mlflow(case)
    except InvalidCaseError as error:
        assert want == "E" or _documented(FROM_ITS_INPUTS, case, error), (want, error)
        return
    metric = MlflowToolCallCorrectness(should_consider_ordering=ordering, compare_arguments=compare)
    assert _score(metric, ours) == want
