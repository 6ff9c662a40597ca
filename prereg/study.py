"""The validated preregistration, parsed once into frozen dataclasses with its defaults.

Readers used to look fields up by string keys in the preregistration dict, each with its own
default (``.get("unit", "seed")`` here, ``["unit"]`` there). :func:`study_of` reads it once:
arms (with their merged training view and the declarations of :mod:`prereg.declarations`),
training, evaluation, the analysis plan, metrics and contrasts. A :class:`prereg.lock.Lock`
gives it as ``lock.study``. Torch-free.

Example:
    >>> s = study_of(prereg)  # doctest: +SKIP
    >>> s.arms["gspo"].training.num_iterations, s.analysis.multiplicity.method  # doctest: +SKIP
    (2, 'holm')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from prereg.declarations import (
    ArmDecl,
    ContrastDecl,
    MetricDecl,
    SessionDecl,
    arm_decls,
    contrast_decls,
    metric_decls,
    session_decls,
)
from prereg.fields import merged_fields
from prereg.rules import off_policy, study_seeds

IMPORTANCE_SAMPLING_LEVEL = "token"   # TRL's importance_sampling_level when the plan does not lock it


def _frozen(d: Mapping | None) -> Mapping:
    return MappingProxyType(dict(d or {}))


@dataclass(frozen=True)
class Training:
    """One arm's training settings (shared settings with the arm's changes applied). A field left
    unlocked is None (TRL's default of the installed release decides it; lint's library-default
    rule names the volatile ones), except where the runner and lint agree on one default here."""

    fields: Mapping[str, Any]     # every locked field, by its preregistration name
    max_steps: int | None
    prompts_per_step: int | None
    num_generations: int | None
    gradient_accumulation_steps: int   # TRL's default 1 when not locked
    steps_per_generation: int | None   # None: TRL's default, one update's worth
    num_iterations: int                # TRL's default 1 when not locked
    loss_type: str | None = None
    scale_rewards: str | None = None
    importance_sampling_level: str = IMPORTANCE_SAMPLING_LEVEL
    epsilon: float | None = None
    epsilon_high: float | None = None
    max_completion_length: int | None = None

    @property
    def off_policy(self) -> bool:
        """Whether a generation batch serves more than one update (:func:`prereg.rules.off_policy`)."""
        return off_policy(self.fields)

    @property
    def declares_aero(self) -> bool:
        """Whether any ``aero_*`` setting is locked (an AERO arm needs at least one)."""
        return any(k.startswith("aero_") for k in self.fields)

    @classmethod
    def of(cls, fields: Mapping) -> Training:
        g = fields.get
        return cls(_frozen(fields), g("max_steps"), g("prompts_per_step"), g("num_generations"),
                   g("gradient_accumulation_steps") or 1, g("steps_per_generation"), g("num_iterations") or 1,
                   g("loss_type"), g("scale_rewards"), g("importance_sampling_level", IMPORTANCE_SAMPLING_LEVEL),
                   g("epsilon"), g("epsilon_high"), g("max_completion_length"))


@dataclass(frozen=True)
class Arm:
    name: str
    algorithm: str | None
    changes: Mapping[str, Any]
    decl: ArmDecl                  # kind (trained/reference), labels, checkpoint
    training: Training
    description: str | None = None

    @property
    def trained(self) -> bool:
        return not self.decl.is_reference


SAMPLING_TEMPERATURE = 1.0  # evaluation.temperature when decoding samples and the plan gives none


@dataclass(frozen=True)
class Evaluation:
    """The locked evaluation protocol (``evaluation``), read by the runner's held-out scoring."""

    decoding: str
    max_new_tokens: int
    batch_size: int
    backend: str
    temperature: float | None
    heldout_n: int                 # from the dataset block: how many held-out items are scored

    def as_locked(self) -> dict:
        """The block as the lock states it (temperature only when locked), for the manifest's record.

        Example:
            >>> Evaluation("greedy", 64, 8, "transformers", None, 4).as_locked()["backend"]
            'transformers'
        """
        out = {"decoding": self.decoding, "max_new_tokens": self.max_new_tokens, "batch_size": self.batch_size,
               "backend": self.backend}
        return out if self.temperature is None else {**out, "temperature": self.temperature}

    @property
    def sampling_temperature(self) -> float:
        """The temperature sampling uses: the locked one, else :data:`SAMPLING_TEMPERATURE`."""
        return SAMPLING_TEMPERATURE if self.temperature is None else float(self.temperature)


