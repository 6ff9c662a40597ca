"""Every evaluation session's arm summaries in analysis.json (README failure 16).

Study 12 (base and SFT references evaluated once per session, GRPO x 3 seeds, 162 items) is evaluated
in session s1 (base, SFT, GRPO) and again in s2 (base, GRPO). The contrasts use s1; before this, only
s1's arm summaries existed, so a report quoting s2's values had no source. Now each later session's
evaluation of an arm has the same statistics as the first, computed by the same code, under
``sessions.<tag>.arms.<arm>.*`` / ``sessions.<tag>.runs.<arm>.*`` (``session_arms`` says where), checked
here against a direct numpy / scipy computation on the same rows; reruns are byte-identical; the
schema requires ``session_arms`` with ``sessions``; ``stats render`` writes one table per session and
the rendered report audits clean.
"""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
from scipy import stats as st

from prereg.errors import UserError
from prereg.jsonio import write_json_atomic
from prereg.lock import build_lock
from stats.analyze import analyze, dumps, write
from stats.cli import main as stats_main
from stats.result import AnalysisResult
from stats.sessions import session_arms, session_tags
from tests import study12 as S

NOW = "2026-01-01T00:00:00.000000Z"


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    root = tmp_path_factory.mktemp("sessions")
    lock = root / "study12.lock.json"
    write_json_atomic(lock, build_lock(S.prereg(), now=NOW), overwrite=True)
    rows = S.rows()
    return lock, rows, S.write_csv(root / "items.csv", rows)


@pytest.fixture(scope="module")
def analysed(study):
    lock, _rows, table = study
    return analyze(lock, table)


def _per_seed(rows, arm, session, metric="solve_rate"):
    """seed -> the mean of ``metric`` over the items of ``arm`` in ``session``, straight from the rows."""
    out: dict = {}
    for r in rows:
        if r["arm"] == arm and r["session"] == session:
            out.setdefault(r["seed"], []).append(float(r[metric]))
    return {s: float(np.mean(v)) for s, v in out.items()}


def test_session_arms_says_where_each_sessions_values_are(analysed):
    a = analysed
    assert a["sessions"] == ["s1", "s2"]
    assert a["session_arms"] == {"s1": {"base": "", "sft": "", "grpo": ""},
                                 "s2": {"base": "sessions.s2.", "grpo": "sessions.s2."}}
    v = a["values"]
    # the contrast session keeps its ids; s2 has the same statistics under its prefix; SFT was not re-evaluated
    for vid in ("arms.grpo.solve_rate.mean", "arms.grpo.solve_rate.sd", "arms.grpo.solve_rate.mean.ci95.low",
                "arms.base.solve_rate.mean.item.ci95.high", "runs.grpo.s1.solve_rate", "runs.base.once.format_pct"):
        assert vid in v and "sessions.s2." + vid in v, vid
        assert v["sessions.s2." + vid]["method"] == v[vid]["method"]
        assert v["sessions.s2." + vid]["params"]["session"] == "s2" and v[vid]["params"]["session"] == "s1"
    assert not any(k.startswith("sessions.s2.arms.sft.") for k in v)
    assert not any(k.startswith("sessions.s1.") for k in v)


def test_second_session_values_equal_a_direct_computation(study, analysed):
    """Mean, SD (ddof 1), t interval over seeds and per-seed values of GRPO in s2, and the once-evaluated
    base model's mean, against numpy / scipy on the s2 rows; and s1's values against the s1 rows."""
    _lock, rows, _table = study
    v = analysed["values"]
    for sess, pre in (("s1", ""), ("s2", "sessions.s2.")):
        per = _per_seed(rows, "grpo", sess)
        x = np.array([per[s] for s in sorted(per)])
        assert x.size == 3
        assert v[f"{pre}arms.grpo.solve_rate.mean"]["value"] == pytest.approx(x.mean(), abs=1e-11)
        assert v[f"{pre}arms.grpo.solve_rate.sd"]["value"] == pytest.approx(x.std(ddof=1), abs=1e-11)
        lo, hi = st.ttest_1samp(x, 0.0).confidence_interval(0.95)
        assert v[f"{pre}arms.grpo.solve_rate.mean.ci95.low"]["value"] == pytest.approx(lo, abs=1e-11)
        assert v[f"{pre}arms.grpo.solve_rate.mean.ci95.high"]["value"] == pytest.approx(hi, abs=1e-11)
        for seed, val in per.items():
            assert v[f"{pre}runs.grpo.s{seed}.solve_rate"]["value"] == pytest.approx(val, abs=1e-11)
        (base,) = _per_seed(rows, "base", sess, "format_pct").values()
        assert v[f"{pre}arms.base.format_pct.mean"]["value"] == pytest.approx(base, abs=1e-9)
    # the two sessions really differ (else the test could not tell them apart)
    assert v["sessions.s2.arms.grpo.solve_rate.mean"]["value"] != v["arms.grpo.solve_rate.mean"]["value"]


