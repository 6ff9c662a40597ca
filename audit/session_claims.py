"""Claims in words about how a result moved between evaluation sessions (README failure 16).

A study evaluated twice ("the re-evaluation (session 2)") has each arm's values of both sessions; a
report says how they moved without writing both numbers: "seed 303 actually went up", "GSPO drops about
four points on the re-run". Each is read here: the subject arm (named last before the words, else the
paragraph's), on the metric the sentence names (else the paragraph's, else the primary one), from the
first session to the second (``runs.<arm>.s<seed>.<metric>`` / ``arms.<arm>.<metric>.mean`` against
``sessions.<s2>.…``). A claim the analysis cannot decide (no second session, an arm not evaluated again)
is listed as undecided.
"""

from __future__ import annotations

import re

from audit.comparisons import Said, metric_at

_WORDS = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve".split())}
_UP = ("up", "rose", "rise", "improv", "increas", "gain", "better")
# "seed 303 actually went up", "seeds 101 and 202 dropped": a seed's run from the first session to the second
_SEED_MOVED = re.compile(r"\bseeds?\s+(?P<seeds>\d+(?:\s*(?:,\s*(?:and\s+)?|\band\s+|&\s*)\d+)*)\s+(?:actually\s+|also\s+|even\s+|"
                         r"only\s+|both\s+)?(?P<w>went\s+up|went\s+down|rose|improved|increased|went\s+down|dropped|fell|"
                         r"declined|decreased|got\s+worse|got\s+better)\b", re.I)
# "GSPO drops about four points on the re-run": the arm's mean from the first session to the second, in points
_MEAN_MOVED = re.compile(r"\b(?P<w>drops?|dropped|falls?|fell|declines?|declined|rises?|rose|gains?|gained|loses?|lost|"
                         r"improves?|improved)\s+(?:by\s+)?(?P<about>(?:about|roughly|almost|nearly|some|around)\s+)?"
                         r"(?P<k>\d+(?:\.\d+)?|" + "|".join(_WORDS) + r")\s+(?:percentage\s+)?(?:points?|pp|pts)\s+"
                         r"(?:on|in|at|after|with)\s+(?:the\s+|its\s+)?(?:re-?runs?|re-?evaluations?|second\s+(?:evaluation\s+)?"
                         r"session|session\s+2|second\s+evaluation)\b", re.I)


def _value(facts, session: str, first: bool, tail: str):
    """The value ``tail`` (``runs.<arm>.s<seed>.<metric>``, ``arms.<arm>.<metric>.mean``) in ``session``:
    under ``sessions.<session>.`` for a later session, as is for the first."""
    for key in ((tail, f"sessions.{session}.{tail}") if first else (f"sessions.{session}.{tail}",)):
        v = facts.values.get(key)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return float(v), key
    return None


def _subject(arms: list[tuple[int, str]], at: int, subject: str | None) -> str | None:
    before = [a for pos, a in arms if pos < at]
    return before[-1] if before else subject


