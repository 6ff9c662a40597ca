"""Group-sequential boundaries (prereg.sequential) against published tables and a Monte-Carlo check."""

import math

import numpy as np
import pytest
from scipy import stats

from prereg.errors import UserError
from prereg.sequential import (
    Spec,
    constant_boundaries,
    exit_probabilities,
    spend,
    spending_boundaries,
)

# Pocock (1977) and O'Brien & Fleming (1979) constants, two-sided alpha = 0.05, K equally spaced
# looks (Jennison & Turnbull 2000, Tables 2.1 and 2.3).
POCOCK = {2: 2.178, 3: 2.289, 4: 2.361, 5: 2.413}
OBF = {2: 1.977, 3: 2.004, 4: 2.024, 5: 2.040}


@pytest.mark.parametrize("k", sorted(POCOCK))
def test_pocock_constants(k):
    b = constant_boundaries("pocock_constant", k, 0.05)
    assert round(b.upper[0], 3) == POCOCK[k]
    assert len(set(round(x, 9) for x in b.upper)) == 1
    assert b.alpha_spent[-1] == pytest.approx(0.05, abs=1e-9)


@pytest.mark.parametrize("k", sorted(OBF))
def test_obrien_fleming_constants(k):
    b = constant_boundaries("obrien_fleming_constant", k, 0.05)
    assert round(b.upper[-1], 3) == OBF[k]
    for j, bj in enumerate(b.upper, start=1):  # c * sqrt(K / k)
        assert bj == pytest.approx(b.upper[-1] * math.sqrt(k / j), rel=1e-12)


def test_lan_demets_obf_matches_gsdesign_and_sas():
    # gsDesign vignette (gsSurv, test.type=2, sfLDOF, timing .25/.5/.75/1, alpha 0.025 per side),
    # equal to SAS PROC SEQDESIGN to 4 decimals: 4.3326, 2.9631, 2.3590, 2.0141.
    b = spending_boundaries([0.25, 0.5, 0.75, 1.0], 0.05, Spec("obrien_fleming"))
    assert [round(x, 4) for x in b.upper] == [4.3326, 2.9631, 2.3590, 2.0141]


# Published Lan-DeMets tables, one-sided alpha 0.025, equally spaced looks (gsDesign sfLDOF / sfLDPocock,
# rpact asOF / asP; the same numbers appear in several independent packages' test tables).
LD_ONE_SIDED = [
    ("obrien_fleming", 2, [2.963, 1.969]),
    ("obrien_fleming", 3, [3.710, 2.511, 1.993]),
    ("obrien_fleming", 5, [4.877, 3.357, 2.680, 2.290, 2.031]),
    ("pocock", 2, [2.157, 2.201]),
    ("pocock", 3, [2.279, 2.295, 2.296]),
]


@pytest.mark.parametrize("fn,k,want", LD_ONE_SIDED)
def test_one_sided_lan_demets_tables(fn, k, want):
    b = spending_boundaries([(i + 1) / k for i in range(k)], 0.025, Spec(fn), sides=1)
    assert [round(x, 3) for x in b.upper] == want


def test_repeated_significance_tests_armitage_mcpherson_rowe():
    # Armitage, McPherson & Rowe (1969): testing at nominal 5% two-sided at K equally spaced looks
    # gives overall error 0.083 (K=2), 0.107 (3), 0.126 (4), 0.142 (5).
    for k, want in ((2, 0.083), (3, 0.107), (4, 0.126), (5, 0.142)):
        t = [(i + 1) / k for i in range(k)]
        e = exit_probabilities(t, [stats.norm.isf(0.025)] * k, [0.0] * k)
        assert round(sum(e.efficacy), 3) == want


@pytest.mark.parametrize("fn,gamma", [("pocock", None), ("hsd", 1.0), ("hsd", -4.0), ("obrien_fleming", None)])
def test_spending_boundaries_against_multivariate_normal(fn, gamma):
    """An independent computation (scipy's Genz multivariate normal CDF) of the cumulative non-crossing."""
    t = [1 / 3, 2 / 3, 1.0]
    b = spending_boundaries(t, 0.05, Spec(fn, gamma))
    cov = np.sqrt(np.minimum.outer(t, t) / np.maximum.outer(t, t))
    for k in range(1, 4):
        lim = np.array(b.upper[:k])
        mvn = stats.multivariate_normal(mean=np.zeros(k), cov=cov[:k, :k])
        inside = mvn.cdf(lim, lower_limit=-lim, rng=np.random.default_rng(0))
        assert 1 - inside == pytest.approx(2 * spend(fn, t[k - 1], 0.025, gamma), abs=2e-5)


