"""Records that cannot be quietly wrong (issue 14, items 3-7, 8 task refs, 9, 10).

Every case goes through the CLI a user types (``prereg validate`` / ``prereg lock``) and
asserts one line naming the file and the field, exit 2, and no lock written.
"""

from __future__ import annotations

import copy
import json
import os
import stat
from pathlib import Path

import pytest

from prereg.cli import main as prereg_main
from prereg.errors import UserError
from prereg.jsonio import read_json, read_jsonl, write_atomic
from prereg.schema import schema_errors

DEMO = Path(__file__).resolve().parents[1] / "examples" / "demo.json"


def _demo() -> dict:
    return json.loads(DEMO.read_text())


def _mut(fn):
    doc = _demo()
    fn(doc)
    return json.dumps(doc)


def _rename_arm(doc, new):
    doc["arms"][new] = doc["arms"].pop("gspo")


BAD = {
    # item 4: `$` must not accept a trailing newline
    "study id with newline": (_mut(lambda d: d.update(id="demo\n")), "$.id"),
    "arm with newline": (_mut(lambda d: _rename_arm(d, "x\n")), "'x\\n'"),
    # item 5: an integer written 1.0 is not an integer
    "float seed": (_mut(lambda d: d.update(seeds=[1.0, 2, 3])), "$.seeds[0]"),
    "float count": (_mut(lambda d: d["training"].update(max_steps=4.0)), "$.training.max_steps"),
    # item 6: a contrast baseline that is not an arm
    "contrast baseline": (_mut(lambda d: d["analysis"]["contrasts"].update(baseline="zzz")),
                          "$.analysis.contrasts.baseline"),
    "baseline_arm": (_mut(lambda d: d.update(baseline_arm="zzz")), "$.baseline_arm"),
    "contrast baseline_arm": (_mut(lambda d: d["analysis"]["contrasts"].update(baseline_arm="zzz")),
                              "$.analysis.contrasts"),
    "declared pair baseline": (_mut(lambda d: d["analysis"]["contrasts"].update(
        pairs=[{"arm": "gspo", "baseline": "zzz"}])), "$.analysis.contrasts.pairs[0].baseline"),
    # item 7: what lock refuses, validate refuses first, naming the field
    "1e400": (DEMO.read_text().replace('"learning_rate": 3e-3', '"learning_rate": 1e400'),
              "$.training.learning_rate"),
    "2^53": (_mut(lambda d: d["analysis"].update(rng_seed=2**53)), "$.analysis.rng_seed"),
    "lone surrogate": (DEMO.read_text().replace('"title": "', '"title": "\\ud800', 1), "$.title"),
    # item 8: a module:callable that is not a task
    "os:system": (_mut(lambda d: d["task"].update(name="os:system")), "$.task.name"),
    "missing module": (_mut(lambda d: d["task"].update(name="no_such_module_h5:make")), "$.task.name"),
    # item 3: duplicate keys
    "duplicate key": (DEMO.read_text().replace('"max_steps": 4,', '"max_steps": 4, "max_steps": 40,', 1),
                      "'max_steps' appears twice"),
    # item 10: deep nesting and huge integers name the file and the problem
    "deep nesting": ("[" * 50000 + "]" * 50000, "nested more than"),
    "5000 digits": ('{"id": ' + "7" * 5000 + "}", "5000 digits"),
}


def test_demo_is_valid_and_the_raw_replacements_hit():
    assert schema_errors(_demo(), "preregistration") == []
    assert '"learning_rate": 3e-3' in DEMO.read_text() and '"max_steps": 4,' in DEMO.read_text()


@pytest.mark.parametrize("case", sorted(BAD))
@pytest.mark.parametrize("command", ["validate", "lock", "lint"])
def test_refused_in_one_line_naming_the_field(tmp_path, capsys, case, command):
    text, field = BAD[case]
    src = tmp_path / "bad.json"
    src.write_text(text, encoding="utf-8")
    argv = {"validate": ["validate", str(src)], "lint": ["lint", str(src)],
            "lock": ["lock", str(src), "--lock-dir", str(tmp_path / "locks")]}[command]
    rc = prereg_main(argv)
    err = capsys.readouterr().err
    assert rc == 2, err
    assert "Traceback" not in err
    last = err.strip().splitlines()[-1]
    assert last.startswith("error: ") and str(src) in err
    assert field in err, err
    assert not (tmp_path / "locks").exists() or not any((tmp_path / "locks").iterdir())


