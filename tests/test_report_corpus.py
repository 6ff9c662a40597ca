"""The hand-written report corpus (README failure 15): every planted error caught, no false alarm.

Each report in ``tests/report_corpus/`` is typed the way researchers type model cards and paper
sections; the audit must pass its clean version with zero findings and catch each planted error
with the right check, at the planted line, with the expected message.
The fast tier (``-m "not slow"``) audits the subset ``corpus.fast_plants`` picks (every report
and every kind of error expected caught, at least once); ``pytest`` (CI) audits every plant.
"""

from __future__ import annotations

import shutil

import pytest

from tests.report_corpus import corpus, set_tests

NAMES = corpus.names()
PLANTS = [p for n in NAMES for p in corpus.plants(n)]
FAST = corpus.fast_plants(PLANTS)  # the fast tier's subset; `pytest` (CI) runs every plant


# the module fixtures every report set's tests share: built (report folders by name), _recompute_once
globals().update(set_tests.fixtures(corpus, "corpus"))


@pytest.mark.parametrize("name", NAMES)
def test_clean_report_has_no_finding(built, name):
    findings = corpus.audit(built[name])
    assert [(f.check, f.location, f.message, f.expected, f.found) for f in findings] == []


@pytest.mark.parametrize("name", NAMES)
def test_each_report_plants_ten_distinct_kinds(name):
    kinds = {p.kind for p in corpus.plants(name)}
    assert len(kinds) >= 10


@pytest.mark.parametrize("plant", [corpus.plant_param(p, FAST) for p in PLANTS])
def test_plant_is_caught(built, tmp_path, plant):
    clean = built[plant.report]
    shutil.copytree(clean.parent, tmp_path / "study")
    rep = tmp_path / "study" / clean.name
    line = corpus.apply(rep, plant)
    findings = corpus.audit(rep)
    got = corpus.caught(findings, plant, line)
    assert got, [(f.check, f.location, f.message, f.expected, f.found) for f in findings]
