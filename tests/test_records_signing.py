"""The forger bar (issue 14): signed run seals, --trusted-run-key, and the hash-chained sweep log.

A forger who rewrites a trace, recomputes the summaries and re-seals consistently passes every
record check; without the machine's run key the audit with ``--trusted-run-key`` fails the
campaign, and a sweep log with a deleted or reordered unit event breaks its chain.
"""

from __future__ import annotations

import json
import shutil

import pytest
from audit_defects import HELDOUT_TRACE, MANIFEST, copy_campaign, edit_rows, reanalyze

from audit.cli import main as audit_main
from audit.engine import run_audit
from prereg.chainlog import verify_chain
from prereg.jsonio import read_json, write_json_atomic
from prereg.records import seal, seal_of, signature_problem
from prereg.signing import keygen, load_private_key, load_public_key_b64
from runner.sweep.log import append_event


@pytest.fixture(scope="module")
def keys(tmp_path_factory):
    d = tmp_path_factory.mktemp("keys")
    lab, _ = keygen(d / "lab")
    forger, _ = keygen(d / "forger")
    return {"lab": lab, "forger": forger, "lab_pub": d / "lab.pub",
            "lab_b64": load_public_key_b64(d / "lab.pub")}


def _sign_all(camp, key_path):
    key = load_private_key(key_path)
    for m in sorted(camp.runs.rglob(MANIFEST)):
        write_json_atomic(m, seal(read_json(m), key))


@pytest.fixture(scope="module")
def signed(tmp_path_factory, keys, clean_campaign):
    camp = copy_campaign(clean_campaign, tmp_path_factory.mktemp("signed") / "c")  # signatures lie outside the seals
    _sign_all(camp, keys["lab"])
    return camp


def _said(res, check="2"):
    return [f"{f.location}: {f.message} ({f.found})" for f in res.findings if f.check == check]


def test_signature_signs_the_seal_and_never_survives_resealing(keys):
    key = load_private_key(keys["lab"])
    m = seal({"a": 1}, key)
    assert signature_problem(m, [keys["lab_b64"]]) is None
    assert seal_of(m) == m["seal"]  # the signature is outside the seal
    assert "signature" not in seal({**m, "a": 2})
    assert signature_problem({**m, "seal": "0" * 64}) == "signature does not verify over the seal"
    assert signature_problem(m, ["AAAA"]).startswith("signed by an untrusted key")


def test_signed_campaign_passes_with_the_trusted_run_key(signed, keys):
    res = run_audit(signed.report, trusted_run_keys=[keys["lab_b64"]])
    assert res.exit_code == 0, [f.message for f in res.findings]


def test_unsigned_campaign_fails_with_a_trusted_run_key(tmp_path, signed, keys):
    camp = copy_campaign(signed, tmp_path / "c")
    for m in camp.runs.rglob(MANIFEST):
        write_json_atomic(m, seal(read_json(m)))
    said = _said(run_audit(camp.report, trusted_run_keys=[keys["lab_b64"]]))
    assert len([s for s in said if "not vouched for: unsigned" in s]) == 9, said


# [None] (an unsigned consistent forgery) is slow: [forger] keeps the same path in the fast tier (a
# consistent forgery passes every record check, the CLI's --trusted-run-key names it) and
# test_unsigned_campaign_fails_with_a_trusted_run_key keeps "unsigned" named under a trusted key
@pytest.mark.parametrize("resign", [pytest.param(None, marks=pytest.mark.slow), "forger"])
def test_forged_campaign_fails_without_the_lab_key(tmp_path, signed, keys, capsys, resign):
    """Rewrite a held-out row consistently (prediction, outcome, reward), recompute, re-seal."""
    camp = copy_campaign(signed, tmp_path / "c")
    run_dir = camp.run_dir("grpo", 11)

    def flip(rows):
        r = next(r for r in rows if not r["correct"])
        r.update(prediction=r["target"], correct=True, reward=1.0)
        return rows

    edit_rows(run_dir, HELDOUT_TRACE, flip, resummarize=True)
    if resign:
        m = read_json(run_dir / MANIFEST)
        write_json_atomic(run_dir / MANIFEST, seal(m, load_private_key(keys[resign])))
    reanalyze(camp)
    assert run_audit(camp.report).exit_code == 0  # consistent forgery: every record check passes
    rc = audit_main(["check", str(camp.report), "--trusted-run-key", str(keys["lab_pub"]), "--plain"])
    out = capsys.readouterr().out
    assert rc == 1
    assert ("untrusted key" if resign else "unsigned") in out


