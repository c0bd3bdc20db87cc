"""The Metric contract every built-in and plugin metric follows."""

from __future__ import annotations

import abc
import functools
import math
import numbers
import re
import sys
import weakref
from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar, Literal

import attrs

from agentmetrics._base._display import range_text
from agentmetrics._base._types import ErrorsMode, check_errors_mode
from agentmetrics._secrets import (
    MASK,
    scrub,
    scrub_exception,
    scrub_reason,
    secret_variants,
    shown_value,
    url_credentials,
    value_texts,
)
from agentmetrics.errors import (
    InvalidCaseError,
    InvalidMetricError,
    InvalidParameterError,
    NestedTooDeepError,
    metric_bug,
)
from agentmetrics.metric._aggregates import Reducer, check_aggregates
from agentmetrics.metric._inputs import Input, declared_inputs, required_case_fields
from agentmetrics.model._model import CASE_FIELDS, AgentTestCase, EvalScore, describe

if TYPE_CHECKING:  # pragma: no cover
    from agentmetrics.cases._tool_call_batch import ToolCallBatch
    from agentmetrics.model._metric_result import MetricResult

__all__ = [
    "METRIC_NAME_PATTERN",
    "check_statistics",
    "UNIT_LENGTH",
    "Metric",
    "check_metric_class",
    "check_score",
    "declared_name",
    "metric_labels",
    "validate_flag",
    "validate_threshold",
]

#: What a metric's registry name must look like.
METRIC_NAME_PATTERN = re.compile(r"^[a-z][a-z0-9_]*$")


def declared_name(cls: type) -> str:
    """The registry name a metric class declares; InvalidMetricError if unusable."""
    name = getattr(cls, "name", None)
    if not isinstance(name, str) or not METRIC_NAME_PATTERN.match(name):
        raise InvalidMetricError(
            f"{cls.__qualname__}.name must be a str matching "
            f"{METRIC_NAME_PATTERN.pattern}, got {describe(name)}. Fix: declare "
            f"e.g. name = 'my_metric' on the class."
        )
    return name


def metric_labels(metrics: list[Metric]) -> list[str]:
    """Registry names; where several metrics share one, add the parameters
    that tell them apart: ``tool_selection_accuracy(order_matters=True)``.
    Parameters are shown as :meth:`Metric.shown_params` gives them (secrets
    never); twins that differ only in a secret are numbered: ``judge(#1)``."""
    labels = []
    for metric in metrics:
        twins = [other for other in metrics if other.name == metric.name]
        if len(twins) == 1:
            labels.append(metric.name)
            continue
        shown = [twin.shown_params() for twin in twins]
        hidden = type(metric).secret_params
        params = metric.shown_params()
        differing = [key for key in params if key not in hidden
                     and any(other.get(key) != params[key] for other in shown)]
        text = ", ".join(f"{key}={params[key]!r}" for key in differing)
        full = metric.get_params()
        if any(shown[i] == params and other.get_params() != full
               for i, other in enumerate(twins) if other is not metric):
            # Told apart only by what is never shown: by position among the twins.
            position = 1 + next(i for i, other in enumerate(twins) if other is metric)
            text = ", ".join(filter(None, [text, f"#{position}"]))
        labels.append(f"{metric.name}({text})")
    for label in labels:
        if labels.count(label) > 1:
            raise InvalidParameterError(
                f"metrics: {label} is given twice with the same parameters; drop the repeat."
            )
    return labels


#: The longest ``unit`` a metric may declare ("s", "USD", "tokens"): it is
#: shown beside every value, in tables as narrow as the terminal.
UNIT_LENGTH = 12

_SHARE = (0.0, 1.0)


