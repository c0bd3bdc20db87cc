"""The standard normal distribution: cdf and quantile."""

from __future__ import annotations

import math

from agentmetrics.stats._distributions._common import NAN, SQRT1_2, SQRT_2PI

__all__ = ["norm_cdf", "norm_ppf"]


def norm_cdf(x: float) -> float:
    """Standard normal CDF Phi(x), from ``math.erf``/``math.erfc`` (no cancellation in
    either tail)."""
    z = x * SQRT1_2
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
        return NAN
    if p == 0.0 or p == 1.0:
        return -math.inf if p == 0.0 else math.inf
    q = min(p, 1.0 - p)  # 1 - p is exact for p >= 1/2
    if q >= 0.02425:
        u = p - 0.5
        r = u * u
        x = u * _poly(_ACKLAM_A, r) / _poly(_ACKLAM_B, r)
        err = 0.5 * math.erf(x * SQRT1_2) - u
        step = err * SQRT_2PI * math.exp(0.5 * x * x)
        return x - step / (1.0 + 0.5 * x * step)
    s = math.sqrt(-2.0 * math.log(q))
    x = _poly(_ACKLAM_C, s) / _poly(_ACKLAM_D, s)  # lower tail, x < 0
    rel = 0.5 * math.erfc(-x * SQRT1_2) / q - 1.0
    step = rel * SQRT_2PI * math.exp(math.log(q) + 0.5 * x * x)
    x -= step / (1.0 + 0.5 * x * step)
    return x if p < 0.5 else -x
