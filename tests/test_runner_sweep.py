"""`runner sweep`: real sweeps of a tiny 2-arm x 2-seed study, locally and on a local Ray cluster.

Every unit of a sweep is a real ``runner run`` child process (tiny:qwen2, 2 GRPO steps). The
reference is a single ``runner run`` (``run_unit``) of the same arm and seed; a swept run folder
must hold the same content: same traces, adapter weights, telemetry (timing fields aside), and
a manifest equal to the single run's but for times, the free settings and the seal.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import signal
import threading
import time
from pathlib import Path

import pytest

from prereg.canonical import sha256_file
from prereg.errors import UserError
from prereg.fields import FREE_PATHS, flatten
from prereg.jsonio import read_jsonl
from prereg.records import TELEMETRY, artifact_digests, read_run, unit_dir, write_manifest
from runner.status import study_status
from runner.sweep import SUPERSEDED, SweepOptions, local_slots, read_events, run_sweep, runner_resumes
from tests.runner_run_support import prereg, write_lock

ARMS = {"grpo": {"algorithm": "grpo", "changes": {}},
        "dr_grpo": {"algorithm": "dr_grpo", "changes": {"loss_type": "dr_grpo", "scale_rewards": "none"}}}
UNITS = [("dr_grpo", 1), ("dr_grpo", 2), ("grpo", 1), ("grpo", 2)]
TIMING = {"step_time_s", "step_time"}  # wall-clock per step: the only telemetry that may differ


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    root = tmp_path_factory.mktemp("sweep")
    lock = write_lock(root, prereg(id="sw", arms=ARMS, seeds=[1, 2]))
    return {"root": root, "lock": lock}


@pytest.fixture(scope="module")
def single(study):
    """The reference: one single `runner run` (its Python API) per unit."""
    from runner.train import run_unit

    out = study["root"] / "single"
    for arm, seed in UNITS:
        run_unit(study["lock"], arm, seed, out, quiet=True)
    return out


def _drop_timing(obj):
    if isinstance(obj, dict):
        return {k: _drop_timing(v) for k, v in obj.items() if k not in TIMING}
    return obj


def unit_content(run_dir: Path) -> tuple[dict, dict]:
    """(manifest without free fields, file contents) of a run folder, for equality checks."""
    run = read_run(run_dir)
    assert run.seal_ok()
    m = dict(run.manifest)
    assert m["status"] == "complete"
    assert artifact_digests(run_dir) == m["artifacts"], "manifest digests must match the files"
    for key in ("started_at", "ended_at", "seal", "settings", "artifacts", "resumes"):
        m.pop(key)
    m["lock"] = {k: v for k, v in m["lock"].items() if k != "path"}
    m["resolved_config"] = {k: v for k, v in flatten(m["resolved_config"]).items() if k not in FREE_PATHS}
    files = {}
    for rel in m_files(run_dir):
        p = run_dir / rel
        if rel == TELEMETRY:
            files[rel] = [_drop_timing(r) for r in read_jsonl(p)]
        elif rel.endswith("adapter_config.json"):
            cfg = json.loads(p.read_text())
            cfg["target_modules"] = sorted(cfg["target_modules"])  # PEFT writes a set in hash order
            files[rel] = cfg
        else:
            files[rel] = sha256_file(p)
    return m, files


def m_files(run_dir: Path) -> list[str]:
    return sorted(artifact_digests(run_dir))


def assert_same_as_single(out: Path, single: Path, units=UNITS):
    for arm, seed in units:
        swept = unit_content(unit_dir(out, "sw", arm, seed))
        ref = unit_content(unit_dir(single, "sw", arm, seed))
        assert swept[1] == ref[1], f"{arm}/s{seed}: run folder content differs from a single run"
        fa, fb = swept[0].pop("fingerprint"), ref[0].pop("fingerprint")
        assert swept[0] == ref[0], f"{arm}/s{seed}: manifest differs from a single run's"
        assert fa == fb, f"{arm}/s{seed}: stack fingerprint differs in {_diff_keys(fa['components'], fb['components'])}"


def _diff_keys(a: dict, b: dict, prefix: str = "") -> list[str]:
    out = []
    for k in sorted(set(a) | set(b)):
        x, y = a.get(k), b.get(k)
        if isinstance(x, dict) and isinstance(y, dict):
            out += _diff_keys(x, y, f"{prefix}{k}.")
        elif x != y:
            out.append(f"{prefix}{k}")
    return out


def events(out: Path, kind: str, sweep_id: str | None = None) -> list[dict]:
    return [e for e in read_events(out / "sw" / "sweep.jsonl", sweep_id) if e["event"] == kind]


class KillMidUnit(threading.Thread):
    """Kill (SIGKILL) the first attempt's ``pid_key`` process once its unit's manifest says running."""

    def __init__(self, out: Path, pid_key: str):
        super().__init__(daemon=True)
        self.out, self.pid_key, self.killed = out, pid_key, None

    def run(self):
        log = self.out / "sw" / "sweep.jsonl"
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            starts = [e for e in read_events(log) if e["event"] == "attempt"]
            if starts:
                e = starts[0]
                manifest = unit_dir(self.out, "sw", e["arm"], e["seed"]) / "manifest.json"
                try:
                    running = json.loads(manifest.read_text())["status"] == "running"
                except (OSError, ValueError):
                    running = False
                if running:
                    os.kill(e[self.pid_key], signal.SIGKILL)
                    self.killed = e
                    return
            time.sleep(0.02)


def assert_interrupted_unit_recovered(out: Path, res, killed: dict):
    unit = (killed["arm"], killed["seed"])
    assert res.ok, [(u.arm, u.seed, u.outcome, u.error) for u in res.units]
    attempts = {(u.arm, u.seed): u.attempts for u in res.units}
    assert attempts[unit] == 2
    assert [e["attempt"] for e in events(out, "attempt", res.sweep_id) if (e["arm"], e["seed"]) == unit] == [1, 2]
    assert all(n == 1 for u, n in attempts.items() if u != unit)
    manifest = read_run(unit_dir(out, "sw", *unit)).manifest
    if runner_resumes():  # `runner run` resumed it in place; the record says so
        (ev,) = events(out, "resume", res.sweep_id)
        assert (ev["arm"], ev["seed"]) == unit
        assert [r["previous_status"] for r in manifest["resumes"]] == ["running"]
    else:  # moved aside, whole, and run afresh
        (moved,) = events(out, "superseded", res.sweep_id)
        assert (moved["arm"], moved["seed"], moved["state"]) == (*unit, "incomplete")
        assert read_run(moved["moved_to"]).status == "running"
    others = [u for u in UNITS if u != unit and unit_dir(out, "sw", *u).exists()]
    assert all(read_run(unit_dir(out, "sw", *u)).manifest["resumes"] == [] for u in others)


@pytest.mark.slow
def test_local_sweep_runs_every_unit_like_single_runs_retrying_a_killed_one(study, single):
    """Two units at a time; the first unit's `runner run` is SIGKILLed mid-run and recovered."""
    out = study["root"] / "local"
    killer = KillMidUnit(out, "child_pid")
    killer.start()
    from rich.console import Console

    plain = io.StringIO()  # not a terminal: the sweep prints one progress line per finished unit
    res = run_sweep(SweepOptions(lock_path=str(study["lock"]), out=str(out), max_parallel=2, retries=1,
                                 live=True), console=Console(file=plain, force_terminal=False, width=200))
    killer.join(timeout=5)
    progress = [line for line in plain.getvalue().splitlines() if re.match(r"\[\d+/\d+\] ", line)]
    for arm, seed in UNITS:
        assert any(f"] {arm}/s{seed}: complete" in line for line in progress), plain.getvalue()
    assert killer.killed, "the test never caught a unit mid-run"
    assert_interrupted_unit_recovered(out, res, killer.killed)
    (retry,) = events(out, "retry", res.sweep_id)
    assert retry["after"] == "runner killed by signal 9"
    assert {u.outcome for u in res.units} == {"complete"}
    assert_same_as_single(out, single)
    assert len(events(out, "attempt", res.sweep_id)) == 5
    assert {(e["arm"], e["seed"]) for e in events(out, "unit_end", res.sweep_id)} == set(UNITS)
    # unit folders hold only what a single run writes: the sweep's books are beside them
    for arm, seed in UNITS:
        assert sorted(p.name for p in unit_dir(out, "sw", arm, seed).iterdir()) == sorted(
            p.name for p in unit_dir(single, "sw", arm, seed).iterdir())

    before = {u: sha256_file(unit_dir(out, "sw", *u) / "manifest.json") for u in UNITS}
    again = run_sweep(SweepOptions(lock_path=str(study["lock"]), out=str(out), live=False))
    assert again.ok and {u.outcome for u in again.units} == {"skipped"}
    assert events(out, "attempt", again.sweep_id) == []
    assert before == {u: sha256_file(unit_dir(out, "sw", *u) / "manifest.json") for u in UNITS}


