"""Known open defects of the audit on hand-written reports, fixed one by one (README failure 15).

Each was a strict xfail of the older report sets (``tests/report_corpus_*/``). Each fix has here a
clean sentence that must audit with no finding and a wrong variant (one number or word changed) that
must be one check-10 finding naming the value the words name. The wordings are not the sets' own: the
point is that the reading generalises beyond the sentence that showed the gap.
"""

from __future__ import annotations

import pytest

from audit import check
from tests.report_corpus import corpus
from tests.report_corpus_fresh import fresh
from tests.report_corpus_unseen import unseen

# only the report differs from test to test: check 9 recomputes each study once (conftest)
pytestmark = pytest.mark.usefixtures("shared_recompute")

HEAD = "# Results\n\nFrom the locked analysis.\n\n"
FIRST_LINE = HEAD.count("\n") + 1


def _findings(study, blocks: list[str], strict: bool = False, name: str = "report.md") -> dict[int, list[str]]:
    """Check-10 findings (message | expected) by the index of the block (paragraph, list) they are about."""
    for f in [*study.glob("*.md"), *study.glob("*.qmd")]:
        f.unlink()
    (study / name).write_text(HEAD + "\n\n".join(blocks) + "\n")
    first, line = [], FIRST_LINE
    for b in blocks:
        first.append(line)
        line += b.count("\n") + 2
    out: dict[int, list[str]] = {}
    for f in check(study, only=["10", "11"], strict=strict).findings:
        n = int(f.location.rsplit(":", 1)[1])
        out.setdefault(max(i for i, a in enumerate(first) if a <= n), []).append(f"{f.message} | {f.expected}")
    return out


def _pairs(study, pairs, strict: bool = False, name: str = "report.md"):
    """(findings on the clean blocks, findings on the wrong variants) of ``(clean, wrong, source)`` triples."""
    return (_findings(study, [c for c, _, _ in pairs], strict, name),
            _findings(study, [w for _, w, _ in pairs], strict, name))


def _assert_pairs(found, pairs):
    clean, wrong = found
    for i, (c, w, source) in enumerate(pairs):
        assert clean.get(i, []) == [], (c, clean.get(i))
        got = wrong.get(i, [])
        assert len(got) == 1 and source in got[0], (w, got)


@pytest.fixture(scope="module")
def card12(tmp_path_factory):
    """Study "model_card_yaml" (study12): base (baseline), sft, grpo over 3 seeds; well-formed answers
    (format_pct, a percent metric) base 88.9, sft 86.4, grpo 88.5; solve rate grpo 0.623."""
    report = unseen.build("model_card_yaml", tmp_path_factory.mktemp("card12") / "s")
    return report


# A percent metric named by its id's stem and a word for a share ("format rate" for format_pct), where the
# study declares only "Well-formed answers (%)": before, the value was read as the primary metric's.
RATE_NAMES = [
    ("Averaged over its seeds, GRPO keeps a format share of 88.5%.",
     "Averaged over its seeds, GRPO keeps a format share of 86.4%.",
     "arms.grpo.format_pct.mean"),
    ("The SFT checkpoint's format percentage (86.4%) is the lowest of the three.",
     "The SFT checkpoint's format percentage (88.4%) is the lowest of the three.",
     "arms.sft.format_pct.mean"),
]


def test_a_percent_metric_named_by_its_stem_and_rate(card12):
    _assert_pairs(_pairs(card12, RATE_NAMES), RATE_NAMES)


@pytest.fixture(scope="module")
def thread60(tmp_path_factory):
    """Study "email_thread": a runner-shaped campaign, grpo (baseline), dapo, gspo × seeds 21-23, 60 held-out
    items; items correct per run: grpo 30/25/29, dapo 28/30/33, gspo 33/32/39."""
    return unseen.build("email_thread", tmp_path_factory.mktemp("thread60") / "s")


