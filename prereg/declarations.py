"""What a preregistration declares about its metrics, arms and contrasts, as typed values.

A study is described as it was run (README failure 16): a metric has a unit, a range, a
better direction and the display names people write for it; an arm is either trained by
the runner or a reference (a base model, an SFT checkpoint) the runner never trains; the
contrasts are a declared list of (arm, baseline) pairs, several baselines allowed. These
pure functions read a schema-valid preregistration (or a lock's ``prereg``) and return
frozen dataclasses, so `stats`, `lint`, `render` and the audit read one interpretation
instead of re-parsing the dict each in its own way. Old plans (no ``metrics``, no arm
``kind``, one baseline) get exactly their old meaning. Torch-free.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass

UNITS = ("fraction", "percent", "count", "real")
KINDS = ("mean", "pass_at_k", "curve_auc", "curve_at_step")  # curve_*: stats/curves.py
CURVE_KINDS = ("curve_auc", "curve_at_step")


@dataclass(frozen=True)
class CurveSpec:
    """Where a learning-curve metric (``kind: curve_*``, :mod:`stats.curves`) reads its number:
    the telemetry ``field``, and for ``curve_at_step`` the ``step`` and the ``window`` of steps
    ending there that are averaged. The defaults are the plan's when it leaves them out."""

    field: str = "reward_mean"
    step: int | None = None
    window: int = 1


@dataclass(frozen=True)
class MetricDecl:
    """One metric: how its numbers are written and read.

    ``range`` is ``None`` when unbounded or unknown (a ``real`` metric declared without one,
    a run-folder count); ``max`` is set for declared counts; ``k``/``n_samples`` for pass@k. ``declared`` says whether the plan wrote it
    (False: a task default).
    """

    name: str
    unit: str
    max: float | None
    range: tuple[float, float] | None
    higher_is_better: bool
    labels: tuple[str, ...]
    kind: str = "mean"
    k: int | None = None
    n_samples: int | None = None
    column: str | None = None
    declared: bool = True
    curve: CurveSpec | None = None      # set exactly for the learning-curve kinds

    @property
    def source_column(self) -> str:
        """The imported-table column holding this metric (its ``column``, else its name)."""
        return self.column or self.name


@dataclass(frozen=True)
class ArmDecl:
    """One arm: ``kind`` trained (run by ``runner``) or reference (evaluated only).

    ``evaluated`` is ``per_seed`` for trained arms; for a reference, ``once`` (one
    evaluation, no seed: default) or ``per_seed``.
    """

    name: str
    kind: str
    labels: tuple[str, ...]
    evaluated: str
    algorithm: str | None = None
    checkpoint: str | None = None

    @property
    def is_reference(self) -> bool:
        return self.kind == "reference"

    @property
    def evaluated_once(self) -> bool:
        """One evaluation with no seed (a reference arm with ``evaluated: once``, the default for a
        reference): its run folder is ``<arm>/once`` and it pairs with every seed of a contrast."""
        return self.is_reference and self.evaluated == "once"


@dataclass(frozen=True)
class ContrastDecl:
    """One declared (arm, baseline) contrast.

    ``confirmatory`` False marks an exploratory contrast; ``in_family`` says whether the
    multiplicity family lists its id; ``sign`` is how the difference is reported.
    """

    id: str
    arm: str
    baseline: str
    hypothesis: str | None
    confirmatory: bool
    in_family: bool
    sign: str = "arm_minus_baseline"

    @property
    def reported_sign(self) -> int:
        """+1 when the report quotes arm - baseline, -1 for baseline - arm."""
        return 1 if self.sign == "arm_minus_baseline" else -1


