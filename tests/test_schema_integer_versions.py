"""A format version written ``1.0`` is not the integer 1 (README "Record guarantees": an integer
is an integer).

jsonschema's ``const`` compares JSON numbers by value, so ``{"const": 1}`` took ``1.0``; and
RFC 8785 writes 1.0 as ``1``, so the seal or lock hash of the edited record still matches: only
the schema can tell. Each record's integer format field, edited in the file's text, is one
``error:`` line naming the file and the field, exit status 2, nothing written.
"""

from __future__ import annotations

import json
import re

import pytest
from audit_defects import LOCK_REL, chdir, copy_campaign

from audit.cli import main as audit_main
from prereg.cli import main as prereg_main
from prereg.jsonio import read_json
from prereg.records import seal_of
from prereg.schema import schema_errors
from stats.cli import main as stats_main


def _one_line(capsys, rc, *needles) -> str:
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert rc == 2, err
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in err, err
    for n in needles:
        assert n in lines[0], lines[0]
    return lines[0]


def _as_float(path, field: str) -> None:
    """Rewrite ``"field": 1`` as ``"field": 1.0`` in the file's text (the one byte-level edit)."""
    text = path.read_text()
    new, n = re.subn(rf'("{field}"\s*:\s*)1(?=\s*[,}}\n])', r"\g<1>1.0", text, count=1)
    assert n == 1, f"{field} not found as 1 in {path}"
    path.write_text(new)


@pytest.fixture
def camp(clean_campaign, tmp_path):
    return copy_campaign(clean_campaign, tmp_path / "c")


@pytest.mark.parametrize("schema,field", [("manifest", "manifest_format"), ("lock", "lock_format"),
                                          ("analysis", "analysis_format"), ("preregistration", "schema_version")])
def test_each_integer_format_field_refuses_a_float_and_takes_the_integer(schema, field):
    assert not [e for e in schema_errors({field: 1}, schema) if e.startswith(f"$.{field}:")]
    assert [e for e in schema_errors({field: 1.0}, schema) if e.startswith(f"$.{field}:")] == \
        [f"$.{field}: 1 was expected, not 1.0"]
    assert [e for e in schema_errors({field: True}, schema) if e.startswith(f"$.{field}:")]  # true is not 1 either


def test_an_enum_of_strings_still_names_the_value():
    errs = [e for e in schema_errors({"source": "x"}, "analysis") if e.startswith("$.source:")]
    assert errs == ["$.source: 'x' is not one of ['runs', 'imported']"]


def _tamper_first_manifest(camp):
    run = sorted(camp.runs.glob("*/*/*/manifest.json"))[0]
    _as_float(run, "manifest_format")
    doc = read_json(run)
    assert type(doc["manifest_format"]) is float and seal_of(doc) == doc["seal"]  # the seal cannot tell
    return run


def test_a_manifest_format_1_0_keeps_its_seal_but_model_cards_refuse_it(camp, capsys):
    _tamper_first_manifest(camp)
    out = camp.root / "cards"
    with chdir(camp.root):
        rc = stats_main(["render", "report/analysis.json", "-o", str(out), "--model-cards", "--no-figures",
                         "--lock", LOCK_REL, "--runs", "runs"])
    _one_line(capsys, rc, "manifest.json", "$.manifest_format", "1.0")
    assert not out.exists()


def test_a_manifest_format_1_0_is_left_out_of_the_analysis_as_malformed(camp, capsys):
    run = _tamper_first_manifest(camp)
    with chdir(camp.root):
        rc = stats_main(["analyze", LOCK_REL, "runs", "-o", "out/analysis.json"])
    assert rc == 0, capsys.readouterr().err
    a = read_json(camp.root / "out" / "analysis.json")
    [dev] = [d for d in a["deviations"] if d.get("kind") == "malformed_run"]
    assert "$.manifest_format" in dev["detail"] and run.parent.name in dev["detail"]


def test_a_manifest_format_1_0_is_an_audit_finding(camp, capsys):
    run = _tamper_first_manifest(camp)
    rc = audit_main(["check", str(camp.report), "--only", "runs", "--plain"])
    out = capsys.readouterr().out
    assert rc == 1 and "$.manifest_format" in out and run.parent.name in out, out


def test_the_untampered_campaign_passes_the_same_checks(camp, capsys):
    rc = audit_main(["check", str(camp.report), "--only", "runs", "--plain"])
    assert rc == 0, capsys.readouterr().out


def test_a_lock_format_1_0_keeps_its_hash_but_verify_refuses_it(camp, capsys):
    _as_float(camp.lock, "lock_format")
    assert type(read_json(camp.lock)["lock_format"]) is float
    rc = prereg_main(["verify", str(camp.lock)])
    _one_line(capsys, rc, camp.lock.name, "$.lock_format")


def test_an_analysis_format_1_0_is_refused_by_the_audit(camp, capsys):
    _as_float(camp.report / "analysis.json", "analysis_format")
    rc = audit_main(["check", str(camp.report), "--json", str(camp.root / "audit.json")])
    _one_line(capsys, rc, "analysis.json", "$.analysis_format")
    assert not (camp.root / "audit.json").exists()


def test_a_schema_version_1_0_is_not_locked(camp, tmp_path, capsys):
    study = tmp_path / "study.json"
    study.write_text(json.dumps(read_json(camp.lock)["preregistration"], indent=1))
    _as_float(study, "schema_version")
    rc = prereg_main(["lock", str(study), "--lock-dir", str(tmp_path / "locks")])
    _one_line(capsys, rc, "study.json", "$.schema_version")
    assert not (tmp_path / "locks").exists()
