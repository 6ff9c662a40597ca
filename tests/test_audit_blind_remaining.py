"""The blind set's (``tests/report_corpus_blind/``) remaining misses and false alarms, fixed as general
reading rules (README failure 15).

Each rule has a firing case and a clean case here, in wordings and numbers of its own (not copied from
the set's reports): the clean text audits with no finding, and the same text with one number changed
gives a finding against the right value.
"""

from __future__ import annotations

import pytest

from audit.words import Vocabulary

pytestmark = pytest.mark.usefixtures("shared_recompute")


@pytest.fixture(scope="module")
def leaderboard_study(tmp_path_factory):
    from tests.report_corpus_blind import blind

    return blind.build("leaderboard", tmp_path_factory.mktemp("lb"))


def _findings(study, tmp_path, text, name="report.md", strict=False):
    from tests.report_corpus import corpus

    tmp_path.mkdir(parents=True, exist_ok=True)
    res = corpus.audit_written(study, tmp_path, {name: text}, strict=strict)
    return [(f.location.rsplit(":", 1)[-1], f.expected, f.found, f.message) for f in res.findings]


# ---- a metric label people shorten in a table header -------------------------------------------------------

SHORT = Vocabulary({"grpo": "grpo"}, {}, "grpo", "acc", labels=(
    ("format_pct", ("well", "formed", "answers")), ("proof_pct", ("well", "formed", "proofs")),
    ("groups_correct", ("groups", "correct")), ("zvf", ("mean", "zvf", "over", "training"))))


@pytest.mark.parametrize(("label", "metric"), [
    ("Formed answers (%)", "format_pct"),      # some of the label's words, in order
    ("Groups [0-4]", "groups_correct"),        # its first word, a range in brackets left out
    ("ZVF over training", "zvf"),
    ("Well-formed (%)", None),                 # two labels hold it: ambiguous
    ("Mean (%)", None),                        # a statistic word names no metric
    ("Answers well formed", None),             # not in the label's order
    ("GRPO groups", None),                     # names an arm
    ("Over", None),                            # too short a word to stand for a label
])
def test_a_shortened_label_names_one_declared_metric(label, metric):
    assert SHORT.metric_shortened(label) == metric


TABLE_SHORT = """| Objective | Groups (mean, 0–4) | Well formed, % |
|---|---|---|
| GRPO | 2.528 | 94.0 |
| DAPO | 2.540 | 90.8 |
"""


@pytest.mark.parametrize(("find", "replace", "source"), [
    ("| 90.8 |", "| 90.3 |", "arms.dapo.format_pct.mean"),
    ("| 2.528 |", "| 2.582 |", "arms.grpo.groups_correct.mean"),
], ids=["well-formed-shortened", "groups-shortened"])
def test_a_shortened_metric_header_is_the_declared_metric(leaderboard_study, tmp_path, find, replace, source):
    """"Well formed, %" stands for the one declared label "Well-formed answers (%)" and "Groups (mean,
    0–4)" for "Groups correct": each cell is checked against that metric of its row's arm (it was
    value-only in a results table, an error by default)."""
    assert _findings(leaderboard_study, tmp_path, TABLE_SHORT) == []
    wrong = _findings(leaderboard_study, tmp_path / "w", TABLE_SHORT.replace(find, replace))
    assert [f for f in wrong if source in f[1]], wrong


# ---- "±" stated as the half-width of an interval ----------------------------------------------------------

HW_HEADER = """| Objective | Solve rate, % (mean ± 95% CI) |
|---|---|
| GRPO | 61.8 ± 14.4 |
| GSPO | 64.8 ± 5.0 |
"""
HW_CAPTION = """Cells are the mean over three seeds, with the half-width of its 95% t interval after the ±.

| Objective | Solve rate (%) |
|---|---|
| GRPO | 61.8 ± 14.4 |
| GSPO | 64.8 ± 5.0 |
"""
HW_PROSE = "GSPO solves 64.8% ± 5.0 of the puzzles (± is the half-width of the 95% interval over seeds).\n"
HW_SD = """| Objective | Solve rate, % (mean ± sd) |
|---|---|
| GRPO | 61.8 ± 5.8 |
| GSPO | 64.8 ± 2.0 |
"""


