"""One unit as a child process: decide from disk, start ``runner run``, judge how it ended.

The child dies with its parent (``PR_SET_PDEATHSIG``), so a killed sweep driver or Ray worker
leaves an interrupted unit, never an orphan still holding the unit's file lock.
"""

from __future__ import annotations

import contextlib
import inspect
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from prereg.jsonio import make_dirs
from prereg.lock import utc_now
from prereg.records import seed_tag
from runner.status import unit_status
from runner.sweep.log import append_event, attempts_of

LOG_DIR = "sweep-logs"
SUPERSEDED = "_superseded"
# Environment a remote worker needs from the driver to run a unit the same way offline.
PASS_ENV_PREFIXES = ("HF_", "TRANSFORMERS_OFFLINE", "TOKENIZERS_PARALLELISM", "PYTHONHASHSEED",
                     "CUBLAS_WORKSPACE_CONFIG", "RLPREREG_CACHE",
                     "MLFLOW_", "WANDB_", "TRACKIO_")  # where --report-to trackers write (runner.trackers)


def _die_with_parent() -> None:
    """Linux: deliver SIGKILL to this process when its parent dies (a lost worker kills its unit)."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    with contextlib.suppress(Exception):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def child_main(argv: list[str]) -> int:
    """``python -m runner.sweep --child PPID run ...``: a ``runner run`` that dies with its parent."""
    ppid = int(argv[0])
    _die_with_parent()
    if os.getppid() != ppid:  # the parent died before the death signal was armed
        return 137
    from runner.cli import main

    return main(argv[1:])


def unit_command(spec: dict, ppid: int) -> list[str]:
    cmd = [sys.executable, "-m", "runner.sweep", "--child", str(ppid), "run",
           "--lock", spec["lock"], "--arm", spec["arm"], "--seed", str(spec["seed"]), "--out", spec["out"],
           "--sweep-id", spec["sweep_id"]]
    return cmd + list(spec.get("runner_args") or [])


def _supersede(spec: dict, run_dir: Path, state: str) -> Path:
    stamp = utc_now().replace(":", "").replace("-", "").replace(".", "")
    dest = Path(spec["study_root"]) / SUPERSEDED / spec["arm"] / seed_tag(spec["seed"]) / f"{stamp}-{state}"
    dest.parent.mkdir(parents=True, exist_ok=True)
    os.rename(run_dir, dest)
    return dest


def runner_resumes() -> bool:
    """Whether this runner's `runner run` resumes an interrupted unit in place (runner.resume)."""
    try:
        import runner.resume  # noqa: F401
        from runner.unit import UnitGuard
    except ImportError:
        return False
    return "allow_resume" in inspect.signature(UnitGuard).parameters


def _resumable(run_dir: Path) -> bool:
    from runner.resume import resumable_status

    return resumable_status(run_dir) is not None


def prepare_unit(spec: dict) -> dict | None:
    """Decide from disk; returns an outcome dict when the unit must not be started."""
    run_dir = Path(spec["run_dir"])
    deadline = time.monotonic() + spec.get("busy_wait_s", 60.0)
    while True:
        st = unit_status(run_dir, spec["arm"], spec["seed"])
        if st.state != "running" or time.monotonic() >= deadline:
            break
        time.sleep(0.5)  # a killed attempt's child may still be dying
    if st.state == "complete":
        return {"outcome": "skipped", "error": None}
    if st.state == "running":
        return {"outcome": "busy", "error": f"{run_dir}: another process holds the unit"}
    if st.state == "incomplete" and runner_resumes() and _resumable(run_dir):
        append_event(spec["log_path"], {"event": "resume", "sweep": spec["sweep_id"], "arm": spec["arm"],
                                        "seed": spec["seed"], "detail": st.detail}, spec.get("sign_key"))
        return None  # `runner run` continues it from its last checkpoint (runner.resume)
    if st.state in ("incomplete", "failed"):
        dest = _supersede(spec, run_dir, st.state)
        append_event(spec["log_path"], {"event": "superseded", "sweep": spec["sweep_id"], "arm": spec["arm"],
                                        "seed": spec["seed"], "state": st.state, "detail": st.detail,
                                        "moved_to": str(dest)}, spec.get("sign_key"))
    return None


def start_unit(spec: dict) -> tuple[subprocess.Popen, Path]:
    """Launch the child ``runner run``; its output goes to a log outside the unit folder."""
    logs = Path(spec["study_root"]) / LOG_DIR
    make_dirs(logs)
    host = socket.gethostname()
    log_file = logs / f"{spec['arm']}_s{spec['seed']}.{spec['sweep_id']}.{host}.{os.getpid()}.{time.time_ns()}.log"
    env = dict(os.environ)
    env.update(spec.get("env") or {})
    cwd = spec.get("cwd")
    if cwd and not Path(cwd).is_dir():  # a node without the driver's folder: same files, absolute paths
        cwd = None
        spec = {**spec, "lock": spec.get("lock_abs", spec["lock"]), "out": spec.get("out_abs", spec["out"])}
    with open(log_file, "wb") as fh:
        proc = subprocess.Popen(unit_command(spec, os.getpid()), stdout=fh, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, env=env, cwd=cwd,
                                start_new_session=True)  # Ctrl-C reaches the sweep, which forwards one SIGINT
    n = attempts_of(spec["log_path"], spec["sweep_id"], spec["arm"], spec["seed"]) + 1
    append_event(spec["log_path"], {"event": "attempt", "sweep": spec["sweep_id"], "arm": spec["arm"],
                                    "seed": spec["seed"], "attempt": n, "host": host, "worker_pid": os.getpid(),
                                    "child_pid": proc.pid, "log": str(log_file),
                                    "cuda_visible_devices": env.get("CUDA_VISIBLE_DEVICES")}, spec.get("sign_key"))
    return proc, log_file


def _error_line(log_file: Path) -> str | None:
    try:
        lines = [ln for ln in log_file.read_text(encoding="utf-8", errors="replace").splitlines() if ln.strip()]
    except OSError:
        return None
    for ln in reversed(lines):
        if ln.startswith("error: "):
            return ln[len("error: "):]
    return lines[-1][:300] if lines else None


def finish_unit(spec: dict, rc: int, log_file: Path) -> dict:
    st = unit_status(Path(spec["run_dir"]), spec["arm"], spec["seed"])
    if rc == 0 and st.state == "complete":
        return {"outcome": "complete", "rc": rc, "error": None}
    if rc < 0:
        return {"outcome": "lost", "rc": rc, "error": f"runner killed by signal {-rc}"}
    if rc == 0:
        return {"outcome": "failed", "rc": rc, "error": f"runner exited 0 but the unit is {st.state}"}
    return {"outcome": "failed", "rc": rc, "error": _error_line(log_file) or f"runner exited {rc}"}


def execute_unit(spec: dict) -> dict:
    """Prepare, run and judge one unit in this process's child (the body of a Ray task)."""
    t0 = time.monotonic()
    early = prepare_unit(spec)
    if early is not None:
        return {**early, "rc": None, "seconds": 0.0, "host": socket.gethostname()}
    proc, log_file = start_unit(spec)
    try:
        rc = proc.wait()
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    return {**finish_unit(spec, rc, log_file), "seconds": time.monotonic() - t0, "host": socket.gethostname()}

