"""Monte-Carlo coverage of every interval method at the seed counts RL studies use.

Percentile bootstrap over 3–8 seeds under-covers (DESIGN, "Statistics, briefly"). This
module measures by how much, for the mean of normal, skewed (lognormal) and bounded
accuracy-like (Beta-Binomial: seed accuracy ~ Beta(6, 4), 100 binary items per seed)
data, and the analysis warns when the planned method under-covers at the study's n,
using the table shipped as ``stats/coverage_table.json`` (regenerate it with
``stats coverage --write-table``; ``prereg lint`` reads the same file, both through
``prereg.coverage_table.lookup``). Everything is vectorized over Monte-Carlo replications
and seeded, so the table is reproducible.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from scipy import stats as _st
from scipy.special import ndtr, ndtri

from prereg import coverage_table
from prereg.coverage_table import (  # noqa: F401  (Cell, cells, lookup, shapes, threshold: this module's API too)
    Cell,
    cells,
    lookup,
    shapes,
    short,
    table_level,
    threshold,
    untabulated,
)
from prereg.declarations import unit_of
from stats import resample as rs

DISTRIBUTIONS = ("normal", "lognormal", "bounded", "paired_bounded")
METHODS = ("percentile", "bca", "bootstrap_t", "t", "hierarchical_bootstrap")
MEDIAN_METHODS = ("percentile", "t", "jackknife_t")  # t for the median = the order-statistic interval
MEDIAN_DISTRIBUTIONS = ("normal", "lognormal")  # continuous: the median is a point
LEVELS = (0.95, 0.90)
ITEMS = 100
BETA = (6.0, 4.0)
_LEVEL = 0.95
TABLE_PATH = Path(__file__).with_name("coverage_table.json")


def true_value(dist: str, stat: str = "mean") -> float:
    if stat == "median":
        return {"normal": 0.0, "lognormal": 1.0}[dist]
    return {"normal": 0.0, "lognormal": float(np.exp(0.5)), "bounded": BETA[0] / sum(BETA), "paired_bounded": 0.0}[dist]


def _draw(dist: str, rng, reps: int, n: int):
    """(values, per-seed binomial counts or None); paired_bounded: arm minus baseline, both bounded."""
    if dist == "normal":
        return rng.normal(0.0, 1.0, (reps, n)), None
    if dist == "lognormal":
        return np.exp(rng.normal(0.0, 1.0, (reps, n))), None
    k = rng.binomial(ITEMS, rng.beta(*BETA, (reps, n)))
    if dist == "paired_bounded":
        k0 = rng.binomial(ITEMS, rng.beta(*BETA, (reps, n)))
        return (k - k0) / ITEMS, (k, k0)
    return k / ITEMS, k


def _quantile_rows(sorted_rows: np.ndarray, probs: np.ndarray, counts: np.ndarray | None = None) -> np.ndarray:
    """Type-7 quantiles per row of an ascending-sorted matrix (first ``counts`` entries valid)."""
    r, b = sorted_rows.shape
    cnt = np.full(r, b) if counts is None else counts
    pos = probs * (np.maximum(cnt, 1) - 1)
    lo = np.floor(pos).astype(int)
    hi = np.minimum(lo + 1, np.maximum(cnt - 1, 0))
    frac = pos - lo
    rows = np.arange(r)
    a, b = sorted_rows[rows, lo], sorted_rows[rows, hi]
    return np.where(frac > 0, a + (np.where(frac > 0, b, a) - a) * frac, a)


def _mean_intervals(x, k, idx, rng, level) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Every mean interval of ``x`` (reps, n) at ``level``, from the shared resample indices ``idx``."""
    reps, n = x.shape
    alpha = (1 - level) / 2
    theta = x.mean(axis=1)
    se = x.std(axis=1, ddof=1) / np.sqrt(n)
    q = _st.t.ppf(1 - alpha, n - 1)
    out = {"t": (theta - q * se, theta + q * se)}
    xb = x[np.arange(reps)[:, None, None], idx]
    mb = xb.mean(axis=2)
    sb = np.sort(mb, axis=1)
    pr = np.full(reps, alpha)
    out["percentile"] = (_quantile_rows(sb, pr), _quantile_rows(sb, 1 - pr))
    # BCa (as stats.intervals / scipy): z0 from the mean-percentile of theta, a from the jackknife
    z0 = ndtri(((mb < theta[:, None]).sum(1) + (mb <= theta[:, None]).sum(1)) / (2 * mb.shape[1]))
    jk = (x.sum(axis=1, keepdims=True) - x) / (n - 1)
    u = (n - 1) * (jk.mean(axis=1, keepdims=True) - jk)
    den = (u ** 2).sum(1) / n ** 2
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.where(den > 0, ((u ** 3).sum(1) / n ** 3) / (6 * den ** 1.5), 0.0)
        za = ndtri(alpha)
        plo = ndtr(z0 + (z0 + za) / (1 - a * (z0 + za)))
        phi = ndtr(z0 + (z0 - za) / (1 - a * (z0 - za)))
    plo = np.where(np.isfinite(plo), plo, alpha)
    phi = np.where(np.isfinite(phi), phi, 1 - alpha)
    out["bca"] = (_quantile_rows(sb, plo), _quantile_rows(sb, phi))
    # bootstrap-t, resamples with zero SE dropped (as stats.intervals)
    seb = xb.std(axis=2, ddof=1) / np.sqrt(n)
    with np.errstate(divide="ignore", invalid="ignore"):
        tstar = np.where(seb > 0, (mb - theta[:, None]) / seb, np.inf)
    ts = np.sort(tstar, axis=1)
    cnt = np.isfinite(ts).sum(1)
    tlo, thi = _quantile_rows(ts, pr, cnt), _quantile_rows(ts, 1 - pr, cnt)
    out["bootstrap_t"] = (theta - thi * se, theta - tlo * se)
    if k is not None and not isinstance(k, tuple):
        p = (k / ITEMS)[np.arange(reps)[:, None, None], idx]
        hb = np.sort((rng.binomial(ITEMS, p) / ITEMS).mean(axis=2), axis=1)
        out["hierarchical_bootstrap"] = (_quantile_rows(hb, pr), _quantile_rows(hb, 1 - pr))
    flat = np.ptp(x, axis=1) == 0  # degenerate rows: every interval is the point (stats.intervals)
    for m, (lo, hi) in out.items():
        if m != "hierarchical_bootstrap":
            lo[flat] = theta[flat]
            hi[flat] = theta[flat]
    return out


