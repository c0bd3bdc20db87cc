"""Score one partition of a larger data set, for any engine.

Plain functions over a pandas DataFrame, an Arrow Table or RecordBatch, a
dict of columns (Ray's ``"numpy"`` batches) or a list of cases: what a Dask
task, a Ray Data ``map_batches`` function or a Spark ``mapInArrow`` function
calls on each piece. Each partition gives

* its per-case rows, in a fixed schema (:func:`rows_schema`): ``id``, any
  columns kept from the input, then per metric ``<label>`` (float64, NaN for
  an error), ``<label>_passed``, ``<label>_reason`` and ``<label>_error``;
* its :class:`~agentmetrics.results._aggregate.Aggregate`: exact partial totals that
  :func:`merge` combines (in partition order) into the summary, the per-tool
  table and the first failures of the whole, equal to what
  ``agentmetrics.evaluate`` gives on all the cases at once. ``to_json()``
  carries an aggregate through engines that move text or bytes.

>>> import pyarrow as pa
>>> from agentmetrics import partition
>>> table = pa.table({"tool_calls": [["search"], ["search", "book"]],
...                   "expected_tool_calls": [["search", "book"], ["search", "book"]]})
>>> rows, part = partition.score(table, ["tool_selection_accuracy"])
>>> rows.column("tool_selection_accuracy").to_pylist()
[0.5, 1.0]
>>> partition.merge([part, part]).summary(ci=None).select("metric", "n", "mean", "passed")
Summary
metric                   n   mean  passed
tool_selection_accuracy  4  0.750       2
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs

from agentmetrics._base._optional import require
from agentmetrics._base._types import ErrorsMode, check_errors_mode
from agentmetrics._columnar._frames import refuse_row
from agentmetrics.cases._tool_call_batch import ToolCallBatch
from agentmetrics.engine._evaluate import metric_of, score_cases
from agentmetrics.errors import InvalidParameterError
from agentmetrics.io._input import column_map, read_partition
from agentmetrics.metric._metric import Metric, metric_labels
from agentmetrics.results._aggregate import Aggregate, ToolCounts
from agentmetrics.results._aggregate import merge as _merge_aggregates
from agentmetrics.results._results import EvaluationResult

__all__ = ["AGGREGATE_DDL", "Aggregate", "RowScorer", "SparkScorer", "aggregate", "merge",
           "rows_schema", "score", "score_rows", "spark_schema"]

def evaluate_partition(
    data: Any,
    metrics: Sequence[Metric | str | Any],
    *,
    errors: ErrorsMode = "raise",
    columns: Mapping[str, str] | None = None,
    keep: Sequence[str] = (),
    **options: Any,
) -> tuple[EvaluationResult, Any, dict[str, Any]]:
    """Score ``data``: the result, the ids (an Arrow array) and the kept columns.
    ``options`` go to :func:`agentmetrics.evaluate` (``concurrency``, ``cache``...)."""

    check_errors_mode(errors)
    names = column_map(columns)
    batch, ids, kept, first = read_partition(data, names, tuple(keep))
    if errors == "raise" and batch.invalid:
        row = min(batch.invalid)
        message = batch.invalid[row]
        noun = "row"
        for each in ("row", "record", "item"):
            if message.startswith(f"{each} {row}: "):
                noun, message = each, message.removeprefix(f"{each} {row}: ")
        if first is None:
            raise refuse_row(row, batch.case_id(row), message, f"batch {noun}")
        raise refuse_row(row + first, batch.case_id(row), message, local=row)
    result = score_cases(batch, list(metrics), errors=errors, progress=False, **options)
    return result, ids, kept


def rows_table(result: EvaluationResult, ids: Any, kept: Mapping[str, Any], *,
               reasons: bool = True) -> Any:
    """The per-case rows of a scored partition, as an Arrow table in the fixed
    schema (see the module docstring)."""
    pa = require("pyarrow", "arrow")
    columns: dict[str, Any] = {"id": ids}
    for name, column in kept.items():
        if name in columns:
            raise InvalidParameterError(f"keep: column {name!r} is given twice.")
        columns[name] = column
    for label, scores in result.results.items():
        names = [label, f"{label}_passed", f"{label}_reason", f"{label}_error"]
        clash = next((name for name in names if name in columns), None)
        if clash is not None:
            raise InvalidParameterError(
                f"keep: the column {clash!r} would clash with a metric's column. Fix: rename "
                f"it before scoring.")
        columns[label] = pa.array(scores.values, pa.float64())
        columns[f"{label}_passed"] = pa.array(scores.passed, pa.bool_())
        columns[f"{label}_reason"] = (pa.array(list(scores.reasons), pa.string()) if reasons
                                      else pa.nulls(len(scores), pa.string()))
        error_column: list[str | None] = [None] * len(scores)
        for row, message in scores.errors.items():
            error_column[row] = message
        columns[f"{label}_error"] = pa.array(error_column, pa.string())
    return pa.table(columns)


def _labels(metrics: Sequence[Any]) -> list[str]:
    """The column labels of ``metrics``: labels as given when every one is a
    string, else the labels ``evaluate`` gives the resolved metrics (names,
    instances, ``(name, params)`` pairs; twins told apart by their parameters)."""
    if isinstance(metrics, (str, Metric)):
        metrics = [metrics]
    if all(isinstance(each, str) for each in metrics):
        return list(metrics)

    return metric_labels([metric_of(each) for each in metrics])


def rows_schema(labels: Sequence[Any], *, id_type: Any = None,
                keep: Mapping[str, Any] | None = None) -> Any:
    """The Arrow schema of the per-case rows for metrics labelled ``labels``
    (or for the metrics themselves, as ``evaluate`` takes them): ``id``
    (``id_type``, string by default), the ``keep`` columns (name -> Arrow
    type), then four columns per metric."""
    pa = require("pyarrow", "arrow")
    labels = _labels(labels)
    fields = [pa.field("id", id_type if id_type is not None else pa.string())]
    fields += [pa.field(name, kind) for name, kind in (keep or {}).items()]
    for label in labels:
        fields += [pa.field(label, pa.float64()), pa.field(f"{label}_passed", pa.bool_()),
                   pa.field(f"{label}_reason", pa.string()),
                   pa.field(f"{label}_error", pa.string())]
    return pa.schema(fields)


def _like_input(data: Any, table: Any) -> Any:
    module = type(data).__module__
    if module.startswith("pandas"):
        return to_pandas_rows(table)
    if module.startswith("pyarrow") and type(data).__name__ == "RecordBatch":
        return table.combine_chunks().to_batches()[0] if table.num_rows else \
            require("pyarrow", "arrow").RecordBatch.from_pylist([], schema=table.schema)
    return table


def to_pandas_rows(table: Any) -> Any:
    """Rows as pandas: strings as Arrow-backed strings, numbers and flags as numpy."""
    pd = require("pandas", "pandas")
    pa = require("pyarrow", "arrow")
    string = pd.ArrowDtype(pa.string())
    return table.to_pandas(types_mapper={pa.string(): string, pa.large_string(): string}.get)


def score(
    data: Any,
    metrics: Sequence[Metric | str | Any],
    *,
    errors: ErrorsMode = "raise",
    columns: Mapping[str, str] | None = None,
    keep: Sequence[str] = (),
    reasons: bool = True,
    failure_limit: int | None = 100,
) -> tuple[Any, Aggregate]:
    """Score one partition: its per-case rows (a pandas DataFrame for a
    DataFrame, a RecordBatch for a RecordBatch, else an Arrow Table) and its
    :class:`Aggregate`, from one scoring pass.

    ``metrics``: Metric instances or registry names (resolved in the process
    that runs this, through entry points). ``columns`` names the input's
    ``tool_calls``, ``expected_tool_calls`` and ``id`` columns; ``keep`` copies
    input columns (or, for cases, metadata keys) into the rows. ``errors`` as in
    :func:`agentmetrics.evaluate`: with ``"record"`` a row that cannot be read
    or scored is kept with its message, never dropped.
    """
    result, ids, kept = evaluate_partition(data, metrics, errors=errors, columns=columns,
                                           keep=keep)
    table = rows_table(result, ids, kept, reasons=reasons)
    return _like_input(data, table), Aggregate.from_result(result, failure_limit=failure_limit)


def score_rows(data: Any, metrics: Sequence[Metric | str | Any], **options: Any) -> Any:
    """:func:`score`'s rows alone: the function for Ray's ``map_batches``."""
    return score(data, metrics, **options)[0]


def aggregate(data: Any, metrics: Sequence[Metric | str | Any], *, errors: ErrorsMode = "raise",
              columns: Mapping[str, str] | None = None,
              failure_limit: int | None = 100) -> Aggregate:
    """:func:`score`'s aggregate alone (no per-case rows are built)."""
    result, _, _ = evaluate_partition(data, metrics, errors=errors, columns=columns)
    return Aggregate.from_result(result, failure_limit=failure_limit)


