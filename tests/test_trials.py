"""pass@k and pass^k for many trials: held to integer arithmetic for n up to
10^6 (correctly rounded up to EXACT_UP_TO trials, within 1e-12 relatively
beyond), one implementation for the functions, Trials and the report, and a
bounded set of k in summaries and tables however many trials a task has."""

from __future__ import annotations

import math
import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import agentmetrics as am
from agentmetrics.results._repeated import default_ks
from agentmetrics.errors import InvalidParameterError
from agentmetrics.stats import _trials, pass_at_k, pass_hat_k
from agentmetrics.stats._trials import EXACT_UP_TO, pass_k_values

EXAMPLES = int(os.environ.get("AGENTMETRICS_FUZZ_EXAMPLES", "200"))
#: The most a reference's binomial coefficients are allowed to cost (their smaller argument).
CHEAP = 3000


def ratio(n: int, s: int, k: int) -> tuple[int, int]:
    """C(s, k) / C(n, k) as integers, by whichever of two equal forms has the
    smaller coefficients: C(s, k) / C(n, k) = C(n - k, n - s) / C(n, n - s)."""
    if k > s:
        return 0, 1
    if min(k, n - k) <= min(s, n - s):
        return math.comb(s, k), math.comb(n, k)
    return math.comb(n - k, n - s), math.comb(n, n - s)


def reference(n: int, c: int, k: int) -> tuple[float, float]:
    """pass@k and pass^k, each the correctly rounded quotient of two integers."""
    top, bottom = ratio(n, n - c, k)
    at = (bottom - top) / bottom
    top, bottom = ratio(n, c, k)
    return at, top / bottom


@st.composite
def trials_passes_k(draw):
    """(n, c, k) with n up to 10^6 and one of k, n - k, c, n - c small, so that
    the integer reference stays cheap; every non-negligible value is reachable."""
    n = draw(st.one_of(st.integers(1, 2 * EXACT_UP_TO), st.integers(EXACT_UP_TO, 10**6),
                       st.sampled_from([EXACT_UP_TO, EXACT_UP_TO + 1, 10**6])))
    small = st.integers(0, min(n, CHEAP))
    how = draw(st.sampled_from(["k", "n-k", "c", "n-c"]))
    if how in ("k", "n-k"):
        gap = draw(st.integers(1, min(n, CHEAP)))
        k = gap if how == "k" else n - gap + 1
        c = draw(st.integers(0, n))
    else:
        gap = draw(small)
        c = gap if how == "c" else n - gap
        k = draw(st.integers(1, n))
    return n, c, k


def close(ours: float, exact: float) -> bool:
    # Below 1e-305 floats lose bits (subnormals): there, absolutely.
    return math.isclose(ours, exact, rel_tol=1e-12, abs_tol=1e-305)


@settings(max_examples=EXAMPLES, deadline=None)
@given(trials_passes_k())
def test_pass_at_k_and_pass_hat_k_match_integer_arithmetic_up_to_a_million_trials(nck):
    n, c, k = nck
    at, hat = reference(n, c, k)
    ours = pass_at_k(n, c, k), pass_hat_k(n, c, k)
    if n <= EXACT_UP_TO:
        assert ours == (at, hat)
    else:
        assert close(ours[0], at) and close(ours[1], hat), (ours, (at, hat))


@pytest.mark.parametrize("n, c, k", [
    (10**6, 1, 1), (10**6, 1, 2), (10**6, 10**6 - 1, 10**6 - 1), (10**6, 999_999, 10**6),
    (10**6, 5 * 10**5, 2), (10**6, 10**6 - 10, 10**5), (10**6, 10, 10**6 - 20),
    (10**6, 10**6 - 2_000, 20_000), (10**6, 0, 10**6), (10**6, 10**6, 10**6),
    (1001, 500, 1001), (1001, 1, 500), (1001, 1000, 500)])
def test_the_extremes(n, c, k):
    at, hat = reference(n, c, k)
    assert close(pass_at_k(n, c, k), at) and close(pass_hat_k(n, c, k), hat)


def test_exact_values_at_the_ends():
    n = 10**6
    assert pass_at_k(n, 0, 7) == 0.0 and pass_hat_k(n, 0, 7) == 0.0
    assert pass_at_k(n, n, 7) == 1.0 and pass_hat_k(n, n, 7) == 1.0
    assert pass_at_k(n, 3, 1) == pass_hat_k(n, 3, 1) == 3 / n  # k = 1: the pass rate
    assert pass_hat_k(n, 3, 4) == 0.0 and pass_at_k(n, n - 3, 4) == 1.0


@pytest.mark.parametrize("n", [1, 2, 3, 7, 40, 200])
def test_the_logarithms_hold_for_few_trials_too(monkeypatch, n):
    # The path of many trials, taken for every n: the same values within 1e-12.
    monkeypatch.setattr(_trials, "EXACT_UP_TO", 0)
    for c in range(n + 1):
        for k in range(1, n + 1):
            at, hat = reference(n, c, k)
            assert close(pass_at_k(n, c, k), at) and close(pass_hat_k(n, c, k), hat), (n, c, k)


