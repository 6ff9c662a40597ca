"""Claims about the seeds in words, decided against the runs (``audit/seed_claims.py``, README failure 15).

The eighth and cold sets' per-seed claims ("2 up, 3 down, 2 exact ties (s10, s13)", "within 0.3pp on every
seed", "tied on seeds 2 and 8", "AERO trails GRPO on all four seeds", "(seed 3 is the exception)", "the lowest
seed, Dr. GRPO seed 5", "ties itself on seeds 8 and 9", "the only seed on which GRPO beats DAPO") were not
checked, or were read as numbers compared. Here each reading has a clean and a firing case in wordings and
numbers of their own, over the eighth set's W&B study (GRPO, GSPO, AERO over seeds 21, 42, 63, 84, 105; per
seed, accuracy: GRPO .574 .576 .596 .586 .576, GSPO .594 .588 .594 .592 .596, AERO .592 .590 .588 .584 .592)
and its Slack study (GRPO, Dr. GRPO, AERO over seeds 10-16; Dr. GRPO and GRPO tie on seeds 10 and 13).
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.usefixtures("shared_recompute")


@pytest.fixture(scope="module")
def wandb_study(tmp_path_factory):
    from tests.report_corpus_eighth import eighth

    return eighth.build("wandb_export", tmp_path_factory.mktemp("seedclaims_wandb"))


@pytest.fixture(scope="module")
def slack_study(tmp_path_factory):
    from tests.report_corpus_eighth import eighth

    return eighth.build("slack_recap", tmp_path_factory.mktemp("seedclaims_slack"))


def _findings(study, tmp_path, text):
    from tests.report_corpus import corpus

    tmp_path.mkdir(parents=True, exist_ok=True)
    res = corpus.audit_written(study, tmp_path, {"report.md": text})
    return [(int(f.location.rsplit(":", 1)[-1]), f.expected, f.found, f.message) for f in res.findings]


# Each line holds one claim (its line number is where a finding must be); every claim is true of the runs.
PER_SEED = """# Seed by seed

**AERO against GRPO** on held-out accuracy, seed by seed:
- 3 up, 2 down over the five seeds
- within 2 points on every seed

GSPO is ahead of GRPO on four of the five seeds (seed 63 is the exception).

Seed 63 is the only seed on which GRPO beats GSPO.

On the reward over the last 10 steps, GRPO trails GSPO on all five seeds.

AERO ties itself on seeds 21 and 105.

AERO is above GRPO on seeds 21 and 105, below it on seeds 63 and 84.

Of AERO's runs the weakest seed is AERO seed 84, at 58.4%.
"""

# (find, replace, the line the finding must be at, a word of its message)
WRONG = [
    ("- 3 up, 2 down", "- 2 up, 3 down", 4, "above grpo on 3 seeds"),
    ("within 2 points on every seed", "within 1.5 points on every seed", 5, "1.80 points"),
    ("(seed 63 is the exception)", "(seed 84 is the exception)", 7, "seeds 63"),
    ("GRPO beats GSPO.", "GRPO beats AERO.", 9, "on 2 seeds"),
    ("GRPO trails GSPO on all", "GRPO trails AERO on all", 11, "seed 84"),
    ("seeds 21 and 105.\n\nAERO is", "seeds 21 and 42.\n\nAERO is", 13, "seed 42: 0.59"),
    ("below it on seeds 63 and 84", "below it on seeds 63 and 105", 15, "seeds 63, 84"),
    ("AERO seed 84, at", "AERO seed 63, at", 17, "seed 84"),
]


def test_per_seed_claims_true_of_the_runs_pass(wandb_study, tmp_path):
    """Every claim of PER_SEED holds on the runs: no finding (before, "the only seed on which GRPO beats GSPO"
    was an error against the means, and "below it on seeds 63 and 84" a comparison of 105 with 63)."""
    assert _findings(wandb_study, tmp_path, PER_SEED) == []


def test_each_per_seed_claim_fires_when_the_runs_contradict_it(wandb_study, tmp_path):
    """All eight claims made wrong at once (one audit): each is an error at its own line, naming the runs."""
    text = PER_SEED
    for find, replace, _, _ in WRONG:
        assert text.count(find) == 1, find
        text = text.replace(find, replace)
    found = _findings(wandb_study, tmp_path, text)
    for _find, replace, line, word in WRONG:
        assert [f for f in found if f[0] == line and word in f[3]], (replace, found)


TIES = """# Dr. GRPO and GRPO

Dr. GRPO ties GRPO on seeds 13 and 10.

Dr. GRPO is ahead on seeds 11 and 16 only.
"""


@pytest.mark.parametrize(("find", "replace", "word"), [
    ("seeds 13 and 10", "seeds 13 and 12", "tie on seeds 10, 13"),
    ("seeds 11 and 16 only", "seeds 11 only", "seeds 11, 16"),
], ids=["tie", "only"])
def test_ties_between_two_arms_and_only_these_seeds(slack_study, tmp_path, find, replace, word):
    """"X ties Y on seeds A and B" holds where both runs are equal on each seed named; "ahead on seeds A and
    B only" where those are exactly the seeds the subject is above the other arm."""
    assert _findings(slack_study, tmp_path, TIES) == []
    wrong = _findings(slack_study, tmp_path / "w", TIES.replace(find, replace))
    assert [f for f in wrong if word in f[3]], wrong


def test_an_unknown_seed_or_a_mean_is_no_per_seed_claim():
    """A tie "at 0.55" (no seed) and seeds the plan lacks are no per-seed claims: nothing decided."""
    from types import SimpleNamespace as NS

    from audit.seed_claims import per_seed_claims

    facts = NS(seeds=[1, 2], primary="acc", units={}, higher={}, values={
        "runs.a.s1.acc": 0.5, "runs.a.s2.acc": 0.6, "runs.b.s1.acc": 0.5, "runs.b.s2.acc": 0.7})
    for sent in ("A and B tied at 0.55 on average.", "tied on seeds 7 and 9"):
        said, n, _ = per_seed_claims(sent, [], [], "a", ("a", "b"), None, "b", facts)
        assert (said, n) == ([], 0), sent
    said, n, _ = per_seed_claims("3 up, 2 down", [], [], "a", ("a", "b"), None, "b", facts)
    assert n == 1 and said and "0 seeds" in said[0].message