def validate_threshold(value: object, *, metric: str = "metric",
                       value_range: tuple[float, float] = _SHARE,
                       example: float = 0.8) -> float:
    """Return ``value`` as a float if it is a finite real number in
    ``value_range`` (the metric's, [0, 1] by default) inclusive.

    Raises InvalidParameterError (a ValueError) otherwise. ``bool`` is refused
    although it is an ``int``: ``threshold=True`` is a typo, not a score. The
    hint that a percentage is no fraction is given only for the range [0, 1];
    ``example`` is the threshold a fix suggests for another range.
    """
    low, high = value_range
    if (low, high) != _SHARE:
        return _threshold_in(value, metric, (float(low), float(high)), example)
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidParameterError(
            f"{metric}: threshold must be a real number between 0 and 1, "
            f"got {describe(value)}. Fix: pass e.g. threshold=0.8."
        )
    number = float(value)
    if not math.isfinite(number) or not 0.0 <= number <= 1.0:
        if not math.isfinite(number):
            fix = "pass a finite number, e.g. threshold=0.8."
        elif number < 0:
            fix = ("a threshold is at least 0: threshold=0 passes every score; e.g. "
                   "threshold=0.8 passes scores of 0.8 and up.")
        elif number <= 100:
            fix = (f"scores are fractions from 0 to 1: if {value!r} is a percentage, use "
                   f"threshold={number / 100:g}.")
        else:
            fix = "scores are fractions: pass a number from 0 to 1, e.g. threshold=0.8."
        raise InvalidParameterError(
            f"{metric}: threshold must be between 0 and 1 inclusive, got {value!r}. Fix: {fix}"
        )
    return number


def _threshold_in(value: object, metric: str, value_range: tuple[float, float],
                  example: float) -> float:
    """:func:`validate_threshold` for a range other than [0, 1]: values in the
    metric's own units (seconds, tokens, money), where no percentage hint fits."""
    where = f"{range_text(value_range)} (the metric's value_range)"
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidParameterError(
            f"{metric}: threshold must be a real number in {where}, got {describe(value)}. "
            f"Fix: pass e.g. threshold={example:g}.")
    number = float(value)
    if not math.isfinite(number) or not value_range[0] <= number <= value_range[1]:
        raise InvalidParameterError(
            f"{metric}: threshold must be a finite number in {where}, got {value!r}. "
            f"Fix: pass a threshold in the metric's own units, e.g. threshold={example:g}.")
    return number


def check_metric_class(cls: type[Metric]) -> None:
    """Raise InvalidMetricError naming the class attribute if ``cls`` declares
    an unusable ``concurrency``, ``required_fields``, ``value_range``,
    ``unit``, ``default_threshold`` or ``secret_params`` (checked when the
    class is first built or registered: an error there is the class's, never
    the caller's)."""
    name = cls.__qualname__
    if cls.concurrency not in (None, "serial", "threads", "async"):
        raise InvalidMetricError(
            f"{name}.concurrency must be 'serial', 'threads', 'async' or None, "
            f"got {cls.concurrency!r}."
        )
    unknown = [f for f in cls.required_fields if f not in CASE_FIELDS]
    if unknown:
        raise InvalidMetricError(
            f"{name}.required_fields names {unknown}, which are not "
            f"AgentTestCase fields; expected some of {sorted(CASE_FIELDS)}."
        )
    declared_inputs(cls)  # InvalidMetricError naming ``inputs``
    check_aggregates(cls)
    low_high = cls.value_range
    if (not isinstance(low_high, tuple) or len(low_high) != 2
            or any(isinstance(v, bool) or not isinstance(v, numbers.Real) for v in low_high)
            or not float(low_high[0]) < float(low_high[1])):  # False with a NaN
        raise InvalidMetricError(
            f"{name}.value_range must be a (low, high) pair of numbers with low < high, "
            f"either end possibly infinite and neither NaN, got {low_high!r}. Fix: declare "
            f"e.g. value_range = (0.0, 1.0) for a share or score, (0.0, math.inf) for "
            f"seconds, tokens, money or counts.")
    unit = cls.unit
    if unit is not None and (not isinstance(unit, str) or not 0 < len(unit) <= UNIT_LENGTH
                             or not unit.isprintable() or unit != unit.strip()):
        raise InvalidMetricError(
            f"{name}.unit must be None (a share or score) or a short name of the values' "
            f"unit (1 to {UNIT_LENGTH} printable characters), got {describe(unit)}. Fix: "
            f"declare e.g. unit = 's', 'USD' or 'tokens'.")
    default = cls.default_threshold
    low, high = float(low_high[0]), float(low_high[1])
    if (isinstance(default, bool) or not isinstance(default, numbers.Real)
            or not math.isfinite(float(default)) or not low <= float(default) <= high):
        hint = (" (scores are fractions from 0 to 1: 0.8 rather than 80)"
                if (low, high) == _SHARE else "")
        raise InvalidMetricError(
            f"{name}.default_threshold must be a finite number in the class's value_range "
            f"{range_text((low, high))}{hint}, got {describe(default)}. Fix: declare a "
            f"default_threshold inside value_range, or a value_range that holds it (e.g. "
            f"value_range = (0.0, math.inf) for values in seconds, tokens or money).")
    secrets = cls.secret_params
    if not isinstance(secrets, tuple) or not all(isinstance(p, str) for p in secrets):
        raise InvalidMetricError(
            f"{name}.secret_params must be a tuple of parameter names, got "
            f"{secrets!r}. Fix: declare e.g. secret_params = ('api_key',).")


