"""Claims in words (README failure 15): each claim the analysis can decide is checked, a contradicted
one is an error with a plain message, and one the analysis cannot decide is left alone.

Two real analyses of the hand-written corpus are used: ``contrast_card`` (GRPO over an SFT
checkpoint, base model and SFT evaluated once: reference arms, a percent metric) and ``arm_table``
(four loss variants; ZVF, where lower is better).
"""

from __future__ import annotations

import json

import pytest

from audit.claims import check_file, facts_of
from audit.numbers import parse_markdown
from audit.words import vocabulary
from tests.report_corpus import corpus

# only the report differs from test to test: check 9 recomputes each study once (conftest)
pytestmark = pytest.mark.usefixtures("shared_recompute")


@pytest.fixture(scope="module")
def studies(tmp_path_factory):
    root = tmp_path_factory.mktemp("claims")
    out = {}
    for name in ("contrast_card", "arm_table"):
        report = corpus.build(name, root / name)
        lock = json.loads(next((report.parent / "locks").glob("*.json")).read_text())
        out[name] = (lock["preregistration"], json.loads((report / "analysis.json").read_text()))
    return out


def _claims(studies, name: str, text: str) -> list[tuple[str, str]]:
    prereg, analysis = studies[name]
    f = parse_markdown("report.md", text, "report.md")
    return [(c.location, c.message) for c in check_file(f, vocabulary(prereg), facts_of(prereg, analysis))]


# --- verdict words scoped by their heading ------------------------------------------------------

CARD = """# Qwen3-8B GSPO LoRA (GSM8K subset)

## Evaluation

- **Accuracy:** 61.0%
- **Preregistered verdict:** {word}
"""


def test_a_verdict_bullet_under_an_arm_heading_is_that_arms_verdict(studies):
    assert _claims(studies, "arm_table", CARD.format(word="SURVIVES")) == []
    assert _claims(studies, "arm_table", CARD.format(word="DISAPPEARS")) == [
        ("report.md:6", "verdict word DISAPPEARS contradicts the analysis: gspo-grpo is SURVIVES")]


def test_a_heading_naming_only_the_baseline_decides_no_verdict(studies):
    text = CARD.replace("GSPO", "GRPO").format(word="DISAPPEARS")
    assert _claims(studies, "arm_table", text) == []


def test_a_deeper_heading_naming_another_arm_takes_over(studies):
    text = CARD.format(word="SURVIVES") + "\n## DAPO\n\n- **Preregistered verdict:** SURVIVES\n"
    assert _claims(studies, "arm_table", text) == [
        ("report.md:10", "verdict word SURVIVES contradicts the analysis: dapo-grpo is DISAPPEARS")]


# --- below / above a reference arm --------------------------------------------------------------

@pytest.mark.parametrize("sentence", [
    "GRPO stays above the base model.",
    "GRPO does not fall below the SFT baseline.",
    "The SFT baseline falls below GRPO.",
    "SFT is better than the base model.",
    "GRPO beats the SFT baseline on puzzle accuracy.",
])
def test_a_true_comparison_with_a_reference_arm_passes(studies, sentence):
    assert _claims(studies, "contrast_card", f"# Card\n\n{sentence}\n") == []


@pytest.mark.parametrize("sentence,word,truth", [
    ("GRPO collapses below the base model.", "below", "grpo is above base on solve_rate"),
    ("GRPO falls below the SFT baseline.", "below", "grpo is above sft on solve_rate"),
    ("The base model stays above GRPO.", "above", "base is below grpo on solve_rate"),
    ("GRPO never rises above the SFT baseline.", "not above", "grpo is above sft on solve_rate"),
    ("The SFT checkpoint is worse than the base model.", "worse than", "sft is better than base on solve_rate"),
    ("GRPO's well-formed answers are higher than SFT's.", "higher than",
     "grpo is lower than sft on format_pct"),
])
def test_a_contradicted_comparison_is_an_error(studies, sentence, word, truth):
    got = _claims(studies, "contrast_card", f"# Card\n\n{sentence}\n")
    assert len(got) == 1 and got[0][0] == "report.md:3", got
    assert got[0][1].startswith(f"'{word}' contradicts the analysis: {truth} (difference "), got


