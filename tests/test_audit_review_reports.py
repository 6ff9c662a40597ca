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

from tests.report_corpus import corpus, set_tests
from tests.report_corpus_review import review

REPO = Path(__file__).resolve().parents[1]
NAMES = review.names()
FAST = corpus.fast_plants([p for n in NAMES for p in review.plants(n)])  # the fast tier's subset; `pytest` (CI) runs every plant


# test_clean_review_report_has_no_finding(_strict), test_review_plant_is_caught and their fixtures
globals().update(set_tests.tests(review.SET, "review", FAST))


def test_review_set_is_large_enough():
    """At least four reports, each with ten plants of distinct kinds, over the corpus's own studies."""
    assert len(NAMES) >= 4
    for n in NAMES:
        assert review.study(n) in corpus.names()
        assert len({p.kind for p in review.plants(n)}) >= 10


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
