"""The pieces a run is cut into: files found by path, glob or URL (one per JSONL file,
runs of row groups of Parquet), partitions of a dask DataFrame or Bag."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import attrs

from agentmetrics.dask._common import module, require_dask
from agentmetrics.errors import InvalidParameterError
from agentmetrics.io._input import column_map, refuse_text_calls
from agentmetrics.model._model import describe

if TYPE_CHECKING:  # pragma: no cover
    from agentmetrics.dask._tasks import Job

__all__ = ["PARTITION_ROWS", "JsonlPiece", "ParquetPiece", "open_file", "pieces"]

#: Rows per Parquet partition: a file's row groups are read in runs of about
#: this many rows (a file with fewer is one partition).
PARTITION_ROWS = 1 << 20

_JSONL_SUFFIXES = (".jsonl", ".ndjson", ".jsonl.gz", ".ndjson.gz", ".json", ".json.gz")
_PARQUET_SUFFIXES = (".parquet", ".pq", ".parq")


@attrs.frozen(slots=True)
class JsonlPiece:
    path: str
    storage_options: tuple[tuple[str, Any], ...] = ()


@attrs.frozen(slots=True)
class ParquetPiece:
    path: str
    row_groups: tuple[int, ...] | None
    first_row: int
    storage_options: tuple[tuple[str, Any], ...] = ()


def open_file(path: str, storage_options: tuple[tuple[str, Any], ...]) -> Any:
    return module("fsspec").open(path, "rb", **dict(storage_options)).open()


def pieces(data: Any, job: Job, storage_options: Mapping[str, Any] | None,
            partition_rows: int) -> tuple[list[Any], Any]:
    """The partitions to score, as delayed inputs or pieces, and an empty sample
    of one (for the rows' schema)."""
    require_dask()
    db, dd = module("dask.bag"), module("dask.dataframe")


    if isinstance(data, dd.DataFrame):
        names = column_map(dict(job.columns))
        missing = [name for name in (names["tool_calls"], names["expected_tool_calls"],
                                     names["id"], *job.keep_with_cluster)
                   if name is not None and name not in data.columns]
        if missing:
            raise InvalidParameterError(
                f"data: the dask DataFrame has no column {missing[0]!r}; it has "
                f"{list(data.columns)}. Fix: pass columns={{'tool_calls': ..., "
                f"'expected_tool_calls': ..., 'id': ...}} naming yours.")
        refuse_text_calls(dict(data.dtypes.items()), names, "data")
        return list(data.to_delayed()), data._meta
    if isinstance(data, db.Bag):
        return list(data.to_delayed()), []
    if isinstance(data, (str, os.PathLike)) or (
            isinstance(data, (list, tuple)) and data
            and all(isinstance(item, (str, os.PathLike)) for item in data)):
        return _filepieces(data, storage_options, partition_rows)
    raise InvalidParameterError(
        f"data: expected a dask DataFrame, a dask Bag of cases or dicts, or paths (globs, "
        f"fsspec URLs) of JSONL or Parquet files, got {describe(data)}. Fix: for data in "
        f"memory use agentmetrics.evaluate, or dask.dataframe.from_pandas(frame).")


def _filepieces(data: Any, storage_options: Mapping[str, Any] | None,
                 partition_rows: int) -> tuple[list[Any], Any]:
    fsspec = module("fsspec")
    options = tuple(sorted((storage_options or {}).items()))
    given = [os.fspath(data)] if isinstance(data, (str, os.PathLike)) else [
        os.fspath(item) for item in data]
    paths: list[str] = []
    for pattern in given:
        fs, _, matched = fsspec.get_fs_token_paths(pattern, storage_options=dict(options))
        found = []
        for path in sorted(matched):
            if fs.isdir(path):  # a directory: its files, but not _metadata or .hidden ones
                found += [file for file in sorted(fs.find(path))
                          if not os.path.basename(file).startswith(("_", "."))]
            else:
                found.append(path)
        if not found:
            raise InvalidParameterError(
                f"data: {pattern!r} matches no file. Expected JSONL or Parquet files. Fix: check "
                f"the path or glob.")
        protocol = fs.protocol if isinstance(fs.protocol, str) else fs.protocol[0]
        prefix = "" if protocol in ("file", "local") else f"{protocol}://"
        paths.extend(path if "://" in path or not prefix else prefix + path for path in found)
    kinds = {_kind(path) for path in paths}
    if len(kinds) > 1:
        raise InvalidParameterError(
            f"data: the files mix JSONL and Parquet ({', '.join(sorted(paths)[:3])}...); "
            f"expected one kind. Fix: evaluate each kind on its own.")
    if kinds == {"jsonl"}:
        return [JsonlPiece(path, options) for path in paths], []
    return _parquetpieces(paths, options, partition_rows)


def _kind(path: str) -> str:
    lowered = path.lower()
    if lowered.endswith(_JSONL_SUFFIXES):
        return "jsonl"
    if lowered.endswith(_PARQUET_SUFFIXES):
        return "parquet"
    raise InvalidParameterError(
        f"data: cannot tell the format of {path!r}; expected a name ending in "
        f"{', '.join(_JSONL_SUFFIXES + _PARQUET_SUFFIXES)}. Fix: rename it.")


def _parquetpieces(paths: list[str], options: tuple[tuple[str, Any], ...],
                    partition_rows: int) -> tuple[list[Any], Any]:
    import pyarrow.parquet as pq

    pieces: list[Any] = []
    sample = None
    for path in paths:
        with open_file(path, options) as handle:
            file = pq.ParquetFile(handle)
            meta = file.metadata
            if sample is None:
                sample = file.schema_arrow.empty_table()
        sizes = [meta.row_group(i).num_rows for i in range(meta.num_row_groups)]
        if sum(sizes) <= partition_rows or len(sizes) <= 1:
            pieces.append(ParquetPiece(path, None, 0, options))
            continue
        run: list[int] = []
        first = start = 0
        for group, size in enumerate(sizes):
            if run and sum(sizes[i] for i in run) + size > partition_rows:
                pieces.append(ParquetPiece(path, tuple(run), first, options))
                run, first = [], start
            run.append(group)
            start += size
        pieces.append(ParquetPiece(path, tuple(run), first, options))
    return pieces, sample
