"""Prose and table readings found by the wild set (tests/report_corpus_wild/, README failure 15).

Each case is a sentence or table a new user typed, over the five-arm study of
``tests/report_corpus/prose_results``: the clean text must trace to the value it states, and the
same text with a wrong number must be an error naming that value (not a false alarm on the
clean text, not a finding against another arm's value).
"""

from __future__ import annotations

import shutil

import pytest

from audit import check
from tests.report_corpus import corpus

# only the report differs from test to test: check 9 recomputes each study once (conftest)
pytestmark = pytest.mark.usefixtures("shared_recompute")

HEAD = "# Results\n\nEight seeds per arm, 500 held-out problems.\n\n"


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    return corpus.build("prose_results", tmp_path_factory.mktemp("prose") / "s")


def _audit(study, tmp_path, body: str, head: str = HEAD):
    shutil.copytree(study.parent, tmp_path / "s")
    rep = tmp_path / "s" / study.name
    for f in rep.glob("*.md"):
        f.unlink()
    (rep / "report.md").write_text(head + body)
    return check(rep)


def _rows(res, text: str):
    return [r for r in res.numbers if r.text == text]


def _errors(res):
    return [(f.location.rsplit("/", 1)[-1], f.message) for f in res.findings]


def test_points_make_a_difference(study, tmp_path):
    """'The gap is 1.78 pp' is the gspo-grpo difference, not GSPO's mean in percent."""
    body = ("GSPO reached 65.0% held-out accuracy, about 1.8 pp more than GRPO's 63.2%. The gap is 1.78 pp, "
            "with a bootstrap interval of 1.48–2.08 pp.\n")
    res = _audit(study, tmp_path, body)
    assert _errors(res) == []
    assert [r.source for r in _rows(res, "1.78")] == ["contrasts.gspo-grpo.diff_mean"]
    assert [r.source for r in _rows(res, "2.08")] == ["contrasts.gspo-grpo.ci95.high"]
    bad = _audit(study, tmp_path / "b", body.replace("1.78 pp", "1.87 pp"))
    assert any("contrasts.gspo-grpo.diff_mean" in m for _, m in _errors(bad)), _errors(bad)


def test_interval_written_with_to(study, tmp_path):
    """'95% CI −0.18 to +0.05 pp' are the two ends of the contrast's interval."""
    body = "Dr. GRPO is indistinguishable from GRPO (−0.08 pp, 95% CI −0.18 to +0.05 pp; p = 0.28).\n"
    res = _audit(study, tmp_path, body)
    assert _errors(res) == []
    assert [r.source for r in _rows(res, "−0.18")] == ["contrasts.dr_grpo-grpo.ci95.low"]
    assert [r.source for r in _rows(res, "+0.05")] == ["contrasts.dr_grpo-grpo.ci95.high"]
    bad = _audit(study, tmp_path / "b", body.replace("+0.05 pp", "+0.15 pp"))
    assert any("contrasts.dr_grpo-grpo.ci95.high" in m for _, m in _errors(bad)), _errors(bad)


def test_points_before_a_margin_are_a_parameter(study, tmp_path):
    res = _audit(study, tmp_path, "DAPO's edge is +0.35 pp over GRPO, inside our ±1 pp equivalence margin.\n")
    assert _errors(res) == []
    # the margin is no difference: it is the locked equivalence margin (tests/test_audit_blind_remaining.py)
    assert [(r.status, r.source) for r in _rows(res, "1")] == [("traced", "lock.analysis.equivalence_margin")]


def test_nested_seed_bullets_belong_to_their_parent_arm(study, tmp_path):
    body = ("- **GRPO**: 63.2% mean\n  - seed 11: 63.2%\n  - seed 23: 62.8%\n"
            "- **DAPO**: 63.55% mean\n  - seed 11: 63.4%\n  - seed 23: 63.2%\n")
    res = _audit(study, tmp_path, body)
    assert _errors(res) == []
    assert [r.source for r in _rows(res, "62.8%")] == ["runs.grpo.s23.heldout_accuracy"]
    assert [r.source for r in _rows(res, "63.4%")] == ["runs.dapo.s11.heldout_accuracy"]
    bad = _audit(study, tmp_path / "b", body.replace("seed 23: 62.8%", "seed 23: 62.9%"))
    assert [m for _, m in _errors(bad)] and all("runs.grpo.s23.heldout_accuracy" in m for _, m in _errors(bad))


