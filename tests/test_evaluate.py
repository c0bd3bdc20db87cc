"""evaluate(): metric specs, errors, chunking, progress; EvaluationResult's methods."""

from __future__ import annotations

import math
import sys
import warnings

import numpy as np
import pytest

from agentmetrics import (
    AgentTestCase,
    CaseEvaluationError,
    EvaluationResult,
    InvalidMetricError,
    InvalidParameterError,
    Metric,
    MissingFieldError,
    ToolSelectionAccuracy,
    evaluate,
)
from agentmetrics.engine import _evaluate
from agentmetrics.model._metric_result import MetricResult

ROWS = [
    ("ok", ["GetOrder", "CancelOrder"], ["GetOrder", "CancelOrder"]),
    ("extra", ["GetOrder", "DeleteOrder"], ["GetOrder"]),
    ("missed", ["GetOrder"], ["GetOrder", "IssueRefund"]),
    ("swapped", ["CancelOrder", "GetOrder"], ["GetOrder", "CancelOrder"]),
    ("none", [], []),
]


def cases(rows=ROWS):
    return [AgentTestCase(tool_calls=c, expected_tool_calls=e, metadata={"id": i}) for i, c, e in rows]


class CallCount(Metric):
    """A third-party style metric with no evaluate_batch of its own."""

    name = "call_count"
    required_fields = ("tool_calls",)

    def measure(self, case):
        if len(case.tool_calls) > 1 and case.tool_calls[1].name == "DeleteOrder":
            raise KeyError("boom")
        return min(len(case.tool_calls), 2) / 2, f"{len(case.tool_calls)} calls"


# --- metric specs and labels -------------------------------------------------------

def test_metric_specs_in_every_form():
    result = evaluate(cases(), [
        "tool_selection_accuracy",
        ("tool_selection_accuracy", {"order_matters": True}),
        ToolSelectionAccuracy(threshold=0.5),
    ])
    assert result.metrics == (
        "tool_selection_accuracy(threshold=0.8, order_matters=False)",
        "tool_selection_accuracy(threshold=0.8, order_matters=True)",
        "tool_selection_accuracy(threshold=0.5, order_matters=False)",
    )
    pair = evaluate(cases(), [ToolSelectionAccuracy(), ToolSelectionAccuracy(order_matters=True)])
    assert pair.metrics == (
        "tool_selection_accuracy(order_matters=False)", "tool_selection_accuracy(order_matters=True)")
    single = evaluate(cases(), ToolSelectionAccuracy)
    assert single.metrics == ("tool_selection_accuracy",) and len(single) == 5
    assert single["tool_selection_accuracy"].values.tolist() == [1.0, 0.5, 0.5, 1.0, 1.0]


@pytest.mark.parametrize(
    ("metrics", "message"),
    [
        ([], "at least one metric"),
        ([3], "expected Metric instances, registry names"),
        ([ToolSelectionAccuracy(), ToolSelectionAccuracy()], "given twice with the same parameters"),
    ],
)
def test_bad_metric_specs(metrics, message):
    with pytest.raises(InvalidParameterError, match=message):
        evaluate(cases(), metrics)


@pytest.mark.parametrize("bad", [AgentTestCase(tool_calls=[], expected_tool_calls=[]), "cases.jsonl", 5])
def test_cases_must_be_a_collection(bad):
    with pytest.raises(InvalidParameterError, match="cases: expected a list or iterable of AgentTestCase"):
        evaluate(bad, "tool_selection_accuracy")


def test_unknown_metric_name_suggests():
    with pytest.raises(LookupError, match="Did you mean 'tool_selection_accuracy'"):
        evaluate(cases(), "tool_selection_acuracy")


# --- errors -------------------------------------------------------------------

def broken_cases():
    return cases() + [AgentTestCase(tool_calls=["A"], metadata={"id": "no-expected"}),
                      AgentTestCase(expected_tool_calls=["A"])]


def test_errors_raise_names_the_case_and_chains_the_cause():
    with pytest.raises(CaseEvaluationError) as info:
        evaluate(broken_cases(), "tool_selection_accuracy")
    error = info.value
    assert (error.index, error.case_id, error.metric) == (5, "no-expected", "tool_selection_accuracy")
    assert str(error).startswith("case 5 (id 'no-expected') could not be scored by 'tool_selection_accuracy'")
    assert "errors='record'" in str(error)
    assert isinstance(error.__cause__, MissingFieldError) and error.__cause__.field == "expected_tool_calls"


