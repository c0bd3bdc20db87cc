"""Error bars: intervals for a mean and for a pass rate.

- The mean, by the central limit theorem: standard error ``s / sqrt(n)`` and a
  Student t interval with ``n - 1`` degrees of freedom.
- Clustered cases (several runs of one task, say): the cluster-robust standard
  error of the mean, as an intercept-only least-squares fit with clustered
  covariance gives it (the sandwich estimator with the usual small-sample
  factor ``G / (G - 1)`` for ``G`` clusters), and a t interval with ``G - 1``
  degrees of freedom.
- The bootstrap: resampled means (clusters resampled whole, when given), a
  percentile interval. Seeded, and vectorized: a resample's mean depends only
  on how often each distinct value (or cluster) is drawn, and those counts are
  drawn at once, multinomially, for every resample.
- A pass rate: Wilson's score interval.

Clipping: a mean cannot leave the range its values can take, so neither
should its interval. ``mean_interval(..., bounds=(low, high))`` clips the
interval to it (``summary()`` passes each metric's ``value_range``), and
``paired_difference(..., bounds=(low, high))`` clips the interval of a
difference to ``[-(high - low), high - low]``. The true value lies in that
range, so clipping removes only values it cannot take: coverage is unchanged,
the interval only narrower. Without ``bounds`` (the default) nothing is
clipped, since raw values carry no range.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Literal

import attrs
import numpy as np
import numpy.typing as npt

from agentmetrics._base._exact import ExactSum, mean_and_variance
from agentmetrics.errors import InvalidParameterError
from agentmetrics.stats._distributions import norm_ppf, t_ppf

__all__ = [
    "Bounds", "Interval", "check_ci", "clip_to", "difference_bounds", "mean_interval",
    "proportion_interval",
]

Method = Literal["clt", "bootstrap"]
#: ``(low, high)``: the range values can take, to clip an interval to.
Bounds = tuple[float, float]
#: Resample counts are drawn multinomially for up to this many distinct values
#: (or clusters), or when there are this many times as many cases as distinct
#: values; otherwise case by case (a multinomial draw costs about 25 times an
#: index draw per category).
_MULTINOMIAL_LIMIT = 64
_MULTINOMIAL_RATIO = 25
_BLOCK_DRAWS = 1 << 20  # indices drawn at once when drawing case by case


@attrs.frozen(slots=True)
class Interval:
    """An estimate with its standard error and a confidence interval.

    ``n`` counts the observations (cases); ``clusters`` the clusters when the
    interval accounts for them. For the bootstrap, ``se`` is the standard
    deviation of the resampled means. It is NaN wherever too few observations
    leave it undefined. ``low`` and ``high`` lie within the ``bounds`` the
    interval was asked for, if any.
    """

    estimate: float
    se: float
    low: float
    high: float
    ci: float
    n: int
    method: str
    clusters: int | None = None

    def __str__(self) -> str:
        return (f"{self.estimate:.4g} [{self.low:.4g}, {self.high:.4g}] "
                f"({self.ci:.0%} CI, {self.method})")


def check_ci(ci: object) -> float:
    if isinstance(ci, bool) or not isinstance(ci, (int, float)) or not 0 < ci < 1:
        raise InvalidParameterError(f"ci: expected a confidence level between 0 and 1 "
                                    f"(e.g. 0.95), got {ci!r}.")
    return float(ci)


def _values(values: Any) -> npt.NDArray[np.float64]:
    array = np.asarray(values, dtype=np.float64)
    if array.ndim != 1:
        raise InvalidParameterError(f"values: expected one value per case, got an array of "
                                    f"shape {array.shape}.")
    if not np.isfinite(array).all():
        raise InvalidParameterError("values: expected finite numbers; drop the cases that "
                                    "could not be scored (NaN) first.")
    return array


def _cluster_codes(clusters: Sequence[Any] | npt.NDArray[Any], n: int) -> npt.NDArray[np.intp]:
    labels = list(clusters)
    if len(labels) != n:
        raise InvalidParameterError(f"cluster: expected one label per case ({n}), got "
                                    f"{len(labels)}.")
    codes: dict[Any, int] = {}
    try:
        return np.fromiter((codes.setdefault(label, len(codes)) for label in labels),
                           dtype=np.intp, count=n)
    except TypeError:
        raise InvalidParameterError("cluster: labels must be hashable (task ids, names).") from None


def _check_bounds(bounds: object, parameter: str = "bounds") -> Bounds | None:
    """``bounds`` as a ``(low, high)`` pair of floats, or None (no clipping);
    an end may be infinite (a metric's ``value_range`` for seconds or counts)."""
    if bounds is None:
        return None
    fix = (f"Fix: pass the range the values can take, e.g. {parameter}=(0.0, 1.0) (a "
           f"metric's value_range), or {parameter}=None not to clip.")
    if (isinstance(bounds, (str, bytes)) or not isinstance(bounds, (tuple, list, np.ndarray))
            or len(bounds) != 2):
        raise InvalidParameterError(
            f"{parameter}: expected a (low, high) pair, got {_shown(bounds)}. {fix}")
    if any(isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer,
                                                                 np.floating))
           or math.isnan(v) for v in bounds):
        raise InvalidParameterError(
            f"{parameter}: expected two numbers (low, high), neither NaN (either may be "
            f"infinite, as a metric's value_range (0.0, inf) for seconds), got "
            f"{_shown(bounds)}. {fix}")
    low, high = float(bounds[0]), float(bounds[1])
    if not low < high:
        raise InvalidParameterError(
            f"{parameter}: expected low < high, got {_shown(bounds)}. {fix}")
    return low, high


