"""Every ``prereg`` command through ``main([...])``: outputs, exit codes, and bad input of every kind."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prereg.cli import TEMPLATES, main, template_bytes, validate_file
from prereg.diff import ABSENT, diff_files
from prereg.jsonio import read_json

ROOT = Path(__file__).resolve().parents[1]
E1 = ROOT / "examples" / "e1.json"
DEMO = ROOT / "examples" / "demo.json"


def one_line_error(capsys, rc: int) -> str:
    """Assert the contract for bad input: exit 2, exactly one ``error:`` line, no traceback."""
    err = capsys.readouterr().err
    assert rc == 2, err
    assert err.startswith("error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err and "internal error" not in err, err
    return err


def write(tmp_path, name, content) -> Path:
    p = tmp_path / name
    if isinstance(content, bytes):
        p.write_bytes(content)
    else:
        p.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    return p


@pytest.fixture
def locked(tmp_path, capsys):
    locks = tmp_path / "locks"
    assert main(["lock", str(DEMO), "--lock-dir", str(locks)]) == 0
    capsys.readouterr()
    return locks / "demo.lock.json"


# ----------------------------------------------------------------------------- templates
@pytest.mark.parametrize("name", TEMPLATES)
def test_examples_are_identical_copies_of_packaged_templates(name):
    assert (ROOT / "examples" / f"{name}.json").read_bytes() == template_bytes(name)


def test_init_writes_template_and_never_overwrites(tmp_path, capsys):
    p = tmp_path / "study.json"
    assert main(["init", str(p)]) == 0
    assert p.read_bytes() == template_bytes("demo")
    assert main(["init", "--template", "e1", str(tmp_path / "e1.json")]) == 0
    assert (tmp_path / "e1.json").read_bytes() == template_bytes("e1")
    capsys.readouterr()
    p.write_text("my edits")
    err = one_line_error(capsys, main(["init", "--template", "e1", str(p)]))
    assert "already exists" in err and p.read_text() == "my edits"
    one_line_error(capsys, main(["init", "--template", "nope", str(tmp_path / "x.json")]))


# ----------------------------------------------------------------------------- validate
def test_validate_ok_and_every_error_listed(tmp_path, capsys):
    assert main(["validate", str(DEMO)]) == 0
    assert "ok:" in capsys.readouterr().out
    doc = read_json(DEMO)
    doc["seeds"] = ["one"]
    doc["training"]["learning_rate"] = -1
    doc["colour"] = "blue"
    bad = write(tmp_path, "bad.json", doc)
    assert main(["validate", str(bad)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert any("$.seeds[0]: 'one' is not of type 'integer'" in line for line in err)
    assert any("$.training.learning_rate:" in line for line in err)
    assert any("'colour' was unexpected" in line for line in err)
    assert err[-1].startswith("error: ") and "3 schema error(s)" in err[-1]
    assert validate_file(bad) == sorted(validate_file(bad)) and len(validate_file(bad)) == 3


def test_validate_accepts_a_lock(locked, capsys):
    assert main(["validate", str(locked)]) == 0
    assert validate_file(locked) == []


# ----------------------------------------------------------------------------- bad input
BAD_DOCS = {
    "not_json": "{\"id\": ",
    "empty": "",
    "list": "[1, 2]",
    "string": "\"study\"",
    "null": "null",
    "nan": "{\"id\": NaN}",
    "not_utf8": b"\xff\xfe{}",
    "duplicate_key": DEMO.read_text().replace('"max_steps": 4,', '"max_steps": 4, "max_steps": 40,', 1),
    "wrong_type": None,  # filled below
    "unknown_field": None,
    "missing_field": None,
}


def _bad_doc(kind):
    doc = read_json(DEMO)
    if kind == "wrong_type":
        doc["training"]["max_steps"] = "four"
    elif kind == "unknown_field":
        doc["arms"]["gspo"]["flavour"] = "x"
    elif kind == "missing_field":
        del doc["baseline_arm"]
    return doc


@pytest.mark.parametrize("kind", BAD_DOCS)
@pytest.mark.parametrize("command", ["lock", "lint", "amend", "diff", "validate"])
def test_bad_preregistration_gives_one_line(tmp_path, capsys, kind, command):
    content = BAD_DOCS[kind] if BAD_DOCS[kind] is not None else _bad_doc(kind)
    bad = write(tmp_path, "bad.json", content)
    argv = {"lock": ["lock", str(bad), "--lock-dir", str(tmp_path / "locks")],
            "lint": ["lint", str(bad)],
            "amend": ["amend", str(bad), "--reason", "x", "--lock-dir", str(tmp_path / "locks")],
            "diff": ["diff", str(DEMO), str(bad)],
            "validate": ["validate", str(bad)]}[command]
    rc = main(argv)
    if command == "validate" and kind in ("wrong_type", "unknown_field", "missing_field", "list", "string", "null"):
        # validate lists every schema error, then one summary error line
        err = capsys.readouterr().err
        assert rc == 2 and err.splitlines()[-1].startswith("error: ") and "Traceback" not in err
        return
    if command == "diff" and kind in ("wrong_type", "unknown_field", "missing_field"):
        assert rc == 1  # diff compares any JSON object; it is not a validator (a repeated key is refused)
        return
    err = one_line_error(capsys, rc)
    assert "bad.json" in err
    assert not (tmp_path / "locks").exists() or not any((tmp_path / "locks").iterdir())


@pytest.mark.parametrize("command", ["validate", "lint", "lock", "verify", "show", "amend", "diff"])
def test_missing_file(tmp_path, capsys, command):
    missing = str(tmp_path / "nope.json")
    argv = {"amend": ["amend", missing, "--reason", "r"], "diff": ["diff", missing, str(DEMO)]}.get(
        command, [command, missing])
    err = one_line_error(capsys, main(argv))
    assert "nope.json" in err and "not found" in err


def test_directory_instead_of_file(tmp_path, capsys):
    err = one_line_error(capsys, main(["lock", str(tmp_path)]))
    assert f"{tmp_path}: is a directory" in err


def test_usage_errors_are_one_line(capsys):
    one_line_error(capsys, main([]))
    one_line_error(capsys, main(["frobnicate"]))
    one_line_error(capsys, main(["amend", str(DEMO)]))  # --reason is required
    one_line_error(capsys, main(["lint", str(DEMO), "--bogus"]))


# ----------------------------------------------------------------------------- lock / verify
def test_lock_prints_path_and_hash_and_refuses_overwrite(tmp_path, capsys):
    locks = tmp_path / "locks"
    assert main(["lock", str(E1), "--lock-dir", str(locks)]) == 0
    out = capsys.readouterr().out
    data = read_json(locks / "e1.lock.json")
    assert f"path: {locks / 'e1.lock.json'}" in out and f"lock_hash: {data['lock_hash']}" in out
    assert data["preregistration"] == read_json(E1) and data["signature"] is None
    before = (locks / "e1.lock.json").read_bytes()
    err = one_line_error(capsys, main(["lock", str(E1), "--lock-dir", str(locks)]))
    assert "refusing to overwrite" in err and (locks / "e1.lock.json").read_bytes() == before


def test_lock_dir_that_is_a_file(tmp_path, capsys):
    blocker = write(tmp_path, "locks", "not a folder")
    one_line_error(capsys, main(["lock", str(DEMO), "--lock-dir", str(blocker)]))
    assert blocker.read_text() == "not a folder"


def test_verify_ok(locked, capsys):
    assert main(["verify", str(locked)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("ok: ") and read_json(locked)["lock_hash"] in out and "unsigned" in out


@pytest.mark.parametrize("damage", ["tamper_value", "tamper_hash", "truncate", "empty", "list", "drop_field",
                                    "study_id", "extra_field", "not_utf8"])
@pytest.mark.parametrize("command", ["verify", "show"])
def test_damaged_lock_gives_one_line(locked, capsys, damage, command):
    raw = locked.read_bytes()
    data = json.loads(raw)
    if damage == "tamper_value":
        data["preregistration"]["training"]["learning_rate"] = 2e-4
    elif damage == "tamper_hash":
        data["content_hash"] = "0" * 64
    elif damage == "drop_field":
        del data["locked_at"]
    elif damage == "study_id":
        data["study_id"] = "other"
    elif damage == "extra_field":
        data["note"] = "hi"
    text = {"truncate": raw[: len(raw) // 2], "empty": b"", "list": b"[]", "not_utf8": b"\x80" + raw}.get(
        damage, json.dumps(data).encode())
    locked.write_bytes(text)
    err = one_line_error(capsys, main([command, str(locked)]))
    assert "demo.lock.json" in err


def test_signatures(tmp_path, capsys):
    key, other = tmp_path / "me.key", tmp_path / "other.key"
    assert main(["keygen", str(key)]) == 0 and main(["keygen", str(other)]) == 0
    out = capsys.readouterr().out
    assert "fingerprint: ed25519:" in out and (tmp_path / "me.key.pub").exists()
    locks = tmp_path / "locks"
    assert main(["lock", str(DEMO), "--lock-dir", str(locks), "--sign", str(key)]) == 0
    lock = locks / "demo.lock.json"
    capsys.readouterr()
    assert main(["verify", str(lock), "--require-signature"]) == 0
    assert main(["verify", str(lock), "--trusted-key", str(tmp_path / "me.key.pub")]) == 0
    assert main(["verify", str(lock), "--trusted-key", str(key)]) == 0  # a private key names its public key
    assert "signed by ed25519:" in capsys.readouterr().out
    err = one_line_error(capsys, main(["verify", str(lock), "--trusted-key", str(tmp_path / "other.key.pub")]))
    assert "untrusted key" in err
    # a signature moved onto another lock does not verify
    data = read_json(lock)
    data2 = read_json(lock)
    data2["signature"]["value"] = data2["signature"]["value"][:-4] + ("AAA=" if not
                                                                      data2["signature"]["value"].endswith("AAA=") else "BBA=")
    lock.write_text(json.dumps(data2))
    assert "signature does not verify" in one_line_error(capsys, main(["verify", str(lock)]))
    lock.write_text(json.dumps(data))
    # unsigned lock under --require-signature or a trusted key
    unsigned_dir = tmp_path / "u"
    assert main(["lock", str(DEMO), "--lock-dir", str(unsigned_dir)]) == 0
    capsys.readouterr()
    u = unsigned_dir / "demo.lock.json"
    assert "unsigned" in one_line_error(capsys, main(["verify", str(u), "--require-signature"]))
    assert "unsigned" in one_line_error(capsys, main(["verify", str(u), "--trusted-key", str(key)]))
    # keygen refuses to overwrite; bad key files are one-line errors
    assert "already exists" in one_line_error(capsys, main(["keygen", str(key)]))
    junk = write(tmp_path, "junk.key", "not a key")
    one_line_error(capsys, main(["lock", str(E1), "--lock-dir", str(tmp_path / "l2"), "--sign", str(junk)]))
    one_line_error(capsys, main(["lock", str(E1), "--lock-dir", str(tmp_path / "l2"),
                                 "--sign", str(tmp_path / "absent.key")]))
    one_line_error(capsys, main(["verify", str(lock), "--trusted-key", str(junk)]))
    one_line_error(capsys, main(["verify", str(lock), "--trusted-key", str(tmp_path / "absent.pub")]))
    assert not (tmp_path / "l2").exists() or not any((tmp_path / "l2").iterdir())


# ----------------------------------------------------------------------------- amend
def test_amend_via_cli(tmp_path, locked, capsys):
    doc = read_json(DEMO)
    doc["training"]["max_steps"] = 6
    changed = write(tmp_path, "demo.json", doc)
    locks = locked.parent
    assert main(["amend", str(changed), "--reason", "more steps", "--lock-dir", str(locks)]) == 0
    out = capsys.readouterr().out
    assert "version: 2" in out and (locks / "demo.v2.lock.json").exists()
    assert main(["verify", str(locks / "demo.v2.lock.json")]) == 0
    out = capsys.readouterr().out
    assert "amends version 1" in out and "more steps" in out
    assert "nothing to amend" in one_line_error(
        capsys, main(["amend", str(changed), "--reason", "again", "--lock-dir", str(locks)]))
    assert "no lock of study" in one_line_error(
        capsys, main(["amend", str(changed), "--reason", "x", "--lock-dir", str(tmp_path / "empty")]))
    assert "reason" in one_line_error(
        capsys, main(["amend", str(changed), "--reason", " ", "--lock-dir", str(locks)]))
    # the chain is broken when version 1 disappears
    locked.unlink()
    one_line_error(capsys, main(["verify", str(locks / "demo.v2.lock.json")]))


# ----------------------------------------------------------------------------- show
def test_show_summarizes_a_verified_lock(locked, capsys):
    assert main(["show", str(locked)]) == 0
    out = capsys.readouterr().out
    data = read_json(locked)
    for text in ("demo", data["lock_hash"], data["content_hash"], data["locked_at"], "unsigned",
                 "grpo (baseline)", "importance_sampling_level=sequence", "steps_per_generation=2",
                 "1, 2, 3", "holm", "paired_t", "2000 resamples", "rng seed 20260714", "INCONCLUSIVE",
                 "tiny:qwen2", "synthetic/arith"):
        assert text in out, text


# ----------------------------------------------------------------------------- diff
def test_diff_preregistrations_and_locks(tmp_path, locked, capsys):
    assert main(["diff", str(DEMO), str(DEMO)]) == 0
    assert "no differences" in capsys.readouterr().out
    assert main(["diff", str(DEMO), str(locked)]) == 0  # a lock compared with its own source
    capsys.readouterr()
    base_doc = read_json(DEMO)
    base_doc["training"]["learning_rate"] = 1e-4
    base = write(tmp_path, "base.json", base_doc)
    doc = read_json(base)
    doc["training"]["learning_rate"] = 2e-4
    doc["seeds"].append(4)
    del doc["stack_pins"]
    doc["training"]["beta"] = 0  # 0 and 0.0 are the same number
    other = write(tmp_path, "other.json", doc)
    diffs = diff_files(base, other)
    assert [tuple(d) for d in diffs] == [
        ("$.seeds[3]", ABSENT, 4), ("$.stack_pins", {}, ABSENT), ("$.training.learning_rate", 1e-4, 2e-4)]
    assert main(["diff", str(base), str(other)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out == ["$.seeds[3]: (absent) -> 4", "$.stack_pins: {} -> (absent)",
                   "$.training.learning_rate: 0.0001 -> 0.0002"]
    assert main(["diff", "--json", str(base), str(other)]) == 1
    assert json.loads(capsys.readouterr().out)[0] == {"path": "$.seeds[3]", "new": 4}
    # two lock versions: preregistration fields plus lock metadata
    assert main(["amend", str(other), "--reason", "r", "--lock-dir", str(locked.parent)]) == 0
    capsys.readouterr()
    ld = diff_files(locked, locked.parent / "demo.v2.lock.json")
    paths = [d.path for d in ld]
    assert "$.training.learning_rate" in paths and "lock.version" in paths and "lock.lock_hash" in paths
    assert "lock.amends" in paths and "lock.content_hash" in paths


def test_diff_types_are_not_conflated(tmp_path):
    a = write(tmp_path, "a.json", {"x": True, "y": 1, "z": [1]})
    b = write(tmp_path, "b.json", {"x": 1, "y": 1.0, "z": 1})
    assert [d.path for d in diff_files(a, b)] == ["$.x", "$.z"]


def test_unexpected_exception_is_one_line(monkeypatch, capsys):
    import prereg.cli as cli

    def boom(args):
        raise RuntimeError("kaboom\nsecond line")

    monkeypatch.setattr(cli, "cmd_validate", boom)
    rc = main(["validate", str(DEMO)])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and "internal error" in err and "kaboom second line" in err


def test_run_cli_is_the_one_bad_input_and_ctrl_c_contract(capsys):
    from prereg.errors import Refusal, run_cli

    def refuse(field):
        raise Refusal(f"{field}: not registered\n  (second line)")

    def interrupt():
        raise KeyboardInterrupt

    assert run_cli(lambda a, b: a + b, 1, 2) == 3
    assert run_cli(refuse, "arms.x") == 2
    assert capsys.readouterr().err == "error: arms.x: not registered\n  (second line)\n"
    assert run_cli(refuse, "arms.x", format_error=lambda e: " ".join(str(e).split())) == 2
    assert capsys.readouterr().err == "error: arms.x: not registered (second line)\n"
    assert run_cli(interrupt, interrupted="sweep interrupted") == 130
    assert capsys.readouterr().err == "error: sweep interrupted\n"
    with pytest.raises(ZeroDivisionError):  # a bug is not dressed up as bad input
        run_cli(lambda: 1 / 0)


def test_ctrl_c_is_one_line_and_130(monkeypatch, capsys):
    import prereg.cli as cli

    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "cmd_validate", interrupted)
    assert main(["validate", str(DEMO)]) == 130
    assert capsys.readouterr().err == "error: interrupted\n"


def test_one_line_parser_usage_errors(capsys):
    from prereg.errors import OneLineParser

    p = OneLineParser(prog="x")
    p.add_argument("--n", type=int, required=True)
    with pytest.raises(SystemExit) as exc:
        p.parse_args(["--n", "many"])
    assert exc.value.code == 2
    assert capsys.readouterr().err == "error: argument --n: invalid int value: 'many'\n"


def test_trusted_key_that_is_no_key_says_so(locked, tmp_path, capsys):
    bogus = write(tmp_path, "bogus.pub", "[1]")
    err = one_line_error(capsys, main(["verify", str(locked), "--trusted-key", str(bogus)]))
    assert err == f"error: {bogus}: not a PEM public key (nor a private key)\n"