def _median_intervals(x, idx, level) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Median intervals: percentile bootstrap, the order-statistic interval ('t'), and the old jackknife t."""
    from stats.intervals import median_order_interval

    reps, n = x.shape
    alpha = (1 - level) / 2
    mb = np.sort(np.median(x[np.arange(reps)[:, None, None], idx], axis=2), axis=1)
    pr = np.full(reps, alpha)
    out = {"percentile": (_quantile_rows(mb, pr), _quantile_rows(mb, 1 - pr))}
    xs = np.sort(x, axis=1)
    lo, hi, _, _ = median_order_interval(np.arange(n, dtype=float), level)  # order positions
    out["t"] = (xs[:, int(lo)], xs[:, int(hi)])
    theta = np.median(x, axis=1)
    se = rs.jackknife_se(x, "median")
    q = _st.t.ppf(1 - alpha, n - 1)
    out["jackknife_t"] = (theta - q * se, theta + q * se)
    return out


def _cell(dist, n, reps, resamples, rng_seed, chunk):
    """{(stat, level, method): [hits, width sum]} for one (distribution, n)."""
    rng = rs.generator(rng_seed, f"coverage.{dist}.n{n}")
    acc: dict[tuple, list] = {}
    done = 0
    while done < reps:
        r = min(chunk, reps - done)
        x, k = _draw(dist, rng, r, n)
        idx = rng.integers(0, n, (r, resamples, n))
        for lv in LEVELS:
            with np.errstate(invalid="ignore", divide="ignore"):
                groups = [("mean", _mean_intervals(x, k, idx, rng, lv))]
                if dist in MEDIAN_DISTRIBUTIONS:
                    groups.append(("median", _median_intervals(x, idx, lv)))
            for stat, ivs in groups:
                mu = true_value(dist, stat)
                for m, (lo, hi) in ivs.items():
                    a = acc.setdefault((stat, lv, m), [0, 0.0])
                    a[0] += int(np.count_nonzero((lo <= mu) & (mu <= hi)))
                    a[1] += float(np.sum(hi - lo))
        done += r
    return acc


def study(seeds=(3, 5, 8, 20), reps: int = 2000, resamples: int = 1000, rng_seed: int = 20260714,
          chunk: int = 100, progress=None) -> dict:
    """Actual coverage of nominal 95% and 90% intervals for the mean (and median) over seeds.

    Args:
        seeds: seed counts n.
        reps: Monte-Carlo replications per cell.
        resamples: bootstrap resamples per interval.
        rng_seed: seed of every draw (one stream per distribution and n).

    Returns:
        ``{"rows": [{dist, n, stat, level, method, coverage, mean_width}], ...settings}``;
        ``paired_bounded`` is a paired contrast (arm minus baseline seed accuracy).

    Example:
        >>> t = study((3,), reps=20, resamples=100)
        >>> sorted({r["level"] for r in t["rows"]})
        [0.9, 0.95]
    """
    rows = []
    for dist in DISTRIBUTIONS:
        for n in seeds:
            acc = _cell(dist, n, reps, resamples, rng_seed, chunk)
            for (stat, lv, m), (hits, width) in sorted(acc.items(), key=lambda kv: (kv[0][0], -kv[0][1], kv[0][2])):
                rows.append({"dist": dist, "n": int(n), "stat": stat, "level": lv, "method": m,
                             "coverage": round(hits / reps, 4), "mean_width": round(width / reps, 4)})
            if progress:
                progress(dist, n)
    return {"nominal": _LEVEL, "levels": list(LEVELS), "reps": reps, "resamples": resamples, "rng_seed": rng_seed,
            "items_per_seed": ITEMS, "beta": list(BETA), "seeds": list(seeds), "rows": rows,
            "mc_se": round(float(np.sqrt(_LEVEL * (1 - _LEVEL) / reps)), 4)}


def to_markdown(table: dict) -> str:
    """Coverage tables (one per statistic and level), cells below the flag threshold in bold."""
    seeds = table["seeds"]
    out = []
    rows = cells(table)
    keys = sorted({c.key for c in rows}, key=lambda k: (k[0] != "mean", -k[1]))
    for stat, lv in keys:
        head = "| data | method | " + " | ".join(f"n={n}" for n in seeds) + " |"
        out += [f"Actual coverage of nominal {lv * 100:g}% intervals for the {stat} "
                f"({table['reps']} replications, {table['resamples']} resamples, MC s.e. ~{table['mc_se']}; "
                f"**bold**: below {threshold(lv):g}):", "", head, "|" + "---|" * (len(seeds) + 2)]
        by = {(c.dist, c.method, c.n): c.coverage for c in rows if c.key == (stat, lv)}
        for dist in DISTRIBUTIONS:
            for m in (METHODS if stat == "mean" else MEDIAN_METHODS):
                covs = [by.get((dist, m, n)) for n in seeds]
                if all(c is None for c in covs):
                    continue
                txt = ["—" if c is None else (f"**{c:.3f}**" if c < threshold(lv) else f"{c:.3f}") for c in covs]
                out.append(f"| {dist} | {m} | " + " | ".join(txt) + " |")
        out.append("")
    return "\n".join(out)


def load_table(path: Path | None = None) -> dict | None:
    """The shipped coverage table (``stats/coverage_table.json``), or None when absent."""
    return coverage_table.read(path or TABLE_PATH)


def warning_for(method: str, n: int, level: float, metric: str | None = None, *, contrast: bool = False,
                stat: str = "mean", decls: dict | None = None) -> str | None:
    """A one-line warning when ``method`` under-covers at ``n`` seeds, or when ``level`` is not tabulated.

    Whether it under-covers is :func:`prereg.coverage_table.short`, the rule ``prereg lint`` applies
    too: the metric's unit (declared in ``decls``, else its task default:
    :func:`prereg.declarations.unit_of`) picks the data shape, an unknown unit the worst shape.
    An untabulated level gets ``prereg.coverage_table.untabulated``'s sentence, lint's too.

    Args:
        method: the planned interval method.
        n: seeds analysed.
        level: the nominal level.
        metric: the metric the interval is of (None: unknown unit).
        contrast: True for an interval of a paired difference.
        stat: mean or median.
        decls: the analysis' metric declarations (:func:`prereg.declarations.metric_decls`).

    Returns:
        One sentence, or None.

    Example:
        >>> warning_for("t", 5, 0.95, "heldout_accuracy", contrast=True) is None
        True
    """
    if n < 2:
        return None
    table = coverage_table.shipped_table()  # the table lint reads, parsed once per process
    if table is None:
        return None
    note = untabulated(level, table)
    if note:
        return f"planned {method} interval at n={n} seeds: {note}"
    every = table.cells
    smallest = min(c.n for c in every)
    if n < smallest:
        return (f"{method} interval at n={n} seeds: below the smallest tabulated n ({smallest}); "
                "coverage is unknown and likely poor")
    lv = table_level(level, table)
    unit = None if metric is None else unit_of(metric, decls)
    hit = short(method, n, unit, contrast=contrast, stat=stat, level=lv, table=table)
    if hit is None:
        return None
    cov, tn, dist = hit
    best = max((c for c in every if c.n == tn and c.dist == dist and c.key == (stat, lv)),
               key=lambda c: c.coverage)
    # coverage figures in code spans: they are the shipped table's, not this analysis's numbers
    return (f"planned {method} interval under-covers at n={n} seeds: a nominal {lv * 100:g}% interval for the "
            f"{stat} covered `{cov:.3f}` at `n={tn}` ({dist} data) in `stats coverage`; best there: "
            f"{best.method} (`{best.coverage:.3f}`)")
