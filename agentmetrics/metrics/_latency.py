"""Latency: how long the run took, in seconds."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, ClassVar


from agentmetrics.batch import MetricResult
from agentmetrics.corpus import Maximum, Quantile, Reducer
from agentmetrics.metric._inputs import Input
from agentmetrics.metric._metric import Metric
from agentmetrics.metrics._values import field_values
from agentmetrics.model._model import AgentTestCase

if TYPE_CHECKING:  # pragma: no cover
    from agentmetrics._base._types import ErrorsMode
    from agentmetrics.cases._tool_call_batch import ToolCallBatch

__all__ = ["Latency"]


class Latency(Metric):
    """The case's ``latency`` (seconds, the run's wall time) as its value;
    lower is better: a case passes when ``value <= threshold`` (10 s by
    default). Over a run: the median (p50), the 95th percentile (p95) and the
    maximum."""

    name: ClassVar[str] = "latency"
    inputs: ClassVar[tuple[str | Input, ...]] = (
        Input("latency", doc="the run's wall time, in seconds"),
    )
    requires_llm_judge: ClassVar[bool] = False
    higher_is_better: ClassVar[bool] = False
    description: ClassVar[str] = "The run's latency in seconds (lower is better); p50, p95 and max."
    default_threshold: ClassVar[float] = 10.0
    value_range: ClassVar[tuple[float, float]] = (0.0, math.inf)
    unit: ClassVar[str | None] = "s"
    #: A cached score is reused only for the same latency.
    cache_fields: ClassVar[tuple[str, ...]] = ("latency",)
    aggregates: ClassVar[Mapping[str, Reducer]] = {
        "p50": Quantile(0.5), "p95": Quantile(0.95), "max": Maximum()}

    def __init__(self, threshold: float | None = None) -> None:
        super().__init__(threshold)

    def measure(self, case: AgentTestCase) -> tuple[float, str]:
        seconds = case.latency
        assert seconds is not None
        return seconds, self.reason_of(seconds)

    def reason_of(self, seconds: float) -> str:
        """The reason of a case that took ``seconds``."""
        within = "within" if seconds <= self.threshold else "over"
        return f"{seconds:g} s, {within} the {self.threshold:g} s threshold"

    def evaluate_batch(self, batch: ToolCallBatch, *, errors: ErrorsMode = "raise") -> MetricResult:
        """The latency column itself (float64, NaN where a case has none);
        reasons made from the values when asked for."""
        return field_values(self, batch, errors, "latency", self.reason_of)

