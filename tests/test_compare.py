"""agentmetrics.compare, `agentmetrics compare` and the pytest baseline gate.

Every number of a comparison is checked against a small reference computed
here from the two sides' arrays (or SciPy's paired t test); pairing, cases on
one side only, errors, the metric's better direction and saved results are
exercised end to end.
"""

from __future__ import annotations

import json
import math
from typing import ClassVar

import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st

import agentmetrics as am
from agentmetrics.cli import main
from agentmetrics.errors import InvalidCaseError, InvalidParameterError
from agentmetrics.stats import mcnemar_exact, paired_difference
from ranged_metrics import GivenScore, HalfScore, MiddleScore
from conftest import warns_if_empty

EXPECTED = ["GetOrder", "CancelOrder", "IssueRefund"]


def _case(case_id, calls, expected=EXPECTED, **metadata):
    return am.AgentTestCase(tool_calls=calls, expected_tool_calls=expected,
                            metadata={"id": case_id, **metadata})


def _pair_of_runs():
    base = [_case("a", EXPECTED), _case("b", EXPECTED[:2]), _case("c", ["GetOrder"]),
            _case("d", EXPECTED), _case("e", ["Search"])]
    cand = [_case("e", ["Search", "GetOrder"]), _case("d", ["GetOrder"]),
            _case("c", ["GetOrder"]), _case("b", EXPECTED), _case("a", EXPECTED),
            _case("f", EXPECTED)]
    return am.evaluate(base, "tool_selection_accuracy"), am.evaluate(cand,
                                                                      "tool_selection_accuracy")


def _reference(base, cand, label="tool_selection_accuracy"):
    """Pairs by id, written out: (ids, baseline values, candidate values, passes)."""
    b, c = base[label], cand[label]
    b_index = {base.batch.case_id(i): i for i in range(len(base))}
    ids = [cand.batch.case_id(j) for j in range(len(cand)) if cand.batch.case_id(j) in b_index]
    ids.sort(key=lambda key: b_index[key])
    c_index = {cand.batch.case_id(j): j for j in range(len(cand))}
    before = np.array([b.values[b_index[k]] for k in ids])
    after = np.array([c.values[c_index[k]] for k in ids])
    was = np.array([b.passed[b_index[k]] for k in ids])
    now = np.array([c.passed[c_index[k]] for k in ids])
    return ids, before, after, was, now


def test_a_comparison_pairs_cases_by_id_and_matches_the_reference():
    base, cand = _pair_of_runs()
    comparison = am.compare(base, cand)
    m = comparison["tool_selection_accuracy"]
    ids, before, after, was, now = _reference(base, cand)
    assert ids == ["a", "b", "c", "d", "e"]
    reference = scipy.stats.ttest_rel(after, before)
    low, high = reference.confidence_interval(0.95)
    assert m.difference.mean == pytest.approx(float(np.mean(after - before)))
    assert (m.difference.low, m.difference.high) == pytest.approx((low, high))
    assert m.difference.p_value == pytest.approx(reference.pvalue)
    assert (m.paired, m.scored) == (5, 5)
    assert (m.improved, m.regressed, m.unchanged) == (
        int(np.sum(after > before)), int(np.sum(after < before)), int(np.sum(after == before)))
    assert (m.newly_passing, m.newly_failing) == (int(np.sum(now & ~was)),
                                                 int(np.sum(was & ~now)))
    assert m.mcnemar_p == mcnemar_exact(m.newly_failing, m.newly_passing)
    assert (m.baseline_mean, m.candidate_mean) == (pytest.approx(before.mean()),
                                                   pytest.approx(after.mean()))
    assert comparison.only_in_candidate["tool_selection_accuracy"] == ("f",)
    assert comparison.only_in_baseline["tool_selection_accuracy"] == ()