def validate_flag(value: object, *, metric: str, parameter: str) -> bool:
    """Return ``value`` if it is a bool; refuse truthy stand-ins like ``"no"``."""
    if not isinstance(value, bool):
        raise InvalidParameterError(
            f"{metric}: {parameter} must be True or False, got {describe(value)}."
        )
    return value


def check_score(metric: Metric, score: object) -> EvalScore:
    """Every EvalScore a metric returns, checked: the scalar half of the one validator
    (the batch half is :func:`agentmetrics.model._metric_result.check_result`)."""
    if not isinstance(score, EvalScore):
        raise metric_bug(metric, f"evaluate returned {describe(score)}; expected an EvalScore")
    value = score.value
    low, high = type(metric).value_range
    if type(value) is not float or not low <= value <= high or not math.isfinite(value):
        raise metric_bug(metric, f"evaluate returned value {value!r}; expected a float in "
                                 f"{range_text((low, high))} (the metric's value_range)")
    threshold = metric.threshold
    # ``is``: True and False are singletons, so this also refuses a passed that is no bool.
    if score.passed is not (value >= threshold if metric.higher_is_better else value <= threshold):
        raise metric_bug(metric, f"evaluate returned passed={score.passed!r} for value {value!r} "
                                 f"and threshold {metric.threshold!r}")
    reason = score.reason
    if not isinstance(reason, str) or not reason:
        raise metric_bug(metric, f"evaluate returned reason {reason!r}; expected a "
                                 f"non-empty str")
    if score.metric != metric.name or score.threshold != threshold:
        raise metric_bug(metric, f"evaluate returned metric={score.metric!r}, threshold="
                                 f"{score.threshold!r}; expected {metric.name!r} and "
                                 f"{metric.threshold!r}")
    declared = type(metric).statistics
    statistics = score.statistics
    if declared or statistics is not None:
        checked = check_statistics(metric, statistics)
        if checked is not statistics:
            score = attrs.evolve(score, statistics=checked)
    cleaned = scrub_reason(metric, reason)
    return score if cleaned is reason else attrs.evolve(score, reason=cleaned)


def check_statistics(metric: Metric, statistics: object) -> Mapping[str, float]:
    """One case's statistics, checked against the metric's declared names:
    exactly those keys, each a finite real number (given back as floats)."""
    declared = type(metric).statistics
    if not isinstance(statistics, Mapping) or set(statistics) != set(declared):
        raise metric_bug(metric, f"evaluate returned statistics {describe(statistics)}; "
                                 f"expected a dict of exactly {list(declared)} (the metric's "
                                 f"statistics)")
    out: dict[str, float] = {}
    for key in declared:
        number = statistics[key]
        if (isinstance(number, bool) or not isinstance(number, numbers.Real)
                or not math.isfinite(float(number))):
            raise metric_bug(metric, f"evaluate returned statistic {key!r} = "
                                     f"{describe(number)}; expected a finite number")
        out[key] = float(number)
    return out


def too_deep(metric: Metric) -> NestedTooDeepError:
    """The error of a case whose scoring by ``metric`` ran out of Python's stack."""
    return NestedTooDeepError(metric.name, sys.getrecursionlimit())


def _checked_evaluate(evaluate: Any) -> Any:
    @functools.wraps(evaluate)
    def checked(self: Metric, case: AgentTestCase) -> EvalScore:
        try:
            return check_score(self, _scrubbing(self, evaluate, self, case))
        except RecursionError:
            raise too_deep(self) from None

    checked.__agentmetrics_checked__ = True  # type: ignore[attr-defined]
    return checked


