"""What the tenth report set (``tests/report_corpus_tenth/``) taught the audit (README failure 15).

Each fix made after the set's first run has a firing case and a clean case here, in wordings and numbers
of its own (not copied from the set's reports), over the set's studies: the GitHub issue's (base model, SFT,
Dr. GRPO and AERO on 150 puzzles; AERO − base: bootstrap 95% CI [0.049, 0.204], t interval [0.010, 0.240];
Dr. GRPO − base: bootstrap [0.028, 0.208], t [−0.006, 0.244]).
"""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def tenth_study(tmp_path_factory):
    """One built study of the tenth set per name, built when first asked for."""
    from tests.report_corpus import set_tests
    from tests.report_corpus_tenth import tenth

    return set_tests.lazy_builds(tenth.build, tmp_path_factory, "tenth")


def _findings(study, tmp_path, text, name="report.md"):
    from tests.report_corpus import set_tests

    return set_tests.written_findings(study, tmp_path, text, name)


# ---- which interval a pair of ends is: the kind named right before its bracket, a table column's kind ----

INTERVALS = """# Re-run

- AERO against the base model: +0.125; a 95% bootstrap CI of [0.049, 0.204] and a t-based CI of [0.010, 0.240].
- AERO − base, the other order: +0.125 with Student-t interval (0.010, 0.240), bootstrapped interval (0.049, 0.204).
- Dr. GRPO against the base model: +0.119 (t 95% CI [−0.006, 0.244]; bootstrap CI [0.028, 0.208]).

| comparison | difference | boot. 95% CI | t 95% CI |
|---|---|---|---|
| Dr. GRPO − base | 0.119 | [0.028, 0.208] | [−0.006, 0.244] |
| AERO − base | 0.125 | [0.049, 0.204] | [0.010, 0.240] |
"""


@pytest.mark.parametrize(("before", "kinds"), [
    ("bootstrap 95% CI [0.049, 0.204], t interval [", ("t",)),            # the kind right before the bracket
    ("bootstrap 95% CI [0.049, 0.204], t interval [0.010, ", ("t",)),      # ... for its high end too
    ("t interval [0.010, 0.240], bootstrap 95% CI [", ()),
    ("a t-based CI of (", ("t",)),
    ("the t-based interval is wider than the bootstrap one (", ("t",)),   # none right before: the first named
    ("t 95% CI", ("t",)),                                                   # a column header
    ("boot. 95% CI", ()),
    ("at 95% CI [", ()),                                                    # "t" inside a word
], ids=["t-after-boot", "t-high-end", "boot-after-t", "t-based-of", "first-named", "t-column", "boot-column", "at"])
def test_interval_kind_words(before, kinds):
    """The interval kind the words right before an interval's bracket name, else the first kind named."""
    from audit.words import interval_kinds

    assert interval_kinds(before) == kinds


@pytest.mark.slow
def test_each_interval_is_the_one_its_own_words_or_column_name(tenth_study, tmp_path):
    """A t interval beside a bootstrap interval in one sentence, either order, and a "t 95% CI" column
    beside a bootstrap column: each pair of ends is checked against the interval named right before its
    bracket (or its column), not against the first kind the sentence names (first run: 10 false alarms)."""
    assert _findings(tenth_study("github_issue"), tmp_path, INTERVALS) == []


@pytest.mark.slow
@pytest.mark.parametrize(("find", "replace", "expected"), [
    ("t-based CI of [0.010, 0.240]", "t-based CI of [0.010, 0.250]", "0.240"),        # the t interval's end
    ("bootstrap CI [0.028, 0.208]", "bootstrap CI [−0.006, 0.208]", "0.028"),         # a t end in the bootstrap one
    ("| [0.010, 0.240] |", "| [0.049, 0.240] |", "0.010"),                            # the column's t interval
    ("| [0.028, 0.208] |", "| [0.028, 0.244] |", "0.208"),                            # the t end in the boot. column
], ids=["t-prose", "bootstrap-after-t", "t-column", "boot-column"])
def test_a_wrong_end_of_either_interval_is_caught(tenth_study, tmp_path, find, replace, expected):
    """The same report with one end of one interval replaced by a wrong one (or by the other interval's
    end): an error at that line naming the interval's own end."""
    line = INTERVALS[:INTERVALS.index(find)].count("\n") + 1
    got = _findings(tenth_study("github_issue"), tmp_path, INTERVALS.replace(find, replace))
    assert [g for g in got if g[0] == f"report.md:{line}" and expected in g[1]], got


# ---- an interval written "a to b" as the whole of a table cell -------------------------------------------

TO_CELLS = """# Seeds 5 to 25

| Objective | Solve rate | t interval over seeds |
|---|---|---|
| AERO | 0.592 | 0.571 to 0.613 |
| Dr. GRPO | 0.585 | **0.543 to 0.627** |
"""


@pytest.mark.parametrize(("cell", "ends"), [
    (" 0.543 to 0.627 ", [("0.543", "0.627")]),
    ("**−0.006 to 0.244**", [("−0.006", "0.244")]),
    ("from 0.543 to 0.627", []),                       # no interval word: two values ("rose from 0.5 to 0.7")
    ("0.543 to 0.627 (t)", []),                        # more than the two ends
], ids=["cell", "bold-negative", "from-to", "more"])
def test_a_cell_that_is_only_a_to_b_is_an_interval(cell, ends):
    from audit.numbers import worded_ranges

    assert [(r.group("a"), r.group("b")) for r in worded_ranges(cell)] == ends


@pytest.mark.slow
@pytest.mark.parametrize(("find", "replace", "expected"), [
    ("", "", None),                                                 # clean
    ("0.571 to 0.613", "0.613 to 0.571", "swapped"),                # ends swapped
    ("**0.543 to 0.627**", "**0.543 to 0.672**", "0.627"),          # a wrong high end
], ids=["clean", "swapped", "wrong-end"])
def test_an_a_to_b_cell_is_checked_as_the_arms_interval(tenth_study, tmp_path, find, replace, expected):
    """A "95% CI" column written "0.571 to 0.613" is the arm's interval (first run: 4 false alarms, the
    ends compared with another metric's interval, and a swapped cell missed)."""
    text = TO_CELLS.replace(find, replace) if find else TO_CELLS
    got = _findings(tenth_study("github_issue"), tmp_path, text)
    if expected is None:
        assert got == []
    else:
        line = TO_CELLS[:TO_CELLS.index(find)].count("\n") + 1
        assert [g for g in got if g[0] == f"report.md:{line}" and expected in f"{g[1]} {g[3]}"], got