def test_regressions_show_both_reasons_worst_first():
    base, cand = _pair_of_runs()
    comparison = am.compare(base, cand)
    regressions = comparison.regressions()
    assert regressions["key"] == ["d"]  # 1.0 -> 1/3; c stayed at 1/3
    first = regressions[0]
    assert first["baseline_reason"] == "All expected tools called: GetOrder, CancelOrder, " \
                                       "IssueRefund"
    assert first["candidate_reason"] == "Missing expected tools: CancelOrder, IssueRefund"
    assert first["change"] == pytest.approx(1 / 3 - 1)
    improvements = comparison.improvements()
    assert improvements["key"] == ["b", "e"]  # +1/3, then +1/4: best first
    assert len(comparison.improvements(limit=1)) == 1


def test_a_lower_is_better_metric_is_judged_the_other_way():
    class CallCount(am.Metric):
        """A share of calls that were unexpected: lower is better."""

        name: ClassVar[str] = "unexpected_share"
        higher_is_better: ClassVar[bool] = False
        default_threshold: ClassVar[float] = 0.2

        def measure(self, case):
            calls = [c.name for c in case.tool_calls]
            expected = {c.name for c in case.expected_tool_calls}
            share = sum(name not in expected for name in calls) / max(1, len(calls))
            return share, f"{share:.2f} unexpected"

    base = [_case(str(i), ["GetOrder"]) for i in range(30)]
    cand = [_case(str(i), ["GetOrder", "Delete"]) for i in range(30)]
    comparison = am.compare(am.evaluate(base, CallCount()), am.evaluate(cand, CallCount()))
    m = comparison["unexpected_share"]
    assert m.difference.mean == 0.5 and not m.higher_is_better
    assert (m.regressed, m.improved) == (30, 0)
    assert m.scores_worse and m.passes_worse and m.verdict == "worse"
    assert comparison.significantly_worse == ("unexpected_share",)
    assert comparison.regressions()["change"][0] == -0.5  # in the better direction
    reverse = am.compare(am.evaluate(cand, CallCount()), am.evaluate(base, CallCount()))
    assert reverse["unexpected_share"].verdict == "better"
    assert reverse.significantly_worse == ()


def test_errors_are_counted_not_scored_and_fail_the_pass_side():
    base = [_case(str(i), EXPECTED) for i in range(20)]
    cand = [_case(str(i), EXPECTED, expected=None if i < 12 else EXPECTED) for i in range(20)]
    comparison = am.compare(am.evaluate(base, "tool_selection_accuracy"),
                            am.evaluate(cand, "tool_selection_accuracy", errors="record"))
    m = comparison["tool_selection_accuracy"]
    assert (m.paired, m.scored, m.new_errors, m.fixed_errors) == (20, 8, 12, 0)
    assert m.difference.mean == 0.0 and not m.scores_worse
    assert (m.newly_failing, m.newly_passing) == (12, 0)
    assert m.passes_worse and m.verdict == "worse"  # a candidate that cannot score is worse
    rows = comparison.regressions()
    assert len(rows) == 12 and math.isnan(rows[0]["candidate"])
    assert "expected_tool_calls" in rows[0]["candidate_reason"]


def test_pairing_needs_unique_keys_and_says_how_to_pair_otherwise():
    base = [_case("a", EXPECTED), _case("a", EXPECTED)]
    cand = [_case("a", EXPECTED), _case("b", EXPECTED)]
    with pytest.raises(InvalidParameterError, match=r"'a' .* row 0 and row 1.*on=None"):
        am.compare(am.evaluate(base, "tool_selection_accuracy"),
                   am.evaluate(cand, "tool_selection_accuracy"))
    by_position = am.compare(am.evaluate(base, "tool_selection_accuracy"),
                             am.evaluate(cand, "tool_selection_accuracy"), on=None)
    assert by_position["tool_selection_accuracy"].paired == 2
    anonymous = [am.AgentTestCase(tool_calls=["A"], expected_tool_calls=["A"])]
    with pytest.raises(InvalidParameterError, match="have none.*on=None"):
        am.compare(am.evaluate(anonymous, "tool_selection_accuracy"),
                   am.evaluate(anonymous, "tool_selection_accuracy"))


