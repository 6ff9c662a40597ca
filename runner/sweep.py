"""Run every registered unit of a locked study: one after another, K at a time, or on Ray.

Each unit is exactly a ``runner run`` in a child process (``python -m runner.sweep --child``
→ ``runner.cli.main(["run", ...])``), so a sweep has the same refusals as a single run and
its run folders are the same as those of single runs. The child dies with its parent
(``PR_SET_PDEATHSIG``), so a killed sweep driver or Ray worker leaves an interrupted unit,
never an orphan still holding the unit's file lock.

What a sweep does with a unit is decided from disk (see ``runner.status``), once before the
sweep starts and again when the unit's turn comes: complete -> skipped (reported, and not
counted as done, when it was run under another lock); running (lock held by another process)
-> busy, not started (at the unit's turn, e.g. on a retry, it first waits briefly for a
killed attempt to let go); interrupted (a manifest that says running/incomplete, no process on it) -> resumed
by ``runner run`` itself (``runner.resume``: from its last checkpoint, recorded in the
manifest's ``resumes``); failed, or a folder the runner cannot resume -> moved aside, whole,
to ``<out>/<study>/_superseded/<arm>/s<seed>/<UTC stamp>-<state>/`` (nothing written is
lost) and the unit is run afresh.

Bookkeeping lives outside the unit folders, so those stay identical to single runs:
``<out>/<study>/sweep.jsonl`` (one JSON object per event: sweep start/end, skip, attempt with
host and pids, superseded folder, unit end with outcome and error) and the child's
stdout/stderr in ``<out>/<study>/sweep-logs/``. A unit killed by a signal (worker lost, OOM
killer) is retried, at most ``retries`` times in all (Ray's own task retries included, counted
from the attempt events); a unit whose ``runner run`` exits with an error is failed and not
retried, since it would fail the same way.
"""

from __future__ import annotations

import argparse
import contextlib
import inspect
import json
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from dataclasses import asdict, dataclass, field
from pathlib import Path

from prereg.errors import OneLineParser, UserError, run_cli
from prereg.jsonio import make_dirs
from prereg.lock import Lock, utc_now, verify_lock
from prereg.records import TELEMETRY, unit_dir
from runner.status import (
    STATE_STYLE,
    count_lines,
    parse_list,
    registered_units,
    unit_status,
)

SWEEP_LOG = "sweep.jsonl"
LOG_DIR = "sweep-logs"
SUPERSEDED = "_superseded"
# Environment a remote worker needs from the driver to run a unit the same way offline.
PASS_ENV_PREFIXES = ("HF_", "TRANSFORMERS_OFFLINE", "TOKENIZERS_PARALLELISM", "PYTHONHASHSEED",
                     "CUBLAS_WORKSPACE_CONFIG", "RLPREREG_CACHE")
OUTCOMES = ("complete", "skipped", "failed", "lost", "busy", "other_lock", "interrupted", "not_started")


@dataclass
class SweepOptions:
    """Everything a sweep may vary; none of it touches the science (that is the lock's)."""

    lock_path: str
    out: str = "runs"
    arms: list[str] | None = None
    seeds: list[int] | None = None
    executor: str = "local"
    address: str | None = None
    gpus_per_run: float = 0
    cpus_per_run: float | None = None
    max_parallel: int | None = None  # local: 1; ray: as many as the cluster's resources fit
    retries: int = 2
    runner_args: list[str] = field(default_factory=list)
    busy_wait_s: float = 60.0
    live: bool = True
    ray_init: dict = field(default_factory=dict)  # extra ray.init kwargs for a local cluster


@dataclass
class UnitOutcome:
    arm: str
    seed: int
    outcome: str = "queued"
    attempts: int = 0
    rc: int | None = None
    error: str | None = None
    seconds: float = 0.0
    host: str | None = None
    path: str = ""


