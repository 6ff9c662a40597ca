"""Readings of the unseen set's wordings, from the bottom of its causes (``tests/report_corpus_unseen/README.md``, README failure 15).

The unseen set's first run read several ways people quote statistics wrongly: a statistic with its arm
written after the value ("d_z = 3.18 for GSPO", "19.1 points for GSPO (20.6 for DAPO)", "between 0.85
(Dr. GRPO) and 1.31 (DAPO) points"); arrows ("61.9% → 65.8%" is the baseline's value, then the arm's;
"p = 0.081 → 0.163 after BH" is the raw, then the adjusted p); two contrasts in one sentence and a
contrast quoted the other way round ("Base − SFT is −0.074 [−0.167, 0.019]" against the locked sft −
base); a change named by what it counts ("0.574 more groups"). Each correct sentence here is written in
those forms (not the set's own text) over two of the set's studies and must audit with no finding; its
wrong variant (one number changed) must be one check-10 finding naming the value the words name.
"""

from __future__ import annotations

import pytest

from audit import check
from tests.report_corpus_unseen import unseen

# check 9's recomputation and the study checks shared across the audits of one study (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("shared_recompute")

HEAD = "# Results\n\nFrom the locked analysis.\n\n"
FIRST_LINE = HEAD.count("\n") + 1

# Study "blog_arrows": grpo (baseline) 0.619, gspo 0.658, aero 0.6085; gspo − grpo +0.039 (p 0.0079, BH 0.0158,
# d_z 3.18, MDE 0.0261); aero − grpo −0.0105 (d_z −0.83, MDE 0.027).
ARROWS = [
    ("The paired effect size is d_z = 3.18 for GSPO, and roughly −0.83 for AERO.",
     "The paired effect size is d_z = 3.18 for GSPO, and roughly −0.38 for AERO.",
     "contrasts.aero-grpo.effect_size_dz"),
    ("At 80% power the smallest gain this design could detect is 2.6 points for GSPO and 2.7 for AERO.",
     "At 80% power the smallest gain this design could detect is 2.6 points for GSPO and 3.7 for AERO.",
     "contrasts.aero-grpo.mde"),
    ("The minimum detectable effect is 2.6 points for GSPO (2.7 for AERO).",
     "The minimum detectable effect is 2.6 points for GSPO (3.7 for AERO).",
     "contrasts.aero-grpo.mde"),
    ("Four seeds detect a paired difference between 2.6 (GSPO) and 2.7 (AERO) points at 80% power.",
     "Four seeds detect a paired difference between 1.6 (GSPO) and 2.7 (AERO) points at 80% power.",
     "contrasts.gspo-grpo.mde"),
    ("GSPO moves held-out accuracy 61.9% → 65.8%.",
     "GSPO moves held-out accuracy 61.9% → 66.8%.",
     "arms.gspo.heldout_accuracy.mean"),
    ("GSPO against GRPO: p = 0.0079 → 0.016 after BH.",
     "GSPO against GRPO: p = 0.0079 → 0.0079 after BH.",
     "contrasts.gspo-grpo.p_adjusted"),
    ("For GSPO the paired t p = 7.9e-3, and 0.016 after the BH correction.",
     "For GSPO the paired t p = 7.9e-3, and 0.026 after the BH correction.",
     "contrasts.gspo-grpo.p_adjusted"),
    ("The GSPO gain of 3.9 points clears the bar; AERO's −1.05 does not.",
     "The GSPO gain of 3.9 points clears the bar; AERO's −1.50 does not.",
     "contrasts.aero-grpo.diff_mean"),
    ("The GSPO gain of 3.9 points holds, and AERO's deficit of 1.05 points does not survive.",
     "The GSPO gain of 3.9 points holds, and AERO's deficit of 1.50 points does not survive.",
     "contrasts.aero-grpo.diff_mean"),
]
# Said of AERO (its change is −1.05 points): a loss written as a size, never a wrong sign.
ARROWS_CLEAN_ONLY = ["Eight seeds for AERO would tell a 1-point loss from nothing."]

