"""`audit check`: exit status, outputs, bad usage, imported studies, exploratory labels."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from audit_defects import (
    LOCK_REL,
    _add_run,
    chdir,
    copy_campaign,
    edit_manifest,
    lock_same_day,
    reanalyze,
    report_last_digit,
)

from audit.cli import main
from audit.engine import run_audit
from audit.registry import CHECKS


@pytest.fixture(scope="session")
def clean(clean_campaign):
    return clean_campaign


@pytest.fixture
def broken(clean, tmp_path):
    camp = copy_campaign(clean, tmp_path / "broken")
    report_last_digit(camp)
    return camp


def test_clean_exit_0_with_json_and_html(clean, tmp_path, capsys):
    j, h = tmp_path / "a.json", tmp_path / "a.html"
    assert main(["check", str(clean.report), "--json", str(j), "--html", str(h)]) == 0
    out = capsys.readouterr().out
    assert "audit passed" in out
    doc = json.loads(j.read_text())
    assert doc["passed"] is True and doc["finding_count"] == 0
    assert [c["status"] for c in doc["checks"]] == ["pass"] * (len(CHECKS) - 1) + ["n.a."]   # 12: fixed design
    page = h.read_text()
    assert page.startswith("<!doctype html>") and "passed: no findings" in page
    assert "http://" not in page and "https://" not in page and "<script" not in page


def test_findings_exit_1_and_name_file_line_expected_found(broken, tmp_path, capsys):
    j = tmp_path / "a.json"
    assert main(["check", str(broken.report), "--json", str(j), "--html", str(tmp_path / "a.html")]) == 1
    out = capsys.readouterr().out
    assert "audit failed" in out and "notes.md:" in out
    doc = json.loads(j.read_text())
    (f,) = [f for c in doc["checks"] for f in c["findings"]]
    assert f["check"] == "10" and f["location"].endswith(f"notes.md:{f['location'].rsplit(':', 1)[1]}")
    assert f["expected"].startswith("0.547") and f["found"].startswith("0.548")
    assert {c["check"]: c["status"] for c in doc["checks"]}["10"] == "fail"
    assert "0.548" in (tmp_path / "a.html").read_text()


def test_outputs_replace_only_earlier_audit_outputs(clean, tmp_path, capsys):
    j, h = tmp_path / "a.json", tmp_path / "a.html"
    assert main(["check", str(clean.report), "--json", str(j), "--html", str(h)]) == 0
    assert main(["check", str(clean.report), "--json", str(j), "--html", str(h)]) == 0
    other = tmp_path / "mine.json"
    other.write_text('{"precious": true}')
    assert main(["check", str(clean.report), "--json", str(other)]) == 2
    assert other.read_text() == '{"precious": true}'
    assert "refusing to overwrite" in capsys.readouterr().err


def test_rich_summary_prints_findings_verbatim(broken, capsys):
    from audit.output import rich_print

    res = run_audit(broken.report)
    res.results[0].add("x.json#$.values['a.b']", "[0.1, 0.2]", "[0.2, 0.1]", "interval [swapped]")
    rich_print(res)
    out = capsys.readouterr().out
    assert "$.values['a.b']" in out and "interval [swapped]" in out and "[0.2, 0.1]" in out
    assert "audit failed" in out


def test_warnings_pass_but_fail_with_strict(clean, tmp_path, capsys):
    camp = copy_campaign(clean, tmp_path / "c")
    lock_same_day(camp)
    assert main(["check", str(camp.report)]) == 0
    out = capsys.readouterr().out
    assert "warning" in out and "same UTC day" in out and "passed with 1 warning" in out
    assert main(["check", str(camp.report), "--strict"]) == 1


def test_trusted_key_option(clean, tmp_path, capsys):
    from prereg.jsonio import read_json, write_json_atomic
    from prereg.signing import keygen, load_private_key, sign

    camp = copy_campaign(clean, tmp_path / "c")
    a_priv, a_pub = keygen(tmp_path / "a.key")
    _b_priv, b_pub = keygen(tmp_path / "b.key")
    lock = read_json(camp.lock)
    lock["signature"] = sign(load_private_key(a_priv), lock["lock_hash"].encode())
    write_json_atomic(camp.lock, lock)
    assert main(["check", str(camp.report), "--trusted-key", str(a_pub)]) == 0
    assert main(["check", str(camp.report), "--trusted-key", str(b_pub), "--json", str(tmp_path / "o.json")]) == 1
    doc = json.loads((tmp_path / "o.json").read_text())
    (f,) = [f for c in doc["checks"] for f in c["findings"]]
    assert f["check"] == "1" and "untrusted key" in f["found"]


def test_explicit_lock_and_runs_options(clean, tmp_path, capsys):
    camp = copy_campaign(clean, tmp_path / "c")
    lock, runs = camp.root / "elsewhere.lock.json", camp.root / "moved-runs"
    camp.lock.rename(lock)
    camp.runs.rename(runs)
    assert main(["check", str(camp.report)]) == 2  # the defaults from analysis.json no longer resolve
    capsys.readouterr()
    assert main(["check", str(camp.report), "--lock", str(lock), "--runs", str(runs)]) == 0
    assert "audit passed" in capsys.readouterr().out


@pytest.mark.parametrize("make", ["missing_dir", "no_analysis", "bad_json", "missing_lock", "missing_runs_opt",
                                  "key_is_a_folder", "unknown_check"])
def test_bad_usage_exit_2_one_line(make, clean, tmp_path, capsys):
    if make == "missing_dir":
        args = ["check", str(tmp_path / "nope")]
    elif make == "no_analysis":
        (tmp_path / "r").mkdir()
        args = ["check", str(tmp_path / "r")]
    elif make == "bad_json":
        camp = copy_campaign(clean, tmp_path / "c")
        (camp.report / "analysis.json").write_text("{not json")
        args = ["check", str(camp.report)]
    elif make == "missing_lock":
        camp = copy_campaign(clean, tmp_path / "c")
        (camp.root / LOCK_REL).unlink()
        args = ["check", str(camp.report)]
    elif make == "unknown_check":  # selecting no check would pass with nothing checked
        args = ["check", str(clean.report), "--only", "stack", "--only", "99"]
    elif make == "key_is_a_folder":
        args = ["check", str(clean.report), "--trusted-key", str(tmp_path)]
    else:
        args = ["check", str(clean.report), "--runs", str(tmp_path / "no_runs")]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.slow  # two interpreters; fast tier: test_no_torch imports audit torch-free, main() runs in-process here
def test_console_script_and_no_torch(clean):
    code = ("import sys; import audit.cli, audit.engine, audit.registry; "
            "sys.exit(1 if 'torch' in sys.modules else 0)")
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0
    proc = subprocess.run([sys.executable, "-m", "audit", "check", str(clean.report), "--plain"],
                          capture_output=True, text=True)
    assert proc.returncode == 0 and "audit passed" in proc.stdout


def test_strict_turns_untraced_numbers_into_findings(clean, tmp_path):
    camp = copy_campaign(clean, tmp_path / "c")
    with open(camp.notes, "a") as fh:
        fh.write("\nWe also saw 0.12345 somewhere.\n")
    assert run_audit(camp.report).exit_code == 0
    strict = run_audit(camp.report, strict=True)
    assert strict.exit_code == 1 and [f.found for f in strict.findings] == ["0.12345"]


def test_exploratory_result_passes_when_labelled(clean, tmp_path):
    camp = copy_campaign(clean, tmp_path / "c")
    _add_run(camp, "gspo", 99, "exploratory")
    reanalyze(camp)
    from prereg.jsonio import read_json

    acc = read_json(camp.run_dir("gspo", 99) / "manifest.json")["summaries"]["heldout_accuracy"]
    with open(camp.notes, "a") as fh:
        fh.write(f"\nIn an exploratory run, GSPO with seed 99 reached {acc:.2f} held-out accuracy.\n")
    assert run_audit(camp.report).findings == []
    with open(camp.notes, "a") as fh:
        fh.write(f"\nGSPO seed 99 reached {acc:.2f}.\n")
    assert {f.check for f in run_audit(camp.report).findings} == {"11"}


def test_imported_study_record_checks_not_applicable(clean, tmp_path):
    from stats.analyze import analyze, write
    from stats.render import render

    camp = copy_campaign(clean, tmp_path / "imp")
    import shutil

    shutil.rmtree(camp.report)
    rows = ["arm,seed,heldout_accuracy"] + [f"{a},{s},{(25 + 2 * i + (s * i) % 5) / 50}"
                                            for i, a in enumerate(("grpo", "dapo", "gspo")) for s in (11, 23, 37)]
    (camp.root / "results.csv").write_text("\n".join(rows) + "\n")
    with chdir(camp.root):
        write(analyze(LOCK_REL, "results.csv"), "report/analysis.json")
        render("report/analysis.json", "report", figures=False)  # the audit reads the text (figures: test_stats_render.py)
    res = run_audit(camp.report)
    status = {r.check: r.status for r in res.results}
    assert {k for k, v in status.items() if v == "n.a."} == {c.id for c in CHECKS if c.needs_runs}
    assert res.findings == [] and res.traced_count > 20
    # the report checks still run in full
    p = camp.report / "report.md"
    text = p.read_text()
    i = text.index("<!-- id:arms.gspo.heldout_accuracy.mean -->")
    p.write_text(text[:i - 1] + str((int(text[i - 1]) + 1) % 10) + text[i:])
    assert {f.check for f in run_audit(camp.report).findings} == {"10"}
    # and the table it was computed from is sealed by its digest
    with open(camp.root / "results.csv", "a") as fh:
        fh.write("\n")
    assert "9" in {f.check for f in run_audit(camp.report).findings}


def test_imported_proportions_must_be_possible_k_of_n(clean, tmp_path):
    from stats.analyze import analyze, write

    camp = copy_campaign(clean, tmp_path / "imp")
    rows = ["arm,seed,heldout_accuracy"] + [f"{a},{s},{0.5 + 0.01 * i + 0.002 * s}"
                                            for i, a in enumerate(("grpo", "dapo", "gspo")) for s in (11, 23, 37)]
    (camp.root / "results.csv").write_text("\n".join(rows) + "\n")
    with chdir(camp.root):
        write(analyze(LOCK_REL, "results.csv"), "report/analysis.json", overwrite=True)
    (camp.report / "notes.md").unlink()
    (camp.report / "report.md").unlink()
    (camp.report / "results.tex").unlink()
    res = run_audit(camp.report)
    grim = [f for f in res.findings if "GRIM" in f.message]
    assert {f.check for f in res.findings} == {"9"} and len(grim) == 9


def test_telemetry_line_that_is_not_an_object_is_a_finding(clean, tmp_path):
    camp = copy_campaign(clean, tmp_path / "c")
    with open(camp.run_dir("grpo", 11) / "telemetry.jsonl", "a") as fh:
        fh.write("[1]\n")
    res = run_audit(camp.report)
    (f,) = [f for f in res.findings if f.check == "7"]
    assert f.message == "trace cannot be read" and "expected a JSON object, got list" in f.found


def test_fingerprint_that_is_not_an_object_is_a_finding(clean, tmp_path):
    camp = copy_campaign(clean, tmp_path / "c")
    edit_manifest(camp.run_dir("grpo", 11), lambda m: m.update(fingerprint=3))  # re-sealed: only the type is wrong
    res = run_audit(camp.report)
    stack = [f for f in res.findings if f.check == "6"]
    assert any(f.message == "fingerprint hash is not the hash of its components" for f in stack), stack
    assert any("$.fingerprint: 3 is not of type 'object'" in f.found for f in res.findings if f.check == "2")


def test_only_runs_the_named_checks(clean):
    res = run_audit(clean.report, only=["stack", "1"])
    assert {r.check: r.status for r in res.results if r.status != "n.a."} == {"1": "pass", "6": "pass"}
    assert {r.reason for r in res.results if r.status == "n.a."} == {"not selected"}


def test_unreadable_report_file_is_one_line(clean, tmp_path, capsys, monkeypatch):
    import pathlib

    camp = copy_campaign(clean, tmp_path / "c")
    notes = camp.notes
    real = pathlib.Path.read_text

    def read_text(p, *a, **k):  # chmod 000 does not stop root; refuse this one read instead
        if p == notes:
            raise PermissionError(13, "Permission denied", str(p))
        return real(p, *a, **k)

    monkeypatch.setattr(pathlib.Path, "read_text", read_text)
    assert main(["check", str(camp.report), "--plain"]) == 2
    assert capsys.readouterr().err == f"error: {notes}: cannot read (Permission denied)\n"


def test_a_check_with_nothing_to_check_says_n_a_not_pass(clean):
    """Check 12 on a fixed design marks itself n.a.; the engine must keep that, not report "pass"
    (a pass would claim looks were verified when there were none to verify)."""
    res = run_audit(clean.report)
    looks = next(c for c in res.results if c.check == "12")
    assert (looks.status, looks.reason) == ("n.a.", "fixed design and no looks log")
    assert next(c for c in res.results if c.check == "1").status == "pass"   # the others still decide
