"""Shared helpers of the runner-run tests: tiny preregistrations, locks and a test task.

Not a test module (no ``test_`` prefix). Runs are tiny on purpose: 2 optimizer steps of
2 prompts x 4 completions of at most 8 tokens on ``tiny:qwen2``, 4 held-out items.
"""

from __future__ import annotations

import copy
from pathlib import Path

from prereg.jsonio import write_json_atomic
from prereg.lock import build_lock
from runner.tasks.base import Task

BASE = {
    "schema_version": 1,
    "id": "t3",
    "title": "runner run tests",
    "evidence_class": "confirmatory",
    "hypotheses": [{"id": "H1", "metric": "heldout_accuracy", "arm": "dr_grpo", "baseline": "grpo",
                    "direction": "two-sided"}],
    "model": {"name": "tiny:qwen2", "revision": None, "dtype": "float32"},
    "dataset": {"name": "synthetic/arith", "config": None, "revision": "builtin-v1", "train_split": "train",
                "heldout_split": "heldout", "heldout_n": 4},
    "task": {"name": "arith"},
    "training": {
        "max_steps": 2, "prompts_per_step": 2, "num_generations": 4, "learning_rate": 1e-3, "beta": 0.0,
        "temperature": 1.0, "top_p": 1.0, "max_completion_length": 8, "loss_type": "grpo",
        "scale_rewards": "group", "epsilon": 0.2, "epsilon_high": 0.2, "importance_sampling_level": "token",
        "mask_truncated_completions": False, "num_iterations": 1, "steps_per_generation": 1,
        "lr_scheduler_type": "constant", "warmup_steps": 0, "weight_decay": 0.0, "max_grad_norm": 1.0,
        "lora_r": 4, "lora_alpha": 8, "lora_dropout": 0.0, "lora_target_modules": "all-linear",
    },
    "arms": {
        "grpo": {"algorithm": "grpo", "changes": {}},
        "dr_grpo": {"algorithm": "dr_grpo", "changes": {"loss_type": "dr_grpo", "scale_rewards": "none"}},
        "gspo": {"algorithm": "gspo", "changes": {"importance_sampling_level": "sequence", "steps_per_generation": 2,
                                                   "num_iterations": 2, "epsilon": 3e-4, "epsilon_high": 4e-4}},
        "bnpo": {"algorithm": "bnpo", "changes": {"loss_type": "bnpo"}},
    },
    "baseline_arm": "grpo",
    "seeds": [1, 2],
    "evaluation": {"decoding": "greedy", "max_new_tokens": 8, "batch_size": 4, "backend": "transformers"},
    "analysis": {
        "primary_metric": "heldout_accuracy", "unit": "seed",
        "arm_summary": {"statistics": ["mean"], "interval": "percentile", "level": 0.95},
        "contrasts": {"baseline": "grpo", "test": "paired_t", "intervals": [{"method": "paired_bootstrap", "level": 0.95}]},
        "resamples": 1000, "rng_seed": 7,
        "multiplicity": {"method": "holm", "alpha": 0.05, "family": ["dr_grpo-grpo"]},
        "verdicts": [{"verdict": "INCONCLUSIVE", "when": []}],
    },
    "stack_pins": {},
}


def prereg(**changes) -> dict:
    """A copy of BASE; ``training=``/``arms=``/... replace or (for dicts given as ``+key``) update."""
    p = copy.deepcopy(BASE)
    for key, value in changes.items():
        p[key] = value
    return p


def write_lock(folder: Path, p: dict, *, key_path=None, name: str | None = None) -> Path:
    path = Path(folder) / (name or f"{p['id']}.lock.json")
    write_json_atomic(path, build_lock(p, key_path=key_path), overwrite=False)
    return path


def run(lock: Path, arm: str, seed: int, out: Path, **kw) -> Path:
    import torch

    from runner import run_unit

    # Tiny matrices: one thread is as fast alone and far faster on a shared, loaded machine
    # (spinning OpenMP threads of parallel test processes starve each other).
    torch.set_num_threads(1)

    kw.setdefault("quiet", True)
    kw.setdefault("environ", {})
    return run_unit(lock, arm, seed, out, **kw)


class FixedRewardTask(Task):
    """Two training prompts with hand-known rewards, for telemetry checks.

    ``const`` earns 1.0 whatever the completion (a zero-variance, all-max group); ``var``
    earns 0, 1, 0, 1, ... in call order (never zero-variance). ``options.fail_after`` makes
    the reward raise after that many calls (a crash mid-training).
    """

    name = "fixed"
    max_reward = 1.0

    def __init__(self, task_spec, dataset_spec):
        super().__init__(task_spec, dataset_spec)
        self.calls = 0
        self.var_calls = 0
        self.fail_after = (task_spec.get("options") or {}).get("fail_after")

    def load_items(self):
        train = [{"id": "const", "answer": "1"}, {"id": "var", "answer": "1"}]
        heldout = [{"id": f"h{i}", "answer": "1"} for i in range(4)]
        return train, heldout

    def build_prompt(self, item):
        return f"{item['id']}="

    def parse(self, completion):
        return completion[:1] or None

    def reward(self, completion, item):
        self.calls += 1
        if self.fail_after is not None and self.calls > self.fail_after:
            raise RuntimeError("injected reward failure")
        if item["id"] == "var":
            self.var_calls += 1
            return float((self.var_calls - 1) % 2)
        return 1.0


def reference_plan(study_id: str, evaluated: str = "once", checkpoint: str = "tiny:qwen2") -> dict:
    """A plan with a base-model reference arm and one GRPO arm, contrasted per seed and item.

    Shared by the reference-run and session-run tests so that the two exercise the same study shape.
    """
    p = prereg(arms={"base": {"kind": "reference", "checkpoint": checkpoint, "evaluated": evaluated,
                              "labels": ["Base model"]},
                     "grpo": {"algorithm": "grpo", "changes": {}, "labels": ["GRPO"]}},
               baseline_arm="base",
               hypotheses=[{"id": "H1", "metric": "heldout_accuracy", "arm": "grpo", "baseline": "base",
                            "direction": "two-sided"}])
    p["id"] = study_id
    p["analysis"]["unit"] = "seed_item"
    p["analysis"]["contrasts"] = {"test": "paired_t", "intervals": [{"method": "paired_bootstrap", "level": 0.95}],
                                  "pairs": [{"arm": "grpo", "baseline": "base", "hypothesis": "H1"}]}
    p["analysis"]["multiplicity"]["family"] = ["grpo-base"]
    return p


def evaluate(lock: Path, arm: str, seed, out: Path, **kw) -> Path:
    """`runner evaluate` of a reference arm, quiet, on one thread (torch is imported only here)."""
    import torch

    from runner import evaluate_reference

    torch.set_num_threads(1)
    return evaluate_reference(lock, arm, seed, out, quiet=True, environ={}, **kw)


def make_fixed_task(task_spec, dataset_spec):
    return FixedRewardTask(task_spec, dataset_spec)
