"""reStructuredText reports (README failure 15): read by docutils into the audit's document model
(audit/rst_doc.py, audit/rst_table.py), so a wrong number in any construct of a page is an error at
its .rst line and the right one is traced; numbers in literal blocks are "in code"; a page or block
docutils cannot read is a one-line finding, never a traceback or a silent pass.

Over the unseen set's rst study (GRPO and Dr. GRPO × seeds 1-6, n = 400), in wordings of its own.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from audit.numbers import parse_rst
from tests.report_corpus import corpus
from tests.report_corpus_unseen import unseen

# only the report differs from test to test: check 9 recomputes the study once (conftest)
pytestmark = pytest.mark.usefixtures("shared_recompute")


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    rep = unseen.build("rst_notes", tmp_path_factory.mktemp("rst"))
    (rep / "report.rst").unlink()
    return rep


def _audit(study, tmp_path, text: str, strict: bool = False):
    """Audit ``text`` as the study's only report, ``notes.rst`` (each call in a folder of its own)."""
    return corpus.audit_written(study, Path(tempfile.mkdtemp(dir=tmp_path)), {"notes.rst": text}, strict=strict)


def _findings(study, tmp_path, text: str, strict: bool = False) -> list[tuple[str, str, str]]:
    """(line, expected, message) of each finding of check 10 on ``notes.rst``."""
    res = _audit(study, tmp_path, text, strict)
    return [(f.location.rsplit(":", 1)[-1], f.expected, f.message) for f in res.findings]


TITLE = """Replication notes
=================

Dr. GRPO, seed 4
----------------

=============================  ========
Metric                         This run
=============================  ========
Held-out accuracy              0.5825
Zero-variance groups (share)   0.329
=============================  ========
"""
PARAGRAPH = """Across its six seeds the GRPO arm averaged 0.548 held-out accuracy, with a
standard deviation of 0.009.
"""
BULLETS = """Arm means on the held-out split:

* GRPO held-out accuracy 0.548
* Dr. GRPO held-out accuracy 0.570
"""
ENUMERATED = """#. Dr. GRPO held-out accuracy: 0.570
#. GRPO held-out accuracy: 0.548
"""
DEFINITIONS = """Dr. GRPO
   Mean held-out accuracy 0.570 (sd 0.010).

GRPO
   Mean held-out accuracy 0.548 (sd 0.009).
"""
GRID = """Held-out accuracy of each run:

+------+----------+----------+
| Seed | GRPO     | Dr. GRPO |
+======+==========+==========+
| 1    | 0.5425   | 0.5775   |
+------+----------+----------+
| 2    | 0.545    | 0.570    |
+------+----------+----------+
"""
SIMPLE = """Held-out accuracy:

========  ======  =====
Arm       Mean    SD
========  ======  =====
GRPO      0.548   0.009
Dr. GRPO  0.570   0.010
========  ======  =====
"""
LIST_TABLE = """.. list-table:: Held-out accuracy by arm (fraction correct)
   :header-rows: 1

   * - Method
     - Mean
     - SD
   * - GRPO
     - 0.548
     - 0.009
   * - Dr. GRPO
     - 0.570
     - 0.010
"""
CSV_TABLE = """.. csv-table:: Held-out accuracy by arm
   :header: "Method", "Mean", "SD"

   "GRPO", 0.548, 0.009
   "Dr. GRPO", 0.570, 0.010
"""
MATH = "The paired test of Dr. GRPO against GRPO gives :math:`p = 0.0061`.\n"
SUBSTITUTION = """Dr. GRPO reaches |acc| held-out accuracy.

.. |acc| replace:: 0.570
"""
FIELDS = """:Arms: GRPO and Dr. GRPO
:Dr. GRPO held-out accuracy: 0.570
"""
ADMONITION = """.. warning::

   GRPO's mean held-out accuracy is only 0.548.
"""
FOOTNOTE = """Dr. GRPO beats GRPO [#f]_.

.. [#f] Dr. GRPO's mean held-out accuracy is 0.570.
"""
PIECES = {"section-title-scope": (TITLE, "0.5825", "0.5925", "10", "runs.dr_grpo.s4.heldout_accuracy"),
          "paragraph": (PARAGRAPH, "0.548", "0.538", "1", "arms.grpo.heldout_accuracy.mean"),
          "bullet-list": (BULLETS, "0.570", "0.507", "4", "arms.dr_grpo.heldout_accuracy.mean"),
          "enumerated-list": (ENUMERATED, "0.548", "0.584", "2", "arms.grpo.heldout_accuracy.mean"),
          "definition-list": (DEFINITIONS, "(sd 0.009)", "(sd 0.090)", "5", "arms.grpo.heldout_accuracy.sd"),
          "grid-table": (GRID, "| 0.570    |", "| 0.575    |", "8", "runs.dr_grpo.s2.heldout_accuracy"),
          "simple-table": (SIMPLE, "0.570   0.010", "0.570   0.001", "7", "arms.dr_grpo.heldout_accuracy.sd"),
          "list-table": (LIST_TABLE, "- 0.548", "- 0.558", "8", "arms.grpo.heldout_accuracy.mean"),
          "csv-table": (CSV_TABLE, "0.570, 0.010", "0.577, 0.010", "5", "arms.dr_grpo.heldout_accuracy.mean"),
          "math-role": (MATH, "0.0061", "0.061", "1", "contrasts.dr_grpo-grpo.p"),
          "substitution": (SUBSTITUTION, ":: 0.570", ":: 0.750", "1", "arms.dr_grpo.heldout_accuracy.mean"),
          "field-list": (FIELDS, ": 0.570", ": 0.560", "2", "arms.dr_grpo.heldout_accuracy.mean"),
          "admonition": (ADMONITION, "0.548", "0.448", "3", "arms.grpo.heldout_accuracy.mean"),
          "footnote": (FOOTNOTE, "is 0.570", "is 0.670", "3", "arms.dr_grpo.heldout_accuracy.mean")}