@dataclass(frozen=True)
class Multiplicity:
    method: str
    alpha: float
    family: tuple[str, ...]


@dataclass(frozen=True)
class IntervalSpec:
    """One planned interval for contrasts: method and confidence level."""

    method: str
    level: float


@dataclass(frozen=True)
class ArmSummary:
    """How each arm is summarised: statistics, and the interval around them."""

    statistics: tuple[str, ...]
    interval: str
    level: float


@dataclass(frozen=True)
class Power:
    """The plan's power settings (minimum detectable effect per contrast, seed-count lint)."""

    method: str
    alpha: float
    target: float
    pilot_sd: float | None
    effect: float | None


SEQUENTIAL_DRAWS = 1_000_000   # calibration_draws when the plan names none (t_calibrated boundaries)


@dataclass(frozen=True)
class SequentialSpec:
    """``analysis.sequential`` with the schema's defaults: the registered looks (seeds per arm), how
    alpha (and beta, for futility) is spent, and the small-sample correction (README failure 19).
    :func:`prereg.seqdesign.plan_of` adds what it inherits from the rest of the plan."""

    looks: tuple[int, ...]
    spending: str
    gamma: float | None            # Hwang-Shih-DeCani spending parameter
    futility: str                  # none, or the beta-spending rule
    beta: float
    beta_spending: str
    beta_gamma: float | None
    small_sample: str
    calibration_draws: int
    inference: str

    @classmethod
    def of(cls, s: Mapping) -> SequentialSpec:
        fut = s.get("futility") or {}
        return cls(tuple(s["looks"]), s["spending"], s.get("gamma"), fut.get("type", "none"), fut.get("beta", 0.2),
                   fut.get("spending", "obrien_fleming"), fut.get("gamma"), s.get("small_sample", "t_calibrated"),
                   s.get("calibration_draws", SEQUENTIAL_DRAWS), s.get("inference", "stagewise"))


@dataclass(frozen=True)
class Condition:
    """One ``when`` entry of a verdict rule: the check and the level, value or fraction it takes."""

    check: str
    level: float | None
    value: float | None
    fraction: float | None


@dataclass(frozen=True)
class VerdictRule:
    """One rule of ``analysis.verdicts``: the verdict and the conditions that must all hold."""

    verdict: str
    when: tuple[Condition, ...]

    @property
    def checks(self) -> frozenset[str]:
        return frozenset(c.check for c in self.when)

    @classmethod
    def of(cls, v: Mapping) -> VerdictRule:
        return cls(v["verdict"], tuple(Condition(c["check"], c.get("level"), c.get("value"), c.get("fraction"))
                                       for c in v["when"]))


@dataclass(frozen=True)
class AnalysisPlan:
    primary_metric: str
    secondary_metrics: tuple[str, ...]
    unit: str
    test: str
    alternative: str               # default two-sided
    item_level: str                # default none
    intervals: tuple[IntervalSpec, ...]
    arm_summary: ArmSummary
    resamples: int
    rng_seed: int
    multiplicity: Multiplicity
    equivalence_margin: float | None
    noninferiority_margin: float | None
    power: Power | None
    sequential: SequentialSpec | None   # None: a fixed design
    tasks: tuple[str, ...]         # strata of a multi-task plan; empty for one task
    verdicts: tuple[Mapping[str, Any], ...]   # the verdict rules as written (prereg.verdicts.evaluate)
    raw: Mapping[str, Any]         # the whole block, for fields without a typed view yet
    verdict_rules: tuple[VerdictRule, ...] = ()   # the same rules, typed
    contrast_baseline: str | None = None   # analysis.contrasts.baseline (old form), None when not given
    pairs_declared: bool = False   # whether analysis.contrasts.pairs lists the contrasts (else derived from arms)

    @property
    def metrics(self) -> tuple[str, ...]:
        """The primary metric, then the secondary ones (each once)."""
        return tuple(dict.fromkeys((self.primary_metric, *self.secondary_metrics)))

    @property
    def effect_of_interest(self) -> float | None:
        """``power.effect``, else the equivalence margin (the schema's default for it); None when neither."""
        effect = self.power.effect if self.power is not None else None
        return self.equivalence_margin if effect is None else effect


