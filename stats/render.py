"""Render an analysis.json into report.md, results.tex and PNG figures.

Every rendered number is tied to its value id so the audit can pin it (see RENDERING
below); nothing here computes a statistic, it only formats values from analysis.json.
"""

from __future__ import annotations

import re
from pathlib import Path

from prereg.canonical import sha256_bytes, sha256_file
from prereg.errors import UserError
from prereg.jsonio import make_dirs, read_json, read_jsonl, write_atomic
from prereg.records import MANIFEST, TELEMETRY, is_reference_run
from prereg.study import AnalysisPlan, IntervalSpec, analysis_plan
from stats.result import NO_VERDICT, AnalysisResult, Verdict

RENDERING = """\
Rendering convention (parsed by the audit):
- report.md line 1: `<!-- rlprereg-analysis sha256=<sha256 of analysis.json bytes> study=<id> lock=<lock hash> -->`.
- Every number taken from analysis.json is written as `TEXT<!-- id:VALUE_ID -->` (no space before the comment),
  TEXT being the value formatted per its unit: fixed 4 decimals for fraction/probability/difference/reward/statistic/
  other numbers (scientific `1.23e-05` for probabilities below 1e-4), integers for count/seeds/items, `true`/`false`
  for booleans, `n/a` for null. An interval cell is `[LOW<!-- id:...low -->, HIGH<!-- id:...high -->]`.
- Verdicts are written as `VERDICT<!-- verdict:contrasts.<arm>-<baseline> -->` and `VERDICT<!-- verdict:study -->`;
  a secondary-metric contrast's (not in the confirmatory family) as
  `VERDICT<!-- verdict:secondary.<arm>-<baseline>.<metric> -->` (analysis.json verdicts.secondary).
- Every table column has exactly one unit, named in its header in parentheses.
- results.tex: line 1 is `% rlprereg-analysis sha256=... study=... lock=...`; each value is one line
  `\\newcommand{\\NAME}{TEXT} % id: VALUE_ID` (TEXT formatted as in markdown), each verdict one line
  `\\newcommand{\\NAME}{VERDICT} % verdict: contrasts.<arm>-<baseline>` (`% verdict: secondary.<arm>-<baseline>.<metric>`
  for a secondary metric, NAME from `verdict.secondary.<arm>-<baseline>.<metric>`); the tables use only these macros.
  NAME is the id split at '.', '_' and '-', each part capitalised (first part lower-case), '-' spelled 'Vs',
  digits spelled out (0 -> Zero ... 9 -> Nine): arms.gspo.heldout_accuracy.mean.ci95.low ->
  \\armsGspoHeldoutAccuracyMeanCiNineFiveLow; contrasts.gspo-grpo.p_adjusted -> \\contrastsGspoVsGrpoPAdjusted.
"""

_DIGITS = ["Zero", "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine"]
_FIXED_UNITS = ("fraction", "probability", "difference", "reward", "statistic", "other", "percent")


def fmt(rec: dict | None) -> str:
    if rec is None:
        return "n/a"
    v, unit = rec["value"], rec["unit"]
    if v is None:
        return "n/a"
    if isinstance(v, bool):
        return "true" if v else "false"
    if unit in ("count", "seeds", "items"):
        return str(int(v)) if float(v).is_integer() else f"{v:.2f}"
    if unit == "percent":
        return f"{v:.2f}"
    if unit == "probability" and v != 0 and abs(v) < 1e-4:
        return f"{v:.2e}"
    out = f"{v:.4f}"
    return "0.0000" if out == "-0.0000" else out


def macro_name(vid: str) -> str:
    parts = []
    for i, chunk in enumerate(vid.split("-")):
        if i:
            parts.append("Vs")
        for p in re.split(r"[._]", chunk):
            if not p:
                continue
            word = "".join(_DIGITS[int(c)] if c.isdigit() else c for c in p)
            parts.append(word[:1].upper() + word[1:])
    name = "".join(parts)
    name = re.sub(r"[^A-Za-z]", "", name)
    return name[:1].lower() + name[1:]


def _tex_escape(s: str) -> str:
    return s.replace("\\", r"\textbackslash{}").replace("_", r"\_").replace("%", r"\%").replace("&", r"\&") \
        .replace("#", r"\#").replace("$", r"\$")


class _Doc:
    """Pinned cells of one analysis; ``r`` its typed views (given, or read on first use)."""

    def __init__(self, analysis: dict, result: AnalysisResult | None = None):
        self.a = analysis
        self.v = analysis["values"]
        self._r = result

    @property
    def r(self) -> AnalysisResult:
        if self._r is None:
            self._r = AnalysisResult.from_document(self.a)
        return self._r

    def cell(self, vid: str) -> str:
        rec = self.v.get(vid)
        if rec is None:
            return "—"
        return f"{fmt(rec)}<!-- id:{vid} -->"

    def pairs(self, pre: str, unit: str) -> str:
        """The contrast's paired-unit count if it is in ``unit`` (seeds or items), else the items
        it shares (``n_items``) for the items column: one unit per column."""
        for vid in (f"{pre}.n_pairs", f"{pre}.n_items"):
            rec = self.v.get(vid)
            if rec is not None and rec["unit"] == unit:
                return self.cell(vid)
        return "—"

    def interval(self, base: str) -> str:
        if f"{base}.low" not in self.v:
            return "—"
        return f"[{self.cell(base + '.low')}, {self.cell(base + '.high')}]"


def _unit(a: dict, vid: str, default: str = "") -> str:
    rec = a["values"].get(vid)
    return rec["unit"] if rec else default


def _level_tag(level: float) -> str:
    from stats.intervals import level_tag

    return level_tag(level)


def _plan(a: dict) -> AnalysisPlan:
    """analysis.json's ``plan`` (the lock's analysis block) as typed values (:func:`prereg.study.analysis_plan`)."""
    return analysis_plan(a["plan"])


def _contrast_tags(plan: AnalysisPlan) -> list[tuple[str, IntervalSpec]]:
    """(value-id tag, interval spec) of each planned contrast interval: ``ci95``, ``ci95_bca``, ..."""
    from stats.analyze import interval_tags

    return list(zip(interval_tags(plan.intervals), plan.intervals, strict=True))


