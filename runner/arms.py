"""The arm preset registry: what each algorithm name in a lock means to the runner.

An arm in a lock names an ``algorithm`` and declares its ``changes``. The preset for that
algorithm states which trainer settings the algorithm *is* (``implies``: a dr_grpo arm whose
locked ``loss_type`` is not ``dr_grpo`` is a mislabelled arm and is refused), which settings
it uses when the lock is silent (``fills``: recorded as coming from the preset, never from a
TRL default), and which runner extension fields it implements (``extensions``: a lock
that turns on an extension the preset does not implement is refused, never dropped).

Algorithms TRL does not have (DAPO's dynamic sampling, AERO) slot in as presets with a
``trainer_hook``: a function that receives the GRPOTrainer class and the runner extension
fields and returns a subclass implementing the custom generation/advantage logic. The
presets here need no hook; TRL implements them through its own config fields.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from prereg.errors import Refusal

# (trainer_cls, runner_fields) -> trainer subclass
TrainerHook = Callable[[type, dict], type]


@dataclass(frozen=True)
class ArmPreset:
    name: str
    description: str
    implies: dict = field(default_factory=dict)
    fills: dict = field(default_factory=dict)
    extensions: frozenset = frozenset()
    trainer_hook: TrainerHook | None = None
    # A preset whose objective equals another one's when training is fully on-policy
    # (README failure 8): confirmatory runs of it must be off-policy. The built-in rule is
    # prereg.rules.needs_off_policy (GSPO, or any sequence-level importance ratio), which lint
    # applies too; this flag lets a third-party preset ask for it as well.
    needs_off_policy: bool = False
    # (trainer fields, runner fields) -> None; refuses a lock the preset cannot run, while the
    # config is resolved (before anything is written).
    validate: Callable[[dict, dict], None] | None = None


PRESETS: dict[str, ArmPreset] = {}


def register(preset: ArmPreset) -> ArmPreset:
    if preset.name in PRESETS:
        raise ValueError(f"arm preset {preset.name!r} is already registered")
    PRESETS[preset.name] = preset
    return preset


def get_preset(algorithm: str) -> ArmPreset:
    try:
        return PRESETS[algorithm]
    except KeyError:
        raise Refusal(
            f"algorithm {algorithm!r} is not implemented by this runner (implemented: {', '.join(sorted(PRESETS))})"
        ) from None


register(ArmPreset(
    name="grpo",
    description="GRPO: group-relative advantages scaled by the group std, per-sequence length normalisation.",
    implies={"loss_type": "grpo", "importance_sampling_level": "token"},
    fills={"scale_rewards": "group"},
))
register(ArmPreset(
    name="dr_grpo",
    description="Dr. GRPO: no std scaling, constant (max_completion_length) normaliser.",
    implies={"loss_type": "dr_grpo", "scale_rewards": "none"},
    fills={"importance_sampling_level": "token"},
))
register(ArmPreset(
    name="gspo",
    description="GSPO: sequence-level importance ratio (equals GRPO when fully on-policy).",
    implies={"importance_sampling_level": "sequence"},
    fills={"loss_type": "grpo", "scale_rewards": "group"},
))
register(ArmPreset(
    name="bnpo",
    description="BNPO: loss normalised by the number of completion tokens in the local batch.",
    implies={"loss_type": "bnpo"},
    fills={"scale_rewards": "group", "importance_sampling_level": "token"},
))

# Runner extension fields every preset honours (they are not algorithm changes).
COMMON_EXTENSIONS = frozenset({"prompts_per_step", "checkpoint_every"})


def _rollouts_hook(trainer_cls: type, runner_fields: dict) -> type:
    from runner.rollouts import trainer_hook

    return trainer_hook(trainer_cls, runner_fields)


def _validate(name: str) -> Callable[[dict, dict], None]:
    def check(trainer: dict, runner: dict) -> None:
        import runner.rollouts as rollouts

        getattr(rollouts, f"validate_{name}")(trainer, runner)

    return check


register(ArmPreset(
    name="dapo",
    description="DAPO: clip-higher (epsilon 0.2 / epsilon_high 0.28 unless locked), token-level loss, "
                "dynamic sampling and overlong shaping when locked (runner.rollouts).",
    implies={"loss_type": "dapo"},
    fills={"epsilon": 0.2, "epsilon_high": 0.28, "importance_sampling_level": "token", "scale_rewards": "group"},
    extensions=frozenset({"dynamic_sampling", "dynamic_sampling_max_batches", "overlong_filtering",
                          "overlong_buffer_length", "overlong_penalty_factor"}),
    trainer_hook=_rollouts_hook,
    validate=_validate("dapo"),
))
register(ArmPreset(
    name="aero",
    description="AERO (arXiv 2602.14338): exploration rollouts, rescue budget, rejection curation, "
                "Beta(1,1)-posterior advantages for degenerate groups (runner.aero, runner.rollouts).",
    fills={"loss_type": "grpo", "scale_rewards": "group", "importance_sampling_level": "token"},
    extensions=frozenset({"aero_exploration_rollouts", "aero_rescue_budget", "aero_success_threshold",
                          "aero_keep_incorrect"}),
    trainer_hook=_rollouts_hook,
    validate=_validate("aero"),
))


def check_preset(arm: str, preset: ArmPreset, merged: dict) -> dict:
    """Refuse a lock that contradicts the preset; return the fields the preset fills in.

    ``merged`` is the arm's locked view (shared training + declared changes).
    """
    for key, want in preset.implies.items():
        if key in merged and merged[key] != want:
            raise Refusal(
                f"arms.{arm}: algorithm {preset.name!r} means {key}={want!r} but the lock sets "
                f"{key}={merged[key]!r}; fix the preregistration (amend) or name the right algorithm"
            )
    filled = {k: v for k, v in {**preset.fills, **preset.implies}.items() if k not in merged}
    return filled


