"""What a metric returns for a batch (MetricResult) and the one validator
every result passes through, scalar or batch (check_result, loop_evaluate).

Below the metric contract: ``Metric.evaluate`` and the default
``Metric.evaluate_batch`` use this module; it knows a metric only through the
methods it calls.
"""

from __future__ import annotations

import bisect
import functools
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, overload

import attrs
import numpy as np

from agentmetrics._base._arrays import BoolArray, FloatArray
from agentmetrics._base._display import range_text
from agentmetrics._base._types import ErrorsMode, check_errors_mode
from agentmetrics._columnar import paused_gc
from agentmetrics._secrets import scrub_reason
from agentmetrics.errors import (
    CaseEvaluationError,
    InvalidCaseError,
    InvalidMetricError,
    MetricServiceError,
    MissingFieldError,
    NestedTooDeepError,
    UserFunctionError,
    metric_bug,
)
from agentmetrics.model._model import AgentTestCase, EvalScore

if TYPE_CHECKING:  # pragma: no cover
    from agentmetrics.cases._tool_call_batch import ToolCallBatch
    from agentmetrics.metric._inputs import Input
    from agentmetrics.metric._metric import Metric

__all__ = [
    "CASE_ERRORS", "MetricResult", "Reasons", "StoredReasons", "batch_errors", "case_values",
    "check_result", "describe_error", "loop_evaluate", "metric_failure", "note_metric_bug",
    "out_of_range", "passes",
]


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
    ``statistics``: for a metric that declares them, each per-case statistic
    of its corpus-level aggregates as a float64 column (ignored on error rows).
    """

    metric: Metric
    values: FloatArray
    passed: BoolArray
    errors: Mapping[int, str]
    explain: Callable[[int], str]
    statistics: Mapping[str, FloatArray] = attrs.field(factory=dict, kw_only=True)

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
        if not self.statistics:
            return (MetricResult, (self.metric, self.values, self.passed, dict(self.errors),
                                   self.reason_list().__getitem__))
        return (functools.partial(MetricResult, statistics=dict(self.statistics)),
                (self.metric, self.values, self.passed, dict(self.errors),
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

        names = parts[0].statistics.keys()
        return cls(
            metric=parts[0].metric,
            values=np.concatenate([part.values for part in parts]),
            passed=np.concatenate([part.passed for part in parts]),
            errors=errors,
            explain=explain,
            statistics={name: np.concatenate([part.statistics[name] for part in parts])
                        for name in names},
        )


class StoredReasons:
    """Reasons computed once, by position: picklable, unlike a closure."""

    __slots__ = ("reasons",)

    def __init__(self, reasons: list[str]) -> None:
        self.reasons = reasons

    def __call__(self, index: int) -> str:
        return self.reasons[index]

    def __reduce__(self) -> tuple[Any, ...]:
        return (StoredReasons, (self.reasons,))


class _CheckedReasons:
    """A metric's lazy reasons, each checked when it is first asked for, and
    scrubbed of the metric's secrets as its errors are."""

    __slots__ = ("errors", "explain", "metric")

    def __init__(self, metric: Metric, explain: Callable[[int], str],
                 errors: Mapping[int, str]) -> None:
        self.metric = metric
        self.explain = explain
        self.errors = errors  # rows whose reason is their error: never asked of the metric

    def __call__(self, index: int) -> str:
        reason = self.explain(index)
        if not isinstance(reason, str) or not reason:
            self._bad(index, reason)
        return scrub_reason(self.metric, reason)

    def _bad(self, index: int, reason: object) -> None:

        raise metric_bug(self.metric, f"evaluate_batch gave case {index} the reason "
                                      f"{reason!r}; expected a non-empty str")

    def many(self, rows: int) -> list[str]:
        """The reasons of rows ``0 .. rows - 1``, through the metric's own bulk
        call when it has one, each checked. (Error rows: any text; the result
        puts their message in place.)"""
        many = getattr(self.explain, "many", None)
        if many is None:
            return [self(row) if row not in self.errors else "" for row in range(rows)]
        reasons: list[str] = many(rows)
        if len(reasons) != rows:
            self._bad(min(len(reasons), rows), "<missing>")
        for row, reason in enumerate(reasons):
            if (type(reason) is not str or not reason) and row not in self.errors:
                self._bad(row, reason)
        metric = self.metric
        return [reason if row in self.errors else scrub_reason(metric, reason)
                for row, reason in enumerate(reasons)]


