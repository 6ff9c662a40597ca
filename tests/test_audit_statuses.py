"""Number statuses (README failure 15): a value-only number is an error in a results table or in a
sentence with a statistic, by default; elsewhere it is counted and shown, an error only with --strict.

The study is the corpus's ``arm_table`` (four GRPO loss variants over five seeds); the report is
typed here with a title that names no arm, so nothing but the row, column or sentence can say which
value a number is.
"""

from __future__ import annotations

import shutil

import pytest

from audit import check
from audit.numbers import Mention
from audit.statuses import RESULTS_TABLE, STATISTIC_SENTENCE, classify, settings, statistic_in
from audit.trace import Traced
from tests.report_corpus import corpus

# only the report differs from test to test: check 9 recomputes each study once (conftest)
pytestmark = pytest.mark.usefixtures("shared_recompute")

CLEAN = """# Loss variants on GSM8K

| Method | Accuracy | ZVF |
|:--|:-:|:-:|
| GSPO | 0.610 | 0.388 |
| DAPO | 0.578 | 0.229 |

GSPO beats GRPO: Δ = +3.04 points, BH-adjusted p = 0.0003.

Intervals are percentile bootstrap intervals over seeds, each from 2,000 draws.
"""


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    report = corpus.build("arm_table", tmp_path_factory.mktemp("statuses") / "arm_table")
    for f in report.iterdir():
        if f.suffix in corpus.REPORT_SUFFIXES:
            f.unlink()
    return report


def _audit(study, tmp_path, text: str, strict: bool = False):
    root = tmp_path / "study"
    shutil.copytree(study.parent, root)
    (root / study.name / "report.md").write_text(text)
    return check(root / study.name, strict=strict)


def _report_findings(res):
    return [(f.location.rsplit("/", 1)[-1], f.message) for f in res.findings if f.check == "10"]


def test_clean_report_passes_with_a_value_only_number_counted(study, tmp_path):
    res = _audit(study, tmp_path, CLEAN)
    assert _report_findings(res) == []
    assert res.number_counts["value-only"] == 1     # "2,000 draws": no statistic in its sentence
    assert [r.text for r in res.numbers if r.status == "value-only"] == ["2,000"]


def test_value_only_cell_in_a_results_table_is_an_error(study, tmp_path):
    text = CLEAN.replace("| DAPO |", "| Ablation (no KL) | 0.580 | 0.409 |\n| DAPO |")
    res = _audit(study, tmp_path, text)
    got = _report_findings(res)
    assert any(w == "report.md:6" and m.startswith("row 'Ablation (no KL)', column 'Accuracy': 0.580 matches "
                                                   "arms.grpo.heldout_accuracy.mean = 0.58")
               and m.endswith("but nothing in its row or column says which value it reports (a results table)")
               for w, m in got), got
    assert any(m.startswith("row 'Ablation (no KL)', column 'ZVF': 0.409 matches arms.grpo.zvf_mean")
               for _, m in got)
    rows = {r.text: r for r in res.numbers if r.location.endswith(":6")}
    assert rows["0.580"].status == "error" and "results table" in rows["0.580"].rule


def test_value_only_number_in_a_sentence_with_a_statistic_is_an_error(study, tmp_path):
    res = _audit(study, tmp_path, CLEAN + "\nAn ablation without KL reached 0.591 (p = 0.0003).\n")
    got = _report_findings(res)
    assert any(w == "report.md:12" and m.startswith("0.591 matches arms.dr_grpo.heldout_accuracy.mean = 0.591")
               and m.endswith("nothing in its sentence says which value it reports (a sentence with a "
                              "statistic: 'p = 0.0003')") for w, m in got), got


def test_value_only_number_elsewhere_is_counted_not_an_error(study, tmp_path):
    res = _audit(study, tmp_path, CLEAN + "\nAn ablation without KL reached 0.591 on the same problems.\n")
    assert _report_findings(res) == []
    assert "0.591" in [r.text for r in res.numbers if r.status == "value-only"]
    strict = _audit(study, tmp_path / "s", CLEAN + "\nAn ablation without KL reached 0.591 on the same problems.\n",
                    strict=True)
    assert any("0.591" == f.found for f in strict.findings)


@pytest.mark.parametrize("sentence,stat", [
    ("GSPO against GRPO: paired t p = 0.021 (BH-adjusted 0.084).", "p = 0.021"),
    ("It is significant (p < 0.05).", "p < 0.05"),
    ("Mean 0.632, 95% CI [0.630, 0.635].", "CI [0.630"),
    ("Gain +3.04 points (95% CI 2.64–3.44).", "CI 2.64"),
    ("The interval is [0.630, 0.635].", "[0.630, 0.635]"),
    ("Accuracy 61.0% ± 0.8 over seeds.", "±"),
    ("Δ = +0.005 against GRPO.", "Δ"),
    ("A paired t(4) = 2.9 was found.", "t(4) = 2.9"),
    ("Cohen's d = 0.41.", "Cohen's d = 0.41"),
    ("$p = 0.021$ and $0.61 \\pm 0.01$.", "p = 0.021"),
    ("The SD was 0.8 across seeds.", "SD was 0.8"),
])
def test_statistic_in_finds_a_statistic_written_with_a_number(sentence, stat):
    assert statistic_in(sentence) == stat


