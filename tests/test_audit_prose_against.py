""""x against y" after two named arms, and changes in words (README failure 10): "GSPO stays far above Dr. GRPO: 0.650
against 0.631" gives the values to GSPO and Dr. GRPO in the order written. With one arm named, "DAPO
halves ZVF (0.221 against 0.416)", the second value is the baseline's. Before, the two-arm form gave
the second value to the baseline and called Dr. GRPO's correct 0.631 wrong.

The study is the five-arm one of ``tests/report_corpus/`` (gspo 0.650, dr_grpo 0.631, grpo 0.632).
"""

from __future__ import annotations

import pytest

from tests.report_corpus import corpus

# only the report differs from test to test: check 9 recomputes each study once (conftest)
pytestmark = pytest.mark.usefixtures("shared_recompute")

HEAD = "# Results\n\nEight seeds per arm, 500 held-out problems.\n\n"


@pytest.fixture(scope="module")
def five_arms(tmp_path_factory):
    return corpus.build("prose_results", tmp_path_factory.mktemp("against") / "s")


def _errors(study, tmp_path, sentence: str) -> list[str]:
    res = corpus.audit_written(study, tmp_path, {"report.md": HEAD + sentence + "\n"})
    return [f.message for f in res.findings if f.check == "10"]


@pytest.mark.parametrize("sentence", ["GSPO stays far above Dr. GRPO: 0.650 against 0.631.",
                                      "GSPO stays far above Dr. GRPO (0.650 vs. 0.631).",
                                      "DAPO halves ZVF (0.221 against 0.416)."])
def test_right_values_of_a_pair_are_clean(five_arms, tmp_path, sentence):
    assert _errors(five_arms, tmp_path, sentence) == []


@pytest.mark.parametrize("sentence, wrong, source", [
    ("GSPO stays far above Dr. GRPO: 0.650 against 0.632.", "0.632 written", "arms.dr_grpo.heldout_accuracy.mean"),
    ("DAPO halves ZVF (0.221 against 0.410).", "0.410 written", "arms.grpo.zvf_mean"),
])
def test_a_wrong_second_value_names_its_arm(five_arms, tmp_path, sentence, wrong, source):
    errors = _errors(five_arms, tmp_path, sentence)
    assert len(errors) == 1 and wrong in errors[0] and source in errors[0], errors


def test_swapped_pair_is_two_findings(five_arms, tmp_path):
    errors = _errors(five_arms, tmp_path, "GSPO stays far above Dr. GRPO (0.631 vs. 0.650).")
    assert len(errors) == 2
    assert any("arms.gspo.heldout_accuracy.mean" in e for e in errors)
    assert any("arms.dr_grpo.heldout_accuracy.mean" in e for e in errors)


# Verbs of change, "paired t =", "the A − B gap of", and a sentence opening with what is compared
# against ("Compared with GRPO (63.2%), GSPO gains 1.8 points"): aero-grpo diff −0.020 (t −8.37,
# 90% CI [−0.0235, −0.016]), gspo-grpo +0.01775.
CHANGE_CLEAN = [
    "Relative to GRPO, AERO loses 0.020 (paired t = −8.37, p < 0.001).",
    "The AERO − GRPO gap of −0.020 has a 90% CI of [−0.0235, −0.016].",
    "Compared with GRPO (63.2%), GSPO gains 1.8 points and AERO loses 2.0.",
    "GRPO − GSPO: −0.018.",
]


@pytest.mark.parametrize("sentence", CHANGE_CLEAN)
def test_changes_written_as_people_write_them_are_clean(five_arms, tmp_path, sentence):
    assert _errors(five_arms, tmp_path, sentence) == []


@pytest.mark.parametrize("sentence, wrong, source", [
    ("Relative to GRPO, AERO loses 0.025 (paired t = −8.37, p < 0.001).", "0.025 written",
     "contrasts.aero-grpo.diff_mean"),
    ("Relative to GRPO, AERO loses 0.020 (paired t = −9.37, p < 0.001).", "−9.37 written",
     "contrasts.aero-grpo.tests.paired_t.statistic"),
    ("Compared with GRPO (63.2%), GSPO gains 1.8 points and AERO loses 2.6.", "2.6 written",
     "contrasts.aero-grpo.diff_mean"),
    ("Compared with GRPO (63.2%), GSPO gains 1.2 points and AERO loses 2.0.", "1.2 written",
     "contrasts.gspo-grpo.diff_mean"),
])
def test_a_wrong_change_is_one_finding_naming_its_contrast(five_arms, tmp_path, sentence, wrong, source):
    errors = _errors(five_arms, tmp_path, sentence)
    assert len(errors) == 1 and wrong in errors[0] and source in errors[0], errors


def test_swapped_ends_of_a_gap_interval_are_found(five_arms, tmp_path):
    errors = _errors(five_arms, tmp_path, "The AERO − GRPO gap of −0.020 has a 90% CI of [−0.016, −0.0235].")
    assert any("swapped ends" in e for e in errors) and any("contrasts.aero-grpo.ci90" in e for e in errors)


def _read_cpu(text: str, k: int = 3) -> float:
    import time

    from audit.engine import collector_paused
    from audit.numbers import parse_markdown
    from audit.prose import read_file
    from audit.words import Vocabulary

    vocab = Vocabulary({"grpo": "grpo", "gspo": "gspo"}, {"accuracy": "heldout_accuracy"}, "grpo", "heldout_accuracy")
    best = float("inf")
    for _ in range(k):
        parsed = parse_markdown("r.md", text, "r.md")
        with collector_paused():  # a full collection of the session's heap is not the reader's cost
            t = time.process_time()
            read_file(parsed, vocab)
            best = min(best, time.process_time() - t)
    return best


def test_one_long_sentence_of_seeds_and_numbers_reads_in_linear_time():
    """A paragraph with no sentence end ("GSPO seed 11 0.644, seed 23 0.652, ...", or a nested list
    the reader joins) is one sentence: each number's seed is looked up, never re-read from the
    sentence start (that was quadratic: 12.8 CPU-s for 0.1 MB). Linear is 4x for 4x the input,
    quadratic 16x; the bound (8x) leaves room for a busy machine."""
    unit = "GSPO seed 11 accuracy 0.644 and seed 23 0.652 across seeds from 0.61 to 0.66, "
    small = unit * 100
    t1 = _read_cpu(small)
    while t1 < 0.02 and len(small) < 800 * len(unit):
        small *= 2
        t1 = _read_cpu(small)
    t4 = _read_cpu(small * 4)
    assert t4 < 8.0 * t1 + 0.05, (t1, t4)
