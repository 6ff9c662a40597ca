"""Per-step telemetry and completion traces, computed from the raw per-group rewards.

ZVF (zero-variance fraction) is the fraction of *prompt groups* whose ``num_generations``
rewards are all equal; GU (group utilisation) = 1 - ZVF. We compute them here from the raw
rewards in generation order (TRL lays out a generation batch as consecutive groups of
``num_generations`` completions of one prompt) rather than reading TRL's
``frac_reward_zero_std``, which with ``scale_rewards="batch"`` tests the *batch* std and is
therefore 0 or 1, not a fraction of groups (README failure 6).

Which rollouts a step's row describes: TRL generates one batch every
``steps_per_generation * num_iterations`` micro-steps and trains on slices of it until the
next one. The row of optimizer step *s* describes the generation batches produced during
step *s* (``generations``; ``new_rollouts`` > 0), or, when step *s* produced none because
it reuses a buffered batch, the most recent batch — the one step *s* trains on
(``new_rollouts`` = 0). ``rollouts`` is the cumulative number of completions generated up to
the end of step *s*.

Sources: reward_mean/std, zvf, gu, frac_all_fail, frac_all_max, groups, rollouts,
completion_length_mean and truncated_frac are the runner's (from raw rewards and completion
token ids); loss, grad_norm, learning_rate, entropy, kl, clip ratios are TRL's log keys
named in :data:`TRL_KEYS`; step_time_s is the runner's wall clock from step begin to end.
The TRL log of the step is also kept verbatim under ``trl``.
"""

from __future__ import annotations

import json
import math
import sys
import time
from pathlib import Path

from prereg.canonical import sha256_text
from prereg.rules import all_at, zero_variance_fraction

# telemetry field -> TRL log key
TRL_KEYS = {
    "loss": "loss",
    "grad_norm": "grad_norm",
    "learning_rate": "learning_rate",
    "entropy": "entropy",
    "kl": "kl",
    "clip_ratio_low": "clip_ratio/low_mean",
    "clip_ratio_high": "clip_ratio/high_mean",
    "clip_ratio_region": "clip_ratio/region_mean",
}
RUNNER_KEYS = ("reward_mean", "reward_std", "zvf", "gu", "frac_all_fail", "frac_all_max", "groups", "rollouts",
               "new_rollouts", "completion_length_mean", "truncated_frac", "step_time_s")


# Written only by the arms that use them (runner.rollouts): DAPO dynamic sampling and overlong
# shaping, AERO allocation/curation. All computed by the runner from the raw rewards.
EXTENSION_KEYS = (
    "dynamic_sampling_batches", "dynamic_sampling_groups_generated", "dynamic_sampling_eligible_groups",
    "dynamic_sampling_surplus_eligible", "dynamic_sampling_rollouts", "dynamic_sampling_kept",
    "zvf_generated", "zvf_optimized", "overlong_filtered", "overlong_penalty_mean", "overlong_penalized",
    "aero_rollouts_generated", "aero_rollouts_kept", "aero_rollouts_rejected", "aero_rescue_used",
    "aero_rescue_rounds", "aero_groups_rescued", "aero_strategies", "aero_group_strategy",
)


def telemetry_sources() -> dict:
    out = {k: "runner" for k in RUNNER_KEYS + EXTENSION_KEYS}
    out.update({k: f"trl:{v}" for k, v in TRL_KEYS.items()})
    return out


def _mean(xs):
    return math.fsum(xs) / len(xs) if xs else None


def _std(xs):
    """Sample std (ddof=1), as TRL's ``reward_std``."""
    if len(xs) < 2:
        return 0.0 if xs else None
    m = _mean(xs)
    return math.sqrt(math.fsum((x - m) ** 2 for x in xs) / (len(xs) - 1))


def groups_stats(groups: list[list[float]], *, max_reward: float, min_reward: float = 0.0) -> dict:
    """ZVF, GU, all-fail/all-max fractions and reward mean/std of one step's prompt groups.

    Groups may differ in size (AERO); ZVF is :func:`prereg.rules.zero_variance_fraction`, the
    formula dynamic sampling counts with too.
    """
    n = len(groups)
    if not n:
        return {"groups": 0, "zvf": None, "gu": None, "frac_all_fail": None, "frac_all_max": None,
                "reward_mean": None, "reward_std": None}
    zvf = zero_variance_fraction(groups)
    flat = [r for g in groups for r in g]
    return {
        "groups": n, "zvf": zvf, "gu": 1.0 - zvf,
        "frac_all_fail": sum(1 for g in groups if all_at(g, min_reward)) / n,
        "frac_all_max": sum(1 for g in groups if all_at(g, max_reward)) / n,
        "reward_mean": _mean(flat), "reward_std": _std(flat),
    }


