"""Sort-based kernels: exact for rows of any length and any vocabulary.

They serve the rows the lane kernels leave (more than MAX_LANES calls on a
side) and the row-set helpers. Everything is built on stable sorts of keys
``row * width + tool_id`` (timsort finds the per-row runs cheaply) and
comparisons of neighbours; no np.unique (measured 100x slower on 4M calls).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs
import numpy as np
import numpy.typing as npt

from agentmetrics._base._arrays import IdArray, IntArray
from agentmetrics._kernels import _tuning
from agentmetrics._kernels._blocks import BlockSide, in_blocks
from agentmetrics._kernels._lis import lis_lengths

__all__ = [
    "SetCounts",
    "case_index",
    "multiset_overlap",
    "ordered_matches",
    "set_counts",
    "subset",
    "unique_keys",
]


@attrs.frozen(slots=True, eq=False)
class SetCounts:
    """Per row: distinct tools called, expected, and in both."""

    called: IntArray
    expected: IntArray
    shared: IntArray

    @classmethod
    def zeros(cls, rows: int) -> SetCounts:
        return cls(*(np.zeros(rows, dtype=np.int64) for _ in range(3)))


def case_index(offsets: IntArray) -> IntArray:
    """For each flat position, the row it belongs to."""
    rows: IntArray = np.repeat(np.arange(len(offsets) - 1, dtype=np.int64), np.diff(offsets))
    return rows


def subset(ids: IdArray, offsets: IntArray, rows: IntArray) -> tuple[IdArray, IntArray]:
    """The calls of the given rows only, as their own (ids, offsets)."""
    lengths = offsets[rows + 1] - offsets[rows]
    new_offsets = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(lengths, out=new_offsets[1:])
    shift = np.repeat(offsets[rows] - new_offsets[:-1], lengths)
    picked: IdArray = ids[np.arange(int(new_offsets[-1]), dtype=np.int64) + shift]
    return picked, new_offsets


def _group_starts(sorted_keys: npt.NDArray[Any]) -> npt.NDArray[np.bool_]:
    starts = np.empty(len(sorted_keys), dtype=bool)
    if len(sorted_keys):
        starts[0] = True
        np.not_equal(sorted_keys[1:], sorted_keys[:-1], out=starts[1:])
    return starts


def unique_keys(ids: IdArray, offsets: IntArray, width: int) -> IntArray:
    """Sorted distinct ``row * width + id`` keys: each row's set of tools."""
    keys = case_index(offsets) * width + ids
    keys.sort(kind="stable")
    return keys[_group_starts(keys)]


def _key_dtype(width: int) -> type[np.signedinteger[Any]]:
    return np.int32 if _tuning.BLOCK_ROWS * width < 2**31 else np.int64


def _row_keys(side: BlockSide, width: int, dtype: type[np.signedinteger[Any]]) -> npt.NDArray[Any]:
    """``row * width + id`` for every call of the block, in call order."""
    base = np.arange(len(side.lengths), dtype=dtype) * dtype(width)
    keys = np.repeat(base, side.lengths)
    keys += side.ids
    return keys


def _running_count(flags: npt.NDArray[np.bool_]) -> npt.NDArray[np.int32]:
    """``out[i]`` = number of True flags before position ``i`` (length len + 1).

    An explicit int32 accumulator: numpy's default bool -> int64 cumsum is
    about 15x slower.
    """
    out = np.zeros(len(flags) + 1, dtype=np.int32)
    np.cumsum(flags, dtype=np.int32, out=out[1:])
    return out


def _per_row_totals(flags: npt.NDArray[np.bool_], lengths: IntArray) -> IntArray:
    """How many flags are set within each row's segment."""
    seen = _running_count(flags)
    ends = np.cumsum(lengths)
    totals: IntArray = (seen[ends] - seen[ends - lengths]).astype(np.int64)
    return totals


def _blocks(
    kernel: Any, called_ids: IdArray, called_offsets: IntArray,
    expected_ids: IdArray, expected_offsets: IntArray,
) -> None:
    """``kernel(start, stop, called, expected)`` on every block of rows."""
    rows = len(called_offsets) - 1

    def work(starts: Sequence[int]) -> None:
        for start in starts:
            stop = min(start + _tuning.BLOCK_ROWS, rows)
            kernel(start, stop, BlockSide(called_ids, called_offsets, start, stop),
                   BlockSide(expected_ids, expected_offsets, start, stop))

    in_blocks(rows, work, _tuning.BLOCK_ROWS)


