"""Clustered-data null study: type I error of every item-level method (README failure 17).

The data are what a GRPO study's held-out evaluation produces: G seeds per arm score the
same M items (a crossed design). Item difficulty beta_i ~ N(0, 1) and a seed effect
u_s ~ N(0, 0.3^2) shared by both arms of a seed sit on the logit scale; the arm's effect
varies from seed to seed, e_s ~ N(0, sigma^2), with no effect on average (the null). A
(seed, item) outcome is Bernoulli(expit(beta_i + u_s [+ e_s])). Items are redrawn in
every replication, so a method that holds its rate here generalises to new seeds and new
items. Everything is seeded and vectorized over replications where the method allows.
"""

from __future__ import annotations

import numpy as np
from scipy import stats as _st
from scipy.special import expit

from stats import items as it
from stats import resample as rs
from stats import tests as ht

METHODS = ("mcnemar_pooled", "item_bootstrap_pooled", "nested_bootstrap", "crossed_bootstrap", "crossed_t",
           "cluster_t", "cluster_sign_flip")
ANALYTIC = ("mcnemar_pooled", "cluster_t", "cluster_sign_flip")  # no resampling: cheap at many replications
RECOMMENDED = ("cluster_t", "cluster_sign_flip")  # crossed_*: conservative for paired differences (counts item noise twice)
SEED_SD = 0.3
ITEM_SD = 1.0
ALPHA = 0.05
DESCRIBE = {
    "mcnemar_pooled": "exact McNemar over all (seed, item) pairs pooled (ignores seeds)",
    "item_bootstrap_pooled": "bootstrap over items of per-item differences averaged over seeds (seeds fixed)",
    "nested_bootstrap": "two-level bootstrap: seeds, then items independently within each seed",
    "crossed_bootstrap": "crossed bootstrap percentile (seeds + one shared item resample)",
    "crossed_t": "grand mean / crossed-bootstrap SE, t with G-1 df",
    "cluster_t": "cluster-robust CR1 t, seeds as clusters, t with G-1 df (= paired t on per-seed means)",
    "cluster_sign_flip": "wild cluster bootstrap, Rademacher, null imposed, exact (= sign flip on per-seed means)",
}


def draw(rng: np.random.Generator, reps: int, seeds: int, items: int, sigma: float) -> np.ndarray:
    """(reps, seeds, items) arm-minus-baseline binary outcome differences under the null."""
    beta = rng.normal(0.0, ITEM_SD, (reps, 1, items))
    u = rng.normal(0.0, SEED_SD, (reps, seeds, 1))
    e = rng.normal(0.0, sigma, (reps, seeds, 1)) if sigma > 0 else 0.0
    base = rng.random((reps, seeds, items)) < expit(beta + u)
    arm = rng.random((reps, seeds, items)) < expit(beta + u + e)
    return arm.astype(np.int8) - base.astype(np.int8)


