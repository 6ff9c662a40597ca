"""Tracing report numbers to sources: pins first, then table/macro context, then value alone.

Context decides which source a number must equal. When the row names an arm (or a
contrast, or a run) and the column names a metric, the number is checked against that
source and a mismatch is an error even if the number happens to equal some other value.
Without decisive context a number is traced when any source, rounded to the digits
shown, equals it; otherwise it is untraced.

Units: a number must be on the scale its source is on. A fraction written where the column says
percent (or the reverse) is an error, and so is a count written as the fraction or percent of its
maximum (heldout_correct of heldout_n, a 0-4 groups_correct mean of 4), or a fraction written as
the count it stands for, when the context or the column's unit word ("(count)", "groups", "of 4",
"(fraction)") says which scale was meant: "unit mix-up: count quoted as fraction/percent" and
"unit mix-up: fraction quoted as count".
"""

from __future__ import annotations

import bisect
import dataclasses
import math
import re
from dataclasses import dataclass, field
from itertools import accumulate

from audit import sessions
from audit.context import TracedReport
from audit.numbers import EXPLORATORY_WORDS, Mention, parse_report
from audit.prose import _CONTRAST_ROLES, heading_percent, read_file, row_states_percent, table_reading
from audit.sources import Source, SourceIndex, build_index, entity_from_text, primary_value
from audit.statuses import per_line
from audit.words import LOCK_ROLES, Reading, vocabulary

__all__ = ["TraceMemo", "Traced", "abbreviated", "is_label", "mentions_exploratory", "prose_sources", "quoted_context",
           "swapped_intervals", "trace_in_context", "trace_mention", "traced_report"]

_ROLE_TOKENS = {"low": {"low", "ci"}, "high": {"high", "ci"}, "pm": {"sd"}}


@dataclass
class Traced:
    """How one report number was decided: its status, the sources it was checked against, and why.

    ``status`` is ``traced`` (equal to its source at the digits shown), ``error`` (the source its
    context names differs, or a unit mix-up), ``untraced`` (equal to nothing) or ``label``;
    ``decisive`` says the context (pin, row, column, sentence, heading) named the source, rather
    than the value alone matching it (audit.statuses calls the latter "value-only").

    Example:
        >>> from audit.numbers import parse_markdown
        >>> t = trace_mention(SourceIndex(["gspo"]), parse_markdown("r.md", "x 0.5", "r.md").mentions[0], ["gspo"])
        >>> (t.status, t.decisive, t.sources)
        ('untraced', False, [])
    """

    mention: Mention
    status: str                       # traced | untraced | error
    sources: list[Source] = field(default_factory=list)   # what it was checked against / matched
    expected: str = ""
    message: str = ""
    decisive: bool = False
    rule: str = ""                    # the rule that decided it, when no general one says it (audit.statuses)


def _in(m: Mention, s: Source, scale: int) -> bool:
    return _in_value(m, s.value * scale)


def _in_value(m: Mention, v: float) -> bool:
    if m.comparator:
        c = m.comparator
        bound = abs(m.value) if m.value >= 0 else m.value
        if c in ("<", "\\lt", "\\le", "\\leq", "≤", "<="):
            return v <= bound
        return v >= bound
    lo, hi = m.bounds
    return lo <= v <= hi


def _fmt(m: Mention, s: Source, scale: int) -> str:
    v = s.value * scale
    if abbreviated(m):
        return _abbrev_text(m, v)
    if m.exponent:
        return f"{v:.{m.decimals}e}"
    return f"{v:.{m.decimals}f}{'%' if scale == 100 else ''}"


def abbreviated(m: Mention) -> bool:
    """Whether ``m`` is a count shown rounded in thousands or millions (see ``audit.numbers._MULT``).

    Args:
        m: a report number.

    Returns:
        True for "1.3k", "12k", "2.5 k", "1.2M"; False for "1.3e3" and plain numbers.

    Example:
        >>> from audit.numbers import parse_markdown
        >>> [abbreviated(m) for m in parse_markdown("r.md", "about 1.3k, 1.3e3 and 1300", "r.md").mentions]
        [True, False, False]
    """
    return bool(m.exponent) and m.text[-1:] in ("k", "K", "M")


def _abbrev_text(m: Mention, v: float) -> str:
    """``v`` shown the way ``m`` shows its number: 1319 as "1.3k" for "1.9k"."""
    return f"{v / 10.0 ** m.exponent:.{m.decimals}f}{m.text[-1]}"


_HELDOUT_COUNT = re.compile(r"held[- ]?out|\btest\b|\bsplit\b|\b(?:problems|items|questions|puzzles|examples|boards)\b",
                            re.I)


def _trace_abbreviated(idx: SourceIndex, m: Mention) -> Traced:
    """An abbreviated count ("about 1.3k", "12k rows") is a count, never a fraction or a mean.

    It stands for the interval its digits set ("1.3k": 1,250 to 1,350, half a unit of its last digit
    either side), so it traces to a count in that interval. When its clause is about the held-out set
    ("1,319 problems, about 1.3k", "a 1.3k-problem test split") it is the locked held-out n: checked
    against ``lock.dataset.heldout_n``, and any other value is an error. Otherwise it is traced by value
    alone to a whole-number source, or untraced."""
    n = idx.by_id.get("lock.dataset.heldout_n")
    if n is not None and _HELDOUT_COUNT.search(m.window or m.sentence):
        if _in(m, n, 1):
            return Traced(m, "traced", [n], decisive=True)
        return Traced(m, "error", [n], f"{_abbrev_text(m, n.value)} ({n.id} = {n.value:g})",
                      f"{m.text} written, the lock gives {n.value:,.0f} held-out items ({n.id}), "
                      f"{_abbrev_text(m, n.value)} at the digits shown", True)
    hits = [s for s in idx.matching(*m.bounds) if not s.percentable and s.unit != "percent"]
    return Traced(m, "traced" if hits else "untraced", hits[:5])


def _context(m: Mention, arms: list[str]):
    """(entity, context tokens) of a mention with table or macro context, else (None, None)."""
    if m.kind == "table":
        ent, rest = entity_from_text(f"{m.identity or m.row or ''} {m.column or ''}", arms)
        toks = set(rest)
    elif m.kind == "macro" and m.macro:
        ent, rest = entity_from_text(m.macro, arms)
        toks = set(rest)
    else:
        return None, None
    toks |= _ROLE_TOKENS.get(m.role, set())
    return ent, toks


def _candidates(idx: SourceIndex, ent, toks: set[str], m: Mention) -> list[Source]:
    pool = idx.by_entity.get(ent, []) if ent is not None else idx.by_entity.get(None, [])
    if not toks or not pool:
        return []
    scored = []
    for s in idx.sharing(ent, toks):   # a source sharing no token scores 0 or less: never a candidate
        sc = len(toks & s.tokens)
        if m.role in ("low", "high") and m.role not in s.tokens:
            continue  # an interval end is only ever checked against an interval end
        if m.role is None and ({"low", "high"} & s.tokens):
            sc -= 0.5
        if sc > 0:
            scored.append((sc, -len(s.tokens - toks), s))
    if not scored:
        return []
    best = max(x[0] for x in scored)
    top = [x for x in scored if x[0] == best]
    fewest = max(x[1] for x in top)
    chosen = [x[2] for x in top if x[1] == fewest]
    covered = set().union(*(toks & s.tokens for s in chosen))
    if ent is None and best < 2 and not (toks - {"low", "high", "ci", "sd"}) <= covered:
        return []
    return chosen


def _scales(m: Mention) -> tuple[int, int]:
    """(scale the number should be in, the scale that would mean a unit mix-up)."""
    return (100, 1) if (m.percent or m.column_percent) else (1, 100)


_ROW_PCT = re.compile(r"\(\s*%|%\s*\)|\bpercent(?:age)?\b|\bpp\b", re.I)
_ROW_COUNT = re.compile(r"\(\s*of\s+[\d,]+\s*\)|\bsolved\b|\bnumber of\b|\(\s*count\s*\)", re.I)
# a table whose caption says its cells count items out of n: "Problems solved out of 64, per run"
_CAPTION_COUNT = re.compile(r"\b(?:solved|correct)\s+out\s+of\s+[\d,]+\b", re.I)


_RANK_COLUMN = re.compile(r"\W*(?:rank(?:ing)?|place|position|#)\W*", re.I)


