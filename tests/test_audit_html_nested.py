"""A table nested in an HTML table cell is read as its own grid (README failure 15).

Model cards put a small table in a cell ("| GSPO | <table> mean | 95% CI ... </table> |"). The
nested table is read as a grid under the outer cell's row label and column name, its numbers once
(never again in the outer cell); a table nested two deep is left to the prose reader, which still
reads and counts every number. Over the five-arm study of ``tests/report_corpus/`` (GSPO 0.650,
Dr. GRPO 0.631, GRPO 0.632 held-out accuracy; GSPO's 95% CI [0.647, 0.652]), each clean text audits
clean and each planted error is the finding that names it.
"""

from __future__ import annotations

import shutil

import pytest

from audit import check
from audit.html_table import read_html
from tests.report_corpus import corpus

# only the report differs from test to test: check 9 recomputes each study once (conftest)
pytestmark = pytest.mark.usefixtures("shared_recompute")


@pytest.fixture(scope="module")
def five_arms(tmp_path_factory):
    return corpus.build("prose_results", tmp_path_factory.mktemp("prose") / "s")


def _audit(study, tmp_path, text: str):
    shutil.copytree(study.parent, tmp_path / "s")
    rep = tmp_path / "s" / study.name
    for f in rep.glob("*.md"):
        f.unlink()
    (rep / "report.md").write_text(HEAD + text)
    return check(rep)


def _errors(res):
    return [(f.location.rsplit("/", 1)[-1], f.message) for f in res.findings]


def _block(res):
    """(text, status, kind, column) of every number below the report's head."""
    return [(r.text, r.status, r.kind, r.column) for r in res.numbers if int(r.location.rsplit(":", 1)[1]) > 4]


HEAD = "# Results\n\nEight seeds per arm, 500 held-out problems.\n\n"
CI = """<table>
<tr><th>Arm</th><th>Held-out accuracy</th></tr>
<tr><td>GSPO</td><td>
<table>
<tr><th>mean</th><th>95% CI</th></tr>
<tr><td>{g}</td><td>{ci}</td></tr>
</table>
</td></tr>
<tr><td>Dr. GRPO</td><td>0.631</td></tr>
</table>
"""


def test_a_nested_table_is_a_grid_under_its_outer_row_and_column(five_arms, tmp_path):
    """GSPO's cell holds 'mean | 95% CI' over '0.650 | [0.647, 0.652]': each number is read once, as a
    table value under row 'GSPO Held-out accuracy' and its own column, and traced; a last-digit change
    of the nested mean and swapped interval ends are findings naming that row and column."""
    res = _audit(five_arms, tmp_path / "a", CI.format(g="0.650", ci="[0.647, 0.652]"))
    assert _errors(res) == []
    assert _block(res) == [("95%", "label", "heading", "95% CI"), ("0.650", "traced", "table", "mean"),
                           ("0.647", "traced", "table", "95% CI"), ("0.652", "traced", "table", "95% CI"),
                           ("0.631", "traced", "table", "Held-out accuracy")]
    got = _errors(_audit(five_arms, tmp_path / "b", CI.format(g="0.660", ci="[0.647, 0.652]")))
    assert got == [("report.md:10", "row 'GSPO Held-out accuracy', column 'mean': 0.660 written, the locked analysis "
                    "gives 0.650 (arms.gspo.heldout_accuracy.mean = 0.64975): number does not equal its source "
                    "rounded to the digits shown")], got
    got = _errors(_audit(five_arms, tmp_path / "c", CI.format(g="0.650", ci="[0.652, 0.647]")))
    assert ("report.md:10", "interval with swapped ends") in got, got


ARMS = """<table>
<tr><th>Metric</th><th>Arms</th></tr>
<tr><td>Held-out accuracy</td><td>
<table>
<tr><th>GSPO</th><th>Dr. GRPO</th><th>GRPO</th></tr>
<tr><td>{a}</td><td>{b}</td><td>0.632</td></tr>
</table>
</td></tr>
</table>
"""


def test_swapped_cells_of_a_nested_table_are_caught(five_arms, tmp_path):
    """Arms as the nested table's columns: GSPO's and Dr. GRPO's values swapped is one finding per
    cell (read as prose, before, both equalled some arm's mean and passed)."""
    res = _audit(five_arms, tmp_path / "a", ARMS.format(a="0.650", b="0.631"))
    assert _errors(res) == []
    assert [s for _, s, _, _ in _block(res)] == ["traced"] * 3
    got = _errors(_audit(five_arms, tmp_path / "b", ARMS.format(a="0.631", b="0.650")))
    assert [(loc, m.split(":")[0]) for loc, m in got] == [
        ("report.md:10", "row 'Held-out accuracy Arms', column 'GSPO'"),
        ("report.md:10", "row 'Held-out accuracy Arms', column 'Dr. GRPO'")], got


DEEP = """<table>
<tr><th>Arm</th><th>Held-out accuracy</th></tr>
<tr><td>GSPO</td><td><table><tr><td><table><tr><th>mean</th></tr><tr><td>{g}</td></tr></table></td></tr></table></td></tr>
<tr><td>Dr. GRPO</td><td>0.631</td></tr>
</table>
"""


def test_a_table_nested_two_deep_is_read_as_prose_and_still_counted(five_arms, tmp_path):
    """Two levels of nesting: the block goes to the prose reader; its numbers are still each seen
    and counted once, and a wrong one is still a finding."""
    assert read_html(DEEP.format(g="0.650"), 1, (), "") is None
    res = _audit(five_arms, tmp_path / "a", DEEP.format(g="0.650"))
    assert _errors(res) == []
    assert _block(res) == [("0.650", "traced", "prose", ""), ("0.631", "traced", "prose", "")]
    got = _errors(_audit(five_arms, tmp_path / "b", DEEP.format(g="0.660")))
    assert len(got) == 1 and got[0][1].startswith("0.660 written, the locked analysis gives 0.650"), got


def test_an_open_nested_table_keeps_the_outer_rows():
    """A nested table never closed (nor its outer one): the outer table's rows are still read."""
    items = read_html("<table><tr><th>Arm</th><th>Acc</th></tr><tr><td>DAPO</td><td>0.64</td></tr><tr><td>GSPO</td>"
                      "<td><table><tr><th>mean</th></tr><tr><td>0.65</td></tr>", 1, (), "")
    assert [(t.scope, [[p.text for p in r[2]] for r in t.rows]) for t in items] == [
        (("GSPO", "Acc"), [["GSPO Acc", "0.65"]]), ((), [["DAPO", "0.64"], ["GSPO", ""]])]


NO_LABEL = """<table>
<tr><th>GSPO held-out accuracy</th><th>GSPO held-out accuracy 95% CI</th></tr>
<tr>
<td>{g}</td>
<td>[0.647, 0.652]</td>
</tr>
</table>
"""


def test_an_html_row_starting_with_a_value_is_no_label(five_arms, tmp_path):
    """An HTML row with no label column ('<td>0.650</td>' first, on its own line): its first number is
    a value, traced (it used to be taken for a row label, so a wrong value there passed)."""
    res = _audit(five_arms, tmp_path / "a", NO_LABEL.format(g="0.650"))
    assert _errors(res) == []
    assert ("0.650", "traced", "table", "GSPO held-out accuracy") in _block(res), _block(res)
    got = _errors(_audit(five_arms, tmp_path / "b", NO_LABEL.format(g="0.660")))
    assert len(got) == 1 and "0.660 written, the locked analysis gives 0.650" in got[0][1], got
