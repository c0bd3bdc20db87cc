"""Student's t distribution: cdf, survival function and quantile."""

from __future__ import annotations

import math

from agentmetrics.stats._distributions._common import EPS, NAN, stirlerr
from agentmetrics.stats._distributions._incomplete import beta_pair
from agentmetrics.stats._distributions._normal import norm_cdf, norm_ppf

__all__ = ["t_cdf", "t_ppf", "t_sf"]


def _t_tails(m: float, df: float) -> tuple[float, float]:
    """(P(T < -m), P(-m < T < 0)) for m > 0, through P(|T| > m) = I_{df/(df+m^2)}(df/2, 1/2)."""
    mm = m * m
    if mm > 1e290 * df:  # x < 1e-290: I_x(a, 1/2) = x^a / (a B(a, 1/2)), x in logarithms
        h = 0.5 * df
        log_x = math.log(df) - 2.0 * math.log(m) - math.log1p(df / mm)
        tail = 0.5 * math.exp(h * log_x + math.lgamma(h + 0.5) - math.lgamma(h)) / (
            h * math.sqrt(math.pi))
        return tail, 0.5 - tail
    x, y = df / (df + mm), mm / (df + mm)
    outer, inner = beta_pair(0.5 * df, 0.5, x, y)
    return 0.5 * outer, 0.5 * inner


def t_cdf(t: float, df: float) -> float:
    """Student t CDF P(T <= t) for real df > 0 (df = inf is the normal), via betainc."""
    if math.isnan(t) or not df > 0.0:
        return NAN
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
    b = 48.0 * (df - 0.5) * (df - 0.5)
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
        return NAN
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
    log_ratio = 0.5 * math.log(h) + h * math.log1p(0.5 / h) - 0.5 + stirlerr(h + 0.5) \
        - stirlerr(h)  # ln Gamma(h + 1/2) / Gamma(h)
    log_c = log_ratio - 0.5 * math.log(df * math.pi)
    centre = q > 0.25
    # Tail asymptote P(T < -m) ~ c df^((df-1)/2) m^-df / 1: beyond the floats, inf.
    log_m = (log_c + 0.5 * (df - 1.0) * math.log(df) - math.log(q)) / df
    if log_m > 709.0:
        return math.inf
    m = _hill_guess(q, df) if df > 0.5 else math.nan
    if not 0.0 < m < math.inf:
        m = dev / math.exp(log_c) if centre else math.exp(log_m)
    lo, hi = 0.0, math.inf
    for _ in range(200):
        tail, inner = _t_tails(m, df)
        value, target = (inner, dev) if centre else (tail, q)
        if value <= 0.0:  # underflow: the tail is too far out (or the centre too close)
            rising, step = not centre, (3.0 if centre else -3.0)
        else:
            log_err = math.log(value / target)
            if log_err == 0.0:
                return m
            rising = log_err > 0.0 if centre else log_err < 0.0  # m too large?
            z = m / math.sqrt(df)
            log_density = log_c - 0.5 * (df + 1.0) * (
                math.log1p(z * z) if z < 1e100 else 2.0 * math.log(z))
            # Newton's step in ln m; the slope is |d ln(value) / d ln m|.
            step = log_err / math.exp(log_density + math.log(m) - math.log(value))
            step = -step if centre else step
        if rising:
            hi = m
        else:
            lo = m
        new = m * math.exp(max(-3.0, min(3.0, step)))
        if not lo < new < hi:  # bisect geometrically
            new = math.sqrt(lo) * math.sqrt(hi) if lo > 0.0 and hi < math.inf else (
                hi * 0.05 if lo == 0.0 else lo * 20.0)
        if abs(new - m) <= 2.0 * EPS * m:
            return new
        m = new
    return m
