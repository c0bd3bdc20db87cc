"""Results of batch evaluation: arrays per metric, tables to read, exports, plots."""

from __future__ import annotations

import bisect
import html
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, overload

import attrs
import numpy as np
import numpy.typing as npt

from agentmetrics._optional import require
from agentmetrics._tool_call_batch import ToolCallBatch
from agentmetrics._model import EvalScore
from agentmetrics._table import Table
from agentmetrics._types import ErrorsMode, check_errors_mode
from agentmetrics.errors import (
    CaseEvaluationError,
    InvalidCaseError,
    InvalidParameterError,
    InvalidMetricError,
    MetricServiceError,
    MissingFieldError,
)

if TYPE_CHECKING:  # pragma: no cover
    from agentmetrics._metric import Metric
    from agentmetrics._repeated import Trials

__all__ = [
    "CASE_ERRORS",
    "EvaluationResult",
    "MetricResult",
    "Reasons",
    "batch_errors",
    "check_result",
    "describe_error",
    "loop_evaluate",
    "metric_failure",
]

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]


class Reasons(Sequence[str]):
    """Each case's reason, computed when asked for, not stored."""

    __slots__ = ("_result",)

    def __init__(self, result: MetricResult) -> None:
        self._result = result

    def __len__(self) -> int:
        return len(self._result)

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> list[str]: ...

    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):
            return [self._result.reason(i) for i in range(*index.indices(len(self)))]
        return self._result.reason(index)

    def __iter__(self) -> Iterator[str]:
        return (self._result.reason(i) for i in range(len(self)))


@attrs.frozen(slots=True, eq=False, repr=False)
class MetricResult:
    """One metric over a batch: ``values`` (float64, NaN where the case could
    not be scored), ``passed`` (bool) and ``errors`` (case position -> message).
    Reasons are computed per case on request (:meth:`reason`, :attr:`reasons`).
    """

    metric: Metric
    values: FloatArray
    passed: BoolArray
    errors: Mapping[int, str]
    explain: Callable[[int], str]

    def __attrs_post_init__(self) -> None:
        if self.values.shape != self.passed.shape or self.values.ndim != 1:
            raise InvalidMetricError(
                f"{type(self.metric).__qualname__}.evaluate_batch returned values of shape "
                f"{self.values.shape} and passed of shape {self.passed.shape}; expected "
                f"two 1-D arrays with one entry per case."
            )

    def __len__(self) -> int:
        return len(self.values)

    def __repr__(self) -> str:
        return f"MetricResult({self.metric!r}, {len(self)} cases, {len(self.errors)} errors)"

    def __reduce__(self) -> tuple[Any, ...]:
        # ``explain`` is often a closure over the batch: pickle the reasons
        # themselves instead, so a worker process can send a result back.
        # A list's own __getitem__: the pickle names no private class.
        return (MetricResult, (self.metric, self.values, self.passed, dict(self.errors),
                               self.reason_list().__getitem__))

    def reason(self, index: int) -> str:
        """Why case ``index`` scored as it did (its error message, if any)."""
        if not -len(self) <= index < len(self):
            raise IndexError(f"case {index} is out of range for {len(self)} cases")
        index %= len(self)
        message = self.errors.get(index)
        return message if message is not None else self.explain(index)

    def reason_list(self) -> list[str]:
        """Every case's reason (its error message, if any), in order: one call
        for all, which a metric can make much faster than one call a case."""
        many = getattr(self.explain, "many", None)
        reasons = many(len(self)) if many is not None else [
            self.explain(row) if row not in self.errors else "" for row in range(len(self))]
        for row, message in self.errors.items():
            reasons[row] = message
        return reasons

    @property
    def reasons(self) -> Reasons:
        return Reasons(self)

    @property
    def error_mask(self) -> BoolArray:
        mask = np.zeros(len(self), dtype=bool)
        mask[list(self.errors)] = True
        return mask

    def score(self, index: int) -> EvalScore:
        """Case ``index`` as the EvalScore that ``metric.evaluate`` returns."""
        if index in self.errors:
            raise CaseEvaluationError(index, None, self.metric.name, self.errors[index])
        return EvalScore(
            float(self.values[index]),
            bool(self.passed[index]),
            self.reason(index),
            self.metric.name,
            self.metric.threshold,
        )

    @classmethod
    def concat(cls, parts: Sequence[MetricResult]) -> MetricResult:
        """Join results of consecutive slices of one batch."""
        if len(parts) == 1:
            return parts[0]
        starts = np.cumsum([0] + [len(part) for part in parts]).tolist()
        errors = {
            start + row: message
            for start, part in zip(starts, parts)
            for row, message in part.errors.items()
        }

        def explain(index: int) -> str:
            part = bisect.bisect_right(starts, index) - 1
            return parts[part].explain(index - starts[part])

        return cls(
            metric=parts[0].metric,
            values=np.concatenate([part.values for part in parts]),
            passed=np.concatenate([part.passed for part in parts]),
            errors=errors,
            explain=explain,
        )