@pytest.mark.parametrize(("text", "find", "replace", "source"), [
    (HW_HEADER, "± 14.4", "± 5.8", "arms.grpo.solve_rate.mean.ci95"),
    (HW_CAPTION, "± 5.0", "± 2.0", "arms.gspo.solve_rate.mean.ci95"),
    (HW_PROSE, "± 5.0", "± 2.0", "arms.gspo.solve_rate.mean.ci95"),
    (HW_SD, "± 2.0", "± 5.0", "arms.gspo.solve_rate.sd"),
], ids=["header-says-95-ci", "caption-says-half-width", "sentence-says-half-width", "sd-header-still-sd"])
def test_a_plus_minus_stated_as_half_width_is_the_intervals(leaderboard_study, tmp_path, text, find, replace, source):
    """Where the header, the caption or the sentence says the "±" is the 95% interval's half-width, the
    number is checked against (ci95.high - ci95.low) / 2 (over three seeds, t-based: 2.5 times the SD),
    and the SD written there is an error; a "mean ± sd" header keeps it the SD."""
    assert _findings(leaderboard_study, tmp_path, text) == []
    wrong = _findings(leaderboard_study, tmp_path / "w", text.replace(find, replace))
    assert [f for f in wrong if source in f[1]], wrong


# ---- a LaTeX tabular with seeds as rows, the metric only in its caption, arms under a spanning header ------

@pytest.fixture(scope="module")
def siunitx_study(tmp_path_factory):
    from tests.report_corpus_blind import blind

    return blind.build("tex_siunitx", tmp_path_factory.mktemp("tex"))


SEED_ROWS = r"""\documentclass{article}
\usepackage{siunitx}
\usepackage{threeparttable}
\begin{document}
\begin{table}
\begin{threeparttable}
\caption{Per-seed test accuracy in \%; one row per seed.}
\begin{tabular}{l S S}
\toprule
 & \multicolumn{2}{c}{Objectives\tnote{*}} \\
Seed & {GSPO} & {AERO} \\
\midrule
13 & 72.33 & 69.92 \\
29 & 73.17 & 70.75 \\
\midrule
Average & 72.82 & 70.37 \\
\bottomrule
\end{tabular}
\end{threeparttable}
\end{table}
\end{document}
"""


@pytest.mark.parametrize(("find", "replace", "source"), [
    ("13 & 72.33", "13 & 72.38", "runs.gspo.s13.heldout_accuracy"),
    ("29 & 73.17 & 70.75", "29 & 73.17 & 70.57", "runs.aero.s29.heldout_accuracy"),
    ("& 70.37", "& 70.73", "arms.aero.heldout_accuracy.mean"),
], ids=["seed-cell", "seed-cell-last-column", "average-row"])
def test_seed_rows_take_the_captions_metric_under_a_spanning_header(siunitx_study, tmp_path, find, replace, source):
    """Seeds as rows, arms as columns under a ``\\multicolumn`` "Objectives" with a ``\\tnote``, the metric
    named only by the caption: each cell is that seed's run of the column's arm, and the "Average" row
    the arm's mean, of the caption's metric (the row was read as another metric's mean, the seed cells
    were untraced: an error under ``--strict``)."""
    assert _findings(siunitx_study, tmp_path, SEED_ROWS, "paper.tex", strict=True) == []
    wrong = _findings(siunitx_study, tmp_path / "w", SEED_ROWS.replace(find, replace), "paper.tex")
    assert [f for f in wrong if source in f[1]], wrong


# ---- a p-value of a test other than the registered one, named in its sentence --------------------------------

@pytest.fixture(scope="module")
def thread_study(tmp_path_factory):
    from tests.report_corpus_blind import blind

    return blind.build("thread", tmp_path_factory.mktemp("thread"))


OTHER_TEST = ("GSPO vs GRPO under Welch's test instead: p ≈ 0.023 (so p < .05), which we may not use.\n\n"
              "With the Wilcoxon signed-rank test GSPO against GRPO gives p ~ 0.25.\n")


