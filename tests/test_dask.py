"""agentmetrics.dask on a real distributed.LocalCluster (two worker processes),
and the engine-neutral partition functions called as Ray and Spark call them.

Every distributed result is compared with single-machine ``agentmetrics.evaluate``
on the same cases: summaries, per-tool tables and failures exactly (they come
from exact partial aggregates), per-case rows value for value.
"""

from __future__ import annotations

import gzip
import json
import logging
import math
import os
from fractions import Fraction
from importlib import resources
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("dask")
pytest.importorskip("distributed")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pd = pytest.importorskip("pandas")

import dask  # noqa: E402
import dask.bag as db  # noqa: E402
import dask.dataframe as dd  # noqa: E402
from distributed import Client, LocalCluster  # noqa: E402

import agentmetrics as am  # noqa: E402
import agentmetrics.dask as amd  # noqa: E402
from agentmetrics import partition  # noqa: E402
from agentmetrics.results._aggregate import Aggregate, merge  # noqa: E402
from agentmetrics.results._results import EvaluationResult  # noqa: E402
from conftest import warns_if_empty  # noqa: E402
from agentmetrics.errors import (  # noqa: E402
    CaseEvaluationError,
    InvalidCaseError,
    InvalidParameterError,
    MetricLoadError,
    MissingDependencyError,
)
from agentmetrics.metrics import ToolSelectionAccuracy  # noqa: E402

# Dask's own machinery may warn about ports and closing comms; our code must not.
pytestmark = pytest.mark.filterwarnings("ignore::ResourceWarning",
                                        "ignore::DeprecationWarning:distributed",
                                        "ignore::UserWarning:distributed")

TSA = "tool_selection_accuracy"
EXAMPLES = resources.files("agentmetrics").joinpath("examples", "tau2_airline.jsonl")


@pytest.fixture(scope="module")
def client():
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None, silence_logs=logging.ERROR) as cluster, \
            Client(cluster) as client:
        yield client


def synthetic(n: int, seed: int = 0, tools: int = 60) -> pa.Table:
    """Cases with 0-5 calls a side, some lists not given, ids as strings."""
    rng = np.random.default_rng(seed)
    names = pa.array([f"tool_{i}" for i in range(tools)])

    def side() -> pa.Array:
        lengths = rng.integers(0, 6, n)
        offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
        values = names.take(pa.array(rng.integers(0, tools, int(offsets[-1]))))
        mask = pa.array(rng.random(n) < 0.01)
        return pa.ListArray.from_arrays(pa.array(offsets), values, mask=mask)

    return pa.table({"id": pa.array([f"c{i}" for i in range(n)]), "tool_calls": side(),
                     "expected_tool_calls": side(),
                     "task": pa.array(rng.integers(0, 50, n))})


def assert_same_tables(run, whole: EvaluationResult, failures: int = 100) -> None:
    """The distributed tables are the single-machine ones, to the last bit."""
    assert run.summary().rows == whole.summary().rows
    assert run.summary(ci=None).rows == whole.summary(ci=None).rows
    assert run.summary(ci=0.9).rows == whole.summary(ci=0.9).rows
    assert same_rows(run.per_tool(), whole.per_tool())
    assert same_rows(run.failures(limit=failures), whole.failures(limit=failures))


def nan_equal(a, b) -> bool:
    """Equal, NaN equal to NaN (the value of an error row)."""
    return all((x == y) or (isinstance(x, float) and math.isnan(x) and math.isnan(y))
               for x, y in zip(a, b, strict=True))


def same_rows(mine, theirs) -> bool:
    return len(mine) == len(theirs) and mine.columns == theirs.columns and all(
        nan_equal(a, b) for a, b in zip(mine.rows, theirs.rows))


# -- the cluster -------------------------------------------------------------------------


