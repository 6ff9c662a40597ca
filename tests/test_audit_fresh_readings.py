"""Readings the fresh report set (``tests/report_corpus_fresh/``) showed missing (README failure 15).

Each test breaks one reading and shows the clean form passing: Quarto / R Markdown sources are read;
a title naming one arm twice is that arm's run; ``t(5) =`` and ``d_z =`` name the contrast's t
statistic and effect size; ``<details><summary>`` scopes what it folds; "pts" is points only after
a number with decimals; "INCONCLUSIVE rather than DISAPPEARS" denies a verdict; an open task item
("[ ] rerun with 10 seeds") is a plan, not a fact.
"""

from __future__ import annotations

import json

import pytest

from audit.claims import check_file, facts_of
from audit.markdown_doc import walk
from audit.numbers import parse_markdown, parse_report
from audit.sources import entity_from_text
from audit.words import is_points, role_before, vocabulary
from tests.report_corpus import corpus
from tests.report_corpus_fresh import fresh


@pytest.mark.parametrize("suffix", [".qmd", ".Rmd", ".md"])
def test_quarto_and_r_markdown_reports_are_read(tmp_path, suffix):
    (tmp_path / f"report{suffix}").write_text("---\ntitle: x\n---\n\nGRPO reaches 0.612 (`r round(m, 3)`).\n")
    (tmp_path / "notes.txt").write_text("0.999\n")
    (f,) = parse_report(tmp_path, lambda p: p.name)
    assert [m.text for m in f.mentions if m.status_hint != "code"] == ["0.612"]


def test_a_title_naming_one_arm_twice_is_that_arms_run():
    assert entity_from_text("puzzles-grpo-s1: GRPO, seed 1", ["base", "sft", "grpo"])[0] == ("run", "grpo", 1)
    assert entity_from_text("GSPO vs GRPO", ["gspo", "grpo"])[0] == ("contrast", "gspo", "grpo")


@pytest.mark.parametrize(("before", "role"), [
    ("GSPO gains 1.85 pp (t(5) = ", "t_stat"), ("(t(  ) = ", "t_stat"), ("the t-statistic is ", "t_stat"),
    ("Cohen's d<sub>z</sub> = ", "dz"), ("d~z~ = ", "dz"), ("$d_z = ", "dz"), ("Cohen's d = ", None),
    ("p = ", "p"), ("the design can only detect a difference of ", "mde"), ("could detect ", "mde"),
    ("after the BH correction over the two comparisons p = ", "p_adjusted"),
    ("t-shirts cost ", None), ("we ran ", None),
])
def test_the_words_before_a_number_name_its_statistic(before, role):
    assert role_before(before) == role


def test_a_details_summary_scopes_what_it_folds_until_it_closes():
    doc = walk("# Stats\n\n<details>\n<summary>▶ GSPO vs GRPO</summary>\n\n- p = 0.169\n\n</details>\n\nafter 0.5\n")
    scopes = {p.text.strip(): p.scope for p in doc.items if getattr(p, "kind", "") == "prose"}
    assert scopes["p = 0.169"] == ("Stats", "▶ GSPO vs GRPO")
    assert scopes["after 0.5"] == ("Stats",)
    assert [p.text for p in doc.items if p.kind == "heading"] == ["Stats", "▶ GSPO vs GRPO"]


def test_pts_is_points_only_after_a_number_with_decimals():
    assert is_points(" pts over GRPO", 2) and is_points(" points", 0)
    assert not is_points(" pt (TOST p = 0.0087)", 0) and not is_points(" pts", 0)


@pytest.fixture(scope="module")
def arxiv(tmp_path_factory):
    report = corpus.build("arxiv_results", tmp_path_factory.mktemp("fresh") / "s", folder=fresh.HERE)
    lock = json.loads(next((report.parent / "locks").glob("*.json")).read_text())
    prereg, analysis = lock["preregistration"], json.loads((report / "analysis.json").read_text())
    return vocabulary(prereg), facts_of(prereg, analysis)


def _claims(arxiv, text: str) -> list[str]:
    vocab, facts = arxiv
    return [c.message for c in check_file(parse_markdown("report.md", text, "report.md"), vocab, facts)]


def test_a_verdict_named_as_the_one_it_is_not_is_denied_not_claimed(arxiv):
    # dapo-grpo is INCONCLUSIVE in the locked analysis
    assert _claims(arxiv, "For DAPO against GRPO the rule returns INCONCLUSIVE rather than DISAPPEARS.\n") == []
    bad = _claims(arxiv, "For DAPO against GRPO the rule returns DISAPPEARS rather than INCONCLUSIVE.\n")
    assert any("denied" in m for m in bad) and any("contradicts" in m for m in bad)


def test_an_open_task_item_is_a_plan_not_a_fact(arxiv):
    assert _claims(arxiv, "- [ ] rerun with 10 seeds before claiming anything\n") == []
    assert any("10 seeds" in m for m in _claims(arxiv, "- [x] ran 10 seeds per arm\n"))
