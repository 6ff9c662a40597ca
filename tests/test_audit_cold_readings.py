"""What the cold report set (``tests/report_corpus_cold/``) taught the audit (README failure 15).

Each fix made after the set's first run has a firing case and a clean case here, in wordings and
numbers of its own (not copied from the set's reports), over the set's card study (GRPO, DAPO, GSPO
over five seeds; accuracy a fraction).
"""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def card_study(tmp_path_factory):
    from tests.report_corpus_cold import cold

    return cold.build("hf_card_disagree", tmp_path_factory.mktemp("cold_card"))


def _findings(study, tmp_path, text):
    from tests.report_corpus import corpus

    tmp_path.mkdir(parents=True, exist_ok=True)
    res = corpus.audit_written(study, tmp_path, {"report.md": text})
    return [(f.location.rsplit(":", 1)[-1], f.expected, f.found, f.message) for f in res.findings]


# ---- a "Seed SD" column is a statistic over the seeds, not the column naming each row ----------------------

SEED_SD = """| Method | Held-out accuracy | Seed SD |
|---|---|---|
| grpo | 0.6140 | 0.0076 |
| dapo | 0.6197 | 0.0081 |
"""
# under a title naming one run, a row naming another arm is still that arm's
SEED_SD_UNDER_RUN = "# gspo, seed 15: adapter card\n\n## Every method\n\n" + SEED_SD


@pytest.mark.usefixtures("shared_recompute")
@pytest.mark.parametrize("text", [SEED_SD, SEED_SD_UNDER_RUN], ids=["plain", "under-a-run-title"])
@pytest.mark.parametrize(("find", "replace", "source"), [
    ("| 0.6197 |", "| 0.6179 |", "arms.dapo.heldout_accuracy.mean"),
    ("| 0.0081 |", "| 0.0076 |", "arms.dapo.heldout_accuracy.sd"),
], ids=["mean", "sd"])
def test_seed_sd_column_is_no_identity_column(card_study, tmp_path, text, find, replace, source):
    assert _findings(card_study, tmp_path, text) == []
    wrong = _findings(card_study, tmp_path / "w", text.replace(find, replace))
    assert [f for f in wrong if source in f[1]], wrong


# ---- points: "(pts)" in a header, "pt" in a cell, "accuracy points" in a sentence ---------------------------

PTS_TABLE = """| Comparison | Δ (pts) | p |
|---|---|---|
| GSPO vs GRPO | +2.43 | 0.0002 |
"""
PT_CELL = """| Method | Accuracy (%) | SD across seeds |
|---|---|---|
| DAPO | 61.97 | 0.81 pt |
"""
POINTS_PROSE = "Against GRPO, GSPO gains 2.43 accuracy points on the held-out set.\n"


@pytest.mark.usefixtures("shared_recompute")
@pytest.mark.parametrize(("text", "find", "replace", "source"), [
    (PTS_TABLE, "+2.43", "+2.34", "contrasts.gspo-grpo.diff_mean"),
    (PT_CELL, "0.81 pt", "0.18 pt", "arms.dapo.heldout_accuracy.sd"),
    (POINTS_PROSE, "2.43 accuracy", "2.34 accuracy", "contrasts.gspo-grpo.diff_mean"),
], ids=["pts-header", "pt-cell", "accuracy-points"])
def test_points_of_a_fraction_metric(card_study, tmp_path, text, find, replace, source):
    assert _findings(card_study, tmp_path, text) == []
    wrong = _findings(card_study, tmp_path / "w", text.replace(find, replace))
    assert [f for f in wrong if source in f[1]], wrong


# ---- an interval's ends in the unit of the row's mean -------------------------------------------------------

PCT_ROW = """| Method | Accuracy | Interval (95%) | ZVF |
|---|---|---|---|
| DAPO | 61.97 % | 61.37 – 62.60 | 0.303 |
| GSPO | 63.83 % | 63.03 – 64.53 | 0.294 |
"""


@pytest.mark.usefixtures("shared_recompute")
def test_interval_ends_take_the_percent_of_their_rows_mean(card_study, tmp_path):
    assert _findings(card_study, tmp_path, PCT_ROW) == []
    wrong = _findings(card_study, tmp_path / "w", PCT_ROW.replace("61.37 –", "61.73 –"))
    assert [f for f in wrong if "arms.dapo.heldout_accuracy.mean.ci95.low" in f[1]], wrong


