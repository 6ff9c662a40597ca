"""Significance marks outside plain tables (README failure 15): a mark on a number in a sentence
("GSPO reaches 0.650*", "DAPO − GRPO = +0.0035†") with its legend under the paragraph or at the end
of the section is checked against the planned test like a marked table value (:mod:`audit.markers`).

Each case is a report a new user could type over the five-arm study of ``tests/report_corpus/``
(gspo, dapo and aero significantly different from GRPO, Dr. GRPO not: p = 0.285): the clean text
audits clean and the planted error is one finding that names it.
"""

from __future__ import annotations

import pytest

from tests.report_corpus import corpus

# only the report differs from test to test: check 9 recomputes each study once (conftest)
pytestmark = pytest.mark.usefixtures("shared_recompute")


@pytest.fixture(scope="module")
def five_arms(tmp_path_factory):
    return corpus.build("prose_results", tmp_path_factory.mktemp("prose") / "s")


def _audit(study, tmp_path, files: dict[str, str], strict: bool = False):
    return corpus.audit_written(study, tmp_path, files, strict)


def _errors(res):
    return [(f.location.rsplit("/", 1)[-1], f.message) for f in res.findings]


def _checked(res) -> int:
    note = next(n for r in res.results for n in r.notes if n.startswith("claims in words:"))
    return int(note.split(":")[1].split()[0])


HEAD = "# Results\n\nEight seeds per arm, 500 held-out problems.\n\n"
PROSE = ("GSPO reaches {g} held-out accuracy (Table 2) against 0.632 for GRPO. Dr. GRPO stays at {d}.\n"
         "DAPO − GRPO = {dapo} (95% CI [0.0028, 0.0045]).\n\n{legend}\n")
LEGEND = "\\* p < 0.05 (paired t, BH-adjusted)\n† significantly better than GRPO"


def _prose(study, tmp_path, g="0.650", d="0.631", dapo="+0.0035", legend=LEGEND):
    return _audit(study, tmp_path, {"report.md": HEAD + PROSE.format(g=g, d=d, dapo=dapo, legend=legend)})


def test_a_mark_in_a_sentence_is_checked_like_a_marked_cell(five_arms, tmp_path):
    """'0.650*' and '+0.0035†' in sentences, with '* p < 0.05 (paired t, BH-adjusted)' and '†
    significantly better than GRPO' under the paragraph, claim GSPO-GRPO and DAPO-GRPO significant:
    both checked, clean. The star on Dr. GRPO's 0.631 (adjusted p of dr_grpo-grpo well above 0.05) is
    one finding at its line; so is the dagger on a Dr. GRPO − GRPO difference."""
    base = _checked(_prose(five_arms, tmp_path / "n"))
    res = _prose(five_arms, tmp_path / "a", g="0.650*", dapo="+0.0035†")
    assert _errors(res) == []
    assert _checked(res) == base + 2
    bad = _prose(five_arms, tmp_path / "b", d="0.631*")
    got = _errors(bad)
    assert [loc for loc, _ in got] == ["report.md:5"], got
    assert "'*' on 0.631 marks it 'p < 0.05'" in got[0][1] and "dr_grpo-grpo has contrasts.dr_grpo-grpo.p_adjusted" \
        in got[0][1], got
    bad = _audit(five_arms, tmp_path / "c", {"report.md": HEAD + "Dr. GRPO − GRPO = −0.00075†.\n\n" + LEGEND + "\n"})
    got = _errors(bad)
    assert len(got) == 1 and "'†' on −0.00075 marks it 'significantly'" in got[0][1], got
    assert "dr_grpo-grpo is not significant" in got[0][1], got


def test_each_marked_number_belongs_to_the_arm_named_before_it(five_arms, tmp_path):
    """'GSPO reaches 0.650* and Dr. GRPO 0.631': the star is GSPO's (the words since the previous
    number name it), clean; on Dr. GRPO's number in the same sentence it is one finding."""
    text = "GSPO reaches {g} and Dr. GRPO {d}, against 0.632 for GRPO.\n\n\\* p < 0.05\n"
    assert _errors(_audit(five_arms, tmp_path / "a", {"report.md": HEAD + text.format(g="0.650*", d="0.631")})) == []
    got = _errors(_audit(five_arms, tmp_path / "b", {"report.md": HEAD + text.format(g="0.650", d="0.631*")}))
    assert len(got) == 1 and "'*' on 0.631" in got[0][1] and "dr_grpo-grpo" in got[0][1], got


