"""ToolSelectionAccuracy against a small independent reference, with properties."""

from __future__ import annotations

import math
import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentmetrics import AgentTestCase, InvalidParameterError, MissingFieldError, ToolCall
from agentmetrics.metrics import ToolSelectionAccuracy
from agentmetrics.metrics._tool_selection import longest_increasing_run


# --- the reference: definitions written out plainly, no shared code ----------

def ref_first_calls(names):
    seen, out = set(), []
    for name in names:
        if name not in seen:
            seen.add(name)
            out.append(name)
    return out


def ref_lcs(a, b):
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a)):
        for j in range(len(b)):
            table[i + 1][j + 1] = (
                table[i][j] + 1 if a[i] == b[j] else max(table[i][j + 1], table[i + 1][j])
            )
    return table[-1][-1]


def ref_value(called, expected, order_matters):
    a, e = set(called), set(expected)
    if not a and not e:
        return 1.0
    if order_matters:
        matched = ref_lcs(ref_first_calls(called), ref_first_calls(expected))
    else:
        matched = len(a & e)
    return matched / len(a | e)


def ref_reason(called, expected, order_matters):
    a, e = ref_first_calls(called), ref_first_calls(expected)
    if not a and not e:
        return "No tools expected and none called"
    parts = []
    missing = [n for n in e if n not in a]
    extra = [n for n in a if n not in e]
    if missing:
        parts.append(("Missing expected tools: " if len(missing) > 1 else "Missing expected tool: ") + ", ".join(missing))
    if extra:
        parts.append(("Unexpected tools: " if len(extra) > 1 else "Unexpected tool: ") + ", ".join(extra))
    shared_e = [n for n in e if n in a]
    shared_a = [n for n in a if n in e]
    if order_matters and shared_a != shared_e:
        parts.append(f"Out of expected order: expected {' -> '.join(shared_e)}, called {' -> '.join(shared_a)}")
    return "; ".join(parts) or "All expected tools called: " + ", ".join(e)


# --- strategies ---------------------------------------------------------------

small_names = st.sampled_from(["GetOrder", "CancelOrder", "IssueRefund", "Audit", "a", "b", "c"])
any_names = st.one_of(small_names, st.text(min_size=1, max_size=6))
name_lists = st.lists(any_names, max_size=10)
overlapping = st.lists(small_names, max_size=10)


def score(called, expected, order_matters=False, threshold=0.8):
    metric = ToolSelectionAccuracy(threshold=threshold, order_matters=order_matters)
    return metric.evaluate(AgentTestCase(tool_calls=called, expected_tool_calls=expected))


# --- differential ------------------------------------------------------------

@settings(max_examples=400)
@given(called=st.one_of(overlapping, name_lists), expected=st.one_of(overlapping, name_lists),
       order_matters=st.booleans())
def test_matches_reference(called, expected, order_matters):
    result = score(called, expected, order_matters)
    assert result.value == ref_value(called, expected, order_matters)
    assert result.reason == ref_reason(called, expected, order_matters)


@given(st.lists(st.integers(0, 30), unique=True, max_size=30))
def test_longest_increasing_run_is_the_lcs_of_a_permutation(positions):
    assert longest_increasing_run(positions) == ref_lcs(sorted(positions), positions)


# --- properties --------------------------------------------------------------

@given(called=overlapping, expected=overlapping, order_matters=st.booleans())
def test_value_is_a_fraction_and_symmetric(called, expected, order_matters):
    forward = score(called, expected, order_matters).value
    assert 0.0 <= forward <= 1.0
    assert forward == score(expected, called, order_matters).value


@given(called=overlapping, expected=overlapping)
def test_one_exactly_when_the_sets_are_equal(called, expected):
    assert (score(called, expected).value == 1.0) == (set(called) == set(expected))


@given(called=overlapping, expected=overlapping, data=st.data())
def test_unordered_ignores_order_and_repeats(called, expected, data):
    shuffled = data.draw(st.permutations(called))
    repeated = shuffled + data.draw(st.lists(st.sampled_from(called), max_size=5)) if called else shuffled
    assert score(repeated, expected).value == score(called, expected).value


@given(called=overlapping, expected=overlapping)
def test_ordered_never_exceeds_unordered(called, expected):
    assert score(called, expected, True).value <= score(called, expected, False).value


@given(expected=overlapping, extra=st.lists(st.sampled_from(["x", "y", "z"]), max_size=4), data=st.data())
def test_ordered_equals_unordered_when_the_order_agrees(expected, extra, data):
    # Interleave unexpected tools into the expected order: the shared order agrees.
    called = list(expected)
    for name in extra:
        called.insert(data.draw(st.integers(0, len(called))), name)
    assert score(called, expected, True).value == score(called, expected, False).value
    assert "Out of expected order" not in score(called, expected, True).reason


@given(called=overlapping, expected=overlapping, threshold=st.floats(0, 1))
def test_passed_is_value_at_or_above_threshold(called, expected, threshold):
    result = score(called, expected, threshold=threshold)
    assert result.passed == (result.value >= threshold)


# --- examples and edges -------------------------------------------------------

def test_names_compare_exactly_not_case_or_whitespace_folded():
    assert score(["GetOrder "], ["GetOrder"]).value == 0.0
    assert score(["getorder"], ["GetOrder"]).value == 0.0


def test_arguments_do_not_affect_selection():
    called = [ToolCall("GetOrder", {"id": 1})]
    expected = [{"name": "GetOrder", "arguments": {"id": 2}}]
    assert score(called, expected).value == 1.0


def test_empty_lists_are_fine_but_none_is_missing():
    assert score([], []).value == 1.0
    metric = ToolSelectionAccuracy()
    with pytest.raises(MissingFieldError, match="tool_selection_accuracy.*'tool_calls'"):
        metric.evaluate(AgentTestCase(expected_tool_calls=["A"]))
    with pytest.raises(MissingFieldError, match="'expected_tool_calls'"):
        metric.evaluate(AgentTestCase(tool_calls=[]))


def test_out_of_order_reason_lists_only_shared_tools():
    result = score(["C", "B", "X", "A"], ["A", "B", "C", "D"], order_matters=True)
    assert result.value == 1 / 5
    assert result.reason == (
        "Missing expected tool: D; Unexpected tool: X; "
        "Out of expected order: expected A -> B -> C, called C -> B -> A"
    )


def test_metadata_and_defaults():
    metric = ToolSelectionAccuracy()
    assert metric.threshold == 0.8 and metric.order_matters is False
    assert ToolSelectionAccuracy.name == "tool_selection_accuracy"
    assert ToolSelectionAccuracy.required_fields == ("tool_calls", "expected_tool_calls")
    assert ToolSelectionAccuracy.requires_llm_judge is False
    assert ToolSelectionAccuracy.higher_is_better is True
    assert ToolSelectionAccuracy.description


@pytest.mark.parametrize("bad", ["yes", 1, None])
def test_order_matters_must_be_a_bool(bad):
    with pytest.raises(InvalidParameterError, match="order_matters must be True or False"):
        ToolSelectionAccuracy(order_matters=bad)


def test_repr_equality_and_pickle_round_trip():
    metric = ToolSelectionAccuracy(0.9, order_matters=True)
    assert repr(metric) == "ToolSelectionAccuracy(threshold=0.9, order_matters=True)"
    clone = pickle.loads(pickle.dumps(metric))
    assert clone == metric and hash(clone) == hash(metric)
    assert clone != ToolSelectionAccuracy(0.9)
    assert not math.isnan(clone.evaluate(AgentTestCase(tool_calls=[], expected_tool_calls=[])).value)
