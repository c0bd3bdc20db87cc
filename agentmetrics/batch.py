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

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from agentmetrics._batch import ToolCallBatch
from agentmetrics._kernels import IntArray, multiset_overlap, set_counts
from agentmetrics._results import MetricResult, batch_errors, passes

if TYPE_CHECKING:  # pragma: no cover
    from agentmetrics._metric import Metric

__all__ = [
    "MetricResult",
    "ToolCallBatch",
    "batch_errors",
    "passes",
    "ratio_result",
    "ratio_values",
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


def ratio_result(
    metric: Metric,
    batch: ToolCallBatch,
    numerator: IntArray,
    denominator: IntArray,
    failed: Mapping[int, str],
    reason: Callable[[tuple[str, ...], tuple[str, ...]], str],
) -> MetricResult:
    """A MetricResult whose value is ``numerator / denominator`` per case
    (1.0 where the denominator is 0, NaN where ``failed`` has the case), and
    whose reason comes from the case's tool names, computed when asked for.

    The division is int64 / int64 in float64, which rounds exactly as
    Python's ``int / int`` does, so values equal a scalar ``a / b`` bit for bit.
    """
    values = np.ones(len(batch))
    np.divide(numerator, denominator, out=values, where=denominator > 0)
    return ratio_values(metric, batch, values, failed, reason)


def ratio_values(
    metric: Metric,
    batch: ToolCallBatch,
    values: npt.NDArray[np.float64],
    failed: Mapping[int, str],
    reason: Callable[[tuple[str, ...], tuple[str, ...]], str],
) -> MetricResult:
    """A MetricResult of ``values`` (one float64 per case, overwritten with NaN
    where ``failed`` has the case), with reasons from the case's tool names,
    computed when asked for."""
    if failed:
        values[list(failed)] = np.nan

    def explain(row: int) -> str:
        called, expected = batch.called_names(row), batch.expected_names(row)
        assert called is not None and expected is not None
        return reason(called, expected)

    return MetricResult(metric, values, passes(metric, values), dict(failed), explain)
