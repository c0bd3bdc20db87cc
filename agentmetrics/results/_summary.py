"""The summary table of an evaluation, with error bars; the grouping labels it
(and repeated trials) read from the cases.

Whatever the method (t, cluster-robust t, bootstrap; from the scores or from
merged moments), a mean's interval is clipped to the metric's ``value_range``
and a pass rate's to [0, 1]: the mean cannot leave the range its values take,
so the interval says nothing by reaching past it."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from agentmetrics.errors import InvalidParameterError
from agentmetrics.model._model import AgentTestCase
from agentmetrics.results._table import Table
from agentmetrics.stats._distributions import t_ppf
from agentmetrics.stats._intervals import check_ci, clip_to, mean_interval, proportion_interval

if TYPE_CHECKING:  # pragma: no cover
    from agentmetrics.cases._tool_call_batch import ToolCallBatch
    from agentmetrics.results._aggregate import ClusterSums, MetricMoments
    from agentmetrics.results._results import EvaluationResult

__all__ = ["PLAIN_COLUMNS", "SUMMARY_COLUMNS", "Summary", "case_labels", "clip_rate", "units_of"]

#: The summary's columns, in order, on every surface (Python, the CLI's table
#: and JSON, the HTML report, Dask, the partition merge).
SUMMARY_COLUMNS = ("metric", "n", "mean", "se", "mean_low", "mean_high", "std", "min", "max",
                   "pass_rate", "pass_low", "pass_high", "passed", "errors", "threshold")
#: The columns of ``summary(ci=None)``: the same names, the intervals left out.
PLAIN_COLUMNS = tuple(column for column in SUMMARY_COLUMNS
                      if column not in ("se", "mean_low", "mean_high", "pass_low", "pass_high"))
#: How the intervals are computed, as a title says it: the mean's, the pass rate's.
_SAID = {"t": ("t interval", "Wilson"),
         "cluster-robust t": ("cluster-robust t interval", "cluster-robust t interval"),
         "bootstrap": ("bootstrap", "bootstrap"),
         "cluster bootstrap": ("cluster bootstrap", "cluster bootstrap")}


class Summary(Table):
    """The summary of an evaluation: per metric, n, the mean with its standard
    error and interval, std, min, max (over the scored cases), the pass rate
    with its interval, passed, errors and threshold (``SUMMARY_COLUMNS``;
    ``PLAIN_COLUMNS``, the same names without the intervals, for ``ci=None``).

    The one summary every surface renders: ``EvaluationResult.summary()``, an
    aggregate merged from partitions (:func:`agentmetrics.partition.merge`,
    ``agentmetrics.dask``), the CLI's printed table and JSON, the HTML report
    and the notebook. Built from a result's scores (:meth:`from_scores`), from
    merged moments (:meth:`from_moments`) or from sums per cluster
    (:meth:`from_clusters`).

    ``ci``: the intervals' level (None: none). ``interval``: how they were
    computed: ``"t"`` (a t interval for the mean, Wilson's for the pass rate),
    ``"cluster-robust t"``, ``"bootstrap"`` or ``"cluster bootstrap"`` (that
    method for both). ``clusters``: how many clusters the intervals treat as
    the independent units (None: each case is one). ``units``: the unit of
    each metric whose values have one, by label (``{"latency": "s"}``; a
    share or score has none). The title says all four: ``Summary (95% CI:
    ...; latency in s)``. The columns stay the same whatever the units: a
    metric's mean, min, max and threshold are in its own unit, the pass rate
    a share.
    """

    __slots__ = ("ci", "clusters", "interval", "units")

    def __init__(self, rows: Sequence[Sequence[Any]], *, ci: float | None,
                 interval: str = "t", clusters: int | None = None,
                 units: Mapping[str, str] | None = None) -> None:
        self.units = dict(units or {})
        said = "; ".join(f"{label} in {unit}" for label, unit in self.units.items())
        if ci is None:
            super().__init__(PLAIN_COLUMNS, rows, f"Summary ({said})" if said else "Summary")
        else:
            mean_by, pass_by = _SAID[interval]
            within = "" if clusters is None else f", {clusters} clusters"
            super().__init__(SUMMARY_COLUMNS, rows, f"Summary ({ci:.0%} CI: mean by {mean_by}, "
                             f"pass rate by {pass_by}{within}{'; ' * bool(said)}{said})")
        self.ci = ci
        self.interval = None if ci is None else interval
        self.clusters = clusters

    @classmethod
    def from_scores(cls, result: EvaluationResult, moments: Sequence[MetricMoments], *,
                    ci: float | None, cluster: str | Sequence[Any] | None, method: str,
                    resamples: int, seed: int) -> Summary:
        """The summary of ``result``, whose metrics' totals are ``moments``
        (what :meth:`EvaluationResult.summary` returns)."""
        return _from_scores(result, moments, ci=ci, cluster=cluster, method=method,
                            resamples=resamples, seed=seed)

    @classmethod
    def from_moments(cls, moments: Sequence[MetricMoments], ci: float | None) -> Summary:
        """The summary from each metric's moments: a t interval for the mean
        (clipped to the metric's ``value_range``), Wilson's for the pass rate
        (``ci=None``: no intervals). Exact moments: the same numbers, bit for
        bit, however the cases were split and merged."""
        return _from_moments(moments, ci)

    @classmethod
    def from_clusters(cls, moments: Sequence[MetricMoments], clusters: Sequence[ClusterSums],
                      ci: float) -> Summary:
        """The summary with cluster-robust t intervals, from sums per cluster:
        what ``summary(cluster=...)`` computes from the scores themselves (CR1,
        G/(G-1), t with G-1 degrees of freedom; the mean over scored cases,
        clipped to the metric's ``value_range``, the pass rate over all,
        clipped to [0, 1]), to rounding: the sums per cluster are not exact."""
        return _from_clusters(moments, clusters, ci)


def _missing(label: object) -> bool:
    if label is None:
        return True
    try:
        return bool(label != label)  # NaN, pd.NA (whose comparison is not a bool)
    except (TypeError, ValueError):
        return True


def case_labels(batch: ToolCallBatch, key: str | Sequence[Any] | Any, parameter: str,
                *, instead: str | None = None) -> list[Any]:
    """One label per case: ``key`` names a metadata entry of every case (``"id"``
    is the case id), or is itself one label per case (a list, an array, a pandas
    Series). A case without a label is an error, never dropped or grouped alone."""

    n = len(batch)
    if isinstance(key, str):
        if key == "id" and batch.case_ids is not None:
            labels = list(batch.case_ids)
        elif batch.cases is None:
            raise InvalidParameterError(
                f"{parameter}={key!r}: expected cases with metadata, but this result was built "
                f"from columns (a DataFrame, Arrow or a ToolCallBatch), which keep none. Fix: "
                f"pass one label per case, e.g. {parameter}=frame[{key!r}].")
        else:
            labels = [case.metadata.get(key) if isinstance(case, AgentTestCase) else None
                      for case in batch.cases]
        what = f"metadata[{key!r}]"
    else:
        if isinstance(key, (bytes, bytearray)) or not hasattr(key, "__len__"):
            raise InvalidParameterError(
                f"{parameter}: expected a metadata key (a string) or one label per case, got "
                f"{type(key).__name__}.")
        labels = key.tolist() if hasattr(key, "tolist") else list(key)
        if len(labels) != n:
            raise InvalidParameterError(
                f"{parameter}: expected one label per case ({n}), got {len(labels)}.")
        what = "a label"
    lacking = [row for row, label in enumerate(labels) if _missing(label)]
    if lacking:
        shown = ", ".join(map(str, lacking[:5])) + (f" and {len(lacking) - 5} more"
                                                    if len(lacking) > 5 else "")
        unreadable = batch.cases is not None and any(
            not isinstance(batch.cases[row], AgentTestCase) for row in lacking)
        hint = (" (some are lines that could not be read: nothing says which group they "
                "belong to)" if unreadable else "")
        raise InvalidParameterError(
            f"{parameter}: expected {what} for every case; rows {shown} have none{hint}. Fix: "
            f"give every case one, or {instead or f'pass {parameter}= as one label per case'}.")
    for row, label in enumerate(labels):
        try:
            hash(label)
        except TypeError:
            raise InvalidParameterError(
                f"{parameter}: labels must be hashable (task ids, names); row {row} has a "
                f"{type(label).__name__}.") from None
    return labels


def _from_scores(result: EvaluationResult, moments: Sequence[MetricMoments], *,
                 ci: float | None, cluster: str | Sequence[Any] | None, method: str,
                 resamples: int, seed: int) -> Summary:

    if method not in ("clt", "bootstrap"):
        raise InvalidParameterError(f"method: expected 'clt' or 'bootstrap', got {method!r}.")
    kind: Literal["clt", "bootstrap"] = "clt" if method == "clt" else "bootstrap"
    if ci is None:
        if cluster is not None or method != "clt":
            raise InvalidParameterError("cluster and method shape the interval; with ci=None "
                                        "there is none. Fix: give ci=0.95, say.")
    else:
        ci = check_ci(ci)
    if ci is None or (cluster is None and method == "clt"):
        # The one path a merged Aggregate shares: the same numbers, bit for bit.
        return _from_moments(moments, ci)
    labels = None if cluster is None else np.asarray(
        _codes(case_labels(result.batch, cluster, "cluster")))
    rows: list[tuple[Any, ...]] = []
    for stats, scores in zip(moments, result.results.values()):
        scored = ~np.isnan(scores.values)
        mean_bar = mean_interval(
            scores.values[scored], cluster=None if labels is None else labels[scored], ci=ci,
            method=kind, resamples=resamples, seed=seed)
        pass_bar = mean_interval(scores.passed.astype(np.float64), cluster=labels, ci=ci,
                                 method=kind, resamples=resamples, seed=seed)
        rows.append(_row(stats, mean_bar.se, mean_bar.low, mean_bar.high,
                         pass_bar.low, pass_bar.high))
    interval = {"clt": "cluster-robust t",
                "bootstrap": "bootstrap" if labels is None else "cluster bootstrap"}[method]
    groups = None if labels is None else int(labels.max(initial=-1)) + 1
    return Summary(rows, ci=ci, interval=interval, clusters=groups, units=units_of(moments))


def units_of(moments: Sequence[MetricMoments]) -> dict[str, str]:
    """Each metric's unit by label, for the metrics whose values have one."""
    return {stats.label: stats.unit for stats in moments if stats.unit is not None}


def _row(stats: MetricMoments, se: float, mean_low: float, mean_high: float,
         pass_low: float, pass_high: float) -> tuple[Any, ...]:
    """One metric's summary row. Every interval of every summary is bounded
    here: the mean's to the metric's ``value_range`` (the values it can take),
    the pass rate's to [0, 1]."""

    pass_rate = stats.passed / stats.n if stats.n else math.nan
    mean_low, mean_high = clip_to(mean_low, mean_high, stats.value_range, stats.mean)
    return (stats.label, stats.n, stats.mean, se, mean_low, mean_high, stats.std, stats.low,
            stats.high, pass_rate, clip_rate(pass_low), clip_rate(pass_high), stats.passed,
            stats.errors, stats.threshold)


def clip_rate(bound: float) -> float:
    """A pass-rate bound clipped to [0, 1]; NaN (no cases) stays NaN, where
    ``max(0.0, nan)`` would say 0."""
    return bound if math.isnan(bound) else min(1.0, max(0.0, bound))


def _from_moments(moments: Sequence[MetricMoments], ci: float | None) -> Summary:

    rows: list[tuple[Any, ...]] = []
    if ci is None:
        for stats in moments:
            pass_rate = stats.passed / stats.n if stats.n else math.nan
            rows.append((stats.label, stats.n, stats.mean, stats.std, stats.low, stats.high,
                         pass_rate, stats.passed, stats.errors, stats.threshold))
        return Summary(rows, ci=None, units=units_of(moments))
    ci = check_ci(ci)
    for stats in moments:
        mean, m = stats.mean, stats.scored
        if m >= 2:
            se = stats.sd / math.sqrt(m)
            half = t_ppf(0.5 + ci / 2, m - 1) * se
            low, high = mean - half, mean + half
        else:
            se = low = high = math.nan
        pass_bar = proportion_interval(stats.passed, stats.n, ci=ci)
        rows.append(_row(stats, se, low, high, pass_bar.low, pass_bar.high))
    return Summary(rows, ci=ci, units=units_of(moments))


def _codes(labels: list[Any]) -> list[int]:
    codes: dict[Any, int] = {}
    return [codes.setdefault(label, len(codes)) for label in labels]


def _from_clusters(moments: Sequence[MetricMoments], clusters: Sequence[ClusterSums],
                   ci: float) -> Summary:

    ci = check_ci(ci)
    rows: list[tuple[Any, ...]] = []
    groups = 0
    for stats, sums in zip(moments, clusters):
        se, low, high = _cluster_bar(stats.mean, stats.scored, sums.sums, sums.scored, ci)
        rate = stats.passed / stats.n if stats.n else math.nan
        _, pass_low, pass_high = _cluster_bar(rate, stats.n, sums.passed.astype(np.float64),
                                              sums.n, ci)
        groups = int((sums.n > 0).sum())
        rows.append(_row(stats, se, low, high, pass_low, pass_high))
    return Summary(rows, ci=ci, interval="cluster-robust t", clusters=groups,
                   units=units_of(moments))


def _cluster_bar(mean: float, count: int, group_sums: Any, group_sizes: Any,
                 ci: float) -> tuple[float, float, float]:
    """(se, low, high) of a mean over ``count`` cases in groups with these sums and sizes."""

    present = group_sizes > 0
    groups = int(present.sum())
    if count == 0 or groups < 2:
        return math.nan, math.nan, math.nan
    residuals = group_sums[present] - group_sizes[present] * mean
    se = math.sqrt(groups / (groups - 1) * float(np.dot(residuals, residuals))) / count
    half = t_ppf(0.5 + ci / 2, groups - 1) * se
    return se, mean - half, mean + half


# Pickles and reprs name the public path, not this private module.
Summary.__module__ = "agentmetrics"