@pytest.mark.slow
def test_failed_unit_is_recorded_the_rest_go_on_and_an_old_failure_is_kept_aside(study, single, capsys):
    """grpo/s1 holds an earlier failed run (moved aside, rerun); grpo/s2 cannot be written (fails)."""
    out = study["root"] / "fail"
    old = unit_dir(out, "sw", "grpo", 1)
    shutil.copytree(unit_dir(single, "sw", "grpo", 1), old)
    m = read_run(old).manifest
    m.update(status="failed", error="RuntimeError: injected")
    write_manifest(old, m)
    blocked = unit_dir(out, "sw", "grpo", 2)
    blocked.parent.mkdir(parents=True, exist_ok=True)
    blocked.write_text("not a folder")  # the unit's path is unusable: its runner run fails

    from runner.cli import main

    rc = main(["sweep", str(study["lock"]), "--out", str(out), "--arms", "grpo", "--max-parallel", "2",
               "--no-live"])
    assert rc == 1
    (sweep,) = events(out, "sweep_start")
    ends = {(e["arm"], e["seed"]): e for e in events(out, "unit_end")}
    assert ends[("grpo", 1)]["outcome"] == "complete"
    assert ends[("grpo", 2)]["outcome"] == "failed" and ends[("grpo", 2)]["rc"] == 2
    assert ends[("grpo", 2)]["error"] == f"{blocked}: is a file, expected a folder"  # the runner's one line
    assert ends[("grpo", 2)]["attempts"] == 1, "a failure is not retried"
    assert sweep["units"] == [["grpo", 1], ["grpo", 2]]
    (moved,) = events(out, "superseded")
    kept = read_run(moved["moved_to"])
    assert kept.status == "failed" and kept.manifest["error"] == "RuntimeError: injected"
    assert Path(moved["moved_to"]).is_relative_to(out / "sw" / SUPERSEDED)
    assert_same_as_single(out, single, [("grpo", 1)])
    assert "grpo/s2: failed" in capsys.readouterr().err