class _StoredReasons:
    """Reasons computed once, by position: picklable, unlike a closure."""

    __slots__ = ("reasons",)

    def __init__(self, reasons: list[str]) -> None:
        self.reasons = reasons

    def __call__(self, index: int) -> str:
        return self.reasons[index]

    def __reduce__(self) -> tuple[Any, ...]:
        return (_StoredReasons, (self.reasons,))


class _CheckedReasons:
    """A metric's lazy reasons, each checked when it is first asked for."""

    __slots__ = ("explain", "metric")

    def __init__(self, metric: Metric, explain: Callable[[int], str]) -> None:
        self.metric = metric
        self.explain = explain

    def __call__(self, index: int) -> str:
        reason = self.explain(index)
        if not isinstance(reason, str) or not reason:
            self._bad(index, reason)
        return reason

    def _bad(self, index: int, reason: object) -> None:
        from agentmetrics.errors import metric_bug

        raise metric_bug(self.metric, f"evaluate_batch gave case {index} the reason "
                                      f"{reason!r}; expected a non-empty str")

    def many(self, rows: int) -> list[str]:
        """The reasons of rows ``0 .. rows - 1``, through the metric's own bulk
        call when it has one, each checked. (Error rows: any text; the result
        puts their message in place.)"""
        many = getattr(self.explain, "many", None)
        if many is None:
            return [self(row) for row in range(rows)]
        reasons: list[str] = many(rows)
        if len(reasons) != rows:
            self._bad(min(len(reasons), rows), "<missing>")
        for row, reason in enumerate(reasons):
            if type(reason) is not str or not reason:
                self._bad(row, reason)
        return reasons