# A reply in a quoted e-mail thread (same study; its seeds are 17, 29, 41 and 53): each quote level is its own
# paragraph (no metric carried from one colleague's words into the next quote), a question claims nothing,
# seeds still to be run are no wrong seed list, a contrast's interval is no arm's, and a signature is not prose.
THREAD = [
    ("> The reward over the last 10 steps is 0.62 for GSPO.\n>\n> > The dashboard shows GSPO at 65.8% against\n"
     "> > 61.9% for GRPO, a 6% relative gain!",
     "> The reward over the last 10 steps is 0.62 for GSPO.\n>\n> > The dashboard shows GSPO at 66.8% against\n"
     "> > 61.9% for GRPO, a 6% relative gain!",
     "arms.gspo.heldout_accuracy.mean"),
    ("> Is AERO significantly different from GRPO?",
     "> AERO is significantly different from GRPO.",
     "contrasts.aero-grpo.p"),
    ("Next we queue seeds 60–62 for AERO.",
     "We ran seeds 60–62 for AERO.",
     "lock.seeds"),
    ("> The bootstrap CI for GSPO vs GRPO is [0.029, 0.049], entirely above zero.",
     "> The bootstrap CI for GSPO vs GRPO is [0.029, 0.059], entirely above zero.",
     "contrasts.gspo-grpo.ci95.high"),
]
THREAD_CLEAN_ONLY = ["> > GSPO reaches 65.8%.\n> >\n> > --\n> > Ana Ruiz · Room 2.14 · +44 20 7946 0123"]

# Study "model_card_yaml" (study12): base (baseline), sft, grpo; solve rate grpo − base +0.148 [0.062, 0.241],
# grpo − sft +0.074 [−0.017, 0.161] p 0.230, sft − base +0.074 [−0.019, 0.167] p 0.122; groups correct
# grpo − base +0.574 (p 0.028).
CARD = [
    ("On solve rate GRPO − Base is +0.148 (95% CI [0.062, 0.241]) and GRPO − SFT is +0.074 ([−0.017, 0.161]; p = 0.230).",
     "On solve rate GRPO − Base is +0.148 (95% CI [0.062, 0.241]) and GRPO − SFT is +0.074 ([−0.017, 0.161]; p = 0.122).",
     "contrasts.grpo-sft.p"),
    ("Written the other way round (exploratory), Base − SFT is −0.074 [−0.167, 0.019] on solve rate (p = 0.122).",
     "Written the other way round (exploratory), Base − SFT is +0.074 [−0.167, 0.019] on solve rate (p = 0.122).",
     "contrasts.sft-base.diff_mean"),
    ("GRPO solves 0.574 more groups than the base model (p = 0.028).",
     "GRPO solves 0.754 more groups than the base model (p = 0.028).",
     "contrasts.grpo-base.groups_correct.diff_mean"),
    ("GRPO solves 0.574 more groups than the base model (p = 0.028).",
     "GRPO solves 0.574 more groups than the base model (p = 0.082).",
     "contrasts.grpo-base.groups_correct.p"),
]


def _findings(study, blocks: list[str]) -> dict[int, list[str]]:
    """Check-10 findings (message and expected) by the index of the block (paragraph, quote) they are about."""
    (study / "report.md").write_text(HEAD + "\n\n".join(blocks) + "\n")
    first, line = [], FIRST_LINE
    for b in blocks:
        first.append(line)
        line += b.count("\n") + 2
    out: dict[int, list[str]] = {}
    for f in check(study, only=["10", "11"]).findings:
        n = int(f.location.rsplit(":", 1)[1])
        out.setdefault(max(i for i, a in enumerate(first) if a <= n), []).append(f"{f.message} | {f.expected}")
    return out


def _study(tmp_path_factory, name: str):
    report = unseen.build(name, tmp_path_factory.mktemp(name) / "s")
    for f in report.glob("*.md"):
        f.unlink()
    return report


@pytest.fixture(scope="module")
def arrows(tmp_path_factory):
    study = _study(tmp_path_factory, "blog_arrows")
    return (_findings(study, [c for c, _, _ in ARROWS] + ARROWS_CLEAN_ONLY),
            _findings(study, [w for _, w, _ in ARROWS]))


@pytest.fixture(scope="module")
def thread(tmp_path_factory):
    study = _study(tmp_path_factory, "blog_arrows")
    return (_findings(study, [c for c, _, _ in THREAD] + THREAD_CLEAN_ONLY),
            _findings(study, [w for _, w, _ in THREAD]))


@pytest.fixture(scope="module")
def card(tmp_path_factory):
    study = _study(tmp_path_factory, "model_card_yaml")
    return _findings(study, [c for c, _, _ in CARD]), _findings(study, [w for _, w, _ in CARD])


@pytest.mark.parametrize("i", range(len(ARROWS) + len(ARROWS_CLEAN_ONLY)))
def test_arm_after_value_and_arrow_sentences_are_clean(arrows, i):
    assert arrows[0].get(i, []) == []


