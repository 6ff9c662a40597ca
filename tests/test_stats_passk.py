"""pass@k (Chen et al. 2021) and the reference-contrast coverage study (README failure 16)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from stats import coverage_reference as cr
from stats import items as it
from stats import passk


@pytest.mark.parametrize("n, c, k", [(5, 0, 1), (5, 2, 1), (5, 2, 3), (6, 3, 3), (8, 1, 4), (8, 7, 2), (10, 10, 5),
                                     (10, 4, 10), (32, 5, 16)])
def test_unbiased_estimator_equals_direct_enumeration_and_the_paper_formula(n, c, k):
    """pass@k = P(a k-subset of the n samples holds a correct one), by enumerating every
    subset (small n), and = 1 - C(n-c, k)/C(n, k) (the paper's eq. 1) in exact integers."""
    est = passk.pass_at_k(n, c, k)
    assert est == pytest.approx(passk.pass_at_k_exact(n, c, k), abs=1e-12)
    assert est == pytest.approx(1 - math.comb(n - c, k) / math.comb(n, k), abs=1e-12)
    if math.comb(n, k) <= 50000:
        outcomes = [1] * c + [0] * (n - c)
        subsets = list(itertools.combinations(range(n), k))
        direct = sum(any(outcomes[i] for i in s) for s in subsets) / len(subsets)
        assert est == pytest.approx(direct, abs=1e-12)


def test_estimator_is_unbiased_where_the_plug_in_is_not():
    """Averaged over draws of n samples from an item with true solve rate p, the estimator's
    mean is 1 - (1-p)^k; the plug-in 1 - (1 - c/n)^k is biased low (Chen et al. 2021, sec. 2.1)."""
    n, k, p = 20, 10, 0.1
    dist = [math.comb(n, c) * p ** c * (1 - p) ** (n - c) for c in range(n + 1)]
    mean_est = sum(w * passk.pass_at_k(n, c, k) for c, w in enumerate(dist))
    mean_naive = sum(w * passk.naive(n, c, k) for c, w in enumerate(dist))
    assert mean_est == pytest.approx(1 - (1 - p) ** k, abs=1e-12)
    assert mean_naive < mean_est - 0.01


def test_per_item_and_refusals():
    assert passk.per_item([0, 16, 32], 32, 16).tolist() == [0.0, pytest.approx(1 - 1 / math.comb(32, 16)), 1.0]
    for bad in ((4, 5, 2), (4, 1, 5), (4, -1, 2), (4, 1, 0)):
        with pytest.raises(ValueError):
            passk.pass_at_k(*bad)


def test_crossed_variance_vectorised_matches_stats_items():
    rng = np.random.default_rng(3)
    d = rng.integers(-1, 2, (7, 4, 30)).astype(float)
    want = [it.crossed_variance(x) for x in d]
    assert cr._crossed_var(d) == pytest.approx(want, rel=1e-12)


def test_truth_by_quadrature_matches_monte_carlo():
    rng = np.random.default_rng(0)
    beta, u = rng.normal(0, 1, 2_000_000), rng.normal(0, 0.3, 2_000_000)
    from scipy.special import expit

    mc = expit(cr.DELTA + beta + u).mean() - expit(beta).mean()
    assert cr.truth(0.3) == pytest.approx(mc, abs=2e-3)


def test_reference_coverage_analysis_methods_hold_copied_seeds_do_not():
    """With 8 seeds against a reference evaluated once, copying the reference to every seed and
    pairing by seed (the old workaround) under-covers badly; the crossed bootstrap the
    analysis uses is near nominal."""
    tab = cr.study((8,), (0.0,), reps=150, resamples=300)
    cov = {r["method"]: r["coverage"] for r in tab["rows"]}
    assert cov["copied_seed_t"] < 0.8
    assert cov["crossed_bootstrap"] >= 0.9 and cov["crossed_t"] >= 0.9
    assert "| copied_seed_t | 0 |" in cr.to_markdown(tab)
    # the same interval is honest for the estimand it is offered for (per-seed tables, unit seed):
    # the difference from the reference's one evaluation on these items
    assert cov["fixed_reference_t"] >= 0.9
    assert "fixed_reference_t (per-seed tables; estimand: these items" in cr.to_markdown(tab)


def test_conditional_truth_is_the_expected_difference_on_these_items():
    """conditional_truth (quadrature over the seed effect) equals a Monte-Carlo average of the arm's
    accuracy on the same items minus the reference's observed accuracy."""
    from scipy.special import expit

    rng = np.random.default_rng(3)
    arm, ref, beta = cr.draw(rng, 2, 3, 50, 0.3, with_items=True)
    u = rng.normal(0.0, 0.3, 200_000)
    mc = expit(cr.DELTA + beta[0][None, :] + u[:, None]).mean() - ref[0].mean()
    assert cr.conditional_truth(beta, ref, 0.3)[0] == pytest.approx(mc, abs=2e-3)


def test_cli_reference_coverage(capsys, tmp_path):
    from stats.cli import main

    assert main(["coverage", "--reference", "--reps", "10", "--resamples", "100", "--seeds", "3",
                 "--md", str(tmp_path / "ref.md")]) == 0
    out = capsys.readouterr().out
    assert "G=1" in out and "G=3" in out and "crossed_bootstrap (analysis)" in out
    md = (tmp_path / "ref.md").read_text()
    assert "| copied_seed_t | 0.3 |" in md and md.strip() in out


@pytest.mark.parametrize("mod", ["stats.passk", "stats.designs", "stats.table", "stats.coverage_reference"])
def test_docstring_examples_hold(mod):
    import doctest
    import importlib

    res = doctest.testmod(importlib.import_module(mod))
    assert res.attempted >= 1 and res.failed == 0