def test_points_in_a_table_cell(study, tmp_path):
    """'+1.78 pp' in a cell whose header says no unit: the cell's own 'pp' says percent."""
    body = ("| Comparison | Δ accuracy | 95% CI |\n|---|---|---|\n"
            "| GSPO − GRPO | +1.78 pp | [1.48, 2.08] pp |\n| AERO − GRPO | −2.00 pp | [−2.40, −1.55] pp |\n")
    res = _audit(study, tmp_path, body)
    assert _errors(res) == []
    bad = _audit(study, tmp_path / "b", body.replace("−2.00 pp", "−2.10 pp"))
    assert [m for _, m in _errors(bad)] and all("contrasts.aero-grpo.diff_mean" in m for _, m in _errors(bad))


SEED_ROWS = ("## Accuracy (%)\n\n| Seed | GRPO | DAPO |\n|---|---|---|\n| 11 | 63.2 | 63.4 |\n| 23 | 62.8 | 63.2 |\n"
             "| **mean** | **63.2** | **63.55** |\n| sd | 0.40 | 0.45 |\n")


def test_seeds_as_rows_under_a_heading_that_states_metric_and_unit(study, tmp_path):
    """A bare number under 'Seed' is the row's seed; '## Accuracy (%)' gives the metric and the unit."""
    res = _audit(study, tmp_path, SEED_ROWS)
    assert _errors(res) == []
    assert [r.source for r in _rows(res, "62.8")] == ["runs.grpo.s23.heldout_accuracy"]
    assert [r.source for r in _rows(res, "63.55")] == ["arms.dapo.heldout_accuracy.mean"]
    assert [r.source for r in _rows(res, "0.40")] == ["arms.grpo.heldout_accuracy.sd"]
    bad = _audit(study, tmp_path / "b", SEED_ROWS.replace("| 62.8 |", "| 62.9 |"))
    assert [m for _, m in _errors(bad)] and all("runs.grpo.s23.heldout_accuracy" in m for _, m in _errors(bad))


def test_an_unregistered_seed_as_a_row_label(study, tmp_path):
    res = _audit(study, tmp_path, SEED_ROWS.replace("| 23 | 62.8 |", "| 24 | 62.8 |"))
    assert ("report.md:10", "seed 24 is not a registered seed (lock.seeds = [11, 23, 37, 53, 71, 89, 107, 131])") \
        in _errors(res), _errors(res)


def test_values_listed_with_their_seeds(study, tmp_path):
    """'66.0%, 64.8% and 63.0% (seeds 0, 1 and 2)' and '0.44 (seed 23)': each value is its own seed's."""
    body = ("Per seed, GRPO reaches 63.2%, 62.8% and 63.6% (seeds 11, 23 and 37).\n\n"
            "- DAPO per seed: 63.4% (seed 11), 63.2% (seed 23).\n")
    res = _audit(study, tmp_path, body)
    assert _errors(res) == []
    assert [r.source for r in _rows(res, "63.6%")] == ["runs.grpo.s37.heldout_accuracy"]
    assert [r.source for r in _rows(res, "63.2%")] == ["runs.grpo.s11.heldout_accuracy", "runs.dapo.s23.heldout_accuracy"]
    bad = _audit(study, tmp_path / "b", body.replace("62.8% and 63.6%", "63.6% and 62.8%"))
    assert {m.split(" written")[0] for _, m in _errors(bad)} == {"63.6%", "62.8%"}, _errors(bad)


@pytest.fixture(scope="module")
def puzzles(tmp_path_factory):
    """The base/SFT/GRPO puzzle study (fraction, percent and 0-4 count metrics; baseline: base)."""
    return corpus.build("mixed_units", tmp_path_factory.mktemp("puzzles") / "s")


