"""The sequential design a preregistration fixes: looks, spending, boundaries on the t scale.

Why: ``prereg design``, the lint, ``stats interim``, the runner's look gate and the audit must
all see the same boundaries (README failure 19), so they are computed here from the lock and
nowhere else. ``analysis.sequential`` applies to every confirmatory contrast of the
multiplicity family; each contrast's design spends ``alpha / m`` (Bonferroni split of the
family's alpha over its m contrasts, ``alpha`` when the method is ``none``), so the family-wise
error stays controlled whatever each contrast's stopping time.

The small-sample correction moves the normal-theory boundaries to the paired-t scale:
``t_calibrated`` (default) spends the registered alpha increments on a seeded simulation of the
joint law of the look t statistics under H0 (scale-free, so exact up to Monte-Carlo error);
``t_tail`` converts each boundary to the t quantile of equal tail probability with n_k - 1 df;
``none`` uses the normal boundaries as they are (wrong at 3-8 seeds: benchmarks/sequential_sim.py).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

from prereg.errors import UserError
from prereg.sequential import Boundaries, Spec, spending_boundaries
from prereg.study import SEQUENTIAL_DRAWS, Study

SMALL_SAMPLE = ("t_calibrated", "t_tail", "none")
DEFAULT_DRAWS = SEQUENTIAL_DRAWS  # the one default, kept in prereg.study
CALIBRATION_STREAM = 1701   # rng streams: [rng_seed, stream]
H0_STREAM, H1_STREAM = 1702, 1703


@dataclass(frozen=True)
class SequentialPlan:
    """``analysis.sequential`` read once, with what it inherits from the rest of the plan."""
    looks: tuple[int, ...]
    spec: Spec
    small_sample: str
    draws: int
    inference: str
    alpha: float          # per contrast (two-sided total when sides == 2)
    sides: int
    direction: int        # +1: larger is the alternative (or two-sided); -1: smaller
    rng_seed: int
    contrasts: tuple[str, ...]
    effect: float | None
    sd: float | None

    @property
    def fractions(self) -> tuple[float, ...]:
        return tuple(n / self.looks[-1] for n in self.looks)

    @property
    def drift(self) -> float | None:
        """E[Z_K] under the pilot effect: effect / sd * sqrt(n_K) for a paired t over seeds."""
        if not self.effect or not self.sd:
            return None
        return self.effect / self.sd * math.sqrt(self.looks[-1])


def plan_of(study: Study) -> SequentialPlan | None:
    """The study's sequential plan, or None for a fixed design.

    Args:
        study: the typed preregistration (:func:`prereg.study.study_of`).
    Returns:
        :class:`SequentialPlan` or None.
    Example:
        >>> from prereg.study import study_of
        >>> from prereg.cli import template_bytes
        >>> import json
        >>> plan_of(study_of(json.loads(template_bytes("demo")))) is None
        True
    """
    a = study.analysis
    s = a.sequential
    if s is None:
        return None
    fam = [c.id for c in study.contrasts if c.confirmatory and c.in_family]
    mult = a.multiplicity
    alpha = mult.alpha / (1 if mult.method == "none" else max(1, len(fam)))
    spec = Spec(s.spending, s.gamma, s.futility, s.beta, s.beta_spending, s.beta_gamma)
    return SequentialPlan(s.looks, spec, s.small_sample, s.calibration_draws, s.inference,
                          alpha, 2 if a.alternative == "two-sided" else 1, -1 if a.alternative == "less" else 1,
                          a.rng_seed, tuple(fam), a.effect_of_interest, a.power.pilot_sd if a.power else None)


def check(study: Study, plan: SequentialPlan) -> list[tuple[str, str]]:
    """What makes a sequential plan unusable, as (path, message) pairs (lint and design refuse these)."""
    from prereg.crossfield import sequential_errors

    where = "$.analysis.sequential"
    out = [tuple(e.split(": ", 1)) for e in sequential_errors(study.raw)]
    a = study.analysis
    if a.test != "paired_t" or a.unit != "seed":
        out.append(("$.analysis.contrasts.test", "a sequential design monitors the paired t over seeds "
                                                 "(contrasts.test paired_t, unit seed)"))
    if plan.spec.futility != "none" and plan.drift is None:
        out.append((f"{where}.futility", "beta-spending futility needs analysis.power.pilot_sd and an effect "
                                         "(analysis.power.effect or equivalence_margin)"))
    if not plan.contrasts:
        out.append(("$.analysis.multiplicity.family", "no confirmatory contrast in the family to monitor"))
    return out


def require_usable(study: Study) -> SequentialPlan:
    """The plan, or a one-line UserError naming the first problem."""
    plan = plan_of(study)
    if plan is None:
        raise UserError("analysis.sequential: this preregistration has a fixed design (no looks registered)")
    problems = check(study, plan)
    if problems:
        raise UserError(f"{problems[0][0]}: {problems[0][1]}")
    return plan


@dataclass(frozen=True)
class Design:
    """Boundaries of one monitored contrast, on the Z scale and on the paired-t scale."""
    plan: SequentialPlan
    z: Boundaries
    t_upper: tuple[float, ...]
    t_futility: tuple[float, ...]

    def increments(self) -> list[float]:
        spent = (0.0,) + self.z.alpha_spent
        return [b - a for a, b in zip(spent[:-1], spent[1:], strict=True)]


@functools.lru_cache(maxsize=256)
def design(plan: SequentialPlan) -> Design:
    """Solve the boundaries of a sequential plan (deterministic: seeded from the plan's rng_seed).

    A pure function of the frozen plan, hence cached: lint, ``stats interim``, the analysis, the
    render and the audit's looks check each solve the same study's design (the t_calibrated
    correction simulates thousands of studies per solve).

    Args:
        plan: from :func:`plan_of`.
    Returns:
        :class:`Design`.
    Example:
        >>> p = SequentialPlan((4, 8), Spec(), "t_tail", 1000, "stagewise", 0.05, 2, 1, 0, ("a-b",), None, None)
        >>> [round(x, 3) for x in design(p).t_upper]
        [8.84, 2.378]
    """
    from prereg.sequential_sim import calibrate, t_boundaries

    z = spending_boundaries(plan.fractions, plan.alpha, plan.spec, plan.sides, plan.drift)
    tf = tuple(float(x) for x in t_boundaries(z.futility, plan.looks, "none" if plan.small_sample == "none"
                                              else "t_tail"))
    if plan.small_sample == "t_calibrated":
        spent = (0.0,) + z.alpha_spent
        inc = [y - x for x, y in zip(spent[:-1], spent[1:], strict=True)]
        tu = calibrate(plan.looks, inc, tf, sides=plan.sides,
                       binding=plan.spec.futility == "binding", reps=plan.draws,
                       seed=[plan.rng_seed, CALIBRATION_STREAM])
    else:
        tu = t_boundaries(z.upper, plan.looks, "none" if plan.small_sample == "none" else "t_tail")
    return Design(plan, z, tuple(float(x) for x in tu), tf)


@dataclass(frozen=True)
class Operating:
    """Operating characteristics of a design: simulated paired-t studies, next to the fixed design.

    ``stop_h0``/``stop_h1`` are per-look stopping probabilities; ``power`` is the probability of
    rejecting in the registered direction at the pilot effect (None without a pilot); ``fixed_power``
    the exact noncentral-t power of testing once at all seeds at the same alpha.
    """
    reps: int
    level: float
    stop_h0: tuple[float, ...]
    seeds_h0: float
    power: float | None = None
    power_normal: float | None = None
    stop_h1: tuple[float, ...] | None = None
    seeds_h1: float | None = None
    fixed_power: float | None = None


def operating(d: Design, reps: int | None = None) -> Operating:
    """Level, power and expected seeds of a design by seeded simulation (streams H0/H1 of rng_seed).

    Args:
        d: a solved :class:`Design`.
        reps: simulated studies (default: the plan's calibration draws).
    Returns:
        :class:`Operating`.
    """
    from prereg import power as pw
    from prereg.sequential import exit_probabilities
    from prereg.sequential_sim import simulate

    p = d.plan
    reps = reps or p.draws
    h0 = simulate(p.looks, d.t_upper, d.t_futility, sides=p.sides, reps=reps, seed=[p.rng_seed, H0_STREAM])
    if p.drift is None:
        return Operating(reps, h0.reject, h0.stop_at, h0.expected_seeds)
    es = p.effect / p.sd
    h1 = simulate(p.looks, d.t_upper, d.t_futility, sides=p.sides, d=es, reps=reps, seed=[p.rng_seed, H1_STREAM])
    normal = exit_probabilities(d.z.t, d.z.upper, d.z.futility, p.sides, p.drift)
    alt = "two-sided" if p.sides == 2 else "greater"
    fixed = pw.power_paired(es, 1.0, p.looks[-1], p.alpha, alt)
    return Operating(reps, h0.reject, h0.stop_at, h0.expected_seeds, h1.reject_upper, sum(normal.upper),
                     h1.stop_at, h1.expected_seeds, fixed)


EFFICACY, FUTILITY_STOP, CONTINUE = "stop_efficacy", "stop_futility", "continue"


def decide(d: Design, look: int, t: float | None) -> str:
    """The registered decision at 1-based ``look`` for a paired t statistic ``t`` (signed so that
    positive is the alternative's direction). The one place the boundary is applied: ``stats
    interim`` takes it and the audit re-takes it from the record.

    Example:
        >>> p = SequentialPlan((4, 8), Spec(), "t_tail", 1000, "stagewise", 0.05, 2, 1, 0, ("a-b",), None, None)
        >>> decide(design(p), 1, 9.5), decide(design(p), 1, 1.0), decide(design(p), 2, 1.0)
        ('stop_efficacy', 'continue', 'stop_futility')
    """
    k, last = look - 1, look == len(d.plan.looks)
    if t is None or not math.isfinite(t):
        return CONTINUE if not last else FUTILITY_STOP
    stat = abs(t) if d.plan.sides == 2 else t
    if stat >= d.t_upper[k]:
        return EFFICACY
    if last:
        return FUTILITY_STOP
    if d.plan.spec.futility != "none" and stat < d.t_futility[k]:
        return FUTILITY_STOP
    return CONTINUE