def test_a_mark_whose_arm_the_words_do_not_tell_is_undecided(five_arms, tmp_path):
    """'Dr. GRPO and GRPO stay low and GSPO high: 0.631, 0.632 and 0.650*': the words before the marked
    number name no arm and the sentence names two besides GRPO: nothing says whose it is (it is
    GSPO's, not the sentence's pair, Dr. GRPO against GRPO: a false alarm before), so it is counted as
    undecided, no finding."""
    text = "Dr. GRPO and GRPO stay low and GSPO high: 0.631, 0.632 and 0.650*.\n\n\\* p < 0.05\n"
    res = _audit(five_arms, tmp_path / "a", {"report.md": HEAD + text})
    assert _errors(res) == []
    note = next(n for r in res.results for n in r.notes if n.startswith("claims in words:"))
    assert "'0.650*'" in note, note


def test_the_legend_may_close_the_section(five_arms, tmp_path):
    """A legend at the end of the section, after other paragraphs, still gives the mark its meaning
    (the first legend of the mark below the number); a legend that reverses it makes GSPO's mark the
    finding."""
    text = ("GSPO reaches 0.650† held-out accuracy.\n\nDr. GRPO stays at 0.631 against 0.632 for GRPO.\n\n"
            "---\n\n† {legend}\n\n## Training dynamics\n\nNothing else.\n")
    ok = _audit(five_arms, tmp_path / "a", {"report.md": HEAD + text.format(legend="significantly better than GRPO")})
    assert _errors(ok) == []
    got = _errors(_audit(five_arms, tmp_path / "b", {"report.md": HEAD + text.format(
        legend="not significantly different from GRPO")}))
    assert len(got) == 1 and "'†' on 0.650 marks it 'not significantly'" in got[0][1], got


@pytest.mark.parametrize("d,legend", [("0.631*", ""), ("*0.631*", LEGEND), ("**0.631**", LEGEND), ("`0.631*`", LEGEND),
                                      ("0.631[^1]", LEGEND + "\n\n[^1]: p < 0.05")])
def test_emphasis_code_and_a_mark_without_legend_claim_nothing(five_arms, tmp_path, d, legend):
    """A star with no legend, emphasis ('*0.631*', '**0.631**'), a star in a code span and a footnote
    reference are no mark: Dr. GRPO's number claims nothing, no finding and nothing more checked."""
    base = _checked(_prose(five_arms, tmp_path / "n", legend=legend))
    res = _prose(five_arms, tmp_path / "a", d=d, legend=legend)
    assert _errors(res) == []
    assert _checked(res) == base


TEX = (r"\section{Results}" "\n" r"GSPO reaches @G@ held-out accuracy against 0.632 for GRPO, and Dr.~GRPO "
       r"stays at @D@." "\n\n" r"$^{*}$ $p < 0.05$, paired $t$-test." "\n")


def test_a_mark_in_latex_prose(five_arms, tmp_path):
    """'0.650$^{*}$' in a LaTeX sentence with a '$^{*}$ $p < 0.05$' legend: clean on GSPO, one finding
    on Dr. GRPO."""
    ok = _audit(five_arms, tmp_path / "a", {"paper.tex": TEX.replace("@G@", "0.650$^{*}$").replace("@D@", "0.631")})
    assert _errors(ok) == []
    got = _errors(_audit(five_arms, tmp_path / "b", {"paper.tex": TEX.replace("@G@", "0.650").replace("@D@", "0.631$^{*}$")}))
    assert len(got) == 1 and "'*' on 0.631 marks it 'p < 0.05'" in got[0][1] and "contrasts.dr_grpo-grpo.p " in \
        got[0][1], got
