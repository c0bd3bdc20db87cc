"""Rows in blocks, blocks on threads.

Kernels work on blocks of rows so that their temporaries stay in cache and
are reused; numpy releases the GIL inside its array loops, so blocks can run
on several threads. Each thread takes every ``threads``-th block and keeps
one set of buffers for all of them.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from agentmetrics._base._arrays import IdArray, IntArray
from agentmetrics._kernels import _tuning

__all__ = ["BlockSide", "in_blocks", "largest_block"]


_pool: tuple[ThreadPoolExecutor, int] | None = None
_pool_lock = threading.Lock()


def _executor(threads: int) -> ThreadPoolExecutor:
    """The shared pool for ``threads`` threads.

    A pool is never shut down while it may be in use: when the wanted size
    changes (AGENTMETRICS_NUM_THREADS set in a running process), a new pool
    replaces the old one, which finishes the work it has and is collected."""
    global _pool
    with _pool_lock:
        if _pool is None or _pool[1] != threads:
            _pool = (ThreadPoolExecutor(threads, thread_name_prefix="agentmetrics"), threads)
        return _pool[0]


def in_blocks(rows: int, work: Callable[[Sequence[int]], None], block_rows: int) -> None:
    """Call ``work(starts)`` with the start rows of the blocks one thread does.

    ``work`` handles rows ``start:min(start + block_rows, rows)`` for each
    start it gets; blocks write disjoint slices of the outputs."""
    starts = range(0, rows, block_rows)
    threads = _tuning.thread_count()  # read (and checked) even when one block
    threads = min(threads, len(starts))
    if threads <= 1:
        work(starts)
        return
    for _ in _executor(threads).map(work, [starts[i::threads] for i in range(threads)]):
        pass


def largest_block(offsets: IntArray, block_rows: int) -> int:
    """The most calls any block of rows holds: the size of a thread's buffers."""
    edges = offsets[::block_rows]
    if len(offsets) and edges[-1] != offsets[-1]:
        edges = np.append(edges, offsets[-1])
    return int(np.max(np.diff(edges))) if len(edges) > 1 else 0


class BlockSide:
    """One side (called or expected) of a block of rows: its calls and rows."""

    __slots__ = ("first", "ids", "lengths", "starts")

    def __init__(self, ids: IdArray, offsets: IntArray, start: int, stop: int) -> None:
        self.first = int(offsets[start])
        self.ids = ids[self.first : offsets[stop]]
        self.starts = offsets[start:stop] - self.first
        self.lengths = np.diff(offsets[start : stop + 1])