def test_errors_record_keeps_every_row():
    result = evaluate(broken_cases(), ["tool_selection_accuracy", CallCount()], errors="record")
    tsa = result["tool_selection_accuracy"]
    assert len(tsa) == 7 and np.isnan(tsa.values[5:]).all() and not tsa.passed[5:].any()
    assert tsa.errors == {
        5: str(MissingFieldError("tool_selection_accuracy", "expected_tool_calls")),
        6: str(MissingFieldError("tool_selection_accuracy", "tool_calls")),
    }
    assert tsa.reason(5) == tsa.errors[5]
    count = result["call_count"]
    assert count.errors == {
        1: "metric bug in CallCount: KeyError: 'boom'. Report it to the metric's author.",
        6: str(MissingFieldError("call_count", "tool_calls"))}
    row = result.summary()[0]
    assert (row["n"], row["errors"], row["passed"]) == (7, 2, 3)
    assert row["mean"] == pytest.approx(np.mean([1.0, 0.5, 0.5, 1.0, 1.0]))
    assert row["pass_rate"] == pytest.approx(3 / 7)
    with pytest.raises(CaseEvaluationError):
        tsa.score(5)


def test_a_metric_bug_keeps_its_type_and_says_whose_bug_it_is():
    # Not a CaseEvaluationError, whose message tells the user to fix the case.
    with pytest.raises(KeyError, match="boom") as info:
        evaluate(cases(), CallCount())
    if sys.version_info >= (3, 11):
        assert info.value.__notes__ == [
            "agentmetrics: metric bug in CallCount while scoring case 1 (id 'extra'); the case "
            "is not at fault. errors='record' scores the rest."]


def test_a_metric_whose_batch_result_has_the_wrong_length_is_refused():
    class Short(CallCount):
        name = "short"

        def evaluate_batch(self, batch, *, errors="raise"):
            return MetricResult(self, np.zeros(1), np.zeros(1, bool), {}, str)

    with pytest.raises(InvalidMetricError, match=r"^metric bug in .*Short: evaluate_batch returned "
                                                 r"values of dtype float64 and shape \(1,\); "
                                                 r"expected float64 of shape \(5,\)"):
        evaluate(cases(), Short())


# --- chunking -------------------------------------------------------------------

def test_chunked_scoring_equals_one_shot(monkeypatch):
    many = broken_cases() * 5
    whole = evaluate(many, ["tool_selection_accuracy", CallCount()], errors="record")
    monkeypatch.setattr(_evaluate, "SLICE_CASES", 4)
    chunked = evaluate(many, ["tool_selection_accuracy", CallCount()], errors="record")
    for label in whole.metrics:
        assert np.array_equal(whole[label].values, chunked[label].values, equal_nan=True)
        assert whole[label].errors == chunked[label].errors
        assert list(whole[label].reasons) == list(chunked[label].reasons)
    with pytest.raises(CaseEvaluationError) as info:
        evaluate(cases() * 3 + broken_cases(), "tool_selection_accuracy")
    assert info.value.index == 20 and info.value.case_id == "no-expected"


# --- progress ---------------------------------------------------------------------

def test_progress_plain_bar_without_tqdm(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "tqdm", None)
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    evaluate(cases(), "tool_selection_accuracy", progress=True)
    err = capsys.readouterr().err
    assert "agentmetrics: 100% (10/10 cases)" in err and err.endswith("\n")
    evaluate(cases(), "tool_selection_accuracy", progress=False)
    evaluate(cases(), "tool_selection_accuracy")  # small runs: off by default
    assert capsys.readouterr().err == ""


def test_progress_uses_tqdm_when_installed(capsys):
    pytest.importorskip("tqdm")
    evaluate(cases(), "tool_selection_accuracy", progress=True)
    assert "agentmetrics" in capsys.readouterr().err


# --- result tables ------------------------------------------------------------------

@pytest.fixture
def result() -> EvaluationResult:
    return evaluate(cases(), ["tool_selection_accuracy", ("tool_selection_accuracy", {"order_matters": True})])


ORDERED = "tool_selection_accuracy(order_matters=True)"
UNORDERED = "tool_selection_accuracy(order_matters=False)"


def test_summary_matches_numpy(result):
    table = result.summary()
    assert table["metric"] == [UNORDERED, ORDERED]
    for row in table:
        values = result[row["metric"]].values
        assert row["mean"] == pytest.approx(values.mean())
        assert row["std"] == pytest.approx(values.std())
        assert (row["min"], row["max"]) == (values.min(), values.max())
        assert row["pass_rate"] == pytest.approx(result[row["metric"]].passed.mean())
        assert row["errors"] == 0 and row["threshold"] == 0.8


def test_failures_lists_failed_cases_with_reasons(result):
    table = result.failures()
    assert [(r["case"], r["id"], r["metric"]) for r in table] == [
        (1, "extra", UNORDERED), (1, "extra", ORDERED), (2, "missed", UNORDERED),
        (2, "missed", ORDERED), (3, "swapped", ORDERED)]
    assert table[4]["reason"] == (
        "Out of expected order: expected GetOrder -> CancelOrder, called CancelOrder -> GetOrder")
    assert len(result.failures(ORDERED)) == 3
    assert len(result.failures(limit=2)) == 2
    with pytest.raises(KeyError, match="no metric 'nope'"):
        result.failures("nope")