def test_tau2_runs_as_a_bag_and_as_a_jsonl_file_equal_single_machine(client, tmp_path):
    cases = am.example_cases()
    whole = am.evaluate(cases, TSA)
    bag = db.from_sequence(cases, npartitions=4)
    run = amd.evaluate(bag, TSA)
    assert run.npartitions == 4
    assert_same_tables(run, whole, failures=50)
    assert same_rows(run.failures(), whole.failures())  # all 41 kept (limit 100)
    rows = run.to_dask_dataframe().compute()
    assert rows["id"].tolist() == list(whole.batch.case_ids)
    assert rows[TSA].tolist() == whole[TSA].values.tolist()
    assert rows[f"{TSA}_reason"].tolist() == list(whole[TSA].reasons)

    path = tmp_path / "tau2.jsonl"
    path.write_bytes(EXAMPLES.read_bytes())
    from_file = amd.evaluate(str(path), TSA)
    assert_same_tables(from_file, whole, failures=50)
    collected = from_file.compute()
    assert collected[TSA].values.tolist() == whole[TSA].values.tolist()
    assert collected.batch.case_ids == whole.batch.case_ids


def test_200000_synthetic_cases_from_several_parquet_files(client, tmp_path):
    table = synthetic(200_000)
    whole = am.evaluate(table, TSA, errors="record")
    folder = tmp_path / "cases"
    folder.mkdir()
    bounds = [0, 30_000, 90_000, 91_000, 200_000]
    for number, (start, stop) in enumerate(zip(bounds, bounds[1:])):
        pq.write_table(table.slice(start, stop - start), folder / f"part-{number}.parquet",
                       row_group_size=7_000)
    (folder / "_SUCCESS").write_text("")  # what Spark leaves beside its files: skipped
    run = amd.evaluate(str(folder), TSA, partition_rows=40_000, keep=["task"], errors="record")
    assert run.npartitions > 4  # big files split along row groups
    assert_same_tables(run, whole)

    rows = run.to_dask_dataframe()
    assert list(rows.columns) == ["id", "source", "row", "task", TSA, f"{TSA}_passed",
                                  f"{TSA}_reason", f"{TSA}_error"]
    local = rows.compute()
    assert len(local) == 200_000
    assert local["id"].tolist() == table.column("id").to_pylist()
    assert nan_equal(local[TSA].tolist(), whole[TSA].values.tolist())
    assert local[f"{TSA}_passed"].tolist() == whole[TSA].passed.tolist()
    assert local["task"].tolist() == table.column("task").to_pylist()
    # The provenance names each row's file and its row within it.
    first = local.iloc[95_000]
    assert first["source"].endswith("part-3.parquet") and first["row"] == 95_000 - 91_000

    # A dask DataFrame read from the same files: Arrow list columns.
    frame = dd.read_parquet(str(folder / "*.parquet"), dtype_backend="pyarrow")
    assert_same_tables(amd.evaluate(frame, TSA, errors="record"), whole)


def test_to_parquet_writes_every_row_once_and_the_summary_in_the_same_pass(client, tmp_path):
    table = synthetic(30_000, seed=3)
    whole = am.evaluate(table, TSA, errors="record")
    source = tmp_path / "in.parquet"
    pq.write_table(table, source, row_group_size=4_000)
    run = amd.evaluate(str(source), TSA, partition_rows=10_000, errors="record")
    written = run.to_parquet(tmp_path / "out")
    assert len(written) == run.npartitions
    assert "computed" in repr(run) and "not computed" not in repr(run)
    assert run.summary().rows == whole.summary().rows  # no second pass needed
    back = pq.read_table(tmp_path / "out")
    assert back.column("id").to_pylist() == table.column("id").to_pylist()
    with pytest.raises(InvalidParameterError, match="exists and is not empty.*overwrite=True"):
        run.to_parquet(tmp_path / "out")
    run.to_parquet(tmp_path / "out", overwrite=True)
    assert pq.read_table(tmp_path / "out").num_rows == 30_000


