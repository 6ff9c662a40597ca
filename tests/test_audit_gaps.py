"""Small reading gaps of ``audit check`` on hand-written reports (README failure 15).

Each case is a report a new user could type, over a study of ``tests/report_corpus/``: the clean
text must audit clean (no false alarm) and the same text with the planted error must give the
finding that names it.
"""

from __future__ import annotations

import pytest

from tests.report_corpus import corpus

# only the report differs from test to test: check 9 recomputes each study once (conftest)
pytestmark = pytest.mark.usefixtures("shared_recompute")


@pytest.fixture(scope="module")
def run_card(tmp_path_factory):
    """Three arms, four seeds; run dapo/s23 has gu_mean = heldout_accuracy = 0.64, reward_last10 = 0.55."""
    return corpus.build("run_card", tmp_path_factory.mktemp("run_card") / "s")


def _audit(study, tmp_path, files: dict[str, str], strict: bool = False):
    return corpus.audit_written(study, tmp_path, files, strict)


def _rows(res, text: str):
    return [r for r in res.numbers if r.text == text]


def _errors(res):
    return [(f.location.rsplit("/", 1)[-1], f.message) for f in res.findings]


BORROWED = ("# DAPO, seed 23\n\nThe mean reward over the last 10 steps is 0.55. Most of its groups still carry a "
            "learning signal: 0.64 of them.\n")


def test_a_borrowed_metric_whose_value_equals_two_other_metrics_is_value_only(run_card, tmp_path):
    """The second sentence names no metric, so it borrows reward_last10 (0.55); its 0.64 is not that,
    but equals two other metrics of the run (gu_mean and heldout_accuracy): nothing says which, so it
    is value-only with both candidates listed, not an error against the borrowed metric. --strict
    makes it an error (as every value-only number); a value equal to no metric stays an error
    against the borrowed one."""
    res = _audit(run_card, tmp_path / "a", {"report.md": BORROWED})
    assert _errors(res) == []
    (row,) = _rows(res, "0.64")
    assert row.status == "value-only"
    assert "runs.dapo.s23.gu_mean" in row.rule and "runs.dapo.s23.heldout_accuracy" in row.rule, row.rule
    strict = _audit(run_card, tmp_path / "b", {"report.md": BORROWED}, strict=True)
    assert [loc for loc, _ in _errors(strict)] == ["report.md:3"]
    assert [r.status for r in _rows(strict, "0.64")] == ["error"]
    bad = _audit(run_card, tmp_path / "c", {"report.md": BORROWED.replace("0.64", "0.74")})
    assert [m for _, m in _errors(bad)] == ["0.74 written, the locked analysis gives 0.55 (runs.dapo.s23.reward_last10 "
                                            "= 0.55): number does not equal its source rounded to the digits shown"]


BIB_FILE = ("@article{shao2024deepseekmath,\n  title = {DeepSeekMath: 500 problems and 8 seeds},\n  journal = {arXiv},\n"
            "  volume = {2402},\n  pages = {0.63--0.66},\n  year = {2024}\n}\n")
TEX_BIB = (r"\section{Results}" "\n" r"GRPO reaches 62.75\% held-out accuracy \cite{shao2024}." "\n\n"
           r"\begin{thebibliography}{99}" "\n" r"\bibitem{shao2024} Z.~Shao et al. DeepSeekMath, 8 seeds on 500 "
           r"problems. \emph{arXiv} 2402.03300, 2024, pp.~0.61--0.66." "\n" r"\end{thebibliography}" "\n")


