"""Report number extraction and tracing: rounding intervals, units, context, pins."""

from __future__ import annotations

import pytest

from audit.numbers import parse_latex, parse_markdown
from audit.sources import SourceIndex
from audit.trace import swapped_intervals, trace_mention

ARMS = ["grpo", "gspo", "dr_grpo"]


def md(text):
    return parse_markdown("r.md", text, "r.md").mentions


def index():
    idx = SourceIndex(ARMS)
    idx.add("arms.gspo.heldout_accuracy.mean", 0.6134, "fraction")
    idx.add("arms.grpo.heldout_accuracy.mean", 0.5821, "fraction")
    idx.add("arms.gspo.heldout_accuracy.mean.ci95.low", 0.58, "fraction")
    idx.add("arms.gspo.heldout_accuracy.mean.ci95.high", 0.641, "fraction")
    idx.add("contrasts.dr_grpo-grpo.diff_mean", -0.012, "difference")
    idx.add("lock.dataset.heldout_n", 1077, "other")
    idx.add("manifest.gspo.s37.heldout_correct", 331, "count")
    return idx


def trace_all(text):
    idx = index()
    return [(m, trace_mention(idx, m, ARMS)) for m in md(text)]


def test_rounding_interval_is_what_the_digits_allow():
    (m,) = md("accuracy 0.61 overall")
    lo, hi = m.bounds
    assert lo == pytest.approx(0.605) and hi == pytest.approx(0.615)
    (n,) = md("n = 1,078 items")
    assert n.value == 1078 and n.bounds[0] == pytest.approx(1077.5)
    (e,) = md("lr 1e-06 here")
    assert e.value == pytest.approx(1e-6) and e.half_width == pytest.approx(5e-7)


def test_identifiers_dates_versions_are_not_numbers_and_code_is_counted_as_code():
    (code,) = md("Qwen3-8B on GSM8K, seed s37, H1, 2026-01-01, torch 2.13.0, `x = 0.5`")
    assert code.text == "0.5" and code.in_code and code.status_hint == "code"


def test_dotted_section_numbers_and_numbers_past_a_double_do_not_stop_the_parse():
    # "Section 3.2.1" and "version 1.2.3" were read as one float and raised ValueError; "1e400"
    # raised OverflowError: either stopped `audit check` with a traceback.
    (acc,) = md("See Section 3.2.1 and version 1.2.3: accuracy 0.61.")   # dotted numbers are no values
    assert acc.value == 0.61 and acc.status_hint == "value"
    sec, acc = md("Section 3 gives 0.61.")
    assert (sec.status_hint, sec.label_fact, acc.status_hint) == ("label", None, "value")
    assert [m.value for m in md("GSPO 0.61, a bound of 1e400 and 1e-400")] == [0.61, 0.0]


def test_interval_ends_percent_sign_and_plus_minus():
    ms = md("GSPO 61.3% [58.0%, 64.1%], 0.61 ± 0.02")
    assert [(m.text, m.percent, m.role) for m in ms] == [
        ("61.3%", True, None), ("58.0%", True, "low"), ("64.1%", True, "high"), ("0.61", False, None),
        ("0.02", False, "pm")]


def test_context_names_the_source_and_a_match_elsewhere_is_still_an_error():
    text = ("| Arm | Held-out accuracy |\n|---|---|\n| GSPO | 0.613 |\n| GRPO | 0.613 |\n")
    (a, ta), (b, tb) = trace_all(text)
    assert ta.status == "traced" and ta.sources[0].id == "arms.gspo.heldout_accuracy.mean"
    assert tb.status == "error" and "arms.gspo.heldout_accuracy.mean" in tb.message


def test_last_digit_off_by_one_is_an_error():
    (_, t) = trace_all("| Arm | Held-out accuracy |\n|---|---|\n| GSPO | 0.614 |\n")[0]
    assert t.status == "error" and t.expected.startswith("0.613")


def test_percent_column_and_fraction_written_in_it():
    rows = trace_all("| Arm | Accuracy (%) |\n|---|---|\n| GSPO | 61.3 |\n| GRPO | 0.582 |\n")
    assert rows[0][1].status == "traced"
    assert rows[1][1].status == "error" and "fraction written where the column says percent" in rows[1][1].message


