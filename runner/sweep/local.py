"""The local executor: K slots on this machine, each a child ``runner run`` polled here."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time

from prereg.errors import UserError
from runner.sweep.child import finish_unit, prepare_unit, start_unit
from runner.sweep.log import SweepRecorder
from runner.sweep.model import SweepOptions, UnitOutcome


def _visible_gpus(environ) -> list[str]:
    env = environ.get("CUDA_VISIBLE_DEVICES")
    if env is not None:
        return [d for d in env.split(",") if d.strip()]
    try:
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    return [str(i) for i, ln in enumerate(ln for ln in out.splitlines() if ln.startswith("GPU "))]


def local_slots(opts: SweepOptions, environ: dict | None = None) -> list[dict]:
    """The local executor's K slots, each the environment its units run with.

    With ``gpus_per_run`` n, slot i owns visible devices [i*n, (i+1)*n) through
    CUDA_VISIBLE_DEVICES (default: as many slots as the visible GPUs fill); with
    ``cpus_per_run`` the slot's thread count is set (OMP/MKL_NUM_THREADS).
    """
    environ = os.environ if environ is None else environ
    k = opts.max_parallel or 1
    slots: list[dict] = [{} for _ in range(k)]
    if opts.gpus_per_run:
        n = int(opts.gpus_per_run)
        if n != opts.gpus_per_run:
            raise UserError("--gpus-per-run: the local executor takes whole devices (fractions need --executor ray)")
        gpus = _visible_gpus(environ)
        if len(gpus) < n:
            raise UserError(f"--gpus-per-run {n}: only {len(gpus)} GPU(s) visible here")
        k = min(opts.max_parallel or len(gpus) // n, len(gpus) // n)  # default: every visible GPU busy
        slots = [{"CUDA_VISIBLE_DEVICES": ",".join(gpus[i * n:(i + 1) * n])} for i in range(k)]
    if opts.cpus_per_run:
        threads = str(max(1, int(opts.cpus_per_run)))
        for s in slots:
            s.update(OMP_NUM_THREADS=threads, MKL_NUM_THREADS=threads)
    return slots


def _fill_slots(queue, running, slots, outcomes, board, rec: SweepRecorder) -> None:
    """Start the next queued unit in every free slot (units that must not start end here)."""
    for slot in range(len(slots)):
        if slot in running or not queue:
            continue
        spec = queue.pop(0)
        spec = {**spec, "env": {**spec["env"], **slots[slot]}}
        key = (spec["arm"], spec["seed"])
        u = outcomes[key]
        early = prepare_unit({**spec, "busy_wait_s": 0.0})
        if early is not None:
            u.apply(early)
            rec.unit_end(u)
            continue
        proc, log_file = start_unit(spec)
        u.outcome, u.attempts, u.host = "running", u.attempts + 1, socket.gethostname()
        board.started[key] = time.monotonic()
        running[slot] = (spec, proc, log_file, time.monotonic())


def _reap(queue, running, outcomes: dict[tuple, UnitOutcome], retries: int, rec: SweepRecorder) -> None:
    """Judge every finished child; a unit lost to a signal goes back to the head of the queue."""
    for slot, (spec, proc, log_file, t0) in list(running.items()):
        rc = proc.poll()
        if rc is None:
            continue
        del running[slot]
        u = outcomes[(spec["arm"], spec["seed"])]
        res = finish_unit(spec, rc, log_file)
        res["seconds"] = time.monotonic() - t0
        u.apply(res)
        if u.outcome == "lost" and u.attempts <= retries:
            rec.retry(u)
            u.outcome = "queued"
            queue.insert(0, spec)
            continue
        rec.unit_end(u)


def _interrupt(running) -> None:
    """Forward one SIGINT to every running child (it marks its manifest incomplete), then wait."""
    for _, proc, _, _ in running.values():
        with contextlib.suppress(OSError):
            proc.send_signal(signal.SIGINT)
    for _, proc, _, _ in running.values():
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()


def run_local(opts: SweepOptions, specs, outcomes, board, rec: SweepRecorder, slots) -> None:
    """Units in K slots, as child processes polled here; a unit lost to a signal is requeued."""
    queue = list(specs)
    running: dict[int, tuple] = {}  # slot -> (spec, proc, log_file, t0)
    try:
        while queue or running:
            _fill_slots(queue, running, slots, outcomes, board, rec)
            time.sleep(0.2)
            _reap(queue, running, outcomes, opts.retries, rec)
    except BaseException:
        _interrupt(running)
        raise
