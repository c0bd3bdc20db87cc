"""ToolCallF1 against an independent reference, single and batched."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from agentmetrics import AgentTestCase, ToolCallBatch, get_metric
from agentmetrics.testing import check_metric
from agentmetrics_trajectory import ToolCallF1


def reference_f1(called, expected):
    """Pair calls one by one: remove each matched expected call from a pool."""
    if not called and not expected:
        return 1.0
    pool = list(expected)
    matched = 0
    for name in called:
        if name in pool:
            pool.remove(name)
            matched += 1
    return 2 * matched / (len(called) + len(expected))


names = st.lists(st.sampled_from(["A", "B", "C", "検索"]), max_size=8)


@settings(max_examples=300, deadline=None)
@given(called=names, expected=names)
def test_matches_reference_and_is_symmetric(called, expected):
    metric = ToolCallF1()
    value = metric.evaluate(AgentTestCase(tool_calls=called, expected_tool_calls=expected)).value
    assert value == reference_f1(called, expected)
    assert 0.0 <= value <= 1.0
    assert value == metric.evaluate(AgentTestCase(tool_calls=expected, expected_tool_calls=called)).value


@settings(deadline=None)
@given(called=names, expected=names, data=st.data())
def test_independent_of_list_order(called, expected, data):
    shuffled = data.draw(st.permutations(called))
    metric = ToolCallF1()
    assert metric.evaluate(AgentTestCase(tool_calls=shuffled, expected_tool_calls=expected)).value == \
        metric.evaluate(AgentTestCase(tool_calls=called, expected_tool_calls=expected)).value


def test_retries_count_and_reason_reports_precision_and_recall():
    score = ToolCallF1().evaluate(AgentTestCase(tool_calls=["GetOrder", "GetOrder", "Refund"],
                                                expected_tool_calls=["GetOrder", "Refund", "Cancel"]))
    assert score.value == 2 * 2 / 6
    assert score.reason == "precision 2/3, recall 2/3; missed: Cancel; extra: GetOrder"
    assert ToolCallF1().evaluate(AgentTestCase(tool_calls=["A"] * 3, expected_tool_calls=["A"] * 2)).reason == \
        "precision 2/3, recall 2/2; extra: A"
    assert ToolCallF1().evaluate(AgentTestCase(tool_calls=[], expected_tool_calls=["A", "A"])).reason == \
        "precision 0/0, recall 0/2; missed: A x2"


def test_both_empty_is_one():
    score = ToolCallF1().evaluate(AgentTestCase(tool_calls=[], expected_tool_calls=[]))
    assert (score.value, score.reason) == (1.0, "No tool calls expected and none made")


@settings(max_examples=100, deadline=None)
@given(rows=st.lists(st.tuples(names, names), max_size=30))
def test_batch_equals_scalar(rows):
    metric = ToolCallF1(threshold=0.5)
    cases = [AgentTestCase(tool_calls=c, expected_tool_calls=e) for c, e in rows]
    result = metric.evaluate_batch(ToolCallBatch.from_columns(tool_calls=[c for c, _ in rows],
                                                              expected_tool_calls=[e for _, e in rows]))
    for row, case in enumerate(cases):
        expected = metric.evaluate(case)
        assert np.float64(expected.value).tobytes() == result.values[row].tobytes()
        assert (bool(result.passed[row]), result.reason(row)) == (expected.passed, expected.reason)


def test_conformance_kit():
    check_metric(ToolCallF1)
    check_metric(ToolCallF1, {"threshold": 0.5})


def test_found_by_name():
    assert isinstance(get_metric("tool_call_f1"), ToolCallF1)
    assert isinstance(get_metric("ToolCallF1"), ToolCallF1)
