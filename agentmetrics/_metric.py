"""The Metric contract every built-in and plugin metric follows."""

from __future__ import annotations

import abc
import functools
import math
import numbers
import re
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from agentmetrics._model import CASE_FIELDS, AgentTestCase, EvalScore, _describe
from agentmetrics._types import ErrorsMode, check_errors_mode
from agentmetrics.errors import (
    InvalidCaseError,
    InvalidMetricError,
    InvalidParameterError,
    MissingFieldError,
    metric_bug,
)

if TYPE_CHECKING:  # pragma: no cover
    from agentmetrics._metric_result import MetricResult
    from agentmetrics._tool_call_batch import ToolCallBatch

__all__ = [
    "METRIC_NAME_PATTERN",
    "Metric",
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
            f"{METRIC_NAME_PATTERN.pattern}, got {_describe(name)}. Fix: declare "
            f"e.g. name = 'my_metric' on the class."
        )
    return name


def metric_labels(metrics: list[Metric]) -> list[str]:
    """Registry names; where several metrics share one, add the parameters
    that tell them apart: ``tool_selection_accuracy(order_matters=True)``."""
    labels = []
    for metric in metrics:
        twins = [other.get_params() for other in metrics if other.name == metric.name]
        if len(twins) == 1:
            labels.append(metric.name)
            continue
        params = metric.get_params()
        differing = [key for key in params if any(twin.get(key) != params[key] for twin in twins)]
        shown = ", ".join(f"{key}={params[key]!r}" for key in differing)
        labels.append(f"{metric.name}({shown})")
    for label in labels:
        if labels.count(label) > 1:
            raise InvalidParameterError(
                f"metrics: {label} is given twice with the same parameters; drop the repeat."
            )
    return labels


