"""The regularized incomplete beta and gamma functions, and the chi-squared tail."""

from __future__ import annotations

import math

from agentmetrics.stats._distributions._common import EPS, LN_SQRT_2PI, NAN, TINY, bd0, stirlerr

__all__ = ["beta_pair", "betainc", "chi2_sf", "gammainc", "gammaincc", "log_beta_kernel"]


def _split(v: float) -> tuple[float, float]:
    """Veltkamp's split of v into two halves of 26 bits each."""
    c = 134217729.0 * v  # 2^27 + 1
    return c - (c - v), v - (c - (c - v))


def _two_product(a: float, b: float) -> tuple[float, float]:
    """(fl(ab), ab - fl(ab)) exactly, by Dekker's product."""
    (a1, a2), (b1, b2), prod = _split(a), _split(b), a * b
    err = ((a1 * b1 - prod) + a1 * b2 + a2 * b1) + a2 * b2
    return prod, (err if math.isfinite(err) else 0.0)


def log_beta_kernel(a: float, b: float, x: float, y: float) -> float:
    """ln(x^a y^b / B(a, b)) for x + y = 1, through Stirling's formula:
    ln sqrt(ab / (2 pi (a+b))) + delta(a+b) - delta(a) - delta(b) - bd0(a, (a+b)x)
    - bd0(b, (a+b)y). The products (a+b)x, (a+b)y are carried exactly and the larger
    of x, y is taken as 1 minus the smaller, so that the result keeps its relative
    accuracy even when the exponent is in the hundreds."""
    n = a + b
    total = stirlerr(n) - stirlerr(a) - stirlerr(b) \
        + 0.5 * (math.log(a) + math.log(b) - math.log(n)) - LN_SQRT_2PI
    fix = (1.0 - x) - y if x >= y else (1.0 - y) - x  # exact (Sterbenz)
    for shape, v, extra in ((a, x, fix if x >= y else 0.0), (b, y, 0.0 if x >= y else fix)):
        m, err = _two_product(n, v)
        if m > 1e-290:
            total -= bd0(shape, m) + (1.0 - shape / m) * (err + n * extra)
        else:  # (a+b) v underflows: the logarithms separately
            total -= shape * (math.log(shape) - math.log(n) - math.log(v)) + m - shape
    return total