PUZZLES = ("# Card\n\n| | SFT | GRPO |\n|---|---|---|\n| Groups correct (of 4) | 2.08 | 2.51 |\n\n"
           "GRPO solves 64.6% of the puzzles. pass@16 barely moves over SFT (+2.6 pp, p = 0.19), which is not "
           "significant. On groups, GRPO gets 2.51 of 4 right against 2.08 for SFT (+0.43 groups, p = 0.037 "
           "unadjusted).\n\nSFT − Base = +13.6 pp (95% CI 2.5 to 23.5 pp, p = 0.012,\nexploratory).\n")


def test_one_arm_compared_with_another_and_counts_of_4(puzzles, tmp_path):
    """'pass@16 barely moves over SFT' after a sentence about GRPO is GRPO minus SFT; '2.51 of 4' and
    '+0.43 groups' are the one 0-4 count metric (the sentence before named pass@16); '(of 4)' is that
    count's maximum, not the held-out n; 'exploratory' on the next line of the sentence labels it."""
    res = _audit(puzzles, tmp_path, PUZZLES, "")
    assert _errors(res) == []
    assert [r.source for r in _rows(res, "+2.6")] == ["contrasts.grpo-sft.pass16.diff_mean"]
    assert [r.source for r in _rows(res, "+0.43")] == ["contrasts.grpo-sft.groups_correct.diff_mean"]
    assert [r.source for r in _rows(res, "0.037")] == ["contrasts.grpo-sft.groups_correct.p"]
    bad = _audit(puzzles, tmp_path / "b", PUZZLES.replace("+0.43 groups", "+0.34 groups"), "")
    assert [m for _, m in _errors(bad)] and all("contrasts.grpo-sft.groups_correct.diff_mean" in m
                                                for _, m in _errors(bad)), _errors(bad)
    bad = _audit(puzzles, tmp_path / "c", PUZZLES.replace("(of 4)", "(of 160)"), "")
    assert any("n written as 160" in m for _, m in _errors(bad)), _errors(bad)


CARRIED = ("GRPO solves 64.6% of the puzzles. pass@16 barely moves over SFT (+2.6 pp, p = 0.19). GRPO does not "
           "collapse below the base model on formatting either: 90.3% of its answers are well formed, against 88.9% "
           "for the base model.\n")


def test_a_carried_metric_gives_way_to_the_one_metric_the_value_equals(puzzles, tmp_path):
    """The last sentence's "formatting" names format_pct (the "-ing" noun of its id's stem, audit.words
    ``_gerund``; before it, the sentence carried pass@16 from the one before and its values were traced
    by the one other metric they equal): its values are GRPO's and base's format_pct, no false alarm,
    and a wrong value is an error against GRPO's format_pct, not the carried pass@16."""
    res = _audit(puzzles, tmp_path, CARRIED, "")
    assert _errors(res) == []
    assert [r.source for r in _rows(res, "90.3%")] == ["arms.grpo.format_pct.mean"]
    assert [r.source for r in _rows(res, "88.9%")] == ["arms.base.format_pct.mean"]
    bad = _audit(puzzles, tmp_path / "b", CARRIED.replace("90.3%", "91.3%"), "")
    assert [m for _, m in _errors(bad)] and all("91.3% written" in m and "grpo.format_pct" in m for _, m in _errors(bad))


STATS = ("GSPO against GRPO: +1.78 pp (BH-adjusted p = 4.7e-5, unadjusted 1.2e-5). DAPO is equivalent to GRPO "
         "(TOST p = 1.9e-6, adj. p = 0.00028, alpha = 0.05). The smallest GSPO–GRPO effect we could have detected "
         "with 80% power is 0.53 pp. The minimum detectable effect at 80% power is 0.0053 for GSPO–GRPO and "
         "0.0016 for DAPO–GRPO. The final ZVF is 0.391 for GSPO against 0.416 for GRPO.\n\n"
         "DAPO mostly changes the ZVF: it drops from 0.416 to 0.221.\n")


