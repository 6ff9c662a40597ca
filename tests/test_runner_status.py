"""`runner status`: each state read from the run folders and unit locks (no training needed)."""

from __future__ import annotations

import json

import pytest

from prereg.errors import UserError
from prereg.jsonio import read_json
from prereg.lock import verify_lock
from prereg.records import MANIFEST, TELEMETRY, unit_dir, write_manifest
from runner.status import counts, lock_held, registered_units, study_status, unit_status
from runner.unit import UnitGuard
from tests.runner_run_support import prereg, write_lock

ARMS = {"grpo": {"algorithm": "grpo", "changes": {}},
        "dr_grpo": {"algorithm": "dr_grpo", "changes": {"loss_type": "dr_grpo", "scale_rewards": "none"}}}


@pytest.fixture
def lock(tmp_path):
    return verify_lock(write_lock(tmp_path, prereg(id="st", arms=ARMS, seeds=[1, 2, 3])))


def put_manifest(run_dir, lk, arm, seed, status, **extra):
    """A schema-valid manifest as the runner writes it at the given status."""
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / TELEMETRY).write_text('{"step": 1}\n{"step": 2}\n')
    m = {
        "manifest_format": 1, "study_id": lk.study_id, "lock": _lock_ref(lk),
        "arm": arm, "seed": seed, "evidence_class": "confirmatory", "status": status,
        "started_at": "2026-01-01T00:00:00Z", "ended_at": None,
        "resolved_config": {"trainer": {}, "peft": {}, "runner": {}}, "declared_changes": {},
        "fingerprint": {"components": {}, "hash": "0" * 64}, "summaries": {}, "artifacts": {},
        "settings": {}, "resumes": [], "error": None,
    }
    m.update(extra)
    return write_manifest(run_dir, m)


def test_each_state_is_read_from_disk(lock, tmp_path):
    out = tmp_path / "runs"
    ud = lambda arm, seed: unit_dir(out, "st", arm, seed)  # noqa: E731
    put_manifest(ud("grpo", 1), lock, "grpo", 1, "complete", ended_at="2026-01-01T01:00:00Z")
    put_manifest(ud("grpo", 2), lock, "grpo", 2, "failed", error="RuntimeError: boom\ntraceback")
    put_manifest(ud("grpo", 3), lock, "grpo", 3, "running")  # a worker killed mid-run left this
    put_manifest(ud("dr_grpo", 1), lock, "dr_grpo", 1, "incomplete")
    ud("dr_grpo", 2).mkdir(parents=True)
    (ud("dr_grpo", 2) / TELEMETRY).write_text('{"step": 1}\n')  # files but no manifest yet
    # dr_grpo/s3 has no folder at all

    got = {(u.arm, u.seed): u for u in study_status(lock, out)}
    assert {k: u.state for k, u in got.items()} == {
        ("grpo", 1): "complete", ("grpo", 2): "failed", ("grpo", 3): "incomplete",
        ("dr_grpo", 1): "incomplete", ("dr_grpo", 2): "incomplete", ("dr_grpo", 3): "missing"}
    assert got[("grpo", 2)].detail == "RuntimeError: boom"
    assert "interrupted" in got[("grpo", 3)].detail
    assert got[("dr_grpo", 2)].detail == "no manifest"
    assert got[("grpo", 1)].steps == 2 and got[("grpo", 1)].max_steps == 2
    assert got[("grpo", 1)].lock_hash_matches is True
    assert counts(list(got.values())) == {"complete": 1, "running": 0, "failed": 1, "incomplete": 3,
                                          "missing": 1, "total": 6}
    assert not ud("dr_grpo", 3).exists(), "status never creates a unit folder"


def test_running_means_the_unit_lock_is_held(lock, tmp_path):
    run_dir = unit_dir(tmp_path, "st", "grpo", 1)
    assert not lock_held(run_dir)
    with UnitGuard(run_dir):  # the runner's own guard, held as during a run
        assert lock_held(run_dir)
        assert unit_status(run_dir, "grpo", 1).state == "running"
        put_manifest(run_dir, lock, "grpo", 1, "running")
        assert unit_status(run_dir, "grpo", 1).state == "running"
    assert not lock_held(run_dir)
    assert unit_status(run_dir, "grpo", 1).state == "incomplete"


