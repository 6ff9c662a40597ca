"""Monte-Carlo coverage of every interval method at the seed counts RL studies use.

Percentile bootstrap over 3–8 seeds under-covers (README, "`stats`: exactly the locked analysis"). This
module measures by how much, for the mean of normal, skewed (lognormal) and bounded
accuracy-like (Beta-Binomial: seed accuracy ~ Beta(6, 4), 100 binary items per seed)
data, and the analysis warns when the planned method under-covers at the study's n,
using the table shipped in ``stats/coverage_table.json`` (regenerate it with
``stats coverage --write-table``). Everything is vectorized over Monte-Carlo replications
and seeded, so the table is reproducible.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from scipy import stats as _st
from scipy.special import ndtr, ndtri

from stats import resample as rs

DISTRIBUTIONS = ("normal", "lognormal", "bounded")
METHODS = ("percentile", "bca", "bootstrap_t", "t", "hierarchical_bootstrap")
ITEMS = 100
BETA = (6.0, 4.0)
THRESHOLD = 0.93  # warn below this actual coverage of a nominal 95% interval
_LEVEL = 0.95


def true_mean(dist: str) -> float:
    return {"normal": 0.0, "lognormal": float(np.exp(0.5)), "bounded": BETA[0] / sum(BETA)}[dist]


def _draw(dist: str, rng, reps: int, n: int):
    if dist == "normal":
        return rng.normal(0.0, 1.0, (reps, n)), None
    if dist == "lognormal":
        return np.exp(rng.normal(0.0, 1.0, (reps, n))), None
    p = rng.beta(*BETA, (reps, n))
    k = rng.binomial(ITEMS, p)
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


def _intervals(x: np.ndarray, k: np.ndarray | None, resamples: int, rng) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    reps, n = x.shape
    alpha = (1 - _LEVEL) / 2
    theta = x.mean(axis=1)
    sd = x.std(axis=1, ddof=1)
    se = sd / np.sqrt(n)
    out = {}
    q = _st.t.ppf(1 - alpha, n - 1)
    out["t"] = (theta - q * se, theta + q * se)

    idx = rng.integers(0, n, (reps, resamples, n))
    xb = x[np.arange(reps)[:, None, None], idx]
    mb = xb.mean(axis=2)
    sb = np.sort(mb, axis=1)
    pr = np.full(reps, alpha)
    out["percentile"] = (_quantile_rows(sb, pr), _quantile_rows(sb, 1 - pr))

    # BCa (as stats.intervals / scipy): z0 from the mean-percentile of theta, a from the jackknife
    z0 = ndtri(((mb < theta[:, None]).sum(1) + (mb <= theta[:, None]).sum(1)) / (2 * resamples))
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

    if k is not None:
        sidx = rng.integers(0, n, (reps, resamples, n))
        p = (k / ITEMS)[np.arange(reps)[:, None, None], sidx]
        hb = np.sort((rng.binomial(ITEMS, p) / ITEMS).mean(axis=2), axis=1)
        out["hierarchical_bootstrap"] = (_quantile_rows(hb, pr), _quantile_rows(hb, 1 - pr))
    # degenerate rows (all equal): every interval is the point, as stats.intervals states it
    flat = np.ptp(x, axis=1) == 0
    for m, (lo, hi) in out.items():
        if m != "hierarchical_bootstrap":
            lo[flat] = theta[flat]
            hi[flat] = theta[flat]
    return out


def study(seeds=(3, 5, 8, 20), reps: int = 2000, resamples: int = 1000, rng_seed: int = 20260714,
          chunk: int = 100, progress=None) -> dict:
    """Actual coverage of nominal 95% intervals: ``{"rows": [{dist, n, method, coverage, mean_width}]}``."""
    rows = []
    for dist in DISTRIBUTIONS:
        mu = true_mean(dist)
        for n in seeds:
            rng = rs.generator(rng_seed, f"coverage.{dist}.n{n}")
            hits: dict[str, int] = {}
            width: dict[str, float] = {}
            done = 0
            while done < reps:
                r = min(chunk, reps - done)
                x, k = _draw(dist, rng, r, n)
                with np.errstate(invalid="ignore", divide="ignore"):
                    ivs = _intervals(x, k, resamples, rng)
                for m, (lo, hi) in ivs.items():
                    hits[m] = hits.get(m, 0) + int(np.count_nonzero((lo <= mu) & (mu <= hi)))
                    width[m] = width.get(m, 0.0) + float(np.sum(hi - lo))
                done += r
            for m in METHODS:
                if m in hits:
                    rows.append({"dist": dist, "n": int(n), "method": m, "coverage": round(hits[m] / reps, 4),
                                 "mean_width": round(width[m] / reps, 4)})
            if progress:
                progress(dist, n)
    return {"nominal": _LEVEL, "reps": reps, "resamples": resamples, "rng_seed": rng_seed,
            "items_per_seed": ITEMS, "beta": list(BETA), "seeds": list(seeds), "rows": rows,
            "mc_se": round(float(np.sqrt(_LEVEL * (1 - _LEVEL) / reps)), 4)}


def to_markdown(table: dict) -> str:
    seeds = table["seeds"]
    head = "| data | method | " + " | ".join(f"n={n}" for n in seeds) + " |"
    lines = [f"Actual coverage of nominal {int(table['nominal'] * 100)}% intervals for the mean "
             f"({table['reps']} replications, {table['resamples']} resamples, MC s.e. ~{table['mc_se']}):", "",
             head, "|" + "---|" * (len(seeds) + 2)]
    by = {(r["dist"], r["method"], r["n"]): r["coverage"] for r in table["rows"]}
    for dist in DISTRIBUTIONS:
        for m in METHODS:
            cells = [by.get((dist, m, n)) for n in seeds]
            if all(c is None for c in cells):
                continue
            lines.append(f"| {dist} | {m} | " + " | ".join("—" if c is None else f"{c:.3f}" for c in cells) + " |")
    return "\n".join(lines) + "\n"


TABLE_FILE = Path(__file__).with_name("coverage_table.json")  # package data, `stats coverage --write-table`


def shipped_table() -> dict | None:
    """The Monte-Carlo coverage table shipped with stats (None when the file is absent).

    Returns:
        ``{"rows": [{"dist", "method", "n", "coverage", "mean_width"}], "seeds", "reps", ...}``.

    Example:
        >>> shipped_table()["nominal"]
        0.95
    """
    if not TABLE_FILE.is_file():
        return None
    return json.loads(TABLE_FILE.read_text(encoding="utf-8"))





def lookup(method: str, n: int, dist: str | None = None, table: dict | None = None) -> tuple[float, int, str] | None:
    """(worst coverage, table n, distribution) for ``method`` at the largest tabulated n <= ``n``."""
    table = table or shipped_table()
    if table is None:
        return None
    method = "percentile" if method == "paired_bootstrap" else method
    ns = sorted({r["n"] for r in table["rows"]})
    cands = [m for m in ns if m <= n]
    if not cands:
        return None
    tn = cands[-1]
    rows = [r for r in table["rows"] if r["method"] == method and r["n"] == tn and (dist is None or r["dist"] == dist)]
    if not rows:
        return None
    worst = min(rows, key=lambda r: r["coverage"])
    return worst["coverage"], tn, worst["dist"]


def warning_for(method: str, n: int, level: float, metric: str | None = None) -> str | None:
    """A one-line warning when ``method`` under-covers at ``n`` seeds (worst of the tabulated data shapes)."""
    if n < 2:
        return None
    table = shipped_table()
    if table is None:
        return None
    smallest = min(r["n"] for r in table["rows"])
    if n < smallest:
        return (f"{method} interval at n={n} seeds: below the smallest tabulated n ({smallest}); "
                "coverage is unknown and likely poor")
    from stats.load import metric_unit

    shape = "bounded" if metric is not None and metric_unit(metric) == "fraction" else None
    hit = lookup(method, n, shape, table)
    if hit is None or hit[0] >= THRESHOLD:
        return None
    cov, tn, dist = hit
    best = max((r for r in table["rows"] if r["n"] == tn and r["dist"] == dist), key=lambda r: r["coverage"])
    return (f"planned {method} interval under-covers at n={n} seeds: a nominal 95% interval covered "
            f"{cov:.3f} at n={tn} ({dist} data) in `stats coverage`; best there: {best['method']} "
            f"({best['coverage']:.3f})")
