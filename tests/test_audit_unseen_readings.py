"""Readings the unseen report set (tests/report_corpus_unseen/) found missing, each with a case that
fires and a clean case, over the set's appendix study (5 arms × seeds 0-4, n = 1,000; README failure 15).

- a second header row typed as the table's first body row ("| | *s = 0* | *s = 1* | *mean (std)* |"
  under "| Method | Held-out accuracy (%) | | |") names the columns below it;
- a "mean (std)" cell ("60.98 (0.67)") is the arm's mean and, in parentheses, its SD;
- a seed column headed by the seed's symbol ("s = 0") names that seed's run;
- a "d<sub>z</sub>" column is the paired effect size, never a percentage;
- in prose: "61.0% → 63.1%" and "from 36.9 % of groups to 18.9 %" (the first value is the baseline's),
  "0.0097 after the BH correction" (an adjusted p), "63.1% (sd 0.8)" (an SD in points after a percent),
  per-seed bullets under a lead-in that states the unit ("Held-out accuracy (%) on each seed:"), and
  "zero-variance groups" as the ZVF metric;
- a report file in a format the audit does not read (.org; .rst was, until audit/rst_doc.py) is a finding,
  never a silent pass;
- second round: a contrast statistic followed by one arm ("d_z = 3.05 for GSPO, and about −1.44 for
  AERO", "the smallest gain we could detect at 80% power is 1.16 points for GSPO (1.19 for AERO)"); a
  quoted e-mail thread ("> > " lines; "> " alone ends a paragraph; "the bootstrap CI for GSPO vs GRPO is
  [...]" is the contrast's); a question is no claim; "queue seeds 5–7" is a plan; over the study with a
  base model and an SFT checkpoint: "A − B is x ([lo, hi]; p = ...)" written after another contrast in
  one sentence, and "Base − SFT" (the reverse of the locked sft − base); a "Unit" column is labels.
"""

from __future__ import annotations

import pytest

from tests.report_corpus import corpus
from tests.report_corpus_unseen import unseen

# only the report differs from test to test: check 9 recomputes each study once (conftest)
pytestmark = pytest.mark.usefixtures("shared_recompute")

SEEDS = """**Table C.1.** Held-out accuracy (%) by seed.

| Method | Held-out accuracy (%) | | | | | |
|:-------|------:|------:|------:|------:|------:|------:|
| | *s = 0* | *s = 1* | *s = 2* | *s = 3* | *s = 4* | *mean (std)* |
| GRPO | 60.7 | 60.0 | 61.6 | 61.6 | 61.0 | 60.98 (0.67) |
| GSPO | 62.3 | 62.5 | 62.8 | 63.9 | 63.9 | 63.08 (0.77) |
"""

ZVF = """**Table C.2.** Fraction of zero-variance groups, averaged over training, by seed.

| Method | s = 0 | s = 1 | s = 2 | s = 3 | s = 4 | mean |
|:-------|-----:|-----:|-----:|-----:|-----:|-----:|
| GRPO | .364 | .377 | .371 | .367 | .367 | .369 |
| DAPO | .189 | .199 | .192 | .190 | .176 | .189 |
"""

DZ = """**Table C.3.** Paired differences from GRPO in held-out accuracy (percentage points).

| Comparison | Δ (pts) | 95% CI | d<sub>z</sub> |
|:--|--:|:--:|--:|
| GSPO − GRPO | +2.10 | [+1.54, +2.64] | 3.05 |
| AERO − GRPO | −1.02 | [−1.48, −0.42] | −1.44 |
"""

ARROW = "- **GSPO helps.** Held-out accuracy goes 61.0% → 63.1%, a gain of 2.1 points.\n"
FROM_TO = "- **Zero-variance groups**: DAPO cuts them from 36.9 % of groups to 18.9 %.\n"
ADJUSTED = "GSPO beats GRPO: paired t p = 0.0024, and 0.0097 after the BH correction.\n"
SD_PCT = "Held-out accuracy: GSPO 63.1% (sd 0.8), GRPO 61.0% (sd 0.7).\n"
LEAD_IN = """Held-out accuracy (%) on each seed:

- **seed 0** — grpo 60.7, gspo 62.3
- **seed 1** — grpo 60.0, gspo 62.5
"""
ARM_AFTER = "- Effect size: d_z = 3.05 for GSPO, and about −1.44 for AERO.\n"
MDE_AFTER = "With five seeds the smallest gain we could detect at 80% power is 1.16 points for GSPO (1.19 for AERO).\n"
QUOTED = """Thanks, agreed.

On Mon, 30 Nov 2026 at 18:02, Tom <tom@lab.example> wrote:
> Also: the bootstrap CI for GSPO vs GRPO is [0.0154, 0.0264], entirely above 0.
> DAPO's zero-variance fraction is lower too (0.189 vs 0.369).
>
> > GSPO is at 63.1% held-out against 61.0% for GRPO. That's a 3%
> > relative gain! Can we say DAPO significantly beats GRPO?
"""
PLANNED = "GSPO is ahead of GRPO on seeds 0–4; I'd queue seeds 5–7 next.\n"
PROSE = {"arrow": ARROW, "from-to": FROM_TO, "adjusted-after": ADJUSTED, "sd-after-percent": SD_PCT,
         "lead-in-unit": LEAD_IN, "arm-after-contrast-statistic": ARM_AFTER, "mde-arm-after": MDE_AFTER,
         "quoted-thread": QUOTED, "planned-seeds": PLANNED}


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    return unseen.build("appendix_seeds", tmp_path_factory.mktemp("appendix"))