def test_pairing_on_a_metadata_key():
    base = [_case(f"run-{i}", EXPECTED, task=f"t{i}") for i in range(4)]
    cand = [_case(f"other-{i}", EXPECTED[:2], task=f"t{3 - i}") for i in range(4)]
    comparison = am.compare(am.evaluate(base, "tool_selection_accuracy"),
                            am.evaluate(cand, "tool_selection_accuracy"), on="task")
    assert comparison["tool_selection_accuracy"].paired == 4
    assert sorted(comparison.regressions()["key"]) == ["t0", "t1", "t2", "t3"]


def test_metrics_on_one_side_only_are_listed():
    cases = [_case("a", EXPECTED)]
    base = am.evaluate(cases, ["tool_selection_accuracy",
                               ("tool_selection_accuracy", {"order_matters": True})])
    cand = am.evaluate(cases, "tool_selection_accuracy")
    with pytest.raises(InvalidParameterError, match="at least one metric in common"):
        am.compare(base, cand)
    cand = am.evaluate(cases, [("tool_selection_accuracy", {"order_matters": False})])
    both = am.evaluate(cases, [("tool_selection_accuracy", {"order_matters": True}),
                               ("tool_selection_accuracy", {"order_matters": False})])
    comparison = am.compare(base, both)
    assert list(comparison.metrics) == list(base.metrics)
    with pytest.raises(InvalidParameterError, match="not a metric of both sides"):
        am.compare(base, both, metrics="nope")
    assert list(am.compare(base, both, metrics=[base.metrics[1]]).metrics) == [base.metrics[1]]
    assert cand  # (a single metric's label differs from the pair's: nothing in common)


def test_permutation_method_and_ci_level():
    base, cand = _pair_of_runs()
    exact = am.compare(base, cand, method="permutation")["tool_selection_accuracy"]
    assert exact.difference.method == "sign-flip permutation"
    narrow = am.compare(base, cand, ci=0.5)["tool_selection_accuracy"].difference
    wide = am.compare(base, cand, ci=0.99)["tool_selection_accuracy"].difference
    assert wide.low < narrow.low and narrow.high < wide.high
    with pytest.raises(InvalidParameterError, match="'t' or 'permutation'"):
        am.compare(base, cand, method="wilcoxon")
    with pytest.raises(InvalidParameterError, match="EvaluationResult"):
        am.compare(base, [1, 2])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.lists(st.sampled_from(EXPECTED + ["X"]), max_size=4),
                          st.lists(st.sampled_from(EXPECTED + ["X"]), max_size=4)),
                min_size=1, max_size=25))
def test_swapping_the_sides_mirrors_the_comparison(runs):
    base = am.evaluate([_case(str(i), b) for i, (b, _) in enumerate(runs)],
                       "tool_selection_accuracy")
    cand = am.evaluate([_case(str(i), c) for i, (_, c) in enumerate(runs)],
                       "tool_selection_accuracy")
    forward = am.compare(base, cand)["tool_selection_accuracy"]
    backward = am.compare(cand, base)["tool_selection_accuracy"]
    assert forward.difference.mean == pytest.approx(-backward.difference.mean, abs=1e-12)
    assert (forward.improved, forward.regressed, forward.newly_passing) == (
        backward.regressed, backward.improved, backward.newly_failing)
    assert forward.mcnemar_p == backward.mcnemar_p
    same = am.compare(base, base)["tool_selection_accuracy"]
    assert (same.difference.mean, same.regressed, same.improved) == (0.0, 0, 0)
    assert same.verdict == "no clear difference"