def check_result(metric: Metric, batch: ToolCallBatch, result: object) -> MetricResult:
    """Every MetricResult a metric's evaluate_batch returns, checked exactly as
    :func:`agentmetrics.metric._metric.check_score` checks one EvalScore: one entry per
    case; float64 values in the metric's value_range, NaN exactly on the rows with an error;
    ``passed`` agreeing with the threshold, never on an error row; every row
    the batch could not read reported as an error; a non-empty message per
    error and a non-empty reason per case (checked as reasons are asked for).
    Raises InvalidMetricError naming the metric and the first broken row."""

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
    declared = type(metric).statistics
    if declared or result.statistics:
        _check_statistic_columns(metric, result, n)
    unread = [row for row in batch.invalid if row not in result.errors]
    if unread:
        raise metric_bug(metric, f"evaluate_batch scored row {unread[0]}, which could not be "
                                 f"read ({batch.invalid[unread[0]]})")
    if not result.errors and n and _all_scored_and_consistent(metric, values, passed):
        checked = attrs.evolve(result, explain=_CheckedReasons(metric, result.explain, result.errors))
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
    floor, ceiling = type(metric).value_range
    outside = out_of_range(values, (floor, ceiling))  # NaN: on the error rows alone (above)
    if outside is not None:
        raise metric_bug(metric, f"evaluate_batch gave row {outside} the value "
                                 f"{float(values[outside])!r}; expected a value in "
                                 f"{range_text((floor, ceiling))} (the metric's value_range)")
    disagree = np.flatnonzero(np.where(scored, passed != passes(metric, values), passed))
    if len(disagree):
        row = int(disagree[0])
        raise metric_bug(metric, f"evaluate_batch gave row {row} passed={bool(passed[row])} "
                                 f"for value {float(values[row])!r}, threshold {metric.threshold!r}"
                                 f"{' and an error' if failed[row] else ''}")
    checked = attrs.evolve(result, explain=_CheckedReasons(metric, result.explain, result.errors))
    for row in np.flatnonzero(scored)[:1].tolist() + np.flatnonzero(scored)[-1:].tolist():
        checked.reason(row)  # a first look, so a metric without reasons fails at once
    return checked


def _check_statistic_columns(metric: Metric, result: MetricResult, n: int) -> None:
    """The statistics of a batch: exactly the declared names, each a float64
    column of one entry per case, finite on every scored row."""
    declared = type(metric).statistics
    given = result.statistics
    if not isinstance(given, Mapping) or set(given) != set(declared):
        raise metric_bug(metric, f"evaluate_batch returned statistics for "
                                 f"{sorted(given) if isinstance(given, Mapping) else given!r}; "
                                 f"expected exactly {list(declared)} (the metric's statistics)")
    scored = ~np.isnan(result.values)
    for name in declared:
        column = given[name]
        if (not isinstance(column, np.ndarray) or column.dtype != np.float64
                or column.shape != (n,)):
            raise metric_bug(metric, f"evaluate_batch returned statistic {name!r} as "
                                     f"{_shape(column)}; expected float64 of shape ({n},)")
        bad = np.flatnonzero(scored & ~np.isfinite(column))
        if len(bad):
            raise metric_bug(metric, f"evaluate_batch gave row {int(bad[0])} the statistic "
                                     f"{name!r} = {float(column[bad[0]])!r}; expected a finite "
                                     f"number on every scored row")


def out_of_range(values: FloatArray, value_range: tuple[float, float]) -> int | None:
    """The first row whose value (NaN, not scored, aside) lies outside
    ``value_range``, or None: the range check of the one validator, shared
    with what reads saved scores back (saved runs, saved results). An
    infinite bound is open: an infinite value is outside every range."""
    floor, ceiling = value_range
    outside = (values < floor) | (values > ceiling)  # False for NaN
    if math.isinf(floor) or math.isinf(ceiling):
        outside |= np.isinf(values)
    rows = np.flatnonzero(outside)
    return int(rows[0]) if len(rows) else None