@settings(max_examples=EXAMPLES, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([3, 5, 8, 1200, 2500]), st.floats(0, 1)),
                min_size=1, max_size=30),
       st.lists(st.integers(1, 3), min_size=1, max_size=6))
def test_many_tasks_at_once_are_the_function_per_task(tasks, ks):
    trials = [n for n, _ in tasks]
    passes = [round(n * share) for n, share in tasks]
    at, hat = pass_k_values(trials, passes, ks)  # unsorted, repeated k allowed
    assert at.shape == hat.shape == (len(tasks), len(ks))
    for row, (n, c) in enumerate(zip(trials, passes)):
        assert at[row].tolist() == [pass_at_k(n, c, k) for k in ks]
        assert hat[row].tolist() == [pass_hat_k(n, c, k) for k in ks]


def test_the_functions_still_refuse_what_is_not_a_count():
    with pytest.raises(InvalidParameterError, match="up to the fewest trials"):
        pass_at_k(10**6, 1, 10**6 + 1)
    with pytest.raises(InvalidParameterError, match="at most n"):
        pass_hat_k(10**6, 10**6 + 1, 1)
    with pytest.raises(InvalidParameterError, match="a count"):
        pass_at_k(10, True, 1)


# -- which k are shown --------------------------------------------------------------


def test_the_k_shown_are_every_k_to_ten_then_one_two_five_steps_and_the_largest():
    assert default_ks(0) == []
    assert default_ks(1) == [1]
    assert default_ks(5) == [1, 2, 3, 4, 5]
    assert default_ks(10) == list(range(1, 11))
    assert default_ks(11) == [*range(1, 11), 11]
    assert default_ks(20) == [*range(1, 11), 20]
    assert default_ks(21) == [*range(1, 11), 20, 21]
    assert default_ks(4000) == [*range(1, 11), 20, 50, 100, 200, 500, 1000, 2000, 4000]
    assert default_ks(10**6)[10:] == [20, 50, 100, 200, 500, 1000, 2000, 5000, 10**4,
                                      2 * 10**4, 5 * 10**4, 10**5, 2 * 10**5, 5 * 10**5, 10**6]


@given(st.integers(1, 10**9))
def test_the_k_shown_stay_few_and_end_at_the_largest(max_k):
    ks = default_ks(max_k)
    assert ks[0] == 1 and ks[-1] == max_k and ks == sorted(set(ks))
    assert len(ks) <= 10 + 3 * math.log10(max_k) + 1


def _one_task(n: int, passed: int) -> am.EvaluationResult:
    cases = [am.AgentTestCase(tool_calls=["A"] if i < passed else ["B"],
                              expected_tool_calls=["A"], metadata={"task_id": "only"})
             for i in range(n)]
    return am.evaluate(cases, "tool_selection_accuracy", progress=False)


def test_a_task_of_thousands_of_trials_has_a_short_summary_and_table():
    trials = _one_task(3000, 2900).trials()
    assert trials.max_k == 3000
    summary = trials.summary()
    assert summary["k"] == default_ks(3000) == [*range(1, 11), 20, 50, 100, 200, 500, 1000,
                                                2000, 3000]
    for row in summary:
        at, hat = reference(3000, 2900, row["k"])
        assert close(row["pass@k"], at) and close(row["pass^k"], hat)
    table = trials.table()
    assert table.columns[5:] == tuple(f"pass^{k}" for k in default_ks(3000))
    assert trials.table(ks=[7, 3])[0]["pass^7"] == pass_hat_k(3000, 2900, 7)


def test_the_k_asked_for_are_checked():
    trials = _one_task(4, 2).trials()
    assert trials.summary(ks=[4, 2, 4])["k"] == [4, 2]
    assert trials.table(ks=[np.int64(3), 3]).columns[5:] == ("pass^3",)
    assert trials.summary(ci=None, ks=[1])["pass@k"] == [0.5]
    with pytest.raises(InvalidParameterError, match="between 1 and 4"):
        trials.summary(ks=[5])
    with pytest.raises(InvalidParameterError, match="ks: expected a list"):
        trials.table(ks=3)


def test_trials_per_task_are_the_functions_for_large_tasks_too():
    outcomes = {"a": 1500, "b": 1200}
    cases = [am.AgentTestCase(tool_calls=["A"] if i % 7 else ["B"], expected_tool_calls=["A"],
                              metadata={"task_id": task})
             for task, n in outcomes.items() for i in range(n)]
    trials = am.evaluate(cases, "tool_selection_accuracy", progress=False).trials()
    passes = trials.passes.tolist()
    for k in (1, 2, 50, 1200):
        assert trials.pass_at_k(k, per_task=True).tolist() == [
            pass_at_k(n, c, k) for n, c in zip((1500, 1200), passes)]
        assert trials.pass_hat_k(k) == pytest.approx(np.mean(
            [pass_hat_k(n, c, k) for n, c in zip((1500, 1200), passes)]), rel=1e-15)