@pytest.mark.parametrize("name", list(PIECES))
def test_right_numbers_in_each_construct_audit_clean(study, tmp_path, name):
    text = PIECES[name][0]
    assert _findings(study, tmp_path, text) == []
    res = _audit(study, tmp_path, text)
    assert res.passed


@pytest.mark.parametrize("name", list(PIECES))
def test_a_wrong_number_in_each_construct_is_an_error_at_its_rst_line(study, tmp_path, name):
    text, find, replace, line, source = PIECES[name]
    assert find in text
    found = _findings(study, tmp_path, text.replace(find, replace, 1))
    assert [f for f in found if f[0] == line and source in f[1]], found


def test_numbers_in_literal_blocks_are_counted_in_code():
    text = "Settings::\n\n   lr = 0.0031\n\n.. code-block:: python\n\n   beta = 0.77\n\nProse 0.5.\n"
    f = parse_rst(text, "r.rst")
    assert [(m.text, m.line, m.in_code) for m in f.mentions] == [
        ("0.0031", 3, True), ("0.77", 7, True), ("0.5", 9, False)]


def test_a_number_in_code_is_no_error_by_default_and_untraced_under_strict(study, tmp_path):
    text = "The config::\n\n   held_out_accuracy = 0.123456\n"
    assert _findings(study, tmp_path, text) == []
    strict = _findings(study, tmp_path, text, strict=True)
    assert [(ln, msg) for ln, _, msg in strict] == [("3", "number in code untraced (--strict)")]


def test_comments_and_citations_are_not_report_numbers(study, tmp_path):
    text = (".. The first draft said 0.999 here.\n\nGRPO's mean held-out accuracy is 0.548 [Liu2025]_.\n\n"
            ".. [Liu2025] Liu, Z. et al. (2025). Understanding R1-Zero-like training, vol. 3, p. 41.\n")
    f = parse_rst(text, "r.rst")
    assert [(m.text, m.status_hint, m.line) for m in f.mentions] == [
        ("0.999", "comment", 1), ("0.548", "value", 3), ("2025", "citation", 5), ("3", "citation", 5),
        ("41", "citation", 5)]
    assert _findings(study, tmp_path, text, strict=True) == []


def test_a_verdict_word_in_an_inline_literal_is_checked(study, tmp_path):
    text = "For Dr. GRPO against GRPO the preregistered rule says ``{}``.\n"
    assert _findings(study, tmp_path, text.format("SURVIVES")) == []
    assert [(ln, msg) for ln, _, msg in _findings(study, tmp_path, text.format("DISAPPEARS"))] == [
        ("1", "verdict word DISAPPEARS contradicts the analysis: dr_grpo-grpo is SURVIVES")]


