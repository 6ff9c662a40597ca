"""Session records edited after the fact are caught (README failure 16).

A synthetic campaign (GRPO, DAPO, GSPO x seeds 11, 23, 37; sealed run folders as the runner writes
them) is evaluated in session s1 (``runs/<study>/...``) and again in s2 (``runs/B/<study>/...``, every
arm's held-out accuracy 0.08 lower); the plan declares both. Someone who edits the records or
analysis.json to move a number or a run from one session to the other, and re-seals what they
edited, is caught by the check named in each test; the untouched campaign audits clean first.
"""

from __future__ import annotations

import datetime as _dt
import json
import shutil

import numpy as np
import pytest

from prereg.jsonio import read_json, write_json_atomic
from prereg.records import MANIFEST
from tests.audit_defects import SEEDS, STUDY, chdir, edit_manifest, study_prereg

DECLARED = {"s1": {"labels": ["first evaluation"]}, "s2": {"labels": ["Nov 20 batch"]}}


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    from stats.analyze import analyze, write
    from stats.synthetic import make_campaign, write_run

    root = tmp_path_factory.mktemp("session_records") / "c"
    root.mkdir()
    p = study_prereg()
    p["sessions"] = DECLARED
    with chdir(root):
        camp = make_campaign(".", p, effects={"dapo": 0.03, "gspo": 0.06}, rng_seed=1, session="s1")
        rng = np.random.default_rng(2)
        difficulty = np.clip(rng.beta(2, 2, size=50), 0.0, 1.0)
        t0 = _dt.datetime(2026, 1, 5, tzinfo=_dt.timezone.utc)
        for a, eff in (("grpo", 0.0), ("dapo", 0.03), ("gspo", 0.06)):
            for j, s in enumerate(SEEDS):
                write_run(p, camp.lock, root / "runs" / "B", a, s, accuracy=0.42 + eff, difficulty=difficulty,
                          rng=rng, started_at=t0 + _dt.timedelta(hours=j), lock_path=str(camp.lock_path),
                          session="s2")
        write(analyze(str(camp.lock_path), "runs"), "report/analysis.json", overwrite=True)
    return root


def _copy(campaign, tmp_path):
    dest = tmp_path / "c"
    shutil.copytree(campaign, dest)
    return dest


def _audit(root, keys=None):
    from audit import check

    with chdir(root):
        res = check("report", lock=f"locks/{STUDY}.lock.json", runs="runs", only=["2", "9"], jobs=1,
                    trusted_run_keys=keys)
    return [(f.check, f.location, f.message) for f in res.findings]


def _reanalyse(root):
    from stats.analyze import analyze, write

    with chdir(root):
        write(analyze(f"locks/{STUDY}.lock.json", "runs"), "report/analysis.json", overwrite=True)


def _edit_analysis(root, fn):
    path = root / "report" / "analysis.json"
    a = read_json(path)
    fn(a)
    write_json_atomic(path, a, overwrite=True)


def test_clean_campaign_has_both_sessions_and_audits_clean(campaign):
    a = read_json(campaign / "report" / "analysis.json")
    assert a["sessions"] == ["s1", "s2"] and a["session_labels"]["s2"] == ["Nov 20 batch"]
    v = a["values"]
    assert v["sessions.s2.arms.dapo.heldout_accuracy.mean"]["value"] < v["arms.dapo.heldout_accuracy.mean"]["value"]
    assert a["verdicts"]["study"]["verdict"] == "AS_PLANNED", a["deviations"]
    assert _audit(campaign) == []


def test_edited_session_value_is_caught_by_the_recomputation(campaign, tmp_path):
    """A later session's mean edited in analysis.json (with its interval moved with it, as a careful
    editor would): check 9 recomputes it from the s2 runs and names the id."""
    root = _copy(campaign, tmp_path)
    vid = "sessions.s2.arms.dapo.heldout_accuracy.mean"

    def edit(a):
        for k in (vid, f"{vid}.ci95.low", f"{vid}.ci95.high"):
            if k in a["values"]:
                a["values"][k]["value"] += 0.05
    _edit_analysis(root, edit)
    found = _audit(root)
    assert any(c == "9" and f"values['{vid}'].value" in loc and "differs from its recomputation" in msg
               for c, loc, msg in found), found


