"""What the audit's report readers take from the lock, read once and tolerantly.

The audit reads a lock that may fail its schema (check 1 reports that; every other check still
runs), so it cannot use the strict :class:`prereg.study.Study`, which is ``None`` for such a lock.
Before this module each report reader (claims, sources, words) dug into the raw preregistration
with its own ``.get(...) or {}`` chain, its own default primary metric and its own list of
exceptions to swallow. :func:`lock_view` is the one tolerant reading: a field that is missing or
of the wrong type reads as empty (or the plan's documented default), never as an exception.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from prereg.declarations import ArmDecl, MetricDecl, arm_decls, contrast_decls, metric_decls
from prereg.rules import study_seeds

DEFAULT_PRIMARY = "heldout_accuracy"   # the plan's primary metric when a broken lock names none
DEFAULT_ALPHA = 0.05                   # multiplicity.alpha's schema default


def _get(d: Any, *path: str) -> Any:
    """``d[path[0]][path[1]]...``, or None when a step is missing or not an object."""
    for key in path:
        if not isinstance(d, dict):
            return None
        d = d.get(key)
    return d


@dataclass(frozen=True)
class LockView:
    """The lock's preregistration as the report readers need it; empty for a lock without one.

    Example:
        >>> v = lock_view({"arms": {"grpo": {}, "gspo": {"labels": ["GSPO"]}}, "seeds": [1, 2],
        ...                "baseline_arm": "grpo", "analysis": {"primary_metric": "acc"}})
        >>> v.arms, v.seeds, v.baseline, v.primary_metric, v.alpha, v.labels
        (('grpo', 'gspo'), (1, 2), 'grpo', 'acc', 0.05, {'GSPO': 'gspo'})
        >>> lock_view({"arms": [1], "seeds": 3}).arms, lock_view(None).present
        ((), False)
    """

    present: bool = False                      # the lock holds a non-empty preregistration object
    arms: tuple[str, ...] = ()                 # in lock order
    seeds: tuple = ()                          # as written (check 1 reports a non-integer)
    baseline_arm: str | None = None
    baseline: str = ""                         # the contrasts' baseline, else baseline_arm
    hypotheses: int = 0
    heldout_n: Any = None
    task: Any = None
    primary_metric: str = DEFAULT_PRIMARY
    alpha: Any = DEFAULT_ALPHA
    resamples: int | None = None
    rng_seed: Any = None                       # as written: the analysis check compares each value's seed to it
    power_method: str | None = None            # analysis.power.method
    multiplicity_method: str | None = None     # analysis.multiplicity.method (None: not written)
    family: tuple[str, ...] = ()               # analysis.multiplicity.family
    verdict_names: frozenset = frozenset()     # the verdicts the plan's rules can give
    arm_decls: Mapping[str, ArmDecl] = field(default_factory=dict)      # empty when unreadable
    metric_decls: Mapping[str, MetricDecl] = field(default_factory=dict)  # empty when unreadable
    declared_max: frozenset = frozenset()      # every ``metrics.X.max`` the plan writes as a number
    pairs: frozenset = frozenset()             # the declared contrasts as (arm, baseline); empty when unreadable
    stack_pins: Mapping[str, Any] = field(default_factory=dict)
    raw: Mapping[str, Any] = field(default_factory=dict)  # the preregistration (lock.* source ids walk it)

    @property
    def labels(self) -> dict[str, str]:
        """Display label -> arm for every declared ``arms.X.labels`` entry."""
        return {lab: d.name for d in self.arm_decls.values() for lab in d.labels}


def lock_view(prereg: Any) -> LockView:
    """Read ``prereg`` (a lock's ``preregistration``, schema-valid or not) into a :class:`LockView`.

    Args:
        prereg: the preregistration object, or anything else a broken lock holds there.

    Returns:
        The view; fields the document lacks or mistypes are empty or their defaults.
    """
    if not isinstance(prereg, dict) or not prereg:
        return LockView()
    plan = prereg.get("analysis") if isinstance(prereg.get("analysis"), dict) else {}
    arms = prereg.get("arms") if isinstance(prereg.get("arms"), dict) else {}
    seeds = list(study_seeds(prereg))
    rules = plan.get("verdicts") if isinstance(plan.get("verdicts"), list) else []
    resamples = plan.get("resamples")
    metrics = prereg.get("metrics") if isinstance(prereg.get("metrics"), dict) else {}
    return LockView(
        present=True, arms=tuple(arms), seeds=tuple(seeds), baseline_arm=prereg.get("baseline_arm"),
        baseline=_get(plan, "contrasts", "baseline") or prereg.get("baseline_arm") or "",
        hypotheses=len(prereg.get("hypotheses") or []) if isinstance(prereg.get("hypotheses"), list) else 0,
        heldout_n=_get(prereg, "dataset", "heldout_n"), task=_get(prereg, "task", "name"),
        primary_metric=plan.get("primary_metric", DEFAULT_PRIMARY),
        alpha=(_get(plan, "multiplicity", "alpha") if _get(plan, "multiplicity", "alpha") is not None
               else DEFAULT_ALPHA),
        resamples=resamples if isinstance(resamples, int) else None, rng_seed=plan.get("rng_seed"),
        power_method=_get(plan, "power", "method"), multiplicity_method=_get(plan, "multiplicity", "method"),
        family=tuple(family) if isinstance(family := _get(plan, "multiplicity", "family"), list) else (),
        verdict_names=frozenset(r.get("verdict") for r in rules if isinstance(r, dict) and r.get("verdict")),
        arm_decls=_tolerant(arm_decls, prereg) if arms else {},
        metric_decls=_tolerant(metric_decls, prereg) if plan else {},
        declared_max=frozenset(float(d["max"]) for d in metrics.values()
                               if isinstance(d, dict) and type(d.get("max")) in (int, float)),
        pairs=frozenset(_tolerant(lambda p: {(c.arm, c.baseline): 1 for c in contrast_decls(p)}, prereg)) if plan else frozenset(),
        stack_pins=prereg.get("stack_pins") if isinstance(prereg.get("stack_pins"), dict) else {},
        raw=prereg)


def _tolerant(read, prereg: dict) -> dict:
    """``read(prereg)`` (the declarations' strict reader), or empty for a document it cannot read."""
    try:
        return read(prereg)
    except (KeyError, TypeError, ValueError, AttributeError):
        return {}
