"""The same evaluation on a Dask cluster, out of core, with identical numbers.

Needs the ``dask`` extra (``pip install 'agentmetrics[dask]'``: dask[dataframe]
and distributed); importing this module imports neither until it is used.

>>> import agentmetrics.dask as amd
>>> run = amd.evaluate("traces/*.parquet", ["tool_selection_accuracy"])  # doctest: +SKIP
>>> run.summary()                                                        # doctest: +SKIP

Each partition is scored on a worker by the vectorized evaluator (the code
of :mod:`agentmetrics.partition`, which Ray or Spark can call the same way);
the summary, the per-tool table and the first failures come from a tree
reduction of exact partial aggregates, so they equal what
``agentmetrics.evaluate`` gives on all the cases in one process, and no
per-case row travels to the client unless asked for.
"""

from __future__ import annotations

import os
import socket
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from agentmetrics._aggregate import Aggregate, _merge_run
from agentmetrics._batch import check_errors_mode
from agentmetrics._metric import Metric, metric_labels
from agentmetrics._model import _describe
from agentmetrics._table import Table
from agentmetrics.errors import (
    CaseEvaluationError,
    InvalidCaseError,
    InvalidParameterError,
    MetricLoadError,
    MissingDependencyError,
)

__all__ = ["DaskEvaluation", "evaluate"]

#: Rows per Parquet partition: a file's row groups are read in runs of about
#: this many rows (a file with fewer is one partition).
PARTITION_ROWS = 1 << 20
#: Partial aggregates merged per task of the reduction tree.
SPLIT_EVERY = 8

_JSONL_SUFFIXES = (".jsonl", ".ndjson", ".jsonl.gz", ".ndjson.gz", ".json", ".json.gz")
_PARQUET_SUFFIXES = (".parquet", ".pq", ".parq")


def _module(name: str) -> Any:
    """A module of the optional libraries, untyped (they ship no complete stubs)."""
    import importlib

    return importlib.import_module(name)


def _require_dask() -> Any:
    try:
        dask = _module("dask")
        _module("dask.dataframe")  # the extra installs dask[dataframe] and distributed
    except ImportError as error:
        raise MissingDependencyError(
            "agentmetrics.dask needs the optional dependencies dask[dataframe] and "
            "distributed, which are not installed. Fix: pip install 'agentmetrics[dask]'."
        ) from error
    return dask


# -- metrics on workers ------------------------------------------------------------------


@attrs.frozen(slots=True)
class _Shipped:
    """A metric as it travels: by name (resolved on the worker through entry
    points) or pickled (a class defined in a notebook travels by value)."""

    label: str
    name: str | None = None
    params: tuple[tuple[str, Any], ...] = ()
    pickled: bytes | None = None


def _ship(spec: Any, metric: Metric, label: str) -> _Shipped:
    if isinstance(spec, str):
        return _Shipped(label, name=spec)
    if (isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[0], str)
            and isinstance(spec[1], Mapping)):
        return _Shipped(label, name=spec[0], params=tuple(sorted(spec[1].items())))
    pickled: bytes = _module("cloudpickle").dumps(metric)
    return _Shipped(label, pickled=pickled)


def _where() -> str:
    try:
        from distributed import get_worker

        return f"worker {get_worker().address}"
    except (ImportError, ValueError):
        return f"process {os.getpid()} on {socket.gethostname()}"


_loaded: dict[tuple[Any, ...], Metric] = {}


def _load(shipped: _Shipped) -> Metric:
    """The metric on this process: loaded once per process and metric."""
    key = (shipped.label, shipped.name, repr(shipped.params), shipped.pickled)
    metric = _loaded.get(key)
    if metric is None:
        metric = _loaded[key] = _load_now(shipped)
    return metric