@pytest.mark.parametrize("i,source", [(i, s) for i, (_, _, s) in enumerate(ARROWS)])
def test_arm_after_value_and_arrow_wrong_variant_names_its_source(arrows, i, source):
    found = arrows[1].get(i, [])
    assert len(found) == 1 and source in found[0], found


@pytest.mark.parametrize("i", range(len(CARD)))
def test_contrast_written_out_sentences_are_clean(card, i):
    assert card[0].get(i, []) == []


@pytest.mark.parametrize("i,source", [(i, s) for i, (_, _, s) in enumerate(CARD)])
def test_contrast_written_out_wrong_variant_names_its_source(card, i, source):
    found = card[1].get(i, [])
    assert len(found) == 1 and source in found[0], found


@pytest.mark.parametrize("i", range(len(THREAD) + len(THREAD_CLEAN_ONLY)))
def test_quoted_thread_is_clean(thread, i):
    assert thread[0].get(i, []) == []


@pytest.mark.parametrize("i,source", [(i, s) for i, (_, _, s) in enumerate(THREAD)])
def test_quoted_thread_wrong_variant_names_its_source(thread, i, source):
    found = thread[1].get(i, [])
    assert len(found) == 1 and source in found[0], found


# A hand-typed card over the arm's mean (study "model_card_yaml"): a model-index naming no seed under a title
# naming the arm is checked against the arm's mean; a "Unit" column states units, not values; a signed value
# in a sentence naming no arm is a change of the card's arm against the baseline.
ARM_CARD = """---
model-index:
- name: puzzle-solver-grpo
  results:
  - task: {type: text-generation}
    metrics:
    - {type: accuracy, name: Solve rate, value: 0.623}
---

# puzzle-solver-grpo

The mean over three training seeds.

| Metric | Unit | Base | GRPO |
|---|---|---:|---:|
| Groups correct | of 4 | 1.87 | 2.44 |

## Limitations

Three seeds only: do not read the +0.148 as an established gain.
"""
ARM_CARD_WRONG = [
    ("value: 0.623}", "value: 0.632}", "arms.grpo.solve_rate.mean"),
    ("| 1.87 | 2.44 |", "| 1.87 | 2.54 |", "arms.grpo.groups_correct.mean"),
    ("the +0.148 as", "the +0.184 as", "contrasts.grpo-base.diff_mean"),
]


@pytest.fixture(scope="module")
def card_study(tmp_path_factory):
    return _study(tmp_path_factory, "model_card_yaml")


def _card_findings(study, text: str) -> list[str]:
    (study / "report.md").write_text(text)
    return [f"{f.message} | {f.expected}" for f in check(study, only=["10", "11"]).findings]


def test_card_over_an_arm_mean_is_clean(card_study):
    assert _card_findings(card_study, ARM_CARD) == []


@pytest.mark.parametrize("find,replace,source", ARM_CARD_WRONG)
def test_card_over_an_arm_mean_wrong_value_is_one_finding(card_study, find, replace, source):
    assert ARM_CARD.count(find) == 1
    found = _card_findings(card_study, ARM_CARD.replace(find, replace))
    assert len(found) == 1 and source in found[0], found


def test_model_index_without_arm_or_seed_is_still_a_finding(card_study):
    """A card naming neither a run nor an arm: nothing says whose values the model-index holds."""
    text = ARM_CARD.replace("puzzle-solver-grpo", "puzzle-solver")
    assert any("model-index without the run" in f for f in _card_findings(card_study, text))


def test_comparison_object_ends_at_a_clause_break(tmp_path_factory):
    """'below what ..., and AERO's' compares with no arm; 'GSPO is below AERO' still fires."""
    study = _study(tmp_path_factory, "blog_arrows")
    clean = "# Results\n\nThe GSPO gain of 3.9 points is below what one seed would show, and AERO's −1.05 is noise.\n"
    wrong = "# Results\n\nThe GSPO gain of 3.9 points puts GSPO below AERO.\n"
    assert _card_findings(study, clean) == []
    found = _card_findings(study, wrong)
    assert len(found) == 1 and "'below' contradicts the analysis: gspo is above aero" in found[0], found


