"""The blind set (README failure 15): hand-written reports written, with their plants, without reading
the audit's code and before the audit was first run on them.

``tests/report_corpus_blind/`` holds a Jupyter notebook exported to Markdown (pandas HTML tables,
outputs as indented code blocks), a Marp slide deck, a LaTeX section with ``threeparttable`` and siunitx
``S`` columns / ``\\qty`` / ``\\qtyrange`` macros, a leaderboard with ranks and ties over a base model, an
SFT checkpoint and three RL arms in two evaluation sessions, and a numbered social-media thread with
the long tail of wordings. Each clean report must audit with zero findings (with and without
``--strict``) and each plant must be caught by check 10 at its line with its message, by a finding the
clean report does not have; a plant marked ``"strict"`` (a number in code) is audited with ``--strict``.
What the audit does not do yet is ``xfail(strict=True)`` naming the defect (each plant's ``"xfail"``,
``clean_xfail.txt``, ``strict_xfail.txt``). The fast tier audits the first plant expected caught of
each report; ``pytest`` (CI) audits every plant.
"""

from __future__ import annotations

import json
import shutil

import pytest

from audit import check
from tests.report_corpus import corpus, set_tests, sets
from tests.report_corpus_blind import blind

NAMES = blind.names()
STRICT = [p for n in NAMES for p in blind.strict_plants(n)]
# The fast tier audits the first plant expected caught of each report and the clean reports expected
# clean (each audit costs about a second; the fast tier has a one-minute budget); `pytest` (CI) runs all.
FAST = [p for n in NAMES for p in [q for q in blind.plants(n) if not q.xfail][:1]]

# test_clean_blind_report_has_no_finding(_strict), test_blind_plant_is_caught and their fixtures
globals().update(set_tests.tests(blind.SET, "blind", FAST, slow_known=True))


def test_blind_set_is_large_enough_and_over_its_own_studies():
    """Five reports over five studies no other set uses, each with at least twelve plants of distinct
    kinds; a base model, an SFT checkpoint, three RL arms and two evaluation sessions among them."""
    assert len(NAMES) >= 5
    specs = {n: json.loads((blind.HERE / n / "study.json").read_text()) for n in NAMES}
    for n in NAMES:
        kinds = [p.kind for p in blind.read_plants(n)]
        assert len(set(kinds)) == len(kinds) >= 12
        assert all(p.check == "10" for p in blind.read_plants(n))
    ids = {s["id"] for s in specs.values()}
    others = set()
    for folder in ("report_corpus", "report_corpus_fresh", "report_corpus_unseen"):
        others |= {json.loads(p.read_text())["id"] for p in (corpus.REPO / "tests" / folder).glob("*/study.json")}
    assert len(ids) == len(NAMES) and not ids & others
    assert any(len(s.get("sessions", {})) >= 2 and len(s.get("trained", [])) >= 3 for s in specs.values())


@pytest.mark.slow
@pytest.mark.parametrize("plant", [corpus.plant_param(p, []) for p in STRICT])
def test_blind_strict_plant_is_caught(built, tmp_path, plant):
    """A wrong number in a printed output block (code) is caught with ``--strict``."""
    clean = built[plant.report]
    before = check(clean, strict=True).findings
    shutil.copytree(clean.parent, tmp_path / "study")
    rep = tmp_path / "study" / clean.name
    line = corpus.apply(rep, plant)
    findings = check(rep, strict=True).findings
    assert sets.caught(findings, before, plant, line), set_tests.show(findings)
