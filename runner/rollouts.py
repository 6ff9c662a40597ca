"""A GRPOTrainer subclass for what TRL does not do: DAPO dynamic sampling and overlong shaping,
AERO rollout allocation, and per-call vLLM request seeds in server mode.

Why a subclass of the generation step: TRL 1.16 produces one optimizer batch in
``GRPOTrainer._generate_and_score_completions`` (generate, score, group advantages, old/ref
log-probs). DAPO and AERO change *which* rollouts enter that batch, so the override calls
TRL's own step as many times as the algorithm needs (whole extra batches for DAPO,
exploration and one-rollout rescue batches for AERO), then keeps the selected rows of the
resulting tensors. Every rollout still goes through TRL's generation and the runner's
reward function, so traces list every completion generated (including the dropped ones)
and ``rollouts`` counts them all.

Assumes one training process (the runner's setting); under multi-process training the
rows of a batch are split across ranks and the selection here would have to be gathered.

The pure decisions live in :mod:`runner.dapo` and :mod:`runner.aero`; this module only
applies them to tensors and reports them to the recorder (``step_extra`` fields and, for
AERO's variable group sizes, the step's groups).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from prereg.errors import UserError
from runner.aero import AeroSettings, aero_step
from runner.dapo import fill_eligible_groups, overlong_penalties

PROMPT_SIDE = ("prompt_ids", "prompt_mask")
PAD_WITH_TOKEN = ("prompt_ids", "completion_ids")


def select_rows(outputs: list[dict], rows: list[tuple[int, int]], pad_token_id: int) -> dict:
    """Rows ``(output_index, row_index)`` of several TRL generation outputs, as one output.

    Prompt tensors are left-padded and completion-side tensors right-padded to the widest
    selected row (as TRL pads them); ``num_items_in_batch`` is recomputed over the selection.
    """
    import torch

    first = outputs[0]
    merged: dict = {}
    for key, value in first.items():
        if key == "num_items_in_batch":
            continue
        if value is None:
            merged[key] = None
        elif isinstance(value, torch.Tensor) and value.ndim == 0:
            merged[key] = value
        elif isinstance(value, torch.Tensor):
            parts = [outputs[b][key][r] for b, r in rows]
            if value.ndim == 1:
                merged[key] = torch.stack(parts)
                continue
            width = max(p.shape[0] for p in parts)
            pad_value = pad_token_id if key in PAD_WITH_TOKEN else 0
            padded = []
            for p in parts:
                fill = p.new_full((width - p.shape[0], *p.shape[1:]), pad_value)
                padded.append(torch.cat([fill, p]) if key in PROMPT_SIDE else torch.cat([p, fill]))
            merged[key] = torch.stack(padded)
        elif isinstance(value, list):
            merged[key] = [outputs[b][key][r] for b, r in rows]
        else:
            merged[key] = value
    mask = merged["completion_mask"]
    if merged.get("tool_mask") is not None:
        mask = mask * merged["tool_mask"]
    merged["num_items_in_batch"] = mask.sum()
    return merged


def _is_aero(fields: dict) -> bool:
    return any(fields.get(k) is not None for k in ("aero_exploration_rollouts", "aero_rescue_budget",
                                                     "aero_success_threshold", "aero_keep_incorrect"))


def validate_dapo(trainer: dict, runner: dict) -> None:
    """Lock checks of a dapo arm that need no model (called while the config is resolved)."""
    if runner.get("dynamic_sampling") and not isinstance(runner.get("dynamic_sampling_max_batches"), int):
        raise UserError("training.dynamic_sampling_max_batches: dynamic sampling needs a locked generation limit")
    if runner.get("overlong_penalty_factor") is not None and runner.get("overlong_buffer_length") is None:
        raise UserError("training.overlong_buffer_length: the overlong soft penalty needs a locked buffer length")
    if runner.get("overlong_buffer_length") is not None:
        from runner.dapo import overlong_penalty

        overlong_penalty(0, trainer.get("max_completion_length", 256), runner["overlong_buffer_length"])


def validate_aero(trainer: dict, runner: dict) -> None:
    AeroSettings.from_fields(runner, num_generations=trainer["num_generations"],
                             scale_rewards=trainer.get("scale_rewards", "group"))
    gas = trainer.get("gradient_accumulation_steps") or 1
    if (trainer.get("steps_per_generation") or gas) != 1 or gas != 1 or (trainer.get("num_iterations") or 1) != 1:
        raise UserError("training.steps_per_generation: the aero algorithm trains each generation batch in one "
                        "optimizer step (steps_per_generation, gradient_accumulation_steps and num_iterations "
                        "must be 1), since curation makes the batch size vary")


@dataclass(frozen=True)
class RolloutSettings:
    """What the lock asks of the generation step, read once from the arm's runner fields."""

    fields: dict
    dynamic: bool                   # DAPO dynamic sampling
    aero: bool                      # AERO curation
    overlong_filter: bool           # mask truncated completions out of the loss
    overlong_buffer: int | None     # DAPO soft overlong penalty buffer (None: no penalty)
    overlong_factor: float

    @classmethod
    def from_fields(cls, runner_fields: dict) -> RolloutSettings:
        fields = dict(runner_fields)
        factor = fields.get("overlong_penalty_factor")
        settings = cls(fields, bool(fields.get("dynamic_sampling")), _is_aero(fields),
                       bool(fields.get("overlong_filtering")), fields.get("overlong_buffer_length"),
                       float(factor if factor is not None else 1.0))
        if settings.aero and settings.dynamic:
            raise UserError("training.dynamic_sampling: an arm cannot lock both DAPO dynamic sampling and AERO")
        return settings


