"""The one way in: every input agentmetrics scores is read here, whatever
holds it, and comes out as a :class:`~agentmetrics.ToolCallBatch` (or chunks of
one).

* :func:`read_batch`: what ``evaluate`` takes in memory (cases, records and
  provider payloads, a pandas DataFrame, an Arrow Table, a ToolCallBatch);
* :func:`read_partition`: one partition of an engine (``agentmetrics.partition``,
  Dask, Spark, Ray): a DataFrame, an Arrow Table or RecordBatch, a dict of
  columns or a list of cases, with its ids and the columns it keeps;
* :func:`read_cases`: the cases of a JSONL file, one at a time (the line reader);
* :func:`open_input`: a file for the CLI, in chunks: JSONL by the line reader or,
  for name lists, the Arrow reader; Parquet; standard input; the bundled example.

The readers themselves sit beside this module (``_dataset``: JSONL lines;
``_arrow_lines``: JSONL through Arrow; ``_parquet``) and below it
(``_columnar``: records, Arrow columns, DataFrames; ``formats``: provider
payloads). The batch type only builds the batch from the columns they read.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import IO, Any

import attrs

from agentmetrics._base._chunks import chunked
from agentmetrics._base._optional import require
from agentmetrics._base._prefetch import prefetched
from agentmetrics._base._types import ErrorsMode
from agentmetrics._columnar import case_from_record, check_unique_columns
from agentmetrics._columnar._fields import COLUMN_FIELDS
from agentmetrics._columnar._frames import field_columns, holds_mappings, is_arrow_list
from agentmetrics.cases._tool_call_batch import ToolCallBatch
from agentmetrics.errors import InvalidCaseError, InvalidParameterError
from agentmetrics.io._arrow_lines import name_list_chunks, readable_as_arrow
from agentmetrics.io._dataset import example_cases, numbered_cases, read_numbered
from agentmetrics.io._fast_lines import fast_chunks, readable_fast
from agentmetrics.io._parquet import is_parquet, parquet_chunks, read_parquet_piece
from agentmetrics.model._model import AgentTestCase, UnreadableCase, describe

__all__ = ["EXAMPLE_CASES", "InputFile", "Places", "column_map", "example_cases", "open_input",
           "read_batch", "read_cases", "read_numbered", "read_parquet_piece", "read_partition",
           "refuse_text_calls", "text_column"]

#: The bundled example the CLI scores when no file is given.
EXAMPLE_CASES = "tau2_airline.jsonl"


# --------------------------------------------------------------------------- in memory: evaluate


def read_batch(cases: Any, errors: ErrorsMode,
               on_progress: Callable[[int], None] | None = None) -> ToolCallBatch:
    """What ``evaluate`` scores, as one batch: a ToolCallBatch as it is, a pandas
    DataFrame, an Arrow Table, or a list or iterable of AgentTestCases,
    UnreadableCases and records (mappings of case fields, provider payloads under
    ``response``). ``on_progress`` hears of cases read."""
    if isinstance(cases, ToolCallBatch):
        return cases
    module = type(cases).__module__
    if module.startswith("pandas") and type(cases).__name__ == "DataFrame":
        return ToolCallBatch.from_pandas(cases, errors=errors)
    if module.startswith("pyarrow") and type(cases).__name__ == "Table":
        check_unique_columns(cases.column_names, ("tool_calls", "expected_tool_calls", "id"),
                             "cases: the Arrow table")
        fields = field_columns(cases.column_names)
        missing = [name for name in ("tool_calls", "expected_tool_calls")
                   if name not in cases.column_names]
        if missing and not fields:
            raise InvalidCaseError(
                f"cases: the Arrow table has no column {missing[0]!r}; it has "
                f"{cases.column_names}. Fix: rename the columns, or use "
                f"ToolCallBatch.from_arrow(tool_calls=..., expected_tool_calls=...)."
            )
        return ToolCallBatch.from_arrow(
            tool_calls=_calls_or_none(cases, "tool_calls"),
            expected_tool_calls=_calls_or_none(cases, "expected_tool_calls"),
            ids=cases.column("id") if "id" in cases.column_names else None,
            errors=errors,
            fields={name: cases.column(name) for name in field_columns(cases.column_names)},
        )
    if isinstance(cases, (AgentTestCase, str, bytes, Mapping)) or not isinstance(cases, Iterable):
        raise InvalidParameterError(
            f"cases: expected a list or iterable of AgentTestCase, a ToolCallBatch or a "
            f"pandas DataFrame, got {describe(cases)}. Fix: wrap a single case in a list."
        )
    kept = cases if isinstance(cases, (list, tuple)) else list(cases)
    if not set(map(type, kept)) <= {AgentTestCase, UnreadableCase}:
        # Mappings of case fields (records), alone or among cases.
        batch = ToolCallBatch.from_records(kept, errors=errors)
        if on_progress is not None:
            on_progress(len(kept))
        return batch
    return ToolCallBatch.from_cases(kept, errors=errors, on_progress=on_progress)


def _calls_or_none(table: Any, name: str) -> Any:
    """A table's call column, or one of nulls (not given on any row) when the
    table holds other case fields and no such column."""
    if name in table.column_names:
        return table.column(name)
    pa = require("pyarrow", "arrow")
    return pa.nulls(table.num_rows, pa.list_(pa.string()))


# --------------------------------------------------------------------------- a partition of an engine


_CALL_FIELDS = ("tool_calls", "expected_tool_calls")


def column_map(columns: Mapping[str, str] | None) -> dict[str, str | None]:
    """The column names a partition is read by (``columns`` renames them), checked."""
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


def read_partition(data: Any, names: dict[str, str | None],
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
    # Call columns may be absent from a table of other case fields (answers, latencies).
    optional = set(_CALL_FIELDS) if field_columns(present) else set()
    missing = [name for name in wanted if name is not None and name not in present
               and name not in optional]
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
    absent = pd.Series([None] * len(frame), index=frame.index, dtype=object)
    called, expected = (frame[names[side]] if names[side] in present else absent
                        for side in _CALL_FIELDS)
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
    names_of = [name for name in field_columns(present)
                if name not in (names["tool_calls"], names["expected_tool_calls"], names["id"])]
    as_columns = all(name in COLUMN_FIELDS for name in names_of)
    if is_arrow_list(called, or_null=True) and is_arrow_list(expected, or_null=True):
        batch = ToolCallBatch.from_arrow(tool_calls=pa.array(called.array),
                                         expected_tool_calls=pa.array(expected.array),
                                         ids=id_values, errors="record",
                                         fields={name: frame[name] for name in names_of})
    elif not as_columns or holds_mappings(called) or holds_mappings(expected):
        # Call objects in object columns, or usage and metadata: read as records,
        # arguments and every field included.
        batch = ToolCallBatch.from_object_columns(
            called.tolist(), expected.tolist(), id_values,
            fields={name: frame[name].tolist() for name in names_of})
    else:
        batch = ToolCallBatch.from_columns(tool_calls=called.tolist(),
                                           expected_tool_calls=expected.tolist(),
                                           ids=id_values, errors="record")
        if names_of:  # the other fields as columns
            batch = batch.with_field_columns({name: frame[name] for name in names_of},
                                             "record")
    return batch, ids, {name: _arrow_column(frame[name]) for name in keep}, first


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
        tool_calls=_calls_or_none(table, str(names["tool_calls"])),
        expected_tool_calls=_calls_or_none(table, str(names["expected_tool_calls"])),
        ids=None if id_name is None else ids, errors="record",
        fields={name: table.column(name) for name in field_columns(table.column_names)
                if name not in (names["tool_calls"], names["expected_tool_calls"], names["id"])})
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


# --------------------------------------------------------------------------- a file: read_cases, the CLI


def read_cases(
    source: str | os.PathLike[str] | IO[str] | IO[bytes],
    *,
    errors: ErrorsMode = "raise",
    input_format: str | None = None,
    hosted_tools: bool = True,
) -> Iterator[AgentTestCase | UnreadableCase]:
    """Stream AgentTestCases from a JSONL file path or an open text file.

    Blank lines are skipped. A malformed line raises InvalidCaseError naming
    ``file:line`` and what was wrong; with ``errors="record"`` it yields an
    UnreadableCase in its place instead and reading goes on (``evaluate``
    scores it as a NaN row that carries the message). Every failure to read
    a line is caught this way, a payload that cannot be read included.
    ``input_format`` names the format of ``response`` payloads (one of
    :data:`agentmetrics.formats.FORMATS`) on lines without ``format``.
    """
    for _, case in numbered_cases(source, errors=errors, input_format=input_format,
                                  hosted_tools=hosted_tools):
        yield case



class Places:
    """Where each case not yet written came from, so that rows and errors name
    ``file:line`` (JSONL) or ``row N`` (a table): the line numbers of the
    chunks read, dropped as their rows are written."""

    def __init__(self, source: str, *, rows: bool = False) -> None:
        self.source = source
        self.rows = rows  # a table (Parquet): cases are named by row, not by line
        self.numbers: list[int] = []
        self.first_row = 0  # the global row of numbers[0]

    def track(self, numbered: Iterable[tuple[int, Any]]) -> Iterator[Any]:
        for number, case in numbered:
            self.numbers.append(number)
            yield case

    def track_chunks(self, chunks: Iterable[Any]) -> Iterator[Any]:
        for chunk in chunks:
            self.numbers.extend(chunk.numbers)
            yield chunk.batch

    def done(self, rows: int) -> None:
        """The first ``rows`` cases are written: forget their places."""
        del self.numbers[:rows]
        self.first_row += rows

    def _line(self, row: int) -> int | None:
        """The 1-based input line of a row not yet written, if known."""
        index = row - self.first_row
        return self.numbers[index] if not self.rows and 0 <= index < len(self.numbers) else None

    def label(self, row: int) -> str:
        """A row's place in words, for tables: ``line 3`` (1-based) or ``row 2``."""
        line = self._line(row)
        return f"row {row}" if self.rows else (f"case {row}" if line is None else f"line {line}")

    def where(self, row: int) -> str:
        """A row's place for messages: ``file:3`` or ``file: row 2``."""
        if self.rows:
            return f"{self.source}: row {row}"
        line = self._line(row)
        return f"case {row}" if line is None else f"{self.source}:{line}"


