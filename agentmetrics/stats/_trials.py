"""Repeated trials: how reliably does the agent succeed at a task it is given again?

For a task run ``n`` times with ``c`` passes:

- ``pass@k`` = 1 - C(n - c, k) / C(n, k): the chance that at least one of k
  trials drawn from the n passes (the unbiased estimator of Chen et al.);
- ``pass^k`` = C(c, k) / C(n, k): the chance that all k pass (tau-bench's
  reliability measure).

Both are exact: binomial coefficients in integers, one division at the end.
"""

from __future__ import annotations

import math
from fractions import Fraction

from agentmetrics.errors import InvalidParameterError

__all__ = ["pass_at_k", "pass_hat_k"]


def _check(n: int, c: int, k: int) -> None:
    for name, value in (("n", n), ("c", c), ("k", k)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise InvalidParameterError(f"{name}: expected a count, got {value!r}.")
    if c > n:
        raise InvalidParameterError(f"c: expected at most n={n} passes, got {c}.")
    if not 1 <= k <= n:
        raise InvalidParameterError(
            f"k: expected between 1 and the number of trials ({n}), got {k}. Fix: ask for k "
            f"up to the fewest trials any task has.")


def pass_at_k(n: int, c: int, k: int) -> float:
    """Chance that at least one of ``k`` of the ``n`` trials passes (``c`` passed)."""
    _check(n, c, k)
    return float(1 - Fraction(math.comb(n - c, k), math.comb(n, k)))


def pass_hat_k(n: int, c: int, k: int) -> float:
    """Chance that all ``k`` of the ``n`` trials pass (``c`` passed): pass^k."""
    _check(n, c, k)
    return float(Fraction(math.comb(c, k), math.comb(n, k)))