def is_label(m: Mention) -> bool:
    """Whether ``m`` is a label: a number in a row label, a header cell or a heading ("(n=500)",
    "seed 1", "pass@16", "95% CI"), never a value (its checkable facts are checked by ``audit.claims``).

    Args:
        m: a report number.

    Returns:
        True for a label; False for a value, and always for a pinned number (its author said which).

    Example:
        >>> from audit.numbers import parse_markdown
        >>> [is_label(m) for m in parse_markdown("r.md", "| Acc (n=500) | x |\\n|---|---|\\n| a | 0.5 |", "r.md").mentions]
        [True, False]
    """
    if m.pin:
        return False   # a pinned number is a value: its author said which
    hint = getattr(m, "status_hint", "value")
    if hint not in ("value", None, ""):
        return hint in ("label", "citation")   # a citation's year and pages name a reference (audit.statuses)
    if m.kind == "heading":
        return True
    if m.kind == "table" and m.column and _RANK_COLUMN.fullmatch(m.column):
        return True   # "| Rank |" over "🥇 1=", "3": a place in the ordering, no value of the study
    if m.kind == "table" and m.row and m.text in m.row:
        cells = list(m.row_cells) or [c.strip() for c in re.split(r"(?<!\\)\|", m.line_text.strip().strip("|"))]
        return bool(cells) and m.text in cells[0] and not any(m.text in c for c in cells[1:]) \
            and bool(re.search(r"[A-Za-z]", cells[0]))
    return False


def _merge_scope(ent, scope_ent):
    if scope_ent is None:
        return ent
    if scope_ent[0] == "seed":   # ("seed", s, arm of an outer heading or None): "### Results (seed 2)"
        if ent is None:
            return ("run", scope_ent[2], scope_ent[1]) if scope_ent[2] else None
        return ("run", ent[1], scope_ent[1]) if ent[0] == "arm" else ent
    if ent is None:
        return scope_ent
    if ent[0] == "seed" and scope_ent[0] in ("arm", "run"):
        return ("run", scope_ent[1], ent[1])
    return ent


def trace_mention(idx: SourceIndex, m: Mention, arms: list[str], reading: Reading | None = None,
                  scope_ent=None) -> Traced:
    """The status of one report number: label, traced (to the source its context names), error, or
    traced by value alone / untraced when nothing in its context says which value it is.

    The order is the rule: code is read by value only; a label stays a label; an abbreviated count
    is a count; a pin names its source (and must agree with its row, column or sentence); then the
    words around the number (``reading``), the table or macro context with the heading's arm or run
    (``scope_ent``), and last the value alone.

    Args:
        idx: every value the report may quote (:func:`audit.sources.build_index`).
        m: the number, with its context (:class:`audit.numbers.Mention`).
        arms: arm names, or display name -> arm (``SourceIndex.names``).
        reading: what the words around it say (:mod:`audit.prose`), or None.
        scope_ent: the arm or run its headings name, or None.

    Returns:
        A :class:`Traced`.

    Example:
        >>> from audit.numbers import parse_markdown
        >>> idx = SourceIndex(["gspo", "bnpo"])
        >>> idx.add("arms.gspo.heldout_accuracy.mean", 0.0781, "fraction")
        >>> idx.add("arms.bnpo.heldout_accuracy.mean", 0.1042, "fraction")
        >>> (m,) = parse_markdown("r.md", "| Arm | Accuracy |\\n|---|---|\\n| gspo | 0.1042 |", "r.md").mentions
        >>> t = trace_mention(idx, m, idx.names)
        >>> t.status, t.sources[0].id
        ('error', 'arms.gspo.heldout_accuracy.mean')
    """
    if getattr(m, "in_code", False) and not (reading is not None and reading.code_key):
        reading = None     # a number in code is never a label or a claim; by value alone at most, or by its keys
    if is_label(m) or (reading is not None and reading.param):
        return Traced(m, "label")
    if abbreviated(m) and not m.pin:
        return _trace_abbreviated(idx, m)
    want, other = _wanted_scale(m, reading)
    if m.pin:
        return _pinned(idx, m, arms, want, other, scope_ent)
    return (_by_reading(idx, m, reading, want, other) or _by_context(idx, m, arms, scope_ent, want, other)
            or _by_value_alone(idx, m, arms, want, other))


def _wanted_scale(m: Mention, reading: Reading | None) -> tuple[int, int]:
    """(scale the number should be on, the scale that would be a unit mix-up): percent when the number,
    its column, its row label ("Accuracy (%)", which marks the cell a percent) or its words say so."""
    want, other = _scales(m)
    if m.kind == "table" and _ROW_PCT.search(m.row or "") and not m.column_percent:
        m.column_percent = True
        want, other = 100, 1
    if reading is not None and reading.percent and not m.percent and not m.column_percent:
        want, other = 100, 1
    return want, other


def _by_reading(idx: SourceIndex, m: Mention, reading: Reading | None, want: int, other: int) -> Traced | None:
    """The number decided against the values its words name (arm, seed, metric, statistic), or None
    when the words name none (or the number is a bare integer the words do not make a value)."""
    if reading is None:
        return None
    if reading.role == "seed_list":
        return _locked_seed(idx, m)
    valued = (m.decimals > 0 or m.exponent or reading.percent or m.percent or m.kind == "table"
              or reading.role in LOCK_ROLES or reading.count or reading.role == "margin")
    if not valued and _k_of_n_prose(m) is None:
        return None
    alpha = _locked_threshold(idx, m, reading)
    if alpha is not None:
        return alpha
    if reading.every:
        return _every_contrast(idx, m, reading, want, other)
    cands = prose_sources(idx, reading)
    if len(cands) > 1 and cands[0].unit == "difference" and " - arms." in cands[0].id:
        # a metric's change (_metric_difference) and another metric's contrast: the one nearer the number
        # written is the one an error names (the words' metric may be the sentence's other one)
        cands = sorted(cands[:2], key=lambda s: abs(s.value * want - m.value)) + cands[2:]
    if reading.role == "margin" and not cands:
        return Traced(m, "label")   # a margin the lock does not hold: a parameter of the words, nothing to check
    if m.comparator and reading.role == "p":   # "p < 0.05" bounds the planned test's p (or the one named), not whichever test's
        cands = [c for c in cands if ".tests." not in c.id or (reading.test and f".tests.{reading.test}." in c.id)] or cands
    if not cands:
        return None
    counted = _row_count(m, cands, idx)
    if counted is not None:
        return counted
    if not valued:
        return None   # "2/9" numbering a post, "131/240" of a metric with no n: a bare integer, not this reading's value
    if _SHARE.search(f"{m.row or ''} {m.column or ''}") or _share_in_words(m):
        shared = _decide_share(m, cands)
        if shared is not None:
            return shared
    res = _decide(idx, m, cands, want, other, reading)
    if res.status == "error" and reading.carried:
        return _carried_metric_elsewhere(idx, m, reading, want, other) or res
    return res


def _locked_seed(idx: SourceIndex, m: Mention) -> Traced | None:
    """A seed a command line lists ("--seeds 5 6 7 8 9"): one of the locked seeds, else an error naming
    them; None where the lock lists none."""
    memo = idx.__dict__.setdefault("_locked_seeds", [])
    if not memo:
        memo.append([s for k, s in idx.by_id.items() if k.startswith("lock.seeds.") and k != "lock.seeds.count"])
    seeds = memo[0]
    if not seeds:
        return None
    hit = next((s for s in seeds if s.value == m.value), None)
    if hit is not None:
        return Traced(m, "traced", [hit], decisive=True)
    listed = ", ".join(f"{s.value:g}" for s in seeds)
    return Traced(m, "error", seeds[:1], f"one of the locked seeds {listed} (lock.seeds)",
                  f"seed {m.text} is not one of the locked seeds ({listed})", True)


def _every_contrast(idx: SourceIndex, m: Mention, r: Reading, want: int, other: int) -> Traced | None:
    """"After Holm (0.156 for all three)": the number is the statistic of every contrast against the
    baseline (as many as the words say), so it is checked against each of them and is an error against
    the first it does not equal; None where the study has no such set of contrasts."""
    n, base = r.every
    srcs = []
    for pre in _baseline_contrasts(idx, base, r.metric):
        srcs += [idx.by_id[f"{pre}.{x}"] for x in _CONTRAST_LEAF.get(r.role or "", ()) if f"{pre}.{x}" in idx.by_id][:1]
    if not srcs or (n is not None and n != len(srcs)):
        return None
    bad = [s for s in srcs if not any(_in(m, s, sc) for sc in {want, 1 if s.unit == "percent" else want})]
    if not bad:
        return Traced(m, "traced", srcs, decisive=True)
    return _decide(idx, m, bad[:1], want, other, r)


def _baseline_contrasts(idx: SourceIndex, base: str, metric: str | None) -> list[str]:
    """The id prefixes of the contrasts of every arm against ``base`` on ``metric`` (the primary's when
    the contrast has no metric in its id), found once per audit."""
    memo = idx.__dict__.setdefault("_base_contrasts", {})
    key = (base, metric)
    if key not in memo:
        pairs = sorted({k.split(".")[1] for k in idx.by_id if k.startswith("contrasts.") and k.endswith(".diff_mean")})
        memo[key] = [p for p in (_contrast_prefix(idx, *pair.split("-", 1), metric) for pair in pairs
                                 if pair.endswith(f"-{base}") and pair.count("-") == 1) if p is not None]
    return memo[key]


