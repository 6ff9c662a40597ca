"""Evaluation sessions in a report: which session a number is scoped to, and its sources there.

A study evaluated in several sessions (s1: base, SFT, GRPO, DAPO, Dr. GRPO; s2: base, SFT and
DAPO again) has each arm's summaries of every session in ``analysis.json``: the first session's
under ``arms.<arm>.*`` / ``runs.<arm>.*``, a later one's under ``sessions.<tag>.…``, and
``session_arms`` says which (:mod:`stats.sessions`). A table row, column, caption or heading, or
the sentence, that names a session ("s2", "session 2", "the second evaluation", "re-evaluation"
when there are two) scopes the number to it: it is traced against that session's values (a
view of the source index in which each arm's values are that session's, :func:`view`), and a
value of another session written there is an error naming both (README failure 16).

The later sessions' values are kept out of the main index (a number no context scopes is
checked against the session the contrasts use, as before); a pin finds them by id.
"""

from __future__ import annotations

import bisect
import copy
import dataclasses
import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from stats.sessions import split_id

__all__ = ["SessionInfo", "attach", "clean", "mark", "traced_as_written", "scope_of", "session_info", "unseed", "without_session", "view", "with_other_session"]

_ORDINALS = {"first": 1, "1st": 1, "initial": 1, "original": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3,
             "fourth": 4, "4th": 4, "one": 1, "two": 2, "three": 3, "four": 4}
_NUMBERED = re.compile(r"\b(?:evaluation\s+|eval\s+)?session\s*(?:#|no\.?\s*)?(\d+|one|two|three|four)\b", re.I)
_ORDINAL = re.compile(r"\b(first|1st|initial|original|second|2nd|third|3rd|fourth|4th)\s+(?:evaluation\s+|eval\s+)?"
                      r"(?:session|evaluation|eval|round|batch)\b", re.I)
_AGAIN = re.compile(r"\bre-?evaluat(?:ion|ed|ing|e)\b|\bre-?run\b|\bre-?ran\b", re.I)
_SESSION_WORD = re.compile(r"\bsessions?\b", re.I)
_SEED_LIKE = re.compile(r"s(\d+)", re.I)
_STOP = {"a", "an", "the", "in", "on", "of", "at", "to", "is", "it", "and", "or", "by", "as", "be"}
# what may stand between a number and the session named right after it: "61.1% in s2", "0.611 (re-evaluation)"
_ATTACHED = re.compile(r"[\s%*)\],:;(]*(?:(?:in|for|during|at|from|on|of)\s+)?(?:the\s+)?$", re.I)