def test_section_titles_of_any_adornment_scope_like_headings():
    text = "#####\nStudy\n#####\n\nArm one\n~~~~~~~\n\nx 0.1\n\nSub\n'''\n\ny 0.2\n\nArm two\n~~~~~~~\n\nz 0.3\n"
    f = parse_rst(text, "r.rst")
    assert [(m.text, m.line, m.scope) for m in f.mentions] == [
        ("0.1", 8, ("Study", "Arm one")), ("0.2", 13, ("Study", "Arm one", "Sub")), ("0.3", 18, ("Study", "Arm two"))]
    assert f.heading_scopes == [(2, ("Study",)), (5, ("Study", "Arm one")), (10, ("Study", "Arm one", "Sub")),
                                (15, ("Study", "Arm two"))]


def test_an_unknown_directives_content_is_read(study, tmp_path):
    """A directive docutils does not know (an extension's) is read as reST, not dropped: a wrong number
    in it is an error at its line, the right one is clean (tests/test_audit_rst_directives.py: Sphinx tabs)."""
    text = "Intro.\n\n.. results-box::\n\n   GRPO's mean held-out accuracy is {}.\n"
    res = _audit(study, tmp_path, text.format("0.999"))
    assert [(f.check, f.location.rsplit("/", 1)[-1], f.expected) for f in res.findings] == [
        ("10", "notes.rst:5", "0.548 (arms.grpo.heldout_accuracy.mean = 0.548333333333)")]
    assert _findings(study, tmp_path, text.format("0.548")) == []


def test_a_page_docutils_cannot_parse_is_one_finding_and_no_traceback(study, tmp_path, capsys):
    """400 nested lists exhaust docutils' recursion: one finding naming the file; the CLI exits 1 (a
    finding), prints no traceback and writes nothing but its report. The CLI runs in-process (its
    ``main``: an exception that escapes fails the test, as a traceback would); the subprocess CLI
    checks are ``slow`` (``tests/test_audit_review_reports.py``, ``tests/test_audit_cli.py``)."""
    from audit.cli import main as audit_main

    deep = "".join("  " * i + "- x\n\n" for i in range(400)) + "GRPO 0.999\n"
    folder = tmp_path / "a"
    res = corpus.audit_written(study, folder, {"notes.rst": deep})
    assert [(f.location.rsplit("/", 1)[-1], f.message) for f in res.findings] == [
        ("notes.rst", "part of the report not read: none of its numbers is checked")]
    rep = folder / "s" / study.name
    before = sorted(p.name for p in rep.parent.rglob("*"))
    capsys.readouterr()
    rc = audit_main(["check", str(rep), "--only", "10"])
    out, err = capsys.readouterr()
    assert rc == 1, err
    assert "Traceback" not in err + out and "docutils could not parse" in out
    assert sorted(p.name for p in rep.parent.rglob("*")) == before


def test_other_unread_formats_stay_findings(study, tmp_path):
    res = corpus.audit_written(study, tmp_path, {"notes.org": "* Results\nGRPO 0.999\n",
                                                 "notes.rst": PARAGRAPH})
    assert [(f.location.rsplit("/", 1)[-1], f.found) for f in res.findings] == [("notes.org", "Org mode (.org)")]


# Readings the rst_notes page needed once it was read (its Markdown transcription had the same false
# alarms and miss): each with a clean and a firing case, in wordings of their own.

UNIT_FREE = """Per-seed held-out accuracy
--------------------------

+------+-------+----------+
| Seed | GRPO  | Dr. GRPO |
+======+=======+==========+
| 1    | 54.25 | 57.75    |
+------+-------+----------+
| 2    | 54.50 | 57.00    |
+------+-------+----------+
"""


def test_a_table_stating_no_unit_written_in_percent_throughout_is_percent(study, tmp_path):
    assert _findings(study, tmp_path, UNIT_FREE) == []
    found = _findings(study, tmp_path, UNIT_FREE.replace("| 54.50 |", "| 54.05 |"))
    assert [(ln, exp) for ln, exp, _ in found] == [("9", "54.50% (runs.grpo.s2.heldout_accuracy = 0.545)")], found


