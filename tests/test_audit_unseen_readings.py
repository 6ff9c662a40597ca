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
- a report file in a format the audit does not read (.rst) is a finding, never a silent pass.
"""

from __future__ import annotations

import pytest

from tests.report_corpus import corpus
from tests.report_corpus_unseen import unseen

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
PROSE = {"arrow": ARROW, "from-to": FROM_TO, "adjusted-after": ADJUSTED, "sd-after-percent": SD_PCT,
         "lead-in-unit": LEAD_IN}


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    return unseen.build("appendix_seeds", tmp_path_factory.mktemp("appendix"))


def _findings(study, tmp_path, text):
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
], ids=["per-seed-cell", "sd-in-parentheses", "mean-before-parentheses", "s-equals-seed-column", "dz-cell", *PROSE])
def test_wrong_cell_is_an_error_against_its_source(study, tmp_path, text, find, replace, line, source):
    found = _findings(study, tmp_path, text.replace(find, replace))
    assert [f for f in found if f[0] == line and source in f[1]], found


def test_a_report_in_a_format_the_audit_does_not_read_is_a_finding(study, tmp_path):
    """A folder holding only report.rst audited clean whatever its numbers said: now one finding names it."""
    rst = "Results\n=======\n\nGSPO reaches 99.9% held-out accuracy (p = 0.5).\n"
    res = corpus.audit_written(study, tmp_path, {"report.rst": rst})
    assert [(f.check, f.location.rsplit("/", 1)[-1], f.found) for f in res.findings] == [
        ("10", "report.rst", "reStructuredText (.rst)")]
    assert not res.passed


def test_a_report_the_audit_reads_has_no_unread_finding(study, tmp_path):
    res = corpus.audit_written(study, tmp_path, {"report.md": ZVF})
    assert [f for f in res.findings if "not read" in f.message] == []
