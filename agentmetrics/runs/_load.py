"""Reading a saved run back (see :mod:`agentmetrics.runs._save` for the
layout): the same values to the bit, pass flags, reasons, errors, ids with
their types, call names, unreadable rows and metadata, and the provenance it
was saved with. A file that is not a saved run, one of a later format, a
header field of the wrong type, or a run cut short or edited is refused with
the file and line (or row), never read in part. Loading a run of the history
also checks that its file is still the one saved (its uid and digest)."""

from __future__ import annotations

import datetime as _dt
import json
import math
import os
from collections.abc import Callable
from operator import itemgetter
from pathlib import Path
from typing import Any

import attrs
import numpy as np

from agentmetrics._base._optional import require
from agentmetrics._columnar import LazyCases, paused_gc
from agentmetrics.cases._tool_call_batch import ToolCallBatch
from agentmetrics.errors import AgentMetricsError, InvalidCaseError, InvalidParameterError
from agentmetrics.model._metric_result import MetricResult, out_of_range
from agentmetrics.model._model import AgentTestCase, UnreadableCase
from agentmetrics.results._results import EvaluationResult
from agentmetrics.runs._format import (
    DECODER,
    FORMAT_KEY,
    Header,
    check_header,
    decode_json,
    decode_score,
    decode_value,
    looks_like_parquet,
    split_text,
)
from agentmetrics.runs._identity import digest_of, new_hash, read_bytes
from agentmetrics.runs._provenance import deeper_than
from agentmetrics.runs._saved_metric import saved_metric
from agentmetrics.runs._store import RunRecord, StoreFile

__all__ = ["load_recorded", "load_result", "load_run"]

_ID_TYPES = (type(None), bool, int, float, str, tuple)


