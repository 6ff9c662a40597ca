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
