"""Weighted: a blend of other metrics, taken by name, scored in one pass each."""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from agentmetrics._base._types import ErrorsMode, check_errors_mode
from agentmetrics.errors import (
    AgentMetricsError,
    CaseEvaluationError,
    InvalidCaseError,
    InvalidParameterError,
)
from agentmetrics.metric._inputs import Input
from agentmetrics.metric._metric import Metric, metric_labels
from agentmetrics.model._metric_result import MetricResult, passes
from agentmetrics.model._model import AgentTestCase, EvalScore, describe
from agentmetrics.registry import resolve_metric

if TYPE_CHECKING:  # pragma: no cover
    from agentmetrics.cases._tool_call_batch import ToolCallBatch

__all__ = ["Weighted"]


def _part(index: int, given: object) -> tuple[Metric, float, Any]:
    """One ``(metric, weight)`` entry of ``parts``: the built metric, its
    weight, and the spec get_params gives back."""
    where = f"weighted: parts[{index}]"
    if not isinstance(given, (tuple, list)) or len(given) not in (2, 3):
        raise InvalidParameterError(
            f"{where} is {describe(given)}; expected (metric, weight) or (name, weight, "
            f"{{params}}). Fix: e.g. parts=[('answer_match', 0.7), ('latency', 0.3)].")
    spec, weight = given[0], given[1]
    params = given[2] if len(given) == 3 else None
    if params is not None and not isinstance(params, Mapping):
        raise InvalidParameterError(f"{where}[2] (the parameters) is {describe(params)}; "
                                    f"expected a dict, e.g. {{'threshold': 2.5}}.")
    if (isinstance(weight, bool) or not isinstance(weight, numbers.Real)
            or not math.isfinite(float(weight)) or float(weight) <= 0):
        raise InvalidParameterError(f"{where}[1] (the weight) is {describe(weight)}; expected "
                                    f"a finite number above 0.")
    if isinstance(spec, Weighted) or spec == "weighted":
        raise InvalidParameterError(f"{where}[0] is itself weighted; expected one level. Fix: "
                                    f"list its parts here, with their weights multiplied.")
    try:
        metric = resolve_metric(spec, **dict(params or {}))
    except AgentMetricsError as error:
        try:
            named = type(error)(f"{where}[0] ({spec!r}): {error}")
        except TypeError:  # an error class with its own arguments
            named = InvalidParameterError(f"{where}[0] ({spec!r}): {error}")
        raise named from error
    kept: list[Any] = [spec if isinstance(spec, str) else metric, float(weight)]
    if params:
        kept.append(dict(params))
    return metric, float(weight), tuple(kept)