class _Columns:
    """A saved run's cases, column by column, before they become a result."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.ids: list[Any] | None = None
        self.called: list[Any] = []
        self.expected: list[Any] = []
        self.invalid: dict[int, str] = {}
        self.metadata: list[Any] | None = None
        #: The case fields kept (the header's ``case_fields``), each row's value decoded.
        self.fields: dict[str, list[Any]] = {}
        #: Per metric: values (float64), passed (bool), reasons, errors.
        self.scores: list[tuple[Any, Any, list[str], dict[int, str]]] = []


def _damaged(where: str, what: str) -> InvalidCaseError:
    return InvalidCaseError(f"{where}: {what}. The saved run is damaged (edited, or cut "
                            f"short); save the run again.")


# -- JSON lines, or one JSON document -------------------------------------------


def _text(data: bytes, name: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise InvalidCaseError(f"{name}:{line}: not UTF-8 ({error.reason}); expected a saved "
                               f"run, which is UTF-8 JSON.") from None


_KEYS = ("case", "id", "tool_calls", "expected_tool_calls", "invalid", "scores")


def _records(body: list[str], name: str) -> list[Any]:
    """Every line's JSON value: all lines parsed as one array (no call a line),
    or, where that fails, line by line, which names the line."""
    try:
        records = DECODER.decode("[" + ",".join(body) + "]") if body else []
        if type(records) is list and len(records) == len(body):
            return records
    except (ValueError, RecursionError):
        pass
    for number, line in enumerate(body, start=2):
        if not line.strip():
            raise _damaged(f"{name}:{number}", "an empty line; expected a case")
        decode_json(line, f"{name}:{number}")
    raise _damaged(name, "a line holds more than one JSON value; expected one case a line")


def _digest(data: bytes) -> str:
    running = new_hash()
    running.update(data)
    return digest_of(running)


def _read_text(text: str, name: str) -> tuple[Header, _Columns, Callable[[int], str]]:
    """A saved run in JSON lines or one JSON document: its header, its cases
    column by column, and where each row is (for messages)."""
    split = split_text(text, name)
    header = check_header(split.header, split.where)
    n, metrics = header.cases, len(header.provenance.metrics)
    where: Callable[[int], str]
    if split.document:
        records = split.rows
        if len(records) != n:
            raise InvalidCaseError(
                f"{name}: the header says {n} cases, the document's rows hold {len(records)}; "
                f"expected one row per case. The file was cut short or edited; save the run "
                f"again.")
        where = lambda row: f"{name}: rows[{row}]"  # noqa: E731
    else:
        if len(split.rows) != n:
            raise InvalidCaseError(
                f"{name}: the header says {n} cases, the file holds {len(split.rows)} lines "
                f"after it; expected one line per case. The file was cut short or edited; "
                f"save the run again.")
        records = _records(split.rows, name)
        where = lambda row: f"{name}:{row + 2}"  # noqa: E731
    keys = _KEYS + (("metadata",) if header.metadata else ()) + header.case_fields
    fields = _fields(records, keys, where)
    if fields[0] != list(range(n)) or set(map(type, fields[0])) - {int}:
        row = next(i for i, case in enumerate(fields[0]) if case != i or type(case) is not int)
        raise _damaged(where(row), f"expected case {row}, got case {_shape(fields[0][row])}")
    columns = _Columns(n)
    columns.ids = _ids(fields[1], header.ids, where)
    columns.called, columns.expected = fields[2], fields[3]
    columns.invalid = _invalid(fields[4], where)
    scores = fields[5]
    if header.metadata:
        columns.metadata = _metadata(fields[6], where)
    start = len(_KEYS) + header.metadata
    for offset, field in enumerate(header.case_fields):
        columns.fields[field] = _case_field(fields[start + offset], field, where)
    if set(map(type, scores)) - {list} or set(map(len, scores)) - {metrics}:
        row = next(i for i, entry in enumerate(scores)
                   if type(entry) is not list or len(entry) != metrics)
        raise _damaged(where(row), f"'scores': expected {metrics} entries [value, passed, "
                       f"reason, error], one per metric, got {_shape(scores[row])}")
    for k in range(metrics):
        entries = [entry[k] for entry in scores]
        if set(map(type, entries)) - {list} or set(map(len, entries)) - {4}:
            row = next(i for i, entry in enumerate(entries)
                       if type(entry) is not list or len(entry) != 4)
            raise _damaged(where(row), f"scores[{k}]: expected [value, passed, reason, error], "
                           f"got {_shape(entries[row])}")
        values, passed, reasons, errors = (list(column) for column in zip(*entries)) if n else (
            [], [], [], [])
        columns.scores.append(_score_columns(values, passed, reasons, errors, k, where))
    return header, columns, where


def _fields(records: list[Any], keys: tuple[str, ...], where: Callable[[int], str]
            ) -> list[list[Any]]:
    """The records' values of ``keys``, one list a key, each record checked to
    be an object with exactly those keys."""
    if not records:
        return [[] for _ in keys]
    try:
        if set(map(type, records)) != {dict} or set(map(len, records)) != {len(keys)}:
            raise KeyError
        return [list(column) for column in zip(*map(itemgetter(*keys), records))]
    except KeyError:
        for row, record in enumerate(records):
            if type(record) is not dict:
                raise _damaged(where(row), f"expected a case (a JSON object), got "
                               f"{_shape(record)}") from None
            if set(record) != set(keys):
                raise _damaged(where(row), f"expected a case with the keys {sorted(keys)}, got "
                               f"{sorted(record)}") from None
        raise


def _shape(value: Any) -> str:
    if deeper_than(value, 20):  # shown by its start, never encoded whole
        return f"a {type(value).__name__} nested deeper than 20 levels"
    text = json.dumps(value, ensure_ascii=False, default=repr)
    return text if len(text) <= 80 else text[:77] + "..."


def _ids(encoded: list[Any], kept: bool, where: Callable[[int], str]) -> list[Any] | None:
    """The cases' ids (None when the header says the run has none: then
    every id must be null)."""
    if not kept:
        if set(map(type, encoded)) - {type(None)}:
            row = next(i for i, value in enumerate(encoded) if value is not None)
            raise _damaged(where(row), f"the header says the run has no ids (\"ids\": false), "
                           f"the row has the id {_shape(encoded[row])}")
        return None
    if set(map(type, encoded)) <= {str, int}:
        return encoded  # the common case: nothing tagged
    ids = []
    for row, value in enumerate(encoded):
        try:
            decoded = decode_value(value)
        except ValueError as error:
            raise _damaged(where(row), f"the case id {_shape(value)} cannot be read ({error})"
                           ) from None
        if not _is_id(decoded):
            raise _damaged(where(row), f"expected a case id (a string, number, boolean, null "
                           f"or a tagged tuple), got {_shape(value)}")
        ids.append(decoded)
    return ids


def _is_id(value: Any) -> bool:
    if type(value) is tuple:
        return all(map(_is_id, value))
    return type(value) in _ID_TYPES


def _invalid(messages: list[Any], where: Callable[[int], str]) -> dict[int, str]:
    invalid = {}
    for row, message in enumerate(messages):
        if message is not None:
            if type(message) is not str:
                raise _damaged(where(row), f"'invalid': expected why the row could not be read "
                               f"(a string) or null, got {_shape(message)}")
            invalid[row] = message
    return invalid


def _metadata(found: list[Any], where: Callable[[int], str]) -> list[Any]:
    metadata = []
    for row, value in enumerate(found):
        if value is not None and type(value) is not dict:
            raise _damaged(where(row), f"'metadata': expected an object or null, got "
                           f"{_shape(value)}")
        try:
            metadata.append(None if value is None else decode_value(value))
        except ValueError as error:
            raise _damaged(where(row), f"'metadata' cannot be read ({error})") from None
    return metadata


def _case_field(found: list[Any], name: str, where: Callable[[int], str]) -> list[Any]:
    """A kept case field's values, decoded (null: the case had none)."""
    values = []
    for row, value in enumerate(found):
        try:
            values.append(decode_value(value))
        except ValueError as error:
            raise _damaged(where(row), f"{name!r} cannot be read ({error})") from None
    return values


