"""Longest strictly increasing subsequence of one sequence (no numpy: the scalar path).

With repeats dropped, the LCS of two sequences of distinct tools equals the
longest increasing subsequence of the shared tools' expected positions taken
in called order; the scalar metric and the sort-based kernels both use it.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence

__all__ = ["longest_increasing_run"]


def longest_increasing_run(positions: Sequence[int]) -> int:
    """Length of the longest strictly increasing subsequence (patience sorting,
    O(k log k) instead of the O(k^2) LCS table)."""
    tails: list[int] = []
    for position in positions:
        slot = bisect_left(tails, position)
        if slot == len(tails):
            tails.append(position)
        else:
            tails[slot] = position
    return len(tails)
