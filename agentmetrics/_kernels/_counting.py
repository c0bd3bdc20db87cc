"""Per-row counts for metrics over tool names, block by block.

Each block of rows is counted by the fastest exact path that fits it:
bitsets when the vocabulary has at most 64 tools, lanes otherwise; in
ordered mode, the bit-parallel LCS only for rows that share two or more
tools (with at most one shared tool the LCS is the shared count). Rows with
more than MAX_LANES calls on a side (rare) are left over, and the caller
counts them with the sort-based kernels, exact for any length.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

from agentmetrics._base._arrays import IdArray, IntArray
from agentmetrics._kernels import _sorted, _tuning
from agentmetrics._kernels._bitsets import Bitsets, popcount
from agentmetrics._kernels._blocks import BlockSide, in_blocks, largest_block
from agentmetrics._kernels._lanes import (
    CALLED,
    EXPECTED,
    SideLanes,
    lane_counts,
    lane_lcs,
    lane_overlap,
    lane_type,
    repeat_last,
    width_classes,
)
from agentmetrics._kernels._sorted import SetCounts

__all__ = ["multiset_overlap", "ordered_matches", "selection_values", "set_counts"]

U8 = npt.NDArray[np.uint8]
Arrays = tuple[IdArray, IntArray, IdArray, IntArray]

SETS, ORDERED, OVERLAP = "sets", "ordered", "overlap"


class _Scratch:
    """One thread's buffers, reused block after block."""

    def __init__(self, rows: int, called_calls: int, expected_calls: int,
                 vocabulary_size: int, bitsets: bool) -> None:
        self.bitsets = Bitsets(rows, max(called_calls, expected_calls)) if bitsets else None
        dtype = lane_type(vocabulary_size)
        self.called = SideLanes(dtype, rows, called_calls, CALLED)
        self.expected = SideLanes(dtype, rows, expected_calls, EXPECTED)
        self.counts = np.empty((3, rows), dtype=np.uint8)
        self.longest = np.empty(rows, dtype=np.int64)
        self.union = np.empty(rows, dtype=np.uint8)
        self.index = np.empty(rows, dtype=np.intp)
        self.bools = [np.empty((8, rows), dtype=bool) for _ in range(4)]


def _groups(widths: npt.NDArray[np.intp] | None, rows: npt.NDArray[np.intp] | None
            ) -> Iterator[tuple[int, Any]]:
    """``(width, rows)`` for each lane width the rows need: all rows of a
    block at width 8 when none is longer (a slice: no gathers)."""
    if widths is None:
        yield 8, (slice(None) if rows is None else rows)
        return
    chosen_widths = widths if rows is None else widths[rows]
    for width in (8, 16, 32, 64):
        chosen = np.flatnonzero(chosen_widths == width)
        if len(chosen):
            yield width, (chosen if rows is None else rows[chosen])


