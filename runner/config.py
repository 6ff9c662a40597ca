"""Resolve one arm's trainer config from the lock and nothing else.

The lock's flat training vocabulary (shared settings + the arm's declared changes, via
``prereg.fields.merged_fields``) is mapped through ``prereg.fields.resolved_path`` into
``trainer`` (GRPOConfig), ``peft`` (LoraConfig) and ``runner`` (extension fields). Every
locked trainer field is passed to GRPOConfig explicitly; a name the installed TRL does not
have is refused (README failure 3), as is a lock that contradicts its arm's algorithm
preset. Fields the lock is silent about are either filled from the algorithm preset
(recorded as such) or left at the installed TRL default — and the resolved config records
every field, defaults included, with ``sources`` saying which of those applied. Only the
runner's free settings (seed, device, output folder, logging) are set by the runner, and a
lock that tries to set one of those is refused so the two can never disagree silently.

Environment variables that would alter training behind the config (accelerate/TRL
overrides, any ``RLPREREG_*``) are refused for confirmatory runs and recorded for
exploratory ones; harmless ones that still matter for reproduction are recorded.
"""

from __future__ import annotations

import dataclasses
import enum
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field

from prereg.errors import Refusal
from prereg.fields import resolved_path
from prereg.rules import OFF_POLICY_ALGORITHMS, needs_off_policy, off_policy
from prereg.study import Study, study_of
from runner.arms import COMMON_EXTENSIONS, ArmPreset, check_preset, get_preset

# Trainer fields the runner owns; a lock that sets one is refused (they are not science).
RUNNER_OWNED = frozenset({
    "seed", "data_seed", "output_dir", "use_cpu", "report_to", "logging_steps", "logging_strategy",
    "save_strategy", "disable_tqdm", "run_name", "logging_dir", "push_to_hub", "hub_model_id",
    "log_completions", "resume_from_checkpoint", "overwrite_output_dir", "remove_unused_columns",
})

FORBIDDEN_ENV_PREFIXES = ("RLPREREG_", "ACCELERATE_", "TRL_")
# RLPREREG_CACHE only locates the tiny-model cache, whose files are hash-checked on load.
ALLOWED_ENV = frozenset({"ACCELERATE_LOG_LEVEL", "ACCELERATE_DISABLE_RICH", "TRL_EXPERIMENTAL_SILENCE", "RLPREREG_CACHE"})
RECORDED_ENV = ("CUDA_VISIBLE_DEVICES", "CUBLAS_WORKSPACE_CONFIG", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
                "PYTHONHASHSEED", "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE",
                "TOKENIZERS_PARALLELISM", "PYTORCH_CUDA_ALLOC_CONF", "ACCELERATE_LOG_LEVEL",
                "TRL_EXPERIMENTAL_SILENCE", "RLPREREG_CACHE")


def check_environment(environ: dict | None = None, *, exploratory: bool = False) -> dict:
    """Refuse behaviour-altering environment overrides; return the variables to record.

    For an exploratory run the overrides are recorded (under their names) instead of refused.
    """
    environ = dict(os.environ if environ is None else environ)
    if str(environ.get("WORLD_SIZE", "1")).strip() not in ("", "1"):
        # traces and telemetry are written by one process from its own generation batches
        raise Refusal(f"WORLD_SIZE={environ['WORLD_SIZE']}: runner run trains in one process; "
                      "launch it without torchrun/accelerate launch")
    bad = sorted(k for k in environ
                 if k.startswith(FORBIDDEN_ENV_PREFIXES) and k not in ALLOWED_ENV)
    if bad and not exploratory:
        raise Refusal(
            f"environment variable {bad[0]} would change training behind the lock "
            f"({len(bad)} such: {', '.join(bad[:5])}); unset it, or run --exploratory"
        )
    return {k: environ[k] for k in sorted(set(RECORDED_ENV) | set(bad)) if k in environ}