@dataclass
class SweepResult:
    sweep_id: str
    study_id: str
    log_path: Path
    units: list[UnitOutcome]

    @property
    def ok(self) -> bool:
        return all(u.outcome in ("complete", "skipped") for u in self.units)

    def counts(self) -> dict[str, int]:
        c = dict.fromkeys(OUTCOMES, 0)
        for u in self.units:
            c[u.outcome] = c.get(u.outcome, 0) + 1
        return c


# ---------------------------------------------------------------- sweep log

def append_event(log_path: str | Path, event: dict) -> None:
    """One JSON line per event, appended under a file lock (safe across nodes on shared storage)."""
    from filelock import FileLock

    log_path = Path(log_path)
    make_dirs(log_path.parent)
    line = json.dumps({"t": utc_now(), **event}, sort_keys=True, allow_nan=False) + "\n"
    with FileLock(str(log_path) + ".lock"), open(log_path, "a", encoding="utf-8") as fh:
        fh.write(line)
        fh.flush()
        os.fsync(fh.fileno())


def read_events(log_path: str | Path, sweep_id: str | None = None) -> list[dict]:
    log_path = Path(log_path)
    if not log_path.exists():
        return []
    events = []
    with open(log_path, encoding="utf-8") as fh:
        for line in fh:
            line = line.strip()
            if not line:
                continue
            try:
                ev = json.loads(line)
            except json.JSONDecodeError:
                continue  # a torn last line from a node that died mid-write
            if sweep_id is None or ev.get("sweep") == sweep_id:
                events.append(ev)
    return events


def attempts_of(log_path: str | Path, sweep_id: str, arm: str, seed: int) -> int:
    return sum(1 for ev in read_events(log_path, sweep_id)
               if ev.get("event") == "attempt" and ev.get("arm") == arm and ev.get("seed") == seed)


# ---------------------------------------------------------------- one unit

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
           "--lock", spec["lock"], "--arm", spec["arm"], "--seed", str(spec["seed"]), "--out", spec["out"]]
    return cmd + list(spec.get("runner_args") or [])


def _supersede(spec: dict, run_dir: Path, state: str) -> Path:
    stamp = utc_now().replace(":", "").replace("-", "").replace(".", "")
    dest = Path(spec["study_root"]) / SUPERSEDED / spec["arm"] / f"s{spec['seed']}" / f"{stamp}-{state}"
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
                                        "seed": spec["seed"], "detail": st.detail})
        return None  # `runner run` continues it from its last checkpoint (runner.resume)
    if st.state in ("incomplete", "failed"):
        dest = _supersede(spec, run_dir, st.state)
        append_event(spec["log_path"], {"event": "superseded", "sweep": spec["sweep_id"], "arm": spec["arm"],
                                        "seed": spec["seed"], "state": st.state, "detail": st.detail,
                                        "moved_to": str(dest)})
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
                                    "cuda_visible_devices": env.get("CUDA_VISIBLE_DEVICES")})
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


# ---------------------------------------------------------------- the sweep

def _unit_specs(opts: SweepOptions, lock: Lock, sweep_id: str, log_path: Path) -> list[dict]:
    study_root = Path(opts.out) / lock.study_id
    env = {k: v for k, v in os.environ.items() if k.startswith(PASS_ENV_PREFIXES)}
    specs = []
    for arm, seed in registered_units(lock, opts.arms, opts.seeds):
        specs.append({
            "sweep_id": sweep_id, "lock": str(opts.lock_path), "out": str(opts.out), "arm": arm, "seed": seed,
            "run_dir": str(unit_dir(opts.out, lock.study_id, arm, seed)), "study_root": str(study_root),
            "log_path": str(log_path), "runner_args": list(opts.runner_args), "env": env, "cwd": os.getcwd(),
            "busy_wait_s": opts.busy_wait_s,
        })
    return specs


def _absolute(spec: dict) -> dict:
    """For workers that may not share the driver's cwd: every path absolute, same files."""
    out = dict(spec)
    for k in ("run_dir", "study_root", "log_path"):
        out[k] = str(Path(spec[k]).resolve())
    out["lock_abs"], out["out_abs"] = str(Path(spec["lock"]).resolve()), str(Path(spec["out"]).resolve())
    return out