def group_stats(rewards: list[float], num_generations: int, *, max_reward: float,
                min_reward: float = 0.0) -> dict:
    """:func:`groups_stats` of rewards laid out as consecutive groups of ``num_generations``."""
    if num_generations < 1 or len(rewards) % num_generations:
        raise ValueError(f"{len(rewards)} rewards do not form groups of {num_generations}")
    groups = [rewards[i:i + num_generations] for i in range(0, len(rewards), num_generations)]
    return groups_stats(groups, max_reward=max_reward, min_reward=min_reward)


class _Batch:
    __slots__ = ("index", "rewards", "lengths", "truncated")

    def __init__(self, index, rewards, lengths, truncated):
        self.index, self.rewards, self.lengths, self.truncated = index, rewards, lengths, truncated


class Recorder:
    """Receives rewards from :class:`RewardRecorder` and step events from the callback.

    Lines are written and flushed as they happen, so a crash leaves every completed step.
    """

    def __init__(self, run_dir: Path, *, num_generations: int, max_reward: float, min_reward: float = 0.0,
                 max_completion_length: int | None = None, eos_token_id=None, store_text: bool = False,
                 total_steps: int | None = None, progress=None, append: bool = False):
        self.run_dir = Path(run_dir)
        (self.run_dir / "traces").mkdir(parents=True, exist_ok=True)
        mode = "a" if append else "w"  # append: a resumed unit continues its (truncated) files
        self.telemetry_fh = open(self.run_dir / "telemetry.jsonl", mode, encoding="utf-8")
        self.train_fh = open(self.run_dir / "traces" / "train.jsonl", mode, encoding="utf-8")
        self.G = num_generations
        self.max_reward, self.min_reward = float(max_reward), float(min_reward)
        self.max_len = max_completion_length
        self.eos = set(eos_token_id if isinstance(eos_token_id, (list, tuple)) else [eos_token_id]) - {None}
        self.store_text = store_text
        self.total_steps = total_steps
        self.progress = progress  # callable(str) or None
        self.rollouts = 0
        self.generation = 0
        self.step_batches: list[_Batch] = []
        self.last_batch: _Batch | None = None
        self.step_start = None
        self.step_time = None
        self.last_step_written = 0
        # Set by runner.rollouts (DAPO/AERO): (group, index) of the next batch's rollouts,
        # extra fields of this step's row, and the step's groups when their sizes vary.
        self.next_layout = None
        self.step_extra: dict = {}
        self.step_groups = None
        self.last_row: dict | None = None  # the newest telemetry row (runner.trackers forwards it)

    # -- from the reward function -------------------------------------------------------
    def record_batch(self, step: int, prompts: list, completions: list, completion_ids: list | None,
                     rewards: list[float], item_ids: list) -> None:
        lengths = [len(ids) for ids in completion_ids] if completion_ids is not None else []
        truncated = []
        if completion_ids is not None and self.max_len:
            truncated = [len(ids) >= self.max_len and not (ids and ids[-1] in self.eos) for ids in completion_ids]
        batch = _Batch(self.generation, list(rewards), lengths, truncated)
        layout, self.next_layout = self.next_layout, None
        for i, (p, c, r) in enumerate(zip(prompts, completions, rewards, strict=True)):
            group, index = layout[i] if layout is not None else (i // self.G, i % self.G)
            row = {"step": step, "generation": self.generation, "group": group, "index": index,
                   "item_id": item_ids[i], "prompt_sha256": sha256_text(_text(p)),
                   "completion_sha256": sha256_text(_text(c)), "reward": float(r)}
            if self.store_text:
                row["prompt"], row["completion"] = _text(p), _text(c)
            self.train_fh.write(json.dumps(row, allow_nan=False) + "\n")
        self.train_fh.flush()
        self.generation += 1
        self.rollouts += len(rewards)
        self.step_batches.append(batch)
        self.last_batch = batch

    # -- from the callback --------------------------------------------------------------
    def step_begin(self) -> None:
        self.step_start = time.perf_counter()
        self.step_batches = []
        self.step_extra, self.step_groups = {}, None

    def step_end(self) -> None:
        if self.step_start is not None:
            self.step_time = time.perf_counter() - self.step_start

    def log(self, step: int, logs: dict) -> None:
        if step <= self.last_step_written or "loss" not in logs:
            return  # not a per-step training log (e.g. the final train summary)
        batches = self.step_batches or ([self.last_batch] if self.last_batch else [])
        rewards = [r for b in batches for r in b.rewards]
        row = {"step": step, "generations": [b.index for b in batches],
               "new_rollouts": sum(len(b.rewards) for b in self.step_batches), "rollouts": self.rollouts}
        if self.step_groups is not None:
            row.update(groups_stats(self.step_groups, max_reward=self.max_reward, min_reward=self.min_reward))
        else:
            row.update(group_stats(rewards, self.G, max_reward=self.max_reward, min_reward=self.min_reward))
        lengths = [x for b in batches for x in b.lengths]
        trunc = [x for b in batches for x in b.truncated]
        row["completion_length_mean"] = _mean(lengths)
        row["truncated_frac"] = _mean([float(t) for t in trunc]) if trunc else None
        for key, trl_key in TRL_KEYS.items():
            row[key] = _num(logs.get(trl_key))
        row["step_time_s"] = self.step_time
        row.update(self.step_extra)
        row["trl"] = {k: _num(v) for k, v in logs.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
        self.telemetry_fh.write(json.dumps(row, allow_nan=False) + "\n")
        self.telemetry_fh.flush()
        self.last_step_written = step
        self.last_row = row
        if self.progress is not None:
            total = f"/{self.total_steps}" if self.total_steps else ""
            self.progress(
                f"step {step}{total}  reward {_fmt(row['reward_mean'])}  zvf {_fmt(row['zvf'])}  "
                f"loss {_fmt(row['loss'])}  rollouts {self.rollouts}  {_fmt(self.step_time)}s"
            )

    def close(self) -> None:
        for fh in (self.telemetry_fh, self.train_fh):
            if not fh.closed:
                fh.close()


def _num(v):
    if v is None or isinstance(v, bool):
        return v
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) else None


def _fmt(v):
    return "-" if v is None else f"{v:.3f}"


def _text(x) -> str:
    """Completions/prompts are strings, or chat messages (hashed as canonical JSON text)."""
    if isinstance(x, str):
        return x
    return json.dumps(x, sort_keys=True, ensure_ascii=False)


def stderr_progress(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


class RewardRecorder:
    """The task reward as a TRL reward function that also traces every completion.

    TRL calls it once per generation batch with the completions in generation order and
    every dataset column as a keyword list; ``item_id`` finds the task item.
    """

    def __init__(self, task, items_by_id: dict, recorder: Recorder):
        self.task, self.items, self.recorder = task, items_by_id, recorder
        self.__name__ = f"{getattr(task, 'name', 'task')}_reward"

    def __call__(self, prompts, completions, completion_ids=None, item_id=None, trainer_state=None, **_):
        items = [self.items[i] for i in item_id]
        rewards = [float(self.task.reward(c if isinstance(c, str) else _completion_text(c), it))
                   for c, it in zip(completions, items, strict=True)]
        step = (trainer_state.global_step + 1) if trainer_state is not None else 0
        self.recorder.record_batch(step, prompts, completions, completion_ids, rewards, list(item_id))
        return rewards


def _completion_text(c) -> str:
    # conversational completion: [{"role": "assistant", "content": "..."}]
    if isinstance(c, list) and c and isinstance(c[-1], dict):
        return str(c[-1].get("content", ""))
    return str(c)


def make_callback(recorder: Recorder):
    from transformers import TrainerCallback

    class TelemetryCallback(TrainerCallback):
        def on_step_begin(self, args, state, control, **kwargs):
            recorder.step_begin()

        def on_step_end(self, args, state, control, **kwargs):
            recorder.step_end()

        def on_log(self, args, state, control, logs=None, **kwargs):
            recorder.log(state.global_step, logs or {})

    return TelemetryCallback()
