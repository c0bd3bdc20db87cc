"""agentmetrics.batch.row_lcs against an independent reference: the LCS by
recursion over suffixes (memoized), on rows of every width, both paths."""

from __future__ import annotations

import functools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from agentmetrics import ToolCallBatch
from agentmetrics.batch import row_lcs


def reference_lcs(called, expected):
    @functools.cache
    def best(i, j):
        if i == len(called) or j == len(expected):
            return 0
        if called[i] == expected[j]:
            return 1 + best(i + 1, j + 1)
        return max(best(i + 1, j), best(i, j + 1))

    return best(0, 0)


names = st.sampled_from(["A", "B", "C", "D", "検索"])
rows = st.lists(st.tuples(st.lists(names, max_size=12), st.lists(names, max_size=12)), max_size=30)


@settings(max_examples=200)
@given(rows)
def test_row_lcs_equals_the_reference(pairs):
    batch = ToolCallBatch.from_columns(tool_calls=[c for c, _ in pairs], expected_tool_calls=[e for _, e in pairs])
    assert row_lcs(batch).tolist() == [reference_lcs(tuple(c), tuple(e)) for c, e in pairs]


def test_long_rows_on_both_paths():
    # Expected sides of 63, 64, 65 and 150 calls: the bit-parallel path up to 64,
    # the table beyond; a vocabulary of 3 makes long common subsequences.
    rng = np.random.default_rng(7)
    pairs = []
    for width in (1, 63, 64, 65, 150):
        for _ in range(5):
            pairs.append(([f"t{x}" for x in rng.integers(0, 3, rng.integers(0, 160))],
                          [f"t{x}" for x in rng.integers(0, 3, width)]))
    batch = ToolCallBatch.from_columns(tool_calls=[c for c, _ in pairs], expected_tool_calls=[e for _, e in pairs])
    import sys
    sys.setrecursionlimit(10_000)
    assert row_lcs(batch).tolist() == [reference_lcs(tuple(c), tuple(e)) for c, e in pairs]


def test_repeats_count_and_order_matters():
    batch = ToolCallBatch.from_columns(tool_calls=[["A", "B", "A"], ["B", "A"], ["A"], []],
                                       expected_tool_calls=[["A", "A"], ["A", "B"], ["A", "A"], ["A"]])
    assert row_lcs(batch).tolist() == [2, 1, 1, 0]
