"""The tool-use metrics against small independent references written here,
single and batched, plus the contract kit and the bundled tau2 runs."""

from __future__ import annotations

import functools
import math
import pickle
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentmetrics import AgentTestCase, InvalidCaseError, InvalidParameterError, ToolCall, ToolCallBatch, evaluate
from agentmetrics import Metric, UserFunctionError, example_cases, get_metric, registry
from agentmetrics.testing import check_metric
from agentmetrics_tooluse import (
    ArgumentAccuracy,
    CallBudget,
    LoopDetected,
    MetricRule,
    Numeric,
    RedundantCalls,
    ToolOutputMatch,
    TrajectoryLCS,
)

# -- references ---------------------------------------------------------------


def ref_pair_score(actual: dict, expected: dict, penalize: bool) -> float:
    """Flat arguments only: share of expected keys given with an equal value."""
    hits = sum(1 for key, value in expected.items() if key in actual and actual[key] == value
               and isinstance(actual[key], bool) == isinstance(value, bool))
    total = len(expected) + (sum(1 for key in actual if key not in expected) if penalize else 0)
    return 1.0 if total == 0 else hits / total


def ref_best_pairing(a, e, score) -> float:
    """The best total score over every one-to-one pairing of min(len(a), len(e))
    calls of ``a`` with calls of ``e``, searched exhaustively: each call of the
    shorter side takes, in turn, every call of the longer side not yet taken.
    The search is memoised on (position, calls taken), so it never searches the
    same rest twice (listing the pairings one by one took 30 s on the tau2 run
    with 9 and 10 search_direct_flight calls)."""
    swap = len(a) > len(e)
    short, long = (e, a) if swap else (a, e)

    @functools.cache
    def best(i: int, taken: int) -> float:
        if i == len(short):
            return 0.0
        return max((score(long[j], short[i]) if swap else score(short[i], long[j])) + best(i + 1, taken | 1 << j)
                   for j in range(len(long)) if not taken >> j & 1)

    return best(0, 0)


def ref_best_total(calls, wanted, score) -> tuple[float, int]:
    """Brute force over every one-to-one pairing of same-named calls: the best
    total score and how many expected calls it pairs."""
    names = {c.name for c in wanted}
    total, count = 0.0, 0
    for name in names:
        a = [c for c in calls if c.name == name]
        e = [c for c in wanted if c.name == name]
        total += ref_best_pairing(a, e, score)
        count += min(len(a), len(e))
    return total, count


def ref_argument_accuracy(case, penalize=False, missing="zero") -> float:
    if not case.expected_tool_calls:
        return 1.0
    total, paired = ref_best_total(case.tool_calls, case.expected_tool_calls,
                                   lambda a, e: ref_pair_score(a.arguments, e.arguments, penalize))
    count = len(case.expected_tool_calls) if missing == "zero" else paired
    return 0.0 if count == 0 else total / count


values = st.one_of(st.integers(0, 2), st.sampled_from(["x", "y"]), st.booleans())
arguments = st.dictionaries(st.sampled_from(["a", "b", "c"]), values, max_size=3)
calls = st.builds(ToolCall, st.sampled_from(["Get", "Put", "Del"]), arguments)
cases = st.builds(AgentTestCase, tool_calls=st.lists(calls, max_size=5),
                  expected_tool_calls=st.lists(calls, max_size=4))


