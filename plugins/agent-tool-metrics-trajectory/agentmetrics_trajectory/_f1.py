"""ToolCallF1: precision, recall and F1 over the multisets of tool names."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, ClassVar

from agentmetrics import AgentTestCase, Metric

if TYPE_CHECKING:
    from agentmetrics import MetricResult, ToolCallBatch

__all__ = ["ToolCallF1"]


def _counted(names: Counter[str]) -> str:
    return ", ".join(f"{name} x{count}" if count > 1 else name for name, count in names.items())


class ToolCallF1(Metric):
    """F1 of the tool calls made against those expected, counting repeats.

    Each call is matched one to one with an expected call of the same name,
    so a retried call that was expected once counts once, and a call expected
    twice must be made twice. ``matched = sum(min(called[n], expected[n]))``;
    precision = matched / calls made, recall = matched / calls expected,
    F1 = 2 * matched / (made + expected). Never above 1, independent of list
    order; both empty scores 1.0.
    """

    name: ClassVar[str] = "tool_call_f1"
    required_fields: ClassVar[tuple[str, ...]] = ("tool_calls", "expected_tool_calls")
    requires_llm_judge: ClassVar[bool] = False
    higher_is_better: ClassVar[bool] = True
    description: ClassVar[str] = "F1 of tool calls against expected calls, as multisets of names."
    default_threshold: ClassVar[float] = 0.8

    def __init__(self, threshold: float | None = None) -> None:
        super().__init__(threshold)

    def measure(self, case: AgentTestCase) -> tuple[float, str]:
        assert case.tool_names is not None and case.expected_tool_names is not None
        return self.measure_names(case.tool_names, case.expected_tool_names)

    def measure_names(
        self, called_names: tuple[str, ...], expected_names: tuple[str, ...]
    ) -> tuple[float, str]:
        """``(F1, reason)`` from the names called and expected."""
        made, wanted = len(called_names), len(expected_names)
        if not made and not wanted:
            return 1.0, "No tool calls expected and none made"
        called, expected = Counter(called_names), Counter(expected_names)
        matched = sum((called & expected).values())
        value = 2 * matched / (made + wanted)
        precision = f"{matched}/{made}" if made else "0/0"
        reason = f"precision {precision}, recall {matched}/{wanted}"
        extra, missed = called - expected, expected - called
        if missed:
            reason += f"; missed: {_counted(missed)}"
        if extra:
            reason += f"; extra: {_counted(extra)}"
        return value, reason

    def scores_from_names(self) -> bool:
        return True

    def evaluate_batch(self, batch: ToolCallBatch, *, errors: str = "raise") -> MetricResult:
        """Vectorized: matched calls per case, counted by tool name."""
        import numpy as np

        from agentmetrics.batch import batch_errors, ratio_result, row_multiset_overlap

        failed = batch_errors(self, batch, errors)
        total = np.diff(batch.called_offsets) + np.diff(batch.expected_offsets)
        matched = row_multiset_overlap(batch)
        return ratio_result(
            self, batch, 2 * matched, total, failed, lambda c, e: self.measure_names(c, e)[1]
        )
