"""Independent review of check 10 on hand-written reports it was not built on (README failure 15).

``tests/report_corpus_review/`` holds reports a reviewer typed over the studies of
``tests/report_corpus/`` in layouts that corpus does not have: a bullet-list model card, a
transposed table (arms as columns, a CI row), a LaTeX section with ``\\multicolumn`` and
``\\num{}`` and p-values with comparators, a README with an HTML ``<table>``, a "Results (seed 2)"
heading, an en-dash interval, "1.3k", ".01" and a footnote. Each clean report must audit with zero
findings (with and without ``--strict``), each plant must be caught by check 10 at its line with the
expected message. What the audit does not do yet is marked ``xfail(strict=True)`` with the exact
defect, so it stays visible and the mark fails the day the defect is fixed.
The fast tier (``-m "not slow"``) audits the subset ``corpus.fast_plants`` picks (every report
and every kind of error expected caught, at least once); ``pytest`` (CI) audits every plant.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from audit import check
from tests.report_corpus import corpus
from tests.report_corpus_review import review

REPO = Path(__file__).resolve().parents[1]
NAMES = review.names()
ALL = [p for n in NAMES for p in review.plants(n)]
FAST = corpus.fast_plants(ALL)  # the fast tier's subset; `pytest` (CI) runs every plant


def _known(name: str, what: str) -> str:
    """The documented defect that keeps report ``name`` from passing (``clean`` or ``strict``), or ''."""
    f = review.HERE / name / f"{what}_xfail.txt"
    return f.read_text().strip() if f.is_file() else ""


def _param(value, reason: str, id_: str):
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
    return pytest.param(value, marks=marks, id=id_)


@pytest.fixture(scope="module", autouse=True)
def _recompute_once():
    """Check 9 recomputes each study's analysis once for all its plants (``corpus.recompute_once``)."""
    with corpus.recompute_once():
        yield


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("review")
    return {n: review.build(n, root / n) for n in NAMES}


def _show(findings):
    return [(f.check, Path(f.location).name, f.message, f.expected, f.found) for f in findings]


@pytest.mark.parametrize("name", [_param(n, _known(n, "clean"), n) for n in NAMES])
def test_clean_review_report_has_no_finding(built, name):
    assert _show(check(built[name]).findings) == []


@pytest.mark.parametrize("name", [_param(n, _known(n, "strict"), n) for n in NAMES])
def test_clean_review_report_has_no_finding_strict(built, name):
    assert _show(check(built[name], strict=True).findings) == []


def test_review_set_is_large_enough():
    """At least four reports, each with ten plants of distinct kinds, over the corpus's own studies."""
    assert len(NAMES) >= 4
    for n in NAMES:
        assert review.study(n) in corpus.names()
        assert len({p.kind for p in review.plants(n)}) >= 10


@pytest.mark.parametrize("plant", [corpus.plant_param(p, FAST) for p in ALL])
def test_review_plant_is_caught(built, tmp_path, plant):
    clean = built[plant.report]
    shutil.copytree(clean.parent, tmp_path / "study")
    rep = tmp_path / "study" / clean.name
    line = corpus.apply(rep, plant)
    findings = check(rep).findings
    assert corpus.caught(findings, plant, line), _show(findings)


def _cli(report: Path, *flags: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.run([sys.executable, "-m", "audit", "check", str(report), "--plain", *flags],
                          capture_output=True, text=True, env=env, cwd=report.parent)


@pytest.mark.slow  # three `python -m audit` interpreters; test_audit_cli checks the CLI in-process
def test_cli_agrees_with_the_api(built, tmp_path):
    """`audit check` exits 0 on a clean review report and 1 with the plant's message, with and without --strict."""
    clean = built["latex_multicolumn"]
    assert _cli(clean).returncode == 0
    plant = next(p for p in review.plants("latex_multicolumn") if not p.xfail)
    shutil.copytree(clean.parent, tmp_path / "study")
    rep = tmp_path / "study" / clean.name
    corpus.apply(rep, plant)
    for flags in ((), ("--strict",)):
        res = _cli(rep, *flags)
        assert res.returncode == 1 and plant.message in res.stdout, res.stdout
