"""Render an analysis.json into report.md, results.tex and PNG figures (:mod:`stats.figures`).

Every rendered number is tied to its value id so the audit can pin it (see RENDERING
below); nothing here computes a statistic, it only formats values of the typed analysis
(:class:`stats.result.AnalysisResult`, read once by :func:`stats.result.read_analysis`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from prereg.errors import UserError
from prereg.jsonio import make_dirs, write_atomic
from prereg.records import ONCE, seed_tag
from stats.figures import draw_figures, runs_folder
from stats.result import NO_VERDICT, AnalysisResult, Value, Verdict, read_analysis

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


def fmt(rec: Value | Mapping | None) -> str:
    """A value record as every renderer writes it (see RENDERING); ``n/a`` for no record.

    Args:
        rec: a typed :class:`stats.result.Value`, or a record as analysis.json writes it.

    Returns:
        The text, formatted per the record's unit (:func:`format_value`).

    Example:
        >>> fmt({"value": 0.000012, "unit": "probability"}), fmt(None)
        ('1.20e-05', 'n/a')
    """
    if rec is None:
        return "n/a"
    if isinstance(rec, Value):
        return format_value(rec.value, rec.unit)
    return format_value(rec["value"], rec["unit"])


def format_value(v, unit: str) -> str:
    """One number as its unit is written: the one formatting rule of report.md, results.tex and the cards.

    Args:
        v: the value (None, a bool, an int or a float).
        unit: its unit (``fraction``, ``count``, ``probability``, ...).

    Returns:
        Fixed 4 decimals (``0.0000``, never ``-0.0000``); integers for counts; ``1.23e-05`` for a
        probability below 1e-4; ``true``/``false``; ``n/a`` for None.

    Example:
        >>> format_value(0.25, "fraction"), format_value(3.0, "seeds"), format_value(True, "other")
        ('0.2500', '3', 'true')
    """
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
    """The LaTeX macro of a value id (RENDERING: split at '.', '_' and '-', '-' spelled ``Vs``,
    digits spelled out), so results.tex names every number by the id the audit pins.

    Args:
        vid: a value id of analysis.json (or ``verdict.<key>`` for a verdict).

    Returns:
        A macro name of letters only, first letter lower-case.

    Example:
        >>> macro_name("contrasts.gspo-grpo.p_adjusted"), macro_name("arms.gspo.heldout_accuracy.mean.ci95.low")
        ('contrastsGspoVsGrpoPAdjusted', 'armsGspoHeldoutAccuracyMeanCiNineFiveLow')
    """
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
    """Pinned cells of one analysis: each number written with the id it came from (the audit's pin)."""

    def __init__(self, result: AnalysisResult):
        self.r = result
        self.v = result.values

    def cell(self, vid: str) -> str:
        """``TEXT<!-- id:VID -->`` for the value ``vid``; ``—`` when the analysis has none."""
        rec = self.v.get(vid)
        if rec is None:
            return "—"
        return f"{fmt(rec)}<!-- id:{vid} -->"

    def pairs(self, pre: str, unit: str) -> str:
        """The contrast's paired-unit count if it is in ``unit`` (seeds or items), else the items
        it shares (``n_items``) for the items column: one unit per column."""
        for vid in (f"{pre}.n_pairs", f"{pre}.n_items"):
            rec = self.v.get(vid)
            if rec is not None and rec.unit == unit:
                return self.cell(vid)
        return "—"

    def interval(self, base: str) -> str:
        """``[LOW, HIGH]`` of the interval ``base`` (``base.low``/``base.high``), each pinned; ``—`` when absent."""
        if f"{base}.low" not in self.v:
            return "—"
        return f"[{self.cell(base + '.low')}, {self.cell(base + '.high')}]"


def markdown(r: AnalysisResult, digest: str, figures: list[str], notes: list[str]) -> str:
    """report.md: one section per step, every number pinned to its analysis.json id.

    Why one function per section: each table reads the typed result (:class:`AnalysisResult`)
    and the plan it executed, and a reader checks one section against RENDERING at a time.

    Args:
        r: the analysis (:func:`stats.result.read_analysis`, or ``stats.analyze`` in memory).
        digest: sha256 of the analysis.json bytes the report pins on its first line.
        figures: figure paths relative to the report, in the order they are listed.
        notes: what the render could not do (figures not drawn, and why), listed with the warnings.

    Returns:
        The report text (no trailing newline).

    Example:
        >>> markdown(read_analysis("report/analysis.json"), digest, [], []).splitlines()[1]  # doctest: +SKIP
        '# Results: demo'
    """
    plan = r.plan
    d = _Doc(r)
    metric, summ = plan.primary_metric, plan.arm_summary
    munit = r.unit(f"arms.{r.arms[0]}.{metric}.{summ.statistics[0]}", "fraction")
    tag, lvl = r.arm_interval_tag, f"{summ.level * 100:g}%"
    L = _md_head(r, d, digest, metric, munit)
    L += _md_arms(r, d, metric, munit, tag, lvl)
    L += _md_per_seed(r, d, metric, munit)
    L += _md_sessions(r, d, metric, munit, tag, lvl)
    L += _other_metric_arms(r, d, tag, lvl)
    L += _md_contrasts(r, d, munit)
    L += _secondary_markdown(r, d)
    L += _effect_section(r, d)
    L += _md_sensitivity(r, d)
    if any(f"contrasts.{c}.item.n_pairs" in r.values for c in r.contrasts):
        L += _item_section(r, d, munit)
    if any(k.startswith("rliable.") for k in r.values):
        L += _md_rliable(r, d, tag, lvl)
    L += _md_verdict_rules(r)
    L += _md_records(r, notes, figures)
    if r.exploratory:  # every section of an exploratory study says so
        L = [x + " (exploratory)" if x.startswith(("## ", "### ")) else x for x in L]
    return "\n".join(L)


def _md_head(r: AnalysisResult, d: _Doc, digest: str, metric: str, munit: str) -> list[str]:
    """The pinned header line, the lock and source, the scope banner and the study table."""
    plan = r.plan
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


def _md_arms(r: AnalysisResult, d: _Doc, metric: str, munit: str, tag: str, lvl: str) -> list[str]:
    """The arm summary table: planned statistics with their intervals, SD, ZVF/GU."""
    return ["## Arms", "", *_arm_table(r, d, metric, munit, tag, lvl, {arm: "" for arm in r.arms})]


def _md_sessions(r: AnalysisResult, d: _Doc, metric: str, munit: str, tag: str, lvl: str) -> list[str]:
    """One arm summary table per evaluation session (analysis.json ``session_arms``), when the data
    name more than one: the same columns as "Arms", each arm's evaluation in that session."""
    if len(r.session_arms) < 2:
        return []
    L = ["## Arms by evaluation session", "",
         "Each arm summarised in each session it was evaluated in; contrasts use the session named in their design.", ""]
    for i, (sess, arms) in enumerate(r.session_arms.items(), start=1):
        said = r.session_labels.get(sess) or ()
        head = f"### Session {i}: `{sess}`" + (f" ({said[0]})" if said else "")   # as the plan's labels call it
        L += [head, "", *_arm_table(r, d, metric, munit, tag, lvl, dict(arms))]
    return L


def _arm_table(r: AnalysisResult, d: _Doc, metric: str, munit: str, tag: str, lvl: str,
               arms: dict[str, str]) -> list[str]:
    """The rows of an arm summary table: arm -> the prefix of its value ids (``""``: ``arms.<arm>``;
    ``sessions.<tag>.``: its evaluation in a later session)."""
    summ = r.plan.arm_summary
    stats_ = summ.statistics
    hier = any(f"{p}arms.{arm}.{metric}.{stats_[0]}.h{tag}.low" in r.values for arm, p in arms.items())
    item_ci = any(f"{p}arms.{arm}.{metric}.mean.item.{tag}.low" in r.values for arm, p in arms.items())
    desc = [k for k in ("zvf_mean", "gu_mean") if any(f"{p}arms.{arm}.{k}" in r.values for arm, p in arms.items())]
    head = ["Arm", "Seeds (seeds)"]
    for s in stats_:
        head += [f"{s} ({munit})", f"{lvl} {summ.interval} CI of {s} ({munit})"]
        if hier:
            head.append(f"{lvl} two-level CI of {s} ({munit})")
    if item_ci:
        head.append(f"{lvl} item-level CI of mean ({munit})")
    head += [f"SD over seeds ({munit})"]
    head += [f"{k} ({r.unit(f'arms.{r.arms[0]}.{k}', 'fraction')})" for k in desc]
    L = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for arm, p in arms.items():
        row = [f"`{arm}`" + _arm_note(r, arm), d.cell(f"{p}arms.{arm}.n_seeds")]
        for s in stats_:
            base = f"{p}arms.{arm}.{metric}.{s}"
            row += [d.cell(base), d.interval(f"{base}.{tag}")]
            if hier:
                row.append(d.interval(f"{base}.h{tag}"))
        if item_ci:
            row.append(d.interval(f"{p}arms.{arm}.{metric}.mean.item.{tag}"))
        row.append(d.cell(f"{p}arms.{arm}.{metric}.sd"))
        row += [d.cell(f"{p}arms.{arm}.{k}") for k in desc]
        L.append("| " + " | ".join(row) + " |")
    return L + [""]


def _md_per_seed(r: AnalysisResult, d: _Doc, metric: str, munit: str) -> list[str]:
    """The primary metric of every run, one column per seed (``evaluated once`` for a reference)."""
    seeds = _seed_tags(r)
    if not seeds:
        return []
    L = [f"## Per-seed `{metric}` ({munit})", "", "| Arm | " + " | ".join(
             f"{'evaluated once' if s == 'once' else s} ({munit})" for s in seeds) + " |",
         "|" + "---|" * (len(seeds) + 1)]
    for arm in r.arms:
        L.append(f"| `{arm}` | " + " | ".join(d.cell(f"runs.{arm}.{s}.{metric}") for s in seeds) + " |")
    return L + [""]


def _contrast_head(r: AnalysisResult, munit: str, ctags, has_power: bool, has_tost: bool) -> list[str]:
    """The contrast table's column headers, each naming its unit (one unit per column)."""
    plan = r.plan
    mp = plan.multiplicity
    head = ["Contrast", "Pairs (seeds)", f"Δ mean (difference, {munit})"]
    head += [f"{s.level * 100:g}% {s.method} CI (difference, {munit})" for _, s in ctags]
    head += [f"p, {plan.test} (probability)", f"p adjusted, {mp.method} (probability)", "Reject at "
             f"α={mp.alpha:g} (true/false)"]
    if has_power:
        head += [f"MDE (difference, {munit})", "Observed power, a function of p: no evidential weight (probability)"]
    if has_tost:
        head += [f"TOST p, margin {plan.equivalence_margin} (probability)"]
    head.append("Verdict")
    if _items_col(r):
        head[1:2] = ["Design (unit)", "Pairs (seeds)", "Items (items)"]
    return head


def _md_contrasts(r: AnalysisResult, d: _Doc, munit: str) -> list[str]:
    """The contrast table: difference, planned intervals, p, adjusted p, power, TOST, verdict."""
    ctags = r.interval_tags
    has_power = any(f"contrasts.{c}.mde" in r.values for c in r.contrasts)
    has_tost = any(f"contrasts.{c}.tost_p" in r.values for c in r.contrasts)
    head = _contrast_head(r, munit, ctags, has_power, has_tost)
    items_col = _items_col(r)
    L = ["## Contrasts (arm − baseline)", "", *_design_lines(r), "| " + " | ".join(head) + " |",
         "|" + "---|" * len(head)]
    for c in r.contrasts:
        pre = f"contrasts.{c}"
        row = [_label_row(r, c), d.pairs(pre, "seeds"), d.cell(f"{pre}.diff_mean")]
        if items_col:
            row[1:2] = [f"{r.contrast_designs[c].design} ({r.contrast_designs[c].unit})", d.pairs(pre, "seeds"), d.pairs(pre, "items")]
        row += [d.interval(f"{pre}.{t}") for t, _ in ctags]
        row += [d.cell(f"{pre}.p"), d.cell(f"{pre}.p_adjusted"), d.cell(f"{pre}.reject")]
        if has_power:
            row += [d.cell(f"{pre}.mde"), d.cell(f"{pre}.power_achieved")]
        if has_tost:
            row.append(d.cell(f"{pre}.tost_p"))
        v = r.contrast_verdicts.get(c, NO_VERDICT)
        row.append(f"{v.verdict or 'NONE'}<!-- verdict:contrasts.{c} -->{_verdict_label(v)}")
        L.append("| " + " | ".join(row) + " |")
    L.append("")
    return L + _reported_sign_lines(r, d, ctags, munit)


def _md_sensitivity(r: AnalysisResult, d: _Doc) -> list[str]:
    """Every seed-level test's p next to the planned one, so a reader sees whether the choice matters."""
    tests = ["paired_t", "wilcoxon", "sign_flip", "welch_t", "paired_bootstrap"]
    L = ["## Sensitivity: every seed-level test (p-values, probability)", "",
         f"Only the planned test ({r.plan.test}) enters multiplicity and verdicts; the others are "
         "shown so a reader can see whether the conclusion depends on the choice of test.", "",
         "| Contrast | " + " | ".join(f"{t} p (probability)" for t in tests) + " |", "|" + "---|" * (len(tests) + 1)]
    for c in r.contrasts:
        L.append(f"| {_label_row(r, c)} | " + " | ".join(d.cell(f"contrasts.{c}.tests.{t}.p") for t in tests) + " |")
    return L + [""]


def _md_rliable(r: AnalysisResult, d: _Doc, tag: str, lvl: str) -> list[str]:
    """Multi-task aggregates (rliable) per arm and each contrast's probability of improvement."""
    from stats.rliable import AGGREGATES

    L = ["## Multi-task aggregates (stratified bootstrap)", "",
         "| Arm | " + " | ".join(f"{g} (fraction)" for g in AGGREGATES) + " | "
         + " | ".join(f"{lvl} CI of {g} (fraction)" for g in AGGREGATES) + " |", "|" + "---|" * (1 + 2 * len(AGGREGATES))]
    for arm in r.arms:
        if f"rliable.{arm}.mean" not in r.values:
            continue
        L.append(f"| `{arm}` | " + " | ".join(d.cell(f"rliable.{arm}.{g}") for g in AGGREGATES) + " | "
                 + " | ".join(d.interval(f"rliable.{arm}.{g}.{tag}") for g in AGGREGATES) + " |")
    L += ["", "| Contrast | P(improvement) (probability) | CI (probability) |", "|---|---|---|"]
    for c in r.contrasts:
        base = f"rliable.{c}.prob_improvement"
        if base in r.values:
            L.append(f"| {_label_row(r, c)} | {d.cell(base)} | {d.interval(base + '.' + tag)} |")
    return L + [""]


def _md_verdict_rules(r: AnalysisResult) -> list[str]:
    """Each verdict with the checks of the rule that decided it."""
    L = ["## Verdict rules", ""]
    for c in r.contrasts:
        v = r.contrast_verdicts.get(c, NO_VERDICT)
        L.append(f"- `{c}`: **{v.verdict}**{_verdict_label(v)} ({_why(v)})")
    for key, v in r.secondary_verdicts.items():
        L.append(f"- `{key}` (secondary, not in the multiplicity family; multiplicity_rejects on the unadjusted p): "
                 f"**{v.verdict}** ({_why(v)})")
    return L + [""]


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


def _arm_note(r: AnalysisResult, arm: str) -> str:
    """`` (baseline)`` / `` (reference, evaluated once)`` after an arm's name."""
    bits = ["baseline"] if arm == r.baseline else []
    if _param(r, f"arms.{arm}.n_seeds", "evaluated") == "once":
        bits.append("reference, evaluated once")
    return f" ({', '.join(bits)})" if bits else ""


def _param(r: AnalysisResult, vid: str, key: str, default=None):
    """A parameter of the value ``vid`` (``params.<key>``), ``default`` when the value or parameter is absent."""
    rec = r.values.get(vid)
    return rec.params.get(key, default) if rec is not None else default


def _seed_tags(r: AnalysisResult) -> list[str]:
    """Run columns: ``once`` (a reference evaluated once) first, then seeds in numeric order."""
    tags = {k.split(".")[2] for k in r.values if k.startswith("runs.")}
    tags |= {seed_tag(run.seed) for run in r.runs}
    return sorted(tags, key=lambda t: -1 if t == ONCE else int(t[1:]))


def _other_metric_arms(r: AnalysisResult, d: _Doc, tag: str, lvl: str) -> list[str]:
    """Arm means of the other planned metrics, each in its own unit, with item-level intervals."""
    plan = r.plan
    out = []
    for m in plan.secondary_metrics:
        if not any(f"arms.{arm}.{m}.mean" in r.values for arm in r.arms):
            continue
        mu = r.metric_units.get(m) or r.unit(f"arms.{r.arms[0]}.{m}.mean", "other")
        out += [f"### Arms: `{m}` ({mu})", "", f"| Arm | mean ({mu}) | {lvl} {plan.arm_summary.interval} CI "
                f"of mean ({mu}) | {lvl} item-level CI of mean ({mu}) |", "|---|---|---|---|"]
        for arm in r.arms:
            base = f"arms.{arm}.{m}.mean"
            out.append(f"| `{arm}`{_arm_note(r, arm)} | {d.cell(base)} | {d.interval(f'{base}.{tag}')} | "
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


def _reported_sign_lines(r: AnalysisResult, d: _Doc, ctags, munit: str) -> list[str]:
    """Contrasts declared to be reported as baseline − arm, in that sign (values contrasts.<c>.reported.*)."""
    rows = [c for c in r.contrasts if f"contrasts.{c}.reported.diff_mean" in r.values]
    if not rows:
        return []
    head = ["Contrast", f"Δ as reported, baseline − arm (difference, {munit})"]
    head += [f"{s.level * 100:g}% {s.method} CI, baseline − arm (difference, {munit})" for _, s in ctags]
    out = ["### As reported (declared sign baseline − arm)", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for c in rows:
        pre = f"contrasts.{c}.reported"
        out.append(f"| {_label_row(r, c)} | {d.cell(pre + '.diff_mean')} | "
                   + " | ".join(d.interval(f"{pre}.{t}") for t, _ in ctags) + " |")
    return out + [""]


def _secondary_keys(r: AnalysisResult) -> dict[str, list[tuple[str, str]]]:
    """metric -> [(contrast, verdict key)] of the secondary-metric contrasts, in analysis order."""
    out: dict[str, list[tuple[str, str]]] = {}
    for key, v in r.secondary_verdicts.items():
        out.setdefault(v.metric, []).append((v.contrast, key))
    return out


def _secondary_markdown(r: AnalysisResult, d: _Doc) -> list[str]:
    """One table per secondary metric (each its own unit), contrasts with unadjusted p and their verdicts."""
    groups = _secondary_keys(r)
    if not groups:
        return []
    ctags = r.interval_tags
    L = ["## Secondary metrics (not in the confirmatory family)", "",
         "Same paired analysis as the primary contrasts (planned test, intervals, resamples, power, TOST), on other "
         "metrics. These contrasts are outside the declared multiplicity family: their p-values are unadjusted "
         "and their verdicts (rules applied with multiplicity_rejects on the unadjusted p) are not confirmatory.", ""]
    for metric, items in groups.items():
        L += _secondary_table(r, d, metric, items, ctags)
    return L + _secondary_hypotheses(r)


def _secondary_unit(r: AnalysisResult, metric: str, items: list[tuple[str, str]]) -> str:
    """The unit of a secondary metric's differences, as the analysis recorded it on its first contrast."""
    return _param(r, f"contrasts.{items[0][0]}.{metric}.n_pairs", "metric_unit", "other")


def _secondary_table(r: AnalysisResult, d: _Doc, metric: str, items: list[tuple[str, str]], ctags) -> list[str]:
    """One secondary metric's contrast table: pairs, difference, planned intervals, unadjusted p, verdict."""
    mu = _secondary_unit(r, metric, items)
    has_power = any(f"contrasts.{c}.{metric}.mde" in r.values for c, _ in items)
    has_tost = any(f"contrasts.{c}.{metric}.tost_p" in r.values for c, _ in items)
    items_col = _items_col(r)
    head = ["Contrast", "Pairs (seeds)", *(["Items (items)"] if items_col else []), f"Δ mean (difference, {mu})"]
    head += [f"{s.level * 100:g}% {s.method} CI (difference, {mu})" for _, s in ctags]
    head += [f"p, {r.plan.test}, unadjusted (probability)"]
    if has_power:
        head += [f"MDE (difference, {mu})", "Observed power, a function of p: no evidential weight (probability)"]
    if has_tost:
        head += ["TOST p (probability)"]
    head.append("Verdict (secondary)")
    L = [f"### `{metric}` ({mu})", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for c, key in items:
        pre = f"contrasts.{c}.{metric}"
        row = [_label_row(r, c), d.pairs(pre, "seeds"), *([d.pairs(pre, "items")] if items_col else []),
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
    return L + [""]


def _secondary_hypotheses(r: AnalysisResult) -> list[str]:
    """Hypotheses on secondary metrics, each with the scope its verdict does (not) claim."""
    hyps = [(hid, h) for hid, h in r.hypothesis_verdicts.items() if h.confirmatory is False and h.metric]
    if not hyps:
        return []
    L = ["Hypotheses on secondary metrics:", ""]
    for hid, h in hyps:
        L.append(f"- `{hid}` (`{h.metric}`, `{h.contrast}`): {h.verdict or 'NONE'}"
                 f"<!-- verdict:secondary.{h.contrast}.{h.metric} --> — {h.scope}")
    return L + [""]


def _exploratory_value(r: AnalysisResult, vid: str) -> bool:
    """A value of an exploratory study or contrast (its ``params.evidence_class``)."""
    return _param(r, vid, "evidence_class") == "exploratory"


def _tex_name(r: AnalysisResult, vid: str) -> str:
    """The value's macro name; prefixed ``exploratory`` for an exploratory value, so the label
    travels with the number wherever the macro is used (audit check 11)."""
    name = macro_name(vid)
    return "exploratory" + name[:1].upper() + name[1:] if _exploratory_value(r, vid) else name


def _verdict_tex_name(r: AnalysisResult, key: str, secondary: bool = False) -> str:
    """A verdict's macro name, prefixed ``exploratory`` for an exploratory contrast (as values are)."""
    name = macro_name(("verdict.secondary." if secondary else "verdict.") + key)
    c = key.split(".")[0]
    return "exploratory" + name[:1].upper() + name[1:] if r.exploratory_contrast(c) else name


def _label_row(r: AnalysisResult, c: str) -> str:
    """Contrast row label: ``(exploratory)`` on an exploratory contrast (the study banner covers a study)."""
    return f"`{c}`" + (" (exploratory)" if r.exploratory_contrast(c) and not r.exploratory else "")


def latex(r: AnalysisResult, digest: str) -> str:
    """results.tex: one macro per analysis value and verdict, then the arm, contrast and secondary
    tables written only with those macros (so every number is pinned to its analysis.json id).

    Args:
        r: the analysis (:func:`stats.result.read_analysis`, or ``stats.analyze`` in memory).
        digest: sha256 of the analysis.json bytes the file pins on its first line.

    Returns:
        The LaTeX text (no trailing newline).

    Raises:
        UserError: two value ids (or a value and a verdict) map to the same macro name.

    Example:
        >>> latex(read_analysis("report/analysis.json"), digest).splitlines()[0][:26]  # doctest: +SKIP
        '% rlprereg-analysis sha256'
    """
    plan = r.plan
    lines = [f"% rlprereg-analysis sha256={digest} study={r.study_id} lock={r.lock_hash}",
             "% Convention: one macro per analysis value, `\\newcommand{\\NAME}{TEXT} % id: VALUE_ID`;",
             "% the tables below use only these macros (see `stats render --help`)."]
    lines += _tex_macros(r)
    munit = r.unit(f"arms.{r.arms[0]}.{plan.primary_metric}.{plan.arm_summary.statistics[0]}", "fraction")
    ctags = r.interval_tags
    lines += _tex_arm_table(r, munit)
    lines += _tex_contrast_table(r, munit, ctags)
    for metric, items in _secondary_keys(r).items():
        lines += _tex_secondary_table(r, metric, items, ctags)
    return "\n".join(lines)


def _tex_ref(r: AnalysisResult, vid: str) -> str:
    """The macro of a value, or ``--`` when the analysis has no such value."""
    return f"\\{_tex_name(r, vid)}" if vid in r.values else "--"


def _tex_macros(r: AnalysisResult) -> list[str]:
    """``\\newcommand`` lines for every value and verdict; two ids mapping to one macro name is an error."""
    names: dict[str, str] = {}
    lines = []
    for vid in sorted(r.values):
        name = _tex_name(r, vid)
        if name in names:
            raise UserError(f"values {names[name]!r} and {vid!r} map to the same LaTeX macro \\{name}")
        names[name] = vid
        lines.append(f"\\newcommand{{\\{name}}}{{{fmt(r.values[vid])}}} % id: {vid}")
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


def _tex_arm_table(r: AnalysisResult, munit: str) -> list[str]:
    """The arm table: seeds, the first planned statistic and its interval, as macros."""
    plan = r.plan
    metric, summ = plan.primary_metric, plan.arm_summary
    s0 = summ.statistics[0]
    tag = r.arm_interval_tag
    caption = (f"{_tex_escape(metric)} by arm ({munit}); {summ.level * 100:g}\\% {_tex_escape(summ.interval)} "
               "intervals over seeds.")
    header = f"Arm & Seeds & {_tex_escape(s0)} ({munit}) & {summ.level * 100:g}\\% CI ({munit}) \\\\"
    rows = []
    for arm in r.arms:
        base = f"arms.{arm}.{metric}.{s0}"
        rows.append(f"{_tex_escape(arm)} & {_tex_ref(r, f'arms.{arm}.n_seeds')} & {_tex_ref(r, base)} & "
                    f"[{_tex_ref(r, base + '.' + tag + '.low')}, {_tex_ref(r, base + '.' + tag + '.high')}] \\\\")
    return [""] + _tex_table(caption, "lrrr", header, rows)


def _tex_ci(r: AnalysisResult, pre: str, t0: str | None) -> str:
    """``[low, high]`` of the first planned interval as macros, ``--`` when the plan has none."""
    return f"[{_tex_ref(r, pre + '.' + t0 + '.low')}, {_tex_ref(r, pre + '.' + t0 + '.high')}]" if t0 else "--"


def _tex_table(caption: str, spec: str, header: str, rows: list[str]) -> list[str]:
    """A results table in the layout every table of results.tex shares (caption, rules, rows)."""
    return (["\\begin{table}[t]", "\\centering", f"\\caption{{{caption}}}", f"\\begin{{tabular}}{{{spec}}}",
             "\\hline", header, "\\hline"] + rows + ["\\hline", "\\end{tabular}", "\\end{table}", ""])


def _tex_contrast_table(r: AnalysisResult, munit: str, ctags: list) -> list[str]:
    """The contrast table: difference, first planned interval, p, adjusted p and verdict, as macros."""
    t0 = ctags[0][0] if ctags else None
    caption = (f"Paired contrasts (arm $-$ baseline, difference in {munit}); p adjusted by "
               f"{_tex_escape(r.plan.multiplicity.method)}.")
    header = (f"Contrast & $\\Delta$ ({munit}) & {ctags[0][1].level * 100:g}\\% CI & p & p adj. & Verdict \\\\"
              if ctags else "Contrast & $\\Delta$ & CI & p & p adj. & Verdict \\\\")
    rows = [f"{_tex_escape(c)} & {_tex_ref(r, f'contrasts.{c}.diff_mean')} & {_tex_ci(r, f'contrasts.{c}', t0)} & "
            f"{_tex_ref(r, f'contrasts.{c}.p')} & {_tex_ref(r, f'contrasts.{c}.p_adjusted')} & "
            f"\\{_verdict_tex_name(r, c)} \\\\" for c in r.contrasts]
    return _tex_table(caption, "lrrrrl", header, rows)


def _tex_secondary_table(r: AnalysisResult, metric: str, items: list, ctags: list) -> list[str]:
    """One secondary metric's contrast table (unadjusted p), as macros."""
    t0 = ctags[0][0] if ctags else None
    mu = _secondary_unit(r, metric, items)
    caption = (f"Secondary metric {_tex_escape(metric)} (not in the confirmatory family): paired contrasts "
               f"(arm $-$ baseline, difference in {mu}); p unadjusted.")
    header = (f"Contrast & $\\Delta$ ({mu}) & {ctags[0][1].level * 100:g}\\% CI & p (unadj.) & Verdict \\\\"
              if ctags else "Contrast & $\\Delta$ & CI & p (unadj.) & Verdict \\\\")
    rows = []
    for c, key in items:
        pre = f"contrasts.{c}.{metric}"
        rows.append(f"{_tex_escape(c)} & {_tex_ref(r, pre + '.diff_mean')} & {_tex_ci(r, pre, t0)} & "
                    f"{_tex_ref(r, pre + '.p')} & \\{_verdict_tex_name(r, key, secondary=True)} \\\\")
    return _tex_table(caption, "lrrrl", header, rows)


def render(analysis_path: str | Path, out_dir: str | Path = "report", *, runs_root: str | Path | None = None,
           overwrite: bool = False, model_cards: bool = False, hub_dir: str | Path | None = None,
           lock: str | Path | None = None, card_license: str | None = None, figures: bool = True) -> list[Path]:
    """Write report.md, results.tex and figures/*.png for an analysis.json; refuses to replace existing files.

    The file is read and checked once (:func:`stats.result.read_analysis`: a missing or mistyped
    field is one line naming the file and the field); :func:`render_result` writes the rest.

    Args:
        analysis_path: the analysis.json (``stats analyze``).
        out_dir, runs_root, overwrite, model_cards, hub_dir, lock, card_license, figures: as
            :func:`render_result`.

    Returns:
        The paths written: report.md, results.tex, then figures, cards and hub files.

    Raises:
        UserError: an unreadable or malformed analysis.json, or a file in the way.

    Example:
        >>> render("report/analysis.json", "report", figures=False)  # doctest: +SKIP
        [PosixPath('report/report.md'), PosixPath('report/results.tex')]
    """
    analysis_path = Path(analysis_path)
    return render_result(read_analysis(analysis_path), analysis_path, out_dir, runs_root=runs_root,
                         overwrite=overwrite, model_cards=model_cards, hub_dir=hub_dir, lock=lock,
                         card_license=card_license, figures=figures)


def render_result(result: AnalysisResult, analysis_path: Path, out_dir: str | Path = "report", *,
                  runs_root: str | Path | None = None, overwrite: bool = False, model_cards: bool = False,
                  hub_dir: str | Path | None = None, lock: str | Path | None = None, card_license: str | None = None,
                  figures: bool = True) -> list[Path]:
    """Write the report of a typed analysis whose bytes are at ``analysis_path`` (``result.digest``).

    Why ``analysis_path`` too: report.md pins the file's sha256, and the runs folder and lock the
    analysis names are found relative to it. ``figures=False`` (``stats render --no-figures``)
    writes the text only: matplotlib drawing is most of a render's time, and a headless/CI
    pipeline that only audits or diffs the numbers has no use for the PNGs; the report's warnings
    then say the figures were not drawn.

    Args:
        result: the analysis; its ``digest`` must be the sha256 of ``analysis_path``'s bytes.
        analysis_path: where its analysis.json lies.
        out_dir: the report folder.
        runs_root: the run folders (default: ``result.runs_root``, as given or relative to the analysis).
        overwrite: replace files an earlier render wrote.
        model_cards: also one Hugging Face model card per analysed run and one for the study under
            ``<out>/model_cards/`` (``stats.modelcard``); needs the run folders and the lock.
        hub_dir: lay out one upload-ready folder per run there (``stats.hubdir``; implies the cards).
        lock: the lock for the cards (default: analysis.json's ``lock.path``).
        card_license: the cards' license id.
        figures: draw the PNGs.

    Returns:
        The paths written: report.md, results.tex, then figures, cards and hub files.

    Raises:
        UserError: a file in the way, or cards asked of an imported analysis.

    Example:
        >>> r = read_analysis("report/analysis.json")  # doctest: +SKIP
        >>> render_result(r, Path("report/analysis.json"), "report", figures=False)[0]  # doctest: +SKIP
        PosixPath('report/report.md')
    """
    out = Path(out_dir)
    targets = _targets(out, figures, overwrite)
    cards = _prepare_cards(result, analysis_path, runs_root, lock, out, hub_dir, overwrite, card_license) \
        if (model_cards or hub_dir is not None) else None
    notes: list[str] = []
    if figures:
        make_dirs(out / "figures")
        drawn, written = draw_figures(result, analysis_path, out, targets, runs_root, overwrite, notes)
    else:
        make_dirs(out)
        drawn, written = [], []
        notes.append("figures: not drawn (--no-figures)")
    write_atomic(targets["md"], markdown(result, result.digest, drawn, notes), overwrite=overwrite)
    write_atomic(targets["tex"], latex(result, result.digest), overwrite=overwrite)
    if cards is not None:
        written += _write_cards(result, out, hub_dir, cards, overwrite)
    return [targets["md"], targets["tex"]] + written


def _targets(out: Path, figures: bool, overwrite: bool) -> dict[str, Path]:
    """The files a render writes, refused up front (before anything is written) when one is in the way."""
    targets = {"md": out / "report.md", "tex": out / "results.tex", "forest": out / "figures" / "forest.png",
               "reward": out / "figures" / "reward_curves.png", "zvf": out / "figures" / "zvf_curves.png"}
    if not figures:
        targets = {k: targets[k] for k in ("md", "tex")}
    if not overwrite:
        for p in targets.values():
            if p.exists():
                raise UserError(f"{p}: already exists; refusing to overwrite (choose another -o)")
    return targets


def _write_cards(result: AnalysisResult, out: Path, hub_dir, cards, overwrite: bool) -> list[Path]:
    """The model cards and, asked for, the upload-ready hub folders; returns the files written."""
    from stats.modelcard import write_cards

    texts, runs = cards
    written = write_cards(out, texts, runs, overwrite=overwrite)
    if hub_dir is not None:
        from stats.hubdir import write_hub_dir

        written += write_hub_dir(hub_dir, result, result.digest, texts, runs)
    return written


def _prepare_cards(result: AnalysisResult, analysis_path: Path, runs_root, lock, out: Path, hub_dir,
                   overwrite: bool, card_license: str | None = None):
    """Card texts and runs, computed (and every refusal made) before anything is written."""
    from stats.modelcard import card_lock, card_paths, card_runs, model_cards

    if result.source != "runs":
        raise UserError("--model-cards: the analysis is of an imported table; cards need the run folders")
    root = runs_folder(result, analysis_path, runs_root)
    if root is None:
        raise UserError(f"--model-cards: runs folder {result.runs_root!r} not found; pass --runs")
    runs = card_runs(result, root)
    texts = model_cards(result, result.digest, card_lock(result, analysis_path, lock).study, runs, card_license)
    if not overwrite:
        for p in card_paths(out, runs).values():
            if p.exists():
                raise UserError(f"{p}: already exists; refusing to overwrite (choose another -o)")
    if hub_dir is not None:
        from stats.hubdir import check_hub_dir

        check_hub_dir(hub_dir, runs)
    return texts, runs


def _item_section(r: AnalysisResult, d: _Doc, munit: str) -> list[str]:
    """Item-level table: cluster-robust tests first; pooled McNemar only with its caveat (README failure 17)."""
    L = ["## Item-level comparisons (seeds as clusters)", "",
         "Every seed scores the same held-out items, so the (seed, item) outcome pairs are clustered by seed "
         "and are not independent items. The cluster-robust t (CR1, t with G-1 df) and the wild cluster "
         "bootstrap keep that clustering.", "",
         f"| Contrast | Items (items) | (seed, item) pairs (count) | Δ per item (difference, {munit}) | "
         "Cluster-robust t p (probability) | Wild cluster bootstrap p (probability) |", "|---|---|---|---|---|---|"]
    for c in r.contrasts:
        pre = f"contrasts.{c}.item"
        L.append(f"| {_label_row(r, c)} | {d.cell(pre + '.n_items')} | {d.cell(pre + '.n_pairs')} | {d.cell(pre + '.diff_mean')} | "
                 f"{d.cell(pre + '.cluster_t.p')} | {d.cell(pre + '.cluster_sign_flip.p')} |")
    L.append("")
    kind = r.plan.item_level
    if kind == "mcnemar":
        L += _item_mcnemar(r, d)
    elif kind == "paired_bootstrap":
        from stats.items import POOLED_CAVEAT

        L += [f"**Caveat:** the pooled item bootstrap interval {POOLED_CAVEAT}.", ""]
    elif kind == "crossed_bootstrap":
        L += _item_crossed(r, d)
    return L


def _item_mcnemar(r: AnalysisResult, d: _Doc) -> list[str]:
    """The pooled McNemar table, under its caveat: it treats clustered (seed, item) pairs as independent."""
    from stats.items import POOLED_CAVEAT

    L = [f"**Caveat:** pooled McNemar {POOLED_CAVEAT}.", "",
         "| Contrast | Pooled McNemar p (probability) | Arm-only correct pairs (count) | "
         "Baseline-only correct pairs (count) |", "|---|---|---|---|"]
    for c in r.contrasts:
        pre = f"contrasts.{c}.item"
        L.append(f"| {_label_row(r, c)} | {d.cell(pre + '.mcnemar.p')} | {d.cell(pre + '.mcnemar.arm_only')} | "
                 f"{d.cell(pre + '.mcnemar.baseline_only')} |")
    return L + [""]


def _item_crossed(r: AnalysisResult, d: _Doc) -> list[str]:
    """The crossed (seed x item) bootstrap intervals, crossed-t and percentile, at every planned level."""
    tags = sorted({k.split(".")[-2] for k in r.values if ".item.crossed_t.ci" in k})
    L = ["Crossed (seed x item) bootstrap: seeds resampled, one item resample shared by every drawn seed "
         "(generalises to new seeds and new items).", "",
         "| Contrast | " + " | ".join(f"{t} crossed-t (difference)" for t in tags) + " | "
         + " | ".join(f"{t} crossed percentile (difference)" for t in tags) + " |",
         "|" + "---|" * (1 + 2 * len(tags))]
    for c in r.contrasts:
        pre = f"contrasts.{c}.item"
        L.append(f"| {_label_row(r, c)} | " + " | ".join(d.interval(f"{pre}.crossed_t.{t}") for t in tags) + " | "
                 + " | ".join(d.interval(f"{pre}.crossed_bootstrap.{t}") for t in tags) + " |")
    return L + [""]


def _effect_section(r: AnalysisResult, d: _Doc) -> list[str]:
    """Standardised effects with exact intervals, and family-wise (simultaneous) intervals next to adjusted p."""
    cs = [c for c in r.contrasts if f"contrasts.{c}.hedges_g" in r.values]
    if not cs:
        return []
    simul = any(f"contrasts.{c}.ci_simultaneous.low" in r.values for c in cs)
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