def test_a_jsonl_glob_with_bad_lines_keeps_one_row_per_line_in_order(client, tmp_path):
    lines = EXAMPLES.read_text(encoding="utf-8").splitlines()
    files = {
        "a.jsonl": lines[:20] + ["{not json", ""] + lines[20:25],
        "b.jsonl.gz": lines[25:40] + ['{"id": "x1", "tool_calls": 3}'],
        "c.jsonl": ['{"id": "x2", "tool_calls": ["a"], "expected_tool_calls": ["a"], "oops": 1}']
                   + lines[40:],
    }
    for name, content in files.items():
        data = ("\n".join(content) + "\n").encode()
        (tmp_path / name).write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    run = amd.evaluate([str(tmp_path / "a.jsonl"), str(tmp_path / "[bc].jsonl*")], TSA,
                       errors="record")
    # The reference: each file read on its own, in order, and scored in one process.
    cases = [case for name in sorted(files)
             for case in am.read_cases(str(tmp_path / name), errors="record")]
    whole = am.evaluate(cases, TSA, errors="record")
    assert len(cases) == 50 + 3
    assert_same_tables(run, whole, failures=60)
    rows = run.to_dask_dataframe().compute()
    assert len(rows) == 53
    assert [Path(s).name for s in rows["source"]][:27] == ["a.jsonl"] * 26 + ["b.jsonl.gz"]
    bad = rows[rows[f"{TSA}_error"].notna()]
    assert bad["line"].tolist() == [21, 16, 1]
    assert bad["id"].isna().tolist() == [True, False, False]
    assert bad["id"].tolist()[1:] == ["x1", "x2"]
    assert "a.jsonl:21" in bad[f"{TSA}_error"].iloc[0]
    assert "unknown keys ['oops']" in bad[f"{TSA}_error"].iloc[2]

    with pytest.raises(InvalidCaseError, match=r"a\.jsonl:21"):
        amd.evaluate(str(tmp_path / "a.jsonl"), TSA).summary()
    # An fsspec URL reads the same files.
    by_url = amd.evaluate([f"file://{tmp_path}/a.jsonl", f"file://{tmp_path}/[bc].jsonl*"],
                          TSA, errors="record")
    assert by_url.summary().rows == whole.summary().rows


class DiesOnce(ToolSelectionAccuracy):
    """Kills its worker process the first time it meets the case ``kill-me``."""

    def __init__(self, threshold=0.8, order_matters=False, marker=""):
        super().__init__(threshold, order_matters)
        self.marker = marker

    def evaluate_batch(self, batch, *, errors="raise"):
        if batch.case_ids and "kill-me" in batch.case_ids and not os.path.exists(self.marker):
            from distributed import get_worker

            get_worker()  # never the test process
            Path(self.marker).write_text("killed")
            os._exit(1)
        return super().evaluate_batch(batch, errors=errors)


def test_a_worker_killed_mid_run_loses_and_repeats_no_row(client, tmp_path):
    table = synthetic(40_000, seed=5)
    ids = table.column("id").to_pylist()
    ids[25_000] = "kill-me"
    table = table.set_column(0, "id", pa.array(ids))
    source = tmp_path / "in.parquet"
    pq.write_table(table, source, row_group_size=5_000)
    metric = DiesOnce(marker=str(tmp_path / "marker"))
    whole = am.evaluate(table, ToolSelectionAccuracy(), errors="record")
    run = amd.evaluate(str(source), metric, partition_rows=5_000, errors="record")
    written = run.to_parquet(tmp_path / "out")
    assert Path(metric.marker).exists()  # a worker did die
    back = pq.read_table(tmp_path / "out")
    assert back.column("id").to_pylist() == ids  # every row, once, in order
    assert not list((tmp_path / "out").glob(".*"))  # no torn temporary file left
    assert len(written) == 8
    assert run.summary().rows == whole.summary().rows
    client.wait_for_workers(2)


def test_metrics_travel_by_pickle_and_a_missing_one_names_the_worker(client):
    cases = am.example_cases()

    class StrictAccuracy(ToolSelectionAccuracy):  # defined here, as in a notebook
        name = "strict_accuracy"

    whole = am.evaluate(cases, StrictAccuracy(threshold=1.0))
    run = amd.evaluate(db.from_sequence(cases, npartitions=3), StrictAccuracy(threshold=1.0))
    assert_same_tables(run, whole)

    @am.register_metric
    class OnlyHere(ToolSelectionAccuracy):  # registered in this process, not on the workers
        name = "only_here"

    by_name = amd.evaluate(db.from_sequence(cases, npartitions=2), "only_here")
    with pytest.raises(MetricLoadError, match=r"metric 'only_here' could not be loaded on "
                                              r"worker tcp://127\.0\.0\.1:\d+.*every worker"):
        by_name.summary()