def session_claims(sent: str, arms: list[tuple[int, str]], metrics: list[tuple[int, str]], subject: str | None,
                   pair, carried: str | None, baseline: str, facts) -> tuple[list[Said], int, list[tuple[int, str]]]:
    """Every claim of ``sent`` about a move between the first two evaluation sessions that the analysis
    contradicts ("seed 303 actually went up", "drops about four points on the re-run").

    Args:
        sent: the sentence. arms / metrics: (offset, name) named in it. subject: the paragraph's arm.
        pair: unused (the readers' common signature). carried: the paragraph's metric. baseline: unused.
        facts: :class:`audit.claims.Facts` (values, sessions, units, directions).
    Returns:
        (contradicted claims, how many were decided, (offset, words) of those it cannot decide).
    Example:
        >>> from types import SimpleNamespace as NS
        >>> f = NS(sessions=("s1", "s2"), primary="acc", units={}, higher={}, values={
        ...     "runs.a.s7.acc": 0.5, "sessions.s2.runs.a.s7.acc": 0.4})
        >>> said, n, _ = session_claims("seed 7 went up", [], [], "a", None, None, "b", f)
        >>> n, said[0].expected
        (1, 'runs.a.s7.acc from 0.5 to 0.4 between sessions s1 and s2')
    """
    out: list[Said] = []
    undecided: list[tuple[int, str]] = []
    low = sent.lower()
    if len(getattr(facts, "sessions", ()) or ()) < 2 or ("seed" not in low and "point" not in low and " pp" not in low):
        return out, 0, undecided
    s1, s2 = facts.sessions[0], facts.sessions[1]
    decided = 0
    for m in _SEED_MOVED.finditer(sent) if "seed" in low else ():
        x = _subject(arms, m.start(), subject)
        metric = metric_at(metrics, m.start(), m.end(), carried, facts.primary)
        up = any(w in m.group("w").lower() for w in _UP)
        sign = -1 if ("better" in m.group("w").lower() or "worse" in m.group("w").lower() or
                      "improv" in m.group("w").lower()) and not facts.higher.get(metric, True) else 1
        for seed in (int(v) for v in re.findall(r"\d+", m.group("seeds"))):
            tail = f"runs.{x}.s{seed}.{metric}"
            a, b = (_value(facts, s1, True, tail), _value(facts, s2, False, tail)) if x else (None, None)
            if a is None or b is None:
                undecided.append((m.start(), m.group(0)))
                continue
            decided += 1
            if (sign * (b[0] - a[0]) > 0) != up:
                out.append(Said(m.start("seeds"), m.group(0), f"{tail} from {a[0]:.4g} to {b[0]:.4g} between sessions {s1} and {s2}",
                                f"'{x} {' '.join(m.group(0).split())}' contradicts the analysis: {a[1]} = {a[0]:.4g}, "
                                f"{b[1]} = {b[0]:.4g}"))
    decided += _mean_moves(sent, low, arms, metrics, subject, carried, facts, out, undecided)
    return out, decided, undecided


def _mean_moves(sent, low, arms, metrics, subject, carried, facts, out: list, undecided: list) -> int:
    """"GSPO drops about four points on the re-run": the arm's mean, second session minus first, in points
    of the metric's unit, rounds to the number written ("about": within a point) in the direction written."""
    decided = 0
    s1, s2 = facts.sessions[0], facts.sessions[1]
    for m in _MEAN_MOVED.finditer(sent) if "point" in low or " pp" in low or "pts" in low else ():
        x = _subject(arms, m.start(), subject)
        metric = metric_at(metrics, m.start(), m.end(), carried, facts.primary)
        scale = {"fraction": 100.0, "percent": 1.0}.get(
            facts.units.get(metric, "fraction" if metric == facts.primary else "") or "")
        tail = f"arms.{x}.{metric}.mean"
        a, b = (_value(facts, s1, True, tail), _value(facts, s2, False, tail)) if x and scale else (None, None)
        if a is None or b is None:
            undecided.append((m.start(), m.group(0)))
            continue
        decided += 1
        k = m.group("k").lower()
        k = float(_WORDS[k]) if k in _WORDS else float(k)
        up = any(w in m.group("w").lower() for w in _UP)
        moved = (b[0] - a[0]) * scale
        if (moved > 0) != up or abs(abs(moved) - k) > (1.0 if m.group("about") else 0.5) + 1e-9:
            out.append(Said(m.start("k"), m.group(0), f"{x}: {moved:+.2f} points from session {s1} to {s2} ({a[1]}, {b[1]})",
                            f"'{x} {' '.join(m.group(0).split())}' contradicts the analysis: {x} moved {moved:+.2f} points "
                            f"on {metric} from session {s1} to {s2} ({a[1]} = {a[0]:.4g}, {b[1]} = {b[0]:.4g})"))
    return decided
