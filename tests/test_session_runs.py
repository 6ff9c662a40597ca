"""Two evaluation sessions through the real runner (README failure 16).

A plan declares sessions A ("first evaluation") and B ("Nov 20 re-run"). GRPO is trained for real on
the tiny offline model (seeds 1, 2) and the base model evaluated, in session A (``runner run/evaluate
--session A``); the base model is evaluated again in session B under another ``--out``. An undeclared
``--session`` is refused before anything is written. ``stats analyze`` reads both sessions (the
declared labels carried into analysis.json), and a hand-written table with one row per session is
audited: clean as written; a session-B cell changed is one error at its line.
"""

from __future__ import annotations

import json

import pytest

from prereg.errors import UserError
from prereg.jsonio import write_json_atomic
from prereg.lock import build_lock
from prereg.records import read_run
from stats.analyze import analyze, write
from tests.runner_run_support import evaluate, reference_plan, run

NOW = "2026-01-01T00:00:00.000000Z"  # locked well before the runs (audit check 5)
SESSIONS = {"A": {"labels": ["first evaluation"]}, "B": {"labels": ["Nov 20 re-run"]}}

pytestmark = pytest.mark.slow


def _plan() -> dict:
    p = reference_plan("sess-runs")
    p["sessions"] = SESSIONS
    return p


def _evaluate(lock, arm, out, **kw):
    return evaluate(lock, arm, None, out, **kw)


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    root = tmp_path_factory.mktemp("sessruns")
    lock = root / "sess-runs.lock.json"
    write_json_atomic(lock, build_lock(_plan(), now=NOW))
    runs = root / "runs"
    for s in (1, 2):
        run(lock, "grpo", s, runs, session="A")
    _evaluate(lock, "base", runs, session="A")
    _evaluate(lock, "base", runs / "B", session="B")
    report = root / "report"
    write(analyze(lock, runs), report / "analysis.json")
    return root, lock, runs, report


def test_undeclared_session_is_refused_before_anything_is_written(study, tmp_path):
    _root, lock, _runs, _report = study
    with pytest.raises(UserError, match="--session 'C': the lock declares sessions 'A', 'B' only"):
        run(lock, "grpo", 1, tmp_path / "r", session="C")
    with pytest.raises(UserError, match="--session 'C'"):
        _evaluate(lock, "base", tmp_path / "e", session="C")
    assert not (tmp_path / "r").exists() and not (tmp_path / "e").exists()


def test_both_sessions_are_recorded_and_analysed(study):
    _root, _lock, runs, report = study
    assert read_run(runs / "B" / "sess-runs" / "base" / "once").manifest["session"] == "B"
    a = json.loads((report / "analysis.json").read_text())
    assert a["sessions"] == ["A", "B"] and a["session_labels"] == {"A": ["first evaluation"], "B": ["Nov 20 re-run"]}
    assert a["session_arms"] == {"A": {"grpo": "", "base": ""}, "B": {"base": "sessions.B."}}
    assert "sessions.B.arms.base.heldout_accuracy.mean" in a["values"]
    assert a["deviations"] == [] and a["verdicts"]["study"]["verdict"] == "AS_PLANNED"


def _table(a: dict) -> str:
    v = {k: r["value"] for k, r in a["values"].items()}
    base_a, base_b = v["arms.base.heldout_accuracy.mean"], v["sessions.B.arms.base.heldout_accuracy.mean"]
    grpo = v["arms.grpo.heldout_accuracy.mean"]
    return ("# Arithmetic, held-out accuracy by evaluation\n\nHeld-out accuracy on the 4 held-out items "
            "(fraction); GRPO mean over its seeds.\n\n| Evaluation | Base model | GRPO |\n|---|---|---|\n"
            f"| first evaluation | {base_a:.3f} | {grpo:.3f} |\n| Nov 20 re-run | {base_b:.3f} | – |\n")


def _audit(report, lock, runs, text, tmp_path):
    import shutil

    from audit import check

    rep = tmp_path / "report"
    shutil.copytree(report, rep)
    (rep / "notes.md").write_text(text)
    res = check(rep, lock=lock, runs=runs, jobs=1)
    return [(f.location, f.message) for f in res.findings if "notes.md" in f.location]


def test_hand_written_table_of_both_sessions_is_audited(study, tmp_path):
    _root, lock, runs, report = study
    a = json.loads((report / "analysis.json").read_text())
    text = _table(a)
    assert _audit(report, lock, runs, text, tmp_path / "clean") == []
    b = a["values"]["sessions.B.arms.base.heldout_accuracy.mean"]["value"]
    wrong = f"{b + 0.125 if b < 0.5 else b - 0.125:.3f}"
    bad = text.replace(f"| Nov 20 re-run | {b:.3f} |", f"| Nov 20 re-run | {wrong} |")
    assert bad != text
    found = _audit(report, lock, runs, bad, tmp_path / "plant")
    assert [loc.rsplit(":", 1)[-1] for loc, _ in found] == ["8"], found
    assert wrong in found[0][1], found
