"""Lint reads the typed plan and finds exactly what it found reading the raw dict (issue 15).

``prereg lint``'s rules moved from string-key reads of the preregistration dict onto
:class:`prereg.study.Study`. ``tests/data/lint_findings.json`` holds every finding line the
dict-reading lint (main at 145f8ac's prereg/lint*.py) gave for the examples, the templates, every
corpus set's study (the ninth set's recorded with that lint too) and variants of the examples that
make each rule fire (``tests/lint_documents.py``); the typed lint must give the same lines, in the
same order. A set added later is not compared until its findings are recorded.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests import lint_documents

RECORDED = json.loads((Path(__file__).resolve().parent / "data" / "lint_findings.json").read_text())


@pytest.fixture(scope="module")
def found() -> dict[str, list[str]]:
    return lint_documents.findings()


@pytest.mark.slow  # ~4 CPU-s (108 plans, the verdict scan each); lint's own tests cover each rule in the fast tier
def test_every_recorded_document_is_still_built(found):
    assert not set(RECORDED) - set(found)


@pytest.mark.slow
def test_the_typed_lint_gives_the_dict_lint_findings_line_for_line(found):
    changed = {name: (RECORDED[name], got) for name, got in found.items() if name in RECORDED and got != RECORDED[name]}
    assert not changed, json.dumps(changed, indent=1)[:4000]


def test_the_recorded_findings_cover_every_rule_but_the_sequential_plan_refusal():
    from prereg.lint import RULES

    fired = {line.rsplit("[", 1)[-1].rstrip("]") for lines in RECORDED.values() for line in lines}
    assert set(RULES) - fired == {"sequential-plan"}  # its refusals: tests/test_sequential_design.py