@dataclass(frozen=True)
class SessionInfo:
    """The study's evaluation sessions as ``analysis.json`` names them.

    ``names`` in order of first appearance; ``prefixes`` session -> arm -> the prefix of that
    evaluation's value ids (``""``: the arm's first session); ``seeds`` the locked seeds (a session
    named like a seed tag, "s2", names a session only where the words say "session" when 2 is a seed).
    """

    names: tuple[str, ...]
    prefixes: dict
    seeds: frozenset
    memo: dict = field(default_factory=dict, compare=False, repr=False)   # (text, says) -> find's answer
    labels: tuple = ()   # (label, session): the display labels the plan declares (preregistration sessions)

    def label_spans(self, text: str) -> list[tuple[int, int, bool]]:
        """Where ``text`` writes a declared label: ``(start, end, the label holds a digit)``.

        Example:
            >>> SessionInfo(("a", "b"), {}, frozenset(), labels=(("run at T=0.6", "b"),)).label_spans("the run at T=0.6")
            [(4, 16, True)]
        """
        return [(m.start(), m.end(), any(c.isdigit() for c in m.group())) for pat, _ in self._label_patterns
                for m in pat.finditer(text)]

    @functools.cached_property
    def unnumbered_labels(self) -> tuple:
        """The declared labels holding a number, as patterns over a text whose numbers are blanked
        (a number's ``window``): "re-evaluation at T=0.6" matches "re-evaluation at T=  "."""
        out = []
        for label, _name in self.labels:
            words = [w for w in re.findall(r"[^\W_]+", label) if not w.isdigit()]
            if words and any(c.isdigit() for c in label):
                out.append(re.compile(r"(?<![^\W_])" + r"[\W\d_]*".join(map(re.escape, words)) + r"[=:\s]*", re.I))
        return tuple(out)

    @functools.cached_property
    def _label_patterns(self) -> tuple:
        """Each declared label as a pattern matching it case-insensitively with any punctuation or
        spacing between its words ("Nov 20 re-run" matches "Nov. 20 rerun"), longest label first."""
        out = []
        for label, name in sorted(self.labels, key=lambda x: -len(x[0])):
            words = re.findall(r"[^\W_]+", label)
            if words:
                out.append((re.compile(r"(?<![^\W_])" + r"[\W_]*".join(map(re.escape, words)) + r"(?![^\W_])",
                                       re.I), name))
        return tuple(out)

    def find(self, text: str, says_session: bool = False) -> list[tuple[int, int, str]]:
        """Every phrase of ``text`` that names one of the sessions: ``(start, end, session)``, in order.

        Example:
            >>> info = SessionInfo(("s1", "s2"), {}, frozenset({7, 8}))
            >>> [x[2] for x in info.find("s2 and the first session; session 2")]
            ['s2', 's1', 's2']
        """
        if not text:
            return []
        key = (text, says_session)
        got = self.memo.get(key)
        if got is None:   # once per distinct text: every number of a sentence, row or heading asks (README failure 10)
            if len(self.memo) > 50_000:
                self.memo.clear()
            got = self.memo[key] = self._find(text, says_session)
        return got

    def _find(self, text: str, says_session: bool) -> list[tuple[int, int, str]]:
        says = says_session or _SESSION_WORD.search(text) is not None
        out = []
        for name in self.names:
            if len(name) < 2 or name.lower() in _STOP:
                continue
            sm = _SEED_LIKE.fullmatch(name)
            if sm and int(sm.group(1)) in self.seeds and not says:
                continue   # "s7" is seed 7 unless the words say "session"
            for m in re.finditer(rf"(?<![\w.-]){re.escape(name)}(?![\w-])", text, re.I):
                out.append((m.start(), m.end(), name))
        for pat, name in self._label_patterns:   # a declared label scopes as written, seed-like or not
            out += [(m.start(), m.end(), name) for m in pat.finditer(text)]
        for m in _NUMBERED.finditer(text):
            name = self._numbered(m.group(1))
            if name:
                out.append((m.start(), m.end(), name))
        for m in _ORDINAL.finditer(text):
            k = _ORDINALS[m.group(1).lower()]
            if k <= len(self.names):
                out.append((m.start(), m.end(), self.names[k - 1]))
        if len(self.names) == 2:
            out += [(m.start(), m.end(), self.names[1]) for m in _AGAIN.finditer(text)]
        out.sort(key=lambda x: (x[0], -x[1]))
        keep: list[tuple[int, int, str]] = []
        for x in out:   # overlaps: the first, the longest of those starting together ("Nov 20 re-run", not "re-run")
            if not keep or x[0] >= keep[-1][1]:
                keep.append(x)
        return keep

    def _numbered(self, word: str) -> str | None:
        """The session "session N" names: one named N, sN or "session N", else the N-th."""
        n = _ORDINALS.get(word.lower()) or int(word)
        for name in self.names:
            if name.lower() in (str(n), f"s{n}", f"session {n}", f"session{n}"):
                return name
        return self.names[n - 1] if 1 <= n <= len(self.names) else None


def session_info(analysis: dict, seeds, prereg=None) -> SessionInfo | None:
    """The sessions of ``analysis`` (``sessions``, ``session_arms``), or None with fewer than two;
    with the display labels ``prereg`` (the locked preregistration) declares for them.

    Example:
        >>> session_info({"sessions": ["a"], "session_arms": {"a": {"x": ""}}}, [1]) is None
        True
        >>> session_info({"sessions": ["a", "b"], "session_arms": {"a": {}, "b": {}}}, [1],
        ...              {"sessions": {"b": {"labels": ["Nov 20 re-run"]}}}).labels
        (('Nov 20 re-run', 'b'),)
    """
    names = tuple(s for s in analysis.get("sessions") or () if isinstance(s, str))
    where = analysis.get("session_arms")
    if len(names) < 2 or not isinstance(where, dict):
        return None
    prefixes = {s: dict(where.get(s) or {}) for s in names}
    return SessionInfo(names, prefixes, frozenset(s for s in seeds or () if isinstance(s, int)),
                       labels=declared_labels(prereg, names))


