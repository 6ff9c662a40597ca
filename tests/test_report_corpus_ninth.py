"""The ninth set (README failure 15): hand-written reports written with their plants without reading the
audit's code, over five new studies, proof-read against each study's ``analysis.json`` before the audit
first ran on them (first-run figures in ``tests/report_corpus_ninth/README.md``).

``tests/report_corpus_ninth/`` holds a Hugging Face card written from ``huggingface_hub``'s ModelCard
template over a base model, an SFT checkpoint and three RL baselines in two evaluation sessions under BH;
a GitHub README with raw HTML tables, ``<br>``/``<sub>``/``<sup>`` in cells and badges over a one-sided
plan under Holm; a Substack-style blog post with numbers in words over a runner-shaped campaign; a
NeurIPS paper checklist in LaTeX under Bonferroni with an equivalence margin; and a weekly update e-mail
with an ASCII table in a code block over two evaluation sessions. Each clean report must audit with zero
findings (with and without ``--strict``) and each plant must be caught by check 10 at its line with its
message, by a finding the clean report does not have. What the audit does not do yet is
``xfail(strict=True)`` naming the cause (each plant's ``"xfail"``, ``clean_xfail.txt``,
``strict_xfail.txt``), so the mark fails the day the cause is fixed. The fast tier audits the first plant
expected caught of each report; ``pytest`` (CI) audits every plant.
"""

from __future__ import annotations

from tests.report_corpus import set_tests
from tests.report_corpus_ninth import ninth

NAMES = ninth.names()
# One plant expected caught per report in the fast tier (each audit costs about a second); CI runs all.
FAST = [p for n in NAMES for p in [q for q in ninth.plants(n) if not q.xfail][:1]]

# test_clean_ninth_report_has_no_finding(_strict), test_ninth_plant_is_caught and their fixtures
globals().update(set_tests.tests(ninth.SET, "ninth", FAST, slow_known=True))


def test_ninth_set_is_large_enough_and_over_its_own_studies():
    """Five reports over five studies no other set uses, each with at least twenty plants of distinct
    kinds, all for check 10; among the studies a base model with an SFT checkpoint in two evaluation
    sessions, BH, Holm and Bonferroni plans, a one-sided plan, an equivalence margin and a runner-shaped
    campaign; one report in LaTeX and one with numbers in code (plants audited only with ``--strict``)."""
    specs = set_tests.own_studies(ninth.SET, NAMES, 20)
    patches = [s.get("patch", {}) for s in specs.values()]
    methods = {p.get("analysis.multiplicity.method") for p in patches}
    assert {"bh", "holm", "bonferroni"} <= methods
    assert any(p.get("analysis.contrasts.alternative") == "greater" for p in patches)
    assert any("analysis.equivalence_margin" in p for p in patches)
    assert any(len(s.get("sessions", {})) >= 2 for s in specs.values())
    assert any(s.get("generator") == "campaign" for s in specs.values())
    assert any(list((ninth.SET.folder / n).glob("*.tex")) for n in NAMES)
    assert any(ninth.strict_plants(n) for n in NAMES)