# Whole numbers in a list under a lead-in that says they count items out of N ("Problems solved by each run,
# out of 60 held-out items:"): each is its run's held-out correct count, and the N is the held-out n. Before,
# an integer in prose was read only where its words named a count metric, so a wrong count passed.
COUNT_LISTS = [
    ("Problems solved by each run, out of 60 held-out items:\n\n"
     "- GRPO: 30 (seed 21), 25 (seed 22) and 29 (seed 23)\n- GSPO: 33 (seed 21), 32 (seed 22) and 39 (seed 23)",
     "Problems solved by each run, out of 60 held-out items:\n\n"
     "- GRPO: 30 (seed 21), 27 (seed 22) and 29 (seed 23)\n- GSPO: 33 (seed 21), 32 (seed 22) and 39 (seed 23)",
     "runs.grpo.s22.heldout_correct"),
    ("Correct answers out of 60 problems, per seed:\n\n- seed 23 — DAPO 33, GSPO 39",
     "Correct answers out of 60 problems, per seed:\n\n- seed 23 — DAPO 33, GSPO 33",
     "runs.gspo.s23.heldout_correct"),
    ("Items correct per run, out of 60:\n\n- seed 21: DAPO 28 and GRPO 30",
     "Items correct per run, out of 80:\n\n- seed 21: DAPO 28 and GRPO 30",
     "lock.dataset.heldout_n"),
]


@pytest.mark.parametrize("strict", [False, True])
def test_counts_in_a_list_under_an_out_of_n_lead_in(thread60, strict):
    _assert_pairs(_pairs(thread60, COUNT_LISTS, strict), COUNT_LISTS)


# A YAML or JSON code block the author meant as data: by default its numbers stay "in code" (never an error),
# under --strict each is checked against the value its keys name (arm, metric, mean or sd). Before, a wrong
# value in code that happened to equal another value of the analysis passed even --strict.
DATA_BLOCK = ("```json\n{\"pass@16\": {\"grpo\": 0.939, \"base\": 0.850}}\n```\n\n"
              "~~~yml\ngrpo:\n  solve_rate: 0.623\n  format_pct: {mean: 88.5, sd: 2.6}\n  groups_correct:\n"
              "    mean: 2.44\n~~~")
DATA_WRONG = [("0.850}", "0.910}", "arms.base.pass16.mean"),          # SFT's pass@16 written for the base model
              ("mean: 88.5,", "mean: 88.9,", "arms.grpo.format_pct.mean"),   # the base model's
              ("mean: 2.44", "mean: 2.20", "arms.grpo.groups_correct.mean")]  # SFT's


def test_a_data_block_is_read_by_its_keys_under_strict(card12):
    assert _findings(card12, [DATA_BLOCK], strict=True) == {}
    for find, replace, source in DATA_WRONG:
        wrong = DATA_BLOCK.replace(find, replace)
        assert _findings(card12, [wrong]) == {}   # by default a number in code is never a finding
        got = _findings(card12, [wrong], strict=True).get(0, [])
        assert len(got) == 1 and source in got[0] and "number in code" in got[0], (replace, got)


# "X wins on all N seeds" (or "on every seed", "in each of the seeds"): X is better than the other arm of the
# paragraph (or the one named after "over"/"against", else the baseline) on every locked seed, by the runs'
# values. Before, "wins" was no comparison word, so an arm that loses on some seed passed.
@pytest.fixture(scope="module")
def discussion(tmp_path_factory):
    """Study "gh_discussion" (fresh set): grpo (baseline), gspo, dr_grpo × seeds 5-8, 80 items; GSPO is above
    GRPO on every seed, Dr. GRPO is below GRPO on seed 7."""
    return fresh.build("gh_discussion", tmp_path_factory.mktemp("discussion") / "s")


SEED_WINS = [
    ("## GSPO against GRPO\n\nGSPO came out ahead in each of the four seeds.",
     "## GSPO against GRPO\n\nGRPO came out ahead in each of the four seeds.",
     "runs.grpo.s5.heldout_accuracy"),
    ("GSPO won over GRPO on every seed.",
     "Dr. GRPO won over GRPO on every seed.",
     "runs.dr_grpo.s7.heldout_accuracy"),
]


def test_an_arm_that_wins_on_every_seed(discussion):
    _assert_pairs(_pairs(discussion, SEED_WINS), SEED_WINS)


@pytest.fixture(scope="module")
def five_arms(tmp_path_factory):
    """Study "prose_results" (corpus): grpo (baseline) 0.632, gspo 0.650, dapo 0.6355, dr_grpo 0.631, aero 0.612;
    after BH, gspo-, dapo- and aero-grpo are significant, dr_grpo-grpo is not (p 0.28)."""
    return corpus.build("prose_results", tmp_path_factory.mktemp("five") / "s")


# "..., to Y" after a verb of change is the new value of the arm that changed (named before the verb), not of
# the arm it changed against. Before, Y was checked against the arm named last (the baseline), so the
# baseline's own value written as the arm's new value passed.
CHANGED_TO = [
    ("DAPO lifts accuracy by 0.0035 relative to GRPO, to 0.636.",
     "DAPO lifts accuracy by 0.0035 relative to GRPO, to 0.632.",
     "arms.dapo.heldout_accuracy.mean"),
    ("AERO drops accuracy by 0.020 against GRPO, to 0.612.",
     "AERO drops accuracy by 0.020 against GRPO, to 0.632.",
     "arms.aero.heldout_accuracy.mean"),
]