def declared_labels(prereg, names) -> tuple[tuple[str, str], ...]:
    """(label, session) of each label the plan declares for a session the data name; read leniently
    (the audit reads a lock it also reports on: a malformed ``sessions`` block gives none).

    Example:
        >>> declared_labels({"sessions": {"s2": {"labels": ["re-run", 3]}, "s9": {"labels": ["x"]}}}, ("s1", "s2"))
        (('re-run', 's2'),)
    """
    decl = prereg.get("sessions") if isinstance(prereg, Mapping) else None
    if not isinstance(decl, Mapping):
        return ()
    return tuple((label, name) for name, d in decl.items() if name in names and isinstance(d, Mapping)
                 for label in d.get("labels") or () if isinstance(label, str) and label.strip())


def attach(idx, analysis: dict, seeds, aside: list, prereg=None) -> None:
    """Put the later sessions' values (``aside``: ``(id, Source)`` pairs built like any source, from
    the id without its ``sessions.<tag>.`` prefix) where pins and session views find them, and
    the sessions on the index (``idx.sessions``).

    Args:
        idx: the source index (changed in place). analysis: the analysis document. seeds: the locked seeds.
        aside: the later sessions' sources, kept out of the main index. prereg: the locked
            preregistration (its declared session labels), or None.
    Returns:
        None.
    Example:
        >>> from audit.sources import SourceIndex
        >>> idx = SourceIndex(["a"]); attach(idx, {}, [1], []); idx.sessions is None
        True
    """
    idx.sessions = session_info(analysis, seeds, prereg)
    for vid, s in aside:
        idx.by_id.setdefault(vid, s)


def _arm_of(vid: str, arms) -> str | None:
    head, _, rest = vid.partition(".")
    arm = rest.split(".", 1)[0]
    return arm if head in ("arms", "runs") and arm in arms else None


def view(idx, session: str):
    """The source index as session ``session`` sees it: each arm evaluated there has that
    session's values (under their ``sessions.<tag>.`` ids), an arm not evaluated there none; the
    rest (contrasts, lock, counts) as in ``idx``. Built once per session and kept on ``idx``.

    Args:
        idx: the source index. session: a session name of ``idx.sessions``.
    Returns:
        A :class:`audit.sources.SourceIndex` sharing ``idx``'s other fields (``idx`` itself without sessions).

    Example:
        >>> from audit.sources import SourceIndex
        >>> view(SourceIndex(["a"]), "s1").arms
        ['a']
    """
    info = getattr(idx, "sessions", None)
    prefixes = info.prefixes.get(session) if info is not None else None
    if prefixes is None:
        return idx
    cache = idx.__dict__.setdefault("_session_views", {})
    if session in cache:
        return cache[session]
    out = copy.copy(idx)
    out.__dict__.pop("_session_views", None)
    out.__dict__.pop("_p_leaves", None)
    out.sources, out.by_id, out.by_entity = [], dict(idx.by_id), {}
    out._sorted, out._by_token, out._scaled = {}, {}, None
    for s in idx.sources:
        arm = _arm_of(s.id, idx.arms)
        if arm is not None and prefixes.get(arm, None) != "":
            alt = idx.by_id.get(f"{prefixes[arm]}{s.id}") if prefixes.get(arm) else None
            if alt is None:
                continue   # the arm was not evaluated in this session
            if alt.max is None:
                alt.max = s.max
            out.by_id[s.id] = alt
            s = alt
        out.sources.append(s)
        out.by_entity.setdefault(s.entity, []).append(s)
    cache[session] = out
    return out


def scope_of(m, info: SessionInfo, nth: int = 0) -> tuple[str | None, str]:
    """The session ``m`` is scoped to and where that was read (row | column | caption | sentence |
    heading), or ``(None, "")``: its row or column, else its table's caption, else (prose) the session
    its sentence names next to it, else the innermost heading naming one (a caption or heading
    naming two sessions scopes nothing).

    Args:
        m: a report number. info: the study's sessions. nth: which of its text's occurrences in its
            sentence it is (0: the first).
    Returns:
        ``(session, where)``.
    Example:
        >>> from audit.numbers import parse_markdown
        >>> (m,) = parse_markdown("r.md", "# Re-evaluation\\n\\nDAPO: 0.611", "r.md").mentions[-1:]
        >>> scope_of(m, SessionInfo(("s1", "s2"), {}, frozenset()))
        ('s2', 'heading')
    """
    if m.kind == "table":
        says = _header_says(m)
        for where, text in (("row", m.identity or m.row or ""), ("column", m.column or "")):
            hits = info.find(text, says)
            if hits:
                return hits[0][2], where
        name = _one_session(m.table_caption or "", info)
        if name:
            return name, "caption"
    elif m.kind == "prose" and m.sentence:
        name = _in_sentence(m, info, nth)
        if name:
            return name, "sentence"
    for text in reversed(m.scope):
        name = _one_session(text, info)
        if name:
            return name, "heading"
    return None, ""


