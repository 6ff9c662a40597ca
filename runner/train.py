"""Run one (arm, seed) unit of a locked study and leave its sealed record.

Order matters: every refusal that needs no model (lock, arm, seed, environment, stack pins,
trainer fields, evaluation backend, busy or used unit folder) happens before anything is
written. Then a ``running`` manifest is written atomically, training and held-out
evaluation run, and the manifest is rewritten (atomically, sealed) as ``complete`` — or as
``failed``/``incomplete`` with the error text if anything escapes, so a crash never leaves a
half-written record.
"""

from __future__ import annotations

import contextlib
import json
import math
import shutil
import sys
import tempfile
from pathlib import Path

from prereg.canonical import sha256_file, sha256_json
from prereg.errors import Refusal, UserError
from prereg.jsonio import read_jsonl, write_atomic
from prereg.lock import Lock, latest_lock, utc_now, verify_lock
from prereg.records import HELDOUT_TRACE, TELEMETRY, artifact_digests, unit_dir, write_manifest
from prereg.rules import LOCK_DIR, RUNS_DIR, lock_files
from runner.config import (
    ALLOWED_ENV,
    FORBIDDEN_ENV_PREFIXES,
    ResolvedConfig,
    arm_view,
    check_environment,
    resolve,
)
from runner.evaluate import check_backend, evaluate_heldout
from runner.telemetry import Recorder, RewardRecorder, make_callback, stderr_progress, telemetry_sources
from runner.unit import UnitGuard

MANIFEST_FORMAT = 1
# Until the model is loaded the stack is not known; a running/failed-early manifest says so.
PENDING_FINGERPRINT = {"components": {"pending": True}, "hash": sha256_json({"pending": True})}


def find_default_lock(lock_dir: str | Path = LOCK_DIR) -> Path:
    """The latest version of the only study locked in ``lock_dir``; refuses when ambiguous."""
    lock_dir = Path(lock_dir)
    studies = {data["study_id"] for _, data in lock_files(lock_dir)}
    if len(studies) != 1:
        found = f"locks of {len(studies)} studies ({', '.join(sorted(studies))})" if studies else "no lock"
        raise UserError(f"--lock: not given and {lock_dir}/ holds {found}; pass --lock PATH")
    return latest_lock(lock_dir, studies.pop())


def evidence_class(lock: Lock, exploratory: bool) -> str:
    if exploratory or lock.study.evidence_class in ("exploratory", "pilot"):
        return "exploratory"
    return "confirmatory"


def runner_source_hashes() -> dict:
    """SHA-256 of every module of the runner itself: the code that ran is in the fingerprint."""
    root = Path(__file__).resolve().parent
    return {p.relative_to(root.parent).as_posix(): sha256_file(p) for p in sorted(root.rglob("*.py"))}


def _set_seeds(seed: int) -> None:
    import random

    import numpy as np
    import torch

    random.seed(seed)
    np.random.seed(seed % (2**32))
    torch.manual_seed(seed)


def check_seed_range(seed: int) -> None:
    """The locked seed range (the schema's, one rule) checked before any model is built.

    ``--exploratory --seed 99999999999`` used to fail with numpy's ValueError after loading the model.
    """
    from prereg.schema import load_schema

    items = load_schema("preregistration")["properties"]["seeds"]["items"]
    lo, hi = items["minimum"], items["maximum"]
    if not lo <= seed <= hi:
        raise UserError(f"--seed {seed}: must be an integer in {lo}..{hi}")


def disk_error(exc: BaseException) -> str | None:
    """The OS reason when ``exc`` is a failed write (full disk, read-only, quota), else None.

    safetensors reports a full disk as ``SafetensorError: ... IoError(Os { code: 28, ...``, not
    as an OSError, so both shapes are recognised.
    """
    import errno
    import os
    import re

    codes = (errno.ENOSPC, errno.EROFS, errno.EDQUOT, errno.EACCES, errno.EIO)
    if isinstance(exc, OSError) and exc.errno in codes:
        return exc.strerror or os.strerror(exc.errno)
    m = re.search(r"Os \{ code: (\d+)", str(exc))
    if type(exc).__name__ == "SafetensorError" and m and int(m.group(1)) in codes:
        return os.strerror(int(m.group(1)))
    return None