# Run-folder metrics: what the runner writes, with the unit the task gives them. The one name
# list: a unit here is only the default for a study that declares none (``metrics``), read through
# task_default / unit_of by lint, stats (``stats.load.UNITS``) and the coverage rule.
RUN_METRICS = {
    "heldout_accuracy": ("fraction", True, ("held-out accuracy", "accuracy")),
    "heldout_reward_mean": ("real", True, ("held-out reward", "mean held-out reward")),
    "zvf_mean": ("fraction", False, ("ZVF", "zero-variance fraction")),
    "gu_mean": ("fraction", True, ("GU", "gradient utilisation")),
    "reward_first5": ("real", True, ()),
    "reward_last10": ("real", True, ()),
    "heldout_correct": ("count", True, ("correct items",)),
    "rollouts": ("count", True, ()),
    "steps": ("count", True, ()),
}


def normalise_label(text: str) -> str:
    """Fold a display name so the ways people write one name compare equal.

    Case, Unicode compatibility forms, punctuation, underscores, hyphens and whitespace are
    dropped; letters and digits are kept in order.

    Args:
        text: a display name as written in a report or a column header.

    Returns:
        The folded key (lower-case letters and digits only).

    Example:
        >>> normalise_label("Dr. GRPO") == normalise_label("dr_grpo") == normalise_label("drgrpo")
        True
    """
    folded = unicodedata.normalize("NFKC", str(text)).casefold()
    return "".join(ch for ch in folded if ch.isalnum())


def _default_range(unit: str, mx: float | None) -> tuple[float, float] | None:
    return {"fraction": (0.0, 1.0), "percent": (0.0, 100.0)}.get(unit) or ((0.0, float(mx)) if unit == "count"
                                                                          and mx is not None else None)


def _metric_from(name: str, d: dict) -> MetricDecl:
    unit = d["unit"]
    mx = float(d["max"]) if d.get("max") is not None else None
    rng = tuple(float(x) for x in d["range"]) if d.get("range") else _default_range(unit, mx)
    kind = d.get("kind", "mean")
    curve = None
    if kind in CURVE_KINDS:
        curve = CurveSpec(**{k: d[k] for k in ("field", "step", "window") if d.get(k) is not None})
    return MetricDecl(name=name, unit=unit, max=mx, range=rng, higher_is_better=d.get("higher_is_better", True),
                      labels=tuple(d.get("labels", ())), kind=kind, k=d.get("k"),
                      n_samples=d.get("n_samples"), column=d.get("column"), curve=curve)


def task_default(name: str, reward_range: tuple[float, float] | None = None) -> MetricDecl | None:
    """The declaration a run-folder metric gets when the plan declares none.

    Args:
        name: a metric the runner writes (``heldout_accuracy``, ``zvf_mean``, ...).
        reward_range: the task's (min_reward, max_reward), bounding reward metrics when known.

    Returns:
        A ``MetricDecl`` with ``declared=False``, or ``None`` for a metric the runner does not write.

    Example:
        >>> task_default("heldout_accuracy").unit
        'fraction'
    """
    if name not in RUN_METRICS:
        return None
    unit, better, labels = RUN_METRICS[name]
    rng = _default_range(unit, None)
    if unit == "real" and name.startswith(("heldout_reward", "reward_")) and reward_range is not None:
        rng = (float(reward_range[0]), float(reward_range[1]))
    return MetricDecl(name=name, unit=unit, max=None, range=rng, higher_is_better=better, labels=labels,
                      declared=False)


def planned_metrics(prereg: dict) -> list[str]:
    """The metrics the plan analyses: primary, secondary, then any a hypothesis names (declaration order).

    Args:
        prereg: a schema-valid preregistration.

    Returns:
        Metric names without repeats, primary first.

    Example:
        >>> planned_metrics({"analysis": {"primary_metric": "acc"}, "hypotheses": [{"metric": "gc"}]})
        ['acc', 'gc']
    """
    plan = prereg["analysis"]
    out: list[str] = []
    for m in [plan["primary_metric"], *plan.get("secondary_metrics", []),
              *(h["metric"] for h in prereg.get("hypotheses", []))]:
        if m not in out:
            out.append(m)
    return out


