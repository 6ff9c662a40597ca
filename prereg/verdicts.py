"""Verdicts from the plan's ordered rules: the first rule whose conditions all hold wins.

A rule with an empty ``when`` always holds (the fallback). The rule lives in ``prereg`` (pure Python,
no dependencies) because both ``stats`` (which applies it) and ``prereg lint`` (which scans a
plan's rules for asymmetric or dead verdicts before any run) read it: one rule in one place,
and ``prereg`` stays the root of the dependency graph. A condition whose input is
undefined (no interval at that level, a null value) does not hold, and says why.
"""

from __future__ import annotations

from dataclasses import dataclass

from prereg.rules import same_level


@dataclass
class ContrastFacts:
    """What the conditions of one contrast may look at."""

    intervals: dict[float, tuple[float | None, float | None]]  # level -> (low, high)
    p: float | None
    reject: bool
    mde: float | None
    tost_p: float | None
    margin: float | None
    alpha: float
    published_effect: float | None
    mde_note: str | None = None  # why the MDE is undefined, quoted in the verdict trail
    p_note: str | None = None  # why the planned p is undefined
    # "unadjusted": a secondary-metric contrast outside the multiplicity family; multiplicity_rejects
    # is then decided by the unadjusted planned p < alpha and says so in the trail
    reject_basis: str | None = None
    margin_note: str | None = None  # why no equivalence margin applies (e.g. a secondary metric in other units)
    noninferiority_p: float | None = None  # one-sided paired t p of H0: difference <= -noninferiority_margin


def _ci(f: ContrastFacts, level):
    if level is None:
        level = max(f.intervals) if f.intervals else None
    for lv, iv in f.intervals.items():
        if level is not None and same_level(lv, level):
            return lv, iv
    return level, None


def check(cond: dict, f: ContrastFacts) -> tuple[bool, str]:
    """Whether one condition of a verdict rule holds for a contrast, and why, in words.

    Args:
        cond: one ``when`` entry of ``analysis.verdicts`` (``check`` plus its level/value/fraction).
        f: the contrast's facts.

    Returns:
        (holds, the reason); an unknown check never holds.

    Example:
        ``check({"check": "lower_above", "level": 0.95, "value": 0}, facts)`` -> ``(True, "lower 0.012 > 0")``
    """
    kind = cond["check"]
    if kind in _INTERVAL_CHECKS:
        return _interval_check(kind, cond, f)
    fn = _CHECKS.get(kind)
    return fn(cond, f) if fn is not None else (False, f"unknown check {kind!r}")


_INTERVAL_CHECKS = ("upper_below", "lower_above", "interval_within_margin", "lower_reaches_fraction_of_published")


def _interval_check(kind: str, cond: dict, f: ContrastFacts) -> tuple[bool, str]:
    """Conditions on the planned contrast interval at the condition's level."""
    lv, iv = _ci(f, cond.get("level"))
    if iv is None:
        return False, f"no planned contrast interval at level {lv}"
    lo, hi = iv
    if lo is None or hi is None:
        return False, f"the {lv:g} interval is undefined"
    if kind == "upper_below":
        v = cond.get("value", 0.0)
        return hi < v, f"upper {hi:.6g} {'<' if hi < v else '>='} {v:g}"
    if kind == "lower_above":
        v = cond.get("value", 0.0)
        return lo > v, f"lower {lo:.6g} {'>' if lo > v else '<='} {v:g}"
    if kind == "interval_within_margin":
        if f.margin is None:
            return False, f.margin_note or "no equivalence_margin in the plan"
        ok = -f.margin < lo and hi < f.margin
        return ok, f"[{lo:.6g}, {hi:.6g}] {'within' if ok else 'not within'} (-{f.margin:g}, {f.margin:g})"
    if f.published_effect is None:
        return False, "no published effect for this contrast"
    frac = cond.get("fraction", 1.0)
    target = frac * f.published_effect
    if f.published_effect >= 0:
        return lo >= target, f"lower {lo:.6g} {'>=' if lo >= target else '<'} {frac:g} x published {f.published_effect:g}"
    return hi <= target, f"upper {hi:.6g} {'<=' if hi <= target else '>'} {frac:g} x published {f.published_effect:g}"