@settings(max_examples=300, deadline=None)
@given(cases, st.booleans(), st.sampled_from(["zero", "ignore"]))
def test_argument_accuracy_equals_the_brute_force_reference(case, penalize, missing):
    metric = ArgumentAccuracy(extra_arguments="penalize" if penalize else "ignore", missing_calls=missing)
    assert metric.evaluate(case).value == pytest.approx(ref_argument_accuracy(case, penalize, missing), abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(st.lists(cases, min_size=1, max_size=8))
def test_argument_accuracy_batch_equals_scalar(batch_cases):
    metric = ArgumentAccuracy()
    result = metric.evaluate_batch(ToolCallBatch.from_cases(batch_cases))
    for row, case in enumerate(batch_cases):
        score = metric.evaluate(case)
        assert (result.values[row], result.reason(row)) == (score.value, score.reason)


def test_optimal_pairing_beats_first_come_first_served():
    # Greedy pairs the first call with the first expected call (1 of 2 right each way:
    # 0.5 + 0.0); the optimal pairing gets both right.
    case = AgentTestCase(
        tool_calls=[ToolCall("Get", {"id": 1, "q": "a"}), ToolCall("Get", {"id": 2, "q": "b"})],
        expected_tool_calls=[ToolCall("Get", {"id": 2, "q": "b"}), ToolCall("Get", {"id": 1, "q": "a"})])
    assert ArgumentAccuracy().evaluate(case).value == 1.0


def test_comparison_rules_and_nested_paths():
    case = AgentTestCase(
        tool_calls=[ToolCall("Book", {"city": "  new   YORK", "price": 100.004, "tags": ["b", "a", "a"],
                                      "address": {"street": "Main", "zip": "10001"}, "note": "hi"})],
        expected_tool_calls=[ToolCall("Book", {"city": "New York", "price": 100.0, "tags": ["a", "b"],
                                               "address": {"street": "main", "zip": "10001"}})])
    exact = ArgumentAccuracy().evaluate(case)
    assert exact.value == pytest.approx(1 / 5)  # only address.zip matches exactly
    assert "extra note" in exact.reason and "address.street expected 'main'" in exact.reason
    rules = {"price": Numeric(abs_tol=0.01), "tags": "set_equal"}
    loose = ArgumentAccuracy(compare="normalized", rules=rules).evaluate(case)
    assert loose.value == 1.0
    penalized = ArgumentAccuracy(compare="normalized", rules=rules, extra_arguments="penalize").evaluate(case)
    assert penalized.value == pytest.approx(5 / 6)
    whole = ArgumentAccuracy(compare="normalized", rules={"address": "exact"}).evaluate(case)
    assert "address expected" in whole.reason  # a path with its own rule is compared whole


def test_a_callable_rule_gives_partial_credit_and_is_checked():
    def half(actual, expected):
        return 0.5

    case = AgentTestCase(tool_calls=[ToolCall("A", {"x": 1})], expected_tool_calls=[ToolCall("A", {"x": 2})])
    assert ArgumentAccuracy(compare=half).evaluate(case).value == 0.5
    with pytest.raises(UserFunctionError, match="your function .*<lambda>.* returned int 3; expected a bool or a number in"):
        ArgumentAccuracy(compare=lambda a, e: 3).evaluate(case)
    with pytest.raises(InvalidParameterError, match="unknown comparison 'fuzzy'"):
        ArgumentAccuracy(compare="fuzzy")


class WordOverlap(Metric):
    """Jaccard overlap of the lower-cased words of a value and its expected value."""

    name = "word_overlap"
    required_fields = ("actual_output",)
    description = "Word overlap of actual_output with metadata['expected'], for tests."

    def measure(self, case):
        if not isinstance(case.actual_output, str) or not isinstance(case.metadata.get("expected"), str):
            raise InvalidCaseError("word_overlap compares two strings")
        got = set(case.actual_output.lower().split())
        want = set(case.metadata["expected"].lower().split())
        return (len(got & want) / len(got | want) if got | want else 1.0), "overlap"


def test_another_registered_metric_as_a_rule():
    case = AgentTestCase(
        tool_calls=[ToolCall("handoff", {"summary": "user wants a refund for order 7", "priority": 2})],
        expected_tool_calls=[ToolCall("handoff", {"summary": "User wants refund for order 7", "priority": 2})])
    with registry.isolated():
        registry.register_metric(WordOverlap)
        by_name = ArgumentAccuracy(rules={"summary": MetricRule("word_overlap")}).evaluate(case)
        assert by_name.value == pytest.approx((6 / 7 + 1) / 2)  # 6 shared words of 7; priority exact
        assert "summary expected" in by_name.reason
        assert ArgumentAccuracy(rules={"summary": WordOverlap()}).evaluate(case).value == by_name.value
        assert MetricRule("word_overlap") == MetricRule(WordOverlap)
        assert pickle.loads(pickle.dumps(MetricRule("word_overlap"))) == MetricRule("word_overlap")
        # a pair the metric cannot score makes the case an error, not a guess
        numbers_ = AgentTestCase(tool_calls=[ToolCall("handoff", {"summary": 3})],
                                 expected_tool_calls=[ToolCall("handoff", {"summary": "x"})])
        with pytest.raises(InvalidCaseError, match="compares two strings"):
            ArgumentAccuracy(rules={"summary": MetricRule("word_overlap")}).evaluate(numbers_)
    with pytest.raises(InvalidParameterError, match="lower-is-better"):
        MetricRule("redundant_calls")


def test_unreadable_arguments_score_zero_and_say_so():
    case = AgentTestCase(tool_calls=[ToolCall("A", raw_arguments='{"x": 1')],
                         expected_tool_calls=[ToolCall("A", {"x": 1})])
    score = ArgumentAccuracy().evaluate(case)
    assert score.value == 0.0 and "not a JSON object" in score.reason


@pytest.mark.parametrize("raw", ["[]", '""', "not json", '{"x": 1'])
@pytest.mark.parametrize("expected", [{}, {"x": 1}])
@pytest.mark.parametrize("extra", ["ignore", "penalize"])
def test_unreadable_arguments_earn_nothing_even_where_none_are_expected(raw, expected, extra):
    """A call whose arguments were not a JSON object matched an expected call
    of no arguments fully (0 of 0): its page says it earns nothing."""
    metric = ArgumentAccuracy(extra_arguments=extra)
    case = AgentTestCase(tool_calls=[ToolCall("A", raw_arguments=raw)],
                         expected_tool_calls=[ToolCall("A", expected)])
    score = metric.evaluate(case)
    assert score.value == 0.0 and "not a JSON object" in score.reason
    good = AgentTestCase(tool_calls=[ToolCall("A", expected)], expected_tool_calls=[ToolCall("A", expected)])
    batched = evaluate([case, good], metric)["argument_accuracy"].values.tolist()
    assert batched == [0.0, 1.0]


def test_tool_output_match():
    expected = [ToolCall("Get", {"id": 1}, output={"status": "ok", "total": 10.0}),
                ToolCall("Get", {"id": 2}, output="done"), ToolCall("Log")]
    case = AgentTestCase(tool_calls=[ToolCall("Get", output="done"), ToolCall("Get", output={"status": "OK", "total": 10})],
                         expected_tool_calls=expected)
    assert ToolOutputMatch().evaluate(case).value == pytest.approx((0.5 + 1.0) / 2)
    assert ToolOutputMatch(compare="normalized").evaluate(case).value == 1.0
    missing = AgentTestCase(tool_calls=[ToolCall("Get")], expected_tool_calls=expected)
    score = ToolOutputMatch().evaluate(missing)
    assert score.value == 0.0 and "no output recorded" in score.reason and "not called (scored 0): Get" in score.reason
    with pytest.raises(InvalidCaseError, match="none of the 1 expected calls carries an output"):
        ToolOutputMatch().evaluate(AgentTestCase(tool_calls=["A"], expected_tool_calls=["A"]))
    with pytest.raises(InvalidCaseError, match="holds tool names only"):
        ToolOutputMatch().evaluate_batch(ToolCallBatch.from_columns(tool_calls=[["A"]], expected_tool_calls=[["A"]]))


def ref_lcs(a, b):
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            table[i + 1][j + 1] = table[i][j] + 1 if x == y else max(table[i][j + 1], table[i + 1][j])
    return table[-1][-1]


names = st.lists(st.sampled_from(["A", "B", "C", "D"]), max_size=10)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(names, names), min_size=1, max_size=20))
def test_trajectory_lcs_single_and_batched_equal_the_reference(pairs):
    metric = TrajectoryLCS()
    batch = ToolCallBatch.from_columns(tool_calls=[c for c, _ in pairs], expected_tool_calls=[e for _, e in pairs])
    result = metric.evaluate_batch(batch)
    for row, (called, expected) in enumerate(pairs):
        want = 1.0 if not expected else ref_lcs(called, expected) / len(expected)
        score = metric.evaluate(AgentTestCase(tool_calls=called, expected_tool_calls=expected))
        assert score.value == want == result.values[row]
        assert result.reason(row) == score.reason