@pytest.mark.parametrize(("find", "replace", "source"), [
    ("p ≈ 0.023", "p ≈ 0.072", "contrasts.gspo-grpo.tests.welch_t.p"),
    ("p < .05", "p < .01", "contrasts.gspo-grpo.tests.welch_t.p"),
    ("p ~ 0.25", "p ~ 0.07", "contrasts.gspo-grpo.tests.wilcoxon.p"),
], ids=["welch-p-approx", "welch-bound", "wilcoxon-p-tilde"])
def test_a_p_of_another_named_test_is_that_tests(thread_study, tmp_path, find, replace, source):
    """"p ≈ 0.023" after "Welch's test" is the Welch test's p (not the registered paired t's), "p < .05"
    in the same sentence bounds that test's p, and "p ~" is a p as "p =" is."""
    assert _findings(thread_study, tmp_path, OTHER_TEST) == []
    wrong = _findings(thread_study, tmp_path / "w", OTHER_TEST.replace(find, replace))
    assert [f for f in wrong if source in f[1]], wrong


# ---- a range of the seeds' spread in other words -------------------------------------------------------------

SPREAD = "Seed-to-seed variation is modest, about 0.7 to 1 point for every method (GSPO's sd is 0.91 pts).\n"


def test_a_seed_to_seed_range_is_no_value(thread_study, tmp_path):
    """"Seed-to-seed variation ... about 0.7 to 1 point" is the range of the seeds' spread, not an arm's
    mean or a difference; the SD quoted in the same sentence is still checked."""
    assert _findings(thread_study, tmp_path, SPREAD) == []
    wrong = _findings(thread_study, tmp_path / "w", SPREAD.replace("0.91 pts", "0.19 pts"))
    assert [f for f in wrong if "arms.gspo.heldout_accuracy.sd" in f[1]], wrong


# ---- an SD named before a parenthesis that compares it with another arm's -----------------------------------

@pytest.fixture(scope="module")
def campaign_study(tmp_path_factory):
    from tests.report_corpus_blind import blind

    return blind.build("slide_deck", tmp_path_factory.mktemp("slides"))


SD_VS = "- DAPO's SD over the three seeds is lower than GRPO's (0.063, against 0.067 for GRPO)\n"


@pytest.mark.parametrize(("find", "replace", "source"), [
    ("(0.063,", "(0.036,", "arms.dapo.heldout_accuracy.sd"),
    ("against 0.067", "against 0.076", "arms.grpo.heldout_accuracy.sd"),
], ids=["first-is-the-subjects-sd", "second-is-the-named-arms-sd"])
def test_an_sd_compared_in_parentheses(campaign_study, tmp_path, find, replace, source):
    """"DAPO's SD ... (0.063, against 0.067 for GRPO)": the first value is the subject's SD, the one after
    "against" the SD of the arm named after it (both were read as the arms' means)."""
    assert _findings(campaign_study, tmp_path, SD_VS) == []
    wrong = _findings(campaign_study, tmp_path / "w", SD_VS.replace(find, replace))
    assert [f for f in wrong if source in f[1]], wrong


# ---- a seed named before a decimal value: no seed list; "X against Y" on that seed -------------------------

@pytest.fixture(scope="module")
def notebook_study(tmp_path_factory):
    from tests.report_corpus_blind import blind

    return blind.build("nb_export", tmp_path_factory.mktemp("nb"))


SEED_THEN_VALUE = "Dr. GRPO edges GRPO on every seed, narrowly on seed 202, 0.5773 against 0.5747.\n"


@pytest.mark.parametrize(("find", "replace", "source"), [
    ("202, 0.5773", "202, 0.5737", "runs.dr_grpo.s202.heldout_accuracy"),
    ("against 0.5747", "against 0.5774", "runs.grpo.s202.heldout_accuracy"),
], ids=["the-arms-run", "the-baselines-run-after-against"])
def test_a_seed_before_a_decimal_is_no_seed_list(notebook_study, tmp_path, find, replace, source):
    """"seed 202, 0.5773" names seed 202 and then a value, not the seed list "202, 0" (an unregistered seed
    0); the value is the arm's run on that seed and the one after "against" the baseline's."""
    assert _findings(notebook_study, tmp_path, SEED_THEN_VALUE) == []
    wrong = _findings(notebook_study, tmp_path / "w", SEED_THEN_VALUE.replace(find, replace))
    assert [f for f in wrong if source in f[1]], wrong


def test_a_seed_list_still_reads_its_last_seed():
    from audit.claims import _SEED_LIST

    assert _SEED_LIST.search("seeds 101, 202, 303").group(1) == "101, 202, 303"
    assert _SEED_LIST.search("on seed 202, 0.5773 against") is None
    assert _SEED_LIST.search("seeds 1, 2, 30.5 points").group(1) == "1, 2"   # the decimal is no seed