def _analytic_p(d: np.ndarray) -> dict[str, np.ndarray]:
    """p-values of the resampling-free methods for each replication of ``d`` (reps, G, M)."""
    reps, g, _ = d.shape
    n01 = (d == 1).sum(axis=(1, 2))
    n10 = (d == -1).sum(axis=(1, 2))
    k = n01 + n10
    p_mc = np.where(k > 0, np.minimum(1.0, 2 * _st.binom.cdf(np.minimum(n01, n10), np.maximum(k, 1), 0.5)), 1.0)
    means = d.mean(axis=2)
    sd = means.std(axis=1, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = means.mean(axis=1) / (sd / np.sqrt(g))
    p_t = np.where(sd > 0, 2 * _st.t.sf(np.abs(t), g - 1), np.where(means.mean(axis=1) == 0, 1.0, 0.0))
    codes = np.arange(2 ** g)
    signs = 1.0 - 2.0 * ((codes[:, None] >> np.arange(g)) & 1)
    sums = signs @ means.T  # (2^g, reps)
    obs = means.sum(axis=1)
    tol = 1e-9 * np.maximum(1.0, np.abs(means).sum(axis=1))
    p_sf = (np.abs(sums) >= np.abs(obs) - tol).sum(axis=0) / 2 ** g
    return {"mcnemar_pooled": p_mc, "cluster_t": p_t, "cluster_sign_flip": p_sf}


def _resampled_p(d: np.ndarray, resamples: int, rng: np.random.Generator, methods) -> dict[str, float]:
    """p-values of the bootstrap methods for one replication ``d`` (G, M)."""
    out = {}
    g = d.shape[0]
    if "item_bootstrap_pooled" in methods:
        out["item_bootstrap_pooled"] = ht.bootstrap_p(it.item_bootstrap_pooled(d, resamples, rng))
    if "nested_bootstrap" in methods:
        out["nested_bootstrap"] = ht.bootstrap_p(rs.hierarchical(d.astype(float), resamples, rng)[0])
    if "crossed_bootstrap" in methods or "crossed_t" in methods:
        dist = it.crossed_bootstrap(d, resamples, rng)
        out["crossed_bootstrap"] = ht.bootstrap_p(dist)
        se = float(np.std(dist, ddof=1))
        out["crossed_t"] = 1.0 if se == 0 else float(2 * _st.t.sf(abs(d.mean()) / se, g - 1))
    return out


def null_study(sigmas=(0.0, 0.1, 0.2, 0.4), seeds: int = 8, items: int = 500, reps: int = 2000,
               resamples: int = 1000, rng_seed: int = 20260714, methods=METHODS, resampled_reps: int | None = None,
               chunk: int = 100, progress=None) -> dict:
    """Rejection rate at nominal 0.05 of each item-level method under the clustered null.

    Args:
        sigmas: SDs of the seed-to-seed variation of the arm effect (logit scale).
        seeds, items: G and M of the crossed design.
        reps: replications for the resampling-free methods.
        resamples: bootstrap resamples for the others.
        rng_seed: seed of every draw (one stream per sigma).
        methods: subset of ``METHODS``.
        resampled_reps: replications for the bootstrap methods (default ``reps``; they cost
            ~10 ms each, so a quick run may give them fewer).

    Returns:
        ``{"rows": [{sigma, method, reps, rejection_rate, mc_se}], ...settings}``.

    Example:
        >>> t = null_study((0.4,), seeds=4, items=50, reps=50, methods=("cluster_t",))
        >>> t["rows"][0]["method"]
        'cluster_t'
    """
    unknown = set(methods) - set(METHODS)
    if unknown:
        raise ValueError(f"unknown item-level method(s): {', '.join(sorted(unknown))}")
    rreps = reps if resampled_reps is None else min(reps, resampled_reps)
    rows = []
    boot = [m for m in methods if m not in ANALYTIC]
    for sigma in sigmas:
        rng = rs.generator(rng_seed, f"coverage.clustered.g{seeds}.m{items}.sigma{sigma:g}")
        rej = dict.fromkeys(methods, 0)
        done, boot_done = 0, 0
        while done < reps:
            r = min(chunk, reps - done)
            d = draw(rng, r, seeds, items, sigma)
            for m, p in _analytic_p(d).items():
                if m in methods:
                    rej[m] += int(np.count_nonzero(p < ALPHA))
            for i in range(min(r, rreps - boot_done) if boot else 0):
                for m, p in _resampled_p(d[i], resamples, rng, boot).items():
                    if m in methods:
                        rej[m] += int(p < ALPHA)
                boot_done += 1
            done += r
        for m in methods:
            n = reps if m in ANALYTIC else boot_done
            rows.append({"sigma": float(sigma), "method": m, "reps": int(n), "rejection_rate": round(rej[m] / n, 4),
                         "mc_se": round(float(np.sqrt(ALPHA * (1 - ALPHA) / n)), 4)})
        if progress:
            progress(sigma)
    return {"alpha": ALPHA, "seeds": seeds, "items": items, "reps": reps, "resampled_reps": rreps,
            "resamples": resamples, "rng_seed": rng_seed, "item_sd": ITEM_SD, "seed_sd": SEED_SD,
            "sigmas": [float(s) for s in sigmas], "rows": rows}


def to_markdown(table: dict) -> str:
    """Rejection-rate table (methods x sigma) with each method's description."""
    sig = table["sigmas"]
    by = {(r["method"], r["sigma"]): r for r in table["rows"]}
    methods = [m for m in METHODS if any((m, s) in by for s in sig)]
    lines = [f"Rejection rate at nominal {table['alpha']} under the clustered null ({table['seeds']} seeds x "
             f"{table['items']} shared items; {table['reps']} replications, bootstrap methods "
             f"{table['resampled_reps']} with {table['resamples']} resamples):", "",
             "| method | " + " | ".join(f"sigma={s:g}" for s in sig) + " | what it is |",
             "|---|" + "---|" * (len(sig) + 1)]
    for m in methods:
        cells = [f"{by[(m, s)]['rejection_rate']:.3f}" if (m, s) in by else "—" for s in sig]
        star = " (recommended)" if m in RECOMMENDED else ""
        lines.append(f"| {m}{star} | " + " | ".join(cells) + f" | {DESCRIBE[m]} |")
    return "\n".join(lines) + "\n"