# Single readings (study "blog_arrows"; AERO's TOST p is 0.53, the SDs 1.0, 0.5 and 0.75 points): an SD right
# after a mean is that mean's arm's; a seed count in words; a middle dot as the decimal point; a legend line
# starting with a row's mark is about that row's arm.
SINGLES = [
    ("GRPO 61.9% (sd 1.0), AERO 60.85% (sd 0.5), GSPO 65.8% (sd 0.75).",
     "GRPO 61.9% (sd 1.0), AERO 60.85% (sd 0.5), GSPO 65.8% (sd 0.57).",
     "arms.gspo.heldout_accuracy.sd"),
    ("We ran four seeds per method.", "We ran five seeds per method.", "lock.seeds"),
    ("The GSPO mean of 0·658 is the best.", "The GSPO mean of 0·685 is the best.", "arms.gspo.heldout_accuracy.mean"),
    ("| Method | Accuracy (%) |\n|---|---:|\n| GRPO | 61.9 |\n| AERO<sup>‡</sup> | 60.85 |\n\n"
     "<sup>‡</sup> equivalent to GRPO within ±1 point (TOST p = 0.53).",
     "| Method | Accuracy (%) |\n|---|---:|\n| GRPO | 61.9 |\n| AERO<sup>‡</sup> | 60.85 |\n\n"
     "<sup>‡</sup> equivalent to GRPO within ±1 point (TOST p = 0.35).",
     "contrasts.aero-grpo.tost_p"),
]


@pytest.fixture(scope="module")
def singles(tmp_path_factory):
    study = _study(tmp_path_factory, "blog_arrows")
    return _findings(study, [c for c, _, _ in SINGLES]), _findings(study, [w for _, w, _ in SINGLES])


@pytest.mark.parametrize("i", range(len(SINGLES)))
def test_single_readings_are_clean(singles, i):
    assert singles[0].get(i, []) == []


@pytest.mark.parametrize("i,source", [(i, s) for i, (_, _, s) in enumerate(SINGLES)])
def test_single_readings_wrong_variant_names_its_source(singles, i, source):
    found = singles[1].get(i, [])
    assert len(found) == 1 and source in found[0], found


def test_steps_per_run_are_checked(tmp_path_factory):
    """'12 steps ... per run' against the steps every run trained (a runner-shaped campaign: 12 steps)."""
    study = _study(tmp_path_factory, "email_thread")
    assert _card_findings(study, "# Runs\n\nEach adapter trained for 12 steps and 192 rollouts per run.\n") == []
    found = _card_findings(study, "# Runs\n\nEach adapter trained for 16 steps and 192 rollouts per run.\n")
    assert len(found) == 1 and "16 steps written, every run trained 12 steps" in found[0], found


def test_dates_times_and_signatures_are_labels_under_strict(tmp_path_factory):
    """'30 Nov 2026', 'On Tue, 1 Dec 2026 at 09:14, ... wrote:', '5 pm' and a quoted signature name moments and
    people, no values: no finding under --strict; the result next to them is still checked."""
    study = _study(tmp_path_factory, "blog_arrows")
    text = ("# Notes\n\n_30 Nov 2026 · lab notebook_\n\nGSPO reaches 65.8% on held-out problems.\n\n"
            "On Tue, 1 Dec 2026 at 09:14, Tom <tom@lab.example> wrote:\n> Slides are due at 5 pm.\n>\n"
            "> --\n> Tom · Room 2.14 · +44 20 7946 0123\n")
    (study / "report.md").write_text(text)
    assert [f.message for f in check(study, only=["10"], strict=True).findings] == []
    (study / "report.md").write_text(text.replace("65.8%", "66.8%"))
    found = [f.message for f in check(study, only=["10"], strict=True).findings]
    assert len(found) == 1 and "arms.gspo.heldout_accuracy.mean" in found[0], found


def test_rollouts_per_run_are_checked(tmp_path_factory):
    study = _study(tmp_path_factory, "email_thread")
    found = _card_findings(study, "# Runs\n\nEach adapter trained for 12 steps and 196 rollouts per run.\n")
    assert len(found) == 1 and "196 rollouts written, every run trained 192 rollouts" in found[0], found


def test_zero_as_a_reference_is_a_label_under_strict(tmp_path_factory):
    """'[0.029, 0.049], entirely above 0': zero is what the interval is compared with, no value reported
    (it was value-only under --strict); the interval is still checked."""
    study = _study(tmp_path_factory, "blog_arrows")
    text = "# Notes\n\nThe bootstrap CI for GSPO vs GRPO is [0.029, 0.049], entirely above 0.\n"
    (study / "report.md").write_text(text)
    assert [f.message for f in check(study, only=["10"], strict=True).findings] == []
    (study / "report.md").write_text(text.replace("0.049]", "0.059]"))
    found = [f"{f.message} | {f.expected}" for f in check(study, only=["10"], strict=True).findings]
    assert len(found) == 1 and "contrasts.gspo-grpo.ci95.high" in found[0], found
