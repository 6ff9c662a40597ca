"""Synthetic campaigns: lock + run folders that follow the manifest contract exactly.

Used by the stats and audit tests (planted defects start from a clean synthetic or real
campaign) and by the benchmarks (1,000 runs x 500 items). The numbers are random but the
records are internally consistent: summaries are computed from the written telemetry and
traces with the same function the runner uses, and every manifest is sealed.
"""

from __future__ import annotations

import copy
import datetime as _dt
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from prereg.canonical import sha256_json, sha256_text
from prereg.fields import resolved_path
from prereg.jsonio import write_atomic, write_json_atomic
from prereg.lock import build_lock, lock_filename
from prereg.records import (
    HELDOUT_TRACE,
    TELEMETRY,
    TRAIN_TRACE,
    artifact_digests,
    unit_dir,
    write_manifest,
)
from prereg.study import Study, Training, study_of
from prereg.summaries import compute_summaries

_ISO = "%Y-%m-%dT%H:%M:%S.%fZ"


@dataclass(frozen=True)
class Campaign:
    lock_path: Path
    runs_dir: Path
    lock: dict


def _jsonl(rows: list[dict]) -> str:
    return "".join(json.dumps(r, sort_keys=True, allow_nan=False) + "\n" for r in rows)


def _fake_sha(*parts) -> str:
    return hashlib.sha256("|".join(map(str, parts)).encode()).hexdigest()


def resolved_config_for(prereg: dict | Study, arm: str, seed: int) -> dict:
    """A resolved config shaped like the runner's: the arm's locked fields placed by prereg.fields.

    Args:
        prereg: the preregistration, or its typed :class:`prereg.study.Study`.
        arm, seed: the unit.

    Returns:
        ``{"trainer": ..., "peft": ..., "runner": ...}`` as a manifest's ``resolved_config``.

    Example:
        >>> s = study_of(json.loads((Path(__file__).parents[1] / "examples" / "e1.json").read_text()))
        >>> resolved_config_for(s, "gspo", 1)["trainer"]["num_iterations"]
        2
    """
    study = prereg if isinstance(prereg, Study) else study_of(prereg)
    out = {"trainer": {"seed": seed, "output_dir": f"runs/{arm}/s{seed}"}, "peft": {}, "runner": {"seed": seed}}
    for field, value in study.arms[arm].training.fields.items():
        ns, name = resolved_path(field).split(".", 1)
        out[ns][name] = value
    return out


def fingerprint_components() -> dict:
    return {
        "python": {"version": "3.11.7"},
        "torch": {"version": "2.13.0+cpu", "cuda": None},
        "trl": "1.16.0",
        "transformers": "5.24.0",
        "peft": "0.21.2",
        "rlprereg": {"version": "0.1.0", "git_commit": "0" * 40, "dirty": False},
        "task_source_sha256": "1" * 64,
    }


def _training_records(tr: Training, arm: str, seed: int, rng: np.random.Generator) -> tuple[list[dict], list[dict]]:
    """Telemetry rows and training-trace rows of a run (the arm's training settings ``tr``): 0/1 rewards
    whose success rate climbs over the steps."""
    steps = int(tr.max_steps)
    k = int(tr.num_generations)
    groups = int(tr.prompts_per_step if tr.prompts_per_step is not None else 2)
    telemetry, train = [], []
    rollouts = 0
    for step in range(1, steps + 1):
        p = np.clip(0.3 + 0.4 * step / steps + rng.normal(0, 0.05), 0.05, 0.95)
        rewards = (rng.random((groups, k)) < p).astype(float)
        rollouts += groups * k
        zero_std = float(np.mean([len(set(g)) == 1 for g in rewards.tolist()]))
        telemetry.append({
            "step": step, "reward_mean": float(rewards.mean()), "reward_std": float(rewards.std()),
            "zvf": zero_std, "gu": 1.0 - zero_std,
            "frac_all_fail": float(np.mean(rewards.max(axis=1) == 0)),
            "frac_all_max": float(np.mean(rewards.min(axis=1) == 1)),
            "rollouts": rollouts, "groups": groups, "loss": float(rng.normal(0, 0.1)),
        })
        for g in range(groups):
            prompt = _fake_sha("prompt", step, g, seed)
            for i in range(k):
                train.append({"step": step, "group": g, "index": i, "prompt_sha256": prompt,
                              "completion_sha256": _fake_sha(arm, seed, step, g, i, rng.random()),
                              "reward": float(rewards[g, i])})
    return telemetry, train


