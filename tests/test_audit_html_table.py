"""Raw HTML tables with rowspan/colspan, read as the grid a browser renders (README failure 15).

Before ``audit.html_table`` a raw ``<table>`` was read cell by cell with its first row as the only
header: a value under a ``colspan`` header had no column (or the wrong one) and a row beside a
``rowspan`` label had no row label, so its cells were value-only or checked against the wrong value.
"""

from __future__ import annotations

import pytest

from audit.html_table import Cell, expand, read_table
from audit.numbers import parse_markdown
from audit.sources import SourceIndex
from audit.trace import trace_mention

ARMS = ["grpo", "gspo"]

GROUPED = """<table>
  <thead>
    <tr><th rowspan="2">Arm</th><th colspan="2">Held-out accuracy (n=500)</th><th>ZVF</th></tr>
    <tr><th>mean</th><th>sd</th><th>mean</th></tr>
  </thead>
  <tbody>
    <tr><td>GRPO</td><td>0.5773</td><td>0.0061</td><td>0.412</td></tr>
    <tr><td>GSPO</td><td>0.6134</td><td>0.0104</td><td>0.388</td></tr>
  </tbody>
</table>
"""

SEEDS = """<table>
  <tr><th>Arm</th><th>Seed</th><th>Accuracy</th></tr>
  <tr><td rowspan="2">GSPO</td><td>1</td><td>0.604</td></tr>
  <tr><td>2</td><td>0.620</td></tr>
  <tr><td colspan="2">GRPO, seed 1</td><td>0.576</td></tr>
</table>
"""


def index() -> SourceIndex:
    idx = SourceIndex(ARMS)
    for arm, mean, sd, zvf in (("grpo", 0.5773, 0.0061, 0.412), ("gspo", 0.6134, 0.0104, 0.388)):
        idx.add(f"arms.{arm}.heldout_accuracy.mean", mean, "fraction")
        idx.add(f"arms.{arm}.heldout_accuracy.sd", sd, "fraction")
        idx.add(f"arms.{arm}.zvf_mean", zvf, "fraction")
    idx.add("runs.gspo.s1.heldout_accuracy", 0.604, "fraction")
    idx.add("runs.gspo.s2.heldout_accuracy", 0.620, "fraction")
    idx.add("runs.grpo.s1.heldout_accuracy", 0.576, "fraction")
    return idx


def traced(text: str) -> list[tuple[str, str, str]]:
    """(number, status, source id) of every table value of ``text``."""
    idx = index()
    out = []
    for m in parse_markdown("r.md", text, "r.md").mentions:
        if m.kind == "table" and m.status_hint == "value":
            t = trace_mention(idx, m, ARMS)
            out.append((m.text, t.status, t.sources[0].id if t.sources else ""))
    return out


def test_two_header_rows_name_each_column_and_a_colspan_header_heads_each_column_it_spans():
    t = read_table(GROUPED, 1, (), "")
    assert t.columns == ["Arm", "Held-out accuracy (n=500) mean", "Held-out accuracy (n=500) sd", "ZVF mean"]
    assert [(c.text, c.kind) for c in t.rows[1][2]] == [("GSPO", "cell"), ("0.6134", "cell"), ("0.0104", "cell"),
                                                         ("0.388", "cell")]


def test_grouped_header_cells_trace_to_the_value_their_columns_name():
    assert traced(GROUPED) == [
        ("0.5773", "traced", "arms.grpo.heldout_accuracy.mean"), ("0.0061", "traced", "arms.grpo.heldout_accuracy.sd"),
        ("0.412", "traced", "arms.grpo.zvf_mean"),
        ("0.6134", "traced", "arms.gspo.heldout_accuracy.mean"), ("0.0104", "traced", "arms.gspo.heldout_accuracy.sd"),
        ("0.388", "traced", "arms.gspo.zvf_mean")]


