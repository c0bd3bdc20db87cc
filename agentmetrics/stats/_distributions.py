"""Distribution functions in plain Python (no SciPy): normal, Student t, binomial, chi-squared.

Every function takes and returns Python scalars. Invalid parameters give ``nan``
(as ``scipy.stats`` does), except :func:`binom_test_two_sided`, which raises
:class:`~agentmetrics.errors.InvalidParameterError` where ``scipy.stats.binomtest``
raises.

Building blocks:

- the error of Stirling's formula and Loader's deviance term ``bd0`` (C. Loader,
  "Fast and accurate computation of binomial probabilities", 2000), which give
  ``x^a (1-x)^b / B(a, b)``, ``x^a e^-x / Gamma(a+1)`` and binomial probabilities
  to near machine precision even where the plain log-gamma formula cancels;
- the continued fractions for the incomplete beta (Abramowitz & Stegun 26.5.8)
  and upper incomplete gamma (Legendre) functions, summed with the modified
  Lentz method (Thompson & Barnett, 1986), and the power series of the lower
  incomplete gamma function.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable

from agentmetrics.errors import InvalidParameterError

__all__ = [
    "betainc", "binom_cdf", "binom_pmf", "binom_sf", "binom_test_two_sided", "chi2_sf",
    "gammainc", "gammaincc", "norm_cdf", "norm_ppf", "t_cdf", "t_ppf", "t_sf",
]

_EPS = 2.220446049250313e-16
_TINY = 1e-300
_NAN = math.nan
_SQRT1_2 = 0.7071067811865476
_SQRT_2PI = 2.5066282746310002
_LN_SQRT_2PI = 0.9189385332046728
#: scipy.stats.binomtest's relative tolerance when comparing probabilities.
_BINOM_RTOL = 1 + 1e-7


def _stirlerr(z: float) -> float:
    """delta(z) = ln Gamma(z) - ((z - 1/2) ln z - z + ln sqrt(2 pi)), for z > 0."""
    if z >= 10.0:  # Stirling's series; the first omitted term is below 3e-17
        w = 1.0 / (z * z)
        return (1 / 12 - w * (1 / 360 - w * (1 / 1260 - w * (1 / 1680 - w * (
            1 / 1188 - w * (691 / 360360 - w / 156)))))) / z
    return math.lgamma(z) - (z - 0.5) * math.log(z) + z - _LN_SQRT_2PI


def _bd0(x: float, m: float) -> float:
    """Loader's bd0(x, m) = x ln(x/m) + m - x >= 0, without cancellation when x ~ m."""
    if m <= 0.0:
        return math.inf
    dif = x - m
    if abs(dif) < 0.1 * (x + m):
        # With v = (x-m)/(x+m), x ln(x/m) = 2x (v + v^3/3 + v^5/5 + ...).
        v = dif / (x + m)
        total, term, v2, j = dif * v, 2.0 * x * v, v * v, 1
        while True:
            term *= v2
            j += 2
            new = total + term / j
            if new == total:
                return new
            total = new
    ratio = x / m
    if ratio == 0.0 or math.isinf(ratio):
        return x * (math.log(x) - math.log(m)) + m - x
    return x * math.log(ratio) + m - x


# --- normal ------------------------------------------------------------------------------

def norm_cdf(x: float) -> float:
    """Standard normal CDF Phi(x), from ``math.erf``/``math.erfc`` (no cancellation in
    either tail)."""
    z = x * _SQRT1_2
    if z < -0.5:
        return 0.5 * math.erfc(-z)
    if z > 0.5:
        return 1.0 - 0.5 * math.erfc(z)
    return 0.5 + 0.5 * math.erf(z)


_ACKLAM_A = (-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
             1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00)
_ACKLAM_B = (-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
             6.680131188771972e+01, -1.328068155288572e+01, 1.0)
_ACKLAM_C = (-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
             -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00)
_ACKLAM_D = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
             3.754408661907416e+00, 1.0)


