"""Where a locked training field lands in a run's resolved config.

The lock speaks one flat vocabulary (GRPOConfig field names, ``lora_*`` for PEFT, runner
extension fields); a run's resolved config is namespaced (``trainer``, ``peft``,
``runner``). This mapping is shared by the runner (which builds configs) and the audit
(which checks that an arm differs from the baseline in exactly its declared fields).
"""

from __future__ import annotations

RUNNER_FIELDS = frozenset({
    "prompts_per_step",
    "dynamic_sampling",
    "dynamic_sampling_max_batches",
    "overlong_filtering",
    "overlong_buffer_length",
    "overlong_penalty_factor",
    "aero_exploration_rollouts",
    "aero_rescue_budget",
    "aero_success_threshold",
    "aero_keep_incorrect",
    "checkpoint_every",
})

# Resolved-config paths that may differ between runs without being a treatment difference.
FREE_PATHS = frozenset({
    "trainer.seed", "trainer.data_seed", "trainer.output_dir", "trainer.run_name", "trainer.logging_dir",
    "trainer.vllm_seed", "runner.seed", "runner.device", "runner.out", "trainer.use_cpu",
    "trainer.report_to", "trainer.disable_tqdm", "trainer.logging_steps", "trainer.hub_model_id",
})


def resolved_path(field: str) -> str:
    """``lora_r`` -> ``peft.r``; ``dynamic_sampling`` -> ``runner.dynamic_sampling``; else ``trainer.<f>``."""
    if field.startswith("lora_"):
        return "peft." + field[len("lora_"):]
    if field in RUNNER_FIELDS:
        return "runner." + field
    return "trainer." + field


def merged_fields(prereg: dict, arm: str) -> dict:
    """Shared training settings overlaid with the arm's declared changes (the arm's locked view)."""
    out = dict(prereg["training"])
    out.update(prereg["arms"][arm].get("changes", {}))  # a reference arm declares none
    return out


def flatten(resolved: dict) -> dict:
    """``{"trainer": {"a": 1}}`` -> ``{"trainer.a": 1}`` (one level of namespaces)."""
    flat = {}
    for ns, fields in resolved.items():
        if isinstance(fields, dict):
            for k, v in fields.items():
                flat[f"{ns}.{k}"] = v
        else:
            flat[ns] = fields
    return flat