def _score_columns(values: list[Any], passed: list[Any], reasons: list[Any], errors: list[Any],
                   k: int, where: Callable[[int], str]) -> tuple[Any, Any, list[str],
                                                                 dict[int, str]]:
    if set(map(type, values)) <= {float}:
        array = np.array(values, dtype=np.float64)
    else:
        decoded = []
        for row, value in enumerate(values):
            try:
                decoded.append(decode_score(value))
            except ValueError as error:
                raise _damaged(where(row), f"scores[{k}]: {error}") from None
        array = np.array(decoded, dtype=np.float64)
    if set(map(type, passed)) - {bool}:
        row = next(i for i, p in enumerate(passed) if type(p) is not bool)
        raise _damaged(where(row), f"scores[{k}]: expected true or false as passed, got "
                       f"{_shape(passed[row])}")
    return array, np.array(passed, dtype=bool), *_reasons(reasons, errors, k, where)


def _reasons(reasons: list[Any], errors: list[Any], k: int, where: Callable[[int], str]
             ) -> tuple[list[str], dict[int, str]]:
    failed = {}
    for row, message in enumerate(errors):
        if message is not None:
            if type(message) is not str or reasons[row] is not None:
                raise _damaged(where(row), f"scores[{k}]: expected an error (a string) with a "
                               f"null reason, got the error {_shape(message)} and the reason "
                               f"{_shape(reasons[row])}")
            failed[row] = message
    kinds = set(map(type, reasons))
    if kinds - {str, type(None)} or (type(None) in kinds
                                     and reasons.count(None) != len(failed)):
        row = next(i for i, r in enumerate(reasons)
                   if type(r) is not str and (r is not None or i not in failed))
        raise _damaged(where(row), f"scores[{k}]: expected a reason (a string), got "
                       f"{_shape(reasons[row])}")
    if failed:
        reasons = ["" if reason is None else reason for reason in reasons]
    return reasons, failed


