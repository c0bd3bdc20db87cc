"""Distribution functions in plain Python (no SciPy): normal, Student t, binomial, chi-squared.

Scalars in, Python floats out. Invalid parameters give ``nan`` (as ``scipy.stats``),
except :func:`binom_test_two_sided`, which raises
:class:`~agentmetrics.errors.InvalidParameterError` where ``scipy.stats.binomtest`` raises.

Building blocks: the error of Stirling's formula and Loader's deviance term ``bd0``
(C. Loader, "Fast and accurate computation of binomial probabilities", 2000), which
give x^a (1-x)^b / B(a, b), x^a e^-x / Gamma(a+1) and binomial probabilities to near
machine precision where the plain log-gamma formula cancels; the continued fractions
of the incomplete beta (Abramowitz & Stegun 26.5.8) and upper incomplete gamma
(Legendre) functions by the modified Lentz method (Thompson & Barnett, 1986); power
series; and DiDonato & Morris's asymptotic expansion of the incomplete beta function
for a large first parameter (ACM TOMS 708, 1992).

One module a family: ``_normal``, ``_incomplete`` (beta, gamma, chi-squared),
``_student`` and ``_binomial``, over ``_common``.
"""

from agentmetrics.stats._distributions._binomial import (
    binom_cdf,
    binom_pmf,
    binom_sf,
    binom_test_two_sided,
)
from agentmetrics.stats._distributions._incomplete import betainc, chi2_sf, gammainc, gammaincc
from agentmetrics.stats._distributions._normal import norm_cdf, norm_ppf
from agentmetrics.stats._distributions._student import t_cdf, t_ppf, t_sf

__all__ = [
    "betainc", "binom_cdf", "binom_pmf", "binom_sf", "binom_test_two_sided", "chi2_sf",
    "gammainc", "gammaincc", "norm_cdf", "norm_ppf", "t_cdf", "t_ppf", "t_sf",
]