# ---- an interval's ends in two columns, written the wrong way round -------------------------------------------

ENDS_COLUMNS = """| method | accuracy | lower_95 | upper_95 |
|---|---|---|---|
| dapo | 0.6007 | 0.5943 | 0.6077 |
| dr_grpo | 0.5767 | 0.5724 | 0.5817 |
"""


def test_interval_ends_in_two_columns_swapped(notebook_study, tmp_path):
    """Cells of a lower-end and an upper-end column that hold each other's value are named as an interval
    with swapped ends (not only as two wrong numbers); a plain wrong end gets no such hint."""
    assert _findings(notebook_study, tmp_path, ENDS_COLUMNS) == []
    swapped = _findings(notebook_study, tmp_path / "w", ENDS_COLUMNS.replace("0.5724 | 0.5817", "0.5817 | 0.5724"))
    assert len([f for f in swapped if "swapped ends" in f[3]]) == 2, swapped
    wrong = _findings(notebook_study, tmp_path / "x", ENDS_COLUMNS.replace("0.5724 | 0.5817", "0.5742 | 0.5817"))
    assert [f for f in wrong if "ci95.low" in f[1]] and not [f for f in wrong if "swapped" in f[3]], wrong


# ---- a contrast statistic "for all three" / "for both" ---------------------------------------------------------

EVERY_THREE = "Holm-adjusted, the p-value is 0.156 in each of the three comparisons against the base model.\n"
EVERY_BOTH = "Adjusted for multiplicity (BH), p = 0.145 for both.\n"
EVERY_BOTH_RIGHT = "Adjusted for multiplicity (BH), p = 0.145 for GSPO and 0.514 for Dr. GRPO.\n"


def test_a_statistic_for_every_contrast(leaderboard_study, thread_study, tmp_path):
    """"0.156 in each of the three comparisons" is every contrast's adjusted p against the baseline: it
    passes where all three are 0.156 and is an error where one is not ("p = 0.145 for both", when the
    second contrast's is 0.514); a wrong value is an error against the first contrast."""
    assert _findings(leaderboard_study, tmp_path / "a", EVERY_THREE) == []
    wrong = _findings(leaderboard_study, tmp_path / "b", EVERY_THREE.replace("0.156", "0.052"))
    assert [f for f in wrong if f[1].endswith("-base.p_adjusted = 0.15559585802)")], wrong
    assert _findings(thread_study, tmp_path / "c", EVERY_BOTH_RIGHT) == []
    both = _findings(thread_study, tmp_path / "d", EVERY_BOTH)
    assert [f for f in both if "contrasts.dr_grpo-grpo.p_adjusted" in f[1]], both


# ---- a list of p-values after the arms they belong to ------------------------------------------------------------

P_LIST = "Against GRPO, Dr. GRPO moves by +0.2 pts and GSPO by +2.0 pts; their p-values were 0.514 and 0.072.\n"


@pytest.mark.parametrize(("find", "replace", "source"), [
    ("were 0.514 and 0.072", "were 0.072 and 0.514", "contrasts.dr_grpo-grpo.p"),
    ("and 0.072.", "and 0.027.", "contrasts.gspo-grpo.p"),
], ids=["swapped-list", "second-of-list"])
def test_a_list_of_p_values_follows_the_arms_named_before_it(thread_study, tmp_path, find, replace, source):
    """"Dr. GRPO ... and GSPO ...; their p-values were 0.514 and 0.072": as many p-values as arms named
    before them are those arms' contrasts' p-values in the order written (each was read as the last arm's)."""
    assert _findings(thread_study, tmp_path, P_LIST) == []
    wrong = _findings(thread_study, tmp_path / "w", P_LIST.replace(find, replace))
    assert [f for f in wrong if source in f[1]], wrong


# ---- "from X (ARM) to Y": the arm in parentheses after a value ---------------------------------------------------

FROM_PAREN = "Dr. GRPO lowers the zero-variance fraction only a little, from 0.330 (GRPO) to 0.322.\n"


