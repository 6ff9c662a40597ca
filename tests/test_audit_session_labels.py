"""The display labels a plan declares for its evaluation sessions scope a report's numbers (README failure 16).

A study (base and SFT evaluated once per session, GRPO, DAPO and Dr. GRPO over seeds 1-3) is evaluated in
session s1 and again in s2 (base, SFT, DAPO). Its reports call the sessions by what they were: "launch-day
pass", "the Nov 20 batch". No generic wording ("session 2", "re-evaluation") is in them, and "s2" is seed
2's tag, so before the declaration nothing scoped these numbers. With ``sessions`` declared in the plan, a
number its row, heading or sentence scopes by a label is checked against that session's values: each
wording is clean as written and one other-session value planted in it is one error naming both sessions;
the same clean report over the study without the declaration is not clean (the labels do the work).
"""

from __future__ import annotations

import copy
import json

import pytest

from audit.sessions import SessionInfo
from tests.report_corpus import corpus

# check 9's recomputation and the study checks shared across the audits of one study (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("shared_recompute")

LABELS = {"s1": {"labels": ["launch-day pass"]},
          "s2": {"labels": ["Nov 20 batch", "fresh-server pass", "S2", "re-evaluation at T=0.6"]}}


def _spec(declared: bool) -> dict:
    spec = json.loads((corpus.REPO / "tests" / "report_corpus_cold" / "pr_comment" / "study.json").read_text())
    spec = copy.deepcopy(spec)
    spec.update(id="labels", seeds=[1, 2, 3], heldout_n=80)
    if declared:
        spec["patch"] = {"sessions": LABELS}
    return spec


def _build(tmp_path_factory, declared: bool):
    from tests.report_corpus_blind import blind

    report = blind._items(_spec(declared), tmp_path_factory.mktemp("labels"))
    values = json.loads((report / "analysis.json").read_text())["values"]
    pct = {k: f"{100 * values[f'{p}arms.{a}.solve_rate.mean']['value']:.1f}%"
           for k, p, a in (("dapo1", "", "dapo"), ("dapo2", "sessions.s2.", "dapo"),
                           ("base1", "", "base"), ("base2", "sessions.s2.", "base"))}
    assert pct["dapo1"] != pct["dapo2"] and pct["base1"] != pct["base2"], pct   # the sessions can be told apart
    return report, pct


@pytest.fixture(scope="module")
def declared(tmp_path_factory):
    return _build(tmp_path_factory, True)


def _findings(report, tmp_path, text, strict=False):
    tmp_path.mkdir(parents=True, exist_ok=True)
    res = corpus.audit_written(report, tmp_path, {"report.md": text}, strict=strict)
    return [(int(f.location.rsplit(":", 1)[-1]), f.message) for f in res.findings
            if f.location.rsplit(":", 1)[0].endswith("report.md")]


def _texts(pct):
    table = ("# DAPO re-check\n\nSolve rate on the held-out puzzles; one row per pass.\n\n"
             "| Pass | Base model | DAPO |\n|---|---|---|\n"
             f"| launch-day pass | {pct['base1']} | {pct['dapo1']} |\n"
             f"| fresh-server pass | {pct['base2']} | {pct['dapo2']} |\n")
    prose = (f"# Notes\n\nOn the Nov 20 batch DAPO's solve rate was {pct['dapo2']}, and the base model's "
             f"solve rate {pct['base2']}.\n")
    heading = (f"# Card\n\n## Nov 20 batch\n\nScored again on a fresh server.\n\n| Model | Solve rate |\n|---|---|\n"
               f"| Base model | {pct['base2']} |\n| DAPO | {pct['dapo2']} |\n")
    temp = f"# Notes\n\nDAPO's solve rate was {pct['dapo2']} in the re-evaluation at T=0.6.\n"
    between = f"# Notes\n\nDAPO's solve rate in the re-evaluation at T=0.6 was {pct['dapo2']}.\n"
    return {   # wording: (clean text, planted text, line of the plant)
        # a label holding a number: its 0.6 is part of the session's name, not a value
        "label with a number, after": (temp, temp.replace(f"was {pct['dapo2']}", f"was {pct['dapo1']}"), 3),
        "label with a number, between": (between, between.replace(f"was {pct['dapo2']}", f"was {pct['dapo1']}"), 3),
        "table rows": (table, table.replace(f"| {pct['base2']} | {pct['dapo2']} |",
                                            f"| {pct['base2']} | {pct['dapo1']} |"), 8),
        "sentence": (prose, prose.replace(f"was {pct['dapo2']}", f"was {pct['dapo1']}"), 3),
        "heading": (heading, heading.replace(f"| DAPO | {pct['dapo2']} |", f"| DAPO | {pct['dapo1']} |"), 10),
    }