def make_trainer_class(base: type, runner_fields: dict) -> type:
    """``base`` (GRPOTrainer) with dynamic sampling, overlong shaping and AERO as the lock says.

    The class only binds two TRL hooks; each step of the work is a named function below
    (``_shape_rewards``, ``_training_batch``, ``_filter_truncated``, ``_dynamic``, ``_aero``).
    """
    settings = RolloutSettings.from_fields(runner_fields)

    class RlpreregTrainer(base):
        rlprereg_fields = settings.fields
        rl_settings = settings
        rl_base = base

        def _calculate_rewards(self, inputs, prompts, completions, completion_ids_list):
            rewards_per_func = super()._calculate_rewards(inputs, prompts, completions, completion_ids_list)
            return _shape_rewards(self, rewards_per_func, completion_ids_list)

        def _generate_and_score_completions(self, inputs):
            if not self.model.training:
                return super()._generate_and_score_completions(inputs)
            return _training_batch(self, inputs)

    RlpreregTrainer.__name__ = f"Rlprereg{base.__name__}"
    RlpreregTrainer.__qualname__ = RlpreregTrainer.__name__
    return RlpreregTrainer


# -- the steps (``tr`` is the trainer; ``tr.rl_settings`` what the lock asks) -------------------

def _reward_recorder(tr):
    rf = tr.reward_funcs[0] if getattr(tr, "reward_funcs", None) else None
    return getattr(rf, "task", None), getattr(rf, "recorder", None)


def _extra(tr, values: dict) -> None:
    """Extra telemetry fields for this step (through the reward recorder)."""
    _, recorder = _reward_recorder(tr)
    if recorder is not None and hasattr(recorder, "step_extra"):
        recorder.step_extra.update(values)


def _base_step(tr, batch_inputs, layout=None):
    """TRL's own generate-and-score on ``batch_inputs``; returns (its output, the rewards)."""
    _, recorder = _reward_recorder(tr)
    if recorder is not None and layout is not None:
        recorder.next_layout = layout
    out = tr.rl_base._generate_and_score_completions(tr, batch_inputs)
    return out, list(tr._rl_last_rewards)


