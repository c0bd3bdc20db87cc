"""agentmetrics.partition on the real engines: pyspark in ``local[2]`` and Ray
in local mode, started once for this module on loopback (and stopped after it,
so that their processes do not load the rest of the suite). Every run is checked
bit for bit against ``agentmetrics.evaluate`` on the same records: the
summary, the per-tool table and every case's value.

The engines skip (with the reason) where they cannot start; under CI
(``AGENTMETRICS_REQUIRE_ENGINES=1``, set by .ci/run) they must run.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import sys
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pd = pytest.importorskip("pandas")

import agentmetrics as am  # noqa: E402
from agentmetrics import partition  # noqa: E402
from agentmetrics.errors import InvalidCaseError  # noqa: E402
from conftest import empty_result  # noqa: E402

pytestmark = [
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
]

METRICS = ["tool_selection_accuracy", "argument_accuracy"]
REQUIRED = os.environ.get("AGENTMETRICS_REQUIRE_ENGINES") == "1"
TOOLS = ["search", "book", "cancel", "refund", "lookup"]


def _unavailable(reason: str) -> None:
    if REQUIRED:
        pytest.fail(f"the engine must run here (AGENTMETRICS_REQUIRE_ENGINES=1): {reason}")
    pytest.skip(reason)


def _records(n: int, seed: int = 7, objects: bool = True) -> list[dict[str, Any]]:
    rng = random.Random(seed)

    def call() -> Any:
        name = rng.choice(TOOLS)
        if not objects:
            return name
        # one type per key, as a struct column holds it (Spark would read "q": 1 beside
        # "q": "x" as the text "1")
        choices = {"q": [1, 2, 3], "city": ["Oslo", "Lima"], "n": [0.5, 2.0]}
        arguments = {key: rng.choice(choices[key])
                     for key in rng.sample(sorted(choices), rng.randint(0, 2))}
        return {"name": name, "arguments": arguments} if arguments else {"name": name}

    return [{"id": f"case-{i}",
             "tool_calls": [call() for _ in range(rng.randint(0, 4))],
             "expected_tool_calls": [call() for _ in range(rng.randint(1, 3))]}
            for i in range(n)]


def _reference(records: list[dict[str, Any]], metrics: list[str]) -> Any:
    """The single-machine result, on records as the engine holds them (an
    absent argument and one held as null by a struct are the same)."""
    return am.evaluate(records, metrics)


def _assert_same(total: Any, rows: Any, reference: Any, metrics: list[str]) -> None:
    assert total.summary(ci=None).to_dicts() == reference.summary(ci=None).to_dicts()
    assert total.per_tool().to_dicts() == reference.per_tool().to_dicts()
    if rows is not None:
        by_id = rows.set_index("id")
        order = [reference.batch.case_id(i) for i in range(len(reference.batch))]
        assert sorted(by_id.index) == sorted(order)  # every case once, none lost
        for label in reference.results:
            values = by_id.loc[order, label].to_numpy(dtype=np.float64)
            assert values.tobytes() == reference.results[label].values.tobytes()


# -- Spark -------------------------------------------------------------------


@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    try:
        from pyspark.sql import SparkSession
    except ImportError as error:
        _unavailable(f"pyspark is not installed ({error}); pip install 'agent-tool-metrics[spark]'")
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        _unavailable("no Java runtime for Spark (Debian: apt-get install openjdk-17-jre-headless)")
    os.environ["PYSPARK_PYTHON"] = sys.executable  # workers run this interpreter
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    session = (SparkSession.builder.master("local[2]").appName("agentmetrics-tests")
               .config("spark.driver.host", "127.0.0.1")
               .config("spark.driver.bindAddress", "127.0.0.1")
               .config("spark.ui.enabled", "false")
               .config("spark.sql.shuffle.partitions", "4")
               # A JVM that lives for a minute: the quick JIT tier only and one GC
               # thread leave the other test worker its core.
               .config("spark.driver.extraJavaOptions",
                       "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def _spark_run(frame: Any, metrics: list[str], **options: Any) -> tuple[Any, Any]:
    rows = frame.mapInArrow(partition.SparkScorer(metrics, options=options),
                            partition.spark_schema(metrics)).toPandas()
    parts = frame.mapInArrow(partition.SparkScorer(metrics, aggregates=True, options=options),
                             partition.AGGREGATE_DDL).collect()
    total = partition.merge([partition.Aggregate.from_json(row["aggregate"]) for row in parts],
                            metrics)
    return total, rows


@pytest.mark.parametrize("objects", [True, False], ids=["objects", "names"])
def test_spark_json_source_equals_evaluate(spark: Any, tmp_path: Any, objects: bool) -> None:
    records = _records(3_000, objects=objects)
    path = tmp_path / "cases.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    frame = spark.read.json(str(path)).repartition(7)
    metrics = METRICS if objects else METRICS[:1]
    total, rows = _spark_run(frame, metrics)
    _assert_same(total, rows, _reference(records, metrics), metrics)


def test_spark_set_and_ordered_twins_equal_evaluate(spark: Any) -> None:
    records = _records(2_000, seed=19, objects=False)
    frame = spark.createDataFrame(pd.DataFrame(records)).repartition(5)
    metrics: list[Any] = ["tool_selection_accuracy",
                          am.ToolSelectionAccuracy(order_matters=True)]
    assert [f.name for f in partition.spark_schema(metrics).fields][1::4] == [
        "tool_selection_accuracy(order_matters=False)",
        "tool_selection_accuracy(order_matters=True)"]
    total, rows = _spark_run(frame, metrics)
    reference = _reference(records, metrics)
    _assert_same(total, rows, reference, metrics)
    means = [row["mean"] for row in reference.summary(ci=None).to_dicts()]
    assert means[0] > means[1]  # the order counts for the second: a real difference


def test_spark_parquet_source_split_files_equals_evaluate(spark: Any, tmp_path: Any) -> None:
    records = _records(4_000, seed=11)
    folder = tmp_path / "parquet"
    folder.mkdir()
    for number, start in enumerate(range(0, 4_000, 1_000)):
        pq.write_table(pa.Table.from_pylist(records[start:start + 1_000]),
                       folder / f"part-{number}.parquet", row_group_size=300)
    frame = spark.read.parquet(str(folder))
    total, rows = _spark_run(frame, METRICS)
    _assert_same(total, rows, _reference(records, METRICS), METRICS)


def test_spark_arguments_as_json_text(spark: Any) -> None:
    records = _records(500, seed=3)
    as_text = [{**r, "tool_calls": [{"name": c["name"],
                                     "arguments": json.dumps(c.get("arguments", {}))}
                                    for c in r["tool_calls"]]} for r in records]
    frame = spark.read.json(spark.sparkContext.parallelize([json.dumps(r) for r in as_text], 3))
    assert frame.schema["tool_calls"].dataType.elementType["arguments"].dataType.typeName() \
        == "string"
    total, rows = _spark_run(frame, METRICS)
    _assert_same(total, rows, _reference(records, METRICS), METRICS)


def test_spark_empty_partitions_and_empty_filter(spark: Any, tmp_path: Any) -> None:
    records = _records(200, seed=5)
    path = tmp_path / "cases.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    frame = spark.read.json(str(path))
    few = frame.filter(frame.id.isin("case-1", "case-2")).repartition(6)  # most partitions empty
    total, rows = _spark_run(few, METRICS)
    _assert_same(total, rows, _reference([records[1], records[2]], METRICS), METRICS)
    none = frame.filter(frame.id == "nobody")
    total, rows = _spark_run(none, METRICS)
    assert len(rows) == 0
    assert total.summary(ci=None).to_dicts() == empty_result(METRICS).summary(ci=None).to_dicts()


def test_spark_bad_rows_recorded_and_raised(spark: Any, tmp_path: Any) -> None:
    records = _records(300, seed=9)
    records[123]["tool_calls"] = [{"name": "search"}, {"name": ""}]
    path = tmp_path / "cases.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    frame = spark.read.json(str(path)).repartition(3)
    total, rows = _spark_run(frame, METRICS, errors="record")
    reference = am.evaluate(records, METRICS, errors="record")
    assert total.summary(ci=None).to_dicts() == reference.summary(ci=None).to_dicts()
    bad = rows.set_index("id").loc["case-123"]
    assert "expected a non-empty str, got ''" in bad["tool_selection_accuracy_error"]
    assert len(rows) == len(records)
    with pytest.raises(Exception) as raised:
        _spark_run(frame, METRICS)
    text = str(raised.value)
    assert "id 'case-123'" in text and 'errors="record"' in text


# -- Ray ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def ray_data() -> Iterator[Any]:
    try:
        import ray
        import ray.data
    except ImportError as error:
        _unavailable(f"ray is not installed ({error}); pip install 'agent-tool-metrics[ray]'")
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    ray.init(num_cpus=2, include_dashboard=False, _node_ip_address="127.0.0.1",
             log_to_driver=False, configure_logging=False, ignore_reinit_error=True)
    context = ray.data.DataContext.get_current()
    context.enable_progress_bars = False
    yield ray.data
    ray.shutdown()


def _ray_run(dataset: Any, metrics: list[str], batch_format: str,
             **options: Any) -> tuple[Any, Any]:
    rows = dataset.map_batches(partition.RowScorer(metrics, options=options),
                               batch_format=batch_format, batch_size=700).to_pandas()
    parts = dataset.map_batches(partition.RowScorer(metrics, aggregates=True, options=options),
                                batch_format=batch_format, batch_size=700).take_all()
    total = partition.merge([partition.Aggregate.from_json(row["aggregate"]) for row in parts],
                            metrics)
    return total, rows


@pytest.mark.parametrize("batch_format", ["pyarrow", "pandas"])
def test_ray_parquet_objects_equal_evaluate(ray_data: Any, tmp_path: Any,
                                            batch_format: str) -> None:
    records = _records(3_000, seed=13)
    folder = tmp_path / "parquet"
    folder.mkdir()
    for number, start in enumerate(range(0, 3_000, 1_000)):
        pq.write_table(pa.Table.from_pylist(records[start:start + 1_000]),
                       folder / f"part-{number}.parquet")
    dataset = ray_data.read_parquet(str(folder))
    total, rows = _ray_run(dataset, METRICS, batch_format)
    _assert_same(total, rows, _reference(records, METRICS), METRICS)


def test_ray_ordered_names_from_pandas_batches(ray_data: Any) -> None:
    records = _records(2_000, seed=23, objects=False)
    dataset = ray_data.from_pandas(pd.DataFrame(records)).repartition(4)
    metrics: list[Any] = [am.ToolSelectionAccuracy(order_matters=True)]
    total, rows = _ray_run(dataset, metrics, "pandas")
    _assert_same(total, rows, _reference(records, metrics), metrics)


def test_ray_json_names_and_bad_rows(ray_data: Any, tmp_path: Any) -> None:
    records = _records(1_500, seed=17, objects=False)
    records[42]["tool_calls"] = ["search", ""]
    path = tmp_path / "cases.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    dataset = ray_data.read_json(str(path))
    metric = METRICS[:1]
    total, rows = _ray_run(dataset, metric, "pyarrow", errors="record")
    reference = am.evaluate(records, metric, errors="record")
    assert total.summary(ci=None).to_dicts() == reference.summary(ci=None).to_dicts()
    assert len(rows) == len(records)
    with pytest.raises(Exception) as raised:
        _ray_run(dataset, metric, "pyarrow")
    assert "id 'case-42'" in str(raised.value) and 'errors="record"' in str(raised.value)


# -- the column forms, without an engine ----------------------------------------


def _forms(records: list[dict[str, Any]]) -> dict[str, Any]:
    table = pa.Table.from_pylist(records)
    as_map = pa.Table.from_pylist(
        [{**r, "tool_calls": [{"name": c["name"], "arguments": list(
            {k: str(v) for k, v in c.get("arguments", {}).items()}.items())}
            for c in r["tool_calls"]]} for r in records],
        schema=pa.schema([("id", pa.string()),
                          ("tool_calls", pa.list_(pa.struct([
                              ("name", pa.string()),
                              ("arguments", pa.map_(pa.string(), pa.string()))]))),
                          ("expected_tool_calls", table.schema.field("expected_tool_calls").type)]))
    large = table.cast(pa.schema([
        ("id", pa.large_string()),
        ("tool_calls", pa.large_list(table.schema.field("tool_calls").type.value_type)),
        ("expected_tool_calls", table.schema.field("expected_tool_calls").type)]))
    return {"struct": table, "map": as_map, "large": large,
            "arrow-pandas": table.to_pandas(types_mapper=pd.ArrowDtype),
            "object-pandas": pd.DataFrame(records)}


@pytest.mark.parametrize("form", ["struct", "large", "arrow-pandas", "object-pandas"])
def test_partition_reads_call_objects_as_evaluate(form: str) -> None:
    records = _records(800, seed=21)
    data = _forms(records)[form]
    rows, part = partition.score(data, METRICS)
    rows = rows if hasattr(rows, "set_index") else rows.to_pandas()
    _assert_same(part, rows, _reference(records, METRICS), METRICS)
    # evaluate reads the same Arrow forms
    if form in ("struct", "large"):
        direct = am.evaluate(data, METRICS)
        for label in METRICS:
            assert direct.results[label].values.tobytes() == \
                _reference(records, METRICS).results[label].values.tobytes()


_VALUES = {"q": st.integers(-3, 3), "city": st.sampled_from(["Oslo", "Lima", ""]),
           "n": st.floats(allow_nan=False, width=32), "tags": st.lists(st.text(max_size=2),
                                                                      max_size=2),
           "where": st.fixed_dictionaries({}, optional={"lat": st.integers(0, 9),
                                                         "lon": st.integers(0, 9)})}
_CALL = st.builds(lambda name, arguments: {"name": name, "arguments": arguments},
                  st.sampled_from(TOOLS), st.fixed_dictionaries({}, optional=_VALUES))
_SIDE = st.one_of(st.none(), st.lists(_CALL, max_size=3))


@given(st.lists(st.tuples(_SIDE, _SIDE), min_size=1, max_size=6))
def test_struct_columns_read_back_as_the_records_they_came_from(rows: Any) -> None:
    """Differential: Arrow (which fills every struct with the union of the
    keys seen, absent ones null) read back gives the records as written,
    whether the column holds nulls (the full reading) or none (taken as is)."""
    from agentmetrics._columnar import records_from_arrow

    records = [{"tool_calls": called, "expected_tool_calls": expected}
               for called, expected in rows]
    try:
        table = pa.Table.from_pylist(records)
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
        return  # no common Arrow type (e.g. lists of nothing beside lists of text)

    read = records_from_arrow(table.column("tool_calls"), table.column("expected_tool_calls"),
                              None)
    assert read == records


def test_columns_without_nulls_are_taken_as_they_are_and_others_read() -> None:
    from agentmetrics._columnar._arrow import _needs_reading

    full = pa.Table.from_pylist([{"c": [{"name": "a", "arguments": {"q": 1, "w": {"x": [1]}}}]},
                                 {"c": [{"name": "b", "arguments": {"q": 2, "w": {"x": []}}}]}])
    assert not _needs_reading(full.column("c"))
    for records in ([{"c": [{"name": "a", "arguments": {"q": 1}}]}, {"c": [{"name": "b"}]}],
                    [{"c": [{"name": "a", "arguments": {"w": {"x": 1}}}]},
                     {"c": [{"name": "a", "arguments": {"w": {"y": 1}}}]}],
                    [{"c": [{"name": "a", "arguments": '{"q": 1}'}]}],
                    [{"c": [{"name": "a"}, None]}], [{"c": None}]):
        assert _needs_reading(pa.Table.from_pylist(records).column("c")), records
    sliced = pa.Table.from_pylist([{"c": [{"name": "a", "arguments": {"q": None}}]},
                                   {"c": [{"name": "b", "arguments": {"q": 1}}]}]).slice(1)
    assert not _needs_reading(sliced.column("c"))  # the null is outside the slice


def test_map_arguments_are_objects() -> None:
    records = _records(300, seed=23)
    data = _forms(records)["map"]
    as_text = [{**r, "tool_calls": [{"name": c["name"], "arguments": {
        k: str(v) for k, v in c.get("arguments", {}).items()}} for c in r["tool_calls"]]}
        for r in records]
    rows, part = partition.score(data, METRICS)
    _assert_same(part, rows.to_pandas(), _reference(as_text, METRICS), METRICS)


def test_dictionary_encoded_names_inside_structs() -> None:
    records = _records(300, seed=29, objects=False)
    table = pa.Table.from_pylist(records)
    encoded = table.cast(pa.schema([
        ("id", pa.string()),
        ("tool_calls", pa.list_(pa.dictionary(pa.int32(), pa.string()))),
        ("expected_tool_calls", pa.list_(pa.dictionary(pa.int32(), pa.string())))]))
    rows, part = partition.score(encoded, METRICS[:1])
    _assert_same(part, rows.to_pandas(), _reference(records, METRICS[:1]), METRICS[:1])


def test_bad_json_arguments_name_the_row_and_call() -> None:
    table = pa.table({"id": ["a", "b"],
                      "tool_calls": [[{"name": "x", "arguments": "{}"}],
                                     [{"name": "x", "arguments": '{"q": '}]],
                      "expected_tool_calls": [["x"], ["x"]]})
    with pytest.raises(InvalidCaseError) as raised:
        partition.score(table, METRICS[:1])
    text = str(raised.value)
    assert "batch row 1 (id 'b')" in text and "tool_calls[0].arguments" in text
    assert 'errors="record"' in text
    rows, part = partition.score(table, METRICS[:1], errors="record")
    assert rows.column("tool_selection_accuracy").to_pylist()[0] == 1.0
    assert "tool_calls[0].arguments" in rows.column("tool_selection_accuracy_error")[1].as_py()


def test_errors_carry_the_global_position_of_a_dask_style_partition() -> None:
    frame = pd.DataFrame({"tool_calls": [["a"], ["a", ""]], "expected_tool_calls": [["a"], ["a"]]},
                         index=pd.RangeIndex(100, 102))
    with pytest.raises(InvalidCaseError, match=r"^row 101 \(row 1 of this batch\): tool_calls\[1\]"):
        partition.score(frame, METRICS[:1])


def test_the_wording_matches_evaluate_on_the_same_table() -> None:
    table = pa.table({"id": ["a", "b"], "tool_calls": [["x"], ["x", ""]],
                      "expected_tool_calls": [["x"], ["x"]]})
    with pytest.raises(InvalidCaseError) as single:
        am.evaluate(table, METRICS[:1])
    with pytest.raises(InvalidCaseError) as parted:
        partition.score(table, METRICS[:1])
    assert str(parted.value) == "batch " + str(single.value)
    assert str(single.value).startswith("row 1 (id 'b'): tool_calls[1]: ToolCall.name")


def test_empty_and_null_typed_batches_read_as_empty() -> None:
    for data in (pa.table({}), pa.table({"tool_calls": pa.nulls(0), "expected_tool_calls":
                                         pa.nulls(0)}), pd.DataFrame()):
        rows, part = partition.score(data, METRICS[:1])
        assert part.rows == 0 and len(rows) == 0
    empty = partition.merge([], METRICS[:1])
    assert empty.summary(ci=None).to_dicts() == empty_result(METRICS[:1]).summary(
        ci=None).to_dicts()
    assert partition.merge([]).rows == 0


def test_spark_schema_without_pyspark_as_ddl() -> None:
    text = partition.spark_schema(["tool_selection_accuracy"], ddl=True)
    assert text == ("`id` string, `tool_selection_accuracy` double, "
                    "`tool_selection_accuracy_passed` boolean, "
                    "`tool_selection_accuracy_reason` string, "
                    "`tool_selection_accuracy_error` string")
    names = [field.name for field in partition.rows_schema(["tool_selection_accuracy"])]
    assert names == [part.split(" ")[0].strip("`") for part in text.split(", ")]


# -- the docs' examples, run as their users would run them -----------------------


def _page_example(name: str) -> tuple[str, str]:
    import re
    from pathlib import Path

    page = (Path(__file__).resolve().parent.parent / "docs" / "scale.md").read_text("utf-8")
    found = re.search(rf"^```python file={re.escape(name)}\n(.*?)^```\n.*?^```text\n(.*?)^```",
                      page, flags=re.S | re.M)
    assert found is not None, f"docs/scale.md has no example {name}"
    return found.group(1), found.group(2)


@pytest.mark.parametrize("name, fixture, start", [
    ("spark_job.py", "spark", "\nspark = "), ("ray_job.py", "ray_data", "\nray.init(")])
def test_the_docs_examples_run_and_print_what_evaluate_gives(
        request: Any, tmp_path: Any, monkeypatch: Any, capsys: Any, name: str, fixture: str,
        start: str) -> None:
    """The page's script, run whole as a program (``__main__``) in this process,
    on the engine the module started (the same settings the script asks for):
    Spark's ``getOrCreate()`` takes the module's session, and the script's
    ``ray.init`` and ``ray.shutdown`` meet the module's running Ray (a second
    JVM or Ray start would cost 10 s each). The Spark script stops its session:
    these are the module's last engine tests."""
    import runpy
    import warnings

    request.getfixturevalue(fixture)  # skips (or fails under CI) where the engine cannot run
    script, shown = _page_example(name)
    (tmp_path / name).write_text(script)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RAY_USAGE_STATS_ENABLED", "0")
    if fixture == "ray_data":
        import ray

        assert "ray.init(num_cpus=2, include_dashboard=False)" in script  # the module's own Ray
        monkeypatch.setattr(ray, "init", lambda *args, **kwargs: None)
        monkeypatch.setattr(ray, "shutdown", lambda *args, **kwargs: None)
    with warnings.catch_warnings():  # the engines' own warnings, not ours
        warnings.simplefilter("ignore")
        runpy.run_path(str(tmp_path / name), run_name="__main__")
    printed = capsys.readouterr().out
    assert shown.strip() in printed, printed
    # the page's numbers are evaluate's, on the example's own cases
    namespace: dict[str, Any] = {}
    exec("import json, os, tempfile\n" + script[script.index("cases = "):script.index(start)],
         namespace)
    reference = am.evaluate(namespace["cases"], METRICS)
    expected = str(reference.summary(ci=None).select("metric", "n", "mean", "passed"))
    assert expected.strip() in printed


def test_scorers_take_one_metric_as_evaluate_does_and_pickle() -> None:
    import pickle

    table = pa.table({"tool_calls": [["a", "b"]], "expected_tool_calls": [["b", "a"]]})
    ordered = ("tool_selection_accuracy", {"order_matters": True})
    for spec, value in (("tool_selection_accuracy", 1.0), (ordered, 0.5),
                        (am.ToolSelectionAccuracy(order_matters=True), 0.5)):
        scorer = pickle.loads(pickle.dumps(partition.RowScorer(spec)))
        assert scorer.metrics == (spec,)
        assert scorer(table).column("tool_selection_accuracy").to_pylist() == [value]
        batches = list(partition.SparkScorer(spec)(table.to_batches()))
        assert batches[0].column(1).to_pylist() == [value]
    assert partition.rows_schema("tool_selection_accuracy").names[1] == "tool_selection_accuracy"
