"""Reading a saved run back: the same values, pass flags, reasons, errors,
ids and call names, and the provenance it was saved with. A file that is not
a saved run, a later layout, or a run cut short is refused, never read in
part."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import attrs
import numpy as np

from agentmetrics._metric_result import MetricResult
from agentmetrics._results import EvaluationResult
from agentmetrics._tool_call_batch import ToolCallBatch
from agentmetrics.errors import InvalidCaseError, InvalidParameterError
from agentmetrics.runs._history import RunStore
from agentmetrics.runs._provenance import Provenance
from agentmetrics.runs._save import FORMAT_VERSION, HEADER_KEY
from agentmetrics.runs._saved_metric import saved_metric

__all__ = ["is_saved_run", "load_result", "load_run"]

_PARQUET_MAGIC = b"PAR1"


def is_saved_run(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a run saved by :meth:`EvaluationResult.save` (by
    its content: a Parquet file with a run header, or JSON lines whose first
    line is one)."""
    try:
        with open(path, "rb") as handle:
            start = handle.read(4)
            if start == _PARQUET_MAGIC:
                return Path(path).suffix.lower() == ".parquet"
            first = start + handle.readline(1 << 20)
    except OSError:
        return False
    return first.lstrip().startswith(b'{"' + HEADER_KEY.encode() + b'"')


def _decode_id(value: Any, where: str) -> Any:
    if isinstance(value, dict):
        items = value.get("tuple")
        if set(value) != {"tuple"} or not isinstance(items, list):
            raise InvalidCaseError(f"{where}: expected an id (a string, number, boolean, null "
                                   f"or {{\"tuple\": [...]}}), got {value!r}.")
        return tuple(_decode_id(item, where) for item in items)
    if isinstance(value, list):
        raise InvalidCaseError(f"{where}: expected an id, got a list.")
    return value


def _check_header(header: Any, where: str) -> dict[str, Any]:
    if not isinstance(header, dict) or HEADER_KEY not in header:
        raise InvalidParameterError(
            f"{where}: expected a run saved by EvaluationResult.save (a header with "
            f"{HEADER_KEY!r}), got something else. Fix: save the run with result.save(path) "
            f"or `agentmetrics evaluate --save PATH`.")
    version = header[HEADER_KEY]
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise InvalidParameterError(f"{where}: expected a layout version (a whole number), "
                                    f"got {version!r}.")
    if version > FORMAT_VERSION:
        raise InvalidParameterError(
            f"{where}: this run was saved in layout {version} by a later agentmetrics; this "
            f"version reads layouts up to {FORMAT_VERSION}. Fix: upgrade agentmetrics.")
    return header


class _Columns:
    """A saved run's cases, column by column, before they become a result."""

    def __init__(self, metrics: int) -> None:
        self.ids: list[Any] = []
        self.called: list[Any] = []
        self.expected: list[Any] = []
        self.invalid: dict[int, str] = {}
        self.values: list[list[float]] = [[] for _ in range(metrics)]
        self.passed: list[list[bool]] = [[] for _ in range(metrics)]
        self.reasons: list[list[str]] = [[] for _ in range(metrics)]
        self.errors: list[dict[int, str]] = [{} for _ in range(metrics)]


def _names(value: Any, where: str) -> list[str] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InvalidCaseError(f"{where}: expected a list of tool names or null, got "
                               f"{value!r:.80}.")
    return value


def _read_jsonl(path: Path) -> tuple[dict[str, Any], _Columns]:
    name = os.fspath(path)
    with open(path, encoding="utf-8") as handle:
        first = handle.readline()
        try:
            header = json.loads(first)
        except json.JSONDecodeError:
            header = None
        header = _check_header(header, f"{name}:1")
        metrics = len(header["provenance"]["metrics"])
        columns = _Columns(metrics)
        row = -1
        for number, line in enumerate(handle, start=2):
            where = f"{name}:{number}"
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                raise InvalidCaseError(f"{where}: expected a case of the saved run (one JSON "
                                       f"object), got invalid JSON ({error.msg}). The file "
                                       f"may be cut short or edited.") from None
            row += 1
            if not isinstance(record, dict) or record.get("case") != row:
                raise InvalidCaseError(f"{where}: expected case {row} of the saved run, got "
                                       f"{line.strip()[:80]!r}.")
            columns.ids.append(_decode_id(record.get("id"), f"{where}: id"))
            columns.called.append(_names(record.get("called"), f"{where}: called"))
            columns.expected.append(_names(record.get("expected"), f"{where}: expected"))
            if record.get("invalid") is not None:
                columns.invalid[row] = str(record["invalid"])
            scores = record.get("scores")
            if not isinstance(scores, list) or len(scores) != metrics:
                raise InvalidCaseError(f"{where}: scores: expected one entry per metric "
                                       f"({metrics}), got {scores!r:.80}.")
            for k, entry in enumerate(scores):
                if not isinstance(entry, list) or len(entry) != 4:
                    raise InvalidCaseError(f"{where}: scores[{k}]: expected [value, passed, "
                                           f"reason, error], got {entry!r:.80}.")
                value, passed, reason, error = entry
                _add(columns, k, row, value, passed, reason, error, f"{where}: scores[{k}]")
    return header, columns