def test_names_and_params_resolve_on_the_workers(client):
    cases = am.example_cases()
    spec = (TSA, {"threshold": 0.5, "order_matters": True})
    whole = am.evaluate(cases, [TSA, spec])
    run = amd.evaluate(db.from_sequence(cases, npartitions=5), [TSA, spec])
    assert run.metrics == whole.metrics
    assert_same_tables(run, whole)


class SlowEcho(am.Metric):
    """A metric that waits (as an LLM judge does): 1 if it called every expected tool."""

    name = "slow_echo"
    description = "Waits, then checks the expected tools were called."

    async def ameasure(self, case):
        import asyncio

        await asyncio.sleep(0.001)
        called = {call.name for call in case.tool_calls or ()}
        missing = [call.name for call in case.expected_tool_calls or () if call.name not in called]
        return (0.0, f"missed {missing[0]}") if missing else (1.0, "called every expected tool")


def test_metrics_that_wait_run_concurrently_on_the_workers_with_a_cache(client, tmp_path):
    cases = am.example_cases()
    whole = am.evaluate(cases, SlowEcho())
    cache = tmp_path / "scores.sqlite"
    run = amd.evaluate(db.from_sequence(cases, npartitions=4), SlowEcho(), concurrency=8,
                       cache=cache)
    assert_same_tables(run, whole)
    assert cache.exists()
    again = amd.evaluate(db.from_sequence(cases, npartitions=4), SlowEcho(), cache=cache)
    assert again.compute()["slow_echo"].values.tolist() == whole["slow_echo"].values.tolist()


def close_rows(mine, theirs) -> bool:
    """Equal tables to 1e-12 (cluster sums are floats, not exact sums)."""
    return mine.title == theirs.title and mine.columns == theirs.columns and all(
        x == y or (isinstance(x, float) and (math.isclose(x, y, rel_tol=1e-12, abs_tol=1e-15)
                                             or (math.isnan(x) and math.isnan(y))))
        for a, b in zip(mine.rows, theirs.rows, strict=True) for x, y in zip(a, b, strict=True))


def test_clustered_summaries_from_sums_per_cluster(client, tmp_path):
    cases = am.example_cases()
    cases = [am.AgentTestCase(tool_calls=[c.name for c in case.tool_calls],
                              expected_tool_calls=[c.name for c in case.expected_tool_calls],
                              metadata={**case.metadata, "task_id": i % 7})
             for i, case in enumerate(cases)]  # 7 tasks of about 7 trials each
    whole = am.evaluate(cases, [TSA, (TSA, {"order_matters": True})])
    run = amd.evaluate(db.from_sequence(cases, npartitions=4), [TSA, (TSA, {"order_matters": True})],
                       cluster="task_id")
    assert close_rows(run.summary(cluster="task_id"), whole.summary(cluster="task_id"))
    assert close_rows(run.summary(cluster="task_id", ci=0.9),
                      whole.summary(cluster="task_id", ci=0.9))
    assert run.summary().rows == whole.summary().rows  # the plain one as before

    table = synthetic(30_000, seed=21)
    single = am.evaluate(table, TSA, errors="record")
    pq.write_table(table, tmp_path / "cases.parquet", row_group_size=4_000)
    by_column = amd.evaluate(str(tmp_path / "cases.parquet"), TSA, errors="record",
                             cluster="task", partition_rows=10_000)
    assert close_rows(by_column.summary(cluster="task"),
                      single.summary(cluster=table.column("task").to_pylist()))
    assert "task" not in by_column.to_dask_dataframe().columns  # read, not kept
    with pytest.raises(InvalidParameterError, match=r"cluster='other'.*cluster='task'.*Fix"):
        by_column.summary(cluster="other")

    unlabelled = [*cases[:10], am.AgentTestCase(tool_calls=[], expected_tool_calls=[])]
    run = amd.evaluate(db.from_sequence(unlabelled, npartitions=2), TSA, cluster="task_id")
    with pytest.raises(InvalidParameterError, match=r"partition 1 \(rows counted within it\): "
                                                    r"cluster: expected metadata\['task_id'\] "
                                                    r"for every case; rows 4 have none"):
        run.summary()


