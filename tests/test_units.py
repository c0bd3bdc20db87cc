"""Values in their own units (issue 51): a metric in seconds, tokens or money
declares any ``value_range`` (infinite ends included) and a ``unit``; its
thresholds are checked against its own range, its results against the one
validator, and every surface shows the unit."""

from __future__ import annotations

import json
import math
import re
from typing import ClassVar

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import agentmetrics as am
from agentmetrics import AgentTestCase, Metric
from agentmetrics.cases._tool_call_batch import ToolCallBatch
from agentmetrics.cli import main
from agentmetrics.errors import InvalidMetricError, InvalidParameterError
from agentmetrics.model._metric_result import MetricResult, check_result, out_of_range
from agentmetrics.registry import describe_metric, register_metric, unregister_metric
from agentmetrics.report._charts import axis_range, histogram, histogram_svg


class Latency(Metric):
    """Seconds the agent took, from ``metadata["seconds"]``: lower is better."""

    name: ClassVar[str] = "latency_s"
    description: ClassVar[str] = "Seconds the agent took to answer."
    value_range: ClassVar[tuple[float, float]] = (0.0, math.inf)
    default_threshold: ClassVar[float] = 2.5
    higher_is_better: ClassVar[bool] = False
    unit: ClassVar[str | None] = "s"

    def measure(self, case):
        seconds = case.metadata["seconds"]
        return seconds, f"took {seconds:g} s"


SECONDS = [0.4, 1.7, 3.2, 12.0]


def cases(seconds=SECONDS):
    return [AgentTestCase(tool_calls=["Search"], expected_tool_calls=["Search"],
                          metadata={"id": f"c{i}", "seconds": s}) for i, s in enumerate(seconds)]


def test_a_latency_metric_is_built_with_its_own_default_threshold():
    metric = Latency()
    assert metric.threshold == 2.5
    assert Latency(threshold=1e9).threshold == 1e9  # an infinite range holds any finite threshold
    assert Latency(threshold=0).threshold == 0.0


@pytest.mark.parametrize("threshold", [-0.5, math.inf, math.nan])
def test_a_threshold_outside_the_metric_s_own_range_is_refused_naming_it(threshold):
    with pytest.raises(InvalidParameterError) as raised:
        Latency(threshold=threshold)
    message = str(raised.value)
    assert message.startswith("latency_s: threshold must be a finite number in [0, inf) (the "
                              "metric's value_range), got ")
    assert "threshold=2.5" in message  # the fix suggests the class's own default
    assert "rather than" not in message and "percentage" not in message  # no 0-1 hint


def test_the_percentage_hint_stays_for_shares():
    with pytest.raises(InvalidParameterError, match=r"if 80 is a percentage, use threshold=0.8"):
        am.ToolSelectionAccuracy(threshold=80)


def test_a_threshold_is_checked_against_a_finite_range_other_than_0_1():
    class Minutes(Latency):
        name: ClassVar[str] = "minutes"
        value_range: ClassVar[tuple[float, float]] = (0.0, 60.0)
        default_threshold: ClassVar[float] = 5.0

    assert Minutes(threshold=60).threshold == 60.0
    with pytest.raises(InvalidParameterError, match=r"in \[0, 60\] .*got 61\. Fix: .*threshold=5\b"):
        Minutes(threshold=61)


def test_scored_single_and_batch_with_lower_is_better():
    metric = Latency()
    scores = [metric.evaluate(case) for case in cases()]
    assert [s.value for s in scores] == SECONDS
    assert [s.passed for s in scores] == [True, True, False, False]  # value <= 2.5
    result = am.evaluate(cases(), [metric])
    scored = result.results["latency_s"]
    assert scored.values.tolist() == SECONDS
    assert scored.passed.tolist() == [True, True, False, False]
    assert scored.reason(3) == "took 12 s"
    # A value above 1 is no metric bug for a metric in seconds.
    assert Latency(threshold=1.0).evaluate(cases([1.7])[0]).passed is False


def test_the_summary_names_the_unit_in_its_title_and_keeps_its_columns():
    result = am.evaluate(cases(), [Latency()])
    summary = result.summary()
    assert summary.title.endswith("; latency_s in s)")
    assert summary.units == {"latency_s": "s"}
    assert summary.columns == am.evaluate(cases(), [am.ToolSelectionAccuracy()]).summary().columns
    row = summary[0]
    assert row["metric"] == "latency_s"
    assert (row["mean"], row["min"], row["max"], row["threshold"]) == (4.325, 0.4, 12.0, 2.5)
    assert row["pass_rate"] == 0.5
    # The mean's interval is clipped at the finite end only: no NaN, no infinity.
    assert row["mean_low"] == 0.0 and math.isfinite(row["mean_high"]) and row["mean_high"] > 12
    plain = result.summary(ci=None)
    assert plain.title == "Summary (latency_s in s)"
    shares = am.evaluate(cases(), [am.ToolSelectionAccuracy()]).summary(ci=None)
    assert shares.title == "Summary" and shares.units == {}


