"""Item-level inference that keeps the seed clustering (README failure 17).

Held-out items are shared by every run, so an item-level comparison of two arms is a
*crossed* (seed x item) design: every (seed, item) outcome shares its seed's training
noise with the other 499 items of that seed and its item's difficulty with the other
seeds. Pooling the (seed, item) pairs as independent (exact McNemar over all pairs, or a
bootstrap over items of per-item differences) ignores the seed-to-seed variation of the
arm effect and rejects a true null far more often than 5% when that variation is real
(``stats coverage --clustered``; benchmarks/clustered_null.py).

The methods here are the recommended ones:

- :func:`cluster_t`: the cluster-robust (CR1) test of the mean paired difference with
  seeds as clusters and a t reference with G - 1 degrees of freedom. With every seed
  scoring the same items this equals the paired t test on per-seed mean differences,
  and it equals statsmodels ``OLS(...).fit(cov_type="cluster")`` (tested).
- :func:`cluster_sign_flip`: the wild cluster bootstrap with Rademacher weights and the
  null imposed, enumerated exactly (2^G sign vectors): the sign-flip test on per-seed
  mean differences. It needs no normality, but its smallest p is 2/2^G.
- :func:`crossed_bootstrap`: one item resample shared by all drawn seeds, plus seeds
  resampled: the bootstrap for generalising to new seeds *and* new items. Its variance
  has a closed form (:func:`crossed_variance`), which the tests check it against.
"""

from __future__ import annotations

import numpy as np
from scipy import stats as _st

from stats import resample as rs
from stats import tests as ht

# Elements per chunk of the crossed engine's (resamples x items) count matrices.
_CHUNK_ELEMS = 2_000_000

POOLED_CAVEAT = ("pools (seed, item) pairs as if independent: it ignores that the pairs are clustered by seed, "
                 "so with seed-to-seed variation of the arm effect it rejects a true null far more often than "
                 "the nominal rate (README failure 17; `stats coverage --clustered`); the cluster-robust "
                 "item.cluster_t test is the one to read")
RECOMMENDED = "cluster_t"


def seed_means(diff_items) -> np.ndarray:
    """Per-seed mean of the paired item differences: the cluster means, shape (seeds,)."""
    d = np.asarray(diff_items, dtype=float)
    if d.ndim != 2:
        raise ValueError("item differences must be a (seeds x items) matrix")
    return d.mean(axis=1)


def cluster_t(diff_items, alternative: str = "two-sided") -> ht.TestResult:
    """Cluster-robust test of the mean paired item difference, seeds as clusters.

    Args:
        diff_items: (seeds x items) matrix of arm-minus-baseline outcomes, items shared.
        alternative: ``two-sided``, ``greater`` or ``less``.

    Returns:
        A ``TestResult`` (method ``cluster_t``) whose statistic is the CR1 t statistic,
        referred to t with G - 1 df (G = seeds). With equal cluster sizes CR1 with the
        G/(G-1) small-sample factor is exactly sd(cluster means)/sqrt(G).

    Example:
        >>> cluster_t([[1, 0, 1], [0, 0, 1], [1, 1, 1]]).params["df"]
        2
    """
    d = np.asarray(diff_items, dtype=float)
    means = seed_means(d)
    r = ht.paired_t(means, alternative)
    params = {**r.params, "clusters": int(d.shape[0]), "items": int(d.shape[1]),
              "se": "CR1 (seeds as clusters) = SD of per-seed mean differences / sqrt(G)",
              "reference": "t with G-1 df"}
    return ht.TestResult(r.p, r.statistic, "cluster_t", params, r.note)


def cluster_sign_flip(diff_items, alternative: str = "two-sided", *, rng_seed: int | None = None,
                      stream: str = "", resamples: int = 10000) -> ht.TestResult:
    """Wild cluster bootstrap (Rademacher, null imposed) of the mean paired difference.

    For an intercept-only model the restricted residuals are the cluster sums themselves,
    so the wild cluster bootstrap is the sign-flip test on per-seed mean differences,
    enumerated exactly up to 20 seeds.

    Args:
        diff_items: (seeds x items) matrix of arm-minus-baseline outcomes.
        alternative: ``two-sided``, ``greater`` or ``less``.
        rng_seed, stream, resamples: Monte-Carlo draws beyond 20 seeds.

    Returns:
        A ``TestResult`` with method ``cluster_sign_flip``.

    Example:
        >>> round(cluster_sign_flip([[1, 1], [1, 0], [1, 1]]).p, 3)
        0.25
    """
    d = np.asarray(diff_items, dtype=float)
    r = ht.sign_flip(seed_means(d), alternative, rng_seed=rng_seed, stream=stream, resamples=resamples)
    params = {**r.params, "clusters": int(d.shape[0]), "items": int(d.shape[1]),
              "weights": "Rademacher per seed (wild cluster bootstrap, null imposed)"}
    return ht.TestResult(r.p, r.statistic, "cluster_sign_flip", params, r.note, r.rng_seed)


