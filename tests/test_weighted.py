"""weighted: a blend of metrics by name; against a reference written here, single
and batch, part errors named, the union of the parts' inputs, bad parts by path."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import agentmetrics as am
from agentmetrics import AgentTestCase, InvalidParameterError, Metric, MetricNotFoundError


class Seconds(Metric):
    name = "seconds_for_weighted"
    inputs = ("latency",)
    value_range = (0.0, math.inf)
    unit = "s"
    higher_is_better = False
    default_threshold = 2.5

    def measure(self, case):
        return case.latency, f"{case.latency} s"


class Same(Metric):
    name = "same_for_weighted"
    inputs = ("actual_output", "expected_output")

    def measure(self, case):
        return float(case.actual_output == case.expected_output), "compared"


class ErrorShare(Metric):
    """A share where lower is better, on a range other than [0, 1]."""

    name = "error_share_for_weighted"
    inputs = ("cost",)
    value_range = (0.0, 10.0)
    higher_is_better = False
    default_threshold = 5.0

    def measure(self, case):
        return min(case.cost, 10.0), "cost as errors"


@pytest.fixture(autouse=True)
def registered():
    for cls in (Seconds, Same, ErrorShare):
        am.register_metric(cls)
    yield
    for cls in (Seconds, Same, ErrorShare):
        am.unregister_metric(cls.name)


PARTS = [("same_for_weighted", 0.5), ("seconds_for_weighted", 0.3),
         ("error_share_for_weighted", 0.2, {"threshold": 4.0})]


def reference(case) -> float:
    """The blend written out: each part oriented to a share, weighted."""
    same = 1.0 if case.actual_output == case.expected_output else 0.0
    fast = 1.0 if case.latency <= 2.5 else 0.0  # unbounded: passes its threshold or not
    errors = 1.0 - min(case.cost, 10.0) / 10.0  # bounded, lower is better
    return (0.5 * same + 0.3 * fast + 0.2 * errors) / 1.0


CASES = st.builds(
    lambda out, want, latency, cost: AgentTestCase(actual_output=out, expected_output=want,
                                                   latency=latency, cost=cost),
    st.sampled_from(["a", "b"]), st.sampled_from(["a", "b"]),
    st.floats(0, 10), st.floats(0, 20))


@settings(max_examples=30, deadline=None)
@given(st.lists(CASES, min_size=1, max_size=20))
def test_the_blend_equals_the_reference_single_and_batch(cases):
    metric = am.get_metric("weighted", parts=PARTS)
    result = am.evaluate(cases, [metric])["weighted"]
    for row, case in enumerate(cases):
        single = metric.evaluate(case)
        assert single.value == pytest.approx(reference(case), abs=1e-12)
        assert result.values[row] == single.value  # bit for bit
        assert result.reason(row) == single.reason
        assert bool(result.passed[row]) == single.passed


def test_a_part_that_cannot_score_a_case_is_named_in_its_error_row():
    metric = am.get_metric("weighted", parts=PARTS)
    cases = [AgentTestCase(actual_output="a", expected_output="a", latency=1.0, cost=1.0),
             AgentTestCase(actual_output="a", expected_output="a", cost=1.0)]
    result = am.evaluate(cases, [metric], errors="record")["weighted"]
    assert list(result.errors) == [1]
    assert result.errors[1].startswith("weighted: part seconds_for_weighted: metric "
                                       "'seconds_for_weighted' requires the test case field "
                                       "'latency'")
    with pytest.raises(am.CaseEvaluationError, match="part seconds_for_weighted"):
        am.evaluate(cases, [metric])
    with pytest.raises(am.InvalidCaseError, match="part seconds_for_weighted"):
        metric.evaluate(cases[1])


def test_the_blend_reads_the_union_of_its_parts_inputs():
    metric = am.get_metric("weighted", parts=PARTS)
    assert [item.name for item in metric.reads()] == [
        "actual_output", "expected_output", "latency", "cost"]


@pytest.mark.parametrize(("parts", "error", "match"), [
    ([], InvalidParameterError, "parts must be a non-empty list"),
    ("same_for_weighted", InvalidParameterError, "parts must be a non-empty list"),
    ([("same_for_weighted",)], InvalidParameterError, r"parts\[0\] is tuple"),
    ([("same_for_weighted", 0)], InvalidParameterError, r"parts\[0\]\[1\] \(the weight\)"),
    ([("same_for_weighted", True)], InvalidParameterError, r"parts\[0\]\[1\]"),
    ([("same_for_weighted", 1), ("nope_for_weighted", 1)], MetricNotFoundError,
     r"parts\[1\]\[0\] \('nope_for_weighted'\)"),
    ([("seconds_for_weighted", 1, {"threshold": -1})], InvalidParameterError,
     r"parts\[0\]\[0\] \('seconds_for_weighted'\): seconds_for_weighted: threshold"),
    ([("same_for_weighted", 1, "x")], InvalidParameterError, r"parts\[0\]\[2\]"),
    ([("weighted", 1)], InvalidParameterError, "itself weighted"),
])
def test_a_bad_part_is_named_by_its_path(parts, error, match):
    with pytest.raises(error, match=match):
        am.get_metric("weighted", parts=parts)


def test_it_round_trips_through_its_parameters_and_a_pickle():
    metric = am.get_metric("weighted", parts=PARTS, threshold=0.6)
    assert am.get_metric("weighted", **metric.get_params()) == metric
    assert pickle.loads(pickle.dumps(metric)) == metric
    assert "seconds_for_weighted" in repr(metric)


def test_each_part_keeps_its_own_batch_path():
    calls = []

    class Vectorized(Same):
        name = "vectorized_for_weighted"

        def evaluate_batch(self, batch, *, errors="raise"):
            from agentmetrics.model._metric_result import MetricResult, batch_errors, passes

            calls.append(len(batch))
            failed = batch_errors(self, batch, errors)
            out = batch.field("actual_output")
            want = batch.field("expected_output")
            values = np.array([float(a == b) for a, b in zip(out, want)])
            values[list(failed)] = np.nan
            return MetricResult(self, values, passes(self, values), failed,
                                lambda row: "compared")

    metric = am.get_metric("weighted", parts=[(Vectorized(), 1.0)])
    cases = [AgentTestCase(actual_output="a", expected_output="a")] * 7
    assert am.evaluate(cases, [metric])["weighted"].values.tolist() == [1.0] * 7
    assert calls == [7]  # one call over the whole batch, not one a case