def _block(s: _Scratch, called: BlockSide, expected: BlockSide, mode: str
           ) -> tuple[tuple[U8, U8, U8] | None, U8 | None, npt.NDArray[np.intp]]:
    """Counts of one block: ``(called, expected, shared)`` distinct tools
    (not in overlap mode), the matched count (ordered: the LCS; overlap: calls
    matched one to one), and the block rows left over."""
    rows = len(called.lengths)
    widths = None  # lanes each row needs, when some row has more than 8 calls
    leftover = np.zeros(0, np.intp)
    if s.bitsets is None or mode == ORDERED:  # bitset counts are exact for any length
        longest = s.longest[:rows]
        np.maximum(called.lengths, expected.lengths, out=longest)
        top = int(longest.max()) if rows else 0
        limit = _tuning.MAX_LANES
        if top > min(8, limit):
            widths = width_classes(longest, limit)
            leftover = np.flatnonzero(widths == 0)

    def lanes(chosen: Any, width: int) -> tuple[Any, Any]:
        s.called.load(called)
        s.expected.load(expected)
        return s.called.gather(called, chosen, width), s.expected.gather(expected, chosen, width)

    if mode == OVERLAP:
        overlap = np.zeros(rows, dtype=np.uint8)
        for width, chosen in _groups(widths, None):
            (a, _), (e, _) = lanes(chosen, width)
            overlap[chosen] = lane_overlap(a, e)
        return None, overlap, leftover

    called_n, expected_n, shared = s.counts[:, :rows]
    if s.bitsets is not None:  # exact for rows of any length
        called_masks = s.bitsets.masks_of(0, called)
        expected_masks = s.bitsets.masks_of(1, expected)
        popcount(called_masks, called_n)
        popcount(expected_masks, expected_n)
        both = s.bitsets.other[:rows]
        np.bitwise_and(called_masks, expected_masks, out=both)
        popcount(both, shared)
    else:
        for width, chosen in _groups(widths, None):
            called_n[chosen], expected_n[chosen], shared[chosen] = lane_counts(
                *lanes(chosen, width), s.bools)
    matched = None
    if mode == ORDERED:
        matched = shared.copy()
        need = np.flatnonzero(shared >= 2)  # else the LCS is the shared count
        if widths is not None:
            need = need[widths[need] > 0]
        if len(need):
            # Gather narrow lanes when the block's are loaded or many rows need
            # them; for a few rows, int32 lanes straight from the ids are cheaper.
            narrow = s.bitsets is None or len(need) * 8 >= rows
            for width, chosen in _groups(widths, need):
                if narrow:
                    (a, _), (e, _) = lanes(chosen, width)
                else:
                    a, e = repeat_last(called, chosen, width), repeat_last(expected, chosen, width)
                matched[chosen] = lane_lcs(a, e, int(called.lengths[chosen].max()))
    return (called_n, expected_n, shared), matched, leftover


Sink = Callable[[_Scratch, int, int, "tuple[U8, U8, U8] | None", "U8 | None"], None]


