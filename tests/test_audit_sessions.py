"""Numbers scoped to an evaluation session are checked against that session's values (README failure 16).

The cold set's pull-request study (tests/report_corpus_cold/pr_comment) is evaluated in session s1 (base,
SFT, GRPO, DAPO, Dr. GRPO) and again in s2 (base, SFT, DAPO): DAPO's solve rate is 0.5917 in s1 and
0.6111 in s2, the base model's 0.375 and 0.4083, the SFT checkpoint's 0.500 and 0.4833. Each wording
here (none of them the cold report's) is audited clean as written, and with one session's value
written where the other session is scoped, which must be one error at that line naming both sessions.
"""

from __future__ import annotations

import pytest

from audit.sessions import SessionInfo, clean

# check 9 recomputes the study's analysis once for all these audits (only the report differs)
pytestmark = pytest.mark.usefixtures("shared_recompute")


@pytest.fixture(scope="module")
def pr_study(tmp_path_factory):
    from tests.report_corpus_cold import cold

    return cold.build("pr_comment", tmp_path_factory.mktemp("sessions"))


def _findings(study, tmp_path, text, strict=False):
    from tests.report_corpus import corpus

    tmp_path.mkdir(parents=True, exist_ok=True)
    res = corpus.audit_written(study, tmp_path, {"report.md": text}, strict=strict)
    return [(int(f.location.rsplit(":", 1)[-1]), f.expected, f.found, f.message) for f in res.findings
            if f.location.rsplit(":", 1)[0].endswith("report.md")]


TABLE = """# Re-run check for the DAPO config

Solve rate on the 240 held-out puzzles, as a fraction; one row per evaluation pass.

| Evaluation | Base model | SFT baseline | DAPO |
|---|---|---|---|
| first session | 0.375 | 0.500 | 0.592 |
| second session | 0.408 | 0.483 | 0.611 |
"""

PROSE = ("# Notes\n\nIn the re-evaluation, DAPO's solve rate was 61.1% (59.2% in the first session), and the "
         "base model's solve rate 40.8%.\n")

CARD = """# dapo-puzzles (model card)

## Evaluation

| Model | Solve rate |
|---|---|
| Base model | 37.5% |
| DAPO | 59.2% |

## Re-evaluation

Scored again on a fresh server with the same 240 puzzles.

| Model | Solve rate |
|---|---|
| Base model | 40.8% |
| DAPO | 61.1% |
"""

EMAIL = """Hi all,

**Session 1 (the confirmatory one)**

DAPO's solve rate is 59.2% and the base model's 37.5%.

**Session 2 (re-run on a fresh server)**

DAPO comes out at 61.1%; the base model at 40.8%.

**Next week**

DAPO's solve rate of 59.2% is the one we write up.
"""

CASES = {   # wording: (clean text, planted text, line of the plant, the value written there)
    "bold pseudo-headings (an e-mail)": (EMAIL, EMAIL.replace("at 61.1%", "at 59.2%"), 9, "59.2"),
    "bold pseudo-heading, s1 paragraph": (EMAIL, EMAIL.replace("is 59.2%", "is 61.1%"), 5, "61.1"),
    "sessions-as-rows table": (TABLE, TABLE.replace("| 0.500 | 0.592 |", "| 0.500 | 0.611 |"), 7, "0.611"),
    "sessions-as-rows table, s2 row": (TABLE, TABLE.replace("| 0.483 | 0.611 |", "| 0.483 | 0.592 |"), 8, "0.592"),
    "prose sentence": (PROSE, PROSE.replace("was 61.1%", "was 59.2%"), 3, "59.2"),
    "card with a Re-evaluation heading": (CARD, CARD.replace("| DAPO | 61.1% |", "| DAPO | 59.2% |"), 17, "59.2"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_session_scoped_value_is_checked_in_its_session(pr_study, tmp_path, case):
    good, bad, line, text = CASES[case]
    assert bad != good
    assert _findings(pr_study, tmp_path / "clean", good, strict=True) == []
    found = _findings(pr_study, tmp_path / "plant", bad)
    assert [f[0] for f in found] == [line], found
    msg = found[0][3]
    assert f"{text}" in msg and " is session s" in msg and "the report scopes it to session" in msg, msg
    assert "sessions.s2.arms.dapo.solve_rate.mean" in msg and "arms.dapo.solve_rate.mean" in msg, msg


def test_a_value_no_session_scopes_is_the_contrast_sessions(pr_study, tmp_path):
    """Nothing names a session: DAPO's solve rate is the session its contrasts use (s1); s2's value
    written there is an error that says whose it is."""
    text = "# Notes\n\nDAPO's solve rate is 61.1% on the held-out puzzles.\n"
    found = _findings(pr_study, tmp_path, text)
    assert [f[0] for f in found] == [3], found
    assert "61.1% is session s2's value" in found[0][3] and "nothing scopes it to a session" in found[0][3]
    assert _findings(pr_study, tmp_path / "ok", text.replace("61.1%", "59.2%"), strict=True) == []


def test_session_words():
    info = SessionInfo(("s1", "s2"), {}, frozenset({1, 2}))
    assert [h[2] for h in info.find("the second evaluation session and session 1")] == ["s2", "s1"]
    assert [h[2] for h in info.find("re-evaluated later")] == ["s2"]
    assert info.find("seed s1 and s2") == []   # 1 and 2 are seeds: "s1" names a session only beside "session"
    assert [h[2] for h in info.find("s1 and s2 sessions")] == ["s1", "s2"]
    three = SessionInfo(("a", "b", "c"), {}, frozenset())
    assert three.find("re-evaluation") == []   # which one: ambiguous with three sessions
    assert clean("s2 (re-run: Base, SFT, DAPO)", SessionInfo(("s1", "s2"), {}, frozenset())) == ""
