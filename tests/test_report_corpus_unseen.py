"""The unseen set (README failure 15): hand-written reports written, with their plants, before the
audit was first run on them.

``tests/report_corpus_unseen/`` holds a paper appendix with per-seed "mean (std)" tables, bold best
values, a two-line header and footnote markers; a blog post with bullets, "x% → y%", "62 %", "0·658",
"7.9e-3", U+2212 and arm names in other cases; a Hugging Face card over a base model, an SFT checkpoint
and two evaluation sessions with its results also in a YAML code block; a reply in a quoted e-mail
thread over a runner-shaped campaign; and a reStructuredText page. Each clean report must audit with
zero findings (with and without ``--strict``) and each plant must be caught by check 10 at its line
with its message, by a finding the clean report does not have. What the audit does not do yet is
``xfail(strict=True)`` naming the defect (each plant's ``"xfail"``, ``clean_xfail.txt``,
``strict_xfail.txt``). The fast tier audits the first plant expected caught of each report;
``pytest`` (CI) audits every plant.
"""

from __future__ import annotations

import json

from tests.report_corpus import corpus, set_tests
from tests.report_corpus_unseen import unseen

NAMES = unseen.names()
# The fast tier audits the first plant expected caught of each report and the clean reports expected
# clean (each audit costs about a second; the fast tier has a one-minute budget); `pytest` (CI) runs all.
FAST = [p for n in NAMES for p in [q for q in unseen.plants(n) if not q.xfail][:1]]

# test_clean_unseen_report_has_no_finding(_strict), test_unseen_plant_is_caught and their fixtures
globals().update(set_tests.tests(unseen.SET, "unseen", FAST, slow_known=True))


def test_unseen_set_is_large_enough_and_over_its_own_studies():
    """Five reports over at least four studies none of the other sets uses, each with ten plants of
    distinct kinds; a base model, an SFT checkpoint and two evaluation sessions among them."""
    assert len(NAMES) >= 5
    specs = {n: json.loads((unseen.HERE / n / "study.json").read_text()) for n in NAMES}
    for n in NAMES:
        assert len({p.kind for p in unseen.plants(n)}) >= 10
        assert all(p.check == "10" for p in unseen.plants(n))
    ids = {s["id"] for s in specs.values()}
    others = set()
    for folder in (corpus.HERE, corpus.REPO / "tests" / "report_corpus_fresh"):
        others |= {json.loads(p.read_text())["id"] for p in folder.glob("*/study.json")}
    assert len(ids) >= 4 and not ids & others
    assert any(len(s.get("sessions", {})) >= 2 for s in specs.values())
