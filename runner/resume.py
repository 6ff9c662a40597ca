"""Checkpoints and resuming an interrupted unit without duplicated or lost steps.

Why it is more than ``resume_from_checkpoint``: transformers' Trainer checkpoints restore the
model (LoRA adapter), optimizer, scheduler, trainer state and every RNG state, so training
continues exactly; but the run's own records (``telemetry.jsonl``, ``traces/train.jsonl``)
are appended as training goes and by the time a process is killed they hold steps *after*
the last checkpoint. Those steps will be run again, so the files must first be cut back to
what they held when the checkpoint was taken.

How: every ``checkpoint_every`` optimizer steps the Trainer saves
``checkpoints/checkpoint-<step>/``; right after (``on_save``) this module writes a marker
``rlprereg_resume.json`` into it with the byte sizes of the record files and the recorder's
counters at that moment. A checkpoint without a marker (killed while saving) is not used.
Resuming picks the newest marked checkpoint, truncates the record files to the marked
sizes, restores the recorder's counters, removes newer (unmarked) checkpoint folders and
post-training outputs of the interrupted attempt (they are regenerated), and trains on with
``resume_from_checkpoint``. With no marked checkpoint the unit restarts from step 0 (files
cut to empty). Each resume is appended to the manifest's ``resumes``.

Checkpoints are taken only on generation boundaries (``checkpoint_every`` x
gradient_accumulation_steps must be a multiple of steps_per_generation x num_iterations):
TRL does not checkpoint its buffered generation batch, so a checkpoint inside a buffer
would regenerate different rollouts on resume.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from prereg.errors import Refusal, UserError
from prereg.jsonio import read_json, write_atomic

MARKER = "rlprereg_resume.json"
CHECKPOINTS = "checkpoints"
RECORD_FILES = ("telemetry.jsonl", "traces/train.jsonl")
POST_TRAINING = ("traces/heldout.jsonl", "adapter")
RESUMABLE_STATUSES = ("running", "incomplete")
_CKPT = re.compile(r"^checkpoint-(\d+)$")


def checkpoint_trainer_kwargs(checkpoint_every: int | None, trainer_fields: dict) -> dict:
    """GRPOConfig settings for checkpointing every ``checkpoint_every`` optimizer steps."""
    if checkpoint_every is None:
        return {"save_strategy": "no"}
    if not isinstance(checkpoint_every, int) or isinstance(checkpoint_every, bool) or checkpoint_every < 1:
        raise UserError(f"training.checkpoint_every: {checkpoint_every!r} must be a positive integer")
    gas = trainer_fields.get("gradient_accumulation_steps") or 1
    spg = trainer_fields.get("steps_per_generation") or gas
    iters = trainer_fields.get("num_iterations") or 1
    if (checkpoint_every * gas) % (spg * iters):
        raise UserError(
            f"training.checkpoint_every: {checkpoint_every} steps is not a multiple of the generation cycle "
            f"(steps_per_generation x num_iterations = {spg * iters} micro-steps, gradient_accumulation_steps "
            f"{gas}); a checkpoint inside a buffered generation batch cannot be resumed exactly")
    return {"save_strategy": "steps", "save_steps": checkpoint_every, "save_only_model": False,
            "save_total_limit": None}


# -- recorder state ----------------------------------------------------------------------------

RECORDER_FIELDS = ("rollouts", "generation", "last_step_written")


def recorder_state(recorder) -> dict:
    last = recorder.last_batch
    return {
        **{k: getattr(recorder, k) for k in RECORDER_FIELDS},
        "last_batch": None if last is None else {"index": last.index, "rewards": last.rewards,
                                                 "lengths": last.lengths, "truncated": last.truncated},
    }


def restore_recorder(recorder, state: dict) -> None:
    from runner.telemetry import _Batch

    for k in RECORDER_FIELDS:
        setattr(recorder, k, state[k])
    lb = state.get("last_batch")
    recorder.last_batch = None if lb is None else _Batch(lb["index"], lb["rewards"], lb["lengths"], lb["truncated"])


def _file_sizes(run_dir: Path) -> dict:
    return {rel: (run_dir / rel).stat().st_size if (run_dir / rel).exists() else 0 for rel in RECORD_FILES}


def write_marker(checkpoint_dir: Path, run_dir: Path, step: int, recorder) -> dict:
    """Record what the run's files and recorder held when ``checkpoint_dir`` was saved."""
    for fh in (recorder.telemetry_fh, recorder.train_fh):
        if not fh.closed:
            fh.flush()
    marker = {"step": int(step), "files": _file_sizes(run_dir), "recorder": recorder_state(recorder)}
    write_atomic(Path(checkpoint_dir) / MARKER, json.dumps(marker, sort_keys=True, allow_nan=False), overwrite=True)
    return marker


def make_checkpoint_callback(run_dir: Path, recorder):
    """A TrainerCallback that marks every checkpoint right after the Trainer wrote it."""
    from transformers import TrainerCallback

    class ResumeMarker(TrainerCallback):
        def on_save(self, args, state, control, **kwargs):
            ckpt = Path(args.output_dir) / f"checkpoint-{state.global_step}"
            if ckpt.is_dir():
                write_marker(ckpt, Path(run_dir), state.global_step, recorder)

    return ResumeMarker()


# -- finding and preparing a resume -------------------------------------------------------------

@dataclass
class ResumePoint:
    checkpoint: Path | None  # None: restart from step 0
    step: int
    marker: dict