def _counts(idx: np.ndarray, n: int) -> np.ndarray:
    """Row-wise counts of indices 0..n-1: (B, k) draws -> (B, n) multiplicities."""
    b = idx.shape[0]
    flat = (idx + (np.arange(b) * n)[:, None]).ravel()
    return np.bincount(flat, minlength=b * n).reshape(b, n).astype(float)


def crossed_bootstrap(diff_items, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Bootstrap distribution of the grand mean under crossed (seed x item) resampling.

    Each resample draws G seeds with replacement and one set of M items with replacement
    that every drawn seed shares. The grand mean of the resampled matrix is
    ``w_s @ D @ w_i / (G M)`` with ``w_s``, ``w_i`` the draw multiplicities, so no
    (G x M) matrix is built per resample.

    Args:
        diff_items: (seeds x items) matrix (paired differences, or one arm's outcomes).
        resamples: number of bootstrap resamples B.
        rng: the generator (``resample.generator(rng_seed, stream)``).

    Returns:
        Array of B resampled grand means.

    Example:
        >>> d = np.array([[1.0, 0.0], [0.0, 1.0]])
        >>> crossed_bootstrap(d, 4, rs.generator(1, "x")).shape
        (4,)
    """
    d = np.asarray(diff_items, dtype=float)
    g, m = d.shape
    out = np.empty(resamples)
    per = max(1, _CHUNK_ELEMS // max(1, m))
    for start in range(0, resamples, per):
        b = min(resamples, start + per) - start
        ws = _counts(rng.integers(0, g, (b, g)), g)
        wi = _counts(rng.integers(0, m, (b, m)), m)
        out[start:start + b] = np.einsum("bm,bm->b", ws @ d, wi) / (g * m)
    return out


def crossed_variance(diff_items) -> float:
    """Exact variance of :func:`crossed_bootstrap`'s distribution (B -> infinity).

    With multiplicities w_s ~ Multinomial(G, 1/G) and w_i ~ Multinomial(M, 1/M),
    E[w w'] = I + (1 - 1/k) J, so for T = w_s' D w_i / (G M):
    Var T = [sum D^2 + (1-1/M) sum_s r_s^2 + (1-1/G) sum_i c_i^2
             + ((1-1/G)(1-1/M) - 1) (sum D)^2] / (G M)^2,
    with r_s, c_i the row (seed) and column (item) sums.

    Args:
        diff_items: (seeds x items) matrix.

    Returns:
        The variance of the resampled grand mean.

    Example:
        >>> round(crossed_variance(np.array([[1.0, 0.0], [0.0, 0.0]])), 6)
        0.078125
    """
    d = np.asarray(diff_items, dtype=float)
    g, m = d.shape
    a, b = 1 - 1 / g, 1 - 1 / m
    tot = d.sum()
    v = (np.sum(d ** 2) + b * np.sum(d.sum(axis=1) ** 2) + a * np.sum(d.sum(axis=0) ** 2)
         + (a * b - 1) * tot ** 2) / (g * m) ** 2
    return float(max(v, 0.0))


def crossed_intervals(diff_items, levels: list[float], resamples: int, rng_seed: int, stream: str
                      ) -> dict[float, dict]:
    """Crossed-bootstrap percentile and crossed-t intervals of the mean paired item difference.

    The ``crossed_t`` interval is the grand mean +- t_{G-1} x the crossed bootstrap SD:
    the bootstrap supplies a variance that counts both seed and item sampling, and the
    t quantile the small-G reference the percentile interval lacks.

    Args:
        diff_items: (seeds x items) matrix.
        levels: confidence levels.
        resamples, rng_seed, stream: the draws (``resample.generator(rng_seed, stream)``).

    Returns:
        ``{level: {"percentile": (low, high), "crossed_t": (low, high), "se": float}}``.

    Example:
        >>> d = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]])
        >>> sorted(crossed_intervals(d, [0.95], 200, 1, "s")[0.95])
        ['crossed_t', 'percentile', 'se']
    """
    d = np.asarray(diff_items, dtype=float)
    g = d.shape[0]
    dist = crossed_bootstrap(d, resamples, rs.generator(rng_seed, stream))
    theta = float(d.mean())
    se = float(np.std(dist, ddof=1))
    out = {}
    for lv in levels:
        a = (1 - lv) / 2
        lo, hi = np.quantile(dist, [a, 1 - a])
        q = float(_st.t.ppf(1 - a, g - 1)) if g > 1 else float("nan")
        out[lv] = {"percentile": (float(lo), float(hi)), "crossed_t": (theta - q * se, theta + q * se), "se": se}
    return out


def item_bootstrap_pooled(diff_items, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """The pooled item bootstrap (items resampled, seeds fixed): kept only for comparison.

    Resamples per-item differences averaged over seeds; the seed-level variation of the
    arm effect never enters, so it over-rejects with real seed-to-seed variation.
    """
    per_item = np.asarray(diff_items, dtype=float).mean(axis=0)
    return rs.bootstrap(per_item, "mean", resamples, rng)
