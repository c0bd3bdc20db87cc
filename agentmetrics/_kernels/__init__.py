"""numpy kernels over a ToolCallBatch's arrays (internal).

- ``_counting``: per-row counts for metrics over tool names (bitsets, lanes,
  bit-parallel LCS), block by block; the entry points below.
- ``_sorted``: sort-based kernels, exact for rows of any length: the rows the
  fast paths leave, and row sets for aggregates.
- ``_sequence``: the LCS of whole call sequences (repeats included).
- ``_bitsets``, ``_lanes``: the two fast layouts; ``_lis``: longest increasing
  subsequence; ``_blocks``: blocks on threads; ``_tuning``: the sizes.
"""

from agentmetrics._base._lis import longest_increasing_run
from agentmetrics._kernels._counting import (
    multiset_overlap,
    ordered_matches,
    selection_values,
    set_counts,
)
from agentmetrics._kernels._lis import lis_lengths
from agentmetrics._kernels._sequence import sequence_lcs
from agentmetrics._kernels._sorted import SetCounts, case_index, unique_keys
from agentmetrics._kernels._tuning import THREADS_ENV, thread_count

__all__ = [
    "THREADS_ENV",
    "SetCounts",
    "case_index",
    "lis_lengths",
    "longest_increasing_run",
    "multiset_overlap",
    "ordered_matches",
    "selection_values",
    "sequence_lcs",
    "set_counts",
    "thread_count",
    "unique_keys",
]
