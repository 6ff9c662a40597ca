"""The wild set (README failure 15): hand-written reports in layouts neither corpus has.

``tests/report_corpus_wild/`` holds reports a new user typed by hand over the studies of
``tests/report_corpus/`` and over a runner-shaped campaign: a Hugging Face card with a
``model-index`` and an evaluation table with bold values and daggers, a LaTeX booktabs table
with siunitx ``S`` columns, a blog-style prose section, a README with a bullet per arm and
nested bullets per seed, a raw HTML table with ``colspan``, seeds as rows with a "mean" row, a
base/SFT reference card quoting "SFT − GRPO", and a changelog "v2 vs v1" table. Each clean
report must audit with zero findings (with and without ``--strict``) and each plant must be
caught by check 10 at its line with its message, by a finding the clean report does not have.
What the audit does not do yet is ``xfail(strict=True)`` naming the exact defect, so it stays
visible and the mark fails the day the defect is fixed.
The fast tier (``-m "not slow"``) audits the subset ``corpus.fast_plants`` picks (every report
and every kind of error expected caught, at least once); ``pytest`` (CI) audits every plant.
"""

from __future__ import annotations

from tests.report_corpus import corpus, set_tests
from tests.report_corpus_wild import wild

NAMES = wild.names()
FAST = corpus.fast_plants([p for n in NAMES for p in wild.plants(n)])  # the fast tier's subset; `pytest` (CI) runs every plant

# test_clean_wild_report_has_no_finding(_strict), test_wild_plant_is_caught and their fixtures
globals().update(set_tests.tests(wild.SET, "wild", FAST))


def test_wild_set_is_large_enough():
    """At least six reports, each with ten plants of distinct kinds, over corpus studies or the campaign."""
    assert len(NAMES) >= 6
    for n in NAMES:
        assert wild.study(n) in corpus.names() + [wild.CAMPAIGN]
        assert len({p.kind for p in wild.plants(n)}) >= 10
        assert all(p.check == "10" for p in wild.plants(n))


def test_a_false_alarm_on_the_planted_line_is_no_catch():
    """The catch rule itself: a finding the clean report already has does not count as catching a plant."""
    from audit.findings import Finding

    plant = wild.Plant(report="r", kind="k", file="report.md", find="a", replace="b", check="10", message="arms.x")
    old = Finding("10", "report", "/tmp/clean/report/report.md:7", "0.5 (arms.x)", "0.6", "0.6 written (arms.x)")
    new = Finding("10", "report", "/tmp/p3/report/report.md:7", "0.5 (arms.x)", "0.7", "0.7 written (arms.x)")
    same = Finding("10", "report", "/tmp/p3/report/report.md:7", "0.5 (arms.x)", "0.6", "0.6 written (arms.x)")
    assert wild.caught([same], [old], plant, 7) == []
    assert wild.caught([same, new], [old], plant, 7) == [new]
    assert wild.caught([new], [], plant, 8) == []
