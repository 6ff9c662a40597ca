"""Evaluate a reference arm (a base model, an SFT or other checkpoint) and seal its record.

A reference arm (``kind: reference`` in the lock) is never trained (README failure 16): its
numbers come from evaluating what the arm names on the registered held-out split with the
locked evaluation protocol, through the same code as a trained run's evaluation
(``runner.evaluate.evaluate_heldout``). The record is a run folder like any other —
``runs/<study>/<arm>/once/`` for a reference evaluated once (its manifest's ``seed`` is
null: no invented seed), ``.../s<seed>/`` for one evaluated per seed — with a sealed
manifest marked ``kind: reference``, the held-out trace, summaries, artifact digests and the
stack fingerprint, so ``stats`` and ``audit`` read it as they read trained runs.

What the arm's ``checkpoint`` means (:func:`resolve_checkpoint`): absent, ``base`` or the
lock's model name -> the lock's base model; a folder holding a PEFT adapter -> that adapter
on the lock's base model (an SFT LoRA); any other folder, ``tiny:<spec>`` or hub id
(``name@revision``) -> that model. The fingerprint's model component is the base model for
the first two, so a reference evaluated on the study's stack shares the trained runs'
fingerprint; the adapter's or model's file hashes are in ``reference.loaded``.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

from prereg.canonical import sha256_file
from prereg.errors import Refusal, UserError
from prereg.jsonio import write_atomic
from prereg.lock import Lock, utc_now, verify_lock
from prereg.records import HELDOUT_TRACE, artifact_digests, unit_dir, write_manifest
from prereg.rules import LOCK_DIR, RUNS_DIR
from prereg.study import ModelSpec

EVALUATION_SEED_ONCE = 0  # sampling seed of a reference evaluated once (recorded; greedy ignores it)


@dataclass(frozen=True)
class Checkpoint:
    """What a reference arm's ``checkpoint`` resolves to: ``kind`` base | adapter | model, the
    model to load (``name``, ``revision``) and, for an adapter, its folder."""

    kind: str
    name: str
    revision: str | None
    adapter: Path | None = None


def resolve_checkpoint(checkpoint: str | None, model: ModelSpec) -> Checkpoint:
    """The model (and adapter) a reference arm's ``checkpoint`` names; refuses a missing folder.

    Args:
        checkpoint: the arm's ``checkpoint`` (None, ``base``, a folder, ``tiny:<spec>``, ``id@rev``).
        model: the lock's ``model`` block (the base model; ``lock.study.model``).

    Returns:
        A ``Checkpoint``.

    Example:
        >>> resolve_checkpoint("base", ModelSpec("tiny:qwen2", None, None, {})).kind
        'base'
    """
    base = Checkpoint("base", model.name, model.revision)
    if checkpoint in (None, "base"):
        return base
    folder = Path(checkpoint)
    if folder.is_dir():
        if (folder / "adapter_config.json").is_file():
            return Checkpoint("adapter", model.name, model.revision, folder.resolve())
        if (folder / "config.json").is_file():
            return Checkpoint("model", str(folder.resolve()), None)
        raise UserError(f"arms.*.checkpoint: {checkpoint} holds neither a PEFT adapter (adapter_config.json) "
                        "nor a model (config.json)")
    name, _, rev = checkpoint.partition("@")
    if name == model.name and (not rev or rev == model.revision):
        return base
    if name.startswith("tiny:") or (name.count("/") == 1 and not name.startswith((".", "/"))):
        return Checkpoint("model", name, rev or None)  # a tiny model or a hub id (loaded offline from the cache)
    raise UserError(f"arms.*.checkpoint: {checkpoint}: no such folder (give a PEFT adapter or model folder, "
                    "'base', tiny:<spec> or a hub id@revision)")


def _folder_hashes(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): sha256_file(p) for p in sorted(folder.rglob("*")) if p.is_file()}


def check_reference_unit(lock: Lock, arm: str, seed: int | None) -> str:
    """Refuse what ``runner evaluate`` cannot evaluate; returns the arm's ``evaluated`` schedule.

    A trained arm is refused (``runner run`` trains and evaluates it); a reference evaluated
    once takes no seed (inventing one is README failure 16); one evaluated per seed needs a
    registered seed.
    """
    decls = lock.study.arm_decls
    if arm not in decls:
        raise Refusal(f"--arm {arm!r} is not registered in the lock (registered: {', '.join(sorted(decls))})")
    decl = decls[arm]
    if not decl.is_reference:
        raise Refusal(f"--arm {arm!r} is a trained arm: `runner run --arm {arm} --seed N` trains and evaluates it; "
                      "`runner evaluate` evaluates reference arms (kind: reference) only")
    seeds = lock.study.seeds
    if decl.evaluated_once and seed is not None:
        raise Refusal(f"--seed {seed}: arm {arm!r} is a reference evaluated once (evaluated: once): it has no seed; "
                      "omit --seed")
    if decl.evaluated == "per_seed" and seed not in seeds:
        given = "no --seed" if seed is None else f"--seed {seed}"
        raise Refusal(f"{given}: arm {arm!r} is a reference evaluated per seed; give a registered seed "
                      f"({', '.join(map(str, seeds))})")
    return decl.evaluated


def _preflight(lock_path, arm, seed, *, device, require_signature, trusted_keys, environ, lock_dir):
    from runner.config import check_environment
    from runner.evaluate import check_backend
    from runner.fingerprint import check_stack_pins
    from runner.tasks import get_task
    from runner.train import check_seed_range, find_default_lock

    path = Path(lock_path) if lock_path is not None else find_default_lock(lock_dir)
    lock = verify_lock(path, require_signature=require_signature, trusted_keys=trusted_keys)
    evaluated = check_reference_unit(lock, arm, seed)
    if seed is not None:
        check_seed_range(seed)
    env = check_environment(environ)
    if device == "cuda":
        import torch

        if not torch.cuda.is_available():
            raise UserError("--device cuda: no CUDA device is visible here")
    problems = check_stack_pins(dict(lock.study.stack_pins))
    if problems:
        raise Refusal(f"stack_pins: {problems[0]}" + (f" (+{len(problems) - 1} more)" if len(problems) > 1 else ""))
    check_backend(lock.study.evaluation, device)
    task = get_task(lock.study.task, lock.study.dataset)
    if hasattr(task, "preflight"):
        task.preflight()
    task.heldout_items(lock.study.dataset.heldout_n)
    ckpt = resolve_checkpoint(lock.study.arms[arm].decl.checkpoint, lock.study.model)
    return lock, evaluated, env, ckpt


def evaluate_reference(lock_path: str | Path | None, arm: str, seed: int | None = None, out: str | Path = RUNS_DIR, *,
                       device: str = "cpu", quiet: bool = False,
                       require_signature: bool = False, trusted_keys: list[str] | None = None,
                       environ: dict | None = None, lock_dir: str | Path = LOCK_DIR,
                       sign_key: str | Path | None = None, session: str | None = None) -> Path:
    """Evaluate one reference arm (once, or for one seed) and seal its run folder; returns it.

    Nothing is trained. The evaluation is the lock's (``evaluation``, ``dataset.heldout_n``,
    the task's prompt and scorer); a sampling seed is derived from the seed (0 for a
    reference evaluated once), as for trained runs. ``session`` names the evaluation batch
    (a free setting, recorded as the manifest's ``session``; stats forms contrasts within one).

    Args:
        lock_path: the lock (None: the only study in ``lock_dir``).
        arm: a reference arm of the lock.
        seed: None for ``evaluated: once``; a registered seed for ``evaluated: per_seed``.
        out: runs folder; the unit is ``out/<study>/<arm>/once`` or ``.../s<seed>``.
        device, quiet, require_signature, trusted_keys, environ, lock_dir, sign_key:
            as ``runner.train.run_unit``.
        session: evaluation session name, or None.

    Returns:
        The run folder.

    Example:
        ``evaluate_reference("locks/s.lock.json", "base")  # -> runs/s/base/once``
    """
    from prereg.records import check_session
    from runner.unit import UnitGuard

    session = check_session(session)
    key = None
    if sign_key is not None:
        from prereg.signing import load_private_key

        key = load_private_key(sign_key)
    lock, evaluated, env, ckpt = _preflight(lock_path, arm, seed, device=device, require_signature=require_signature,
                                            trusted_keys=trusted_keys, environ=environ, lock_dir=lock_dir)
    session = check_session(session, lock.study.sessions)
    run_dir = unit_dir(out, lock.study_id, arm, seed)
    settings = {"out": str(out), "device": device, "quiet": quiet,
                "require_signature": require_signature, "lock_path": str(lock.path), "env": env,
                "session": session}
    with UnitGuard(run_dir):
        manifest = _base_manifest(lock, arm, seed, evaluated, ckpt, settings, session)
        return _evaluate(lock, manifest, ckpt, run_dir, device=device, quiet=quiet, key=key)


def _base_manifest(lock: Lock, arm: str, seed, evaluated: str, ckpt: Checkpoint, settings: dict, session) -> dict:
    from runner.train import MANIFEST_FORMAT, PENDING_FINGERPRINT, evidence_class

    study = lock.study
    eval_seed = EVALUATION_SEED_ONCE if seed is None else seed
    m = {
        "manifest_format": MANIFEST_FORMAT, "study_id": lock.study_id,
        "lock": {"hash": lock.hash, "version": lock.version, "locked_at": lock.locked_at, "path": str(lock.path)},
        "arm": arm, "kind": "reference", "seed": seed, "evidence_class": evidence_class(lock, False),
        "status": "running", "started_at": utc_now(), "ended_at": None,
        # nothing is trained: no trainer, no LoRA config; the evaluation protocol is the config
        "resolved_config": {"trainer": {}, "peft": {}, "runner": {},
                            "evaluation": {**study.evaluation.as_locked(), "heldout_n": study.dataset.heldout_n,
                                           "evaluation_seed": eval_seed}},
        "declared_changes": {},
        "reference": {"checkpoint": study.arms[arm].decl.checkpoint, "evaluated": evaluated,
                      "loaded": {"kind": ckpt.kind, "model": ckpt.name, "revision": ckpt.revision}},
        "fingerprint": PENDING_FINGERPRINT, "summaries": {}, "artifacts": {}, "settings": settings,
        "resumes": [], "notes": [], "error": None,
    }
    if session is not None:
        m["session"] = session
    return m


def _load(ckpt: Checkpoint, model: ModelSpec, device: str):
    """(model, tokenizer, fingerprint model info) for a resolved checkpoint."""
    from runner.models import load_model_and_tokenizer

    kw = {"dtype": model.dtype or "float32", "device": device, "quantization": dict(model.quantization) or None}
    model, tokenizer, info = load_model_and_tokenizer(ckpt.name, ckpt.revision, **kw)
    if ckpt.kind == "adapter":
        from peft import PeftModel

        model = PeftModel.from_pretrained(model, str(ckpt.adapter))
    return model, tokenizer, info


def _evaluate(lock: Lock, manifest: dict, ckpt: Checkpoint, run_dir: Path, *, device: str, quiet: bool, key) -> Path:
    import shutil
    import tempfile

    from prereg.summaries import compute_summaries
    from runner.evaluate import evaluate_heldout
    from runner.fingerprint import stack_fingerprint
    from runner.tasks import get_task
    from runner.train import _set_seeds, runner_source_hashes

    write_manifest(run_dir, manifest, key)
    _say(quiet, f"runner: {lock.study_id}/{run_dir.parent.name}/{run_dir.name} (reference {ckpt.kind}: {ckpt.name}, "
                f"{manifest['evidence_class']}) -> {run_dir}")
    tmp = None
    try:
        eval_seed = manifest["resolved_config"]["evaluation"]["evaluation_seed"]
        _set_seeds(eval_seed)
        task = get_task(lock.study.task, lock.study.dataset)
        manifest["task"] = task.manifest_record()
        model, tokenizer, info = _load(ckpt, lock.study.model, device)
        if ckpt.kind == "adapter":
            manifest["reference"]["loaded"]["adapter_sha256"] = _folder_hashes(ckpt.adapter)
        elif ckpt.kind == "model":
            manifest["reference"]["loaded"]["weights_sha256"] = info["weights_sha256"]
        manifest["fingerprint"] = stack_fingerprint(task=task, model_info=info,
                                                    dataset_fingerprint=task.dataset_fingerprint(),
                                                    extra={"runner_sources": runner_source_hashes()})
        write_manifest(run_dir, manifest, key)
        tmp = Path(tempfile.mkdtemp(prefix="rlprereg-ref-"))
        rows = evaluate_heldout(model, tokenizer, task, lock.study.evaluation,
                                run_seed=eval_seed, work_dir=tmp / "merged")
        write_atomic(run_dir / HELDOUT_TRACE, "".join(json.dumps(r, allow_nan=False) + "\n" for r in rows),
                     overwrite=False)
        manifest.update(status="complete", ended_at=utc_now(), summaries=compute_summaries([], rows),
                        artifacts=artifact_digests(run_dir))
        sealed = write_manifest(run_dir, manifest, key)
        s = sealed["summaries"]
        _say(quiet, f"runner: complete  heldout {s['heldout_correct']}/{s['heldout_n']}  seal {sealed['seal'][:12]}")
        return run_dir
    except BaseException as exc:
        text = str(exc).splitlines()[0] if str(exc) else ""
        manifest.update(status="failed" if isinstance(exc, Exception) else "incomplete", ended_at=utc_now(),
                        error=f"{type(exc).__name__}: {text}", artifacts=artifact_digests(run_dir))
        write_manifest(run_dir, manifest, key)
        raise
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


def _say(quiet: bool, line: str) -> None:
    if not quiet:
        print(line, file=sys.stderr, flush=True)
