"""Readings behind the eighth and cold sets' last false alarms and misses (README failure 15).

Each has a clean case (a correct report the audit used to flag, or a value it did not read) and a firing
case, in wordings and numbers of their own, over the eighth set's Slack study (GRPO, Dr. GRPO, AERO; AERO
−1.72 points against GRPO), its W&B study (GRPO, GSPO, AERO; arm means 0.5816, 0.5928, 0.5892; reward over
the last 10 steps 0.530, 0.5512, 0.5394; 2000 resamples), its OpenReview study (base model, SFT, GSPO,
Dr. GRPO; well-formed answers 93.33%, 95.67%, 92.25%, 91.00%) and the cold set's card study (DAPO seed 3:
reward over the last 10 steps 0.567, the arm's mean 0.5738).
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.usefixtures("shared_recompute")


def _build(which: str, name: str, tmp_path_factory):
    import importlib

    mod = importlib.import_module(f"tests.report_corpus_{which}.{which}")
    return mod.build(name, tmp_path_factory.mktemp(f"remaining_{name}"))


@pytest.fixture(scope="module")
def slack_study(tmp_path_factory):
    return _build("eighth", "slack_recap", tmp_path_factory)


@pytest.fixture(scope="module")
def wandb_study(tmp_path_factory):
    return _build("eighth", "wandb_export", tmp_path_factory)


@pytest.fixture(scope="module")
def review_study(tmp_path_factory):
    return _build("eighth", "openreview_reply", tmp_path_factory)


@pytest.fixture(scope="module")
def card_study(tmp_path_factory):
    return _build("cold", "hf_card_disagree", tmp_path_factory)


def _findings(study, tmp_path, text):
    from tests.report_corpus import corpus

    tmp_path.mkdir(parents=True, exist_ok=True)
    res = corpus.audit_written(study, tmp_path, {"report.md": text})
    return [(int(f.location.rsplit(":", 1)[-1]), f.expected, f.found, f.message) for f in res.findings]


# ---- words that are no comparison of numbers, a seed, or a signed value -----------------------------------

SLACK = """# AERO and Dr. GRPO

AERO's decline was roughly 1.7 points against GRPO, and its whole 95% CI lies below −1pp.

Dr. GRPO against GRPO on each seed: 2 up, 3 down, 2 ties.

Across the seven seeds Dr. GRPO is above GRPO on seeds 11 and 16, lower on seeds 12, 14 and 15.
"""


@pytest.mark.parametrize(("find", "replace", "line", "word"), [
    ("roughly 1.7 points", "roughly 2.7 points", 3, "contrasts.aero-grpo.diff_mean"),
    ("its whole 95% CI lies below −1pp", "its mean of 68.38% is above 70.09%", 3, "'above than'"),
    ("each seed: 2 up, 3 down", "each seed: 3 up, 2 down", 5, "above grpo on 2 seeds"),
    ("lower on seeds 12, 14 and 15", "lower on seeds 12, 14 and 16", 7, "below grpo on seeds 12, 14, 15"),
], ids=["unsigned-drop", "numbers-compared", "each-seed-count", "seeds-listed"])
def test_drop_level_each_seed_and_seed_lists(slack_study, tmp_path, find, replace, line, word):
    """"AERO's decline was roughly 1.7 points" is the size of a negative difference (it was an error against
    −1.7 points); "95% CI lies below −1pp" compares no 95 with −1; "each seed: 2 up" names no seed 2;
    "lower on seeds 12, 14 and 15" compares no 16 with 12. Each wrong value or claim is still an error."""
    assert _findings(slack_study, tmp_path, SLACK) == []
    wrong = _findings(slack_study, tmp_path / "w", SLACK.replace(find, replace))
    assert [f for f in wrong if f[0] == line and (word in f[1] or word in f[3])], wrong


# ---- "0.593 / 0.582 / 0.589 (GSPO / GRPO / AERO)": values in the order of a slash list of arms -----------

SLASHES = """# Three arms in one line

Means: accuracy 0.593 / 0.582 / 0.589 (GSPO / GRPO / AERO), reward over the last 10 steps 0.551 / 0.530 / 0.539.

Intervals come from 2\u2009000 bootstrap resamples.
"""


@pytest.mark.parametrize(("find", "replace", "line", "source"), [
    ("0.593 / 0.582", "0.582 / 0.593", 3, "arms.gspo.heldout_accuracy.mean"),
    ("0.551 / 0.530", "0.530 / 0.551", 3, "arms.gspo.reward_last10"),
    ("2\u2009000 bootstrap", "3\u2009000 bootstrap", 5, "lock.analysis.resamples"),
], ids=["first-list", "second-list", "thin-space-thousands"])
def test_slash_lists_follow_the_arms_list_and_thin_space_thousands(wandb_study, tmp_path, find, replace, line,
                                                                  source):
    """Each value of a "/" run as long as the "(GSPO / GRPO / AERO)" list is that arm's, in order, in the list
    after the arms too (they were the last arm's or no one's: swapped values passed, right ones failed); "2 000
    resamples" with a thin space is 2000 (it was "000 resamples")."""
    assert _findings(wandb_study, tmp_path, SLASHES) == []
    wrong = _findings(wandb_study, tmp_path / "w", SLASHES.replace(find, replace))
    assert [f for f in wrong if f[0] == line and source in f[1]], wrong


# ---- "well-formedness" names "Well-formed answers (%)"; an aside's "for ARM" names its own arm ---------------