# -- Parquet ---------------------------------------------------------------------


def _read_parquet(path: Path, data: bytes | None
                  ) -> tuple[Header, _Columns, Callable[[int], str]]:
    """A saved run in Parquet (read from ``data``, its bytes, when given): its
    header, its cases column by column, and where each row is."""

    pa = require("pyarrow", "arrow")
    pq = require("pyarrow.parquet", "arrow")
    name = os.fspath(path)
    try:
        table = pq.read_table(path if data is None else pa.BufferReader(data))
    except Exception as error:  # pyarrow's own errors: a damaged or cut file
        raise InvalidCaseError(f"{name}: expected a saved run in Parquet, but it cannot be read "
                               f"({type(error).__name__}: {error}). It may be cut short; save "
                               f"the run again.") from None
    raw = (table.schema.metadata or {}).get(FORMAT_KEY.encode())
    place = f"{name} (Parquet schema metadata)"
    try:
        text_header = None if raw is None else raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InvalidCaseError(f"{place}: the header is not UTF-8 ({error.reason}). The saved "
                               f"run is damaged; save the run again.") from None
    header = check_header(None if text_header is None else decode_json(text_header, place),
                          place)
    n, metrics = header.cases, len(header.provenance.metrics)
    where: Callable[[int], str] = lambda row: f"{name}: row {row}"  # noqa: E731
    text, names = pa.string(), pa.list_(pa.string())
    expected = {"case": pa.int64(), "id": text, "tool_calls": names,
                "expected_tool_calls": names, "invalid": text}
    if header.metadata:
        expected["metadata"] = text
    for field in header.case_fields:
        expected[field] = text
    for k in range(metrics):
        expected.update({f"m{k}.value": pa.float64(), f"m{k}.passed": pa.bool_(),
                         f"m{k}.reason": text, f"m{k}.error": text})
    found = {field.name: field.type for field in table.schema}
    for column in found:
        if column in ("tool_calls", "expected_tool_calls") and found[column] == pa.large_list(
                pa.string()):
            expected[column] = found[column]
    if found != expected:
        wrong = next((c for c in expected if found.get(c) != expected[c]), None) or next(
            c for c in found if c not in expected)
        raise _damaged(name, f"the column {wrong!r} is {found.get(wrong, 'missing')}; expected "
                       f"{expected.get(wrong, 'no such column')}")
    if table.num_rows != n:
        raise InvalidCaseError(f"{name}: the header says {n} cases, the file holds "
                               f"{table.num_rows} rows; it was cut short or edited. Save the "
                               f"run again.")
    cases = table.column("case").to_numpy()
    if not np.array_equal(cases, np.arange(n)):
        row = int(np.flatnonzero(cases != np.arange(n))[0])
        raise _damaged(where(row), f"expected case {row}, got case {int(cases[row])}")
    columns = _Columns(n)
    id_texts = table.column("id").to_pylist()
    if None in id_texts:
        raise _damaged(where(id_texts.index(None)), "the id is null; expected its JSON text")
    columns.ids = _ids(_values(id_texts, lambda row: f"{where(row)}: id"), header.ids, where)
    columns.invalid = _invalid(table.column("invalid").to_pylist(), where)
    if header.metadata:
        texts = table.column("metadata").to_pylist()
        present = [row for row, text in enumerate(texts) if text is not None]
        parsed = iter(_values([texts[row] for row in present],
                              lambda i: f"{where(present[i])}: metadata"))
        columns.metadata = _metadata([None if text is None else next(parsed) for text in texts],
                                     where)
    for field in header.case_fields:
        texts = table.column(field).to_pylist()
        present = [row for row, text in enumerate(texts) if text is not None]
        parsed = iter(_values([texts[row] for row in present], _place(where, present, field)))
        columns.fields[field] = _case_field(
            [None if text is None else next(parsed) for text in texts], field, where)
    columns.called = table.column("tool_calls")  # read by ToolCallBatch.from_arrow
    columns.expected = table.column("expected_tool_calls")
    for k in range(metrics):
        values, passed = table.column(f"m{k}.value"), table.column(f"m{k}.passed")
        for column, what in ((values, "value"), (passed, "passed")):
            if column.null_count:
                row = int(np.flatnonzero(column.is_null().to_numpy(zero_copy_only=False))[0])
                raise _damaged(where(row), f"m{k}.{what} is null; expected a "
                               f"{'number' if what == 'value' else 'true or false'}")
        columns.scores.append((
            np.ascontiguousarray(values.to_numpy(), dtype=np.float64),
            passed.to_numpy(zero_copy_only=False).astype(bool),
            *_reasons(table.column(f"m{k}.reason").to_pylist(),
                      table.column(f"m{k}.error").to_pylist(), k, where)))
    return header, columns, where


