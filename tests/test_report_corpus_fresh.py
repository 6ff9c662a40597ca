"""The fresh set (README failure 15): hand-written reports over new studies, in new layouts.

``tests/report_corpus_fresh/`` holds reports typed by someone who had not tuned the audit to
them, each over its own study (imported tables, one runner-shaped campaign): an arXiv-style
Markdown results section ("Table 2:" caption, ``<sup>†</sup>`` markers, footnotes), a W&B /
Notion export (emoji headings, ``> [!NOTE]`` callouts, ``<details>`` toggles), a Quarto
``report.qmd`` (inline `` `r` `` chunks, a knitr pipe table, a pandoc simple table, callout
divs), a GitHub discussion comment with a task list, a Hugging Face card with a two-task
``model-index`` and its results inside ``<details>``, and a LaTeX ``table*`` with
``\\multicolumn``, ``\\bm{}``, ``\\underline{}`` and ``{\\scriptsize $\\pm$..}``. Each clean report
must audit with zero findings (with and without ``--strict``) and each plant must be caught by
check 10 at its line with its message, by a finding the clean report does not have. What the
audit does not do yet is ``xfail(strict=True)`` naming the defect. The fast tier audits the
first two plants of each report; ``pytest`` (CI) audits every plant.
"""

from __future__ import annotations

from tests.report_corpus import corpus, set_tests
from tests.report_corpus_fresh import fresh

NAMES = fresh.names()
# The fast tier audits the first two plants expected caught of each report (every layout, caught at
# least twice); its kinds of error are the wild set's, which the fast tier already covers one by one.
# `pytest` (CI) audits every plant.
FAST = [p for n in NAMES for p in [q for q in fresh.plants(n) if not q.xfail][:2]]

# test_clean_fresh_report_has_no_finding(_strict), test_fresh_plant_is_caught and their fixtures
globals().update(set_tests.tests(fresh.SET, "fresh", FAST))


def test_fresh_set_is_large_enough_and_over_its_own_studies():
    """Six reports, each with ten plants of distinct kinds, none over a study another set uses."""
    import json

    assert len(NAMES) >= 6
    ids = set()
    for n in NAMES:
        assert len({p.kind for p in fresh.plants(n)}) >= 10
        assert all(p.check == "10" for p in fresh.plants(n))
        spec = json.loads((fresh.HERE / n / "study.json").read_text())
        ids.add(spec["id"])
    corpus_ids = {json.loads((corpus.HERE / c / "study.json").read_text())["id"] for c in corpus.names()}
    assert len(ids) == len(NAMES) and not ids & corpus_ids
