"""The Ray executor: one Ray task per unit, each running the unit's child ``runner run``.

A unit lost with its worker is retried by Ray itself (``max_retries``) or, past that, here;
either way the attempts are counted from the sweep log, so ``retries`` bounds them all.
"""

from __future__ import annotations

import contextlib
import os
import socket
import time
from pathlib import Path

from prereg.errors import UserError
from runner.sweep.child import execute_unit
from runner.sweep.log import SweepRecorder
from runner.sweep.model import SweepOptions


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


def _absolute(spec: dict) -> dict:
    """For workers that may not share the driver's cwd: every path absolute, same files."""
    out = dict(spec)
    for k in ("run_dir", "study_root", "log_path"):
        out[k] = str(Path(spec[k]).resolve())
    out["lock_abs"], out["out_abs"] = str(Path(spec["lock"]).resolve()), str(Path(spec["out"]).resolve())
    return out


def _import_ray():
    try:
        import ray
    except ImportError:
        raise UserError("--executor ray: ray is not installed (pip install 'rlprereg[ray]')") from None
    return ray


def _start_ray(ray, opts: SweepOptions) -> bool:
    """Connect to ``opts.address`` or start a fresh local cluster; True when this call started it."""
    if ray.is_initialized():
        return False
    kwargs = {"include_dashboard": False, "log_to_driver": False}
    if opts.address:
        kwargs["address"] = opts.address
        _probe_address(opts.address)
    else:  # "local": a fresh cluster for this sweep, never one found lying around
        kwargs.update({"address": "local", **opts.ray_init})
    try:
        ray.init(**kwargs)
    except Exception as exc:  # a wrong address, no cluster there, a token mismatch
        hint = ("; if the cluster uses token authentication, set RAY_AUTH_MODE=token (and its token) here too"
                if opts.address and os.environ.get("RAY_AUTH_MODE") != "token" else "")
        raise UserError(f"--address {opts.address or '(local)'}: cannot start or reach Ray: "
                        f"{str(exc).splitlines()[0] if str(exc) else type(exc).__name__}{hint}") from None
    return True


def _lost(exc: Exception, t0: float) -> dict:
    """A task whose worker or node died more often than max_retries allows."""
    text = str(exc).strip().splitlines()
    return {"outcome": "lost", "rc": None, "seconds": time.monotonic() - t0,
            "error": f"{type(exc).__name__}: {text[0] if text else ''}"[:300]}


def run_ray(opts: SweepOptions, specs, outcomes, board, rec: SweepRecorder) -> None:
    """Every unit as a Ray task, at most ``max_parallel`` at once; cancelled on any exception."""
    ray = _import_ray()
    started_here = _start_ray(ray, opts)
    pending: dict = {}  # ObjectRef -> (spec, t0)
    try:
        task = ray.remote(_ray_task)
        res_opts = {"num_cpus": opts.cpus_per_run if opts.cpus_per_run is not None else 1,
                    "num_gpus": opts.gpus_per_run, "retry_exceptions": False}
        queue = [_absolute(s) for s in specs]

        def submit(spec):
            key = (spec["arm"], spec["seed"])
            ref = task.options(**res_opts, max_retries=max(0, opts.retries - rec.attempts(*key))).remote(spec)
            pending[ref] = (spec, time.monotonic())
            outcomes[key].outcome = "running"
            board.started.setdefault(key, time.monotonic())

        while queue or pending:
            while queue and len(pending) < (opts.max_parallel or len(specs)):
                submit(queue.pop(0))
            ready, _ = ray.wait(list(pending), num_returns=1, timeout=0.5)
            for key in (k for k, u in outcomes.items() if u.outcome == "running"):
                outcomes[key].attempts = rec.attempts(*key)
            for ref in ready:
                spec, t0 = pending.pop(ref)
                u = outcomes[(spec["arm"], spec["seed"])]
                try:
                    res = ray.get(ref)
                except Exception as exc:
                    res = _lost(exc, t0)
                u.apply(res)
                u.attempts = rec.attempts(u.arm, u.seed)
                if u.outcome == "lost" and u.attempts <= opts.retries:
                    rec.retry(u)
                    submit(spec)
                    continue
                rec.unit_end(u)
    except BaseException:
        for ref in list(pending):
            with contextlib.suppress(Exception):
                ray.cancel(ref, force=True)
        raise
    finally:
        if started_here:
            ray.shutdown()