def test_a_tampered_signature_is_a_finding_even_without_trusted_keys(tmp_path, signed):
    camp = copy_campaign(signed, tmp_path / "c")
    p = camp.run_dir("dapo", 23) / MANIFEST
    m = read_json(p)
    m["signature"]["value"] = m["signature"]["value"][::-1]
    write_json_atomic(p, m)
    said = _said(run_audit(camp.report))
    assert any("signature does not verify" in s for s in said), said


# ----------------------------------------------------------------------------- sweep log chain
def _log(tmp_path, n=6, key=None):
    p = tmp_path / "sweep.jsonl"
    for i in range(n):
        append_event(p, {"event": "unit_end", "arm": "grpo", "seed": i, "outcome": "complete"}, key)
    return p


def _lines(p):
    return p.read_text().splitlines(keepends=True)


def test_chain_intact(tmp_path):
    events, problems = verify_chain(_log(tmp_path))
    assert len(events) == 6 and problems == []


@pytest.mark.parametrize("edit", ["delete", "reorder", "insert", "edit"])
def test_chain_shows_a_deleted_reordered_inserted_or_edited_line(tmp_path, edit):
    p = _log(tmp_path)
    lines = _lines(p)
    if edit == "delete":
        del lines[2]
    elif edit == "reorder":
        lines[2], lines[3] = lines[3], lines[2]
    elif edit == "insert":
        lines.insert(2, lines[2])
    else:
        lines[2] = lines[2].replace('"seed": 2', '"seed": 7')
    p.write_text("".join(lines))
    _, problems = verify_chain(p)
    # the break shows at the first line whose chain no longer fits (an edit: the line after it)
    assert [pr.line for pr in problems] == [{"delete": 3, "reorder": 3, "insert": 4, "edit": 4}[edit]], problems
    assert "hash chain broken" in problems[0].message


def test_torn_last_line_is_tolerated_and_chained_over(tmp_path):
    p = _log(tmp_path, 3)
    with open(p, "a") as fh:
        fh.write('{"event": "attempt", "ar')  # a node died mid-write
    append_event(p, {"event": "sweep_end"})
    events, problems = verify_chain(p)
    assert [e["event"] for e in events] == ["unit_end"] * 3 + ["sweep_end"]
    assert [pr.message for pr in problems] == ["sweep log line is not a JSON object (torn or edited)"]


def test_signed_log_requires_trusted_keys_and_shows_edits(tmp_path, keys):
    p = _log(tmp_path, 3, key=keys["lab"])
    assert verify_chain(p, [keys["lab_b64"]])[1] == []
    assert "not signed by a trusted run key" in verify_chain(p, ["AAAA"])[1][0].message
    lines = _lines(p)
    ev = json.loads(lines[2])
    ev["outcome"] = "failed"
    lines[2] = json.dumps(ev, sort_keys=True) + "\n"
    p.write_text("".join(lines))
    msgs = [pr.message for pr in verify_chain(p, [keys["lab_b64"]])[1]]
    assert any("signature does not verify" in m for m in msgs), msgs


def _write_sweep_log(camp, key_path=None):
    """A sweep log as `runner sweep` writes it, and each run's settings.sweep_id (re-signed)."""
    p = camp.runs / "e1s" / "sweep.jsonl"
    key = load_private_key(key_path) if key_path else None
    append_event(p, {"event": "sweep_start", "sweep": "s1"}, key_path)
    for m in sorted(camp.runs.rglob(MANIFEST)):
        d = read_json(m)
        d["settings"]["sweep_id"] = "s1"
        write_json_atomic(m, seal(d, key))
        unit = {"sweep": "s1", "arm": d["arm"], "seed": d["seed"]}
        append_event(p, {"event": "attempt", **unit, "attempt": 1}, key_path)
        append_event(p, {"event": "unit_end", **unit, "outcome": "complete"}, key_path)
    append_event(p, {"event": "sweep_end", "sweep": "s1"}, key_path)
    return p


