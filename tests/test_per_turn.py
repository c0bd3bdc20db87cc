"""per_turn: any metric on each turn of a multi-turn case, single and batched,
against a reference that scores the turns one by one here."""

from __future__ import annotations

import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import agentmetrics as am
from agentmetrics import AgentTestCase, InvalidCaseError, ToolCallBatch, evaluate, per_turn, read_cases
from agentmetrics.testing import check_metric

names = st.lists(st.sampled_from(["A", "B", "C"]), max_size=4)
turn = st.builds(lambda c, e: {"tool_calls": c, "expected_tool_calls": e}, names, names)
cases = st.builds(lambda turns: AgentTestCase(turns=turns), st.lists(turn, min_size=1, max_size=4))

INNER = ["tool_selection_accuracy", "tool_call_f1", "redundant_calls", "trajectory_lcs"]


def reference(metric_name, aggregate, case):
    inner = am.get_metric(metric_name)
    scores = [inner.evaluate(t) for t in case.turns]
    values = [s.value for s in scores]
    if aggregate == "mean":
        return sum(values) / len(values)
    if aggregate == "min":
        return min(values) if inner.higher_is_better else max(values)
    return sum(s.passed for s in scores) / len(scores)


@settings(max_examples=150, deadline=None)
@given(st.lists(cases, min_size=1, max_size=8), st.sampled_from(INNER), st.sampled_from(["mean", "min", "all"]))
def test_single_and_batched_equal_the_turn_by_turn_reference(batch_cases, inner, aggregate):
    metric = per_turn(inner, aggregate)
    result = metric.evaluate_batch(ToolCallBatch.from_cases(batch_cases), errors="record")
    assert not result.errors
    for row, case in enumerate(batch_cases):
        score = metric.evaluate(case)
        assert score.value == reference(inner, aggregate, case) == result.values[row]
        assert (score.passed, score.reason) == (bool(result.passed[row]), result.reason(row))


def test_direction_threshold_and_reason_follow_the_wrapped_metric():
    case = AgentTestCase(turns=[{"tool_calls": ["A", "A"]}, {"tool_calls": ["B"]}])
    score = per_turn("redundant_calls").evaluate(case)
    assert (score.value, score.threshold, score.passed) == (0.25, 0.0, False)
    assert score.reason.startswith("2 turns, mean of redundant_calls 0.25; 1 failing: turn 1: 0.50")
    assert per_turn("redundant_calls", "min").evaluate(case).value == 0.5  # the worst turn
    assert per_turn("redundant_calls", "all").evaluate(case).value == 0.5
    assert per_turn("call_budget", budget=1).evaluate(case).value == 0.75


def test_errors_name_the_turn_and_cases_without_turns_are_refused():
    bad = AgentTestCase(turns=[{"tool_calls": ["A"], "expected_tool_calls": ["A"]}, {"tool_calls": ["A"]}])
    with pytest.raises(InvalidCaseError, match="per_turn: turn 2: metric 'tool_selection_accuracy' requires"):
        per_turn("tool_selection_accuracy").evaluate(bad)
    with pytest.raises(InvalidCaseError, match="empty list of turns"):
        per_turn("tool_selection_accuracy").evaluate(AgentTestCase(turns=[]))
    result = evaluate([bad, AgentTestCase(tool_calls=["A"])], metrics=[per_turn("tool_selection_accuracy")],
                      errors="record")["per_turn"]
    assert sorted(result.errors) == [0, 1] and "turn 2" in result.errors[0] and "'turns'" in result.errors[1]


def test_turns_are_validated_with_their_path():
    with pytest.raises(InvalidCaseError, match=r"turns\[1\]\.tool_calls: expected a list"):
        AgentTestCase(turns=[{"tool_calls": []}, {"tool_calls": "A"}])
    with pytest.raises(InvalidCaseError, match=r"turns\[0\]: a turn has turns of its own"):
        AgentTestCase(turns=[AgentTestCase(turns=[])])
    with pytest.raises(InvalidCaseError, match=r"turns\[0\]: unknown keys \['tool_call'\]"):
        AgentTestCase(turns=[{"tool_call": ["A"]}])
    with pytest.raises(InvalidCaseError, match="expected a list of turns"):
        AgentTestCase(turns={"tool_calls": []})


def test_jsonl_lines_with_turns(tmp_path):
    path = tmp_path / "runs.jsonl"
    path.write_text(
        '{"id": 1, "turns": [{"input": "hi", "tool_calls": ["A"], "expected_tool_calls": ["A"]},'
        ' {"response": {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function",'
        ' "function": {"name": "B", "arguments": "{}"}}]}, "format": "openai_chat", "expected_tool_calls": ["B"]}]}\n'
        '{"id": 2, "turns": [{"id": 3}]}\n'
        '{"id": 4, "turns": "A"}\n', encoding="utf-8")
    rows = list(read_cases(path, errors="record"))
    assert len(rows) == 3
    assert [t.tool_names for t in rows[0].turns] == [("A",), ("B",)] and rows[0].metadata["id"] == 1
    assert "'turns'[0]: a turn has no 'turns' or 'id'" in rows[1].message
    assert "'turns' must be a list" in rows[2].message
    assert per_turn("tool_selection_accuracy").evaluate(rows[0]).value == 1.0


@pytest.mark.parametrize("params", [{}, {"metric": "tool_call_f1", "aggregate": "min"},
                                    {"metric": "redundant_calls", "aggregate": "all"},
                                    {"metric": "call_budget", "params": {"budget": 1}}])
def test_contract(params):
    case = AgentTestCase(turns=[{"tool_calls": ["A"], "expected_tool_calls": ["A", "B"]}, {"tool_calls": [],
                                                                                          "expected_tool_calls": []}])
    check_metric(am.PerTurn, params, cases=[case])


def test_found_by_name_pickles_and_refuses_nesting():
    metric = am.get_metric("per_turn", metric="tool_call_f1", aggregate="min")
    assert pickle.loads(pickle.dumps(metric)) == metric
    assert repr(metric) == "PerTurn(threshold=0.8, metric='tool_call_f1', aggregate='min', params=None)"
    with pytest.raises(am.InvalidParameterError, match="itself per_turn"):
        per_turn(per_turn("tool_call_f1"))
    with pytest.raises(am.InvalidParameterError, match="aggregate must be one of mean, min, all"):
        per_turn("tool_call_f1", "median")
