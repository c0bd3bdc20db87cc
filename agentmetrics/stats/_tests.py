"""Paired tests: did the candidate score differently from the baseline on the same cases?

- The mean of the paired differences, with a t interval, and a p-value from the
  paired t test or from a sign-flip permutation test (under the null, each
  difference is as likely positive as negative: flip signs, exactly for few
  cases, else over seeded random flips).
- McNemar's exact test on pass/fail flips: of the cases whose outcome
  changed, are regressions more frequent than improvements than chance allows?

Given the range the values can take (``bounds``, a metric's ``value_range``),
the interval of the difference is clipped to what a difference of two such
values can be, ``[-(high - low), high - low]``.
"""

from __future__ import annotations

import itertools
import math
from typing import Any, Literal

import attrs
import numpy as np
import numpy.typing as npt

from agentmetrics._base._exact import ExactSum
from agentmetrics.errors import InvalidParameterError
from agentmetrics.stats._distributions import binom_test_two_sided, t_ppf, t_sf
from agentmetrics.stats._intervals import (
    Bounds,
    _check_bounds,
    _check_within,
    _values,
    check_ci,
    clip_to,
    difference_bounds,
)

__all__ = ["Difference", "mcnemar_exact", "paired_difference"]

#: Up to this many non-zero differences, the sign-flip test enumerates every flip.
EXACT_FLIPS = 16


@attrs.frozen(slots=True)
class Difference:
    """The mean paired difference (candidate minus baseline), its interval and
    the p-value of "no difference"."""

    mean: float
    se: float
    low: float
    high: float
    ci: float
    n: int
    p_value: float
    method: str

    def __str__(self) -> str:
        return (f"{self.mean:+.4g} [{self.low:+.4g}, {self.high:+.4g}] ({self.ci:.0%} CI), "
                f"p = {self.p_value:.3g} ({self.method})")


def paired_difference(
    baseline: Any,
    candidate: Any,
    *,
    ci: float = 0.95,
    method: Literal["t", "permutation"] = "t",
    resamples: int = 10_000,
    seed: int = 0,
    bounds: Bounds | None = None,
) -> Difference:
    """``candidate - baseline``, case by case: the mean difference with a t
    interval, and a two-sided p-value from the paired t test (``"t"``) or a
    sign-flip permutation test (``"permutation"``: exact up to 16 non-zero
    differences, else ``resamples`` seeded random flips).

    ``bounds``: ``(low, high)``, the range both sides' values can take (a
    metric's ``value_range``); the interval of the difference is then clipped
    to ``[-(high - low), high - low]``, the differences such values can have.
    Values outside ``bounds`` are refused. The default, None, clips nothing:
    raw values carry no range. :func:`agentmetrics.compare` passes the
    metric's. The mean, standard error and p-value are never changed.
    """
    ci = check_ci(ci)
    before, after = _values(baseline), _values(candidate)
    if before.shape != after.shape:
        raise InvalidParameterError(
            f"baseline and candidate: expected one value each per paired case, got "
            f"{len(before)} and {len(after)}.")
    if method not in ("t", "permutation"):
        raise InvalidParameterError(f"method: expected 't' or 'permutation', got {method!r}.")
    limits = _check_bounds(bounds)
    if limits is not None:
        _check_within(before, limits, "baseline")
        _check_within(after, limits, "candidate")
    differences = after - before
    n = len(differences)
    if n == 0:
        return Difference(math.nan, math.nan, math.nan, math.nan, ci, 0, math.nan, method)
    # Correctly rounded: the mean of differences within +-width stays within it.
    mean = ExactSum().add(differences).mean
    if n < 2:
        return Difference(mean, math.nan, math.nan, math.nan, ci, 1, math.nan, method)
    se = float(differences.std(ddof=1)) / math.sqrt(n)
    half = t_ppf(0.5 + ci / 2, n - 1) * se
    if method == "t":
        p_value = _t_p_value(mean, se, n - 1)
    else:
        p_value = _sign_flip_p_value(differences, resamples, seed)
    low, high = clip_to(mean - half, mean + half, difference_bounds(limits), mean)
    return Difference(mean, se, low, high, ci, n, p_value,
                      "paired t" if method == "t" else "sign-flip permutation")


def _t_p_value(mean: float, se: float, df: int) -> float:
    if se == 0.0:  # every difference equal: no doubt left, one way or the other
        return 1.0 if mean == 0.0 else 0.0
    return min(1.0, 2.0 * t_sf(abs(mean / se), df))


def _sign_flip_p_value(differences: npt.NDArray[np.float64], resamples: int, seed: int) -> float:
    nonzero = differences[differences != 0.0]
    if len(nonzero) == 0:
        return 1.0
    observed = abs(float(nonzero.sum()))
    # A flip sum reaching the observed one, allowing for rounding in the sums.
    tolerance = 1e-9 * max(1.0, float(np.abs(nonzero).sum()))
    if len(nonzero) <= EXACT_FLIPS:
        signs = np.array(list(itertools.product((1.0, -1.0), repeat=len(nonzero))))
        sums = np.abs(signs @ nonzero)
        return float(np.mean(sums >= observed - tolerance))
    if isinstance(resamples, bool) or not isinstance(resamples, int) or resamples < 1:
        raise InvalidParameterError(f"resamples: expected a positive whole number, got "
                                    f"{resamples!r}.")
    rng = np.random.default_rng(seed)
    hits = _random_flip_hits(nonzero, observed - tolerance, resamples, rng)
    # Counting the observed arrangement itself keeps the p-value valid (never 0).
    return (hits + 1) / (resamples + 1)


def _random_flip_hits(differences: npt.NDArray[np.float64], reach: float, resamples: int,
                      rng: np.random.Generator) -> int:
    """How many of ``resamples`` random sign flips give ``|sum| >= reach``.

    The differences are taken eight at a time: for each group a table holds
    the sum of every subset of its eight (256 of them), so a flip is one random
    byte per group and its sum ``2 * (sum of the +1 ones) - total`` is one
    table lookup per eight differences rather than eight multiplications.
    """
    groups = -(-len(differences) // 8)
    padded = np.zeros(groups * 8)
    padded[:len(differences)] = differences  # zeros change no sum
    subsets = ((np.arange(256)[:, None] >> np.arange(8)) & 1).astype(np.float64)
    table = (padded.reshape(groups, 8) @ subsets.T).ravel()  # group g, subset b: g*256 + b
    offsets = np.arange(groups, dtype=np.intp) * 256
    total = float(differences.sum())
    hits = 0
    rows = max(1, (1 << 20) // groups)
    for start in range(0, resamples, rows):
        stop = min(resamples, start + rows)
        picks = rng.integers(0, 256, size=(stop - start, groups), dtype=np.uint8)
        sums = 2.0 * table[picks + offsets].sum(axis=1) - total
        hits += int(np.count_nonzero(np.abs(sums) >= reach))
    return hits


def mcnemar_exact(regressed: int, improved: int) -> float:
    """McNemar's exact test: the two-sided p-value that, among the cases whose
    pass/fail outcome changed, ``regressed`` (pass to fail) and ``improved``
    (fail to pass) differ by chance alone (a binomial test at one half)."""
    for name, value in (("regressed", regressed), ("improved", improved)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
            raise InvalidParameterError(f"{name}: expected a count, got {value!r}.")
    flips = int(regressed) + int(improved)
    return 1.0 if flips == 0 else binom_test_two_sided(int(regressed), flips, 0.5)