WELL_FORMED = """# Rebuttal, secondary metrics

GSPO adds 0.84 groups correct over the base model. Well-formedness slips a little under RL compared with
the base model (92.25% for GSPO versus 93.33%).
"""


@pytest.mark.parametrize(("find", "replace", "source"), [
    ("92.25% for GSPO versus 93.33%", "93.33% for GSPO versus 92.25%", "arms.gspo.format_pct.mean"),
    ("(92.25% for GSPO", "(91.00% for GSPO", "arms.gspo.format_pct.mean"),
], ids=["swapped", "another-arm"])
def test_noun_of_a_label_and_an_asides_own_arm(review_study, tmp_path, find, replace, source):
    """"Well-formedness" is the metric declared "Well-formed answers (%)" (the sentence's percents were checked
    against the groups correct of the sentence before), and "(92.25% for GSPO" is GSPO's though the base
    model is named before the parenthesis."""
    assert _findings(review_study, tmp_path, WELL_FORMED) == []
    wrong = _findings(review_study, tmp_path / "w", WELL_FORMED.replace(find, replace))
    assert [f for f in wrong if source in f[1]], wrong


def test_noun_forms_of_a_label():
    """Only a participle before a label's last word makes a noun ("well-formed answers"), no other label."""
    from audit.words import _noun_forms

    assert _noun_forms(["Well-formed answers (%)", "Groups correct", "Held-out accuracy"]) == ("well formedness",)


# ---- a model-index metric named in words with a statistic word around its name -----------------------------

CARD = """---
model-index:
  - name: qwen3-8b-dapo-gsm8k-s3
    results:
      - task:
          type: text-generation
        dataset:
          type: openai/gsm8k
          name: GSM8K
        metrics:
          - type: training_reward
            name: Reward, mean over the last 10 steps
            value: 0.567
---

# qwen3-8b-dapo-gsm8k-s3

DAPO adapter, seed 3.
"""


def test_model_index_metric_named_in_words(card_study, tmp_path):
    """"Reward, mean over the last 10 steps" names the reward over the last 10 steps (it named no value of
    the run, a false alarm); the arm's mean written for the run's value is an error against the run."""
    assert _findings(card_study, tmp_path, CARD) == []
    wrong = _findings(card_study, tmp_path / "w", CARD.replace("value: 0.567", "value: 0.574"))
    assert [f for f in wrong if "runs.dapo.s3.reward_last10" in f[1]], wrong


# ---- "Both verdicts are X" with no arm named; "With five seeds" in words --------------------------------------

VERDICTS = """# Summary

Both verdicts are INCONCLUSIVE. With five seeds the design could only detect a gain of about 2 points.
"""


@pytest.mark.parametrize(("find", "replace", "source"), [
    ("Both verdicts are INCONCLUSIVE", "Both verdicts are SURVIVES", "verdicts.contrasts."),
    ("With five seeds", "With six seeds", "lock.seeds"),
], ids=["both-verdicts", "with-n-seeds"])
def test_both_verdicts_and_with_n_seeds(wandb_study, tmp_path, find, replace, source):
    """Under a plan of two contrasts (AERO and GSPO against GRPO, both INCONCLUSIVE) "Both verdicts are X" is
    each one's verdict; "With five seeds" is the number of locked seeds (21, 42, 63, 84, 105)."""
    assert _findings(wandb_study, tmp_path, VERDICTS) == []
    wrong = _findings(wandb_study, tmp_path / "w", VERDICTS.replace(find, replace))
    assert [f for f in wrong if f[0] == 3 and source in f[1]], wrong


def test_both_of_three_verdicts_is_undecided():
    """"both verdicts are SURVIVES" under a plan of three contrasts names two of them (the sentence before
    says which): no finding, the words are listed as undecided."""
    from types import SimpleNamespace as NS

    from audit.claims import Tally, _each_verdict

    facts = NS(verdicts={"a-c": "SURVIVES", "b-c": "SURVIVES", "d-c": "INCONCLUSIVE"}, exploratory=frozenset())
    out, tally = [], Tally()
    _each_verdict("SURVIVES", "r.md:3", facts, out, tally, 2)
    assert out == [] and tally.undecided == [("r.md:3", "SURVIVES")]
    _each_verdict("SURVIVES", "r.md:3", facts, out, tally)
    assert [c.expected for c in out] == ["INCONCLUSIVE (verdicts.contrasts.d-c)"]


# ---- a significance word in an arm's own clause is that arm's contrast's ------------------------------------

SIGNIFICANCE = """# Takeaways

Neither change survives the correction, and AERO is not significantly better than GRPO.
"""


@pytest.mark.parametrize("text", [
    "Nothing survives the correction, GSPO is not significantly better than GRPO, AERO is significantly better.",
    "GSPO ends up level with the baseline; AERO is significantly better than GRPO, GSPO too.",
], ids=["second-clause", "after-semicolon"])
def test_significance_word_in_an_arms_own_clause(wandb_study, tmp_path, text):
    """In a sentence naming two contrasts' arms, a significance word after a clause break is about the arm
    named last before it (AERO: BH p 0.057, not significant), not the sentence's first pair; a sentence that
    names no one contrast was not checked at all. The true "not significantly better" passes."""
    assert _findings(wandb_study, tmp_path, SIGNIFICANCE) == []
    wrong = _findings(wandb_study, tmp_path / "w", "# Takeaways\n\n" + text + "\n")
    assert [f for f in wrong if "aero-grpo" in f[1] and "significant" in f[3]], wrong