def _place(where: Callable[[int], str], rows: list[int], field: str) -> Callable[[int], str]:
    """Where the ``i``-th of ``rows`` holds ``field``, for messages."""
    return lambda i: f"{where(rows[i])}: {field}"


def _values(texts: list[str], where: Callable[[int], str]) -> list[Any]:
    """Each text's JSON value: all parsed as one array, or one by one (naming
    the first that is not one value) when that fails."""
    try:
        values = DECODER.decode("[" + ",".join(texts) + "]")
        if type(values) is list and len(values) == len(texts):
            return values
    except (ValueError, RecursionError):
        pass
    return [decode_json(text, where(row)) for row, text in enumerate(texts)]


# -- the result ------------------------------------------------------------------


def _batch(columns: _Columns, parquet: bool, name: str,
           where: Callable[[int], str]) -> ToolCallBatch:
    try:
        if parquet:
            batch = ToolCallBatch.from_arrow(tool_calls=columns.called,
                                             expected_tool_calls=columns.expected,
                                             ids=columns.ids, errors="raise")
        else:
            for side in (columns.called, columns.expected):
                kinds = set(map(type, side))
                if not kinds <= {list, type(None)}:
                    row = next(i for i, r in enumerate(side) if type(r) not in (list, type(None)))
                    raise _damaged(where(row), f"expected a list of tool names or null, got "
                                   f"{_shape(side[row])}")
            batch = ToolCallBatch.from_columns(tool_calls=columns.called,
                                               expected_tool_calls=columns.expected,
                                               ids=columns.ids, errors="raise")
    except InvalidCaseError as error:
        if "damaged" in str(error):
            raise
        if not parquet:  # a row that is not a list of names: named by its line
            for key, side in (("tool_calls", columns.called),
                              ("expected_tool_calls", columns.expected)):
                wrong = next((i for i, names in enumerate(side) if names is not None
                              and any(type(item) is not str or not item for item in names)),
                             None)
                if wrong is not None:
                    raise _damaged(where(wrong), f"{key!r}: expected a list of tool names "
                                   f"(non-empty strings), got {_shape(side[wrong])}") from None
        raise InvalidCaseError(f"{name}: {error}. The saved run is damaged (edited, or cut "
                               f"short); save the run again.") from None
    for row in columns.invalid:
        if batch.called_given[row] or batch.expected_given[row]:
            raise _damaged(where(row), "a row that could not be read has tool names; expected "
                           "null on both sides")
    if columns.invalid:
        batch = attrs.evolve(batch, invalid=dict(sorted(columns.invalid.items())))
    if columns.metadata is not None or columns.fields:
        batch = attrs.evolve(batch, cases=_cases(batch, columns, name))
    return batch


