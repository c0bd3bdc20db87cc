"""Longest strictly increasing subsequence of every row at once (numpy)."""

from __future__ import annotations

import numpy as np

from agentmetrics._base._arrays import IntArray
from agentmetrics._base._lis import longest_increasing_run
from agentmetrics._kernels import _tuning

__all__ = ["lis_lengths"]


def lis_lengths(values: IntArray, offsets: IntArray) -> IntArray:
    """Longest strictly increasing subsequence of each row's values.

    Patience sorting run for all rows at once, one element per step: rows
    are grouped by length into power-of-two widths so the tails table stays
    small, and sorted longest first so the rows still active are a prefix.
    """
    lengths = np.diff(offsets)
    result = np.minimum(lengths, 1)
    starts = offsets[:-1]
    limit = _tuning.LIS_VECTOR_LIMIT
    width = 2
    lower = 1
    while lower < limit:
        width = min(width, limit)
        rows = np.flatnonzero((lengths > lower) & (lengths <= width))
        if len(rows):
            rows = rows[np.argsort(-lengths[rows], kind="stable")]
            row_lengths = lengths[rows]
            row_starts = starts[rows]
            big = np.iinfo(np.int64).max
            tails = np.full((len(rows), width), big, dtype=np.int64)
            for step in range(int(row_lengths[0])):
                active = int(np.searchsorted(-row_lengths, -step, side="left"))
                value = values[row_starts[:active] + step]
                slot = np.count_nonzero(tails[:active] < value[:, None], axis=1)
                tails[np.arange(active), slot] = value
            result[rows] = np.count_nonzero(tails != big, axis=1)
        lower, width = width, width * 2
    for row in np.flatnonzero(lengths > max(limit, 1)):
        result[row] = longest_increasing_run(values[offsets[row] : offsets[row + 1]].tolist())
    return result
