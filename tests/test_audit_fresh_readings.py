"""Readings the fresh report set (``tests/report_corpus_fresh/``) showed missing (README failure 15).

Each test breaks one reading and shows the clean form passing: Quarto / R Markdown sources are read;
a title naming one arm twice is that arm's run; ``t(5) =`` and ``d_z =`` name the contrast's t
statistic and effect size; ``<details><summary>`` scopes what it folds; "pts" is points only after
a number with decimals; "INCONCLUSIVE rather than DISAPPEARS" denies a verdict; an open task item
("[ ] rerun with 10 seeds") is a plan, not a fact.
"""

from __future__ import annotations

import json

import pytest

from audit.claims import check_file, facts_of
from audit.markdown_doc import walk
from audit.numbers import parse_markdown, parse_report
from audit.sources import entity_from_text
from audit.words import is_points, role_before, vocabulary
from tests.report_corpus import corpus
from tests.report_corpus_fresh import fresh

# only the report differs from test to test: check 9 recomputes each study once (conftest)
pytestmark = pytest.mark.usefixtures("shared_recompute")


@pytest.mark.parametrize("suffix", [".qmd", ".Rmd", ".md"])
def test_quarto_and_r_markdown_reports_are_read(tmp_path, suffix):
    (tmp_path / f"report{suffix}").write_text("---\ntitle: x\n---\n\nGRPO reaches 0.612 (`r round(m, 3)`).\n")
    (tmp_path / "notes.txt").write_text("0.999\n")
    (f,) = parse_report(tmp_path, lambda p: p.name)
    assert [m.text for m in f.mentions if m.status_hint != "code"] == ["0.612"]


def test_a_title_naming_one_arm_twice_is_that_arms_run():
    assert entity_from_text("puzzles-grpo-s1: GRPO, seed 1", ["base", "sft", "grpo"])[0] == ("run", "grpo", 1)
    assert entity_from_text("GSPO vs GRPO", ["gspo", "grpo"])[0] == ("contrast", "gspo", "grpo")


@pytest.mark.parametrize(("before", "role"), [
    ("GSPO gains 1.85 pp (t(5) = ", "t_stat"), ("(t(  ) = ", "t_stat"), ("the t-statistic is ", "t_stat"),
    ("Cohen's d<sub>z</sub> = ", "dz"), ("d~z~ = ", "dz"), ("$d_z = ", "dz"), ("Cohen's d = ", None),
    ("p = ", "p"), ("the design can only detect a difference of ", "mde"), ("could detect ", "mde"),
    ("after the BH correction over the two comparisons p = ", "p_adjusted"),
    ("t-shirts cost ", None), ("we ran ", None),
])
def test_the_words_before_a_number_name_its_statistic(before, role):
    assert role_before(before) == role


def test_a_details_summary_scopes_what_it_folds_until_it_closes():
    doc = walk("# Stats\n\n<details>\n<summary>▶ GSPO vs GRPO</summary>\n\n- p = 0.169\n\n</details>\n\nafter 0.5\n")
    scopes = {p.text.strip(): p.scope for p in doc.items if getattr(p, "kind", "") == "prose"}
    assert scopes["p = 0.169"] == ("Stats", "▶ GSPO vs GRPO")
    assert scopes["after 0.5"] == ("Stats",)
    assert [p.text for p in doc.items if p.kind == "heading"] == ["Stats", "▶ GSPO vs GRPO"]


def test_pts_is_points_only_after_a_number_with_decimals():
    assert is_points(" pts over GRPO", 2) and is_points(" points", 0)
    assert not is_points(" pt (TOST p = 0.0087)", 0) and not is_points(" pts", 0)


@pytest.fixture(scope="module")
def arxiv(tmp_path_factory):
    report = corpus.build("arxiv_results", tmp_path_factory.mktemp("fresh") / "s", folder=fresh.HERE)
    lock = json.loads(next((report.parent / "locks").glob("*.json")).read_text())
    prereg, analysis = lock["preregistration"], json.loads((report / "analysis.json").read_text())
    return vocabulary(prereg), facts_of(prereg, analysis)