def test_one_percent_in_a_table_of_fractions_stays_a_unit_mix_up(study, tmp_path):
    fractions = UNIT_FREE.replace("54.25", "0.543").replace("57.75", "0.578").replace("54.50", "0.545") \
        .replace("57.00", "0.570")
    assert _findings(study, tmp_path, fractions) == []
    found = _findings(study, tmp_path, fractions.replace("| 0.570    ", "| 57.00    "))
    assert [(ln, msg.split(" (")[0]) for ln, _, msg in found] == [
        ("9", "a percentage written where the unit is a fraction")], found


def test_the_same_in_markdown(study, tmp_path):
    md = "| Seed | GRPO | Dr. GRPO |\n|---|---|---|\n| 1 | 54.25 | 57.75 |\n| 2 | 54.50 | 57.00 |\n"
    assert corpus.audit_written(study, tmp_path / "a", {"r.md": md}).findings == []
    bad = corpus.audit_written(study, tmp_path / "b", {"r.md": md.replace("57.00", "57.50")}).findings
    assert [f.location.rsplit(":", 1)[-1] for f in bad] == ["4"]


SEED_GAP = "Dr. GRPO trails nowhere; seed 2 is the closest, where the margin is under 3 points ({}).\n"


def test_a_difference_in_a_sentence_naming_one_seed_may_be_that_seeds(study, tmp_path):
    """runs.dr_grpo.s2 − runs.grpo.s2 = 0.570 − 0.545: 2.50 points, in parentheses after "3 points"."""
    assert _findings(study, tmp_path, SEED_GAP.format("2.50")) == []
    found = _findings(study, tmp_path, SEED_GAP.format("2.05"))
    assert [ln for ln, _, _ in found] == ["1"] and "contrasts.dr_grpo-grpo.diff_mean" in found[0][1], found


def test_a_seed_named_before_a_comparison_word_is_not_compared(study, tmp_path):
    text = "Only on seed {} is the margin below 3 points.\n"
    assert _findings(study, tmp_path, text.format(2)) == []
    wrong = "The first mean (0.548) is above the second (0.570).\n"
    assert any("'above than'" in msg for _, _, msg in _findings(study, tmp_path, wrong))


def test_a_seed_range_in_parentheses_after_a_seed_count_is_checked(study, tmp_path):
    text = "Both methods ran six seeds apiece ({}) on 400 held-out problems.\n"
    assert _findings(study, tmp_path, text.format("1 to 6")) == []
    found = _findings(study, tmp_path, text.format("0 to 5"))
    assert [(ln, msg) for ln, _, msg in found] == [
        ("1", "seed range names 0, not registered (lock.seeds = [1, 2, 3, 4, 5, 6])")], found


def test_a_dropped_block_that_can_hide_no_number_is_no_finding(study, tmp_path):
    """A Sphinx ``toctree`` (unknown to docutils) lists page names: nothing a number or verdict could be in."""
    toc = ".. toctree::\n   :maxdepth: 2\n\n   intro\n   results\n\n" + PARAGRAPH
    assert _findings(study, tmp_path, toc) == []
    tab = ".. tab:: Dr. GRPO\n\n   verdict SURVIVES\n\n" + PARAGRAPH   # read since the tab is read (and right)
    assert _findings(study, tmp_path, tab) == []


def test_the_line_readers_see_rst_emphasis_dropped_and_starred_values_kept():
    f = parse_rst("Dr. GRPO leads by **+2.21 points**; GSPO 0.631*, DAPO 0.640* and *em*.\n", "r.rst")
    assert f.lines == ["Dr. GRPO leads by +2.21 points; GSPO 0.631*, DAPO 0.640* and em."]


def test_a_ci_level_with_the_method_between_is_a_parameter_in_markdown_too(study, tmp_path):
    """"95% bootstrap CI" after a bold difference: the level is no value, so the interval stays the
    difference's (it was read as Dr. GRPO's mean CI in Markdown, where the line readers see the `**`)."""
    md = "Dr. GRPO leads by **+2.21 points** (95% percentile interval {} to 3.04).\n"
    assert corpus.audit_written(study, tmp_path / "a", {"r.md": md.format("1.33")}).findings == []
    bad = corpus.audit_written(study, tmp_path / "b", {"r.md": md.format("1.53")}).findings
    assert [(f.location.rsplit(":", 1)[-1], f.expected) for f in bad] == [
        ("1", "1.33% (contrasts.dr_grpo-grpo.ci95.low = 0.0133333333333)")], [f.message for f in bad]