def _load_now(shipped: _Shipped) -> Metric:
    from agentmetrics.registry import resolve_metric

    try:
        if shipped.name is not None:
            return resolve_metric(shipped.name, **dict(shipped.params))
        import pickle

        assert shipped.pickled is not None
        metric = pickle.loads(shipped.pickled)
    except Exception as error:  # noqa: BLE001 - named, with the worker, and re-raised
        what = (f"metric {shipped.name!r}" if shipped.name is not None
                else f"the pickled metric {shipped.label!r}")
        fix = ("install the distribution that provides it on every worker (the same "
               "environment as the client; distributed's PipInstall plugin can do it)"
               if shipped.name is not None or isinstance(error, ImportError) else
               "make the metric picklable, or register it in a package installed on every worker")
        raise MetricLoadError(
            f"{what} could not be loaded on {_where()}: {type(error).__name__}: {error}. "
            f"Expected the metric to exist on every worker. Fix: {fix}.") from None
    if not isinstance(metric, Metric):
        raise MetricLoadError(f"the pickled metric {shipped.label!r} is a "
                              f"{type(metric).__name__} on {_where()}, not a Metric.")
    return metric


@attrs.frozen(slots=True)
class _Job:
    """What every partition task needs: picklable, small."""

    metrics: tuple[_Shipped, ...]
    errors: str
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


# -- pieces: what one partition task reads -------------------------------------------


@attrs.frozen(slots=True)
class _JsonlPiece:
    path: str
    storage_options: tuple[tuple[str, Any], ...] = ()


@attrs.frozen(slots=True)
class _ParquetPiece:
    path: str
    row_groups: tuple[int, ...] | None
    first_row: int
    storage_options: tuple[tuple[str, Any], ...] = ()


def _open(path: str, storage_options: tuple[tuple[str, Any], ...]) -> Any:
    return _module("fsspec").open(path, "rb", **dict(storage_options)).open()


def _read_piece(piece: Any, job: _Job) -> tuple[Any, Any, dict[str, Any]]:
    """Score a piece: (result, ids, kept columns)."""
    from agentmetrics import partition

    metrics = [_load(shipped) for shipped in job.metrics]
    columns = dict(job.columns)
    if isinstance(piece, _JsonlPiece):
        return _score_jsonl(piece, job, metrics)
    if isinstance(piece, _ParquetPiece):
        import pyarrow as pa
        import pyarrow.parquet as pq

        wanted = {columns.get("tool_calls", "tool_calls"),
                  columns.get("expected_tool_calls", "expected_tool_calls"),
                  *job.keep_with_cluster}
        with _open(piece.path, piece.storage_options) as handle:
            file = pq.ParquetFile(handle)
            names = file.schema_arrow.names
            id_name = columns.get("id", "id" if "id" in names else None)
            read = [name for name in names if name in wanted or name == id_name]
            table = (file.read(columns=read) if piece.row_groups is None
                     else file.read_row_groups(list(piece.row_groups), columns=read))
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


def _score_jsonl(piece: _JsonlPiece, job: _Job, metrics: list[Metric]) -> tuple[Any, Any, dict[str, Any]]:
    import pyarrow as pa

    from agentmetrics import partition
    from agentmetrics._dataset import _read

    options = {"input_format": job.input_format, "hosted_tools": job.hosted_tools}
    with _open(piece.path, piece.storage_options) as handle:
        numbered = list(_read(handle, piece.path, job.errors, options))
    cases = [case for _, case in numbered]
    result, ids, kept = partition.evaluate_partition(cases, metrics, errors=job.errors,
                                                     keep=job.keep, **dict(job.options))
    return result, ids, {"source": pa.array([piece.path] * len(cases), pa.string()),
                         "line": pa.array([number for number, _ in numbered], pa.int64()),
                         **kept}


def _task(piece: Any, job: _Job, index: int, mode: str, target: Any = None) -> Any:
    """One partition: score it, then give what ``mode`` asks for."""
    from agentmetrics import partition
    from agentmetrics._kernels import THREADS_ENV

    if _where().startswith("worker") and THREADS_ENV not in os.environ:
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
        if isinstance(piece, (_JsonlPiece, _ParquetPiece)) and _named(piece)[2:] in str(error):
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
    from agentmetrics._summary import case_labels

    instead = "evaluate with another cluster key"
    if result.batch.cases is not None:
        return case_labels(result.batch, key, "cluster", instead=instead)
    return case_labels(result.batch, kept[key].to_pylist(), "cluster", instead=instead)