def test_bibliographies_are_citations_counted_as_skipped(run_card, tmp_path):
    """A .bib file in the report folder and a LaTeX thebibliography hold years, volumes, pages and
    titles with numbers ('8 seeds', '500 problems', '0.63--0.66'): each is counted as a 'citation',
    skipped with its reason shown, never traced nor read as a claim, not even with --strict. The
    same words in the text are still read: a wrong number there is still a finding."""
    files = {"refs.bib": BIB_FILE, "paper.tex": TEX_BIB}
    res = _audit(run_card, tmp_path / "a", files, strict=True)
    assert _errors(res) == []
    cites = [r for r in res.numbers if r.status == "citation"]
    assert {r.location.rsplit("/", 1)[-1].split(":")[0] for r in cites} == {"refs.bib", "paper.tex"}
    assert {"2024", "2402", "8", "500", "0.63", "2402.03300", "0.61"} <= {r.text for r in cites}
    assert all(r.rule.startswith("citation:") for r in cites)
    assert res.number_counts["citation"] == len(cites)
    assert f"{len(cites)} citation" in next(n for n in _notes(res) if n.startswith("numbers:"))
    assert [r.status for r in _rows(res, "62.75%")] == ["traced"]
    # the plant: the same words outside the bibliography are claims and values again
    bad = _audit(run_card, tmp_path / "b", {"paper.tex": TEX_BIB.replace(
        r"\cite{shao2024}.", r"\cite{shao2024} over 8 seeds, 0.6285 for DAPO.")})
    got = sorted(m for _, m in _errors(bad))
    assert len(got) == 1 and "8 seeds written" in got[0], got


BBL_FILE = ("\\begin{thebibliography}{10}\n\\providecommand{\\natexlab}[1]{#1}\n\n"
            "\\bibitem[Shao et~al.(2024)]{shao2024}\nZ.~Shao et~al.\n\\newblock DeepSeekMath: 8 seeds on 500 problems.\n"
            "\\newblock \\emph{arXiv preprint arXiv:2402.03300}, 2024, pp.~0.61--0.66.\n\n\\end{thebibliography}\n")


def test_a_compiled_bbl_bibliography_is_citations(run_card, tmp_path):
    """The ``.bbl`` LaTeX compiles from a .bib (in the report folder next to the paper) is a
    bibliography too: its years, arXiv ids, counts and pages are 'citation' numbers, counted with
    the reason shown, never traced, not even with --strict (before, a .bbl was not read at all:
    its numbers were not even counted). Moved into the paper's own text, the same words are claims:
    '8 seeds' is the one finding."""
    tex = TEX_BIB.split(r"\begin{thebibliography}")[0]
    res = _audit(run_card, tmp_path / "a", {"paper.tex": tex, "paper.bbl": BBL_FILE}, strict=True)
    assert _errors(res) == []
    cites = [r for r in res.numbers if r.status == "citation"]
    assert {r.location.rsplit("/", 1)[-1].split(":")[0] for r in cites} == {"paper.bbl"}
    assert {"2024", "8", "500", "2402.03300", "0.61", "10"} <= {r.text for r in cites}, [r.text for r in cites]
    assert all(".bbl" in r.rule for r in cites)
    assert res.number_counts["citation"] == len(cites)
    assert f"{len(cites)} citation" in next(n for n in _notes(res) if n.startswith("numbers:"))
    bad = _audit(run_card, tmp_path / "b", {"paper.tex": tex.replace(r"\cite{shao2024}.", r"\cite{shao2024}, 8 seeds on "
                                                                      "500 problems.")})
    got = sorted(m for _, m in _errors(bad))
    assert len(got) == 1 and "8 seeds written" in got[0], got


def _notes(res):
    return [n for r in res.results for n in r.notes]


@pytest.fixture(scope="module")
def five_arms(tmp_path_factory):
    """Five arms against GRPO: gspo, dapo and aero significant (p < 0.001), dr_grpo not (p = 0.28)."""
    return corpus.build("prose_results", tmp_path_factory.mktemp("prose") / "s")


HEAD = "# Results\n\nEight seeds per arm, 500 held-out problems.\n\n"
STAR_TABLE = "| Arm | Accuracy |\n|---|---|\n| GRPO | 0.632 |\n| GSPO | {gspo} |\n| Dr. GRPO | {dr} |\n\n{legend}\n"
MARKED = ("0.650*", "0.650\\*", "0.650<sup>*</sup>", "$0.650^{*}$", "**0.650**\\*")
LEGENDS = ("* p < 0.05", "\\* p < 0.05", "*: significant after BH", "<sup>*</sup> p < 0.05",
           "Note: * p < .05; ** p < .01", "$^*$ significantly better than GRPO")


