"""Inference pitfalls found before the runs (README failures 17 and 18; issue 13).

Registered into ``prereg.lint.RULES`` when :mod:`prereg.lint` is imported, so
``prereg lint`` warns about a plan that would mislead *before* a GPU-hour is spent:

- ``interval-coverage``: a planned interval that the shipped Monte-Carlo coverage table
  (``stats/coverage_table.json``, read as data through ``prereg.coverage_table.lookup``, the
  reader ``stats analyze``'s warning uses too) shows under-covering at the registered
  number of seeds (percentile / BCa / two-level bootstrap at 3-8 seeds, a median at 3).
- ``item-level-pooled``: an item-level test that pools (seed, item) pairs.
- ``verdict-asymmetric`` / ``verdict-dead-rule``: the verdict rules are evaluated on a
  grid of hypothetical results and their mirror images; a result and its mirror must get
  mirror-image verdicts, and every rule must be able to fire.
- ``bh-confirmatory``: Benjamini-Hochberg (FDR) deciding per-hypothesis confirmatory
  verdicts, which need family-wise error control (Holm).
- ``equivalence-power``: an equivalence verdict without a pilot SD, or whose exact power
  (of the verdict actually applied, TOST or the ad hoc interval-and-MDE rule) is short.
- ``iqm-few-seeds``: an IQM over fewer than 4 seeds (it trims nothing: it is the mean).

Lint stays torch-free: the table is JSON, the verdict evaluator (``prereg.verdicts``) is
pure Python, and the power math is ``prereg.power`` (scipy).
"""

from __future__ import annotations

from prereg import coverage_table as coverage
from prereg.declarations import unit_of
from prereg.lint import EQUIVALENCE_CHECKS, Finding, rule
from prereg.rules import same_level
from prereg.study import Study, VerdictRule


# ----------------------------------------------------------------------------- coverage
@rule("interval-coverage")
def interval_coverage(s: Study) -> list[Finding]:
    a = s.analysis
    n = len(s.seeds)
    unit = unit_of(a.primary_metric, dict(s.metrics))  # the declared unit (README failure 16)
    summary = a.arm_summary
    planned = [("$.analysis.arm_summary.interval", summary.interval, stat, summary.level, False)
               for stat in summary.statistics if stat in ("mean", "median")]
    planned += [(f"$.analysis.contrasts.intervals[{i}]", iv.method, "mean", iv.level, True)
                for i, iv in enumerate(a.intervals)]
    out = []
    for path, method, stat, level, contrast in planned:
        note = coverage.untabulated(level)
        if note:
            out.append(Finding("interval-coverage", path, f"a nominal {level:g} {method} interval for the {stat}"
                               f"{' of the paired difference' if contrast else ''} at {n} seeds: {note}"))
            continue
        hit = coverage.short(method, n, unit, contrast=contrast, stat=stat, level=level)
        if hit is None:
            continue
        cov, tn, shape = hit
        best = coverage.lookup("t", n, shape, stat=stat, level=level)
        alt = f"; the t interval covered {best[0]:.3f} there" if best and method != "t" else ""
        out.append(Finding("interval-coverage", path,
                           f"a nominal {level:g} {method} interval for the {stat}"
                           f"{' of the paired difference' if contrast else ''} covered only {cov:.3f} at n={tn} "
                           f"seeds ({shape} data, `stats coverage`) and {n} seeds are registered{alt}; "
                           "intervals that drive verdicts should hold their level"))
    return out


@rule("item-level-pooled")
def item_level_pooled(s: Study) -> list[Finding]:
    kind = s.analysis.item_level
    if kind not in ("mcnemar", "paired_bootstrap"):
        return []
    rates = ""
    tab = coverage.shipped_table()
    name = "mcnemar_pooled" if kind == "mcnemar" else "item_bootstrap_pooled"
    got = {r.sigma: r.rejection_rate for r in (tab.clustered if tab else ()) if r.method == name}
    if got:
        rates = (" (type I error at nominal 0.05 with seed-to-seed SD of the effect "
                 + ", ".join(f"{s:g}: {v:.3f}" for s, v in sorted(got.items())) + ", `stats coverage --clustered`)")
    return [Finding("item-level-pooled", "$.analysis.contrasts.item_level",
                    f"item-level {kind} pools (seed, item) pairs as if independent{rates}; plan cluster_t or "
                    "crossed_bootstrap, which keep the seeds as clusters (README failure 17)")]