def _all_scored_and_consistent(metric: Metric, values: FloatArray, passed: BoolArray) -> bool:
    """The common case in four passes: no NaN, every value finite and in the
    metric's ``value_range``, every passed flag right. False sends the caller
    to the row-by-row checks, which name the first broken row."""
    low, high = values.min(), values.max()  # NaN makes both NaN: not in range
    floor, ceiling = type(metric).value_range
    if not (low >= floor and high <= ceiling and math.isfinite(low) and math.isfinite(high)):
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
    refused: dict[int, InvalidCaseError | MissingFieldError] = {}
    expectations: Any = None  # each case's expectation, read once if a side is missing
    for declared in reversed(metric.reads()):  # the first input named wins
        field = declared.name
        if field in given:
            for row in np.flatnonzero(~given[field]).tolist():
                if row not in batch.invalid:
                    if expectations is None:
                        expectations = (batch.field("expectation") if batch.cases is not None
                                        else ())
                    has_expectation = bool(len(expectations)) and expectations[row] is not None
                    refused[row] = MissingFieldError(metric.name, field, has_expectation)
        else:  # any other input: from the cases, or the rows its column says may lack it
            rows = (range(len(batch)) if batch.cases is not None
                    else _suspect_rows(batch, declared))
            for row in rows:
                if row not in batch.invalid:
                    try:
                        declared.read(batch.case(row), metric.name)
                    except (MissingFieldError, InvalidCaseError) as refusal:
                        refused[row] = refusal
    found.update((row, str(why)) for row, why in refused.items())
    if found and errors == "raise":
        row = min(found)
        raise CaseEvaluationError(
            row, batch.case_id(row), metric.name, found[row]
        ) from refused.get(row)
    return dict(sorted(found.items()))


def _suspect_rows(batch: ToolCallBatch, declared: Input) -> list[int]:
    """The rows of a batch without case objects whose column of ``declared``'s
    field holds no value, or (for an input declared of a narrower kind, such
    as text) a value of another kind: the only rows that can be refused."""
    column = batch.field(declared.field)
    key = declared.key
    if key is not None:
        column = np.array([cell.get(key) if isinstance(cell, Mapping) else None
                           for cell in column.tolist()] + [None], dtype=object)[:-1]
    if column.dtype == np.float64:
        suspect = np.isnan(column)
    else:
        suspect = np.fromiter((cell is None for cell in column.tolist()), dtype=bool,
                              count=len(column))
        if declared.kind is not None and declared.value_kind != "json":
            suspect |= ~np.fromiter(map(declared.fits, column.tolist()), dtype=bool,
                                    count=len(column))
    return np.flatnonzero(suspect).tolist()


#: What a case can be refused for; any other exception from a metric is the metric's bug.
CASE_ERRORS = (InvalidCaseError, MissingFieldError, CaseEvaluationError, UserFunctionError)


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


def _row_score(metric: Metric, batch: ToolCallBatch, row: int, errors: ErrorsMode,
               failed: dict[int, str]) -> EvalScore | None:
    """One step of :func:`loop_evaluate`: the row's EvalScore, or None with its
    message put in ``failed`` (``errors="record"``); raises under ``"raise"``."""
    if row in batch.invalid:
        message = batch.invalid[row]
        if errors == "raise":
            raise CaseEvaluationError(row, batch.case_id(row), metric.name, message)
        failed[row] = message
        return None
    try:
        return metric.evaluate(batch.case(row))
    except CASE_ERRORS as error:
        if errors == "raise":
            raise CaseEvaluationError(
                row, batch.case_id(row), metric.name, describe_error(error)
            ) from error
        failed[row] = describe_error(error)
    except MetricServiceError as error:  # a service the metric calls failed
        if errors == "raise":
            error._agentmetrics_row = row  # type: ignore[attr-defined]
            raise
        failed[row] = f"{metric.name}: {describe_error(error)}"
    except Exception as error:
        if errors == "raise":
            error._agentmetrics_row = row  # type: ignore[attr-defined]
            raise
        failed[row] = metric_failure(metric, error)
    return None


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
    declared = type(metric).statistics
    statistics = {name: np.full(n, np.nan) for name in declared}
    for row in range(n):
        score = _row_score(metric, batch, row, errors, failed)
        if score is not None:
            values[row] = score.value
            passed[row] = score.passed
            reasons[row] = score.reason
            if declared and score.statistics is not None:
                for name in declared:
                    statistics[name][row] = score.statistics[name]
    return MetricResult(metric, values, passed, failed, StoredReasons(reasons),
                        statistics=statistics)