@dataclass(frozen=True)
class Hypothesis:
    id: str
    metric: str
    arm: str
    baseline: str
    direction: str
    statement: str                 # default empty
    published_effect: float | None


@dataclass(frozen=True)
class ModelSpec:
    """The base model (``model``): what the runner loads and the model cards name."""

    name: str                      # HF model id, or ``tiny:<spec>``
    revision: str | None
    dtype: str | None              # None: the runner's default
    quantization: Mapping[str, Any]


@dataclass(frozen=True)
class DatasetSpec:
    """The dataset (``dataset``): where training and held-out items come from."""

    name: str
    config: str | None
    revision: str | None
    train_split: str
    heldout_split: str
    heldout_n: int
    train_n: int | None            # None: every training item
    path: str | None               # a local data file used instead of the hub

    @classmethod
    def of(cls, d: Mapping | None) -> DatasetSpec:
        """The ``dataset`` block as typed values (read leniently: a task built outside a lock, as
        tests and user code do, may leave fields out; the schema requires them in a lock).

        Example:
            >>> DatasetSpec.of({"name": "gsm8k", "heldout_n": 4}).train_n is None
            True
        """
        d = d or {}
        return cls(d.get("name"), d.get("config"), d.get("revision"), d.get("train_split"), d.get("heldout_split"),
                   d.get("heldout_n"), d.get("train_n"), d.get("path"))


@dataclass(frozen=True)
class TaskSpec:
    """The task (``task``): the registered task (or ``module:callable``) and its options."""

    name: str
    reward: str | None
    parser: str | None
    options: Mapping[str, Any]

    @classmethod
    def of(cls, t: Mapping | None) -> TaskSpec:
        """The ``task`` block as typed values (options a read-only mapping; read leniently).

        Example:
            >>> TaskSpec.of({"name": "arith", "options": {"max_operand": 9}}).options["max_operand"]
            9
        """
        t = t or {}
        return cls(t.get("name"), t.get("reward"), t.get("parser"), _frozen(t.get("options")))


@dataclass(frozen=True)
class Study:
    """A preregistration as typed, read-only values; ``raw`` is the validated dict itself."""

    id: str
    title: str
    evidence_class: str
    seeds: tuple[int, ...]
    baseline_arm: str
    arms: Mapping[str, Arm]
    evaluation: Evaluation
    analysis: AnalysisPlan
    metrics: Mapping[str, MetricDecl]
    contrasts: tuple[ContrastDecl, ...]
    hypotheses: tuple[Hypothesis, ...]
    model: ModelSpec
    dataset: DatasetSpec
    task: TaskSpec
    raw: Mapping[str, Any]
    sessions: Mapping[str, SessionDecl] = field(default_factory=lambda: MappingProxyType({}))   # declared, in order
    training: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))   # the shared settings
    stack_pins: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))   # package -> specifier

    @property
    def trained_arms(self) -> tuple[str, ...]:
        """Arms the runner trains (reference arms are evaluated, never run)."""
        return tuple(a for a, spec in self.arms.items() if spec.trained)

    @property
    def arm_decls(self) -> Mapping[str, ArmDecl]:
        """Arm name -> its declaration (kind, labels, evaluation schedule), in lock order; what
        :func:`prereg.declarations.arm_decls` gives for the raw preregistration."""
        return MappingProxyType({a: spec.decl for a, spec in self.arms.items()})


ALTERNATIVE = "two-sided"   # analysis.contrasts.alternative when the plan does not say (the schema's default)


def alternative_of(plan: Mapping) -> str:
    """The alternative of the plan's contrast test: ``analysis.contrasts.alternative``, two-sided when
    the plan does not say. The one default, read by :func:`analysis_plan`, lint's rules, the verdict
    scan and the power functions (it was written out in five places).

    Args:
        plan: a preregistration's ``analysis`` block.

    Returns:
        ``two-sided``, ``greater`` or ``less``.

    Example:
        >>> alternative_of({"contrasts": {}}), alternative_of({"contrasts": {"alternative": "less"}})
        ('two-sided', 'less')
    """
    return (plan.get("contrasts") or {}).get("alternative", ALTERNATIVE)