def test_statistics_named_in_words(study, tmp_path):
    """TOST p, 'adj. p', 'unadjusted', 'alpha =', an MDE in words, 'X for A and Y for B', 'from X to Y'."""
    res = _audit(study, tmp_path, STATS)
    assert _errors(res) == []
    want = {"1.2e-5": "contrasts.gspo-grpo.p", "1.9e-6": "contrasts.dapo-grpo.tost_p",
            "0.00028": "contrasts.dapo-grpo.p_adjusted", "0.05": "lock.analysis.multiplicity.alpha",
            "0.53": "contrasts.gspo-grpo.mde", "0.0016": "contrasts.dapo-grpo.mde",
            "0.416": "arms.grpo.zvf_mean", "0.221": "arms.dapo.zvf_mean"}
    for text, source in want.items():
        assert _rows(res, text)[0].source == source, (text, [r.as_dict() for r in _rows(res, text)])
    for old, new, source in (("TOST p = 1.9e-6", "TOST p = 2.9e-6", "contrasts.dapo-grpo.tost_p"),
                             ("adj. p = 0.00028", "adj. p = 0.00082", "contrasts.dapo-grpo.p_adjusted"),
                             ("alpha = 0.05", "alpha = 0.01", "lock.analysis"),
                             ("0.0016 for DAPO", "0.0061 for DAPO", "contrasts.dapo-grpo.mde"),
                             ("from 0.416", "from 0.411", "arms.grpo.zvf_mean")):
        bad = _audit(study, tmp_path / source / new[:4], STATS.replace(old, new))
        assert any(source in m for _, m in _errors(bad)), (new, _errors(bad))


def test_a_change_column_and_points_under_a_version_heading(study, tmp_path):
    """'| | v1 (GRPO) | v2 (GSPO) | change |' and 'v2 is 1.8 points better' under a heading naming GSPO."""
    body = ("## v2: switch to GSPO\n\n| | v1 (GRPO) | v2 (GSPO) | change |\n|---|---|---|---|\n"
            "| Held-out accuracy | 0.632 | 0.650 | +0.018 |\n\nv2 is 1.8 points better on average.\n")
    res = _audit(study, tmp_path, body)
    assert _errors(res) == []
    assert [r.source for r in _rows(res, "+0.018")] == ["contrasts.gspo-grpo.diff_mean"]
    bad = _audit(study, tmp_path / "b", body.replace("| +0.018 |", "| −0.018 |"))
    assert any("contrasts.gspo-grpo.diff_mean" in m for _, m in _errors(bad)), _errors(bad)


def test_scientific_notation_as_typeset(study, tmp_path):
    """'1.2 × 10⁻⁵' (Markdown) is 1.2e-5, not 1.2 and 10."""
    body = "GSPO against GRPO: paired t p = 1.2 × 10⁻⁵ (BH-adjusted 4.7 × 10^-5).\n"
    res = _audit(study, tmp_path, body)
    assert _errors(res) == []
    assert [r.source for r in _rows(res, "1.2 × 10⁻⁵")] == ["contrasts.gspo-grpo.p"]
    bad = _audit(study, tmp_path / "b", body.replace("10⁻⁵ (", "10⁻⁴ ("))
    assert any("contrasts.gspo-grpo.p" in m for _, m in _errors(bad)), _errors(bad)


def test_a_bare_power_of_ten_is_one_number(study, tmp_path):
    """'p < 10⁻⁴', 'p < 10^-4' and LaTeX 'p < 10^{-4}' bound the p by 1e-4 (not 10 and 4); LaTeX
    '1.2 \\cdot 10^{-5}' (spaces around it) is 1.2e-5 like '\\times'."""
    for i, body in enumerate(("GSPO against GRPO: paired t p < 10⁻⁴ (BH-adjusted p < 10^-3).\n",
                              "GSPO against GRPO: paired t p < 10^-4.\n")):
        res = _audit(study, tmp_path / f"c{i}", body)
        assert _errors(res) == []
        assert [r.source for r in res.numbers if r.text.startswith("10")][0] == "contrasts.gspo-grpo.p"
        bad = _audit(study, tmp_path / f"b{i}", body.replace("10⁻⁴", "10⁻⁶").replace("10^-4", "10^-6"))
        assert any("contrasts.gspo-grpo.p" in m for _, m in _errors(bad)), _errors(bad)
    shutil.copytree(study.parent, tmp_path / "s")
    rep = tmp_path / "s" / study.name
    for f in rep.glob("*.md"):
        f.unlink()
    tex = (r"\documentclass{article}\begin{document}" "\n" r"\section{Results}" "\n"
           r"GSPO improves on GRPO ($p = 1.2 \cdot 10^{-5}$; BH-adjusted $p < 10^{-4}$)." "\n" r"\end{document}" "\n")
    for text, want in ((tex, []), (tex.replace("10^{-5}", "10^{-4}"), ["contrasts.gspo-grpo.p"]),
                       (tex.replace("p < 10^{-4}", "p < 10^{-6}"), ["contrasts.gspo-grpo.p_adjusted"])):
        (rep / "paper.tex").write_text(text)
        got = [m for _, m in _errors(check(rep))]
        assert len(got) == len(want) and all(w in g for w, g in zip(want, got, strict=True)), got


