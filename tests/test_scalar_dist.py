"""prereg.scalar_dist returns scipy.stats' public methods' exact doubles (it skips only their checks)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from prereg import scalar_dist as sd

XS = [-40.0, -15.3, -1.0, -0.0, 0.0, 1e-300, 0.3, 2.5, 40.0, 1e6, math.inf, -math.inf, math.nan]
DFS = [0.5, 1, 3.0, 59, 1e4, 0, -1.0, math.nan]
NCS = [-30.0, -4.69, 0.0, 0.7, 17.0, 1e6, math.inf, math.nan]


def _same(a: float, b) -> bool:
    b = float(b)
    return (a == b and math.copysign(1, a) == math.copysign(1, b)) or (math.isnan(a) and math.isnan(b))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # scipy's own series warnings far in a tail, on both paths
def test_nct_cdf_and_sf_are_scipys_bits():
    with np.errstate(all="ignore"):
        for x, df, nc in itertools.product(XS, DFS, NCS):
            assert _same(sd.nct_cdf(x, df, nc), stats.nct.cdf(x, df, nc)), (x, df, nc)
            assert _same(sd.nct_sf(x, df, nc), stats.nct.sf(x, df, nc)), (x, df, nc)


def test_norm_cdf_and_chi2_pdf_are_scipys_bits():
    with np.errstate(all="ignore"):
        for x in XS + [-38.5, 8.3, 1e-10]:
            assert _same(sd.norm_cdf(x), stats.norm.cdf(x)), x
            for df in DFS:
                assert _same(sd.chi2_pdf(x, df), stats.chi2.pdf(x, df)), (x, df)


def test_random_points_agree():
    rng = np.random.default_rng(7)
    for _ in range(300):
        x, nc = rng.uniform(-25, 25, 2)
        df = float(rng.choice([1, 2, 4, 9, 29, 59, 7.5]))
        assert _same(sd.nct_cdf(x, df, nc), stats.nct.cdf(x, df, nc))
        assert _same(sd.nct_sf(x, df, nc), stats.nct.sf(x, df, nc))
        assert _same(sd.norm_cdf(x), stats.norm.cdf(x))
        assert _same(sd.chi2_pdf(abs(x), df), stats.chi2.pdf(abs(x), df))
