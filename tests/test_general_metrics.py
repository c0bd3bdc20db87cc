"""The four metrics of tests/general_metrics.py (a latency budget in seconds, an
answer match, a numpy batch metric, a weighted blend) by name, on every path:
Python, records, DataFrame, Arrow, the CLI over JSONL and Parquet, Dask, the
partition scorer (Spark and Ray), the report; each path gives what Python gives."""

from __future__ import annotations

import json
import math
import re

import pytest

import agentmetrics as am
from agentmetrics import AgentTestCase
from general_metrics import AUTHORS, BLEND, NAMES, rows


@pytest.fixture(autouse=True)
def registered():
    for cls in AUTHORS:
        am.register_metric(cls)
    yield
    for cls in AUTHORS:
        am.unregister_metric(cls.name)


def metrics():
    return [*NAMES, ("weighted", {"parts": BLEND})]


def reference():
    """The Python path, case by case: each metric's evaluate on each case."""
    cases = [AgentTestCase(**{k: v for k, v in r.items() if k != "id"}, metadata={"id": r["id"]})
             for r in rows()]
    built = [am.get_metric(name) for name in NAMES] + [am.get_metric("weighted", parts=BLEND)]
    table = {}
    for metric in built:
        column = []
        for case in cases:
            try:
                column.append(metric.evaluate(case).value)
            except am.AgentMetricsError:
                column.append(math.nan)
        table[metric.name] = column
    return table


def _same(found, expected):
    assert len(found) == len(expected)
    for a, b in zip(found, expected):
        assert (math.isnan(a) and math.isnan(b)) or a == b, (found, expected)


def _check(result):
    expected = reference()
    for name, column in expected.items():
        _same(result[name].values.tolist(), column)
    assert result["author_latency"].errors.keys() == {7}
    assert "requires the test case field 'latency'" in result["author_latency"].errors[7]
    assert "weighted: part author_latency" in result["weighted"].errors[7]


def test_records_cases_dataframe_and_arrow():
    pd = pytest.importorskip("pandas")
    pa = pytest.importorskip("pyarrow")
    data = rows()
    _check(am.evaluate(data, metrics(), errors="record"))
    cases = [AgentTestCase(**{k: v for k, v in r.items() if k != "id"}) for r in data]
    _check(am.evaluate(cases, metrics(), errors="record"))
    frame = pd.DataFrame(data)
    result = am.evaluate(frame, metrics(), errors="record")
    assert result.batch.cases is None  # read as columns
    _check(result)
    _check(am.evaluate(pa.Table.from_pandas(frame, preserve_index=False), metrics(),
                       errors="record"))


def test_the_cli_over_jsonl_and_parquet(tmp_path, capsys):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    from agentmetrics.cli import main

    jsonl = tmp_path / "runs.jsonl"
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in rows()), encoding="utf-8")
    parquet = tmp_path / "runs.parquet"
    pq.write_table(pa.Table.from_pylist(rows()), parquet)
    expected = reference()
    for path in (jsonl, parquet):
        assert main(["evaluate", str(path), *(f"--metric={name}" for name in NAMES),
                     "--errors", "record", "--format", "json", "--chunk-size", "9"]) == 0
        record = json.loads(capsys.readouterr().out)
        for name in NAMES:
            found = [math.nan if r["value"] is None else r["value"]
                     for r in record["results"] if r["metric"] == name]
            _same(found, expected[name])
        units = {r["metric"]: r["unit"] for r in record["summary"]}
        assert units["author_latency"] == "s"
        assert {r["aggregate"] for r in record["aggregates"]} == {"p50", "p95", "max"}


def test_dask_and_the_partition_scorer(tmp_path):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("dask.dataframe")
    from agentmetrics import dask as am_dask
    from agentmetrics import partition

    jsonl = tmp_path / "runs.jsonl"
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in rows()), encoding="utf-8")
    whole = am.evaluate(rows(), metrics(), errors="record")
    run = am_dask.evaluate(str(jsonl), metrics(), errors="record", partition_rows=10)
    assert run.summary().rows == whole.summary().rows
    assert run.aggregates().rows == whole.aggregates().rows
    frame = pd.DataFrame(rows())
    pieces = [partition.aggregate(frame.iloc[i:i + 12], metrics(), errors="record")
              for i in range(0, len(frame), 12)]
    merged = partition.merge(pieces, metrics())
    assert merged.aggregates().rows == whole.aggregates().rows
    scored, _ = partition.score(frame, metrics(), errors="record")
    table = scored.to_pandas() if hasattr(scored, "schema") else scored
    _same(table["author_answer"].tolist(), reference()["author_answer"])