TEX = (r"\documentclass{article}\begin{document}" "\n" r"\section{Results}" "\n"
       r"Held-out accuracy on the \num{500}-problem test split; GSPO improves on GRPO by \SI{1.78}{pp} "
       r"($p = 1.2\times10^{-5}$)." "\n\n"
       r"\begin{table}\caption{Means over seeds; intervals over seeds" "\n"
       r"(\num{2000} resamples).}\begin{tabular}{lc}\toprule Arm & Accuracy \\ \midrule GRPO & 0.632 \\"
       "\n" r"\bottomrule\end{tabular}\end{table}" "\n" r"\end{document}" "\n")


def test_latex_n_resamples_and_times_ten(study, tmp_path):
    """'\\num{500}-problem' states n, '(\\num{2000} resamples)' on a caption's second line the resamples,
    '1.2\\times10^{-5}' is 1.2e-5, '\\SI{1.78}{pp}' percentage points."""
    shutil.copytree(study.parent, tmp_path / "s")
    rep = tmp_path / "s" / study.name
    for f in rep.glob("*.md"):
        f.unlink()
    for text, want in ((TEX, []), (TEX.replace(r"\num{500}", r"\num{400}"), ["n written as 400"]),
                       (TEX.replace(r"\num{2000}", r"\num{1000}"), ["1000 resamples written"]),
                       (TEX.replace("10^{-5}", "10^{-4}"), ["contrasts.gspo-grpo.p"]),
                       (TEX.replace("{1.78}{pp}", "{1.87}{pp}"), ["contrasts.gspo-grpo.diff_mean"])):
        (rep / "paper.tex").write_text(text)
        got = [m for _, m in _errors(check(rep))]
        assert len(got) == len(want) and all(w in g for w, g in zip(want, got, strict=True)), got


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    """The runner-shaped campaign of tests/audit_defects.py (manifests hold heldout_correct), reports removed."""
    from tests.report_corpus_wild import wild

    return wild._campaign(tmp_path_factory.mktemp("campaign") / "c")


def test_a_count_written_k_of_n(campaign, tmp_path):
    """'| Items correct, seed 37 | 28/50 |': 28 is the run's held-out correct count (was not read at all)."""
    body = "| | GRPO | GSPO |\n|---|---|---|\n| Items correct, seed 37 | 28/50 | 32/50 |\n\nRun on 2026/01/01.\n"
    res = _audit(campaign, tmp_path, body, "")
    assert _errors(res) == []
    assert [r.source for r in _rows(res, "28")] == ["runs.grpo.s37.heldout_correct"]
    bad = _audit(campaign, tmp_path / "b", body.replace("28/50", "27/50"), "")
    assert [m for _, m in _errors(bad)] and all("runs.grpo.s37.heldout_correct" in m for _, m in _errors(bad))


LORA = "The policy is a LoRA adapter (r = 16, alpha = 32) on all linear layers.\n"


def test_lora_settings_are_the_locked_ones(study, tmp_path):
    """'LoRA adapter (r = 16, alpha = 32)' states lock.training.lora_r and lora_alpha: traced there
    (not value-only under --strict, not alpha = 32 as a test's level), and a wrong rank is an error."""
    assert _errors(_audit(study, tmp_path, LORA)) == []
    res = check(tmp_path / "s" / study.name, strict=True)
    assert _errors(res) == []
    assert [r.source for r in _rows(res, "16")] == ["lock.training.lora_r"]
    assert [r.source for r in _rows(res, "32")] == ["lock.training.lora_alpha"]
    bad = _audit(study, tmp_path / "b", LORA.replace("r = 16", "r = 8"))
    assert [m for _, m in _errors(bad)] == ["8 written, the locked preregistration gives 16 (lock.training.lora_r = 16): "
                                            "number does not equal its source rounded to the digits shown"]
    off = _audit(study, tmp_path / "c", "The policy is a full fine-tune (alpha = 32 in the loss).\n")
    assert [r.source for r in _rows(off, "32")] != ["lock.training.lora_alpha"]