@pytest.mark.parametrize("sentence", [
    "Intervals are percentile bootstrap intervals over seeds with 2,000 resamples.",
    "Means over the five registered seeds (1, 2, 3, 4, 5).",
    "Small comparison on Qwen3-8B (LoRA r=16).",
    "Effect sizes and CIs are in the appendix.",
    "We trained for 30 steps of 4 prompts.",
])
def test_statistic_in_ignores_sentences_without_one(sentence):
    assert statistic_in(sentence) == ""


def _cell(row: str, column: str, header=("Setting", "Value"), status="traced", decisive=False, sources=()):
    m = Mention("r.md", 3, "0.32", 0.32, 2, kind="table", row=row, column=column, header=header)
    return Traced(m, status, list(sources), decisive=decisive)


def test_a_hyperparameter_table_is_not_a_results_table():
    t = _cell("LoRA alpha", "Value")
    s = settings([t, _cell("Learning rate", "Value")])
    assert s.of(t) == "" and classify(t, where=s.of(t)) == "value-only"


def test_a_table_with_a_seed_row_or_an_outcome_is_a_results_table():
    t = _cell("seed 3", "Value")
    assert settings([t]).of(t) == RESULTS_TABLE
    assert classify(t, where=RESULTS_TABLE) == "error"
    from audit.sources import Source

    out = Source("arms.gspo.zvf_mean", 0.388, "fraction", ("arm", "gspo"), frozenset({"zvf"}))
    u = _cell("Run A", "Value", header=("Run", "Value"))
    traced = _cell("Run B", "Value", header=("Run", "Value"), decisive=True, sources=[out])
    assert settings([u, traced]).of(u) == RESULTS_TABLE
    lock = Source("lock.training.lora_alpha", 32, "count", None, frozenset({"lora", "alpha"}), origin="lock")
    v = _cell("Run A", "Value", header=("Knob", "Value"))
    w = _cell("LoRA alpha", "Value", header=("Knob", "Value"), decisive=True, sources=[lock])
    assert settings([v, w]).of(v) == ""


def test_a_prose_number_setting_is_its_sentence():
    m = Mention("r.md", 3, "0.5", 0.5, 1, sentence="Reached 0.5 (p = 0.02).")
    assert settings([]).of(Traced(m, "traced")) == STATISTIC_SENTENCE


def test_whole_numbers_and_unread_columns_are_not_judged():
    """"of 4", "the ±1-point margin", the 10 of "3.2 × 10^-4": counts and parameters stay counted;
    so does a cell whose column header the parser could not read."""
    m = Mention("r.md", 3, "4", 4.0, 0, sentence="GRPO gets 2.51 of 4 right (p = 0.037).")
    assert settings([]).of(Traced(m, "traced")) == ""
    pct = Mention("r.md", 3, "61%", 61.0, 0, percent=True, sentence="It reached 61% (p = 0.03).")
    assert settings([]).of(Traced(pct, "traced")) == STATISTIC_SENTENCE
    t = _cell("seed 3", "")
    assert settings([t]).of(t) == ""


def test_the_summary_shows_value_only_and_claim_counts(study, tmp_path):
    from audit.output import plain_text

    text = plain_text(_audit(study, tmp_path, CLEAN + "\nGRPO's training reward is higher than DAPO's.\n"))
    assert "numbers: 7 seen: 6 traced, 1 value-only, 0 error, 0 untraced" in text, text
    assert "claims in words: 1 checked against the analysis, 1 it cannot decide: " in text, text   # "beats"
    assert "'grpo higher than dapo'" in text


def test_an_identifier_in_code_is_counted_and_a_short_untraced_number_there_is_a_strict_error(study, tmp_path):
    """A lock-hash prefix that happens to be all digits ("Lock `2283723856417975…`", as `stats render`
    writes it) is an identifier under --strict; a short untraced number in the same code span still fires."""
    clean = _audit(study, tmp_path / "a", "# Results\n\nLock `2283723856417975…` (v1).\n", strict=True)
    assert _report_findings(clean) == []
    broken = _audit(study, tmp_path / "b", "# Results\n\nLock `2283723856417975…` (v1), run `48213`.\n",
                    strict=True)
    assert [f.found for f in broken.findings if f.check == "10"] == ["48213"]
