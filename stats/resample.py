"""Vectorized bootstrap engines and the one rule for deriving random generators.

Every random draw in ``stats`` comes from :func:`generator` keyed by the plan's
``rng_seed`` and a *stream* name (normally the value id the draws serve), so any single
value is recomputable alone, in any order, and reruns are byte-identical. The resample
indices are drawn as ``rng.integers(0, n, (B, n))`` in one call — the same draws
``scipy.stats.bootstrap`` makes from the same generator — so results agree with scipy
exactly when given the same seed.
"""

from __future__ import annotations

import hashlib

import numpy as np
from scipy import stats as _st

# Elements per chunk of the two-level engines (bounds memory to ~8 MB per array).
_CHUNK_ELEMS = 1_000_000


def stream_key(rng_seed: int, stream: str) -> list[int]:
    """SeedSequence entropy for (plan seed, stream name): 4 words of SHA-256 of the name."""
    digest = hashlib.sha256(stream.encode("utf-8")).digest()
    words = [int.from_bytes(digest[i:i + 4], "little") for i in range(0, 16, 4)]
    return [int(rng_seed)] + words


def generator(rng_seed: int, stream: str) -> np.random.Generator:
    """The generator for one stream: ``Generator(PCG64(SeedSequence([rng_seed, *sha256(stream)[:16]])))``."""
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(stream_key(rng_seed, stream))))