def set_counts(
    called_ids: IdArray, called_offsets: IntArray,
    expected_ids: IdArray, expected_offsets: IntArray, vocabulary_size: int,
) -> SetCounts:
    """Distinct-tool counts per row by sorting."""
    out = SetCounts.zeros(len(called_offsets) - 1)
    width = max(vocabulary_size, 1)
    dtype = _key_dtype(width)

    def block(start: int, stop: int, called: BlockSide, expected: BlockSide) -> None:
        called_keys = _row_keys(called, width, dtype)
        called_keys.sort(kind="stable")  # per-row runs: timsort merges them cheaply
        starts = _group_starts(called_keys)
        out.called[start:stop] = _per_row_totals(starts, called.lengths)
        called_keys = called_keys[starts]
        expected_keys = _row_keys(expected, width, dtype)
        expected_keys.sort(kind="stable")
        starts = _group_starts(expected_keys)
        out.expected[start:stop] = _per_row_totals(starts, expected.lengths)
        both = np.concatenate([called_keys, expected_keys[starts]])
        both.sort(kind="stable")  # two sorted runs: a merge
        shared = both[1:][both[1:] == both[:-1]]
        out.shared[start:stop] = np.bincount(shared // width, minlength=stop - start)

    _blocks(block, called_ids, called_offsets, expected_ids, expected_offsets)
    return out


def _first_calls(
    side: BlockSide, width: int, dtype: type[np.signedinteger[Any]]
) -> tuple[npt.NDArray[Any], IntArray, IntArray]:
    """Each row's distinct keys (sorted), the block position of each one's
    first call, and each row's number of distinct tools."""
    keys = _row_keys(side, width, dtype)
    order = np.argsort(keys, kind="stable")  # equal keys keep call order
    sorted_keys = keys[order]
    starts = _group_starts(sorted_keys)
    counts = _per_row_totals(starts, side.lengths)
    first_positions: IntArray = order[starts]
    return sorted_keys[starts], first_positions, counts


def ordered_matches(
    called_ids: IdArray, called_offsets: IntArray,
    expected_ids: IdArray, expected_offsets: IntArray, vocabulary_size: int,
) -> tuple[SetCounts, IntArray]:
    """Set counts and, per row, the LCS of the two first-call sequences.

    With repeats dropped, that LCS is the longest increasing run of the shared
    tools' positions in the expected first-call order, taken in called order.
    """
    rows = len(called_offsets) - 1
    out = SetCounts.zeros(rows)
    matched = np.zeros(rows, dtype=np.int64)
    width = max(vocabulary_size, 1)
    dtype = _key_dtype(width)

    def block(start: int, stop: int, called: BlockSide, expected: BlockSide) -> None:
        block_rows = stop - start
        called_keys, called_first, out.called[start:stop] = _first_calls(called, width, dtype)
        expected_keys, expected_first, out.expected[start:stop] = _first_calls(
            expected, width, dtype
        )
        # Rank of each distinct expected tool in its row's first-call order:
        # how many first calls of that row come before its own.
        is_first = np.zeros(len(expected.ids), dtype=bool)
        is_first[expected_first] = True
        firsts_before = _running_count(is_first)
        expected_rows = expected_keys // width
        expected_rank = (
            firsts_before[expected_first] - firsts_before[expected.starts[expected_rows]]
        )
        # Merge the two sorted distinct-key lists; equal neighbours are shared
        # tools, expected first (a stable sort keeps the concatenation order).
        both = np.concatenate([expected_keys, called_keys])
        order = np.argsort(both, kind="stable")
        pair = np.flatnonzero(both[order[1:]] == both[order[:-1]])
        expected_index = order[pair]
        called_index = order[pair + 1] - len(expected_keys)
        shared_counts = np.bincount(expected_rows[expected_index], minlength=block_rows)
        out.shared[start:stop] = shared_counts
        # The shared tools in called order: sort by the position of the call.
        by_call = np.argsort(called_first[called_index], kind="stable")
        sequence = expected_rank[expected_index[by_call]]
        sequence_offsets = np.zeros(block_rows + 1, dtype=np.int64)
        np.cumsum(shared_counts, out=sequence_offsets[1:])
        matched[start:stop] = lis_lengths(sequence, sequence_offsets)

    _blocks(block, called_ids, called_offsets, expected_ids, expected_offsets)
    return out, matched


def _runs(sorted_keys: npt.NDArray[Any]) -> tuple[npt.NDArray[Any], IntArray]:
    """Distinct values of a sorted array and how many times each occurs."""
    starts = np.flatnonzero(_group_starts(sorted_keys))
    counts = np.diff(np.append(starts, len(sorted_keys)))
    return sorted_keys[starts], counts


def multiset_overlap(
    called_ids: IdArray, called_offsets: IntArray,
    expected_ids: IdArray, expected_offsets: IntArray, vocabulary_size: int,
) -> IntArray:
    """Per row, calls matched one to one by name: ``sum(min(called[n], expected[n]))``."""
    matched = np.zeros(len(called_offsets) - 1, dtype=np.int64)
    width = max(vocabulary_size, 1)
    dtype = _key_dtype(width)

    def block(start: int, stop: int, called: BlockSide, expected: BlockSide) -> None:
        called_keys = _row_keys(called, width, dtype)
        expected_keys = _row_keys(expected, width, dtype)
        called_keys.sort(kind="stable")
        expected_keys.sort(kind="stable")
        called_unique, called_counts = _runs(called_keys)
        expected_unique, expected_counts = _runs(expected_keys)
        both = np.concatenate([called_unique, expected_unique])
        order = np.argsort(both, kind="stable")
        pair = np.flatnonzero(both[order[1:]] == both[order[:-1]])
        called_index = order[pair]
        expected_index = order[pair + 1] - len(called_unique)
        overlap = np.minimum(called_counts[called_index], expected_counts[expected_index])
        # float weights are exact for counts below 2**53
        matched[start:stop] = np.bincount(
            called_unique[called_index] // width, weights=overlap, minlength=stop - start
        ).astype(np.int64)

    _blocks(block, called_ids, called_offsets, expected_ids, expected_offsets)
    return matched