def test_distributed_summaries_refuse_what_needs_every_score(client):
    run = amd.evaluate(db.from_sequence(am.example_cases(), npartitions=2), TSA, reasons=False)
    with pytest.raises(InvalidParameterError, match=r"evaluated with cluster=None.*Fix"):
        run.summary(cluster="task_id")
    with pytest.raises(InvalidParameterError, match=r"method='bootstrap'"):
        run.summary(method="bootstrap")
    rows = run.to_dask_dataframe().compute()
    assert rows[f"{TSA}_reason"].isna().all()  # reasons=False: numbers only
    whole = am.evaluate(am.example_cases(), TSA)
    assert run.compute().summary(cluster="task_id").rows == \
        whole.summary(cluster="task_id").rows


# -- inputs refused, with the fix -----------------------------------------------------------


def test_string_converted_list_columns_are_refused_with_the_fix():
    frame = pd.DataFrame({"tool_calls": [["a", "b"], ["c"]], "expected_tool_calls": [["a"], []]})
    with dask.config.set({"dataframe.convert-string": True}):
        converted = dd.from_pandas(frame, npartitions=1)
    with pytest.raises(InvalidCaseError, match="holds text.*convert-string.*False"):
        amd.evaluate(converted, TSA)
    with dask.config.set({"dataframe.convert-string": False}):
        kept = dd.from_pandas(frame, npartitions=2)
    whole = am.evaluate(frame, TSA)
    with dask.config.set(scheduler="sync"):
        assert amd.evaluate(kept, TSA).summary().rows == whole.summary().rows


def test_other_bad_inputs_say_what_was_expected(tmp_path):
    frame = dd.from_pandas(pd.DataFrame({"calls": [["a"]], "gold": [["a"]]}), npartitions=1)
    with pytest.raises(InvalidParameterError, match="no column 'tool_calls'.*columns="):
        amd.evaluate(frame, TSA)
    with dask.config.set({"dataframe.convert-string": False}):
        frame = dd.from_pandas(pd.DataFrame({"calls": [["a"]], "gold": [["a"]]}), npartitions=1)
    run = amd.evaluate(frame, TSA, columns={"tool_calls": "calls", "expected_tool_calls": "gold"})
    with dask.config.set(scheduler="sync"):
        assert run.summary()["mean"] == [1.0]
    with pytest.raises(InvalidParameterError, match="matches no file"):
        amd.evaluate(str(tmp_path / "*.jsonl"), TSA)
    (tmp_path / "a.csv").write_text("x")
    with pytest.raises(InvalidParameterError, match="cannot tell the format"):
        amd.evaluate(str(tmp_path / "a.csv"), TSA)
    with pytest.raises(InvalidParameterError, match="expected a dask DataFrame"):
        amd.evaluate([{"tool_calls": []}], TSA)
    with pytest.raises(InvalidParameterError, match="columns: expected keys"):
        amd.evaluate(frame, TSA, columns={"calls": "x"})
    with pytest.raises(InvalidParameterError, match="partition_rows"):
        amd.evaluate(frame, TSA, partition_rows=0)
    with pytest.raises(InvalidParameterError, match="failure_limit"):
        amd.evaluate(frame, TSA, failure_limit=-1)
    with pytest.raises(InvalidParameterError, match="concurrency"):
        amd.evaluate(frame, TSA, concurrency=0)


def test_a_case_that_cannot_be_scored_names_its_partition():
    with dask.config.set({"dataframe.convert-string": False}):
        missing = dd.from_pandas(pd.DataFrame({
            "id": ["a", "b", "c", "d"], "tool_calls": [["x"], ["x"], None, ["x"]],
            "expected_tool_calls": [["x"]] * 4}), npartitions=2)
        unreadable = dd.from_pandas(pd.DataFrame({
            "tool_calls": [["x"], ["x"], ["x"], [""]], "expected_tool_calls": [["x"]] * 4}),
            npartitions=2)
    with dask.config.set(scheduler="sync"):
        with pytest.raises(CaseEvaluationError, match=r"case 0 \(id 'c'\).*requires.*"
                                                      r"partition 1, row 0 of the partition"):
            amd.evaluate(missing, TSA).summary()
        with pytest.raises(InvalidCaseError, match=r"^partition 1: row 3 \(row 1 of this batch\): "
                                                   r"tool_calls\[0\]"):
            amd.evaluate(unreadable, TSA).summary()
        recorded = amd.evaluate(missing, TSA, errors="record")
        assert recorded.summary()["errors"] == [1]
        assert recorded.failures()["case"] == [2]
        assert amd.evaluate(unreadable, TSA, errors="record").failures()["case"] == [3]