# ---- statistics in prose: "the 90% interval", an MDE list after "α = 0.05", a "t" column -----------------

CI90_PROSE = "For DAPO against GRPO the 90% interval is [0.0034, 0.0074], inside the margin.\n"
CI90_COLON = "DAPO: 90% interval [0.0034, 0.0074], inside the margin.\n"   # the arm's mean has no 90% interval
T_COLUMN = """| Contrast | Δ | t |
|---|---|---|
| GSPO − GRPO | +0.0243 | 12.51 |
"""


@pytest.mark.usefixtures("shared_recompute")
@pytest.mark.parametrize(("text", "find", "replace", "source"), [
    (CI90_PROSE, "0.0074]", "0.0084]", "contrasts.dapo-grpo.ci90.high"),
    (CI90_COLON, "[0.0034,", "[0.0043,", "contrasts.dapo-grpo.ci90.low"),
    (T_COLUMN, "| 12.51 |", "| 12.15 |", "contrasts.gspo-grpo.tests.paired_t.statistic"),
], ids=["ci90-in-prose", "ci90-after-arm", "t-column"])
def test_contrast_statistics_named_by_their_words(card_study, tmp_path, text, find, replace, source):
    assert _findings(card_study, tmp_path, text) == []
    wrong = _findings(card_study, tmp_path / "w", text.replace(find, replace))
    assert [f for f in wrong if source in f[1]], wrong


@pytest.fixture(scope="module")
def appendix_study(tmp_path_factory):
    from tests.report_corpus_cold import cold

    return cold.build("appendix_stars", tmp_path_factory.mktemp("cold_appendix"))


MDE_AFTER_ALPHA = ("At α = 0.05 and 80% power the smallest detectable effect is 0.0082 for Dr. GRPO and 0.0071 "
                   "for GSPO.\n")


@pytest.mark.usefixtures("shared_recompute")
@pytest.mark.parametrize(("find", "replace", "source"), [
    ("is 0.0082", "is 0.0028", "contrasts.dr_grpo-grpo.mde"),
    ("0.0071 ", "0.0017 ", "contrasts.gspo-grpo.mde"),
], ids=["first", "after-dr-grpo"])
def test_mde_list_after_alpha(appendix_study, tmp_path, find, replace, source):
    assert _findings(appendix_study, tmp_path, MDE_AFTER_ALPHA) == []
    wrong = _findings(appendix_study, tmp_path / "w", MDE_AFTER_ALPHA.replace(find, replace))
    assert [f for f in wrong if source in f[1]], wrong


# ---- counts in a table whose caption says "solved out of n" ----------------------------------------------

CAPTION_COUNTS = """Table 4: problems solved out of 600 on each seed.

| Seed | GRPO | GSPO |
|---|---|---|
| 3 | 365 | 383 |
"""


@pytest.mark.usefixtures("shared_recompute")
def test_counts_under_a_caption_saying_solved_out_of_n(card_study, tmp_path):
    assert _findings(card_study, tmp_path, CAPTION_COUNTS) == []
    wrong = _findings(card_study, tmp_path / "w", CAPTION_COUNTS.replace("| 383 |", "| 338 |"))
    assert [f for f in wrong if "runs.gspo.s3.heldout_accuracy" in f[1]], wrong


# ---- a reST :math: t statistic, "BH p =" after "p =", thresholds named before a number -------------------

RST_T = """GSPO against GRPO
=================

Paired over five seeds, :math:`t_4 = 12.51` and p = 0.00023.
"""
BH_P = "- GSPO vs GRPO: +0.0243, p = 0.00023, BH p = 0.00047\n"
MARGIN = "DAPO stays inside the equivalence margin of 0.01: its 90% interval is [0.0034, 0.0074].\n"
P_BELOW = "For GSPO against GRPO the BH-adjusted p of 0.00047 is below 0.05.\n"