def test_a_subject_named_by_the_heading_or_the_previous_sentence(studies):
    assert _claims(studies, "contrast_card", "# GRPO adapter\n\nIt stays above the base model.\n") == []
    got = _claims(studies, "contrast_card", "# GRPO adapter\n\nIt collapses below the base model.\n")
    assert [m.split(":")[0] for _, m in got] == ["'below' contradicts the analysis"]
    got = _claims(studies, "contrast_card", "# Card\n\nGRPO was trained for 4 steps. It collapses below the "
                  "base model.\n")
    assert len(got) == 1 and "grpo is above base" in got[0][1]


def test_a_comparison_the_analysis_cannot_decide_is_left_alone(studies):
    for text in ("GRPO stays above 0.30 on the base model's problems.",   # a number, not an arm
                 "GRPO stays above the threshold.",                       # no second arm
                 "GRPO's reward is higher than SFT's.",                   # another quantity, no metric named
                 "The SFT baseline needs more than GRPO's compute budget.",
                 "The base model falls below."):
        assert _claims(studies, "contrast_card", f"# Card\n\n{text}\n") == [], text


def test_better_follows_the_metric_direction(studies):
    # ZVF: lower is better; DAPO 0.229 against GRPO 0.409
    assert _claims(studies, "arm_table", "# Card\n\nDAPO's ZVF is better than GRPO's.\n") == []
    got = _claims(studies, "arm_table", "# Card\n\nDAPO's ZVF is worse than GRPO's.\n")
    assert len(got) == 1 and got[0][1].startswith("'worse than' contradicts the analysis: dapo is better than grpo "
                                                  "on zvf_mean")


def test_numbers_on_both_sides_still_checked_without_arms(studies):
    got = _claims(studies, "arm_table", "# Card\n\nThe score went from 0.30, higher than 0.40 before.\n")
    assert got == [("report.md:3", "claim 'higher than' contradicts the numbers written: 0.3 is lower than 0.4")]


# --- within N points: fraction and percent metrics ----------------------------------------------

def test_within_points_of_a_fraction_metric_means_hundredths(studies):
    # grpo − sft on solve_rate (a fraction) = 0.107: 10.7 points
    assert _claims(studies, "contrast_card", "# Card\n\nGRPO is within about 11 points of SFT.\n") == []
    got = _claims(studies, "contrast_card", "# Card\n\nGRPO is within about 1 point of SFT.\n")
    assert got == [("report.md:3", "'within about 1 point' contradicts the analysis: the difference is 10.70 points")]


def test_within_points_of_a_percent_metric_means_percentage_points(studies):
    # grpo − sft on format_pct (a percent) = −2.26 points
    assert _claims(studies, "contrast_card", "# Card\n\nOn well-formed answers GRPO is within 3 points of SFT.\n") == []
    got = _claims(studies, "contrast_card", "# Card\n\nOn well-formed answers GRPO is within one point of SFT.\n")
    assert got == [("report.md:3", "'within one point' contradicts the analysis: the difference is 2.26 points")]


def test_within_points_of_a_count_metric_is_not_decided(studies):
    text = "# Card\n\nOn groups correct GRPO is within 0.1 points of SFT.\n"
    assert _claims(studies, "contrast_card", text) == []


# --- significance with reference arms, either sign order ----------------------------------------

@pytest.mark.parametrize("sentence", [
    "SFT − GRPO: −0.107, p = 0.14; not significant.",
    "GRPO − SFT: +0.107; no difference at alpha 0.05.",
    "Base − GRPO: −0.243, p = 0.036, significant before adjustment.",
    "Base − GRPO is not significant after Holm adjustment (0.071).",
    "GRPO is not significantly higher than SFT.",
])
def test_significance_claims_that_hold(studies, sentence):
    assert _claims(studies, "contrast_card", f"# Card\n\n{sentence}\n") == []


@pytest.mark.parametrize("sentence,claim", [
    ("SFT − GRPO: −0.107, p = 0.14; significant.", "significant"),
    ("Base − GRPO is significant after Holm adjustment.", "significant"),
    ("GRPO is significantly higher than SFT.", "significantly"),
    ("Base − SFT: no difference.", "no difference"),
])
def test_significance_claims_the_analysis_contradicts(studies, sentence, claim):
    got = _claims(studies, "contrast_card", f"# Card\n\n{sentence}\n")
    assert len(got) == 1 and got[0][1].startswith(f"'{claim}' contradicts the analysis"), got


