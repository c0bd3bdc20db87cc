"""Mergeable partial aggregates of an evaluation.

What ``summary()``, ``per_tool()`` and ``failures()`` need, computed from one
part of the cases and merged with the others: integer counts, exact sums
(:class:`agentmetrics._base._exact.ExactSum`) of the values and of their exact
squares, minima and maxima, per-tool counts by name, and the first failing
rows. The state of a merge depends only on the cases in it (and, for the
failures, on their order), never on how they were split or on the shape of
the merge tree; so a summary merged from partitions is the summary of the
whole, bit for bit, and single-machine :class:`EvaluationResult` builds its
summary and per-tool table with these same classes.

Engines (Dask here; Ray, Spark, multiprocessing anywhere) compute one
:class:`Aggregate` per partition, send it as ``to_json()`` text or a pickle,
and :func:`merge` them in partition order.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import attrs
import numpy as np
import numpy.typing as npt

from agentmetrics._base._arrays import FloatArray
from agentmetrics._base._exact import ExactSum, exact_squares, exact_variance
from agentmetrics._kernels import unique_keys
from agentmetrics.errors import InvalidParameterError
from agentmetrics.corpus._state import CorpusState, states_of
from agentmetrics.results._corpus import aggregates_table
from agentmetrics.results._summary import Summary
from agentmetrics.results._table import Table

if TYPE_CHECKING:  # pragma: no cover
    from agentmetrics.cases._tool_call_batch import ToolCallBatch
    from agentmetrics.model._metric_result import MetricResult
    from agentmetrics.results._results import EvaluationResult

__all__ = ["Aggregate", "ClusterSums", "MetricMoments", "ToolCounts", "merge", "merge_run"]


#: The format of :meth:`Aggregate.to_json`; a reader refuses any other.
FORMAT = "agentmetrics.aggregate/1"

def _check_same(what: str, mine: object, theirs: object, label: str) -> None:
    if mine != theirs and not (isinstance(mine, float) and isinstance(theirs, float)
                               and math.isnan(mine) and math.isnan(theirs)):
        raise InvalidParameterError(
            f"merge: the partial aggregates disagree on {label!r}'s {what} ({mine!r} against "
            f"{theirs!r}); expected parts of one evaluation, scored with the same metrics. "
            f"Fix: merge only the parts of one run.")


@attrs.frozen(slots=True, eq=False)
class MetricMoments:
    """One metric over some cases: counts, the exact sums of the scored values
    and of their squares, their minimum and maximum; and the metric's
    ``value_range``, which the summary clips the mean's interval to, and its
    ``unit``, which the summary's title names."""

    label: str
    name: str
    threshold: float
    higher_is_better: bool
    n: int
    passed: int
    errors: int
    total: ExactSum
    squares: ExactSum
    low: float
    high: float
    value_range: tuple[float, float] = (0.0, 1.0)
    unit: str | None = None

    @classmethod
    def from_result(cls, label: str, result: MetricResult) -> MetricMoments:
        values = result.values
        scored = values[~np.isnan(values)]
        square, error = exact_squares(scored)
        squares = ExactSum().add(square).add(error)
        return cls(
            label=label, name=result.metric.name, threshold=float(result.metric.threshold),
            higher_is_better=bool(result.metric.higher_is_better), n=len(values),
            passed=int(result.passed.sum()), errors=len(result.errors),
            total=ExactSum().add(scored), squares=squares,
            low=float(scored.min()) if len(scored) else math.nan,
            high=float(scored.max()) if len(scored) else math.nan,
            value_range=_value_range(result.metric), unit=type(result.metric).unit,
        )

    @classmethod
    def empty(cls, label: str, metric: Any) -> MetricMoments:
        """The moments of no case yet, for ``metric`` labelled ``label``."""
        return cls(label=label, name=metric.name, threshold=float(metric.threshold),
                   higher_is_better=bool(metric.higher_is_better), n=0, passed=0, errors=0,
                   total=ExactSum(), squares=ExactSum(), low=math.nan, high=math.nan,
                   value_range=_value_range(metric), unit=type(metric).unit)

    def merge(self, other: MetricMoments) -> MetricMoments:
        for what in ("label", "name", "threshold", "higher_is_better", "value_range",
                     "unit"):
            _check_same(what, getattr(self, what), getattr(other, what), self.label)
        total = ExactSum().merge(self.total).merge(other.total)
        squares = ExactSum().merge(self.squares).merge(other.squares)
        lows = [x for x in (self.low, other.low) if not math.isnan(x)]
        highs = [x for x in (self.high, other.high) if not math.isnan(x)]
        return attrs.evolve(
            self, n=self.n + other.n, passed=self.passed + other.passed,
            errors=self.errors + other.errors, total=total, squares=squares,
            low=min(lows) if lows else math.nan, high=max(highs) if highs else math.nan)

    @property
    def scored(self) -> int:
        return self.total.count

    @property
    def mean(self) -> float:
        """The exact mean of the scored values, correctly rounded."""
        return self.total.mean

    def _variance(self, ddof: int) -> float:
        return exact_variance(self.total, self.squares, ddof)

    @property
    def std(self) -> float:
        """The population standard deviation (numpy's ``std()``), from exact moments."""
        return math.sqrt(self._variance(0)) if self.scored else math.nan

    @property
    def sd(self) -> float:
        """The sample standard deviation (``ddof=1``), from exact moments."""
        return math.sqrt(self._variance(1)) if self.scored > 1 else math.nan

    def to_state(self) -> dict[str, Any]:
        return {
            "label": self.label, "name": self.name, "threshold": self.threshold,
            "higher_is_better": self.higher_is_better, "n": self.n, "passed": self.passed,
            "errors": self.errors, "total": self.total.__getstate__(),
            "squares": self.squares.__getstate__(), "low": _float_out(self.low),
            "high": _float_out(self.high),
            # An infinite end as null: the JSON form has no infinity.
            "value_range": [None if math.isinf(bound) else bound for bound in self.value_range],
            "unit": self.unit,
        }

    @classmethod
    def from_state(cls, state: Mapping[str, Any]) -> MetricMoments:
        sums = []
        for key in ("total", "squares"):
            total = ExactSum.__new__(ExactSum)
            total.__setstate__(state[key])
            sums.append(total)
        return cls(
            label=str(state["label"]), name=str(state["name"]),
            threshold=float(state["threshold"]),
            higher_is_better=bool(state["higher_is_better"]), n=int(state["n"]),
            passed=int(state["passed"]), errors=int(state["errors"]), total=sums[0],
            squares=sums[1], low=_float_in(state["low"]), high=_float_in(state["high"]),
            value_range=_value_range_in(state.get("value_range")), unit=_unit_in(state.get("unit")))


