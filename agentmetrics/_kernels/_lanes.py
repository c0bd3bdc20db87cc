"""Rows as lanes: call ``j`` of every row of a block side by side.

For vocabularies too large for a bitset, a block's ids are narrowed to the
smallest unsigned type that leaves two values above every id (uint8 up to 254
tools, uint16 up to 65,534), and laid out as a ``(width, rows)`` array: lane
``j`` holds call ``j`` of each row, or a padding value past the row's end
(called rows pad with the type's largest value, expected rows with the one
below it, so padding never matches anything, not even the other side's). Every test is then one
contiguous pass over all rows of the block per pair of lanes.

Gathering: every 8-byte window of the narrowed ids is copied out once per
block (``windows[i]`` holds calls ``i`` to ``i + 7`` as uint8), so the first
eight calls of every row come with one gather and one transposing copy
instead of eight gathers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from agentmetrics._kernels._bitsets import popcount
from agentmetrics._kernels._blocks import BlockSide

__all__ = ["CALLED", "EXPECTED", "SideLanes", "bool_buffers", "lane_counts", "lane_lcs", "lane_overlap",
           "lane_type", "repeat_last", "width_classes"]

U8 = npt.NDArray[np.uint8]
Bools = npt.NDArray[np.bool_]
Lanes = npt.NDArray[Any]

#: Padding offsets below the lane type's largest value.
CALLED, EXPECTED = 0, 1

_LANE = np.arange(64, dtype=np.intp)[:, None]
_LANE8 = np.arange(64, dtype=np.uint8)[:, None]
_MASK: dict[int, type[np.unsignedinteger[Any]]] = {
    8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}


def lane_type(vocabulary_size: int) -> type[np.unsignedinteger[Any]]:
    """The narrowest unsigned type with two spare values above every id."""
    if vocabulary_size <= 254:
        return np.uint8
    if vocabulary_size <= 65534:
        return np.uint16
    return np.uint32


def width_classes(longest: npt.NDArray[np.int64], limit: int) -> npt.NDArray[np.intp]:
    """Lanes each row needs: 8, 16, 32 or 64 (at least its longest side),
    or 0 for rows longer than ``limit`` (left to the sort-based kernels)."""
    widths = np.full(len(longest), 8, dtype=np.intp)
    for width in (16, 32, 64):
        widths[longest > width // 2] = width
    widths[longest > limit] = 0
    return widths


class SideLanes:
    """A thread's buffers for one side's lanes, blocks of ``rows`` rows and
    at most ``calls`` calls."""

    def __init__(self, dtype: type[np.unsignedinteger[Any]], rows: int, calls: int,
                 which: int) -> None:
        self.dtype = np.dtype(dtype)
        self.per_word = 8 // self.dtype.itemsize
        self.padding = self.dtype.type(np.iinfo(self.dtype).max - which)
        self.lengths = np.empty(rows, dtype=np.uint8)
        self.narrow = np.zeros(calls + self.per_word, dtype=self.dtype)
        self.windows = np.empty(calls + 1, dtype=np.uint64)
        self.size = 0
        self.word = np.empty(rows, dtype=np.uint64)
        self.index = np.empty(rows, dtype=np.intp)
        self.lanes = np.empty((8, rows), dtype=self.dtype)
        self.fill = np.empty((8, rows), dtype=self.dtype)
        self.pad = np.empty((8, rows), dtype=bool)
        self.loaded: BlockSide | None = None

    def load(self, side: BlockSide) -> None:
        """Narrow the block's ids and copy out every 8-byte window of them."""
        if self.loaded is side:
            return
        calls = len(side.ids)
        np.copyto(self.narrow[:calls], side.ids, casting="unsafe")
        overlapping = np.ndarray(shape=(calls + 1,), dtype=np.uint64, buffer=self.narrow,
                                 strides=(self.dtype.itemsize,))
        np.copyto(self.windows[: calls + 1], overlapping)
        # lengths as uint8 (clipped: longer rows are never gathered), for a
        # one-byte comparison against the lane numbers
        np.minimum(side.lengths, 255, out=self.lengths[: len(side.lengths)], casting="unsafe")
        self.size = calls
        self.loaded = side

    def gather(self, side: BlockSide, chosen: Any, width: int) -> tuple[Lanes, Bools]:
        """``(lanes, pad)`` of shape ``(width, rows)`` for the ``chosen`` rows
        (a slice or indices) of the loaded block; width 8 reuses the buffers."""
        starts, lengths = side.starts[chosen], self.lengths[: len(side.lengths)][chosen]
        rows = len(starts)
        if width == 8 and rows <= self.lanes.shape[1]:
            lanes, fill, pad = self.lanes[:, :rows], self.fill[:, :rows], self.pad[:, :rows]
            word, index = self.word[:rows], self.index[:rows]
        else:
            lanes, fill = np.empty((width, rows), self.dtype), np.empty((width, rows), self.dtype)
            pad = np.empty((width, rows), bool)
            word, index = np.empty(rows, np.uint64), np.empty(rows, np.intp)
        windows = self.windows[: self.size + 1]
        per_word = self.per_word
        for first in range(0, width, per_word):
            np.add(starts, first, out=index, casting="unsafe")
            np.take(windows, index, out=word, mode="clip")  # past the end: padding below
            # rows x per_word ids -> per_word lanes x rows
            np.copyto(lanes[first : first + per_word],
                      word.view(self.dtype).reshape(rows, per_word).T)
        np.greater_equal(_LANE8[:width], lengths, out=pad)
        # lanes[pad] = padding without np.copyto(where=), measured 25x slower:
        # the maximum with padding-or-zero (every id read, even past a row's
        # end, is a real id or a zero, below both padding values).
        np.multiply(pad, self.padding, out=fill, dtype=self.dtype)
        np.maximum(lanes, fill, out=lanes)
        return lanes, pad


