"""The four metrics of tests/general_metrics.py (a latency budget in seconds, an
answer match, a numpy batch metric, a weighted blend) by name, on every path:
Python, records, DataFrame, Arrow, the CLI over JSONL and Parquet, Dask, the
partition scorer (Spark and Ray), the report; each path gives what Python gives."""

from __future__ import annotations

import json
import math

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