def _mde_at_most_margin(cond: dict, f: ContrastFacts) -> tuple[bool, str]:
    if f.margin is None:
        return False, f.margin_note or "no equivalence_margin in the plan"
    if f.mde is None:
        return False, "MDE undefined" + (f" ({f.mde_note})" if f.mde_note else "")
    return f.mde <= f.margin, f"MDE {f.mde:.6g} {'<=' if f.mde <= f.margin else '>'} margin {f.margin:g}"


def _multiplicity_rejects(cond: dict, f: ContrastFacts) -> tuple[bool, str]:
    """Rejected after the family's adjustment; a secondary metric (outside the family) by its unadjusted p."""
    if f.reject_basis == "unadjusted":
        why = "secondary metric: not in the multiplicity family, no adjustment applied"
        if f.p is None:
            return False, "planned test p undefined" + (f" ({f.p_note})" if f.p_note else "") + f"; not rejected ({why})"
        ok = f.p < f.alpha
        return ok, f"unadjusted p {f.p:.6g} {'<' if ok else '>='} alpha {f.alpha:g} ({why})"
    if f.p is None:
        return False, ("planned test p undefined" + (f" ({f.p_note})" if f.p_note else "")
                       + "; counted as p = 1 in the family: not rejected")
    return f.reject, "rejected after multiplicity adjustment" if f.reject else "not rejected after adjustment"


def _published_effect_exists(cond: dict, f: ContrastFacts) -> tuple[bool, str]:
    return f.published_effect is not None, ("published effect " + (f"{f.published_effect:g}" if f.published_effect is not None else "absent"))


def _tost_equivalent(cond: dict, f: ContrastFacts) -> tuple[bool, str]:
    alpha = cond.get("value", f.alpha)
    if f.tost_p is None:
        return False, "TOST undefined"
    return f.tost_p < alpha, f"TOST p {f.tost_p:.6g} {'<' if f.tost_p < alpha else '>='} {alpha:g}"


def _noninferior(cond: dict, f: ContrastFacts) -> tuple[bool, str]:
    alpha = cond.get("value", f.alpha)
    if f.noninferiority_p is None:
        return False, "non-inferiority test undefined (no noninferiority_margin, or fewer than two pairs)"
    ok = f.noninferiority_p < alpha
    return ok, f"non-inferiority p {f.noninferiority_p:.6g} {'<' if ok else '>='} {alpha:g}"


def _p_below(cond: dict, f: ContrastFacts) -> tuple[bool, str]:
    v = cond.get("value", f.alpha)
    if f.p is None:
        return False, "p undefined" + (f" ({f.p_note})" if f.p_note else "")
    return f.p < v, f"p {f.p:.6g} {'<' if f.p < v else '>='} {v:g}"


_CHECKS = {"mde_at_most_margin": _mde_at_most_margin, "multiplicity_rejects": _multiplicity_rejects,
           "published_effect_exists": _published_effect_exists, "tost_equivalent": _tost_equivalent,
           "noninferior": _noninferior, "p_below": _p_below}


def evaluate(rules: list[dict], facts: ContrastFacts) -> dict:
    """``{"verdict", "rule", "checks"}``; ``rule`` is the 0-based index in ``analysis.verdicts``."""
    trail = []
    for i, rule in enumerate(rules):
        results = []
        for cond in rule["when"]:
            ok, why = check(cond, facts)
            results.append({"check": cond["check"], "met": bool(ok), "detail": why})
        trail.append({"rule": i, "verdict": rule["verdict"], "checks": results})
        if all(r["met"] for r in results):
            return {"verdict": rule["verdict"], "rule": i, "trail": trail}
    return {"verdict": None, "rule": None, "trail": trail,
            "note": "no rule held and the plan has no fallback rule (empty 'when')"}