def check_result(metric: Metric, batch: ToolCallBatch, result: object) -> MetricResult:
    """Every MetricResult a metric's evaluate_batch returns, checked exactly as
    :func:`agentmetrics._metric.check_score` checks one EvalScore: one entry per
    case; float64 values in [0, 1], NaN exactly on the rows with an error;
    ``passed`` agreeing with the threshold, never on an error row; every row
    the batch could not read reported as an error; a non-empty message per
    error and a non-empty reason per case (checked as reasons are asked for).
    Raises InvalidMetricError naming the metric and the first broken row."""
    from agentmetrics.errors import metric_bug

    if not isinstance(result, MetricResult):
        raise metric_bug(metric, f"evaluate_batch returned {type(result).__name__}; expected "
                                 f"a MetricResult")
    if isinstance(result.explain, _CheckedReasons):
        return result  # checked already (a result passed through again)
    n = len(batch)
    values, passed = result.values, result.passed
    if not isinstance(values, np.ndarray) or values.dtype != np.float64 or values.shape != (n,):
        raise metric_bug(metric, f"evaluate_batch returned values {_shape(values)}; expected "
                                 f"float64 of shape ({n},)")
    if not isinstance(passed, np.ndarray) or passed.dtype != np.bool_ or passed.shape != (n,):
        raise metric_bug(metric, f"evaluate_batch returned passed {_shape(passed)}; expected "
                                 f"bool of shape ({n},)")
    for row, message in result.errors.items():
        if not isinstance(row, (int, np.integer)) or not 0 <= row < n:
            raise metric_bug(metric, f"evaluate_batch reported an error for row {row!r} of "
                                     f"{n}")
        if not isinstance(message, str) or not message:
            raise metric_bug(metric, f"evaluate_batch gave row {row} the error message "
                                     f"{message!r}; expected a non-empty str")
    unread = [row for row in batch.invalid if row not in result.errors]
    if unread:
        raise metric_bug(metric, f"evaluate_batch scored row {unread[0]}, which could not be "
                                 f"read ({batch.invalid[unread[0]]})")
    if not result.errors and n and _all_scored_and_consistent(metric, values, passed):
        checked = attrs.evolve(result, explain=_CheckedReasons(metric, result.explain))
        checked.reason(0)  # a first look, so a metric without reasons fails at once
        checked.reason(n - 1)
        return checked
    failed = np.zeros(n, dtype=bool)
    failed[list(result.errors)] = True
    nan = np.isnan(values)
    wrong = np.flatnonzero(nan != failed)
    if len(wrong):
        row = int(wrong[0])
        what = ("NaN without an error" if nan[row]
                else f"{float(values[row])!r} with the error {result.errors[row]!r}")
        raise metric_bug(metric, f"evaluate_batch gave row {row} the value {what}; expected "
                                 f"NaN exactly on the rows with an error")
    scored = ~failed
    outside = np.flatnonzero(scored & ((values < 0.0) | (values > 1.0)))
    if len(outside):
        row = int(outside[0])
        raise metric_bug(metric, f"evaluate_batch gave row {row} the value "
                                 f"{float(values[row])!r}; expected a value in [0, 1]")
    disagree = np.flatnonzero(np.where(scored, passed != passes(metric, values), passed))
    if len(disagree):
        row = int(disagree[0])
        raise metric_bug(metric, f"evaluate_batch gave row {row} passed={bool(passed[row])} "
                                 f"for value {float(values[row])!r}, threshold {metric.threshold!r}"
                                 f"{' and an error' if failed[row] else ''}")
    checked = attrs.evolve(result, explain=_CheckedReasons(metric, result.explain))
    for row in np.flatnonzero(scored)[:1].tolist() + np.flatnonzero(scored)[-1:].tolist():
        checked.reason(row)  # a first look, so a metric without reasons fails at once
    return checked


def _all_scored_and_consistent(metric: Metric, values: FloatArray, passed: BoolArray) -> bool:
    """The common case in four passes: no NaN, every value in [0, 1], every
    passed flag right. False sends the caller to the row-by-row checks, which
    name the first broken row."""
    low, high = values.min(), values.max()  # NaN makes both NaN: not in range
    if not (low >= 0.0 and high <= 1.0):
        return False
    return bool(np.array_equal(passed, passes(metric, values)))


def _shape(value: object) -> str:
    if isinstance(value, np.ndarray):
        return f"of dtype {value.dtype} and shape {value.shape}"
    return f"of type {type(value).__name__}"


def passes(metric: Metric, values: FloatArray) -> BoolArray:
    """The vectorized ``metric.passes``; NaN never passes."""
    if metric.higher_is_better:
        return values >= metric.threshold
    return values <= metric.threshold