def _locked_threshold(idx: SourceIndex, m: Mention, reading: Reading) -> Traced | None:
    """"† adjusted p < 0.05" under a table, naming no contrast: the locked significance threshold."""
    if not (m.comparator and reading.role in ("p", "p_adjusted") and reading.pair is None):
        return None
    alpha = [s for s in (idx.by_id.get(i) for i in ("lock.analysis.multiplicity.alpha", "lock.analysis.power.alpha"))
             if s is not None and _in(m, s, 1)]
    return Traced(m, "traced", alpha[:1], decisive=True) if alpha else None


def _by_context(idx: SourceIndex, m: Mention, arms, scope_ent, want: int, other: int) -> Traced | None:
    """The number decided against the source its table row and column (with the heading's arm or run)
    or its macro name name, or None when they name none."""
    ent, toks = _context(m, arms)
    if m.kind == "table":
        ent = _merge_scope(ent, scope_ent)
    if not toks:
        return None
    cands = _role_filter(m, _candidates(idx, ent, toks, m))
    if not cands and m.kind == "macro" and "difference" in toks and ent is not None and ent[0] == "arm":
        cands, want, other = _macro_difference(idx, m, ent[1], toks, want, other)
    if not cands:
        return None
    return _row_count(m, cands, idx) or _decide(idx, m, cands, want, other)


_PP_VALUE = re.compile(r"^\s*[−+-]?[\d.]+\s*(?:pp|percentage\s+points?|points?|pts)\b", re.I)


def _macro_difference(idx: SourceIndex, m: Mention, arm: str, toks: set[str], want: int, other: int):
    """``\\newcommand{\\gspoDelta}{\\qty{1.77}{\\pp}}``: a macro naming one arm and a difference is that
    arm's contrast, where the study has one contrast of that arm (in points where its value says so)."""
    pairs = [e for e in idx.by_entity if e and e[0] == "contrast" and e[1] == arm]
    if len(pairs) != 1:
        return [], want, other
    if _PP_VALUE.match(m.sentence or ""):
        want, other = 100, 1
    return _role_filter(m, _candidates(idx, pairs[0], toks, m)), want, other


def _out_of_heldout(idx: SourceIndex, cands: list[Source]) -> list[Source]:
    """``cands`` with the primary metric's fractions given the held-out n as what they are of (a table of
    counts out of n: "Puzzles solved per seed (of 360)" over a solve rate)."""
    n = idx.by_id.get("lock.dataset.heldout_n")
    if n is None or not n.value:
        return cands
    return [dataclasses.replace(s, max=n.value) if s.unit == "fraction" and not s.max and primary_value(s.id, idx.primary)
            else s for s in cands]


def _row_count(m: Mention, cands, idx: SourceIndex | None = None) -> Traced | None:
    """A table cell in a row that counts ("Items correct", "Groups correct (0-4)"), or a cell written as
    a count k of n ("20/48"), decided as a count, or None when the row counts nothing or no count fits."""
    if m.kind == "table" and not m.column_percent and (_ROW_COUNT.search(m.row or "") or _k_of_n_cell(m)
                                                       or _CAPTION_COUNT.search(m.table_caption or "")):
        return _decide_count(m, _out_of_heldout(idx, cands) if idx is not None else cands)
    if m.kind == "table" and idx is not None and _counted_table(m):
        return _decide_count(m, _out_of_heldout(idx, cands))
    n = _k_of_n_prose(m)
    if n is not None:   # "190/300" in a sentence: a count of the n the fraction is out of
        return _decide_count(m, [s for s in cands if s.max == n])
    return None


# what a table's caption or heading says when its cells count out of n: "Solved puzzles per seed (of 360)",
# "Per seed (correct answers out of 1,319)"
_TABLE_COUNT = re.compile(r"\(\s*of\s+\d[\d,]*\s*\)|\b(?:solved|correct)\b(?:\s+[a-z]+){0,2}\s+out\s+of\s+\d", re.I)


def _counted_table(m: Mention) -> bool:
    """Whether a whole-number cell sits in a table whose caption or innermost heading says its cells
    count out of n (a fraction's cell there stays a fraction: "fraction correct out of 500")."""
    if m.decimals or m.percent or m.exponent or m.value < 1:
        return False
    return bool(_TABLE_COUNT.search(m.table_caption or "") or (m.scope and _TABLE_COUNT.search(m.scope[-1])))


def _k_of_n_prose(m: Mention) -> float | None:
    """The n of a whole number written "k/n" in prose ("solved 190/300", "(128/240 against 131/240)"), or None."""
    words = m.sentence or m.line_text   # the sentence, not the whole line: a one-line report stays linear
    if m.kind != "prose" or m.decimals or m.percent or m.exponent or "/" not in words:
        return None
    got = re.search(r"(?<![\d.,/])" + re.escape(m.text) + r"\s?/\s?(\d{1,3}(?:,\d{3})+|\d+)(?![\d,/]|\.\d)", words)
    return float(got.group(1).replace(",", "")) if got else None


def _k_of_n_cell(m: Mention) -> bool:
    """Whether the number is the k of a cell that holds only "k/n" ("| 5 | 20/48 | 25/48 |")."""
    cell = next((c for c in m.row_cells if m.text in c), "")
    return "/" in cell and re.fullmatch(r"[\s*_]*" + re.escape(m.text) + r"\s*/\s*\d[\d,]*[\s*_]*", cell) is not None


def _by_value_alone(idx: SourceIndex, m: Mention, arms, want: int, other: int) -> Traced:
    """Nothing in the context names a source: traced when some source equals the number (value-only),
    else a unit mix-up its scale words show, a near miss of the one source its sentence names, or untraced."""
    res = _by_value(idx, m, want, other)
    if res.status == "untraced" and m.scale and not m.comparator:
        mix = _mixup_by_value(idx, m)
        if mix is not None:
            return mix
    if res.status == "untraced" and m.kind in ("prose", "heading") and m.window and not m.comparator:
        near = _near_miss(idx, m, arms, want)
        if near is not None:
            return near
    return res


def _pinned(idx, m, arms, want, other, scope_ent) -> Traced:
    pinned = [idx.by_id[m.pin]] if m.pin in idx.by_id else []
    if not pinned and m.role in ("low", "high"):
        for suffix in ((".low", ".lower", ".lo") if m.role == "low" else (".high", ".upper", ".hi")):
            if m.pin + suffix in idx.by_id:
                pinned = [idx.by_id[m.pin + suffix]]
                break
    if not pinned:
        return Traced(m, "error", [], f"a value with id {m.pin}", "pinned id names no value of the analysis, "
                      "a manifest or the lock", True)
    ent, _toks = _context(m, arms)
    if m.kind == "table":
        ent = _merge_scope(ent, scope_ent)
    clash = _entity_clash(ent, pinned[0].entity)
    if clash:
        return Traced(m, "error", pinned, f"a value of {clash[0]} (the {clash[2]} says so)",
                      f"pin contradicts its context: {m.pin} is a value of {clash[1]}, but the "
                      f"{clash[2]} names {clash[0]}", True)
    return _decide(idx, m, pinned, want, other)


def _entity_clash(ctx_ent, src_ent):
    """(what the context names, what the pin names, where) when they disagree on arm or seed."""
    if ctx_ent is None or src_ent is None:
        return None
    def desc(e):
        return {"arm": lambda: f"arm {e[1]}", "run": lambda: f"run {e[1]} seed {e[2]}",
                "contrast": lambda: f"contrast {e[1]}-{e[2]}", "seed": lambda: f"seed {e[1]}"}[e[0]]()
    c_arms = {x for x in ctx_ent[1:3] if isinstance(x, str)} if ctx_ent[0] != "seed" else set()
    s_arms = {x for x in src_ent[1:3] if isinstance(x, str)} if src_ent[0] != "seed" else set()
    if c_arms and s_arms and not (c_arms & s_arms if len(c_arms) == 1 else c_arms == s_arms):
        return desc(ctx_ent), desc(src_ent), "row or column"
    c_seed = ctx_ent[-1] if ctx_ent[0] in ("run", "seed") else None
    s_seed = src_ent[-1] if src_ent[0] in ("run", "seed") else None
    if c_seed is not None and s_seed is not None and c_seed != s_seed:
        return desc(ctx_ent), desc(src_ent), "row or column"
    return None


def _role_filter(m: Mention, cands: list[Source]) -> list[Source]:
    """A "± sd" number is checked against an SD, the number before it never is."""
    if m.role == "pm":
        sds = [s for s in cands if "sd" in s.tokens]
        return sds or cands
    if m.role is None and re.search(r"±|\bsd\b|\bstd\b", m.column or "", re.I):
        return [s for s in cands if "sd" not in s.tokens] or cands
    return cands


