"""Resume: checkpoints every locked number of steps; a unit killed with SIGKILL mid-training and run
again continues from its last checkpoint and ends with the same records as an uninterrupted run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from runner_run_support import prereg, run, write_lock

from prereg.canonical import sha256_file
from prereg.errors import Refusal, UserError
from prereg.jsonio import read_json
from prereg.records import read_run
from runner.resume import (
    MARKER,
    checkpoint_trainer_kwargs,
    find_resume_point,
    prepare_resume,
)
from runner.tasks.arith import ArithTask
from runner.unit import UnitGuard

ROOT = Path(__file__).resolve().parent.parent


class SlowArith(ArithTask):
    """``arith`` whose reward takes ``options.delay`` seconds per completion, so that a test can
    kill a run in the middle of training; the rewards themselves are arith's."""

    def __init__(self, task_spec, dataset_spec):
        opts = dict(task_spec.get("options") or {})
        self.delay = float(opts.pop("delay", 0.0))
        super().__init__({**task_spec, "options": opts}, dataset_spec)

    def reward(self, completion, item):
        time.sleep(self.delay)
        return super().reward(completion, item)


def make_slow_task(task_spec, dataset_spec):
    return SlowArith(task_spec, dataset_spec)


# -- pure pieces --------------------------------------------------------------------------------

def test_checkpoint_settings_follow_the_lock_and_generation_cycle():
    assert checkpoint_trainer_kwargs(None, {}) == {"save_strategy": "no"}
    kw = checkpoint_trainer_kwargs(2, {"steps_per_generation": 1})
    assert kw["save_strategy"] == "steps" and kw["save_steps"] == 2 and kw["save_only_model"] is False
    assert checkpoint_trainer_kwargs(4, {"steps_per_generation": 2, "num_iterations": 2})["save_steps"] == 4
    with pytest.raises(UserError, match="training.checkpoint_every: 2 .*generation cycle"):
        checkpoint_trainer_kwargs(2, {"steps_per_generation": 2, "num_iterations": 2})
    with pytest.raises(UserError, match="training.checkpoint_every"):
        checkpoint_trainer_kwargs(0, {})


def _fake_unit(tmp_path):
    (tmp_path / "traces").mkdir()
    (tmp_path / "telemetry.jsonl").write_text("a\nb\nc\n")
    (tmp_path / "traces" / "train.jsonl").write_text("1\n2\n3\n4\n")
    (tmp_path / "traces" / "heldout.jsonl").write_text("h\n")
    for step, marked in ((2, True), (4, True), (6, False)):
        ck = tmp_path / "checkpoints" / f"checkpoint-{step}"
        ck.mkdir(parents=True)
        (ck / "trainer_state.json").write_text("{}")
        if marked:
            rec = {"rollouts": step * 8, "generation": step, "last_step_written": step, "last_batch": None}
            (ck / MARKER).write_text(json.dumps({"step": step, "files": {"telemetry.jsonl": step,
                                                                         "traces/train.jsonl": 2 * step},
                                                 "recorder": rec}))
    return tmp_path


def test_newest_marked_checkpoint_is_chosen_and_records_cut_back(tmp_path):
    unit = _fake_unit(tmp_path)
    point = find_resume_point(unit)
    assert point.step == 4 and point.checkpoint.name == "checkpoint-4"  # checkpoint-6 has no marker
    entry = prepare_resume(unit, point)
    assert (unit / "telemetry.jsonl").read_text() == "a\nb\n"  # the 4 bytes the marker of step 4 names
    assert (unit / "traces" / "train.jsonl").read_text() == "1\n2\n3\n4\n"
    assert entry["truncated"]["telemetry.jsonl"] == {"bytes_before": 6, "bytes_kept": 4}
    assert entry["dropped_checkpoints"] == ["checkpoint-6"] and not (unit / "checkpoints" / "checkpoint-6").exists()
    assert entry["discarded_outputs"] == ["traces/heldout.jsonl"]
    assert (unit / "checkpoints" / "checkpoint-4").exists()