def _claims(arxiv, text: str) -> list[str]:
    vocab, facts = arxiv
    return [c.message for c in check_file(parse_markdown("report.md", text, "report.md"), vocab, facts)]


def test_a_verdict_named_as_the_one_it_is_not_is_denied_not_claimed(arxiv):
    # dapo-grpo is INCONCLUSIVE in the locked analysis
    assert _claims(arxiv, "For DAPO against GRPO the rule returns INCONCLUSIVE rather than DISAPPEARS.\n") == []
    bad = _claims(arxiv, "For DAPO against GRPO the rule returns DISAPPEARS rather than INCONCLUSIVE.\n")
    assert any("denied" in m for m in bad) and any("contradicts" in m for m in bad)


def test_an_open_task_item_is_a_plan_not_a_fact(arxiv):
    assert _claims(arxiv, "- [ ] rerun with 10 seeds before claiming anything\n") == []
    assert any("10 seeds" in m for m in _claims(arxiv, "- [x] ran 10 seeds per arm\n"))


def test_a_pandoc_simple_table_in_a_qmd_is_a_table():
    text = ("Intro.\n\n  arm     mean      sd   95% CI\n------  ------  ------  ----------------\n"
            "  GRPO  0.6217  0.0075  [0.6161, 0.6267]\n\nAfter.\n")
    table = {m.text: (m.kind, m.row, m.column) for m in parse_markdown("r.qmd", text, "r.qmd").mentions}
    assert table["0.6217"] == ("table", "GRPO", "mean") and table["0.6267"] == ("table", "GRPO", "95% CI")
    # in plain Markdown (CommonMark) the same lines are a paragraph and a thematic break
    assert {m.kind for m in parse_markdown("r.md", text, "r.md").mentions} == {"prose"}
    fenced = "```\n  arm   mean\n-----  -----\n  GRPO  0.62\n```\n"
    assert {m.status_hint for m in parse_markdown("r.qmd", fenced, "r.qmd").mentions} == {"code"}


def test_a_seed_range_and_a_heading_state_checkable_facts(arxiv):
    # the locked seeds are 2, 3, 5, 7, 11, 13 and the held-out n is 800
    assert _claims(arxiv, "Every arm was trained with seeds 2 to 13.\n") == []
    assert any("seed range names 17" in m for m in _claims(arxiv, "Every arm was trained with seeds 2 to 17.\n"))
    assert _claims(arxiv, "## Accuracy (800 test problems, seeds 2–13)\n\ntext\n") == []
    bad = _claims(arxiv, "## Accuracy (500 test problems, seeds 2–13)\n\ntext\n")
    assert bad and all("report.md:1" == c.location for c in
                       check_file(parse_markdown("report.md", "## Accuracy (500 test problems)\n", "report.md"), *arxiv))


def test_a_list_of_values_each_takes_the_metric_named_right_after_or_before_it():
    import sys

    sys.path.insert(0, str(corpus.REPO / "tests"))
    import study12

    from audit.prose import read_file

    vocab = vocabulary(study12.prereg())
    text = ("# GRPO, seed 1\n\nQuick numbers: solve rate 0.673, pass@16 0.941, 92.6% well-formed answers, "
            "2.84 of 4 groups correct.\n\nThe rate is 0.045 (4.5%).\n")
    f = parse_markdown("report.md", text, "report.md")
    got = {m.text: r.metric for m in f.mentions if (r := read_file(f, vocab).get(id(m))) is not None
           and not r.param and m.text != "16"}   # the 16 of "pass@16" is a label (audit.trace.is_label)
    assert got == {"0.673": "solve_rate", "0.941": "pass16", "92.6%": "format_pct", "2.84": "groups_correct",
                   "0.045": "solve_rate", "4.5%": "solve_rate"}