def _say(quiet: bool, line: str) -> None:
    if not quiet:
        print(line, file=sys.stderr, flush=True)


def preflight(lock_path, arm: str, seed: int, out, *, device: str, exploratory: bool,
              require_signature: bool, trusted_keys, environ, lock_dir) -> tuple[Lock, ResolvedConfig, dict, dict]:
    """Every refusal that needs no model; returns (lock, config, recorded env, notes)."""
    path = Path(lock_path) if lock_path is not None else find_default_lock(lock_dir)
    lock = verify_lock(path, require_signature=require_signature, trusted_keys=trusted_keys)
    study = lock.study
    arm_view(study, arm, exploratory=exploratory)  # refuses an unregistered arm
    if seed not in lock.study.seeds and not exploratory:
        raise Refusal(f"--seed {seed} is not registered in the lock (registered: {', '.join(map(str, lock.study.seeds))})")
    check_seed_range(seed)
    if not exploratory:  # a later look's seed waits for the earlier look's interim record (README failure 19)
        from prereg.looks import gate

        gate(lock.study, lock.hash, out, lock.study_id, arm, seed)
    env = check_environment(environ, exploratory=exploratory)
    notes = [f"environment override allowed (exploratory): {k}={v}" for k, v in env.items()
             if k.startswith(FORBIDDEN_ENV_PREFIXES) and k not in ALLOWED_ENV]
    if device == "cuda":
        import torch

        if not torch.cuda.is_available():
            raise UserError("--device cuda: no CUDA device is visible here")
    from runner.fingerprint import check_stack_pins

    problems = check_stack_pins(dict(study.stack_pins))
    if problems:
        if not exploratory:
            raise Refusal(f"stack_pins: {problems[0]}" + (f" (+{len(problems) - 1} more)" if len(problems) > 1 else ""))
        notes.extend(f"stack pin not met: {p}" for p in problems)
    check_backend(lock.study.evaluation, device)
    from runner.gpu import check_gpu_requirements

    check_gpu_requirements(arm_view(study, arm, exploratory=exploratory)[1], study.model, device)
    from runner.tasks import get_task

    task = get_task(study.task, study.dataset)
    if hasattr(task, "preflight"):  # cheap load-time checks (e.g. connections: split dates, shortcut probe)
        task.preflight()
    task.heldout_items(lock.study.evaluation.heldout_n)  # refuses a held-out split shorter than heldout_n now
    run_dir = unit_dir(out, lock.study_id, arm, seed)
    cfg = resolve(study, arm, seed, device=device, output_dir=str(run_dir / "checkpoints"),
                  exploratory=exploratory)
    cfg.notes[:0] = notes
    return lock, cfg, env, {}


def run_unit(lock_path: str | Path | None, arm: str, seed: int, out: str | Path = RUNS_DIR, *,
             device: str = "cpu", store_text: bool = False, exploratory: bool = False, quiet: bool = False,
             require_signature: bool = False, trusted_keys: list[str] | None = None,
             environ: dict | None = None, lock_dir: str | Path = LOCK_DIR, report_to=None,
             tensorboard_dir: str | Path | None = None, sign_key: str | Path | None = None,
             sweep_id: str | None = None, session: str | None = None) -> Path:
    """Train, evaluate and seal one unit; returns its run folder ``out/<study>/<arm>/s<seed>``.

    ``session`` names the evaluation session (batch) of the unit's held-out evaluation: a free
    setting recorded as the manifest's ``session`` (and ``settings.session``); stats forms each
    contrast within one session and states a cross-session contrast as a deviation.

    ``report_to`` names experiment trackers (``runner.trackers``): a free setting, recorded in
    ``settings.report_to`` and ``trackers`` of the manifest, never in the resolved config.
    ``sign_key`` (an Ed25519 PEM private key held by the machine or cluster) signs every seal
    the run writes (``prereg.records.seal``), for ``audit check --trusted-run-key``. ``sweep_id``
    (set by ``runner sweep``) is recorded in ``settings.sweep_id``, so the audit can require the
    sweep log's events of this unit even when the log's tail was cut.

    Raises ``UserError``/``Refusal`` (one line) for anything refused; any other exception is
    recorded in a ``failed`` manifest and re-raised.
    """
    from prereg.records import check_session
    from runner.trackers import check_clients, parse_report_to

    session = check_session(session)
    key = None
    if sign_key is not None:  # an unreadable key is refused before anything is written
        from prereg.signing import load_private_key

        key = load_private_key(sign_key)
    report_to = parse_report_to(report_to)
    check_clients(report_to)  # a missing client is refused before anything is written
    lock, cfg, env, _ = preflight(lock_path, arm, seed, out, device=device, exploratory=exploratory,
                                  require_signature=require_signature, trusted_keys=trusted_keys,
                                  environ=environ, lock_dir=lock_dir)
    session = check_session(session, lock.study.sessions)
    run_dir = unit_dir(out, lock.study_id, arm, seed)
    settings = {"out": str(out), "device": device, "store_text": store_text, "quiet": quiet,
                "exploratory": exploratory, "require_signature": require_signature,
                "lock_path": str(lock.path), "env": env, "report_to": list(report_to)}
    if sweep_id is not None:
        settings["sweep_id"] = sweep_id
    if session is not None:
        settings["session"] = session
    with UnitGuard(run_dir, allow_resume=True) as guard:
        trackers = _start_trackers(report_to, lock, cfg, exploratory, tensorboard_dir)
        return _run(lock, cfg, run_dir, settings, exploratory=exploratory, store_text=store_text, quiet=quiet,
                    resume=guard.resumable, trackers=trackers, key=key)