@pytest.mark.parametrize(("find", "replace", "source"), [
    ("from 0.330 (GRPO)", "from 0.303 (GRPO)", "arms.grpo.zvf_mean"),
    ("to 0.322.", "to 0.232.", "arms.dr_grpo.zvf_mean"),
], ids=["value-before-parenthesised-arm", "to-value-is-the-subjects"])
def test_an_arm_in_parentheses_after_a_value_owns_it(thread_study, tmp_path, find, replace, source):
    """"Dr. GRPO lowers ZVF from 0.330 (GRPO) to 0.322": the first value is GRPO's (the arm in parentheses
    right after it), the value after "to" the subject's (they were read the other way round)."""
    assert _findings(thread_study, tmp_path, FROM_PAREN) == []
    wrong = _findings(thread_study, tmp_path / "w", FROM_PAREN.replace(find, replace))
    assert [f for f in wrong if source in f[1]], wrong


# ---- a difference typed in a macro, its interval right after the macro's use -------------------------------------

MACRO_DIFF = r"""\documentclass{article}
\usepackage{siunitx}
\DeclareSIUnit{\pp}{pp}
\newcommand{\aeroDiff}{\qty{-0.68}{\pp}}
\begin{document}
Against GRPO, AERO shows a difference of \aeroDiff{} (95\% CI \qtyrange{-0.94}{-0.47}{\pp}).
\end{document}
"""


@pytest.mark.parametrize(("find", "replace", "source"), [
    ("{-0.68}", "{-0.86}", "contrasts.aero-grpo.diff_mean"),
    ("{-0.94}{-0.47}", "{-0.94}{-0.74}", "contrasts.aero-grpo.ci95.high"),
], ids=["qty-in-newcommand", "interval-after-the-macro"])
def test_a_difference_in_a_macro_and_its_interval(siunitx_study, tmp_path, find, replace, source):
    """``\\newcommand{\\aeroDiff}{\\qty{-0.68}{\\pp}}`` names one arm and a difference: it is that arm's one
    contrast, in points; "a difference of \\aeroDiff{} (95% CI ...)" makes the interval the contrast's (it was
    untraced, and the interval read as the arm's mean's)."""
    assert _findings(siunitx_study, tmp_path, MACRO_DIFF, "paper.tex") == []
    wrong = _findings(siunitx_study, tmp_path / "w", MACRO_DIFF.replace(find, replace), "paper.tex")
    assert [f for f in wrong if source in f[1]], wrong


# ---- an equivalence margin is the locked margin; a size a verdict needs detected is no value -------------------

MARGIN = ("Dr. GRPO is equivalent to GRPO within the preregistered ±1 pp margin (TOST p ≈ 0.03); the design "
          "would have to detect a 1-point gap for that verdict.\n")
MARGIN_TEX = r"""\documentclass{article}
\usepackage{siunitx}
\DeclareSIUnit{\pp}{pp}
\begin{document}
DAPO is equivalent to GRPO within the equivalence margin of \qty{1}{\pp}.
\end{document}
"""


@pytest.mark.parametrize(("text", "find", "replace", "name"), [
    (MARGIN, "±1 pp margin", "±2 pp margin", "report.md"),
    (MARGIN_TEX, r"\qty{1}{\pp}", r"\qty{1.5}{\pp}", "paper.tex"),
], ids=["pm-n-pp-margin", "margin-of-qty"])
def test_an_equivalence_margin_is_the_locked_margin(thread_study, siunitx_study, tmp_path, text, find, replace, name):
    """"within the preregistered ±1 pp margin" and "margin of \\qty{1}{\\pp}" are the locked equivalence margin
    (lock.analysis.equivalence_margin = 0.01, in points), not a difference; a wrong margin is an error. "would
    have to detect a 1-point gap" is a size the verdict needs, no value of the study."""
    study = thread_study if name == "report.md" else siunitx_study
    assert _findings(study, tmp_path, text, name) == []
    wrong = _findings(study, tmp_path / "w", text.replace(find, replace), name)
    assert [f for f in wrong if "lock.analysis.equivalence_margin" in f[1]], wrong


# ---- a fraction metric's percent with the % left off, after percents in its paragraph ----------------------------

NO_PCT = "Dr. GRPO is ahead by about 0.4 pts on seed 3, where it scored 55.0 and GRPO 54.6.\n"
NO_PCT_CUE = "On seed 3 Dr. GRPO scored 55.0 and GRPO 54.6.\n"