@pytest.mark.usefixtures("shared_recompute")
@pytest.mark.parametrize(("name", "text", "find", "replace", "source"), [
    ("results.rst", RST_T, "12.51", "12.15", "contrasts.gspo-grpo.tests.paired_t.statistic"),
    ("report.md", BH_P, "BH p = 0.00047", "BH p = 0.00023", "contrasts.gspo-grpo.p_adjusted"),
    ("report.md", MARGIN, "0.0074]", "0.0084]", "contrasts.dapo-grpo.ci90.high"),
    ("report.md", P_BELOW, "p of 0.00047", "p of 0.00074", "contrasts.gspo-grpo.p_adjusted"),
], ids=["rst-math-t", "bh-p-after-p", "after-a-margin", "p-below-alpha"])
def test_statistics_and_the_thresholds_around_them(card_study, tmp_path, name, text, find, replace, source):
    from tests.report_corpus import corpus

    def findings(folder, body):
        folder.mkdir(parents=True, exist_ok=True)
        res = corpus.audit_written(card_study, folder, {name: body})
        return [(f.location.rsplit(":", 1)[-1], f.expected, f.found, f.message) for f in res.findings]

    assert findings(tmp_path, text) == []
    wrong = findings(tmp_path / "w", text.replace(find, replace))
    assert [f for f in wrong if source in f[1]], wrong


# ---- claims: a group claim no longer hides its sentence's other significance words (27ad061); a verdict
# ---- word in a verdict's place that the study's own rules cannot give ------------------------------------

@pytest.fixture(scope="module")
def sessions_study(tmp_path_factory):
    from tests.report_corpus_cold import cold

    return cold.build("pr_comment", tmp_path_factory.mktemp("cold_pr"))


GROUP_AND_ONE = "DAPO is ahead of the base model, yet after Holm none of the three gains is significant.\n"
ARROW = "- DAPO against the base model: +0.217, Holm p = 0.145 ⇒ INCONCLUSIVE\n"
VERDICT_FIELD = "GRPO against the base model (Holm p = 0.145). Verdict: **INCONCLUSIVE**.\n"


@pytest.mark.usefixtures("shared_recompute")
@pytest.mark.parametrize(("text", "find", "replace", "found"), [
    (GROUP_AND_ONE, "is ahead of", "is significantly ahead of", "significantly"),
    (GROUP_AND_ONE, "none of the three gains is", "all three gains are", "all three gains are significant"),
    (ARROW, "⇒ INCONCLUSIVE", "⇒ RETAINS", "RETAINS"),
    (VERDICT_FIELD, "**INCONCLUSIVE**", "**SURVIVES**", "SURVIVES"),
], ids=["group-hides-no-word", "group-itself", "arrow-template-verdict", "verdict-field"])
def test_claims_in_a_sentence_with_a_group_claim_and_verdict_slots(sessions_study, tmp_path, text, find, replace,
                                                                  found):
    assert _findings(sessions_study, tmp_path, text) == []
    wrong = _findings(sessions_study, tmp_path / "w", text.replace(find, replace))
    assert [f for f in wrong if found in f[2]], wrong


# ---- significance under a Holm plan: the nearest mention of adjustment decides which p a word speaks of ------

HOLM_WORDS = "Before correction, DAPO against GRPO gives p = 0.032; once Holm is applied the gain is not significant.\n"
RAW_WORDS = "DAPO's gain over GRPO is nominally significant (p = 0.032), though Holm's adjusted p is 0.064.\n"


@pytest.mark.usefixtures("shared_recompute")
@pytest.mark.parametrize(("text", "find", "replace", "source"), [
    (HOLM_WORDS, "is not significant", "is significant", "contrasts.dapo-grpo.reject"),
    (RAW_WORDS, "is nominally significant", "is nominally not significant", "contrasts.dapo-grpo.p "),
], ids=["after-holm", "nominal-before-holm"])
def test_significance_reads_the_nearest_adjustment_words(appendix_study, tmp_path, text, find, replace, source):
    assert _findings(appendix_study, tmp_path, text) == []
    wrong = _findings(appendix_study, tmp_path / "w", text.replace(find, replace))
    assert [f for f in wrong if source in f[1]], wrong


def test_adjusted_at_takes_the_nearest_mention():
    from audit.claims import adjusted_at

    sent = "p = 0.032 unadjusted, but after Holm the adjusted value is 0.064, so it is not significant"
    assert adjusted_at(sent, sent.index("not significant"))
    assert adjusted_at(sent, 0) is False   # before every mention: the first after it ("unadjusted")
    assert adjusted_at("significant before any correction", 0) is False
    assert adjusted_at("significant after Holm", 0) is True
    assert adjusted_at("significant (p = 0.03)", 0) is False
    mixed = "Neither contrast is significant after Holm, though GSPO's is significant unadjusted (p = 0.04)"
    at = mixed.index("significant unadjusted")
    assert adjusted_at(mixed, at, at + len("significant")) is False   # the word right after it decides
    assert adjusted_at(mixed, mixed.index("significant"), mixed.index("significant") + 11) is True


