"""Design pitfalls in a (schema-valid) preregistration, reported before anything is locked.

Each rule is a plain function ``rule(study) -> list[Finding]`` registered in ``RULES``, reading the
typed :class:`prereg.study.Study` (parsed once by :func:`lint`; the plan's defaults live there);
each guards against a failure seen in public GRPO studies (README "What it prevents"), so a finding says
what would go wrong, not only what is missing. Findings are warnings; ``--strict`` makes
the CLI treat them as errors. Rules assume the document already passed the schema.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from prereg.errors import UserError
from prereg.rules import needs_off_policy
from prereg.schema import require_valid
from prereg.study import AnalysisPlan, Arm, Condition, Study, Training, study_of


@dataclass(frozen=True)
class Finding:
    rule: str
    path: str
    message: str
    severity: str = "warning"

    def line(self) -> str:
        return f"{self.severity}: {self.path}: {self.message} [{self.rule}]"

    def to_dict(self) -> dict:
        return asdict(self)


# Training fields whose TRL default has changed between releases (e.g. loss_type grpo -> bnpo
# -> dapo, scale_rewards bool -> "group"/"batch"/"none", beta 0.04 -> 0.0); leaving them
# unset makes the arm depend on whichever TRL is installed.
VOLATILE_DEFAULTS = ("loss_type", "scale_rewards", "beta", "epsilon", "epsilon_high",
                     "importance_sampling_level", "mask_truncated_completions", "num_iterations")

HF_COMMIT = re.compile(r"^[0-9a-f]{40}$")
TINY_PREFIX = "tiny:"
BUILTIN_DATASET_PREFIX = "synthetic/"

Rule = Callable[[Study], list]
RULES: dict[str, Rule] = {}
# The rule modules in the order their findings are listed. Registration order alone would depend on which
# module a program imported first (importing prereg.lint_inference before prereg.lint registers the
# declaration rules before the inference rules), so `lint` output would change order between programs.
_MODULE_ORDER = ("prereg.lint", "prereg.lint_inference", "prereg.lint_declarations", "prereg.lint_sequential")


def _keep_module_order() -> None:
    """Reorder RULES by :data:`_MODULE_ORDER` (stable: a module's rules keep their order in its file)."""
    rank = {m: i for i, m in enumerate(_MODULE_ORDER)}
    ordered = sorted(RULES.items(), key=lambda kv: rank.get(kv[1].__module__, len(rank)))
    RULES.clear()
    RULES.update(ordered)


def rule(rule_id: str):
    """Register a rule. Rules read the typed :class:`prereg.study.Study` (issue 15: no string-key
    reads of the plan outside prereg/study.py); the registered function also takes the raw dict,
    parsed once by :func:`lint` or here when a caller runs one rule alone."""
    def register(fn: Rule) -> Rule:
        @functools.wraps(fn)
        def run(s: Study | dict) -> list:
            return fn(s if isinstance(s, Study) else study_of(s))
        RULES[rule_id] = run
        run.rule_id = rule_id
        _keep_module_order()
        return run
    return register


def _arms(s: Study) -> dict[str, Arm]:
    """The trained arms: training rules never look at reference arms (README failure 16)."""
    return {a: s.arms[a] for a in s.trained_arms}


def _where(s: Study, arm: str, field: str) -> str:
    """Path of the place that sets ``field`` for ``arm`` (its change, else the shared setting)."""
    if field in s.arms[arm].changes:
        return f"$.arms.{arm}.changes.{field}"
    return f"$.training.{field}"


# ----------------------------------------------------------------------------- training
@rule("library-default")
def library_default(s: Study) -> list[Finding]:
    out = []
    for field in VOLATILE_DEFAULTS:
        missing = [a for a, spec in _arms(s).items() if field not in spec.training.fields]
        if missing:
            out.append(Finding(
                "library-default", f"$.training.{field}",
                f"not set for arm(s) {', '.join(missing)}; its TRL default has changed between releases, "
                f"so the arm would depend on the installed version — set it explicitly"))
    return out


@rule("gspo-on-policy")
def gspo_on_policy(s: Study) -> list[Finding]:
    out = []
    for arm, spec in _arms(s).items():
        if not needs_off_policy(spec.algorithm, spec.training.fields):
            continue
        if not spec.training.off_policy:
            out.append(Finding(
                "gspo-on-policy", f"$.arms.{arm}",
                "sequence-level importance sampling run fully on-policy (num_iterations 1, steps_per_generation "
                "unset or equal to gradient_accumulation_steps): every ratio is 1, so the arm is the same "
                "objective as GRPO; set num_iterations > 1 or steps_per_generation > gradient_accumulation_steps"))
    return out


def _or_default(value) -> str:
    return "library default" if value is None else value


@rule("dr-grpo-std-scaling")
def dr_grpo_std_scaling(s: Study) -> list[Finding]:
    out = []
    for arm, spec in _arms(s).items():
        if spec.algorithm != "dr_grpo":
            continue
        t = spec.training
        if t.scale_rewards != "none":
            out.append(Finding(
                "dr-grpo-std-scaling", _where(s, arm, "scale_rewards"),
                f"dr_grpo arm {arm!r} scales rewards by the std ({_or_default(t.scale_rewards)!r}); "
                "Dr. GRPO removes std scaling — set scale_rewards: \"none\""))
        if t.loss_type != "dr_grpo":
            out.append(Finding(
                "dr-grpo-std-scaling", _where(s, arm, "loss_type"),
                f"dr_grpo arm {arm!r} uses loss_type {_or_default(t.loss_type)!r}; "
                "Dr. GRPO's constant normalizer is loss_type \"dr_grpo\""))
    return out


def _expect(algorithm: str, t: Training) -> str | None:
    """Why an arm's merged settings do not implement its declared algorithm (None if they do)."""
    loss, isl = t.loss_type, t.importance_sampling_level
    if algorithm == "gspo" and isl not in ("sequence", "sequence_token"):
        return f"importance_sampling_level is {isl!r}, GSPO needs \"sequence\""
    if algorithm in ("grpo", "bnpo", "dapo") and isl != "token":
        return f"importance_sampling_level {isl!r} makes it GSPO-like, not {algorithm}"
    if algorithm in ("grpo", "bnpo", "dapo") and loss is not None and loss != algorithm:
        return f"loss_type is {loss!r}, {algorithm} needs {algorithm!r}"
    if algorithm == "dapo" and not (t.epsilon_high or 0) > (t.epsilon or 0):
        return "no clip-higher (epsilon_high > epsilon), which DAPO requires"
    if algorithm == "aero" and not t.declares_aero:
        return "no aero_* settings are declared"
    return None


@rule("arm-algorithm-mismatch")
def arm_algorithm_mismatch(s: Study) -> list[Finding]:
    out = []
    for arm, spec in _arms(s).items():
        why = _expect(spec.algorithm, spec.training)
        if why:
            out.append(Finding("arm-algorithm-mismatch", f"$.arms.{arm}",
                               f"arm {arm!r} is declared {spec.algorithm} but {why}"))
    return out


@rule("arm-identical-to-baseline")
def arm_identical_to_baseline(s: Study) -> list[Finding]:
    """A trained arm resolving to the settings of the trained baseline (or, when the baseline is a
    reference arm, of the first trained arm): its treatment is not wired. Reference arms are
    not trained, so they have no treatment to wire."""
    trained = s.trained_arms
    base = s.baseline_arm if s.baseline_arm in trained else (trained[0] if trained else None)
    if base is None:
        return []
    ref = s.arms[base].training.fields
    return [Finding("arm-identical-to-baseline", f"$.arms.{arm}.changes",
                    f"arm {arm!r} resolves to exactly the settings of {base!r}; its treatment is not wired")
            for arm in trained if arm != base and s.arms[arm].training.fields == ref]


# ----------------------------------------------------------------------------- structure
@rule("baseline-unknown")
def baseline_unknown(s: Study) -> list[Finding]:
    # A baseline that is not an arm is a validation error (prereg.crossfield); what is left to warn
    # about is a contrast baseline that is an arm but not the study's baseline_arm.
    out = []
    cb = s.analysis.contrast_baseline
    if cb is not None and cb != s.baseline_arm:
        out.append(Finding("baseline-unknown", "$.analysis.contrasts.baseline",
                           f"contrast baseline {cb!r} differs from baseline_arm {s.baseline_arm!r}"))
    return out


@rule("hypothesis-unknown-arm")
def hypothesis_unknown_arm(s: Study) -> list[Finding]:
    out = []
    pairs = {(c.arm, c.baseline) for c in s.contrasts}
    for i, h in enumerate(s.hypotheses):
        for key in ("arm", "baseline"):
            if getattr(h, key) not in s.arms:
                out.append(Finding("hypothesis-unknown-arm", f"$.hypotheses[{i}].{key}",
                                   f"hypothesis {h.id} names arm {getattr(h, key)!r}, which is not registered"))
        if (h.arm, h.baseline) not in pairs and h.baseline in s.arms and h.arm != h.baseline:
            planned = ", ".join(f"{a} vs {b}" for a, b in sorted(pairs)) or "none"
            out.append(Finding("hypothesis-unknown-arm", f"$.hypotheses[{i}].baseline",
                               f"hypothesis {h.id} compares {h.arm} against {h.baseline!r}, which is not a "
                               f"planned contrast (planned: {planned}); declare it in analysis.contrasts.pairs"))
        if h.arm == h.baseline:
            out.append(Finding("hypothesis-unknown-arm", f"$.hypotheses[{i}]",
                               f"hypothesis {h.id} compares arm {h.arm!r} with itself"))
    return out


@rule("hypothesis-direction")
def hypothesis_direction(s: Study) -> list[Finding]:
    alt = s.analysis.alternative
    return [Finding("hypothesis-direction", f"$.hypotheses[{i}].direction",
                    f"hypothesis {h.id} is {h.direction} but the planned test is {alt}; "
                    "the test would not answer the hypothesis as stated")
            for i, h in enumerate(s.hypotheses) if h.direction != alt]


@rule("multiplicity-family")
def multiplicity_family(s: Study) -> list[Finding]:
    m = s.analysis.multiplicity
    out = []
    known = {c.id for c in s.contrasts}
    for i, c in enumerate(m.family):
        if c not in known:
            out.append(Finding("multiplicity-family", f"$.analysis.multiplicity.family[{i}]",
                               f"{c!r} is not a planned contrast (planned: {', '.join(sorted(known)) or 'none'})"))
    dup = [c for c, k in Counter(m.family).items() if k > 1]
    if dup:
        out.append(Finding("multiplicity-family", "$.analysis.multiplicity.family",
                           f"contrast(s) listed twice: {', '.join(dup)}"))
    if m.method != "none":
        if not m.family:
            out.append(Finding("multiplicity-family", "$.analysis.multiplicity.family",
                               f"method {m.method} declared over an empty family; the correction would not apply"))
        by_h = {c.hypothesis: c.id for c in s.contrasts if c.hypothesis}
        for i, h in enumerate(s.hypotheses):
            c = by_h.get(h.id, f"{h.arm}-{h.baseline}")
            if m.family and c in known and c not in m.family:
                out.append(Finding("multiplicity-family", f"$.hypotheses[{i}]",
                                   f"hypothesis {h.id} ({c}) is outside the {m.method} family; "
                                   "its p value would go uncorrected"))
    elif len(s.hypotheses) > 1:
        out.append(Finding("multiplicity-family", "$.analysis.multiplicity.method",
                           f"{len(s.hypotheses)} hypotheses with no multiplicity correction"))
    return out


@rule("heldout-is-train")
def heldout_is_train(s: Study) -> list[Finding]:
    d = s.dataset
    if d.heldout_split != d.train_split:
        return []
    return [Finding("heldout-is-train", "$.dataset.heldout_split",
                    f"held-out split {d.heldout_split!r} is the training split; held-out accuracy would be "
                    "training accuracy")]


# ----------------------------------------------------------------------------- pinning
def _pinned_hf(rev) -> bool:
    return isinstance(rev, str) and bool(HF_COMMIT.match(rev))


@rule("unpinned-revision")
def unpinned_revision(s: Study) -> list[Finding]:
    out = []
    model = s.model
    if not model.name.startswith(TINY_PREFIX) and not _pinned_hf(model.revision):
        out.append(Finding("unpinned-revision", "$.model.revision",
                           f"model {model.name!r} revision {model.revision!r} is not a 40-hex commit; "
                           "a branch or tag can move after locking"))
    d = s.dataset
    rev = d.revision
    if d.name.startswith(BUILTIN_DATASET_PREFIX) or d.path:
        # Built into the project (versioned by the project) or a local file: a label is enough,
        # but there must be one, and it must not be a moving branch name.
        if not rev or rev in ("main", "master", "latest", "head", "HEAD"):
            out.append(Finding("unpinned-revision", "$.dataset.revision",
                               f"dataset {d.name!r} has no fixed revision label ({rev!r})"))
    elif not _pinned_hf(rev):
        out.append(Finding("unpinned-revision", "$.dataset.revision",
                           f"dataset {d.name!r} revision {rev!r} is not a 40-hex commit; "
                           "a branch or tag can move after locking"))
    return out


# ----------------------------------------------------------------------------- power
EQUIVALENCE_CHECKS = ("interval_within_margin", "tost_equivalent", "mde_at_most_margin")


@rule("seeds-underpowered")
def seeds_underpowered(s: Study) -> list[Finding]:
    from prereg import power as pw

    plan = s.analysis
    spec = plan.power
    if spec is None or spec.pilot_sd is None:
        return []
    if spec.effect is None and any(r.checks & set(EQUIVALENCE_CHECKS) for r in plan.verdict_rules):
        return []  # the margin is an equivalence margin: equivalence-power reports the verdict's own power
    effect = plan.effect_of_interest
    if effect is None:
        return [Finding("seeds-underpowered", "$.analysis.power",
                        "pilot_sd is declared but neither power.effect nor equivalence_margin; "
                        "the seed count cannot be checked")]
    alt = plan.alternative
    n_seeds = len(s.seeds)
    need = pw.n_required_paired(effect, spec.pilot_sd, spec.alpha, spec.target, alt)
    if n_seeds >= need:
        return []
    achieved = pw.power_paired(effect if alt != "less" else -effect, spec.pilot_sd, n_seeds,
                               spec.alpha, alt) if n_seeds >= 2 else float("nan")
    return [Finding("seeds-underpowered", "$.seeds",
                    f"{n_seeds} seeds give power {achieved:.2f} for effect {effect:g} at pilot SD "
                    f"{spec.pilot_sd:g} (paired {alt} t, alpha {spec.alpha:g}, exact noncentral t); "
                    f"the target {spec.target:g} needs {need}")]


@rule("power-normal-approximation")
def power_normal_approximation(s: Study) -> list[Finding]:
    spec = s.analysis.power
    if spec is None or spec.method != "normal_approximation":
        return []
    return [Finding("power-normal-approximation", "$.analysis.power.method",
                    "the normal approximation overstates power at a handful of seeds (it ignores the t "
                    "distribution's tails); exact_noncentral_t is the accurate choice")]


# ----------------------------------------------------------------------------- analysis plan
_MARGIN_CHECKS = ("interval_within_margin", "mde_at_most_margin", "tost_equivalent")
_LEVEL_CHECKS = ("upper_below", "lower_above", "interval_within_margin", "lower_reaches_fraction_of_published")


def _condition_findings(a: AnalysisPlan, c: Condition, where: str, levels: set) -> list[Finding]:
    out = []
    if c.check in _MARGIN_CHECKS and a.equivalence_margin is None:
        out.append(Finding("verdict-plan", where, f"{c.check} needs analysis.equivalence_margin"))
    if c.check == "mde_at_most_margin" and a.power is None:
        out.append(Finding("verdict-plan", where, "mde_at_most_margin needs analysis.power"))
    if c.level is not None and c.check in _LEVEL_CHECKS and c.level not in levels:
        out.append(Finding("verdict-plan", where,
                           f"uses a {c.level:g} interval that analysis.contrasts.intervals does not plan"))
    if c.check == "multiplicity_rejects" and a.multiplicity.method == "none":
        out.append(Finding("verdict-plan", where, "multiplicity_rejects with multiplicity method none"))
    return out


@rule("verdict-plan")
def verdict_plan(s: Study) -> list[Finding]:
    a = s.analysis
    out = []
    levels = {iv.level for iv in a.intervals}
    for i, v in enumerate(a.verdict_rules):
        for j, c in enumerate(v.when):
            out.extend(_condition_findings(a, c, f"$.analysis.verdicts[{i}].when[{j}]", levels))
    if a.verdict_rules and a.verdict_rules[-1].when:
        out.append(Finding("verdict-plan", f"$.analysis.verdicts[{len(a.verdict_rules) - 1}]",
                           "the last verdict has conditions; a contrast matching none would get no verdict "
                           "(end with a catch-all such as INCONCLUSIVE with when: [])"))
    return out


@rule("metric-mismatch")
def metric_mismatch(s: Study) -> list[Finding]:
    known = set(s.analysis.metrics)
    return [Finding("metric-mismatch", f"$.hypotheses[{i}].metric",
                    f"hypothesis {h.id} tests {h.metric!r}, which the analysis plan does not compute")
            for i, h in enumerate(s.hypotheses) if h.metric not in known]


# ----------------------------------------------------------------------------- evaluation
@rule("eval-decoding")
def eval_decoding(s: Study) -> list[Finding]:
    e = s.evaluation
    if e.decoding == "sample" and e.temperature is None:
        return [Finding("eval-decoding", "$.evaluation.temperature",
                        "sampled evaluation without a temperature; the backend default would decide it")]
    if e.decoding == "greedy" and e.temperature not in (None, 0):
        return [Finding("eval-decoding", "$.evaluation.temperature",
                        f"temperature {e.temperature:g} is ignored by greedy decoding")]
    return []


@rule("eval-shorter-than-training")
def eval_shorter_than_training(s: Study) -> list[Finding]:
    e = s.evaluation
    longest = max([(spec.training.max_completion_length or 0) for spec in _arms(s).values()] or [0])
    if longest and e.max_new_tokens < longest:
        return [Finding("eval-shorter-than-training", "$.evaluation.max_new_tokens",
                        f"held-out answers are cut at {e.max_new_tokens} tokens but training allows {longest}; "
                        "answers the policy learned to give could be truncated and scored wrong")]
    return []


# inference rules (coverage, verdict symmetry, multiplicity, equivalence power) live in their own module
from prereg import lint_inference  # noqa: E402,F401  (registers its rules)


# ----------------------------------------------------------------------------- API
def lint(prereg: dict, rules: list[str] | None = None) -> list[Finding]:
    """All findings of the selected rules (all by default), in rule order then path.

    Args:
        prereg: a schema-valid preregistration; parsed once into a :class:`prereg.study.Study`.
        rules: rule ids to run (all when None).

    Returns:
        The findings.

    Example:
        >>> lint(prereg, ["heldout-is-train"])  # doctest: +SKIP
        []
    """
    study = study_of(prereg)
    out: list[Finding] = []
    for rid, fn in RULES.items():
        if rules is None or rid in rules:
            out.extend(fn(study))
    return out


def lint_file(path: str | Path) -> list[Finding]:
    """Validate (one-line error when invalid) and lint a preregistration, or the one inside a lock."""
    from prereg.diff import read_document

    doc = read_document(path)
    where = f"{path} (preregistration)" if doc.lock is not None else str(path)
    require_valid(doc.prereg, "preregistration", where)
    from prereg.crossfield import task_errors

    errs = task_errors(doc.prereg)  # lint refuses what validate and lock refuse
    if errs:
        raise UserError(f"{where}: {errs[0]}")
    return lint(doc.prereg)


# rules kept in their own modules register themselves on import (after rule/Finding exist)
import prereg.lint_declarations  # noqa: E402,F401
import prereg.lint_sequential  # noqa: E402,F401