def _cases(batch: ToolCallBatch, columns: _Columns, name: str) -> Any:
    """The cases, built when first read: their tool names, metadata and the
    case fields kept (a row that was not a case is an UnreadableCase, as when
    it was read). Without kept metadata a case's metadata holds its id."""
    called, expected = batch.name_lists()
    records: list[Any] = []
    built: dict[int, Any] = {}
    for row in range(len(batch)):
        if columns.metadata is not None:
            metadata = columns.metadata[row]
        else:
            metadata = None if row in columns.invalid else (
                {} if batch.case_ids is None else {"id": batch.case_ids[row]})
        if metadata is None:
            built[row] = UnreadableCase(name, row, columns.invalid.get(
                row, "not a case when the run was saved"), id=batch.case_id(row))
            records.append({})
        else:
            record = {"tool_calls": called[row], "expected_tool_calls": expected[row],
                      "metadata": metadata}
            kept = {field: values[row] for field, values in columns.fields.items()
                    if values[row] is not None}
            if kept:  # built here: the records' reading keeps only input and actual_output
                built[row] = AgentTestCase(**record, **kept)
            records.append(record)
    return LazyCases(records, built)


def _epoch(created: str) -> float | None:
    try:
        return _dt.datetime.fromisoformat(created).timestamp()
    except ValueError:
        return None


def load_result(path: str | os.PathLike[str]) -> EvaluationResult:
    """The run saved at ``path`` by :meth:`EvaluationResult.save` (JSON lines
    or one JSON document, gzipped or not, or Parquet, told apart by content).

    Its batch holds the cases' ids, tool names, unreadable rows and metadata;
    its metrics are the saved descriptions (:class:`~agentmetrics.runs.SavedMetric`,
    with the saved name, version, threshold and masked parameters); its
    ``provenance`` is the one saved. Summaries, failures, per-tool tables,
    trials, exports, comparisons and reports give what they gave on the
    original; scoring new cases needs the metric itself
    (:func:`agentmetrics.get_metric`)."""
    return _checked_load(path, digest=False)[0]


def _checked_load(path: str | os.PathLike[str], digest: bool
                  ) -> tuple[EvaluationResult, str | None]:
    if not isinstance(path, (str, os.PathLike)):
        raise InvalidParameterError(f"path: expected the path of a saved run, got "
                                    f"{type(path).__name__}.")
    source = Path(path)
    name = os.fspath(path)
    if not source.is_file():
        raise InvalidParameterError(f"{name}: expected a saved run, but there is no such file"
                                    f"{' (a directory)' if source.is_dir() else ''}.")
    with paused_gc():  # a million cases' lists and strings, no cycles: nothing to collect
        return _load(source, name, digest)


def _load(source: Path, name: str, digest: bool) -> tuple[EvaluationResult, str | None]:
    """The run at ``source`` and, with ``digest``, the digest of the bytes it
    was read from (read once: the digest is of what was loaded)."""
    parquet = looks_like_parquet(source)
    found: str | None = None
    data: bytes | None = None
    if parquet:
        if digest:
            try:
                data = source.read_bytes()
            except OSError as error:
                raise InvalidCaseError(f"{name}: cannot read the saved run ({error}).") from None
            found = _digest(data)
        header, columns, where = _read_parquet(source, data)
    else:
        data = read_bytes(source)
        if digest:
            found = _digest(data)
        text = _text(data, name)
        del data  # the text holds it now
        header, columns, where = _read_text(text, name)
        del text
    provenance = header.provenance
    batch = _batch(columns, parquet, name, where)
    results = {}
    for k, (spec, (values, passed, reasons, errors)) in enumerate(
            zip(provenance.metrics, columns.scores)):
        try:
            metric = saved_metric(spec)
        except AgentMetricsError as error:
            raise _damaged(f"{name}: header", f"the metric {spec.label!r} cannot be described "
                           f"({error})") from None
        low, high = type(metric).value_range
        row = out_of_range(values, (low, high))
        if row is not None:
            raise _damaged(where(row), f"scores[{k}]: {spec.label!r} has the value "
                           f"{float(values[row])!r}, outside its value_range [{low:g}, {high:g}]")
        results[spec.label] = MetricResult(metric, values, passed, errors, reasons.__getitem__,
                                           statistics=header.statistics.get(spec.label, {}))
    sources = {spec.label: spec.source for spec in provenance.metrics if spec.source}
    result = EvaluationResult(batch, results, sources, provenance=provenance,
                              config=header.config)
    created = _epoch(provenance.created)
    if created is not None and math.isfinite(created):
        result.created = created
    return result, found