def _checkpoints(run_dir: Path) -> list[tuple[int, Path]]:
    root = Path(run_dir) / CHECKPOINTS
    if not root.is_dir():
        return []
    out = []
    for p in root.iterdir():
        m = _CKPT.match(p.name)
        if m and p.is_dir():
            out.append((int(m.group(1)), p))
    return sorted(out)


def _valid_marker(run_dir: Path, step: int, ckpt: Path) -> dict | None:
    try:
        marker = json.loads((ckpt / MARKER).read_text())
    except (OSError, ValueError):
        return None
    if marker.get("step") != step or not (ckpt / "trainer_state.json").exists():
        return None
    sizes = _file_sizes(run_dir)
    if any(marker["files"].get(rel, 0) > sizes[rel] for rel in RECORD_FILES):
        return None  # the files are shorter than the checkpoint says: they are not this run's
    return marker


def find_resume_point(run_dir: str | Path) -> ResumePoint:
    """The newest marked checkpoint, or a restart from step 0 when there is none."""
    run_dir = Path(run_dir)
    for step, ckpt in reversed(_checkpoints(run_dir)):
        marker = _valid_marker(run_dir, step, ckpt)
        if marker is not None:
            return ResumePoint(ckpt, step, marker)
    empty = {"step": 0, "files": dict.fromkeys(RECORD_FILES, 0),
             "recorder": {"rollouts": 0, "generation": 0, "last_step_written": 0, "last_batch": None}}
    return ResumePoint(None, 0, empty)


def resumable_status(run_dir: str | Path) -> str | None:
    """The manifest status when the unit can be resumed (killed or interrupted), else None."""
    from prereg.records import MANIFEST

    path = Path(run_dir) / MANIFEST
    if not path.exists():
        return None
    try:
        status = read_json(path, "run manifest").get("status")
    except Exception:
        return None
    return status if status in RESUMABLE_STATUSES else None


def check_same_unit(manifest: dict, *, lock_hash: str, arm: str, seed: int, resolved_config: dict) -> None:
    """Refuse to resume a unit folder whose record is of a different lock, arm, seed or config."""
    if manifest.get("lock", {}).get("hash") != lock_hash:
        raise Refusal("resume: the interrupted unit was run under a different lock; move it aside to rerun")
    if manifest.get("arm") != arm or manifest.get("seed") != seed:
        raise Refusal("resume: the interrupted unit's manifest names a different arm or seed")
    from prereg.fields import FREE_PATHS, flatten

    def science(cfg):  # free settings (output folder, run name, ...) may differ, e.g. a moved runs folder
        return {k: v for k, v in flatten(cfg or {}).items() if k not in FREE_PATHS}

    if science(manifest.get("resolved_config")) != science(resolved_config):
        raise Refusal("resume: the resolved trainer config differs from the interrupted unit's; "
                      "move it aside to rerun")


def prepare_resume(run_dir: str | Path, point: ResumePoint) -> dict:
    """Cut the record files back to the checkpoint, drop newer checkpoints and stale outputs.

    Returns the ``resumes`` entry describing what was done (the caller adds time and status).
    """
    run_dir = Path(run_dir)
    truncated = {}
    for rel in RECORD_FILES:
        path = run_dir / rel
        before = path.stat().st_size if path.exists() else 0
        keep = point.marker["files"].get(rel, 0)
        if path.exists():
            with open(path, "r+b") as fh:
                fh.truncate(keep)
                fh.flush()
                os.fsync(fh.fileno())
        truncated[rel] = {"bytes_before": before, "bytes_kept": keep}
    dropped = []
    for step, ckpt in _checkpoints(run_dir):
        if step > point.step or (point.checkpoint is None):
            shutil.rmtree(ckpt)
            dropped.append(ckpt.name)
    discarded = []
    for rel in POST_TRAINING:
        path = run_dir / rel
        if path.is_dir():
            shutil.rmtree(path)
            discarded.append(rel)
        elif path.exists():
            path.unlink()
            discarded.append(rel)
    return {
        "from_step": point.step,
        "checkpoint": None if point.checkpoint is None else f"{CHECKPOINTS}/{point.checkpoint.name}",
        "truncated": truncated,
        "dropped_checkpoints": sorted(dropped),
        "discarded_outputs": discarded,
    }


def begin_resume(run_dir: str | Path, fresh: dict, *, now: str) -> tuple[dict, ResumePoint]:
    """The interrupted unit's manifest, continued: checks it is the same unit, cuts the record
    files back to the newest marked checkpoint and appends an entry to ``resumes``.

    ``fresh`` is the manifest this invocation would have started with (its lock, arm, seed,
    resolved config and settings are compared and recorded).
    """
    from prereg.records import MANIFEST

    run_dir = Path(run_dir)
    old = read_json(run_dir / MANIFEST, "run manifest")
    check_same_unit(old, lock_hash=fresh["lock"]["hash"], arm=fresh["arm"], seed=fresh["seed"],
                    resolved_config=fresh["resolved_config"])
    point = find_resume_point(run_dir)
    entry = {"at": now, "previous_status": old.get("status"), "previous_error": old.get("error"),
             **prepare_resume(run_dir, point),
             "fingerprint_hash_before": (old.get("fingerprint") or {}).get("hash")}
    if fresh.get("settings") != old.get("settings"):
        entry["settings"] = fresh.get("settings")
    manifest = {k: v for k, v in old.items() if k != "seal"}
    manifest.update(status="running", ended_at=None, error=None, summaries={}, artifacts={},
                    resumes=[*old.get("resumes", []), entry])
    return manifest, point
