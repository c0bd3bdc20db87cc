"""Sizes the kernels choose by; read at call time, so tests can set them small."""

from __future__ import annotations

import os

from agentmetrics.errors import InvalidParameterError

__all__ = ["BITSET_LIMIT", "BLOCK_ROWS", "LIS_VECTOR_LIMIT", "MAX_LANES", "THREADS_ENV",
           "thread_count"]

#: Vocabularies up to this size keep one uint64 bitset per row and side.
BITSET_LIMIT = 64
#: Rows per block: a block's buffers (a few arrays of this many rows and of its
#: calls) stay in cache and are reused block after block; numpy's per-call
#: overhead is small beside 32k rows.
BLOCK_ROWS = 1 << 15
#: Rows with up to this many calls on each side are compared lane by lane;
#: longer ones (rare) go through the sort-based kernels.
MAX_LANES = 64
#: The sort-based LIS runs vectorized for rows with up to this many shared
#: tools; longer ones use the scalar O(k log k) routine.
LIS_VECTOR_LIMIT = 64

#: Environment variable: threads for the block kernels.
THREADS_ENV = "AGENTMETRICS_NUM_THREADS"
#: Threads when the variable is unset (measured: see benchmarks/README.md).
DEFAULT_THREADS = 1


def thread_count() -> int:
    """Threads the kernels use: AGENTMETRICS_NUM_THREADS, else DEFAULT_THREADS."""
    value = os.environ.get(THREADS_ENV, "").strip()
    if not value:
        return DEFAULT_THREADS
    try:
        threads = int(value)
    except ValueError:
        threads = 0
    if threads < 1:
        raise InvalidParameterError(
            f"{THREADS_ENV}: expected a whole number of threads, at least 1, got "
            f"{value[:40]!r}. Fix: set it to e.g. 1 or 4, or unset it for the default "
            f"({DEFAULT_THREADS})."
        )
    return threads
