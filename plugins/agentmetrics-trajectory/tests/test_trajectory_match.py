"""TrajectoryMatch: modes, argument rules, optimal matching, batch, conformance."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentmetrics import AgentTestCase, InvalidCaseError, InvalidParameterError, ToolCall, ToolCallBatch, evaluate
from agentmetrics.testing import check_metric
from agentmetrics_trajectory import TrajectoryMatch
from agentmetrics_trajectory._match import ARGS_MODES, MODES, maximum_matching

MODE_ARGS = [(mode, args) for mode in MODES for args in ARGS_MODES]


def case(called, expected):
    return AgentTestCase(tool_calls=called, expected_tool_calls=expected)


def call(name, **arguments):
    return ToolCall(name, arguments)


# --- an independent reference: brute force over assignments -----------------------

def args_ok(rule, actual, expected):
    if rule == "ignore":
        return True
    if rule == "exact":
        return actual == expected
    if rule == "subset":
        return all(k in expected and expected[k] == v for k, v in actual.items())
    return all(k in actual and actual[k] == v for k, v in expected.items())  # superset


def reference(mode, rule, called, expected):
    fits = lambda a, e: a.name == e.name and args_ok(rule, a.arguments, e.arguments)  # noqa: E731
    if mode == "strict":
        return float(len(called) == len(expected) and all(map(fits, called, expected)))
    # Try every injective assignment of the smaller side into the larger one.
    def covers(left, right, fit):
        return any(all(fit(l, right[j]) for l, j in zip(left, choice))
                   for choice in itertools.permutations(range(len(right)), len(left)))
    if mode == "unordered":
        return float(len(called) == len(expected) and covers(called, expected, fits))
    if mode == "subset":
        return float(len(called) <= len(expected) and covers(called, expected, fits))
    return float(len(expected) <= len(called) and covers(expected, called, lambda e, a: fits(a, e)))


def call_with_id(name, value):
    return ToolCall(name, {} if value is None else {"id": value})


tool_calls = st.lists(
    st.builds(call_with_id, st.sampled_from(["A", "B"]), st.sampled_from([None, 1, 2])),
    max_size=4,
)


@settings(max_examples=400, deadline=None)
@given(called=tool_calls, expected=tool_calls, mode_args=st.sampled_from(MODE_ARGS))
def test_matches_brute_force_reference(called, expected, mode_args):
    mode, args = mode_args
    value = TrajectoryMatch(mode=mode, args=args).evaluate(case(called, expected)).value
    assert value == reference(mode, args, called, expected)


@settings(max_examples=200, deadline=None)
@given(called=tool_calls, expected=tool_calls, data=st.data(),
       mode=st.sampled_from(["unordered", "subset", "superset"]), args=st.sampled_from(ARGS_MODES))
def test_result_never_depends_on_list_order(called, expected, data, mode, args):
    metric = TrajectoryMatch(mode=mode, args=args)
    base = metric.evaluate(case(called, expected)).value
    assert metric.evaluate(case(data.draw(st.permutations(called)),
                                data.draw(st.permutations(expected)))).value == base


def test_greedy_matching_would_fail_here():
    # The first call fits both expected calls; greedy pairing takes the first
    # and leaves the second call without a partner. Optimal matching pairs all.
    called = [call("Search", q="x", page=1), call("Search", q="x")]
    expected = [call("Search", q="x"), call("Search", q="x", page=1)]
    assert TrajectoryMatch(mode="unordered", args="superset").evaluate(case(called, expected)).value == 1.0
    assert maximum_matching([[0, 1], [0]], 2) == [1, 0]


# --- reasons name the first mismatch ------------------------------------------------

@pytest.mark.parametrize(
    ("metric", "called", "expected", "reason"),
    [
        (TrajectoryMatch(), ["A", "B"], ["A", "B"], "All 2 calls match (mode=strict, args=exact)"),
        (TrajectoryMatch(), [], [], "No tool calls expected and none made"),
        (TrajectoryMatch(), ["A", "C"], ["A", "B"], "call #2 (B): expected B, called C"),
        (TrajectoryMatch(), ["A"], ["A", "B"], "missing call #2: B"),
        (TrajectoryMatch(), ["A", "B", "D"], ["A", "B"], "extra call #3: D"),
        (TrajectoryMatch(), [call("A", id=8)], [call("A", id=7)],
         "call #1 (A): argument 'id' differs: expected 7, called 8"),
        (TrajectoryMatch(args="superset"), [call("A")], [call("A", id=7)],
         "call #1 (A): argument 'id' missing (expected 7)"),
        (TrajectoryMatch(args="subset"), [call("A", id=7, x=1)], [call("A", id=7)],
         "call #1 (A): unexpected argument 'x'=1"),
        (TrajectoryMatch(mode="unordered"), [call("A", id=8), "B"], ["B", call("A", id=7)],
         "missing call: A(id=7) (the A call made: argument 'id' differs: expected 7, called 8); "
         "extra call: A(id=8)"),
        (TrajectoryMatch(mode="subset"), ["A", "Z"], ["A", "B"], "extra call: Z"),
        (TrajectoryMatch(mode="superset"), ["A", "Z"], ["A", "B"], "missing call: B"),
    ],
)
def test_reasons(metric, called, expected, reason):
    assert metric.evaluate(case(called, expected)).reason == reason


# --- argument rules and per-tool overrides ------------------------------------------

def test_per_tool_overrides():
    called = [call("Search", q="shoes", ts=123), call("Buy", sku=7, note="x")]
    expected = [call("Search", q="shoes", ts=999), call("Buy", sku=7)]
    assert TrajectoryMatch().evaluate(case(called, expected)).value == 0.0
    metric = TrajectoryMatch(per_tool={"Search": ["q"], "Buy": lambda a, e: a["sku"] == e["sku"]})
    assert metric.evaluate(case(called, expected)).value == 1.0
    assert TrajectoryMatch(per_tool={"Search": "ignore", "Buy": "superset"}).evaluate(
        case(called, expected)).value == 1.0
    rejected = TrajectoryMatch(per_tool={"Search": "ignore", "Buy": lambda a, e: False})
    assert rejected.evaluate(case(called, expected)).reason == (
        "call #2 (Buy): arguments rejected by the custom comparison")


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"mode": "loose"}, "mode must be one of strict, unordered, subset, superset, got 'loose'"),
        ({"args": "fuzzy"}, "args must be one of exact, ignore, subset, superset"),
        ({"per_tool": {"A": 3}}, r"per_tool\['A'\] must be one of"),
        ({"per_tool": ["A"]}, "per_tool must map tool names to argument rules"),
    ],
)
def test_bad_parameters(params, message):
    with pytest.raises(InvalidParameterError, match=message):
        TrajectoryMatch(**params)


# --- batch ---------------------------------------------------------------------------

names = st.lists(st.sampled_from(["A", "B", "C"]), max_size=5)


@settings(max_examples=150, deadline=None)
@given(rows=st.lists(st.tuples(names, names), max_size=25), mode=st.sampled_from(MODES))
def test_vectorized_batch_equals_scalar_when_arguments_are_ignored(rows, mode):
    metric = TrajectoryMatch(mode=mode, args="ignore")
    batch = ToolCallBatch.from_columns(tool_calls=[c for c, _ in rows], expected_tool_calls=[e for _, e in rows])
    result = metric.evaluate_batch(batch)
    for row, (called, expected) in enumerate(rows):
        want = metric.evaluate(case(called, expected))
        assert (float(result.values[row]), bool(result.passed[row]), result.reason(row)) == (
            want.value, want.passed, want.reason)


def test_argument_rules_need_a_batch_with_arguments():
    batch = ToolCallBatch.from_columns(tool_calls=[["A"]], expected_tool_calls=[["A"]])
    with pytest.raises(InvalidCaseError, match="holds tool names only. Fix: build it with ToolCallBatch.from_cases"):
        TrajectoryMatch().evaluate_batch(batch)
    cases = [case([call("A", id=1)], [call("A", id=1)]), case([call("A", id=1)], [call("A", id=2)])]
    assert evaluate(cases, TrajectoryMatch())["trajectory_match"].values.tolist() == [1.0, 0.0]


@pytest.mark.parametrize(("mode", "args"), MODE_ARGS)
def test_conformance_kit(mode, args):
    check_metric(TrajectoryMatch, {"mode": mode, "args": args})