def test_failures_beyond_what_was_kept_are_refused(tmp_path):
    cases = am.example_cases()
    run = amd.evaluate(db.from_sequence(cases, npartitions=3), TSA, failure_limit=5)
    with dask.config.set(scheduler="sync"):
        assert len(run.failures(limit=5)) == 5
        with pytest.raises(InvalidParameterError, match="the first 5 were kept.*failure_limit="):
            run.failures()


def test_without_dask_the_module_names_the_extra(monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "dask", None)
    with pytest.raises(MissingDependencyError, match=r"agent-tool-metrics\[dask\]"):
        amd.evaluate("x.jsonl", TSA)


# -- engine-neutral: what Ray and Spark would call -------------------------------------------


def test_called_as_ray_map_batches_would_in_every_batch_format():
    table = synthetic(5_000, seed=9)
    whole = am.evaluate(table, TSA, errors="record")
    expected = whole[TSA].values.tolist()
    # batch_format="pyarrow": a Table in, a Table out.
    out = [partition.score_rows(table.slice(s, 1_000), [TSA], errors="record") for s in range(0, 5_000, 1_000)]
    assert nan_equal(pa.concat_tables(out).column(TSA).to_pylist(), expected)
    # batch_format="pandas": a DataFrame in, a DataFrame out.
    frame = table.to_pandas()
    out = [partition.score_rows(frame.iloc[s:s + 700], [TSA], errors="record") for s in range(0, 5_000, 700)]
    assert nan_equal(pd.concat(out)[TSA].tolist(), expected)
    # batch_format="numpy": a dict of arrays in (list cells as object arrays).
    numpy_batch = {name: np.array(table.column(name).to_pylist(), dtype=object)
                   for name in table.column_names}
    out = partition.score_rows(numpy_batch, [TSA], errors="record")
    assert nan_equal(out.column(TSA).to_pylist(), expected)
    # Aggregates as one-row batches, gathered and merged in order.
    parts = [{"aggregate": [partition.aggregate(table.slice(s, 512), [TSA], errors="record").to_json()]}
             for s in range(0, 5_000, 512)]
    total = merge(Aggregate.from_json(part["aggregate"][0]) for part in parts)
    assert total.summary().rows == whole.summary().rows
    assert same_rows(total.per_tool(), whole.per_tool())
    assert same_rows(total.failures(limit=100), whole.failures(limit=100))


def test_called_as_spark_map_in_arrow_would():
    table = synthetic(6_000, seed=11)
    whole = am.evaluate(table, TSA, errors="record")

    def scorer(batches):  # what mapInArrow calls: RecordBatches in, RecordBatches out
        for batch in batches:
            rows, part = partition.score(batch, [TSA], errors="record")
            assert isinstance(rows, pa.RecordBatch)
            yield pa.RecordBatch.from_pydict({"aggregate": [part.to_json()],
                                              "rows": [rows.num_rows]})

    out = pa.Table.from_batches(list(scorer(table.to_batches(max_chunksize=1_000))))
    assert sum(out.column("rows").to_pylist()) == 6_000
    total = merge(map(Aggregate.from_json, out.column("aggregate").to_pylist()))
    assert total.summary().rows == whole.summary().rows
    assert same_rows(total.failures(limit=100), whole.failures(limit=100))


def test_partition_rows_have_a_fixed_schema_with_or_without_errors():
    clean = pa.table({"tool_calls": [["a"]], "expected_tool_calls": [["a"]]})
    broken = pa.table({"tool_calls": [[""]], "expected_tool_calls": [["a"]]})
    first = partition.score_rows(clean, [TSA], errors="record")
    second = partition.score_rows(broken, [TSA], errors="record")
    assert first.schema == second.schema == partition.rows_schema([TSA])
    assert second.column(f"{TSA}_error").to_pylist()[0].startswith("tool_calls[0]")
    cases = [{"id": 7, "tool_calls": ["a"], "expected_tool_calls": ["a"]},
             {"id": "s", "tool_calls": 5}]
    rows = partition.score_rows(cases, [TSA], errors="record")
    assert rows.column("id").to_pylist() == ["7", "s"]  # JSON text for non-string ids
    assert rows.schema == partition.rows_schema([TSA])
    with pytest.raises(InvalidCaseError, match=r"^batch item 1 \(id .s.\): "):
        partition.score_rows(cases, [TSA])