def ref_loop(keys, max_period, repeats):
    for start in range(len(keys)):
        for period in range(1, max_period + 1):
            block = keys[start:start + period]
            if len(block) < period:
                continue
            times = 1
            while keys[start + times * period:start + (times + 1) * period] == block:
                times += 1
            if times >= repeats:
                return start, period, times
    return None


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["A", "B", "C"]), max_size=14), st.integers(1, 4), st.integers(2, 4))
def test_loop_detection_equals_the_reference(names_, max_period, repeats):
    from agentmetrics_tooluse._efficiency import find_loop

    assert find_loop(names_, max_period, repeats) == ref_loop(names_, max_period, repeats)
    score = LoopDetected(repeats=repeats, max_period=max_period, by="name").evaluate(AgentTestCase(tool_calls=names_))
    assert score.value == (0.0 if ref_loop(names_, max_period, repeats) is None else 1.0)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(calls, max_size=8), min_size=1, max_size=10), st.integers(0, 6))
def test_redundant_calls_and_budget_single_and_batched(rows, budget):
    cases_ = [AgentTestCase(tool_calls=row) for row in rows]
    by_call = RedundantCalls()
    by_name = RedundantCalls(by="name")
    limit = CallBudget(budget=budget)
    batch = ToolCallBatch.from_cases(cases_)
    names_batch = ToolCallBatch.from_columns(tool_calls=[[c.name for c in row] for row in rows],
                                             expected_tool_calls=[None] * len(rows))
    for metric, over in ((by_call, batch), (by_name, names_batch), (limit, names_batch), (limit, batch)):
        result = metric.evaluate_batch(over)
        for row, case in enumerate(cases_):
            score = metric.evaluate(case)
            assert (result.values[row], result.reason(row)) == (score.value, score.reason)
    for case in cases_:
        keys = [(c.name, repr(sorted(c.arguments.items()))) for c in case.tool_calls]
        made = len(keys)
        assert by_call.evaluate(case).value == (0.0 if not made else (made - len(set(keys))) / made)
        assert by_name.evaluate(case).value == (0.0 if not made else (made - len({k[0] for k in keys})) / made)
        assert limit.evaluate(case).value == (1.0 if made <= budget else budget / made)


