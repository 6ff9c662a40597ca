"""The sweep driver: check the options, log the start, skip what is done, hand the rest to an executor."""

from __future__ import annotations

import os
import socket
import time
import uuid
from dataclasses import asdict
from pathlib import Path

from prereg.errors import UserError
from prereg.lock import Lock, verify_lock
from prereg.records import unit_dir
from runner.status import registered_units, unit_status
from runner.sweep.board import Board, PlainProgress, live, print_summary
from runner.sweep.child import PASS_ENV_PREFIXES
from runner.sweep.local import local_slots, run_local
from runner.sweep.log import SWEEP_LOG, SweepRecorder
from runner.sweep.model import SweepOptions, SweepResult, UnitOutcome


def _check_options(opts: SweepOptions) -> None:
    if opts.executor not in ("local", "ray"):
        raise UserError(f"--executor: {opts.executor!r} is not one of local, ray")
    if opts.max_parallel is not None and opts.max_parallel < 1:
        raise UserError("--max-parallel: must be at least 1")
    if opts.retries < 0:
        raise UserError("--retries: must be 0 or more")
    if opts.gpus_per_run < 0 or (opts.cpus_per_run is not None and opts.cpus_per_run <= 0):
        raise UserError("--gpus-per-run/--cpus-per-run: must be positive")
    if opts.address and opts.executor != "ray":
        raise UserError("--address: only meaningful with --executor ray")
    if opts.sign_key is not None:  # an unreadable key is refused before any unit starts
        from prereg.signing import load_private_key

        load_private_key(opts.sign_key)
        opts.sign_key = str(Path(opts.sign_key).resolve())  # workers may run elsewhere on shared storage
        opts.run = opts.run.with_(sign_key=opts.sign_key)  # every unit's seals signed by the same key


def _unit_specs(opts: SweepOptions, lock: Lock, sweep_id: str, log_path: Path) -> list[dict]:
    """One plain dict per unit: all a worker (maybe on another node) needs to run it."""
    study_root = Path(opts.out) / lock.study_id
    env = {k: v for k, v in os.environ.items() if k.startswith(PASS_ENV_PREFIXES)}
    specs = []
    for arm, seed in registered_units(lock, opts.arms, opts.seeds):
        specs.append({
            "sweep_id": sweep_id, "lock": str(opts.lock_path), "out": str(opts.out), "arm": arm, "seed": seed,
            "run_dir": str(unit_dir(opts.out, lock.study_id, arm, seed)), "study_root": str(study_root),
            "log_path": str(log_path), "runner_args": opts.run.argv(), "env": env, "cwd": os.getcwd(),
            "busy_wait_s": opts.busy_wait_s, "sign_key": opts.sign_key,
        })
    return specs


def _log_start(rec: SweepRecorder, opts: SweepOptions, lock: Lock, specs: list[dict]) -> None:
    settings = {k: v for k, v in asdict(opts).items() if k not in ("live", "ray_init")}
    rec.event("sweep_start", study=lock.study_id, lock_hash=lock.hash, lock_version=lock.version,
              host=socket.gethostname(), units=[[s["arm"], s["seed"]] for s in specs], options=settings)


def _settle_known(specs, outcomes, lock: Lock, rec: SweepRecorder) -> list[dict]:
    """Complete units are skipped here, before any worker is asked for; returns the units to run."""
    todo = []
    for spec in specs:
        st = unit_status(Path(spec["run_dir"]), spec["arm"], spec["seed"], lock=lock)
        u = outcomes[(spec["arm"], spec["seed"])]
        if st.state == "complete":
            u.outcome = "skipped"
            if st.lock_hash_matches is False:  # the runner will not overwrite it; this lock lacks the unit
                u.outcome = "other_lock"
                u.error = f"complete, but {st.detail}; move it aside to rerun it under this lock"
            rec.unit_end(u)
        elif st.state == "running":  # another process (another sweep, a single run) holds it now
            u.outcome, u.error = "busy", f"{spec['run_dir']}: another process holds the unit"
            rec.unit_end(u)
        else:
            todo.append(spec)
    return todo


def _execute(opts, todo, outcomes, board, rec, slots, console) -> bool:
    """Run ``todo`` on the chosen executor; True when Ctrl-C stopped it (outcomes then say so)."""
    try:
        plain = opts.live and not console.is_terminal
        rec.on_unit_end = PlainProgress(console, len(todo)) if plain else None
        with live(board, console, opts.live and not plain):
            if opts.executor == "local":
                run_local(opts, todo, outcomes, board, rec, slots)
            elif todo:
                from runner.sweep.on_ray import run_ray

                run_ray(opts, todo, outcomes, board, rec)
    except KeyboardInterrupt:
        for u in outcomes.values():
            if u.outcome in ("queued", "running"):
                u.outcome = "interrupted" if u.outcome == "running" else "not_started"
        return True
    return False


def run_sweep(opts: SweepOptions, console=None) -> SweepResult:
    """Run the selected units of the lock; never raises for a unit's failure (see the result)."""
    _check_options(opts)
    lock = verify_lock(opts.lock_path)
    registered_units(lock, opts.arms, opts.seeds)  # refuses filters outside the lock
    slots = local_slots(opts) if opts.executor == "local" else []
    if opts.gpus_per_run and opts.run.device is None:
        opts.run = opts.run.with_(device="cuda")
    from rich.console import Console

    console = console or Console(stderr=True)
    sweep_id = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()) + "-" + uuid.uuid4().hex[:6]
    log_path = Path(opts.out) / lock.study_id / SWEEP_LOG
    rec = SweepRecorder(log_path, sweep_id, key_path=opts.sign_key)
    specs = _unit_specs(opts, lock, sweep_id, log_path)
    outcomes = {(s["arm"], s["seed"]): UnitOutcome(s["arm"], s["seed"], path=s["run_dir"]) for s in specs}
    max_steps = {a: arm.training.max_steps for a, arm in lock.study.arms.items()}
    _log_start(rec, opts, lock, specs)
    board = Board(lock.study_id, specs, outcomes, max_steps)
    todo = _settle_known(specs, outcomes, lock, rec)
    interrupted = _execute(opts, todo, outcomes, board, rec, slots, console)
    result = SweepResult(sweep_id, lock.study_id, log_path, list(outcomes.values()))
    rec.event("sweep_end", counts=result.counts(), ok=result.ok, interrupted=interrupted)
    print_summary(result, console)
    if interrupted:
        raise KeyboardInterrupt
    return result
