"""numpy kernels over a ToolCallBatch: distinct-tool sets, first-call order, LIS.

Measured on numpy 2.4 with 4M calls: a stable sort of case-major keys takes
~35 ms (timsort finds the per-case runs), np.sort's default ~230 ms and
np.unique ~4 s, so everything here is built on stable sorts of keys
``case * V + tool_id`` and adjacent comparisons.
"""

from __future__ import annotations

import attrs
import numpy as np
import numpy.typing as npt

__all__ = ["SetCounts", "lis_lengths", "ordered_matches", "set_counts"]

IntArray = npt.NDArray[np.int64]
IdArray = npt.NDArray[np.int32]

#: Vocabularies up to this size use one uint64 bitset per case.
BITSET_LIMIT = 64
#: LIS runs vectorized for cases with up to this many shared tools; the rare
#: longer ones use the O(k log k) scalar routine.
LIS_VECTOR_LIMIT = 64


def case_index(offsets: IntArray) -> IntArray:
    """For each flat position, the row it belongs to."""
    rows: IntArray = np.repeat(np.arange(len(offsets) - 1, dtype=np.int64), np.diff(offsets))
    return rows


def _group_starts(sorted_keys: IntArray) -> npt.NDArray[np.bool_]:
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


@attrs.frozen(slots=True, eq=False)
class SetCounts:
    """Per row: distinct tools called, expected, and in both."""

    called: IntArray
    expected: IntArray
    shared: IntArray


def _popcount(masks: npt.NDArray[np.uint64]) -> IntArray:
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(masks).astype(np.int64)
    table = np.array([bin(i).count("1") for i in range(256)], dtype=np.int64)  # numpy < 2
    counts: IntArray = table[masks.view(np.uint8)].reshape(-1, 8).sum(axis=1)
    return counts


def _row_masks(ids: IdArray, offsets: IntArray) -> npt.NDArray[np.uint64]:
    masks = np.zeros(len(offsets) - 1, dtype=np.uint64)
    lengths = np.diff(offsets)
    nonempty = lengths > 0
    if nonempty.any():
        bits = np.left_shift(np.uint64(1), ids.astype(np.uint64))
        # reduceat over the starts of non-empty rows only: an empty row's start
        # would repeat its neighbour's and reduceat would return a lone element.
        masks[nonempty] = np.bitwise_or.reduceat(bits, offsets[:-1][nonempty])
    return masks


def set_counts(
    called_ids: IdArray,
    called_offsets: IntArray,
    expected_ids: IdArray,
    expected_offsets: IntArray,
    vocabulary_size: int,
) -> SetCounts:
    """Distinct-tool counts per row, by bitsets for small vocabularies, else by sorting."""
    rows = len(called_offsets) - 1
    if vocabulary_size <= BITSET_LIMIT:
        called = _row_masks(called_ids, called_offsets)
        expected = _row_masks(expected_ids, expected_offsets)
        return SetCounts(_popcount(called), _popcount(expected), _popcount(called & expected))
    width = max(vocabulary_size, 1)
    called_keys = unique_keys(called_ids, called_offsets, width)
    expected_keys = unique_keys(expected_ids, expected_offsets, width)
    both = np.concatenate([called_keys, expected_keys])
    both.sort(kind="stable")  # two sorted runs: a merge
    shared_keys = both[1:][both[1:] == both[:-1]]
    return SetCounts(
        np.bincount(called_keys // width, minlength=rows),
        np.bincount(expected_keys // width, minlength=rows),
        np.bincount(shared_keys // width, minlength=rows),
    )


def _first_occurrences(ids: IdArray, offsets: IntArray, width: int) -> tuple[
    npt.NDArray[np.bool_], IntArray, IntArray
]:
    """Mask of each row's first call of each tool; the distinct keys, sorted;
    and the flat position of each distinct key's first call."""
    keys = case_index(offsets) * width + ids
    order = np.argsort(keys, kind="stable")  # equal keys keep call order
    sorted_keys = keys[order]
    starts = _group_starts(sorted_keys)
    first_positions = order[starts]
    keep = np.zeros(len(keys), dtype=bool)
    keep[first_positions] = True
    return keep, sorted_keys[starts], first_positions


def lis_lengths(values: IntArray, offsets: IntArray) -> IntArray:
    """Longest strictly increasing subsequence of each row's values.

    Patience sorting run for all rows at once, one element per step: rows
    are grouped by length into power-of-two widths so the tails table stays
    small, and sorted longest first so the rows still active are a prefix.
    """
    from agentmetrics.metrics._tool_selection import longest_increasing_run

    lengths = np.diff(offsets)
    result = np.minimum(lengths, 1)
    starts = offsets[:-1]
    width = 2
    lower = 1
    while True:
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
        if width >= LIS_VECTOR_LIMIT:
            break
        lower, width = width, width * 2
    for row in np.flatnonzero(lengths > LIS_VECTOR_LIMIT):
        result[row] = longest_increasing_run(values[offsets[row] : offsets[row + 1]].tolist())
    return result


def ordered_matches(
    called_ids: IdArray,
    called_offsets: IntArray,
    expected_ids: IdArray,
    expected_offsets: IntArray,
    vocabulary_size: int,
) -> tuple[SetCounts, IntArray]:
    """Set counts and, per row, the LCS of the two first-call sequences.

    With repeats dropped, that LCS is the longest increasing run of the shared
    tools' positions in the expected first-call order, taken in called order.
    """
    rows = len(called_offsets) - 1
    width = max(vocabulary_size, 1)
    _, called_keys, called_first = _first_occurrences(called_ids, called_offsets, width)
    keep_expected, expected_keys, expected_first = _first_occurrences(
        expected_ids, expected_offsets, width
    )
    # Rank of each expected first call within its row's first-call sequence.
    seen = np.cumsum(keep_expected)
    seen_before_row = np.concatenate([[0], seen])[expected_offsets[:-1]]
    rank_at = seen - 1 - np.repeat(seen_before_row, np.diff(expected_offsets))
    expected_rank = rank_at[expected_first]

    # Merge the two sorted distinct-key lists; equal neighbours are shared
    # tools, expected one first (a stable sort keeps the concatenation order).
    both = np.concatenate([expected_keys, called_keys])
    order = np.argsort(both, kind="stable")
    merged = both[order]
    pair = np.flatnonzero(merged[1:] == merged[:-1])
    expected_index = order[pair]
    called_index = order[pair + 1] - len(expected_keys)

    shared_rows = called_keys[called_index] // width
    counts = SetCounts(
        np.bincount(called_keys // width, minlength=rows),
        np.bincount(expected_keys // width, minlength=rows),
        np.bincount(shared_rows, minlength=rows),
    )
    # The shared tools in called order: sort by the flat position of the call.
    by_call = np.argsort(called_first[called_index], kind="stable")
    sequence = expected_rank[expected_index][by_call]
    sequence_offsets = np.zeros(rows + 1, dtype=np.int64)
    np.cumsum(counts.shared, out=sequence_offsets[1:])
    return counts, lis_lengths(sequence, sequence_offsets)
