"""Power math against statsmodels' independent implementation (TTestPower, TTestIndPower)."""

from __future__ import annotations

import math

import pytest
from budget import examples
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.power import NormalIndPower, TTestIndPower, TTestPower

from prereg import power as P
from prereg.errors import UserError

SM_ALT = {"two-sided": "two-sided", "greater": "larger", "less": "smaller"}
GRID = [(d, n, a, alt) for d in (0.3, 1.0, 2.5) for n in (3, 5, 8, 30) for a in (0.05, 0.1)
        for alt in ("two-sided", "greater", "less")]


@pytest.mark.parametrize("d,n,alpha,alt", GRID)
def test_paired_power_matches_statsmodels(d, n, alpha, alt):
    effect = -d if alt == "less" else d
    sd = 0.02
    ours = P.power_paired(effect * sd, sd, n, alpha, alt)
    ref = TTestPower().power(effect, n, alpha, alternative=SM_ALT[alt])
    if math.isnan(ref):  # statsmodels hits scipy's NaN lower tail at large nc; the upper tail is the power
        ref = TTestPower().power(effect, n, alpha / 2, alternative="larger")
    assert ours == pytest.approx(ref, abs=1e-9)


@pytest.mark.parametrize("d,n,alpha,alt", GRID)
def test_independent_power_matches_statsmodels(d, n, alpha, alt):
    effect = -d if alt == "less" else d
    for ratio in (1.0, 2.0):
        ours = P.power_independent(effect * 3.0, 3.0, n, alpha, alt, ratio=ratio)
        ref = TTestIndPower().power(effect, n, alpha, ratio=ratio, alternative=SM_ALT[alt])
        if math.isnan(ref):
            ref = TTestIndPower().power(effect, n, alpha / 2, ratio=ratio, alternative="larger")
        assert ours == pytest.approx(ref, abs=1e-9)


@pytest.mark.parametrize("n", [3, 4, 8, 20])
@pytest.mark.parametrize("alt", ["two-sided", "greater", "less"])
def test_mde_matches_statsmodels_and_round_trips(n, alt):
    sd = 0.04
    m = P.mde_paired(sd, n, 0.05, 0.8, alt)
    ref = abs(TTestPower().solve_power(nobs=n, alpha=0.05, power=0.8, alternative=SM_ALT[alt]))
    assert m / sd == pytest.approx(ref, rel=1e-5)
    signed = -m if alt == "less" else m
    assert P.power_paired(signed, sd, n, 0.05, alt) == pytest.approx(0.8, abs=1e-9)
    mi = P.mde_independent(sd, n, 0.05, 0.8, alt)
    ref_i = abs(TTestIndPower().solve_power(nobs1=n, alpha=0.05, power=0.8, alternative=SM_ALT[alt]))
    assert mi / sd == pytest.approx(ref_i, rel=1e-5)


@pytest.mark.parametrize("d", [0.5, 1.0, 1.5, 3.0])
@pytest.mark.parametrize("alt", ["two-sided", "greater"])
def test_n_required_is_the_first_n_reaching_the_target(d, alt):
    n = P.n_required_paired(d, 1.0, 0.05, 0.8, alt)
    assert P.power_paired(d, 1.0, n, 0.05, alt) >= 0.8
    if n > 2:
        assert P.power_paired(d, 1.0, n - 1, 0.05, alt) < 0.8
    frac = TTestPower().solve_power(d, alpha=0.05, power=0.8, alternative=SM_ALT[alt])
    assert n - 1 < frac <= n + 1e-6 or n == 2
    ni = P.n_required_independent(d, 1.0, 0.05, 0.8, alt)
    frac_i = TTestIndPower().solve_power(d, alpha=0.05, power=0.8, alternative=SM_ALT[alt])
    assert ni - 1 < frac_i <= ni + 1e-6


def test_known_values_e1():
    # e1: 8 seeds, pilot SD = margin = 0.01 (d = 1).
    assert P.power_paired(0.01, 0.01, 8) == pytest.approx(0.6808, abs=1e-4)
    assert P.n_required_paired(0.01, 0.01) == 10
    assert P.mde_paired(0.01, 8) == pytest.approx(0.011560, abs=2e-6)


def test_normal_approximation_is_separate_and_optimistic():
    for n in (3, 5, 8):
        exact, normal = P.mde_paired(1.0, n), P.mde_paired_normal(1.0, n)
        assert normal < exact  # normal ignores the t tails: smaller MDE than is real
        z = NormalIndPower()  # two-sample normal power with nobs1 = n, ratio 1: d*sqrt(n/2)
        assert P.power_independent_normal(0.7, 1.0, n) == pytest.approx(z.power(0.7, n, 0.05), abs=1e-9)
    # one-sided: the textbook closed form (z_alpha + z_power) / sqrt(n) is exact
    closed = (1.6448536269514722 + 0.8416212335729143) / math.sqrt(8)
    assert P.mde_paired_normal(1.0, 8, alternative="greater") == pytest.approx(closed, rel=1e-9)
    # two-sided: the closed form ignores the far tail, so it is a hair above the exact normal MDE
    closed2 = (1.959963984540054 + 0.8416212335729143) / math.sqrt(8)
    assert closed2 - 1e-5 < P.mde_paired_normal(1.0, 8) < closed2
    assert P.n_required_paired_normal(1.0, 1.0) < P.n_required_paired(1.0, 1.0)
    assert P.mde(1.0, 8, method="normal_approximation") == P.mde_paired_normal(1.0, 8)


def test_large_effects_stay_finite():
    # scipy's nct.cdf is NaN far in the lower tail; the exact power must not be.
    for n in (2, 3, 5):
        for d in (10, 20, 40):
            v = P.power_paired(d, 1.0, n)
            assert 0 < v <= 1 and math.isfinite(v)


@given(sd=st.floats(0.001, 10), n=st.integers(2, 40), power=st.floats(0.2, 0.99))
@settings(max_examples=examples(ci=40, dev=10), deadline=None)
def test_mde_inverts_power(sd, n, power):
    m = P.mde_paired(sd, n, 0.05, power)
    assert P.power_paired(m, sd, n, 0.05) == pytest.approx(power, abs=1e-7)


@pytest.mark.parametrize("call", [
    lambda: P.power_paired(1, 0, 5),
    lambda: P.power_paired(1, 1, 1),
    lambda: P.power_paired(1, 1, 5, alpha=1.5),
    lambda: P.power_paired(1, 1, 5, alternative="sideways"),
    lambda: P.mde_paired(1, 5, power=1.0),
    lambda: P.n_required_paired(0, 1),
    lambda: P.power(1, 1, 5, design="crossover"),
    lambda: P.power(1, 1, 5, method="guess"),
])
def test_bad_arguments_are_user_errors(call):
    with pytest.raises(UserError):
        call()


def test_target_at_or_below_alpha_gives_zero_mde():
    assert P.mde_paired(1.0, 5, alpha=0.05, power=0.04, alternative="greater") == 0.0