def test_merged_partitions_keep_the_unit_and_the_infinite_range():
    from agentmetrics.results._aggregate import Aggregate

    result = am.evaluate(cases(), [Latency()])
    aggregate = Aggregate.from_result(result)
    text = aggregate.to_json()
    assert '"value_range":[0.0,null]' in text and '"unit":"s"' in text
    again = Aggregate.from_json(text)
    summary = again.summary()
    assert summary.title.endswith("; latency_s in s)")
    assert summary[0]["mean"] == 4.325


def test_compare_says_the_unit_and_respects_the_direction():
    faster = am.evaluate(cases([0.3, 1.2, 2.2, 9.0]), [Latency()])
    slower = am.evaluate(cases(), [Latency()])
    comparison = am.compare(slower, faster)
    text = comparison.report()
    assert "latency_s (lower is better, in s): 4 paired cases" in text
    metric = comparison.metrics["latency_s"]
    assert metric.unit == "s"
    assert (metric.improved, metric.regressed, metric.newly_passing) == (4, 0, 1)
    assert math.isfinite(metric.difference.low) and math.isfinite(metric.difference.high)
    page = comparison.to_html()
    assert '>latency_s <span class="muted">in s</span></td>' in page


def test_describe_shows_the_values_and_the_unit(capsys):
    register_metric(Latency)
    try:
        described = describe_metric("latency_s")
        assert (described.value_range, described.unit) == ((0.0, math.inf), "s")
        assert main(["describe", "latency_s"]) == 0
        out = capsys.readouterr().out
        assert "values:             [0, inf), unit s\n" in out
        assert "default threshold:  2.5 s\n" in out
        assert "higher is better:   no\n" in out
        assert main(["describe", "latency_s", "--json"]) == 0
        record = json.loads(capsys.readouterr().out)
        assert (record["value_range"], record["unit"]) == ([0.0, None], "s")
    finally:
        unregister_metric("latency_s")


def test_the_report_shows_the_unit_and_draws_the_data_s_span(tmp_path):
    result = am.evaluate(cases(), [Latency()])
    page = result.to_html(tmp_path / "latency.html")
    text = page.read_text(encoding="utf-8") if hasattr(page, "read_text") else (
        tmp_path / "latency.html").read_text(encoding="utf-8")
    assert "latency_s in s)" in text  # the summary's caption
    assert "latency_s (s): 4 scored cases" in text  # the histogram's caption
    figure = text[text.index('<figure class="histogram"'):]
    figure = figure[:figure.index("</figure>")]
    assert "nan" not in figure.lower() and "inf" not in figure.lower()
    ticks = re.findall(r'text-anchor="middle">([^<]+)</text>', figure)
    assert ticks[:3] == ["0", "6", "12"]  # the axis runs over the data, from the finite floor
    assert "threshold 2.5" in figure


def test_the_histogram_axis_for_infinite_and_finite_ranges():
    values = np.array([3.0, np.nan, 7.0])
    assert axis_range(values, (0.0, 1.0), 0.5) == (0.0, 1.0)
    assert axis_range(values, (0.0, math.inf), 2.5) == (0.0, 7.0)
    assert axis_range(values, (-math.inf, math.inf), 10.0) == (3.0, 10.0)
    assert axis_range(np.array([4.0]), (-math.inf, math.inf), 4.0) == (3.0, 4.0)
    assert axis_range(np.array([0.0]), (0.0, math.inf), 0.0) == (0.0, 1.0)
    assert axis_range(np.array([np.nan]), (0.0, math.inf), 2.5) == (0.0, 2.5)
    counts = histogram(np.array([0.0, 70.0, 140.0]), (0.0, 140.0), bins=4)
    assert counts.tolist() == [1, 0, 1, 1]
    svg = histogram_svg(counts, (0.0, 140.0), 100.0, "tokens")
    assert "threshold 100" in svg and "70\u2013105: 1 cases" in svg