def _decide_count(m: Mention, cands: list[Source]) -> Traced | None:
    """A row that counts ("Problems solved (of 1,319)"): the fraction sources as counts."""
    scaled = [s for s in cands if s.unit == "fraction" and s.max]
    if not scaled:
        return None
    for s in scaled:
        if _in_value(m, s.value * s.max):
            return Traced(m, "traced", [s], decisive=True)
    for s in scaled:
        if _in_value(m, s.value) or _in_value(m, 100 * s.value):
            return Traced(m, "error", [s], f"{_num_text(s.value * s.max, 0)} ({s.id} = {s.value!r} x {s.max:g})",
                          f"unit mix-up: fraction quoted as count (the row counts out of {s.max:g}; {m.text} is "
                          f"the fraction {s.id})", True)
    s = scaled[0]
    return Traced(m, "error", [s], f"{_num_text(s.value * s.max, max(m.decimals, 0))} ({s.id} = {s.value!r} x "
                  f"{s.max:g})", f"{_where(m)}{m.text} written, the locked analysis gives "
                  f"{_num_text(s.value * s.max, m.decimals)} ({s.id} = {s.value!r} of {s.max:g})", True)


_SHARE = re.compile(r"%\s*of\b|\bpercent(?:age)?\s+of\b|\bshare\s+of\b", re.I)


def _share_in_words(m: Mention) -> bool:
    """A percent in prose followed by "of" ("2.84 of 4 groups correct (71.0% of groups)"): a share."""
    if m.kind != "prose" or not m.percent:
        return False
    words = m.sentence or m.line_text   # the sentence, not the whole line: a one-line report stays linear
    at = words.find(m.text)
    return at >= 0 and re.match(r"\s*of\b", words[at + len(m.text):]) is not None


def _decide_share(m: Mention, cands: list[Source]) -> Traced | None:
    """A "(% of groups)" row: a count out of its declared maximum, shown as a percent of it."""
    scaled = [s for s in cands if s.is_count and s.max]
    if not scaled:
        return None
    for s in scaled:
        if _in_value(m, 100 * s.value / s.max):
            return Traced(m, "traced", [s], decisive=True)
    for s in scaled:
        if _in_value(m, s.value) or _in_value(m, s.value / s.max):
            return Traced(m, "error", [s], f"{100 * s.value / s.max:.{max(m.decimals, 1)}f} ({_of(s)}, as a percent)",
                          f"unit mix-up: {'count' if _in_value(m, s.value) else 'fraction'} quoted where the row says "
                          f"percent of {s.max:g} ({m.text}; {s.id} = {s.value:.6g} of {s.max:g})", True)
    s = scaled[0]
    return Traced(m, "error", [s], f"{100 * s.value / s.max:.{m.decimals}f} ({_of(s)}, as a percent)",
                  f"{_where(m)}{m.text} written, the locked analysis gives {100 * s.value / s.max:.{m.decimals}f} "
                  f"(100 x {s.id} / {s.max:g}): number does not equal its source rounded to the digits shown", True)


def _where(m: Mention) -> str:
    if m.kind == "table":
        return f"row {m.row!r}, column {m.column!r}: "
    return ""


def _near_miss(idx, m, arms, want) -> Traced | None:
    """A prose number that equals nothing, but is within two units of its last digit of the one
    source its sentence names (an arm and a metric, or a metric alone): a typed-by-hand slip
    such as 1,078 items when the data hold 1,077."""
    ent, rest = entity_from_text(m.window, arms)
    toks = set(rest)
    if not toks:
        return None
    cands = _candidates(idx, ent, toks, m)
    if len(cands) != 1:
        return None
    s = cands[0]
    scale = want if (want == 1 or s.percentable) else 1
    unit = 2 * m.half_width
    if abs(s.value * scale - m.value) <= 2 * unit + 1e-12:
        return Traced(m, "error", [s], f"{_fmt(m, s, scale)} ({s.id} = {s.value!r})",
                      "number differs in its last digits from the value its sentence names", False)
    return None


def _num_text(v: float, decimals: int) -> str:
    return f"{v:.{decimals}f}" if decimals or abs(v - round(v)) > 1e-9 else f"{round(v)}"


def _count_text(s: Source) -> str:
    return f"{s.value:g}" if abs(s.value - round(s.value)) < 1e-9 else f"{s.value:.4g}"


def _of(s: Source) -> str:
    return f"{s.id} = {s.value!r} of {s.max:g}"


def _mixup(m: Mention, cands: list[Source], traced_to: Source | None = None) -> Traced | None:
    """A count written on a fraction or percent scale, or a fraction written as a count.

    Only sources whose scale is known (a count out of its maximum, a fraction of a known count)
    can say so; ``traced_to`` is a source the number already equals, kept only when the column
    names the other scale (a "(fraction)" column holding heldout_correct, a "(count)" column
    holding heldout_accuracy)."""
    if m.comparator:
        return None
    if traced_to is not None:
        s = traced_to
        if m.scale == "fraction" and s.as_fraction() is not None and s.max != 1:
            return Traced(m, "error", [s], f"{_num_text(s.as_fraction(), max(m.decimals, 3))} ({_of(s)})",
                          f"unit mix-up: fraction quoted as count (the column says fraction; {m.text} is the "
                          f"count {s.id}, out of {s.max:g})", True)
        if m.scale == "count" and s.as_count() is not None and s.max != 1 and not m.percent:
            return Traced(m, "error", [s], f"{_num_text(s.as_count(), 0)} (count: {s.id} = {s.value!r} x {s.max:g})",
                          f"unit mix-up: count quoted as fraction (the column says count; {m.text} is the "
                          f"fraction {s.id})", True)
        return None
    for s in cands:
        f = s.as_fraction()
        if f is None:
            continue
        if not (m.percent or m.column_percent) and _in_value(m, f):
            return Traced(m, "error", [s], f"{_count_text(s)} ({_of(s)})",
                          f"unit mix-up: count quoted as fraction ({m.text} = {s.value:g}/{s.max:g}; "
                          f"write the count {_count_text(s)})", True)
        if _in_value(m, 100 * f):
            return Traced(m, "error", [s], f"{_count_text(s)} ({_of(s)})",
                          f"unit mix-up: count quoted as percent ({m.text} = 100 x {s.value:g}/{s.max:g}; "
                          f"write the count {_count_text(s)})", True)
    for s in cands:
        c = s.as_count()
        if c is None or m.percent or not _in_value(m, c):
            continue
        pct = m.column_percent
        exp = (f"{100 * s.value:.1f}%" if pct else _num_text(s.value, max(3, m.decimals))) + f" ({s.id} = {s.value!r})"
        return Traced(m, "error", [s], exp,
                      f"unit mix-up: fraction quoted as count ({m.text} = {s.value:g} x {s.max:g}; the "
                      f"{'column says percent' if pct else 'unit is a fraction'})", True)
    return None


def _mixup_by_value(idx: SourceIndex, m: Mention) -> Traced | None:
    """An otherwise untraced number whose column or words name a scale, equal to a source on the other one."""
    if m.scale == "count":
        return _mixup(m, [s for s in idx.scaled() if s.is_count])
    if m.scale == "fraction":
        return _mixup(m, [s for s in idx.scaled() if s.unit == "fraction"])
    return None


def _decide(idx, m, cands, want, other, reading: Reading | None = None) -> Traced:
    usable = [s for s in cands if want == 1 or s.percentable or s.unit == "percent"]
    for s in cands:
        scale = 1 if s.unit == "percent" else want
        if (scale == 1 or s.percentable) and _in(m, s, scale):
            if m.scale and s.max:
                mix = _mixup(m, cands, traced_to=s)
                if mix is not None:
                    return mix
            return Traced(m, "traced", [s], decisive=True)
    if want == 100 and any(_in(m, s, 1) for s in cands if s.percentable):
        s = next(s for s in cands if s.percentable and _in(m, s, 1))
        return Traced(m, "error", [s], _fmt(m, s, 100) if m.decimals >= 2 else f"{s.value * 100:.1f}%",
                      f"a fraction written where {'the number' if m.percent else 'the column'} says percent "
                      f"(source {s.id})", True)
    pct_metric = [s for s in cands if s.unit == "percent" and not m.percent and _in_value(m, s.value / 100)]
    if pct_metric:   # a percent metric (format_pct = 88.9) written as the fraction 0.889
        s = pct_metric[0]
        return Traced(m, "error", [s], f"{s.value:.{max(m.decimals - 2, 1)}f} ({s.id} = {s.value:.6g}, a percent)",
                      f"a fraction written where the metric is a percent ({m.text}; {s.id} = {s.value:.6g})", True)
    if want == 1 and any(s.percentable and _in(m, s, 100) for s in cands):
        s = next(s for s in cands if s.percentable and _in(m, s, 100))
        return Traced(m, "error", [s], _fmt(m, s, 1), f"a percentage written where the unit is a fraction "
                      f"(source {s.id}; add %, or write the fraction)", True)
    mix = _mixup(m, cands)
    if mix is not None:
        return mix
    s = (usable or cands)[0]
    scale = 1 if s.unit == "percent" else (want if (want == 1 or s.percentable) else 1)
    if reading is not None and reading.role == "mde":
        normal = _normal_mde(idx, s)
        if normal is not None and _in_value(m, normal * scale):
            return Traced(m, "error", [s], f"{_fmt(m, s, scale)} ({s.id} = {s.value!r})",
                          f"minimum detectable effect from the normal approximation ({m.text} = (z_alpha/2 + "
                          f"z_power) x SD / sqrt(n)); the locked plan's exact noncentral t gives {_fmt(m, s, scale)}",
                          True)
    if m.comparator:
        exp = f"{s.id} = {s.value * scale!r} satisfying {m.comparator} {abs(m.value)}"
    else:
        exp = f"{_fmt(m, s, scale)} ({s.id} = {s.value!r})"
    shown = exp if m.comparator else f"{_fmt(m, s, scale)} ({s.id} = {s.value:.6g})"
    return Traced(m, "error", [s], exp, f"{_where(m)}{m.text} written, the locked {_origin(s)} gives {shown}: "
                  f"number does not equal its source rounded to the digits shown{_swap_hint(idx, m, s, scale)}", True)


