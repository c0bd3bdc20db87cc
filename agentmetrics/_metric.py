"""The Metric contract every built-in and plugin metric follows."""

from __future__ import annotations

import abc
import math
import numbers
import re
from typing import TYPE_CHECKING, Any, ClassVar

from agentmetrics._model import AgentTestCase, EvalScore, _describe
from agentmetrics.errors import (
    InvalidCaseError,
    InvalidMetricError,
    InvalidParameterError,
    MissingFieldError,
)

if TYPE_CHECKING:  # pragma: no cover
    from agentmetrics._batch import ToolCallBatch
    from agentmetrics._results import MetricResult

__all__ = ["METRIC_NAME_PATTERN", "Metric", "declared_name", "metric_labels", "validate_threshold"]

#: What a metric's registry name must look like.
METRIC_NAME_PATTERN = re.compile(r"^[a-z][a-z0-9_]*$")

_CASE_FIELDS = frozenset(
    {"input", "actual_output", "tool_calls", "expected_tool_calls", "metadata"}
)


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


class Metric(abc.ABC):
    """Abstract base of every metric.

    A subclass declares its metadata as class attributes and implements
    :meth:`measure`; :meth:`evaluate` does the rest (type and required-field
    checks, the value's bounds, the pass/fail decision).

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

    def __init__(self, threshold: float | None = None) -> None:
        cls = type(self)
        name = declared_name(cls)
        unknown = [f for f in cls.required_fields if f not in _CASE_FIELDS]
        if unknown:
            raise InvalidMetricError(
                f"{cls.__qualname__}.required_fields names {unknown}, which are not "
                f"AgentTestCase fields; expected some of {sorted(_CASE_FIELDS)}."
            )
        self._threshold = validate_threshold(
            cls.default_threshold if threshold is None else threshold, metric=name
        )

    @property
    def threshold(self) -> float:
        """The pass/fail threshold, a float in [0, 1]."""
        return self._threshold

    @abc.abstractmethod
    def measure(self, case: AgentTestCase) -> tuple[float, str]:
        """Return ``(value, reason)`` for one case whose required fields are set."""

    def evaluate(self, case: AgentTestCase) -> EvalScore:
        """Score one test case.

        Raises InvalidCaseError if ``case`` is not an AgentTestCase and
        MissingFieldError if a required field is ``None``.
        """
        if not isinstance(case, AgentTestCase):
            raise InvalidCaseError(
                f"{self.name}.evaluate: expected an AgentTestCase, got "
                f"{_describe(case)}. Fix: build one with "
                f"AgentTestCase(tool_calls=[...], expected_tool_calls=[...])."
            )
        self.check_required_fields(case)
        value, reason = self.measure(case)
        value = self._checked_value(value)
        if not isinstance(reason, str):
            raise InvalidMetricError(
                f"{type(self).__qualname__}.measure returned a reason of type "
                f"{type(reason).__name__}; expected str. This is a bug in the metric."
            )
        return EvalScore(value, self.passes(value), reason, self.name, self._threshold)

    def evaluate_batch(self, batch: ToolCallBatch, *, errors: str = "raise") -> MetricResult:
        """Score every case of a ToolCallBatch.

        This default calls :meth:`evaluate` on each case, so every metric works
        in batch unchanged; metrics that can, override it with array code that
        gives the same values, passed flags and reasons.

        ``errors="raise"`` raises CaseEvaluationError at the first case that
        cannot be scored; ``errors="record"`` gives it NaN, passed False and
        its error message, and goes on.
        """
        from agentmetrics._batch import check_errors_mode
        from agentmetrics._results import loop_evaluate

        return loop_evaluate(self, batch, check_errors_mode(errors))

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
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise InvalidMetricError(
                f"{type(self).__qualname__}.measure returned a value of type "
                f"{type(value).__name__}; expected a float in [0, 1]. "
                f"This is a bug in the metric."
            )
        number = float(value)
        if not 0.0 <= number <= 1.0:  # also refuses NaN
            raise InvalidMetricError(
                f"{type(self).__qualname__}.measure returned {number!r}; expected a "
                f"float in [0, 1]. This is a bug in the metric."
            )
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
        return (_rebuild_metric, (type(self), self.get_params()))


def _rebuild_metric(cls: type[Metric], params: dict[str, Any]) -> Metric:
    return cls(**params)