def _start_trackers(names, lock: Lock, cfg: ResolvedConfig, exploratory: bool, tensorboard_dir):
    from runner.trackers import RunIdentity, start_trackers

    ident = RunIdentity(study_id=lock.study_id, lock_hash=lock.hash, lock_version=lock.version, arm=cfg.arm,
                        seed=cfg.seed, evidence_class=evidence_class(lock, exploratory))
    return start_trackers(names, ident, cfg.resolved(), tensorboard_dir=tensorboard_dir)


def _base_manifest(lock: Lock, cfg: ResolvedConfig, settings: dict, exploratory: bool) -> dict:
    _, _, declared = arm_view(lock.study, cfg.arm, exploratory=exploratory)
    return {
        "manifest_format": MANIFEST_FORMAT,
        "study_id": lock.study_id,
        "lock": {"hash": lock.hash, "version": lock.version, "locked_at": lock.locked_at, "path": str(lock.path)},
        "arm": cfg.arm,
        "algorithm": cfg.algorithm,
        "seed": cfg.seed,
        "evidence_class": evidence_class(lock, exploratory),
        "status": "running",
        "started_at": utc_now(),
        "ended_at": None,
        "resolved_config": cfg.resolved(),
        "config_sources": dict(sorted(cfg.sources.items())),
        "declared_changes": declared,
        "fingerprint": PENDING_FINGERPRINT,
        "summaries": {},
        "telemetry_sources": telemetry_sources(),
        "artifacts": {},
        "settings": settings,
        "resumes": [],
        "notes": list(cfg.notes),
        "error": None,
        **({"session": settings["session"]} if settings.get("session") is not None else {}),
    }


def _summaries(run_dir: Path) -> dict:
    from prereg.summaries import compute_summaries

    tel = read_jsonl(run_dir / TELEMETRY, "telemetry") if (run_dir / TELEMETRY).exists() else []
    held = read_jsonl(run_dir / HELDOUT_TRACE, "held-out trace") if (run_dir / HELDOUT_TRACE).exists() else []
    return compute_summaries(tel, held)


