"""argument_accuracy and tool_output_match in batch (values for all cases at
once, reasons when asked for) against the case-by-case loop, which stays the
reference: the same values bit for bit, passed flags, errors and reasons, on
generated cases with repeated tools on either side, booleans next to
numbers, nested objects, NaN, unhashable and odd values, missing sides."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentmetrics import AgentTestCase, ToolCall, ToolCallBatch, get_metric
from agentmetrics.model._metric_result import loop_evaluate
from agentmetrics_tooluse._matched import pair_calls
from agentmetrics_tooluse._rules import RuleSet, compare_values, score_values

NAN = float("nan")
_VALUES = st.one_of(  # few values, so that pairs meet: numbers next to booleans first
    st.sampled_from([1, 1.0, True, False, 0, -0.0, NAN]),
    st.sampled_from([2, "x", "X ", "y", None, [1, 2], [2, 1], (1,), [True], {}, {"k": 1}, {"k": True},
                     {"k": {"z": 1}}, 1e-12]))
_ARGS = st.dictionaries(st.sampled_from(["a", "b", "c", "d.e"]), _VALUES, max_size=3)
_CALL = st.builds(lambda name, args, output: ToolCall(name, args, output=output),
                  st.sampled_from(["t0", "t1", "t2"]), _ARGS, st.one_of(st.none(), _VALUES, _ARGS))
_CASE = st.builds(lambda called, expected, drop: AgentTestCase(
    tool_calls=None if drop == 1 else called, expected_tool_calls=None if drop == 2 else expected),
    st.lists(_CALL, max_size=6), st.lists(_CALL, max_size=6), st.sampled_from([0] * 12 + [1, 2]))

OPTIONS = [
    ("argument_accuracy", {}),
    ("argument_accuracy", {"extra_arguments": "penalize", "missing_calls": "ignore"}),
    ("argument_accuracy", {"compare": "normalized"}),
    ("argument_accuracy", {"compare": "numeric", "rules": {"a": "set_equal"}}),
    ("argument_accuracy", {"rules": {"d.e": "exact", "b": "normalized"}}),
    ("tool_output_match", {}),
    ("tool_output_match", {"missing_calls": "ignore", "compare": "normalized"}),
]


def _same(batch_result, loop_result) -> None:
    assert np.array_equal(batch_result.values, loop_result.values, equal_nan=True)
    assert batch_result.values.tobytes() == loop_result.values.tobytes()  # bit for bit (-0.0, NaN)
    assert batch_result.passed.tolist() == loop_result.passed.tolist()
    assert dict(batch_result.errors) == dict(loop_result.errors)
    assert batch_result.reason_list() == loop_result.reason_list()


@pytest.mark.parametrize(("name", "options"), OPTIONS)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases=st.lists(_CASE, min_size=1, max_size=25))
def test_batch_equals_the_loop(name, options, cases) -> None:
    metric = get_metric(name, **options)
    batch = ToolCallBatch.from_cases(cases)
    _same(metric.evaluate_batch(batch, errors="record"), loop_evaluate(metric, batch, "record"))


def _greedy_free_reference(actual, expected, score) -> float:
    """Brute force over every one-to-one same-tool pairing: the best total."""
    best = 0.0

    def walk(j: int, used: frozenset[int], total: float) -> None:
        nonlocal best
        if j == len(expected):
            best = max(best, total)
            return
        walk(j + 1, used, total)  # expected call j left unpaired
        for i, call in enumerate(actual):
            if i not in used and call.name == expected[j].name:
                walk(j + 1, used | {i}, total + score(call, expected[j]))

    walk(0, frozenset(), 0.0)
    return best


@settings(max_examples=200, deadline=None)
@given(actual=st.lists(_CALL, max_size=5), expected=st.lists(_CALL, max_size=5))
def test_pairing_is_optimal_in_both_forms(actual, expected) -> None:
    rules = RuleSet.of("exact", None, "t")

    def score(call: ToolCall, want: ToolCall) -> float:
        return score_values(call.arguments, want.arguments, rules, False)

    best = _greedy_free_reference(actual, expected, score)
    as_floats = pair_calls(actual, range(len(expected)), expected, score, None)
    as_compared = pair_calls(actual, range(len(expected)), expected,
                             lambda c, w: compare_values(c.arguments, w.arguments, rules),
                             lambda c: c.score(False))
    assert math.isclose(sum(credit for _, credit in as_floats.values()), best, abs_tol=1e-9)
    assert {j: i for j, (i, _) in as_floats.items()} == {j: i for j, (i, _) in as_compared.items()}


@settings(max_examples=400, deadline=None)
@given(actual=st.one_of(_ARGS, _VALUES), expected=st.one_of(_ARGS, _VALUES),
       default=st.sampled_from(["exact", "normalized", "numeric", "set_equal"]),
       by_path=st.sampled_from([None, {"a": "normalized"}, {"d.e": "numeric"}]),
       count_extra=st.booleans())
def test_score_values_is_compare_values_score(actual, expected, default, by_path, count_extra) -> None:
    rules = RuleSet.of(default, by_path, "t")
    want = compare_values(actual, expected, rules).score(count_extra)
    got = score_values(actual, expected, rules, count_extra)
    assert got == want or (math.isnan(got) and math.isnan(want))


def test_a_value_measure_cannot_compare_is_an_error_row_in_both() -> None:
    odd = np.array([1, 2])  # == gives an array: no truth value
    cases = [AgentTestCase(tool_calls=[ToolCall("t", {"a": odd})], expected_tool_calls=[ToolCall("t", {"a": odd})]),
             AgentTestCase(tool_calls=[ToolCall("t", {"a": 1})], expected_tool_calls=[ToolCall("t", {"a": 1})])]
    metric = get_metric("argument_accuracy")
    batch = ToolCallBatch.from_cases(cases)
    result = metric.evaluate_batch(batch, errors="record")
    _same(result, loop_evaluate(metric, batch, "record"))
    assert list(result.errors) == [0] and result.values[1] == 1.0
    with pytest.raises(Exception) as raised:
        metric.evaluate_batch(batch)
    with pytest.raises(type(raised.value)):
        loop_evaluate(metric, batch, "raise")


def test_nan_is_never_equal_to_itself() -> None:
    # json's NaN is one object: the same object on both sides still differs, as in Exact.
    cases = [AgentTestCase(tool_calls=[ToolCall("t", {"a": NAN, "b": 1})],
                           expected_tool_calls=[ToolCall("t", {"a": NAN, "b": 1})])]
    result = get_metric("argument_accuracy").evaluate_batch(ToolCallBatch.from_cases(cases))
    assert result.values.tolist() == [0.5]


def test_a_users_comparison_is_called_once_a_pair() -> None:
    seen = []

    def compare(actual, expected) -> bool:
        seen.append((actual, expected))
        return actual == expected

    cases = [AgentTestCase(tool_calls=[ToolCall("t", {"a": 1})], expected_tool_calls=[ToolCall("t", {"a": 1})])]
    result = get_metric("argument_accuracy", compare=compare).evaluate_batch(ToolCallBatch.from_cases(cases))
    assert result.reason(0) and seen == [(1, 1)]  # scored and explained by one evaluate


def test_a_reason_checks_its_value() -> None:
    from agentmetrics.batch import case_values
    from agentmetrics.errors import InvalidMetricError

    metric = get_metric("argument_accuracy")
    cases = [AgentTestCase(tool_calls=[ToolCall("t", {"a": 1})], expected_tool_calls=[ToolCall("t", {"a": 2})])]
    result = case_values(metric, ToolCallBatch.from_cases(cases), "record", lambda case: 1.0)
    with pytest.raises(InvalidMetricError, match="gave case 0 the value 1.0, where evaluate gives 0.0"):
        result.reason(0)