def test_percentage_written_where_unit_is_fraction():
    (_, t) = trace_all("| Arm | Accuracy (fraction) |\n|---|---|\n| GSPO | 61.3 |\n")[0]
    assert t.status == "error" and "percentage written" in t.message


def test_contrast_rows_with_unicode_minus_and_two_word_arm():
    (_, t) = trace_all("| Comparison | Δ accuracy (pp) |\n|---|---|\n| Dr. GRPO − GRPO | −1.2 |\n")[0]
    assert t.status == "traced" and t.sources[0].id == "contrasts.dr_grpo-grpo.diff_mean"


def test_interval_cell_checks_each_end_and_swapped_ends_are_found():
    rows = [r for r in trace_all("| Arm | 95% CI |\n|---|---|\n| GSPO | [0.641, 0.580] |\n") if r[0].kind == "table"]
    assert len(rows) == 2 and all(t.status == "error" for _, t in rows)
    assert len(swapped_intervals([m for m, _ in rows])) == 1


def test_pin_overrides_context_and_unknown_pin_is_an_error():
    rows = trace_all("Held-out n was 1,077<!-- id: lock.dataset.heldout_n --> and 1,078<!-- id: lock.dataset.heldout_n -->;"
                     " also 3<!-- id: no.such.value -->.")
    assert [t.status for _, t in rows] == ["traced", "error", "error"]
    assert "names no value" in rows[2][1].message


def test_prose_numbers_trace_by_value_or_stay_untraced():
    rows = trace_all("GSPO reached 61.3% and 0.7777 of something, with 331 correct.")
    assert [t.status for _, t in rows] == ["traced", "untraced", "traced"]


def test_integer_does_not_trace_to_a_fraction():
    (_, t) = trace_all("We ran 1 study.")[0]
    assert t.status == "untraced"


def test_latex_macros_with_id_comment_and_tabular_context():
    tex = ("\\newcommand{\\GspoAcc}{0.613} % id: arms.gspo.heldout_accuracy.mean\n"
           "\\newcommand{\\GspoHeldoutAccuracyMean}{0.612}\n"
           "\\begin{tabular}{lr}\n\\toprule\nArm & Accuracy (\\%) \\\\\n\\midrule\nGSPO & 61.3 \\\\\n"
           "GRPO & 61.3 \\\\\n\\bottomrule\n\\end{tabular}\n")
    ms = parse_latex("r.tex", tex, "r.tex").mentions
    idx = index()
    got = [(m.text, trace_mention(idx, m, ARMS).status) for m in ms]
    assert got == [("0.613", "traced"), ("0.612", "error"), ("61.3", "traced"), ("61.3", "error")]


# ---- count scales: a count of its maximum vs the fraction or percent it would be
def scaled_index():
    from audit.sources import attach_scales

    idx = index()
    idx.add("runs.gspo.s37.heldout_correct", 32, "count")
    idx.add("runs.gspo.s37.heldout_n", 50, "items")
    idx.add("runs.gspo.s37.heldout_accuracy", 0.64, "fraction")
    idx.add("manifest.gspo.s11.groups_correct.mean", 2.75, "count", origin="trace", max=4)
    attach_scales(idx)
    return idx


def trace_scaled(text):
    idx = scaled_index()
    return [(m, trace_mention(idx, m, ARMS)) for m in md(text)]


def test_count_sources_carry_their_maximum_and_fractions_their_count():
    idx = scaled_index()
    assert idx.by_id["runs.gspo.s37.heldout_correct"].as_fraction() == pytest.approx(0.64)
    assert idx.by_id["runs.gspo.s37.heldout_accuracy"].as_count() == pytest.approx(32)
    assert idx.by_id["manifest.gspo.s11.groups_correct.mean"].as_fraction() == pytest.approx(0.6875)
    assert idx.by_id["manifest.gspo.s37.heldout_correct"].max is None   # no sibling n: no scale claimed


TABLE = "| Arm | Seed | Held-out correct (count) | Held-out accuracy (fraction) |\n|---|---|---|---|\n"


