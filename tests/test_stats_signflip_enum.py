"""The exact sign-flip enumeration (stats.tests._all_sign_sums) gives the p-values of the sign
matrix product it replaced, and scipy's exact Wilcoxon p (README failure 10: the audit's
recomputation must reproduce every p)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as st

from stats import tests as T


def _matrix_p(scores, alternative):
    """The former enumeration: every sign vector as a row of a (2**n x n) matrix."""
    n = scores.size
    codes = np.arange(2 ** n)
    null = (1.0 - 2.0 * ((codes[:, None] >> np.arange(n)) & 1)) @ scores
    obs = float(scores.sum())
    tol = 1e-9 * max(1.0, float(np.abs(scores).sum()))
    k = {"greater": np.count_nonzero(null >= obs - tol), "less": np.count_nonzero(null <= obs + tol),
         "two-sided": np.count_nonzero(np.abs(null) >= abs(obs) - tol)}[alternative]
    return min(1.0, k / 2 ** n)


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_enumeration_matches_the_matrix_product(seed, alternative):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 13))
    scores = [rng.normal(0.02, 0.05, n), np.round(rng.normal(0, 3, n)) / 64,  # real values; exact ties
              np.full(n, 0.125), rng.choice([-1.0, 0.0, 2.5], n)][seed % 4]
    p, params = T._sign_flip_p(scores, alternative, None, "s", 100)
    assert params["enumeration"] == "exact" and params["n_sign_vectors"] == 2 ** n
    assert p == _matrix_p(scores, alternative)


def test_wilcoxon_exact_equals_scipy_at_twenty_seeds():
    d = np.random.default_rng(5).normal(0.01, 0.03, 20)
    ours = T.wilcoxon(d).p
    assert ours == pytest.approx(st.wilcoxon(d, method="exact").pvalue, rel=1e-12)
