"""The work of one partition on a worker: read it, score it, and give back its
aggregate, its rows, its file or its whole result."""

from __future__ import annotations

import os
import uuid
from typing import Any

import attrs

from agentmetrics import partition
from agentmetrics._base._types import ErrorsMode
from agentmetrics._kernels import THREADS_ENV
from agentmetrics.dask._common import where
from agentmetrics.dask._metrics import Shipped, load
from agentmetrics.dask._pieces import JsonlPiece, ParquetPiece, open_file
from agentmetrics.errors import CaseEvaluationError, InvalidCaseError, InvalidParameterError
from agentmetrics.io._input import read_numbered, read_parquet_piece
from agentmetrics.metric._metric import Metric
from agentmetrics.results._aggregate import Aggregate
from agentmetrics.results._summary import case_labels

__all__ = ["Job", "task"]


@attrs.frozen(slots=True)
class Job:
    """What every partition task needs: picklable, small."""

    metrics: tuple[Shipped, ...]
    errors: ErrorsMode
    columns: tuple[tuple[str, str], ...]
    keep: tuple[str, ...]
    failure_limit: int | None
    reasons: bool
    input_format: str | None
    hosted_tools: bool
    options: tuple[tuple[str, Any], ...] = ()
    cluster: str | None = None

    @property
    def keep_with_cluster(self) -> tuple[str, ...]:
        """The columns to read from tabular data: the kept ones and the cluster's."""
        if self.cluster is None or self.cluster in self.keep:
            return self.keep
        return (*self.keep, self.cluster)


def _read_piece(piece: Any, job: Job) -> tuple[Any, Any, dict[str, Any]]:
    """Score a piece: (result, ids, kept columns)."""

    metrics = [load(shipped) for shipped in job.metrics]
    columns = dict(job.columns)
    if isinstance(piece, JsonlPiece):
        return _score_jsonl(piece, job, metrics)
    if isinstance(piece, ParquetPiece):
        import pyarrow as pa

        with open_file(piece.path, piece.storage_options) as handle:
            table = read_parquet_piece(handle, columns, job.keep_with_cluster, piece.row_groups)
        result, ids, kept = partition.evaluate_partition(
            table, metrics, errors=job.errors, columns=columns, keep=job.keep_with_cluster,
            **dict(job.options))
        import numpy as np

        rows = pa.array(np.arange(piece.first_row, piece.first_row + table.num_rows))
        return result, ids, {"source": pa.array([piece.path] * table.num_rows, pa.string()),
                             "row": rows, **kept}
    tabular = not isinstance(piece, (list, tuple))
    return partition.evaluate_partition(piece, metrics, errors=job.errors, columns=columns,
                                        keep=job.keep_with_cluster if tabular else job.keep,
                                        **dict(job.options))


def _score_jsonl(piece: JsonlPiece, job: Job, metrics: list[Metric]) -> tuple[Any, Any, dict[str, Any]]:
    import pyarrow as pa


    options = {"input_format": job.input_format, "hosted_tools": job.hosted_tools}
    with open_file(piece.path, piece.storage_options) as handle:
        numbered = list(read_numbered(handle, piece.path, job.errors, options))
    cases = [case for _, case in numbered]
    result, ids, kept = partition.evaluate_partition(cases, metrics, errors=job.errors,
                                                     keep=job.keep, **dict(job.options))
    return result, ids, {"source": pa.array([piece.path] * len(cases), pa.string()),
                         "line": pa.array([number for number, _ in numbered], pa.int64()),
                         **kept}


def task(piece: Any, job: Job, index: int, mode: str, target: Any = None) -> Any:
    """One partition: score it, then give what ``mode`` asks for."""

    if where().startswith("worker") and THREADS_ENV not in os.environ:
        # As Dask's nanny does for BLAS: one kernel thread per task thread.
        os.environ[THREADS_ENV] = "1"
    try:
        result, ids, kept = _read_piece(piece, job)
    except CaseEvaluationError as error:
        raise CaseEvaluationError(
            error.index, error.case_id, error.metric,
            f"{error.message} (partition {index}{_named(piece)}, row {error.index} of the "
            f"partition)") from error.__cause__
    except InvalidCaseError as error:  # a row that could not be read (files say file:line)
        if isinstance(piece, (JsonlPiece, ParquetPiece)) and _named(piece)[2:] in str(error):
            raise
        raise InvalidCaseError(f"partition {index}{_named(piece)}: {error}") from None
    labels = None
    if job.cluster is not None:
        try:
            labels = _cluster_labels(result, kept, job.cluster)
        except InvalidParameterError as error:
            raise InvalidParameterError(f"partition {index}{_named(piece)} (rows counted "
                                        f"within it): {error}") from None
        if job.cluster not in job.keep:
            kept.pop(job.cluster, None)
    if mode == "result":
        return result
    if mode == "aggregate":
        return Aggregate.from_result(result, failure_limit=job.failure_limit, clusters=labels)
    rows = partition.rows_table(result, ids, kept, reasons=job.reasons)
    if mode == "rows":
        return partition.to_pandas_rows(rows)
    assert mode == "write"
    _write(rows, target, index)
    return Aggregate.from_result(result, failure_limit=job.failure_limit, clusters=labels)


def _cluster_labels(result: Any, kept: dict[str, Any], key: str) -> list[Any]:
    """One cluster label per case: the metadata key of cases, the column of a table;
    a case without one is an error."""

    instead = "evaluate with another cluster key"
    if result.batch.cases is not None:
        return case_labels(result.batch, key, "cluster", instead=instead)
    return case_labels(result.batch, kept[key].to_pylist(), "cluster", instead=instead)


def _named(piece: Any) -> str:
    return f", {piece.path}" if isinstance(piece, (JsonlPiece, ParquetPiece)) else ""


def _write(rows: Any, target: tuple[Any, str], index: int) -> None:
    """Write a partition's rows as ``part.NNNNN.parquet``, atomically: a task
    run twice (its worker died) leaves one whole file, never a torn one."""
    import pyarrow.parquet as pq

    fs, root = target
    final = f"{root}/part.{index:05d}.parquet"
    temporary = f"{root}/.part.{index:05d}.{uuid.uuid4().hex}.tmp"  # readers skip dot files
    with fs.open(temporary, "wb") as handle:
        pq.write_table(rows, handle)
    fs.mv(temporary, final)
