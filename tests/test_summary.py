"""One summary on every surface: ``evaluate(...).summary()``, the partition
merge, Dask, the CLI's printed table and JSON, the HTML report and the
notebook render the same table, under the same column names, with the same
numbers, the mean's interval included."""

from __future__ import annotations

import json
import math
import re

import pytest

import agentmetrics as am
from agentmetrics import partition
from agentmetrics.cli import main
from agentmetrics.results._summary import PLAIN_COLUMNS, SUMMARY_COLUMNS, Summary
from test_report import Page

METRICS = ["tool_selection_accuracy", "tool_call_f1"]

#: Cases in three tasks, one that cannot be scored (no expected calls): an error row.
RECORDS = [
    {"id": f"c{i}", "tool_calls": ["A", "B", "C"][: 1 + i % 3],
     "expected_tool_calls": ["A", "B"] if i % 4 else ["A"], "metadata": {"task_id": i % 3}}
    for i in range(11)
] + [{"id": "broken", "tool_calls": ["A"], "metadata": {"task_id": 0}}]

TITLE = "Summary (95% CI: mean by t interval, pass rate by Wilson)"


@pytest.fixture(scope="module")
def whole():
    return am.evaluate(RECORDS, METRICS, errors="record", progress=False)


def same(a, b) -> bool:
    """Equal values, NaN equal to NaN (and to None, JSON's NaN)."""
    def nan(v):
        return v is None or (isinstance(v, float) and math.isnan(v))
    return (nan(a) and nan(b)) or a == b


def same_rows(rows, reference) -> bool:
    return len(rows) == len(reference) and all(
        len(row) == len(ref) and all(same(x, y) for x, y in zip(row, ref))
        for row, ref in zip(rows, reference))


def test_the_summary_has_the_one_vocabulary_and_says_its_interval(whole):
    summary = whole.summary()
    assert isinstance(summary, Summary) and isinstance(summary, am.Table)
    assert summary.columns == SUMMARY_COLUMNS and summary.title == TITLE
    assert (summary.ci, summary.interval, summary.clusters) == (0.95, "t", None)
    clustered = whole.summary(cluster="task_id")
    assert clustered.columns == SUMMARY_COLUMNS and clustered.clusters == 3
    assert clustered.title == ("Summary (95% CI: mean by cluster-robust t interval, pass rate "
                               "by cluster-robust t interval, 3 clusters)")
    booted = whole.summary(method="bootstrap", resamples=200)
    assert booted.interval == "bootstrap" and "mean by bootstrap" in booted.title
    plain = whole.summary(ci=None)  # kept: the same names, the intervals left out
    assert plain.columns == PLAIN_COLUMNS and set(PLAIN_COLUMNS) < set(SUMMARY_COLUMNS)
    assert plain.title == "Summary" and plain.ci is None


def test_the_partition_merge_gives_the_summary_bit_for_bit(whole):
    parts = [partition.aggregate(RECORDS[start:start + 5], METRICS, errors="record")
             for start in range(0, len(RECORDS), 5)]
    merged = partition.merge(parts).summary()
    assert isinstance(merged, Summary) and merged.title == TITLE
    assert merged.columns == SUMMARY_COLUMNS
    assert same_rows(merged.rows, whole.summary().rows)
    assert merged.rows[0][4] == whole.summary().rows[0][4]  # mean_low, to the bit


def test_dask_gives_the_summary_bit_for_bit(whole):
    pytest.importorskip("distributed")
    db = pytest.importorskip("dask.bag")
    dask = pytest.importorskip("dask")
    amd = pytest.importorskip("agentmetrics.dask")
    with dask.config.set(scheduler="synchronous"):
        run = amd.evaluate(db.from_sequence(RECORDS, npartitions=3), METRICS,
                               errors="record", cluster="task_id")
        summary = run.summary()
        clustered = run.summary(cluster="task_id")
    assert isinstance(summary, Summary) and summary.title == TITLE
    assert summary.columns == SUMMARY_COLUMNS
    assert same_rows(summary.rows, whole.summary().rows)
    reference = whole.summary(cluster="task_id")
    assert clustered.title == reference.title and clustered.columns == SUMMARY_COLUMNS
    for row, ref in zip(clustered, reference):  # the sums per cluster are not exact
        assert all(same(row[c], ref[c]) or row[c] == pytest.approx(ref[c], abs=1e-12)
                   for c in SUMMARY_COLUMNS)


@pytest.fixture
def cases_file(tmp_path):
    path = tmp_path / "cases.jsonl"
    path.write_text("".join(json.dumps(record) + "\n" for record in RECORDS), encoding="utf-8")
    return path


def _cli(capsys, path, *options):
    argv = ["evaluate", str(path), "--errors", "record"]
    argv += [flag for metric in METRICS for flag in ("--metric", metric)]
    status = main([*argv, *options])
    captured = capsys.readouterr()
    assert status == 0
    return captured.out, captured.err


def test_the_cli_json_carries_every_column_of_the_summary(capsys, cases_file, whole):
    out, err = _cli(capsys, cases_file, "--format", "json")
    records = json.loads(out)["summary"]
    # Every column, in the summary's order (the keys CHANGELOG.md lists), then unit and config.
    assert [list(record) for record in records] == [[*SUMMARY_COLUMNS, "unit", "config"]] * 2
    assert same_rows([[record[c] for c in SUMMARY_COLUMNS] for record in records],
                     whole.summary().rows)
    assert records[0]["mean_low"] == whole.summary()["mean_low"][0]
    assert err.startswith(TITLE + "\n")  # the printed summary goes to stderr


def test_the_cli_prints_the_summary_under_its_names(capsys, cases_file, whole):
    out, _ = _cli(capsys, cases_file, "--format", "summary")
    printed = out.split(TITLE + "\n")[1].splitlines()
    names = printed[0].split()
    assert "mean_low" in names and "mean_high" in names  # the mean's interval is shown
    assert names == [c for c in SUMMARY_COLUMNS if c in names]  # a subset, in order
    assert printed[:3] == whole.summary().select(*names).render().splitlines()[1:]
    assert max(map(len, [TITLE, *printed])) < 100


def test_the_report_and_the_notebook_render_the_summary(whole):
    text = whole.to_html(cluster=None)
    page = Page(text)
    summary = whole.summary()
    assert len(re.findall(r'<table class="sortable summary"', text)) == 1
    assert f"<caption>{TITLE}</caption>" in text
    head = page.tables["summary-table"][0]
    # Every column under its name, each once (a mean and a pass rate share a cell with
    # their intervals).
    names = [name for cell in head for name in re.findall(r"\w+", cell)]
    assert sorted(names) == sorted(SUMMARY_COLUMNS)
    assert page.column("summary-table", "mean [mean_low, mean_high]") == [
        f"{m:.3f} [{lo:.3f}, {hi:.3f}]"
        for m, lo, hi in zip(summary["mean"], summary["mean_low"], summary["mean_high"])]
    # The notebook: the summary's own HTML, and the result's (its main columns).
    heads = re.findall(r"<th>(\w+)</th>", summary._repr_html_())
    assert heads == list(SUMMARY_COLUMNS) and f"<caption>{TITLE}</caption>" in \
        summary._repr_html_()
    brief = re.findall(r"<th>(\w+)</th>", whole._repr_html_())
    assert "mean_low" in brief and brief == [c for c in SUMMARY_COLUMNS if c in brief]