@pytest.mark.parametrize("flag", [["--arms", "grpo,ppo"], ["--seeds", "1,99"]])
def test_sweep_refuses_units_outside_the_lock(study, flag, capsys, tmp_path):
    from runner.cli import main

    assert main(["sweep", str(study["lock"]), "--out", str(tmp_path), *flag]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"error: {flag[0]}:") and "not registered" in err and "\n" not in err
    assert not any(tmp_path.iterdir()), "a refused sweep writes nothing"


@pytest.mark.slow
def test_ray_sweep_survives_a_killed_worker_and_matches_single_runs(study, single):
    """Two units on a local 2-CPU Ray cluster, one CPU each; the first unit's worker is SIGKILLed."""
    # No skip: ray is in the `test` install (Makefile install-test), so a Ray that is missing or
    # cannot start fails this test (in CI too) instead of hiding the executor untested.
    out = study["root"] / "ray"
    killer = KillMidUnit(out, "worker_pid")
    killer.start()
    res = run_sweep(SweepOptions(
        lock_path=str(study["lock"]), out=str(out), arms=["grpo"], executor="ray", max_parallel=2, cpus_per_run=1,
        retries=2, live=False, ray_init={"num_cpus": 2, "object_store_memory": 100 * 1024**2}))
    killer.join(timeout=5)
    assert killer.killed, "the test never caught a unit mid-run"
    assert events(out, "retry", res.sweep_id) == [], "Ray itself retried the task lost with its worker"
    assert_interrupted_unit_recovered(out, res, killer.killed)
    assert {u.state for u in study_status(_lock(study), out, arms=["grpo"])} == {"complete"}
    assert_same_as_single(out, single, [("grpo", 1), ("grpo", 2)])