def _checked(res) -> int:
    note = next(n for n in _notes(res) if n.startswith("claims in words:"))
    return int(note.split(":")[1].split()[0])


def _stars(study, tmp_path, gspo="0.650", dr="0.631", legend=LEGENDS[0]):
    return _audit(study, tmp_path, {"report.md": HEAD + STAR_TABLE.format(gspo=gspo, dr=dr, legend=legend)})


@pytest.mark.parametrize("mark", range(len(MARKED)))
def test_a_star_marks_significance_in_every_spelling(five_arms, tmp_path, mark):
    """'0.650*', '0.650\\*', '0.650<sup>*</sup>', '$0.650^{*}$' and a star after bold, with '* p < 0.05'
    under the table, claim GSPO-GRPO has p < 0.05: checked, clean (the analysis agrees). The same star
    on Dr. GRPO (p = 0.28) is one finding at its row."""
    spelled = MARKED[mark]
    res = _stars(five_arms, tmp_path / "a", gspo=spelled)
    assert _errors(res) == []
    assert _checked(res) == _checked(_stars(five_arms, tmp_path / "n")) + 1
    bad = _stars(five_arms, tmp_path / "b", dr=spelled.replace("0.650", "0.631"))
    got = _errors(bad)
    assert [loc for loc, _ in got] == ["report.md:9"], got
    assert "marks it 'p < 0.05'" in got[0][1] and "contrasts.dr_grpo-grpo.p = 0.285" in got[0][1], got


@pytest.mark.parametrize("legend", LEGENDS)
def test_every_legend_spelling_is_read(five_arms, tmp_path, legend):
    """A bullet '* p < 0.05', an escaped star, '*: significant after BH', a superscript, a 'Note:' line
    listing marks and a LaTeX-style '$^*$' legend each give the star its meaning: a star on the
    non-significant Dr. GRPO is an error, on GSPO it is not."""
    assert _errors(_stars(five_arms, tmp_path / "a", gspo="0.650*", legend=legend)) == []
    got = _errors(_stars(five_arms, tmp_path / "b", dr="0.631*", legend=legend))
    assert [loc for loc, _ in got] == ["report.md:9"] and "dr_grpo-grpo" in got[0][1], got


def test_stars_of_different_counts_are_different_marks(five_arms, tmp_path):
    """'**' with '* p < 0.05; ** p < 0.01' claims p < 0.01: true for GSPO (p = 1.2e-5), not for Dr. GRPO."""
    legend = "\\* p < 0.05; \\*\\* p < 0.01"
    assert _errors(_stars(five_arms, tmp_path / "a", gspo="0.650\\*\\*", legend=legend)) == []
    got = _errors(_stars(five_arms, tmp_path / "b", dr="0.631\\*\\*", legend=legend))
    assert len(got) == 1 and "marks it 'p < 0.01'" in got[0][1], got


@pytest.mark.parametrize("dr,legend", [("*0.631*", LEGENDS[0]), ("**0.631**", LEGENDS[0]), ("***0.631***", LEGENDS[1]),
                                       ("0.631*", ""), ("0.631*", "*p < 0.05*"), ("0.631*", "* GRPO is the baseline, "
                                                                                 "significant or not.")])
def test_emphasis_and_a_star_without_a_legend_claim_nothing(five_arms, tmp_path, dr, legend):
    """Emphasis ('*0.631*', '**0.631**') is no mark; a star with no legend, an italic '*p < 0.05*' and
    a bullet that does not start with what the star means are no legend: Dr. GRPO's value is only
    checked as a number (no false alarm, and the value itself still traced)."""
    res = _stars(five_arms, tmp_path, dr=dr, legend=legend)
    assert [e for e in _errors(res) if e[0] == "report.md:9"] == []
    assert [r.source for r in _rows(res, "0.631")] == ["arms.dr_grpo.heldout_accuracy.mean"]