def test_a_verdict_row_of_a_this_run_table_is_the_heading_arms_verdict(studies):
    table = "# `gspo`, seed 3\n\n| Metric | This run |\n|---|---|\n| Verdict | {word} |\n"
    assert _claims(studies, "arm_table", table.format(word="SURVIVES")) == []
    assert _claims(studies, "arm_table", table.format(word="REVERSES")) == [
        ("report.md:5", "verdict word REVERSES contradicts the analysis: gspo-grpo is SURVIVES")]


def test_a_verdict_word_in_latex_small_caps(studies):
    prereg, analysis = studies["arm_table"]
    from audit.numbers import parse_latex

    text = "\\section{Results}\n\nDAPO's gain is not significant, hence \\textsc{WORD}.\n"
    for word, n in (("disappears", 0), ("survives", 1)):
        f = parse_latex("paper.tex", text.replace("WORD", word), "paper.tex")
        got = check_file(f, vocabulary(prereg), facts_of(prereg, analysis))
        assert len(got) == n and all("dapo-grpo is DISAPPEARS" in c.message for c in got), got


def test_claims_decided_are_counted_and_undecided_ones_listed(studies):
    from audit.claims import Tally

    prereg, analysis = studies["contrast_card"]
    text = ("# Card\n\nGRPO stays above the base model. SFT − GRPO: not significant.\n\n"
            "GRPO's reward is higher than SFT's.\n\nThe ablation is significant.\n")
    tally = Tally()
    got = check_file(parse_markdown("report.md", text, "report.md"), vocabulary(prereg), facts_of(prereg, analysis),
                     tally)
    assert got == [] and tally.checked == 2
    assert tally.undecided == [("report.md:5", "grpo higher than sft"), ("report.md:7", "significant")]
    assert tally.note().startswith("claims in words: 2 checked against the analysis, 2 it cannot decide: "
                                   "report.md:5 'grpo higher than sft'")


@pytest.mark.parametrize("sentence,wrong", [
    ("DAPO's ZVF is roughly 2x lower than GRPO's.", False),        # 0.409 / 0.2288 = 1.79
    ("DAPO's ZVF is 1.8x lower than GRPO's.", False),
    ("DAPO has a ZVF of 0.229: about 2 times fewer dead groups.", False),   # against the baseline
    ("DAPO's ZVF is roughly 3x lower than GRPO's.", True),
    ("DAPO's ZVF is 1.5x lower than GRPO's.", True),
    ("DAPO's ZVF is 2x higher than GRPO's.", True),
])
def test_a_ratio_claim_is_the_ratio_of_the_two_arms_values(studies, sentence, wrong):
    got = _claims(studies, "arm_table", f"# Card\n\n{sentence}\n")
    if not wrong:
        assert got == []
        return
    assert len(got) == 1, got
    assert " contradicts the analysis: arms." in got[0][1] and "arms.grpo.zvf_mean" in got[0][1] \
        and "arms.dapo.zvf_mean" in got[0][1], got


def test_verdict_words_in_html_and_latex_tables(studies):
    from audit.numbers import parse_latex

    prereg, analysis = studies["arm_table"]
    html = ("# R\n\n<table>\n<tr><th>Arm</th><th>Accuracy</th><th>Verdict</th></tr>\n"
            "<tr><td>GSPO</td><td>0.610</td><td>{w}</td></tr>\n</table>\n")
    tex = ("\\section{{R}}\n\\begin{{tabular}}{{lrl}}\n\\toprule\nArm & Accuracy & Verdict \\\\\n\\midrule\n"
           "GSPO & 0.610 & \\textsc{{{w}}} \\\\\n\\bottomrule\n\\end{{tabular}}\n")
    for parse, text, name, at in ((parse_markdown, html, "report.md", 5), (parse_latex, tex, "paper.tex", 6)):
        for word, n in (("SURVIVES", 0), ("DISAPPEARS", 1), ("disappears", 1 if name == "paper.tex" else 0)):
            f = parse(name, text.format(w=word), name)
            got = [(c.location, c.message) for c in check_file(f, vocabulary(prereg), facts_of(prereg, analysis))]
            assert got == [(f"{name}:{at}", "verdict word DISAPPEARS contradicts the analysis: gspo-grpo is "
                            "SURVIVES")] * n, (name, word, got)
