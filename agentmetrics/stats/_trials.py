"""Repeated trials: how reliably does the agent succeed at a task it is given again?

For a task run ``n`` times with ``c`` passes:

- ``pass@k`` = 1 - C(n - c, k) / C(n, k): the chance that at least one of k
  trials drawn from the n passes (the unbiased estimator of Chen et al.);
- ``pass^k`` = C(c, k) / C(n, k): the chance that all k pass (tau-bench's
  reliability measure).

Both are one ratio ``C(s, k) / C(n, k)`` (``s = c`` for pass^k; ``s = n - c``
for pass@k, taken from 1). Up to :data:`EXACT_UP_TO` trials the binomial
coefficients are integers and the float is the correctly rounded quotient.
Beyond, integers that size cost time quadratic in ``n``, so the ratio is the
product ``prod_{i<k} (s - i) / (n - i)`` summed as logarithms: each factor's
logarithm is taken where it is well conditioned (``log(r)`` for a factor below
1/2, ``log1p(-(n - s) / (n - i))`` above), all of them have one sign, and
:func:`math.fsum` adds them exactly, so the logarithm of the ratio is within a
few units in the last place, relatively, and the ratio within about
``|log ratio| * 3e-16`` (below 2.5e-13 for any ratio a float holds);
``1 - ratio`` is ``-expm1(log ratio)``, with no cancellation when the ratio is
near 1. Tests hold both to integer arithmetic for n up to 10^6.

:func:`pass_k_values` computes both for many tasks and many k at once, once per
distinct ``(n, c)``: the time grows with the number of distinct pairs times the
largest k, which is at most the number of trials in all.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import islice

import numpy as np
import numpy.typing as npt

from agentmetrics.errors import InvalidParameterError

__all__ = ["EXACT_UP_TO", "pass_at_k", "pass_hat_k", "pass_k_values"]

#: Tasks with at most this many trials get exact (correctly rounded) values.
EXACT_UP_TO = 1000


def _check(n: int, c: int, k: int) -> None:
    for name, value in (("n", n), ("c", c), ("k", k)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
            raise InvalidParameterError(f"{name}: expected a count, got {value!r}.")
    if c > n:
        raise InvalidParameterError(f"c: expected at most n={n} passes, got {c}.")
    if not 1 <= k <= n:
        raise InvalidParameterError(
            f"k: expected between 1 and the number of trials ({n}), got {k}. Fix: ask for k "
            f"up to the fewest trials any task has.")


def _log_ratios(n: int, s: int, ks: Sequence[int]) -> list[float]:
    """log(C(s, k) / C(n, k)) for each k of ``ks`` (each at most ``s``): the
    exact sum of the well-conditioned logarithms of the factors."""
    i = np.arange(min(max(ks), s), dtype=np.float64)
    left = n - i
    ratio = (s - i) / left
    with np.errstate(divide="ignore"):
        terms = np.where(ratio < 0.5, np.log(ratio), np.log1p(-(n - s) / left)).tolist()
    return [math.fsum(islice(terms, k)) for k in ks]


def _pair(n: int, c: int, ks: Sequence[int]) -> tuple[list[float], list[float]]:
    """pass@k and pass^k of one task, for each k of ``ks`` (ascending, 1 <= k <= n)."""
    if n <= EXACT_UP_TO:
        at, hat = [], []
        for k in ks:
            total = math.comb(n, k)
            at.append((total - math.comb(n - c, k)) / total)
            hat.append(math.comb(c, k) / total)
        return at, hat
    failed = n - c
    # k = 1 is the pass rate itself, as exact as the division.
    at_ks = [k for k in ks if 1 < k <= failed]
    hat_ks = [k for k in ks if 1 < k <= c]
    at_logs = dict(zip(at_ks, _log_ratios(n, failed, at_ks))) if at_ks else {}
    hat_logs = dict(zip(hat_ks, _log_ratios(n, c, hat_ks))) if hat_ks else {}
    rate = c / n
    at = [rate if k == 1 else -math.expm1(at_logs[k]) if k <= failed else 1.0 for k in ks]
    hat = [rate if k == 1 else math.exp(hat_logs[k]) if k <= c else 0.0 for k in ks]
    return at, hat


def pass_k_values(trials: npt.ArrayLike, passes: npt.ArrayLike, ks: Sequence[int]
                  ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """pass@k and pass^k of every task (rows: ``trials[i]`` runs, ``passes[i]``
    passed) for every k of ``ks`` (columns), each k between 1 and the fewest
    trials (checked by the caller). Computed once per distinct (trials, passes)."""
    n = np.asarray(trials, dtype=np.int64)
    c = np.asarray(passes, dtype=np.int64)
    order = sorted({int(k) for k in ks})
    at = np.empty((len(n), len(order)), dtype=np.float64)
    hat = np.empty((len(n), len(order)), dtype=np.float64)
    if len(n) and order:
        pairs, inverse = np.unique(np.stack([n, c], axis=1), axis=0, return_inverse=True)
        inverse = inverse.reshape(-1)
        at_rows = np.empty((len(pairs), len(order)), dtype=np.float64)
        hat_rows = np.empty((len(pairs), len(order)), dtype=np.float64)
        for index, (pair_n, pair_c) in enumerate(pairs.tolist()):
            at_rows[index], hat_rows[index] = _pair(pair_n, pair_c, order)
        at, hat = at_rows[inverse], hat_rows[inverse]
    columns = [order.index(int(k)) for k in ks]
    return at[:, columns], hat[:, columns]


def pass_at_k(n: int, c: int, k: int) -> float:
    """Chance that at least one of ``k`` of the ``n`` trials passes (``c`` passed)."""
    _check(n, c, k)
    return _pair(int(n), int(c), [int(k)])[0][0]


def pass_hat_k(n: int, c: int, k: int) -> float:
    """Chance that all ``k`` of the ``n`` trials pass (``c`` passed): pass^k."""
    _check(n, c, k)
    return _pair(int(n), int(c), [int(k)])[1][0]