def analysis_plan(plan: Mapping) -> AnalysisPlan:
    """A preregistration's ``analysis`` block (also analysis.json's ``plan``) as typed values with
    the schema's defaults; :func:`study_of` uses it, and ``stats render`` reads analysis.json's copy."""
    c, m, s, pw = (plan.get(k) or {} for k in ("contrasts", "multiplicity", "arm_summary", "power"))
    return AnalysisPlan(
        primary_metric=plan["primary_metric"], secondary_metrics=tuple(plan.get("secondary_metrics") or ()),
        unit=plan.get("unit", "seed"), test=c.get("test", "paired_t"), alternative=alternative_of(plan),
        item_level=c.get("item_level", "none"),
        intervals=tuple(IntervalSpec(iv["method"], iv["level"]) for iv in c.get("intervals") or ()),
        arm_summary=ArmSummary(tuple(s.get("statistics") or ("mean",)), s.get("interval", "percentile"),
                               s.get("level", 0.95)),
        resamples=plan["resamples"], rng_seed=plan["rng_seed"],
        multiplicity=Multiplicity(m.get("method", "none"), m.get("alpha", 0.05), tuple(m.get("family") or ())),
        equivalence_margin=plan.get("equivalence_margin"), noninferiority_margin=plan.get("noninferiority_margin"),
        power=Power(pw["method"], pw["alpha"], pw["target"], pw.get("pilot_sd"), pw.get("effect")) if pw else None,
        sequential=SequentialSpec.of(plan["sequential"]) if plan.get("sequential") else None,
        tasks=tuple(plan.get("tasks") or ()), verdicts=tuple(plan.get("verdicts") or ()), raw=_frozen(plan),
        verdict_rules=tuple(VerdictRule.of(v) for v in plan.get("verdicts") or ()),
        contrast_baseline=c.get("baseline"), pairs_declared="pairs" in c)


def _hypothesis(h: Mapping) -> Hypothesis:
    return Hypothesis(h["id"], h["metric"], h["arm"], h["baseline"], h["direction"], h.get("statement", ""),
                      h.get("published_effect"))


def study_of(prereg: dict) -> Study:
    """Parse a validated preregistration (``prereg.schema`` has accepted it) into a :class:`Study`.

    Args:
        prereg: the preregistration dict (a lock's ``preregistration``).

    Returns:
        The :class:`Study`; its mappings are read-only views.

    Example:
        >>> study_of(lock.prereg).evaluation.heldout_n  # doctest: +SKIP
        4
    """
    decls = arm_decls(prereg)
    arms = {name: Arm(name, spec.get("algorithm"), _frozen(spec.get("changes")), decls[name],
                      Training.of(merged_fields(prereg, name)), spec.get("description"))
            for name, spec in prereg["arms"].items()}
    ev = prereg["evaluation"]
    evaluation = Evaluation(ev["decoding"], ev["max_new_tokens"], ev["batch_size"], ev["backend"],
                            ev.get("temperature"), prereg["dataset"]["heldout_n"])
    return Study(id=prereg["id"], title=prereg.get("title", ""), evidence_class=prereg["evidence_class"],
                 seeds=study_seeds(prereg), baseline_arm=prereg["baseline_arm"], arms=_frozen(arms),
                 evaluation=evaluation, analysis=analysis_plan(prereg["analysis"]),
                 metrics=_frozen(metric_decls(prereg)), contrasts=tuple(contrast_decls(prereg)),
                 hypotheses=tuple(_hypothesis(h) for h in prereg.get("hypotheses") or ()),
                 model=_model(prereg["model"]), dataset=DatasetSpec.of(prereg["dataset"]),
                 task=TaskSpec.of(prereg["task"]), raw=prereg, sessions=_frozen(session_decls(prereg)),
                 training=_frozen(prereg["training"]), stack_pins=_frozen(prereg.get("stack_pins")))


def _model(m: Mapping) -> ModelSpec:  # the schema requires name and revision (read leniently, as study_of reads)
    return ModelSpec(m.get("name"), m.get("revision"), m.get("dtype"), _frozen(m.get("quantization")))
