"""Evaluation sessions declared in the preregistration (README failure 16).

Study 12 (base and SFT evaluated once per session, GRPO x 3 seeds) is evaluated in s1 and again in s2.
A plan may declare its sessions with the labels people write for them ("re-evaluation at T=0.6").
Here: the declaration is typed (``Study.sessions``), a label two sessions answer to is refused at
validation (exit 2), stats carries the labels into analysis.json, and a session in the data that the
plan does not declare, or one declared and absent, is a deviation; a contrast formed in an undeclared
session says so in its verdict. Each with the clean case beside it.
"""

from __future__ import annotations

import json

import pytest

from prereg.cli import main as prereg_main
from prereg.crossfield import session_label_errors
from prereg.jsonio import write_json_atomic
from prereg.lock import build_lock
from prereg.schema import schema_errors
from prereg.study import study_of
from stats.analyze import analyze
from tests import study12 as S

NOW = "2026-01-01T00:00:00.000000Z"
DECLARED = {"s1": {"labels": ["first evaluation"], "description": "T=1.0, Nov 12"},
            "s2": {"labels": ["re-evaluation at T=0.6", "Nov 20 re-run"]}}


def _prereg(sessions=None) -> dict:
    p = S.prereg()
    if sessions is not None:
        p["sessions"] = sessions
    return p


def _analyse(tmp_path, sessions=None, data_sessions=None):
    lock = tmp_path / "study12.lock.json"
    write_json_atomic(lock, build_lock(_prereg(sessions), now=NOW), overwrite=True)
    return analyze(lock, S.write_csv(tmp_path / "items.csv", S.rows(sessions=data_sessions)))


@pytest.fixture(scope="module")
def declared_root(tmp_path_factory):
    """Where the study with both of its sessions declared is locked and tabled."""
    return tmp_path_factory.mktemp("declared")


@pytest.fixture(scope="module")
def declared(declared_root):
    """The study analysed with both of its sessions declared (shared: analyses cost a CPU-second)."""
    return _analyse(declared_root, DECLARED)


def test_declaration_is_typed_and_optional():
    s = study_of(_prereg(DECLARED))
    assert list(s.sessions) == ["s1", "s2"]
    assert s.sessions["s2"].labels == ("re-evaluation at T=0.6", "Nov 20 re-run")
    assert s.sessions["s1"].description == "T=1.0, Nov 12"
    assert dict(study_of(_prereg()).sessions) == {}
    assert schema_errors(_prereg(DECLARED), "preregistration") == []
    bad = _prereg({"s1": {"labels": ["x"], "when": "Nov"}})   # an unknown field is refused
    assert any("sessions" in e for e in schema_errors(bad, "preregistration"))


def test_a_label_two_sessions_answer_to_is_refused(tmp_path, capsys):
    two = {"s1": {"labels": ["re-run"]}, "s2": {"labels": ["Re-Run"]}}
    assert session_label_errors({"sessions": two}) == ["$.sessions: label 'Re-Run' names sessions s1 and s2"]
    assert session_label_errors({"sessions": {"s1": {}, "s2": {"labels": ["S1"]}}}) == [
        "$.sessions: label 'S1' names sessions s1 and s2"]   # another session's own name
    assert session_label_errors({"sessions": DECLARED}) == []
    path = tmp_path / "p.json"
    path.write_text(json.dumps(_prereg(two)))
    assert prereg_main(["validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert "$.sessions: label 'Re-Run' names sessions s1 and s2" in err and "Traceback" not in err
    path.write_text(json.dumps(_prereg(DECLARED)))
    assert prereg_main(["validate", str(path)]) == 0


def test_labels_are_carried_into_analysis_json(declared, tmp_path):
    a = declared
    assert a["session_labels"] == {"s1": ["first evaluation"], "s2": ["re-evaluation at T=0.6", "Nov 20 re-run"]}
    assert a["verdicts"]["study"]["verdict"] == "AS_PLANNED", a["deviations"]
    (tmp_path / "none").mkdir()
    assert "session_labels" not in _analyse(tmp_path / "none", None)


@pytest.mark.parametrize("declared, kinds", [
    ({"s1": {}}, ["undeclared_session"]),                                    # s2 in the data, not declared
    ({"s1": {}, "s2": {}, "s3": {"labels": ["third pass"]}}, ["declared_session_absent"]),
])
def test_undeclared_or_absent_session_is_a_deviation(tmp_path, declared, kinds):
    a = _analyse(tmp_path, declared)
    got = [d for d in a["deviations"] if "session" in d["kind"]]
    assert [d["kind"] for d in got] == kinds, got
    assert a["verdicts"]["study"]["verdict"] == "DEVIATION"
    assert got[0]["session"] == ("s2" if kinds == ["undeclared_session"] else "s3")


def test_contrast_formed_in_an_undeclared_session_says_so_in_its_verdict(declared, tmp_path):
    """The data's first session (where the contrasts are formed) is not a declared one: each contrast's
    verdict states it; with both sessions declared no verdict carries a deviation."""
    a = _analyse(tmp_path, {"s2": {"labels": ["re-evaluation"]}})
    v = a["verdicts"]["contrasts"]["grpo-base"]
    assert "formed in session 's1', which the plan does not declare ('s2')" in v["deviation"], v
    assert [d["session"] for d in a["deviations"] if d["kind"] == "undeclared_session"] == ["s1"]
    assert not any("deviation" in v for v in declared["verdicts"]["contrasts"].values())


def test_render_names_each_session_by_its_first_label_and_audits_clean(declared, declared_root, tmp_path):
    from audit import check
    from stats.analyze import write
    from stats.cli import main as stats_main

    apath = write(declared, tmp_path / "report" / "analysis.json")
    assert stats_main(["render", str(apath), "-o", str(tmp_path / "report")]) == 0
    md = (tmp_path / "report" / "report.md").read_text()
    assert "### Session 1: `s1` (first evaluation)" in md and "### Session 2: `s2` (re-evaluation at T=0.6)" in md
    lock = declared_root / "study12.lock.json"
    res = check(tmp_path / "report", lock=lock, runs=lock.parent / "items.csv", strict=True, jobs=1)
    assert res.findings == [], [f.message for f in res.findings][:5]