def _one_session(text: str, info: SessionInfo) -> str | None:
    """The session a caption or heading names, when it names exactly one ("All metrics, session s1");
    one naming two ("scored in s1; a second session (s2) re-ran ...") scopes nothing."""
    names = {h[2] for h in info.find(text)}
    return names.pop() if len(names) == 1 else None


def _in_sentence(m, info: SessionInfo, nth: int = 0) -> str | None:
    """The session a sentence names for one of its numbers: one named right after the number ("61.1%
    in s2"), else the last named before it, else the first named after it; a parenthesised aside
    that does not hold the number scopes only its own ("61.1% (59.2% in the first session), and ...")."""
    hits = info.find(m.sentence)
    if not hits:
        return _moved_between(m, info, nth)
    at = -1
    for _ in range(nth + 1):   # the number is the nth + 1-th of its text in the sentence ("59.2% (59.2% in s1)")
        at = m.sentence.find(m.text, at + 1)
    if at < 0:
        return hits[0][2]
    end = at + len(m.text)
    asides = [(a, b) for a, b in _parentheses(m.sentence) if not a <= at < b]
    hits = [h for h in hits if not any(a <= h[0] < b for a, b in asides)]   # "(59.2% in the first session)"
    after = [h for h in hits if h[0] >= end]
    if after and _ATTACHED.match(m.sentence[end:after[0][0]]):
        return after[0][2]
    before = [h for h in hits if h[1] <= at]
    return before[-1][2] if before else after[0][2] if after else None


# "was the same in both sessions (0.624), while the base model dropped (0.406 to 0.386)": a sentence about
# the study's two sessions, and a value written "A to B" in it
_BOTH_SESSIONS = re.compile(r"\b(?:both|two|the\s+two|between|across)\s+(?:evaluation\s+|eval\s+)?sessions\b", re.I)
_TO_NEXT = re.compile(r"\s*%?\s*(?:to|→|->)\s*[−+\-]?\d")
_TO_PREV = re.compile(r"\d\s*%?\s*(?:to|→|->)\s*$")


def _moved_between(m, info: SessionInfo, nth: int) -> str | None:
    """In a sentence about the study's two sessions that names neither ("the same in both sessions"), a value
    written "A to B" is the first session's (A) and the second's (B); None otherwise."""
    if len(info.names) != 2:
        return None
    key = ("both sessions", m.sentence)   # once a sentence, not once a number (README failure 10)
    both = info.memo.get(key)
    if both is None:
        both = info.memo[key] = _BOTH_SESSIONS.search(m.sentence) is not None
    if not both:
        return None
    at = -1
    for _ in range(nth + 1):
        at = m.sentence.find(m.text, at + 1)
    if at < 0:
        return None
    if _TO_NEXT.match(m.sentence, at + len(m.text)):
        return info.names[0]
    return info.names[1] if _TO_PREV.search(m.sentence, max(0, at - 12), at) else None