def test_exports_and_display(tmp_path):
    pd = pytest.importorskip("pandas")
    base, cand = _pair_of_runs()
    comparison = am.compare(base, cand)
    frame = comparison.to_pandas()
    assert isinstance(frame, pd.DataFrame)
    assert sorted(frame["key"]) == ["a", "b", "c", "d", "e", "f"]
    assert frame.set_index("key").loc["f", "status"] == "only in candidate"
    assert set(frame["status"]) >= {"improved", "regressed", "unchanged"}
    text = repr(comparison)
    assert "tool_selection_accuracy (higher is better): 5 paired cases" in text
    assert "only in the candidate: 1 case ('f')" in text
    assert "Regressions" in text
    page = comparison._repr_html_()
    assert "<table>" in page and "only in the candidate" in page
    summary = comparison.summary()
    assert summary[0]["only_in_candidate"] == 1 and summary[0]["paired"] == 5
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    ax = comparison.plot()
    assert ax.get_yticklabels()[0].get_text() == "tool_selection_accuracy"


# -- saved results ---------------------------------------------------------------------


def _cases_file(path, runs):
    with open(path, "w", encoding="utf-8") as handle:
        for case_id, calls in runs:
            handle.write(json.dumps({"id": case_id, "tool_calls": calls,
                                     "expected_tool_calls": EXPECTED}) + "\n")
    return str(path)


def _runs(n, broken):
    """n cases; the first `broken` lose their last call."""
    return [(f"case-{i}", EXPECTED[:2] if i < broken else EXPECTED) for i in range(n)]


def test_saved_results_compare_like_the_results_themselves(tmp_path, capsys):
    base_cases = _cases_file(tmp_path / "base.jsonl", _runs(30, 2))
    cand_cases = _cases_file(tmp_path / "cand.jsonl", _runs(30, 9))
    saved = {}
    for name, path, form in (("base", base_cases, "jsonl"), ("cand", cand_cases, "json")):
        target = tmp_path / f"{name}.{form}.out"
        assert main(["evaluate", path, "--format", form]) == 0
        target.write_text(capsys.readouterr().out, encoding="utf-8")
        saved[name] = str(target)
    from_results = am.compare(
        am.evaluate(list(am.read_cases(base_cases)), "tool_selection_accuracy"),
        am.evaluate(list(am.read_cases(cand_cases)), "tool_selection_accuracy"))
    from_files = am.compare(saved["base"], saved["cand"])
    assert from_files.summary().rows[0][1:] == from_results.summary().rows[0][1:]
    assert from_files.baseline.name == saved["base"]
    by_position = am.compare(saved["base"], saved["cand"], on=None)
    assert by_position["tool_selection_accuracy"].paired == 30
    with pytest.raises(InvalidParameterError, match="id and position only"):
        am.compare(saved["base"], saved["cand"], on="task")


@pytest.mark.parametrize("content, message", [
    ('{"case": 0, "metric": "tool_selection_accuracy"}\n', "expected a row"),
    ('{"case": 0, "id": "a", "metric": 3, "value": 1, "passed": true}\n', "'metric'"),
    ('{"case": 0, "id": "a", "metric": "tool_selection_accuracy", "value": "1", '
     '"passed": true}\n', "'value'"),
    ('{"case": 0, "id": "a", "metric": "tool_selection_accuracy", "value": 1, '
     '"passed": 1}\n', "'passed'"),
    ('{"case": 0, "id": "a", "metric": "tool_selection_accuracy", "value": null, '
     '"passed": false}\n', "'error' says nothing"),
    ('{"case": 0, "id": null, "metric": "tool_selection_accuracy", "value": 1, '
     '"passed": true}\n', "no id"),
    ('{"case": 0, "id": "a", "metric": "no_such_metric", "value": 1, "passed": true}\n',
     "higher scores are better"),
    ('{"case": 0, "id": "a", "metric": "tool_selection_accuracy", "value": 1, '
     '"passed": true}\nNaN\n', ":2:"),
])
def test_saved_results_are_read_exactly_or_refused(tmp_path, content, message):
    path = tmp_path / "saved.jsonl"
    path.write_text(content, encoding="utf-8")
    good = tmp_path / "good.jsonl"
    good.write_text('{"case": 0, "id": "a", "metric": "tool_selection_accuracy", "value": 1, '
                    '"passed": true}\n', encoding="utf-8")
    with pytest.raises((InvalidCaseError, InvalidParameterError), match=message) as raised:
        am.compare(str(good), str(path))
    assert str(path) in str(raised.value)


