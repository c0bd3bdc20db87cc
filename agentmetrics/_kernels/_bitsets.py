"""One uint64 bitset per row, for vocabularies of at most 64 tools.

A row's bitset is the OR of ``1 << id`` over its calls. Instead of a
segmented reduction (``np.bitwise_or.reduceat`` costs about 20 ns a row by
itself), the calls of a block get OR-levels: level 0 holds ``1 << id``, level
1 the OR of 2 neighbouring calls, level 2 of 4. A row of length ``n`` with
``2**k <= n`` (the largest such ``k``, at most 2) is the OR of two windows
of level ``k``, one at its start and one ending at its end; they may
overlap, which OR does not mind. Two gathers a row, whatever its length up
to 8; longer rows (rare) take a reduceat of their own.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from agentmetrics._kernels._blocks import BlockSide

__all__ = ["LEVELS", "Bitsets", "popcount"]

U64 = npt.NDArray[np.uint64]
U8 = npt.NDArray[np.uint8]

#: OR-levels kept: windows of 1, 2 and 4 calls. Two windows of the top level
#: cover rows of up to 8 calls (0-8 is the common case); longer rows are
#: rare enough for a reduceat.
LEVELS = 3
_SHORT = 1 << LEVELS  # rows up to this length use two windows
_ONE = np.uint64(1)


def _windows() -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """Per row length 0 .. _SHORT: the level read (LEVELS: the zeros) and its window."""
    level = np.full(_SHORT + 1, LEVELS, dtype=np.intp)
    width = np.zeros(_SHORT + 1, dtype=np.intp)
    for length in range(1, _SHORT + 1):
        level[length] = min(length.bit_length() - 1, LEVELS - 1)
        width[length] = 1 << level[length]
    return level, width


_LEVEL, _WIDTH_OF_LENGTH = _windows()

_BYTE_COUNTS = np.array([bin(byte).count("1") for byte in range(256)], dtype=np.uint8)
HAS_BITWISE_COUNT = hasattr(np, "bitwise_count")


def popcount(masks: npt.NDArray[Any], out: U8, native: bool | None = None) -> U8:
    """Set bits of each unsigned mask, into ``out`` (uint8).

    ``np.bitwise_count`` where numpy has it (2.0+); else a table of the
    counts of the 256 byte values, slower and as exact. ``native`` forces
    either (tests run both)."""
    if HAS_BITWISE_COUNT if native is None else native:
        np.bitwise_count(masks, out=out)
        return out
    size = masks.dtype.itemsize
    per_byte = _BYTE_COUNTS[np.ascontiguousarray(masks).view(np.uint8)].reshape(len(masks), size)
    np.add.reduce(per_byte, axis=1, dtype=np.uint8, out=out)
    return out


class Bitsets:
    """A thread's buffers for the bitsets of blocks of at most ``rows`` rows
    and ``calls`` calls a side."""

    def __init__(self, rows: int, calls: int) -> None:
        self.stride = calls + _SHORT
        # LEVELS levels of OR-windows, then a level of zeros for empty rows
        self.levels = np.zeros((LEVELS + 1, self.stride), dtype=np.uint64)
        self.flat = self.levels.reshape(-1)
        self.start_at = _LEVEL * self.stride                    # + the row's start
        self.end_at = _LEVEL * self.stride - _WIDTH_OF_LENGTH   # + the row's end
        self.at = np.empty(rows, dtype=np.intp)
        self.masks = (np.empty(rows, np.uint64), np.empty(rows, np.uint64))
        self.other = np.empty(rows, np.uint64)

    def masks_of(self, which: int, side: BlockSide) -> U64:
        """The bitset of each row of ``side`` (ids < 64), in a reused buffer."""
        calls, rows = len(side.ids), len(side.lengths)
        levels = self.levels
        np.left_shift(_ONE, side.ids, out=levels[0, :calls], dtype=np.uint64, casting="unsafe")
        # Level k is read only by rows of at least 2**k calls: when the block has
        # fewer, the level is not built (it holds an older block's values, unread).
        for level in range(1, LEVELS):
            half = 1 << (level - 1)
            if calls <= half:
                break
            np.bitwise_or(levels[level - 1, : calls - half], levels[level - 1, half:calls],
                          out=levels[level, : calls - half])
        at = self.at[:rows]
        masks, other = self.masks[which][:rows], self.other[:rows]
        lengths = side.lengths
        np.take(self.start_at, lengths, out=at, mode="clip")
        at += side.starts
        np.take(self.flat, at, out=masks, mode="clip")
        np.take(self.end_at, lengths, out=at, mode="clip")
        at += side.starts
        at += lengths
        np.take(self.flat, at, out=other, mode="clip")
        masks |= other
        long_rows = np.flatnonzero(lengths > _SHORT)
        if len(long_rows):
            bounds = np.empty(2 * len(long_rows), dtype=np.intp)
            bounds[0::2] = side.starts[long_rows]
            bounds[1::2] = side.starts[long_rows] + lengths[long_rows]
            levels[0, calls] = 0  # a bound may equal ``calls``: reduceat needs an element there
            masks[long_rows] = np.bitwise_or.reduceat(levels[0, : calls + 1], bounds)[0::2]
        return masks
