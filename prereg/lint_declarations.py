"""Lint rules for what a plan declares about metrics, arms and contrasts (README failure 16).

Registered into ``prereg.lint.RULES`` when ``prereg.lint`` is imported. Each rule reads the
typed view of ``prereg.declarations`` so lint, stats and the audit agree on one meaning.
"""

from __future__ import annotations

import re
from collections import Counter

from prereg.declarations import label_index, normalise_label, planned_metrics
from prereg.lint import Finding, rule
from prereg.study import Study

_NATURAL = {"fraction": (0.0, 1.0), "percent": (0.0, 100.0)}


def _metric_findings(name: str, m, where: str) -> list[Finding]:
    out = []
    if m.range is not None and not m.range[0] < m.range[1]:
        out.append(Finding("declarations", f"{where}.range", f"metric {name!r}: range {list(m.range)} is empty"))
    nat = _NATURAL.get(m.unit) or ((0.0, m.max) if m.unit == "count" and m.max is not None else None)
    if m.range is not None and nat is not None and (m.range[0] < nat[0] or m.range[1] > nat[1]):
        out.append(Finding("declarations", f"{where}.range",
                           f"metric {name!r}: range {list(m.range)} exceeds what a {m.unit} can take "
                           f"[{nat[0]:g}, {nat[1]:g}]; values outside it would be accepted (README failure 14)"))
    if m.kind == "pass_at_k":
        if m.k is not None and m.n_samples is not None and m.k > m.n_samples:
            out.append(Finding("declarations", f"{where}.k",
                               f"metric {name!r}: pass@{m.k} needs at least k samples per item (n_samples "
                               f"{m.n_samples}); the unbiased estimator is undefined"))
        if m.unit not in ("fraction", "percent"):
            out.append(Finding("declarations", f"{where}.unit",
                               f"metric {name!r}: pass@k is a probability; declare unit fraction or percent"))
    return out


@rule("declarations")
def declarations(s: Study) -> list[Finding]:
    """Metric ranges that contradict their unit, pass@k with k > n, undeclared planned metrics,
    display labels that name two arms or two metrics, and reference arms that do not say what
    they are."""
    out: list[Finding] = []
    decls = dict(s.metrics)
    for name, m in decls.items():
        if m.declared:
            out.extend(_metric_findings(name, m, f"$.metrics.{name}"))
    for name in planned_metrics(s.raw):
        if name not in decls:
            out.append(Finding("declarations", "$.metrics",
                               f"planned metric {name!r} has no declaration: its unit is unknown, so a report's "
                               "'22.8%' for a 0.228 rate cannot be checked (README failure 10); declare its unit, "
                               "range, direction and labels under metrics"))
    for kind, idx in (("arm", label_index(dict(s.arm_decls))), ("metric", label_index(decls))):
        for key, names in sorted(idx.items()):
            if len(names) > 1:
                out.append(Finding("declarations", "$.arms" if kind == "arm" else "$.metrics",
                                   f"display label {key!r} names {kind}s {', '.join(names)}: a report using it "
                                   "cannot be traced to one of them"))
    greedy = s.evaluation.decoding == "greedy"
    for name, a in s.arm_decls.items():
        if a.is_reference and not (a.checkpoint or s.arms[name].description):
            out.append(Finding("declarations", f"$.arms.{name}",
                               f"reference arm {name!r} does not say what was evaluated; set checkpoint "
                               "(model id@revision, checkpoint path, or 'base')"))
        if a.is_reference and a.evaluated == "per_seed" and greedy:
            out.append(Finding("declarations", f"$.arms.{name}.evaluated",
                               f"reference arm {name!r} is evaluated per seed with greedy decoding: a fixed "
                               "checkpoint decoded greedily gives the same evaluation under every seed, i.e. one "
                               "evaluation copied to seeds (audit check 8 flags the identical traces); declare "
                               "evaluated: once, or sampled decoding"))
    return out + _session_findings(s)


_SEED_TAG = re.compile(r"(?:s|seed\s*)(\d+)", re.I)