BIB = ("GSPO reached 65.0% held-out accuracy.\n\n```bibtex\n@misc{variants2026,\n  title = {GRPO variants},\n"
       "  year = {2026},\n  note = {500 problems, 8 seeds}\n}\n```\n\n```python\nprint(2026)\n```\n")


def test_a_bibtex_block_is_a_citation_not_numbers(study, tmp_path):
    """A ```bibtex block's year and note are citations (a citation names a reference); other code stays
    'in code' (an error under --strict when untraced, by design)."""
    rep = _audit(study, tmp_path, BIB)
    assert _errors(rep) == []
    res = check(tmp_path / "s" / study.name, strict=True)
    assert [(r.location.rsplit(":", 1)[1], r.status) for r in _rows(res, "2026")] == [("10", "citation"), ("16", "error")]
    assert [r.status for r in res.numbers if r.location.endswith(":11")] == ["citation", "citation"]


TEX_SETUP = (r"\documentclass{article}\usepackage{siunitx}" "\n" r"\sisetup{group-minimum-digits=4}" "\n"
             r"\begin{document}" "\n" r"\section{Results}" "\n" r"GRPO reaches 63.2\% held-out accuracy." "\n\n"
             r"\begin{table}\caption{Means over seeds; intervals over seeds" "\n"
             r"(\num{2000} resamples).}\begin{tabular}{lc}\toprule Arm & Accuracy \\ \midrule GRPO & 0.632 \\"
             "\n" r"\bottomrule\end{tabular}\end{table}" "\n" r"\end{document}" "\n")


def test_latex_setup_and_a_caption_fact_under_strict(study, tmp_path):
    """'\\sisetup{group-minimum-digits=4}' sets the typesetting (no number to trace); a caption's
    '(\\num{2000} resamples)' is the locked resamples, read like prose: clean under --strict, and
    a wrong count is one finding."""
    shutil.copytree(study.parent, tmp_path / "s")
    rep = tmp_path / "s" / study.name
    for f in rep.glob("*.md"):
        f.unlink()
    (rep / "paper.tex").write_text(TEX_SETUP)
    res = check(rep, strict=True)
    assert _errors(res) == [] and not _rows(res, "4")
    assert [r.status for r in _rows(res, "2000")] == ["label"]
    (rep / "paper.tex").write_text(TEX_SETUP.replace(r"\num{2000}", r"\num{1000}"))
    assert [m for _, m in _errors(check(rep))] == ["1000 resamples written, the lock says 2000 (lock.analysis.resamples)"]


DAGGER = ("| Arm | Accuracy |\n|---|---|\n| GRPO | 0.632 |\n| GSPO | 0.650† |\n| Dr. GRPO | 0.631 |\n\n"
          "† significantly better than GRPO (BH-adjusted).\n")


def test_a_significance_dagger_explained_under_the_table(study, tmp_path):
    """'0.650†' with '† significantly better than GRPO' claims GSPO-GRPO is significant: clean where
    the analysis agrees; a dagger on an arm the analysis finds not significant is one finding at its
    row; a dagger explained as 'not significant' on a significant arm is one too."""
    assert _errors(_audit(study, tmp_path / "a", DAGGER)) == []
    res = _audit(study, tmp_path / "b", DAGGER.replace("| GSPO | 0.650† |", "| GSPO | 0.650 |")
                 .replace("| Dr. GRPO | 0.631 |", "| Dr. GRPO | 0.631† |"))
    got = _errors(res)
    assert [loc for loc, _ in got] == ["report.md:9"] and "dr_grpo-grpo is not significant" in got[0][1], got
    res = _audit(study, tmp_path / "c", DAGGER.replace("† significantly better", "† not significantly different"))
    got = _errors(res)
    assert [loc for loc, _ in got] == ["report.md:8"] and "gspo-grpo is significant" in got[0][1], got
