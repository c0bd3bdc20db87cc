"""PerTurn: any metric scored on each turn of a multi-turn case, then aggregated."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from agentmetrics._base._types import ErrorsMode, check_errors_mode
from agentmetrics.errors import AgentMetricsError, InvalidCaseError, InvalidParameterError
from agentmetrics.metric._metric import Metric
from agentmetrics.model._model import AgentTestCase, EvalScore
from agentmetrics.registry import resolve_metric

if TYPE_CHECKING:  # pragma: no cover
    from agentmetrics.cases._tool_call_batch import ToolCallBatch
    from agentmetrics.model._metric_result import MetricResult

__all__ = ["AGGREGATES", "PerTurn", "per_turn"]

AGGREGATES = ("mean", "min", "all")
_SHOWN = 3


class PerTurn(Metric):
    """Any metric, scored on each turn of a multi-turn case and aggregated.

    A case carries ``turns`` (one AgentTestCase per turn, each with its own
    calls and expected calls). The wrapped ``metric`` (a name, class or
    instance) scores every turn; ``aggregate`` combines the turn values:
    ``mean`` (default), ``min`` (the worst turn) or ``all`` (the share of
    turns that pass the wrapped metric's threshold). The threshold and the
    direction (higher or lower is better) are the wrapped metric's unless
    ``threshold`` is given. A turn the metric cannot score makes the case an
    error naming the turn; a case without turns is refused.
    """

    name: ClassVar[str] = "per_turn"
    required_fields: ClassVar[tuple[str, ...]] = ("turns",)
    requires_llm_judge: ClassVar[bool] = False
    higher_is_better: ClassVar[bool] = True
    description: ClassVar[str] = "A metric scored on each turn of a multi-turn case, then aggregated."
    default_threshold: ClassVar[float] = 0.8

    def __init__(self, threshold: float | None = None, metric: Any = "tool_selection_accuracy",
                 aggregate: str = "mean", params: dict[str, Any] | None = None) -> None:

        if isinstance(metric, PerTurn):
            raise InvalidParameterError("per_turn: the metric to wrap is itself per_turn; expected one level.")
        self.inner = resolve_metric(metric, **(params or {}))
        if isinstance(self.inner, PerTurn):
            raise InvalidParameterError("per_turn: the metric to wrap is itself per_turn; expected one level.")
        if aggregate not in AGGREGATES:
            raise InvalidParameterError(
                f"per_turn: aggregate must be one of {', '.join(AGGREGATES)}, got {aggregate!r}.")
        # What get_params gives back: a name with its parameters, else the built metric.
        self.metric = metric if isinstance(metric, str) else self.inner
        self.params = dict(params) if params and isinstance(metric, str) else None
        self.aggregate = aggregate
        if threshold is None:
            threshold = 1.0 if aggregate == "all" else self.inner.threshold
        super().__init__(threshold)
        # "all" is a share of passing turns: higher is better whatever the metric.
        self.higher_is_better = self.inner.higher_is_better if aggregate != "all" else True  # type: ignore[misc]

    def get_params(self) -> dict[str, Any]:
        return {"threshold": self.threshold, "metric": self.metric, "aggregate": self.aggregate,
                "params": self.params}

    def _combine(self, turns: Sequence[EvalScore]) -> tuple[float, str]:
        values = [score.value for score in turns]
        if self.aggregate == "mean":
            value = sum(values) / len(values)
        elif self.aggregate == "min":
            value = min(values) if self.inner.higher_is_better else max(values)
        else:
            value = sum(1 for score in turns if score.passed) / len(turns)
        failing = [(k, score) for k, score in enumerate(turns) if not score.passed]
        head = f"{len(turns)} turn{'' if len(turns) == 1 else 's'}, {self.aggregate} of {self.inner.name} {value:.2f}"
        if not failing:
            return value, head + "; every turn passes"
        shown = "; ".join(f"turn {k + 1}: {score.value:.2f} ({score.reason})" for k, score in failing[:_SHOWN])
        more = f"; and {len(failing) - _SHOWN} more" if len(failing) > _SHOWN else ""
        return value, f"{head}; {len(failing)} failing: {shown}{more}"

    def measure(self, case: AgentTestCase) -> tuple[float, str]:
        assert case.turns is not None
        if not case.turns:
            raise InvalidCaseError(
                "per_turn: the case has an empty list of turns, so there is nothing to score. "
                "Fix: give each turn its calls, or leave turns out and score the case itself.")
        scores = []
        for k, turn in enumerate(case.turns):
            try:
                scores.append(self.inner.evaluate(turn))
            except AgentMetricsError as error:
                raise InvalidCaseError(f"per_turn: turn {k + 1}: {error}") from error
        return self._combine(scores)

    def evaluate_batch(self, batch: ToolCallBatch, *, errors: ErrorsMode = "raise") -> MetricResult:
        """Every turn of every case scored in one batch of the wrapped metric
        (vectorized when it is), then combined case by case; cases with a turn
        that cannot be scored go through :meth:`evaluate` for their message."""
        if check_errors_mode(errors) == "raise":
            return super().evaluate_batch(batch, errors="raise")
        from agentmetrics.batch import require_cases

        require_cases(self, batch, "reads each case's turns")
        assert batch.cases is not None
        import numpy as np

        from agentmetrics.cases._tool_call_batch import ToolCallBatch
        from agentmetrics.model._metric_result import MetricResult, batch_errors, passes

        failed = batch_errors(self, batch, errors)
        rows = [row for row in range(len(batch)) if row not in failed]
        cases = [batch.cases[row] for row in rows]
        turns = [turn for case in cases for turn in (case.turns or ())]
        inner = self.inner.evaluate_batch(ToolCallBatch.from_cases(turns), errors="record")
        values = np.full(len(batch), np.nan)
        reasons: dict[int, str] = {}
        start = 0
        for row, case in zip(rows, cases):
            count = len(case.turns or ())
            span = range(start, start + count)
            start += count
            if count == 0 or any(k in inner.errors for k in span):
                try:
                    values[row], reasons[row] = self.measure(case)
                except AgentMetricsError as error:
                    failed[row] = str(error)
                continue
            scores = [inner.score(k) for k in span]
            values[row], reasons[row] = self._combine(scores)
        if failed:
            values[list(failed)] = np.nan
        return MetricResult(self, values, passes(self, values), dict(sorted(failed.items())),
                            reasons.__getitem__)


def per_turn(metric: Any, aggregate: str = "mean", *, threshold: float | None = None,
             **params: Any) -> PerTurn:
    """``metric`` (a name, class or instance; ``params`` configure a name or
    class) scored on each turn of multi-turn cases and aggregated
    (``mean``, ``min`` or ``all``)::

        evaluate(cases, metrics=[per_turn("tool_selection_accuracy", "min")])
    """
    return PerTurn(threshold, metric, aggregate, params or None)


PerTurn.__module__ = "agentmetrics.metrics"  # pickles name the public path