def _session_findings(s: Study) -> list[Finding]:
    """Declared sessions a report could not be traced to (README failure 16): one named like a
    locked seed's tag with no labels ("s2" with seed 2: a report's "s2" reads as the seed unless the
    words say "session"), a label that reads as a seed's tag (a report's "s2" for seed 2 would be
    scoped to the session), and a label that also names an arm."""
    out, arms = [], label_index(dict(s.arm_decls))
    for name, d in s.sessions.items():
        m = _SEED_TAG.fullmatch(name.strip())
        if m and int(m.group(1)) in s.seeds and not d.labels:
            out.append(Finding("declarations", f"$.sessions.{name}",
                               f"session {name!r} is named like seed {m.group(1)}'s tag and declares no labels: a "
                               f"report's '{name}' reads as the seed unless its words say 'session'; declare the "
                               "labels people write for it"))
        for label in d.labels:
            m = _SEED_TAG.fullmatch(label.strip())
            if m and int(m.group(1)) in s.seeds:
                out.append(Finding("declarations", f"$.sessions.{name}.labels",
                                   f"session {name!r}'s label {label!r} reads as seed {m.group(1)}'s tag: a report "
                                   f"writing it for the seed would be checked against session {name!r}"))
            if arms.get(normalise_label(label)):
                out.append(Finding("declarations", f"$.sessions.{name}.labels",
                                   f"session {name!r}'s label {label!r} also names arm "
                                   f"{', '.join(arms[normalise_label(label)])}"))
    return out


@rule("contrast-plan")
def contrast_plan(s: Study) -> list[Finding]:
    """Declared contrasts naming unknown arms or hypotheses, an arm against itself, repeated
    ids, an exploratory contrast inside the confirmatory family, and reference contrasts whose
    planned unit cannot exist (a reference evaluated once has no seeds to pair)."""
    out: list[Finding] = []
    arms, unit, n_seeds = s.arm_decls, s.analysis.unit, len(s.seeds)
    hyps = {h.id: h for h in s.hypotheses}
    cs = s.contrasts
    for i, c in enumerate(cs):
        where = f"$.analysis.contrasts.pairs[{i}]" if s.analysis.pairs_declared else "$.arms"
        for side in ("arm", "baseline"):
            if getattr(c, side) not in arms:
                out.append(Finding("contrast-plan", f"{where}.{side}",
                                   f"contrast {c.id} names arm {getattr(c, side)!r}, which is not registered"))
        if c.arm == c.baseline:
            out.append(Finding("contrast-plan", where, f"contrast {c.id} compares arm {c.arm!r} with itself"))
        if c.hypothesis is not None and c.hypothesis not in hyps:
            out.append(Finding("contrast-plan", f"{where}.hypothesis",
                               f"contrast {c.id} names hypothesis {c.hypothesis!r}, which is not declared"))
        h = hyps.get(c.hypothesis)
        if h is not None and (h.arm, h.baseline) != (c.arm, c.baseline):
            out.append(Finding("contrast-plan", f"{where}.hypothesis",
                               f"contrast {c.id} ({c.arm} vs {c.baseline}) names hypothesis {h.id}, which "
                               f"compares {h.arm} with {h.baseline}"))
        if c.in_family and not c.confirmatory:
            out.append(Finding("contrast-plan", where,
                               f"contrast {c.id} is declared exploratory but listed in the multiplicity family"))
        b = arms.get(c.baseline)
        if b is not None and b.evaluated_once and unit == "seed":
            out.append(Finding("contrast-plan", where,
                               f"contrast {c.id}: baseline {c.baseline!r} is a reference evaluated once, so there "
                               "are no seed pairs; with analysis.unit 'seed' and per-item data it is analysed as "
                               "seed_item (seeds and items resampled, the reference's item-level uncertainty "
                               "kept), with per-seed values only each seed is compared with the reference's one "
                               "value held fixed (its sampling error ignored); plan unit seed_item to say which"))
    if unit == "seed" and n_seeds == 1:
        out.append(Finding("contrast-plan", "$.analysis.unit",
                           "unit 'seed' with one registered seed: every seed-level interval is undefined and no "
                           "verdict rule on an interval can hold; plan unit item (items as the unit) or more seeds"))
    if unit == "item" and n_seeds > 1 and any(
            c.arm in arms and c.baseline in arms and arms[c.arm].evaluated == "per_seed"
            and arms[c.baseline].evaluated == "per_seed" for c in cs):
        out.append(Finding("contrast-plan", "$.analysis.unit",
                           f"unit 'item' over {n_seeds} seeds treats the seeds as fixed: intervals ignore "
                           "seed-to-seed variation and over-reject when it is real (README failure 17); plan "
                           "seed_item (seeds and items resampled) or seed"))
    for cid, k in Counter(c.id for c in cs).items():
        if k > 1:
            out.append(Finding("contrast-plan", "$.analysis.contrasts.pairs", f"contrast id {cid!r} declared {k} times"))
    return out