def metric_decls(prereg: dict, *, reward_range: tuple[float, float] | None = None,
                 task_metrics: dict | None = None) -> dict[str, MetricDecl]:
    """Every metric's declaration: the plan's ``metrics``, then task defaults for run-folder metrics.

    A planned metric neither declared nor written by the runner is absent from the result
    (its unit is unknown: callers treat it as undeclared).

    Args:
        prereg: a schema-valid preregistration (a lock's ``prereg``).
        reward_range: the task's reward bounds, for the defaults of reward metrics.
        task_metrics: the per-item metrics a task declares in a run manifest (``task.item_metrics``:
            name -> {"unit", "max"/"range"}), used for metrics the plan does not declare.

    Returns:
        Metric name -> ``MetricDecl``; declared metrics first in plan order, then defaults.

    Example:
        >>> p = {"analysis": {"primary_metric": "gc"}, "metrics": {"gc": {"unit": "count", "max": 4}}}
        >>> metric_decls(p)["gc"].range
        (0.0, 4.0)
    """
    out = {name: _metric_from(name, d) for name, d in (prereg.get("metrics") or {}).items()}
    for name, d in (task_metrics or {}).items():
        if name not in out and isinstance(d, dict) and d.get("unit") in UNITS:
            out[name] = MetricDecl(**{**vars(_metric_from(name, d)), "declared": False})
    for name in [*planned_metrics(prereg), *RUN_METRICS]:
        if name not in out:
            dflt = task_default(name, reward_range)
            if dflt is not None:
                out[name] = dflt
    return out


def unit_of(metric: str, decls: dict[str, MetricDecl] | None = None) -> str | None:
    """A metric's unit: its declaration's (the plan's ``metrics``, or a task's), else the task default
    of a run-folder metric (:func:`task_default`, the one name list), else None (unknown).

    The one answer ``prereg lint`` and ``stats analyze`` use to pick a metric's data shape in the
    coverage table (:func:`prereg.coverage_table.shapes`): a study's declared unit wins over any
    name, and a name decides only where the study declares nothing.

    Args:
        metric: the metric's name.
        decls: the result of :func:`metric_decls` (None: no declarations, task defaults only).

    Returns:
        ``fraction``, ``percent``, ``count``, ``real``, or None.

    Example:
        >>> p = {"analysis": {"primary_metric": "pass_rate"}, "metrics": {"pass_rate": {"unit": "percent"}}}
        >>> unit_of("heldout_accuracy"), unit_of("pass_rate"), unit_of("pass_rate", metric_decls(p))
        ('fraction', None, 'percent')
    """
    d = (decls or {}).get(metric) or task_default(metric)
    return None if d is None else d.unit


def arm_decls(prereg: dict) -> dict[str, ArmDecl]:
    """Every arm's kind, display labels and evaluation schedule, in lock order.

    Args:
        prereg: a schema-valid preregistration.

    Returns:
        Arm name -> ``ArmDecl``. An arm without ``kind`` is trained (the old form).

    Example:
        >>> p = {"arms": {"base": {"kind": "reference", "labels": ["Base model"]},
        ...               "grpo": {"algorithm": "grpo", "changes": {}}}}
        >>> [(a.name, a.kind, a.evaluated) for a in arm_decls(p).values()]
        [('base', 'reference', 'once'), ('grpo', 'trained', 'per_seed')]
    """
    out = {}
    for name, d in prereg["arms"].items():
        kind = d.get("kind", "trained")
        out[name] = ArmDecl(name=name, kind=kind, labels=tuple(d.get("labels", ())),
                            evaluated=d.get("evaluated", "once") if kind == "reference" else "per_seed",
                            algorithm=d.get("algorithm"), checkpoint=d.get("checkpoint"))
    return out


def default_baseline(prereg: dict) -> str:
    """The single baseline of the old form: ``analysis.contrasts.baseline``, else ``baseline_arm``."""
    return prereg["analysis"]["contrasts"].get("baseline") or prereg["baseline_arm"]


