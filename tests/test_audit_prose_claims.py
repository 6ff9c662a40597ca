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
def ninth_study(tmp_path_factory):
    """One built study of the ninth set per name, built when first asked for."""
    from tests.report_corpus import set_tests
    from tests.report_corpus_ninth import ninth

    return set_tests.lazy_builds(ninth.build, tmp_path_factory, "ninth")


@pytest.fixture(scope="module")
def post_study(ninth_study):
    return ninth_study("substack_post")


def _findings(study, tmp_path, text):
    from tests.report_corpus import corpus

    res = corpus.audit_written(study, tmp_path, {"notes.md": text})
    return [f.message for f in res.findings if f.check == "10" and "notes.md" in f.location]


@pytest.mark.slow   # builds a study of the set and audits a report over it (a second or more each)
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


# ---- which arm, metric, direction and statistic a value in a sentence is ------------------------------
# (the e-mail's study: base 0.425, SFT 0.56 in session 1, GSPO − base on pass@16 +0.0897; the model card's:
# AERO − base +0.185, DAPO − base significant, DAPO − SFT not; the README's: DAPO − GRPO p 0.013, Holm 0.026;
# the post's: Dr. GRPO − GRPO 95% CI −1.3 to +6.7 points, +3.0 points, AERO − GRPO +1.0 point, 15 runs)

@pytest.mark.slow   # builds a study of the set and audits a report over it (a second or more each)
@pytest.mark.parametrize(("study", "text", "wrong"), [
    ("weekly_email", "GSPO reaches 62.25%, compared with 42.5% for the base model.\n", None),
    ("weekly_email", "GSPO reaches 62.25%, compared with 56.0% for the base model.\n", "arms.base.solve_rate"),
    ("weekly_email", "Over the base model, GSPO also adds +0.090 on pass@16.\n", None),
    ("weekly_email", "Over the base model, GSPO also adds +0.080 on pass@16.\n", "pass16"),
    ("hub_card_template", "Every objective improves on the base model, AERO included (+0.185).\n", None),
    ("hub_card_template", "Every objective improves on the base model, AERO included (+0.158).\n", "aero-base"),
    ("hub_card_template", "DAPO also gains on pass@16 (+0.102) over the base model.\n", None),
    ("readme_html_sup", "DAPO's p-value against GRPO was 0.013 before the Holm step and 0.026 after.\n", None),
    ("readme_html_sup", "DAPO's p-value against GRPO was 0.013 before the Holm step and 0.013 after.\n", "p_adjusted"),
    ("hub_card_template", "Compared with SFT, AERO gains +0.010 (−0.051 to 0.072).\n", None),
    ("hub_card_template", "Compared with SFT, AERO gains +0.010 (−0.015 to 0.072).\n", "aero-sft.ci95.low"),
    ("substack_post", "For Dr. GRPO the 95% interval spans −1.3 to +6.7 points.\n", None),
    ("substack_post", "For Dr. GRPO the 95% interval spans −3.1 to +6.7 points.\n", "ci95.low"),
], ids=["arm-after-right", "arm-after-wrong", "metric-after-right", "metric-after-wrong", "improve-on-right",
        "improve-on-wrong", "pass-at-k-name", "after-holm-right", "after-holm-wrong", "paren-interval-right",
        "paren-interval-wrong", "to-points-right", "to-points-wrong"])
def test_value_read_with_the_words_around_it(ninth_study, tmp_path, study, text, wrong):
    """An arm named after its value ("42.5% for the base model"), a metric right after it ("on pass@16"), the
    arm the others improve on named first ("improve on the base model, AERO (+0.185)"), "pass@16" (a name, not
    a value), "0.026 after" (Holm's), "+0.010 (−0.051 to 0.072)" (the difference's interval, no "CI" written),
    "from −1.3 to +6.7 points" (both ends in points)."""
    found = _findings(ninth_study(study), tmp_path, text)
    assert (found == []) if wrong is None else (len(found) == 1 and wrong in found[0]), found


@pytest.mark.slow   # builds a study of the set and audits a report over it (a second or more each)
@pytest.mark.parametrize(("study", "text", "wrong"), [
    ("substack_post", "On seed 2 AERO solved 70 problems, GRPO only 57 (they tied on seed 1 at 67 problems each).\n", None),
    ("substack_post", "AERO was scored on 100 held-out problems.\n", "heldout_n"),
    ("substack_post", "Neither Dr. GRPO nor AERO beats GRPO here.\n", None),
    ("hub_card_template", "DAPO does not beat the SFT checkpoint.\n", None),
    ("hub_card_template", "DAPO does not beat the base model.\n", "not beat"),
    ("substack_post", "GRPO averaged 55.5%; Dr. GRPO was three points higher and AERO one point higher.\n", None),
    ("substack_post", "GRPO averaged 55.5%; Dr. GRPO was two points higher.\n", "dr_grpo − grpo = +3.00"),
    ("substack_post", "That makes fifteen runs in total.\n", None),
    ("substack_post", "That makes twelve runs in total.\n", "n_runs"),
], ids=["solved-counts", "n-wrong", "neither-inconclusive", "not-beat-inconclusive", "not-beat-significant",
        "points-in-words-right", "points-in-words-wrong", "runs-in-words-right", "runs-in-words-wrong"])