@pytest.mark.parametrize("case", ["table rows", "sentence", "heading", "label with a number, after",
                                  "label with a number, between"])
def test_declared_label_scopes_a_number_to_its_session(declared, tmp_path, case):
    report, pct = declared
    good, bad, line = _texts(pct)[case]
    assert _findings(report, tmp_path / "clean", good, strict=True) == []
    found = _findings(report, tmp_path / "plant", bad)
    assert [f[0] for f in found] == [line], found
    msg = found[0][1]
    assert f"{pct['dapo1'][:-1]}% is session s1's value" in msg and "scopes it to session s2" in msg, msg


@pytest.mark.slow
def test_without_the_declaration_the_labels_scope_nothing(tmp_path_factory, tmp_path):
    """The same clean table over the study that declares no sessions: the s2 row is read in the
    contrasts' session (s1), so both its values are errors (and "pass" in the row labels reads as the
    pass@16 metric); the labels are what scoped them."""
    report, pct = _build(tmp_path_factory, False)
    good, _bad, _line = _texts(pct)["table rows"]
    found = _findings(report, tmp_path, good)
    assert [f[0] for f in found].count(8) == 2, found


def test_label_matching():
    info = SessionInfo(("s1", "s2"), {}, frozenset({1, 2, 3}), labels=(("Nov 20 batch", "s2"), ("S2", "s2"),
                                                                        ("launch-day pass", "s1")))
    assert [h[2] for h in info.find("the nov. 20 batch and the Launch day pass")] == ["s2", "s1"]
    assert [h[2] for h in info.find("s2: DAPO 61.1%")] == ["s2"]        # a declared label, seed-like or not
    assert info.find("the Nov 200 batch; s21") == []                     # whole words only
    plain = SessionInfo(("s1", "s2"), {}, frozenset({1, 2, 3}))
    assert plain.find("s2: DAPO 61.1%") == []                            # undeclared: seed 2's tag


@pytest.mark.xfail(strict=True, reason="known gap: a declared label holding a number written right before a value "
                   "('In the re-evaluation at T=0.6, DAPO ... was X'): the prose reader reads the paragraph's own "
                   "text, where 'T=0.6' is a statistic, so X's context reads as naming none (--strict)")
def test_label_with_a_number_before_the_value(declared, tmp_path):
    report, pct = declared
    text = f"# Notes\n\nIn the re-evaluation at T=0.6, DAPO's solve rate was {pct['dapo2']}.\n"
    assert _findings(report, tmp_path, text, strict=True) == []


def test_a_number_inside_a_declared_label_is_a_label():
    from audit.numbers import parse_markdown
    from audit.sessions import mark

    info = SessionInfo(("s1", "s2"), {"s1": {}, "s2": {}}, frozenset({1, 2, 3}),
                       labels=(("re-evaluation at T=0.6", "s2"),))
    f = parse_markdown("r.md", "# Notes\n\nDAPO's solve rate was 52.1% in the re-evaluation at T=0.6.\n", "r.md")
    mark([f], info)
    assert [(m.text, m.status_hint) for m in f.mentions] == [("52.1%", "value"), ("0.6", "label")]
    assert f.mentions[0].session == "s2"
    assert "0.6" not in f.mentions[0].sentence   # read without the label's number