def _poly(coefs: tuple[float, ...], x: float) -> float:
    acc = 0.0
    for c in coefs:
        acc = acc * x + c
    return acc


def norm_ppf(p: float) -> float:
    """Standard normal quantile Phi^-1(p); -inf at 0, inf at 1, nan outside [0, 1].

    P. J. Acklam's rational approximation (relative error below 1.2e-9), then one
    Halley step on Phi(x) = p, with the residual taken relative to the lower tail
    probability (accurate down to p ~ 1e-308) or, in the centre, as erf(x/sqrt 2)/2
    against p - 1/2 (exact for p >= 1/4).
    """
    if not 0.0 <= p <= 1.0:
        return _NAN
    if p == 0.0 or p == 1.0:
        return -math.inf if p == 0.0 else math.inf
    q = min(p, 1.0 - p)  # 1 - p is exact for p >= 1/2
    if q >= 0.02425:
        u = p - 0.5
        r = u * u
        x = u * _poly(_ACKLAM_A, r) / _poly(_ACKLAM_B, r)
        err = 0.5 * math.erf(x * _SQRT1_2) - u
        step = err * _SQRT_2PI * math.exp(0.5 * x * x)
        return x - step / (1.0 + 0.5 * x * step)
    s = math.sqrt(-2.0 * math.log(q))
    x = _poly(_ACKLAM_C, s) / _poly(_ACKLAM_D, s)  # lower tail, x < 0
    rel = 0.5 * math.erfc(-x * _SQRT1_2) / q - 1.0
    step = rel * _SQRT_2PI * math.exp(math.log(q) + 0.5 * x * x)
    x -= step / (1.0 + 0.5 * x * step)
    return x if p < 0.5 else -x


# --- incomplete beta and gamma -----------------------------------------------------------