def case_values(metric: Metric, batch: ToolCallBatch, errors: str,
                value: Callable[[AgentTestCase], float],
                bulk: Callable[[ToolCallBatch], FloatArray] | None = None) -> MetricResult:
    """Case by case, fast: ``value(case)`` gives the value ``metric.measure(case)``
    gives, without its reason (which is what costs most), in one tight loop
    over ``batch.cases``; each reason is made by ``metric.evaluate`` when it is
    asked for, and its value checked equal to the batch's then.

    ``bulk(batch)``, if given, gives those values for every case at once
    (float64, one per case, NaN for a case it leaves to ``value``); if it
    raises, ``value`` scores every case.

    A row that is unreadable, misses a required field, or for which ``value``
    raises (anything: a value function may raise to leave a case it does not
    handle to ``measure``) is scored by :func:`loop_evaluate`'s step, so its
    error, value and reason are exactly those of the case-by-case loop, and
    under ``errors="raise"`` the first failing row raises as it would there.
    ``batch.cases`` must be there (see :func:`agentmetrics.batch.require_cases`)."""
    mode = check_errors_mode(errors)
    if type(metric).statistics:  # the statistics come with each case's measure
        return loop_evaluate(metric, batch, mode)
    # The cyclic GC paused for the tight loop (as timeit does): the cases
    # built when first read and the values' caches (an expectation's compiled
    # plan) are many long-lived objects and no cycles, and each collection
    # would walk them all again (expectation_match took twice as long).
    with paused_gc():
        return _case_values(metric, batch, mode, value, bulk)


def _case_values(metric: Metric, batch: ToolCallBatch, mode: ErrorsMode,
                 value: Callable[[AgentTestCase], float],
                 bulk: Callable[[ToolCallBatch], FloatArray] | None) -> MetricResult:
    cases = batch.cases
    if cases is None:
        raise InvalidCaseError(f"{metric.name}: case_values needs a batch of cases; this one "
                               f"holds tool names only. Fix: call require_cases first.")
    slow = set(batch.invalid)
    given = {"tool_calls": batch.called_given, "expected_tool_calls": batch.expected_given}
    for declared in metric.reads():
        if declared.name in given:
            slow.update(np.flatnonzero(~given[declared.name]).tolist())
        else:
            slow.update(row for row, case in enumerate(cases)
                        if row not in batch.invalid and declared.problem(case) is not None)
    n = len(cases)
    out: list[float] | None = None
    if bulk is not None:
        try:
            found = bulk(batch)
            if isinstance(found, np.ndarray) and found.shape == (n,):
                out = found.astype(np.float64, copy=False).tolist()
        except Exception:  # the case-by-case values decide, then measure
            out = None
    rows: Sequence[int] = range(n)
    if out is None:
        out = [math.nan] * n
    else:
        rows = [row for row, found_value in enumerate(out) if found_value != found_value]  # NaN
    prepare = getattr(cases, "prepare", None)  # cases a reader builds when asked: in one go
    if prepare is not None:
        prepare(row for row in rows if row not in slow)
    for row in rows:
        if row in slow:
            continue
        try:
            out[row] = value(cases[row])
        except Exception:
            slow.add(row)
    values = np.array(out, dtype=np.float64)
    passed = passes(metric, values)
    failed: dict[int, str] = {}
    stored: dict[int, str] = {}
    if prepare is not None:
        prepare(row for row in sorted(slow) if row not in batch.invalid)
    for row in sorted(slow):
        score = _row_score(metric, batch, row, mode, failed)
        if score is None:
            values[row] = np.nan
            passed[row] = False
        else:
            values[row], passed[row], stored[row] = score.value, score.passed, score.reason
    return MetricResult(metric, values, passed, failed, _MeasuredReasons(metric, batch, values, stored))


class _MeasuredReasons:
    """The reasons of :func:`case_values`: ``metric.evaluate`` of the row's case
    when asked for, its value checked against the batch's."""

    __slots__ = ("batch", "metric", "stored", "values")

    def __init__(self, metric: Metric, batch: ToolCallBatch, values: FloatArray,
                 stored: dict[int, str]) -> None:
        self.metric = metric
        self.batch = batch
        self.values = values
        self.stored = stored

    def __call__(self, row: int) -> str:
        reason = self.stored.get(row)
        if reason is not None:
            return reason
        try:
            score = self.metric.evaluate(self.batch.case(row))
        except NestedTooDeepError as error:
            # The value was found in bulk, nearer the bottom of the stack than
            # this reason is asked for (a report's, a check's): it stands.
            return (f"{self.metric.name} scored this case {float(self.values[row])!r} in bulk; "
                    f"its reason could not be made here: {error}")
        given = float(self.values[row])
        if score.value != given:
            raise metric_bug(self.metric, f"evaluate_batch gave case {row} the value {given!r}, "
                                          f"where evaluate gives {score.value!r}")
        return score.reason


# Pickles and reprs name the public path, not this private module.
MetricResult.__module__ = "agentmetrics"