def _run(lock: Lock, cfg: ResolvedConfig, run_dir: Path, settings: dict, *, exploratory: bool,
         store_text: bool, quiet: bool, resume: str | None = None, trackers=None, key=None) -> Path:
    """Train one unit and seal its run folder: start (or resume) the manifest, load the stack,
    train, evaluate the held-out split, seal; any failure is sealed as failed or incomplete."""
    import torch

    from runner.trackers import Trackers

    trackers = trackers if trackers is not None else Trackers([], [])
    settings = {**settings, "torch_threads": torch.get_num_threads()}  # CPU reductions depend on it
    manifest, point = _start_manifest(lock, cfg, run_dir, settings, exploratory, resume, trackers, key, quiet)
    recorder = None
    try:
        task, model, tokenizer = _load_stack(lock, cfg, manifest, point)
        write_manifest(run_dir, manifest, key)
        recorder = Recorder(
            run_dir, num_generations=cfg.grpo_config.num_generations, max_reward=task.max_reward,
            min_reward=getattr(task, "min_reward", 0.0),
            max_completion_length=cfg.grpo_config.max_completion_length,
            eos_token_id=tokenizer.eos_token_id, store_text=store_text, total_steps=cfg.grpo_config.max_steps,
            progress=None if quiet else stderr_progress, append=point is not None)
        trainer = _train(cfg, run_dir, model, tokenizer, task, recorder, point, trackers, manifest)
        recorder.close()
        _evaluate_and_seal(lock, cfg, run_dir, trainer, tokenizer, task, manifest, trackers, key, quiet)
        return run_dir
    except BaseException as exc:
        if recorder is not None:
            recorder.close()
        _seal_failure(exc, run_dir, manifest, trackers, key, quiet)
        raise


def _start_manifest(lock: Lock, cfg: ResolvedConfig, run_dir: Path, settings: dict, exploratory: bool,
                    resume: str | None, trackers, key, quiet: bool):
    """The unit's first (running) manifest, written; a resumed unit continues from its last
    checkpoint (returned as the resume point, else None) and keeps its earlier tracker runs."""
    manifest = _base_manifest(lock, cfg, settings, exploratory)
    point = None
    if resume:  # an interrupted unit (killed or interrupted): continue it from its last checkpoint
        from runner.resume import begin_resume

        manifest, point = begin_resume(run_dir, manifest, now=utc_now())
        _say(quiet, f"runner: resuming interrupted unit from step {point.step}")
    if trackers.records:  # a resumed unit keeps the tracker runs of its earlier attempts
        manifest["trackers"] = [*manifest.get("trackers", []), *trackers.records]
    write_manifest(run_dir, manifest, key)
    _say(quiet, f"runner: {lock.study_id}/{cfg.arm}/s{cfg.seed} ({cfg.algorithm}, {manifest['evidence_class']}) "
                f"-> {run_dir}")
    return manifest, point


def _load_stack(lock: Lock, cfg: ResolvedConfig, manifest: dict, point):
    """Seeds, task, model and tokenizer; records the task's bounds and the stack fingerprint in
    the manifest (README failure 5). Returns (task, model, tokenizer)."""
    from runner.fingerprint import stack_fingerprint
    from runner.gpu import prepare_qlora, qlora_settings
    from runner.models import load_model_and_tokenizer
    from runner.tasks import get_task

    _set_seeds(cfg.seed)
    task = get_task(lock.study.task, lock.study.dataset)
    manifest["task"] = task.manifest_record()  # reward bounds and item metrics, read by the audit
    m = lock.study.model
    model, tokenizer, info = load_model_and_tokenizer(
        m.name, m.revision, dtype=m.dtype or "float32", device=cfg.device, quantization=dict(m.quantization) or None)
    manifest["fingerprint"] = stack_fingerprint(
        task=task, model_info=info, dataset_fingerprint=task.dataset_fingerprint(),
        extra={"runner_sources": runner_source_hashes()})
    if point is not None:
        manifest["resumes"][-1]["fingerprint_hash_after"] = manifest["fingerprint"]["hash"]
    if qlora_settings(m) is not None:  # 4-bit base: PEFT's k-bit preparation before LoRA
        model = prepare_qlora(model, gradient_checkpointing=bool(cfg.grpo_config.gradient_checkpointing))
    return task, model, tokenizer