@attrs.frozen(slots=True)
class InputFile:
    """A file opened for scoring: ``chunks`` (lists of cases, or ToolCallBatches)
    to score one after another, ``source`` (its name, as messages say it), and
    ``places`` (where each case came from; None for the bundled example)."""

    source: str
    chunks: Iterator[Any]
    places: Places | None


def open_input(file: str | None, *, chunk_size: int, errors: ErrorsMode = "raise",
               input_format: str | None = None, hosted_tools: bool = True,
               names_only: bool = False, reader: str = "auto") -> InputFile:
    """``file`` in chunks of ``chunk_size`` cases: ``None`` is the bundled
    example, ``"-"`` standard input (bytes: encodings are detected per file, a bad
    byte spoils one line only), a Parquet file is read through Arrow, and JSONL
    with ``reader`` ``"auto"``: by the fast decoder (msgspec, the ``fast``
    extra) when it is installed, its batches holding their cases unless
    ``names_only`` (every metric scores from names); else, with ``names_only``,
    through Arrow (lines of name lists; the others line by line); else line by
    line. ``reader`` ``"fast"`` or ``"arrow"`` asks for one of them (where it
    applies: not to gzip files, nor Arrow to a metric that reads more than
    names), ``"lines"`` for the line reader alone. Arrow parses
    with the GIL released, so the next chunk is read on a background thread
    while this one is scored."""
    if file is None:
        source = f"bundled example: {EXAMPLE_CASES} (tau2-bench airline runs)"
        return InputFile(source, chunked(example_cases(), chunk_size), None)
    reading: dict[str, Any] = {"input_format": input_format, "hosted_tools": hosted_tools}
    if file == "-":
        stdin = None if sys.stdin is None else getattr(sys.stdin, "buffer", sys.stdin)
        places = Places("<stdin>")
        return InputFile("<stdin>", chunked(places.track(
            numbered_cases(stdin, errors=errors, **reading)), chunk_size), places)
    if is_parquet(file):
        return InputFile(file, prefetched(parquet_chunks(file, chunk_size)), Places(file, rows=True))
    places = Places(file)
    if reader == "fast":
        require("msgspec", "fast")
    if reader in ("auto", "fast") and readable_fast(file):
        return InputFile(file, places.track_chunks(fast_chunks(
            file, chunk_size, errors=errors, options=reading, keep_cases=not names_only)), places)
    if reader in ("auto", "arrow") and names_only and readable_as_arrow(file):
        return InputFile(file, places.track_chunks(prefetched(name_list_chunks(
            file, chunk_size, errors=errors, options=reading))), places)
    return InputFile(file, chunked(places.track(
        numbered_cases(file, errors=errors, **reading)), chunk_size), places)