def _beta_cf(a: float, b: float, x: float, y: float) -> float:
    """I_x(a, b) from the continued fraction of A&S 26.5.8 (fast for x < (a+1)/(a+b+2)).

    The prefactor x^a y^b / B(a, b), y = 1 - x, is written with Stirling's formula as
    sqrt(ab / (2 pi (a+b))) exp(delta(a+b) - delta(a) - delta(b) - bd0(a, (a+b)x)
    - bd0(b, (a+b)y)), which keeps its relative error near machine precision.
    """
    n = a + b
    log_k = (_stirlerr(n) - _stirlerr(a) - _stirlerr(b) - _bd0(a, n * x) - _bd0(b, n * y)
             + 0.5 * (math.log(a) + math.log(b) - math.log(n)) - _LN_SQRT_2PI)
    # Modified Lentz: f = 1 + d1/(1 + d2/(1 + ...)), terms d_{2m+1} (odd) and d_{2m} (even).
    f, c, d = 1.0, 1.0, 0.0
    limit = 1000 + int(40.0 * math.sqrt(max(a, b)))
    for m in range(limit):
        odd = -(a + m) * (n + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
        even = (m + 1) * (b - m - 1) * x / ((a + 2 * m + 1) * (a + 2 * m + 2))
        done = True
        for num in (odd, even):
            d = 1.0 + num * d
            d = 1.0 / (d if d != 0.0 else _TINY)
            c = 1.0 + num / c
            c = c if c != 0.0 else _TINY
            delta = c * d
            f *= delta
            done = done and abs(delta - 1.0) <= _EPS
        if done:
            break
    return math.exp(log_k) / (a * f)


def _beta_pair(a: float, b: float, x: float, y: float) -> tuple[float, float]:
    """(I_x(a, b), I_y(b, a)) = (I, 1 - I) for x + y = 1; the continued fraction is
    summed on whichever side converges fast, the other value is its complement."""
    if x <= 0.0:
        return 0.0, 1.0
    if y <= 0.0:
        return 1.0, 0.0
    if x * (a + b + 2.0) > a + 1.0:
        w = _beta_cf(b, a, y, x)
        return 1.0 - w, w
    w = _beta_cf(a, b, x, y)
    return w, 1.0 - w


def betainc(a: float, b: float, x: float) -> float:
    """Regularized incomplete beta function I_x(a, b) for a, b > 0 and 0 <= x <= 1.

    Continued fraction (modified Lentz) on I_x(a, b) or, past the mean, on
    I_{1-x}(b, a) with I_x(a, b) = 1 - I_{1-x}(b, a). As ``scipy.special.betainc``,
    a = 0 (b > 0) gives 1 and b = 0 (a > 0) gives 0 inside (0, 1); nan otherwise.
    """
    if not (a >= 0.0 and b >= 0.0 and 0.0 <= x <= 1.0) or a + b == 0.0 or math.isinf(a + b):
        return _NAN
    if x == 0.0 or x == 1.0:
        return x
    if a == 0.0 or b == 0.0:
        return 1.0 if a == 0.0 else 0.0
    return _beta_pair(a, b, x, 1.0 - x)[0]


def _gamma_pair(a: float, x: float) -> tuple[float, float]:
    """(P(a, x), Q(a, x)): power series for x < a + 1, Legendre's continued fraction
    (modified Lentz) otherwise. Prefactor x^a e^-x / Gamma(a+1) =
    exp(-bd0(a, x) - delta(a)) / sqrt(2 pi a)."""
    if x <= 0.0:
        return 0.0, 1.0
    if math.isinf(x):
        return 1.0, 0.0
    k = math.exp(-_bd0(a, x) - _stirlerr(a) - 0.5 * math.log(a) - _LN_SQRT_2PI)
    limit = 1000 + int(40.0 * math.sqrt(a))
    if x < a + 1.0:
        total = term = 1.0
        for j in range(1, limit):
            term *= x / (a + j)
            total += term
            if term <= total * _EPS:
                break
        lower = k * total
        return lower, 1.0 - lower
    f = c = x + 1.0 - a  # >= 2
    d = 0.0
    for j in range(1, limit):
        num, den = -j * (j - a), x + 2 * j + 1.0 - a
        d = den + num * d
        d = 1.0 / (d if d != 0.0 else _TINY)
        c = den + num / c
        c = c if c != 0.0 else _TINY
        delta = c * d
        f *= delta
        if abs(delta - 1.0) <= _EPS:
            break
    upper = a * k / f
    return 1.0 - upper, upper


def gammainc(a: float, x: float) -> float:
    """Regularized lower incomplete gamma function P(a, x), a > 0, x >= 0."""
    return _gamma_pair(a, x)[0] if a > 0.0 and x >= 0.0 and math.isfinite(a) else _NAN


def gammaincc(a: float, x: float) -> float:
    """Regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x)."""
    return _gamma_pair(a, x)[1] if a > 0.0 and x >= 0.0 and math.isfinite(a) else _NAN


def chi2_sf(x: float, df: float) -> float:
    """Chi-squared survival function P(X > x) = Q(df/2, x/2), df > 0 (real)."""
    if not df > 0.0 or math.isnan(x):
        return _NAN
    if x <= 0.0 or math.isinf(df):
        return 1.0 if x < math.inf else _NAN
    return _gamma_pair(0.5 * df, 0.5 * x)[1]


# --- Student t ---------------------------------------------------------------------------

def _t_tails(m: float, df: float) -> tuple[float, float]:
    """(P(T < -m), P(-m < T < 0)) for m > 0, through P(|T| > m) = I_{df/(df+m^2)}(df/2, 1/2)."""
    mm = m * m
    if math.isinf(mm):
        x = df / m / m
        y = 1.0 - x
    else:
        x, y = df / (df + mm), mm / (df + mm)
    outer, inner = _beta_pair(0.5 * df, 0.5, x, y)
    return 0.5 * outer, 0.5 * inner


def t_cdf(t: float, df: float) -> float:
    """Student t CDF P(T <= t) for real df > 0 (df = inf is the normal), via betainc."""
    if math.isnan(t) or not df > 0.0:
        return _NAN
    if math.isinf(df):
        return norm_cdf(t)
    if t == 0.0 or math.isinf(t):
        return 0.5 if t == 0.0 else (1.0 if t > 0.0 else 0.0)
    tail, inner = _t_tails(abs(t), df)
    return tail if t < 0.0 else 0.5 + inner


def t_sf(t: float, df: float) -> float:
    """Student t survival function P(T > t) = t_cdf(-t, df)."""
    return t_cdf(-t, df)


def _hill_guess(q: float, df: float) -> float:
    """G. W. Hill's approximation (Algorithm 396, CACM 1970) to the magnitude of the
    Student t quantile whose two-sided tail probability is 2q (df > 1/2)."""
    two = 2.0 * q
    a = 1.0 / (df - 0.5)
    b = 48.0 / (a * a)
    c = ((20700.0 * a / b - 98.0) * a - 16.0) * a + 96.36
    d = ((94.5 / (b + c) - 3.0) / b + 1.0) * math.sqrt(a * math.pi / 2.0) * df
    y = math.exp(2.0 / df * math.log(d * two)) if d * two > 0.0 else 0.0
    if y > 0.05 + a:  # expansion around the normal quantile
        x = norm_ppf(q)
        y = x * x
        if df < 5.0:
            c += 0.3 * (df - 4.5) * (x + 0.6)
        c = (((0.05 * d * x - 5.0) * x - 7.0) * x - 2.0) * x + b + c
        y = (((((0.4 * y + 6.3) * y + 36.0) * y + 94.5) / c - y - 3.0) / b + 1.0) * x
        y = math.expm1(min(a * y * y, 700.0))
    elif y > 1e-300:  # tail expansion
        y = ((1.0 / (((df + 6.0) / (df * y) - 0.089 * d - 0.822) * (df + 2.0) * 3.0)
              + 0.5 / (df + 4.0)) * y - 1.0) * (df + 1.0) / (df + 2.0) + 1.0 / y
    else:
        return math.inf
    return math.sqrt(df * y)


def t_ppf(p: float, df: float) -> float:
    """Student t quantile for real df > 0 (df = inf is the normal quantile).

    df = 1 (Cauchy) and df = 2 are closed forms. Otherwise Hill's approximation
    starts Newton's method in ln|t| on ln P(T < t) (or, for 1/4 < p < 3/4, on
    ln P(t < T < 0), so the centre keeps its relative accuracy), safeguarded by a
    bracket with geometric bisection. The density's constant Gamma((df+1)/2) /
    Gamma(df/2) comes from Stirling's formula with its error term.
    """
    if not (0.0 <= p <= 1.0 and df > 0.0):
        return _NAN
    if p == 0.0 or p == 1.0:
        return -math.inf if p == 0.0 else math.inf
    if p == 0.5:
        return 0.0
    if math.isinf(df):
        return norm_ppf(p)
    q, dev = min(p, 1.0 - p), abs(p - 0.5)  # both exact for p >= 1/4
    if df == 1.0:
        m = math.tan(math.pi * dev) if dev <= 0.25 else 1.0 / math.tan(math.pi * q)
    elif df == 2.0:
        m = 2.0 * dev / math.sqrt(2.0 * q * (1.0 - q))
    else:
        m = _t_magnitude(q, dev, df)
    return -m if p < 0.5 else m


def _t_magnitude(q: float, dev: float, df: float) -> float:
    """m > 0 with P(T < -m) = q and P(-m < T < 0) = dev (= 1/2 - q)."""
    h = 0.5 * df
    log_ratio = 0.5 * math.log(h) + h * math.log1p(0.5 / h) - 0.5 + _stirlerr(h + 0.5) \
        - _stirlerr(h)  # ln Gamma(h + 1/2) / Gamma(h)
    log_c = log_ratio - 0.5 * math.log(df * math.pi)
    centre = q > 0.25
    m = _hill_guess(q, df) if df > 0.5 else math.nan
    if not 0.0 < m < math.inf:  # tail asymptote P(T < -m) ~ c df^((df-1)/2) m^-df
        log_m = (log_c + 0.5 * (df - 1.0) * math.log(df) - math.log(q)) / df
        m = dev / math.exp(log_c) if centre else math.exp(min(log_m, 700.0))
    lo, hi = 0.0, math.inf
    for _ in range(200):
        tail, inner = _t_tails(m, df)
        value, target = (inner, dev) if centre else (tail, q)
        if value <= 0.0:  # underflow: the tail is too far out (or the centre too close)
            rising, step = not centre, (2.0 if centre else -2.0)
        else:
            log_err = math.log(value / target)
            rising = log_err > 0.0 if centre else log_err < 0.0  # m too large?
            if log_err == 0.0:
                return m
            density = math.exp(log_c - 0.5 * (df + 1.0) * math.log1p(m * m / df))
            slope = density * m / value  # |d ln(value) / d ln m|
            step = (-3.0 if rising else 3.0) if not slope > 0.0 else \
                (-log_err / slope if centre else log_err / slope)
        if rising:
            hi = m
        else:
            lo = m
        new = m * math.exp(max(-3.0, min(3.0, step)))
        if not lo < new < hi:
            new = math.sqrt(lo * hi) if lo > 0.0 and hi < math.inf else (
                hi * 0.25 if lo == 0.0 else lo * 4.0)
        if abs(new - m) <= 2.0 * _EPS * m:
            return new
        m = new
    return m


# --- binomial ----------------------------------------------------------------------------

def _binom_args(n: float, p: float) -> bool:
    return n >= 0.0 and n == math.floor(n) and not math.isinf(n) and 0.0 <= p <= 1.0


def binom_pmf(k: float, n: float, p: float) -> float:
    """Binomial probability P(X = k), X ~ Bin(n, p); 0 for non-integer k, nan for bad n, p.

    Loader's saddle-point form: sqrt(n / (2 pi k (n-k))) exp(delta(n) - delta(k)
    - delta(n-k) - bd0(k, np) - bd0(n-k, n(1-p))), with delta the error of Stirling's
    formula (from ``math.lgamma`` for small arguments)."""
    if not _binom_args(n, p) or math.isnan(k):
        return _NAN
    if k != math.floor(k) or k < 0 or k > n:
        return 0.0
    if p == 0.0 or p == 1.0:
        return 1.0 if k == (0.0 if p == 0.0 else n) else 0.0
    if k == 0 or k == n:
        return math.exp(n * (math.log1p(-p) if k == 0 else math.log(p)))
    j = n - k
    log_f = _stirlerr(n) - _stirlerr(k) - _stirlerr(j) - _bd0(k, n * p) - _bd0(j, n * (1.0 - p))
    return math.exp(log_f) * math.sqrt(n / (2.0 * math.pi * k * j))


def binom_cdf(k: float, n: float, p: float) -> float:
    """Binomial CDF P(X <= k) = I_{1-p}(n - k, k + 1), k floored (as SciPy)."""
    if not _binom_args(n, p) or math.isnan(k):
        return _NAN
    k = math.floor(k)
    if k < 0 or k >= n or p == 0.0 or p == 1.0:
        return 0.0 if k < 0 or (p == 1.0 and k < n) else 1.0
    return _beta_pair(n - k, k + 1.0, 1.0 - p, p)[0]


def binom_sf(k: float, n: float, p: float) -> float:
    """Binomial survival function P(X > k) = I_p(k + 1, n - k), k floored (as SciPy)."""
    if not _binom_args(n, p) or math.isnan(k):
        return _NAN
    k = math.floor(k)
    if k < 0 or k >= n or p == 0.0 or p == 1.0:
        return 1.0 if k < 0 or (p == 1.0 and k < n) else 0.0
    return _beta_pair(n - k, k + 1.0, 1.0 - p, p)[1]


def _count(name: str, value: int, minimum: int) -> int:
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


def binom_test_two_sided(k: int, n: int, p: float = 0.5) -> float:
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