def test_item_level_interval_of_a_later_session_draws_its_own_stream(analysed):
    v = analysed["values"]
    p1 = v["arms.base.solve_rate.mean.item.ci95.low"]["params"]
    p2 = v["sessions.s2.arms.base.solve_rate.mean.item.ci95.low"]["params"]
    assert p1["stream"] == "arms.base.solve_rate.mean.item.ci95"
    assert p2["stream"] == "sessions.s2.arms.base.solve_rate.mean.item.ci95"
    assert v["sessions.s2.arms.base.solve_rate.mean.item.ci95.low"]["rng_seed"] == v[
        "arms.base.solve_rate.mean.item.ci95.low"]["rng_seed"]


def test_rerun_is_byte_identical(study, analysed):
    lock, _rows, table = study
    assert dumps(analyze(lock, table)) == dumps(analysed)


def test_schema_requires_session_arms_with_sessions(analysed):
    doc = copy.deepcopy(analysed)
    AnalysisResult.from_document(doc)   # the analysis as written is accepted
    del doc["session_arms"]
    with pytest.raises(UserError, match="session_arms"):
        AnalysisResult.from_document(doc, source="hand-edited")
    doc = copy.deepcopy(analysed)
    doc["session_arms"]["s2"]["grpo"] = "s2."   # not a prefix of value ids
    with pytest.raises(UserError, match="session_arms"):
        AnalysisResult.from_document(doc, source="hand-edited")


def test_one_session_study_has_no_session_block(tmp_path):
    lock = tmp_path / "study12.lock.json"
    write_json_atomic(lock, build_lock(S.prereg(), now=NOW), overwrite=True)
    a = analyze(lock, S.write_csv(tmp_path / "items.csv", S.rows(sessions={"s1": ["base", "sft", "grpo"]})))
    assert a["sessions"] == ["s1"] and a["session_arms"] == {"s1": {"base": "", "sft": "", "grpo": ""}}
    assert not any(k.startswith("sessions.") for k in a["values"])


def test_tags_and_prefixes_follow_one_rule():
    assert session_tags(["s1", "2025-03 batch", "a.b", "a b"]) == {
        "s1": "s1", "2025-03 batch": "2025-03_batch", "a.b": "a_b", "a b": "a_b_4"}
    assert session_arms({"A": {("x", 1): 0}, "B B": {("x", 1): 0, ("y", None): 0}}, {"x": "A", "y": "B B"}) == {
        "A": {"x": ""}, "B B": {"x": "sessions.B_B.", "y": ""}}


def test_render_writes_one_table_per_session_and_audits_clean(study, analysed, tmp_path):
    from audit.cli import main as audit_main

    lock, _rows, table = study
    apath = write(analysed, tmp_path / "report" / "analysis.json")
    assert stats_main(["render", str(apath), "-o", str(tmp_path / "report"), "--no-figures"]) == 0  # the text is read
    md = (tmp_path / "report" / "report.md").read_text()
    assert "## Arms by evaluation session" in md
    s2 = md[md.index("### Session 2: `s2`"):]
    s2 = s2[:s2.index("\n#", 5)]
    assert "<!-- id:sessions.s2.arms.grpo.solve_rate.mean -->" in s2
    assert "<!-- id:sessions.s2.arms.base.n_seeds -->" in s2 and "`sft`" not in s2
    out = tmp_path / "audit.json"
    rc = audit_main(["check", str(tmp_path / "report"), "--lock", str(lock), "--runs", str(table), "--strict",
                     "--json", str(out)])
    found = [f for c in json.loads(out.read_text()).get("checks", []) for f in c.get("findings", [])]
    assert rc == 0, json.dumps(found, indent=1)[:3000]
    # a pinned s2 cell changed by one unit of its last digit is caught against the s2 value
    text = (tmp_path / "report" / "report.md").read_text()
    v = analysed["values"]["sessions.s2.arms.grpo.solve_rate.mean"]["value"]
    cell = f"{v:.4f}<!-- id:sessions.s2.arms.grpo.solve_rate.mean -->"
    assert cell in text
    bad = f"{v + 0.0011:.4f}<!-- id:sessions.s2.arms.grpo.solve_rate.mean -->"
    (tmp_path / "report" / "report.md").write_text(text.replace(cell, bad))
    rc = audit_main(["check", str(tmp_path / "report"), "--lock", str(lock), "--runs", str(table),
                     "--json", str(out)])
    found = [f for c in json.loads(out.read_text()).get("checks", []) for f in c.get("findings", [])]
    assert rc != 0 and any("sessions.s2.arms.grpo.solve_rate.mean" in json.dumps(f) for f in found), found


def test_no_table_without_several_sessions(tmp_path):
    lock = tmp_path / "study12.lock.json"
    write_json_atomic(lock, build_lock(S.prereg(), now=NOW), overwrite=True)
    a = analyze(lock, S.write_csv(tmp_path / "items.csv", S.rows(sessions={"s1": ["base", "sft", "grpo"]})))
    apath = write(a, tmp_path / "report" / "analysis.json")
    assert stats_main(["render", str(apath), "-o", str(tmp_path / "report"), "--no-figures"]) == 0  # the text is read
    assert "Arms by evaluation session" not in (tmp_path / "report" / "report.md").read_text()