def load_recorded(store: StoreFile, ref: int | str) -> EvaluationResult:
    """The run ``ref`` of ``store`` read back from its saved file (see
    :meth:`agentmetrics.runs.RunStore.load`), refused when that file is no
    longer the one saved: another run (its uid), or the same run's file
    changed (its digest). A run recorded without either (by an agentmetrics
    that kept neither, from a file it saved) is checked as it was then: by
    its data's fingerprint and its creation time, to the second."""
    run = store.get(ref)
    where = f"run history {os.fspath(store.path)}"
    listing = store._how_to_list()
    if run.path is None:
        raise InvalidParameterError(
            f"{where}: run {run.id} was recorded without a saved file, so there is nothing to "
            f"load (its summary is in the history: RunStore.get({run.id})). Fix: record runs "
            f"with result.save(path), which keeps every case.")
    if not os.path.isfile(run.path):
        raise InvalidParameterError(
            f"{where}: run {run.id}'s saved file {run.path} is gone (moved or deleted). Fix: "
            f"put it back at that path, or use another run ({listing} lists them).")
    result, digest = _checked_load(run.path, digest=run.digest is not None)
    _check_identity(run, result, digest, where, listing)
    return result


def _check_identity(run: RunRecord, result: EvaluationResult, digest: str | None, where: str,
                    listing: str) -> None:
    found = result.provenance
    recorded = run.provenance
    own = (f"Fix: save each run to a file of its own (a name with the date, say), and use a "
           f"run whose file is its own ({listing} lists them).")
    if recorded.uid and found.uid != recorded.uid:
        held = (f"uid {found.uid}, created {found.created}" if found.uid else
                f"no uid (saved before agentmetrics kept one), created {found.created}")
        raise InvalidParameterError(
            f"{where}: run {run.id}'s saved file {run.path} now holds another run: recorded "
            f"uid {recorded.uid} (created {recorded.created}), found {held}. It was saved over "
            f"since. {own}")
    if run.digest is not None and digest != run.digest:
        raise InvalidParameterError(
            f"{where}: run {run.id}'s saved file {run.path} was changed since it was saved: "
            f"recorded digest {run.digest}, found {digest} (the run's uid "
            f"{found.uid or '(none)'} is the recorded one, but the file holds other bytes: "
            f"edited by hand, or written again another way). Fix: put back the file as it "
            f"was saved, or save the run again (result.save) and use the run it records "
            f"({listing} lists them).")
    if not recorded.uid and run.digest is None and (
            found.fingerprint != run.fingerprint or found.created != run.created):
        raise InvalidParameterError(
            f"{where}: run {run.id}'s saved file {run.path} now holds another run (created "
            f"{found.created}, not {run.created}; the run was recorded without a uid or a "
            f"digest, so only its data's fingerprint and creation time are checked): it was "
            f"saved over since. {own}")


def load_run(ref: int | str = "last", history: StoreFile | str | os.PathLike[str] | None = None,
             ) -> EvaluationResult:
    """The saved file of run ``ref`` (an id, ``"last"``, ``"last~N"``) of the
    run history ``history`` (a RunStore or its path; default: the default
    one), loaded: ``RunStore(history).load(ref)``."""
    store = history if isinstance(history, StoreFile) else StoreFile(history)
    return load_recorded(store, ref)