def markdown(a: dict, digest: str, figures: list[str], notes: list[str], result: AnalysisResult | None = None) -> str:
    """report.md: one section per step, every number pinned to its analysis.json id.

    ``result`` is ``a`` already read into typed views (:meth:`AnalysisResult.from_document`); read here when not given."""
    r = result if result is not None else AnalysisResult.from_document(a)
    d = _Doc(a, r)
    plan = _plan(a)
    metric, summ = plan.primary_metric, plan.arm_summary
    munit = _unit(a, f"arms.{a['arms'][0]}.{metric}.{summ.statistics[0]}", "fraction")
    tag, lvl = "ci" + _level_tag(summ.level), f"{summ.level * 100:g}%"
    L = _md_head(a, r, d, digest, metric, munit)
    L += _md_arms(a, d, metric, munit, tag, lvl)
    L += _md_per_seed(a, r, d, metric, munit)
    L += _other_metric_arms(a, d, tag, lvl)
    L += _md_contrasts(a, d, munit)
    L += _secondary_markdown(a, r, d)
    L += _effect_section(a, d)
    L += _md_sensitivity(a, d)
    if any(f"contrasts.{c}.item.n_pairs" in a["values"] for c in a["contrasts"]):
        L += _item_section(a, d, munit)
    if any(k.startswith("rliable.") for k in a["values"]):
        L += _md_rliable(a, d, tag, lvl)
    L += _md_verdict_rules(a, r)
    L += _md_records(r, notes, figures)
    if r.exploratory:  # every section of an exploratory study says so
        L = [x + " (exploratory)" if x.startswith(("## ", "### ")) else x for x in L]
    return "\n".join(L)


def _md_head(a: dict, r: AnalysisResult, d: _Doc, digest: str, metric: str, munit: str) -> list[str]:
    plan = _plan(a)
    return [f"<!-- rlprereg-analysis sha256={digest} study={r.study_id} lock={r.lock_hash} -->",
            f"# Results: {r.study_id}", "",
            f"Lock `{r.lock_hash[:16]}…` (v{r.lock_version}); source: **{r.source}**; "
            f"primary metric `{metric}` ({munit}); {plan.resamples}<!-- id:lock.analysis.resamples --> resamples, "
            f"RNG seed {plan.rng_seed}<!-- id:lock.analysis.rng_seed -->.", "",
            *_scope_lines(r),
            "## Study", "", "| Seeds with runs (seeds) | Included runs (count) | Excluded runs (count) | Deviations (count) | Study verdict |",
            "|---|---|---|---|---|",
            f"| {d.cell('study.n_seeds')} | {d.cell('study.n_runs')} | {d.cell('study.n_excluded')} | "
            f"{d.cell('study.n_deviations')} | {r.study.verdict}<!-- verdict:study -->"
            f"{' (exploratory study)' if r.study.confirmatory is False else ''} |", ""]