# -- properties: merging parts equals scoring the whole --------------------------------------


def reference_moments(values: list[float]) -> tuple[float, float]:
    """Mean and population std from exact rationals: an independent reference."""
    exact = [Fraction(v) for v in values]
    mean = sum(exact, Fraction(0)) / len(exact)
    variance = sum(((v - mean) ** 2 for v in exact), Fraction(0)) / len(exact)
    return float(mean), math.sqrt(float(variance))


@settings(max_examples=int(os.environ.get("AGENTMETRICS_FUZZ_EXAMPLES", 60)))
@given(st.data())
def test_merged_aggregates_equal_the_whole_for_any_partition(data):
    n = data.draw(st.integers(1, 120))
    seed = data.draw(st.integers(0, 2**16))
    table = synthetic(n, seed=seed, tools=data.draw(st.integers(1, 8)))
    cuts = sorted(data.draw(st.lists(st.integers(0, n), max_size=6)))
    bounds = [0, *cuts, n]
    limit = data.draw(st.sampled_from([None, 0, 1, 3, 100]))
    whole = am.evaluate(table, TSA, errors="record")
    pieces = []
    for a, b in zip(bounds, bounds[1:]):
        with warns_if_empty(range(b - a)):  # an empty piece is a case of its own
            pieces.append(am.evaluate(table.slice(a, b - a), TSA, errors="record"))
    parts = [Aggregate.from_result(piece, failure_limit=limit) for piece in pieces]
    total = merge(parts, split_every=data.draw(st.integers(2, 4)))
    if data.draw(st.booleans()):
        total = Aggregate.from_json(total.to_json())
    assert total.rows == n
    assert total.summary().rows == whole.summary().rows
    assert same_rows(total.per_tool(), whole.per_tool())
    shown = 0 if limit == 0 else limit
    assert same_rows(total.failures(limit=shown), whole.failures(limit=shown))
    values = [v for v in whole[TSA].values.tolist() if not math.isnan(v)]
    if values:
        mean, std = reference_moments(values)
        row = total.summary()[0]
        assert row["mean"] == mean
        assert row["std"] == pytest.approx(std, rel=1e-12, abs=1e-15)
    joined = EvaluationResult.concat(pieces)
    assert nan_equal(joined[TSA].values.tolist(), whole[TSA].values.tolist())
    assert list(joined[TSA].reasons) == list(whole[TSA].reasons)
    assert joined.batch.case_ids == whole.batch.case_ids


def test_merging_parts_of_different_runs_is_refused():
    cases = am.example_cases()
    one = Aggregate.from_result(am.evaluate(cases, TSA))
    other = Aggregate.from_result(am.evaluate(cases, (TSA, {"threshold": 0.5})))
    with pytest.raises(InvalidParameterError, match="disagree on 'tool_selection_accuracy'"):
        one.merge(other)
    with pytest.raises(InvalidParameterError, match="expected at least one"):
        merge([])


@settings(max_examples=int(os.environ.get("AGENTMETRICS_FUZZ_EXAMPLES", 200)))
@given(st.one_of(st.text(), st.binary(), st.builds(json.dumps, st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner)))))
def test_from_json_reads_an_aggregate_or_refuses(text):
    with pytest.raises(InvalidParameterError, match="Aggregate.from_json"):
        Aggregate.from_json(text)


@settings(max_examples=int(os.environ.get("AGENTMETRICS_FUZZ_EXAMPLES", 100)))
@given(st.data())
def test_from_json_refuses_mutated_aggregates(data):
    state = json.loads(Aggregate.from_result(am.evaluate(am.example_cases(), TSA)).to_json())
    key = data.draw(st.sampled_from(["rows", "metrics", "tools", "failing", "format"]))
    state[key] = data.draw(st.sampled_from([None, "x", [], {}, -1.5]))
    try:
        Aggregate.from_json(json.dumps(state))
    except InvalidParameterError:
        return
    pytest.fail(f"a mutated {key!r} was read")
