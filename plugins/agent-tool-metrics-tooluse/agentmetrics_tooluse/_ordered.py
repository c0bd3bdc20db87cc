"""trajectory_lcs: partial credit for calls made in the expected order."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from agentmetrics import AgentTestCase, Metric

if TYPE_CHECKING:
    from agentmetrics import MetricResult, ToolCallBatch

__all__ = ["TrajectoryLCS", "lcs_pairs"]


def lcs_pairs(called: Sequence[str], expected: Sequence[str]) -> list[tuple[int, int]]:
    """One longest common subsequence as ``(called index, expected index)``
    pairs: the O(nm) table, traced back preferring the earliest calls."""
    n, m = len(called), len(expected)
    table = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        row, below = table[i], table[i + 1]
        for j in range(m - 1, -1, -1):
            row[j] = below[j + 1] + 1 if called[i] == expected[j] else max(below[j], row[j + 1])
    pairs, i, j = [], 0, 0
    while i < n and j < m:
        if called[i] == expected[j]:
            pairs.append((i, j))
            i, j = i + 1, j + 1
        elif table[i + 1][j] >= table[i][j + 1]:
            i += 1
        else:
            j += 1
    return pairs


class TrajectoryLCS(Metric):
    """The share of expected calls made in the expected order: the longest
    common subsequence of the called and expected tool names over the number
    of expected calls.

    Extra calls between expected ones cost nothing; a call out of order or
    missing costs its share. Every call counts (a tool expected twice must be
    called twice). No expected calls scores 1.0 (extra calls are not this
    metric's concern: see tool_call_f1 or call_budget).
    """

    name: ClassVar[str] = "trajectory_lcs"
    required_fields: ClassVar[tuple[str, ...]] = ("tool_calls", "expected_tool_calls")
    requires_llm_judge: ClassVar[bool] = False
    higher_is_better: ClassVar[bool] = True
    description: ClassVar[str] = "Longest common subsequence of called and expected tool names, over expected calls."
    default_threshold: ClassVar[float] = 0.8

    def __init__(self, threshold: float | None = None) -> None:
        super().__init__(threshold)

    def measure(self, case: AgentTestCase) -> tuple[float, str]:
        assert case.tool_names is not None and case.expected_tool_names is not None
        return self.measure_names(case.tool_names, case.expected_tool_names)

    def measure_names(self, called: Sequence[str], expected: Sequence[str]) -> tuple[float, str]:
        if not expected:
            return 1.0, f"No expected calls ({len(called)} made)"
        pairs = lcs_pairs(called, expected)
        reason = f"{len(pairs)} of {len(expected)} expected calls made in order"
        kept = {j for _, j in pairs}
        skipped = [f"{expected[j]} (#{j + 1})" for j in range(len(expected)) if j not in kept]
        if skipped:
            reason += "; not in order or missing: " + ", ".join(skipped[:3]) + (
                f" and {len(skipped) - 3} more" if len(skipped) > 3 else "")
        return len(pairs) / len(expected), reason

    def scores_from_names(self) -> bool:
        return True

    def evaluate_batch(self, batch: ToolCallBatch, *, errors: str = "raise") -> MetricResult:
        """Vectorized: the bit-parallel LCS of every case at once (row_lcs)."""
        import numpy as np

        from agentmetrics.batch import batch_errors, ratio_result, row_lcs

        failed = batch_errors(self, batch, errors)
        return ratio_result(self, batch, row_lcs(batch), np.diff(batch.expected_offsets), failed,
                            lambda called, expected: self.measure_names(called, expected)[1])
