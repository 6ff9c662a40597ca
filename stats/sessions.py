"""Evaluation sessions in analysis.json: where each session's arm summaries are (README failure 16).

A study evaluated in more than one session (a table's ``session`` column, a run's ``--session``)
has its contrasts formed in one session, but a report may quote any session's values ("s2:
base 40.8, SFT 48.3, DAPO 61.1"). Each arm's summaries in the first session it was evaluated in
keep their ids (``arms.<arm>.*``, ``runs.<arm>.*``); every other (session, arm) evaluation gets
the same values, computed by the same code, under ``sessions.<tag>.arms.<arm>.*`` and
``sessions.<tag>.runs.<arm>.*``. ``analysis.json`` ``session_arms`` maps each session and arm to
the prefix of its ids, so a reader (``stats render``, the audit) never guesses the rule.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")


def session_tags(names: Iterable[str]) -> dict[str, str]:
    """Session name -> the id-safe tag its value ids carry (letters, digits, ``_`` and ``-``; a
    value id splits on dots, and a session name is free text such as "2025-03 batch").

    Args:
        names: the sessions in order of first appearance.

    Returns:
        name -> tag; a tag two names would share gets the later name's position appended.

    Example:
        >>> session_tags(["s1", "2025-03 batch", "2025/03 batch"])
        {'s1': 's1', '2025-03 batch': '2025-03_batch', '2025/03 batch': '2025_03_batch'}
        >>> session_tags(["a.b", "a b"])
        {'a.b': 'a_b', 'a b': 'a_b_2'}
    """
    out: dict[str, str] = {}
    for i, name in enumerate(names, start=1):
        tag = _UNSAFE.sub("_", name).strip("_") or f"session{i}"
        if tag in out.values():
            tag = f"{tag}_{i}"
        out[name] = tag
    return out


def session_arms(sessions: dict, first: dict[str, object]) -> dict[str, dict[str, str]]:
    """Session -> arm -> the prefix of that evaluation's value ids: ``""`` in the arm's first
    session (its ``arms.<arm>.*`` ids), ``sessions.<tag>.`` in any later one.

    Args:
        sessions: session name -> {(arm, seed): unit} (``stats.load.Data.sessions``; named sessions only).
        first: arm -> the session its primary values come from.

    Returns:
        The ``session_arms`` block of analysis.json, sessions and arms in order of appearance.

    Example:
        >>> session_arms({"s1": {("base", None): 0, ("grpo", 1): 0}, "s2": {("base", None): 0}},
        ...              {"base": "s1", "grpo": "s1"})
        {'s1': {'base': '', 'grpo': ''}, 's2': {'base': 'sessions.s2.'}}
    """
    tags = session_tags([s for s in sessions if s is not None])
    out: dict[str, dict[str, str]] = {}
    for sess, view in sessions.items():
        if sess is None:
            continue
        arms = list(dict.fromkeys(a for a, _ in view))
        out[sess] = {a: "" if first.get(a) == sess else f"sessions.{tags[sess]}." for a in arms}
    return out
