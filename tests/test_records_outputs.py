"""One line, exit 2, nothing written elsewhere: outputs that cannot be written (issue 14, item 8).

Read-only folders: as a normal user the folder is ``chmod 0555``; as root (who ignores
permission bits) it is made immutable with ``chattr +i``, which binds root too. A full disk
is simulated by making the adapter write fail with safetensors' own ENOSPC error.
"""

from __future__ import annotations

import os
import subprocess
import time

import pytest
from audit_defects import LOCK_REL, chdir
from runner_run_support import prereg, write_lock

from audit.cli import main as audit_main
from prereg.jsonio import read_json
from stats.cli import main as stats_main


@pytest.fixture(scope="module")
def clean(clean_campaign):
    return clean_campaign


@pytest.fixture
def readonly_dir(tmp_path):
    d = tmp_path / "ro"
    d.mkdir()
    (d / "figures").mkdir()
    if os.geteuid() != 0:
        for p in (d / "figures", d):
            p.chmod(0o555)
        yield d
        for p in (d, d / "figures"):
            p.chmod(0o755)
        return
    for p in (d / "figures", d):  # root ignores permission bits; the immutable flag binds root too
        subprocess.run(["chattr", "+i", str(p)], check=True)
    yield d
    for p in (d, d / "figures"):
        subprocess.run(["chattr", "-i", str(p)], check=True)


def _one_line(capsys, rc, *needles):
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert rc == 2, err
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in err, err
    for n in needles:
        assert n in lines[0], lines[0]
    return lines[0]


def test_readonly_fixture_really_refuses_writes(readonly_dir):
    with pytest.raises(OSError):
        (readonly_dir / "x").write_text("x")


@pytest.mark.parametrize("flag", ["--json", "--html"])
def test_audit_output_into_a_readonly_folder(clean, readonly_dir, capsys, flag):
    rc = audit_main(["check", str(clean.report), flag, str(readonly_dir / "out")])
    _one_line(capsys, rc, str(readonly_dir / "out"), "cannot write")


def test_audit_output_never_creates_folders(clean, tmp_path, capsys):
    target = tmp_path / "nonexistent" / "dir" / "a.json"
    rc = audit_main(["check", str(clean.report), "--json", str(target)])
    _one_line(capsys, rc, "does not exist")
    assert not (tmp_path / "nonexistent").exists()


def test_stats_analyze_into_a_readonly_folder(clean, readonly_dir, capsys):
    with chdir(clean.root):
        rc = stats_main(["analyze", LOCK_REL, "runs", "-o", str(readonly_dir / "analysis.json")])
    _one_line(capsys, rc, "analysis.json", "cannot write")


@pytest.mark.parametrize("sub", ["", "figures"])
def test_stats_render_into_a_readonly_folder(clean, readonly_dir, tmp_path, capsys, sub):
    out = readonly_dir / sub if sub else readonly_dir
    if sub:  # a writable report folder whose figures/ is read-only
        out = tmp_path / "rep"
        out.mkdir()
        os.symlink(readonly_dir / "figures", out / "figures")
    with chdir(clean.root):
        rc = stats_main(["render", "report/analysis.json", "-o", str(out)])
    _one_line(capsys, rc, "cannot write")


def test_seed_out_of_range_refused_before_the_model_is_built(tmp_path, capsys, monkeypatch):
    import runner.models
    from runner.cli import main as runner_main

    def boom(*a, **k):
        raise AssertionError("the model must not be built")

    monkeypatch.setattr(runner.models, "load_model_and_tokenizer", boom)
    lock = write_lock(tmp_path / "locks", prereg())
    t0 = time.process_time()  # CPU, not wall: on a loaded machine a wall bound can fail with no defect
    rc = runner_main(["run", "--lock", str(lock), "--arm", "grpo", "--seed", "99999999999", "--exploratory",
                      "--out", str(tmp_path / "runs"), "--quiet"])
    _one_line(capsys, rc, "--seed 99999999999", "0..4294967295")
    assert not (tmp_path / "runs").exists()
    assert time.process_time() - t0 < 60


@pytest.mark.slow
def test_full_disk_during_a_run_is_one_line_and_a_failed_manifest(tmp_path, capsys, monkeypatch):
    import peft.peft_model
    import torch
    from safetensors import SafetensorError

    from runner.cli import main as runner_main

    def full_disk(*a, **k):  # the exact error safetensors raises on ENOSPC
        raise SafetensorError('Error while serializing: IoError(Os { code: 28, kind: StorageFull, '
                              'message: "No space left on device" })')

    monkeypatch.setattr(peft.peft_model, "safe_save_file", full_disk)
    torch.set_num_threads(1)
    lock = write_lock(tmp_path / "locks", prereg())
    rc = runner_main(["run", "--lock", str(lock), "--arm", "grpo", "--seed", "1", "--out", str(tmp_path / "runs"),
                      "--quiet"])
    _one_line(capsys, rc, "No space left on device", "marked failed")
    m = read_json(tmp_path / "runs" / "t3" / "grpo" / "s1" / "manifest.json")
    assert m["status"] == "failed" and "SafetensorError" in m["error"]