# ---- a list of SDs of the paired differences after a list of contrast statistics -------------------------

DIFF_SDS = ("At 80% power the minimum detectable effect is 0.0082 for Dr. GRPO and 0.0071 for GSPO, given "
            "standard deviations of the paired differences of 0.0057 and 0.0050.\n")


@pytest.mark.usefixtures("shared_recompute")
@pytest.mark.parametrize(("find", "replace", "source"), [
    ("of 0.0057 and", "of 0.0075 and", "contrasts.dr_grpo-grpo.diff_sd"),
    ("0.0057 and 0.0050", "0.0050 and 0.0057", "contrasts.gspo-grpo.diff_sd"),
], ids=["last-digit", "swapped"])
def test_listed_sds_of_paired_differences_follow_the_contrasts_listed_before(appendix_study, tmp_path, find, replace,
                                                                             source):
    assert _findings(appendix_study, tmp_path, DIFF_SDS) == []
    wrong = _findings(appendix_study, tmp_path / "w", DIFF_SDS.replace(find, replace))
    assert [f for f in wrong if source in f[1]], wrong


# ---- "the uncorrected paired test gives p =" is the raw p; "the adjusted p-value is" the adjusted one -------

RAW_THEN_ADJUSTED = ("For DAPO over GRPO the uncorrected paired test gives p = 0.032; with Holm's correction the "
                     "adjusted p-value is 0.064.\n")


@pytest.mark.usefixtures("shared_recompute")
@pytest.mark.parametrize(("find", "replace", "source"), [
    ("p = 0.032", "p = 0.023", "contrasts.dapo-grpo.p "),
    ("is 0.064", "is 0.046", "contrasts.dapo-grpo.p_adjusted"),
], ids=["raw", "adjusted"])
def test_unadjusted_words_hold_no_adjusted_p(appendix_study, tmp_path, find, replace, source):
    assert _findings(appendix_study, tmp_path, RAW_THEN_ADJUSTED) == []
    wrong = _findings(appendix_study, tmp_path / "w", RAW_THEN_ADJUSTED.replace(find, replace))
    assert [f for f in wrong if source in f[1]], wrong


# ---- second round: contrasts a sentence names by one arm, labels in fields, captions and lists ----------------

@pytest.fixture(scope="module")
def gdoc_study(tmp_path_factory):
    from tests.report_corpus_cold import cold

    return cold.build("gdoc_export", tmp_path_factory.mktemp("cold_gdoc"))


@pytest.fixture(scope="module")
def sphinx_study(tmp_path_factory):
    from tests.report_corpus_cold import cold

    return cold.build("sphinx_page", tmp_path_factory.mktemp("cold_sphinx"))


def _audit(study, folder, name, text, strict=False):
    from tests.report_corpus import corpus

    folder.mkdir(parents=True, exist_ok=True)
    for f in study.iterdir():
        if f.suffix == ".rst":   # the set's own report: only the text under test is audited
            f.unlink()
    res = corpus.audit_written(study, folder, {name: text}, strict=strict)
    return [(f.location.rsplit(":", 1)[-1], f.expected, f.found, f.message) for f in res.findings]


PLUS_END = "Dr. GRPO alone: a 95% CI of −0.0034 to +0.0028, well inside the margin.\n"
BOLD_SEEDS = "**Seeds:** 100, 200, 300 and 400. **Held-out set:** 450 problems.\n"


@pytest.mark.usefixtures("shared_recompute")
@pytest.mark.parametrize(("text", "find", "replace", "source"), [
    (PLUS_END, "to +0.0028", "to +0.0082", "contrasts.dr_grpo-grpo.ci95.high"),
    (PLUS_END, "−0.0034 to", "−0.0043 to", "contrasts.dr_grpo-grpo.ci95.low"),
    (BOLD_SEEDS, "300 and 400", "300 and 600", "lock.seeds"),
], ids=["plus-high-end", "its-low-end", "bold-seeds-label"])
def test_signed_interval_of_one_arm_and_a_bold_seed_label(gdoc_study, tmp_path, text, find, replace, source):
    assert _findings(gdoc_study, tmp_path, text) == []
    wrong = _findings(gdoc_study, tmp_path / "w", text.replace(find, replace))
    assert [f for f in wrong if source in f[1]], wrong