def test_marker_that_claims_more_than_the_files_hold_is_not_used(tmp_path):
    unit = _fake_unit(tmp_path)
    (unit / "traces" / "train.jsonl").write_text("1\n")  # shorter than both markers say
    point = find_resume_point(unit)
    assert point.checkpoint is None and point.step == 0


def test_unit_guard_hands_back_killed_units_but_not_failed_or_complete(tmp_path):
    for status, resumable in (("running", "running"), ("incomplete", "incomplete")):
        d = tmp_path / status
        d.mkdir()
        (d / "manifest.json").write_text(json.dumps({"status": status}))
        with UnitGuard(d, allow_resume=True) as g:
            assert g.resumable == resumable
        with pytest.raises(Refusal, match="move it aside"), UnitGuard(d):
            pass
    for status, needle in (("failed", "earlier failed run"), ("complete", "complete")):
        d = tmp_path / status
        d.mkdir()
        (d / "manifest.json").write_text(json.dumps({"status": status}))
        with pytest.raises(Refusal, match=needle), UnitGuard(d, allow_resume=True):
            pass


# -- a real run killed with SIGKILL ----------------------------------------------------------------

def _study(tmp_path, delay=0.04):
    p = prereg(id="rs", task={"name": "test_runner_resume:make_slow_task", "options": {"delay": delay}})
    p["training"] = {**p["training"], "max_steps": 4, "checkpoint_every": 2}
    return write_lock(tmp_path / "locks", p)


def _comparable_telemetry(path):
    rows = []
    for line in Path(path).read_text().splitlines():
        row = json.loads(line)
        row.pop("step_time_s", None)
        row["trl"] = {k: v for k, v in row["trl"].items() if "time" not in k and "per_second" not in k}
        rows.append(row)
    return rows