def test_a_percent_without_its_sign_after_points(thread_study, tmp_path):
    """After "0.4 pts" in its paragraph, "scored 55.0 and GRPO 54.6" are the runs' held-out accuracies in
    percent (the metric is a fraction): traced, and a wrong one is an error against that run; with no percent
    or points before them in the paragraph they stay "a percentage written where the unit is a fraction"."""
    assert _findings(thread_study, tmp_path / "a", NO_PCT) == []
    wrong = _findings(thread_study, tmp_path / "b", NO_PCT.replace("GRPO 54.6", "GRPO 56.4"))
    assert [f for f in wrong if "runs.grpo.s3.heldout_accuracy" in f[1]], wrong
    bare = _findings(thread_study, tmp_path / "c", NO_PCT_CUE)
    assert [f for f in bare if "a percentage written where the unit is a fraction" in f[3]], bare


# ---- one verdict word for every registered contrast; a verdict named by its criterion; "all three gains" ------

EACH_VERDICT = "With four seeds each registered verdict remains INCONCLUSIVE.\n"
CRITERION = ("Both contrasts stay open. A SURVIVES verdict would need the adjusted interval to clear zero, "
             "which neither does.\n")


@pytest.mark.parametrize(("text", "find", "replace", "message"), [
    (EACH_VERDICT, "remains INCONCLUSIVE", "remains SURVIVES", "verdict word SURVIVES contradicts the analysis"),
    (CRITERION, "A SURVIVES verdict would need", "GSPO's verdict is SURVIVES; a SURVIVES verdict would need",
     "verdict word SURVIVES contradicts the analysis: gspo-grpo is INCONCLUSIVE"),
], ids=["each-registered-verdict", "verdict-named-by-its-criterion"])
def test_verdict_words_over_every_contrast_and_as_a_criterion(thread_study, tmp_path, text, find, replace, message):
    """"each registered verdict remains X" is checked against every confirmatory contrast's verdict (it named
    no single contrast and went unchecked); "a SURVIVES verdict would need ..." names the verdict's criterion,
    no claim (it was read as claiming SURVIVES), while "GSPO's verdict is SURVIVES" beside it still is one."""
    assert _findings(thread_study, tmp_path, text) == []
    wrong = _findings(thread_study, tmp_path / "w", text.replace(find, replace))
    assert [f for f in wrong if message in f[3]], wrong


GAINS = "Before any correction, none of the three improvements over the base model is significant.\n"


def test_a_group_of_gains_is_significant_or_not(leaderboard_study, tmp_path):
    """"none of the three improvements over the base model is significant" is one claim about each contrast
    with the base model (as "neither comparison" is): true here; "all three ... are significant" is an error."""
    assert _findings(leaderboard_study, tmp_path, GAINS) == []
    wrong = _findings(leaderboard_study, tmp_path / "w", GAINS.replace(
        "none of the three improvements over the base model is", "all three improvements over the base model are"))
    assert [f for f in wrong if "-base is not significant" in f[3]], wrong


# ---- "wins on k of n seeds" ----------------------------------------------------------------------------------------

K_OF_N = "Against GRPO, Dr. GRPO came out ahead in three of the four seeds.\n"


@pytest.mark.parametrize(("find", "replace"), [("three of the four", "two of the four"),
                                               ("three of the four", "three of the five")],
                         ids=["wrong-k", "wrong-n"])
def test_wins_on_k_of_n_seeds(thread_study, tmp_path, find, replace):
    """"Dr. GRPO came out ahead in three of the four seeds" counts the locked seeds on which its run beats
    GRPO's (3 of 4 here); a wrong count of wins or of seeds is an error naming the runs."""
    assert _findings(thread_study, tmp_path, K_OF_N) == []
    wrong = _findings(thread_study, tmp_path / "w", K_OF_N.replace(find, replace))
    assert [f for f in wrong if "dr_grpo beats grpo on 3 of the 4 seeds" in f[3]], wrong


# ---- the number of evaluation sessions --------------------------------------------------------------------------

SESSIONS = "The base model and GSPO were scored again later, so the records hold two separate evaluation sessions.\n"


@pytest.mark.parametrize("replace", ["one separate evaluation sessions", "4 separate eval sessions"])
def test_the_number_of_evaluation_sessions(leaderboard_study, tmp_path, replace):
    """"two separate evaluation sessions" is checked against the analysis' sessions (s1, s2), in words or digits."""
    assert _findings(leaderboard_study, tmp_path, SESSIONS) == []
    wrong = _findings(leaderboard_study, tmp_path / "w", SESSIONS.replace("two separate evaluation sessions", replace))
    assert [f for f in wrong if "the analysis holds 2 evaluation sessions (s1, s2)" in f[3]], wrong