def test_a_run_in_latex_heading_keeps_its_sentence_and_each_statistic_its_own_pair(arxiv):
    from audit.numbers import parse_latex
    from audit.prose import read_file

    vocab, _facts = arxiv
    tex = ("\\paragraph{Results.} GSPO is $1.85$ points above GRPO ($t(5) = 7.72$), and DAPO's gain of\n"
           "$0.25$ points is not significant.\n")
    f = parse_latex("paper.tex", tex, "paper.tex")
    readings = read_file(f, vocab)
    pairs = {m.text: readings[id(m)].pair for m in f.mentions if id(m) in readings and not readings[id(m)].param}
    assert pairs == {"1.85": ("gspo", "grpo"), "7.72": ("gspo", "grpo"), "0.25": ("dapo", "grpo")}


@pytest.fixture(scope="module")
def quarto(tmp_path_factory):
    """The two-arm study of the fresh Quarto report: one contrast (dapo-grpo), its report removed."""
    report = fresh.build("quarto_doc", tmp_path_factory.mktemp("fresh") / "q")
    (report / "report.qmd").unlink()
    return report


def _audit(report, text: str) -> list[str]:
    from audit import check

    (report / "report.qmd").write_text(text)
    return [f"{f.message}" for f in check(report).findings]


@pytest.mark.parametrize(("clean", "planted", "message"), [
    # a statistic naming no contrast, in a study with exactly one, is that contrast's
    ("The minimum detectable effect of this design at 80% power is 0.0098.\n",
     "The minimum detectable effect of this design at 80% power is 0.0078.\n", "normal approximation"),
    ("A single benchmark; the 1.9-point gain is specific to this setting.\n",
     "A single benchmark; the 2.9-point gain is specific to this setting.\n", "contrasts.dapo-grpo.diff_mean"),
    # "is behind" / "is ahead of" compare the arms like "worse than" / "better than"
    ("DAPO is ahead of GRPO on held-out accuracy.\n", "DAPO is behind GRPO on held-out accuracy.\n", "better than"),
])
def test_the_one_contrast_and_ahead_or_behind(quarto, clean, planted, message):
    assert _audit(quarto, clean) == []
    assert any(message in m for m in _audit(quarto, planted))


def test_a_wrong_value_with_a_decimal_comma_is_an_error(quarto):
    """A decimal comma before a percent sign ("64,11 %", German/French style) is the decimal point: before,
    '64,11' was read as the two numbers 64 and 11, so a wrong value written that way passed."""
    assert _audit(quarto, "DAPO erreicht im Mittel 64,11 % Genauigkeit.\n") == []
    assert any("arms.dapo.heldout_accuracy.mean" in m for m in _audit(quarto, "DAPO erreicht im Mittel 66,11 % Genauigkeit.\n"))


def test_an_interval_written_ci_a_to_b_is_an_interval():
    roles = [(m.text, m.role) for m in parse_markdown("r.md", "Δ = +0.0194 (95% CI 0.0144 to 0.0244)\n", "r.md").mentions]
    assert roles[-2:] == [("0.0144", "low"), ("0.0244", "high")]
    # two values, no interval word: not an interval
    assert {m.role for m in parse_markdown("r.md", "accuracy rose 0.5 to 0.7\n", "r.md").mentions} == {None}


def test_a_latex_seed_set_states_its_first_and_last_seed(arxiv):
    # the locked seeds are 2, 3, 5, 7, 11, 13
    assert _claims(arxiv, "Each arm is trained with six seeds {2, …, 13}.\n") == []
    assert any("seed range names 1" in m for m in _claims(arxiv, "Each arm is trained with six seeds {1, …, 13}.\n"))


def test_a_claim_about_several_comparisons_holds_for_each(arxiv):
    # gspo-grpo and aero-grpo reject after BH; dapo-grpo does not
    assert _claims(arxiv, "Both the GSPO and the AERO comparisons are significant after BH correction.\n") == []
    bad = _claims(arxiv, "All three comparisons with GRPO are significant after BH correction.\n")
    assert any("dapo-grpo is not significant" in m for m in bad)
    assert any("gspo-grpo is significant" in m
               for m in _claims(arxiv, "Neither the GSPO nor the DAPO comparison is significant after BH correction.\n"))