def _hypothesis_for(prereg: dict, arm: str, base: str) -> str | None:
    primary = prereg["analysis"]["primary_metric"]
    hs = [h for h in prereg.get("hypotheses", []) if h["arm"] == arm and h["baseline"] == base]
    hs.sort(key=lambda h: h["metric"] != primary)
    return hs[0]["id"] if hs else None


def contrast_decls(prereg: dict) -> list[ContrastDecl]:
    """The plan's contrasts: the declared ``analysis.contrasts.pairs``, else each arm vs the one baseline.

    Without ``pairs`` (the old form) every arm other than the baseline is contrasted with
    it, all confirmatory, reported as arm - baseline: exactly the old meaning. A contrast's
    hypothesis is the one it names, else the first hypothesis on the same (arm, baseline),
    primary metric first.

    Args:
        prereg: a schema-valid preregistration.

    Returns:
        ``ContrastDecl`` list in declaration (or lock arm) order.

    Example:
        >>> p = {"arms": {"grpo": {}, "sft": {}, "base": {}}, "baseline_arm": "base",
        ...      "hypotheses": [], "analysis": {"primary_metric": "acc", "multiplicity": {"family": ["grpo-base"]},
        ...      "contrasts": {"pairs": [{"arm": "grpo", "baseline": "base"},
        ...                              {"arm": "grpo", "baseline": "sft", "confirmatory": False}]}}}
        >>> [(c.id, c.confirmatory, c.in_family) for c in contrast_decls(p)]
        [('grpo-base', True, True), ('grpo-sft', False, False)]
    """
    plan = prereg["analysis"]
    family = set(plan.get("multiplicity", {}).get("family", []))
    pairs = plan["contrasts"].get("pairs")
    if pairs is None:
        base = default_baseline(prereg)
        pairs = [{"arm": a, "baseline": base} for a in prereg["arms"] if a != base]
    out = []
    for d in pairs:
        cid = d.get("id") or f"{d['arm']}-{d['baseline']}"
        out.append(ContrastDecl(id=cid, arm=d["arm"], baseline=d["baseline"],
                                hypothesis=d.get("hypothesis") or _hypothesis_for(prereg, d["arm"], d["baseline"]),
                                confirmatory=d.get("confirmatory", True), in_family=cid in family,
                                sign=d.get("sign", "arm_minus_baseline")))
    return out


@dataclass(frozen=True)
class SessionDecl:
    """One declared evaluation session: its name as the data write it (``runner run --session``, a
    table's ``session`` column), the display labels a report writes for it and what it is."""

    name: str
    labels: tuple[str, ...]
    description: str = ""


def session_decls(prereg: Mapping) -> dict[str, SessionDecl]:
    """The plan's declared evaluation sessions (``sessions``), in order; empty when it declares none.

    Args:
        prereg: a schema-valid preregistration.

    Returns:
        Session name -> :class:`SessionDecl`.

    Example:
        >>> p = {"sessions": {"s1": {}, "s2": {"labels": ["re-evaluation at T=0.6"]}}}
        >>> [(d.name, d.labels) for d in session_decls(p).values()]
        [('s1', ()), ('s2', ('re-evaluation at T=0.6',))]
    """
    return {name: SessionDecl(name, tuple((d or {}).get("labels", ())), (d or {}).get("description", ""))
            for name, d in (prereg.get("sessions") or {}).items()}


def label_index(decls: dict) -> dict[str, list[str]]:
    """Folded display name -> the names of the arms or metrics it can mean.

    Each declaration answers to its own name and to every label; a key with two names is
    ambiguous (lint reports it).

    Args:
        decls: the result of ``arm_decls`` or ``metric_decls``.

    Returns:
        ``normalise_label(text)`` -> sorted list of declaration names.

    Example:
        >>> idx = label_index(arm_decls({"arms": {"dr_grpo": {"labels": ["Dr. GRPO"]}}}))
        >>> idx[normalise_label("DR-GRPO")]
        ['dr_grpo']
    """
    out: dict[str, set[str]] = {}
    for name, d in decls.items():
        for text in (name, *d.labels):
            key = normalise_label(text)
            if key:
                out.setdefault(key, set()).add(name)
    return {k: sorted(v) for k, v in out.items()}