def _carried_metric_elsewhere(idx, m: Mention, r: Reading, want: int, other: int) -> Traced | None:
    """A value in a sentence that names no metric, read with an earlier sentence's metric and not
    equal to it: "pass@16 barely moves over SFT. [...] 90.3% of its answers are well formed" is the
    one other metric of the sentence's arms (or run) that the value equals, on the same statistic,
    never an error against a metric the sentence does not name. None leaves the error against the
    carried metric (a plant on a carried value stays caught).

    Two or more (README failure 15): the value equals several metrics of those arms and nothing in
    its sentence says which, which is what value-only means: traced by value with every candidate
    listed, not decisive. :func:`audit.statuses.classify` then makes it an error where any value-only
    number is one (a sentence with a statistic, ``--strict``) and counts it elsewhere. It is no error
    against the carried metric: that metric is a guess the sentence never made, and the value is
    not wrong for any metric it could mean.
    """
    if r.role != "mean" or r.pair:
        return None
    lo, hi = m.bounds
    near = {s.id: s for sc in {want, 1} for s in idx.matching(lo, hi, sc)}   # by value first: a bisection
    hits: list[Traced] = []
    for a in r.arms:
        pre, tail = (f"runs.{a}.s{r.seed}.", "") if r.seed is not None else (f"arms.{a}.", ".mean")
        for vid, s in near.items():
            rest = vid[len(pre):] if vid.startswith(pre) else ""
            metric = rest[:-len(tail)] if tail and rest.endswith(tail) else rest
            if not metric or "." in metric or metric == r.metric:
                continue
            t = _decide(idx, m, [s], want, other, r)
            if t.status == "traced":
                hits.append(t)
    if len(hits) < 2:
        return hits[0] if hits else None
    found = [t.sources[0] for t in hits]
    return Traced(m, "traced", found, rule=(
        f"value-only: its sentence names no metric; the earlier sentence's ({r.metric}) differs, and the value "
        f"equals {len(found)} other metrics of {', '.join(r.arms)}{'' if r.seed is None else f' seed {r.seed}'}: "
        f"{', '.join(s.id for s in found)}"))


def _swap_hint(idx: SourceIndex, m: Mention, s: Source, scale: int) -> str:
    """Name the value the number does equal only when it is the same statistic of another arm, run
    or contrast (a swapped cell); never an unrelated value that happens to be equal."""
    end = s.id.rsplit(".", 1)[-1]
    if end in ("low", "high"):   # a "ci_low" cell holding the "ci_high" value: the interval written backwards
        o = idx.by_id.get(f"{s.id[:-len(end)]}{'high' if end == 'low' else 'low'}")
        if o is not None and _in(m, o, scale):
            return f"; swapped ends: the number equals {o.id}, the interval's other end"
    lo, hi = m.bounds
    twins = [o for o in idx.matching(lo / scale, hi / scale, 1) if o.tokens == s.tokens and o.entity != s.entity
             and o.id != s.id]
    return f"; the number equals {twins[0].id} instead" if twins else ""


def _origin(s: Source) -> str:
    return {"lock": "preregistration", "manifest": "run record", "trace": "run record"}.get(s.origin, "analysis")


def _normal_mde(idx: SourceIndex, s: Source) -> float | None:
    """The MDE a normal approximation gives, (z_{1-a/2} + z_power) * SD / sqrt(n): README failure 9's error."""
    head = s.id.rsplit(".", 1)[0]
    sd, n = idx.by_id.get(f"{head}.diff_sd"), idx.by_id.get(f"{head}.n_pairs")
    alpha, power = idx.by_id.get("lock.analysis.power.alpha"), idx.by_id.get("lock.analysis.power.target")
    if sd is None or n is None or n.value <= 0:
        return None
    from statistics import NormalDist

    a = alpha.value if alpha else 0.05
    pw = power.value if power else 0.8
    z = NormalDist().inv_cdf(1 - a / 2) + NormalDist().inv_cdf(pw)
    return z * sd.value / math.sqrt(n.value)


_CONTRAST_LEAF = {"diff": ("diff_mean",), "sd": ("diff_sd",), "p": ("p",), "p_adjusted": ("p_adjusted",),
                  "mde": ("mde", "mde_pilot"), "power": ("power_achieved",), "tost_p": ("tost_p",),
                  "t_stat": ("tests.paired_t.statistic",), "dz": ("effect_size_dz",)}


def _contrast_prefix(idx: SourceIndex, a: str, b: str, metric: str | None) -> str | None:
    for c in (f"{a}-{b}",):
        for pre in ((f"contrasts.{c}.{metric}",) if metric else ()) + (f"contrasts.{c}",):
            if f"{pre}.diff_mean" in idx.by_id:
                return pre
    return None


def prose_sources(idx: SourceIndex, r: Reading) -> list[Source]:
    """The values a prose reading names (negated for a contrast written baseline first).

    Args:
        idx: the source index.
        r: a reading of the words around a number (arms or a pair, seed, metric, statistic).

    Returns:
        The sources it names; a contrast written baseline first ("GRPO − GSPO") gives the analysis'
        arm-minus-baseline values with their sign flipped and interval ends exchanged.

    Example:
        >>> idx = SourceIndex(["gspo", "grpo"])
        >>> idx.add("contrasts.gspo-grpo.diff_mean", 0.038, "difference")
        >>> [s.value for s in prose_sources(idx, Reading(pair=("grpo", "gspo"), role="diff"))]
        [-0.038]
    """
    if r.role == "alpha":   # "alpha = 0.05": the locked significance level
        return [idx.by_id[i] for i in ("lock.analysis.multiplicity.alpha", "lock.analysis.power.alpha") if i in idx.by_id]
    if r.role == "margin":   # "within the registered margin of 1 pp": the locked equivalence margin
        return [idx.by_id[i] for i in ("lock.analysis.equivalence_margin",) if i in idx.by_id]
    if r.role in LOCK_ROLES:   # "LoRA (r = 16, alpha = 32)": the locked adapter setting
        return [idx.by_id[i] for i in (f"lock.training.{r.role}",) if i in idx.by_id]
    if r.pair:
        return _contrast_sources(idx, r)
    out = []
    for a in r.arms:
        if r.role == "mean":
            ids = (_held_out(idx, f"runs.{a}.s{r.seed}.", r.metric) if r.seed is not None else
                   [f"arms.{a}.{r.metric}.mean", f"arms.{a}.{r.metric}"])
        elif r.role == "sd":
            ids = [f"arms.{a}.{r.metric}.sd"]
        elif r.role == "halfwidth":
            out += _half_width(idx, f"arms.{a}.{r.metric}.mean.ci{r.level}")
            continue
        elif r.role in ("low", "high"):
            ids = [f"arms.{a}.{r.metric}.mean.ci{r.level}.{r.role}"]
            if ids[0] not in idx.by_id:   # a reference evaluated once has no interval over seeds: its
                ids = [f"arms.{a}.{r.metric}.mean.item.ci{r.level}.{r.role}"]   # interval over items is its only one
            if ids[0] not in idx.by_id:   # "DAPO: 90% interval [a, b]": only its contrast has a 90% interval
                ids = _arm_contrast_end(idx, a, r)
        else:
            ids = []
        out += [idx.by_id[i] for i in ids if i in idx.by_id]
    return out


def _held_out(idx: SourceIndex, pre: str, metric: str | None) -> list[str]:
    """A run's value id (``pre`` + metric) as the words name the metric, or, where the study has none
    of the held-out accuracy its default names name ("solved", "correct answers": ``heldout_accuracy``,
    ``heldout_correct``), the value that stands for it: the accuracy a count is of, else the lock's
    primary metric ("solve_rate")."""
    first = f"{pre}{metric}"
    if first in idx.by_id or metric not in ("heldout_accuracy", "heldout_correct"):
        return [first]
    return next(([f"{pre}{x}"] for x in ("heldout_accuracy", idx.primary) if f"{pre}{x}" in idx.by_id), [first])