@rule("iqm-few-seeds")
def iqm_few_seeds(s: Study) -> list[Finding]:
    n = len(s.seeds)
    if "iqm" not in s.analysis.arm_summary.statistics or n >= 4:
        return []
    return [Finding("iqm-few-seeds", "$.analysis.arm_summary.statistics",
                    f"IQM over {n} seeds trims nothing (25% of {n} rounds to 0): it is the mean under another name; "
                    "it needs at least 4 seeds")]


# ----------------------------------------------------------------------------- multiplicity
@rule("bh-confirmatory")
def bh_confirmatory(s: Study) -> list[Finding]:
    a = s.analysis
    uses = any("multiplicity_rejects" in v.checks for v in a.verdict_rules)
    if a.multiplicity.method != "bh" or s.evidence_class != "confirmatory" or not uses:
        return []
    return [Finding("bh-confirmatory", "$.analysis.multiplicity.method",
                    "Benjamini-Hochberg controls the false discovery rate, but the verdict rules decide each "
                    "hypothesis separately (multiplicity_rejects) in a confirmatory study, which needs the "
                    "family-wise error rate controlled: use holm")]


# ----------------------------------------------------------------------------- verdict rules
@rule("verdict-asymmetric")
def verdict_asymmetric(s: Study) -> list[Finding]:
    from prereg import verdict_scan as vs

    if s.analysis.alternative != "two-sided":
        return []  # a one-sided plan asks a directional question on purpose
    bad = vs.asymmetric(s, vs.scan(s))
    if not bad:
        return []
    rules = s.analysis.verdict_rules
    a, b = min(bad, key=lambda ab: (abs(ab[0].mean), ab[0].se))
    neg, pos = (a, b) if a.mean < 0 else (b, a)
    return [Finding("verdict-asymmetric", "$.analysis.verdicts",
                    f"mirror-image results get verdicts that are not mirror images: a mean difference of "
                    f"{neg.mean:.3g} (SE {neg.se:.3g}) gets {neg.verdict} (rule {neg.rule}) but {pos.mean:.3g} gets "
                    f"{pos.verdict} (rule {pos.rule}); {len(bad)} such pairs in the scan. Order the rules so a "
                    f"directional rule on one side is matched by one on the other (e.g. {rules[neg.rule].verdict} "
                    "and its opposite both before or both after the equivalence rule)")]


@rule("verdict-dead-rule")
def verdict_dead_rule(s: Study) -> list[Finding]:
    from prereg import verdict_scan as vs

    rules = s.analysis.verdict_rules
    published = [h.published_effect for h in s.hypotheses if h.published_effect is not None]
    out = []
    for i in vs.never_fired(s, vs.scan(s)):
        checks = rules[i].checks
        if checks & {"published_effect_exists", "lower_reaches_fraction_of_published"} and not published:
            why = "it needs a published effect and no hypothesis declares published_effect"
        elif not checks:
            why = "an earlier rule always holds first"
        else:
            why = "earlier rules take every result it could match (or its conditions contradict each other)"
        out.append(Finding("verdict-dead-rule", f"$.analysis.verdicts[{i}]",
                           f"rule {i} ({rules[i].verdict}) cannot fire on any result of the scan: {why}"))
    return out


# ----------------------------------------------------------------------------- equivalence
def _equivalence_rules(s: Study) -> list[tuple[int, VerdictRule]]:
    return [(i, v) for i, v in enumerate(s.analysis.verdict_rules) if v.checks & set(EQUIVALENCE_CHECKS)]


def _applied(s: Study, v: VerdictRule) -> tuple[str, float, float, str]:
    """(power rule, alpha of each one-sided test, interval level, description) of an equivalence verdict."""
    a = s.analysis
    checks = {c.check: c for c in v.when}
    if "tost_equivalent" in checks:
        value = checks["tost_equivalent"].value
        alpha = a.multiplicity.alpha if value is None else value
        return "tost", alpha, 1 - 2 * alpha, f"TOST at alpha {alpha:g}"
    c = checks.get("interval_within_margin")
    level = (c.level if c is not None else None) or max((iv.level for iv in a.intervals), default=0.9)
    alpha = (1 - level) / 2
    if "mde_at_most_margin" in checks:
        return "interval_and_mde", alpha, level, f"{level:g} interval within the margin and MDE <= margin"
    return "tost", alpha, level, f"{level:g} interval within the margin (= TOST at alpha {alpha:g} for a t interval)"