def merge(aggregates: Iterable[Aggregate], metrics: Sequence[Metric | str | Any] = (), *,
          split_every: int = 8) -> Aggregate:
    """Merge the partitions' aggregates, given in data order (only the order of
    ``failures()`` depends on it). With no aggregate at all (a filter that left
    every partition empty), the aggregate of no case: ``n = 0`` for each of
    ``metrics``, as ``agentmetrics.evaluate`` gives on 0 cases."""
    level = list(aggregates)
    if level:
        return _merge_aggregates(level, split_every=split_every)
    if not metrics:
        return Aggregate(rows=0, metrics={}, tools=ToolCounts.from_batch(
            ToolCallBatch.from_columns(tool_calls=[], expected_tool_calls=[])),
            failing={}, failure_limit=100)

    return Aggregate.from_result(score_cases([], list(metrics), progress=False))


def spark_schema(labels: Sequence[Any], *, id_type: str = "string",
                 keep: Mapping[str, str] | None = None, ddl: bool = False) -> Any:
    """The schema Spark's ``mapInArrow`` needs for the per-case rows of
    metrics labelled ``labels`` (:func:`rows_schema` in Spark's terms): a
    ``pyspark.sql.types.StructType``, or with ``ddl=True`` its DDL string
    (which needs no pyspark to build). ``id_type`` and the ``keep`` column
    types are Spark SQL type names (``"string"``, ``"bigint"``...). Metric
    instances in place of labels are labelled as ``evaluate`` labels them."""
    fields = [("id", id_type), *(keep or {}).items()]
    for label in _labels(labels):
        fields += [(label, "double"), (f"{label}_passed", "boolean"),
                   (f"{label}_reason", "string"), (f"{label}_error", "string")]
    text = ", ".join(f"`{name.replace('`', '``')}` {kind}" for name, kind in fields)
    if ddl:
        return text
    types = require("pyspark.sql.types", "spark")
    known = {"string": types.StringType, "double": types.DoubleType,
             "boolean": types.BooleanType, "bigint": types.LongType, "long": types.LongType,
             "int": types.IntegerType, "integer": types.IntegerType}
    unknown = next((kind for _, kind in fields if kind.lower() not in known), None)
    if unknown is not None:
        raise InvalidParameterError(
            f"spark_schema: expected Spark SQL type names among {sorted(known)}, got "
            f"{unknown!r}. Fix: pass ddl=True and give the DDL string to mapInArrow.")
    return types.StructType([types.StructField(name, known[kind.lower()](), True)
                             for name, kind in fields])



