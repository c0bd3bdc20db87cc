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

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs

from agentmetrics._base._optional import require
from agentmetrics._base._types import ErrorsMode, check_errors_mode
from agentmetrics._columnar import check_unique_columns
from agentmetrics.cases._tool_call_batch import ToolCallBatch, holds_mappings, refuse_row
from agentmetrics.engine._evaluate import metric_of, score_cases
from agentmetrics.errors import InvalidCaseError, InvalidParameterError
from agentmetrics.io._dataset import case_from_record
from agentmetrics.metric._metric import Metric, metric_labels
from agentmetrics.model._model import AgentTestCase, UnreadableCase, describe
from agentmetrics.results._aggregate import Aggregate, ToolCounts
from agentmetrics.results._aggregate import merge as _merge_aggregates
from agentmetrics.results._results import EvaluationResult

__all__ = ["AGGREGATE_DDL", "Aggregate", "RowScorer", "SparkScorer", "aggregate", "merge",
           "rows_schema", "score", "score_rows", "spark_schema"]

_CALL_FIELDS = ("tool_calls", "expected_tool_calls")


def column_map(columns: Mapping[str, str] | None) -> dict[str, str | None]:
    names: dict[str, str | None] = {"tool_calls": "tool_calls",
                                    "expected_tool_calls": "expected_tool_calls", "id": None}
    for key, value in (columns or {}).items():
        if key not in names:
            raise InvalidParameterError(
                f"columns: expected keys among {sorted(names)}, got {key!r}. Fix: "
                f"columns={{'tool_calls': 'calls', 'expected_tool_calls': 'gold', 'id': 'trace'}}.")
        if not isinstance(value, str):
            raise InvalidParameterError(
                f"columns[{key!r}]: expected a column name, got {describe(value)}.")
        names[key] = value
    return names


def refuse_text_calls(dtypes: Mapping[str, Any], columns: Mapping[str, str | None],
                      where: str) -> None:
    """Refuse call columns held as text: that is how Dask's
    ``dataframe.convert-string`` leaves lists (``"['a', 'b']"``), and reading
    the text back could not tell a list from a name."""
    for field in _CALL_FIELDS:
        name = columns[field]
        dtype = dtypes.get(name) if name is not None else None
        if dtype is not None and _is_text_dtype(dtype):
            raise InvalidCaseError(
                f"{where}: column {name!r} ({field}) holds text ({dtype}); expected lists of "
                f"tool names. Dask's 'dataframe.convert-string' option turns object columns "
                f"of lists into their text. Fix: build the frame inside "
                f"dask.config.set({{'dataframe.convert-string': False}}), keep the lists as "
                f"Arrow lists (dtype pd.ArrowDtype(pa.list_(pa.string()))), or read them "
                f"from Parquet (dd.read_parquet keeps list columns).")


def _is_text_dtype(dtype: Any) -> bool:
    text = str(dtype)
    return text in ("string", "str") or text.startswith(("string[", "large_string["))


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
    batch, ids, kept, first = _batch(data, names, tuple(keep))
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


def _batch(data: Any, names: dict[str, str | None],
           keep: tuple[str, ...]) -> tuple[ToolCallBatch, Any, dict[str, Any], int | None]:
    """The batch (unreadable rows kept as invalid rows), the ids, the kept
    columns and the global position of the first row, when the data says it
    (a pandas index numbered from the partition's offset, as Dask's is)."""
    pa = require("pyarrow", "arrow")
    module = type(data).__module__
    if module.startswith("pandas") and type(data).__name__ == "DataFrame":
        return _from_pandas(data, names, keep)
    if module.startswith("pyarrow") and type(data).__name__ in ("Table", "RecordBatch"):
        table = data if isinstance(data, pa.Table) else pa.Table.from_batches([data])
        return (*_from_arrow(table, names, keep), None)
    if isinstance(data, Mapping):  # Ray's "numpy" batches: column name -> array
        pd = require("pandas", "pandas")
        frame = pd.DataFrame({key: list(value) if getattr(value, "ndim", 1) > 1 else value
                              for key, value in data.items()})
        return _from_pandas(frame, names, keep)
    if isinstance(data, (list, tuple)):
        return (*_from_items(data, keep), None)
    raise InvalidParameterError(
        f"data: expected a pandas DataFrame, an Arrow Table or RecordBatch, a dict of columns "
        f"or a list of cases, got {describe(data)}.")


def _require_columns(present: Sequence[str], names: dict[str, str | None],
                     keep: tuple[str, ...]) -> None:
    wanted = [names["tool_calls"], names["expected_tool_calls"], names["id"], *keep]
    check_unique_columns(present, [*wanted, "id" if names["id"] is None else None], "data")
    missing = [name for name in wanted if name is not None and name not in present]
    if missing:
        raise InvalidCaseError(
            f"data: no column {missing[0]!r}; the partition has {list(present)}. Fix: pass "
            f"columns={{'tool_calls': ..., 'expected_tool_calls': ..., 'id': ...}} naming "
            f"your columns.")


