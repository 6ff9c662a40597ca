"""Table structure on hand-written reports: group headers, multi-line HTML rows, footnotes on cells,
counts out of n, and a statistic column beside its metric (README failure 15).

The ninth set (``tests/report_corpus_ninth/``) wrote tables in shapes the audit misread: arms in a
second header row under a colspan "Method" cell, a verdict cell on its own line of a ``<tr>``, a
``<sup>b</sup>`` footnote whose body gives the TOST p of the row its marker is on, correct answers out
of 1,319 per seed, a "95% CI" column beside "Solve rate" for references evaluated once. Each reading
has a firing case and a clean case here, in layouts and wordings of this file's own (not copied from
the set's reports), over two of the set's studies: the README's (GRPO, DAPO, GSPO, Dr. GRPO x seeds
5-9, n = 1,319) and the model card's (base, SFT, GRPO, DAPO, AERO x seeds 17, 29, 41, 360 puzzles).
"""

from __future__ import annotations

import pytest

from audit.claims import _in_html_cell
from audit.html_table import read_table
from audit.markers import footnote_cells, leading_footnote
from audit.numbers import _group_members, parse_markdown


@pytest.fixture(scope="module")
def ninth_study(tmp_path_factory):
    """One built study of the ninth set per name, built when first asked for."""
    from tests.report_corpus import set_tests
    from tests.report_corpus_ninth import ninth

    return set_tests.lazy_builds(ninth.build, tmp_path_factory, "ninth")


def _findings(study, tmp_path, text, strict=False, name="report.md"):
    from tests.report_corpus import corpus

    tmp_path.mkdir(parents=True, exist_ok=True)
    res = corpus.audit_written(study, tmp_path, {name: text}, strict=strict)
    return [(f.location.rsplit("/", 1)[-1], f.expected, f.found, f.message) for f in res.findings
            if f.location.rsplit("/", 1)[-1].startswith(name)]


# ---- the pieces, without a study ---------------------------------------------------------------------

def test_a_group_header_over_arms_is_no_identity_column():
    """"Arm GSPO", "Arm DAPO" (a group header over its sub-headers) hold values; "Arm" alone, or two
    different identity words ("Arm", "Seed"), are identity columns."""
    assert _group_members([1, 2], ["Quantity", "Arm GSPO", "Arm DAPO"]) == []
    assert _group_members([0, 1], ["Arm", "Seed", "Acc"]) == [0, 1]
    assert _group_members([0], ["Arm", "Acc"]) == [0]


def test_a_superscript_in_an_html_cell_is_set_apart_from_its_number():
    """"+0.04<sup>c</sup>" is the number +0.04 and a footnote (it was "+0.04c": no number at all)."""
    t = read_table("<table><tr><th>Arm</th><th>Δ</th></tr><tr><td>GSPO</td><td>+0.04<sup>c</sup></td></tr></table>",
                   1, (), "")
    assert " ".join(t.rows[0][2][1].text.split()) == "+0.04 c"


def test_footnote_references_and_bodies():
    """A cell's footnote reference (a letter or number in <sup>, a superscript digit) after its number, and a
    line that starts with one; a significance star or a plain "2 runs" is neither."""
    assert leading_footnote("<sup>c</sup> equivalence") == "c"
    assert leading_footnote("³ Before rounding") == "3"
    assert leading_footnote("2 runs failed") is None and leading_footnote("<sup>*</sup> p < 0.05") is None
    text = "| Pair | Δ | CI |\n|---|---|---|\n| GSPO − GRPO | +0.026 | [0.021, 0.032]³ |\n| DAPO − GRPO | +0.016 | x |\n"
    assert footnote_cells(parse_markdown("r.md", text, "r.md")) == {"3": [(3, "GSPO − GRPO", "CI")]}


def test_a_table_drawn_in_code_and_code_that_is_no_table():
    """Borders and rows only: a table whose body cells stay in code; a line of anything else: code."""
    from audit.code_table import read_code_table

    t = read_code_table("+-----+------+\n| arm | acc  |\n+-----+------+\n| a   | 0.61 |\n| b   | 0.62 |\n", 10, (), "")
    assert [c.text for c in t.header] == ["arm", "acc"] and [ln for ln, _, _ in t.rows] == [13, 14]
    assert t.rows[0][2][1].hints == [(0, 4, "code")] and t.header[1].hints == []
    assert read_code_table("$ python run.py\n| a | b |\n|---|---|\n| 1 | 2 |\n", 1, (), "") is None
    assert read_code_table("| a | b |\n| 1 | 2 | 3 |\n+---+\n", 1, (), "") is None


