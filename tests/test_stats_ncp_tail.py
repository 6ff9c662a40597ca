"""Cohen's dz interval far in the noncentral-t tail (a 60-seed contrast with a large effect):
scipy's nct.cdf is NaN there, which crashed `stats analyze` (and audit check 9) on the 300-run
scale campaign; the interval is solved through nct.sf instead."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as st

from stats.effect_sizes import dz, ncp_interval


def test_interval_solves_its_equations_where_nct_cdf_is_nan():
    assert math.isnan(st.nct.cdf(-15.3, 59, 4.69))  # the scipy behaviour this guards against
    lo, hi = ncp_interval(-15.3, 59, 0.95)
    assert 1 - st.nct.sf(-15.3, 59, lo) == pytest.approx(0.975, abs=1e-9)
    assert 1 - st.nct.sf(-15.3, 59, hi) == pytest.approx(0.025, abs=1e-9)
    assert lo < -15.3 < hi


def test_dz_of_sixty_seeds_with_a_large_effect():
    d = np.random.default_rng(3).normal(-0.02, 0.01, 60)
    r = dz(d)
    assert r.low < r.value < r.high
    assert r.value == pytest.approx(d.mean() / d.std(ddof=1))