class _Board:
    """The live table: one row per unit, steps read from the unit's telemetry as it grows."""

    def __init__(self, study: str, specs: list[dict], outcomes: dict, max_steps: dict):
        self.study, self.specs, self.outcomes, self.max_steps = study, specs, outcomes, max_steps
        self.started: dict = {}

    def __rich__(self):
        from rich.table import Table

        t = Table(title=f"sweep {self.study}")
        for col in ("arm", "seed", "state", "try", "steps", "time", "host", "note"):
            t.add_column(col, overflow="fold")
        now = time.monotonic()
        for spec in self.specs:
            key = (spec["arm"], spec["seed"])
            u = self.outcomes[key]
            steps = count_lines(Path(spec["run_dir"]) / TELEMETRY) if u.outcome in ("running", "complete") else ""
            if steps != "":
                steps = f"{steps}/{self.max_steps.get(spec['arm'], '?')}"
            secs = now - self.started[key] if u.outcome == "running" and key in self.started else u.seconds
            style = STATE_STYLE.get(u.outcome, "")
            t.add_row(spec["arm"], str(spec["seed"]), f"[{style}]{u.outcome}[/]" if style else u.outcome,
                      str(u.attempts or ""), str(steps), f"{secs:.0f}s" if secs else "", u.host or "",
                      (u.error or "")[:120])
        return t


def run_sweep(opts: SweepOptions, console=None) -> SweepResult:
    """Run the selected units of the lock; never raises for a unit's failure (see the result)."""
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
    lock = verify_lock(opts.lock_path)
    registered_units(lock, opts.arms, opts.seeds)  # refuses filters outside the lock
    slots = local_slots(opts) if opts.executor == "local" else []
    if opts.gpus_per_run and "--device" not in opts.runner_args:
        opts.runner_args = [*opts.runner_args, "--device", "cuda"]
    from rich.console import Console

    console = console or Console(stderr=True)
    sweep_id = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()) + "-" + uuid.uuid4().hex[:6]
    study_root = Path(opts.out) / lock.study_id
    log_path = study_root / SWEEP_LOG
    specs = _unit_specs(opts, lock, sweep_id, log_path)
    outcomes = {(s["arm"], s["seed"]): UnitOutcome(s["arm"], s["seed"], path=s["run_dir"]) for s in specs}
    from prereg.fields import merged_fields

    max_steps = {a: merged_fields(lock.prereg, a).get("max_steps") for a in lock.prereg["arms"]}
    settings = {k: v for k, v in asdict(opts).items() if k not in ("live", "ray_init")}
    append_event(log_path, {"event": "sweep_start", "sweep": sweep_id, "study": lock.study_id,
                            "lock_hash": lock.hash, "lock_version": lock.version, "host": socket.gethostname(),
                            "units": [[s["arm"], s["seed"]] for s in specs], "options": settings})
    board = _Board(lock.study_id, specs, outcomes, max_steps)
    todo = []
    for spec in specs:  # complete units are skipped here, before any worker is asked for
        st = unit_status(Path(spec["run_dir"]), spec["arm"], spec["seed"], lock=lock)
        if st.state == "complete":
            u = outcomes[(spec["arm"], spec["seed"])]
            u.outcome = "skipped"
            if st.lock_hash_matches is False:  # the runner will not overwrite it; this lock lacks the unit
                u.outcome = "other_lock"
                u.error = f"complete, but {st.detail}; move it aside to rerun it under this lock"
            _record_end(log_path, sweep_id, u)
        elif st.state == "running":  # another process (another sweep, a single run) holds it now
            u = outcomes[(spec["arm"], spec["seed"])]
            u.outcome, u.error = "busy", f"{spec['run_dir']}: another process holds the unit"
            _record_end(log_path, sweep_id, u)
        else:
            todo.append(spec)
    interrupted = False
    try:
        plain = opts.live and not console.is_terminal
        _PLAIN_PROGRESS[:] = [console, len(todo)] if plain else []
        with _live(board, console, opts.live and not plain):
            if opts.executor == "local":
                _run_local(opts, todo, outcomes, board, log_path, sweep_id, slots)
            elif todo:
                _run_ray(opts, todo, outcomes, board, log_path, sweep_id)
    except KeyboardInterrupt:
        interrupted = True
        for u in outcomes.values():
            if u.outcome in ("queued", "running"):
                u.outcome = "interrupted" if u.outcome == "running" else "not_started"
    result = SweepResult(sweep_id, lock.study_id, log_path, list(outcomes.values()))
    append_event(log_path, {"event": "sweep_end", "sweep": sweep_id, "counts": result.counts(),
                            "ok": result.ok, "interrupted": interrupted})
    _print_summary(result, console)
    if interrupted:
        raise KeyboardInterrupt
    return result