def _heldout_records(arm: str, seed: int, n: int, accuracy: float, difficulty: np.ndarray,
                     rng: np.random.Generator, tasks: list[str] | None) -> list[dict]:
    """Held-out trace rows: item i is correct with probability difficulty[i] + (accuracy - 0.5),
    so arms sharing ``difficulty`` are paired by item."""
    probs = np.clip(difficulty + (accuracy - 0.5), 0.0, 1.0)
    correct = rng.random(n) < probs
    heldout = [{"index": i, "item_id": f"item-{i}", "prompt_sha256": _fake_sha("heldout", i),
                "completion_sha256": _fake_sha(arm, seed, "heldout", i, int(correct[i])),
                "prediction": "1" if correct[i] else None, "target": "1",
                "correct": bool(correct[i]), "reward": float(correct[i])} for i in range(n)]
    if tasks:  # multi-task studies: items are assigned to tasks round-robin
        for row in heldout:
            row["task"] = tasks[row["index"] % len(tasks)]
    return heldout


def write_run(prereg: dict, lock: dict, runs_dir: Path, arm: str, seed: int, *, accuracy: float,
              difficulty: np.ndarray, rng: np.random.Generator, started_at: _dt.datetime,
              evidence_class: str = "confirmatory", lock_path: str = "locks/x.lock.json",
              components: dict | None = None, tasks: list[str] | None = None, study: Study | None = None,
              session: str | None = None) -> Path:
    """Write one sealed synthetic run folder (telemetry, traces, adapter bytes, manifest) as the runner would.

    Args:
        prereg, lock: the preregistration and its lock document (``study``: the preregistration
            already parsed, :func:`prereg.study.study_of`; parsed here when None).
        runs_dir: the runs root; the unit goes to ``runs_dir/<study>/<arm>/s<seed>``.
        arm, seed: the unit.
        accuracy: expected held-out accuracy; difficulty: per-item base rates shared across arms.
        rng: every draw comes from it, in a fixed order (byte-identical reruns).
        started_at: start time (the run ends 5 minutes later).
        evidence_class, lock_path, components, tasks: manifest fields and multi-task items.
        session: the evaluation session, recorded as ``runner run --session`` records it (the
            manifest's ``session`` and ``settings.session``), or None.

    Returns:
        The run folder.

    Example:
        ``write_run(p, lock, Path("runs"), "grpo", 1, accuracy=0.6, difficulty=d, rng=rng, started_at=t0)``
    """
    study = study or study_of(prereg)
    spec = study.arms[arm]  # the arm as the runner reads it: algorithm, declared changes, training
    run_dir = unit_dir(runs_dir, study.id, arm, seed)
    run_dir.mkdir(parents=True, exist_ok=True)
    telemetry, train = _training_records(spec.training, arm, seed, rng)
    heldout = _heldout_records(arm, seed, int(study.evaluation.heldout_n), accuracy, difficulty, rng, tasks)
    write_atomic(run_dir / TELEMETRY, _jsonl(telemetry))
    write_atomic(run_dir / TRAIN_TRACE, _jsonl(train))
    write_atomic(run_dir / HELDOUT_TRACE, _jsonl(heldout))
    write_atomic(run_dir / "adapter" / "adapter_model.safetensors", rng.bytes(64))
    comps = components if components is not None else fingerprint_components()
    manifest = {
        "manifest_format": 1,
        "study_id": study.id,
        "lock": {"hash": lock["lock_hash"], "version": lock["version"], "locked_at": lock["locked_at"],
                 "path": lock_path},
        "arm": arm,
        "algorithm": spec.algorithm,
        "seed": seed,
        "evidence_class": evidence_class,
        "status": "complete",
        "started_at": started_at.strftime(_ISO),
        "ended_at": (started_at + _dt.timedelta(minutes=5)).strftime(_ISO),
        "resolved_config": resolved_config_for(study, arm, seed),
        "declared_changes": copy.deepcopy(dict(spec.changes)),
        "task": {"name": study.task.name, "reward_bounds": [0.0, 1.0], "item_metrics": {}},  # 0/1 rewards
        "fingerprint": {"components": comps, "hash": sha256_json(comps)},
        "summaries": compute_summaries(telemetry, heldout),
        "artifacts": artifact_digests(run_dir),
        "settings": {"out": str(runs_dir), "device": "cpu", "store_text": False, "synthetic": True},
        "resumes": [],
        "error": None,
    }
    if session is not None:
        manifest["session"] = manifest["settings"]["session"] = session
    write_manifest(run_dir, manifest)
    return run_dir