def test_the_new_value_after_a_change_is_the_changed_arms(five_arms):
    _assert_pairs(_pairs(five_arms, CHANGED_TO), CHANGED_TO)


# "All ... comparisons but/except/other than/apart from X's are significant": X's contrast is not, the others
# are. Before, the exception was read as a claim that X's contrast is significant (a false alarm).
ALL_BUT = [
    ("All of the contrasts with GRPO other than Dr. GRPO's are significant after the BH correction.",
     "All of the contrasts with GRPO other than DAPO's are significant after the BH correction.",
     "dapo-grpo is significant"),
    ("All three comparisons apart from Dr. GRPO's remain significant after BH correction.",
     "All three comparisons apart from AERO's remain significant after BH correction.",
     "aero-grpo is significant"),
]


def test_all_comparisons_but_one_are_significant(five_arms):
    _assert_pairs(_pairs(five_arms, ALL_BUT), ALL_BUT)


# --strict: a day of a month with no year ("pulled Dec 3", "on 28 Nov") is a date, and "(fraction of N)" /
# "(share of N)" states the held-out n. Before, both were whole numbers of prose equal to some source by
# value alone, so --strict called a correct report wrong; the values next to them are still checked.
STRICT_WHOLE = [
    ("GSPO reaches 0.544 held-out accuracy (numbers pulled Dec 3 from the dashboard).",
     "GSPO reaches 0.554 held-out accuracy (numbers pulled Dec 3 from the dashboard).",
     "arms.gspo.heldout_accuracy.mean"),
    ("Accuracy of each run (share of 80) is in the table below; the last sync was on 28 Nov.",
     "Accuracy of each run (share of 60) is in the table below; the last sync was on 28 Nov.",
     "lock.dataset.heldout_n"),
]


def test_dates_and_a_fraction_of_n_under_strict(discussion):
    _assert_pairs(_pairs(discussion, STRICT_WHOLE, strict=True), STRICT_WHOLE)


# A decimal comma before a percent sign ("54,4 %", French/German style) is the decimal point; a thousands
# group ("1,319") and a comma between two numbers ("[0,1]", "3,14" without a percent sign) stay as they were.
def test_a_decimal_comma_before_a_percent_sign():
    from audit.numbers import parse_markdown

    got = [(m.text, m.value, m.percent) for m in parse_markdown("r.md", "in [0,1], 1,319 items, 12,5 % and 3,14", "r.md").mentions]
    assert got == [("0", 0.0, False), ("1", 1.0, False), ("1,319", 1319.0, False), ("12,5 %", 12.5, True),
                   ("3", 3.0, False), ("14", 14.0, False)]


DECIMAL_COMMA = [("Le taux de réussite de GSPO est de 54,4 % en moyenne.",
                  "Le taux de réussite de GSPO est de 55,4 % en moyenne.",
                  "arms.gspo.heldout_accuracy.mean")]


def test_a_value_with_a_decimal_comma_is_checked(discussion):
    _assert_pairs(_pairs(discussion, DECIMAL_COMMA), DECIMAL_COMMA)


# --strict: a "+1" that opens a reply ("+1 to Sam.", "... wrote: +1, ...") agrees; it is no number of the study.
# A "+1" with an arm after "to", or inside a sentence, is still read (a difference).
PLUS_ONE = [
    ("> Sam wrote: +1 to Sam, and GSPO sits at 57.8% on held-out items.",
     "> Sam wrote: +1 to Sam, and GSPO sits at 58.7% on held-out items.",
     "arms.gspo.heldout_accuracy.mean"),
    ("+1. GSPO beats GRPO by 11.1 points.",
     "+1. GSPO beats GRPO by 1 point.",
     "contrasts.gspo-grpo.diff_mean"),
]


def test_a_plus_one_that_agrees_under_strict(thread60):
    _assert_pairs(_pairs(thread60, PLUS_ONE, strict=True), PLUS_ONE)
    assert _findings(thread60, ["GSPO gains +1 point on GRPO."], strict=True) != {}   # a difference, still read


