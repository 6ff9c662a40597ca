"""Every refusal of `runner run`: one line on stderr, exit status 2, nothing written."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest
from runner_run_support import prereg, run, write_lock

from prereg.errors import Refusal, UserError
from prereg.jsonio import read_json, write_json_atomic
from prereg.lock import build_lock, lock_filename
from runner.cli import build_parser, main
from runner.train import find_default_lock


def _cli(capsys, *argv) -> str:
    code = main(["run", *argv])
    err = capsys.readouterr().err
    assert code == 2, err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    return lines[0]


@pytest.fixture
def lock(tmp_path):
    return write_lock(tmp_path / "locks", prereg())


def _no_runs(tmp_path):
    return not (tmp_path / "runs").exists() or not any((tmp_path / "runs").rglob("manifest.json"))


def test_tampered_lock(capsys, tmp_path, lock):
    data = json.loads(lock.read_text())
    data["preregistration"]["training"]["learning_rate"] = 0.5
    lock.write_text(json.dumps(data))
    line = _cli(capsys, "--lock", str(lock), "--arm", "grpo", "--seed", "1", "--out", str(tmp_path / "runs"))
    assert "tampered" in line and _no_runs(tmp_path)


def test_unsigned_lock_where_signature_required(capsys, tmp_path, lock):
    line = _cli(capsys, "--lock", str(lock), "--arm", "grpo", "--seed", "1", "--out", str(tmp_path / "runs"),
                "--require-signature")
    assert "unsigned" in line and _no_runs(tmp_path)


def test_unregistered_arm_and_seed_list_the_registered(capsys, tmp_path, lock):
    line = _cli(capsys, "--lock", str(lock), "--arm", "dapo", "--seed", "1", "--out", str(tmp_path / "runs"))
    assert "--arm 'dapo' is not registered" in line and "bnpo, dr_grpo, grpo, gspo" in line
    line = _cli(capsys, "--lock", str(lock), "--arm", "grpo", "--seed", "7", "--out", str(tmp_path / "runs"))
    assert "--seed 7 is not registered" in line and "1, 2" in line
    assert _no_runs(tmp_path)


def test_no_flag_can_change_a_locked_setting(capsys, tmp_path, lock):
    line = _cli(capsys, "--lock", str(lock), "--arm", "grpo", "--seed", "1", "--learning-rate", "0.5")
    assert "unrecognized arguments" in line
    run_parser = build_parser()._subparsers._group_actions[0].choices["run"]
    flags = {s.lstrip("-").replace("-", "_") for a in run_parser._actions for s in a.option_strings}
    locked = set(prereg()["training"]) | {"max_prompt_length", "num_generations", "beta", "model", "dataset",
                                          "heldout_n", "revision", "task", "evaluation"}
    assert not flags & locked


@pytest.mark.parametrize("var", ["ACCELERATE_MIXED_PRECISION", "RLPREREG_MAX_STEPS", "TRL_USE_VLLM"])
def test_behaviour_altering_environment_is_refused(capsys, tmp_path, lock, monkeypatch, var):
    monkeypatch.setenv(var, "1")
    line = _cli(capsys, "--lock", str(lock), "--arm", "grpo", "--seed", "1", "--out", str(tmp_path / "runs"))
    assert var in line and _no_runs(tmp_path)


def test_field_unknown_to_installed_trl(capsys, tmp_path):
    p = prereg()
    p["arms"]["bnpo"]["changes"]["max_prompt_length"] = 32
    lk = write_lock(tmp_path / "locks", p)
    line = _cli(capsys, "--lock", str(lk), "--arm", "bnpo", "--seed", "1", "--out", str(tmp_path / "runs"))
    assert "training.max_prompt_length" in line and "no such field" in line and _no_runs(tmp_path)


def test_stack_pins_contradicting_the_install(capsys, tmp_path):
    lk = write_lock(tmp_path / "locks", prereg(stack_pins={"trl": "==0.0.1"}))
    line = _cli(capsys, "--lock", str(lk), "--arm", "grpo", "--seed", "1", "--out", str(tmp_path / "runs"))
    assert "stack_pins.trl" in line and _no_runs(tmp_path)


def test_second_process_on_the_same_unit(tmp_path, lock):
    unit = tmp_path / "runs" / "t3" / "grpo" / "s1"
    unit.mkdir(parents=True)
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sys,time; from filelock import FileLock; l=FileLock(sys.argv[1]); l.acquire();"
         " print('held', flush=True); time.sleep(60)", str(unit / ".unit.lock")],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        t0 = time.monotonic()
        with pytest.raises(Refusal, match="another process is running this unit"):
            run(lock, "grpo", 1, tmp_path / "runs")
        assert time.monotonic() - t0 < 60  # non-blocking
    finally:
        holder.kill()
        holder.wait()
    assert not (unit / "manifest.json").exists()


def test_default_lock_is_the_latest_version_of_the_only_study(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UserError, match="--lock: not given"):
        find_default_lock("locks")
    p = prereg()
    v1 = build_lock(p)
    write_json_atomic(tmp_path / "locks" / lock_filename("t3", 1), v1)
    p2 = prereg(title="amended")
    v2 = build_lock(p2, version=2, amends={"lock_hash": v1["lock_hash"], "version": 1, "reason": "test"})
    write_json_atomic(tmp_path / "locks" / lock_filename("t3", 2), v2)
    assert find_default_lock("locks").name == "t3.v2.lock.json"
    write_lock(tmp_path / "locks", prereg(id="other"))
    with pytest.raises(UserError, match="2 studies"):
        find_default_lock("locks")


@pytest.mark.slow
def test_exploratory_runs_the_unregistered_but_says_so(tmp_path):
    p = prereg()
    p["training"]["max_steps"] = 1
    lk = write_lock(tmp_path / "locks", p)
    d = run(lk, "grpo", 9, tmp_path / "runs", exploratory=True, environ={"ACCELERATE_MIXED_PRECISION": "no"})
    m = read_json(d / "manifest.json")
    assert m["status"] == "complete" and m["evidence_class"] == "exploratory" and m["seed"] == 9
    assert m["settings"]["env"] == {"ACCELERATE_MIXED_PRECISION": "no"} and m["settings"]["exploratory"] is True
    assert any("ACCELERATE_MIXED_PRECISION" in n for n in m["notes"])


def test_heldout_split_shorter_than_locked_n_is_refused_before_training(capsys, tmp_path):
    p = prereg()
    p["dataset"]["heldout_n"] = 100000
    lk = write_lock(tmp_path / "locks", p)
    line = _cli(capsys, "--lock", str(lk), "--arm", "grpo", "--seed", "1", "--out", str(tmp_path / "runs"))
    assert "dataset.heldout_n" in line and _no_runs(tmp_path)


def test_out_that_is_a_file_is_named(capsys, tmp_path, lock):
    blocker = tmp_path / "runs"
    blocker.write_text("not a folder")
    line = _cli(capsys, "--lock", str(lock), "--arm", "grpo", "--seed", "1", "--out", str(blocker))
    assert line == f"error: {blocker}: is a file, expected a folder"
    assert blocker.read_text() == "not a folder"