def _add(columns: _Columns, k: int, row: int, value: Any, passed: Any, reason: Any,
         error: Any, where: str) -> None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
        raise InvalidCaseError(f"{where}: expected a number or null as the value, got "
                               f"{value!r:.40}.")
    if not isinstance(passed, bool):
        raise InvalidCaseError(f"{where}: expected true or false as passed, got {passed!r:.40}.")
    columns.values[k].append(float("nan") if value is None else float(value))
    columns.passed[k].append(passed)
    if error is not None:
        columns.errors[k][row] = str(error)
        columns.reasons[k].append("")
    else:
        columns.reasons[k].append("" if reason is None else str(reason))


def _read_parquet(path: Path) -> tuple[dict[str, Any], _Columns]:
    from agentmetrics._optional import require

    require("pyarrow", "arrow")
    import pyarrow.parquet as pq

    name = os.fspath(path)
    try:
        table = pq.read_table(path)
    except Exception as error:  # pyarrow's own errors: a damaged or cut file
        raise InvalidParameterError(f"{name}: expected a saved run in Parquet, but it cannot "
                                    f"be read ({type(error).__name__}: {error}).") from None
    metadata = table.schema.metadata or {}
    raw = metadata.get(HEADER_KEY.encode())
    header = _check_header(json.loads(raw) if raw else None, name)
    metrics = len(header["provenance"]["metrics"])
    columns = _Columns(metrics)
    data = table.to_pydict()
    if data.get("case") != list(range(table.num_rows)):
        raise InvalidCaseError(f"{name}: expected the cases numbered 0 to "
                               f"{table.num_rows - 1} in order.")
    columns.ids = [_decode_id(json.loads(text), f"{name}: row {row}: id")
                   for row, text in enumerate(data["id"])]
    columns.called = data["called"]
    columns.expected = data["expected"]
    columns.invalid = {row: message for row, message in enumerate(data["invalid"])
                       if message is not None}
    for k in range(metrics):
        for row, (value, passed, reason, error) in enumerate(zip(
                data[f"m{k}_value"], data[f"m{k}_passed"], data[f"m{k}_reason"],
                data[f"m{k}_error"])):
            _add(columns, k, row, value, passed, reason, error, f"{name}: row {row}: m{k}")
    return header, columns


def load_result(path: str | os.PathLike[str]) -> EvaluationResult:
    """The run saved at ``path`` by :meth:`EvaluationResult.save` (JSON lines
    or Parquet, told apart by content). Its metrics are the saved
    descriptions (see :class:`agentmetrics.runs.SavedMetric`): summaries,
    failures, per-tool tables, comparisons and reports work as on the
    original; scoring new cases needs the metric itself."""
    source = Path(path)
    if not source.is_file():
        raise InvalidParameterError(f"{os.fspath(path)}: expected a saved run, but there is "
                                    f"no such file.")
    with open(source, "rb") as handle:
        parquet = handle.read(4) == _PARQUET_MAGIC
    header, columns = _read_parquet(source) if parquet else _read_jsonl(source)
    n = len(columns.ids)
    if header.get("cases") != n:
        raise InvalidCaseError(
            f"{os.fspath(path)}: the header says {header.get('cases')} cases, the file holds "
            f"{n}; it was cut short or edited. Fix: save the run again.")
    provenance = Provenance.from_json(header["provenance"])
    batch = ToolCallBatch.from_columns(
        tool_calls=columns.called, expected_tool_calls=columns.expected,
        ids=columns.ids if header.get("has_ids", True) else None)
    if columns.invalid:
        called_given = batch.called_given.copy()
        expected_given = batch.expected_given.copy()
        rows = list(columns.invalid)
        called_given[rows] = expected_given[rows] = False
        batch = attrs.evolve(batch, invalid=dict(sorted(columns.invalid.items())),
                             called_given=called_given, expected_given=expected_given)
    results = {}
    for k, spec in enumerate(provenance.metrics):
        reasons = columns.reasons[k]
        results[spec.label] = MetricResult(
            saved_metric(spec), np.array(columns.values[k], dtype=np.float64),
            np.array(columns.passed[k], dtype=bool), columns.errors[k], reasons.__getitem__)
    return EvaluationResult(batch, results, {s.label: s.source for s in provenance.metrics},
                            provenance=provenance)


def load_run(ref: int | str = "last", history: RunStore | str | os.PathLike[str] | None = None,
             ) -> EvaluationResult:
    """The saved file of run ``ref`` (an id, ``"last"``, ``"last~N"``) of
    the run history (default: the default one), loaded."""
    store = history if isinstance(history, RunStore) else RunStore(history)
    run = store.get(ref)
    if run.path is None:
        raise InvalidParameterError(
            f"run {run.id} of {os.fspath(store.path)} was recorded without a saved file, so "
            f"its cases cannot be read. Fix: save runs with result.save(path).")
    if not os.path.isfile(run.path):
        raise InvalidParameterError(
            f"run {run.id} of {os.fspath(store.path)} was saved at {run.path}, which is gone. "
            f"Fix: restore the file, or use another run (agentmetrics runs list).")
    return load_result(run.path)
