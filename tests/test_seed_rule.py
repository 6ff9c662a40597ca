"""The study's seeds: one rule (each seed once, refused at schema time) and one reader.

Issue 15: lint counted distinct seeds (``len(set(seeds))``) while the looks check and stats
counted ``len(seeds)``, and a repeated seed was only a lint warning, so a locked study could
have two seed counts. Now the schema refuses a repeated seed (validate, lint, lock and verify
stop with one line naming ``$.seeds``, exit 2) and every reader takes
:func:`prereg.rules.study_seeds`.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from prereg.cli import main
from prereg.errors import UserError
from prereg.lock import build_lock, verify_data
from prereg.rules import study_seeds
from prereg.schema import load_schema, schema_errors

ROOT = Path(__file__).resolve().parents[1]
DEMO = json.loads((ROOT / "examples" / "demo.json").read_text())


def _with_seeds(seeds: list[int]) -> dict:
    doc = copy.deepcopy(DEMO)
    doc["seeds"] = seeds
    return doc


def test_a_repeated_seed_is_a_schema_error_naming_the_field():
    assert schema_errors(_with_seeds([1, 2, 2]), "preregistration") == [
        "$.seeds: 2 is listed more than once; the items must be distinct"]
    assert schema_errors(_with_seeds([4, 4, 7, 7, 9]), "preregistration") == [
        "$.seeds: 4, 7 are listed more than once; the items must be distinct"]
    # the contract is in the schema file itself: plain jsonschema refuses the same document
    assert not Draft202012Validator(load_schema("preregistration")).is_valid(_with_seeds([1, 2, 2]))


def test_distinct_seeds_are_clean():
    assert schema_errors(_with_seeds([3, 1, 2]), "preregistration") == []
    assert Draft202012Validator(load_schema("preregistration")).is_valid(_with_seeds([3, 1, 2]))


@pytest.mark.parametrize("command", ["validate", "lint", "lock"])
def test_the_cli_refuses_a_repeated_seed_with_one_line_and_exit_2(tmp_path, capsys, command):
    study = tmp_path / "study.json"
    study.write_text(json.dumps(_with_seeds([1, 2, 2])))
    locks = tmp_path / "locks"
    argv = [command, str(study)] + (["--lock-dir", str(locks)] if command == "lock" else [])
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "$.seeds: 2 is listed more than once" in err.splitlines()[0] and "Traceback" not in err
    assert err.count("\n") == (2 if command == "validate" else 1)  # validate lists the errors, then counts them
    assert not locks.exists()  # nothing written


def test_the_cli_locks_distinct_seeds(tmp_path, capsys):
    study = tmp_path / "study.json"
    study.write_text(json.dumps(_with_seeds([1, 2, 3])))
    assert main(["validate", str(study)]) == 0
    assert main(["lock", str(study), "--lock-dir", str(tmp_path / "locks")]) == 0
    assert list((tmp_path / "locks").glob("*.lock.json"))


def test_verify_refuses_a_lock_holding_a_repeated_seed():
    lock = build_lock(_with_seeds([1, 2, 2]), now="2026-01-01T00:00:00Z")  # as an older release could write it
    with pytest.raises(UserError, match=r"\(preregistration\): \$\.seeds: 2 is listed more than once"):
        verify_data(lock, "old.lock.json")
    verify_data(build_lock(_with_seeds([1, 2, 3]), now="2026-01-01T00:00:00Z"), "ok.lock.json")


def test_stats_refuses_a_lock_holding_a_repeated_seed(tmp_path, capsys):
    from stats.cli import main as stats_main

    lock = tmp_path / "old.lock.json"
    lock.write_text(json.dumps(build_lock(_with_seeds([1, 2, 2]), now="2026-01-01T00:00:00Z")))
    (tmp_path / "t.csv").write_text("arm,seed,heldout_accuracy\n")
    assert stats_main(["analyze", str(lock), str(tmp_path / "t.csv"), "-o", str(tmp_path / "out" / "a.json")]) == 2
    err = capsys.readouterr().err
    assert "$.seeds: 2 is listed more than once" in err and err.count("\n") == 1
    assert not (tmp_path / "out").exists()


def test_every_reader_counts_the_seeds_study_seeds_returns():
    from audit.lockview import lock_view
    from prereg.crossfield import sequential_errors
    from prereg.lint import lint
    from prereg.study import study_of

    doc = _with_seeds([5, 3, 9])
    assert study_seeds(doc) == (5, 3, 9)  # registration order kept
    n = len(study_seeds(doc))
    assert study_of(doc).seeds == (5, 3, 9)
    assert tuple(lock_view(doc).seeds) == (5, 3, 9)
    doc["analysis"]["power"] = {**(doc["analysis"].get("power") or {}), "pilot_sd": 0.01}
    power = [f.message for f in lint(doc, ["seeds-underpowered"])]
    assert power and power[0].startswith(f"{n} seeds give power")
    doc["analysis"]["sequential"] = {"looks": [2, n]}
    assert not [e for e in sequential_errors(doc) if "last look" in e]
    doc["analysis"]["sequential"] = {"looks": [2, n + 1]}
    assert [e for e in sequential_errors(doc) if f"registered seeds ({n})" in e]


def test_study_seeds_of_an_invalid_document_is_empty():
    assert study_seeds({"seeds": "1,2"}) == () and study_seeds({}) == () and study_seeds(None) == ()