def _value_range(metric: Any) -> tuple[float, float]:
    """The metric class's ``value_range``, as floats (the class checked it)."""
    low, high = type(metric).value_range
    return float(low), float(high)


def _value_range_in(state: object) -> tuple[float, float]:
    """A written ``value_range``; none (an aggregate written before metrics
    declared one) is the whole of [0, 1]. A null end is an infinite one."""
    if state is None:
        return 0.0, 1.0
    if (not isinstance(state, list) or len(state) != 2
            or any(isinstance(v, bool) or not isinstance(v, (int, float, type(None))) for v in state)):
        raise ValueError(f"value_range: expected [low, high] (numbers, null for an infinite end), "
                         f"got {state!r}")
    low = -math.inf if state[0] is None else float(state[0])
    high = math.inf if state[1] is None else float(state[1])
    if not low < high:  # False with a NaN
        raise ValueError(f"value_range: expected [low, high] with low < high, got {state!r}")
    return low, high


def _unit_in(state: object) -> str | None:
    """A written ``unit``: a short string, or none (a share or score)."""
    if state is not None and not isinstance(state, str):
        raise ValueError(f"unit: expected a string or null, got {state!r}")
    return state


def _float_out(value: float) -> float | None:
    return None if math.isnan(value) else value


def _float_in(value: object) -> float:
    return math.nan if value is None else float(value)  # type: ignore[arg-type]


def _merge_keyed(keys: Sequence[Any], columns: Sequence[npt.NDArray[Any]],
                 other_keys: Sequence[Any], other_columns: Sequence[npt.NDArray[Any]],
                 ) -> tuple[tuple[Any, ...], list[npt.NDArray[Any]]]:
    """Columns of counts keyed by name (a tool, a cluster), added key by key:
    the keys of ``keys`` first, then the new ones of ``other_keys``."""
    index: dict[Any, int] = {key: i for i, key in enumerate(keys)}
    for key in other_keys:
        index.setdefault(key, len(index))
    where = np.fromiter((index[key] for key in other_keys), dtype=np.intp,
                        count=len(other_keys))
    merged = []
    for mine, theirs in zip(columns, other_columns):
        column = np.zeros(len(index), dtype=mine.dtype)
        column[: len(mine)] = mine
        np.add.at(column, where, theirs)
        merged.append(column)
    return tuple(index), merged