def test_a_metric_stems_ing_noun():
    from audit.words import _gerund

    assert _gerund("format") == ("formatting",) and _gerund("solve") == ("solving",)
    assert _gerund("reward") == ("rewarding",) and _gerund("acc") == () and _gerund("pass16") == ()


def test_a_word_inside_an_html_cell():
    assert _in_html_cell('      <td align="center">SURVIVES</td>', "SURVIVES")
    assert not _in_html_cell("GSPO SURVIVES the correction.", "SURVIVES")
    assert not _in_html_cell("<td>GSPO</td> SURVIVES", "SURVIVES")


# ---- arms in a second header row under a group header ----------------------------------------------------

GROUPED = """## Diagnostics

<table>
<thead>
<tr><th rowspan="2">Quantity</th><th colspan="2">Arm</th></tr>
<tr><th>GSPO</th><th>Dr. GRPO</th></tr>
</thead>
<tbody>
<tr><td>Mean ZVF</td><td>0.297</td><td>0.305</td></tr>
<tr><td>Reward over the last 10 steps</td><td>0.695</td><td>0.682</td></tr>
</tbody>
</table>
"""


@pytest.mark.slow   # builds a study (seconds); the ninth set's plants cover it in the full tier too
@pytest.mark.usefixtures("shared_recompute")
def test_arms_under_a_group_header_name_their_columns(ninth_study, tmp_path):
    """Each column under "Arm" is its arm's (the cells were labels: nothing checked)."""
    study = ninth_study("readme_html_sup")
    assert _findings(study, tmp_path, GROUPED) == []
    wrong = _findings(study, tmp_path / "w", GROUPED.replace("<td>0.682</td>", "<td>0.695</td>"))
    assert [f for f in wrong if "arms.dr_grpo.reward_last10" in f[1] and f[0] == "report.md:10"], wrong


# ---- a verdict cell on its own line of a multi-line <tr> ------------------------------------------------

MULTILINE = """## Verdicts

<table>
  <tr><th>Variant</th><th>Gain (pp)</th><th>Call</th></tr>
  <tr>
    <td>GSPO</td>
    <td>+2.58</td>
    <td>SURVIVES</td>
  </tr>
  <tr>
    <td>Dr. GRPO</td>
    <td>+0.04</td>
    <td>INCONCLUSIVE</td>
  </tr>
</table>
"""


@pytest.mark.slow   # builds a study (seconds); the ninth set's plants cover it in the full tier too
@pytest.mark.usefixtures("shared_recompute")
def test_a_verdict_cell_is_its_rows_contrast(ninth_study, tmp_path):
    """The verdict on its own line is the row's (it was read against the arm named last above it, GSPO's),
    and a wrong one is reported at its own line."""
    study = ninth_study("readme_html_sup")
    assert _findings(study, tmp_path, MULTILINE) == []
    wrong = _findings(study, tmp_path / "w", MULTILINE.replace("<td>INCONCLUSIVE</td>", "<td>SURVIVES</td>"))
    assert [f for f in wrong if "dr_grpo-grpo" in f[1] and f[0] == "report.md:13"], wrong


# ---- a footnote's body about the row its reference is on -------------------------------------------------

FOOTNOTE = """## Equivalence

| Variant | Δ vs GRPO (points) |
|---|---|
| GSPO | +2.58 |
| Dr. GRPO | +0.04<sup>c</sup> |

<sup>c</sup> Equivalence (TOST) against the ±1-point margin: p = 0.049; the design's minimum detectable
effect is 1.35 points.
"""

CONTRAST_FOOTNOTE = """## Contrasts

| Pair | Δ | 95% CI |
|---|---|---|
| GSPO − GRPO | +0.026 | [0.021, 0.032]³ |

³ Its lower end is 0.0208 before rounding.
"""


