"""Seeded simulation of a group-sequential paired t procedure: what the normal theory cannot say.

Why: a paired t over 3-8 seeds is far from normal, so the boundaries of
:mod:`prereg.sequential` (computed for the canonical normal joint distribution) must be
moved to the t scale, and only a simulation of the whole procedure shows whether the level
holds (README failure 19). The benchmark, the test and ``prereg design`` call this one
function; every draw comes from ``numpy.random.default_rng(seed)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

CORRECTIONS = ("t_tail", "none")
_CHUNK = 65_536  # rows per block: memory stays O(reps x looks), not O(reps x seeds)


@dataclass(frozen=True)
class SimResult:
    """Outcome frequencies of ``reps`` simulated studies."""
    reps: int
    reject: float          # P(reject H0 at some look), either direction
    reject_upper: float    # P(reject in the positive direction)
    futility: float
    stop_at: tuple[float, ...]   # P(stop at look k)
    expected_seeds: float

    @property
    def mc_se(self) -> float:
        """Binomial Monte-Carlo standard error of ``reject``."""
        return math.sqrt(max(self.reject * (1 - self.reject), 1e-12) / self.reps)


def t_boundaries(z, looks, correction: str = "t_tail") -> np.ndarray:
    """Boundaries on the paired-t scale: equal tail probability with n_k - 1 df (``t_tail``).

    Args:
        z: per-look boundaries on the Z scale (inf allowed; -inf for no one-sided futility).
        looks: cumulative seeds per arm at each look.
        correction: ``t_tail`` (P(T_{n-1} >= c) = P(Z >= z)) or ``none`` (use z as is).
    Returns:
        array of t-scale boundaries.
    Example:
        >>> round(float(t_boundaries([1.959964], [5])[0]), 3)
        2.776
    """
    from scipy import stats

    z = np.asarray(z, dtype=float)
    if correction == "none":
        return z
    if correction != "t_tail":
        raise ValueError(f"correction: {correction!r} is not one of {', '.join(CORRECTIONS)}")
    df = np.asarray(looks, dtype=float) - 1.0
    return np.where(np.isfinite(z), stats.t.isf(stats.norm.sf(z), df), z)


@dataclass(frozen=True)
class Draws:
    """Per-look running means and SDs of ``reps`` standard-normal difference sequences.

    The paired t statistic under a standardized effect ``d`` is ``(mean + d) / (sd / sqrt(n))``:
    the SD does not move with ``d``, so one set of draws serves every effect (common random
    numbers make probabilities monotone in ``d``).
    """
    looks: tuple[int, ...]
    mean: np.ndarray   # (reps, K)
    sd: np.ndarray     # (reps, K)

    def t(self, d: float = 0.0) -> np.ndarray:
        return (self.mean + d) / (self.sd / np.sqrt(np.asarray(self.looks, dtype=float)))


def draws(looks, reps: int, seed: int) -> Draws:
    """Seeded standard-normal paired differences summarized at each look.

    Example:
        >>> draws([3, 5], 10, 0).mean.shape
        (10, 2)
    """
    rng = np.random.default_rng(seed)
    idx = np.asarray(looks) - 1
    n = np.asarray(looks, dtype=float)
    mean, sd = np.empty((reps, len(looks))), np.empty((reps, len(looks)))
    for lo in range(0, reps, _CHUNK):  # row blocks draw the same stream as one (reps, n_K) call
        x = rng.standard_normal((min(_CHUNK, reps - lo), looks[-1]))
        cs, cs2 = np.cumsum(x, axis=1), np.cumsum(x * x, axis=1)
        m = cs[:, idx] / n
        mean[lo:lo + len(x)] = m
        sd[lo:lo + len(x)] = np.sqrt(np.maximum((cs2[:, idx] - n * m * m) / (n - 1), 1e-300))
    return Draws(tuple(int(v) for v in looks), mean, sd)


def calibrate(looks, increments, futility_t, *, sides: int = 2, binding: bool = False,
              reps: int = 200_000, seed: int = 0) -> np.ndarray:
    """t-scale efficacy boundaries spending exactly ``increments`` under H0 (``t_calibrated``).

    Under H0 the joint law of the paired t statistics does not depend on the SD (they are
    scale-free), so spending the registered alpha increments on a seeded simulation of that law
    gives boundaries exact up to Monte-Carlo error, where the equal-tail conversion is not. The
    first look needs no simulation: its statistic is exactly t with n_1 - 1 df.

    Args:
        looks: cumulative seeds per arm.
        increments: alpha spent at each look (two-sided total for ``sides`` 2).
        futility_t: t-scale futility bounds; counted under H0 only when ``binding``.
    Returns:
        array of t-scale boundaries (inf where nothing is spent).
    """
    T = draws(looks, reps, seed).t()
    alive = np.ones(reps, bool)
    out = []
    for k, inc in enumerate(increments):
        v = np.abs(T[:, k]) if sides == 2 else T[:, k]
        v = np.where(alive, v, -np.inf)
        m = int(round(inc * reps))
        if k == 0:  # the first look's t statistic is exactly t(n_1 - 1) under H0: no simulation needed
            from scipy import stats

            c = math.inf if inc <= 0 else float(stats.t.isf(inc / sides, looks[0] - 1))
        else:
            c = math.inf if m <= 0 else float(np.partition(-v, m - 1)[m - 1] * -1)
        out.append(c)
        alive &= v < c
        if binding:
            alive &= ~((np.abs(T[:, k]) < futility_t[k]) if sides == 2 else (T[:, k] < futility_t[k]))
    return np.asarray(out)


def run_rule(T: np.ndarray, looks, cu, cf, sides: int = 2) -> SimResult:
    """Apply t-scale boundaries ``cu`` (efficacy) and ``cf`` (futility) to simulated t paths."""
    reps = T.shape[0]
    alive = np.ones(reps, bool)
    up = lo = fut = 0
    stop, seeds = [], 0.0
    for k, n in enumerate(looks):
        t = T[:, k]
        hit_u = alive & (t >= cu[k])
        hit_l = alive & (t <= -cu[k]) if sides == 2 else np.zeros(reps, bool)
        inner = (np.abs(t) < cf[k]) if sides == 2 else (t < cf[k])
        hit_f = alive & ~hit_u & ~hit_l & (inner | (k == len(looks) - 1))
        up, lo, fut = up + hit_u.sum(), lo + hit_l.sum(), fut + hit_f.sum()
        s = hit_u | hit_l | hit_f
        stop.append(float(s.sum() / reps))
        seeds += n * s.sum()
        alive &= ~s
    return SimResult(reps, float((up + lo) / reps), float(up / reps), float(fut / reps), tuple(stop),
                     float(seeds / reps))


def simulate(looks, cu, cf, *, sides: int = 2, d: float = 0.0, reps: int = 100_000, seed: int = 0) -> SimResult:
    """Run ``reps`` paired studies with standardized effect ``d`` through t-scale boundaries.

    Args:
        looks: cumulative seeds (pairs) per arm at each look.
        cu, cf: t-scale efficacy and futility boundaries (see :func:`t_boundaries`, :func:`calibrate`).
        sides: 2 (reject when |T| >= c) or 1 (T >= c).
        d: true mean difference / SD of differences.
    Returns:
        :class:`SimResult`.
    Example:
        >>> simulate([5], [2.776445], [0.0], reps=2000, seed=1).reps
        2000
    """
    return run_rule(draws(looks, reps, seed).t(d), looks, cu, cf, sides)