def _train(cfg: ResolvedConfig, run_dir: Path, model, tokenizer, task, recorder, point, trackers, manifest: dict):
    """Build the trainer (with checkpoint and tracker callbacks) and train, from the resume point if any."""
    extra_callbacks = []
    if point is not None:
        from runner.resume import restore_recorder

        restore_recorder(recorder, point.marker["recorder"])
    if cfg.runner_fields.get("checkpoint_every"):
        from runner.resume import make_checkpoint_callback

        extra_callbacks.append(make_checkpoint_callback(run_dir, recorder))
    if trackers.backends:  # after the telemetry callback, whose row it forwards
        extra_callbacks.append(trackers.callback(recorder))
    trainer = build_trainer(cfg, model, tokenizer, task, recorder, callbacks=extra_callbacks)
    if getattr(trainer, "rlprereg_vllm_engine_seeds", None):
        manifest["notes"].append(f"vLLM engine seed(s) from the run seed: {trainer.rlprereg_vllm_engine_seeds}")
    if point is not None and point.checkpoint is not None and point.step >= cfg.grpo_config.max_steps:
        # interrupted after training (e.g. during evaluation): the final checkpoint is the trained
        # policy; Trainer.train would run one more step before noticing max_steps
        trainer._load_from_checkpoint(str(point.checkpoint))
    else:
        trainer.train(resume_from_checkpoint=str(point.checkpoint) if point and point.checkpoint else None)
    return trainer


def _evaluate_and_seal(lock: Lock, cfg: ResolvedConfig, run_dir: Path, trainer, tokenizer, task, manifest: dict,
                       trackers, key, quiet: bool) -> None:
    """Save the adapter, score the held-out split with the locked protocol, and seal the manifest complete."""
    _stable_target_modules(trainer.model)
    trainer.model.save_pretrained(str(run_dir / "adapter"))
    heldout_n = lock.study.evaluation.heldout_n
    _say(quiet, f"runner: evaluating {heldout_n} held-out items")
    tmp_eval = Path(tempfile.mkdtemp(prefix="rlprereg-eval-"))
    try:
        rows = evaluate_heldout(trainer.model, tokenizer, task, lock.study.evaluation,
                                run_seed=cfg.seed, work_dir=tmp_eval / "merged")
    finally:
        shutil.rmtree(tmp_eval, ignore_errors=True)
    write_atomic(run_dir / HELDOUT_TRACE, "".join(json.dumps(r, allow_nan=False) + "\n" for r in rows),
                 overwrite=False)
    _remove_empty(run_dir / "checkpoints")
    manifest.update(status="complete", ended_at=utc_now(), summaries=_summaries(run_dir),
                    artifacts=artifact_digests(run_dir))
    trackers.flush(manifest["summaries"], step=manifest["summaries"].get("steps") or 0)
    manifest["notes"] = [*manifest.get("notes", []), *trackers.problems]
    sealed = write_manifest(run_dir, manifest, key)
    _finish_trackers(trackers, sealed, quiet)
    s = sealed["summaries"]
    _say(quiet, f"runner: complete  heldout {s['heldout_correct']}/{s['heldout_n']}  "
                f"zvf_mean {_fmt(s['zvf_mean'])}  rollouts {s['rollouts']}  seal {sealed['seal'][:12]}")


def _seal_failure(exc: BaseException, run_dir: Path, manifest: dict, trackers, key, quiet: bool) -> None:
    """Seal the manifest ``failed`` (an exception) or ``incomplete`` (interrupted) with what was
    written so far; a full or read-only disk becomes the user's one-line error (exit 2). The
    caller re-raises ``exc`` otherwise."""
    status = "failed" if isinstance(exc, Exception) else "incomplete"
    text = str(exc).splitlines()[0] if str(exc) else ""
    try:
        summaries = _summaries(run_dir)
    except Exception:
        summaries = {}
    manifest.update(status=status, ended_at=utc_now(), error=f"{type(exc).__name__}: {text}",
                    summaries=summaries, artifacts=artifact_digests(run_dir))
    trackers.flush()
    manifest["notes"] = [*manifest.get("notes", []), *trackers.problems]
    reason = disk_error(exc)
    try:
        sealed = write_manifest(run_dir, manifest, key)
    except UserError as werr:
        if reason is None:
            raise
        raise UserError(f"{run_dir}: cannot write ({reason}); the failed manifest could not be saved "
                        f"either ({werr})") from None
    _finish_trackers(trackers, sealed, quiet)
    if reason is not None:  # a full or read-only disk is the user's to fix: one line, exit 2
        raise UserError(f"{run_dir}: cannot write ({reason}); the unit is marked failed") from None


def _finish_trackers(trackers, sealed: dict, quiet: bool) -> None:
    """Tag the tracker runs with the seal (known only now); a failure here can only be reported.

    A complete run's summaries were sent by ``trackers.flush`` before sealing; a failed run's are sent here.
    """
    steps = (sealed.get("summaries") or {}).get("steps") or 0
    summaries = None if sealed["status"] == "complete" else sealed.get("summaries")
    for problem in trackers.finish(sealed["seal"], sealed["status"], summaries, step=steps):
        print(f"runner: warning: {problem}", file=sys.stderr, flush=True)