TEX_MARKS = (r"\section{Results}" "\n" r"\begin{table}" "\n"
             r"\caption{Held-out accuracy. $^{*}$ $p < 0.05$ against GRPO (BH-adjusted).}" "\n"
             r"\begin{tabular}{lc}" "\n" r"\toprule" "\n" r"Arm & Accuracy \\" "\n" r"\midrule" "\n"
             r"GRPO & 0.632 \\" "\n" r"GSPO & 0.650$^{*}$ \\" "\n" r"DAPO & 0.636$^\dagger$ \\" "\n"
             r"Dr. GRPO & 0.631 \\" "\n" r"\bottomrule" "\n" r"\end{tabular}" "\n" r"\end{table}" "\n\n"
             r"$^\dagger$ significantly better than GRPO." "\n")


def test_marks_in_a_latex_table(five_arms, tmp_path):
    """'0.650$^{*}$' and '0.636$^\\dagger$' with a legend in the caption and one under the table:
    clean where the analysis agrees (both checked); the same marks on Dr. GRPO are two findings."""
    clean = _audit(five_arms, tmp_path / "a", {"paper.tex": TEX_MARKS})
    assert _errors(clean) == []
    plain = _audit(five_arms, tmp_path / "n", {"paper.tex": TEX_MARKS.replace("$^{*}$", "").replace("$^\\dagger$ \\\\",
                                                                                                    " \\\\")})
    assert _checked(clean) == _checked(plain) + 2
    bad = _audit(five_arms, tmp_path / "b", {"paper.tex": TEX_MARKS.replace("Dr. GRPO & 0.631 ", "Dr. GRPO & 0.631$^{*}$")})
    got = _errors(bad)
    assert [loc for loc, _ in got] == ["paper.tex:11"] and "contrasts.dr_grpo-grpo.p_adjusted = 0.285" in got[0][1], got
    bad = _audit(five_arms, tmp_path / "c", {"paper.tex": TEX_MARKS.replace("Dr. GRPO & 0.631 ", "Dr. GRPO & 0.631$^\\dagger$")})
    got = _errors(bad)
    assert [loc for loc, _ in got] == ["paper.tex:11"] and "dr_grpo-grpo is not significant" in got[0][1], got


def test_a_mark_on_the_row_label_marks_its_arm(five_arms, tmp_path):
    """'| GSPO† | 0.650 |' with '† significantly better than GRPO' claims GSPO-GRPO is significant:
    clean; the dagger on 'Dr. GRPO†' is one finding; emphasis on a label ('**GSPO**') is no mark."""
    table = "| Arm | Accuracy |\n|---|---|\n| GRPO | 0.632 |\n| {g} | 0.650 |\n| {d} | 0.631 |\n\n{legend}\n"
    legend = "† significantly better than GRPO."
    res = _audit(five_arms, tmp_path / "a", {"report.md": HEAD + table.format(g="GSPO†", d="Dr. GRPO", legend=legend)})
    assert _errors(res) == []
    assert _checked(res) == _checked(_audit(five_arms, tmp_path / "n", {"report.md": HEAD + table.format(
        g="GSPO", d="Dr. GRPO", legend=legend)})) + 1
    bad = _audit(five_arms, tmp_path / "b", {"report.md": HEAD + table.format(g="**GSPO**", d="Dr. GRPO†", legend=legend)})
    got = _errors(bad)
    assert [loc for loc, _ in got] == ["report.md:9"] and "dr_grpo-grpo is not significant" in got[0][1], got


