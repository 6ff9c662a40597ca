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
PREFIX = "sessions."   # the one spelling of a later session's id prefix: sessions.<tag>.<id>


def id_prefix(tag: str) -> str:
    """The prefix of the value ids of a later session's evaluation, ``sessions.<tag>.``.

    Args:
        tag: the session's id-safe tag (:func:`session_tags`).

    Returns:
        The prefix, ending in a dot.

    Example:
        >>> id_prefix("s2") + "arms.dapo.solve_rate.mean"
        'sessions.s2.arms.dapo.solve_rate.mean'
    """
    return f"{PREFIX}{tag}."


def split_id(vid: str) -> tuple[str | None, str]:
    """A value id as (session tag, the id without its session prefix); the tag is None for an id of
    an arm's first session (or no session). The audit strips the prefix with it (one rule, here).

    Args:
        vid: a value id of analysis.json.

    Returns:
        ``(tag, base id)``.

    Example:
        >>> split_id("sessions.s2.arms.dapo.solve_rate.mean"), split_id("arms.dapo.n_seeds")
        (('s2', 'arms.dapo.solve_rate.mean'), (None, 'arms.dapo.n_seeds'))
    """
    if vid.startswith(PREFIX):
        tag, dot, rest = vid[len(PREFIX):].partition(".")
        if dot and tag and rest:
            return tag, rest
    return None, vid


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
        out[sess] = {a: "" if first.get(a) == sess else id_prefix(tags[sess]) for a in arms}
    return out


def declaration_deviations(declared: Iterable[str], named: Iterable[str | None]) -> list[dict]:
    """The deviations between the sessions a plan declares (``sessions``) and those the data name:
    a session in the data the plan does not declare (``undeclared_session``: an evaluation batch
    nobody registered, e.g. a re-run after seeing the first results) and one declared but absent
    (``declared_session_absent``: a registered evaluation that was not run or not included). A plan
    that declares none has neither (sessions stay a free setting). Deviations, not refusals: the
    data are real and are analysed; the study's verdict says DEVIATION (README failure 16).

    Args:
        declared: the declared session names, in order. named: the sessions the data name (None: no session).

    Returns:
        Deviation records (``kind``, ``detail``, ``session``).

    Example:
        >>> [d["kind"] for d in declaration_deviations(["s1", "s2"], ["s1", "s3"])]
        ['undeclared_session', 'declared_session_absent']
    """
    declared, named = list(declared), [s for s in named if s is not None]
    if not declared:
        return []
    out = [{"kind": "undeclared_session", "session": s,
            "detail": f"session {s!r} is in the data but the plan declares only {', '.join(map(repr, declared))}: "
                      "an evaluation batch that was not registered"} for s in named if s not in declared]
    out += [{"kind": "declared_session_absent", "session": s,
             "detail": f"session {s!r} is declared in the plan but no included evaluation names it"}
            for s in declared if s not in named]
    return out