@pytest.mark.parametrize("metric, params", [
    (ArgumentAccuracy, {}), (ArgumentAccuracy, {"compare": "normalized", "extra_arguments": "penalize"}),
    (ArgumentAccuracy, {"missing_calls": "ignore", "rules": {"id": "numeric"}}),
    (ToolOutputMatch, {}), (TrajectoryLCS, {}), (RedundantCalls, {}), (RedundantCalls, {"by": "name"}),
    (LoopDetected, {}), (LoopDetected, {"by": "name", "repeats": 2}), (CallBudget, {"budget": 3}),
])
def test_contract(metric, params):
    with_outputs = [AgentTestCase(tool_calls=[ToolCall("A", output=1), ToolCall("B", output={"k": "v"})],
                                  expected_tool_calls=[ToolCall("A", output=1.0), ToolCall("B", output={"k": "w"})])]
    check_metric(metric, params, cases=with_outputs)


def test_found_by_name_and_scored_on_the_bundled_tau2_runs():
    runs = example_cases()
    result = evaluate(runs, metrics=["argument_accuracy", "trajectory_lcs", "redundant_calls",
                                     "loop_detected", "call_budget"])
    assert len(result["argument_accuracy"]) == len(runs) == 50
    for row, case in enumerate(runs):
        want = ref_argument_accuracy(case)
        assert result["argument_accuracy"].values[row] == pytest.approx(want, abs=1e-12)
        names_ = [c.name for c in case.tool_calls]
        expected = [c.name for c in case.expected_tool_calls]
        lcs = 1.0 if not expected else ref_lcs(names_, expected) / len(expected)
        assert result["trajectory_lcs"].values[row] == lcs
    assert get_metric("call_budget", budget=5).budget == 5
    assert not math.isnan(result["argument_accuracy"].values.mean())
    counts = Counter(bool(v) for v in result["loop_detected"].values)
    assert sum(counts.values()) == 50
