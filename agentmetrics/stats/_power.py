"""How many cases it takes to see a difference: sample sizes for a planned comparison.

Normal approximations, each for a two-sided test at level ``alpha`` with the
given ``power``, the far tail of the two-sided test ignored (it is negligible
wherever a study is worth planning):

- means, two independent groups: n per group = ((z_a + z_b) * sd * sqrt(2) / d)^2;
- means, paired: n = ((z_a + z_b) * sd_diff / d)^2, with ``sd_diff`` given, or
  ``sd * sqrt(2 (1 - correlation))``;
- pass rates, two independent groups: the pooled variance under the null and
  the two groups' variances under the alternative;
- pass rates, paired (McNemar): with ``discordance``, the chance that the two
  systems disagree on a case, n = (z_a sqrt(psi) + z_b sqrt(psi - d^2))^2 / d^2
  (Connor, 1987).

Here z_a = z(1 - alpha / 2) and z_b = z(power).
"""

from __future__ import annotations

import math

from agentmetrics.errors import InvalidParameterError
from agentmetrics.stats._distributions import norm_ppf

__all__ = ["sample_size"]


def _positive(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0 or \
            not math.isfinite(value):
        raise InvalidParameterError(f"{name}: expected a positive number, got {value!r}.")
    return float(value)


def _fraction(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1:
        raise InvalidParameterError(f"{name}: expected a number between 0 and 1, got {value!r}.")
    return float(value)


def sample_size(
    difference: float,
    *,
    baseline: float | None = None,
    sd: float | None = None,
    paired: bool = False,
    sd_diff: float | None = None,
    correlation: float | None = None,
    discordance: float | None = None,
    alpha: float = 0.05,
    power: float = 0.8,
) -> int:
    """Cases needed to detect ``difference`` (per group when not ``paired``).

    For a pass rate, give ``baseline`` (the rate expected of the baseline; the
    candidate's is ``baseline + difference``). For a mean score, give ``sd``
    (the scores' standard deviation). Paired (both systems on the same cases),
    a mean needs ``sd_diff`` or ``correlation``, and a pass rate
    ``discordance``; without it the outcomes are taken as independent, which
    overstates the cases needed when the systems agree often.
    """
    d = abs(float(difference)) if isinstance(difference, (int, float)) and not isinstance(
        difference, bool) else math.nan
    if not d > 0 or not math.isfinite(d):
        raise InvalidParameterError(f"difference: expected a non-zero number, got {difference!r}.")
    alpha, power = _fraction("alpha", alpha), _fraction("power", power)
    z_alpha, z_power = norm_ppf(1 - alpha / 2), norm_ppf(power)
    if (baseline is None) == (sd is None):
        raise InvalidParameterError(
            "give baseline= (the expected pass rate) for a pass rate, or sd= (the scores' "
            "standard deviation) for a mean score; exactly one of them.")
    if sd is not None:
        sd = _positive("sd", sd)
        if not paired:
            n = ((z_alpha + z_power) * sd * math.sqrt(2) / d) ** 2
        else:
            if sd_diff is None:
                if correlation is None:
                    raise InvalidParameterError(
                        "paired means: give sd_diff= (the standard deviation of the "
                        "differences) or correlation= (between the two systems' scores).")
                if not -1 <= correlation < 1:
                    raise InvalidParameterError(
                        f"correlation: expected a number in [-1, 1), got {correlation!r}.")
                sd_diff = sd * math.sqrt(2 * (1 - correlation))
            n = ((z_alpha + z_power) * _positive("sd_diff", sd_diff) / d) ** 2
        return max(1, math.ceil(n - 1e-9))
    p2 = _fraction("baseline", baseline)
    p1 = p2 + math.copysign(d, difference)
    if not 0 < p1 < 1:
        raise InvalidParameterError(
            f"baseline + difference = {p1!r}: expected a pass rate strictly between 0 and 1.")
    if not paired:
        pooled = (p1 + p2) / 2
        std_null = math.sqrt(2 * pooled * (1 - pooled))
        std_alternative = math.sqrt(p1 * (1 - p1) + p2 * (1 - p2))
        n = (max(z_alpha * std_null + z_power * std_alternative, 0.0) / d) ** 2
        return max(1, math.ceil(n - 1e-9))
    psi = discordance
    if psi is None:
        psi = p1 * (1 - p2) + p2 * (1 - p1)  # independent outcomes: a conservative guess
    psi = _fraction("discordance", psi)
    if psi < d:
        raise InvalidParameterError(
            f"discordance: expected at least the difference, {d:g} (the pass rates can only "
            f"differ on cases where the systems disagree), got {psi!r}.")
    n = (z_alpha * math.sqrt(psi) + z_power * math.sqrt(psi - d * d)) ** 2 / (d * d)
    return max(1, math.ceil(n - 1e-9))