def test_pocock_type_spending_close_to_pocock_constant():
    b = spending_boundaries([1 / 3, 2 / 3, 1.0], 0.05, Spec("pocock"))
    assert all(abs(x - 2.289) < 0.02 for x in b.upper)
    assert b.upper != constant_boundaries("pocock_constant", 3).upper


def test_monte_carlo_crossing_probabilities():
    """Seeded Brownian-motion paths cross each look's boundary as often as the recursion says."""
    t = np.array([0.5, 0.75, 1.0])
    spec = Spec("obrien_fleming", futility="non_binding", beta=0.2)
    drift = 2.5
    b = spending_boundaries(t, 0.05, spec, drift=drift)
    rng = np.random.default_rng(20260714)
    reps = 400_000
    for theta in (0.0, drift):
        inc = rng.standard_normal((reps, 3)) * np.sqrt(np.diff(np.concatenate([[0], t])))
        s = np.cumsum(inc + theta * np.diff(np.concatenate([[0], t])), axis=1)
        z = s / np.sqrt(t)
        alive = np.ones(reps, bool)
        want = exit_probabilities(t, b.upper, b.futility, drift=theta)
        for k in range(3):
            up = alive & (z[:, k] >= b.upper[k])
            lo = alive & (z[:, k] <= -b.upper[k])
            fut = alive & ~up & ~lo & (np.abs(z[:, k]) < b.futility[k])
            se = math.sqrt(0.25 / reps)
            assert up.mean() == pytest.approx(want.upper[k], abs=4 * se)
            assert lo.mean() == pytest.approx(want.lower[k], abs=4 * se)
            assert fut.mean() == pytest.approx(want.futility[k], abs=4 * se)
            alive &= ~(up | lo | fut)


def test_futility_beta_spending_and_binding_lowers_efficacy_bounds():
    t = [0.5, 0.75, 1.0]
    nb = spending_boundaries(t, 0.05, Spec(futility="non_binding", beta=0.2), drift=3.0)
    bd = spending_boundaries(t, 0.05, Spec(futility="binding", beta=0.2), drift=3.0)
    plain = spending_boundaries(t, 0.05, Spec())
    assert nb.upper == plain.upper  # non-binding: efficacy ignores futility
    assert bd.upper[-1] < nb.upper[-1]  # binding: futility stops free alpha for later looks
    assert nb.futility[-1] == nb.upper[-1] and 0 < nb.futility[0] < nb.upper[0]
    e = exit_probabilities(t, nb.upper, nb.futility, drift=3.0)
    own_beta = 1 - sum(exit_probabilities(t, plain.upper, plain.futility, drift=3.0).efficacy)
    assert nb.beta == pytest.approx(min(0.2, own_beta))  # never more than the design's own type II error
    spent = np.cumsum(e.futility[:-1])
    assert spent == pytest.approx([spend("obrien_fleming", x, nb.beta) for x in t[:-1]], abs=1e-7)
    assert sum(exit_probabilities(t, bd.upper, bd.futility).efficacy) == pytest.approx(0.05, abs=1e-7)
    assert sum(exit_probabilities(t, nb.upper, nb.futility).efficacy) < 0.05  # conservative if obeyed


def test_bad_designs_are_one_line_errors():
    with pytest.raises(UserError, match="looks: information fractions must increase"):
        spending_boundaries([0.5, 0.5, 1.0])
    with pytest.raises(UserError, match="futility: beta-spending needs the drift"):
        spending_boundaries([0.5, 1.0], spec=Spec(futility="binding"))
    with pytest.raises(UserError, match="gamma"):
        spend("hsd", 0.5, 0.05)
    with pytest.raises(UserError, match="spending: 'linear'"):
        spend("linear", 0.5, 0.05)