def _shape_rewards(tr, rewards_per_func, completion_ids_list):
    """Add the overlong penalty (when locked) and keep the last call's weighted rewards."""
    import torch

    s = tr.rl_settings
    if s.overlong_buffer is not None:
        lengths = [len(ids) for ids in completion_ids_list]
        pen = overlong_penalties(lengths, tr.max_completion_length, s.overlong_buffer, s.overlong_factor)
        rewards_per_func = rewards_per_func.clone()
        rewards_per_func[:, 0] += torch.tensor(pen, dtype=rewards_per_func.dtype, device=rewards_per_func.device)
        tr._rl_penalties = getattr(tr, "_rl_penalties", []) + pen
    weights = tr.reward_weights.to(rewards_per_func.device)
    tr._rl_last_rewards = (rewards_per_func * weights.unsqueeze(0)).nansum(dim=1).tolist()
    return rewards_per_func


def _training_batch(tr, inputs):
    """One training generation step: AERO, dynamic sampling or TRL's, then overlong handling."""
    s = tr.rl_settings
    tr._rl_penalties = []
    if s.aero:
        out = _aero(tr, inputs)
    elif s.dynamic:
        out = _dynamic(tr, inputs)
    else:
        out, _ = _base_step(tr, inputs)
    if s.overlong_filter:
        out = _filter_truncated(tr, out)
    if s.overlong_buffer is not None and tr._rl_penalties:
        _extra(tr, {"overlong_penalty_mean": sum(tr._rl_penalties) / len(tr._rl_penalties),
                    "overlong_penalized": sum(1 for p in tr._rl_penalties if p < 0)})
    return out


def _filter_truncated(tr, out):
    """Mask completions cut off at max_completion_length (no EOS) out of the loss."""
    ids = out["completion_ids"]
    mask = out["completion_mask"]
    eos = set(tr.eos_token_ids)
    truncated = []
    for row_ids, row_mask in zip(ids.tolist(), mask.tolist(), strict=True):
        kept = [t for t, m in zip(row_ids, row_mask, strict=True) if m]
        truncated.append(bool(kept) and len(kept) >= tr.max_completion_length and kept[-1] not in eos)
    if any(truncated):
        import torch

        keep = torch.tensor([not t for t in truncated], device=mask.device, dtype=mask.dtype)
        out["completion_mask"] = mask * keep.unsqueeze(1)
        m = out["completion_mask"] if out.get("tool_mask") is None else out["completion_mask"] * out["tool_mask"]
        out["num_items_in_batch"] = m.sum()
    _extra(tr, {"overlong_filtered": sum(truncated)})
    return out


def _refill(tr, n_groups: int, batch: int):
    """Fresh prompts for dynamic sampling's extra batches: a pure function of
    (run seed, step, batch), so a resumed run draws the same ones."""
    from runner.evaluate import derive_seed

    ds = tr.train_dataset
    rng = random.Random(derive_seed(tr.args.seed, f"dapo-refill:{tr.state.global_step}:{batch}"))
    if n_groups <= len(ds):
        idx = rng.sample(range(len(ds)), n_groups)
    else:
        idx = [rng.randrange(len(ds)) for _ in range(n_groups)]
    G = tr.num_generations
    return [dict(ds[i]) for i in idx for _ in range(G)]


