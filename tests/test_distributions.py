"""agentmetrics.stats._distributions against SciPy (a test-only dependency).

Each function is compared with scipy.stats / scipy.special over wide grids and
random values. Where SciPy itself is off (deep tails, where its incomplete beta
loses digits or underflows), the comparison is against values computed with
mpmath at 60 digits, pasted here (mpmath is not a dependency).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentmetrics.errors import InvalidParameterError
from agentmetrics.stats import _distributions as D

special = pytest.importorskip("scipy.special")
stats = pytest.importorskip("scipy.stats")

NAN, INF = math.nan, math.inf
#: Below these SciPy's incomplete beta and gamma functions are not to be trusted to
#: 1e-12: they lose digits (1e-12 to 1e-6 relative) or return 0; see the *_where_scipy_is_off
#: tests, against mpmath.
TRUSTED_BETA, TRUSTED_GAMMA = 1e-200, 1e-100


def beta_rtol(ref: float) -> float:
    """1e-12, plus what SciPy's incomplete beta loses in deep tails: up to 6e-15 |ln I|
    against mpmath (1.9e-12 at I = 7.8e-183, where ours is 6e-14 off)."""
    return 1e-12 + 1e-14 * abs(math.log(ref))


def gamma_rtol(ref: float) -> float:
    """1e-12, plus what SciPy's incomplete gamma loses in deep tails: up to 3e-14 |ln Q|
    against mpmath (7e-12 at Q = 1.6e-95, where ours is 2e-14 off)."""
    return 1e-12 + 5e-14 * abs(math.log(ref))


def close(got: float, ref: float, rtol: float, atol: float = 0.0) -> bool:
    if math.isnan(ref):
        return math.isnan(got)
    if math.isinf(ref):
        return got == ref
    return abs(got - ref) <= rtol * abs(ref) + atol


def check(rows: Iterable[tuple[object, float, float]], rtol: float, atol: float = 0.0) -> None:
    """rows of (arguments, ours, reference); all must agree."""
    rows = list(rows)
    bad = [(args, got, ref) for args, got, ref in rows if not close(got, float(ref), rtol, atol)]
    assert rows and not bad, f"{len(bad)} of {len(rows)} differ, e.g. {bad[:5]}"


def same_as_scipy(ours: Callable[..., float], theirs: Callable[..., float],
                  cases: Iterable[tuple[float, ...]], rtol: float) -> None:
    check(((args, ours(*args), float(theirs(*args))) for args in cases), rtol)


# --- normal --------------------------------------------------------------------------------

def test_norm_cdf_matches_scipy() -> None:
    xs = np.concatenate([np.linspace(-37.5, 9.0, 4001), np.random.default_rng(0).normal(size=2000)])
    check(((x, D.norm_cdf(float(x)), stats.norm.cdf(x)) for x in xs), rtol=1e-12)


def norm_ppf_grid() -> np.ndarray:
    rng = np.random.default_rng(1)
    return np.concatenate([
        np.logspace(-300, -1, 3000), np.linspace(1e-6, 1 - 1e-6, 3001),
        1 - np.logspace(-16, -1, 500), 10 ** rng.uniform(-300, 0, 2000), rng.uniform(0, 1, 2000),
    ])


def test_norm_ppf_matches_scipy() -> None:
    ps = norm_ppf_grid()
    check(((p, D.norm_ppf(float(p)), stats.norm.ppf(p)) for p in ps), rtol=1e-12)


@given(st.floats(1e-300, 1 - 1e-16))
def test_norm_ppf_random(p: float) -> None:
    assert close(D.norm_ppf(p), stats.norm.ppf(p), 1e-12)


def test_norm_ppf_inverts_norm_cdf() -> None:
    # Rounding x to a float moves Phi(x) by up to x^2 eps relative (3e-13 at p = 1e-300).
    ps = np.logspace(-300, np.log10(0.5), 2000)
    check(((p, D.norm_cdf(D.norm_ppf(float(p))), p) for p in ps), rtol=1e-12)


def test_norm_edges() -> None:
    assert D.norm_ppf(0.0) == -INF and D.norm_ppf(1.0) == INF and D.norm_ppf(0.5) == 0.0
    for p in (NAN, -0.1, 1.1, -INF):
        assert math.isnan(D.norm_ppf(p))
    assert D.norm_cdf(-INF) == 0.0 and D.norm_cdf(INF) == 1.0 and math.isnan(D.norm_cdf(NAN))


# --- incomplete beta -----------------------------------------------------------------------

SHAPES = [1e-3, 1e-2, 0.1, 0.5, 1.0, 2.5, 10.0, 100.0, 1e3, 1e4, 1e5]
QUANTILES = [1e-150, 1e-50, 1e-10, 1e-3, 0.1, 0.5, 0.9, 0.999, 1 - 1e-10]


def beta_cases() -> list[tuple[float, float, float]]:
    cases = []
    for a in SHAPES:
        for b in SHAPES:
            xs = {float(special.betaincinv(a, b, q)) for q in QUANTILES}
            xs |= {1e-300, 1e-5, 0.3, 0.5, 0.7, 0.99999}
            cases += [(a, b, x) for x in sorted(xs) if 0.0 < x < 1.0]
    return cases


def test_betainc_matches_scipy_over_extreme_shapes() -> None:
    for a, b, x in beta_cases():
        ref = float(special.betainc(a, b, x))
        if ref > TRUSTED_BETA:
            assert close(D.betainc(a, b, x), ref, beta_rtol(ref)), (a, b, x)


@settings(max_examples=300)
@given(st.floats(-3, 5), st.floats(-3, 5), st.floats(0, 1), st.booleans())
def test_betainc_random(log_a: float, log_b: float, u: float, quantile: bool) -> None:
    a, b = 10.0 ** log_a, 10.0 ** log_b
    x = float(special.betaincinv(a, b, u)) if quantile else u
    ref = float(special.betainc(a, b, x))
    if ref > TRUSTED_BETA and x > 1e-300:  # (SciPy is off by 1% at x = 5e-324)
        assert close(D.betainc(a, b, x), ref, beta_rtol(ref)), (a, b, x)


def test_betainc_complements() -> None:
    # I_x(a, b) + I_{1-x}(b, a) = 1, with x >= 1/2 so that 1 - x is exact.
    check((((a, b, x), D.betainc(a, b, x) + D.betainc(b, a, 1.0 - x), 1.0)
           for a, b, x in beta_cases() if x >= 0.5), rtol=1e-12)


def test_betainc_where_scipy_is_off() -> None:
    # mpmath, 60 digits. SciPy 1.17 gives 2.3589952654e-280 (1e-6 off) and 0.0 for the
    # first two, and is 1.9e-12 off for the fifth; the third and fourth are where the
    # continued fraction cancels (a large or moderate, b small, x near 1).
    # (An exponent near -640 costs a few 1e-14 of relative accuracy to rounding alone.)
    check([
        ("a", D.betainc(373.13385502433835, 27.677652453744575, 0.13936036496887327),
         2.3589929336694074885e-280),
        ("b", D.betainc(420.3939908884889, 27.71771929015, 0.16807641739862875),
         1.3165640946050639862e-285),
        ("c", D.betainc(76650.30223096772, 0.22471488525428115, 0.999983754546589),
         0.041815749287251523546),
        ("d", D.betainc(10.0, 1e-3, 0.999), 0.0040801829384394876991),
        ("e", D.betainc(3521.901732821274, 5126.149645229037, 0.2643105532121621),
         7.8287932252366639724e-183),
    ], rtol=3e-13)


def test_betainc_edges_as_scipy() -> None:
    values = [0.0, 1e-300, 0.3, 1.0, 7.0, 1e5, INF, NAN, -1.0]
    xs = [0.0, 1e-300, 0.3, 0.5, 0.999, 1.0, NAN, -0.5, 1.5]
    same_as_scipy(D.betainc, special.betainc,
                  [(a, b, x) for a in values for b in values for x in xs
                   if not (min(a, b) == 1e-300 and 0 < x < 1)], rtol=1e-12)


# --- incomplete gamma, chi-squared ---------------------------------------------------------

DFS = [1e-3, 0.01, 0.1, 0.5, 1.0, 2.0, 3.0, 5.0, 7.5, 10.0, 30.0, 100.0, 1e3, 1e4, 1e5]


def chi2_cases() -> list[tuple[float, float]]:
    cases = []
    for df in DFS:
        xs = {float(stats.chi2.isf(q, df)) for q in QUANTILES} | {
            float(stats.chi2.ppf(q, df)) for q in QUANTILES}
        xs |= {1e-300, 1e-3, 0.5, 1.0, 2.0, 10.0, 100.0, 1e3}
        cases += [(x, df) for x in sorted(xs) if x > 0.0]
    return cases


def test_chi2_sf_matches_scipy() -> None:
    for x, df in chi2_cases():
        ref = float(stats.chi2.sf(x, df))
        if ref > TRUSTED_GAMMA:
            assert close(D.chi2_sf(x, df), ref, gamma_rtol(ref)), (x, df)


def test_gammainc_matches_scipy() -> None:
    for x, df in chi2_cases():
        a, half = df / 2, x / 2
        for ours, theirs in ((D.gammainc, special.gammainc), (D.gammaincc, special.gammaincc)):
            ref = float(theirs(a, half))
            if ref > TRUSTED_GAMMA:
                assert close(ours(a, half), ref, gamma_rtol(ref)), (ours.__name__, a, half)


def test_chi2_sf_where_scipy_is_off() -> None:
    # mpmath, 50 digits; SciPy 1.17 is 1.1e-12 and 1.2e-12 off.
    assert close(D.chi2_sf(14161.805091528526, 1e4), 1.0000000000001825e-150, 2e-13)
    assert close(D.chi2_sf(3337.677878203482, 10 ** 3.25), 4.936940902707193e-98, 2e-13)


@given(st.floats(-3, 4), st.floats(0, 1))
def test_chi2_sf_random(log_df: float, q: float) -> None:
    df = 10.0 ** log_df
    x = float(stats.chi2.isf(q, df))
    ref = float(stats.chi2.sf(x, df))
    if ref > TRUSTED_GAMMA and x > 0:
        assert close(D.chi2_sf(x, df), ref, gamma_rtol(ref)), (x, df)


def test_chi2_and_gamma_edges_as_scipy() -> None:
    values = [0.0, 1e-300, 0.5, 1.0, 3.0, 1e4, INF, -INF, NAN, -1.0]
    pairs = [(u, v) for u in values for v in values]
    same_as_scipy(D.chi2_sf, stats.chi2.sf, pairs, rtol=1e-12)
    same_as_scipy(D.gammainc, special.gammainc, pairs, rtol=1e-12)
    same_as_scipy(D.gammaincc, special.gammaincc, pairs, rtol=1e-12)


# --- Student t -----------------------------------------------------------------------------

T_DFS = [1.0, 2.0, 3.0, 5.0, 10.0, 30.0, 100.0, 1e3, 1e6, 2.5, 1.5, 7.3, 0.5]


def t_probabilities() -> np.ndarray:
    tail = np.logspace(-10, np.log10(0.5), 200)
    middle = np.concatenate([np.linspace(1e-3, 1 - 1e-3, 199), 0.5 + np.logspace(-12, -2, 20)])
    return np.concatenate([tail, 1 - tail, middle, 1 - middle])


def test_t_cdf_and_sf_match_scipy() -> None:
    rows = []
    for df in T_DFS:
        ts = np.concatenate([stats.t.ppf(t_probabilities(), df), [-1e150, -1e6, 0.0, 1e6]])
        # (SciPy is up to 1e-12 off near t = 0: see test_t_cdf_near_zero, test_cauchy.)
        for t in ts[(np.abs(ts) > (1e-2 if df == 1 else 1e-6)) | (ts == 0)]:
            t = float(t)
            rows += [((t, df), D.t_cdf(t, df), stats.t.cdf(t, df)),
                     ((t, df), D.t_sf(t, df), stats.t.sf(t, df))]
    check(rows, rtol=1e-12)


@pytest.mark.parametrize("df", T_DFS)
def test_t_cdf_near_zero(df: float) -> None:
    # There P(T <= t) = 1/2 + t f(0) + O(t^3); SciPy returns exactly 1/2 for df = 1 and
    # t = 3e-12, 1e-12 off, so the check is against the density at 0.
    f0 = float(stats.t.pdf(0.0, df))
    check((((t, df), D.t_cdf(t, df), 0.5 + t * f0) for t in (-1e-7, -3e-12, 1e-300, 2e-10)),
          rtol=0.0, atol=2e-16)


def test_cauchy() -> None:
    ts = np.concatenate([-np.logspace(-300, 300, 601), np.logspace(-300, 300, 601)])
    ref = [math.atan(-1 / t) / math.pi if t < -1 else 0.5 + math.atan(t) / math.pi for t in ts]
    # (exp(ln x / 2) for sqrt x costs eps |ln x| / 2: 3e-14 for the far tail)
    check(((t, D.t_cdf(float(t), 1.0), r) for t, r in zip(ts, ref)), rtol=2e-13)
    ps = np.concatenate([np.logspace(-300, -1, 300), np.linspace(0.1, 0.9, 81)])
    check(((p, D.t_ppf(float(p), 1.0), -1 / math.tan(math.pi * p) if p < 0.25
            else math.tan(math.pi * (p - 0.5))) for p in ps), rtol=1e-14)


def test_t_cdf_large_df_against_mpmath() -> None:
    # The regime where the continued fraction cancels (a = df/2 large, b = 1/2).
    check([("t1", D.t_cdf(-1.9156913239248157, 1e6), 0.027702341137123640312),
           ("t2", D.t_cdf(-6.0, 1e6), 9.8692490617721733495e-10)], rtol=1e-14)


@pytest.mark.parametrize("df", [1.0, 2.0, 3.0, 5.0, 10.0, 30.0, 100.0, 1e3, 1e6, 2.5, 1.5, 7.3])
def test_t_ppf_matches_scipy(df: float) -> None:
    # Near p = 1/2, where t ~ (p - 1/2) / f(0) is below 1e-6, the float p itself (spaced
    # 1.1e-16) limits t to an absolute 1e-15, and SciPy differs there by that much.
    ps = t_probabilities()
    check(((p, D.t_ppf(float(p), df), stats.t.ppf(p, df)) for p in ps), rtol=1e-9, atol=1e-15)


@pytest.mark.parametrize("df", [1.0, 2.0, 3.0, 10.0, 1e3, 1e6, 2.5])
def test_t_ppf_inverts_t_cdf(df: float) -> None:
    ps = np.logspace(-10, np.log10(0.4999), 300)
    check(((p, D.t_cdf(D.t_ppf(float(p), df), df), p) for p in ps), rtol=1e-12)


@settings(max_examples=200)
@given(st.floats(0, 6), st.floats(1e-10, 1 - 1e-10))
def test_t_ppf_random(log_df: float, p: float) -> None:
    df = 10.0 ** log_df
    assert close(D.t_ppf(p, df), stats.t.ppf(p, df), 1e-9), (p, df)


def test_t_edges_as_scipy() -> None:
    dfs = [1e-3, 0.5, 1.0, 2.0, 4.0, 1e8, INF, 0.0, -1.0, NAN]
    same_as_scipy(D.t_cdf, stats.t.cdf,
                  [(t, df) for t in (-INF, -3.0, 0.0, 2.0, INF, NAN) for df in dfs], rtol=1e-12)
    same_as_scipy(D.t_ppf, stats.t.ppf,
                  [(p, df) for p in (0.0, 0.5, 1.0, -0.1, 1.1, NAN, 0.25, 0.975)
                   for df in dfs[1:]], rtol=1e-9)
    assert D.t_ppf(1e-300, 1.0) == -1 / (math.pi * 1e-300)


# --- binomial ------------------------------------------------------------------------------

BINOM_N = [0, 1, 2, 5, 10, 37, 100, 1000, 10**4, 10**5]
BINOM_P = [1e-4, 0.01, 0.1, 0.3, 0.5, 0.73, 0.99]


def binom_cases() -> list[tuple[int, int, float]]:
    cases = []
    for n in BINOM_N:
        for p in BINOM_P:
            ks = {0, 1, n // 2, n - 1, n, round(n * p)} | {
                int(stats.binom.ppf(q, n, p)) for q in (1e-12, 1e-4, 0.05, 0.5, 0.95, 1 - 1e-6)}
            cases += [(k, n, p) for k in sorted(ks) if 0 <= k <= n]
    return cases


@pytest.mark.parametrize("name", ["pmf", "cdf", "sf"])
def test_binomial_matches_scipy(name: str) -> None:
    ours, theirs = getattr(D, f"binom_{name}"), getattr(stats.binom, name)
    rows = [(case, ours(*case), theirs(*case)) for case in binom_cases()]
    # 1e-11: SciPy's own error reaches 4e-12 for large n and small p (see below).
    check([r for r in rows if r[2] > TRUSTED_BETA], rtol=1e-11)


def test_binomial_where_scipy_is_off() -> None:
    # mpmath, 60 digits; SciPy 1.17 is 1.5e-12, 4.0e-12 and 2.8e-12 off.
    check([("a", D.binom_cdf(10, 35683, 0.000314933473619592), 0.43180740177500304036),
           ("b", D.binom_cdf(6, 77182, 0.00013148251498168128), 0.12106086220935353297),
           ("c", D.binom_sf(36, 76685, 0.0004953616625928375), 0.58535181013805635099)],
          rtol=1e-14)


def test_binomial_edges_as_scipy() -> None:
    ks = [-INF, -1, 0, 1, 2.5, 3, 10, 11, INF, NAN]
    ns = [0, 1, 3, 10.0, 10.5, -1, NAN]
    ps = [0.0, 1e-300, 0.3, 1.0, -0.1, 1.1, NAN]
    for name in ("pmf", "cdf", "sf"):
        same_as_scipy(getattr(D, f"binom_{name}"), getattr(stats.binom, name),
                      [(k, n, p) for k in ks for n in ns for p in ps], rtol=1e-12)


# --- the exact binomial test ---------------------------------------------------------------

def test_binom_test_equals_scipy_for_every_small_case() -> None:
    rows = []
    for n in range(1, 61):
        for p in (0.5, 0.1, 0.73):
            rows += [((k, n, p), D.binom_test_two_sided(k, n, p), stats.binomtest(k, n, p).pvalue)
                     for k in range(n + 1)]
    check(rows, rtol=1e-12)


@pytest.mark.parametrize("p", [0.0, 1.0, 1e-300, 1 - 1e-16])
def test_binom_test_extreme_p_as_scipy(p: float) -> None:
    check([((k, n, p), D.binom_test_two_sided(k, n, p), stats.binomtest(k, n, p).pvalue)
           for n in (1, 2, 7, 30) for k in range(n + 1)], rtol=1e-12)


# (SciPy's binomtest overflows for p below about 1e-300.)
@settings(max_examples=300)
@given(st.integers(1, 10**5), st.floats(1e-12, 1 - 1e-12) | st.sampled_from([0.0, 0.5, 1.0]),
       st.floats(0, 1), st.booleans())
def test_binom_test_large_n(n: int, p: float, u: float, typical: bool) -> None:
    # typical: within 4 standard deviations of the mean; else anywhere in 0..n.
    spread = (8 * u - 4) * math.sqrt(n * p * (1 - p))
    k = min(n, max(0, int(n * p + spread if typical else u * (n + 1))))
    ref = stats.binomtest(k, n, p).pvalue
    # 1e-11 and an absolute 1e-250: SciPy's own error reaches 4e-12 in its binomial
    # tails, and more in the deep tail (see test_binom_test_where_scipy_is_off).
    assert close(D.binom_test_two_sided(k, n, p), ref, 1e-11, 1e-250), (k, n, p)


def test_binom_test_million_trials() -> None:
    for k, p in ((500_700, 0.5), (123_456, 0.123), (10, 1e-5), (999_990, 1 - 1e-5)):
        assert close(D.binom_test_two_sided(k, 10**6, p), stats.binomtest(k, 10**6, p).pvalue,
                     1e-11), (k, p)


def test_binom_test_where_scipy_is_off() -> None:
    # mpmath, 60 digits; SciPy 1.17 is 1.3e-12, 1.4e-12 and 1.5e-8 off.
    check([
        ("a", D.binom_test_two_sided(20, 72688, 0.0002591944395019952), 0.72933643688515220555),
        ("b", D.binom_test_two_sided(22, 70809, 0.000381042855800945), 0.38594697232217908108),
        ("c", D.binom_test_two_sided(171, 209, 0.014609478749167099), 6.3262336240493372544e-273),
    ], rtol=1e-13)


def test_binom_test_rejects_what_scipy_rejects() -> None:
    for k, n, p in [(0, 0, 0.5), (-1, 5, 0.5), (6, 5, 0.5), (2, 5, -0.1), (2, 5, 1.1), (2, 5, NAN)]:
        with pytest.raises(ValueError):
            stats.binomtest(k, n, p)
        with pytest.raises(InvalidParameterError):
            D.binom_test_two_sided(k, n, p)
    not_counts: list[tuple[object, object]] = [(2.0, 5), (2, 5.0), ("2", 5)]
    for bad_k, bad_n in not_counts:
        with pytest.raises(InvalidParameterError):
            D.binom_test_two_sided(bad_k, bad_n)  # type: ignore[arg-type]


def test_binom_test_accepts_numpy_integers() -> None:
    assert close(D.binom_test_two_sided(np.int64(3), np.int32(10)), 352 / 1024, 1e-14)
