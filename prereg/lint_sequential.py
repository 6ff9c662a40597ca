"""Lint rules for a group-sequential design (README failure 19); registered from prereg.lint."""

from __future__ import annotations

from prereg.lint import Finding, rule
from prereg.study import Study


@rule("sequential-plan")
def sequential_plan(s: Study) -> list[Finding]:
    """A sequential plan the design, the interim analysis or the runner would refuse."""
    if s.analysis.sequential is None:
        return []
    from prereg.seqdesign import check, plan_of

    return [Finding("sequential-plan", path, msg) for path, msg in check(s, plan_of(s))]


@rule("sequential-underpowered")
def sequential_underpowered(s: Study) -> list[Finding]:
    """Power of the sequential design (simulated paired t, from the pilot SD) below the power target."""
    a = s.analysis
    if a.sequential is None or a.power is None or not a.power.pilot_sd:
        return []
    from prereg.seqdesign import check, design, operating, plan_of

    plan = plan_of(s)
    if check(s, plan) or plan.drift is None:
        return []
    oc = operating(design(plan))
    target = a.power.target
    if oc.power >= target:
        return []
    return [Finding("sequential-underpowered", "$.analysis.sequential",
                    f"the sequential design has power {oc.power:.2f} (fixed design at {plan.looks[-1]} seeds: "
                    f"{oc.fixed_power:.2f}) for effect {plan.effect:g} at pilot SD {plan.sd:g}, alpha "
                    f"{plan.alpha:.4g} per contrast; the target is {target:g} (`prereg design` shows the looks)")]