def test_a_real_task_factory_is_accepted(tmp_path, capsys):
    doc = _demo()
    doc["task"]["name"] = "runner.tasks.arith:make_task"
    src = tmp_path / "ok.json"
    src.write_text(json.dumps(doc))
    assert prereg_main(["validate", str(src)]) == 0


def test_duplicate_keys_refused_in_every_record_reader(tmp_path):
    m = tmp_path / "manifest.json"
    m.write_text('{"summaries": {"heldout_accuracy": 0.9, "heldout_accuracy": 0.1}}')
    with pytest.raises(UserError, match=r"manifest.json: key 'heldout_accuracy' appears twice"):
        read_json(m)
    t = tmp_path / "heldout.jsonl"
    t.write_text('{"index": 0, "correct": true}\n{"index": 1, "correct": false, "correct": true}\n')
    with pytest.raises(UserError, match=r"heldout.jsonl:2: key 'correct' appears twice"):
        read_jsonl(t)
    deep = tmp_path / "deep.jsonl"
    deep.write_text('{"a": ' + "[" * 100000 + "]" * 100000 + "}\n")
    with pytest.raises(UserError, match=r"deep.jsonl:1: nested more than"):
        read_jsonl(deep)


@pytest.mark.parametrize("umask", [0o022, 0o002, 0o077])
def test_written_files_honour_the_umask(tmp_path, umask):
    old = os.umask(umask)
    try:
        p = write_atomic(tmp_path / "out" / "a.json", "{}")
    finally:
        os.umask(old)
    assert stat.S_IMODE(p.stat().st_mode) == 0o666 & ~umask


def test_private_key_is_never_group_readable(tmp_path):
    from prereg.signing import keygen

    old = os.umask(0o002)
    try:
        priv, pub = keygen(tmp_path / "k")
    finally:
        os.umask(old)
    assert stat.S_IMODE(priv.stat().st_mode) == 0o600
    assert stat.S_IMODE(pub.stat().st_mode) == 0o664


def test_write_refuses_a_missing_parent_when_asked(tmp_path):
    with pytest.raises(UserError, match="does not exist"):
        write_atomic(tmp_path / "nope" / "a.json", "{}", make_parents=False)
    assert not (tmp_path / "nope").exists()


def test_full_disk_is_one_line(tmp_path, monkeypatch):
    """ENOSPC simulated by making the write itself fail as a full disk does."""
    import errno

    real = os.fsync

    def full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(UserError, match=r"a.json: cannot write \(No space left on device\)"):
        write_atomic(tmp_path / "a.json", "{}")
    monkeypatch.setattr(os, "fsync", real)
    assert [p.name for p in tmp_path.iterdir()] == []  # no temp file left behind


def test_manifest_with_float_seed_violates_its_schema():
    m = {"seed": 1.0}
    assert any(e.startswith("$.seed: 1.0 is not of type 'integer'") for e in schema_errors(m, "manifest"))
    assert copy.deepcopy(m) == m


def test_imported_table_with_a_repeated_key_is_one_line(tmp_path, capsys):
    """Issue item 3 for imported JSON: a results row that says two things is refused, naming the line."""
    from stats.cli import main as stats_main

    t = tmp_path / "t.jsonl"
    t.write_text('{"arm": "grpo", "seed": 1, "heldout_accuracy": 0.9, "heldout_accuracy": 0.1}\n')
    lock = tmp_path / "locks" / "demo.lock.json"
    assert prereg_main(["lock", str(DEMO), "--lock-dir", str(tmp_path / "locks")]) == 0
    capsys.readouterr()
    assert stats_main(["analyze", str(lock), str(t), "-o", str(tmp_path / "a.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "t.jsonl: line 1: key 'heldout_accuracy' appears twice" in err, err
    assert not (tmp_path / "a.json").exists()