def _dynamic(tr, inputs):
    """DAPO dynamic sampling: generate batches until enough groups have mixed rewards."""
    G = tr.num_generations
    n_groups = len(inputs) // G
    outputs, generations = [], []
    _, recorder = _reward_recorder(tr)

    def generate_batch(b):
        batch_inputs = inputs if b == 0 else _refill(tr, n_groups, b)
        generations.append(getattr(recorder, "generation", None))
        out, rewards = _base_step(tr, batch_inputs)
        outputs.append(out)
        return [(len(outputs) - 1, g, rewards[g * G:(g + 1) * G]) for g in range(len(batch_inputs) // G)]

    sample = fill_eligible_groups(generate_batch, n_groups, int(tr.rl_settings.fields["dynamic_sampling_max_batches"]),
                                  rewards_of=lambda grp: grp[2])
    rows = [(b, g * G + j) for b, g, _ in sample.groups for j in range(G)]
    _extra(tr, {**sample.telemetry(), "dynamic_sampling_kept": [[generations[b], g] for b, g, _ in sample.groups]})
    return select_rows(outputs, rows, tr._tokenizer.pad_token_id)


def _aero_rollouts(tr, prompt_rows, settings, is_success):
    """AERO's exploration rollouts and its adaptive extra ones; returns (step, outputs, where)."""
    G, k = tr.num_generations, settings.exploration_rollouts
    outputs, where = [], [[] for _ in prompt_rows]
    try:
        tr.num_generations = k
        batch = [row for row in prompt_rows for _ in range(k)]
        out, rewards = _base_step(tr, batch, layout=[(g, j) for g in range(len(prompt_rows)) for j in range(k)])
        outputs.append(out)
        for g in range(len(prompt_rows)):
            where[g] = [(0, g * k + j) for j in range(k)]
        exploration = [rewards[g * k:(g + 1) * k] for g in range(len(prompt_rows))]

        def generate_more(groups):
            tr.num_generations = 1
            layout = [(g, len(where[g])) for g in groups]
            out, rewards = _base_step(tr, [prompt_rows[g] for g in groups], layout=layout)
            outputs.append(out)
            for i, g in enumerate(groups):
                where[g].append((len(outputs) - 1, i))
            return rewards

        step = aero_step(exploration, settings, generate_more=generate_more, is_success=is_success)
    finally:
        tr.num_generations = G
    return step, outputs, where


def _aero(tr, inputs):
    """AERO: curated rollouts per prompt with its own advantages (runner.aero)."""
    import torch

    G = tr.num_generations
    settings = AeroSettings.from_fields(tr.rl_settings.fields, num_generations=G, scale_rewards=tr.scale_rewards)
    task, recorder = _reward_recorder(tr)
    success_reward = float(getattr(task, "max_reward", 1.0))
    step, outputs, where = _aero_rollouts(tr, inputs[::G], settings, lambda r: r >= success_reward - 1e-9)
    rows = [where[g][i] for g, cg in enumerate(step.groups) for i in cg.kept]
    merged = select_rows(outputs, rows, tr._tokenizer.pad_token_id)
    merged["advantages"] = torch.tensor([a for cg in step.groups for a in cg.advantages],
                                        dtype=torch.float32, device=merged["completion_ids"].device)
    if recorder is not None and hasattr(recorder, "step_groups"):
        recorder.step_groups = [cg.rewards for cg in step.groups]
    _extra(tr, step.telemetry())
    return merged


def trainer_hook(base: type, runner_fields: dict) -> type:
    """The ``trainer_hook`` of the dapo and aero arm presets."""
    return make_trainer_class(base, runner_fields)


def with_vllm_server_seeds(base: type, run_seed: int) -> type:
    """In vLLM server mode, give every generation call a request seed derived from the run seed."""
    from runner.gpu import vllm_server_request_seed

    class ServerSeeded(base):
        def _generate_single_turn(self, *args, **kwargs):
            if getattr(self, "use_vllm", False) and self.vllm_mode == "server":
                step = self.state.global_step
                call = getattr(self, "_rl_vllm_calls", {}).get(step, -1) + 1
                self._rl_vllm_calls = {step: call}
                seed = vllm_server_request_seed(run_seed, step, call)
                self.vllm_generation.generation_kwargs = {**self.vllm_generation.generation_kwargs, "seed": seed}
                self.rlprereg_vllm_request_seeds = getattr(self, "rlprereg_vllm_request_seeds", 0) + 1
            return super()._generate_single_turn(*args, **kwargs)

    ServerSeeded.__name__ = base.__name__
    return ServerSeeded
