"""Longest common subsequence of whole call sequences (repeats included), per row.

Rows whose expected side has at most 64 calls go through the bit-parallel LCS
(Allison and Dix; Hyyro's form) on all of them at once: the expected calls of
a row are the bits of one uint64, and each called position updates every
row's bit vector in a few array operations. Longer rows take the O(nm) table,
row by row.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from agentmetrics._base._arrays import IdArray, IntArray
from agentmetrics._kernels._bitsets import popcount

__all__ = ["BIT_PARALLEL_LIMIT", "sequence_lcs"]

#: The longest expected side the bit-parallel path takes.
BIT_PARALLEL_LIMIT = 64
_BLOCK = 1 << 16  # rows per block: bounds the padded matrices


def _table_lcs(called: list[int], expected: list[int]) -> int:
    previous = [0] * (len(expected) + 1)
    for name in called:
        current = [0]
        for j, want in enumerate(expected):
            current.append(previous[j] + 1 if name == want else max(previous[j + 1], current[j]))
        previous = current
    return previous[-1]


def _padded(ids: IdArray, offsets: IntArray, rows: npt.NDArray[np.intp], width: int
            ) -> npt.NDArray[np.int64]:
    lengths = offsets[rows + 1] - offsets[rows]
    out = np.full((len(rows), max(width, 1)), -1, dtype=np.int64)
    if lengths.sum():
        row_of = np.repeat(np.arange(len(rows)), lengths)
        within = np.arange(int(lengths.sum())) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        out[row_of, within] = ids[np.repeat(offsets[rows], lengths) + within]
    return out


def _bit_parallel(called: npt.NDArray[np.int64], expected: npt.NDArray[np.int64],
                  expected_lengths: npt.NDArray[Any]) -> IntArray:
    rows, width = expected.shape
    weights = np.left_shift(np.uint64(1), np.arange(width, dtype=np.uint64))
    full = np.where(expected_lengths >= 64, np.uint64(0xFFFFFFFFFFFFFFFF),
                    np.left_shift(np.uint64(1), expected_lengths.astype(np.uint64)) - np.uint64(1))
    vector: npt.NDArray[Any] = np.full(rows, 0xFFFFFFFFFFFFFFFF, dtype=np.uint64)
    match = np.empty(rows, dtype=np.uint64)
    for position in range(called.shape[1]):
        column = called[:, position:position + 1]
        live = column[:, 0] >= 0
        if not live.any():
            break
        hits = (expected == column) & live[:, None]
        np.bitwise_or.reduce(np.where(hits, weights, np.uint64(0)), axis=1, out=match)
        both = vector & match
        with np.errstate(over="ignore"):
            vector = (vector + both) | (vector - both)
    counts = np.empty(rows, dtype=np.uint8)
    popcount(~vector & full, counts)
    return counts.astype(np.int64)


def sequence_lcs(called_ids: IdArray, called_offsets: IntArray, expected_ids: IdArray,
                 expected_offsets: IntArray) -> IntArray:
    """Per row, the length of the longest common subsequence of the called and
    the expected tool ids, every call counted (a tool expected twice in a row
    must be called twice in that order)."""
    rows = len(called_offsets) - 1
    out = np.zeros(rows, dtype=np.int64)
    made = np.diff(called_offsets)
    wanted = np.diff(expected_offsets)
    active = np.flatnonzero((made > 0) & (wanted > 0))
    short = active[wanted[active] <= BIT_PARALLEL_LIMIT]
    for start in range(0, len(short), _BLOCK):
        block = short[start:start + _BLOCK]
        expected = _padded(expected_ids, expected_offsets, block, int(wanted[block].max()))
        called = _padded(called_ids, called_offsets, block, int(made[block].max()))
        out[block] = _bit_parallel(called, expected, wanted[block])
    for row in active[wanted[active] > BIT_PARALLEL_LIMIT].tolist():
        out[row] = _table_lcs(called_ids[called_offsets[row]:called_offsets[row + 1]].tolist(),
                              expected_ids[expected_offsets[row]:expected_offsets[row + 1]].tolist())
    return out