@attrs.frozen(slots=True, eq=False)
class ToolCounts:
    """Per tool name, over the cases with both call lists: in how many cases it
    was expected, called, and both."""

    names: tuple[str, ...]
    expected: npt.NDArray[np.int64]
    called: npt.NDArray[np.int64]
    hits: npt.NDArray[np.int64]

    @classmethod
    def from_batch(cls, batch: ToolCallBatch) -> ToolCounts:

        width = max(len(batch.vocabulary), 1)
        usable = batch.called_given & batch.expected_given
        called_keys = unique_keys(batch.called_ids, batch.called_offsets, width)
        expected_keys = unique_keys(batch.expected_ids, batch.expected_offsets, width)
        called_keys = called_keys[usable[called_keys // width]]
        expected_keys = expected_keys[usable[expected_keys // width]]
        both = np.sort(np.concatenate([called_keys, expected_keys]), kind="stable")
        hit_keys = both[1:][both[1:] == both[:-1]]
        size = len(batch.vocabulary)
        called = np.bincount(called_keys % width, minlength=size).astype(np.int64)
        expected = np.bincount(expected_keys % width, minlength=size).astype(np.int64)
        hits = np.bincount(hit_keys % width, minlength=size).astype(np.int64)
        seen = np.flatnonzero((called > 0) | (expected > 0))
        return cls(tuple(batch.vocabulary[i] for i in seen.tolist()), expected[seen],
                   called[seen], hits[seen])

    def merge(self, other: ToolCounts) -> ToolCounts:
        names, columns = _merge_keyed(self.names, (self.expected, self.called, self.hits),
                                      other.names, (other.expected, other.called, other.hits))
        return ToolCounts(names, *columns)

    def table(self) -> Table:
        rows: list[tuple[Any, ...]] = []
        for name, e, c, h in zip(self.names, self.expected.tolist(), self.called.tolist(),
                                 self.hits.tolist()):
            rows.append((name, e, c, e - h, c - h, h / c if c else math.nan,
                         h / e if e else math.nan))
        rows.sort(key=lambda r: (-r[3], -r[4], r[0]))
        columns = ("tool", "expected", "called", "missed", "unexpected", "precision", "recall")
        return Table(columns, rows, title="Per tool")

    def to_state(self) -> dict[str, Any]:
        return {"names": list(self.names), "expected": self.expected.tolist(),
                "called": self.called.tolist(), "hits": self.hits.tolist()}

    @classmethod
    def from_state(cls, state: Mapping[str, Any]) -> ToolCounts:
        columns = [np.asarray(state[key], dtype=np.int64).reshape(-1)
                   for key in ("expected", "called", "hits")]
        names = tuple(str(name) for name in state["names"])
        if any(len(column) != len(names) for column in columns):
            raise InvalidParameterError("from_json: the per-tool counts have unequal lengths.")
        return cls(names, *columns)


@attrs.frozen(slots=True, eq=False)
class ClusterSums:
    """One metric per cluster (a task): rows, scored rows, the sum of the scores
    and the number passed; what a cluster-robust standard error needs."""

    labels: tuple[Any, ...]
    n: npt.NDArray[np.int64]
    scored: npt.NDArray[np.int64]
    sums: FloatArray
    passed: npt.NDArray[np.int64]

    @classmethod
    def from_result(cls, result: MetricResult, labels: Sequence[Any]) -> ClusterSums:
        codes: dict[Any, int] = {}
        index = np.fromiter((codes.setdefault(label, len(codes)) for label in labels),
                            dtype=np.intp, count=len(labels))
        size = len(codes)
        scored = ~np.isnan(result.values)
        return cls(
            tuple(codes), np.bincount(index, minlength=size).astype(np.int64),
            np.bincount(index[scored], minlength=size).astype(np.int64),
            np.bincount(index[scored], weights=result.values[scored],
                        minlength=size).astype(np.float64),
            np.bincount(index[result.passed], minlength=size).astype(np.int64))

    def merge(self, other: ClusterSums) -> ClusterSums:
        labels, columns = _merge_keyed(
            self.labels, (self.n, self.scored, self.sums, self.passed),
            other.labels, (other.n, other.scored, other.sums, other.passed))
        return ClusterSums(labels, *columns)

    def to_state(self) -> dict[str, Any]:
        return {"labels": list(self.labels), "n": self.n.tolist(),
                "scored": self.scored.tolist(), "sums": self.sums.tolist(),
                "passed": self.passed.tolist()}

    @classmethod
    def from_state(cls, state: Mapping[str, Any]) -> ClusterSums:
        labels = tuple(label if not isinstance(label, list) else tuple(label)
                       for label in state["labels"])
        counts = [np.asarray(state[key], dtype=np.int64).reshape(-1)
                  for key in ("n", "scored", "passed")]
        sums = np.asarray(state["sums"], dtype=np.float64).reshape(-1)
        if any(len(column) != len(labels) for column in (*counts, sums)) or \
                len(set(labels)) != len(labels):
            raise ValueError("the cluster sums do not fit their labels")
        return cls(labels, counts[0], counts[1], sums, counts[2])


#: A kept failure: (row within the aggregate, case id, value, reason).
Failure = tuple[int, Any, float, str]


@attrs.frozen(slots=True, eq=False)
class Aggregate:
    """Everything the summary, per-tool and failures tables need, over some
    cases. ``rows`` cases, ``metrics`` per label, ``tools`` per name, and per
    label the first ``failure_limit`` failing rows (all of them when None),
    numbered from this aggregate's first case."""

    rows: int
    metrics: Mapping[str, MetricMoments]
    tools: ToolCounts
    failing: Mapping[str, tuple[Failure, ...]]
    failure_limit: int | None
    #: Per metric, its sums per cluster, when the cases were given cluster labels.
    clusters: Mapping[str, ClusterSums] | None = None
    #: Per metric that declares corpus-level aggregates, their exact state.
    corpus: Mapping[str, CorpusState] = attrs.field(factory=dict)

    @classmethod
    def from_result(cls, result: EvaluationResult, *, failure_limit: int | None = 100,
                    clusters: Sequence[Any] | None = None) -> Aggregate:
        """The aggregate of one evaluation (a partition's). ``clusters``: one
        label per case (a task id), for cluster-robust intervals."""
        if failure_limit is not None and (isinstance(failure_limit, bool) or
                                          not isinstance(failure_limit, int) or failure_limit < 0):
            raise InvalidParameterError(
                f"failure_limit: expected a whole number of rows, 0 or more, or None, got "
                f"{failure_limit!r}.")
        metrics = {label: MetricMoments.from_result(label, scores)
                   for label, scores in result.results.items()}
        failing: dict[str, tuple[Failure, ...]] = {}
        for label, scores in result.results.items():
            rows = np.flatnonzero(~scores.passed)[:failure_limit].tolist()
            failing[label] = tuple(
                (row, _plain(result.batch.case_id(row)), float(scores.values[row]),
                 scores.reason(row)) for row in rows)
        sums = None
        if clusters is not None:
            if len(clusters) != len(result):
                raise InvalidParameterError(
                    f"clusters: expected one label per case ({len(result)}), got {len(clusters)}.")
            sums = {label: ClusterSums.from_result(scores, clusters)
                    for label, scores in result.results.items()}
        return cls(len(result), metrics, ToolCounts.from_batch(result.batch), failing,
                   failure_limit, sums, states_of(list(result.results), result.results))

    def merge(self, other: Aggregate) -> Aggregate:
        """This aggregate followed by ``other`` (their cases in that order)."""
        if not isinstance(other, Aggregate):
            raise InvalidParameterError(
                f"merge: expected Aggregate objects, got {type(other).__name__}.")
        if tuple(self.metrics) != tuple(other.metrics):
            raise InvalidParameterError(
                f"merge: one part scored the metrics {list(self.metrics)}, another "
                f"{list(other.metrics)}; expected parts of one evaluation. Fix: merge only "
                f"the parts of one run.")
        limits = [x for x in (self.failure_limit, other.failure_limit) if x is not None]
        limit = min(limits) if limits else None
        failing = {}
        for label in self.metrics:
            shifted = tuple((row + self.rows, *rest) for row, *rest in other.failing[label])
            failing[label] = (self.failing[label] + shifted)[:limit]
        if (self.clusters is None) != (other.clusters is None):
            raise InvalidParameterError(
                "merge: one part has cluster labels and another has none; expected parts of "
                "one evaluation. Fix: give every part its clusters, or none.")
        clusters = None if self.clusters is None or other.clusters is None else {
            label: self.clusters[label].merge(other.clusters[label]) for label in self.metrics}
        if set(self.corpus) != set(other.corpus):
            raise InvalidParameterError(
                f"merge: one part has corpus aggregates for {sorted(self.corpus)}, another for "
                f"{sorted(other.corpus)}; expected parts of one evaluation.")
        return Aggregate(
            self.rows + other.rows,
            {label: self.metrics[label].merge(other.metrics[label]) for label in self.metrics},
            self.tools.merge(other.tools), failing, limit, clusters,
            {label: state.merge(other.corpus[label]) for label, state in self.corpus.items()})

    # -- tables ------------------------------------------------------------------

    def summary(self, ci: float | None = 0.95, *, clustered: bool = False) -> Summary:
        """The summary table, exactly as :meth:`EvaluationResult.summary` gives it
        with ``method="clt"``; ``clustered=True``: with cluster-robust intervals,
        as ``summary(cluster=...)`` gives them (to rounding: the sums per
        cluster are not exact), from the cluster labels the aggregate was built
        with."""

        if not clustered:
            return Summary.from_moments(list(self.metrics.values()), ci)
        if self.clusters is None:
            raise InvalidParameterError(
                "summary: this aggregate has no cluster labels. Fix: build it with clusters= "
                "(agentmetrics.dask.evaluate(..., cluster='task_id')).")
        if ci is None:
            raise InvalidParameterError("clustered shapes the interval; with ci=None there is "
                                        "none. Fix: give ci=0.95, say.")
        return Summary.from_clusters(list(self.metrics.values()),
                                     [self.clusters[label] for label in self.metrics], ci)

    def aggregates(self, ci: float | None = 0.95) -> Table:
        """The corpus-level aggregates, exactly as :meth:`EvaluationResult.aggregates`
        gives them over the same cases, however they were split."""
        return aggregates_table(self.corpus.values(), ci)

    def per_tool(self) -> Table:
        """The per-tool table, exactly as :meth:`EvaluationResult.per_tool`."""
        return self.tools.table()

    def failures(self, metric: str | None = None, *, limit: int | None = None) -> Table:
        """The first ``limit`` failing rows (errors included), in case order, as
        :meth:`EvaluationResult.failures` lists them. An aggregate keeps the first
        ``failure_limit`` per metric; asking for more than it kept is an error."""
        labels = list(self.metrics) if metric is None else [metric]
        if metric is not None and metric not in self.metrics:
            raise KeyError(f"no metric {metric!r} in this result; it has {list(self.metrics)}")
        if self.failure_limit is not None:
            short = [label for label in labels
                     if len(self.failing[label]) == self.failure_limit
                     and self._failing_count(label) > self.failure_limit]
            if short and (limit is None or limit > self.failure_limit):
                raise InvalidParameterError(
                    f"failures: {short[0]!r} has {self._failing_count(short[0]):,} failing "
                    f"cases and the first {self.failure_limit:,} were kept; expected limit <= "
                    f"{self.failure_limit}, got {limit}. Fix: evaluate with failure_limit= as "
                    f"large as you need, or filter the per-case rows "
                    f"(to_dask_dataframe()) for all of them.")
        rows: list[tuple[Any, ...]] = []
        for label in labels:
            threshold = self.metrics[label].threshold
            rows.extend((row, case_id, label, value, threshold, reason)
                        for row, case_id, value, reason in self.failing[label][:limit])
        order = {label: i for i, label in enumerate(self.metrics)}
        rows.sort(key=lambda r: (r[0], order[r[2]]))
        if limit is not None:
            rows = rows[:limit]
        return Table(("case", "id", "metric", "value", "threshold", "reason"), rows,
                     title="Failures")

    def _failing_count(self, label: str) -> int:
        moments = self.metrics[label]
        return moments.n - moments.passed

    # -- transport -----------------------------------------------------------------

    def _check(self) -> None:
        """Raise ValueError where the parts of a read aggregate do not fit together."""
        if not self.metrics:
            raise ValueError("no metric")
        if self.rows < 0 or (self.failure_limit is not None and self.failure_limit < 0):
            raise ValueError("a negative count")
        if set(self.failing) != set(self.metrics):
            raise ValueError("the failing rows are not those of the metrics")
        for label, moments in self.metrics.items():
            if moments.n != self.rows or not 0 <= moments.passed <= moments.n or not (
                    0 <= moments.errors <= moments.n) or moments.scored > moments.n:
                raise ValueError(f"{label!r}'s counts do not fit {self.rows} rows")
            kept = self.failing[label]
            if self.failure_limit is not None and len(kept) > self.failure_limit:
                raise ValueError(f"{label!r} keeps more failing rows than its limit")
            if any(not 0 <= row < self.rows for row, *_ in kept):
                raise ValueError(f"{label!r} has a failing row out of range")
        if any(column.min(initial=0) < 0 for column in
               (self.tools.expected, self.tools.called, self.tools.hits)):
            raise ValueError("a negative tool count")
        for label, corpus in self.corpus.items():
            if label not in self.metrics or corpus.scored != self.metrics[label].scored:
                raise ValueError(f"{label!r}'s corpus aggregates do not fit its counts")
        if self.clusters is not None:
            if set(self.clusters) != set(self.metrics):
                raise ValueError("the cluster sums are not those of the metrics")
            for label, sums in self.clusters.items():
                moments = self.metrics[label]
                if (int(sums.n.sum()), int(sums.scored.sum()), int(sums.passed.sum())) != (
                        moments.n, moments.scored, moments.passed) or (
                        sums.n.min(initial=0) < 0 or sums.scored.min(initial=0) < 0 or
                        sums.passed.min(initial=0) < 0):
                    raise ValueError(f"{label!r}'s cluster counts do not add up")


    def to_json(self) -> str:
        """The aggregate as JSON text (exact: floats are written as their
        shortest round-tripping repr), for engines that move bytes or strings."""
        state = {
            "format": FORMAT, "rows": self.rows, "failure_limit": self.failure_limit,
            "metrics": [moments.to_state() for moments in self.metrics.values()],
            "tools": self.tools.to_state(),
            "failing": {label: [[row, case_id, _float_out(value), reason]
                                for row, case_id, value, reason in kept]
                        for label, kept in self.failing.items()},
            "clusters": None if self.clusters is None else {
                label: sums.to_state() for label, sums in self.clusters.items()},
            "corpus": {label: state.to_state() for label, state in self.corpus.items()},
        }
        return json.dumps(state, separators=(",", ":"), allow_nan=False)

    @classmethod
    def from_json(cls, text: str | bytes) -> Aggregate:
        """Read what :meth:`to_json` wrote."""
        try:
            state = json.loads(text)
            if not isinstance(state, dict) or state.get("format") != FORMAT:
                raise ValueError(f"expected an object with format {FORMAT!r}")
            metrics = {}
            for item in state["metrics"]:
                moments = MetricMoments.from_state(item)
                metrics[moments.label] = moments
            failing = {str(label): tuple((int(row), case_id, _float_in(value), str(reason))
                                         for row, case_id, value, reason in kept)
                       for label, kept in state["failing"].items()}
            limit = state["failure_limit"]
            clusters = state.get("clusters")
            read = cls(int(state["rows"]), metrics, ToolCounts.from_state(state["tools"]),
                       failing, None if limit is None else int(limit),
                       None if clusters is None else {
                           str(label): ClusterSums.from_state(sums)
                           for label, sums in clusters.items()},
                       {str(label): CorpusState.from_state(saved)
                        for label, saved in (state.get("corpus") or {}).items()})
            read._check()
            return read
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            raise InvalidParameterError(
                f"Aggregate.from_json: expected the text Aggregate.to_json wrote, but it "
                f"could not be read ({type(error).__name__}: {error}).") from None


def _plain(case_id: Any) -> Any:
    """A case id as JSON can carry it: numpy scalars become Python ones."""
    if isinstance(case_id, np.generic):
        return case_id.item()
    return case_id


def merge(aggregates: Iterable[Aggregate], *, split_every: int = 8) -> Aggregate:
    """Merge partial aggregates given in partition order, as a tree (``split_every``
    at a time): the same result as merging them one by one."""
    level = list(aggregates)
    if not level:
        raise InvalidParameterError("merge: expected at least one Aggregate, got none.")
    if split_every < 2:
        raise InvalidParameterError(f"split_every: expected at least 2, got {split_every}.")
    while len(level) > 1:
        level = [merge_run(level[i:i + split_every]) for i in range(0, len(level), split_every)]
    return level[0]


def merge_run(run: Sequence[Aggregate]) -> Aggregate:
    total = run[0]
    for part in run[1:]:
        total = total.merge(part)
    return total