def reference_per_tool(rows):
    tools = {}
    for _, called, expected in rows:
        for name in set(called) | set(expected):
            entry = tools.setdefault(name, [0, 0, 0])
            entry[0] += name in expected
            entry[1] += name in called
            entry[2] += name in expected and name in called
    return {name: (e, c, e - h, c - h, h / c if c else math.nan, h / e if e else math.nan)
            for name, (e, c, h) in tools.items()}


def test_per_tool_against_a_reference(result):
    table = result.per_tool()
    got = {r["tool"]: (r["expected"], r["called"], r["missed"], r["unexpected"], r["precision"], r["recall"])
           for r in table}
    want = reference_per_tool(ROWS)
    assert got.keys() == want.keys()
    for name in want:
        np.testing.assert_equal(got[name], want[name])
    assert table[0]["tool"] == "IssueRefund"  # sorted by misses first


def test_per_tool_skips_cases_without_both_lists():
    result = evaluate(broken_cases(), "tool_selection_accuracy", errors="record")
    got = {r["tool"]: r["called"] for r in result.per_tool()}
    assert "A" not in got and got["GetOrder"] == 4


def test_to_pandas_and_to_dicts(result):
    pytest.importorskip("pandas")
    frame = result.to_pandas()
    assert list(frame.columns) == [
        "id", UNORDERED, f"{UNORDERED}_passed", f"{UNORDERED}_reason",
        ORDERED, f"{ORDERED}_passed", f"{ORDERED}_reason"]
    assert frame.index.name == "case" and len(frame) == 5
    assert frame.loc[3, f"{ORDERED}_reason"].startswith("Out of expected order")
    dicts = result.to_dicts(reasons=False)
    assert dicts[1] == {"case": 1, "id": "extra", UNORDERED: 0.5, f"{UNORDERED}_passed": False,
                        ORDERED: 0.5, f"{ORDERED}_passed": False}
    recorded = evaluate(broken_cases(), "tool_selection_accuracy", errors="record").to_dicts()
    assert recorded[5]["tool_selection_accuracy_error"].startswith("metric 'tool_selection_accuracy' requires")
    assert recorded[0]["tool_selection_accuracy_error"] is None


def test_reprs(result):
    text = repr(result)
    assert text.startswith("EvaluationResult(5 cases, metrics: ")
    assert "Summary" in text and "pass_rate" in text
    html = result._repr_html_()
    assert "<table>" in html and "5 failing case-metric pairs" in html
    assert repr(result[ORDERED]) == (
        "MetricResult(ToolSelectionAccuracy(threshold=0.8, order_matters=True), 5 cases, 0 errors)")


def test_reasons_sequence(result):
    reasons = result[ORDERED].reasons
    assert len(reasons) == 5 and reasons[-1] == "No tools expected and none called"
    assert reasons[1:3] == [reasons[1], reasons[2]]
    with pytest.raises(IndexError):
        reasons[5]


def test_plot_draws_a_histogram_with_the_threshold(result):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    axes = result.plot()
    assert len(axes) == 2
    ax = result.plot(ORDERED)
    lines = [line.get_xdata()[0] for line in ax.get_lines()]
    assert lines == [0.8]
    assert sum(patch.get_height() for patch in ax.patches) == 5
    assert "pass rate 40.0%" in ax.get_title()
    plt.close("all")


def test_table_helpers(result):
    table = result.per_tool()
    assert table.to_dicts() == list(table)
    with pytest.raises(KeyError, match="no column 'x'"):
        table["x"]
    assert "<caption>Per tool</caption>" in table._repr_html_()
    assert table.render(limit=1).endswith("more rows")


def test_a_case_without_an_id_is_named_by_position():
    with pytest.raises(CaseEvaluationError, match=r"^case 1 could not be scored") as info:
        evaluate([AgentTestCase(tool_calls=[], expected_tool_calls=[]), AgentTestCase(tool_calls=[])],
                 "tool_selection_accuracy")
    assert info.value.case_id is None
    assert evaluate(cases()[:1] + [AgentTestCase(tool_calls=[], expected_tool_calls=[])],
                    ToolSelectionAccuracy()).batch.case_ids == ("ok", None)


def test_evaluate_of_nothing_warns_and_gives_an_empty_result():
    """Issue 48: evaluate([]) gave a row of NaN with no warning."""
    import agentmetrics as am

    with pytest.warns(am.EmptyEvaluationWarning, match=r"evaluate\(\) was given 0 cases.*NaN"):
        result = am.evaluate([], "tool_selection_accuracy")
    assert len(result) == 0
    with pytest.warns(am.EmptyEvaluationWarning, match=r"aevaluate\(\) was given 0 cases"):
        import asyncio

        asyncio.run(am.aevaluate([], "tool_selection_accuracy"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        am.evaluate([am.AgentTestCase(tool_calls=["a"], expected_tool_calls=["a"])],
                    "tool_selection_accuracy")