@pytest.mark.slow   # builds a study (seconds); the ninth set's plants cover it in the full tier too
@pytest.mark.usefixtures("shared_recompute")
def test_a_footnote_is_about_the_row_of_its_reference(ninth_study, tmp_path):
    """The TOST p and the MDE of a footnote are Dr. GRPO's (the row "+0.04<sup>c</sup>" is on); the lower end
    in a footnote on a contrast's interval is that contrast's (both were value-only or read as an arm's)."""
    study = ninth_study("readme_html_sup")
    assert _findings(study, tmp_path, FOOTNOTE) == []
    wrong = _findings(study, tmp_path / "w", FOOTNOTE.replace("p = 0.049", "p = 0.49"))
    assert [f for f in wrong if "contrasts.dr_grpo-grpo.tost_p" in f[1] and f[0] == "report.md:8"], wrong
    wrong = _findings(study, tmp_path / "m", FOOTNOTE.replace("1.35 points", "1.53 points"))
    assert [f for f in wrong if "contrasts.dr_grpo-grpo.mde" in f[1]], wrong
    assert _findings(study, tmp_path / "c", CONTRAST_FOOTNOTE) == []
    wrong = _findings(study, tmp_path / "cw", CONTRAST_FOOTNOTE.replace("0.0208", "0.0280"))
    assert [f for f in wrong if "contrasts.gspo-grpo.ci95.low" in f[1] and f[0] == "report.md:7"], wrong


# ---- counts out of n per seed ----------------------------------------------------------------------------

COUNTS = """## Per run

Number of correct answers out of 1,319, by seed:

| Variant | seed 6 | seed 8 |
|---|---|---|
| DAPO | 955 | 967 |
| GSPO | 968 | 983 |
"""

SOLVED = """## Per run

Puzzles solved per seed (of 360):

| Objective | seed 17 | seed 41 |
|---|---|---|
| DAPO | 224 | 223 |
| AERO | 207 | 210 |
"""


@pytest.mark.slow   # builds a study (seconds); the ninth set's plants cover it in the full tier too
@pytest.mark.usefixtures("shared_recompute")
@pytest.mark.parametrize(("name", "text", "find", "replace", "source"), [
    ("readme_html_sup", COUNTS, "| 968 | 983 |", "| 983 | 968 |", "runs.gspo.s6.heldout_accuracy"),
    ("hub_card_template", SOLVED, "| 207 |", "| 208 |", "runs.aero.s17.solve_rate"),
], ids=["correct-out-of", "solved-of"])
def test_counts_out_of_n_are_checked_against_the_runs(ninth_study, tmp_path, name, text, find, replace, source):
    """Counts under a caption "correct answers out of 1,319" or "solved ... (of 360)" are each run's accuracy
    (or the primary solve rate) times n (they were untraced: nothing checked)."""
    study = ninth_study(name)
    assert _findings(study, tmp_path, text) == []
    rows = {f"report.md:{i}" for i, line in enumerate(text.splitlines(), 1) if line.startswith("| DAPO") or
            line.startswith("| GSPO") or line.startswith("| AERO")}
    assert [f for f in _findings(study, tmp_path / "s", text, strict=True) if f[0] in rows] == []   # traced, decisively
    wrong = _findings(study, tmp_path / "w", text.replace(find, replace))
    assert [f for f in wrong if source in f[1]], wrong


# ---- a statistic column beside its metric, for references evaluated once --------------------------------

BESIDE = """## References

| Model | pass@16 | 95% CI | Solve rate | 95% CI |
|---|---|---|---|---|
| Base | 0.844 | 0.815 – 0.872 | 0.406 | 0.356 – 0.458 |
| SFT | 0.884 | 0.858 – 0.909 | 0.581 | 0.531 – 0.631 |
"""


@pytest.mark.slow   # builds a study (seconds); the ninth set's plants cover it in the full tier too
@pytest.mark.usefixtures("shared_recompute")
def test_a_ci_column_is_its_left_metrics_interval_over_items(ninth_study, tmp_path):
    """A "95% CI" column is the interval of the metric to its left, and for a reference evaluated once
    (no interval over seeds) its interval over puzzles (they were checked against the well-formed
    percentage's interval: four false alarms)."""
    study = ninth_study("hub_card_template")
    assert _findings(study, tmp_path, BESIDE) == []
    wrong = _findings(study, tmp_path / "w", BESIDE.replace("0.858 – 0.909", "0.858 – 0.990"))
    assert [f for f in wrong if "arms.sft.pass16.mean.item.ci95.high" in f[1]], wrong
    wrong = _findings(study, tmp_path / "s", BESIDE.replace("0.356 – 0.458", "0.356 – 0.485"))
    assert [f for f in wrong if "arms.base.solve_rate.mean.item.ci95.high" in f[1]], wrong


# ---- a results table drawn in a code block ----------------------------------------------------------------