# A decimal comma after a lone zero with four or more digits ("0,6355", "-0,0194") is the decimal point: no
# thousands group starts "0," or has four digits. Before, "0,6355" was two numbers, 0 and 6355, and a wrong
# value passed. "[0,100]" (three digits) and "0,100,000" stay what they were.
def test_a_decimal_comma_after_a_lone_zero():
    from audit.numbers import parse_markdown

    got = [(m.text, m.value, m.decimals) for m in
           parse_markdown("r.md", "0,6355 and -0,0194 in [0,100] of 0,100,000", "r.md").mentions]
    assert got == [("0,6355", 0.6355, 4), ("-0,0194", -0.0194, 4), ("0,100", 100.0, 0), ("0,100,000", 100000.0, 0)]


LONE_ZERO_COMMA = [("DAPO erreicht im Mittel 0,6355 Genauigkeit (GRPO: 0,6320).",
                    "DAPO erreicht im Mittel 0,6455 Genauigkeit (GRPO: 0,6320).",
                    "arms.dapo.heldout_accuracy.mean")]


def test_a_value_with_a_decimal_comma_after_zero_is_checked(five_arms):
    _assert_pairs(_pairs(five_arms, LONE_ZERO_COMMA), LONE_ZERO_COMMA)


# "X lowers / reduces / decreases / cuts / hurts accuracy by N" is a negative difference, as "X is lower than Y
# by N" was. Before, "AERO lowers held-out accuracy by 0.020" was read as +0.020 and called wrong.
LOWERS_BY = [
    ("AERO lowers held-out accuracy by 0.020 against GRPO.",
     "AERO lowers held-out accuracy by 0.021 against GRPO.",
     "contrasts.aero-grpo.diff_mean"),
    ("Under AERO, accuracy decreased by 2.0 points.",
     "Under AERO, accuracy decreased by 2.5 points.",
     "contrasts.aero-grpo.diff_mean"),
]


def test_a_change_by_a_verb_of_lowering_is_negative(five_arms):
    _assert_pairs(_pairs(five_arms, LOWERS_BY), LOWERS_BY)


# A digit inside a word ("GSM8K", "Qwen3") is no number: the prose reader finds each number in its line by its
# text, and found the "8" of "mean over 8 seeds" in "GSM8K" first, so the seed count was read where it is not
# (value-only under --strict: the fresh set's LaTeX caption "Main results on GSM8K (mean over 8 seeds, ...)").
WORD_DIGITS = [
    ("On GSM8K, the mean over 8 seeds is 0.650 for GSPO.",
     "On GSM8K, the mean over 8 seeds is 0.660 for GSPO.",
     "arms.gspo.heldout_accuracy.mean"),
    ("Qwen3 with DAPO: mean over 8 seeds 0.6355.",
     "Qwen3 with DAPO: mean over 8 seeds 0.6455.",
     "arms.dapo.heldout_accuracy.mean"),
]


def test_a_digit_inside_a_word_is_not_the_number_read(five_arms):
    _assert_pairs(_pairs(five_arms, WORD_DIGITS, strict=True), WORD_DIGITS)


# The MDE from below: "could not have detected a gain below ~0.8 pts", "cannot detect a difference smaller than
# 0.0078" (AERO − GRPO's MDE is 0.0078). Before, the number was read as the contrast's difference or the arm's
# mean and called wrong; under --strict the fresh set's "below ~2 pts" was value-only.
MDE_BELOW = [
    ("For AERO against GRPO, the sweep could not have detected a gain below ~0.8 pts.",
     "For AERO against GRPO, the sweep could not have detected a gain below ~1.8 pts.",
     "contrasts.aero-grpo.mde"),
    ("For AERO against GRPO the design cannot detect a difference smaller than 0.0078.",
     "For AERO against GRPO the design cannot detect a difference smaller than 0.0087.",
     "contrasts.aero-grpo.mde"),
]


def test_the_mde_written_as_what_could_not_be_detected(five_arms):
    _assert_pairs(_pairs(five_arms, MDE_BELOW, strict=True), MDE_BELOW)


# A change of a metric the analysis holds no contrast of (ZVF: grpo 0.416, dapo 0.221, aero 0.301) is the two
# arms' means of it subtracted in the order written. Before, it was checked against the primary metric's
# contrast (DAPO − GRPO = +0.0035 in accuracy), so a right ZVF change was an error and a wrong one named
# the accuracy contrast.
METRIC_CHANGE = [
    ("Compared with GRPO, DAPO reduces ZVF by 0.195.",
     "Compared with GRPO, DAPO reduces ZVF by 0.159.",
     "arms.dapo.zvf_mean - arms.grpo.zvf_mean"),
    ("The ZVF difference DAPO − GRPO is −0.195.",
     "The ZVF difference DAPO − GRPO is −0.159.",
     "arms.dapo.zvf_mean - arms.grpo.zvf_mean"),
    ("AERO cuts ZVF by 0.115 relative to GRPO.",
     "AERO cuts ZVF by 0.151 relative to GRPO.",
     "arms.aero.zvf_mean - arms.grpo.zvf_mean"),
]