def batch_errors(metric: Metric, batch: ToolCallBatch, errors: str) -> dict[int, str]:
    """Unreadable rows and rows missing a required call list, as messages.

    With ``errors="raise"`` the first one is raised as CaseEvaluationError
    (chaining MissingFieldError where a field is missing). ``errors`` is a
    plain str here, checked, as a metric author's ``evaluate_batch`` passes it on.
    """

    errors = check_errors_mode(errors)
    found: dict[int, str] = dict(batch.invalid)
    given = {"tool_calls": batch.called_given, "expected_tool_calls": batch.expected_given}
    missing_rows: dict[int, MissingFieldError] = {}
    for field in reversed(metric.required_fields):  # the first field named wins
        if field in given:
            for row in np.flatnonzero(~given[field]).tolist():
                if row not in batch.invalid:
                    missing_rows[row] = MissingFieldError(metric.name, field)
    for row, error in missing_rows.items():
        found[row] = str(error)
    if found and errors == "raise":
        row = min(found)
        raise CaseEvaluationError(
            row, batch.case_id(row), metric.name, found[row]
        ) from missing_rows.get(row)
    return dict(sorted(found.items()))


#: What a case can be refused for; any other exception from a metric is the metric's bug.
CASE_ERRORS = (InvalidCaseError, MissingFieldError, CaseEvaluationError)


def describe_error(error: BaseException) -> str:
    """An exception as a row's error message: never empty (a bare ``assert``
    has no message), and naming the type of anything but a case error."""
    text = str(error)
    if isinstance(error, CASE_ERRORS):
        return text or type(error).__name__
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def metric_failure(metric: Metric, error: BaseException) -> str:
    """The error message of a row a metric could not score because of its own bug."""
    if isinstance(error, InvalidMetricError) and str(error).startswith("metric bug in "):
        return str(error)
    return (f"metric bug in {type(metric).__name__}: {describe_error(error)}. "
            f"Report it to the metric's author.")


def note_metric_bug(error: BaseException, metric: Metric, batch: ToolCallBatch,
                    offset: int = 0) -> None:
    """Tell, on the exception itself, whose bug it is and which case it met
    (Python 3.11+ shows notes under the traceback). ``offset`` is the batch's
    first row in the whole evaluation."""
    add_note = getattr(error, "add_note", None)
    if add_note is None or getattr(error, "_agentmetrics_noted", False) or (
            isinstance(error, InvalidMetricError) and str(error).startswith("metric bug in ")):
        return  # the message says it already
    if isinstance(error, MetricServiceError):  # a service failed: not the metric's bug
        add_note(f"agentmetrics: {metric.name} could not score {_where(error, batch, offset)}; "
                 f"errors='record' scores the rest.")
        error._agentmetrics_noted = True  # type: ignore[attr-defined]
        return
    add_note(f"agentmetrics: metric bug in {type(metric).__name__} while scoring "
             f"{_where(error, batch, offset)}; the case is not at fault. errors='record' "
             f"scores the rest.")
    error._agentmetrics_noted = True  # type: ignore[attr-defined]


def _where(error: BaseException, batch: ToolCallBatch, offset: int) -> str:
    row = getattr(error, "_agentmetrics_row", None)
    if row is None:
        return f"cases {offset} to {offset + len(batch) - 1}"
    case_id = batch.case_id(row)
    return f"case {offset + row}" + ("" if case_id is None else f" (id {case_id!r})")