def _arm_contrast_end(idx: SourceIndex, arm: str, r: Reading) -> list[str]:
    """The interval end of the one contrast of ``arm`` (as the arm, on the primary metric) that has an
    interval at ``r.level``, when the arm's mean has none at that level; [] when none or several do."""
    memo = idx.__dict__.setdefault("_arm_ends", {})
    key = (arm, r.level, r.role)
    if key not in memo:
        pre, tail = f"contrasts.{arm}-", f".ci{r.level}.{r.role}"
        hits = [k for k in idx.by_id if k.startswith(pre) and k.endswith(tail) and k.count(".") == 3]
        memo[key] = hits if len(hits) == 1 else []
    return memo[key]


def _test_p_leaves(idx: SourceIndex, pre: str) -> list[str]:
    """The p-value leaves of a contrast's tests, listed once per audit (not one scan of every source
    id per p-value written: README failure 10)."""
    memo = idx.__dict__.setdefault("_p_leaves", {})
    if pre not in memo:
        memo[pre] = [k[len(pre) + 1:] for k in idx.by_id if k.startswith(f"{pre}.tests.") and k.endswith(".p")]
    return memo[pre]


def _contrast_sources(idx: SourceIndex, r: Reading) -> list[Source]:
    a, b = r.pair
    flip = False
    pre = _contrast_prefix(idx, a, b, r.metric)
    if pre is None:
        pre, flip = _contrast_prefix(idx, b, a, r.metric), True
    if pre is None:
        return []
    role = r.role
    if role == "halfwidth":
        return _half_width(idx, f"{pre}.ci{r.level}")
    if role in ("low", "high"):
        end = ('high' if role == 'low' else 'low') if flip else role
        leaf = [f"{tag}.{end}" for tag in _interval_tags(idx, pre, r)]
    else:
        leaf = list(_CONTRAST_LEAF.get(role, ()))
    if role == "p" and _other_test(idx, pre, r.test):
        leaf = [f"tests.{r.test}.p"]   # "the paired bootstrap test says p ≈ 0.007": that test's p only
    elif role == "p" and not (r.test and f"{pre}.tests.{r.test}.p" in idx.by_id):
        leaf += _test_p_leaves(idx, pre)   # ("the paired t-test gives p = 0.25": the registered test's, no other's)
    srcs = [idx.by_id[f"{pre}.{x}"] for x in leaf if f"{pre}.{x}" in idx.by_id]
    if (flip != r.negate) and role in ("diff", "low", "high", "t_stat", "dz"):
        srcs = [dataclasses.replace(s, value=-s.value) for s in srcs]
    if role == "diff" and r.seed is not None:
        srcs += _seed_difference(idx, r)
    elif role == "diff" and r.metric and not pre.endswith(f".{r.metric}"):
        srcs = _metric_difference(idx, r, srcs) + srcs
    return srcs


def _interval_tags(idx: SourceIndex, pre: str, r: Reading) -> list[str]:
    """The intervals of contrast ``pre`` an interval end may be: ``ci<level>``, unless its sentence is about
    a t interval ("the t-based interval ... [0.049, 0.298]"): then the interval at that level whose analysis
    records the t method (``ci95_t``, or ``ci95`` where the plan's interval is t); none where the analysis
    holds no t interval (the number is then untraced, never an error against the bootstrap interval's
    ends: README failure 15)."""
    base = f"ci{r.level}"
    if "t" not in r.methods:
        return [base]
    return [k[len(pre) + 1:] for k, method in idx.interval_methods.items()
            if method == "t" and k.startswith(f"{pre}.{base}") and k[len(pre) + 1 + len(base):][:1] in ("", "_")]


def _metric_difference(idx: SourceIndex, r: Reading, contrast: list[Source]) -> list[Source]:
    """"ZVF falls by 0.195 under DAPO": a change of a metric the analysis has no contrast of is the two
    arms' means of it subtracted in the order written (the contrast, of another metric, stays a candidate:
    :func:`_by_reading` names the nearer of the two in an error). None when the contrast is of that
    metric already (its mean difference is the same)."""
    a, b = r.pair
    va, vb = ((idx.by_id.get(f"arms.{x}.{r.metric}.mean") or idx.by_id.get(f"arms.{x}.{r.metric}")) for x in (a, b))
    if va is None or vb is None:
        return []
    d = (va.value - vb.value) * (-1 if r.negate else 1)
    if any(math.isclose(abs(c.value), abs(d), rel_tol=1e-9, abs_tol=1e-12) for c in contrast):
        return []
    return [dataclasses.replace(va, id=f"{va.id} - {vb.id}", value=d, unit="difference", entity=("contrast", a, b))]


def _other_test(idx: SourceIndex, pre: str, test: str | None) -> bool:
    """Whether ``test`` is a test of the contrast ``pre`` other than the registered one (whose p is
    ``<pre>.p``, the value a p of that contrast is named by otherwise)."""
    src, main = idx.by_id.get(f"{pre}.tests.{test}.p") if test else None, idx.by_id.get(f"{pre}.p")
    return src is not None and (main is None or src.value != main.value)


def _half_width(idx: SourceIndex, pre: str) -> list[Source]:
    """Half the width of the interval ``pre`` (``<pre>.low``, ``<pre>.high``): what a "±" stated as the
    interval's half-width quotes ("65.3 ± 11.9" under "± is the half-width of the 95% t interval")."""
    lo, hi = idx.by_id.get(f"{pre}.low"), idx.by_id.get(f"{pre}.high")
    if lo is None or hi is None:
        return []
    return [dataclasses.replace(hi, id=f"({hi.id} - {lo.id}) / 2", value=(hi.value - lo.value) / 2,
                                tokens=hi.tokens - {"high"} | {"halfwidth"})]


def _seed_difference(idx: SourceIndex, r: Reading) -> list[Source]:
    """"Seed 5 is the only seed where the gap is below 2 points (1.00)": a difference in a sentence
    naming one seed may be that seed's, the two runs' values subtracted in the order written; it is
    offered after the contrast's mean difference, which stays the value an error names."""
    a, b = r.pair
    va, vb = (idx.by_id.get(f"runs.{x}.s{r.seed}.{r.metric}") for x in (a, b))
    if va is None or vb is None:
        return []
    d = (va.value - vb.value) * (-1 if r.negate else 1)
    return [dataclasses.replace(va, id=f"{va.id} - {vb.id}", value=d, unit="difference", entity=("contrast", a, b))]


def _by_value(idx, m, want, other) -> Traced:
    if m.comparator:
        hits = [s for s in idx.sources if (s.unit == "probability" or s.id.endswith(("p", "p_adjusted")))
                and _in(m, s, 1)]
        return Traced(m, "traced" if hits else "untraced", hits[:5])
    lo, hi = m.bounds
    if want == 100:
        hits = idx.matching(lo, hi, 100) + [s for s in idx.matching(lo, hi, 1) if s.unit == "percent"]
        if hits:
            return Traced(m, "traced", hits[:5])
        if m.percent:
            frac = idx.matching(lo, hi, 1)
            frac = [s for s in frac if s.percentable]
            if frac:
                return Traced(m, "error", frac[:1], _fmt(m, frac[0], 100),
                              f"a fraction written with a % sign (source {frac[0].id})")
        return Traced(m, "untraced", [])
    hits = [s for s in idx.matching(lo, hi, 1) if s.unit != "percent"]
    if m.decimals == 0 and not m.exponent:
        # "3" is not a rounding of a fraction 0.5 or 0.61: integers trace to whole-number sources
        hits = [s for s in hits if not s.percentable]
    if hits:
        return Traced(m, "traced", hits[:5])
    return Traced(m, "untraced", [])


def swapped_intervals(mentions: list[Mention]) -> list[tuple[Mention, Mention]]:
    """The intervals written high end first ("[0.641, 0.580]", "−0.01 – −0.03").

    Args:
        mentions: report numbers (interval ends carry ``role`` and ``interval``).

    Returns:
        ``(low end, high end)`` as written, for each interval whose first end exceeds its second.

    Example:
        >>> from audit.numbers import parse_markdown
        >>> ms = parse_markdown("r.md", "95% CI [0.641, 0.580] and [0.2, 0.4]", "r.md").mentions
        >>> [(lo.text, hi.text) for lo, hi in swapped_intervals(ms)]
        [('0.641', '0.580')]
    """
    ends: dict = {}
    for m in mentions:
        if m.interval is not None:
            ends.setdefault((m.file, m.interval), {})[m.role] = m
    out = []
    for pair in ends.values():
        lo, hi = pair.get("low"), pair.get("high")
        if lo is not None and hi is not None and lo.value > hi.value:
            out.append((lo, hi))
    return out