# ----------------------------------------------------------------------------- statistics
def iqm(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """Interquartile mean (25% trimmed mean, as rliable and scipy.stats.trim_mean define it)."""
    return _st.trim_mean(x, 0.25, axis=axis)


STATISTICS = {
    "mean": lambda x, axis=-1: np.mean(x, axis=axis),
    "median": lambda x, axis=-1: np.median(x, axis=axis),
    "iqm": iqm,
}


def statistic(name: str):
    try:
        return STATISTICS[name]
    except KeyError:
        raise ValueError(f"unknown statistic {name!r}") from None


# ----------------------------------------------------------------------------- engines
def indices(rng: np.random.Generator, n: int, resamples: int) -> np.ndarray:
    return rng.integers(0, n, (resamples, n))


def bootstrap(x: np.ndarray, stat: str, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """One-level bootstrap distribution of ``stat`` over the last axis of 1-D ``x``."""
    x = np.asarray(x, dtype=float)
    idx = indices(rng, x.shape[-1], resamples)
    return statistic(stat)(x[idx], axis=-1)


def bootstrap_resampled(x: np.ndarray, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """The resampled data themselves, shape (B, n) — for engines that need more than a statistic."""
    x = np.asarray(x, dtype=float)
    return x[indices(rng, x.shape[-1], resamples)]


MULTINOMIAL_MAX_VALUES = 16


def hierarchical(items: np.ndarray, resamples: int, rng: np.random.Generator, stat: str = "mean",
                 *, paired_with: np.ndarray | None = None, engine: str = "auto") -> tuple[np.ndarray, str]:
    """Two-level bootstrap: resample seeds, then items within each drawn seed.

    ``items`` is (seeds, items). Returns the distribution of ``stat`` over the resampled
    per-seed item means, and the item-draw engine used. The mean of m items drawn with
    replacement from a seed depends only on how often each distinct value is drawn, so for
    items with few distinct values (binary accuracy, {-1, 0, 1} paired differences, graded
    rewards) those counts are drawn directly — Binomial(m, p) for two values,
    Multinomial(m, p) for up to 16 — which is the exact distribution of explicit index
    resampling at a fraction of the cost. Otherwise (or with ``engine="index"``) item
    indices are drawn explicitly, in chunks. With ``paired_with`` (same shape) the
    statistic is over per-seed mean differences with items paired by index, i.e. over
    ``items - paired_with``.
    """
    items = np.asarray(items, dtype=float)
    if paired_with is not None:
        items = items - np.asarray(paired_with, dtype=float)
    s, m = items.shape
    seed_idx = rng.integers(0, s, (resamples, s))
    vals = np.unique(items)
    if engine == "auto" and vals.size <= 2:
        lo, hi = vals[0], vals[-1]
        p = (items == hi).mean(axis=1)[seed_idx] if vals.size == 2 else np.zeros(seed_idx.shape)
        means = lo + (hi - lo) * rng.binomial(m, p) / m
        return statistic(stat)(means, axis=-1), "binomial"
    if engine == "auto" and vals.size <= MULTINOMIAL_MAX_VALUES:
        probs = (items[:, :, None] == vals[None, None, :]).mean(axis=1)  # (s, K)
        out = np.empty(resamples)
        per = max(1, _CHUNK_ELEMS // max(1, s * vals.size))
        for start in range(0, resamples, per):
            stop = min(resamples, start + per)
            counts = rng.multinomial(m, probs[seed_idx[start:stop]])  # (b, s, K)
            out[start:stop] = statistic(stat)(counts @ vals / m, axis=-1)
        return out, "multinomial"
    flat = items.ravel()
    per = max(1, _CHUNK_ELEMS // max(1, s * m))
    out = np.empty(resamples)
    for start in range(0, resamples, per):
        stop = min(resamples, start + per)
        b = stop - start
        # flat index of item j of drawn seed r: r * m + j (int32 draws are faster than int64)
        pos = rng.integers(0, m, (b, s, m), dtype=np.int32)
        pos += (seed_idx[start:stop, :, None] * m).astype(np.int32)
        out[start:stop] = statistic(stat)(np.take(flat, pos).mean(axis=-1), axis=-1)
    return out, "index"


def jackknife(x: np.ndarray, stat: str) -> np.ndarray:
    """Leave-one-out values of ``stat`` over the last axis; works on (..., n) arrays."""
    x = np.asarray(x, dtype=float)
    n = x.shape[-1]
    keep = ~np.eye(n, dtype=bool)
    loo = np.broadcast_to(x[..., None, :], x.shape[:-1] + (n, n))[..., keep].reshape(x.shape[:-1] + (n, n - 1))
    return statistic(stat)(loo, axis=-1)


def jackknife_se(x: np.ndarray, stat: str) -> np.ndarray:
    th = jackknife(x, stat)
    n = th.shape[-1]
    return np.sqrt((n - 1) / n * np.sum((th - th.mean(axis=-1, keepdims=True)) ** 2, axis=-1))


def standard_error(x: np.ndarray, stat: str) -> np.ndarray:
    """SE used by the t and bootstrap-t intervals: s/sqrt(n) for the mean, jackknife otherwise."""
    x = np.asarray(x, dtype=float)
    n = x.shape[-1]
    if stat == "mean":
        return np.std(x, axis=-1, ddof=1) / np.sqrt(n)
    return jackknife_se(x, stat)


# ----------------------------------------------------------------------------- round-off
ROUNDOFF_REL = 1e-12  # the analysis reports 12 significant digits; spreads below this are round-off


def snap_constant(x, scale: float | None = None) -> np.ndarray:
    """``x`` with a round-off-sized spread collapsed to exactly constant values.

    Per-seed differences of equal-by-construction numbers (0.4 - 0.3 vs 0.2 - 0.1) differ by
    ~1e-17; treated literally their SD is 1e-17 and every t-based quantity explodes (dz ~ 1e15,
    the noncentral t fails). A spread no larger than ``ROUNDOFF_REL`` times ``scale`` (default:
    the largest magnitude in ``x``; pass the inputs' magnitude for differences) is replaced by
    the mean, and a mean no larger than that by exact zeros, so zero-variance data take the
    stated zero-variance branches everywhere.
    """
    a = np.asarray(x, dtype=float)
    if a.size == 0 or not np.all(np.isfinite(a)):
        return a
    s = float(np.max(np.abs(a))) if scale is None else float(scale)
    tol = ROUNDOFF_REL * s
    if float(np.ptp(a)) > tol:
        return a
    m = float(a.mean())
    return np.full(a.shape, 0.0 if abs(m) <= tol else m)
