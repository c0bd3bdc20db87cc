"""Parquet files of cases: a file told from its name or its magic bytes, read
in chunks of rows through Arrow (the CLI), or one piece of row groups with the
columns a partition reads (Dask). Needs pyarrow."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from agentmetrics._base._optional import require
from agentmetrics._columnar import check_unique_columns
from agentmetrics._columnar._frames import field_columns
from agentmetrics.cases._tool_call_batch import ToolCallBatch
from agentmetrics.errors import InvalidCaseError

__all__ = ["is_parquet", "parquet_chunks", "read_parquet_piece"]


def is_parquet(path: str) -> bool:
    """A .parquet (or .pq) file, or any file that starts and ends with Parquet's magic bytes.

    Both ends, and room for a footer between them: a JSONL file whose first line happens
    to begin with ``PAR1`` is JSONL (its line is an error row), not a broken Parquet file.
    """
    if path.lower().endswith((".parquet", ".pq")):
        return True
    try:
        with open(path, "rb") as handle:
            if handle.read(4) != b"PAR1":
                return False
            handle.seek(0, os.SEEK_END)
            if handle.tell() < 12:
                return False
            handle.seek(-4, os.SEEK_END)
            return handle.read(4) == b"PAR1"
    except OSError:
        return False  # the JSONL reader reports what is wrong with the path


def parquet_chunks(path: str, chunk_size: int) -> Iterator[ToolCallBatch]:
    """A Parquet file's cases, ``chunk_size`` rows at a time, as ToolCallBatches
    read through Arrow: ``tool_calls``, ``expected_tool_calls`` (names,
    ``list<string>``, or call objects, ``list<struct<name, arguments, ...>>``,
    read into the same columns with Arrow compute; their cases are built only
    for a metric that reads them) and an optional ``id`` column. A row that
    cannot be read is kept as an unreadable row; the metrics report it (or
    stop at it) as for a JSONL line."""
    pa = require("pyarrow", "arrow")
    pq = require("pyarrow.parquet", "arrow")
    try:
        file = pq.ParquetFile(path)
    except (OSError, pa.ArrowException) as error:
        raise InvalidCaseError(f"{path}: not a readable Parquet file ({error}).") from None
    names = file.schema_arrow.names
    check_unique_columns(names, ("tool_calls", "expected_tool_calls", "id"), str(path))
    fields = field_columns(names)
    missing = [name for name in ("tool_calls", "expected_tool_calls") if name not in names]
    if missing and not fields:
        raise InvalidCaseError(
            f"{path}: no column {missing[0]!r}; the file has {names}. Fix: name the call "
            f"columns tool_calls and expected_tool_calls (list<string>), and id if any.")
    calls = [name for name in ("tool_calls", "expected_tool_calls") if name in names]
    columns = calls + (["id"] if "id" in names else []) + list(fields)
    for chunk in file.iter_batches(batch_size=chunk_size, columns=columns):
        table = pa.Table.from_batches([chunk])
        nulls = pa.nulls(table.num_rows, pa.list_(pa.string()))  # a side the file has not
        yield ToolCallBatch.from_arrow(
            tool_calls=table.column("tool_calls") if "tool_calls" in names else nulls,
            expected_tool_calls=(table.column("expected_tool_calls")
                                 if "expected_tool_calls" in names else nulls),
            ids=table.column("id") if "id" in names else None,
            errors="record",  # unreadable rows become the metrics' errors, at their row
            fields={name: table.column(name) for name in fields})


def read_parquet_piece(handle: Any, columns: Mapping[str, str], keep: Sequence[str],
                       row_groups: Sequence[int] | None) -> Any:
    """The Arrow table of one piece of a Parquet file (its ``row_groups``, or all),
    holding only the columns a partition reads: the call columns named in
    ``columns``, the ids (``columns["id"]``, else an ``id`` column if any) and
    ``keep``."""
    pq = require("pyarrow.parquet", "arrow")
    wanted = {columns.get("tool_calls", "tool_calls"),
              columns.get("expected_tool_calls", "expected_tool_calls"), *keep}
    file = pq.ParquetFile(handle)
    names = file.schema_arrow.names
    id_name = columns.get("id", "id" if "id" in names else None)
    read = [name for name in names if name in wanted or name == id_name
            or name in field_columns(names)]
    return (file.read(columns=read) if row_groups is None
            else file.read_row_groups(list(row_groups), columns=read))