def _checked_aevaluate(aevaluate: Any) -> Any:
    @functools.wraps(aevaluate)
    async def checked(self: Metric, case: AgentTestCase) -> EvalScore:
        try:
            return check_score(self, await _ascrubbing(self, aevaluate(self, case)))
        except RecursionError:
            raise too_deep(self) from None

    checked.__agentmetrics_checked__ = True  # type: ignore[attr-defined]
    return checked


def _checked_evaluate_batch(evaluate_batch: Any) -> Any:
    @functools.wraps(evaluate_batch)
    def checked(self: Metric, batch: ToolCallBatch, *, errors: ErrorsMode = "raise") -> MetricResult:
        # numpy: loaded with the first batch
        from agentmetrics.model._metric_result import check_result, loop_evaluate

        try:
            result = _scrubbing(self, functools.partial(evaluate_batch, errors=errors), self, batch)
        except RecursionError:
            # Values nested deeper than the batch code can follow: each case
            # alone, so that only the deep ones fail, each as its case's error
            # (see too_deep), and the others keep their values.
            result = loop_evaluate(self, batch, errors)
        return check_result(self, batch, _scrub_errors(self, result))

    checked.__agentmetrics_checked__ = True  # type: ignore[attr-defined]
    return checked


def _scrubbing(metric: Metric, function: Any, *args: Any) -> Any:
    """``function(*args)``; an exception it raises leaves with ``metric``'s
    secrets scrubbed from it and its chain (a replacement, if its text cannot
    be cleaned in place, is raised outside the handler, so the original is not
    even its context)."""
    try:
        return function(*args)
    except Exception as error:
        failure = metric._scrubbed(error)
        if failure is error:
            raise
    raise failure


async def _ascrubbing(metric: Metric, awaitable: Any) -> Any:
    """``await awaitable``, its exceptions scrubbed as :func:`_scrubbing` does."""
    try:
        return await awaitable
    except Exception as error:
        failure = metric._scrubbed(error)
        if failure is error:
            raise
    raise failure


def _scrub_errors(metric: Metric, result: Any) -> Any:
    """A batch result whose error messages quote none of the metric's secrets
    (its reasons are scrubbed as they are asked for: see ``check_result``)."""
    errors = getattr(result, "errors", None)
    if not isinstance(errors, Mapping) or not errors:
        return result
    variants = metric._secret_forms()
    cleaned = {row: scrub(text, variants) if isinstance(text, str) else text
               for row, text in errors.items()}
    if cleaned == errors:
        return result
    return attrs.evolve(result, errors=cleaned)