def _lock(study):
    from prereg.lock import verify_lock

    return verify_lock(study["lock"])


def test_local_slots_give_each_parallel_unit_its_own_devices():
    opts = lambda **kw: SweepOptions(lock_path="x", **kw)  # noqa: E731
    env = {"CUDA_VISIBLE_DEVICES": "3,5,7,9,11"}
    assert local_slots(opts(gpus_per_run=2), env) == [{"CUDA_VISIBLE_DEVICES": "3,5"},
                                                      {"CUDA_VISIBLE_DEVICES": "7,9"}]
    assert local_slots(opts(gpus_per_run=1, max_parallel=2, cpus_per_run=4), env) == [
        {"CUDA_VISIBLE_DEVICES": "3", "OMP_NUM_THREADS": "4", "MKL_NUM_THREADS": "4"},
        {"CUDA_VISIBLE_DEVICES": "5", "OMP_NUM_THREADS": "4", "MKL_NUM_THREADS": "4"}]
    assert local_slots(opts(max_parallel=3), env) == [{}, {}, {}]
    with pytest.raises(UserError, match="only 5 GPU"):
        local_slots(opts(gpus_per_run=6), env)
    with pytest.raises(UserError, match="whole devices"):
        local_slots(opts(gpus_per_run=0.5), env)


@pytest.mark.slow
def test_units_held_elsewhere_or_done_under_another_lock_are_not_run(study, single, tmp_path):
    """No worker is started: grpo/s1 is complete under the first lock, grpo/s2 is held by a process."""
    from runner.unit import UnitGuard

    relock = write_lock(tmp_path, prereg(id="sw", arms=ARMS, seeds=[1, 2]))  # same study, another lock
    out = tmp_path / "runs"
    shutil.copytree(unit_dir(single, "sw", "grpo", 1), unit_dir(out, "sw", "grpo", 1))
    with UnitGuard(unit_dir(out, "sw", "grpo", 2)):
        res = run_sweep(SweepOptions(lock_path=str(relock), out=str(out), arms=["grpo"], live=False))
    got = {(u.arm, u.seed): u for u in res.units}
    assert not res.ok
    assert got[("grpo", 1)].outcome == "other_lock" and "another lock" in got[("grpo", 1)].error
    assert got[("grpo", 2)].outcome == "busy"
    assert events(out, "attempt", res.sweep_id) == []
    assert read_run(unit_dir(out, "sw", "grpo", 1)).seal_ok()


def test_sweep_out_that_is_a_file_is_one_line(study, capsys, tmp_path):
    from runner.cli import main

    blocker = tmp_path / "runs"
    blocker.write_text("keep me")
    assert main(["sweep", str(study["lock"]), "--out", str(blocker), "--no-live"]) == 2
    assert capsys.readouterr().err == f"error: {blocker}: is a file, expected a folder\n"
    assert blocker.read_text() == "keep me"