def repeat_last(side: BlockSide, rows: npt.NDArray[np.intp], width: int) -> Lanes:
    """``(width, rows)`` lanes straight from the ids of non-empty rows, each
    row's last call repeated past its end instead of padding: for the LCS a
    repeated tool adds nothing, so no padding value is needed."""
    last = side.lengths[rows] - 1
    index = np.minimum(_LANE[:width], last)
    index += side.starts[rows]
    lanes: Lanes = np.take(side.ids, index)
    return lanes


def _repeats(lanes: Lanes, pad: Bools, repeat: Bools, tmp: Bools) -> Bools:
    """Per lane: padding, or the same tool as an earlier lane of the row."""
    np.copyto(repeat, pad)
    for distance in range(1, len(lanes)):
        np.equal(lanes[distance:], lanes[:-distance], out=tmp[distance:])
        repeat[distance:] |= tmp[distance:]
    return repeat


def _distinct(repeat: Bools) -> U8:
    count: U8 = np.add.reduce(repeat, axis=0, dtype=np.uint8)
    return np.subtract(len(repeat), count, out=count, dtype=np.uint8)


def bool_buffers(shape: tuple[int, int], pool: Sequence[Bools] | None = None) -> list[Bools]:
    """Four bool arrays of ``shape``: views of ``pool`` when it is large
    enough (a thread's reused buffers), else new ones."""
    width, rows = shape
    if pool is not None and pool[0].shape[0] == width and pool[0].shape[1] >= rows:
        return [buffer[:, :rows] for buffer in pool]
    return [np.empty(shape, dtype=bool) for _ in range(4)]


def lane_counts(called: tuple[Lanes, Bools], expected: tuple[Lanes, Bools],
                pool: Sequence[Bools] | None = None) -> tuple[U8, U8, U8]:
    """Distinct tools called, expected, and in both, per row (column)."""
    (a, a_pad), (e, e_pad) = called, expected
    a_repeat, e_repeat, hit, tmp = bool_buffers(a.shape, pool)
    _repeats(a, a_pad, a_repeat, tmp)
    _repeats(e, e_pad, e_repeat, tmp)
    np.equal(a, e[0], out=hit)
    for lane in e[1:]:
        np.equal(a, lane, out=tmp)
        hit |= tmp
    np.greater(hit, a_repeat, out=hit)  # a first call whose tool is expected
    shared: U8 = np.add.reduce(hit, axis=0, dtype=np.uint8)
    return _distinct(a_repeat), _distinct(e_repeat), shared


def lane_lcs(called: Lanes, expected: Lanes, longest_called: int, native: bool | None = None
             ) -> U8:
    """Per row, the LCS of the two first-call sequences (bit-parallel, Hyyro).

    Bit ``k`` of a called lane's match mask is set when expected lane ``k``
    holds its tool; only the lowest such bit is kept (the tool's first
    expected call), so expected repeats never match, and a called repeat
    finds its bit already used and matches nothing. ``V`` starts all ones;
    each called lane ``j`` with match ``M`` gives ``V = (V + (V & M)) | (V & ~M)``;
    the LCS is the number of zero bits of ``V``."""
    width, rows = called.shape
    mask_type = _MASK[width]
    match = np.zeros((width, rows), dtype=mask_type)
    hit = np.empty((width, rows), dtype=bool)
    for lane in expected[::-1]:  # Horner: bit k for expected lane k
        match += match
        np.equal(called, lane, out=hit)
        match |= hit
    lowest = np.negative(match)
    match &= lowest
    v: npt.NDArray[Any] = np.full(rows, np.iinfo(mask_type).max, dtype=mask_type)
    unused: npt.NDArray[Any] = v.copy()
    m: npt.NDArray[Any] = np.empty(rows, mask_type)
    t: npt.NDArray[Any] = np.empty(rows, mask_type)
    for j in range(min(width, longest_called)):
        np.bitwise_and(match[j], unused, out=m)
        unused ^= m
        m &= v
        np.add(v, m, out=t)
        v ^= m
        v |= t
    np.invert(v, out=v)
    return popcount(v, np.empty(rows, np.uint8), native)


def lane_overlap(called: Lanes, expected: Lanes) -> U8:
    """Per row, calls matched one to one by tool: ``sum(min(called[t], expected[t]))``.

    The ``r``-th call of a tool (``r`` counted from 0) is matched when the
    expected side holds that tool more than ``r`` times."""
    width, rows = called.shape
    tmp = np.empty((width, rows), dtype=bool)
    earlier = np.zeros((width, rows), dtype=np.uint8)
    for distance in range(1, width):
        np.equal(called[distance:], called[:-distance], out=tmp[distance:])
        earlier[distance:] += tmp[distance:]
    wanted = np.zeros((width, rows), dtype=np.uint8)
    for lane in expected:
        np.equal(called, lane, out=tmp)
        wanted += tmp
    np.less(earlier, wanted, out=tmp)
    matched: U8 = np.add.reduce(tmp, axis=0, dtype=np.uint8)
    return matched