def test_each_table_takes_the_legend_under_it(five_arms, tmp_path):
    """Two tables, each with its own '†' legend: GSPO's dagger under 'significantly better', Dr. GRPO's
    under 'not significantly different' are both right (no false alarm from the first legend); the
    dagger moved to Dr. GRPO in the first table is one finding."""
    body = ("| Arm | Accuracy |\n|---|---|\n| GSPO | {a} |\n| Dr. GRPO | {b} |\n\n† significantly better than GRPO.\n\n"
            "| Arm | Accuracy |\n|---|---|\n| Dr. GRPO | 0.631† |\n\n† not significantly different from GRPO.\n")
    assert _errors(_audit(five_arms, tmp_path / "a", {"report.md": HEAD + body.format(a="0.650†", b="0.631")})) == []
    got = _errors(_audit(five_arms, tmp_path / "b", {"report.md": HEAD + body.format(a="0.650", b="0.631†")}))
    assert [loc for loc, _ in got] == ["report.md:8"] and "dr_grpo-grpo is not significant" in got[0][1], got


@pytest.fixture(scope="module")
def puzzles(tmp_path_factory):
    """Base, SFT and GRPO (baseline: base): sft-base p = 0.012, grpo-sft p = 0.20, grpo-base p = 0.041."""
    return corpus.build("mixed_units", tmp_path_factory.mktemp("puzzles") / "s")


def test_a_mark_on_a_contrast_row_is_that_contrast(puzzles, tmp_path):
    """'| GRPO − SFT | +0.078* |' is the grpo-sft contrast (p = 0.20), not GRPO against the baseline
    (p = 0.041): the star there is one finding; on 'SFT − Base' (p = 0.012) it is right."""
    body = ("| Contrast | Δ accuracy | p |\n|---|---|---|\n| SFT − Base (exploratory) | {a} | 0.012 |\n| GRPO − SFT | {b} | 0.20 |\n\n"
            "\\* p < 0.05 (paired t, unadjusted)\n")
    assert _errors(_audit(puzzles, tmp_path / "a", {"report.md": body.format(a="+0.136\\*", b="+0.078")})) == []
    got = _errors(_audit(puzzles, tmp_path / "b", {"report.md": body.format(a="+0.136", b="+0.078\\*")}))
    assert [loc for loc, _ in got] == ["report.md:4"] and "contrasts.grpo-sft.p = 0.201" in got[0][1], got


QUICK = ("GRPO in brief: solve rate 0.646, pass@16 0.930, 90.3% well-formed answers, 2.51 of 4 groups correct "
         "(62.9% of groups).\n")


def test_a_metric_named_right_after_its_value(puzzles, tmp_path):
    """'pass@16 0.930, 90.3% well-formed answers, 2.51 of 4 groups correct': each value after the
    first takes the metric named right after it (the metric before already has its value), not
    pass@16 carried on; '90.3%' after '0.930' is a second value, not '0.930' restated as a percent.
    '62.9% of groups' is the count as a percent of its maximum. A wrong value is an error against its own metric."""
    res = _audit(puzzles, tmp_path / "a", {"report.md": QUICK})
    assert _errors(res) == []
    assert [r.source for r in _rows(res, "90.3%")] == ["arms.grpo.format_pct.mean"]
    assert [r.source for r in _rows(res, "2.51")] == ["arms.grpo.groups_correct.mean"]
    assert [r.status for r in _rows(res, "4")] == ["label"]
    assert [r.source for r in _rows(res, "62.9%")] == ["arms.grpo.groups_correct.mean"]
    bad = _audit(puzzles, tmp_path / "c", {"report.md": QUICK.replace("62.9%", "64.9%")})
    assert [m for _, m in _errors(bad)] == ["64.9% written, the locked analysis gives 62.9 (100 x arms.grpo.groups_correct"
                                           ".mean / 4): number does not equal its source rounded to the digits shown"]
    bad = _audit(puzzles, tmp_path / "b", {"report.md": QUICK.replace("90.3%", "90.8%")})
    got = [m for _, m in _errors(bad)]
    assert len(got) == 1 and "arms.grpo.format_pct.mean" in got[0], got