def _kill_mid_training(lock, out, arm, seed, *, after_lines):
    """Run ``runner run`` in a subprocess; SIGKILL it once telemetry has ``after_lines`` steps."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "tests"), str(ROOT)]), "HF_HUB_OFFLINE": "1"}
    env = {k: v for k, v in env.items() if not k.startswith(("RLPREREG_", "ACCELERATE_", "TRL_"))}
    if "RLPREREG_CACHE" in os.environ:
        env["RLPREREG_CACHE"] = os.environ["RLPREREG_CACHE"]
    proc = subprocess.Popen([sys.executable, "-m", "runner", "run", "--arm", arm, "--seed", str(seed),
                             "--lock", str(lock), "--out", str(out), "--quiet"],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    tel = Path(out) / "rs" / arm / f"s{seed}" / "telemetry.jsonl"
    deadline = time.monotonic() + 300
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            if tel.exists() and tel.read_text().count("\n") >= after_lines:
                os.kill(proc.pid, signal.SIGKILL)
                break
            time.sleep(0.01)
    finally:
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == -signal.SIGKILL, f"the run was not killed mid-training: rc={proc.returncode} {err[-2000:]}"
    return tel.parent


@pytest.mark.slow
def test_sigkilled_unit_resumes_to_the_same_records_as_an_uninterrupted_run(tmp_path):
    lock = _study(tmp_path)
    unit = _kill_mid_training(lock, tmp_path / "killed", "grpo", 1, after_lines=3)
    killed = read_json(unit / "manifest.json")
    assert killed["status"] == "running"  # SIGKILL left no chance to write anything else
    assert (unit / "checkpoints" / "checkpoint-2" / MARKER).exists()
    steps_before = [json.loads(x)["step"] for x in (unit / "telemetry.jsonl").read_text().splitlines()]
    assert steps_before[:3] == [1, 2, 3]

    resumed = run(lock, "grpo", 1, tmp_path / "killed")
    straight = run(lock, "grpo", 1, tmp_path / "straight")

    r, s = read_run(resumed), read_run(straight)
    assert r.manifest["status"] == "complete" and r.seal_ok()
    (entry,) = r.manifest["resumes"]
    assert entry["previous_status"] == "running" and entry["from_step"] in (2, 4)  # 4 only if very slow
    assert entry["checkpoint"] == f"checkpoints/checkpoint-{entry['from_step']}"
    assert entry["truncated"]["telemetry.jsonl"]["bytes_before"] > entry["truncated"]["telemetry.jsonl"]["bytes_kept"]
    # no step duplicated or lost, and the same rollouts, rewards and held-out outputs
    assert [row["step"] for row in r.telemetry()] == [1, 2, 3, 4]
    for rel in ("traces/train.jsonl", "traces/heldout.jsonl", "adapter/adapter_model.safetensors"):
        assert sha256_file(resumed / rel) == sha256_file(straight / rel), rel
    assert _comparable_telemetry(resumed / "telemetry.jsonl") == _comparable_telemetry(straight / "telemetry.jsonl")
    assert r.manifest["summaries"] == s.manifest["summaries"]
    assert s.manifest["resumes"] == []
    # a complete unit is never resumed or overwritten
    with pytest.raises(Refusal, match="complete"):
        run(lock, "grpo", 1, tmp_path / "killed")


def test_resume_refuses_a_unit_of_another_lock_or_config(tmp_path):
    lock = _study(tmp_path)
    unit = tmp_path / "runs" / "rs" / "grpo" / "s1"
    unit.mkdir(parents=True)
    lock_hash = read_json(lock)["lock_hash"]
    base = {"status": "running", "arm": "grpo", "seed": 1, "resolved_config": {"trainer": {}}}
    for manifest, needle in (({**base, "lock": {"hash": "0" * 64}}, "different lock"),
                             ({**base, "lock": {"hash": lock_hash}}, "resolved trainer config differs")):
        (unit / "manifest.json").write_text(json.dumps(manifest))
        with pytest.raises(Refusal, match=needle):
            run(lock, "grpo", 1, tmp_path / "runs")
        assert json.loads((unit / "manifest.json").read_text()) == manifest  # refused: nothing rewritten


@pytest.mark.slow
def test_unit_interrupted_after_training_or_before_any_checkpoint_resumes_to_the_same_records(tmp_path):
    """Two more kill points, staged from a finished unit: during evaluation (every checkpoint there,
    held-out trace and adapter half-written) and before the first checkpoint (none there)."""
    import shutil

    from prereg.records import write_manifest

    lock = _study(tmp_path, delay=0.0)
    done = run(lock, "grpo", 1, tmp_path / "done")
    want = {rel: sha256_file(done / rel) for rel in ("traces/train.jsonl", "traces/heldout.jsonl",
                                                     "adapter/adapter_model.safetensors")}
    for case in ("during-eval", "before-checkpoint"):
        unit = tmp_path / case / "rs" / "grpo" / "s1"
        shutil.copytree(done, unit)
        m = read_json(unit / "manifest.json")
        m.update(status="running", ended_at=None, summaries={}, artifacts={})
        m.pop("seal")
        write_manifest(unit, m)
        (unit / "traces" / "heldout.jsonl").write_text('{"index": 0, "partial')
        if case == "before-checkpoint":
            shutil.rmtree(unit / "checkpoints")
        r = read_run(run(lock, "grpo", 1, tmp_path / case))
        (entry,) = r.manifest["resumes"]
        assert entry["from_step"] == (4 if case == "during-eval" else 0)
        assert entry["discarded_outputs"] == ["traces/heldout.jsonl", "adapter"]
        assert r.manifest["status"] == "complete" and r.seal_ok()
        assert [row["step"] for row in r.telemetry()] == [1, 2, 3, 4]
        assert {rel: sha256_file(unit / rel) for rel in want} == want, case
