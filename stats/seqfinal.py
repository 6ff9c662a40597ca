"""Final inference for a sequential study: p-values and intervals that respect the design.

Why (README failure 19): after an early stop, the ordinary p-value and interval of the look's
data overstate the evidence (the look was chosen because the statistic was large). The
stage-wise ordering (Armitage 1957; Jennison & Turnbull 2000, §8.4) ranks outcomes by the look
at which they stop, then by the statistic: the adjusted p-value is the H0 probability of an
outcome at least as extreme, and the confidence limits are the standardized effects under which
the observed outcome sits at the interval's tail probabilities, found with the same seeded
simulation of the paired-t look statistics the boundaries came from (common random numbers make
the tail probability monotone in the effect). Repeated confidence intervals (mean +- the look's
t boundary x SE) are the registered alternative. Interval limits for the mean difference are
the standardized limits times the observed SD of the differences (a plug-in, noted on each value).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from prereg.seqdesign import CALIBRATION_STREAM, Design


@dataclass(frozen=True)
class Observed:
    """A contrast's outcome: the look it stopped at (1-based) and its paired statistic there."""
    look: int
    t: float            # signed so that positive is the alternative's direction
    mean_diff: float    # in the alternative's direction too
    sd_diff: float
    n: int


def _paths(d: Design):
    from prereg.sequential_sim import draws

    p = d.plan
    return draws(p.looks, p.draws, [p.rng_seed, CALIBRATION_STREAM])  # the draws the boundaries spent


def _upper_tail(dr, d: Design, obs: Observed, effect: float) -> float:
    """P_effect(stop for efficacy upward before obs.look, or reach it with T >= t_obs)."""
    T = dr.t(effect)
    alive = np.ones(T.shape[0], bool)
    total = 0
    for k in range(obs.look - 1):
        v = T[:, k]
        up = alive & (v >= d.t_upper[k])
        total += up.sum()
        lo = alive & (v <= -d.t_upper[k]) if d.plan.sides == 2 else np.zeros_like(up)
        alive &= ~(up | lo)
        if d.plan.spec.futility == "binding":
            inner = np.abs(v) < d.t_futility[k] if d.plan.sides == 2 else v < d.t_futility[k]
            alive &= ~inner
    total += (alive & (T[:, obs.look - 1] >= obs.t)).sum()
    return total / T.shape[0]


def stagewise_p(d: Design, obs: Observed, dr=None) -> float:
    """Stage-wise ordering p-value: P_0(stop for efficacy at an earlier look) + P_0(reach this look
    with a statistic at least as extreme), |T| for a two-sided design.

    With ``t_calibrated`` boundaries the first term is the registered alpha spent before the look
    (the boundaries spend exactly that on these draws) and the second comes from the same draws, so
    p <= alpha exactly when the boundary rejected; at the first look p is the exact paired-t p.

    Args:
        d: the registered design.
        obs: the outcome.
    Returns:
        the adjusted p-value.
    """
    from scipy import stats

    two = d.plan.sides == 2
    if obs.look == 1:
        one = float(stats.t.sf(abs(obs.t) if two else obs.t, obs.n - 1))
        return min(1.0, 2 * one) if two else one
    dr = dr or _paths(d)
    T = dr.t(0.0)
    alive, early = np.ones(T.shape[0], bool), 0
    for k in range(obs.look - 1):
        v = np.abs(T[:, k]) if two else T[:, k]
        hit = alive & (v >= d.t_upper[k])
        early += hit.sum()
        alive &= ~hit
        if d.plan.spec.futility == "binding":
            alive &= ~(v < d.t_futility[k])
    v = np.abs(T[:, obs.look - 1]) if two else T[:, obs.look - 1]
    last = (alive & (v >= (abs(obs.t) if two else obs.t))).sum() / T.shape[0]
    before = d.z.alpha_spent[obs.look - 2] if d.plan.small_sample == "t_calibrated" else early / T.shape[0]
    return float(min(1.0, before + last))


def _solve(fn, target: float) -> float | None:
    """Standardized effect where the increasing function ``fn`` crosses ``target`` (bisection)."""
    lo, hi = -64.0, 64.0
    while fn(hi) < target and hi < 1e6:  # a huge observed t (a tiny SD at a handful of seeds)
        lo, hi = hi, hi * 4
    while fn(lo) > target and lo > -1e6:
        lo, hi = lo * 4, lo
    if fn(lo) > target or fn(hi) < target:
        return None
    for _ in range(200):
        mid = (lo + hi) / 2
        if fn(mid) < target:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-7 * max(1.0, abs(lo)):
            break
    return (lo + hi) / 2


def stagewise_interval(d: Design, obs: Observed, level: float, dr=None) -> tuple[float | None, float | None]:
    """Stage-wise ordering confidence limits for the mean difference (alternative's direction)."""
    dr = dr or _paths(d)

    def f(e):
        return _upper_tail(dr, d, obs, e)

    lo, hi = _solve(f, (1 - level) / 2), _solve(f, (1 + level) / 2)
    scale = obs.sd_diff
    return (None if lo is None else lo * scale, None if hi is None else hi * scale)


def median_unbiased(d: Design, obs: Observed, dr=None) -> float | None:
    """The effect under which the observed outcome is the median of the stage-wise ordering."""
    dr = dr or _paths(d)
    e = _solve(lambda x: _upper_tail(dr, d, obs, x), 0.5)
    return None if e is None else e * obs.sd_diff


def repeated_interval(d: Design, obs: Observed, level: float) -> tuple[float, float]:
    """Repeated confidence interval at the stopping look: mean +- c_k(level) x SE.

    ``c_k`` is the look's t boundary of the same design at alpha = 1 - level (two-sided), so the
    intervals of every look cover simultaneously with probability ``level``.
    """
    from dataclasses import replace

    from prereg.seqdesign import design

    dl = design(replace(d.plan, alpha=1 - level, sides=2))
    c = dl.t_upper[obs.look - 1]
    se = obs.sd_diff / math.sqrt(obs.n)
    return (obs.mean_diff - c * se, obs.mean_diff + c * se)


def stop_look(entries: list[dict], lock_hash: str, cid: str, k_max: int) -> int:
    """The look at which the sealed looks log stopped contrast ``cid`` (the final look if none did)."""
    from prereg import looks as lk

    for k, rec in sorted(lk.interims(entries, lock_hash).items()):
        c = rec.contrasts.get(cid)
        if c is not None and c.decision != lk.CONTINUE:
            return c.look if c.look is not None else k
    return k_max


def observed(lock, data, d: Design, contrast, look: int) -> Observed | None:
    """The contrast's paired statistic over the first n_look registered seeds (None if runs are missing)."""
    from stats.interim import paired_stat

    metric = lock.study.analysis.primary_metric
    seeds = list(lock.study.seeds[: d.plan.looks[look - 1]])
    xs, ys = [], []
    for s in seeds:
        a, b = data.units.get((contrast.arm, s)), data.units.get((contrast.baseline, s))
        if a is None or b is None or a.metrics.get(metric) is None or b.metrics.get(metric) is None:
            return None
        xs.append(a.metrics[metric])
        ys.append(b.metrics[metric])
    st = paired_stat(np.array(xs), np.array(ys))
    if st.t is None:
        return None
    sign = d.plan.direction
    return Observed(look, st.t * sign, st.mean_diff * sign, st.sd_diff, st.n)