def _shown(value: object) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text[:57] + '...' if len(text) > 60 else text}"


def _check_within(data: npt.NDArray[np.float64], bounds: Bounds, parameter: str) -> None:
    """Refuse values outside ``bounds``: clipping to a range the values leave
    could cut the estimate itself out of its interval."""
    low, high = bounds
    outside = np.flatnonzero((data < low) | (data > high))
    if len(outside):
        first = int(outside[0])
        raise InvalidParameterError(
            f"{parameter}: expected values within bounds=({low:g}, {high:g}), got "
            f"{float(data[first])!r} at position {first}. Fix: give bounds the range the "
            f"values can take, or bounds=None not to clip.")


def clip_to(low: float, high: float, bounds: Bounds | None,
            estimate: float) -> tuple[float, float]:
    """``(low, high)`` clipped to ``bounds`` (None: unchanged). NaN (too little
    data) stays NaN, and the estimate is never cut out of its interval: the
    bounds are widened to hold it (a no-op for an estimate of values within
    them)."""
    if bounds is None:
        return low, high
    floor, ceiling = bounds
    if not math.isnan(estimate):
        floor, ceiling = min(floor, estimate), max(ceiling, estimate)
    return (low if math.isnan(low) else min(ceiling, max(floor, low)),
            high if math.isnan(high) else min(ceiling, max(floor, high)))


def difference_bounds(bounds: Bounds | None) -> Bounds | None:
    """The range of a difference of two values within ``bounds``: its width either way."""
    if bounds is None:
        return None
    width = bounds[1] - bounds[0]
    return -width, width


def _clipped(interval: Interval, bounds: Bounds | None) -> Interval:
    if bounds is None:
        return interval
    low, high = clip_to(interval.low, interval.high, bounds, interval.estimate)
    return attrs.evolve(interval, low=low, high=high)


def _nan_interval(estimate: float, ci: float, n: int, method: str,
                  clusters: int | None = None) -> Interval:
    return Interval(estimate, math.nan, math.nan, math.nan, ci, n, method, clusters)


def mean_interval(
    values: Any,
    *,
    ci: float = 0.95,
    cluster: Sequence[Any] | npt.NDArray[Any] | None = None,
    method: Method = "clt",
    resamples: int = 10_000,
    seed: int = 0,
    bounds: Bounds | None = None,
) -> Interval:
    """The mean of ``values`` with its standard error and a ``ci`` interval.

    ``cluster``: one label per value (a task id); cases that share one are not
    independent, and the interval accounts for it. ``method``: ``"clt"`` (a t
    interval) or ``"bootstrap"`` (``resamples`` seeded resamples, percentile
    interval; clusters resampled whole).

    ``bounds``: ``(low, high)``, the range the values can take (a metric's
    ``value_range``, ``(0.0, 1.0)`` for scores); the interval is clipped to it,
    since the mean cannot leave it either (a t interval of a few scores near
    0 otherwise reaches below 0). Values outside ``bounds`` are refused. The
    default, None, clips nothing: raw values carry no range, and any range
    assumed for them ([0, 1], say, for latencies) could be wrong.
    ``summary()`` passes each metric's ``value_range``. The estimate and the
    standard error are never changed; NaN (too little data) stays NaN.
    """
    ci = check_ci(ci)
    data = _values(values)
    n = len(data)
    if method not in ("clt", "bootstrap"):
        raise InvalidParameterError(f"method: expected 'clt' or 'bootstrap', got {method!r}.")
    limits = _check_bounds(bounds)
    if limits is not None:
        _check_within(data, limits, "values")
    if n == 0:
        return _nan_interval(math.nan, ci, 0, method)
    codes = None if cluster is None else _cluster_codes(cluster, n)
    groups = None if codes is None else int(codes.max()) + 1
    if method == "bootstrap" or codes is not None:
        # Correctly rounded, as the t interval's below: the mean of values within
        # bounds stays within them (numpy's sum can round past them).
        mean = ExactSum().add(data).mean
    if method == "bootstrap":
        return _clipped(_bootstrap(data, codes, ci, resamples, seed, mean, groups), limits)
    if codes is None:
        # Exact moments: the same numbers as a summary merged from partitions.
        mean, variance = mean_and_variance(data, 1)
        if n < 2:
            return _nan_interval(mean, ci, n, "clt")
        se = math.sqrt(variance) / math.sqrt(n)
        df = n - 1
    else:
        assert groups is not None
        if groups < 2:
            return _nan_interval(mean, ci, n, "clt, clustered", groups)
        residual_sums = np.bincount(codes, weights=data - mean, minlength=groups)
        se = math.sqrt(groups / (groups - 1) * float(np.dot(residual_sums, residual_sums))) / n
        df = groups - 1
    half = t_ppf(0.5 + ci / 2, df) * se
    return _clipped(Interval(mean, se, mean - half, mean + half, ci, n,
                             "clt" if codes is None else "clt, clustered", groups), limits)


