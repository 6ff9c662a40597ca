"""Confidence intervals over seeds: percentile, BCa, bootstrap-t, t, and two-level bootstrap.

All levels of one (data, method, stream) come from one bootstrap distribution, so a 90%
interval is always nested in the 95% one. Degenerate data give a stated result: with one
seed every interval is ``None`` with a note; with all values equal the interval is the
point with a note; never a silent NaN.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import stats as _st
from scipy.special import ndtr, ndtri

from stats import resample as rs

BOOTSTRAP_METHODS = ("percentile", "paired_bootstrap", "bca", "bootstrap_t", "hierarchical_bootstrap")
METHODS = BOOTSTRAP_METHODS + ("t",)


@dataclass(frozen=True)
class Interval:
    low: float | None
    high: float | None
    level: float
    method: str
    params: dict = field(default_factory=dict)
    note: str | None = None


def level_tag(level: float) -> str:
    """0.95 -> '95', 0.9 -> '90', 0.975 -> '97p5' (used in value ids: ci95, ci97p5)."""
    pct = round(level * 100, 6)
    return str(int(pct)) if pct == int(pct) else f"{pct:g}".replace(".", "p")


def median_order_interval(x, level: float) -> tuple[float, float, float, str | None]:
    """Distribution-free interval for the median: ``[x_(k), x_(n-k+1)]`` from the binomial.

    Replaces the jackknife-SE t interval, which is inconsistent for the median (it covered
    0.76 at 8 seeds). ``k`` is the largest order with ``2 P(Binom(n, 1/2) <= k-1) <= 1 -
    level``, so the coverage of a continuous population's median is at least ``level``;
    when even ``[min, max]`` falls short (n <= 5 at 95%) that interval is returned with its
    achieved confidence and a note.

    Args:
        x: per-seed values.
        level: wanted confidence.

    Returns:
        (low, high, achieved confidence, note or None).

    Example:
        >>> median_order_interval([3.0, 1.0, 2.0, 5.0, 4.0, 7.0, 6.0, 8.0], 0.95)[:3]
        (1.0, 8.0, 0.9921875)
    """
    xs = np.sort(np.asarray(x, dtype=float))
    n = xs.size
    cdf = _st.binom.cdf(np.arange(n), n, 0.5)  # P(B <= j), j = 0..n-1
    ok = [j + 1 for j in range(n // 2) if 2 * cdf[j] <= 1 - level + 1e-12]
    k = ok[-1] if ok else 1
    conf = float(1 - 2 * cdf[k - 1])
    note = None if ok else (f"{n} seeds cannot give a {level:g} distribution-free interval for the median: "
                            f"[min, max] has confidence {conf:.4g}")
    return float(xs[k - 1]), float(xs[n - k]), conf, note


def _quantiles(dist: np.ndarray, probs) -> np.ndarray:
    # Linear interpolation (type 7): what scipy.stats.bootstrap uses via stats.quantile.
    return np.quantile(dist, probs)


def _bca_probs(x: np.ndarray, stat: str, dist: np.ndarray, theta: float, alpha: float) -> tuple[float, float, float]:
    """BCa-adjusted quantile levels (Efron & Tibshirani 14.3, as scipy.stats.bootstrap)."""
    b = dist.shape[-1]
    z0 = ndtri((np.count_nonzero(dist < theta) + np.count_nonzero(dist <= theta)) / (2 * b))
    th = rs.jackknife(x, stat)
    n = th.shape[-1]
    u = (n - 1) * (th.mean() - th)
    den = np.sum(u ** 2) / n ** 2
    a = (np.sum(u ** 3) / n ** 3) / (6 * den ** 1.5) if den > 0 else 0.0
    za = float(ndtri(alpha))
    lo = ndtr(z0 + (z0 + za) / (1 - a * (z0 + za)))
    hi = ndtr(z0 + (z0 - za) / (1 - a * (z0 - za)))
    return float(lo), float(hi), float(a)


def compute(x, stat: str, method: str, levels: list[float], *, resamples: int, rng_seed: int | None,
            stream: str, items: np.ndarray | None = None, items_other: np.ndarray | None = None
            ) -> dict[float, Interval]:
    """Intervals at every level in ``levels`` for ``stat`` of ``x`` (per-seed values).

    ``items`` (seeds x items) is needed by ``hierarchical_bootstrap``; with
    ``items_other`` the two-level bootstrap is of paired per-seed differences
    ``items - items_other``. Draws come from ``resample.generator(rng_seed, stream)``.

    Args:
        x: per-seed values.
        stat: ``mean``, ``median`` or ``iqm``.
        method: one of ``METHODS``.
        levels: confidence levels, e.g. ``[0.95, 0.9]``.
        resamples: bootstrap resamples (ignored by ``t``).
        rng_seed: the plan's RNG seed; with ``stream`` it fixes every draw.
        stream: the name of this draw's random stream (also the error context).
        items: seeds x items values, for ``hierarchical_bootstrap``.
        items_other: the baseline's seeds x items, for a paired two-level bootstrap.

    Returns:
        ``{level: Interval}``; an undefined interval has ``None`` ends and a note saying why.

    Raises:
        ValueError: an unknown method or a non-finite input value.

    Example:
        >>> compute([0.1, 0.3, 0.2], "mean", "t", [0.95], resamples=0, rng_seed=None, stream="x")[0.95].low  # doctest: +SKIP
        -0.048...
    """
    if method not in METHODS:
        raise ValueError(f"unknown interval method {method!r}")
    x = np.asarray(x, dtype=float)
    n = x.shape[-1]
    base = {"statistic": stat, "n": int(n)}
    if method != "t":
        base.update({"resamples": int(resamples), "stream": stream})
    if not np.all(np.isfinite(x)):
        raise ValueError(f"{stream}: non-finite input values")
    if n < 2:
        return _constant(None, None, "no data: interval undefined" if n == 0 else
                         "one seed: interval undefined (no replication)", levels, method, base)
    x = rs.snap_constant(x)  # a round-off-sized spread is no spread (else t/BCa/bootstrap-t blow up)
    theta = float(rs.statistic(stat)(x))
    flat = _degenerate(x, theta, method, items, items_other)
    if flat is not None:
        return _constant(*flat, levels, method, base)
    if method == "t":
        return _t_intervals(x, stat, theta, levels, base)
    rng = rs.generator(rng_seed, stream)
    if method in ("percentile", "paired_bootstrap", "bca"):
        return _percentile_intervals(x, stat, method, theta, levels, resamples, rng, base)
    if method == "bootstrap_t":
        return _bootstrap_t_intervals(x, stat, theta, levels, resamples, rng, base)
    return _hierarchical_intervals(items, items_other, stat, levels, resamples, rng, base)


def _constant(low, high, note, levels, method, base) -> dict[float, Interval]:
    return {lv: Interval(low, high, lv, method, dict(base), note) for lv in levels}


def _degenerate(x, theta, method, items, items_other) -> tuple | None:
    """(low, high, note) when no resampling is needed or possible: no per-item data for the
    two-level bootstrap, or no spread at all (a zero-width interval); None otherwise."""
    if method == "hierarchical_bootstrap":
        if items is None:
            return None, None, "no per-item data (or item sets differ between seeds): two-level bootstrap undefined"
        diff_items = np.asarray(items if items_other is None else np.asarray(items) - np.asarray(items_other),
                                dtype=float)
        if np.ptp(diff_items) == 0:
            v = float(diff_items.flat[0])
            return v, v, "all item values equal: zero-width interval"
        return None
    if np.ptp(x) == 0:
        return theta, theta, "all seed values equal: zero-width interval"
    return None


def _t_intervals(x, stat, theta, levels, base) -> dict[float, Interval]:
    """Student t over seeds (jackknife SE for non-mean statistics); order statistics for the median."""
    out: dict[float, Interval] = {}
    if stat == "median":
        for lv in levels:
            lo, hi, conf, note = median_order_interval(x, lv)
            out[lv] = Interval(lo, hi, lv, "t", {**base, "interval": "order statistics (binomial, distribution-free)",
                                                 "achieved_confidence": conf}, note)
        return out
    se = float(rs.standard_error(x, stat))
    df = x.shape[-1] - 1
    for lv in levels:
        q = float(_st.t.ppf(0.5 + lv / 2, df))
        out[lv] = Interval(theta - q * se, theta + q * se, lv, "t",
                           {**base, "se": se, "df": df, "se_method": "sd/sqrt(n)" if stat == "mean" else "jackknife"})
    return out


def _percentile_intervals(x, stat, method, theta, levels, resamples, rng, base) -> dict[float, Interval]:
    """Percentile (and paired bootstrap) or BCa-adjusted percentile intervals from one bootstrap."""
    out: dict[float, Interval] = {}
    dist = rs.bootstrap(x, stat, resamples, rng)
    for lv in levels:
        alpha = (1 - lv) / 2
        extra = {}
        if method == "bca":
            plo, phi, a = _bca_probs(x, stat, dist, theta, alpha)
            if not (np.isfinite(plo) and np.isfinite(phi)):
                out[lv] = Interval(None, None, lv, method, {**base, "acceleration": a},
                                   "BCa undefined: the bootstrap distribution lies entirely on one side "
                                   "of the estimate")
                continue
            extra = {"acceleration": a, "adjusted_probs": [plo, phi]}
        else:
            plo, phi = alpha, 1 - alpha
        lo, hi = _quantiles(dist, [plo, phi])
        out[lv] = Interval(float(lo), float(hi), lv, method, {**base, **extra})
    return out


def _bootstrap_t_intervals(x, stat, theta, levels, resamples, rng, base) -> dict[float, Interval]:
    """Studentized bootstrap; resamples with zero standard error are dropped (and counted)."""
    data = rs.bootstrap_resampled(x, resamples, rng)
    th_b = rs.statistic(stat)(data, axis=-1)
    se_b = rs.standard_error(data, stat)
    se = float(rs.standard_error(x, stat))
    ok = se_b > 0
    dropped = int(np.count_nonzero(~ok))
    tstar = (th_b[ok] - theta) / se_b[ok]
    note = f"{dropped} resamples with zero standard error dropped" if dropped else None
    out: dict[float, Interval] = {}
    for lv in levels:
        alpha = (1 - lv) / 2
        qlo, qhi = _quantiles(tstar, [alpha, 1 - alpha])
        out[lv] = Interval(theta - float(qhi) * se, theta - float(qlo) * se, lv, "bootstrap_t",
                           {**base, "se": se, "dropped_zero_se": dropped,
                            "se_method": "sd/sqrt(n)" if stat == "mean" else "jackknife"}, note)
    return out


def _hierarchical_intervals(items, items_other, stat, levels, resamples, rng, base) -> dict[float, Interval]:
    """Two-level (seeds, then items within seed) bootstrap, paired with ``items_other`` when given."""
    dist, draw = rs.hierarchical(np.asarray(items, dtype=float), resamples, rng, stat,
                                 paired_with=None if items_other is None else np.asarray(items_other, dtype=float))
    out: dict[float, Interval] = {}
    for lv in levels:
        alpha = (1 - lv) / 2
        lo, hi = _quantiles(dist, [alpha, 1 - alpha])
        out[lv] = Interval(float(lo), float(hi), lv, "hierarchical_bootstrap",
                           {**base, "items_per_seed": int(np.asarray(items).shape[1]), "item_draw": draw})
    return out