def test_audit_checks_the_sweep_log(tmp_path, signed, keys):
    camp = copy_campaign(signed, tmp_path / "c")
    p = _write_sweep_log(camp, keys["lab"])
    reanalyze(camp)  # the analysis names the (re-sealed) manifests' seals
    assert run_audit(camp.report, trusted_run_keys=[keys["lab_b64"]]).exit_code == 0
    lines = _lines(p)
    del lines[3]  # a unit's attempt event deleted
    p.write_text("".join(lines))
    said = _said(run_audit(camp.report))
    assert any("sweep.jsonl:4" in s and "hash chain broken" in s for s in said), said
    assert any("lacks the events of unit" in s for s in said), said


def test_audit_names_a_deleted_unit_the_log_says_completed(tmp_path, signed):
    camp = copy_campaign(signed, tmp_path / "c")
    _write_sweep_log(camp)
    shutil.rmtree(camp.run_dir("gspo", 37))
    said = _said(run_audit(camp.report))
    assert any("unit gspo/s37 completed, but its run is gone" in s for s in said), said


def test_a_log_cut_before_its_end_is_a_warning(tmp_path, signed):
    camp = copy_campaign(signed, tmp_path / "c")
    p = _write_sweep_log(camp)
    reanalyze(camp)
    p.write_text("".join(_lines(p)[:-1]))
    res = run_audit(camp.report)
    assert any("no end event" in f.message and f.level == "warning" for f in res.findings)
    assert res.exit_code == 0 and run_audit(camp.report, strict=True).exit_code == 1


def test_a_cut_tail_or_a_deleted_log_shows_through_the_runs(tmp_path, signed):
    """The runs record the sweep that made them, so cutting a unit's events off the end of the
    log (the chain stays intact) or deleting the whole log is still a finding."""
    camp = copy_campaign(signed, tmp_path / "c")
    p = _write_sweep_log(camp)
    reanalyze(camp)
    lines = _lines(p)
    p.write_text("".join(lines[:-3]))  # the last unit's attempt, unit_end and the sweep_end
    said = _said(run_audit(camp.report))
    assert any("lacks the events of unit" in s for s in said), said
    assert not any("hash chain broken" in s for s in said), said
    p.unlink()
    said = _said(run_audit(camp.report))
    assert any("the sweep log is missing though 9 run(s)" in s for s in said), said


@pytest.mark.slow
def test_a_real_signed_sweep_signs_every_seal_and_log_event(tmp_path, keys):
    """`runner sweep --sign` (one real unit, a `runner run` child): the seal and every event signed."""
    from runner_run_support import prereg, write_lock

    from runner.sweep import SweepOptions, run_sweep
    from runner.sweep.cli import main as sweep_main

    lock = write_lock(tmp_path, prereg(id="sg", seeds=[1, 2]))
    out = tmp_path / "runs"
    assert sweep_main([str(lock), "--out", str(out), "--sign", str(tmp_path / "nokey"), "--no-live"]) == 2
    assert not out.exists()  # an unreadable key is refused before any unit starts
    res = run_sweep(SweepOptions(lock_path=str(lock), out=str(out), arms=["grpo"], seeds=[1], live=False,
                                 sign_key=str(keys["lab"])))
    assert res.ok, [(u.arm, u.seed, u.outcome, u.error) for u in res.units]
    m = read_json(out / "sg" / "grpo" / "s1" / MANIFEST)
    assert m["status"] == "complete" and signature_problem(m, [keys["lab_b64"]]) is None
    assert m["settings"]["sweep_id"] == res.sweep_id
    events, problems = verify_chain(out / "sg" / "sweep.jsonl", [keys["lab_b64"]])
    assert problems == [] and [e["event"] for e in events][0] == "sweep_start" and events[-1]["event"] == "sweep_end"
    assert any(e["event"] == "attempt" for e in events)  # written by the child process, signed too
