"""DaskEvaluation and evaluate(): the client side of a run."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from agentmetrics import partition
from agentmetrics._base._types import ErrorsMode, check_errors_mode
from agentmetrics.dask._common import module, require_dask
from agentmetrics.dask._metrics import load, ship
from agentmetrics.dask._pieces import PARTITION_ROWS, JsonlPiece, ParquetPiece, pieces
from agentmetrics.dask._tasks import Job, task
from agentmetrics.engine._evaluate import evaluation_settings, metric_of
from agentmetrics.errors import InvalidParameterError
from agentmetrics.io._input import column_map
from agentmetrics.metric._metric import Metric, metric_labels
from agentmetrics.model._model import describe
from agentmetrics.results._aggregate import Aggregate, merge_run
from agentmetrics.results._results import EvaluationResult
from agentmetrics.results._table import Table

__all__ = ["DaskEvaluation", "evaluate"]

#: Partial aggregates merged per task of the reduction tree.
SPLIT_EVERY = 8


class DaskEvaluation:
    """An evaluation on Dask, computed as it is asked for.

    ``summary()``, ``per_tool()`` and ``failures()`` share one pass over the
    data (a tree reduction of partial aggregates; nothing per case reaches the
    client) and keep its result. ``to_dask_dataframe()`` gives the per-case
    rows lazily, ``to_parquet(path)`` writes them from the workers (and fills
    the summary in the same pass), ``compute()`` collects everything into an
    ordinary :class:`~agentmetrics.EvaluationResult` when it fits in memory.
    """

    def __init__(self, pieces: list[Any], sample: Any, job: Job, labels: list[str]) -> None:
        self._pieces = pieces
        self._sample = sample
        self._job = job
        self.metrics = tuple(labels)
        self._aggregate: Aggregate | None = None

    @property
    def npartitions(self) -> int:
        return len(self._pieces)

    def __repr__(self) -> str:
        state = "computed" if self._aggregate is not None else "not computed yet"
        return (f"DaskEvaluation({self.npartitions} partitions, metrics: "
                f"{', '.join(self.metrics)}; {state})")

    def _delayed(self, mode: str, target: Any = None) -> list[Any]:
        scored = module("dask").delayed(task, pure=False)
        return [scored(piece, self._job, index, mode, target, dask_key_name=None)
                for index, piece in enumerate(self._pieces)]

    def _reduce(self, parts: list[Any]) -> Aggregate:
        dask = module("dask")
        level = parts
        while len(level) > 1:
            level = [dask.delayed(merge_run, pure=True)(level[i:i + SPLIT_EVERY])
                     for i in range(0, len(level), SPLIT_EVERY)]
        (total,) = dask.compute(level[0])
        assert isinstance(total, Aggregate)
        return total

    def aggregate(self) -> Aggregate:
        """The merged aggregate of every partition (computed once)."""
        if self._aggregate is None:
            if not self._pieces:
                raise InvalidParameterError("data: there are no partitions to score.")
            self._aggregate = self._reduce(self._delayed("aggregate"))
        return self._aggregate

    def summary(self, ci: float | None = 0.95, *, cluster: str | None = None,
                method: str = "clt") -> Table:
        """Per metric: n, mean with a t interval, std, min, max, pass rate with a
        Wilson interval, passed, errors: :meth:`EvaluationResult.summary` with
        ``method="clt"``, equal to it bit for bit. ``cluster``: the key given to
        :func:`evaluate` as ``cluster=``, for cluster-robust t intervals (equal
        to ``summary(cluster=...)`` to rounding). Bootstrap intervals need every
        score in one place: ``compute().summary(method="bootstrap")``."""
        if method != "clt":
            raise InvalidParameterError(
                f"summary: a distributed summary has t intervals (method='clt'), got "
                f"method={method!r}; the bootstrap needs every score in one place. Fix: "
                f"run.compute().summary(method={method!r}) when the scores fit in memory.")
        if cluster is None:
            return self.aggregate().summary(ci)
        if cluster != self._job.cluster:
            raise InvalidParameterError(
                f"summary: cluster={cluster!r}, but the run was evaluated with cluster="
                f"{self._job.cluster!r}; the sums per cluster are gathered while scoring. Fix: "
                f"agentmetrics.dask.evaluate(..., cluster={cluster!r}), or "
                f"run.compute().summary(cluster=...) when the scores fit in memory.")
        return self.aggregate().summary(ci, clustered=True)

    def aggregates(self, ci: float | None = 0.95) -> Table:
        """:meth:`EvaluationResult.aggregates` over every partition: the corpus
        aggregates merged exactly, equal bit for bit to one machine's."""
        return self.aggregate().aggregates(ci)

    def per_tool(self) -> Table:
        """:meth:`EvaluationResult.per_tool` over every partition."""
        return self.aggregate().per_tool()

    def failures(self, metric: str | None = None, *, limit: int | None = None) -> Table:
        """The first failing cases in data order (partitions, then rows), as
        :meth:`EvaluationResult.failures` lists them; ``case`` counts from the
        first row of the first partition. Up to ``failure_limit`` per metric
        are kept (``evaluate(..., failure_limit=)``)."""
        return self.aggregate().failures(metric, limit=limit)

    def to_dask_dataframe(self) -> Any:
        """The per-case rows as a lazy dask DataFrame with a fixed schema: ``id``,
        provenance (``source`` with ``line`` or ``row`` for files), the ``keep``
        columns, then per metric ``<label>``, ``<label>_passed``,
        ``<label>_reason`` and ``<label>_error``."""

        dd = module("dask.dataframe")
        metrics = [load(shipped) for shipped in self._job.metrics]
        meta = partition.to_pandas_rows(self._empty_rows(metrics))
        return dd.from_delayed(self._delayed("rows"), meta=meta, verify_meta=False)

    def _empty_rows(self, metrics: list[Metric]) -> Any:
        import pyarrow as pa


        job = self._job
        if self._pieces and isinstance(self._pieces[0], JsonlPiece):
            result, ids, kept = partition.evaluate_partition([], metrics, keep=job.keep)
            kept = {"source": pa.array([], pa.string()), "line": pa.array([], pa.int64()),
                    **kept}
        elif self._pieces and isinstance(self._pieces[0], ParquetPiece):
            result, ids, kept = partition.evaluate_partition(
                self._sample, metrics, columns=dict(job.columns), keep=job.keep)
            kept = {"source": pa.array([], pa.string()), "row": pa.array([], pa.int64()),
                    **kept}
        else:
            result, ids, kept = partition.evaluate_partition(
                self._sample, metrics, columns=dict(job.columns), keep=job.keep)
        return partition.rows_table(result, ids, kept, reasons=job.reasons)

    def to_parquet(self, path: str | os.PathLike[str], *,
                   storage_options: Mapping[str, Any] | None = None,
                   overwrite: bool = False) -> list[str]:
        """Write the per-case rows as ``part.NNNNN.parquet`` files under ``path``
        (a directory, local or an fsspec URL), one per partition, from the
        workers; the summary is computed in the same pass. Returns the files
        written. A task rerun after a worker died rewrites its file whole."""
        fs, _, (root,) = module("fsspec").get_fs_token_paths(os.fspath(path),
                                                   storage_options=dict(storage_options or {}))
        if fs.exists(root) and fs.ls(root):
            if not overwrite:
                raise InvalidParameterError(
                    f"to_parquet: {os.fspath(path)!r} exists and is not empty; expected a new "
                    f"or empty directory. Fix: choose another path, or pass overwrite=True.")
            fs.rm(root, recursive=True)
        fs.makedirs(root, exist_ok=True)
        self._aggregate = self._reduce(self._delayed("write", (fs, root)))
        for stale in fs.glob(f"{root}/.part.*.tmp"):  # left by a worker that died mid-write
            fs.rm(stale)
        return [f"{root}/part.{index:05d}.parquet" for index in range(self.npartitions)]

    def compute(self) -> Any:
        """Every per-case result collected into one EvaluationResult (in data
        order): for data that fits in the client's memory."""

        parts = module("dask").compute(*self._delayed("result"))
        return EvaluationResult.concat(list(parts))