@rule("equivalence-power")
def equivalence_power(s: Study) -> list[Finding]:
    from prereg import power as pw

    a = s.analysis
    eq = _equivalence_rules(s)
    margin = a.equivalence_margin
    if not eq or margin is None:
        return []  # verdict-plan reports a missing margin
    if a.power is None or a.power.pilot_sd is None:
        return [Finding("equivalence-power", "$.analysis.power.pilot_sd",
                        f"an equivalence verdict ({eq[0][1].verdict}) is planned without TOST power: declare "
                        "analysis.power.pilot_sd (SD of per-seed paired differences) so lint can check that the "
                        "seeds can show equivalence; 'no effect' from a non-significant test is not evidence "
                        "(README failure 18)")]
    n, sd, target = len(s.seeds), a.power.pilot_sd, a.power.target
    if n < 2:  # the schema allows 1 seed; TOST's paired t needs 2 (a finding, not a crash)
        how, alpha, _, _ = _applied(s, eq[0][1])
        need = pw.n_required_equivalence(margin, sd, alpha, target)
        return [Finding("equivalence-power", "$.seeds",
                        f"{n} seed cannot support a t test: the {eq[0][1].verdict} verdict has no equivalence "
                        f"power (a paired t / TOST needs at least 2 seeds); the {target:g} target needs {need} "
                        f"seeds with TOST (pilot SD {sd:g}, margin {margin:g})")]
    out = []
    for i, v in eq:
        how, alpha, level, desc = _applied(s, v)
        pw_applied = pw.power_equivalence(margin, sd, n, alpha, rule=how, level=level, power_target=target)
        pw_tost = pw.power_equivalence(margin, sd, n, alpha)
        need = pw.n_required_equivalence(margin, sd, alpha, target)
        methods = {iv.method for iv in a.intervals if same_level(iv.level, level)}
        boot = sorted(m for m in methods if m != "t")
        msg = (f"{n} seeds give the {v.verdict} verdict as planned ({desc}) power {pw_applied:.2f} at a true "
               f"difference of 0 (pilot SD {sd:g}, margin {margin:g}, exact)")
        if how != "tost":
            msg += f"; TOST at the same seeds has {pw_tost:.2f}: use tost_equivalent"
        if boot:
            msg += (f"; with {', '.join(boot)} intervals (narrower than t at few seeds) it also declares false "
                    "equivalence more often than alpha")
        if how != "tost" or boot or pw_applied < target:
            out.append(Finding("equivalence-power", f"$.analysis.verdicts[{i}]",
                               msg + f"; the {target:g} target needs {need} seeds with TOST"))
    return out


@rule("noninferiority-plan")
def noninferiority_plan(s: Study) -> list[Finding]:
    from prereg import power as pw

    a = s.analysis
    uses = [i for i, v in enumerate(a.verdict_rules) if "noninferior" in v.checks]
    if not uses:
        return []
    margin = a.noninferiority_margin
    if margin is None:
        return [Finding("noninferiority-plan", f"$.analysis.verdicts[{uses[0]}]",
                        "noninferior needs analysis.noninferiority_margin")]
    if a.power is None or a.power.pilot_sd is None:
        return [Finding("noninferiority-plan", "$.analysis.power.pilot_sd",
                        "a non-inferiority verdict is planned without a pilot SD: its power cannot be checked")]
    n, sd, target, alpha = len(s.seeds), a.power.pilot_sd, a.power.target, a.multiplicity.alpha
    got = pw.power_noninferiority(margin, sd, n, alpha) if n >= 2 else 0.0
    if got >= target:
        return []
    need = pw.n_required_noninferiority(margin, sd, alpha, target)
    return [Finding("noninferiority-plan", "$.seeds",
                    f"{n} seeds give the non-inferiority test (one-sided paired t, margin {margin:g}, pilot SD "
                    f"{sd:g}) power {got:.2f} at a true difference of 0; the {target:g} target needs {need}")]