def _beta_cf(a: float, b: float, x: float, limit: int = 0) -> tuple[float, bool]:
    """The continued fraction 1 + d1/(1 + d2/(1 + ...)) of A&S 26.5.8, by the modified
    Lentz method: I_x(a, b) = x^a (1-x)^b / (a B(a, b) f). Fast for x < (a+1)/(a+b+2).
    Returns f and whether it converged."""
    f, c, d = 1.0, 1.0, 0.0
    n = a + b
    for m in range(limit or min(10**6, 1000 + int(40.0 * math.sqrt(max(a, b))))):
        odd = -(a + m) * (n + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
        even = (m + 1) * (b - m - 1) * x / ((a + 2 * m + 1) * (a + 2 * m + 2))
        done = True
        for num in (odd, even):
            d = 1.0 + num * d
            d = 1.0 / (d if d != 0.0 else TINY)
            c = 1.0 + num / c
            c = c if c != 0.0 else TINY
            delta = c * d
            f *= delta
            done = done and abs(delta - 1.0) <= EPS
        if done:
            return f, True
    return f, False


# Taylor coefficients of sinh(s/2) / (s/2) in powers of s^2: 1 / (4^m (2m+1)!).
_SINHC = [1.0 / (4.0 ** m * math.factorial(2 * m + 1)) for m in range(40)]


def _beta_large_a(a: float, b: float, x: float, y: float) -> float | None:
    """I_x(a, b) for a >= 20, b <= 1000, x > 0.4 (where the continued fraction can cancel):
    the asymptotic expansion in incomplete gamma functions of DiDonato & Morris
    (ACM TOMS 708, 1992, "BGRAT"). With s = -ln t the integrand becomes
    e^(-T s) s^(b-1) (sinh(s/2)/(s/2))^(b-1), T = a + (b-1)/2; expanding the last factor
    in s^2 (coefficients p_n by J. C. P. Miller's power recurrence) and integrating term
    by term gives I = Gamma(a+b) / (Gamma(a) T^b Gamma(b)) sum p_n Gamma(b+2n, u) / T^(2n),
    u = -T ln x, the upper gammas by their two-term recurrence. None where it does not
    apply (a < 20, b > 1000 or x < 0.4) or does not converge."""
    if a < 20.0 or b > 1000.0 or y >= 0.6:
        return None
    t = a + 0.5 * (b - 1.0)
    s0 = -math.log1p(-y) if y < 0.35 else -math.log(x)
    u = t * s0
    log_ratio = stirlerr(a + b) - stirlerr(a) + (a - 0.5) * math.log1p(b / a) \
        + b * math.log1p(0.5 * (b + 1.0) / t) - b  # ln Gamma(a+b) / (Gamma(a) T^b)
    upper = _gamma_pair(b, u)[1]
    scale = b * _gamma_prefix(b, u)  # u^b e^-u / Gamma(b)
    if scale == 0.0:
        return math.exp(log_ratio) * upper
    j, total, power, coefs = upper / scale, upper, 1.0, [1.0]
    for n in range(1, len(_SINHC)):
        j = ((b + 2 * n - 2) * (b + 2 * n - 1) * j + (b + 2 * n - 1 + u) * power) / (t * t)
        power *= s0 * s0
        coefs.append(sum((b * m - n) * _SINHC[m] * coefs[n - m] for m in range(1, n + 1)) / n)
        term = scale * coefs[n] * j
        total += term
        if abs(term) <= 0.5 * EPS * abs(total):
            return math.exp(log_ratio) * total
    return None


def beta_pair(a: float, b: float, x: float, y: float) -> tuple[float, float]:
    """(I_x(a, b), I_y(b, a)) = (I, 1 - I) for x + y = 1.

    Below the mean I_x(a, b) is computed (else I_y(b, a), by symmetry), by the BGRAT
    expansion where it applies (large a, b <= 1000, x > 0.4: fast for any a, and free
    of the cancellation the continued fraction suffers there), else by the continued
    fraction. The other value is the complement, unless that is below 0.1: then it
    too is computed directly, by BGRAT or by the continued fraction past the mean
    (slower to converge, but well for small parameters), whichever applies.
    """
    if x <= 0.0 or y <= 0.0:
        return (0.0, 1.0) if x <= 0.0 else (1.0, 0.0)
    flip = x * (a + b + 2.0) > a + 1.0
    if flip:
        a, b, x, y = b, a, y, x
    w = _beta_large_a(a, b, x, y)
    if w is None:
        f, converged = _beta_cf(a, b, x)
        w = math.exp(log_beta_kernel(a, b, x, y)) / (a * f) if converged else NAN
    other = _beta_large_a(b, a, y, x) if w > 0.9 else None
    if other is None and w > 0.9:
        # Past the mean its rounding error grows like (iterations)^2 * 5e-19, the
        # complement's like 5e-16 / (1 - w): run it only as long as it would win.
        g, converged = _beta_cf(b, a, y, min(5000, int(math.sqrt(1e3 / max(1.0 - w, 1e-300)))))
        if converged:
            other = math.exp(log_beta_kernel(b, a, y, x)) / (b * g)
    if other is None:
        other = 1.0 - w
    return (other, w) if flip else (w, other)


def betainc(a: float, b: float, x: float) -> float:
    """Regularized incomplete beta function I_x(a, b) for a, b > 0 and 0 <= x <= 1.

    The continued fraction (modified Lentz) on I_x(a, b) or, past the mean, on
    I_{1-x}(b, a) = 1 - I_x(a, b), with DiDonato & Morris's BGRAT expansion where the
    fraction would cancel; see ``beta_pair``. Limits as ``scipy.special.betainc``:
    a = 0 or b = inf gives 1, b = 0 or a = inf gives 0 inside (0, 1); else nan.
    """
    if not (a >= 0.0 and b >= 0.0 and 0.0 <= x <= 1.0) or a + b == 0.0 or a == b == math.inf:
        return NAN
    if x == 0.0 or x == 1.0:
        return x
    if a == 0.0 or b == 0.0 or math.isinf(a + b):  # limits, as SciPy
        return 1.0 if a == 0.0 or b == math.inf else 0.0
    return beta_pair(a, b, x, 1.0 - x)[0]


def _zeta_minus_one(k: int) -> float:
    """zeta(k) - 1 by a partial sum and the Euler-Maclaurin tail from n = 50."""
    m = 50.0
    tail = m ** (1 - k) / (k - 1) + 0.5 * m ** -k + k * m ** (-k - 1) / 12 \
        - k * (k + 1) * (k + 2) * m ** (-k - 3) / 720 \
        + k * (k + 1) * (k + 2) * (k + 3) * (k + 4) * m ** (-k - 5) / 30240
    return sum(float(n) ** -k for n in range(49, 1, -1)) + tail


_ZETA_M1 = [0.0, 0.0] + [_zeta_minus_one(k) for k in range(2, 40)]
_EULER_GAMMA = 0.5772156649015329


def _lgamma1p(a: float) -> float:
    """ln Gamma(1 + a) for 0 < a <= 1/2 without forming 1 + a: its Taylor series
    -gamma a + sum (-1)^k zeta(k) a^k / k, with the zeta(k) = 1 parts summed as
    a - ln(1 + a)."""
    total, power = a - math.log1p(a) - _EULER_GAMMA * a, -a
    for k in range(2, len(_ZETA_M1)):
        power *= -a
        term = _ZETA_M1[k] * power / k
        total += term
        if abs(term) <= 1e-17 * abs(total):
            break
    return total


def _gamma_prefix(a: float, x: float) -> float:
    """x^a e^-x / Gamma(a+1) = exp(-bd0(a, x) - delta(a)) / sqrt(2 pi a)."""
    return math.exp(-bd0(a, x) - stirlerr(a) - 0.5 * math.log(a) - LN_SQRT_2PI)


def _gamma_pair(a: float, x: float) -> tuple[float, float]:
    """(P(a, x), Q(a, x)): power series for x < a + 1, Legendre's continued fraction
    (modified Lentz) otherwise, each times the prefix above."""
    if x <= 0.0:
        return 0.0, 1.0
    if math.isinf(x):
        return 1.0, 0.0
    k = _gamma_prefix(a, x)
    limit = min(10**6, 1000 + int(40.0 * math.sqrt(a)))
    if x < a + 1.0:
        total = term = 1.0
        for j in range(1, limit):
            term *= x / (a + j)
            total += term
            if term <= total * EPS:
                break
        else:
            return NAN, NAN  # a beyond ~1e10 with x near a
        lower = k * total
        if a > 0.5:
            return lower, 1.0 - lower
        # Small a: Q = 1 - x^a/Gamma(1+a) - a x^a/Gamma(1+a) sum_{n>=1} (-x)^n/(n! (a+n)),
        # both parts of order a, so Q keeps its relative accuracy (no 1 - P).
        g = math.expm1(a * math.log(x) - _lgamma1p(a))
        series, term, j = 0.0, 1.0, 0
        while True:
            j += 1
            term *= -x / j
            series += term / (a + j)
            if abs(term) <= EPS * abs(series):
                return lower, -g - a * (1.0 + g) * series
    f = c = (x - a) + 1.0  # >= 2
    d = 0.0
    for j in range(1, limit):
        num, den = -j * (j - a), x + 2 * j + 1.0 - a
        d = den + num * d
        d = 1.0 / (d if d != 0.0 else TINY)
        c = den + num / c
        c = c if c != 0.0 else TINY
        delta = c * d
        f *= delta
        if abs(delta - 1.0) <= EPS:
            break
    else:
        return NAN, NAN
    upper = a * k / f
    return 1.0 - upper, upper


def _gamma_checked(a: float, x: float) -> tuple[float, float]:
    if not (a >= 0.0 and x >= 0.0) or a == x == math.inf or a == x == 0.0:
        return NAN, NAN
    if a == 0.0 or math.isinf(a):  # limits, as SciPy
        return (1.0, 0.0) if a == 0.0 else (0.0, 1.0)
    return _gamma_pair(a, x)


def gammainc(a: float, x: float) -> float:
    """Regularized lower incomplete gamma function P(a, x), a > 0, x >= 0."""
    return _gamma_checked(a, x)[0]


def gammaincc(a: float, x: float) -> float:
    """Regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x)."""
    return _gamma_checked(a, x)[1]


def chi2_sf(x: float, df: float) -> float:
    """Chi-squared survival function P(X > x) = Q(df/2, x/2), df > 0 (real)."""
    if not df > 0.0 or math.isnan(x):
        return NAN
    if x <= 0.0 or math.isinf(x) or math.isinf(df):
        return 0.0 if x == math.inf else 1.0
    return _gamma_pair(0.5 * df, 0.5 * x)[1]