def validate_threshold(value: object, *, metric: str = "metric") -> float:
    """Return ``value`` as a float if it is a finite real number in [0, 1].

    Raises InvalidParameterError (a ValueError) otherwise. ``bool`` is refused
    although it is an ``int``: ``threshold=True`` is a typo, not a score.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidParameterError(
            f"{metric}: threshold must be a real number between 0 and 1, "
            f"got {_describe(value)}. Fix: pass e.g. threshold=0.8."
        )
    number = float(value)
    if not math.isfinite(number) or not 0.0 <= number <= 1.0:
        raise InvalidParameterError(
            f"{metric}: threshold must be between 0 and 1 inclusive, got {value!r}. "
            f"Fix: scores are fractions, so use e.g. threshold=0.8 rather than 80."
        )
    return number


def validate_flag(value: object, *, metric: str, parameter: str) -> bool:
    """Return ``value`` if it is a bool; refuse truthy stand-ins like ``"no"``."""
    if not isinstance(value, bool):
        raise InvalidParameterError(
            f"{metric}: {parameter} must be True or False, got {_describe(value)}."
        )
    return value


def check_score(metric: Metric, score: object) -> EvalScore:
    """Every EvalScore a metric returns, checked: the scalar half of the one validator
    (the batch half is :func:`agentmetrics._metric_result.check_result`)."""
    if not isinstance(score, EvalScore):
        raise metric_bug(metric, f"evaluate returned {_describe(score)}; expected an EvalScore")
    value = score.value
    if type(value) is not float or not 0.0 <= value <= 1.0:
        raise metric_bug(metric, f"evaluate returned value {value!r}; expected a float in [0, 1]")
    threshold = metric.threshold
    # ``is``: True and False are singletons, so this also refuses a passed that is no bool.
    if score.passed is not (value >= threshold if metric.higher_is_better else value <= threshold):
        raise metric_bug(metric, f"evaluate returned passed={score.passed!r} for value {value!r} "
                                 f"and threshold {metric.threshold!r}")
    if not isinstance(score.reason, str) or not score.reason:
        raise metric_bug(metric, f"evaluate returned reason {score.reason!r}; expected a "
                                 f"non-empty str")
    if score.metric != metric.name or score.threshold != threshold:
        raise metric_bug(metric, f"evaluate returned metric={score.metric!r}, threshold="
                                 f"{score.threshold!r}; expected {metric.name!r} and "
                                 f"{metric.threshold!r}")
    return score


def _checked_evaluate(evaluate: Any) -> Any:
    @functools.wraps(evaluate)
    def checked(self: Metric, case: AgentTestCase) -> EvalScore:
        return check_score(self, evaluate(self, case))

    checked.__agentmetrics_checked__ = True  # type: ignore[attr-defined]
    return checked


def _checked_aevaluate(aevaluate: Any) -> Any:
    @functools.wraps(aevaluate)
    async def checked(self: Metric, case: AgentTestCase) -> EvalScore:
        return check_score(self, await aevaluate(self, case))

    checked.__agentmetrics_checked__ = True  # type: ignore[attr-defined]
    return checked


def _checked_evaluate_batch(evaluate_batch: Any) -> Any:
    @functools.wraps(evaluate_batch)
    def checked(self: Metric, batch: ToolCallBatch, *, errors: ErrorsMode = "raise") -> MetricResult:
        from agentmetrics._metric_result import check_result  # numpy: loaded with the first batch

        return check_result(self, batch, evaluate_batch(self, batch, errors=errors))

    checked.__agentmetrics_checked__ = True  # type: ignore[attr-defined]
    return checked


class Metric(abc.ABC):
    """Abstract base of every metric.

    A subclass declares its metadata as class attributes and implements
    :meth:`measure` (``evaluate`` then does the rest: type and required-field
    checks, the value's bounds, the pass/fail decision), or :meth:`evaluate`
    itself. Every result a metric returns, from ``evaluate`` or from an
    ``evaluate_batch`` that a subclass writes, goes through one validator
    (:func:`check_score`, :func:`agentmetrics._metric_result.check_result`): a
    value out of [0, 1], a ``passed`` flag that disagrees with the threshold,
    a missing reason, or a batch that scores a row it could not read raises
    InvalidMetricError naming the metric.

    Class attributes:

    ``name``
        The registry name, matching ``^[a-z][a-z0-9_]*$``.
    ``required_fields``
        AgentTestCase fields that must not be ``None``.
    ``requires_llm_judge``
        Whether scoring calls a language model (never true for built-ins).
    ``higher_is_better``
        ``True``: a case passes when ``value >= threshold``.
        ``False``: when ``value <= threshold`` (an error rate, say).
    ``description``
        One line for ``agentmetrics list``.
    ``default_threshold``
        The threshold used when none is given.
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
        only for a case equal in these (default: input, actual_output and
        both call lists, with arguments, ids and outputs).
    ``cache_exclude``
        Constructor parameters that do not change scores (credentials,
        timeouts): left out of the cache key.

    ``threshold=None`` means the class's ``default_threshold``.
    Constructor parameters are stored as attributes of the same name, which
    is what :meth:`get_params`, ``repr``, equality and pickling rely on.
    """

    name: ClassVar[str]
    required_fields: ClassVar[tuple[str, ...]] = ()
    requires_llm_judge: ClassVar[bool] = False
    higher_is_better: ClassVar[bool] = True
    description: ClassVar[str] = ""
    default_threshold: ClassVar[float] = 0.5
    concurrency: ClassVar[Literal["serial", "threads", "async"] | None] = None
    version: ClassVar[str] = "1"
    cache_fields: ClassVar[tuple[str, ...]] = (
        "input", "actual_output", "tool_calls", "expected_tool_calls")
    cache_exclude: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
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
        if cls.concurrency not in (None, "serial", "threads", "async"):
            raise InvalidMetricError(
                f"{cls.__qualname__}.concurrency must be 'serial', 'threads', 'async' or None, "
                f"got {cls.concurrency!r}."
            )
        unknown = [f for f in cls.required_fields if f not in CASE_FIELDS]
        if unknown:
            raise InvalidMetricError(
                f"{cls.__qualname__}.required_fields names {unknown}, which are not "
                f"AgentTestCase fields; expected some of {sorted(CASE_FIELDS)}."
            )
        self._threshold = validate_threshold(
            cls.default_threshold if threshold is None else threshold, metric=name
        )

    @property
    def threshold(self) -> float:
        """The pass/fail threshold, a float in [0, 1]."""
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
            return self._score(await self.ameasure(case))
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
            from agentmetrics._aio import run_sync  # an async-only metric, called plainly

            return run_sync(self.aevaluate(case))
        self._check_case(case)
        return self._score(self.measure(case))

    def _check_case(self, case: object) -> None:
        if not isinstance(case, AgentTestCase):
            raise InvalidCaseError(
                f"{self.name}.evaluate: expected an AgentTestCase, got "
                f"{_describe(case)}. Fix: build one with "
                f"AgentTestCase(tool_calls=[...], expected_tool_calls=[...])."
            )
        self.check_required_fields(case)

    def _score(self, measured: object) -> EvalScore:
        """What measure or ameasure returned, as a checked EvalScore."""
        if not isinstance(measured, tuple) or len(measured) != 2:
            raise metric_bug(self, f"measure returned {_describe(measured)}; expected a "
                                   f"(value, reason) pair")
        value = self._checked_value(measured[0])
        return check_score(self, EvalScore(value, self.passes(value), measured[1], self.name,
                                           self._threshold))

    def evaluate_batch(self, batch: ToolCallBatch, *, errors: ErrorsMode = "raise") -> MetricResult:
        """Score every case of a ToolCallBatch.

        This default calls :meth:`evaluate` on each case, so every metric works
        in batch unchanged; metrics that can, override it with array code that
        gives the same values, passed flags and reasons.

        ``errors="raise"`` raises CaseEvaluationError at the first case that
        cannot be scored; ``errors="record"`` gives it NaN, passed False and
        its error message, and goes on.
        """
        from agentmetrics._metric_result import loop_evaluate  # numpy: loaded with the first batch

        return loop_evaluate(self, batch, check_errors_mode(errors))

    def scores_from_names(self) -> bool:
        """Whether :meth:`evaluate_batch` reads nothing of a batch but its tool
        names, case ids and unreadable rows (never ``batch.case(row)``).

        Readers may then hand it batches without case objects, as the CLI's
        Arrow reader of JSONL name lists does. False by default; a metric
        whose batch path scores names with arrays says True."""
        return False

    def check_required_fields(self, case: AgentTestCase) -> None:
        """Raise MissingFieldError for the first required field that is ``None``."""
        for field in self.required_fields:
            if getattr(case, field) is None:
                raise MissingFieldError(self.name, field)

    def passes(self, value: float) -> bool:
        """Whether ``value`` passes this metric's threshold."""
        if self.higher_is_better:
            return value >= self._threshold
        return value <= self._threshold

    def _checked_value(self, value: object) -> float:
        if type(value) is float and 0.0 <= value <= 1.0:  # the common case, without the ABC check
            return value
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise metric_bug(self, f"measure returned a value of type {type(value).__name__}; "
                                   f"expected a float in [0, 1]")
        number = float(value)
        if not 0.0 <= number <= 1.0:  # also refuses NaN
            raise metric_bug(self, f"measure returned {number!r}; expected a float in [0, 1]")
        return number

    def get_params(self) -> dict[str, Any]:
        """The constructor parameters of this instance, by name."""
        import inspect  # only needed for repr, equality and pickling

        params: dict[str, Any] = {}
        for parameter in inspect.signature(type(self).__init__).parameters.values():
            if parameter.name == "self" or parameter.kind in (
                parameter.VAR_POSITIONAL,
                parameter.VAR_KEYWORD,
            ):
                continue
            params[parameter.name] = getattr(self, parameter.name)
        return params

    def __repr__(self) -> str:
        args = ", ".join(f"{key}={value!r}" for key, value in self.get_params().items())
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