#: Spark's schema (DDL) for the batches :class:`SparkScorer` yields with ``aggregates=True``.
AGGREGATE_DDL = "aggregate string"


def _specs(metrics: Any) -> tuple[Any, ...]:
    """The metrics as a tuple of specs: one metric (a name, an instance, a
    ``(name, params)`` pair) or a sequence of them."""
    if isinstance(metrics, (str, Metric)) or (
            isinstance(metrics, tuple) and len(metrics) == 2 and isinstance(metrics[0], str)
            and isinstance(metrics[1], Mapping)):
        return (metrics,)
    return tuple(metrics)


@attrs.frozen(slots=True)
class RowScorer:
    """``score_rows(batch, metrics, **options)`` as one picklable callable:
    the function for Ray Data's ``map_batches`` (any ``batch_format``)."""

    metrics: tuple[Any, ...] = attrs.field(converter=_specs)
    aggregates: bool = False
    options: Mapping[str, Any] = attrs.field(factory=dict)

    def __call__(self, batch: Any) -> Any:
        """The batch's rows, or with ``aggregates=True`` a one-row table
        ``{"aggregate": [json]}`` to merge on the driver."""
        if not self.aggregates:
            return score_rows(batch, list(self.metrics), **self.options)
        pa = require("pyarrow", "arrow")
        options = {key: value for key, value in self.options.items() if key != "reasons"}
        part = aggregate(batch, list(self.metrics), **options)
        return pa.table({"aggregate": [part.to_json()]})


@attrs.frozen(slots=True)
class SparkScorer:
    """The function for Spark's ``mapInArrow``: Arrow batches in, the rows
    out (schema :func:`spark_schema`), or with ``aggregates=True`` one
    ``aggregate`` JSON text per partition (schema :data:`AGGREGATE_DDL`),
    for :func:`merge` on the driver. An empty partition yields nothing."""

    metrics: tuple[Any, ...] = attrs.field(converter=_specs)
    aggregates: bool = False
    options: Mapping[str, Any] = attrs.field(factory=dict)

    def __call__(self, batches: Iterable[Any]) -> Iterable[Any]:
        pa = require("pyarrow", "arrow")
        if self.aggregates:
            options = {key: value for key, value in self.options.items() if key != "reasons"}
            parts = [aggregate(batch, list(self.metrics), **options) for batch in batches
                     if batch.num_rows]
            if parts:
                total = _merge_aggregates(parts)
                yield pa.RecordBatch.from_pydict({"aggregate": [total.to_json()]})
            return
        for batch in batches:
            if batch.num_rows:
                rows = score_rows(batch, list(self.metrics), **self.options)
                yield from rows.to_batches() if isinstance(rows, pa.Table) else [rows]
