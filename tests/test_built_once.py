"""A study copied from the session's cache is the study a fresh build makes (``corpus.built_once``).

The report-set tests build each study once a session and copy it for every test that asks
(``tests/conftest.py::_built_once``): that is only sound while a build writes the same bytes every
time and no path of the folder it was built in. Each case builds a study fresh, without the cache,
in a folder of another name and depth, and compares every file's path and bytes with the copy the
tests get. The fast tier checks the cheapest generator (a corpus table study); the full run checks
every generator (table, study12, items, runner-shaped campaign, the audit's defect campaign).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from tests.report_corpus import corpus
from tests.report_corpus_blind import blind
from tests.report_corpus_fresh import fresh
from tests.report_corpus_wild import wild


def _files(root: Path) -> dict[str, str]:
    """Relative path -> SHA-256 of every file under ``root``."""
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


CASES = [
    pytest.param(corpus.build, "arm_table", id="table"),
    pytest.param(corpus.build, "mixed_units", id="study12", marks=pytest.mark.slow),
    pytest.param(blind.build, "leaderboard", id="items", marks=pytest.mark.slow),
    pytest.param(fresh.build, "gh_discussion", id="campaign", marks=pytest.mark.slow),
    pytest.param(wild.build, "changelog", id="defect-campaign", marks=pytest.mark.slow),
]


@pytest.mark.parametrize(("build", "name"), CASES)
def test_a_cached_study_is_byte_identical_to_a_fresh_build(build, name, tmp_path, monkeypatch, _built_once):
    assert corpus.BUILD_CACHE == _built_once
    cached = build(name, tmp_path / "cached")
    build(name, tmp_path / "again")  # a second copy: from the cache, not built again
    monkeypatch.setattr(corpus, "BUILD_CACHE", None)
    fresh_report = build(name, tmp_path / "elsewhere" / "deeper" / name)
    got, want = _files(cached.parent), _files(fresh_report.parent)
    assert got == want
    assert _files(tmp_path / "again") == want
    assert any(f.endswith("analysis.json") for f in got)
    for p in fresh_report.parent.rglob("*"):
        assert p.is_dir() or str(tmp_path).encode() not in p.read_bytes(), p


def test_the_cache_builds_once_and_a_new_key_builds_again(tmp_path, monkeypatch):
    monkeypatch.setattr(corpus, "BUILD_CACHE", tmp_path / "cache")
    (tmp_path / "cache").mkdir()
    calls = []

    def make(dst: Path) -> None:
        calls.append(dst)
        dst.mkdir(parents=True)
        (dst / "x.txt").write_text(f"built {len(calls)}")

    for i in range(3):
        corpus.built_once("key-a", tmp_path / f"a{i}", make)
    corpus.built_once("key-b", tmp_path / "b", make)
    assert len(calls) == 2
    assert [(tmp_path / f"a{i}" / "x.txt").read_text() for i in range(3)] == ["built 1"] * 3
    assert (tmp_path / "b" / "x.txt").read_text() == "built 2"
    monkeypatch.setattr(corpus, "BUILD_CACHE", None)
    corpus.built_once("key-a", tmp_path / "none", make)  # no cache: always built
    assert len(calls) == 3 and (tmp_path / "none" / "x.txt").read_text() == "built 3"


def _results(res) -> list[dict]:
    """An audit's check results as data, the timings left out."""
    return [{k: v for k, v in r.as_dict().items() if k != "seconds"} for r in res.results]


def test_study_checks_kept_for_a_study_are_those_a_full_audit_gives(tmp_path):
    """Reports over copies of one study: the kept study checks equal a fresh audit's, a report
    edit is still caught (checks 10/11 run), and a record edit is checked afresh (check 9 fires)."""
    import json

    from audit import check
    from tests.report_corpus.study_checks import study_checks_once

    clean = corpus.build("arm_table", tmp_path / "clean")
    copies = []
    for i, edit in enumerate(["", "planted", "record"]):
        rep = corpus.build("arm_table", tmp_path / f"c{i}")
        if edit == "planted":
            md = next(rep.glob("*.md"))
            text = md.read_text()
            number = next(w for w in text.split() if w[:1].isdigit() and "." in w)
            md.write_text(text.replace(number, number + "7", 1))
        if edit == "record":
            a = json.loads((rep / "analysis.json").read_text())
            vid = sorted(a["values"])[0]
            a["values"][vid]["value"] = a["values"][vid]["value"] + 0.5
            (rep / "analysis.json").write_text(json.dumps(a))
        copies.append(rep)
    want = [_results(check(r)) for r in [clean, *copies]]
    kept: dict = {}
    with study_checks_once(kept):
        got = [_results(check(r)) for r in [clean, *copies]]
    assert got == want
    assert len(kept) == 1  # one clean study; the edited record's study is not kept (check 9 fires)
    status = {r["name"]: r["status"] for r in got[2]}
    assert status["report"] == "fail" and status["analysis"] == "pass"
    assert {r["name"]: r["status"] for r in got[3]}["analysis"] == "fail"


def _without_paths(a: dict, root: Path) -> str:
    """An analysis as JSON text with ``root`` (the folder it was computed in) taken out of paths."""
    import json

    return json.dumps(a, sort_keys=True, default=str).replace(str(root) + "/", "")


@pytest.mark.parametrize(("build", "name"), CASES)
def test_a_kept_analysis_is_check_9s_own_recomputation(build, name, tmp_path):
    """What a study's build keeps as check 9's recomputation (``corpus.seed_recompute``) equals what
    check 9 computes from the same lock and records (``log_look=False``, ``validate=False``)."""
    import pickle

    from audit.checks.analysis import recompute
    from audit.context import load_context

    report = build(name, tmp_path / "s")
    ctx = load_context(report)
    key = corpus._inputs_digest(ctx.lock_path, ctx.runs_path)
    kept = corpus.BUILD_CACHE / "recompute" / f"{key}.pickle"
    assert kept.is_file(), "the build kept no recomputation"
    fresh = recompute(ctx.lock_path, ctx.runs_path, ctx.analysis)
    assert _without_paths(pickle.loads(kept.read_bytes()), tmp_path / "s") == _without_paths(fresh, tmp_path / "s")
