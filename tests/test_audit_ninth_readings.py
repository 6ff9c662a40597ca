"""What the ninth report set (``tests/report_corpus_ninth/``) taught the audit (README failure 15).

Each fix made after the set's first run has a firing case and a clean case here, in wordings and numbers
of its own (not copied from the set's reports), over the set's studies: the model card's (base, SFT, GRPO, DAPO, AERO; LoRA rank 8,
alpha 16, learning rate 0.003, 4 steps) and the checklist's (GRPO, GSPO, AERO; 2,000 resamples).
"""

from __future__ import annotations

import pytest

from audit.lock_settings import setting_spans, wrong_settings


@pytest.fixture(scope="module")
def ninth_study(tmp_path_factory):
    """One built study of the ninth set per name, built when first asked for."""
    from tests.report_corpus import set_tests
    from tests.report_corpus_ninth import ninth

    return set_tests.lazy_builds(ninth.build, tmp_path_factory, "ninth")


def _findings(study, tmp_path, text, name="report.md"):
    from tests.report_corpus import set_tests

    return set_tests.written_findings(study, tmp_path, text, name)


# ---- training settings written in words, against the lock ----------------------------------------------

LOCK = {"training": {"lora_r": 8, "lora_alpha": 16, "learning_rate": 0.003, "max_steps": 4, "num_generations": 4},
        "analysis": {"rng_seed": 20260714}}


@pytest.mark.parametrize(("text", "wrong"), [
    ("Adapter: LoRA, rank 8, alpha 16; learning rate 3e-3; 4 RL steps per run.", []),
    ("Adapter: LoRA, rank 4, alpha 16.", ["training.lora_r"]),
    ("a rank-16 LoRA adapter", ["training.lora_r"]),
    ("LoRA (alpha = 32)", ["training.lora_alpha"]),
    ("learning rate of $3 \\times 10^{-4}$", ["training.learning_rate"]),
    ("lr = 0.03, 8 completions per prompt", ["training.learning_rate", "training.num_generations"]),
    ("bootstrap seed 42", ["analysis.rng_seed"]),
    ("trained for 40 optimizer steps", ["training.max_steps"]),
    ("alpha 32 and rank 4 without naming the adapter", []),          # not a LoRA sentence: the test's alpha, a rank
    ("the reward over the last 10 steps", []),                      # a window, not the step count
    ("Reward, mean over the final 10 steps", []),                   # a metric's name (a model-index entry)
    ("logged every 50 steps; the past 3 steps are noisy", []),      # a cadence and a window
    ("the final model, trained for 10 steps", ["training.max_steps"]),   # "final" not right before the count
], ids=["right", "rank", "rank-hyphen", "alpha", "lr-power", "lr-generations", "rng-seed", "steps", "no-lora", "last",
        "final-window", "cadence", "final-model"])
def test_settings_in_words_against_the_lock(text, wrong):
    """Each setting the sentence states is checked against the lock; a right one is a fact (its number
    a label), a wrong one a finding naming ``lock.<section>.<name>``."""
    assert [s.key for s in wrong_settings(text, LOCK)] == wrong
    if not wrong and "rank 8" in text:
        assert len(setting_spans(text, LOCK)) == 4


def test_steps_are_left_to_the_runs_where_they_recorded_them():
    """Where the runs recorded their steps (a runner campaign), "40 steps" is checked against them by
    :mod:`audit.claims`, not against the lock's max_steps."""
    assert wrong_settings("trained for 40 optimizer steps", LOCK, steps_recorded=True) == []


CARD_REGIME = """## Training

- **Training regime:** fp32; a LoRA adapter with rank 8 and alpha 16, learning rate 3e-3, 4 RL steps per run
"""


@pytest.mark.slow   # builds a study (seconds); the ninth set's plants cover it in the full tier too
@pytest.mark.usefixtures("shared_recompute")
def test_training_regime_bullet_is_checked_against_the_lock(ninth_study, tmp_path):
    """A model card's training bullet audits clean when it restates the lock and fails, at its line,
    naming the locked setting, when one setting differs (it was never checked)."""
    study = ninth_study("hub_card_template")
    assert _findings(study, tmp_path, CARD_REGIME) == []
    wrong = _findings(study, tmp_path / "w", CARD_REGIME.replace("rate 3e-3", "rate 3e-4"))
    assert [f for f in wrong if "lock.training.learning_rate" in f[1] and f[0] == "report.md:3"], wrong