def test_swapped_cells_under_a_colspan_header_are_errors():
    bad = GROUPED.replace("<td>0.6134</td><td>0.0104</td>", "<td>0.0104</td><td>0.6134</td>")
    rows = [r for r in traced(bad) if r[0] in ("0.0104", "0.6134")]
    assert rows == [("0.0104", "error", "arms.gspo.heldout_accuracy.mean"),
                    ("0.6134", "error", "arms.gspo.heldout_accuracy.sd")]


def test_the_header_n_is_read_once_as_a_label():
    ms = parse_markdown("r.md", GROUPED, "r.md").mentions
    assert [(m.text, m.line, m.label_fact) for m in ms if m.status_hint == "label"] == [("500", 3, ("n", 500.0))]


def test_a_rowspan_label_names_each_row_it_spans_and_its_numbers_are_read_once():
    assert traced(SEEDS) == [("0.604", "traced", "runs.gspo.s1.heldout_accuracy"),
                             ("0.620", "traced", "runs.gspo.s2.heldout_accuracy"),
                             ("0.576", "traced", "runs.grpo.s1.heldout_accuracy")]
    assert [m.text for m in parse_markdown("r.md", SEEDS, "r.md").mentions].count("1") == 2   # seed 1 twice, not 3


def test_another_seeds_value_beside_a_rowspan_label_is_an_error():
    bad = SEEDS.replace("<td>2</td><td>0.620</td>", "<td>2</td><td>0.604</td>")
    assert traced(bad)[1] == ("0.604", "error", "runs.gspo.s2.heldout_accuracy")


def test_expansion_is_bounded_and_falls_back_to_prose():
    wide = "<table><tr>" + '<td colspan="1000">x</td>' * 20 + "</tr><tr><td>0.5</td></tr></table>"
    assert read_table(wide, 1, (), "") is None
    ms = parse_markdown("r.md", wide, "r.md").mentions
    assert [(m.text, m.kind) for m in ms] == [("0.5", "prose")]


@pytest.mark.parametrize("spans, grid", [
    ([[("a", 2, 1), ("b", 1, 1)], [("c", 1, 1)]], [["a", "b"], ["a", "c"]]),
    ([[("a", 1, 3)], [("b", 1, 1), ("c", 1, 2)]], [["a", "a", "a"], ["b", "c", "c"]]),
    ([[("a", 1, 1), ("b", 3, 1)], [("c", 1, 1)], [("d", 1, 1)]], [["a", "b"], ["c", "b"], ["d", "b"]]),
])
def test_grid_expansion(spans, grid):
    rows = [[Cell(t, False, rs, cs, 0) for t, rs, cs in r] for r in spans]
    assert [[s.cell.text for s in r] for r in expand(rows, 100)] == grid


PINNED = """<table>
  <tr><th>Arm</th><th>Accuracy</th></tr>
  <tr><td>GSPO</td><td>0.6134<!-- id: arms.gspo.heldout_accuracy.mean --> <!-- seed mean, was 0.61 --></td></tr>
  <tr><td>GRPO</td><td>
    0.5773<!-- id: arms.grpo.heldout_accuracy.mean --></td></tr>
</table>
"""


def test_a_pin_in_an_html_cell_is_checked_against_its_row():
    ms = parse_markdown("r.md", PINNED, "r.md").mentions
    assert [(m.text, m.line, m.pin, m.status_hint) for m in ms] == [
        ("0.6134", 3, "arms.gspo.heldout_accuracy.mean", "value"), ("0.61", 3, None, "comment"),
        ("0.5773", 5, "arms.grpo.heldout_accuracy.mean", "value")]
    assert traced(PINNED) == [("0.6134", "traced", "arms.gspo.heldout_accuracy.mean"),
                              ("0.5773", "traced", "arms.grpo.heldout_accuracy.mean")]
    bad = PINNED.replace("0.6134<!-- id: arms.gspo.", "0.5773<!-- id: arms.grpo.")
    idx = index()
    (m,) = [m for m in parse_markdown("r.md", bad, "r.md").mentions if m.line == 3 and m.pin]
    t = trace_mention(idx, m, ARMS)
    assert t.status == "error" and "pin contradicts its context" in t.message


