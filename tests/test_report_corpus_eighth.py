"""The eighth set (README failure 15): hand-written reports written with their plants without reading the
audit's code, over five new studies, proof-read against each study's ``analysis.json`` before the audit
first ran on them (first-run figures in ``tests/report_corpus_eighth/README.md``).

``tests/report_corpus_eighth/`` holds a Weights & Biases report exported to Markdown over a one-sided plan,
an arXiv-style LaTeX results section (siunitx, booktabs, a multicolumn "Seed" header, a bold best cell)
under Bonferroni, an OpenReview rebuttal over a base model and an SFT checkpoint under Holm, a Jupyter
notebook exported by nbconvert with pandas ``to_markdown()`` tables over a runner-shaped campaign, and a
Slack thread recap with emoji, "pp" and "~" over a seven-seed study with an equivalence verdict. Each clean
report must audit with zero findings (with and without ``--strict``) and each plant must be caught by
check 10 at its line with its message, by a finding the clean report does not have. What the audit does
not do yet is ``xfail(strict=True)`` naming the cause (each plant's ``"xfail"``, ``clean_xfail.txt``,
``strict_xfail.txt``), so the mark fails the day the cause is fixed. The fast tier audits the first plant
expected caught of each report; ``pytest`` (CI) audits every plant.
"""

from __future__ import annotations

from tests.report_corpus import set_tests
from tests.report_corpus_eighth import eighth

NAMES = eighth.names()
# One plant expected caught per report in the fast tier (each audit costs about a second); CI runs all.
FAST = [p for n in NAMES for p in [q for q in eighth.plants(n) if not q.xfail][:1]]

# test_clean_eighth_report_has_no_finding(_strict), test_eighth_plant_is_caught and their fixtures
globals().update(set_tests.tests(eighth.SET, "eighth", FAST, slow_known=True))


def test_eighth_set_is_large_enough_and_over_its_own_studies():
    """Five reports over five studies no other set uses, each with at least twenty plants of distinct
    kinds, all for check 10; among the studies a base model with an SFT checkpoint, a Bonferroni or BH
    plan and a Holm plan, a one-sided plan, and a runner-shaped campaign; one report in LaTeX."""
    specs = set_tests.own_studies(eighth.SET, NAMES, 20)
    patches = [s.get("patch", {}) for s in specs.values()]
    assert any(s.get("generator") == "items" for s in specs.values())
    assert any(p.get("analysis.multiplicity.method") == "bonferroni" for p in patches)
    assert any(p.get("analysis.contrasts.alternative") == "greater" for p in patches)
    assert any(s.get("generator") == "campaign" for s in specs.values())
    assert any(list((eighth.SET.folder / n).glob("*.tex")) for n in NAMES)