def _named(piece: Any) -> str:
    return f", {piece.path}" if isinstance(piece, (_JsonlPiece, _ParquetPiece)) else ""


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


# -- the client side ------------------------------------------------------------------


def _pieces(data: Any, job: _Job, storage_options: Mapping[str, Any] | None,
            partition_rows: int) -> tuple[list[Any], Any]:
    """The partitions to score, as delayed inputs or pieces, and an empty sample
    of one (for the rows' schema)."""
    _require_dask()
    db, dd = _module("dask.bag"), _module("dask.dataframe")

    from agentmetrics import partition

    if isinstance(data, dd.DataFrame):
        names = partition._columns(dict(job.columns))
        missing = [name for name in (names["tool_calls"], names["expected_tool_calls"],
                                     names["id"], *job.keep_with_cluster)
                   if name is not None and name not in data.columns]
        if missing:
            raise InvalidParameterError(
                f"data: the dask DataFrame has no column {missing[0]!r}; it has "
                f"{list(data.columns)}. Fix: pass columns={{'tool_calls': ..., "
                f"'expected_tool_calls': ..., 'id': ...}} naming yours.")
        partition.refuse_text_calls(dict(data.dtypes.items()), names, "data")
        return list(data.to_delayed()), data._meta
    if isinstance(data, db.Bag):
        return list(data.to_delayed()), []
    if isinstance(data, (str, os.PathLike)) or (
            isinstance(data, (list, tuple)) and data
            and all(isinstance(item, (str, os.PathLike)) for item in data)):
        return _file_pieces(data, storage_options, partition_rows)
    raise InvalidParameterError(
        f"data: expected a dask DataFrame, a dask Bag of cases or dicts, or paths (globs, "
        f"fsspec URLs) of JSONL or Parquet files, got {_describe(data)}. Fix: for data in "
        f"memory use agentmetrics.evaluate, or dask.dataframe.from_pandas(frame).")


def _file_pieces(data: Any, storage_options: Mapping[str, Any] | None,
                 partition_rows: int) -> tuple[list[Any], Any]:
    fsspec = _module("fsspec")
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
        return [_JsonlPiece(path, options) for path in paths], []
    return _parquet_pieces(paths, options, partition_rows)


def _kind(path: str) -> str:
    lowered = path.lower()
    if lowered.endswith(_JSONL_SUFFIXES):
        return "jsonl"
    if lowered.endswith(_PARQUET_SUFFIXES):
        return "parquet"
    raise InvalidParameterError(
        f"data: cannot tell the format of {path!r}; expected a name ending in "
        f"{', '.join(_JSONL_SUFFIXES + _PARQUET_SUFFIXES)}. Fix: rename it.")


def _parquet_pieces(paths: list[str], options: tuple[tuple[str, Any], ...],
                    partition_rows: int) -> tuple[list[Any], Any]:
    import pyarrow.parquet as pq

    pieces: list[Any] = []
    sample = None
    for path in paths:
        with _open(path, options) as handle:
            file = pq.ParquetFile(handle)
            meta = file.metadata
            if sample is None:
                sample = file.schema_arrow.empty_table()
        sizes = [meta.row_group(i).num_rows for i in range(meta.num_row_groups)]
        if sum(sizes) <= partition_rows or len(sizes) <= 1:
            pieces.append(_ParquetPiece(path, None, 0, options))
            continue
        run: list[int] = []
        first = start = 0
        for group, size in enumerate(sizes):
            if run and sum(sizes[i] for i in run) + size > partition_rows:
                pieces.append(_ParquetPiece(path, tuple(run), first, options))
                run, first = [], start
            run.append(group)
            start += size
        pieces.append(_ParquetPiece(path, tuple(run), first, options))
    return pieces, sample