def _findings(study, tmp_path, text):
    tmp_path.mkdir(parents=True, exist_ok=True)
    res = corpus.audit_written(study, tmp_path, {"report.md": text})
    return [(f.location.rsplit(":", 1)[-1], f.expected, f.found, f.message) for f in res.findings]


@pytest.mark.parametrize("text", [SEEDS, ZVF, DZ, *PROSE.values()],
                         ids=["second-header-row", "s-equals-seed-columns", "dz-column", *PROSE])
def test_clean_table_has_no_finding(study, tmp_path, text):
    assert _findings(study, tmp_path, text) == []


@pytest.mark.parametrize(("text", "find", "replace", "line", "source"), [
    (SEEDS, "| 61.6 | 61.6 | 61.0 |", "| 61.7 | 61.6 | 61.0 |", "6", "runs.grpo.s2.heldout_accuracy"),
    (SEEDS, "60.98 (0.67)", "60.98 (0.76)", "6", "arms.grpo.heldout_accuracy.sd"),
    (SEEDS, "63.08 (0.77)", "63.18 (0.77)", "7", "arms.gspo.heldout_accuracy.mean"),
    (ZVF, "| .189 | .199 |", "| .189 | .198 |", "6", "runs.dapo.s1.zvf_mean"),
    (DZ, "| 3.05 |", "| 2.62 |", "5", "contrasts.gspo-grpo.effect_size_dz"),
    (ARROW, "→ 63.1%", "→ 63.5%", "1", "arms.gspo.heldout_accuracy.mean"),
    (FROM_TO, "to 18.9 %", "to 19.9 %", "1", "arms.dapo.zvf_mean"),
    (ADJUSTED, "0.0097 after", "0.0079 after", "1", "contrasts.gspo-grpo.p_adjusted"),
    (SD_PCT, "(sd 0.8)", "(sd 0.5)", "1", "arms.gspo.heldout_accuracy.sd"),
    (LEAD_IN, "gspo 62.5", "gspo 62.9", "4", "runs.gspo.s1.heldout_accuracy"),
    (ARM_AFTER, "−1.44 for AERO", "−1.04 for AERO", "1", "contrasts.aero-grpo.effect_size_dz"),
    (MDE_AFTER, "(1.19 for AERO)", "(1.49 for AERO)", "1", "contrasts.aero-grpo.mde"),
    (QUOTED, "[0.0154, 0.0264]", "[0.0154, 0.0364]", "4", "contrasts.gspo-grpo.ci95.high"),
    (QUOTED, "63.1% held-out", "63.4% held-out", "7", "arms.gspo.heldout_accuracy.mean"),
], ids=["per-seed-cell", "sd-in-parentheses", "mean-before-parentheses", "s-equals-seed-column", "dz-cell", *list(PROSE)[:5],
       "arm-after-contrast-statistic", "mde-arm-after", "quoted-contrast-interval", "quoted-nested-mean"])
def test_wrong_cell_is_an_error_against_its_source(study, tmp_path, text, find, replace, line, source):
    found = _findings(study, tmp_path, text.replace(find, replace))
    assert [f for f in found if f[0] == line and source in f[1]], found


def test_a_report_in_a_format_the_audit_does_not_read_is_a_finding(study, tmp_path):
    """A folder holding only report.org audited clean whatever its numbers said: now one finding names it
    (.rst is read since docutils: tests/test_audit_rst.py)."""
    org = "* Results\n\nGSPO reaches 99.9% held-out accuracy (p = 0.5).\n"
    res = corpus.audit_written(study, tmp_path, {"report.org": org})
    assert [(f.check, f.location.rsplit("/", 1)[-1], f.found) for f in res.findings] == [
        ("10", "report.org", "Org mode (.org)")]
    assert not res.passed


def test_a_report_the_audit_reads_has_no_unread_finding(study, tmp_path):
    res = corpus.audit_written(study, tmp_path, {"report.md": ZVF})
    assert [f for f in res.findings if "not read" in f.message] == []