def _parentheses(text: str) -> list[tuple[int, int]]:
    """The spans of the parenthesised asides of a sentence (outermost), start to end."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "(":
            start = i if depth == 0 else start
            depth += 1
        elif ch == ")" and depth:
            depth -= 1
            if depth == 0:
                out.append((start, i + 1))
    return out


def clean(text: str, info: SessionInfo, says_session: bool = False) -> str:
    """``text`` without the phrases naming a session and a parenthesis right after one ("s2 (re-run:
    Base, SFT, DAPO)" is a session's row, not a comparison of three arms; "s1" no seed).

    Example:
        >>> clean("s2 (re-run: Base, SFT, DAPO)", SessionInfo(("s1", "s2"), {}, frozenset()))
        ''
    """
    hits = info.find(text, says_session)
    for start, end, _ in reversed(hits):
        tail = re.match(r"\s*\([^()]*\)", text[end:])
        end += tail.end() if tail else 0
        text = text[:start] + " " * (end - start) + text[end:]
    return text.strip() if hits else text


def mark(files: list, info: SessionInfo | None) -> None:
    """Set each number's ``session`` (:func:`scope_of`) and take the session's words out of the
    heading texts its arm and seed are read from (a heading "Session s1" names no seed 1).

    Args:
        files: the parsed report files (their mentions are changed in place). info: the sessions, or None.
    Returns:
        None.
    Example:
        >>> mark([], None)
    """
    if info is None:
        return
    cleaned: dict[tuple, tuple] = {}
    seen: dict[tuple, int] = {}   # (sentence, text) -> numbers of that text read in it so far
    for f in files:
        bold = _bold_headings(f, info)
        bold_at = [b[0] for b in bold]
        for m in f.mentions:
            nth = 0
            if m.kind == "prose" and m.sentence and info.find(m.sentence):
                key = (f.path, m.sentence, m.text)
                nth = seen.get(key, 0)
                seen[key] = nth + 1
                nth %= max(1, m.sentence.count(m.text))
            m.session, where = scope_of(m, info, nth)
            if bold and where in ("", "heading"):   # a bold pseudo-heading is inside any heading above it
                m.session = _under_bold(bold, bold_at, m.line) or m.session
            if m.kind == "prose" and m.sentence and info.labels:
                _unread_label_numbers(m, info, nth)
            if m.session is None:
                continue
            if m.scope not in cleaned:
                cleaned[m.scope] = tuple(clean(h, info) for h in m.scope)
            m.scope = cleaned[m.scope]


_BOLD_LINE = re.compile(r"\s*(?:\*\*|__)(?P<text>[^*_].*?)(?:\*\*|__)")   # a paragraph opening in bold
_HEADING_LINE = re.compile(r"\s{0,3}#{1,6}\s")


def _bold_headings(f, info: SessionInfo) -> list[tuple[int, str | None]]:
    """(line, session or None) of each paragraph opening in bold in a Markdown file, a heading in all
    but name (an e-mail's "**Session 2 (re-evaluation …)**", "**Against the base model** (…):"): the
    session its bold words name when they name exactly one, None when they name none ("**Next
    week**"), as for a real heading, which ends the scope too. Empty when no bold opening names a
    session (nothing changes for the file)."""
    if not str(f.path).endswith((".md", ".markdown")):
        return []
    out, any_session = [], False
    lines = f.lines
    for i, line in enumerate(lines):
        if _HEADING_LINE.match(line):
            out.append((i + 1, None))
            continue
        bm = _BOLD_LINE.match(line)
        if bm is None or (i and lines[i - 1].strip()):
            continue   # no paragraph opening in bold
        name = _one_session(bm.group("text"), info)
        any_session = any_session or name is not None
        out.append((i + 1, name))
    return out if any_session else []


def _under_bold(bold: list[tuple[int, str | None]], at: list[int], line: int) -> str | None:
    """The session of the last bold pseudo-heading (or heading: None) at or above ``line``; ``at`` the lines
    of ``bold`` (a bisection: a long report's every number asks)."""
    k = bisect.bisect_right(at, line) - 1
    return bold[k][1] if k >= 0 else None


def _unread_label_numbers(m, info: SessionInfo, nth: int) -> None:
    """A number inside a declared session label of its sentence ("the re-evaluation at T=0.6") is
    part of the session's name, not a value (a label); and the label's numbers are blanked from the
    sentence the number is read in, so "T=0.6" is no statistic of "DAPO's solve rate was 52.1%"."""
    spans = [(a, b) for a, b, has_digit in info.label_spans(m.sentence) if has_digit]
    if not spans:
        return
    at = -1
    for _ in range(nth + 1):
        at = m.sentence.find(m.text, at + 1)
    if at >= 0 and any(a <= at < b for a, b in spans):
        m.status_hint = "label"
    text = m.sentence
    for a, b in spans:
        text = text[:a] + re.sub(r"[\d.,=]", " ", text[a:b]) + text[b:]
    m.sentence = text
    for pat in info.unnumbered_labels:   # the window has its numbers blanked already: "at T=  DAPO's"
        m.window = pat.sub(lambda x: " " * len(x.group()), m.window)


def _header_says(m) -> bool:
    """The table's first header cell says "Session": its rows are sessions ("| Session | Base | SFT |")."""
    return bool(m.header) and _SESSION_WORD.search(m.header[0] or "") is not None


def without_session(text: str, m, info: SessionInfo | None) -> str:
    """``text`` (a number's row label or line) without the words naming its session, for a reading of
    the arm or seed it names (check 11: "s1 (all five models)" names no seed 1); as is otherwise.

    Args:
        text: the text. m: its number (its ``session`` and table header). info: the sessions, or None.
    Returns:
        ``text`` with the session's phrases blanked, or ``text``.
    Example:
        >>> without_session("s1 (all five models)", None, None)
        's1 (all five models)'
    """
    if info is None or m.session is None:
        return text
    return clean(text, info, _header_says(m))


def traced_as_written(m, info: SessionInfo | None, trace):
    """``trace()`` of a table number read without the session's words in its row label or column
    header (the row "s2 (re-run: Base, SFT, DAPO)" is session s2's, not seed 2's nor a comparison of
    three arms), its message and the mention giving the row and column as written.

    Args:
        m: a table number. info: the sessions, or None. trace: traces ``m`` (no argument).
    Returns:
        ``trace()``'s :class:`audit.trace.Traced`, its message naming the row and column as written.
    Example:
        >>> from audit.numbers import parse_markdown
        >>> m = parse_markdown("r.md", "| a | b |\\n|---|---|\\n| s2 | 1.5 |", "r.md").mentions[-1]
        >>> from audit.sources import SourceIndex
        >>> from audit.trace import trace_mention
        >>> traced_as_written(m, None, lambda: trace_mention(SourceIndex([]), m, [])).status
        'untraced'
    """
    saved = (m.identity, m.row, m.column)
    if info is not None and m.session is not None and m.kind == "table":
        _, where = scope_of(m, info)
        if where == "row":
            says = _header_says(m)
            m.identity, m.row = clean(m.identity, info, says), clean(m.row or "", info, says)
        elif where == "column":
            m.column = clean(m.column or "", info)
    read = (m.row, m.column)
    try:
        t = trace()
    finally:
        m.identity, m.row, m.column = saved
    if t.message and read != (m.row, m.column):
        said = f"row {read[0]!r}, column {read[1]!r}: "
        t = dataclasses.replace(t, message=t.message.replace(said, f"row {m.row!r}, column {m.column!r}: ", 1))
    return t


def unseed(reading, info: SessionInfo | None) -> None:
    """A sentence's "s2" read as seed 2 where 2 is no locked seed and "s2" a session: no seed.

    Args:
        reading: a prose reading (:class:`audit.words.Reading`, changed in place), or None. info: the sessions.
    Returns:
        None.
    Example:
        >>> unseed(None, None)
    """
    seed = getattr(reading, "seed", None)
    if info is not None and seed is not None and seed not in info.seeds \
            and any(n.lower() == f"s{seed}" for n in info.names):
        reading.seed = None


# "(90.5% well-formed vs 92.9% before)": the value right before "before" is the earlier session's
_BEFORE = re.compile(r"\s*%?\s*(?:before|earlier|previously|last\s+(?:time|week|session))\b", re.I)


def _said_before(m) -> bool:
    """Whether the words right after a number say it is the earlier value ("92.9% before")."""
    words = m.sentence or m.line_text
    at = words.find(m.text)
    return at >= 0 and _BEFORE.match(words, at + len(m.text)) is not None


def with_other_session(idx, t, session: str | None):
    """An error whose number is another session's value of the same quantity says so, naming both
    sessions: "61.1 is session s2's value (sessions.s2.arms.dapo.solve_rate.mean = 0.611111), the
    report scopes it to session s1".

    Args:
        idx: the main source index (not a session's view). t: a traced number. session: its session, or None.
    Returns:
        ``t``, its message extended when its number is another session's value.
    Example:
        >>> from audit.sources import SourceIndex
        >>> with_other_session(SourceIndex([]), None, None) is None
        True
    """
    info = getattr(idx, "sessions", None)
    if info is None or t.status != "error" or not t.sources:
        return t
    src = t.sources[0]
    _tag, base = split_id(src.id)
    arm = _arm_of(base, idx.arms)
    if arm is None:
        return t
    here = session or next((s for s in info.names if info.prefixes[s].get(arm) == ""), None)
    m = t.mention
    lo, hi = m.bounds
    for other in info.names:
        if other == here or arm not in info.prefixes[other]:
            continue
        alt = idx.by_id.get(f"{info.prefixes[other][arm]}{base}")
        if alt is not None and any(lo <= alt.value * k <= hi for k in ((1, 100) if alt.percentable else (1,))):
            if session and info.names.index(other) < info.names.index(session) and _said_before(m):
                return dataclasses.replace(t, status="traced", sources=[alt], expected="", message="")
            said = (f"the report scopes it to session {here}" if session
                    else f"nothing scopes it to a session, so it is session {here}'s, where the contrasts are")
            return dataclasses.replace(t, message=f"{t.message}; {m.text} is session {other}'s value "
                                                  f"({alt.id} = {alt.value:g}), {said}")   # t may be a memo's
    return t