@contextlib.contextmanager
def _live(board, console, enabled: bool):
    if not enabled:
        yield
        return
    from rich.live import Live

    with Live(board, console=console, refresh_per_second=2, transient=False):
        yield


def _print_summary(result: SweepResult, console) -> None:
    c = result.counts()
    console.line()
    console.print(f"sweep {result.sweep_id}: " + "  ".join(f"{k} {v}" for k, v in c.items() if v)
                  + f"  (log: {result.log_path})")
    for u in result.units:
        if u.outcome not in ("complete", "skipped"):
            console.print(f"  {u.arm}/s{u.seed}: {u.outcome}" + (f" - {u.error}" if u.error else ""))


# Outside a terminal a live table only appears at the end; print one line per finished unit
# instead, so a long sweep shows progress in logs and CI. [console, number of units] or [].
_PLAIN_PROGRESS: list = []


def _record_end(log_path, sweep_id, u: UnitOutcome) -> None:
    if _PLAIN_PROGRESS:
        console, total = _PLAIN_PROGRESS[:2]
        _PLAIN_PROGRESS.append(u)
        done = len(_PLAIN_PROGRESS) - 2
        secs = f" in {u.seconds:.0f}s" if u.seconds else ""
        console.print(f"[{done}/{total}] {u.arm}/s{u.seed}: {u.outcome}{secs}" + (f" - {u.error}" if u.error else ""),
                      highlight=False, markup=False)
    append_event(log_path, {"event": "unit_end", "sweep": sweep_id, "arm": u.arm, "seed": u.seed,
                            "outcome": u.outcome, "rc": u.rc, "error": u.error, "attempts": u.attempts,
                            "seconds": round(u.seconds, 3), "host": u.host})


def _apply(u: UnitOutcome, res: dict) -> None:
    u.outcome, u.rc, u.error = res["outcome"], res.get("rc"), res.get("error")
    u.seconds += res.get("seconds", 0.0) or 0.0
    u.host = res.get("host") or u.host


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