# ---- an image directive's size; "the observed X" set against the MDE --------------------------------------------

IMAGE = "GSPO leads on every seed.\n\n![bg left:40%](figures/bars.png)\n"
OBSERVED = "For GSPO against GRPO, with an MDE of 0.079 at 80% power, the observed 0.076 falls just short.\n"


def test_an_image_directive_is_no_number(campaign_study, tmp_path):
    """"![bg left:40%](...)" (a Marp slide's image placement) holds no value of the study; a number in an
    image's alt text that is no directive ("GSPO at 40%") is still read."""
    assert _findings(campaign_study, tmp_path, IMAGE) == []
    wrong = _findings(campaign_study, tmp_path / "w", IMAGE.replace("bg left:40%", "GSPO at 40%"))
    assert [f for f in wrong if f[2].startswith("40%")], wrong


def test_the_observed_value_beside_an_mde_is_the_difference(campaign_study, tmp_path):
    """"For GSPO against GRPO, with an MDE of 0.079 ..., the observed 0.076 falls just short" is the contrast's observed difference
    (it was read as an arm's mean)."""
    assert _findings(campaign_study, tmp_path, OBSERVED) == []
    wrong = _findings(campaign_study, tmp_path / "w", OBSERVED.replace("observed 0.076", "observed 0.067"))
    assert [f for f in wrong if "contrasts.gspo-grpo.diff_mean" in f[1]], wrong


# ---- under a heading naming the baseline, the arm named last (even named before) owns the statistic -----------

HEADED_AGAIN = """## Compared with the SFT checkpoint (exploratory)

GRPO +5.8 points [−3.5, 15.5] and DAPO +9.3 [0.2, 18.2]; as before, GRPO +5.8 [−3.5, 15.5] covers zero.
"""


def test_an_arm_named_again_under_a_baseline_heading(leaderboard_study, tmp_path):
    """Under "## Compared with the SFT checkpoint", the statistic after "GRPO" named a second time is GRPO's
    contrast with SFT (it was read as DAPO's, the last distinct arm named)."""
    assert _findings(leaderboard_study, tmp_path, HEADED_AGAIN) == []
    wrong = _findings(leaderboard_study, tmp_path / "w", HEADED_AGAIN.replace("GRPO +5.8 [−3.5, 15.5] covers",
                                                                             "GRPO +8.8 [−3.5, 15.5] covers"))
    assert [f for f in wrong if "contrasts.grpo-sft.diff_mean" in f[1]], wrong


# ---- numbers that name a post, a place, a session or a count of seeds (under --strict) --------------------------

THREAD_STRICT = ("**2/5** Over the last ten steps GSPO's reward is 0.536 (session 1, week 49). GSPO wins on 3 of 4 "
                 "seeds, and adjusted for the 2 comparisons (BH) its p = 0.145.\n")
RANKED = """| Place | Model | Solve rate (%) |
|---|---|---|
| 1 | GSPO | 64.8 |
| 2 | DAPO | 65.3 |
"""


@pytest.mark.parametrize(("which", "find", "replace", "source"), [
    ("thread", "reward is 0.536", "reward is 0.563", "arms.gspo.reward_last10"),
    ("leaderboard", "| 64.8 |", "| 46.8 |", "arms.gspo.solve_rate.mean"),
], ids=["post-session-week-k-of-n", "rank-column"])
def test_numbers_that_name_are_labels_under_strict(thread_study, leaderboard_study, tmp_path, which, find, replace,
                                                   source):
    """"**2/5**" opening a post, "session 1", "week 49", the 3 of "3 of 4 seeds", "the 2 comparisons" and a
    "Place" column name things, no value (each was value-only or untraced: an error under ``--strict``); "the
    last ten steps" names the reward metric; the values beside them are still checked."""
    study, text = (thread_study, THREAD_STRICT) if which == "thread" else (leaderboard_study, RANKED)
    assert _findings(study, tmp_path, text, strict=True) == []
    wrong = _findings(study, tmp_path / "w", text.replace(find, replace), strict=True)
    assert [f for f in wrong if source in f[1]], wrong