class Metric(abc.ABC):
    """Abstract base of every metric.

    A subclass declares its metadata as class attributes and implements
    :meth:`measure` (``evaluate`` then does the rest: type and required-field
    checks, the value's bounds, the pass/fail decision), or :meth:`evaluate`
    itself. Every result a metric returns, from ``evaluate`` or from an
    ``evaluate_batch`` that a subclass writes, goes through one validator
    (:func:`check_score`, :func:`agentmetrics.model._metric_result.check_result`): a
    value outside its ``value_range``, a ``passed`` flag that disagrees with the threshold,
    a missing reason, or a batch that scores a row it could not read raises
    InvalidMetricError naming the metric.

    Class attributes:

    ``name``
        The registry name, matching ``^[a-z][a-z0-9_]*$``.
    ``inputs``
        What the metric reads, in one place: case fields by name
        (``"actual_output"``, ``"latency"``) and named extra values from the
        case's metadata (``"metadata.rubric"``), each a name or an
        :class:`~agentmetrics.Input` with a kind (``"text"``, ``"number"``,
        ``"json"``, ...) and a one-line doc. A case without one of them is
        refused naming the metric and the input, one holding another kind is
        refused naming the field (never coerced); ``describe`` shows them, the
        conformance kit fills them, the cache key covers them.
    ``required_fields``
        AgentTestCase fields that must not be ``None``: the case fields of
        ``inputs`` are added to it; a metric may declare either.
    ``requires_llm_judge``
        Whether scoring calls a language model (never true for built-ins).
    ``higher_is_better``
        ``True``: a case passes when ``value >= threshold``.
        ``False``: when ``value <= threshold`` (an error rate, a latency).
    ``description``
        One line for ``agentmetrics list``.
    ``default_threshold``
        The threshold used when none is given, inside ``value_range``.
    ``concurrency``
        How ``evaluate(cases, ...)`` may run the metric's cases at once:
        ``"serial"`` (one after another: pure computation), ``"threads"``
        (blocking I/O, on a thread pool) or ``"async"`` (``ameasure`` or
        ``aevaluate``, as tasks on one event loop). ``None``, the default,
        means ``"async"`` for a class that defines ``ameasure`` or
        ``aevaluate``, else ``"serial"``. A metric with its own vectorized
        ``evaluate_batch`` is scored by it, whatever this says.
    ``version``
        Change it when the metric's scores change: cached scores are kept per
        version (``evaluate(..., cache=PATH)``).
    ``cache_fields``
        The AgentTestCase fields the metric reads: a cached score is reused
        only for a case equal in these (default: every field of the case,
        ``metadata``, ``turns`` and ``expectation`` included, the call lists
        with arguments, ids and outputs; a metric that reads fewer lists them
        to share its cached scores more widely) and in its ``required_fields``
        (a field it needs is a field it reads). A class
        defined inside a function is never cached: nothing in a key tells it
        from another class of its name.
    ``cache_exclude``
        Constructor parameters that do not change scores (timeouts): left out
        of the cache key.
    ``secret_params``
        Constructor parameters that hold credentials (an API key, a dict of
        headers): never shown in a repr, a label, a report, a log line, a
        warning, an error message or a reason, and never part of a cache key.
        One that is not text is scrubbed by every string and number inside it.
        A pickled metric still carries them (a worker needs the key), it only
        never prints them. Credentials inside any parameter that holds a URL
        (``https://user:key@host``, ``?api_key=...``) are masked the same way
        without being declared, and left out of the cache key.
    ``value_range``
        ``(low, high)``, the values the metric can take (default ``(0.0,
        1.0)``, a share or score); either end may be infinite, e.g.
        ``(0.0, math.inf)`` for seconds, tokens, money or counts (an infinite
        end is open: no value is infinite). Thresholds lie in it; intervals
        for a mean are clipped to it, and those of a difference between two
        runs to ``+-(high - low)``.
    ``unit``
        The values' unit, a short name shown beside them (``"s"``, ``"USD"``,
        ``"tokens"``), or ``None`` (the default): a share or score.
    ``aggregates``
        Corpus-level aggregates over all of a run's cases, by name: reducers
        from :mod:`agentmetrics.corpus` (``{"p95": Quantile(0.95)}``,
        ``{"micro_f1": Ratio("matched", ("called", "expected"), scale=2.0)}``),
        computed from states that merge exactly, shown by
        ``EvaluationResult.aggregates()``, the CLI and the report.
    ``statistics``
        The names of the per-case statistics those reducers read besides the
        values (``("matched", "called", "expected")``): ``measure`` returns
        them as a third item, ``(value, reason, {"matched": 2.0, ...})``, and
        ``evaluate_batch`` as ``MetricResult(..., statistics={name: column})``.

    ``threshold=None`` means the class's ``default_threshold``.
    Constructor parameters are stored as attributes of the same name, which
    is what :meth:`get_params`, ``repr``, equality and pickling rely on.
    """

    name: ClassVar[str]
    required_fields: ClassVar[tuple[str, ...]] = ()
    inputs: ClassVar[tuple[str | Input, ...]] = ()
    requires_llm_judge: ClassVar[bool] = False
    higher_is_better: ClassVar[bool] = True
    description: ClassVar[str] = ""
    default_threshold: ClassVar[float] = 0.5
    concurrency: ClassVar[Literal["serial", "threads", "async"] | None] = None
    version: ClassVar[str] = "1"
    #: Every field of a case, in its order: a field added to AgentTestCase is keyed at once.
    cache_fields: ClassVar[tuple[str, ...]] = tuple(field.name for field in attrs.fields(AgentTestCase))
    cache_exclude: ClassVar[tuple[str, ...]] = ()
    secret_params: ClassVar[tuple[str, ...]] = ()
    value_range: ClassVar[tuple[float, float]] = (0.0, 1.0)
    unit: ClassVar[str | None] = None
    statistics: ClassVar[tuple[str, ...]] = ()
    aggregates: ClassVar[Mapping[str, Reducer]] = MappingProxyType({})

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "inputs" in cls.__dict__:
            # The case fields it declares are required fields: every reader of
            # required_fields (the batch checks, the cache key) sees them.
            try:
                fields = required_case_fields(declared_inputs(cls))
            except InvalidMetricError:
                pass  # reported as the class's error when it is first built or registered
            else:
                cls.required_fields = tuple(dict.fromkeys(cls.required_fields + fields))
        # A subclass's own evaluate and evaluate_batch return through the validator.
        for attribute, wrap in (("evaluate", _checked_evaluate),
                                ("aevaluate", _checked_aevaluate),
                                ("evaluate_batch", _checked_evaluate_batch)):
            method = cls.__dict__.get(attribute)
            if callable(method) and not getattr(method, "__agentmetrics_checked__", False):
                setattr(cls, attribute, wrap(method))

    def __init__(self, threshold: float | None = None) -> None:
        cls = type(self)
        name = declared_name(cls)
        if not any(_defines(cls, method) for method in
                   ("measure", "evaluate", "ameasure", "aevaluate")):
            raise InvalidMetricError(
                f"{cls.__qualname__} implements none of measure(case) -> (value, reason), "
                f"evaluate(case) -> EvalScore, or their async forms ameasure and aevaluate; "
                f"expected one of them. Fix: define measure."
            )
        check_metric_class(cls)
        if threshold is None:
            self._threshold = float(cls.default_threshold)  # checked with the class
        else:
            self._threshold = validate_threshold(threshold, metric=name,
                                                 value_range=cls.value_range,
                                                 example=float(cls.default_threshold))

    @property
    def threshold(self) -> float:
        """The pass/fail threshold, a float in the metric's ``value_range``."""
        return self._threshold

    @property
    def execution(self) -> Literal["serial", "threads", "async"]:
        """How this metric's cases may run at once (see ``concurrency``)."""
        cls = type(self)
        if cls.concurrency is not None:
            return cls.concurrency
        return "async" if _defines(cls, "ameasure") or _defines(cls, "aevaluate") else "serial"

    def measure(self, case: AgentTestCase) -> tuple[float, str]:
        """Return ``(value, reason)`` for one case whose required fields are set.

        A subclass implements this, :meth:`ameasure`, or :meth:`evaluate` itself."""
        raise NotImplementedError(f"{type(self).__qualname__}.measure")

    async def ameasure(self, case: AgentTestCase) -> tuple[float, str]:
        """The async form of :meth:`measure`, for metrics that wait on a service
        (an LLM judge, an embedding model): ``evaluate(cases, ...)`` runs many
        at once as tasks on one event loop."""
        raise NotImplementedError(f"{type(self).__qualname__}.ameasure")

    async def aevaluate(self, case: AgentTestCase) -> EvalScore:
        """Score one case, awaitably; every metric has it. It awaits
        :meth:`ameasure` where the class defines it, runs :meth:`evaluate` on a
        thread for ``concurrency = "threads"``, and calls it directly otherwise."""
        cls = type(self)
        if _defines(cls, "ameasure") and _base_evaluate(cls):
            self._check_case(case)
            return self._score(await _ascrubbing(self, self.ameasure(case)))
        if self.execution == "threads":
            import asyncio

            return await asyncio.to_thread(self.evaluate, case)
        return self.evaluate(case)

    def evaluate(self, case: AgentTestCase) -> EvalScore:
        """Score one test case.

        Raises InvalidCaseError if ``case`` is not an AgentTestCase and
        MissingFieldError if a required field is ``None``.
        """
        if _async_only(type(self)):
            from agentmetrics._base._aio import run_sync  # an async-only metric, called plainly

            return run_sync(self.aevaluate(case))
        self._check_case(case)
        failure = None
        deep = False
        try:
            measured = self.measure(case)
        except RecursionError:
            deep = True
        except Exception as error:  # inline, not _scrubbing: every case passes here
            failure = self._scrubbed(error)
            if failure is error:
                raise
        if failure is not None:
            raise failure  # outside the handler: the unscrubbed original is no context
        if deep:
            raise too_deep(self)
        return self._score(measured)

    def _check_case(self, case: object) -> None:
        if not isinstance(case, AgentTestCase):
            raise InvalidCaseError(
                f"{self.name}.evaluate: expected an AgentTestCase, got "
                f"{describe(case)}. Fix: build one with "
                f"AgentTestCase(tool_calls=[...], expected_tool_calls=[...])."
            )
        self.check_required_fields(case)

    def _score(self, measured: object) -> EvalScore:
        """What measure or ameasure returned, as a checked EvalScore."""
        declared = type(self).statistics
        size = 3 if declared else 2
        if not isinstance(measured, tuple) or len(measured) != size:
            expected = ("a (value, reason, statistics) triple, statistics a dict of "
                        f"{list(declared)}" if declared else "a (value, reason) pair")
            raise metric_bug(self, f"measure returned {describe(measured)}; expected {expected}")
        value = self._checked_value(measured[0])
        statistics = measured[2] if declared else None
        return check_score(self, EvalScore(value, self.passes(value), measured[1], self.name,
                                           self._threshold, statistics=statistics))

    def evaluate_batch(self, batch: ToolCallBatch, *, errors: ErrorsMode = "raise") -> MetricResult:
        """Score every case of a ToolCallBatch.

        This default calls :meth:`evaluate` on each case, so every metric works
        in batch unchanged; metrics that can, override it with array code that
        gives the same values, passed flags and reasons.

        ``errors="raise"`` raises CaseEvaluationError at the first case that
        cannot be scored; ``errors="record"`` gives it NaN, passed False and
        its error message, and goes on.
        """
        from agentmetrics.model._metric_result import loop_evaluate  # numpy: loaded with the first batch

        return loop_evaluate(self, batch, check_errors_mode(errors))

    def scores_from_names(self) -> bool:
        """Whether :meth:`evaluate_batch` reads nothing of a batch but its tool
        names, case ids and unreadable rows (never ``batch.case(row)``).

        Readers may then hand it batches without case objects, as the CLI's
        Arrow reader of JSONL name lists does. False by default; a metric
        whose batch path scores names with arrays says True."""
        return False

    @classmethod
    def declared_inputs(cls) -> tuple[Input, ...]:
        """What the metric reads: its ``required_fields`` and ``inputs``, as
        :class:`~agentmetrics.Input` objects, each once, in declaration order."""
        return declared_inputs(cls)

    def reads(self) -> tuple[Input, ...]:
        """What this instance reads: its class's :meth:`declared_inputs`, unless
        the instance reads more (a composite reads what its parts read)."""
        return declared_inputs(type(self))

    def check_required_fields(self, case: AgentTestCase) -> None:
        """Raise MissingFieldError for the first declared input (a required
        field) that ``case`` does not give, InputTypeError (an
        InvalidCaseError) for one of another kind than declared."""
        for declared in self.reads():
            declared.read(case, self.name)

    def passes(self, value: float) -> bool:
        """Whether ``value`` passes this metric's threshold."""
        if self.higher_is_better:
            return value >= self._threshold
        return value <= self._threshold

    def _checked_value(self, value: object) -> float:
        low, high = type(self).value_range
        # The common case, without the ABC check; isfinite: an infinite end is open.
        if type(value) is float and low <= value <= high and math.isfinite(value):
            return value
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise metric_bug(self, f"measure returned a value of type {type(value).__name__}; "
                                   f"expected a float in {range_text((low, high))}")
        number = float(value)
        if not low <= number <= high or not math.isfinite(number):  # also refuses NaN
            raise metric_bug(self, f"measure returned {number!r}; expected a float in "
                                   f"{range_text((low, high))}")
        return number

    def get_params(self) -> dict[str, Any]:
        """The constructor parameters of this instance, by name."""
        return {name: getattr(self, name) for name in _parameter_names(type(self).__init__)}

    def shown_params(self) -> dict[str, Any]:
        """:meth:`get_params` as it may be shown anywhere (repr, labels, reports):
        each of ``secret_params`` that is set becomes ``'***'``, and the
        credentials of the URLs inside the others are masked
        (``https://***@host``, in strings, bytes, containers and URL objects)."""
        hidden = type(self).secret_params
        return {key: (MASK if value is not None else None) if key in hidden
                else shown_value(value) for key, value in self.get_params().items()}

    def secret_variants(self) -> tuple[str, ...]:
        """Every form of every secret this metric holds that an error's text may
        quote (its ``secret_params``, whatever their type, the credentials of
        the URLs in its other parameters, and the secrets of a metric it is
        given): what is scrubbed from an error or a reason before anyone sees it."""
        hidden = type(self).secret_params
        values: list[object] = []
        variants: list[str] = []
        for key, value in self.get_params().items():
            if key in hidden:
                values.append(value)
            elif isinstance(value, Metric) and value is not self:
                variants.extend(value.secret_variants())
            else:
                values.extend(found for text in value_texts(value)
                              for found in url_credentials(text, whole=True))
        forms = secret_variants(values)
        if not variants:
            return forms
        return tuple(sorted(set(forms).union(variants), key=lambda form: (-len(form), form)))

    def _secret_forms(self) -> tuple[str, ...]:
        """:meth:`secret_variants`, kept while no attribute of the metric is set
        and its parameters hold nothing that can change in place (scores and
        reasons ask for it on every case)."""
        known: tuple[str, ...] | None = self.__dict__.get(_SECRETS)
        if known is not None:
            return known
        forms = self.secret_variants()
        try:
            fixed = all(_immutable(value) for value in self.get_params().values())
        except Exception:
            fixed = False
        if fixed:
            self.__dict__[_SECRETS] = forms
        return forms

    def __setattr__(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)
        self.__dict__.pop(_SECRETS, None)  # a parameter may have changed: worked out again

    def scrub(self, text: str) -> str:
        """``text`` with this metric's secrets (see :meth:`secret_variants`) and
        URL credentials replaced by ``'***'``."""
        return scrub(text, self._secret_forms())

    def _scrubbed(self, error: BaseException) -> BaseException:
        """``error`` (and its chain) with the metric's secrets scrubbed; the
        exception to raise in its place."""
        try:
            variants = self._secret_forms()
        except Exception:  # parameters that cannot be read: nothing more to hide
            return error
        return scrub_exception(error, variants)

    def __repr__(self) -> str:
        args = ", ".join(f"{key}={value!r}" for key, value in self.shown_params().items())
        return f"{type(self).__name__}({args})"

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self.get_params() == other.get_params()

    def __hash__(self) -> int:
        return hash((type(self), self._threshold))

    def __reduce__(self) -> tuple[Any, ...]:
        # The class called with its parameters: the pickle names only the class
        # (by its public path for built-ins) and functools.partial.
        return (functools.partial(type(self), **self.get_params()), ())