def _run_local(opts, specs, outcomes, board, log_path, sweep_id, slots) -> None:
    """Units in K slots, as child processes polled here; a unit lost to a signal is requeued."""
    queue = list(specs)
    running: dict[int, tuple] = {}  # slot -> (spec, proc, log_file, t0)
    try:
        while queue or running:
            for slot in range(len(slots)):
                if slot in running or not queue:
                    continue
                spec = queue.pop(0)
                spec = {**spec, "env": {**spec["env"], **slots[slot]}}
                key = (spec["arm"], spec["seed"])
                u = outcomes[key]
                early = prepare_unit({**spec, "busy_wait_s": 0.0})
                if early is not None:
                    _apply(u, early)
                    _record_end(log_path, sweep_id, u)
                    continue
                proc, log_file = start_unit(spec)
                u.outcome, u.attempts, u.host = "running", u.attempts + 1, socket.gethostname()
                board.started[key] = time.monotonic()
                running[slot] = (spec, proc, log_file, time.monotonic())
            time.sleep(0.2)
            for slot, (spec, proc, log_file, t0) in list(running.items()):
                rc = proc.poll()
                if rc is None:
                    continue
                del running[slot]
                u = outcomes[(spec["arm"], spec["seed"])]
                res = finish_unit(spec, rc, log_file)
                res["seconds"] = time.monotonic() - t0
                _apply(u, res)
                if u.outcome == "lost" and u.attempts <= opts.retries:
                    append_event(log_path, {"event": "retry", "sweep": sweep_id, "arm": u.arm, "seed": u.seed,
                                            "after": u.error, "attempt": u.attempts + 1})
                    u.outcome = "queued"
                    queue.insert(0, spec)
                    continue
                _record_end(log_path, sweep_id, u)
    except BaseException:
        for _, proc, _, _ in running.values():
            with contextlib.suppress(OSError):
                proc.send_signal(signal.SIGINT)  # the runner marks its manifest incomplete
        for _, proc, _, _ in running.values():
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
        raise


def _probe_address(address: str, timeout: float = 5.0) -> None:
    """Fail fast on a host:port where nothing listens (ray.init would retry for minutes)."""
    target = address.split("://", 1)[-1]
    host, sep, port = target.rpartition(":")
    if not sep or not port.isdigit():
        return  # "auto" and other forms Ray resolves itself
    try:
        socket.create_connection((host, int(port)), timeout=timeout).close()
    except OSError as exc:
        raise UserError(f"--address {address}: no Ray cluster answers there ({exc.strerror or exc})") from None


def _ray_task(spec: dict) -> dict:
    return execute_unit(spec)


def _run_ray(opts, specs, outcomes, board, log_path, sweep_id) -> None:
    try:
        import ray
    except ImportError:
        raise UserError("--executor ray: ray is not installed (pip install 'rlprereg[ray]')") from None
    started_here = False
    pending: dict = {}  # ObjectRef -> (spec, t0)
    if not ray.is_initialized():
        kwargs = {"include_dashboard": False, "log_to_driver": False}
        if opts.address:
            kwargs["address"] = opts.address
        else:  # "local": a fresh cluster for this sweep, never one found lying around
            kwargs.update({"address": "local", **opts.ray_init})
        if opts.address:
            _probe_address(opts.address)
        try:
            ray.init(**kwargs)
        except Exception as exc:  # a wrong address, no cluster there, a token mismatch
            hint = ("; if the cluster uses token authentication, set RAY_AUTH_MODE=token (and its token) here too"
                    if opts.address and os.environ.get("RAY_AUTH_MODE") != "token" else "")
            raise UserError(f"--address {opts.address or '(local)'}: cannot start or reach Ray: "
                            f"{str(exc).splitlines()[0] if str(exc) else type(exc).__name__}{hint}") from None
        started_here = True
    try:
        task = ray.remote(_ray_task)
        res_opts = {"num_cpus": opts.cpus_per_run if opts.cpus_per_run is not None else 1,
                    "num_gpus": opts.gpus_per_run, "retry_exceptions": False}
        queue = [_absolute(s) for s in specs]

        def submit(spec):
            key = (spec["arm"], spec["seed"])
            done = attempts_of(log_path, sweep_id, *key)
            ref = task.options(**res_opts, max_retries=max(0, opts.retries - done)).remote(spec)
            pending[ref] = (spec, time.monotonic())
            u = outcomes[key]
            u.outcome = "running"
            board.started.setdefault(key, time.monotonic())

        while queue or pending:
            while queue and len(pending) < (opts.max_parallel or len(specs)):
                submit(queue.pop(0))
            ready, _ = ray.wait(list(pending), num_returns=1, timeout=0.5)
            for key in (k for k, u in outcomes.items() if u.outcome == "running"):
                outcomes[key].attempts = attempts_of(log_path, sweep_id, *key)
            for ref in ready:
                spec, t0 = pending.pop(ref)
                key = (spec["arm"], spec["seed"])
                u = outcomes[key]
                try:
                    res = ray.get(ref)
                except Exception as exc:  # worker or node died more often than max_retries allows
                    text = str(exc).strip().splitlines()
                    res = {"outcome": "lost", "rc": None, "seconds": time.monotonic() - t0,
                           "error": f"{type(exc).__name__}: {text[0] if text else ''}"[:300]}
                _apply(u, res)
                u.attempts = attempts_of(log_path, sweep_id, *key)
                if u.outcome == "lost" and u.attempts <= opts.retries:
                    append_event(log_path, {"event": "retry", "sweep": sweep_id, "arm": u.arm, "seed": u.seed,
                                            "after": u.error, "attempt": u.attempts + 1})
                    submit(spec)
                    continue
                _record_end(log_path, sweep_id, u)
    except BaseException:
        for ref in list(pending):
            with contextlib.suppress(Exception):
                ray.cancel(ref, force=True)
        raise
    finally:
        if started_here:
            ray.shutdown()