def test_a_released_lock_file_alone_is_missing(lock, tmp_path):
    run_dir = unit_dir(tmp_path, "st", "grpo", 1)
    with UnitGuard(run_dir):
        pass
    assert (run_dir / ".unit.lock").exists()
    assert unit_status(run_dir, "grpo", 1).state == "missing"


def test_oddities_are_named(lock, tmp_path):
    run_dir = unit_dir(tmp_path, "st", "grpo", 1)
    put_manifest(run_dir, lock, "grpo", 1, "complete", lock={**_lock_ref(lock), "hash": "a" * 64, "version": 2})
    st = unit_status(run_dir, "grpo", 1, lock=lock)
    assert st.state == "complete" and st.lock_hash_matches is False and "another lock (v2" in st.detail
    m = read_json(run_dir / MANIFEST)
    m["summaries"] = {"heldout_n": 5}  # a changed byte after sealing
    (run_dir / MANIFEST).write_text(json.dumps(m))
    assert "seal does not match" in unit_status(run_dir, "grpo", 1, lock=lock).detail
    (run_dir / MANIFEST).write_text("{not json")
    st = unit_status(run_dir, "grpo", 1, lock=lock)
    assert st.state == "incomplete" and st.detail.startswith("unreadable manifest")


def _lock_ref(lock):
    return {"hash": lock.hash, "version": lock.version, "locked_at": lock.locked_at, "path": str(lock.path)}


def test_filters_must_be_registered(lock):
    assert registered_units(lock, ["grpo"], [3, 1]) == [("grpo", 1), ("grpo", 3)]
    with pytest.raises(UserError, match=r"--arms: 'ppo' is not registered .*registered: dr_grpo, grpo"):
        registered_units(lock, ["ppo"])
    with pytest.raises(UserError, match=r"--seeds: 7 is not registered .*registered: 1, 2, 3"):
        registered_units(lock, None, [7])


def test_reference_arms_are_never_run(tmp_path):
    """A base model / SFT checkpoint declared as a reference arm is not a unit of any sweep, and
    naming it is refused with its reason (README failure 16)."""
    from prereg.errors import Refusal
    from runner.config import arm_view

    arms = {**ARMS, "sft": {"kind": "reference", "checkpoint": "ckpt/sft-500"}}
    lk = verify_lock(write_lock(tmp_path, prereg(id="ref", arms=arms, seeds=[1, 2])))
    assert sorted(registered_units(lk)) == [("dr_grpo", 1), ("dr_grpo", 2), ("grpo", 1), ("grpo", 2)]
    with pytest.raises(UserError, match="'sft' is a reference arm"):
        registered_units(lk, ["sft"])
    with pytest.raises(Refusal, match="reference arm"):
        arm_view(lk.prereg, "sft")
    assert arm_view(lk.prereg, "grpo")[0] == "grpo"
    # `runner status` lists the reference's evaluation (missing until `runner evaluate` writes it)
    from runner.status import study_status

    st = study_status(lk, tmp_path / "runs")
    ref = [u for u in st if u.arm == "sft"]
    assert [(u.seed, u.state) for u in ref] == [(None, "missing")]
    assert "runner evaluate --arm sft" in ref[0].detail and ref[0].path.endswith("sft/once")
    assert not [u for u in study_status(lk, tmp_path / "runs", ["grpo"]) if u.arm == "sft"]


def test_cli_json_and_table(lock, tmp_path, capsys):
    from runner.cli import main

    out = tmp_path / "runs"
    put_manifest(unit_dir(out, "st", "grpo", 1), lock, "grpo", 1, "complete")
    assert main(["status", str(lock.path), "--out", str(out), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["counts"]["complete"] == 1 and doc["counts"]["missing"] == 5 and doc["lock_hash"] == lock.hash
    assert [(u["arm"], u["seed"], u["state"]) for u in doc["units"]][:2] == [("dr_grpo", 1, "missing"),
                                                                              ("dr_grpo", 2, "missing")]
    assert main(["status", str(lock.path), "--out", str(out), "--arms", "grpo"]) == 0
    text = capsys.readouterr().out
    assert "complete: 1" in text and "missing: 2" in text and "total: 3" in text
    assert main(["status", str(tmp_path / "nope.lock.json")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1
