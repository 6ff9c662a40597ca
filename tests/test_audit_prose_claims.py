"""Claims in prose the ninth set (``tests/report_corpus_ninth/``) showed unread or misread (README failure 15).

Each reading has a firing case and a clean case in wordings and numbers of its own (not the set's
sentences): claims about the seeds decided by the runs ("ahead on every seed except seed 2", "on two of
the three seeds", "won on seeds 1 and 3", two arms as one subject), and statistics the words name ("the
paired t-test gives p = ...", "the smallest gain the design detects with 80% power is ...").
"""

from __future__ import annotations

from types import SimpleNamespace as NS

import pytest

from audit.comparisons import seed_win_claims
from audit.seed_claims import per_seed_claims

# Three seeds; per seed: a − c = +, +, −; b − c = +, +, +; a and c equal nowhere.
FACTS = NS(seeds=(1, 2, 3), primary="acc", units={}, higher={}, values={
    "runs.a.s1.acc": 0.60, "runs.a.s2.acc": 0.55, "runs.a.s3.acc": 0.40,
    "runs.b.s1.acc": 0.62, "runs.b.s2.acc": 0.58, "runs.b.s3.acc": 0.57,
    "runs.c.s1.acc": 0.50, "runs.c.s2.acc": 0.50, "runs.c.s3.acc": 0.50})


def _arms(sent: str) -> list[tuple[int, str]]:
    """(offset, arm) of the arm names Alpha, Beta, Gamma (a, b, c) in ``sent``."""
    names = {"Alpha": "a", "Beta": "b", "Gamma": "c"}
    return sorted((i, arm) for word, arm in names.items() for i in _all(sent, word))


def _all(sent: str, word: str) -> list[int]:
    out, i = [], sent.find(word)
    while i >= 0:
        out.append(i)
        i = sent.find(word, i + 1)
    return out


def _wins(sent: str, subject: str | None = None) -> list[str]:
    said, _, _ = seed_win_claims(sent, _arms(sent), [], subject, None, None, "c", FACTS)
    return [s.message for s in said]


@pytest.mark.parametrize(("sent", "fires"), [
    ("Alpha was ahead of Gamma on every seed except seed 3.", False),
    ("Alpha was ahead of Gamma on every seed except seed 2.", True),     # lost on 3, ahead on 2
    ("Beta beat Gamma on all seeds but seed 1.", True),                  # Beta is ahead on seed 1 too
    ("Alpha beat Gamma on every seed.", True),                           # no exception: seed 3 is lost
])
def test_every_seed_claim_with_its_exception(sent, fires):
    """"on every seed except seed N": ahead on every other seed and not ahead on N."""
    assert bool(_wins(sent)) == fires


@pytest.mark.parametrize(("sent", "fires"), [
    ("Beta and Alpha are ahead of Gamma on every one of the three seeds.", True),   # Alpha is not (seed 3)
    ("Beta is ahead of Gamma on every one of the three seeds.", False),
    ("Gamma, Beta and Alpha were compared; Beta is ahead of Gamma on every seed.", False),
])
def test_two_arms_as_the_subject_of_an_every_seed_claim(sent, fires):
    """"X and Y are ahead of Z on every seed": each of the two (a plural verb joins them), not only the last."""
    assert bool(_wins(sent)) == fires


@pytest.mark.parametrize(("sent", "fires"), [
    ("A clear win for Alpha, at least on two of the three seeds.", False),
    ("A clear win for Alpha, at least on three of the three seeds.", True),
    ("Alpha lost to Gamma, but only on one of the three seeds.", False),
    ("Alpha lost to Gamma, on two of the three seeds.", True),
    ("Alpha won one and lost the other on two of the three seeds.", False),   # both words: undecided
])
def test_k_of_n_seeds_apart_from_its_direction_word(sent, fires):
    """"on K of the N seeds" with the sentence's one win (or loss) word elsewhere: K wins (losses) by the runs."""
    assert bool(_wins(sent)) == fires


def _per_seed(sent: str, subject: str) -> list[str]:
    said, _, _ = per_seed_claims(sent, _arms(sent), [], subject, (subject, "c"), None, "c", FACTS)
    return [s.message for s in said]


@pytest.mark.parametrize(("sent", "fires"), [
    ("It tied nobody, but it won on seeds 1 and 2 and lost on seed 3.", False),
    ("It was level with Gamma nowhere, won on seeds 1 and 2 and lost on seed 3.", False),
    ("It tied Gamma on no seed, won on seeds 1 and 3.", True),           # lost seed 3
    ("It beat Gamma at first, then lost on seeds 2 and 3.", True),       # lost only seed 3
])
def test_won_and_lost_on_seeds_with_the_object_named_before(sent, fires):
    """"won on seeds 1 and 2", "lost on seed 3": the paragraph's arm (not the arm named as the object of
    "tied"/"beat" before it) against that object, seed by seed."""
    assert bool(_per_seed(sent, "a")) == fires


# ---- statistics the words name, on the blog post's study (Dr. GRPO − GRPO: MDE 0.0833, achieved power
# 0.183, paired t p 0.247, paired bootstrap p 0.170) ----------------------------------------------------

@pytest.fixture(scope="module")
def post_study(tmp_path_factory):
    from tests.report_corpus_ninth import ninth

    return ninth.build("substack_post", tmp_path_factory.mktemp("ninth_post"))


def _findings(study, tmp_path, text):
    from tests.report_corpus import corpus

    res = corpus.audit_written(study, tmp_path, {"notes.md": text})
    return [f.message for f in res.findings if f.check == "10" and "notes.md" in f.location]


@pytest.mark.parametrize(("text", "wrong"), [
    ("For Dr. GRPO against GRPO, the smallest effect this study detects with 80% power is 8.3 points.\n", None),
    ("For Dr. GRPO against GRPO, the smallest effect this study detects with 80% power is 3.8 points.\n", "mde"),
    ("Dr. GRPO against GRPO: a paired t-test on the seed differences gives p = 0.25.\n", None),
    ("Dr. GRPO against GRPO: a paired t-test on the seed differences gives p = 0.17.\n", "tests.paired_t.p"),
], ids=["mde-right", "mde-wrong", "t-p-right", "bootstrap-p-as-t"])
def test_statistic_named_in_words(post_study, tmp_path, text, wrong):
    """"the smallest effect this study detects with 80% power is N points" is the MDE (not the achieved
    power); "a paired t-test gives p = ..." is that test's p (the registered one here), never another
    test's p that happens to match."""
    found = _findings(post_study, tmp_path, text)
    if wrong is None:
        assert found == []
    else:
        assert len(found) == 1 and (wrong in found[0] or "contrasts.dr_grpo-grpo.p " in found[0]), found