def test_a_missing_file_is_named():
    with pytest.raises(InvalidParameterError, match="nowhere.jsonl"):
        am.compare("nowhere.jsonl", "nowhere.jsonl")


# -- the command ----------------------------------------------------------------------


def test_the_command_compares_cases_files_and_gates(tmp_path, capsys):
    base = _cases_file(tmp_path / "base.jsonl", _runs(40, 2))
    worse = _cases_file(tmp_path / "worse.jsonl", _runs(40, 14))
    assert main(["compare", base, worse]) == 0
    out = capsys.readouterr().out
    assert f"{worse} (candidate) against {base} (baseline)" in out
    assert "12 newly failing" in out and "verdict   worse" in out
    assert main(["compare", base, worse, "--fail-on-regression"]) == 1
    out = capsys.readouterr().out
    assert "FAILED: the candidate is significantly worse on tool_selection_accuracy" in out
    assert main(["compare", worse, base, "--fail-on-regression"]) == 0
    capsys.readouterr()
    assert main(["compare", base, worse, "--format", "json", "--fail-on-regression"]) == 1
    captured = capsys.readouterr()
    document = json.loads(captured.out)
    assert document["metrics"][0]["newly_failing"] == 12
    assert document["metrics"][0]["significantly_worse"] is True
    assert "FAILED" in captured.err
    same = _cases_file(tmp_path / "same.jsonl", _runs(40, 3))
    assert main(["compare", base, same, "--fail-on-regression"]) == 0  # 1 more fail: chance


def test_the_command_takes_metrics_pairing_and_methods(tmp_path, capsys):
    base = _cases_file(tmp_path / "base.jsonl", _runs(10, 0))
    cand = _cases_file(tmp_path / "cand.jsonl", _runs(10, 4))
    assert main(["compare", base, cand, "--metric", "tool_selection_accuracy:threshold=0.5",
                 "--metric", "tool_selection_accuracy:threshold=0.9", "--on", "position",
                 "--method", "permutation", "--ci", "0.9"]) == 0
    out = capsys.readouterr().out
    assert "tool_selection_accuracy(threshold=0.5) (higher is better)" in out
    assert "(90% CI), p = " in out and "sign-flip permutation" in out