def build_trainer(cfg: ResolvedConfig, model, tokenizer, task, recorder: Recorder, *, callbacks=None):
    """A real ``GRPOTrainer`` (or the arm preset's subclass) wired to the recorder."""
    from datasets import Dataset
    from trl import GRPOTrainer

    items = task.train_items(seed=cfg.seed)
    dataset = Dataset.from_list([{"prompt": it["prompt"], "item_id": str(it["id"])} for it in items])
    reward = RewardRecorder(task, {str(it["id"]): it for it in items}, recorder)
    trainer_cls = GRPOTrainer
    if cfg.preset.trainer_hook is not None:
        trainer_cls = cfg.preset.trainer_hook(GRPOTrainer, cfg.runner_fields)
    engine_seeds: list = []
    seeding = contextlib.nullcontext()
    if cfg.grpo_config.use_vllm:  # the run seed must reach vLLM's sampling (README failure 7)
        from runner.gpu import seeded_vllm_engine
        from runner.rollouts import with_vllm_server_seeds

        trainer_cls = with_vllm_server_seeds(trainer_cls, cfg.seed)
        if cfg.grpo_config.vllm_mode == "colocate":
            seeding = seeded_vllm_engine(cfg.seed, engine_seeds)
    with seeding:
        trainer = trainer_cls(model=model, reward_funcs=[reward], args=cfg.grpo_config, train_dataset=dataset,
                              processing_class=tokenizer, peft_config=cfg.lora_config,
                              callbacks=[make_callback(recorder), *(callbacks or [])])
    if cfg.grpo_config.use_vllm and cfg.grpo_config.vllm_mode == "colocate" and not engine_seeds:
        raise Refusal("training.use_vllm: TRL built no vLLM engine through the seeded constructor; "
                      "the run seed would not reach vLLM")
    trainer.rlprereg_vllm_engine_seeds = [s["seed"] for s in engine_seeds]
    from transformers.trainer_callback import PrinterCallback

    trainer.remove_callback(PrinterCallback)  # our recorder prints one line per step instead
    check_wiring(trainer, cfg)
    return trainer


# trainer attribute -> GRPOConfig field the trainer must have taken it from
WIRED = {"loss_type": "loss_type", "scale_rewards": "scale_rewards",
         "importance_sampling_level": "importance_sampling_level", "beta": "beta", "epsilon_low": "epsilon",
         "num_iterations": "num_iterations", "num_generations": "num_generations", "temperature": "temperature",
         "top_p": "top_p", "max_completion_length": "max_completion_length",
         "mask_truncated_completions": "mask_truncated_completions"}


def check_wiring(trainer, cfg: ResolvedConfig) -> None:
    """Fail the run if the constructed trainer does not use the resolved config (README failure 2).

    A preset's trainer subclass that overrides a treatment setting, or a TRL release that
    stops reading a field, would otherwise run one arm with another arm's objective.
    """
    for attr, field in WIRED.items():
        if hasattr(trainer, attr) and getattr(trainer, attr) != getattr(cfg.grpo_config, field):
            raise RuntimeError(f"trainer.{attr}={getattr(trainer, attr)!r} but the resolved config has "
                               f"{field}={getattr(cfg.grpo_config, field)!r}: the setting is not wired")
    if trainer.args.seed != cfg.seed:
        raise RuntimeError(f"trainer seed {trainer.args.seed} is not the run seed {cfg.seed}")


def _remove_empty(path: Path) -> None:
    if path.is_dir() and not any(path.iterdir()):
        path.rmdir()


def _fmt(v):
    return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.3f}"



def _stable_target_modules(model) -> None:
    """PEFT keeps resolved target modules in a set, written in hash order; sort them so the
    adapter_config.json digest is the same for the same run (seed-identical reruns, sweeps)."""
    for cfg in getattr(model, "peft_config", {}).values():
        tm = getattr(cfg, "target_modules", None)
        if isinstance(tm, (set, frozenset)):
            cfg.target_modules = sorted(tm)