def resolve_label(decls: dict, text: str) -> str | None:
    """The one arm or metric a display name means, or ``None`` when unknown or ambiguous.

    Args:
        decls: the result of ``arm_decls`` or ``metric_decls``.
        text: a name as a report writes it ("SFT baseline", "Held-out GSM8K accuracy").

    Returns:
        The declaration's name, or ``None``.

    Example:
        >>> resolve_label(arm_decls({"arms": {"sft": {"kind": "reference", "labels": ["SFT baseline"]}}}),
        ...               "sft-baseline")
        'sft'
    """
    names = label_index(decls).get(normalise_label(text), [])
    return names[0] if len(names) == 1 else None



def _arms_and_seeds(plan) -> tuple[Mapping[str, ArmDecl], tuple]:
    """(arm declarations, registered seeds) of a raw preregistration (parsed here) or of a parsed
    :class:`prereg.study.Study` (its ``arm_decls`` and ``seeds``, parsed once: a caller asking per
    run folder does not re-parse the arms for each)."""
    if isinstance(plan, Mapping):
        return arm_decls(plan), tuple(plan.get("seeds", ()))
    return plan.arm_decls, tuple(plan.seeds)


def unregistered_reason(prereg, arm, seed, kind=None) -> str | None:
    """Why a run record is not a registered evaluation of the plan, or None when it is.

    The one rule (read by stats, the audit's completeness, source and exploratory checks): a
    trained arm's record is a training run (``kind`` absent or ``trained``) with a registered
    seed; a reference arm's is a reference evaluation (``kind: reference``, ``runner
    evaluate``) with no seed when it is evaluated once and a registered seed when evaluated
    per seed (README failure 16: no invented seeds, no trained "reference").

    Args:
        prereg: a schema-valid preregistration, or its parsed :class:`prereg.study.Study`.
        arm, seed, kind: the manifest's ``arm``, ``seed`` and ``kind`` (any JSON value).

    Returns:
        A short reason, or None.

    Example:
        >>> p = {"arms": {"base": {"kind": "reference"}, "grpo": {"algorithm": "grpo", "changes": {}}}, "seeds": [1]}
        >>> unregistered_reason(p, "base", None, "reference") is None, unregistered_reason(p, "base", 1, "reference")
        (True, "seed 1 for reference arm 'base', which is evaluated once (no seed)")
    """
    decls, seeds = _arms_and_seeds(prereg)
    if not isinstance(arm, str) or arm not in decls:
        return f"unregistered arm {arm!r}"
    decl, ref = decls[arm], kind == "reference"
    if ref != decl.is_reference:
        return (f"a reference evaluation of trained arm {arm!r}" if ref
                else f"a training run of reference arm {arm!r} (reference arms are evaluated, never trained)")
    if decl.evaluated_once:
        return None if seed is None else f"seed {seed!r} for reference arm {arm!r}, which is evaluated once (no seed)"
    registered = isinstance(seed, int) and not isinstance(seed, bool) and seed in seeds
    return None if registered else f"unregistered seed {seed!r}"


def registered_evaluations(prereg) -> list[tuple[str, int | None]]:
    """Every (arm, seed) evaluation the plan registers: trained arms and per-seed references on
    every seed, a reference evaluated once as ``(arm, None)``. ``prereg``: the raw preregistration
    or its parsed :class:`prereg.study.Study`.

    Example:
        >>> registered_evaluations({"arms": {"base": {"kind": "reference"}, "g": {}}, "seeds": [1, 2]})
        [('base', None), ('g', 1), ('g', 2)]
    """
    decls, seeds = _arms_and_seeds(prereg)
    out: list[tuple[str, int | None]] = []
    for a, d in decls.items():
        out.extend([(a, None)] if d.evaluated_once else [(a, s) for s in seeds])
    return out
