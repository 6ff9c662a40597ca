"""Multi-task aggregates in the style of rliable (Agarwal et al. 2021), vectorized.

Scores are (runs, tasks) matrices per arm. The stratified bootstrap resamples runs
independently within each task (rliable's ``StratifiedBootstrap`` with
``task_bootstrap=False``); intervals are percentile intervals of that distribution.
"""

from __future__ import annotations

import numpy as np
from scipy import stats as _st

AGGREGATES = ("mean", "median", "iqm", "optimality_gap")


def aggregate(scores: np.ndarray, name: str, gamma: float = 1.0) -> np.ndarray:
    """Aggregate over the last two axes (runs, tasks); leading axes are resamples."""
    s = np.asarray(scores, dtype=float)
    if name == "mean":
        return s.mean(axis=(-2, -1))
    if name == "median":
        return np.median(s.mean(axis=-2), axis=-1)
    if name == "iqm":
        flat = s.reshape(s.shape[:-2] + (-1,))
        return _st.trim_mean(flat, 0.25, axis=-1)
    if name == "optimality_gap":
        return gamma - np.minimum(s, gamma).mean(axis=(-2, -1))
    raise ValueError(f"unknown aggregate {name!r}")


def probability_of_improvement(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """P(X > Y) averaged over tasks, ties counted 1/2 (Mann–Whitney U / (n m)); leading axes broadcast."""
    x = np.asarray(x, dtype=float)[..., :, None, :]
    y = np.asarray(y, dtype=float)[..., None, :, :]
    wins = (x > y).astype(float) + 0.5 * (x == y)
    return wins.mean(axis=(-3, -2)).mean(axis=-1)


def stratified_resample(scores: np.ndarray, resamples: int, rng: np.random.Generator) -> np.ndarray:
    s = np.asarray(scores, dtype=float)
    n, t = s.shape
    idx = rng.integers(0, n, (resamples, n, t))
    return s[idx, np.arange(t)[None, None, :]]


def percentile_interval(dist: np.ndarray, level: float) -> tuple[float, float]:
    a = (1 - level) / 2
    lo, hi = np.quantile(dist, [a, 1 - a])
    return float(lo), float(hi)