def traced_report(ctx) -> tuple[list[Traced], SourceIndex, list]:
    """Parse and trace the whole report once per audit (checks 10 and 11 share it).

    Args:
        ctx: the audit context (:class:`audit.context.AuditContext`: records, lock, report folder).

    Returns:
        ``(traced numbers, source index, parsed files)``, kept on ``ctx.report``
        (:class:`audit.context.TracedReport`, with the prose vocabulary) for the next caller.

    Example:
        >>> from audit.context import load_context  # doctest: +SKIP
        >>> results, idx, files = traced_report(load_context("report"))  # doctest: +SKIP
        >>> sorted({t.status for t in results})  # doctest: +SKIP
        ['error', 'label', 'traced']
    """
    if ctx.report is None:
        ctx.report = _trace_report(ctx)
    return ctx.report.results, ctx.report.index, ctx.report.files


def _trace_report(ctx) -> TracedReport:
    """Every number of every report file read in its context and traced to its source; a large
    report in parts, in worker processes (:mod:`audit.report_pool`), with its claims in words."""
    from audit import report_pool

    idx = build_index(ctx)
    files = parse_report(ctx.report_dir, ctx.rel, ctx.jobs)
    sessions.mark(files, idx.sessions)
    vocab = _vocabulary(ctx)
    jobs = report_pool.jobs_for(files, ctx.jobs)
    if jobs > 1:
        report = report_pool.traced_in_parts(ctx, idx, files, vocab, jobs)
        percent_tables(idx, report.results, vocab)
        repeated_pairs(idx, report.results, vocab)
        return report
    results = _trace_files(idx, files, vocab)
    percent_tables(idx, results, vocab)
    repeated_pairs(idx, results, vocab)
    return TracedReport(results=results, index=idx, files=files, vocab=vocab)


_PCT_MIXUP = "a percentage written where the unit is a fraction"


def percent_tables(idx: SourceIndex, results: list[Traced], vocab) -> None:
    """Re-trace in percent the cells of a table that states no unit and is written in percent
    throughout ("| 1 | 54.25 | 57.75 |" under "Seed | GRPO | Dr. GRPO", the page's other table headed
    "(%)"): two or more of its cells are a fraction's source × 100 and none is traced as a fraction.
    One cell written as a percent in a table of fractions stays a unit mix-up (README failure 10).

    Args:
        idx: the source index. results: every number traced, in order (changed in place).
        vocab: the study's names, or None.
    Returns:
        None.
    Example:
        >>> percent_tables(SourceIndex(["gspo"]), [], None)
    """
    tables: dict[tuple, list[int]] = {}
    for i, t in enumerate(results):
        m = t.mention
        if m.kind == "table" and m.status_hint == "value" and not m.in_code and not m.pin:
            tables.setdefault((m.file, m.header, m.table_caption, m.scope), []).append(i)
    memo = None
    for ids in tables.values():
        ts = [results[i] for i in ids]
        if sum(t.message.startswith(_PCT_MIXUP) for t in ts) < 2 or any(
                t.status == "traced" and t.sources and t.sources[0].percentable and _in(t.mention, t.sources[0], 1)
                for t in ts):
            continue
        memo = memo or TraceMemo(only=_only_contrast(idx))
        for i in ids:
            m = results[i].mention
            if not m.percent and not m.column_percent:
                m.column_percent = True
                results[i] = trace_in_context(idx, m, None, vocab, memo)


# Between the two values of a pair: "190/300 against 193/300", "0.633 vs 0.643", "(0.61 versus 0.64)".
_PAIR_BETWEEN = re.compile(r"\s*(?:/\s?\d[\d,]*)?\s*(?:%|pp\b|points?\b)?\s*(?:against|vs\.?|versus|compared\s+(?:to|with))\s*$",
                           re.I)


def repeated_pairs(idx: SourceIndex, results: list[Traced], vocab) -> None:
    """A pair of values of two arms written "a against b" where both are traced to one arm's value: the
    second is the other arm's, so it is an error naming that arm's value ("DAPO is ahead of GRPO on seed 3
    (193/300 against 193/300)": GRPO's count is 190). Each number of such a pair may be either arm's (the
    words need not say which is whose), so one value written twice would otherwise pass.

    Args:
        idx: the source index. results: every number traced, in order (changed in place).
        vocab: the study's names, or None.
    Returns:
        None.
    Example:
        >>> repeated_pairs(SourceIndex(["gspo"]), [], None)
    """
    if vocab is None:
        return
    for i in range(1, len(results)):
        a, b = results[i - 1], results[i]
        ma, mb = a.mention, b.mention
        if not (a.status == b.status == "traced" and a.decisive and b.decisive and ma.kind == mb.kind == "prose"
                and ma.line == mb.line and ma.file == mb.file and a.sources and b.sources
                and a.sources[0].id == b.sources[0].id):
            continue
        src = a.sources[0]
        at = ma.line_text.find(ma.text)
        end = ma.line_text.find(mb.text, at + len(ma.text)) if at >= 0 else -1
        if end < 0 or not _PAIR_BETWEEN.match(ma.line_text[at + len(ma.text):end]):
            continue
        other = [arm for _, arm in vocab.arms_in(mb.sentence or ma.line_text) if f".{arm}." not in f".{src.id}."]
        alt = next((idx.by_id[k] for k in (_with_arm(src.id, arm) for arm in dict.fromkeys(other)) if k in idx.by_id), None)
        if alt is None or alt.value == src.value:
            continue
        results[i] = trace_mention(idx, mb, [], Reading(arms=[_arm_of(alt.id)], seed=_seed_of(alt.id),
                                                        metric=_metric_of_id(alt.id), role="mean"))


def _with_arm(vid: str, arm: str) -> str:
    """``runs.A.s3.m`` / ``arms.A.m.mean`` with arm A replaced by ``arm``."""
    head, _, rest = vid.partition(".")
    return f"{head}.{arm}.{rest.split('.', 1)[1]}"


def _arm_of(vid: str) -> str:
    return vid.split(".")[1]


def _seed_of(vid: str) -> int | None:
    part = vid.split(".")[2] if vid.startswith("runs.") else ""
    return int(part[1:]) if part[:1] == "s" and part[1:].isdigit() else None


def _metric_of_id(vid: str) -> str:
    parts = vid.split(".")
    return parts[3] if vid.startswith("runs.") else parts[2]


@dataclass
class TraceMemo:
    """What tracing remembers from one number to the next (README failure 10): the entity a heading
    path names, read once per path; a table cell's decision, made once per distinct context
    (:func:`_cell_key`: its text, row, column and headings) and copied to each cell that repeats it;
    and the study's one contrast, if it has one."""

    only: tuple[str, str] | None = None
    scopes: dict = field(default_factory=dict)
    cells: dict = field(default_factory=dict)
    session_cells: dict = field(default_factory=dict)   # session -> the cells memo of numbers scoped to it
    readings: dict = field(default_factory=dict)   # a cell's reading by its context, value left out (prose.table_reading), per session


def _trace_files(idx: SourceIndex, files: list, vocab) -> list[Traced]:
    """Every number of every file traced, in order (:func:`trace_in_context`)."""
    results: list[Traced] = []
    memo = TraceMemo(only=_only_contrast(idx))
    for f in files:
        readings = read_file(f, vocab) if vocab is not None else {}
        results += [trace_in_context(idx, m, readings.get(id(m)), vocab, memo) for m in f.mentions]
    return results


def trace_in_context(idx: SourceIndex, m: Mention, reading: Reading | None, vocab, memo: TraceMemo) -> Traced:
    """One number traced with its headings' scope and its reading (:func:`trace_mention`), a table
    cell once per distinct context, and a value-only number quoting a warning made decisive
    (:func:`quoted_context`): the one step the serial and the pooled paths (audit.report_pool) share.

    Args:
        idx: the source index. m: the number. reading: what its words say (audit.prose), or None.
        vocab: the study's names, or None. memo: the :class:`TraceMemo` of this audit (or part of it).
    Returns:
        A :class:`Traced`.
    """
    arms = idx.names
    if m.scope not in memo.scopes:
        memo.scopes[m.scope] = (_scope_entity(m, arms), _heading_reads(m.scope, vocab))
    scope_ent, heading = memo.scopes[m.scope]
    src, cells, info = idx, memo.cells, idx.sessions
    if m.session is not None:   # the session its row, column, caption, sentence or heading names: its values
        sessions.unseed(reading, info)
        src, cells = sessions.view(idx, m.session), memo.session_cells.setdefault(m.session, {})
    readings = memo.readings.setdefault(m.session, {})
    if reading is None and m.kind == "table":
        t = sessions.traced_as_written(
            m, info, lambda: _trace_cell(src, m, arms, scope_ent, vocab, cells, heading, readings))
    else:
        if reading is not None and m.kind == "prose" and m.status_hint == "value":
            _scoped_reading(reading, scope_ent, vocab)
            only = memo.only
            if only and reading.pair is None and not reading.param and reading.role in _CONTRAST_ROLES:
                reading.pair, reading.arms = only, []   # "the MDE of this design is 0.0098": the one contrast
        t = trace_mention(src, m, arms, reading, scope_ent)
    t = quoted_context(src, t)
    return t if info is None else sessions.with_other_session(idx, t, m.session)