DRAWN = """## Session 1

Printed by the evaluation script:

```text
+---------+-------+--------+
| arm     | solve | groups |
+=========+=======+========+
| gspo    | 0.6225|   2.37 |
| dr_grpo | 0.575 |   2.25 |
+---------+-------+--------+
```
"""


@pytest.mark.slow   # builds a study (seconds); the ninth set's plants cover it in the full tier too
@pytest.mark.usefixtures("shared_recompute")
def test_a_table_drawn_in_code_is_read_as_a_table_under_strict(ninth_study, tmp_path):
    """Its cells are checked against the value their row and column name under --strict (by value alone,
    another arm's 2.25 passed as Dr. GRPO's); by default numbers in code stay "in code", no finding."""
    study = ninth_study("weekly_email")
    assert _findings(study, tmp_path, DRAWN, strict=True) == []
    bad = DRAWN.replace("|   2.37 |", "|   2.25 |")
    assert _findings(study, tmp_path / "d", bad) == []
    wrong = _findings(study, tmp_path / "w", bad, strict=True)
    assert [f for f in wrong if "arms.gspo.groups_correct.mean" in f[1] and f[0] == "report.md:9"], wrong


SEEDS = """## Reproduce

```bash
runner sweep locks/study.lock.json --seeds 5 6 7 8 9
```
"""


@pytest.mark.slow   # builds a study (seconds); the ninth set's plants cover it in the full tier too
@pytest.mark.usefixtures("shared_recompute")
def test_a_seed_flag_in_a_command_lists_locked_seeds(ninth_study, tmp_path):
    """The numbers after "--seeds" are checked against the locked seeds under --strict (a wrong seed equal to
    some other value passed by value alone)."""
    study = ninth_study("readme_html_sup")
    assert _findings(study, tmp_path, SEEDS, strict=True) == []
    wrong = _findings(study, tmp_path / "w", SEEDS.replace("8 9", "8 10"), strict=True)
    assert [f for f in wrong if "locked seeds" in f[1] and f[2] == "10"], wrong


# ---- a metric's "-ing" noun, a value "before", a value and what it became, a margin in points ------------

SESSION_TWO = """## Re-run

**Session 2 (re-evaluation)**

Formatting slipped for Dr. GRPO: 90.5% (92.9% before).

GSPO by seed, session 1 → session 2: s202 61.5 → 53.5.
"""


@pytest.mark.slow   # builds a study (seconds); the ninth set's plants cover it in the full tier too
@pytest.mark.usefixtures("shared_recompute")
def test_formatting_before_and_arrows_in_a_later_session(ninth_study, tmp_path):
    """"Formatting" names the well-formed percentage (format_pct; it was read as the solve rate), "92.9% before"
    is the earlier session's value, and "61.5 → 53.5" is in percent on both sides (53.5 was a unit mix-up)."""
    study = ninth_study("weekly_email")
    assert _findings(study, tmp_path, SESSION_TWO) == []
    wrong = _findings(study, tmp_path / "f", SESSION_TWO.replace("90.5% (", "91.5% ("))
    assert [f for f in wrong if "format_pct" in f[1] and f[0] == "report.md:5"], wrong
    wrong = _findings(study, tmp_path / "b", SESSION_TWO.replace("92.9% before", "93.9% before"))
    assert [f for f in wrong if f[0] == "report.md:5" and f[2] == "93.9%"], wrong
    wrong = _findings(study, tmp_path / "a", SESSION_TWO.replace("→ 53.5", "→ 55.3"))
    assert [f for f in wrong if "s202.solve_rate" in f[1]], wrong


MARGIN = r"""\section{Equivalence}
AERO is equivalent to GRPO within the registered $\pm 2$-point margin (TOST $p = 0.0008$, 90\% CI [0.11, 0.85]).
"""


@pytest.mark.slow   # builds a study (seconds); the ninth set's plants cover it in the full tier too
@pytest.mark.usefixtures("shared_recompute")
def test_an_interval_after_a_margin_in_points_is_in_points(ninth_study, tmp_path):
    """The equivalence interval after a "±2-point margin" is in points (it was a fraction's unit mix-up)."""
    study = ninth_study("neurips_checklist")
    assert _findings(study, tmp_path, MARGIN, name="eq.tex") == []
    wrong = _findings(study, tmp_path / "w", MARGIN.replace("0.85]", "0.58]"), name="eq.tex")
    assert [f for f in wrong if "contrasts.aero-grpo.ci90.high" in f[1]], wrong