def _from_pandas(frame: Any, names: dict[str, str | None], keep: tuple[str, ...]
                 ) -> tuple[ToolCallBatch, Any, dict[str, Any], int | None]:
    pa = require("pyarrow", "arrow")
    pd = require("pandas", "pandas")
    present = [str(c) for c in frame.columns]
    if not len(frame) and not present:  # an empty frame that lost its columns
        return (*_from_arrow(pa.table({}), names, keep), 0)
    _require_columns(present, names, keep)
    refuse_text_calls({str(c): frame[c].dtype for c in frame.columns}, names, "data")
    called, expected = frame[names["tool_calls"]], frame[names["expected_tool_calls"]]
    id_name = names["id"] if names["id"] is not None else ("id" if "id" in present else None)
    id_values: tuple[Any, ...] | None = None
    if id_name is not None:
        ids = _arrow_column(frame[id_name])
    elif frame.index.name is not None:  # an index the user named (set_index("trace_id"))
        ids = _arrow_column(frame.index.to_series())
    else:  # a partition's positions (dask numbers them from its offset) are no ids
        ids = pa.nulls(len(frame), pa.string())
    if id_name is not None or frame.index.name is not None:
        id_values = tuple(ids.to_pylist())
    index = frame.index
    # Dask numbers a partition's rows from its offset: a range from elsewhere
    # than 0 is where the rows are in the whole; from 0 it may be a batch's own.
    first = (int(index.start) if isinstance(index, pd.RangeIndex) and index.step == 1
             and index.name is None and index.start != 0 else None)
    if _is_arrow_column(called) and _is_arrow_column(expected):
        batch = ToolCallBatch.from_arrow(tool_calls=pa.array(called.array),
                                         expected_tool_calls=pa.array(expected.array),
                                         ids=id_values, errors="record")
    elif holds_mappings(called) or holds_mappings(expected):
        # Call objects in object columns: read as records, arguments included.
        batch = ToolCallBatch.from_object_columns(called.tolist(), expected.tolist(), id_values)
    else:
        batch = ToolCallBatch.from_columns(tool_calls=called.tolist(),
                                           expected_tool_calls=expected.tolist(),
                                           ids=id_values, errors="record")
    return batch, ids, {name: _arrow_column(frame[name]) for name in keep}, first


def _is_arrow_column(series: Any) -> bool:
    """An Arrow-backed list column (Ray's pandas batches, ``dtype_backend="pyarrow"``),
    or one with no value at all."""
    pyarrow_dtype = getattr(series.dtype, "pyarrow_dtype", None)
    if pyarrow_dtype is None:
        return False
    import pyarrow as pa

    return bool(pa.types.is_list(pyarrow_dtype) or pa.types.is_large_list(pyarrow_dtype)
                or pa.types.is_null(pyarrow_dtype))


def _arrow_column(series: Any) -> Any:
    pa = require("pyarrow", "arrow")
    array = series.array
    if hasattr(array, "_pa_array"):  # ArrowExtensionArray / ArrowStringArray
        return pa.array(array)
    return pa.Array.from_pandas(series)


def _from_arrow(table: Any, names: dict[str, str | None],
                keep: tuple[str, ...]) -> tuple[ToolCallBatch, Any, dict[str, Any]]:
    pa = require("pyarrow", "arrow")
    if not table.num_rows and not table.num_columns:  # an empty batch with no schema
        table = pa.table({name: pa.array([], pa.list_(pa.string()))
                          for name in (names["tool_calls"], names["expected_tool_calls"])})
    _require_columns(table.column_names, names, keep)
    id_name = names["id"] if names["id"] is not None else (
        "id" if "id" in table.column_names else None)
    ids = (table.column(id_name).combine_chunks() if id_name is not None
           else pa.nulls(table.num_rows, pa.string()))
    batch = ToolCallBatch.from_arrow(
        tool_calls=table.column(names["tool_calls"]),
        expected_tool_calls=table.column(names["expected_tool_calls"]),
        ids=None if id_name is None else ids, errors="record")
    return batch, ids, {name: table.column(name).combine_chunks() for name in keep}


def _from_items(items: Sequence[Any],
                keep: tuple[str, ...]) -> tuple[ToolCallBatch, Any, dict[str, Any]]:
    cases: list[Any] = []
    for position, item in enumerate(items):
        if isinstance(item, Mapping) and not isinstance(item, AgentTestCase):
            try:
                cases.append(case_from_record(dict(item)))
            except InvalidCaseError as error:
                identity = item.get("id") if isinstance(item, Mapping) else None
                cases.append(UnreadableCase("<items>", position, f"item {position}: {error}",
                                            id=identity))
        else:
            cases.append(item)
    batch = ToolCallBatch.from_cases(cases, errors="record")
    ids = text_column([_case_value(case, "id") for case in cases])
    kept = {key: text_column([_case_value(case, key) for case in cases]) for key in keep}
    return batch, ids, kept


def _case_value(case: Any, key: str) -> Any:
    if isinstance(case, AgentTestCase):
        return case.metadata.get(key)
    if isinstance(case, UnreadableCase) and key == "id":
        return case.id
    return None


def text_column(values: Iterable[Any]) -> Any:
    """An Arrow string column: strings as they are, None as null, anything
    else (a number, a list) as its JSON text, so that every partition has the
    same column type."""
    pa = require("pyarrow", "arrow")
    return pa.array([value if value is None or isinstance(value, str)
                     else json.dumps(value, default=str, ensure_ascii=False)
                     for value in values], pa.string())


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