def test_edited_session_arms_is_caught(campaign, tmp_path):
    """session_arms edited so the s2 prefix is read as s1's (a reader would take s2's values for the
    contrast session's): schema-valid, every value untouched; check 9 compares the block itself."""
    root = _copy(campaign, tmp_path)

    def edit(a):
        a["sessions"] = ["s2", "s1"]
        a["session_arms"] = {"s2": dict(a["session_arms"]["s1"]), "s1": dict(a["session_arms"]["s2"])}
    _edit_analysis(root, edit)
    found = _audit(root)
    assert {loc.rsplit("#", 1)[-1] for c, loc, _ in found if c == "9"} >= {"$.sessions", "$.session_arms"}, found


def _run(root, sub, arm="dapo", seed=SEEDS[0]):
    return root / "runs" / sub / STUDY / arm / f"s{seed}" if sub else root / "runs" / STUDY / arm / f"s{seed}"


def test_manifest_session_edited_after_sealing_breaks_its_seal(campaign, tmp_path):
    root = _copy(campaign, tmp_path)
    path = _run(root, "B") / MANIFEST
    m = json.loads(path.read_text())
    m["session"] = "s1"
    path.write_text(json.dumps(m))
    found = _audit(root)
    assert any(c == "2" and "seal does not match" in msg for c, _loc, msg in found), found


def test_run_moved_between_sessions_and_resealed_is_caught(campaign, tmp_path):
    """A s2 run moved into s1 (session and settings.session edited, re-sealed): the analysis that
    was written no longer has its manifest as input (check 9), and its values move on recomputation."""
    root = _copy(campaign, tmp_path)

    def move(m):
        m["session"] = m["settings"]["session"] = "s1"
    edit_manifest(_run(root, "B"), move)
    found = _audit(root)
    assert any(c == "9" and "not the current manifest" in msg for c, _loc, msg in found), found
    assert not any(c == "2" for c, _l, _m in found), found   # the seal itself is consistent


def test_session_edited_without_settings_is_caught_after_reanalysis(campaign, tmp_path):
    """Only the manifest's session edited, re-sealed and re-analysed (analysis.json consistent with the
    edited records): check 2 compares it with the session the runner was given (settings.session)."""
    root = _copy(campaign, tmp_path)
    edit_manifest(_run(root, "B"), lambda m: m.__setitem__("session", "s1"))
    _reanalyse(root)
    found = _audit(root)
    assert [(c, loc.rsplit("#", 1)[-1]) for c, loc, _ in found] == [("2", "$.session")], found
    assert "'s2'" in found[0][2] or "settings.session" in found[0][2]


def test_a_fully_consistent_move_shows_only_on_signed_runs(campaign, tmp_path):
    """Every run signed by the lab's key; then a s2 run moved into s1 with session and settings.session
    both edited, re-sealed and re-analysed: the records agree with each other, so only the signature
    shows the move (a re-sealed manifest no longer carries the lab's signature)."""
    from prereg.records import seal
    from prereg.signing import keygen, load_private_key, load_public_key_b64

    root = _copy(campaign, tmp_path)
    lab, pub = keygen(tmp_path / "lab")
    key = load_private_key(lab)
    for m in sorted((root / "runs").rglob(MANIFEST)):
        write_json_atomic(m, seal(read_json(m), key), overwrite=True)
    trusted = [load_public_key_b64(pub)]
    assert _audit(root, trusted) == []   # signed, untouched: clean

    def move(m):
        m["session"] = m["settings"]["session"] = "s1"
    edit_manifest(_run(root, "B"), move)
    _reanalyse(root)
    assert _audit(root) == []            # consistent records: nothing to see without a key
    found = _audit(root, trusted)
    assert found and all(c == "2" and "B/e1s/dapo/s11" in loc for c, loc, _m in found), found