# ---------------------------------------------------------------- CLI

def add_sweep_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("lock", help="the study's lock file (locks/<id>.lock.json)")
    p.add_argument("--arms", help="comma-separated subset of the registered arms (default: all)")
    p.add_argument("--seeds", help="comma-separated subset of the registered seeds (default: all)")
    p.add_argument("--executor", default="local", choices=["local", "ray"])
    p.add_argument("--address", help="Ray cluster address (default: start a local Ray for this sweep)")
    p.add_argument("--gpus-per-run", type=float, default=0, help="GPUs per unit (implies runner --device cuda)")
    p.add_argument("--cpus-per-run", type=float, default=None, help="CPUs per unit (Ray resources; threads locally)")
    p.add_argument("--max-parallel", type=int, default=None,
                   help="units at once (default: 1 locally; on Ray as many as the cluster's resources fit)")
    p.add_argument("--out", default="runs", help="runs root, shared storage for Ray (default: runs)")
    p.add_argument("--retries", type=int, default=2,
                   help="retries of a unit lost to a killed worker/process (default 2); failures are not retried")
    p.add_argument("--no-live", action="store_true", help="no live table (summary only)")
    g = p.add_argument_group("passed to every `runner run` (free settings, recorded in each manifest)")
    g.add_argument("--device", choices=["cpu", "cuda"], default=None,
                   help="default: cuda when --gpus-per-run > 0, else the runner's default (cpu)")
    g.add_argument("--store-text", action="store_true")
    g.add_argument("--require-signature", action="store_true")
    g.add_argument("--trusted-key", action="append", default=None, metavar="PUBKEY")


def sweep_command(args: argparse.Namespace) -> int:
    """``runner sweep``: exit 0 when every selected unit is complete, 1 otherwise."""
    runner_args: list[str] = []
    if args.device:
        runner_args += ["--device", args.device]
    if args.store_text:
        runner_args.append("--store-text")
    if args.require_signature:
        runner_args.append("--require-signature")
    for key in args.trusted_key or []:
        runner_args += ["--trusted-key", key]
    opts = SweepOptions(
        lock_path=args.lock, out=args.out, arms=parse_list(args.arms, "--arms"),
        seeds=parse_list(args.seeds, "--seeds", int), executor=args.executor, address=args.address,
        gpus_per_run=args.gpus_per_run, cpus_per_run=args.cpus_per_run, max_parallel=args.max_parallel,
        retries=args.retries, runner_args=runner_args, live=not args.no_live)
    result = run_sweep(opts)
    return 0 if result.ok else 1


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        return child_main(argv[1:])
    p = OneLineParser(prog="runner sweep", description="Run every registered unit of a locked study.")
    add_sweep_arguments(p)
    args = p.parse_args(argv)
    return run_cli(sweep_command, args, interrupted="sweep interrupted; running units are marked incomplete")


if __name__ == "__main__":
    sys.exit(main())