def json_safe(value):
    """Config values as plain JSON (enums by value, sets sorted, non-finite floats as text)."""
    if isinstance(value, enum.Enum):
        return json_safe(value.value)
    if isinstance(value, bool) or value is None or isinstance(value, (int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (set, frozenset)):
        return sorted(json_safe(v) for v in value)
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return str(value)


def peft_kwarg(key: str, lora_fields: set) -> str | None:
    """Path key (``peft.alpha`` from lock ``lora_alpha``) -> LoraConfig argument (``lora_alpha``)."""
    if key in lora_fields:
        return key
    if "lora_" + key in lora_fields:
        return "lora_" + key
    return None


def peft_path_key(kwarg: str, lora_fields: set) -> str:
    """LoraConfig argument -> the key under ``peft.`` that ``prereg.fields.resolved_path`` uses."""
    if kwarg.startswith("lora_") and kwarg[5:] not in lora_fields:
        return kwarg[5:]
    return kwarg


def peft_dict(lora_config) -> dict:
    """Every LoraConfig field, keyed as ``prereg.fields.resolved_path`` names them (``alpha``, ``dropout``)."""
    fields = {f.name for f in dataclasses.fields(type(lora_config)) if f.init}
    out = dict(lora_config.to_dict())
    for name in sorted(fields - set(out)):  # e.g. runtime_config, which to_dict leaves out
        value = getattr(lora_config, name)
        out[name] = dataclasses.asdict(value) if dataclasses.is_dataclass(value) else value
    return {peft_path_key(k, fields): v for k, v in out.items()}


@dataclass
class ResolvedConfig:
    arm: str
    algorithm: str
    preset: ArmPreset
    seed: int
    device: str
    trainer_kwargs: dict
    peft_kwargs: dict
    runner_fields: dict
    sources: dict  # "trainer.loss_type" -> "lock" | "preset:<name>" | "runner" | "derived" | "default"
    notes: list = field(default_factory=list)
    grpo_config: object = None
    lora_config: object = None

    def resolved(self) -> dict:
        """The manifest's resolved_config: every GRPOConfig and LoraConfig field."""
        return {
            "trainer": json_safe(self.grpo_config.to_dict()),
            "peft": json_safe(peft_dict(self.lora_config)),
            "runner": json_safe(self.runner_fields),
        }


def _study(plan: Study | Mapping) -> Study:
    return plan if isinstance(plan, Study) else study_of(plan)


def arm_view(plan: Study | Mapping, arm: str, *, exploratory: bool = False) -> tuple[str, dict, dict]:
    """(algorithm, merged locked fields, declared changes) of an arm.

    An exploratory run may name an arm the lock does not have if it is a preset name: it then
    runs the shared settings with that preset and declares no changes.

    Args:
        plan: the lock's typed :class:`prereg.study.Study` (or the preregistration, parsed here).
        arm: the arm to run.
        exploratory: allow a preset name that is not a registered arm.

    Returns:
        (algorithm, merged fields, declared changes), plain dicts the resolver may fill in.
    """
    study = _study(plan)
    spec = study.arms.get(arm)
    if spec is not None:
        if not spec.trained:
            raise Refusal(f"--arm {arm!r} is a reference arm (kind: reference): the runner does not train "
                          "reference arms; evaluate it with `runner evaluate --arm " + arm + "` (README failure 16)")
        return spec.algorithm, dict(spec.training.fields), dict(spec.changes)
    if exploratory:
        get_preset(arm)
        return arm, dict(study.training), {}
    raise Refusal(f"--arm {arm!r} is not registered in the lock (registered: {', '.join(sorted(study.arms))})")


@dataclass
class _Draft:
    """The config being resolved: one dict per namespace and where each value came from."""

    trainer: dict = field(default_factory=dict)
    peft: dict = field(default_factory=dict)
    runner: dict = field(default_factory=dict)
    sources: dict = field(default_factory=dict)
    notes: list = field(default_factory=list)

    def set(self, ns: str, key: str, value, source: str) -> None:
        getattr(self, ns)[key] = value
        self.sources[f"{ns}.{key}"] = source


def resolve(prereg: Study | Mapping, arm: str, seed: int, *, device: str, output_dir: str,
            exploratory: bool = False) -> ResolvedConfig:
    """The arm's trainer, LoRA and runner config, built only from the lock (README failure 1).

    Each step refuses what it cannot honour (README failures 2, 3, 8): a field the installed
    TRL/PEFT lacks, an extension the arm's algorithm does not implement, a batch that does not
    split, an on-policy GSPO arm, a precision the device cannot run.

    Args:
        prereg: the lock's typed :class:`prereg.study.Study` (or the preregistration, parsed here).
        arm, seed: the unit.
        device: ``cpu`` or ``cuda``.
        output_dir: the trainer's checkpoint folder.
        exploratory: note instead of refusing what only a confirmatory run must not do.

    Returns:
        The :class:`ResolvedConfig` with the built GRPOConfig and LoraConfig and every value's source.

    Example:
        >>> resolve(prereg, "grpo", 1, device="cpu", output_dir="/tmp/x").grpo_config.loss_type  # doctest: +SKIP
        'grpo'
    """
    study = _study(prereg)
    algorithm, merged, _ = arm_view(study, arm, exploratory=exploratory)
    preset = get_preset(algorithm)
    d = _from_lock(merged, check_preset(arm, preset, merged), preset)
    _refuse_unknown_fields(d, arm, preset)
    _batch_geometry(d)
    if preset.validate is not None:  # e.g. dapo/aero settings the preset cannot run
        preset.validate(d.trainer, d.runner)
    _on_policy_rule(d, arm, preset, exploratory)
    _runner_settings(d, study.id, arm, seed, device, output_dir)
    grpo, lora = _build(d, arm)
    _record_default_sources(d, grpo, lora)
    return ResolvedConfig(arm=arm, algorithm=algorithm, preset=preset, seed=seed, device=device,
                          trainer_kwargs=d.trainer, peft_kwargs=d.peft, runner_fields=d.runner, sources=d.sources,
                          notes=d.notes, grpo_config=grpo, lora_config=lora)


def _from_lock(merged: dict, filled: dict, preset: ArmPreset) -> _Draft:
    """Locked values (shared training + the arm's changes) and what the algorithm preset fills in."""
    d = _Draft()
    for name, value in merged.items():
        ns, key = resolved_path(name).split(".", 1)
        d.set(ns, key, value, "lock")
    for name, value in filled.items():
        d.set("trainer", name, value, f"preset:{preset.name}")
    return d


def _refuse_unknown_fields(d: _Draft, arm: str, preset: ArmPreset) -> None:
    """A field the runner owns, the installed TRL/PEFT lacks, or the arm's algorithm does not implement."""
    from peft import LoraConfig
    from trl import GRPOConfig

    owned = sorted(RUNNER_OWNED & set(d.trainer))
    if owned:
        raise Refusal(f"training.{owned[0]}: set by the runner (free setting), not by the preregistration; remove it")
    grpo_fields = {f.name for f in dataclasses.fields(GRPOConfig) if f.init}
    unknown = sorted(set(d.trainer) - grpo_fields)
    if unknown:
        raise Refusal(
            f"training.{unknown[0]}: the installed TRL GRPOConfig has no such field "
            f"({len(unknown)} unknown: {', '.join(unknown)}); it would be dropped, so the run is refused"
        )
    lora_fields = {f.name for f in dataclasses.fields(LoraConfig) if f.init}
    unknown = sorted(k for k in d.peft if peft_kwarg(k, lora_fields) is None)
    if unknown:
        raise Refusal(f"training.lora_{unknown[0]}: the installed PEFT LoraConfig has no such field")
    supported = COMMON_EXTENSIONS | preset.extensions
    unsupported = sorted(k for k, v in d.runner.items() if k not in supported and v not in (None, False))
    if unsupported:
        raise Refusal(
            f"training.{unsupported[0]}: arm {arm!r} (algorithm {preset.name!r}) does not implement this "
            f"runner extension; it would be ignored, so the run is refused"
        )


def _batch_geometry(d: _Draft) -> None:
    """prompts_per_step prompts x num_generations completions per optimizer step."""
    trainer, runner = d.trainer, d.runner
    gas = trainer.get("gradient_accumulation_steps", 1)
    if "prompts_per_step" in runner:
        total = runner["prompts_per_step"] * trainer["num_generations"]
        if total % gas:
            raise Refusal(f"training.prompts_per_step: {total} completions per step do not split into "
                          f"gradient_accumulation_steps={gas}")
        pdb = total // gas
        if "per_device_train_batch_size" in trainer and trainer["per_device_train_batch_size"] != pdb:
            raise Refusal("training.per_device_train_batch_size contradicts prompts_per_step x num_generations")
        if "per_device_train_batch_size" not in trainer:
            d.set("trainer", "per_device_train_batch_size", pdb, "derived:prompts_per_step*num_generations")
    elif "per_device_train_batch_size" not in trainer:
        raise Refusal("training.prompts_per_step: not set (nor per_device_train_batch_size); the batch is not locked")


def _on_policy_rule(d: _Draft, arm: str, preset: ArmPreset, exploratory: bool) -> None:
    """An arm that needs off-policy updates run fully on-policy: the one rule of lint and the runner
    (:func:`prereg.rules.needs_off_policy`, :func:`prereg.rules.off_policy`; README failure 8).
    A registered preset may also ask for it (``ArmPreset.needs_off_policy``)."""
    if not (preset.needs_off_policy or needs_off_policy(preset.name, d.trainer)) or off_policy(d.trainer):
        return
    level = d.trainer.get("importance_sampling_level")
    msg = (f"arms.{arm}: {preset.name} with num_iterations=1 and steps_per_generation=gradient_accumulation_steps "
           f"is fully on-policy, where its objective equals "
           + ("GRPO's" if preset.name in OFF_POLICY_ALGORITHMS else f"the token-level one's ({level} ratios are 1)"))
    if not exploratory:
        raise Refusal(msg + "; lock num_iterations>1 or steps_per_generation>gradient_accumulation_steps")
    d.notes.append(msg)


def _runner_settings(d: _Draft, study_id: str, arm: str, seed: int, device: str, output_dir: str) -> None:
    """The free settings the runner owns: seeds, output, logging, device and precision, checkpoints."""
    if device not in ("cpu", "cuda"):
        raise Refusal(f"--device {device!r}: expected cpu or cuda")
    run_set = {
        "seed": seed, "data_seed": seed, "output_dir": output_dir, "report_to": "none",
        "logging_strategy": "steps", "logging_steps": 1, "save_strategy": "no", "disable_tqdm": True,
        "use_cpu": device == "cpu", "run_name": f"{study_id}/{arm}/s{seed}",
    }
    if device == "cpu":
        for prec in ("bf16", "fp16"):
            if d.trainer.get(prec):
                raise Refusal(f"training.{prec}: locked true, which --device cpu cannot run; use --device cuda")
            if prec not in d.trainer:
                run_set[prec] = False
    from runner.resume import checkpoint_trainer_kwargs

    run_set.update(checkpoint_trainer_kwargs(d.runner.get("checkpoint_every"), d.trainer))
    for k, v in run_set.items():
        d.set("trainer", k, v, "runner")
    if d.trainer.get("use_vllm") and device == "cpu":
        raise Refusal("training.use_vllm: locked true, which --device cpu cannot run")
    d.peft.setdefault("task_type", "CAUSAL_LM")
    d.sources.setdefault("peft.task_type", "runner")
    d.set("runner", "seed", seed, "runner")
    d.set("runner", "device", device, "runner")
    if d.trainer.get("use_vllm"):  # the seed vLLM samples with, derived from the run seed (runner.gpu)
        from runner.gpu import vllm_seed_record

        d.set("runner", "vllm_seed", vllm_seed_record(d.trainer, seed), "runner")


def _build(d: _Draft, arm: str):
    """The installed TRL and PEFT build their configs; a value they reject is a refusal."""
    from peft import LoraConfig
    from trl import GRPOConfig

    try:
        grpo = GRPOConfig(**d.trainer)
    except (ValueError, TypeError) as exc:
        raise Refusal(f"arms.{arm}: TRL rejects the locked trainer config: {str(exc).splitlines()[0]}") from None
    lora_fields = {f.name for f in dataclasses.fields(LoraConfig) if f.init}
    try:
        lora = LoraConfig(**{peft_kwarg(k, lora_fields): v for k, v in d.peft.items()})
    except (ValueError, TypeError) as exc:
        raise Refusal(f"arms.{arm}: PEFT rejects the locked LoRA config: {str(exc).splitlines()[0]}") from None
    return grpo, lora


def _record_default_sources(d: _Draft, grpo, lora) -> None:
    """Every other field of the built configs: the library's default, or derived by TRL from others."""
    from trl import GRPOConfig

    defaults = {f.name: f.default for f in dataclasses.fields(GRPOConfig) if f.default is not dataclasses.MISSING}
    for key, value in grpo.to_dict().items():
        path = "trainer." + key
        if path not in d.sources:
            d.sources[path] = "default" if defaults.get(key, value) == value else "trl-derived"
    for key in peft_dict(lora):
        d.sources.setdefault("peft." + key, "default")