#: The parameter names of each constructor, read once: get_params runs on every
#: repr, comparison and pickle, on every error a metric raises (to scrub its
#: secrets) and on every judge request, and inspect.signature costs ~30 us.
_PARAMETERS: weakref.WeakKeyDictionary[Any, tuple[str, ...]] = weakref.WeakKeyDictionary()


def _parameter_names(init: Any) -> tuple[str, ...]:
    try:
        return _PARAMETERS[init]
    except (KeyError, TypeError):  # TypeError: a callable that takes no weak reference
        pass
    import inspect

    names = tuple(parameter.name for parameter in inspect.signature(init).parameters.values()
                  if parameter.name != "self" and parameter.kind not in (
                      parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD))
    try:
        _PARAMETERS[init] = names
    except TypeError:
        pass
    return names


#: Where a metric keeps its secret variants (see Metric._secret_forms).
_SECRETS = "_agentmetrics_secret_forms"


def _immutable(value: Any, depth: int = 0) -> bool:
    """Whether ``value`` cannot change in place (so secrets worked out from it stay right)."""
    if value is None or isinstance(value, (str, bytes, bool, int, float)):
        return True
    if isinstance(value, (tuple, frozenset)) and depth < 10:
        return all(_immutable(item, depth + 1) for item in value)
    return False


def _base_evaluate(cls: type[Metric]) -> bool:
    """Whether ``cls`` uses Metric's own evaluate (the one that calls measure)."""
    return not _defines(cls, "evaluate")


_ASYNC_FLAG = "_agentmetrics_async_only"


def _async_only(cls: type[Metric]) -> bool:
    """Whether ``cls`` implements ``ameasure`` and not ``measure``: worked out
    once per class and kept in the class's own ``__dict__`` (a subclass has its
    own answer), which is read faster than a weak-key dictionary."""
    known: bool | None = cls.__dict__.get(_ASYNC_FLAG)
    if known is None:
        known = _defines(cls, "ameasure") and not _defines(cls, "measure")
        setattr(cls, _ASYNC_FLAG, known)
    return known


def _defines(cls: type[Metric], method: str) -> bool:
    """Whether ``cls`` (or a base below Metric) implements ``method`` itself."""
    own = getattr(cls, method)
    return getattr(own, "__wrapped__", own) is not getattr(Metric, method)