def loop_evaluate(metric: Metric, batch: ToolCallBatch, errors: ErrorsMode) -> MetricResult:
    """The generic evaluate_batch: ``metric.evaluate`` on every case in turn.

    A case error (missing field, invalid case) is the case's; any other
    exception is a bug in the metric: with ``errors="raise"`` it propagates
    with its own type (and a note saying so), with ``"record"`` the row keeps
    a message that names the metric and the exception type."""
    n = len(batch)
    values = np.full(n, np.nan)
    passed = np.zeros(n, dtype=bool)
    reasons: list[str] = [""] * n
    failed: dict[int, str] = {}
    for row in range(n):
        if row in batch.invalid:
            message = batch.invalid[row]
            if errors == "raise":
                raise CaseEvaluationError(row, batch.case_id(row), metric.name, message)
            failed[row] = message
            continue
        try:
            score = metric.evaluate(batch.case(row))
        except CASE_ERRORS as error:
            if errors == "raise":
                raise CaseEvaluationError(
                    row, batch.case_id(row), metric.name, describe_error(error)
                ) from error
            failed[row] = describe_error(error)
            continue
        except MetricServiceError as error:  # a service the metric calls failed
            if errors == "raise":
                error._agentmetrics_row = row  # type: ignore[attr-defined]
                raise
            failed[row] = f"{metric.name}: {describe_error(error)}"
            continue
        except Exception as error:
            if errors == "raise":
                error._agentmetrics_row = row  # type: ignore[attr-defined]
                raise
            failed[row] = metric_failure(metric, error)
            continue
        values[row] = score.value
        passed[row] = score.passed
        reasons[row] = score.reason
    return MetricResult(metric, values, passed, failed, _StoredReasons(reasons))


class EvaluationResult:
    """Every metric's result over one batch.

    ``result[label]`` is a MetricResult; labels are the metrics' registry
    names (with their non-default parameters where two share a name).
    ``sources[label]`` says where each metric's class comes from.
    """

    __slots__ = ("batch", "cache_stats", "results", "sources")

    def __init__(
        self,
        batch: ToolCallBatch,
        results: Mapping[str, MetricResult],
        sources: Mapping[str, str] | None = None,
        cache_stats: Mapping[str, Any] | None = None,
    ) -> None:
        self.batch = batch
        self.results = dict(results)
        #: Per metric label, where its class comes from: a distribution and
        #: version, or a registration in this process (and what it shadows).
        self.sources = dict(sources or {})
        #: Per metric scored with a cache: CacheStats(hits, misses).
        self.cache_stats = dict(cache_stats or {})

    @classmethod
    def concat(cls, parts: Sequence[EvaluationResult]) -> EvaluationResult:
        """The results of consecutive parts of one evaluation (the same metrics,
        in the same order) as one result, their cases one after another."""
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
        return cls(batch, results, parts[0].sources)

    # -- access ------------------------------------------------------------------

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
    ) -> Table:
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
        intervals out.
        """
        from agentmetrics._aggregate import MetricMoments
        from agentmetrics._summary import summary_table

        moments = [MetricMoments.from_result(label, scores)
                   for label, scores in self.results.items()]
        return summary_table(self, moments, ci=ci, cluster=cluster, method=method,
                             resamples=resamples, seed=seed)

    def trials(self, by: str | Sequence[Any] = "task_id", metric: str | None = None) -> Trials:
        """Repeated trials: the cases grouped by task (``by``: a metadata key,
        or one task label per case), with pass@k and pass^k for ``metric``
        (needed when there are several). A case that could not be scored
        counts as a failed trial."""
        from agentmetrics._repeated import Trials

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
        from agentmetrics._aggregate import ToolCounts

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
        return head + "\n" + self._brief().render()

    def _brief(self) -> Table:
        """The summary's main columns: what a glance needs."""
        return self.summary().select("metric", "n", "mean", "mean_low", "mean_high", "pass_rate",
                                     "pass_low", "pass_high", "errors", "threshold")

    def _repr_html_(self) -> str:
        head = html.escape(f"EvaluationResult: {len(self)} cases")
        failed = sum(int((~r.passed).sum()) for r in self.results.values())
        tail = html.escape(f"{failed} failing case-metric pairs; see .failures() and .per_tool()")
        return f"<p><b>{head}</b></p>{self._brief()._repr_html_()}<p>{tail}</p>"


# Pickles and reprs name the public path, not this private module.
for _public in (MetricResult, EvaluationResult):
    _public.__module__ = "agentmetrics"
del _public
