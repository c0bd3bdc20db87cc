"""best_assignment against SciPy's linear_sum_assignment and brute force."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentmetrics_tooluse._assignment import best_assignment

scipy_optimize = pytest.importorskip("scipy.optimize")

matrices = st.integers(0, 6).flatmap(lambda rows: st.integers(0, 6).flatmap(
    lambda columns: st.lists(
        st.lists(st.sampled_from([0.0, 0.25, 0.5, 1 / 3, 0.75, 1.0]), min_size=columns, max_size=columns),
        min_size=rows, max_size=rows)))


def _total(weights, pairs):
    return sum(weights[i][j] for i, j in pairs)


@settings(max_examples=300)
@given(matrices)
def test_total_equals_scipy_and_pairs_are_one_to_one(weights):
    pairs = best_assignment(weights)
    rows = len(weights)
    columns = len(weights[0]) if rows else 0
    assert len(pairs) == min(rows, columns)
    assert len({i for i, _ in pairs}) == len(pairs) == len({j for _, j in pairs})
    if rows and columns:
        r, c = scipy_optimize.linear_sum_assignment(weights, maximize=True)
        assert _total(weights, pairs) == pytest.approx(sum(weights[i][j] for i, j in zip(r, c)), abs=1e-9)


@settings(max_examples=200)
@given(matrices.filter(lambda w: len(w) <= 5 and (not w or len(w[0]) <= 5)))
def test_total_equals_brute_force(weights):
    rows = len(weights)
    columns = len(weights[0]) if rows else 0
    best = 0.0
    if rows <= columns:
        for chosen in itertools.permutations(range(columns), rows):
            best = max(best, sum(weights[i][j] for i, j in enumerate(chosen)))
    else:
        for chosen in itertools.permutations(range(rows), columns):
            best = max(best, sum(weights[i][j] for j, i in enumerate(chosen)))
    assert _total(weights, best_assignment(weights)) == pytest.approx(best, abs=1e-9)


def test_greedy_would_be_wrong_here():
    # Greedy takes (0, 0) first (weight 1.0) and is left with 0.0; the best is 0.9 + 0.9.
    weights = [[1.0, 0.9], [0.9, 0.0]]
    assert best_assignment(weights) == [(0, 1), (1, 0)]
