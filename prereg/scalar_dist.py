"""Scalar distribution functions that return scipy.stats' exact bits without its argument checks.

Why: a root search or a quadrature calls ``scipy.stats.nct.cdf`` (or ``norm.cdf``, ``chi2.pdf``)
hundreds of times with one scalar each, and ``rv_continuous`` spends ~70 µs a call on parsing,
broadcasting and masking before its ~3 µs special function (an exact effect-size interval, an
exact power, an equivalence power integral). Each function below calls the distribution's own
``_cdf``/``_sf``/``_pdf`` (the very function ``rv_continuous`` calls, with loc 0 and scale 1) only
where every check would pass, and hands anything else (NaN, an infinite argument, a bad shape) to
the public method, so the result is the public method's, bit for bit
(``tests/test_scalar_dist.py`` compares them on grids that include the edge cases).
"""

from __future__ import annotations

import math

from scipy import stats as _st


def nct_cdf(x: float, df: float, nc: float) -> float:
    """``float(scipy.stats.nct.cdf(x, df, nc))``.

    Args:
        x: the point; df: degrees of freedom; nc: noncentrality.

    Returns:
        The cdf, the same double as scipy's public method.

    Example:
        >>> nct_cdf(1.0, 9, 0.5) == float(_st.nct.cdf(1.0, 9, 0.5))
        True
    """
    if math.isfinite(x) and df > 0 and nc == nc:
        return float(_st.nct._cdf(x, df, nc))
    return float(_st.nct.cdf(x, df, nc))


def nct_sf(x: float, df: float, nc: float) -> float:
    """``float(scipy.stats.nct.sf(x, df, nc))`` (see :func:`nct_cdf`).

    Example:
        >>> nct_sf(2.0, 5, 1.0) == float(_st.nct.sf(2.0, 5, 1.0))
        True
    """
    if math.isfinite(x) and df > 0 and nc == nc:
        return float(_st.nct._sf(x, df, nc))
    return float(_st.nct.sf(x, df, nc))


def norm_cdf(x: float) -> float:
    """``float(scipy.stats.norm.cdf(x))`` (see :func:`nct_cdf`).

    Example:
        >>> norm_cdf(0.0)
        0.5
    """
    if math.isfinite(x):
        return float(_st.norm._cdf(x))
    return float(_st.norm.cdf(x))


def chi2_pdf(x: float, df: float) -> float:
    """``float(scipy.stats.chi2.pdf(x, df))`` (see :func:`nct_cdf`; x = 0 takes the public method).

    Example:
        >>> chi2_pdf(2.0, 3) == float(_st.chi2.pdf(2.0, 3))
        True
    """
    if 0 < x < math.inf and df > 0:
        return float(_st.chi2._pdf(x, df))
    return float(_st.chi2.pdf(x, df))