def test_a_class_default_threshold_outside_its_range_is_the_class_s_error():
    class Tokens(Metric):
        name: ClassVar[str] = "tokens_used"
        value_range: ClassVar[tuple[float, float]] = (0.0, 100.0)
        default_threshold: ClassVar[float] = 250.0

        def measure(self, case):
            return 1.0, "one"

    message = (r"Tokens.default_threshold must be a finite number in the class's value_range "
               r"\[0, 100\], got float 250.0")
    with pytest.raises(InvalidMetricError, match=message):
        Tokens()
    with pytest.raises(InvalidMetricError, match=message):
        Tokens(threshold=50)  # the class is wrong whatever the caller passes
    with pytest.raises(InvalidMetricError, match=message):
        register_metric(Tokens)

    class Seconds(Latency):
        value_range: ClassVar[tuple[float, float]] = (0.0, 1.0)  # the default of 2.5 left as is

    with pytest.raises(InvalidMetricError) as raised:
        Seconds()
    assert "Seconds.default_threshold" in str(raised.value)
    assert "threshold must be between 0 and 1" not in str(raised.value)  # not the caller's


@pytest.mark.parametrize("value_range", [
    (1.0, 0.0), (0.5, 0.5), (0.0, math.nan), (math.nan, 1.0), (math.inf, math.inf), (0.0,),
    [0.0, 1.0], (False, True), (0.0, "1"),
])
def test_an_unusable_value_range_is_refused_saying_what_is_accepted(value_range):
    class Ranged(Latency):
        pass

    Ranged.value_range = value_range
    with pytest.raises(InvalidMetricError, match=r"Ranged.value_range must be a \(low, high\) "
                                                 r"pair of numbers with low < high, either end "
                                                 r"possibly infinite and neither NaN"):
        Ranged()


@pytest.mark.parametrize("value_range", [(0.0, math.inf), (-math.inf, math.inf), (0.0, 60.0),
                                         (-1.0, 1.0), (-math.inf, 0.0)])
def test_any_interval_is_a_value_range(value_range):
    class Ranged(Latency):
        default_threshold: ClassVar[float] = 0.0

    Ranged.value_range = value_range
    assert Ranged().threshold == 0.0


@pytest.mark.parametrize("unit", ["", " s", "a very long unit name", 5, "s\n"])
def test_an_unusable_unit_is_refused(unit):
    class Dollars(Latency):
        pass

    Dollars.unit = unit
    with pytest.raises(InvalidMetricError, match=r"Dollars.unit must be None \(a share or score\)"):
        Dollars()


class VectorLatency(Latency):
    """Returns whatever values it is given, through its own evaluate_batch."""

    name: ClassVar[str] = "vector_latency"
    given: ClassVar[list[float]] = []

    def evaluate_batch(self, batch, *, errors="raise"):
        values = np.array(self.given, dtype=np.float64)
        return MetricResult(self, values, values <= self.threshold, {},
                            lambda row: f"took {values[row]:g} s")


@pytest.mark.parametrize("value, row", [(-0.5, 1), (math.inf, 1), (-math.inf, 1)])
def test_the_validator_refuses_a_value_outside_a_half_open_range(value, row):
    VectorLatency.given = [1.0, value]
    batch = ToolCallBatch.from_cases(cases([1.0, 1.0]))
    with pytest.raises(InvalidMetricError, match=rf"evaluate_batch gave row {row} the value "
                                                 rf"{re.escape(repr(value))}; expected a value "
                                                 rf"in \[0, inf\) \(the metric's value_range\)"):
        VectorLatency().evaluate_batch(batch)
    with pytest.raises(InvalidMetricError, match=r"expected a float in \[0, inf\)"):
        Latency().evaluate(cases([value])[0])


def test_the_validator_accepts_large_values_and_keeps_the_nan_rules():
    VectorLatency.given = [0.0, 1e12]
    batch = ToolCallBatch.from_cases(cases([1.0, 1.0]))
    result = VectorLatency().evaluate_batch(batch)
    assert result.values.tolist() == [0.0, 1e12] and result.passed.tolist() == [True, False]
    VectorLatency.given = [math.nan, 1.0]
    with pytest.raises(InvalidMetricError, match="NaN without an error"):
        VectorLatency().evaluate_batch(batch)
    assert out_of_range(np.array([np.nan, 5.0, np.inf]), (0.0, math.inf)) == 2
    assert out_of_range(np.array([np.nan, -5.0]), (-math.inf, math.inf)) is None


def test_the_pytest_marker_shows_the_unit_in_its_failure_message(pytester):
    pytester.makepyfile('''
        import math
        import pytest
        from agentmetrics import AgentTestCase, Metric

        class Latency(Metric):
            name = "latency_s"
            value_range = (0.0, math.inf)
            default_threshold = 2.5
            higher_is_better = False
            unit = "s"

            def measure(self, case):
                return case.metadata["seconds"], "took a while"

        @pytest.mark.agent_metric(Latency())
        def test_slow(agent_eval):
            agent_eval.record(AgentTestCase(tool_calls=["A"], metadata={"seconds": 3.25}))

        @pytest.mark.agent_metric(Latency(threshold=5))
        def test_fast_enough(agent_eval):
            agent_eval.record(AgentTestCase(tool_calls=["A"], metadata={"seconds": 3.25}))
    ''')
    report = pytester.path / "report.json"
    result = pytester.runpytest(f"--agentmetrics-report={report}")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*agent_metric: 1 of 1 evaluations did not pass",
                                 "*0*latency_s*3.25 s*2.5 s*took a while"])
    evaluations = json.loads(report.read_text())["evaluations"]
    assert {(e["value_range"][1], e["unit"]) for e in evaluations} == {(None, "s")}