@pytest.mark.parametrize("cells, column, message, expected", [
    ("32 | 0.640", None, None, None),
    ("0.640 | 0.640", "count", "count quoted as fraction", "32"),
    ("64% | 0.640", "count", "count quoted as percent", "32"),
    ("64.0 | 0.640", "count", "count quoted as percent", "32"),
    ("32 | 32", "fraction", "fraction quoted as count", "0.640"),
])
def test_count_and_fraction_columns_name_the_mix_up(cells, column, message, expected):
    rows = [(m, t) for m, t in trace_scaled(TABLE + f"| GSPO | seed 37 | {cells} |\n") if m.kind == "table"
            and m.column and "(" in m.column]
    bad = [(m, t) for m, t in rows if t.status != "traced"]
    if message is None:
        assert bad == [] and len(rows) == 2
        return
    assert len(bad) == 1
    m, t = bad[0]
    assert m.scale == column and t.status == "error"
    assert t.message.startswith(f"unit mix-up: {message}") and t.expected.startswith(expected)


def last_cell(text):
    return trace_scaled(text)[-1]


def test_percent_column_holding_a_count():
    (_, t) = last_cell("| Arm | Seed | Held-out accuracy (%) |\n|---|---|---|\n| GSPO | seed 37 | 32 |\n")
    assert t.status == "error" and "fraction quoted as count" in t.message and t.expected.startswith("64.0%")


def test_column_naming_one_scale_holding_a_value_of_the_other_that_context_traces():
    (_, t) = last_cell("| Arm | Seed | Held-out correct (fraction) |\n|---|---|---|\n| GSPO | seed 37 | 32 |\n")
    assert t.status == "error" and "fraction quoted as count" in t.message and t.expected.startswith("0.640")
    (_, t) = last_cell("| Arm | Seed | Held-out accuracy (count) |\n|---|---|---|\n| GSPO | seed 37 | 0.64 |\n")
    assert t.status == "error" and "count quoted as fraction" in t.message and t.expected.startswith("32")


def test_zero_to_four_mean_in_prose():
    (_, ok) = last_cell("The first GSPO run found 2.75 groups on average.")
    assert ok.status == "traced"
    (m, bad) = last_cell("The first GSPO run found 0.6875 groups on average.")
    assert m.scale == "count" and bad.status == "error" and "count quoted as fraction" in bad.message
    assert bad.expected.startswith("2.75")
    # a fraction said as a fraction ("of the groups") is not a count
    (m, t) = last_cell("The first GSPO run found 0.6875 of the groups.")
    assert m.scale is None and t.status == "untraced"


def ci_index():
    idx = index()
    idx.add("contrasts.dr_grpo-grpo.ci95.low", -0.031, "difference")
    idx.add("contrasts.dr_grpo-grpo.ci95.high", -0.008, "difference")
    return idx


def ci_cell(cell):
    idx = ci_index()
    ms = [m for m in md(f"| Comparison | 95% CI |\n|---|---|\n| Dr. GRPO − GRPO | {cell} |\n") if m.kind == "table"]
    return ms, [trace_mention(idx, m, ARMS) for m in ms]


@pytest.mark.parametrize("cell", ["−0.03 – −0.01", "-0.03 - -0.01", "[-0.031, -0.008]", "−0.03–−0.01", "-0.03--0.01"])
def test_interval_with_negative_ends_reads_both_ends_with_their_signs(cell):
    ms, ts = ci_cell(cell)
    assert [(m.value, m.role) for m in ms] == [(pytest.approx(-0.03, abs=0.002), "low"),
                                                (pytest.approx(-0.01, abs=0.002), "high")]
    assert [(t.status, t.sources[0].id) for t in ts] == [("traced", "contrasts.dr_grpo-grpo.ci95.low"),
                                                         ("traced", "contrasts.dr_grpo-grpo.ci95.high")]


@pytest.mark.parametrize("cell", ["−0.03 – 0.01", "-0.03 - 0.01", "−0.03–0.01"])
def test_a_dropped_minus_on_the_high_end_is_an_error(cell):
    ms, ts = ci_cell(cell)
    assert [m.value for m in ms] == [-0.03, 0.01] and [t.status for t in ts] == ["traced", "error"]


def test_swapped_negative_ends_are_found():
    ms, _ = ci_cell("−0.01 – −0.03")
    assert [(m.role, m.value) for m in ms] == [("low", -0.01), ("high", -0.03)]
    assert len(swapped_intervals(ms)) == 1


def test_interval_in_words_after_an_interval_word():
    ms = md("Dr. GRPO − GRPO: 95% CI from −0.03 to −0.01. Accuracy rose from 0.5 to 0.7.")
    assert [(m.text, m.role) for m in ms if m.status_hint == "value"] == [
        ("−0.03", "low"), ("−0.01", "high"), ("0.5", None), ("0.7", None)]