def make_campaign(root: str | Path, prereg: dict, *, effects: dict[str, float] | None = None,
                  base_accuracy: float = 0.5, seed_sd: float = 0.03, rng_seed: int = 0,
                  locked_at: str = "2026-01-01T00:00:00.000000Z", arms: list[str] | None = None,
                  seeds: list[int] | None = None, lock: dict | None = None,
                  tasks: list[str] | None = None, session: str | None = None) -> Campaign:
    """Write ``root/locks/<id>.lock.json`` and ``root/runs/<id>/<arm>/s<seed>/`` for every unit.

    ``effects[arm]`` shifts the arm's expected held-out accuracy from ``base_accuracy``;
    each seed adds N(0, seed_sd) so seeds are the unit of replication, and items share a
    difficulty so the per-item outcomes of different arms are paired. ``lock`` (e.g. an
    amendment built with ``prereg.lock.build_lock``) is used instead of a fresh version-1 lock;
    ``session`` is recorded in every run as ``runner run --session`` records it.
    """
    root = Path(root)
    rng = np.random.default_rng(rng_seed)
    if lock is None:
        lock = build_lock(prereg, now=locked_at)
    else:
        locked_at = lock["locked_at"]
    study = study_of(prereg)
    lock_path = root / "locks" / lock_filename(study.id, lock["version"])
    write_json_atomic(lock_path, lock)
    runs_dir = root / "runs"
    n = int(study.evaluation.heldout_n)
    difficulty = np.clip(rng.beta(2, 2, size=n), 0.0, 1.0)
    t0 = _dt.datetime.fromisoformat(locked_at.replace("Z", "+00:00")) + _dt.timedelta(days=1)
    effects = effects or {}
    seed_noise = {s: rng.normal(0, seed_sd) for s in (seeds or study.seeds)}
    for a in arms or study.trained_arms:  # reference arms are never run (README failure 16)
        for j, s in enumerate(seeds or study.seeds):
            acc = base_accuracy + effects.get(a, 0.0) + seed_noise[s] + rng.normal(0, seed_sd / 2)
            write_run(prereg, lock, runs_dir, a, s, accuracy=acc, difficulty=difficulty, rng=rng,
                      started_at=t0 + _dt.timedelta(hours=j), lock_path=str(lock_path), tasks=tasks, study=study,
                      session=session)
    return Campaign(lock_path=lock_path, runs_dir=runs_dir, lock=lock)


def small_prereg(base: dict, *, heldout_n: int = 50, steps: int = 12, seeds: list[int] | None = None) -> dict:
    """Shrink a preregistration (e.g. examples/e1.json) for fast synthetic campaigns."""
    p = copy.deepcopy(base)
    p["dataset"]["heldout_n"] = heldout_n
    p["training"]["max_steps"] = steps
    if seeds is not None:
        p["seeds"] = seeds
    return p


def demo_campaign(root: str | Path) -> Campaign:
    """The packaged demo study (``prereg init --template demo``) as a synthetic campaign: its lock
    and a sealed run folder per registered (arm, seed), 100 held-out items each, no training.

    Its positive control ``high_lr`` is 40 points below the baseline (as the real demo's collapse);
    the other arms equal it. The API's docstring examples analyse, render and audit it.

    Example:
        >>> import shutil, tempfile
        >>> c = demo_campaign(tempfile.mkdtemp())
        >>> c.lock_path.name, sorted(p.name for p in (c.runs_dir / "demo").iterdir())
        ('demo.lock.json', ['bnpo', 'dr_grpo', 'grpo', 'gspo', 'high_lr'])
        >>> shutil.rmtree(c.lock_path.parents[1])
    """
    from importlib import resources

    study = json.loads(resources.files("prereg").joinpath("templates", "demo.json").read_bytes())
    return make_campaign(root, small_prereg(study, heldout_n=100, steps=3), effects={"high_lr": -0.4}, seed_sd=0.01)


__all__ = ["Campaign", "demo_campaign", "make_campaign", "small_prereg", "write_run", "resolved_config_for", "sha256_text"]