@pytest.mark.parametrize("argv, message", [
    (["compare", "missing.jsonl", "missing.jsonl"], "missing.jsonl"),
    (["compare", "BASE", "BAD"], "BAD:1"),
    (["compare", "BASE", "BASE", "--metric", "no_such_metric"], "no_such_metric"),
    (["compare", "BASE", "SAVED", "--metric", "tool_selection_accuracy"], "two of a kind"),
])
def test_the_command_reports_bad_input_without_a_traceback(tmp_path, capsys, argv, message):
    base = _cases_file(tmp_path / "base.jsonl", _runs(3, 0))
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{not json\n", encoding="utf-8")
    saved = tmp_path / "saved.jsonl"
    saved.write_text('{"case": 0, "id": "case-0", "metric": "tool_selection_accuracy", '
                     '"value": 1, "passed": true}\n', encoding="utf-8")
    paths = {"BASE": base, "BAD": str(bad), "SAVED": str(saved)}
    assert main([paths.get(a, a) for a in argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("agentmetrics: error: ") and "Traceback" not in err
    assert message.replace("BAD", str(bad)) in err


# -- the pytest baseline -----------------------------------------------------------------

AGENT_TESTS = """
import os
import pytest

BROKEN = int(os.environ.get("BROKEN_RUNS", "0"))

@pytest.mark.parametrize("run", range(16))
@pytest.mark.agent_metric("tool_selection_accuracy", threshold=0.4)
def test_refund(agent_eval, run):
    calls = ["GetOrder"] if run < BROKEN else ["GetOrder", "IssueRefund"]
    agent_eval.record_run(tool_calls=calls, expected_tool_calls=["GetOrder", "IssueRefund"])
"""


def test_a_session_is_compared_with_a_saved_report(pytester, monkeypatch):
    """Every test passes its own threshold; the gate still sees the drift."""
    pytester.makepyfile(test_agent=AGENT_TESTS)
    assert pytester.runpytest("--agentmetrics-report", "base.json").ret == 0
    monkeypatch.setenv("BROKEN_RUNS", "1")
    one = pytester.runpytest("--agentmetrics-baseline", "base.json",
                             "--agentmetrics-fail-on-regression",
                             "--deselect", "test_agent.py::test_refund[0]")
    one.stdout.fnmatch_lines(["*this session (candidate) against base.json (baseline)*",
                              "*15 paired cases*", "*verdict   no clear difference*",
                              "*only in the baseline: 1 case (test_agent.py::test_refund[[]0[]] "
                              "[[]case 0[]]), not compared*"])
    assert one.ret == 0  # run 0 is deselected: nothing got worse
    monkeypatch.setenv("BROKEN_RUNS", "9")
    advisory = pytester.runpytest("--agentmetrics-baseline", "base.json")
    advisory.stdout.fnmatch_lines(["*16 passed*"])
    assert advisory.ret == 0  # compared and shown, not gated
    worse = pytester.runpytest("--agentmetrics-baseline", "base.json",
                               "--agentmetrics-fail-on-regression")
    worse.stdout.fnmatch_lines(["*9 regressed*", "*verdict   worse*",
                                "*test_agent.py::test_refund?0? [[]case 0[]]*",
                                "*FAILED: significantly worse than the baseline on "
                                "tool_selection_accuracy*", "*16 passed*"])
    assert worse.ret == 1


def test_a_gate_that_cannot_judge_fails(pytester):
    pytester.makepyfile(test_agent=AGENT_TESTS)
    pytester.path.joinpath("base.json").write_text('{"agentmetrics_report": 1, '
                                                   '"evaluations": "oops"}', encoding="utf-8")
    result = pytester.runpytest("--agentmetrics-baseline", "base.json",
                                "--agentmetrics-fail-on-regression")
    result.stdout.fnmatch_lines(["*cannot compare with the baseline*evaluations*"])
    assert result.ret == 1
    advisory = pytester.runpytest("--agentmetrics-baseline", "base.json")
    assert advisory.ret == 0


def test_the_gate_needs_a_baseline_that_exists(pytester):
    pytester.makepyfile(test_agent=AGENT_TESTS)
    result = pytester.runpytest("--agentmetrics-fail-on-regression")
    result.stderr.fnmatch_lines(["*--agentmetrics-baseline PATH as well*"])
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    missing = pytester.runpytest("--agentmetrics-baseline", "nowhere.json")
    missing.stderr.fnmatch_lines(["*no such file*"])
    assert missing.ret == pytest.ExitCode.USAGE_ERROR


# -- fuzzing the saved-results reader ---------------------------------------------------

FUZZ = int(__import__("os").environ.get("AGENTMETRICS_FUZZ_EXAMPLES", "200"))
_ROW = {"case": 0, "id": "a", "metric": "tool_selection_accuracy", "value": 0.5,
        "passed": False, "threshold": 0.8, "reason": "r", "error": None}
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner,
                                                                  max_size=3),
    max_leaves=8)


@settings(max_examples=FUZZ, deadline=None)
@given(st.lists(st.one_of(
    st.builds(lambda changes: json.dumps({**_ROW, **changes}),
              st.dictionaries(st.sampled_from(sorted(_ROW)), _JSON, max_size=3)),
    _JSON.map(json.dumps),
    st.binary(max_size=30).map(lambda b: b.decode("latin-1")),
), max_size=6))
def test_the_saved_results_reader_reads_or_refuses(tmp_path_factory, lines):
    """Any file: a side whose rows are exactly the file's rows, or an error
    naming the file; never another exception, never a row lost."""
    from agentmetrics.io._sides import read_side

    path = tmp_path_factory.mktemp("fuzz") / "saved.jsonl"
    path.write_text("\n".join(lines), encoding="utf-8", errors="surrogateescape")
    try:
        side = read_side(str(path), "id")
    except (InvalidCaseError, InvalidParameterError) as error:
        assert str(path) in str(error)
        return
    rows = sum(len(scores.keys) for scores in side.metrics.values())
    try:
        document = json.loads("\n".join(lines))
    except ValueError:
        document = None
    if isinstance(document, dict) and "agentmetrics_report" in document:
        expected = len(document["evaluations"])
    elif isinstance(document, dict) and isinstance(document.get("results"), list):
        expected = len(document["results"])
    else:
        expected = sum(1 for line in "\n".join(lines).split("\n") if line.strip(" \t\r\n"))
    assert rows == expected


# -- the difference's interval within the metric's range ---------------------------------




def _given(scores, metric_class):
    cases = [am.AgentTestCase(metadata={"id": f"c{i}", "score": float(score)})
             for i, score in enumerate(scores)]
    with warns_if_empty(cases):
        return am.evaluate(cases, metric_class())


def _width(metric_class):
    low, high = metric_class.value_range
    return high - low


@pytest.mark.parametrize("metric_class, before, after", [
    (GivenScore, [0.0, 0.1, 0.0], [1.0, 1.0, 0.2]),     # plain t: [-0.383, 1.783]
    (GivenScore, [1.0, 0.9, 1.0], [0.0, 0.0, 0.8]),     # plain t: [-1.783, 0.383]
    (HalfScore, [0.0, 0.05, 0.0], [0.5, 0.5, 0.1]),     # plain t: [-0.192, 0.892]
    (MiddleScore, [0.25, 0.3, 0.25], [0.75, 0.75, 0.35]),  # plain t: [-0.192, 0.892]
])
def test_a_small_difference_near_the_edge_has_its_interval_clipped(metric_class, before,
                                                                   after):
    """The finding: compare()'s difference was a plain t interval, reaching past
    what a difference of two of the metric's scores can be."""
    width = _width(metric_class)
    plain = scipy.stats.ttest_rel(after, before).confidence_interval(0.95)
    assert plain.low < -width or plain.high > width  # the finding, reproduced
    m = am.compare(_given(before, metric_class), _given(after, metric_class))[
        metric_class.name]
    d = m.difference
    assert -width <= d.low <= d.mean <= d.high <= width
    expected = (max(plain.low, -width), min(plain.high, width))
    assert (d.low, d.high) == pytest.approx(expected, rel=1e-9)
    assert d.mean == pytest.approx(np.mean(np.subtract(after, before)))
    assert m.verdict == "no clear difference"  # clipping never moves an end across 0


def test_saved_results_are_clipped_to_the_registered_metric_range_and_refused_past_it(tmp_path):
    from agentmetrics.registry import register_metric, unregister_metric

    def saved(name, label, values):
        path = tmp_path / name
        path.write_text("".join(json.dumps({
            "case": i, "id": f"c{i}", "metric": label, "value": value, "passed": value >= 0.5,
            "threshold": 0.5, "reason": "given", "error": None, "higher_is_better": True,
        }) + "\n" for i, value in enumerate(values)), encoding="utf-8")
        return str(path)

    before, after = [0.0, 0.05, 0.0], [0.5, 0.5, 0.1]
    # Unknown to the registry: scores are in [0, 1], so differences within +-1.
    unknown = am.compare(saved("b.jsonl", "half_score", before),
                         saved("c.jsonl", "half_score", after))["half_score"].difference
    assert unknown.high == pytest.approx(0.892, abs=1e-3)
    register_metric(HalfScore)
    known = am.compare(saved("b.jsonl", "half_score", before),
                       saved("c.jsonl", "half_score", after))["half_score"].difference
    assert (known.low, known.high) == (unknown.low, 0.5)
    # Scores the registered class could not give are refused, naming the file, the row
    # and the value (I1): an interval is never computed from them.
    for wrong, shown in (([1.0, 1.0, 0.2], "1.0"), ([0.2, 80.0, 90.0], "80.0")):
        path = saved("c.jsonl", "half_score", wrong)
        with pytest.raises(am.errors.InvalidCaseError,
                           match=rf"c.jsonl:{wrong.index(float(shown)) + 1}: 'value': {shown} is "
                                 rf"outside the value_range \[0, 0.5\] of metric 'half_score'"):
            am.compare(saved("b.jsonl", "half_score", [0.0, 0.1, 0.0]), path)
    unregister_metric("half_score")
    # Unknown to the registry, a score outside [0, 1] is refused all the same.
    with pytest.raises(am.errors.InvalidCaseError, match=r"'value': -0.5 is outside the "
                       r"value_range \[0, 1\]"):
        am.compare(saved("b.jsonl", "half_score", before),
                   saved("c.jsonl", "half_score", [0.5, -0.5, 0.1]))


_PAIRS = st.sampled_from([GivenScore, HalfScore, MiddleScore]).flatmap(
    lambda cls: st.tuples(
        st.just(cls),
        st.lists(st.tuples(st.floats(*cls.value_range), st.floats(*cls.value_range)),
                 max_size=12),
        st.sampled_from([0.8, 0.9, 0.95, 0.99]),
        st.sampled_from(["t", "permutation"])))


@settings(max_examples=FUZZ, deadline=None)
@given(_PAIRS)
def test_every_difference_interval_lies_within_the_metric_width(drawn):
    metric_class, pairs, ci, method = drawn
    before = [b for b, _ in pairs]
    after = [a for _, a in pairs]
    m = am.compare(_given(before, metric_class), _given(after, metric_class), ci=ci,
                   method=method)[metric_class.name]
    d = m.difference
    width = _width(metric_class)
    if math.isnan(d.low) or math.isnan(d.high):
        assert math.isnan(d.low) and math.isnan(d.high)  # NaN stays NaN
        return
    assert -width <= d.low <= d.mean <= d.high <= width, (d, width)
    plain = paired_difference(before, after, ci=ci, method=method)
    assert (d.mean, d.se, d.p_value) == (plain.mean, plain.se, plain.p_value)  # untouched
    assert (d.low > 0, d.high < 0) == (plain.low > 0, plain.high < 0)  # same verdict


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("metric_class", [GivenScore, HalfScore, MiddleScore])
def test_the_clipped_difference_is_scipys_interval_clipped(metric_class, seed):
    """Against an independent reference: SciPy's paired t interval, then np.clip."""
    rng = np.random.default_rng(seed)
    low, high = metric_class.value_range
    n = int(rng.integers(2, 8))
    before = low + (high - low) * rng.beta(0.4, 4.0, size=n)  # near the bottom ...
    after = low + (high - low) * rng.beta(4.0, 0.4, size=n)   # ... against near the top
    ci = float(rng.choice([0.8, 0.9, 0.95, 0.99]))
    width = high - low
    reference = scipy.stats.ttest_rel(after, before).confidence_interval(ci)
    expected = tuple(np.clip([reference.low, reference.high], -width, width))
    ours = paired_difference(before, after, ci=ci, bounds=(low, high))
    assert (ours.low, ours.high) == pytest.approx(expected, rel=1e-9, abs=1e-12)
    compared = am.compare(_given(before, metric_class), _given(after, metric_class),
                          ci=ci)[metric_class.name].difference
    assert (compared.low, compared.high) == pytest.approx(expected, rel=1e-9, abs=1e-12)