def _count(arrays: Arrays, vocabulary_size: int, mode: str, sink: Sink) -> npt.NDArray[np.intp]:
    """Count every block, hand each block's counts to ``sink(scratch, start,
    stop, counts, matched)``; return the rows left over (sorted)."""
    called_ids, called_offsets, expected_ids, expected_offsets = arrays
    rows = len(called_offsets) - 1
    block = _tuning.BLOCK_ROWS
    bitsets = mode != OVERLAP and vocabulary_size <= _tuning.BITSET_LIMIT
    if bitsets:
        # Measured (1M rows, 40 tools): the bitset levels want to stay in L2 (a
        # quarter block); the LCS's narrow lanes want longer blocks (a half).
        block = max(1, block // (2 if mode == ORDERED else 4))
    sizes = largest_block(called_offsets, block), largest_block(expected_offsets, block)
    leftovers: list[npt.NDArray[np.intp]] = []

    def work(starts: Sequence[int]) -> None:
        scratch = _Scratch(min(block, rows), *sizes, vocabulary_size, bitsets)
        for start in starts:
            stop = min(start + block, rows)
            counts, matched, leftover = _block(
                scratch, BlockSide(called_ids, called_offsets, start, stop),
                BlockSide(expected_ids, expected_offsets, start, stop), mode)
            sink(scratch, start, stop, counts, matched)
            if len(leftover):
                leftovers.append(leftover + start)

    in_blocks(rows, work, block)
    return np.sort(np.concatenate(leftovers)) if leftovers else np.zeros(0, np.intp)


def _subsets(arrays: Arrays, rows: npt.NDArray[np.intp]) -> Arrays:
    called_ids, called_offsets, expected_ids, expected_offsets = arrays
    return (*_sorted.subset(called_ids, called_offsets, rows),
            *_sorted.subset(expected_ids, expected_offsets, rows))


def set_counts(called_ids: IdArray, called_offsets: IntArray, expected_ids: IdArray,
               expected_offsets: IntArray, vocabulary_size: int) -> SetCounts:
    """Per row: distinct tools called, expected, and in both."""
    return ordered_matches(called_ids, called_offsets, expected_ids, expected_offsets,
                           vocabulary_size, _ordered=False)[0]


def ordered_matches(called_ids: IdArray, called_offsets: IntArray, expected_ids: IdArray,
                    expected_offsets: IntArray, vocabulary_size: int, *, _ordered: bool = True
                    ) -> tuple[SetCounts, IntArray]:
    """Set counts and, per row, the LCS of the two first-call sequences
    (without ``_ordered``: the shared count in its place)."""
    arrays = (called_ids, called_offsets, expected_ids, expected_offsets)
    out = SetCounts.zeros(len(called_offsets) - 1)
    matched = np.zeros(len(out.called), dtype=np.int64) if _ordered else out.shared

    def sink(_: _Scratch, start: int, stop: int, counts: tuple[U8, U8, U8] | None,
             lcs: U8 | None) -> None:
        assert counts is not None
        out.called[start:stop], out.expected[start:stop], out.shared[start:stop] = counts
        if lcs is not None:
            matched[start:stop] = lcs

    rest = _count(arrays, vocabulary_size, ORDERED if _ordered else SETS, sink)
    if len(rest):
        part = _subsets(arrays, rest)
        if _ordered:
            counts, matched[rest] = _sorted.ordered_matches(*part, vocabulary_size)
        else:
            counts = _sorted.set_counts(*part, vocabulary_size)
        out.called[rest], out.expected[rest], out.shared[rest] = (
            counts.called, counts.expected, counts.shared)
    return out, matched


def multiset_overlap(called_ids: IdArray, called_offsets: IntArray, expected_ids: IdArray,
                     expected_offsets: IntArray, vocabulary_size: int) -> IntArray:
    """Per row, calls matched one to one by name: ``sum(min(called[n], expected[n]))``."""
    arrays = (called_ids, called_offsets, expected_ids, expected_offsets)
    matched = np.zeros(len(called_offsets) - 1, dtype=np.int64)

    def sink(_: _Scratch, start: int, stop: int, counts: tuple[U8, U8, U8] | None,
             overlap: U8 | None) -> None:
        assert overlap is not None
        matched[start:stop] = overlap

    rest = _count(arrays, vocabulary_size, OVERLAP, sink)
    if len(rest):
        matched[rest] = _sorted.multiset_overlap(*_subsets(arrays, rest), vocabulary_size)
    return matched


@lru_cache(maxsize=4)
def _ratios(largest: int) -> npt.NDArray[np.float64]:
    """``table[u * (largest + 1) + m] = m / u`` (float64, rounded as Python's
    ``int / int``), and 1.0 for ``u == 0``: a division per row becomes a gather."""
    u = np.arange(largest + 1, dtype=np.float64)[:, None]
    m = np.arange(largest + 1, dtype=np.float64)[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        table = np.where(u > 0, m / np.maximum(u, 1.0), 1.0)
    return np.ascontiguousarray(table.reshape(-1))


def selection_values(called_ids: IdArray, called_offsets: IntArray, expected_ids: IdArray,
                     expected_offsets: IntArray, vocabulary_size: int, ordered: bool
                     ) -> npt.NDArray[np.float64]:
    """ToolSelectionAccuracy per row: matched (shared, or the LCS when
    ``ordered``) over the union of the two sets; 1.0 when both are empty."""
    arrays = (called_ids, called_offsets, expected_ids, expected_offsets)
    rows = len(called_offsets) - 1
    values = np.empty(rows, dtype=np.float64)
    largest = 2 * max(_tuning.MAX_LANES, _tuning.BITSET_LIMIT)
    table = _ratios(largest)
    span = largest + 1

    def sink(s: _Scratch, start: int, stop: int, counts: tuple[U8, U8, U8] | None,
             lcs: U8 | None) -> None:
        assert counts is not None
        called_n, expected_n, shared = counts
        union, index = s.union[: stop - start], s.index[: stop - start]
        np.add(called_n, expected_n, out=union)
        union -= shared
        np.multiply(union, span, out=index, dtype=np.intp)
        index += shared if lcs is None else lcs
        np.take(table, index, out=values[start:stop], mode="clip")

    rest = _count(arrays, vocabulary_size, ORDERED if ordered else SETS, sink)
    if len(rest):
        part = _subsets(arrays, rest)
        if ordered:
            counts, matched = _sorted.ordered_matches(*part, vocabulary_size)
        else:
            counts = _sorted.set_counts(*part, vocabulary_size)
            matched = counts.shared
        union = counts.called + counts.expected - counts.shared
        part_values = np.ones(len(rest))
        np.divide(matched, union, out=part_values, where=union > 0)
        values[rest] = part_values
    return values