def _cell_key(m: Mention, scope_ent, heading: tuple) -> tuple:
    """Everything about a table cell's number that its reading and its decision depend on (the
    cell of its row that holds it, for "pp"; its line only where ``is_label`` reads it). Of its
    headings, only what tracing reads from them: the arm or run they scope it to and what the
    innermost says (:func:`_heading_reads`), so that the same table under "## Section 2: GSPO"
    and "## Section 3: GSPO" is decided once (README failure 10)."""
    cell = _first_cell_with(m.row_cells, m.text)
    return (m.text, m.value, m.decimals, m.exponent, m.percent, m.column_percent, m.comparator, m.role, m.row,
            m.column, m.table_caption, m.identity, m.macro, m.pin, m.status_hint, m.label_fact, m.scale, m.in_code, scope_ent,
            heading, cell, m.window, m.sentence, m.line_text if (m.row and m.text in m.row) else None,
            m.role in ("low", "high") and row_states_percent(m.row_cells))


def _heading_reads(scope: tuple[str, ...], vocab) -> tuple:
    """What a table cell's reading takes from its innermost heading (:func:`audit.prose.table_reading`):
    the first metric it names and whether it states percent; once per distinct heading path."""
    heading = scope[-1] if scope else ""
    if vocab is None or not heading:
        return (None, False)
    names = vocab.metrics_in(heading)
    return (names[0][1] if names else None, heading_percent(heading))


def _first_cell_with(cells: tuple, text: str) -> str:
    """The first of a row's cells that contains ``text`` (``""`` when none): for a short row, a scan;
    for a wide one, one ``str.find`` in the cells joined, remembered per row and text (a
    20,000-column row scanned cell by cell for each of its numbers was quadratic)."""
    if len(cells) <= 32:
        return next((c for c in cells if text in c), "")
    memo = _WIDE_ROWS.get(id(cells))
    if memo is None or memo[0] is not cells:
        if len(_WIDE_ROWS) > 64:
            _WIDE_ROWS.clear()
        joined = "\0".join(cells)
        starts = list(accumulate(len(c) + 1 for c in cells))   # starts[i] is where cell i + 1 begins
        memo = _WIDE_ROWS[id(cells)] = (cells, joined, starts, {})
    _, joined, starts, found = memo
    if text not in found:
        at = joined.find(text) if "\0" not in text else -1
        found[text] = cells[bisect.bisect_right(starts, at)] if at >= 0 else ""
    return found[text]


_WIDE_ROWS: dict[int, tuple] = {}


def _trace_cell(idx: SourceIndex, m: Mention, arms, scope_ent, vocab, memo: dict, heading: tuple,
                readings: dict | None = None) -> Traced:
    """A table cell's number read (:func:`audit.prose.table_reading`) and traced, or the decision of an
    earlier cell with the same :func:`_cell_key`, copied (the mention, and the unit its row gave it)."""
    key = _cell_key(m, scope_ent, heading)
    hit = memo.get(key)
    if hit is not None:
        t, column_percent = hit
        m.column_percent = column_percent
        return Traced(m, t.status, list(t.sources), t.expected, t.message, t.decisive, t.rule)
    reading = None
    if vocab is not None:
        ent, _ = _context(m, arms)
        reading = table_reading(m, _merge_scope(ent, scope_ent), vocab, readings)
    t = trace_mention(idx, m, arms, reading, scope_ent)
    if _CELL_MEMO_MAX:
        if len(memo) >= _CELL_MEMO_MAX:
            memo.clear()   # bounded: a table of all-distinct cells is decided cell by cell
        memo[key] = (t, m.column_percent)
    return t


_CELL_MEMO_MAX = 100_000   # distinct cell contexts kept (0: every cell decided afresh)


@per_line
def _squashed(line: str) -> str:
    """A line with its whitespace collapsed, once per line (a line may hold thousands of numbers)."""
    return " ".join(line.split())


def _only_contrast(idx: SourceIndex) -> tuple[str, str] | None:
    """The study's contrast when it has exactly one (arm, baseline), else None."""
    pairs = set()
    for vid in idx.by_id:
        if vid.startswith("contrasts.") and vid.endswith(".diff_mean") and vid.count(".") == 2:
            pairs.add(vid.split(".")[1])
    if len(pairs) != 1:
        return None
    a, _, b = next(iter(pairs)).partition("-")
    return (a, b) if a in idx.names and b in idx.names else None


def _scoped_reading(r: Reading, scope_ent, vocab) -> None:
    """A prose number whose own sentence names no arm belongs to the arm (or run) its heading names:
    a model card titled "Qwen3-8B GSPO LoRA" with "- **Accuracy:** 61.0%", "- seed 3: 60.0 %" or
    "Gain over GRPO: +3.04 points" (the heading's arm minus the one named)."""
    if scope_ent is not None and scope_ent[0] == "seed":
        scope_ent = ("run", scope_ent[2], scope_ent[1]) if scope_ent[2] else None
    if r.param or scope_ent is None or scope_ent[0] not in ("arm", "run"):
        return
    arm = scope_ent[1]
    if (r.contrast or r.role in _CONTRAST_ROLES) and r.pair is None and vocab is not None and arm != vocab.baseline:
        r.pair, r.arms = (arm, vocab.baseline), []
    elif r.pair is None and not r.arms and not r.contrast and r.role not in _CONTRAST_ROLES:
        r.arms = [arm]
        if scope_ent[0] == "run" and r.seed is None and r.role == "mean":
            r.seed = scope_ent[2]


def quoted_context(idx: SourceIndex, t: Traced) -> Traced:
    """A number traced by value alone, on a line that quotes one of the analysis' own warnings or
    deviations in full, is that warning's number: the quoted sentence is the decisive context
    (the renderer copies those texts, e.g. a coverage figure that also equals some arm's value).

    Args:
        idx: the source index (its ``quotes``: each warning's text).
        t: a traced number.

    Returns:
        ``t`` made decisive and narrowed to the warning's value when its line quotes the warning, else ``t``.

    Example:
        >>> from audit.numbers import parse_markdown
        >>> idx = SourceIndex([])
        >>> idx.quotes["analysis.warnings.0"] = "coverage was 0.93 at n=3"
        >>> idx.add("analysis.warnings.0.0", 0.93, "other")
        >>> (m,) = [m for m in parse_markdown("r.md", "- coverage was 0.93 at n=3", "r.md").mentions if m.text == "0.93"]
        >>> quoted_context(idx, trace_mention(idx, m, [])).decisive
        True
    """
    if t.status != "traced" or t.decisive or not t.sources:
        return t
    line = _squashed(t.mention.line_text)
    for s in t.sources:
        parts = s.id.split(".")
        if len(parts) == 4 and parts[0] == "analysis" and parts[1] in ("warnings", "deviations"):
            quote = idx.quotes.get(".".join(parts[:3]))
            if quote and quote in line:
                return Traced(t.mention, "traced", [s], t.expected, t.message, decisive=True)
    return t


def _vocabulary(ctx):
    view = ctx.lock_view   # a lock whose arms cannot be read names nothing
    return vocabulary(view) if view.arms and view.arm_decls else None


def _scope_entity(m: Mention, arms):
    """The arm or run the innermost heading naming one scopes ``m`` to; a heading naming only a seed
    ("Results (seed 2)") gives ("seed", seed, arm of an outer heading or None), made a run by the cell's arm.

    The headings are the parser's (``m.scope``: CommonMark headings, LaTeX sectioning commands), so
    a "#" inside a fence or an HTML block never scopes anything."""
    seed = None
    for text in reversed(m.scope):
        ent, _ = entity_from_text(text, arms)
        if ent is not None and ent[0] == "seed":   # "Results (seed 2)": the run of the arm a cell or outer heading names
            seed = ent[1] if seed is None else seed
            continue
        if ent is not None and ent[0] == "contrast":   # "GRPO LoRA on top of our SFT checkpoint": the first named
            ent = ("arm", ent[1])
        if ent is not None and ent[0] in ("arm", "run"):
            return ("seed", seed, ent[1]) if seed is not None and ent[0] == "arm" else ent
    return ("seed", seed, None) if seed is not None else None


def mentions_exploratory(text: str) -> bool:
    """Whether ``text`` labels what it says as exploratory ("post hoc", "not preregistered", ...).

    Args:
        text: a line, caption or heading.

    Returns:
        True when one of ``audit.numbers.EXPLORATORY_WORDS`` occurs in it (any case).

    Example:
        >>> mentions_exploratory("Post-hoc: GU by step"), mentions_exploratory("Results")
        (True, False)
    """
    t = text.lower()
    return any(w in t for w in EXPLORATORY_WORDS)