# ---- a contrast named by the rows' own header: "| Method vs SFT | Δ | 95% interval |" -----------------

VERSUS_ROWS = """## Against the SFT checkpoint (exploratory)

| Method vs SFT | Δ solve rate | 95% interval |
|---|---|---|
| DAPO | +0.044 | [−0.013, 0.100] |
| AERO | +0.010 | [−0.051, 0.072] |
"""


@pytest.mark.slow   # builds a study (seconds); the ninth set's plants cover it in the full tier too
@pytest.mark.usefixtures("shared_recompute")
def test_rows_header_naming_a_baseline_makes_the_intervals_contrasts(ninth_study, tmp_path):
    """The interval cells of a table whose first header cell reads "Method vs SFT" are each row's
    contrast with SFT (they were checked as the arms' own intervals: four false alarms)."""
    study = ninth_study("hub_card_template")
    assert _findings(study, tmp_path, VERSUS_ROWS) == []
    wrong = _findings(study, tmp_path / "w", VERSUS_ROWS.replace("[−0.051, 0.072]", "[−0.051, 0.100]"))
    assert [f for f in wrong if "contrasts.aero-sft.ci95.high" in f[1]], wrong


# ---- a LaTeX caption "(accuracy points, ...)" and "paired bootstrap resamples" ---------------------------

POINTS_TEX = r"""\begin{table}[t]
\caption{Differences from GRPO (accuracy points, six seed pairs), 2{,}000 paired bootstrap resamples.}
\begin{tabular}{lrr}
\toprule
Pair & $\Delta$ & 95\% CI \\
\midrule
AERO $-$ GRPO & +0.47 & [0.05, 0.91] \\
\bottomrule
\end{tabular}
\end{table}
"""


@pytest.mark.slow   # builds a study (seconds); the ninth set's plants cover it in the full tier too
@pytest.mark.usefixtures("shared_recompute")
def test_caption_in_points_and_paired_resamples(ninth_study, tmp_path):
    """A caption's "(accuracy points, ...)" puts the cells under it in points (they were read as a fraction
    metric written in percent: three false alarms), and "2,000 paired bootstrap resamples" is checked
    against the lock's resamples (it was not read)."""
    study = ninth_study("neurips_checklist")
    assert _findings(study, tmp_path, POINTS_TEX, "table.tex") == []
    wrong = _findings(study, tmp_path / "w", POINTS_TEX.replace("+0.47", "+0.74"), "table.tex")
    assert [f for f in wrong if "contrasts.aero-grpo.diff_mean" in f[1]], wrong
    wrong = _findings(study, tmp_path / "r", POINTS_TEX.replace("2{,}000 paired", "5{,}000 paired"), "table.tex")
    assert [f for f in wrong if "lock.analysis.resamples" in f[1]], wrong


# ---- a sentence that opens by naming the baseline: "Compared with the SFT checkpoint: GRPO +0.025, ..." --

LEAD_AGAINST = """## Secondary comparisons

Compared with the SFT checkpoint (exploratory, uncorrected): GRPO gains +0.025 (p = 0.46) and AERO +0.010
(p = 0.77) in solve rate.
"""


@pytest.mark.slow   # builds a study (seconds); the ninth set's plants cover it in the full tier too
@pytest.mark.usefixtures("shared_recompute")
def test_sentence_opening_with_its_baseline_pairs_each_arm_with_it(ninth_study, tmp_path):
    """Each difference and p after "Compared with the SFT checkpoint:" is that arm's contrast with SFT (the
    second arm's were checked against its contrast with the base model, the plan's baseline)."""
    study = ninth_study("hub_card_template")
    assert _findings(study, tmp_path, LEAD_AGAINST) == []
    wrong = _findings(study, tmp_path / "w", LEAD_AGAINST.replace("(p = 0.77)", "(p = 0.28)"))
    assert [f for f in wrong if "contrasts.aero-sft.p" in f[1]], wrong
