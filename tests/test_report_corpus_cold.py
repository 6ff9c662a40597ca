"""The cold set (README failure 15): a seventh set of hand-written reports, written with their plants
without reading the audit's code and proof-read against each study's ``analysis.json`` before the audit
first ran on them (first-run figures in ``tests/report_corpus_cold/README.md``).

``tests/report_corpus_cold/`` holds a Hugging Face card whose ``model-index`` and results table are
both checked, a Google-Docs Markdown export (escaped ``\\_``, bold cells, non-breaking and thin spaces),
a paper appendix with significance stars, superscript footnote markers, U+2212 minus, en-dash intervals
and powers of ten, a GitHub pull-request comment with arms as columns and evaluation sessions as rows over
a base model, an SFT checkpoint and three RL baselines, and a Sphinx results page in reStructuredText over
a runner-shaped campaign. Each clean report must audit with zero findings (with and without ``--strict``)
and each plant must be caught by check 10 at its line with its message, by a finding the clean report does
not have. What the audit does not do yet is ``xfail(strict=True)`` naming the defect (each plant's
``"xfail"``, ``clean_xfail.txt``, ``strict_xfail.txt``), so the mark fails the day the defect is fixed.
The fast tier audits the first plant expected caught of each report; ``pytest`` (CI) audits every plant.
"""

from __future__ import annotations

from tests.report_corpus import set_tests
from tests.report_corpus_cold import cold

NAMES = cold.names()
# One plant expected caught per report in the fast tier (each audit costs about a second); CI runs all.
FAST = [p for n in NAMES for p in [q for q in cold.plants(n) if not q.xfail][:1]]

# test_clean_cold_report_has_no_finding(_strict), test_cold_plant_is_caught and their fixtures
globals().update(set_tests.tests(cold.SET, "cold", FAST, slow_known=True))


def test_cold_set_is_large_enough_and_over_its_own_studies():
    """Five reports over five studies no other set uses, each with at least fifteen plants of distinct
    kinds, all for check 10; among the studies a base model, an SFT checkpoint, three RL baselines and two
    evaluation sessions, and a runner-shaped campaign; one report in reStructuredText."""
    specs = set_tests.own_studies(cold.SET, NAMES, 15)
    assert any(len(s.get("sessions", {})) >= 2 and len(s.get("trained", [])) >= 3 for s in specs.values())
    assert any(s.get("generator") == "campaign" for s in specs.values())
    assert any(list((cold.SET.folder / n).glob("*.rst")) for n in NAMES)