CARD = """| Metric | Unit | Base | SFT | GRPO (3 seeds) |
|---|---|---:|---:|---:|
| Groups correct | of 4 | 1.87 | 2.20 | **2.44** ± 0.06 |

On solve rate, GRPO − Base is +0.148 (95% bootstrap CI [0.062, 0.241]; paired t p = 0.090, Holm-adjusted
0.181) and GRPO − SFT is +0.074 ([−0.017, 0.161]; p = 0.230).

Quoted the other way round, Base − SFT is −0.074 [−0.167, 0.019] (p = 0.122, exploratory).
"""


@pytest.fixture(scope="module")
def card_study(tmp_path_factory):
    return unseen.build("model_card_yaml", tmp_path_factory.mktemp("card"))


def test_clean_card_contrasts_and_unit_column_have_no_finding(card_study, tmp_path):
    assert _findings(card_study, tmp_path, CARD) == []


@pytest.mark.parametrize(("find", "replace", "line", "source"), [
    ("| 1.87 |", "| 0.468 |", "3", "arms.base.groups_correct"),
    ("[−0.017, 0.161]", "[−0.017, 0.171]", "6", "contrasts.grpo-sft.ci95.high"),
    ("p = 0.230", "p = 0.320", "6", "contrasts.grpo-sft.p"),
    ("Base − SFT is −0.074", "Base − SFT is +0.074", "8", "contrasts.sft-base"),
    ("[−0.167, 0.019]", "[−0.167, 0.029]", "8", "contrasts.sft-base"),
], ids=["unit-column-row", "second-contrast-interval", "second-contrast-p", "reversed-contrast-sign",
        "reversed-contrast-interval"])
def test_wrong_card_value_is_an_error(card_study, tmp_path, find, replace, line, source):
    found = _findings(card_study, tmp_path, CARD.replace(find, replace))
    assert [f for f in found if f[0] == line and source in f[1]], found


MDE_POINTS = ("- With five seeds the smallest difference we could reliably detect (80% power, exact noncentral t) is about "
              "1.16 points for GSPO and 1.19 for AERO.\n")


def test_mde_with_the_arm_after_it_in_points(study, tmp_path):
    """"... is about 1.16 points for GSPO and 1.19 for AERO": each arm's MDE against GRPO, both in points."""
    assert _findings(study, tmp_path / "clean", MDE_POINTS) == []
    found = _findings(study, tmp_path / "wrong", MDE_POINTS.replace("about\n1.16", "about\n0.86").replace("about 1.16", "about 0.86"))
    assert [f for f in found if "contrasts.gspo-grpo.mde" in f[1]], found


ARM_CARD = """---
model-index:
- name: puzzle-solver-grpo
  results:
  - task: {type: text-generation, name: Logic puzzles}
    metrics:
    - {type: accuracy, name: Solve rate, value: 0.623}
---

# puzzle-solver-grpo

GRPO over three seeds. Do not read the +0.148 as an established gain.
"""


def test_model_index_of_an_arm_over_its_seeds_is_checked_against_the_arm_mean(card_study, tmp_path):
    """A card titled by an arm with no seed reports the arm's mean: it was asked for a run it never
    claimed to be (and its values went unchecked); a bare "+0.148" is a difference, not GRPO's mean."""
    assert _findings(card_study, tmp_path / "clean", ARM_CARD) == []
    found = _findings(card_study, tmp_path / "wrong", ARM_CARD.replace("value: 0.623", "value: 0.632"))
    assert [f[1:] for f in found] == [("0.623456790123 (arms.grpo.solve_rate.mean)", "accuracy: 0.632",
                                       "model-index value differs from the arm's mean")]


MDE_RANGE = ("With five seeds the design detects a paired difference between 0.85 (Dr. GRPO) and 1.31 (DAPO) points "
             "at 80% power. The DAPO gain of 0.62 points is therefore below what this study can resolve, and AERO's "
             "deficit does not survive the correction.\n")


def test_mde_range_with_arms_in_parentheses_and_below_what(study, tmp_path):
    """Each end of "between 0.85 (Dr. GRPO) and 1.31 (DAPO) points" is that arm's MDE in points, and
    "below what this study can resolve, and AERO's ..." compares DAPO with nothing (it was DAPO below AERO)."""
    assert _findings(study, tmp_path / "clean", MDE_RANGE) == []
    found = _findings(study, tmp_path / "wrong", MDE_RANGE.replace("and 1.31 (DAPO)", "and 0.93 (DAPO)"))
    assert [f for f in found if "contrasts.dapo-grpo.mde" in f[1]], found


SEEDS_IN_WORDS = "We trained five seeds per method on the same split. Next up: eight seeds for AERO.\n"


def test_seed_count_in_words(study, tmp_path):
    """"five seeds" is checked against the locked seeds like "5 seeds"; a plan ("Next up: eight seeds")
    is not a claim about the study."""
    assert _findings(study, tmp_path / "clean", SEEDS_IN_WORDS) == []
    found = _findings(study, tmp_path / "wrong", SEEDS_IN_WORDS.replace("five seeds per", "six seeds per"))
    assert [f for f in found if f[0] == "1" and "lock.seeds" in f[1]], found
