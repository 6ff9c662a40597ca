"""Group-sequential boundaries: stop a study at a registered look with its error rates kept.

Why: RL seeds are expensive; a design that looks at 4, then 6, then 8 seeds per arm can stop
when the answer is already clear, but only if the looks and the alpha-spending function were
fixed in advance and the boundaries come from the joint distribution of the look statistics
(README failure 19: peeking). This module is the one place that math lives; ``prereg design``,
the lint, ``stats interim`` and the final inference all call it.

Model (the canonical joint distribution, Jennison & Turnbull 2000, ch. 3): the look statistics
are ``Z_k = S_k / sqrt(t_k)`` where ``S`` is a Brownian motion with drift ``delta`` observed at
information fractions ``t_k = n_k / n_K`` (cumulative seeds per arm). Crossing probabilities are
computed by the Armitage-McPherson-Rowe recursion: the sub-density of ``S_k`` on the
continuation region is propagated look to look by numerical integration (composite Simpson
on each interval of the region), so no probability comes from simulation.

Boundaries are on the Z scale. A two-sided design rejects when ``|Z_k| >= b_k`` and, with
futility, stops for futility when ``|Z_k| < a_k`` (an inner wedge); a one-sided design rejects
when ``Z_k >= b_k`` (Z signed in the alternative's direction) and stops for futility when
``Z_k < a_k``. scipy is imported lazily so that importing this module stays cheap.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from prereg.errors import UserError

SPENDING = ("obrien_fleming", "pocock", "hsd")
CONSTANT = ("pocock_constant", "obrien_fleming_constant")
_Z_CAP = 9.0          # |Z| beyond this carries < 1e-18 probability: the region is cut there
_PER_UNIT = 48        # Simpson intervals per unit of Z: error far below the 3rd decimal
_B_MAX = 40.0


# ----------------------------------------------------------------------------- spending
def spend(fn: str, t: float, alpha: float, gamma: float | None = None) -> float:
    """Cumulative error spent by information fraction ``t`` (Lan & DeMets 1983; Hwang, Shih & DeCani 1990).

    Args:
        fn: ``obrien_fleming`` (Lan-DeMets O'Brien-Fleming type), ``pocock`` (Pocock type) or
            ``hsd`` (Hwang-Shih-DeCani, needs ``gamma``; -4 is OBF-like, 1 Pocock-like).
        t: information fraction in [0, 1].
        alpha: error to spend on one side (a symmetric two-sided design spends alpha/2 on each
            side, as gsDesign and SAS PROC SEQDESIGN do).
        gamma: the HSD parameter.
    Returns:
        alpha(t), rising from 0 at t=0 to ``alpha`` at t=1.
    Example:
        >>> round(spend("pocock", 1.0, 0.05), 6)
        0.05
    """
    from scipy.stats import norm

    if t <= 0:
        return 0.0
    t = min(t, 1.0)
    if fn == "obrien_fleming":
        return float(2.0 * norm.sf(norm.isf(alpha / 2.0) / math.sqrt(t)))
    if fn == "pocock":
        return float(alpha * math.log(1.0 + (math.e - 1.0) * t))
    if fn == "hsd":
        if gamma is None:
            raise UserError("gamma: the hsd spending function needs gamma")
        if abs(gamma) < 1e-12:
            return alpha * t
        return float(alpha * (1.0 - math.exp(-gamma * t)) / (1.0 - math.exp(-gamma)))
    raise UserError(f"spending: {fn!r} is not one of {', '.join(SPENDING + CONSTANT)}")


# ----------------------------------------------------------------------------- recursion
@dataclass(frozen=True)
class _Grid:
    """Sub-density of S_k on the continuation region: nodes (S scale) and weight*density."""
    nodes: np.ndarray
    mass: np.ndarray


_START = _Grid(np.zeros(1), np.ones(1))


def _simpson(lo: float, hi: float) -> tuple[np.ndarray, np.ndarray]:
    m = max(8, 2 * math.ceil((hi - lo) * _PER_UNIT / 2))
    x = np.linspace(lo, hi, m + 1)
    w = np.full(m + 1, 2.0)
    w[1::2] = 4.0
    w[0] = w[-1] = 1.0
    return x, w * (hi - lo) / (3 * m)


def _region(a: float, b: float, sides: int, centre: float) -> list[tuple[float, float]]:
    """Continuation intervals on the Z scale, cut at +-_Z_CAP around 0 and the drift's mean."""
    lo_cap, hi_cap = min(-_Z_CAP, centre - _Z_CAP), max(_Z_CAP, centre + _Z_CAP)
    hi = min(b, hi_cap)
    if sides == 2:
        parts = [(-hi, -a), (a, hi)] if a > 0 else [(-hi, hi)]
        parts = [(max(lo, lo_cap), h) for lo, h in parts]
    else:
        parts = [(max(a, lo_cap), hi)]
    return [(lo, h) for lo, h in parts if h - lo > 1e-12]


def _cdf_rows(prev: _Grid, s: np.ndarray, theta: float, dt: float) -> np.ndarray:
    """P(S_k <= s | S_{k-1} = u) integrated against the previous sub-density, for each s."""
    from scipy.special import ndtr

    sd = math.sqrt(dt)
    z = (s[:, None] - prev.nodes[None, :] - theta * dt) / sd
    return ndtr(z) @ prev.mass


_SQRT_2PI = math.sqrt(2 * math.pi)


def _norm_pdf(z: np.ndarray) -> np.ndarray:
    """The standard normal density, scipy's own formula (``scipy.stats._continuous_distns._norm_pdf``:
    the same bits) without ``norm.pdf``'s argument checks, which cost most of a boundary solve."""
    return np.exp(-z**2 / 2.0) / _SQRT_2PI


def _step(prev: _Grid, t_prev: float, t: float, a: float, b: float, sides: int, theta: float):
    """Exit probabilities at one look and the sub-density carried on.

    Returns:
        (upper, lower, futility, next grid): upper = P(Z_k >= b), lower = P(Z_k <= -b) for a
        two-sided design (else 0), futility = P(Z_k in the futility region), each jointly with
        not having stopped before.
    """
    dt, r = t - t_prev, math.sqrt(t)
    total = float(prev.mass.sum())
    hi = total - _cdf_rows(prev, np.array([b * r]), theta, dt)[0] if b < _B_MAX else 0.0
    lo = _cdf_rows(prev, np.array([-b * r]), theta, dt)[0] if (sides == 2 and b < _B_MAX) else 0.0
    parts = _region(a, b, sides, theta * r)
    inside = 0.0
    nodes, mass = [], []
    for z_lo, z_hi in parts:
        x, w = _simpson(z_lo * r, z_hi * r)
        dens = (_norm_pdf((x[:, None] - prev.nodes[None, :] - theta * dt) / math.sqrt(dt)) @ prev.mass) / math.sqrt(dt)
        nodes.append(x)
        mass.append(w * dens)
        inside += float(_cdf_rows(prev, np.array([z_hi * r]), theta, dt)[0]
                        - _cdf_rows(prev, np.array([z_lo * r]), theta, dt)[0])
    fut = max(0.0, total - max(hi, 0.0) - max(lo, 0.0) - inside)
    grid = _Grid(np.concatenate(nodes), np.concatenate(mass)) if nodes else _Grid(np.zeros(0), np.zeros(0))
    return max(hi, 0.0), max(lo, 0.0), fut, grid


@dataclass(frozen=True)
class Exits:
    """Per-look probabilities of each way of stopping under one drift."""
    upper: tuple[float, ...]
    lower: tuple[float, ...]
    futility: tuple[float, ...]

    @property
    def efficacy(self) -> tuple[float, ...]:
        return tuple(u + v for u, v in zip(self.upper, self.lower, strict=True))

    def stop(self) -> tuple[float, ...]:
        return tuple(e + f for e, f in zip(self.efficacy, self.futility, strict=True))


def exit_probabilities(t, upper, futility, sides: int = 2, drift: float = 0.0) -> Exits:
    """Probability of stopping at each look under drift ``drift`` (E[Z_K] at the last look).

    Args:
        t: increasing information fractions ending at 1.
        upper: efficacy boundaries b_k on the Z scale (``math.inf`` = no efficacy stop).
        futility: futility boundaries a_k (0 two-sided / ``-inf`` one-sided = none).
        sides: 2 for ``|Z| >= b``, 1 for ``Z >= b``.
        drift: ``delta = effect / sd * sqrt(n_K)``, so ``E[Z_k] = delta * sqrt(t_k)``.
    Returns:
        :class:`Exits`.
    Example:
        >>> round(sum(exit_probabilities([1.0], [1.959964], [0.0]).efficacy), 4)
        0.05
    """
    grid, t_prev, ups, los, futs = _START, 0.0, [], [], []
    for tk, b, a in zip(t, upper, futility, strict=True):
        u, lo, f, grid = _step(grid, t_prev, tk, _a(a, sides), min(b, _B_MAX), sides, drift)
        ups.append(u)
        los.append(lo)
        futs.append(f)
        t_prev = tk
    return Exits(tuple(ups), tuple(los), tuple(futs))


def _a(a: float, sides: int) -> float:
    if sides == 2:
        return max(0.0, a)
    return max(a, -_B_MAX)


# ----------------------------------------------------------------------------- designs
@dataclass(frozen=True)
class Boundaries:
    """A solved design: per-look efficacy (b) and futility (a) boundaries on the Z scale.

    ``alpha_spent`` is the cumulative type I error by each look under H0 (with binding
    futility counted only when it is binding); ``beta_spent`` the cumulative futility stopping
    probability under the design drift.
    """
    t: tuple[float, ...]
    upper: tuple[float, ...]
    futility: tuple[float, ...]
    sides: int
    alpha: float
    binding: bool
    alpha_spent: tuple[float, ...]
    beta_spent: tuple[float, ...] | None = None
    beta: float | None = None   # the beta actually spent (capped at the design's own type II error)


def _solve(fn, lo: float, hi: float) -> float:
    from scipy.optimize import brentq

    f_lo, f_hi = fn(lo), fn(hi)
    if f_lo * f_hi > 0:
        return lo if abs(f_lo) < abs(f_hi) else hi
    return float(brentq(fn, lo, hi, xtol=1e-10, rtol=1e-12, maxiter=200))


def constant_boundaries(kind: str, k: int, alpha: float = 0.05, sides: int = 2,
                        t: list[float] | None = None) -> Boundaries:
    """Pocock (1977) constant or O'Brien & Fleming (1979) ``c / sqrt(t_k)`` boundaries.

    Args:
        kind: ``pocock_constant`` or ``obrien_fleming_constant``.
        k: number of looks (equally spaced unless ``t`` is given).
        alpha: total type I error (two-sided total when ``sides`` is 2).
    Returns:
        :class:`Boundaries` whose overall crossing probability under H0 is ``alpha``.
    Example:
        >>> round(constant_boundaries("pocock_constant", 2).upper[0], 3)
        2.178
    """
    tt = _fractions(t or [(i + 1) / k for i in range(k)])
    shape = [1.0] * len(tt) if kind == "pocock_constant" else [1.0 / math.sqrt(x) for x in tt]
    if kind not in CONSTANT:
        raise UserError(f"spending: {kind!r} is not one of {', '.join(CONSTANT)}")
    none = [0.0 if sides == 2 else -math.inf] * len(tt)

    def excess(c: float) -> float:
        return sum(exit_probabilities(tt, [c * s for s in shape], none, sides).efficacy) - alpha

    c = _solve(excess, 0.5, 8.0)
    b = tuple(c * s for s in shape)
    spent = np.cumsum(exit_probabilities(tt, b, none, sides).efficacy)
    return Boundaries(tt, b, tuple(none), sides, alpha, False, tuple(float(x) for x in spent))


def _fractions(t) -> tuple[float, ...]:
    tt = tuple(float(x) for x in t)
    if not tt or any(b <= a for a, b in zip((0.0,) + tt[:-1], tt, strict=True)) or abs(tt[-1] - 1.0) > 1e-12:
        raise UserError(f"looks: information fractions must increase strictly to 1, got {list(tt)}")
    return tt


@dataclass(frozen=True)
class Spec:
    """What a preregistration fixes: how alpha (and beta for futility) is spent."""
    spending: str = "obrien_fleming"
    gamma: float | None = None
    futility: str = "none"
    beta: float = 0.2
    beta_spending: str = "obrien_fleming"
    beta_gamma: float | None = None


def spending_boundaries(t, alpha: float = 0.05, spec: Spec = Spec(), sides: int = 2,
                        drift: float | None = None) -> Boundaries:
    """Lan-DeMets boundaries at the registered information fractions, look by look.

    At look k the efficacy bound solves P_0(first crossing at k) = alpha(t_k) - alpha(t_{k-1}),
    the spending function applied per side (alpha/2 each side of a two-sided design);
    with futility, the bound a_k solves P_drift(first futility stop at k) = beta(t_k) -
    beta(t_{k-1}) (beta-spending, beta capped at the efficacy-only design's own type II error at
    the drift, since the lock fixes the maximum seeds), and the last look has a_K = b_K. Binding futility lets the
    H0 recursion stop at a_k (lower efficacy bounds); non-binding ignores it, so the type I
    error holds even when a futility stop is overruled.

    Args:
        t: information fractions (cumulative seeds / last look's seeds).
        alpha: total type I error (two-sided total when ``sides`` is 2).
        spec: spending functions and futility options.
        drift: ``effect / sd * sqrt(n_K)``; needed only for futility.
    Returns:
        :class:`Boundaries`.
    Example:
        >>> [round(b, 3) for b in spending_boundaries([0.5, 1.0]).upper]
        [2.797, 1.977]
    """
    tt = _fractions(t)
    if spec.spending in CONSTANT:
        return constant_boundaries(spec.spending, len(tt), alpha, sides, list(tt))
    fut = spec.futility != "none"
    if fut and (drift is None or drift == 0):
        raise UserError("futility: beta-spending needs the drift (analysis.power pilot_sd and effect)")
    none_a = 0.0 if sides == 2 else -math.inf
    if fut:
        spec = _capped_beta(tt, alpha, spec, sides, drift)
    g0, gd, t_prev, ups, futs, spent, bspent = _START, _START, 0.0, [], [], [], []
    for k, tk in enumerate(tt):
        last = k == len(tt) - 1
        inc = sides * (spend(spec.spending, tk, alpha / sides, spec.gamma)
                       - spend(spec.spending, t_prev, alpha / sides, spec.gamma))

        def excess(b: float, g=g0, tp=t_prev, tk=tk, inc=inc) -> float:
            u, lo, _, _ = _step(g, tp, tk, _a(none_a, sides), b, sides, 0.0)
            return u + lo - inc

        b = _B_MAX if inc <= 1e-15 else _solve(excess, 0.0, _B_MAX - 1e-9)
        a = none_a
        if fut:
            a = b if last else _futility(gd, t_prev, tk, b, sides, drift, spec, len(bspent) and bspent[-1])
        u0, l0, _, g0_next = _step(g0, t_prev, tk, _a(a if spec.futility == "binding" else none_a, sides),
                                   b, sides, 0.0)
        if fut:
            _, _, f_d, gd = _step(gd, t_prev, tk, _a(a, sides), b, sides, drift)
            bspent.append((bspent[-1] if bspent else 0.0) + f_d)
        g0 = g0_next
        spent.append((spent[-1] if spent else 0.0) + u0 + l0)
        ups.append(b if b < _B_MAX else math.inf)
        futs.append(a)
        t_prev = tk
    return Boundaries(tt, tuple(ups), tuple(futs), sides, alpha, spec.futility == "binding",
                      tuple(spent), tuple(bspent) if fut else None,
                      spec.beta if fut else None)


def _capped_beta(t, alpha: float, spec: Spec, sides: int, drift: float) -> Spec:
    """Spend at most the efficacy-only design's own type II error at the drift.

    With the maximum number of seeds fixed by the lock, spending more beta than the design's
    own type II error would close the continuation region before the last look.
    """
    from dataclasses import replace

    plain = spending_boundaries(t, alpha, replace(spec, futility="none"), sides)
    own = 1.0 - sum(exit_probabilities(t, plain.upper, plain.futility, sides, drift).efficacy)
    return replace(spec, beta=min(spec.beta, max(own, 0.0)))


def _futility(gd: _Grid, t_prev: float, tk: float, b: float, sides: int, drift: float, spec: Spec,
              spent_before: float) -> float:
    """The futility bound at an interim look: P_drift(stop for futility here) = beta increment."""
    target = spend(spec.beta_spending, tk, spec.beta, spec.beta_gamma) - spent_before
    lo = 0.0 if sides == 2 else -_B_MAX

    def excess(a: float) -> float:
        return _step(gd, t_prev, tk, _a(a, sides), b, sides, drift)[2] - target

    if target <= 1e-15:
        return lo if sides == 2 else -math.inf
    a = _solve(excess, lo, min(b, _B_MAX - 1e-9))
    return a if a > -_B_MAX + 1e-6 else -math.inf