def evaluate(
    data: Any,
    metrics: Any,
    *,
    errors: ErrorsMode = "raise",
    columns: Mapping[str, str] | None = None,
    keep: Sequence[str] = (),
    failure_limit: int | None = 100,
    reasons: bool = True,
    input_format: str | None = None,
    hosted_tools: bool = True,
    storage_options: Mapping[str, Any] | None = None,
    partition_rows: int = PARTITION_ROWS,
    concurrency: int | None = None,
    timeout: float | None = None,
    retries: int = 0,
    max_rate: float | None = None,
    cache: str | os.PathLike[str] | None = None,
    cluster: str | None = None,
) -> DaskEvaluation:
    """Score ``data`` with ``metrics`` on Dask (the default client's cluster, or
    Dask's local scheduler when there is none).

    ``data``: a dask DataFrame (list columns as pandas objects or Arrow lists),
    a dask Bag of AgentTestCase objects or JSONL-style dicts, or paths, globs and
    fsspec URLs of JSONL files (one partition per file) or Parquet files (one
    partition per ``partition_rows`` rows of row groups). ``metrics``: registry
    names (resolved on each worker through entry points), ``(name, {params})``
    pairs, or Metric instances (pickled; a class defined in a notebook travels
    by value). ``columns`` names the ``tool_calls``, ``expected_tool_calls`` and
    ``id`` columns; ``keep`` copies input columns (metadata keys for cases) into
    the per-case rows. ``errors`` as in :func:`agentmetrics.evaluate`: with
    ``"record"`` every row that cannot be read or scored is kept with its
    message. ``failure_limit``: failing rows kept per metric for
    :meth:`DaskEvaluation.failures` (None: all). ``reasons=False`` leaves the
    reason column empty (faster rows).

    ``concurrency``, ``timeout``, ``retries``, ``max_rate`` and ``cache`` are
    :func:`agentmetrics.evaluate`'s, for metrics that wait (an LLM judge), and
    apply per partition task: ``max_rate`` is per task, ``cache`` a path every
    worker can reach (SQLite is safe across processes on one machine).

    ``cluster``: a metadata key of the cases, or a column, that says which
    cases share a task (``"task_id"``); the run then also gathers the sums per
    cluster that ``summary(cluster=...)`` needs for cluster-robust intervals. A
    case without a label is an error.

    Nothing is computed until a result is asked for.
    """
    require_dask()


    check_errors_mode(errors)
    evaluation_settings(errors, concurrency, timeout, retries, max_rate, None)  # checked on the client
    if cache is not None and not isinstance(cache, (str, os.PathLike)):
        raise InvalidParameterError(
            f"cache: expected the path of a cache file every worker can reach, or None, got "
            f"{describe(cache)}.")
    if failure_limit is not None and (isinstance(failure_limit, bool) or
                                      not isinstance(failure_limit, int) or failure_limit < 0):
        raise InvalidParameterError(
            f"failure_limit: expected a whole number of rows, 0 or more, or None, got "
            f"{describe(failure_limit)}.")
    if isinstance(partition_rows, bool) or not isinstance(partition_rows, int) or \
            partition_rows < 1:
        raise InvalidParameterError(
            f"partition_rows: expected a whole number of rows, at least 1, got "
            f"{describe(partition_rows)}.")
    specs = [metrics] if isinstance(metrics, (Metric, str, type, tuple)) else list(metrics)
    resolved = [metric_of(spec) for spec in specs]
    if not resolved:
        raise InvalidParameterError("metrics: expected at least one metric, got none.")
    labels = metric_labels(resolved)
    shipped = tuple(ship(spec, metric, label)
                    for spec, metric, label in zip(specs, resolved, labels))
    if isinstance(keep, str):
        keep = (keep,)
    if cluster is not None and not isinstance(cluster, str):
        raise InvalidParameterError(
            f"cluster: expected a metadata key or column name, got {describe(cluster)}.")

    column_map(columns)  # checked here, on the client
    options = {"concurrency": concurrency, "timeout": timeout, "retries": retries,
               "max_rate": max_rate, "cache": None if cache is None else os.fspath(cache)}
    job = Job(shipped, errors, tuple(sorted((columns or {}).items())), tuple(keep),
              failure_limit, reasons, input_format, hosted_tools,
              tuple((key, value) for key, value in options.items()
                    if value is not None and value != 0), cluster)
    parts, sample = pieces(data, job, storage_options, partition_rows)
    return DaskEvaluation(parts, sample, job, labels)
