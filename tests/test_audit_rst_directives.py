"""reStructuredText: pins (``:id:`X```, the reST form of Markdown's ``<!-- id: X -->``) and directives
docutils does not know (Sphinx's ``.. tab::``, ``.. tabs::``, sphinx-design's ``.. tab-set::``,
``.. dropdown::``, ...), whose content is read rather than dropped (README failure 15).

Before, a ``.. tab::`` block was one "part of the report not read" finding and none of its numbers
was checked, and a reST page had no way to pin a number to its analysis id.

Over the unseen set's rst study (GRPO and Dr. GRPO × seeds 1-6, n = 400; held-out accuracy means
GRPO 0.548, Dr. GRPO 0.570; Dr. GRPO − GRPO SURVIVES), in wordings of its own.
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

GRPO, DR = "arms.grpo.heldout_accuracy.mean", "arms.dr_grpo.heldout_accuracy.mean"


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    rep = unseen.build("rst_notes", tmp_path_factory.mktemp("rstdir"))
    (rep / "report.rst").unlink()
    return rep


def _findings(study, tmp_path, text: str, strict: bool = False) -> list[tuple[int, str]]:
    """(line, message) of each finding on ``notes.rst``, the study's only report."""
    res = corpus.audit_written(study, Path(tempfile.mkdtemp(dir=tmp_path)), {"notes.rst": text}, strict=strict)
    return [(int(f.location.rsplit(":", 1)[1]) if f.location[-1].isdigit() else 0, f.message) for f in res.findings]


# ---- pins ----------------------------------------------------------------------------------------

def test_a_pin_role_pins_the_number_before_it_declared_or_not():
    page = ("Held-out accuracy: GRPO 0.548 :id:`arms.grpo.heldout_accuracy.mean`, Dr. GRPO 0.570.\n\n"
            ".. role:: id\n\nThe SD of GRPO is 0.009 :id:`arms.grpo.heldout_accuracy.sd`.\n")
    f = parse_rst(page, "r.rst")
    assert [(m.text, m.line, m.pin) for m in f.mentions] == [
        ("0.548", 1, GRPO), ("0.570", 1, None), ("0.009", 5, "arms.grpo.heldout_accuracy.sd")]
    assert "arms" not in f.lines[0] and "0.548" in f.lines[0]   # the line readers do not see the id


LIST_PINNED = """.. list-table:: Held-out accuracy by arm
   :header-rows: 1

   * - Method
     - Mean
   * - GRPO
     - {grpo}
   * - Dr. GRPO
     - {dr}
"""


def test_right_pins_in_prose_and_a_list_table_audit_clean(study, tmp_path):
    page = (f"Across six seeds GRPO reached 0.548 :id:`{GRPO}` held-out accuracy.\n\n"
            + LIST_PINNED.format(grpo=f"0.548 :id:`{GRPO}`", dr=f"0.570 :id:`{DR}`"))
    assert _findings(study, tmp_path, page, strict=True) == []


def test_a_pin_contradicting_its_row_is_an_error(study, tmp_path):
    """Swapped cells with their pins swapped too: the pin must not silently override the row."""
    page = LIST_PINNED.format(grpo=f"0.570 :id:`{DR}`", dr=f"0.548 :id:`{GRPO}`")
    got = _findings(study, tmp_path, page)
    assert [ln for ln, _ in got] == [7, 9] and all(msg.startswith("pin contradicts its context") for _, msg in got)


def test_a_pin_naming_no_value_is_an_error(study, tmp_path):
    page = "GRPO's held-out accuracy averaged 0.548 :id:`arms.grpo.heldout_acc.mean`.\n"
    assert _findings(study, tmp_path, page) == [(1, "pinned id names no value of the analysis, a manifest or the lock")]


# ---- directives docutils does not know -----------------------------------------------------------

TABS = """Per-arm notes
=============

.. tabs::

   .. tab:: GRPO

      GRPO's mean held-out accuracy is {grpo}.

   .. tab:: Dr. GRPO

      Dr. GRPO's mean held-out accuracy is 0.570; its verdict is {verdict}.
"""
DESIGN = """Per-arm notes
=============

.. tab-set::

   .. tab-item:: Dr. GRPO
      :sync: dr

      Dr. GRPO's mean held-out accuracy is {dr}.

.. dropdown:: Spread over seeds
   :open:

   GRPO's held-out accuracy SD is 0.009.
"""


def test_the_content_of_sphinx_tabs_is_read_and_clean_when_right(study, tmp_path):
    assert _findings(study, tmp_path, TABS.format(grpo="0.548", verdict="SURVIVES")) == []
    assert _findings(study, tmp_path, DESIGN.format(dr="0.570")) == []


def test_a_wrong_number_or_verdict_in_a_tab_is_an_error_at_its_line(study, tmp_path):
    got = _findings(study, tmp_path, TABS.format(grpo="0.584", verdict="DISAPPEARS"))
    assert [ln for ln, _ in got] == [8, 12], got
    assert "0.584 written" in got[0][1] and got[1][1].startswith("verdict word DISAPPEARS contradicts")
    got = _findings(study, tmp_path, DESIGN.format(dr="0.507"))
    assert [ln for ln, _ in got] == [9] and "0.507 written" in got[0][1]


def test_an_unknown_directive_holding_code_is_counted_in_code():
    page = ".. ipython::\n\n   In [1]: acc = 0.548\n\nGRPO reached 0.548.\n"
    f = parse_rst(page, "r.rst")
    assert [(m.text, m.line, m.in_code) for m in f.mentions] == [("1", 3, True), ("0.548", 3, True), ("0.548", 5, False)]
    assert f.lines[2].strip() == "" and f.problems == []


def test_a_block_docutils_drops_is_still_a_finding(study, tmp_path):
    """A malformed grid table: docutils drops it, so none of its numbers could be checked."""
    page = "Notes\n=====\n\n+------+-------+\n| GRPO | 0.999 |\n+------+----+\n"
    got = _findings(study, tmp_path, page)
    assert [msg for _, msg in got] == ["part of the report not read: none of its numbers is checked"]
