"""What the distribution functions share: constants, Stirling's error, Loader's bd0."""

from __future__ import annotations

import math

__all__ = ["EPS", "LN_SQRT_2PI", "NAN", "SQRT1_2", "SQRT_2PI", "TINY", "bd0", "stirlerr"]


EPS = 2.220446049250313e-16
TINY = 1e-300
NAN = math.nan
SQRT1_2 = 0.7071067811865476
SQRT_2PI = 2.5066282746310002
LN_SQRT_2PI = 0.9189385332046728


def stirlerr(z: float) -> float:
    """delta(z) = ln Gamma(z) - ((z - 1/2) ln z - z + ln sqrt(2 pi)), for z > 0."""
    if z >= 10.0:  # Stirling's series; the first omitted term is below 3e-17
        w = 1.0 / (z * z)
        return (1 / 12 - w * (1 / 360 - w * (1 / 1260 - w * (1 / 1680 - w * (
            1 / 1188 - w * (691 / 360360 - w / 156)))))) / z
    return math.lgamma(z) - (z - 0.5) * math.log(z) + z - LN_SQRT_2PI


def bd0(x: float, m: float) -> float:
    """Loader's bd0(x, m) = x ln(x/m) + m - x >= 0, without cancellation when x ~ m."""
    if m <= 0.0:
        return math.inf
    dif = x - m
    if abs(dif) < 0.5 * (x + m):  # (Loader uses 0.1; the series also avoids cancellation)
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