STRAY = """<table>
  <caption>Held-out accuracy, mean of 8 seeds</caption>
  <tr><th>Arm</th><th>Accuracy</th></tr>
  <!-- checked 0.61 by hand -->
  <tr><td>GSPO</td><td>0.6134</td></tr>
  note: GRPO is the baseline, 0.99 of runs finished
  <tr><td>GRPO</td><td>0.5773</td></tr>
</table>
"""


def test_text_outside_the_cells_is_prose_and_the_table_stays_a_grid():
    """Text between rows (a browser shows it above the table), a caption and a comment outside the
    cells no longer send the block to the prose reader: the cells keep their row and column (a
    swapped cell is an error against its row's value), the stray text is prose, the caption is the
    table's caption and prose, the comment's numbers are comments."""
    ms = parse_markdown("r.md", STRAY, "r.md").mentions
    assert [(m.text, m.kind, m.status_hint, m.line) for m in ms] == [
        ("8", "prose", "value", 2), ("0.61", "prose", "comment", 4), ("0.99", "prose", "value", 6),
        ("0.6134", "table", "value", 5), ("0.5773", "table", "value", 7)]
    assert {m.table_caption for m in ms if m.kind == "table"} == {"Held-out accuracy, mean of 8 seeds"}
    assert traced(STRAY) == [("0.6134", "traced", "arms.gspo.heldout_accuracy.mean"),
                             ("0.5773", "traced", "arms.grpo.heldout_accuracy.mean")]
    swapped = STRAY.replace("<td>0.6134</td>", "<td>0.5773</td>")
    assert traced(swapped)[0] == ("0.5773", "error", "arms.gspo.heldout_accuracy.mean")
    stray = "<table><tr><td>GSPO</td><td>0.6134</td></tr> 0.99 </table>"
    assert [(m.text, m.kind) for m in parse_markdown("r.md", stray, "r.md").mentions] == [
        ("0.99", "prose"), ("0.6134", "table")]


def test_two_tables_in_one_html_block_are_two_grids():
    """Two tables with no blank line between them are one HTML block: each is read as its own grid
    (a swapped cell in the second is an error against its row), the text between them is prose; a
    table nested in a cell is its own grid (tests/test_audit_html_nested.py), one nested two deep
    falls back to the prose reader."""
    two = GROUPED.rstrip("\n") + "\n<p>Per seed:</p>\n" + SEEDS
    got = traced(two)
    assert got[-3:] == [("0.604", "traced", "runs.gspo.s1.heldout_accuracy"),
                        ("0.620", "traced", "runs.gspo.s2.heldout_accuracy"),
                        ("0.576", "traced", "runs.grpo.s1.heldout_accuracy")]
    assert got[0] == ("0.5773", "traced", "arms.grpo.heldout_accuracy.mean")
    bad = two.replace("<td>2</td><td>0.620</td>", "<td>2</td><td>0.604</td>")
    assert traced(bad)[-2] == ("0.604", "error", "runs.gspo.s2.heldout_accuracy")
    nested = "<table><tr><td>GSPO</td><td><table><tr><td>0.6134</td></tr></table></td></tr></table>"
    assert [(m.text, m.kind, m.row) for m in parse_markdown("r.md", nested, "r.md").mentions] == [("0.6134", "table",
                                                                                                   "GSPO")]
    deep = nested.replace("<td>0.6134</td>", "<td><table><tr><td>0.6134</td></tr></table></td>")
    assert [(m.text, m.kind) for m in parse_markdown("r.md", deep, "r.md").mentions] == [("0.6134", "prose")]