def _bootstrap(data: npt.NDArray[np.float64], codes: npt.NDArray[np.intp] | None, ci: float,
               resamples: int, seed: int, mean: float, groups: int | None) -> Interval:
    if isinstance(resamples, bool) or not isinstance(resamples, int) or resamples < 1:
        raise InvalidParameterError(f"resamples: expected a positive whole number, got "
                                    f"{resamples!r}.")
    rng = np.random.default_rng(seed)
    if codes is None:  # the units resampled are the cases; each carries its value
        units, weights = np.unique(data, return_counts=True)
        size_per_unit = np.ones(len(units))
        total_units = len(data)
    else:  # the units resampled are whole clusters: their sums and sizes
        sums_g = np.bincount(codes, weights=data)
        sizes_g = np.bincount(codes).astype(np.float64)
        pairs, weights = np.unique(np.stack([sums_g, sizes_g], axis=1), axis=0,
                                   return_counts=True)
        units, size_per_unit = pairs[:, 0], pairs[:, 1]
        total_units = len(sums_g)
    # Each resample draws total_units units. With few distinct units, their
    # counts are drawn multinomially, for every resample at once; with many, the
    # units are drawn one by one, a block of resamples at a time.
    if len(units) <= _MULTINOMIAL_LIMIT or len(units) * _MULTINOMIAL_RATIO <= total_units:
        counts = rng.multinomial(total_units, weights / weights.sum(), size=resamples)
        totals = counts @ units
        sizes_drawn = counts @ size_per_unit
    else:
        totals, sizes_drawn = _drawn_one_by_one(rng, units, size_per_unit, weights,
                                                total_units, resamples)
    means = totals / sizes_drawn
    tail = (1 - ci) / 2
    low, high = np.quantile(means, [tail, 1 - tail])
    se = float(np.std(means, ddof=1)) if resamples > 1 else math.nan
    return Interval(mean, se, float(low), float(high), ci, len(data),
                    "bootstrap" if codes is None else "bootstrap, clustered", groups)


def _drawn_one_by_one(
    rng: np.random.Generator, units: npt.NDArray[np.float64],
    size_per_unit: npt.NDArray[np.float64], weights: npt.NDArray[np.intp], total_units: int,
    resamples: int,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Resample sums and sizes, drawing every unit: a block of resamples at a
    time, small enough for the drawn indices to stay in cache."""
    expanded_values = np.repeat(units, weights)
    expanded_sizes = np.repeat(size_per_unit, weights)
    uniform = bool((size_per_unit == 1.0).all())
    totals = np.empty(resamples)
    sizes_drawn = np.full(resamples, float(total_units))
    rows = max(1, _BLOCK_DRAWS // total_units)
    for start in range(0, resamples, rows):
        stop = min(resamples, start + rows)
        picks = rng.integers(0, total_units, size=(stop - start, total_units))
        totals[start:stop] = expanded_values[picks].sum(axis=1)
        if not uniform:
            sizes_drawn[start:stop] = expanded_sizes[picks].sum(axis=1)
    return totals, sizes_drawn


def proportion_interval(successes: int, n: int, *, ci: float = 0.95) -> Interval:
    """``successes / n`` with Wilson's score interval (which, unlike the usual
    normal interval, stays inside [0, 1] and behaves near 0 and 1). ``se`` is
    the usual ``sqrt(p (1 - p) / n)``."""
    ci = check_ci(ci)
    for name, value in (("successes", successes), ("n", n)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
            raise InvalidParameterError(f"{name}: expected a count, got {value!r}.")
    if successes > n:
        raise InvalidParameterError(f"successes: expected at most n={n}, got {successes}.")
    if n == 0:
        return _nan_interval(math.nan, ci, 0, "wilson")
    p = successes / n
    z = norm_ppf(0.5 + ci / 2)
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z / (1 + z2 / n) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    # At 0 and n passes the bounds are exactly 0 and 1; rounding must not
    # leave the estimate outside its own interval.
    low = 0.0 if successes == 0 else min(p, centre - half)
    high = 1.0 if successes == n else max(p, centre + half)
    return Interval(p, math.sqrt(p * (1 - p) / n), low, high, ci, int(n), "wilson")
