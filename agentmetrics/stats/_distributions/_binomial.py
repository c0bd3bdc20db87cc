"""The binomial distribution, and the two-sided exact binomial test."""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from typing import SupportsIndex

from agentmetrics.errors import InvalidParameterError
from agentmetrics.stats._distributions._common import NAN
from agentmetrics.stats._distributions._incomplete import beta_pair, log_beta_kernel

__all__ = ["binom_cdf", "binom_pmf", "binom_sf", "binom_test_two_sided"]

#: scipy.stats.binomtest's relative tolerance when comparing probabilities.
_BINOM_RTOL = 1 + 1e-7


def _binom_args(n: float, p: float) -> bool:
    return math.isfinite(n) and n >= 0.0 and n == math.floor(n) and 0.0 <= p <= 1.0


def binom_pmf(k: float, n: float, p: float) -> float:
    """Binomial probability P(X = k), X ~ Bin(n, p); 0 for non-integer k, nan for bad n, p.

    Loader's saddle-point form: sqrt(n / (2 pi k (n-k))) exp(delta(n) - delta(k)
    - delta(n-k) - bd0(k, np) - bd0(n-k, n(1-p))), with delta the error of Stirling's
    formula (``math.lgamma`` less Stirling's terms below 10, its series above), as
    n / (k (n-k)) times ``log_beta_kernel(k, n-k, p, 1-p)``."""
    if not _binom_args(n, p) or math.isnan(k):
        return NAN
    if k < 0 or k > n or k != math.floor(k):
        return 0.0
    if p == 0.0 or p == 1.0:
        return 1.0 if k == (0.0 if p == 0.0 else n) else 0.0
    if k == 0 or k == n:
        return math.exp(n * (math.log1p(-p) if k == 0 else math.log(p)))
    return math.exp(log_beta_kernel(k, n - k, p, 1.0 - p)) * n / (k * (n - k))


def _binom_tails(k: float, n: float, p: float) -> tuple[float, float]:
    """(P(X <= k), P(X > k)) = (I_{1-p}(n-k, k+1), I_p(k+1, n-k)), k floored."""
    if not _binom_args(n, p) or math.isnan(k):
        return NAN, NAN
    if k < 0 or k >= n or p == 0.0 or p == 1.0:
        return (0.0, 1.0) if k < 0 or (p == 1.0 and k < n) else (1.0, 0.0)
    k = math.floor(k)
    return beta_pair(n - k, k + 1.0, 1.0 - p, p)


def binom_cdf(k: float, n: float, p: float) -> float:
    """Binomial CDF P(X <= k) = I_{1-p}(n - k, k + 1), k floored (as SciPy)."""
    return _binom_tails(k, n, p)[0]


def binom_sf(k: float, n: float, p: float) -> float:
    """Binomial survival function P(X > k) = I_p(k + 1, n - k), k floored (as SciPy)."""
    return _binom_tails(k, n, p)[1]


def _count(name: str, value: SupportsIndex, minimum: int) -> int:
    try:
        number = operator.index(value)
    except TypeError:
        raise InvalidParameterError(f"{name}: expected an integer, got {value!r}.") from None
    if number < minimum:
        raise InvalidParameterError(f"{name}: expected an integer >= {minimum}, got {number}.")
    return number


def _last_at_or_below(f: Callable[[int], float], level: float, lo: int, hi: int) -> int:
    """Binary search over lo..hi, on which f rises: i with f(i) <= level < f(i+1).

    Exactly the search of ``scipy.stats.binomtest`` (which stops early on equality and
    can step one index below ``lo``), so that both pick the same boundary."""
    while lo < hi:
        mid = lo + (hi - lo) // 2
        value = f(mid)
        if value < level:
            lo = mid + 1
        elif value > level:
            hi = mid - 1
        else:
            return mid
    return lo if f(lo) <= level else lo - 1


def binom_test_two_sided(k: SupportsIndex, n: SupportsIndex, p: float = 0.5) -> float:
    """Two-sided exact binomial test p-value, as ``scipy.stats.binomtest(k, n, p).pvalue``.

    The p-value sums the probabilities of all outcomes no more likely than the
    observed one (up to a relative tolerance of 1e-7). Outcomes on the other side of
    the mode are found by binary search on the pmf, and both tails are summed by the
    binomial CDF and survival function (incomplete beta), so any n costs
    O(log n) pmf evaluations and two continued fractions. Capped at 1.
    """
    k, n = _count("k", k, 0), _count("n", n, 1)
    if k > n:
        raise InvalidParameterError(f"k: expected at most n = {n}, got {k}.")
    if not 0.0 <= p <= 1.0:
        raise InvalidParameterError(f"p: expected a probability in [0, 1], got {p!r}.")
    p = float(p)
    level = binom_pmf(k, n, p) * _BINOM_RTOL
    mean = p * n
    if k == mean:
        return 1.0
    if k < mean:  # the far side is above the mean, where the pmf falls
        ix = _last_at_or_below(lambda i: -binom_pmf(i, n, p), -level, math.ceil(mean), n)
        far = n - ix + int(level == binom_pmf(ix, n, p))
        pvalue = binom_cdf(k, n, p) + binom_sf(n - far, n, p)
    else:  # the far side is below the mean, where the pmf rises
        ix = _last_at_or_below(lambda i: binom_pmf(i, n, p), level, 0, math.floor(mean))
        pvalue = binom_cdf(ix, n, p) + binom_sf(k - 1, n, p)
    return min(1.0, pvalue)
