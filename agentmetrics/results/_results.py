"""Results of an evaluation: every metric's MetricResult over one batch, with
summaries, tables to read, exports and plots."""

from __future__ import annotations

import html
import os
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from agentmetrics._base._optional import require
from agentmetrics.cases._tool_call_batch import ToolCallBatch
from agentmetrics.errors import (
    InvalidParameterError,
)
from agentmetrics.model._metric_result import MetricResult
from agentmetrics.corpus._state import states_of
from agentmetrics.results._aggregate import MetricMoments, ToolCounts
from agentmetrics.results._config import RunConfig, agreed_config, merged_config, run_config
from agentmetrics.results._corpus import aggregates_table
from agentmetrics.results._repeated import Trials
from agentmetrics.results._summary import Summary
from agentmetrics.results._table import Table

if TYPE_CHECKING:  # pragma: no cover
    from pathlib import Path

    from agentmetrics.results._repeated import Trials
    from agentmetrics.runs._history import RunStore
    from agentmetrics.runs._provenance import Provenance

__all__ = ["EvaluationResult"]


class EvaluationResult:
    """Every metric's result over one batch.

    ``result[label]`` is a MetricResult; labels are the metrics' registry
    names (with their non-default parameters where two share a name).
    ``sources[label]`` says where each metric's class comes from;
    ``config`` what the run was made with (see :attr:`config`).
    """

    __slots__ = ("_config", "_provenance", "batch", "cache_stats", "created", "results",
                 "sources")

    def __init__(
        self,
        batch: ToolCallBatch,
        results: Mapping[str, MetricResult],
        sources: Mapping[str, str] | None = None,
        cache_stats: Mapping[str, Any] | None = None,
        provenance: Provenance | None = None,
        config: Mapping[str, Any] | None = None,
    ) -> None:
        self._config = run_config(config)
        self.batch = batch
        self.results = dict(results)
        #: Per metric label, where its class comes from: a distribution and
        #: version, or a registration in this process (and what it shadows).
        self.sources = dict(sources or {})
        #: Per metric scored with a cache: CacheStats(hits, misses).
        self.cache_stats = dict(cache_stats or {})
        #: When the result was made (seconds since the epoch).
        self.created = time.time()
        self._provenance = provenance

    @classmethod
    def concat(cls, parts: Sequence[EvaluationResult]) -> EvaluationResult:
        """The results of consecutive parts of one evaluation (the same metrics,
        in the same order) as one result, their cases one after another. Its
        :attr:`config` holds the items every part has with the same value:
        a key the parts disagree on (or that one part lacks) is left out."""
        if not parts:
            raise InvalidParameterError("concat: expected at least one result, got none.")
        labels = parts[0].metrics
        for part in parts[1:]:
            if part.metrics != labels:
                raise InvalidParameterError(
                    f"concat: one part has the metrics {list(labels)}, another "
                    f"{list(part.metrics)}; expected parts of one evaluation.")
        batch = ToolCallBatch.concat([part.batch for part in parts])
        results = {label: MetricResult.concat([part.results[label] for part in parts])
                   for label in labels}
        return cls(batch, results, parts[0].sources,
                   config=agreed_config(part.config for part in parts))

    # -- access ------------------------------------------------------------------

    @property
    def provenance(self) -> Provenance:
        """Where these numbers come from: the agentmetrics version, each
        metric's name, version and parameters (secrets masked), the data's
        fingerprint, when and where it ran. A loaded run keeps its own."""
        if self._provenance is None:
            from agentmetrics.runs._provenance import provenance_of

            self._provenance = provenance_of(self, self.created)
        return self._provenance

    @property
    def config(self) -> RunConfig:
        """What the run was made with: a read-only mapping of names (the
        well-known ``model``, ``agent_version``, ``prompt_version`` and
        ``commit``, or any other) to str, int, float, bool or None, empty when
        none was given. Set by ``evaluate(..., config=...)`` and added to by
        ``save(..., config=...)``; kept with secrets masked (a text value under
        a credential's name is ``***``, URL credentials and keys are masked)."""
        return self._config

    @property
    def metrics(self) -> tuple[str, ...]:
        return tuple(self.results)

    def __len__(self) -> int:
        return len(self.batch)

    def __getitem__(self, label: str) -> MetricResult:
        try:
            return self.results[label]
        except KeyError:
            raise KeyError(f"no metric {label!r} in this result; it has {list(self.results)}") from None

    def _select(self, metric: str | None) -> list[str]:
        if metric is None:
            return list(self.results)
        self[metric]  # raises a helpful KeyError
        return [metric]

    # -- tables ------------------------------------------------------------------

    def summary(
        self,
        ci: float | None = 0.95,
        *,
        cluster: str | Sequence[Any] | None = None,
        method: str = "clt",
        resamples: int = 10_000,
        seed: int = 0,
    ) -> Summary:
        """Per metric: n, the mean with its standard error and a ``ci`` interval,
        std, min, max (over scored cases), the pass rate with its interval,
        passed, errors and threshold.

        ``pass_rate`` is ``passed / n``: a case that could not be scored did not
        pass. The mean's interval is a t interval (``method="clt"``) or a seeded
        percentile bootstrap of ``resamples`` (``"bootstrap"``); the pass rate's
        is Wilson's. ``cluster`` says which cases share a task (a metadata key
        such as ``"task_id"``, or one label per case): the intervals then treat
        each cluster, not each case, as the independent unit (cluster-robust
        standard errors, or whole clusters resampled). ``ci=None`` leaves the
        intervals out (the same columns, without ``se``, ``mean_low``,
        ``mean_high``, ``pass_low`` and ``pass_high``).

        A :class:`~agentmetrics.results._summary.Summary` (a Table), the one
        summary the CLI, the HTML report, Dask and the partition merge render
        too; its title says which intervals it shows.
        """

        moments = [MetricMoments.from_result(label, scores)
                   for label, scores in self.results.items()]
        return Summary.from_scores(self, moments, ci=ci, cluster=cluster, method=method,
                                   resamples=resamples, seed=seed)

    def aggregates(self, ci: float | None = 0.95) -> Table:
        """The corpus-level aggregates the metrics declare (``p95`` latency,
        ``micro_f1``, a ``total`` cost), one row each: a Table with the columns
        ``metric``, ``aggregate``, ``value``, ``low``, ``high``, ``n`` and
        ``note``. Computed from states that merge exactly, so
        ``partition.merge(...).aggregates()`` over any split of these cases
        gives the same table; no rows when no metric declares aggregates."""
        return aggregates_table(states_of(self.metrics, self.results).values(), ci)

    def trials(self, by: str | Sequence[Any] = "task_id", metric: str | None = None) -> Trials:
        """Repeated trials: the cases grouped by task (``by``: a metadata key,
        or one task label per case), with pass@k and pass^k for ``metric``
        (needed when there are several). A case that could not be scored
        counts as a failed trial."""

        if metric is None:
            if len(self.results) != 1:
                raise InvalidParameterError(
                    f"metric: expected one of {list(self.results)} (this result has "
                    f"{len(self.results)} metrics), got none. Fix: "
                    f"result.trials(by, metric={next(iter(self.results), 'name')!r}).")
            metric = next(iter(self.results))
        return Trials.from_result(self, by, metric)

    def failures(self, metric: str | None = None, *, limit: int | None = None) -> Table:
        """The cases that did not pass (errors included), with their reasons."""
        rows: list[tuple[Any, ...]] = []
        for label in self._select(metric):
            result = self.results[label]
            failing = np.flatnonzero(~result.passed)[:limit].tolist()
            rows.extend(
                (row, self.batch.case_id(row), label, float(result.values[row]),
                 result.metric.threshold, result.reason(row))
                for row in failing
            )
        rows.sort(key=lambda r: (r[0], self.metrics.index(r[2])))
        if limit is not None:
            rows = rows[:limit]
        return Table(("case", "id", "metric", "value", "threshold", "reason"), rows, title="Failures")

    def per_tool(self) -> Table:
        """Per tool name, over the cases with both call lists: in how many cases
        it was expected, called, missed (expected, not called) and unexpected
        (called, not expected), with precision and recall. Sorted by misses."""

        return ToolCounts.from_batch(self.batch).table()

    # -- exports -----------------------------------------------------------------

    def _columns(self, reasons: bool) -> dict[str, Any]:
        columns: dict[str, Any] = {}
        if self.batch.case_ids is not None:
            columns["id"] = list(self.batch.case_ids)
        for label, result in self.results.items():
            columns[label] = result.values
            columns[f"{label}_passed"] = result.passed
            if reasons:
                columns[f"{label}_reason"] = list(result.reasons)
            if result.errors:
                error_column: list[str | None] = [None] * len(result)
                for row, message in result.errors.items():
                    error_column[row] = message
                columns[f"{label}_error"] = error_column
        return columns

    def to_pandas(self, *, reasons: bool = True) -> Any:
        """One row per case: id, then per metric its value, passed, reason and error."""
        pd = require("pandas", "pandas")
        frame = pd.DataFrame(self._columns(reasons))
        frame.index.name = "case"
        return frame

    def to_dicts(self, *, reasons: bool = True) -> list[dict[str, Any]]:
        """One dict per case, with the same fields as :meth:`to_pandas`."""
        columns = self._columns(reasons)
        lists = {
            name: column.tolist() if isinstance(column, np.ndarray) else column
            for name, column in columns.items()
        }
        return [
            {"case": row, **{name: values[row] for name, values in lists.items()}}
            for row in range(len(self))
        ]

    # -- saved runs --------------------------------------------------------------

    def save(self, path: str | os.PathLike[str], *, format: str | None = None,
             history: bool | str | os.PathLike[str] | RunStore = True, label: str | None = None,
             metadata: bool = True, config: Mapping[str, Any] | None = None) -> Path:
        """Write the run to ``path``, whole or not at all (a temporary file
        beside it, renamed over it): Parquet for a name ending in ``.parquet``
        (needs pyarrow), JSON lines for ``.jsonl`` (``.jsonl.gz``: gzipped),
        one JSON document for ``.json`` (``.json.gz``); ``format="jsonl"``,
        ``"json"`` or ``"parquet"`` says it for any other name, which is
        refused otherwise. :func:`agentmetrics.load_result` reads it back.

        Kept: the provenance (metrics with their parameters as shown, secrets
        masked), the run's :attr:`config`, and per case its position, id (with its type: str, int,
        float, bool, None or tuples of them; another type is refused), tool
        names called and expected (or not given), why it could not be read
        if it could not, its metadata (``metadata=False`` leaves it out), and
        per metric the value (to the bit), passed, reason and error.

        ``history``: ``True`` records the run (its summary, provenance,
        ``label`` and this file's absolute path) in the default run history
        (``$AGENTMETRICS_HISTORY``, else ``.agentmetrics/runs.sqlite`` here), a
        RunStore or the path of one records it there, ``False`` nowhere.

        ``config``: keys added to the run's :attr:`config` (kept in the file,
        the history and this result); a key the run has already with another
        value is refused, before anything is written. Returns ``path`` as a
        Path.
        """
        from agentmetrics.runs._save import save_result

        store = _store(history)  # a wrong history is said before anything is written
        merged = merged_config(self._config, config, "save: config")
        before, self._config = self._config, merged
        try:
            written = save_result(self, path, format, metadata=metadata)
        except BaseException:
            self._config = before
            raise
        if store is not None:
            store.record(self, written, label=label)
        return written

    # -- reports -----------------------------------------------------------------

    def to_html(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        title: str | None = None,
        limit: int = 100,
        ci: float = 0.95,
        cluster: str | Sequence[Any] | None = "auto",
        trials: str | Sequence[Any] | None = "auto",
        history: Any = None,
        trend: int = 20,
        name: str | None = None,
    ) -> Any:
        """The run as one self-contained HTML page: a headline (``name``, the
        run's label, when given; the cases; each metric's mean and pass rate
        with their intervals), the summary with intervals
        (clustered ones when cases share a task), a histogram per metric
        with its threshold, the per-tool table, the failing cases worst first
        with both call sequences side by side, error rows, pass@k and pass^k
        for repeated trials, a trend over past runs, and the provenance.

        Written to ``path`` (returned as a Path), or returned as a string when
        no path is given. Nothing is fetched from the network when it is
        opened. ``limit``: the most failing (and error) cases shown per metric,
        the worst; counts say what is left out. ``cluster`` and ``trials``: a
        metadata key (or one label per case) naming each case's task;
        ``"auto"`` uses ``task_id`` when every case has one and some task has
        several cases. ``history``: a run store (``agentmetrics.runs``), its
        path, or True for the default one: the trend of each metric over its
        last ``trend`` runs.
        """
        from agentmetrics.report._page import write_page
        from agentmetrics.report._result import result_html

        if name is not None and (not isinstance(name, str) or not name.strip()):
            raise InvalidParameterError(
                f"name: expected the run's name as non-empty text (its label), got {name!r:.80}.")
        text = result_html(self, title=title, limit=limit, ci=ci, cluster=cluster,
                           trials=trials, history=_store(history), trend=trend, name=name)
        return text if path is None else write_page(path, text)

    # -- display -----------------------------------------------------------------

    def plot(self, metric: str | None = None, *, bins: int = 20, ax: Any = None) -> Any:
        """Histogram of each metric's scores with its threshold line (needs matplotlib).

        Returns the matplotlib Axes (a list of them for several metrics).
        """
        require("matplotlib", "plot")
        import matplotlib.pyplot as plt

        labels = self._select(metric)
        if ax is None:
            _, axes = plt.subplots(1, len(labels), figsize=(5 * len(labels), 3.5), squeeze=False)
            axes_list = list(axes[0])
        else:
            axes_list = list(ax) if isinstance(ax, (list, tuple, np.ndarray)) else [ax]
        for label, axis in zip(labels, axes_list):
            result = self.results[label]
            scored = result.values[~np.isnan(result.values)]
            axis.hist(scored, bins=bins, range=(0.0, 1.0), color="#4c72b0", edgecolor="white")
            axis.axvline(result.metric.threshold, color="#c44e52", linestyle="--",
                         label=f"threshold {result.metric.threshold:g}")
            rate = result.passed.mean() if len(result) else float("nan")
            axis.set_title(f"{label}: pass rate {rate:.1%}")
            axis.set_xlabel("score")
            axis.set_ylabel("cases")
            axis.legend()
        return axes_list[0] if len(labels) == 1 else axes_list

    def __repr__(self) -> str:
        head = f"EvaluationResult({len(self)} cases, metrics: {', '.join(self.metrics)})"
        if self._config:
            head += f"\nconfig: {self._config.text(200)}"
        return head + "\n" + self._brief().render()

    def _brief(self) -> Table:
        """The summary's main columns: what a glance needs."""
        return self.summary().select("metric", "n", "mean", "mean_low", "mean_high", "pass_rate",
                                     "pass_low", "pass_high", "errors", "threshold")

    def _repr_html_(self) -> str:
        head = html.escape(f"EvaluationResult: {len(self)} cases")
        failed = sum(int((~r.passed).sum()) for r in self.results.values())
        tail = html.escape(f"{failed} failing case-metric pairs; see .failures() and .per_tool()")
        config = (f"<p>config: {html.escape(self._config.text(200))}</p>" if self._config
                  else "")
        return f"<p><b>{head}</b></p>{config}{self._brief()._repr_html_()}<p>{tail}</p>"


def _store(history: Any) -> Any:
    """A run store from what ``to_html(history=...)`` and ``save(history=...)``
    accept (the store file's base class: this module sits below the reader of
    saved runs, which RunStore.load imports)."""
    if history is None or history is False:
        return None
    from agentmetrics.runs._store import StoreFile

    if isinstance(history, StoreFile):
        return history
    if history is True:
        return StoreFile()
    if isinstance(history, (str, os.PathLike)):
        return StoreFile(history)
    raise InvalidParameterError(
        f"history: expected a RunStore, the path of a run history, True (the default "
        f"history) or None, got {type(history).__name__}.")


# Pickles and reprs name the public path, not this private module.
for _public in (EvaluationResult,):
    _public.__module__ = "agentmetrics"
del _public