def test_a_change_of_a_metric_without_a_contrast_is_the_means_subtracted(five_arms):
    _assert_pairs(_pairs(five_arms, METRIC_CHANGE), METRIC_CHANGE)
    # the primary metric's change is still its contrast, and so is a contrast in points in a sentence that names
    # the other metric after it (the nearer of the two values names the error)
    assert _findings(five_arms, ["DAPO raises accuracy by 0.0135 over GRPO."])[0][0].count("contrasts.dapo-grpo.diff_mean")
    _assert_pairs(_pairs(five_arms, OTHER_METRIC_LATER), OTHER_METRIC_LATER)


OTHER_METRIC_LATER = [
    ("AERO trails GRPO (Δ = −2.0 points, p < 0.001) even though it lowers the ZVF to 0.301.",
     "AERO trails GRPO (Δ = +2.0 points, p < 0.001) even though it lowers the ZVF to 0.301.",
     "contrasts.aero-grpo.diff_mean"),
]


@pytest.fixture(scope="module")
def quarto(tmp_path_factory):
    """Study "quarto_doc" (fresh set): grpo (baseline) and dapo × seeds 1-6, n = 300; seed 1: grpo 187/300;
    seed 3: grpo 190/300, dapo 193/300; seed 4: grpo 186/300, dapo 191/300."""
    return fresh.build("quarto_doc", tmp_path_factory.mktemp("quarto") / "s")


# A whole number written "k/n" in prose, n the held-out n, is a count of the run's held-out items (the run's
# accuracy × n), and "k/n." at the end of a sentence is a number at all (before, the "." after "/300" was read
# as a decimal point and the number dropped, so "DAPO 192/300." could not be checked).
K_OF_N = [
    ("With seed 3, GRPO got 190/300 right.",
     "With seed 3, GRPO got 191/300 right.",
     "runs.grpo.s3.heldout_accuracy"),
    ("Seed 1: GRPO answered 187/300 of the held-out problems.",
     "Seed 1: GRPO answered 178/300 of the held-out problems.",
     "runs.grpo.s1.heldout_accuracy"),
    ("On seed 3, GRPO solved 190/300 problems and DAPO solved 193/300.",
     "On seed 3, GRPO solved 190/300 problems and DAPO solved 192/300.",
     "runs.dapo.s3.heldout_accuracy"),
    # a pair after a comparison: each count is one of the two runs' (which one is not read from the words, so the
    # error may name either run of that seed)
    ("GRPO stays behind DAPO on seed 4 as well (186/300 against 191/300).",
     "GRPO stays behind DAPO on seed 4 as well (186/300 against 190/300).",
     ".s4.heldout_accuracy"),
]


def test_a_count_k_of_n_in_prose_is_the_runs_items(quarto):
    from audit.numbers import parse_markdown

    assert [m.text for m in parse_markdown("r.md", "DAPO 192/300. On 2026/01/01.", "r.md").mentions] == ["192"]
    _assert_pairs(_pairs(quarto, K_OF_N, strict=True), K_OF_N)
    # a k/n whose n is no source's ("2/9" numbering a post of a thread) stays a bare integer: no error
    assert _findings(quarto, ["**2/9** With seed 3, GRPO got 190/300 right."]) == {}


# Each count of such a pair may be either run's, so one value written twice would pass: a pair "a against b"
# whose two values are traced to one arm's value has its second checked as the other arm's (audit.trace
# .repeated_pairs).
DOUBLED_PAIR = [
    ("DAPO leads GRPO on seed 3 as well (193/300 against 190/300).",
     "DAPO leads GRPO on seed 3 as well (193/300 against 193/300).",
     "runs.grpo.s3.heldout_accuracy"),
    ("On seed 5 DAPO is ahead: 0.643 versus 0.623.",
     "On seed 5 DAPO is ahead: 0.643 versus 0.643.",
     "runs.grpo.s5.heldout_accuracy"),
]


def test_one_value_written_twice_in_a_pair_is_an_error(quarto):
    _assert_pairs(_pairs(quarto, DOUBLED_PAIR, strict=True), DOUBLED_PAIR)
