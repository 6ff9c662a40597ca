"""A statistic is checked against the source its words or its column name (README failure 15).

The eighth report set (``tests/report_corpus_eighth/``) showed the audit checking a number against
whatever value of the row's arm it could find although its column header or its sentence said which
statistic it is: an interval end under "95% CI low" against the arm's mean, the interval of a contrast
table against the arm's own interval, an unadjusted p against the adjusted one, an SD against the mean.
Each fix has a firing case (a wrong number is an error naming the named statistic's source) and a
clean case (the right number audits clean), in wordings and tables of their own, not the set's.
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.usefixtures("shared_recompute")


@pytest.fixture(scope="module")
def one_sided_study(tmp_path_factory):
    """GRPO, GSPO, AERO over five seeds, BH over two one-sided contrasts (the W&B report's study)."""
    from tests.report_corpus_eighth import eighth

    return eighth.build("wandb_export", tmp_path_factory.mktemp("named_one_sided"))


@pytest.fixture(scope="module")
def reference_study(tmp_path_factory):
    """A per-item study: base and SFT references, GSPO and Dr. GRPO over four seeds, Holm over the two
    contrasts with the base, the SFT contrasts exploratory (the OpenReview reply's study)."""
    from tests.report_corpus_eighth import eighth

    return eighth.build("openreview_reply", tmp_path_factory.mktemp("named_reference"))


def _findings(study, tmp_path, text):
    from tests.report_corpus import corpus

    tmp_path.mkdir(parents=True, exist_ok=True)
    res = corpus.audit_written(study, tmp_path, {"report.md": text})
    return [(f.location.rsplit(":", 1)[-1], f.expected, f.found, f.message) for f in res.findings]


def _fires(study, tmp_path, text, find, replace, source):
    """The clean text audits clean; with ``find`` replaced, a finding names ``source``."""
    assert find in text
    assert _findings(study, tmp_path, text) == []
    wrong = _findings(study, tmp_path / "w", text.replace(find, replace))
    assert [f for f in wrong if source in f[1]], wrong


# ---- a column header names the statistic: a raw or an adjusted p -----------------------------------------

P_TABLE = """# Registered contrasts

| Contrast | Δ accuracy | p (uncorrected) | p_fdr |
|---|---|---|---|
| GSPO − GRPO | +0.0112 | 0.028 | 0.057 |
| AERO − GRPO | +0.0076 | 0.111 | 0.111 |
"""


@pytest.mark.parametrize(("text", "find", "replace", "source"), [
    (P_TABLE, "| 0.028 | 0.057 |", "| 0.057 | 0.057 |", "contrasts.gspo-grpo.p "),
    (P_TABLE, "| 0.028 | 0.057 |", "| 0.028 | 0.028 |", "contrasts.gspo-grpo.p_adjusted"),
], ids=["uncorrected-p-column", "p_fdr-column"])
def test_column_names_the_statistic(one_sided_study, tmp_path, text, find, replace, source):
    _fires(one_sided_study, tmp_path, text, find, replace, source)


# ---- the sentence names the statistic: which test's p, an adjusted p, the SD of the paired differences -------

BOOTSTRAP_P = "GSPO − GRPO: Δ = +0.0112, one-sided p = 0.028. Its paired bootstrap p was 0.0025.\n"
FDR_PAREN = "GSPO − GRPO: one-sided p = 0.028 (FDR 0.057), d_z = 1.19.\n"
AFTER_IT = "GSPO − GRPO has p = 0.028 before the correction (0.057 after it).\n"
P_SUBSCRIPT = "GSPO − GRPO gains 0.0112 (p_BH = 0.057).\n"
TOST_MARGIN = "For AERO − GRPO the TOST p-value with the ±0.01 margin was 0.336, so equivalence is not shown.\n"
PAIRED_SD = "Per-seed paired differences vary little: SD 0.0094 for GSPO and 0.0118 for AERO.\n"


@pytest.mark.parametrize(("text", "find", "replace", "source"), [
    (BOOTSTRAP_P, "0.0025", "0.028", "contrasts.gspo-grpo.tests.paired_bootstrap.p"),
    (FDR_PAREN, "(FDR 0.057)", "(FDR 0.028)", "contrasts.gspo-grpo.p_adjusted"),
    (AFTER_IT, "(0.057 after", "(0.028 after", "contrasts.gspo-grpo.p_adjusted"),
    (P_SUBSCRIPT, "= 0.057", "= 0.028", "contrasts.gspo-grpo.p_adjusted"),
    (TOST_MARGIN, "was 0.336", "was 0.010", "contrasts.aero-grpo.tost_p"),
    (PAIRED_SD, "SD 0.0094", "SD 0.0030", "contrasts.gspo-grpo.diff_sd"),
    (PAIRED_SD, "0.0118 for AERO", "0.0033 for AERO", "contrasts.aero-grpo.diff_sd"),
], ids=["bootstrap-p", "fdr-in-parentheses", "after-it", "p-subscript", "tost-p-after-margin", "paired-sd",
        "paired-sd-second-arm"])
def test_sentence_names_the_statistic(one_sided_study, tmp_path, text, find, replace, source):
    _fires(one_sided_study, tmp_path, text, find, replace, source)


# ---- which interval: "the t-based interval" is the analysis' t interval, or nothing ----------------------------

T_INTERVAL = "For GSPO − base the t-based interval [0.049, 0.298] is wider than the bootstrap one.\n"


def test_t_interval_is_checked_against_the_t_interval(reference_study, tmp_path):
    _fires(reference_study, tmp_path, T_INTERVAL, "0.298]", "0.245]", "contrasts.gspo-base.ci95_t.high")


def test_t_interval_without_one_in_the_analysis_is_no_error(one_sided_study, tmp_path):
    """The one-sided study's analysis holds only the planned bootstrap interval: a t interval's ends have
    no source, so they are not errors against the bootstrap interval's (which is [0.0040, 0.0184])."""
    text = "For GSPO − GRPO a t-based 95% interval would be [0.0010, 0.0214].\n"
    assert _findings(one_sided_study, tmp_path, text) == []
    assert _findings(one_sided_study, tmp_path / "b", text.replace("t-based", "bootstrap"))   # the planned one: checked


# ---- a list of one statistic: the arm in parentheses after the unit, an aside between two values -----------

MDE_LIST = "The minimum detectable effects are 1.28 points (GSPO) and 1.60 points (AERO).\n"
SD_ASIDE = "The across-seed SD of held-out accuracy is 0.0030 for GSPO (seed 42 included) and 0.0033 for AERO.\n"


@pytest.mark.parametrize(("text", "find", "replace", "source"), [
    (MDE_LIST, "1.60 points", "1.66 points", "contrasts.aero-grpo.mde"),
    (SD_ASIDE, "0.0033 for", "0.0093 for", "arms.aero.heldout_accuracy.sd"),
], ids=["mde-unit-then-arm", "sd-after-an-aside"])
def test_list_of_one_statistic(one_sided_study, tmp_path, text, find, replace, source):
    _fires(one_sided_study, tmp_path, text, find, replace, source)