def test_the_report_shows_units_and_aggregates():
    page = am.evaluate(rows(), metrics(), errors="record").to_html()
    assert 'id="aggregates-table"' in page
    assert "author_latency in s" in page or "author_latency</td>" in page


def test_saved_and_reloaded_runs_keep_values_units_and_aggregates(tmp_path, capsys):
    from agentmetrics.cli import main
    from agentmetrics.runs import RunStore

    whole = am.evaluate(rows(), metrics(), errors="record")
    store = RunStore(tmp_path / "runs.sqlite")
    for form in ("run.jsonl", "run.parquet"):
        path = whole.save(tmp_path / form, history=store, label="authors")
        for back in (am.load_result(path), store.load("last")):
            _check(back)
            assert back.aggregates().rows == whole.aggregates().rows
            assert type(back["author_latency"].metric).unit == "s"
            assert back["author_latency"].metric.threshold == 2.5
    jsonl = tmp_path / "runs.jsonl"
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in rows()), encoding="utf-8")
    saved = tmp_path / "cli.jsonl"
    assert main(["evaluate", str(jsonl), *(f"--metric={name}" for name in NAMES),
                 "--errors", "record", "--chunk-size", "7", "--save", str(saved),
                 "--no-history"]) == 0
    capsys.readouterr()
    assert am.load_result(saved).aggregates().rows == \
        am.evaluate(rows(), NAMES, errors="record").aggregates().rows
    page = tmp_path / "run.html"
    assert main(["report", str(saved), "-o", str(page), "--no-history"]) == 0
    assert 'id="aggregates-table"' in page.read_text(encoding="utf-8")


def test_the_cli_scores_the_weighted_blend_by_name(tmp_path, capsys):
    from agentmetrics.cli import main

    jsonl = tmp_path / "runs.jsonl"
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in rows()), encoding="utf-8")
    spec = "weighted:parts=" + json.dumps(BLEND)
    assert main(["evaluate", str(jsonl), "--metric", spec, "--errors", "record",
                 "--format", "json"]) == 0
    record = json.loads(capsys.readouterr().out)
    found = [math.nan if r["value"] is None else r["value"] for r in record["results"]]
    _same(found, reference()["weighted"])


MARKED = '''
import pytest

import agentmetrics as am
from general_metrics import AUTHORS, BLEND

for cls in AUTHORS:
    am.register_metric(cls)


@pytest.mark.agent_metric("author_latency")
def test_fast(agent_eval):
    agent_eval.record_run(input="q", actual_output="Paris", latency=1.7)


@pytest.mark.agent_metric("author_latency")
def test_slow(agent_eval):
    agent_eval.record_run(input="q", actual_output="Paris", latency=3.25)


@pytest.mark.agent_metric("author_answer")
@pytest.mark.agent_metric("author_brevity")
def test_answer(agent_eval):
    agent_eval.record_run(input="q", actual_output="Paris", expected_output="Paris")


@pytest.mark.agent_metric("weighted", parts=BLEND)
def test_blend(agent_eval):
    agent_eval.record_run(input="q", actual_output="Paris", expected_output="Paris",
                          latency=1.0)
'''


def test_the_pytest_marker_scores_the_four_by_name(pytester):
    import pathlib

    here = pathlib.Path(__file__).with_name("general_metrics.py")
    pytester.makepyfile(general_metrics=here.read_text(encoding="utf-8"))
    pytester.makepyfile(test_authors=MARKED)
    result = pytester.runpytest("-p", "no:randomly", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=3, failed=1)
    text = result.stdout.str()
    assert "test_authors.py::test_slow" in text
    assert re.search(r"author_latency\s+3\.25 s\s+2\.5 s\s+took 3\.25 s", text), text
    assert re.search(r"weighted\s+1\s+0\.98\s+100\.0%", text), text
