"""Check 11: a number that comes from exploratory or unregistered runs is labelled as such
where it appears (same line or sentence, table caption or header, row, or section heading)."""

from __future__ import annotations

from audit import sessions
from audit.numbers import EXPLORATORY_WORDS
from audit.sources import entity_of_text, names_a_seed
from audit.trace import mentions_exploratory, traced_report


def _is_exploratory_entity(ctx, ent) -> bool:
    if ent is None:
        return False
    if ent[0] in ("arm", "run") and ent[1] not in ctx.arms:
        return True
    if ent[0] == "contrast" and (ent[1] not in ctx.arms or ent[2] not in ctx.arms):
        return True
    if ent[0] in ("run", "seed") and ent[-1] not in ctx.seeds:
        return True
    if ent[0] == "run":
        return (ent[1], ent[2]) in ctx.exploratory_units
    return False


# The labels a word can make across the space where two parts of a number's context meet ("post" + "hoc").
_SPACED = tuple(w for w in EXPLORATORY_WORDS if " " in w)
# A label written across two parts has one of its spaces where they meet: the first part ends with the letter
# before that space, the second starts with the letter after it (a test of two characters before the join).
_ENDS = frozenset(w[k - 1] for w in _SPACED for k in range(1, len(w)) if w[k] == " ")
_STARTS = frozenset(w[k + 1] for w in _SPACED for k in range(len(w) - 1) if w[k] == " ")


def _labelled(parts: tuple, said: dict | None = None) -> bool:
    """``mentions_exploratory(" ".join(x or "" for x in parts))``, each part read once per string object (a
    row's line, its column, the caption and section are shared by every number of it; joining and folding
    them for each number cost ~50 us a number of a 5 MB table, README failure 10), then only the meeting
    points of two parts for a label written across them, where the letters either side of the join can
    begin and end one (most cells' parts cannot: no joined string is made for them). ``said``: the
    audit's {id(part): (part, its verdict)}, a dict look-up a part (a fresh one when None)."""
    if said is None:
        said = {}
    prev = ""
    for t in parts:
        if not t:
            prev = ""
            continue
        hit = said.get(id(t))
        if hit is None or hit[0] is not t:
            hit = said[id(t)] = (t, mentions_exploratory(t))
        if hit[1] or (prev and prev[-1].lower()[-1:] in _ENDS and t[0].lower()[:1] in _STARTS
                      and mentions_exploratory(f"{prev[-24:]} {t[:24]}")):
            return True
        prev = t
    return False


def run(ctx, out) -> None:
    results, idx, _files = traced_report(ctx)
    arms = idx.arms
    reported = set()
    entity_of: dict[str, tuple] = {}   # one reading per line, not per number (a line may hold thousands)
    # Every arm a line can name is a locked arm: only a seed (a run, or a seed outside the lock) can make
    # its entity exploratory, so a line naming no seed is not read further (README failure 10: check 11
    # read every line of a 5 MB report for arms).
    locked_arms = set(arms) <= set(ctx.arms)
    expl_of: dict = {}
    said: dict = {}   # each context part's verdict, held while the check runs (the parts are the mentions')
    for t in results:
        m = t.mention
        if t.status == "untraced" and not t.sources:
            srcs_expl = False
        else:
            srcs_expl = bool(t.sources) and all(s.exploratory for s in t.sources)
        text = sessions.without_session(m.identity or m.row or m.line_text, m, idx.sessions)   # "s2" no seed
        if text not in entity_of:
            entity_of[text] = None if locked_arms and not names_a_seed(text) else entity_of_text(text, arms)
        text_ent = entity_of[text]
        if text_ent is not None and text_ent[0] == "seed" and m.kind != "table":
            text_ent = None  # "RNG seed 20260714" in prose names no run
        if text_ent not in expl_of:   # the lock's arms and seeds asked once per entity, not once per number
            expl_of[text_ent] = _is_exploratory_entity(ctx, text_ent)
        if not (srcs_expl or expl_of[text_ent]):
            continue
        key = (m.file, m.line)
        if key in reported:   # one finding a line: its other numbers need no label test (a row of six: one test)
            continue
        # the sentence: "(p = 0.012,\nexploratory)" wraps
        if _labelled((m.line_text, m.sentence, m.row, m.column, m.table_caption, m.section, m.macro), said):
            continue
        reported.add(key)
        src = ", ".join(s.id for s in t.sources[:2]) or "an unregistered or exploratory run"
        out.add(m.where, "the word 'exploratory' on the line or in its sentence, in the table header/caption or the section heading",
                f"{m.text} from {src}, unlabelled", "exploratory result not labelled as exploratory")
