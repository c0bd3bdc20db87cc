"""Building blocks for metrics that score a whole ToolCallBatch with arrays.

A metric overrides ``Metric.evaluate_batch(batch, *, errors)`` and returns a
MetricResult whose values, passed flags and reasons equal what ``evaluate``
gives case by case. These helpers cover the common parts::

    def evaluate_batch(self, batch, *, errors="raise"):
        failed = batch_errors(self, batch, errors)      # unreadable / missing rows
        values = ...                                    # one float64 per case
        values[list(failed)] = np.nan
        return MetricResult(self, values, passes(self, values), failed, explain)
"""

from __future__ import annotations

from agentmetrics._batch import ToolCallBatch
from agentmetrics._kernels import IntArray, multiset_overlap, set_counts
from agentmetrics._results import MetricResult, batch_errors, passes

__all__ = [
    "MetricResult",
    "ToolCallBatch",
    "batch_errors",
    "passes",
    "row_multiset_overlap",
    "row_set_counts",
]


def row_multiset_overlap(batch: ToolCallBatch) -> IntArray:
    """Per case, calls matched one to one by tool name (repeats count)."""
    return multiset_overlap(
        batch.called_ids,
        batch.called_offsets,
        batch.expected_ids,
        batch.expected_offsets,
        len(batch.vocabulary),
    )


def row_set_counts(batch: ToolCallBatch) -> tuple[IntArray, IntArray, IntArray]:
    """Per case, distinct tools called, expected, and in both."""
    counts = set_counts(
        batch.called_ids,
        batch.called_offsets,
        batch.expected_ids,
        batch.expected_offsets,
        len(batch.vocabulary),
    )
    return counts.called, counts.expected, counts.shared