class Weighted(Metric):
    """A weighted blend of other metrics, each taken by name (or instance).

    ``parts`` lists ``(metric, weight)`` or ``(name, weight, {params})``
    (by default tool_selection_accuracy alone, so the class can be built and
    described; a blend names its parts).
    Each part is oriented to a share from 0 (worst) to 1 (best): a part with
    a bounded ``value_range`` by where its value lies in it (``1 - value`` for
    a lower-is-better share), a part with an unbounded range (seconds, money)
    by whether it passes its own threshold (1 or 0). The blend is the
    weighted mean of the shares. A case one part cannot score is an error row
    naming that part; the blend reads the union of its parts' inputs, and
    each part is scored by its own batch path over the whole batch.
    """

    name: ClassVar[str] = "weighted"
    description: ClassVar[str] = ("A weighted blend of other metrics by name, each oriented "
                                  "to a share (0 worst, 1 best).")
    default_threshold: ClassVar[float] = 0.5

    def __init__(self, parts: Sequence[Any] = (("tool_selection_accuracy", 1.0),),
                 threshold: float | None = None) -> None:
        if isinstance(parts, (str, bytes, Mapping)) or not isinstance(parts, Sequence) \
                or not parts:
            raise InvalidParameterError(
                f"weighted: parts must be a non-empty list of (metric, weight) pairs, got "
                f"{describe(parts)}. Fix: e.g. parts=[('answer_match', 0.7), ('latency', 0.3)].")
        built = [_part(index, given) for index, given in enumerate(parts)]
        self.metrics = tuple(metric for metric, _, _ in built)
        self.weights = tuple(weight for _, weight, _ in built)
        self.parts = tuple(spec for _, _, spec in built)
        self.labels = tuple(metric_labels(list(self.metrics)))
        super().__init__(threshold)

    def get_params(self) -> dict[str, Any]:
        return {"parts": self.parts, "threshold": self.threshold}

    def reads(self) -> tuple[Input, ...]:
        found: dict[str, Input] = {}
        for metric in self.metrics:
            for item in metric.reads():
                found.setdefault(item.name, item)
        return tuple(found.values())

    def check_required_fields(self, case: AgentTestCase) -> None:
        """Nothing here: each part checks what it reads, and a refusal names the part."""

    def _share(self, metric: Metric, value: float, passed: bool) -> float:
        low, high = type(metric).value_range
        if math.isinf(low) or math.isinf(high):
            return 1.0 if passed else 0.0
        share = min(1.0, max(0.0, (value - low) / (high - low)))
        return share if metric.higher_is_better else 1.0 - share

    def _blend(self, scores: Sequence[EvalScore]) -> tuple[float, str]:
        total = sum(self.weights)
        shares = [self._share(metric, score.value, score.passed)
                  for metric, score in zip(self.metrics, scores)]
        blend = 0.0
        for weight, share in zip(self.weights, shares):  # the batch path's order and rounding
            blend += weight * share
        value = min(1.0, max(0.0, blend / total))
        shown = ", ".join(
            f"{label} {score.value:g}{' ' + unit if unit else ''} -> {share:.2f} x {weight:g}"
            for label, score, share, weight, unit
            in zip(self.labels, scores, shares, self.weights,
                   (type(metric).unit for metric in self.metrics)))
        return value, f"blend {value:.2f} of {shown}"

    def measure(self, case: AgentTestCase) -> tuple[float, str]:
        scores = []
        for label, metric in zip(self.labels, self.metrics):
            try:
                scores.append(metric.evaluate(case))
            except AgentMetricsError as error:
                raise InvalidCaseError(f"weighted: part {label}: {error}") from error
        return self._blend(scores)

    def evaluate_batch(self, batch: ToolCallBatch, *, errors: ErrorsMode = "raise") -> MetricResult:
        """Each part over the whole batch by its own batch path, then blended
        row by row (the same values and reasons as :meth:`evaluate`)."""
        mode = check_errors_mode(errors)
        results = [metric.evaluate_batch(batch, errors="record") for metric in self.metrics]
        n = len(batch)
        failed: dict[int, str] = {}
        for label, result in zip(self.labels, results):
            for row, message in result.errors.items():
                if row in batch.invalid:
                    failed.setdefault(row, batch.invalid[row])
                else:
                    failed.setdefault(row, f"weighted: part {label}: {message}")
        if failed and mode == "raise":
            row = min(failed)
            raise CaseEvaluationError(row, batch.case_id(row), self.name, failed[row])
        total = sum(self.weights)
        blend = np.zeros(n)
        for metric, weight, result in zip(self.metrics, self.weights, results):
            low, high = type(metric).value_range
            if math.isinf(low) or math.isinf(high):
                share = result.passed.astype(np.float64)
            else:
                share = np.clip((result.values - low) / (high - low), 0.0, 1.0)
                if not metric.higher_is_better:
                    share = 1.0 - share
            blend += weight * share
        values = np.clip(blend / total, 0.0, 1.0)
        values[list(failed)] = np.nan

        def explain(row: int) -> str:
            return self._blend([result.score(row) for result in results])[1]

        return MetricResult(self, values, passes(self, values), dict(sorted(failed.items())),
                            explain)