def _md_arms(a: dict, d: _Doc, metric: str, munit: str, tag: str, lvl: str) -> list[str]:
    """The arm summary table: planned statistics with their intervals, SD, ZVF/GU."""
    summ = _plan(a).arm_summary
    stats_ = summ.statistics
    L: list[str] = []
    hier = any(f"arms.{arm}.{metric}.{stats_[0]}.h{tag}.low" in a["values"] for arm in a["arms"])
    head = ["Arm", "Seeds (seeds)"]
    for s in stats_:
        head += [f"{s} ({munit})", f"{lvl} {summ.interval} CI of {s} ({munit})"]
        if hier:
            head.append(f"{lvl} two-level CI of {s} ({munit})")
    head += [f"SD over seeds ({munit})"]
    desc = [k for k in ("zvf_mean", "gu_mean") if any(f"arms.{arm}.{k}" in a["values"] for arm in a["arms"])]
    first = a["arms"][0]
    head += [f"{k} ({_unit(a, f'arms.{first}.{k}', 'fraction')})" for k in desc]
    L += ["## Arms", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    item_ci = any(f"arms.{arm}.{metric}.mean.item.{tag}.low" in a["values"] for arm in a["arms"])
    if item_ci:
        head.insert(len(head) - 1 - len(desc), f"{lvl} item-level CI of mean ({munit})")
        L[-2] = "| " + " | ".join(head) + " |"
        L[-1] = "|" + "---|" * len(head)
    for arm in a["arms"]:
        row = [f"`{arm}`" + _arm_note(a, arm), d.cell(f"arms.{arm}.n_seeds")]
        for s in stats_:
            base = f"arms.{arm}.{metric}.{s}"
            row += [d.cell(base), d.interval(f"{base}.{tag}")]
            if hier:
                row.append(d.interval(f"{base}.h{tag}"))
        if item_ci:
            row.append(d.interval(f"arms.{arm}.{metric}.mean.item.{tag}"))
        row.append(d.cell(f"arms.{arm}.{metric}.sd"))
        row += [d.cell(f"arms.{arm}.{k}") for k in desc]
        L.append("| " + " | ".join(row) + " |")
    L.append("")

    return L


def _md_per_seed(a: dict, r: AnalysisResult, d: _Doc, metric: str, munit: str) -> list[str]:
    L: list[str] = []
    seeds = _seed_tags(a, r)
    if seeds:
        L += [f"## Per-seed `{metric}` ({munit})", "", "| Arm | " + " | ".join(
                  f"{'evaluated once' if s == 'once' else s} ({munit})" for s in seeds) + " |",
              "|" + "---|" * (len(seeds) + 1)]
        for arm in a["arms"]:
            L.append(f"| `{arm}` | " + " | ".join(d.cell(f"runs.{arm}.{s}.{metric}") for s in seeds) + " |")
        L.append("")
    return L


def _md_contrasts(a: dict, d: _Doc, munit: str) -> list[str]:
    """The contrast table: difference, planned intervals, p, adjusted p, power, TOST, verdict."""
    plan = _plan(a)
    L: list[str] = []
    ctags = _contrast_tags(plan)
    mp = plan.multiplicity
    head = ["Contrast", "Pairs (seeds)", f"Δ mean (difference, {munit})"]
    head += [f"{s.level * 100:g}% {s.method} CI (difference, {munit})" for _, s in ctags]
    head += [f"p, {plan.test} (probability)", f"p adjusted, {mp.method} (probability)", "Reject at "
             f"α={mp.alpha:g} (true/false)"]
    has_power = any(f"contrasts.{c}.mde" in a["values"] for c in a["contrasts"])
    has_tost = any(f"contrasts.{c}.tost_p" in a["values"] for c in a["contrasts"])
    if has_power:
        head += [f"MDE (difference, {munit})", "Observed power, a function of p: no evidential weight (probability)"]
    if has_tost:
        head += [f"TOST p, margin {plan.equivalence_margin} (probability)"]
    head.append("Verdict")
    items_col = _items_col(d.r)
    if items_col:
        head[1:2] = ["Design (unit)", "Pairs (seeds)", "Items (items)"]
    L += ["## Contrasts (arm − baseline)", "", *_design_lines(d.r), "| " + " | ".join(head) + " |",
          "|" + "---|" * len(head)]
    verdicts = d.r.contrast_verdicts
    for c in a["contrasts"]:
        pre = f"contrasts.{c}"
        row = [_label_row(d.r, c), d.pairs(pre, "seeds"), d.cell(f"{pre}.diff_mean")]
        if items_col:
            row[1:2] = [f"{d.r.contrast_designs[c].design} ({d.r.contrast_designs[c].unit})", d.pairs(pre, "seeds"), d.pairs(pre, "items")]
        row += [d.interval(f"{pre}.{t}") for t, _ in ctags]
        row += [d.cell(f"{pre}.p"), d.cell(f"{pre}.p_adjusted"), d.cell(f"{pre}.reject")]
        if has_power:
            row += [d.cell(f"{pre}.mde"), d.cell(f"{pre}.power_achieved")]
        if has_tost:
            row.append(d.cell(f"{pre}.tost_p"))
        v = verdicts.get(c, NO_VERDICT)
        row.append(f"{v.verdict or 'NONE'}<!-- verdict:contrasts.{c} -->{_verdict_label(v)}")
        L.append("| " + " | ".join(row) + " |")
    L.append("")
    L += _reported_sign_lines(a, d, ctags, munit)

    return L


def _md_sensitivity(a: dict, d: _Doc) -> list[str]:
    tests = ["paired_t", "wilcoxon", "sign_flip", "welch_t", "paired_bootstrap"]
    L = ["## Sensitivity: every seed-level test (p-values, probability)", "",
          f"Only the planned test ({_plan(a).test}) enters multiplicity and verdicts; the others are "
          "shown so a reader can see whether the conclusion depends on the choice of test.", "",
          "| Contrast | " + " | ".join(f"{t} p (probability)" for t in tests) + " |", "|" + "---|" * (len(tests) + 1)]
    for c in a["contrasts"]:
        L.append(f"| {_label_row(d.r, c)} | " + " | ".join(d.cell(f"contrasts.{c}.tests.{t}.p") for t in tests) + " |")
    L.append("")

    return L


def _md_rliable(a: dict, d: _Doc, tag: str, lvl: str) -> list[str]:
    from stats.rliable import AGGREGATES

    L = ["## Multi-task aggregates (stratified bootstrap)", "",
          "| Arm | " + " | ".join(f"{g} (fraction)" for g in AGGREGATES) + " | "
          + " | ".join(f"{lvl} CI of {g} (fraction)" for g in AGGREGATES) + " |", "|" + "---|" * (1 + 2 * len(AGGREGATES))]
    for arm in a["arms"]:
        if f"rliable.{arm}.mean" not in a["values"]:
            continue
        L.append(f"| `{arm}` | " + " | ".join(d.cell(f"rliable.{arm}.{g}") for g in AGGREGATES) + " | "
                 + " | ".join(d.interval(f"rliable.{arm}.{g}.{tag}") for g in AGGREGATES) + " |")
    L += ["", "| Contrast | P(improvement) (probability) | CI (probability) |", "|---|---|---|"]
    for c in a["contrasts"]:
        base = f"rliable.{c}.prob_improvement"
        if base in a["values"]:
            L.append(f"| {_label_row(d.r, c)} | {d.cell(base)} | {d.interval(base + '.' + tag)} |")
    L.append("")

    return L


def _md_verdict_rules(a: dict, r: AnalysisResult) -> list[str]:
    L = ["## Verdict rules", ""]
    verdicts = r.contrast_verdicts
    for c in a["contrasts"]:
        v = verdicts.get(c, NO_VERDICT)
        L.append(f"- `{c}`: **{v.verdict}**{_verdict_label(v)} ({_why(v)})")
    for key, v in r.secondary_verdicts.items():
        L.append(f"- `{key}` (secondary, not in the multiplicity family; multiplicity_rejects on the unadjusted p): "
                 f"**{v.verdict}** ({_why(v)})")
    L.append("")
    return L


def _md_records(r: AnalysisResult, notes: list[str], figures: list[str]) -> list[str]:
    """Deviations, excluded runs, warnings and figures."""
    L = ["## Deviations from the plan", ""]
    L += [f"- **{x.kind}**: {x.detail}" for x in r.deviations] or ["None."]
    L += ["", "## Excluded runs", ""]
    L += [f"- `{x.path}`: {x.reason}" for x in r.excluded] or ["None."]
    L += ["", "## Warnings", ""]
    L += [f"- {w}" for w in [*r.warnings, *notes]] or ["None."]
    L.append("")
    if figures:
        L += ["## Figures", ""] + [f"![{Path(f).stem}]({f})" for f in figures] + [""]
    return L


def _scope_lines(r: AnalysisResult) -> list[str]:
    """Evidence class, exploratory banner and sessions: said before any number (README failure 16)."""
    out = []
    ec = r.evidence_class
    if r.exploratory:
        out += ["**Exploratory study** (evidence class exploratory): every number and verdict below is exploratory; "
                "none is a confirmatory result.", ""]
    elif ec:
        out += [f"Evidence class: {ec}.", ""]
    if r.sessions:
        out += ["Evaluation sessions: " + ", ".join(f"`{s}`" for s in r.sessions)
                + "; each contrast is formed within a session both arms were evaluated in.", ""]
    return out


def _arm_note(a: dict, arm: str) -> str:
    rec = a["values"].get(f"arms.{arm}.n_seeds") or {}
    bits = ["baseline"] if arm == a["baseline"] else []
    if rec.get("params", {}).get("evaluated") == "once":
        bits.append("reference, evaluated once")
    return f" ({', '.join(bits)})" if bits else ""


def _seed_tags(a: dict, r: AnalysisResult) -> list[str]:
    """Run columns: ``once`` (a reference evaluated once) first, then seeds in numeric order."""
    tags = {k.split(".")[2] for k in a["values"] if k.startswith("runs.")}
    tags |= {"once" if run.seed is None else f"s{run.seed}" for run in r.runs}
    return sorted(tags, key=lambda t: -1 if t == "once" else int(t[1:]))


def _other_metric_arms(a: dict, d: _Doc, tag: str, lvl: str) -> list[str]:
    """Arm means of the other planned metrics, each in its own unit, with item-level intervals."""
    plan = _plan(a)
    out = []
    for m in plan.secondary_metrics:
        if not any(f"arms.{arm}.{m}.mean" in a["values"] for arm in a["arms"]):
            continue
        mu = d.r.metric_units.get(m) or _unit(a, f"arms.{a['arms'][0]}.{m}.mean", "other")
        out += [f"### Arms: `{m}` ({mu})", "", f"| Arm | mean ({mu}) | {lvl} {plan.arm_summary.interval} CI "
                f"of mean ({mu}) | {lvl} item-level CI of mean ({mu}) |", "|---|---|---|---|"]
        for arm in a["arms"]:
            base = f"arms.{arm}.{m}.mean"
            out.append(f"| `{arm}`{_arm_note(a, arm)} | {d.cell(base)} | {d.interval(f'{base}.{tag}')} | "
                       f"{d.interval(f'{base}.item.{tag}')} |")
        out.append("")
    return out


def _design_lines(r: AnalysisResult) -> list[str]:
    """How each contrast was analysed (analysis.json contrast_designs), said in words."""
    out = []
    for c, x in r.contrast_designs.items():
        if x.design == "seed_paired" and x.unit == "seed" and not x.note:
            continue
        out.append(f"- `{c}`: {x.method}" + (f" ({x.note})" if x.note else ""))
    return out + [""] if out else []


def _items_col(r: AnalysisResult) -> bool:
    """Whether a contrast table needs an items column: some contrast is paired in another unit than seeds."""
    return any(x.unit != "seed" for x in r.contrast_designs.values())


def _verdict_label(v: Verdict) -> str:
    """` (exploratory)` and a cross-session deviation, next to the verdict they qualify."""
    out = ""
    if v.confirmatory is False:
        out += " (exploratory)"
    if v.deviation:
        out += " (deviation: contrast across sessions)"
    return out


def _why(v: Verdict) -> str:
    """The rule that decided a verdict, by its check names only: the numbers behind each check are
    in the tables above, pinned by id."""
    return "conditions met: " + ", ".join(v.checks) if v.checks else "fallback rule: no earlier rule held"


def _reported_sign_lines(a: dict, d: _Doc, ctags, munit: str) -> list[str]:
    """Contrasts declared to be reported as baseline − arm, in that sign (values contrasts.<c>.reported.*)."""
    rows = [c for c in a["contrasts"] if f"contrasts.{c}.reported.diff_mean" in a["values"]]
    if not rows:
        return []
    head = ["Contrast", f"Δ as reported, baseline − arm (difference, {munit})"]
    head += [f"{s.level * 100:g}% {s.method} CI, baseline − arm (difference, {munit})" for _, s in ctags]
    out = ["### As reported (declared sign baseline − arm)", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for c in rows:
        pre = f"contrasts.{c}.reported"
        out.append(f"| {_label_row(d.r, c)} | {d.cell(pre + '.diff_mean')} | "
                   + " | ".join(d.interval(f"{pre}.{t}") for t, _ in ctags) + " |")
    return out + [""]


def _secondary_keys(r: AnalysisResult) -> dict[str, list[tuple[str, str]]]:
    """metric -> [(contrast, verdict key)] of the secondary-metric contrasts, in analysis order."""
    out: dict[str, list[tuple[str, str]]] = {}
    for key, v in r.secondary_verdicts.items():
        out.setdefault(v.metric, []).append((v.contrast, key))
    return out


def _secondary_markdown(a: dict, r: AnalysisResult, d: _Doc) -> list[str]:
    """One table per secondary metric (each its own unit), contrasts with unadjusted p and their verdicts."""
    groups = _secondary_keys(r)
    if not groups:
        return []
    plan = _plan(a)
    ctags = _contrast_tags(plan)
    L = ["## Secondary metrics (not in the confirmatory family)", "",
         "Same paired analysis as the primary contrasts (planned test, intervals, resamples, power, TOST), on other "
         "metrics. These contrasts are outside the declared multiplicity family: their p-values are unadjusted "
         "and their verdicts (rules applied with multiplicity_rejects on the unadjusted p) are not confirmatory.", ""]
    for metric, items in groups.items():
        pre0 = f"contrasts.{items[0][0]}.{metric}"
        mu = (a["values"].get(f"{pre0}.n_pairs") or {}).get("params", {}).get("metric_unit", "other")
        has_power = any(f"contrasts.{c}.{metric}.mde" in a["values"] for c, _ in items)
        has_tost = any(f"contrasts.{c}.{metric}.tost_p" in a["values"] for c, _ in items)
        items_col = _items_col(r)
        head = ["Contrast", "Pairs (seeds)", *(["Items (items)"] if items_col else []), f"Δ mean (difference, {mu})"]
        head += [f"{s.level * 100:g}% {s.method} CI (difference, {mu})" for _, s in ctags]
        head += [f"p, {plan.test}, unadjusted (probability)"]
        if has_power:
            head += [f"MDE (difference, {mu})", "Observed power, a function of p: no evidential weight (probability)"]
        if has_tost:
            head += ["TOST p (probability)"]
        head.append("Verdict (secondary)")
        L += [f"### `{metric}` ({mu})", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for c, key in items:
            pre = f"contrasts.{c}.{metric}"
            row = [_label_row(d.r, c), d.pairs(pre, "seeds"), *([d.pairs(pre, "items")] if items_col else []),
                   d.cell(f"{pre}.diff_mean")]
            row += [d.interval(f"{pre}.{t}") for t, _ in ctags]
            row.append(d.cell(f"{pre}.p"))
            if has_power:
                row += [d.cell(f"{pre}.mde"), d.cell(f"{pre}.power_achieved")]
            if has_tost:
                row.append(d.cell(f"{pre}.tost_p"))
            v = r.secondary_verdicts[key].verdict
            row.append(f"{v or 'NONE'}<!-- verdict:secondary.{key} -->")
            L.append("| " + " | ".join(row) + " |")
        L.append("")
    hyps = [(hid, h) for hid, h in r.hypothesis_verdicts.items() if h.confirmatory is False and h.metric]
    if hyps:
        L += ["Hypotheses on secondary metrics:", ""]
        for hid, h in hyps:
            L.append(f"- `{hid}` (`{h.metric}`, `{h.contrast}`): {h.verdict or 'NONE'}"
                     f"<!-- verdict:secondary.{h.contrast}.{h.metric} --> — {h.scope}")
        L.append("")
    return L


def _exploratory_value(a: dict, vid: str) -> bool:
    rec = a["values"].get(vid) or {}
    return (rec.get("params") or {}).get("evidence_class") == "exploratory"


def _tex_name(a: dict, vid: str) -> str:
    """The value's macro name; prefixed ``exploratory`` for an exploratory value, so the label
    travels with the number wherever the macro is used (audit check 11)."""
    name = macro_name(vid)
    return "exploratory" + name[:1].upper() + name[1:] if _exploratory_value(a, vid) else name


def _verdict_tex_name(r: AnalysisResult, key: str, secondary: bool = False) -> str:
    name = macro_name(("verdict.secondary." if secondary else "verdict.") + key)
    c = key.split(".")[0]
    return "exploratory" + name[:1].upper() + name[1:] if r.exploratory_contrast(c) else name


def _label_row(r: AnalysisResult, c: str) -> str:
    """Contrast row label: ``(exploratory)`` on an exploratory contrast (the study banner covers a study)."""
    return f"`{c}`" + (" (exploratory)" if r.exploratory_contrast(c) and not r.exploratory else "")


def latex(a: dict, digest: str, result: AnalysisResult | None = None) -> str:
    """results.tex: one macro per analysis value and verdict, then the arm, contrast and secondary
    tables written only with those macros (so every number is pinned to its analysis.json id).
    ``result``: ``a`` already read into typed views (read here when not given)."""
    r = result if result is not None else AnalysisResult.from_document(a)
    plan = _plan(a)
    lines = [f"% rlprereg-analysis sha256={digest} study={r.study_id} lock={r.lock_hash}",
             "% Convention: one macro per analysis value, `\\newcommand{\\NAME}{TEXT} % id: VALUE_ID`;",
             "% the tables below use only these macros (see `stats render --help`)."]
    lines += _tex_macros(a, r)
    munit = _unit(a, f"arms.{a['arms'][0]}.{plan.primary_metric}.{plan.arm_summary.statistics[0]}", "fraction")
    ctags = _contrast_tags(plan)
    lines += _tex_arm_table(a, munit)
    lines += _tex_contrast_table(a, r, munit, ctags)
    for metric, items in _secondary_keys(r).items():
        lines += _tex_secondary_table(a, r, metric, items, ctags)
    return "\n".join(lines)


def _tex_ref(a: dict, vid: str) -> str:
    """The macro of a value, or ``--`` when the analysis has no such value."""
    return f"\\{_tex_name(a, vid)}" if vid in a["values"] else "--"


def _tex_macros(a: dict, r: AnalysisResult) -> list[str]:
    """``\\newcommand`` lines for every value and verdict; two ids mapping to one macro name is an error."""
    names: dict[str, str] = {}
    lines = []
    for vid in sorted(a["values"]):
        name = _tex_name(a, vid)
        if name in names:
            raise UserError(f"values {names[name]!r} and {vid!r} map to the same LaTeX macro \\{name}")
        names[name] = vid
        lines.append(f"\\newcommand{{\\{name}}}{{{fmt(a['values'][vid])}}} % id: {vid}")
    for c, v in sorted(r.contrast_verdicts.items()):
        name = _verdict_tex_name(r, c)
        lines.append(f"\\newcommand{{\\{name}}}{{{_tex_escape(v.verdict or 'NONE')}}} % verdict: contrasts.{c}")
    for key, v in sorted(r.secondary_verdicts.items()):
        name = _verdict_tex_name(r, key, secondary=True)
        if name in names:
            raise UserError(f"verdict secondary.{key} and value {names[name]!r} map to the same LaTeX macro \\{name}")
        lines.append(f"\\newcommand{{\\{name}}}{{{_tex_escape(v.verdict or 'NONE')}}} % verdict: secondary.{key}")
    lines.append(f"\\newcommand{{\\{macro_name('verdict.study')}}}{{{_tex_escape(r.study.verdict)}}}"
                 " % verdict: study")
    return lines


def _tex_arm_table(a: dict, munit: str) -> list[str]:
    plan = _plan(a)
    metric, summ = plan.primary_metric, plan.arm_summary
    s0 = summ.statistics[0]
    tag = "ci" + _level_tag(summ.level)
    lines = ["", "\\begin{table}[t]", "\\centering",
             f"\\caption{{{_tex_escape(metric)} by arm ({munit}); {summ.level * 100:g}\\% {_tex_escape(summ.interval)} intervals over seeds.}}",
             "\\begin{tabular}{lrrr}", "\\hline",
             f"Arm & Seeds & {_tex_escape(s0)} ({munit}) & {summ.level * 100:g}\\% CI ({munit}) \\\\", "\\hline"]
    for arm in a["arms"]:
        base = f"arms.{arm}.{metric}.{s0}"
        lines.append(f"{_tex_escape(arm)} & {_tex_ref(a, f'arms.{arm}.n_seeds')} & {_tex_ref(a, base)} & "
                     f"[{_tex_ref(a, base + '.' + tag + '.low')}, {_tex_ref(a, base + '.' + tag + '.high')}] \\\\")
    return lines + ["\\hline", "\\end{tabular}", "\\end{table}", ""]


def _tex_ci(a: dict, pre: str, t0: str | None) -> str:
    return f"[{_tex_ref(a, pre + '.' + t0 + '.low')}, {_tex_ref(a, pre + '.' + t0 + '.high')}]" if t0 else "--"


def _tex_contrast_table(a: dict, r: AnalysisResult, munit: str, ctags: list) -> list[str]:
    t0 = ctags[0][0] if ctags else None
    lines = ["\\begin{table}[t]", "\\centering",
             f"\\caption{{Paired contrasts (arm $-$ baseline, difference in {munit}); p adjusted by "
             f"{_tex_escape(_plan(a).multiplicity.method)}.}}",
             "\\begin{tabular}{lrrrrl}", "\\hline",
             f"Contrast & $\\Delta$ ({munit}) & {ctags[0][1].level * 100:g}\\% CI & p & p adj. & Verdict \\\\"
             if ctags else "Contrast & $\\Delta$ & CI & p & p adj. & Verdict \\\\", "\\hline"]
    for c in a["contrasts"]:
        pre = f"contrasts.{c}"
        lines.append(f"{_tex_escape(c)} & {_tex_ref(a, pre + '.diff_mean')} & {_tex_ci(a, pre, t0)} & "
                     f"{_tex_ref(a, pre + '.p')} & {_tex_ref(a, pre + '.p_adjusted')} & \\{_verdict_tex_name(r, c)} \\\\")
    return lines + ["\\hline", "\\end{tabular}", "\\end{table}", ""]


def _tex_secondary_table(a: dict, r: AnalysisResult, metric: str, items: list, ctags: list) -> list[str]:
    t0 = ctags[0][0] if ctags else None
    pre0 = f"contrasts.{items[0][0]}.{metric}"
    mu = (a["values"].get(f"{pre0}.n_pairs") or {}).get("params", {}).get("metric_unit", "other")
    lines = ["\\begin{table}[t]", "\\centering",
             f"\\caption{{Secondary metric {_tex_escape(metric)} (not in the confirmatory family): paired contrasts "
             f"(arm $-$ baseline, difference in {mu}); p unadjusted.}}",
             "\\begin{tabular}{lrrrl}", "\\hline",
             f"Contrast & $\\Delta$ ({mu}) & {ctags[0][1].level * 100:g}\\% CI & p (unadj.) & Verdict \\\\"
             if ctags else "Contrast & $\\Delta$ & CI & p (unadj.) & Verdict \\\\", "\\hline"]
    for c, key in items:
        pre = f"contrasts.{c}.{metric}"
        lines.append(f"{_tex_escape(c)} & {_tex_ref(a, pre + '.diff_mean')} & {_tex_ci(a, pre, t0)} & "
                     f"{_tex_ref(a, pre + '.p')} & \\{_verdict_tex_name(r, key, secondary=True)} \\\\")
    return lines + ["\\hline", "\\end{tabular}", "\\end{table}", ""]


# ----------------------------------------------------------------------------- figures
def _save(fig, path: Path) -> None:
    """PNG bytes through the one atomic writer: umask honoured, a read-only folder is one line."""
    import io

    buf = io.BytesIO()
    fig.savefig(buf, format="png", metadata={"Software": None})
    write_atomic(path, buf.getvalue())


def _runs_root(r: AnalysisResult, analysis_path: Path, override: str | Path | None) -> Path | None:
    if override is not None:
        return Path(override)
    root = Path(r.runs_root or "")
    for cand in (root, analysis_path.parent / root):
        if cand.is_dir():
            return cand
    return None


def _telemetry(result: AnalysisResult, root: Path, notes: list[str]) -> dict[str, dict[int, list[dict]]]:
    out: dict[str, dict[int, list[dict]]] = {}
    for r in result.runs:
        rdir = root / r.path
        try:
            man = read_json(rdir / MANIFEST, "run manifest")
            if not isinstance(man, dict):
                notes.append(f"figures: {r.path}: manifest is not a JSON object; not plotted")
                continue
            if is_reference_run(man) and TELEMETRY not in (man.get("artifacts") or {}):
                continue  # a reference evaluation trained nothing: no curves to plot
            entry = man.get("artifacts") if isinstance(man.get("artifacts"), dict) else {}
            entry = entry.get(TELEMETRY) if isinstance(entry.get(TELEMETRY), dict) else {}
            digest = entry.get("sha256")
            if digest is None or sha256_file(rdir / TELEMETRY) != digest:
                notes.append(f"figures: {r.path}: telemetry does not match its manifest digest; not plotted")
                continue
            if man.get("seal") != r.seal:
                notes.append(f"figures: {r.path}: manifest seal differs from the analysed one; not plotted")
                continue
            out.setdefault(r.arm, {})[r.seed] = read_jsonl(rdir / TELEMETRY, "telemetry")
        except (UserError, OSError) as exc:
            notes.append(f"figures: {r.path}: {exc}")
    return out


def _curves(tel, key: str, ylabel: str, path: Path) -> bool:
    """One panel per arm: each seed a thin line, the mean over seeds bold, min–max over seeds shaded."""
    import warnings

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    from matplotlib.ticker import MaxNLocator

    mats = {}
    for arm in sorted(tel):
        series = [[np.nan if row.get(key) is None else float(row[key]) for row in rows] for rows in tel[arm].values()]
        series = [x for x in series if x]
        if not series:
            continue
        n = max(len(x) for x in series)
        mat = np.full((len(series), n), np.nan)
        for i, x in enumerate(series):
            mat[i, :len(x)] = x
        if not np.all(np.isnan(mat)):
            mats[arm] = mat
    if not mats:
        return False
    k = len(mats)
    fig, axes = plt.subplots(1, k, figsize=(2.6 * k + 0.8, 3.2), dpi=110, sharey=True, squeeze=False)
    for ax, (arm, mat), color in zip(axes[0], mats.items(), [f"C{i}" for i in range(k)], strict=True):
        steps = np.arange(1, mat.shape[1] + 1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            mean, lo, hi = np.nanmean(mat, 0), np.nanmin(mat, 0), np.nanmax(mat, 0)
        ax.fill_between(steps, lo, hi, color=color, alpha=0.15, linewidth=0)
        for row in mat:
            ax.plot(steps, row, color=color, alpha=0.25, linewidth=0.6)
        ax.plot(steps, mean, color=color, linewidth=2)
        ax.set_title(f"{arm} ({mat.shape[0]} seeds)", fontsize=9)
        ax.set_xlabel("step", fontsize=8)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.tick_params(labelsize=7)
    axes[0][0].set_ylabel(ylabel, fontsize=8)
    fig.suptitle(f"{ylabel}: per seed (thin), mean over seeds (bold), min–max band", fontsize=9)
    fig.tight_layout()
    _save(fig, path)
    plt.close(fig)
    return True


def _forest(a: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    v = a["values"]
    plan = _plan(a)
    metric, summ = plan.primary_metric, plan.arm_summary
    s0 = summ.statistics[0]
    tag = "ci" + _level_tag(summ.level)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 0.5 * max(len(a["arms"]), 3) + 1.5), dpi=110)

    def get(k):
        r = v.get(k)
        return None if r is None else r["value"]

    for i, arm in enumerate(a["arms"]):
        base = f"arms.{arm}.{metric}.{s0}"
        mu, lo, hi = get(base), get(f"{base}.{tag}.low"), get(f"{base}.{tag}.high")
        if mu is None:
            continue
        if lo is not None and hi is not None:
            ax1.plot([lo, hi], [i, i], color="C0", linewidth=2)
        ax1.plot([mu], [i], "o", color="C0")
    ax1.set_yticks(range(len(a["arms"])), a["arms"])
    ax1.invert_yaxis()
    ax1.set_xlabel(f"{metric} {s0} ({summ.level * 100:g}% {summ.interval} CI)")
    ax1.set_title("Arms")
    ctags = _contrast_tags(plan)
    for i, c in enumerate(a["contrasts"]):
        pre = f"contrasts.{c}"
        mu = get(f"{pre}.diff_mean")
        if mu is None:
            continue
        for j, (t, _) in enumerate(ctags[:2]):
            lo, hi = get(f"{pre}.{t}.low"), get(f"{pre}.{t}.high")
            if lo is not None and hi is not None:
                ax2.plot([lo, hi], [i, i], color="C1", linewidth=1.5 + 2.5 * j, alpha=0.9 if j else 0.6)
        ax2.plot([mu], [i], "o", color="C1")
    ax2.axvline(0, color="k", linewidth=0.8)
    margin = plan.equivalence_margin
    if margin:
        ax2.axvspan(-margin, margin, color="0.85", zorder=0, label=f"±margin {margin:g}")
        ax2.legend(fontsize=8, loc="best")
    ax2.set_yticks(range(len(a["contrasts"])), a["contrasts"])
    ax2.invert_yaxis()
    ax2.set_xlabel("paired difference\n" + "; ".join(f"{w}: {s.level * 100:g}% {s.method}"
                                                     for w, (_, s) in zip(("thin", "thick"), ctags[:2], strict=False)),
                   fontsize=8)
    ax2.set_title("Contrasts (arm − baseline)")
    fig.tight_layout()
    _save(fig, path)
    plt.close(fig)


def render(analysis_path: str | Path, out_dir: str | Path = "report", *, runs_root: str | Path | None = None,
           overwrite: bool = False, model_cards: bool = False, hub_dir: str | Path | None = None,
           lock: str | Path | None = None, card_license: str | None = None, figures: bool = True) -> list[Path]:
    """Write report.md, results.tex and figures/*.png; refuses to replace existing files.

    ``figures=False`` (``stats render --no-figures``) writes the text only: matplotlib drawing
    is most of a render's time, and a headless/CI pipeline that only audits or diffs the
    numbers has no use for the PNGs; the report's warnings then say the figures were not drawn.

    With ``model_cards`` also one Hugging Face model card per analysed run and one for the study
    under ``<out>/model_cards/`` (``stats.modelcard``); ``hub_dir`` lays out one upload-ready folder
    per run (``stats.hubdir``, implies the cards). Both need the run folders and the lock.
    """
    analysis_path = Path(analysis_path)
    a, digest = _read_analysis(analysis_path)
    result = AnalysisResult.from_document(a)
    out = Path(out_dir)
    targets = {"md": out / "report.md", "tex": out / "results.tex", "forest": out / "figures" / "forest.png",
               "reward": out / "figures" / "reward_curves.png", "zvf": out / "figures" / "zvf_curves.png"}
    if not figures:
        targets = {k: targets[k] for k in ("md", "tex")}
    if not overwrite:
        for p in targets.values():
            if p.exists():
                raise UserError(f"{p}: already exists; refusing to overwrite (choose another -o)")
    cards = _prepare_cards(result, analysis_path, digest, runs_root, lock, out, hub_dir, overwrite, card_license) \
        if (model_cards or hub_dir is not None) else None
    notes: list[str] = []
    if figures:
        make_dirs(out / "figures")
        drawn, written = _draw_figures(a, result, analysis_path, out, targets, runs_root, overwrite, notes)
    else:
        make_dirs(out)
        drawn, written = [], []
        notes.append("figures: not drawn (--no-figures)")
    write_atomic(targets["md"], markdown(a, digest, drawn, notes, result), overwrite=overwrite)
    write_atomic(targets["tex"], latex(a, digest, result), overwrite=overwrite)
    if cards is not None:
        from stats.modelcard import write_cards

        texts, runs = cards
        written += write_cards(out, texts, runs, overwrite=overwrite)
        if hub_dir is not None:
            from stats.hubdir import write_hub_dir

            written += write_hub_dir(hub_dir, a, digest, texts, runs)
    return [targets["md"], targets["tex"]] + written


def _read_analysis(analysis_path: Path) -> tuple[dict, str]:
    """The analysis document, schema-checked, and the sha256 of its bytes (pinned in the report)."""
    a = read_json(analysis_path, "analysis")  # names the file for every way it cannot be read
    raw = analysis_path.read_bytes()
    from prereg.schema import require_valid

    require_valid(a, "analysis", str(analysis_path))
    for k in ("plan", "arms", "contrasts", "baseline"):
        if k not in a:
            raise UserError(f"{analysis_path}: missing {k!r} (not written by `stats analyze`)")
    return a, sha256_bytes(raw)


def _draw_figures(a: dict, result: AnalysisResult, analysis_path: Path, out: Path, targets: dict, runs_root, overwrite: bool,
                  notes: list[str]) -> tuple[list[str], list[Path]]:
    """The forest plot, the sequential boundaries (a sequential plan) and the reward/ZVF curves
    (run folders found); returns (figure paths for the report, files written). ``notes`` says what
    was not drawn and why."""
    from stats.seqplot import boundary_plot

    _forest(a, targets["forest"])
    figures, written = ["figures/forest.png"], [targets["forest"]]
    seq_png = out / "figures" / "sequential_boundaries.png"
    if _plan(a).sequential and seq_png.exists() and not overwrite:
        raise UserError(f"{seq_png}: already exists; refusing to overwrite (choose another -o)")
    if boundary_plot(a, seq_png):  # README failure 19: the boundaries and the observed path
        figures.append("figures/sequential_boundaries.png")
        written.append(seq_png)
    if result.source != "runs":
        notes.append("figures: imported results carry no telemetry; reward/ZVF curves not drawn")
        return figures, written
    root = _runs_root(result, analysis_path, runs_root)
    if root is None:
        notes.append(f"figures: runs folder {result.runs_root!r} not found; curves not drawn (use --runs)")
        return figures, written
    tel = _telemetry(result, root, notes)
    for key, label, name in (("reward_mean", "training reward (step mean)", "reward"),
                             ("zvf", "zero-variance fraction (ZVF)", "zvf")):
        if _curves(tel, key, label, targets[name]):
            figures.append(f"figures/{targets[name].name}")
            written.append(targets[name])
        else:
            notes.append(f"figures: no telemetry field {key!r}; {targets[name].name} not drawn")
    return figures, written


def _prepare_cards(result: AnalysisResult, analysis_path: Path, digest: str, runs_root, lock, out: Path, hub_dir,
                   overwrite: bool, card_license: str | None = None):
    """Card texts and runs, computed (and every refusal made) before anything is written."""
    from stats.modelcard import card_lock, card_paths, card_runs, model_cards

    if result.source != "runs":
        raise UserError("--model-cards: the analysis is of an imported table; cards need the run folders")
    root = _runs_root(result, analysis_path, runs_root)
    if root is None:
        raise UserError(f"--model-cards: runs folder {result.runs_root!r} not found; pass --runs")
    runs = card_runs(result, root)
    texts = model_cards(result, digest, card_lock(result, analysis_path, lock).study, runs, card_license)
    if not overwrite:
        for p in card_paths(out, runs).values():
            if p.exists():
                raise UserError(f"{p}: already exists; refusing to overwrite (choose another -o)")
    if hub_dir is not None:
        from stats.hubdir import check_hub_dir

        check_hub_dir(hub_dir, runs)
    return texts, runs


def _item_section(a: dict, d, munit: str) -> list[str]:
    """Item-level table: cluster-robust tests first; pooled McNemar only with its caveat (README failure 17)."""
    from stats.items import POOLED_CAVEAT

    kind = _plan(a).item_level
    L = ["## Item-level comparisons (seeds as clusters)", "",
         "Every seed scores the same held-out items, so the (seed, item) outcome pairs are clustered by seed "
         "and are not independent items. The cluster-robust t (CR1, t with G-1 df) and the wild cluster "
         "bootstrap keep that clustering.", "",
         f"| Contrast | Items (items) | (seed, item) pairs (count) | Δ per item (difference, {munit}) | "
         "Cluster-robust t p (probability) | Wild cluster bootstrap p (probability) |", "|---|---|---|---|---|---|"]
    for c in a["contrasts"]:
        pre = f"contrasts.{c}.item"
        L.append(f"| {_label_row(d.r, c)} | {d.cell(pre + '.n_items')} | {d.cell(pre + '.n_pairs')} | {d.cell(pre + '.diff_mean')} | "
                 f"{d.cell(pre + '.cluster_t.p')} | {d.cell(pre + '.cluster_sign_flip.p')} |")
    L.append("")
    if kind == "mcnemar":
        L += [f"**Caveat:** pooled McNemar {POOLED_CAVEAT}.", "",
              "| Contrast | Pooled McNemar p (probability) | Arm-only correct pairs (count) | "
              "Baseline-only correct pairs (count) |", "|---|---|---|---|"]
        for c in a["contrasts"]:
            pre = f"contrasts.{c}.item"
            L.append(f"| {_label_row(d.r, c)} | {d.cell(pre + '.mcnemar.p')} | {d.cell(pre + '.mcnemar.arm_only')} | "
                     f"{d.cell(pre + '.mcnemar.baseline_only')} |")
        L.append("")
    elif kind == "paired_bootstrap":
        L += [f"**Caveat:** the pooled item bootstrap interval {POOLED_CAVEAT}.", ""]
    elif kind == "crossed_bootstrap":
        tags = sorted({k.split(".")[-2] for k in a["values"] if ".item.crossed_t.ci" in k})
        L += ["Crossed (seed x item) bootstrap: seeds resampled, one item resample shared by every drawn seed "
              "(generalises to new seeds and new items).", "",
              "| Contrast | " + " | ".join(f"{t} crossed-t (difference)" for t in tags) + " | "
              + " | ".join(f"{t} crossed percentile (difference)" for t in tags) + " |",
              "|" + "---|" * (1 + 2 * len(tags))]
        for c in a["contrasts"]:
            pre = f"contrasts.{c}.item"
            L.append(f"| {_label_row(d.r, c)} | " + " | ".join(d.interval(f"{pre}.crossed_t.{t}") for t in tags) + " | "
                     + " | ".join(d.interval(f"{pre}.crossed_bootstrap.{t}") for t in tags) + " |")
        L.append("")
    return L


def _effect_section(a: dict, d) -> list[str]:
    """Standardised effects with exact intervals, and family-wise (simultaneous) intervals next to adjusted p."""
    cs = [c for c in a["contrasts"] if f"contrasts.{c}.hedges_g" in a["values"]]
    if not cs:
        return []
    simul = any(f"contrasts.{c}.ci_simultaneous.low" in a["values"] for c in cs)
    head = ["Contrast", "dz (statistic)", "dz 95% CI, exact noncentral t (statistic)", "Hedges' g (statistic)",
            "g 95% CI, exact noncentral t (statistic)"]
    if simul:
        head += ["Simultaneous interval, Bonferroni (difference)", "Adjusted p (probability)"]
    L = ["## Effect sizes and simultaneous intervals", "",
         "dz: mean paired difference / SD of the differences; Hedges' g: arms as independent groups (pooled SD, "
         "exact small-sample factor). The simultaneous intervals cover every family contrast jointly at the family-wise level.", "",
         "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for c in cs:
        pre = f"contrasts.{c}"
        row = [f"`{c}`", d.cell(f"{pre}.effect_size_dz"), d.interval(f"{pre}.effect_size_dz.ci95"),
               d.cell(f"{pre}.hedges_g"), d.interval(f"{pre}.hedges_g.ci95")]
        if simul:
            row += [d.interval(f"{pre}.ci_simultaneous"), d.cell(f"{pre}.p_adjusted")]
        L.append("| " + " | ".join(row) + " |")
    return L + [""]