def test_claims_in_words(ninth_study, tmp_path, study, text, wrong):
    """Problems solved are no statement of n; a negated "beats" is a claim of the evidence (true where the
    contrast is not significant, false where it is); "three points higher" is the difference in points; "twelve
    runs in total" is the study's count of runs."""
    found = _findings(ninth_study(study), tmp_path, text)
    assert (found == []) if wrong is None else (len(found) == 1 and wrong in found[0]), found


# ---- moves between the two evaluation sessions of the e-mail's study (GSPO 62.25% -> 58.5%; its seed 303
# 60.5 -> 62.5, seed 404 62.5 -> 60.5; Dr. GRPO 57.5% -> 57.4%) ----------------------------------------

@pytest.mark.slow   # builds a study of the set and audits a report over it (a second or more each)
@pytest.mark.parametrize(("text", "wrong"), [
    ("Looking at GSPO by seed, seed 404 dropped between the two evaluations.\n", None),
    ("Looking at GSPO by seed, seed 303 dropped between the two evaluations.\n", "runs.gspo.s303"),
    ("GSPO loses about four points in the second session.\n", None),
    ("Dr. GRPO gains about two points on the re-evaluation.\n", "dr_grpo moved -0.12 points"),
], ids=["seed-moved-right", "seed-moved-wrong", "mean-moved-right", "mean-moved-wrong"])
def test_moves_between_sessions_in_words(ninth_study, tmp_path, text, wrong):
    """"seed 303 dropped", "loses about four points in the second session": the subject's run (mean) from the
    first evaluation session to the second, in the direction (and by the points) written."""
    found = _findings(ninth_study("weekly_email"), tmp_path, text)
    assert (found == []) if wrong is None else (len(found) == 1 and wrong in found[0]), found


@pytest.mark.slow   # builds a study of the set and audits a report over it (a second or more each)
@pytest.mark.parametrize(("text", "wrong"), [
    ("Against the preregistered 2-point margin AERO counts as equivalent to GRPO (90% CI [0.11, 0.85]).\n", None),
    ("Against the preregistered 2-point margin AERO counts as equivalent to GRPO (90% CI [0.11, 0.58]).\n",
     "aero-grpo.ci90.high"),
], ids=["right", "wrong"])
def test_interval_after_a_margin_in_points(ninth_study, tmp_path, text, wrong):
    """An interval in a sentence whose equivalence margin is in points is in points too (the checklist's study:
    AERO − GRPO 90% CI 0.11 to 0.85 points)."""
    found = _findings(ninth_study("neurips_checklist"), tmp_path, text)
    assert (found == []) if wrong is None else (len(found) == 1 and wrong in found[0]), found


@pytest.mark.slow   # builds a study of the set and audits a report over it (a second or more each)
@pytest.mark.parametrize(("text", "wrong"), [
    ("GRPO kept a ZVF of 0.171, Dr. GRPO 0.175 and AERO 0.146. Over the last ten steps the reward came to 0.565, "
     "0.54625 and 0.55625.\n", None),
    ("GRPO kept a ZVF of 0.171, Dr. GRPO 0.175 and AERO 0.146. Over the last ten steps the reward came to 0.565, "
     "0.55625 and 0.54625.\n", "arms.aero.reward_last10"),
], ids=["right", "swapped"])
def test_values_listed_in_the_order_of_the_arms_before(post_study, tmp_path, text, wrong):
    """A sentence naming no arm whose values are one list, as many as the arms the sentence before named,
    gives them in that order ("respectively" left implied); swapped values are caught."""
    found = _findings(post_study, tmp_path, text)
    assert (found == []) if wrong is None else (len(found) == 2 and any(wrong in f for f in found)), found


@pytest.mark.slow   # builds a study of the set and audits a report over it (a second or more each)
@pytest.mark.parametrize(("text", "wrong"), [
    ("SFT held steady across sessions (0.581 to 0.556 is its only move), while the base model slipped (0.406 to 0.386).\n", None),
    ("SFT held steady across sessions (0.581 to 0.556 is its only move), while the base model slipped (0.406 to 0.368).\n",
     "sessions.s2.arms.base.solve_rate"),
], ids=["right", "wrong"])
def test_a_to_b_across_the_two_sessions(ninth_study, tmp_path, text, wrong):
    """"(A to B)" of the arm named before it, in a sentence about the two sessions: A is the first session's
    value and B the second's, both of that arm (the model card's study: base 0.406, then 0.386)."""
    found = _findings(ninth_study("hub_card_template"), tmp_path, text)
    assert (found == []) if wrong is None else (len(found) == 1 and wrong in found[0]), found


def test_a_cut_paragraph_part_starts_from_the_state_it_is_given():
    """A part of a long paragraph read from a known state (audit.report_pool) gets every field
    :func:`audit.prose.walk_state` carries, the previous sentence's arms included (a field added to the state
    and not to the part's start once failed every such part)."""
    from audit.prose import SentenceCut, _Walk, walk_state

    w = _Walk(text="", vocab=None, names=None, facts=None, legend=frozenset(), subject="a")
    w.last_arms, w.metric = ("a", "b"), "acc"
    state = walk_state(w)
    fresh = _Walk(text="", vocab=None, names=None, facts=None, legend=frozenset(), subject=None)
    SentenceCut(line=1, k0=1, k1=2, lo=0, hi=0, state=state).enter(fresh, [(0, 0), (0, 0)], [], [])
    assert walk_state(fresh) == state