POWER_ELLIPSIS = "GSPO against GRPO has an achieved power of 0.81; for AERO, it is only 0.21.\n"
FIELD_SEEDS = "Pilot\n=====\n\n:Study: ``pilot``\n:Seeds: 11, 12 and 13\n"
CAPTION_LEVEL = ("Arms\n====\n\n.. table:: Mean over the seeds. Band: 90% percentile bootstrap.\n\n"
                 "   =====  ========\n   Arm    Accuracy\n   =====  ========\n   GSPO   0.609\n   =====  ========\n")
BY_PROBLEMS = "AERO is ahead of GRPO by 12, 2 and 4 problems, out of 64 each.\n"
TWO_METRICS = "GSPO's zero-variance fraction and group utilisation are 0.215 and 0.785.\n"


@pytest.mark.usefixtures("shared_recompute")
@pytest.mark.parametrize(("name", "text", "find", "replace", "source"), [
    ("report.md", POWER_ELLIPSIS, "only 0.21", "only 0.12", "contrasts.aero-grpo.power_achieved"),
    ("report.md", POWER_ELLIPSIS, "of 0.81", "of 0.18", "contrasts.gspo-grpo.power_achieved"),
    ("results.rst", FIELD_SEEDS, "12 and 13", "12 and 15", "lock.seeds"),
    ("results.rst", CAPTION_LEVEL, "0.609", "0.906", "arms.gspo.heldout_accuracy.mean"),
    ("report.md", BY_PROBLEMS, "out of 64", "out of 46", "lock.dataset.heldout_n"),
    ("report.md", TWO_METRICS, "0.215 and 0.785", "0.785 and 0.215", "arms.gspo.gu_mean"),
], ids=["power-after-semicolon", "power-one-arm-each", "rst-seeds-field", "caption-level", "by-n-problems",
        "two-metrics-in-order"])
def test_statistics_of_one_arm_each_and_labels_in_fields(sphinx_study, tmp_path, name, text, find, replace, source):
    assert _audit(sphinx_study, tmp_path, name, text) == []
    wrong = _audit(sphinx_study, tmp_path / "w", name, text.replace(find, replace))
    assert [f for f in wrong if source in f[1]], wrong


TOST_ONE_ARM = ("The design could detect 0.0055 (DAPO) and 0.0073 (GSPO), so the DAPO result is equivalent: "
                "the TOST p is 0.020.\n")
RANGE_OF = "GRPO's seeds run from 0.6411 on seed 2 to 0.6733 on seed 5, a range of 0.0322.\n"


@pytest.mark.usefixtures("shared_recompute")
@pytest.mark.parametrize(("text", "find", "replace", "source"), [
    (TOST_ONE_ARM, "is 0.020", "is 0.002", "contrasts.dapo-grpo.tost_p"),
], ids=["tost-of-the-arm-named-last"])
def test_contrast_of_the_arm_named_last_when_the_two_named_are_not_contrasted(card_study, tmp_path, text, find, replace,
                                                                            source):
    assert _findings(card_study, tmp_path, text) == []
    wrong = _findings(card_study, tmp_path / "w", text.replace(find, replace))
    assert [f for f in wrong if source in f[1]], wrong


@pytest.mark.usefixtures("shared_recompute")
@pytest.mark.parametrize(("find", "replace", "source"), [
    ("0.6733 on seed 5", "0.6733 on seed 4", "runs.grpo.s4.heldout_accuracy"),
    ("0.6411 on seed 2", "0.6433 on seed 2", "runs.grpo.s2.heldout_accuracy"),
], ids=["seed-after-the-value", "first-end"])
def test_values_on_a_named_seed_and_a_range_between_them(appendix_study, tmp_path, find, replace, source):
    assert _findings(appendix_study, tmp_path, RANGE_OF) == []
    wrong = _findings(appendix_study, tmp_path / "w", RANGE_OF.replace(find, replace))
    assert [f for f in wrong if source in f[1]], wrong