class DaskEvaluation:
    """An evaluation on Dask, computed as it is asked for.

    ``summary()``, ``per_tool()`` and ``failures()`` share one pass over the
    data (a tree reduction of partial aggregates; nothing per case reaches the
    client) and keep its result. ``to_dask_dataframe()`` gives the per-case
    rows lazily, ``to_parquet(path)`` writes them from the workers (and fills
    the summary in the same pass), ``compute()`` collects everything into an
    ordinary :class:`~agentmetrics.EvaluationResult` when it fits in memory.
    """

    def __init__(self, pieces: list[Any], sample: Any, job: _Job, labels: list[str]) -> None:
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
        task = _module("dask").delayed(_task, pure=False)
        return [task(piece, self._job, index, mode, target, dask_key_name=None)
                for index, piece in enumerate(self._pieces)]

    def _reduce(self, parts: list[Any]) -> Aggregate:
        dask = _module("dask")
        level = parts
        while len(level) > 1:
            level = [dask.delayed(_merge_run, pure=True)(level[i:i + SPLIT_EVERY])
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
        from agentmetrics import partition

        dd = _module("dask.dataframe")
        metrics = [_load(shipped) for shipped in self._job.metrics]
        meta = partition.to_pandas_rows(self._empty_rows(metrics))
        return dd.from_delayed(self._delayed("rows"), meta=meta, verify_meta=False)

    def _empty_rows(self, metrics: list[Metric]) -> Any:
        import pyarrow as pa

        from agentmetrics import partition

        job = self._job
        if self._pieces and isinstance(self._pieces[0], _JsonlPiece):
            result, ids, kept = partition.evaluate_partition([], metrics, keep=job.keep)
            kept = {"source": pa.array([], pa.string()), "line": pa.array([], pa.int64()),
                    **kept}
        elif self._pieces and isinstance(self._pieces[0], _ParquetPiece):
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
        fs, _, (root,) = _module("fsspec").get_fs_token_paths(os.fspath(path),
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
        from agentmetrics._results import EvaluationResult

        parts = _module("dask").compute(*self._delayed("result"))
        return EvaluationResult.concat(list(parts))


def evaluate(
    data: Any,
    metrics: Any,
    *,
    errors: str = "raise",
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
    _require_dask()
    from agentmetrics._evaluate import _resolve_metric

    from agentmetrics._evaluate import _settings

    check_errors_mode(errors)
    _settings(errors, concurrency, timeout, retries, max_rate, None)  # checked on the client
    if cache is not None and not isinstance(cache, (str, os.PathLike)):
        raise InvalidParameterError(
            f"cache: expected the path of a cache file every worker can reach, or None, got "
            f"{_describe(cache)}.")
    if failure_limit is not None and (isinstance(failure_limit, bool) or
                                      not isinstance(failure_limit, int) or failure_limit < 0):
        raise InvalidParameterError(
            f"failure_limit: expected a whole number of rows, 0 or more, or None, got "
            f"{_describe(failure_limit)}.")
    if isinstance(partition_rows, bool) or not isinstance(partition_rows, int) or \
            partition_rows < 1:
        raise InvalidParameterError(
            f"partition_rows: expected a whole number of rows, at least 1, got "
            f"{_describe(partition_rows)}.")
    specs = [metrics] if isinstance(metrics, (Metric, str, type, tuple)) else list(metrics)
    resolved = [_resolve_metric(spec) for spec in specs]
    if not resolved:
        raise InvalidParameterError("metrics: expected at least one metric, got none.")
    labels = metric_labels(resolved)
    shipped = tuple(_ship(spec, metric, label)
                    for spec, metric, label in zip(specs, resolved, labels))
    if isinstance(keep, str):
        keep = (keep,)
    if cluster is not None and not isinstance(cluster, str):
        raise InvalidParameterError(
            f"cluster: expected a metadata key or column name, got {_describe(cluster)}.")
    from agentmetrics.partition import _columns

    _columns(columns)  # checked here, on the client
    options = {"concurrency": concurrency, "timeout": timeout, "retries": retries,
               "max_rate": max_rate, "cache": None if cache is None else os.fspath(cache)}
    job = _Job(shipped, errors, tuple(sorted((columns or {}).items())), tuple(keep),
               failure_limit, reasons, input_format, hosted_tools,
               tuple((key, value) for key, value in options.items()
                     if value is not None and value != 0), cluster)
    pieces, sample = _pieces(data, job, storage_options, partition_rows)
    return DaskEvaluation(pieces, sample, job, labels)