def test_hyphenated_labels_are_never_negative_numbers():
    ms = md("| Metric (0-4) | seeds 1-3 |\n|---|---|\n| GSM8K-500 groups (0-4) | 2.75 |\n\nSee 2026-01-02, v1.2-3.4.")
    assert all(m.value >= 0 for m in ms)
    assert [m.text for m in ms if m.status_hint == "value"] == ["2.75"]


@pytest.mark.parametrize("text, shown", [
    ("p = 1.5 × 10⁻⁴.", "1.5 × 10⁻⁴"), ("p = 1.5 x 10^-4.", "1.5 x 10^-4"), ("p = 1.5·10⁻⁴.", "1.5·10⁻⁴"),
    ("p = 1.5 × 10^{-4}.", "1.5 × 10^{-4}"),
])
def test_scientific_notation_written_out_is_one_number(text, shown):
    (m,) = md(text)
    assert (m.text, m.value, m.decimals, m.exponent) == (shown, pytest.approx(1.5e-4), 1, -4)
    idx = index()
    idx.add("contrasts.dr_grpo-grpo.p", 0.000145127, "probability")
    assert trace_mention(idx, m, ARMS).status == "traced"
    (wrong,) = md(text.replace("⁻⁴", "⁻³").replace("-4", "-3"))
    assert wrong.value == pytest.approx(1.5e-3) and trace_mention(idx, wrong, ARMS).status == "untraced"


def test_scientific_notation_in_latex_and_what_is_not_one():
    (m,) = parse_latex("r.tex", "BH-adjusted $p = 3.2\\times10^{-4}$, so", "r.tex").mentions
    assert m.value == pytest.approx(3.2e-4) and m.decimals == 1
    assert [m.text for m in md("3 x 10 items, a 4 x 4 grid, 2x faster")] == ["3", "10", "4", "4"]


@pytest.mark.parametrize("text", ["61.23", "0.5", "500", "7", "12", "0.0001", "1234567", "00.10"])
@pytest.mark.parametrize("status,fact,kind", [(None, None, "cell"), ("label", "seed", "cell"), ("label", None, "cell"),
                                              (None, None, "code"), (None, None, "prose"), (None, None, "comment")])
def test_plain_number_fast_path_reads_as_the_full_reader(text, status, fact, kind):
    """A piece that is one plain number is read without the per-piece scans (README failure 10: most cells of a
    5 MB table); its fields are the full reader's, field for field, whatever its status, label fact and kind."""
    from audit.doc import Piece
    from audit.numbers import _PLAIN, _Builder, _numbers, _plain_read

    assert _PLAIN.fullmatch(text)
    b = _Builder("r.md", [text])
    found, ranges = _numbers(text)
    full = b._read(Piece(text, 1, kind), found, b._intervals(text, ranges), status, fact)
    hint = status or {"code": "code", "comment": "comment"}.get(kind)
    assert _plain_read(text, hint, fact) == full


def test_plain_table_cells_are_the_mentions_of_the_full_reader():
    """A table's plain-number cells (built from the row's shared fields, no reading per cell) and its other
    cells (read in full) carry the same fields as when every cell is read in full: seed labels, percent
    columns, scale words, rows and headers."""
    from dataclasses import fields

    import audit.numbers as numbers
    from audit.numbers import Mention

    text = ("# GSPO\n\n| Seed | Accuracy (%) | Groups correct (0-4) | note |\n|---|---|---|---|\n"
            "| 1 | 61.23 | 2.75 | n=500 |\n| 2 | 60.4 | 3 | 0.5 [0.4, 0.6] |\n")
    fast = md(text)
    real = numbers._PLAIN
    try:
        numbers._PLAIN = __import__("re").compile(r"(?!)")   # never plain: every cell read in full
        slow = md(text)
    finally:
        numbers._PLAIN = real
    names = [f.name for f in fields(Mention)]
    assert len(fast) == len(slow) == 10
    assert [[getattr(m, n) for n in names] for m in fast] == [[getattr(m, n) for n in names] for m in slow]
    row1 = [(m.text, m.status_hint, m.label_fact, m.column_percent) for m in fast if m.line == 5]
    assert row1[:2] == [("1", "label", ("seed", 1.0), False), ("61.23", "value", None, True)]