def _ranged(low: float, high: float, threshold: float, higher: bool) -> Metric:
    cls = type("Ranged", (Metric,), {
        "name": "ranged", "value_range": (low, high), "default_threshold": threshold,
        "higher_is_better": higher,
        "measure": lambda self, case: (case.metadata["value"], "given")})
    return cls()


@st.composite
def ranged_cases(draw):
    low = draw(st.floats(-1e6, 1e6))
    high = draw(st.floats(-1e6, 1e6).filter(lambda x: x > low))
    inside = st.floats(low, high)
    return low, high, draw(inside), draw(st.lists(inside, min_size=1, max_size=8)), draw(st.booleans())


@settings(max_examples=60, deadline=None)
@given(ranged_cases())
def test_passed_follows_the_direction_for_any_finite_range(drawn):
    low, high, threshold, values, higher = drawn
    metric = _ranged(low, high, threshold, higher)
    batch = [AgentTestCase(tool_calls=["A"], metadata={"value": v}) for v in values]
    expected = [(v >= threshold) if higher else (v <= threshold) for v in values]
    assert [metric.evaluate(case).passed for case in batch] == expected
    assert am.evaluate(batch, [metric]).results["ranged"].passed.tolist() == expected
    checked = check_result(metric, ToolCallBatch.from_cases(batch),
                           MetricResult(metric, np.array(values, dtype=np.float64),
                                        np.array(expected, dtype=bool), {},
                                        lambda row: "given"))
    assert checked.passed.tolist() == expected


class Timed(Latency):
    """Seconds per call: the conformance kit's generated cases have no recorded time."""

    name: ClassVar[str] = "timed"

    def measure(self, case):
        seconds = case.metadata.get("seconds", 0.5 * len(case.tool_calls or ()))
        return float(seconds), f"took {seconds:g} s"


class Unbounded(Timed):
    name: ClassVar[str] = "unbounded"
    value_range: ClassVar[tuple[float, float]] = (-math.inf, math.inf)


class Sloppy(Timed):
    name: ClassVar[str] = "sloppy"
    default_threshold: ClassVar[float] = -1.0


def test_the_conformance_kit_checks_a_metric_in_its_own_units():
    from agentmetrics.testing import MetricConformanceError, check_metric

    check_metric(Timed, cases=cases())
    check_metric(Timed, {"threshold": 1e9}, cases=cases())
    check_metric(Unbounded, cases=cases([-3.0, 0.0, 8.5]))
    with pytest.raises(MetricConformanceError, match=r"class attributes: Sloppy.default_threshold"):
        check_metric(Sloppy, cases=cases())


@pytest.mark.parametrize("suffix", ["jsonl", "json", "parquet"])
def test_a_run_in_seconds_is_saved_and_loaded_with_its_range_and_unit(tmp_path, suffix):
    if suffix == "parquet":
        pytest.importorskip("pyarrow")
    result = am.evaluate(cases(), Latency())
    back = am.load_result(result.save(tmp_path / f"run.{suffix}", history=False))
    label = next(iter(back.results))
    metric = back[label].metric
    assert back[label].values.tolist() == result[label].values.tolist()
    assert (type(metric).value_range, type(metric).unit, metric.threshold) == (
        (0.0, math.inf), "s", Latency.default_threshold)
    assert back.summary().title == result.summary().title


def test_a_saved_metric_record_is_checked_against_its_own_range():
    from agentmetrics.runs import MetricSpec

    spec = MetricSpec(label="l", name="latency_s", version="1", source="", params={},
                      threshold=2.5, higher_is_better=False, value_range=(0.0, math.inf), unit="s")
    data = spec.to_json()
    assert data["value_range"] == [0.0, None] and data["unit"] == "s"
    assert MetricSpec.from_json(data) == spec
    assert MetricSpec.from_json({k: v for k, v in data.items() if k != "unit"}).unit is None
    for bad, where in (({"threshold": -1.0}, "threshold"), ({"threshold": "2.5"}, "threshold"),
                       ({"value_range": [0.0, 1e400]}, r"value_range\[1\]"),
                       ({"value_range": [1.0, 0.0]}, "value_range"), ({"unit": 5}, "unit")):
        with pytest.raises(am.InvalidCaseError, match=where):
            MetricSpec.from_json({**data, **bad})
