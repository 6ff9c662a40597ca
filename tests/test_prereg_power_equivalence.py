"""Exact power of the equivalence (TOST) and non-inferiority verdicts (README failure 18; issue 13 finding 3)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from prereg import power as pw
from prereg.errors import UserError


def _simulate(margin, sd, n, true_diff, rule, reps=200_000, seed=11, level=0.9, target=0.8):
    """Seeded Monte-Carlo of the verdict itself: draw n paired differences, apply the rule."""
    rng = np.random.default_rng(seed)
    d = rng.normal(true_diff, sd, (reps, n))
    m, s = d.mean(axis=1), d.std(axis=1, ddof=1)
    se = s / np.sqrt(n)
    if rule == "tost":
        q = stats.t.isf(0.05, n - 1)
        return float(np.mean((m - q * se > -margin) & (m + q * se < margin)))
    q = stats.t.ppf(0.5 + level / 2, n - 1)
    mde = pw.mde(1.0, n, 0.05, target) * s
    return float(np.mean((m - q * se > -margin) & (m + q * se < margin) & (mde <= margin)))


@pytest.mark.parametrize("n,true_diff", [(8, 0.0), (10, 0.0), (8, 0.5), (20, 1.0)])
def test_tost_power_is_exact_by_simulation(n, true_diff):
    exact = pw.power_equivalence(1.0, 1.0, n, 0.05, true_diff)
    mc = _simulate(1.0, 1.0, n, true_diff, "tost")
    assert exact == pytest.approx(mc, abs=4 * np.sqrt(mc * (1 - mc) / 200_000) + 1e-4)


@pytest.mark.parametrize("n", [8, 10])
def test_ad_hoc_interval_and_mde_rule_power_by_simulation(n):
    exact = pw.power_equivalence(1.0, 1.0, n, 0.05, rule="interval_and_mde", level=0.9)
    mc = _simulate(1.0, 1.0, n, 0.0, "interval_and_mde")
    assert exact == pytest.approx(mc, abs=4 * np.sqrt(mc * (1 - mc) / 200_000) + 1e-4)
    # the numbers: half the power of TOST at 8 seeds
    assert exact < 0.55 * pw.power_equivalence(1.0, 1.0, n) if n == 8 else exact < pw.power_equivalence(1.0, 1.0, n)


def test_tost_false_equivalence_rate_is_at_most_alpha_at_the_margin():
    for n in (5, 10, 30):
        assert pw.power_equivalence(1.0, 1.0, n, 0.05, true_diff=1.0) <= 0.05 + 1e-9
    assert pw.power_equivalence(1.0, 1.0, 30, 0.05, true_diff=1.0) > 0.049  # and tight at large n


def test_tost_power_bounds_from_statsmodels_one_sided_power():
    """Shifted margins: each one-sided test is a t test at effect (margin -+ diff); TOST needs both."""
    from statsmodels.stats.power import TTestPower

    for n in (8, 15, 40):
        p1 = TTestPower().power(effect_size=1.0, nobs=n, alpha=0.05, alternative="larger")
        exact = pw.power_equivalence(1.0, 1.0, n, 0.05)
        assert 1 - 2 * (1 - p1) - 1e-9 <= exact <= p1 + 1e-9
    assert pw.power_equivalence(1.0, 1.0, 40) == pytest.approx(
        1 - 2 * (1 - TTestPower().power(effect_size=1.0, nobs=40, alpha=0.05, alternative="larger")), abs=1e-3)


def test_required_seeds_is_the_first_n_reaching_the_target():
    need = pw.n_required_equivalence(1.0, 1.0, 0.05, 0.8)
    assert pw.power_equivalence(1.0, 1.0, need) >= 0.8 > pw.power_equivalence(1.0, 1.0, need - 1)
    with pytest.raises(UserError, match="true_diff"):
        pw.n_required_equivalence(1.0, 1.0, true_diff=1.0)


def test_noninferiority_power_equals_statsmodels():
    from statsmodels.stats.power import TTestPower

    for n, diff in [(5, 0.0), (8, 0.2), (12, -0.3)]:
        sm = TTestPower().power(effect_size=(diff + 0.5) / 0.8, nobs=n, alpha=0.05, alternative="larger")
        assert pw.power_noninferiority(0.5, 0.8, n, 0.05, diff) == pytest.approx(sm, rel=1e-9)
    need = pw.n_required_noninferiority(0.5, 0.8)
    assert pw.power_noninferiority(0.5, 0.8, need) >= 0.8 > pw.power_noninferiority(0.5, 0.8, need - 1)


def test_noninferiority_test_matches_scipy():
    from stats import tests as ht

    d = np.array([0.03, -0.01, 0.02, -0.02, 0.0, 0.01])
    r = ht.noninferiority_paired(d, 0.02)
    assert r.p == pytest.approx(stats.ttest_1samp(d + 0.02, 0.0, alternative="greater").pvalue, rel=1e-12)
    assert ht.noninferiority_paired([0.01] * 4, 0.02).p == 0.0  # zero variance: decided exactly
