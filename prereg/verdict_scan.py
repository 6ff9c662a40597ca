"""Evaluate a plan's verdict rules on hypothetical results and their mirror images.

Why: a rule set is judged by what it would conclude, which is hard to see from the rules.
E1's rules, for instance, call a small significant negative effect REVERSES but its mirror
image DISAPPEARS (the equivalence rule sits between the two directional ones), and a
RETAINS rule that needs a published effect can never fire when no hypothesis declares one.
The scan builds, for a grid of mean differences and standard errors at the registered
number of seeds, exactly the facts ``prereg.verdicts`` reads (t intervals at the planned
levels, the planned test's p, the MDE, TOST p), evaluates the rules, and reports the
asymmetric pairs and the rules that never fired.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from prereg.study import AnalysisPlan, Study, VerdictRule, study_of

MEANS = (0.0, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9, 1.2, 1.6, 2.5, 4.0, 8.0)
SES = (0.01, 0.05, 0.1, 0.2, 0.4, 0.8, 1.6)


@dataclass(frozen=True)
class Outcome:
    mean: float
    se: float
    published: float | None
    rule: int | None
    verdict: str | None


def _direction(rule: VerdictRule, published: float | None) -> int:
    """+1 / -1 when the rule asserts a positive / negative effect, 0 when it asserts no direction."""
    d = 0
    for c in rule.when:
        value = 0.0 if c.value is None else c.value
        if c.check == "lower_above" and value >= 0:
            d = 1
        elif c.check == "upper_below" and value <= 0:
            d = -1
        elif c.check == "lower_reaches_fraction_of_published" and published:
            d = 1 if published > 0 else -1
    return d


def _constants(plan: AnalysisPlan, n: int) -> dict:
    """What the facts need that does not depend on the scenario: t quantiles per level, the MDE in SDs."""
    from scipy import stats

    from prereg import power as pw

    q = {lv: float(stats.t.ppf(0.5 + lv / 2, n - 1)) for lv in {iv.level for iv in plan.intervals}}
    alt = plan.alternative
    mde_d = None
    if plan.power is not None:
        pp = plan.power
        mde_d = pw.mde(1.0, n, pp.alpha, pp.target, alt, design="paired", method=pp.method)
    return {"q": q, "alt": alt, "mde_d": mde_d, "df": n - 1, "n": n}


def _facts(plan: AnalysisPlan, k: dict, mean: float, se: float, published: float | None):
    from scipy.special import stdtr

    from prereg.verdicts import ContrastFacts

    df = k["df"]
    ints = {lv: (mean - q * se, mean + q * se) for lv, q in k["q"].items()}
    t = mean / se
    p = {"greater": stdtr(df, -t), "less": stdtr(df, t)}.get(k["alt"], 2 * stdtr(df, -abs(t)))
    alpha = plan.multiplicity.alpha
    mde = None if k["mde_d"] is None else k["mde_d"] * se * k["n"] ** 0.5
    margin = plan.equivalence_margin
    tost = None if margin is None else max(stdtr(df, -(mean + margin) / se), stdtr(df, (mean - margin) / se))
    ni_margin = plan.noninferiority_margin
    ni = None if ni_margin is None else float(stdtr(df, -(mean + ni_margin) / se))
    return ContrastFacts(intervals=ints, p=float(p), reject=bool(p < alpha), mde=mde,
                         tost_p=None if tost is None else float(tost), margin=margin, alpha=alpha,
                         published_effect=published, noninferiority_p=ni)


def _study(plan: Study | Mapping) -> Study:
    return plan if isinstance(plan, Study) else study_of(plan)


def scan(prereg: Study | Mapping, scale: float | None = None) -> list[tuple[Outcome, Outcome]]:
    """(result, mirror) outcome pairs over the grid, for every distinct published effect.

    Args:
        prereg: the typed :class:`prereg.study.Study` (or a schema-valid preregistration, parsed here).
        scale: metric scale of the grid (default: the equivalence margin, else the pilot SD, else 1).

    Returns:
        Pairs of outcomes for (mean, se) and (-mean, se) with the published effect mirrored too.

    Example:
        ``pairs = scan(json.load(open("examples/e1.json")))``
    """
    from prereg.verdicts import evaluate

    study = _study(prereg)
    plan = study.analysis
    n = max(2, len(study.seeds))
    u = scale or plan.equivalence_margin or (plan.power.pilot_sd if plan.power is not None else None) or 1.0
    pubs = sorted({h.published_effect for h in study.hypotheses}, key=lambda x: (x is None, x or 0))
    k = _constants(plan, n)
    out = []
    for pub in pubs or [None]:
        for m in MEANS:
            for s in SES:
                pair = []
                for sign in (1, -1):
                    pe = None if pub is None else sign * pub
                    r = evaluate(plan.verdicts, _facts(plan, k, sign * m * u, s * u, pe))
                    pair.append(Outcome(sign * m * u, s * u, pe, r["rule"], r["verdict"]))
                out.append((pair[0], pair[1]))
    return out


def asymmetric(prereg: Study | Mapping, pairs) -> list[tuple[Outcome, Outcome]]:
    """Pairs whose verdicts are not mirror images (directions d and -d, same rule when undirected)."""
    rules = _study(prereg).analysis.verdict_rules
    bad = []
    for a, b in pairs:
        if a.rule is None or b.rule is None:
            continue
        da, db = _direction(rules[a.rule], a.published), _direction(rules[b.rule], b.published)
        if da != -db or (da == 0 and a.rule != b.rule):
            bad.append((a, b))
    return bad


def never_fired(prereg: Study | Mapping, pairs) -> list[int]:
    """Indices of rules that no outcome of the scan reached."""
    fired = {o.rule for pair in pairs for o in pair}
    return [i for i in range(len(_study(prereg).analysis.verdict_rules)) if i not in fired]
