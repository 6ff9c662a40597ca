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

from dataclasses import dataclass, field

from audit.numbers import EXPLORATORY_WORDS, Mention, parse_report
from audit.sources import Source, SourceIndex, build_index, entity_from_text

_ROLE_TOKENS = {"low": {"low", "ci"}, "high": {"high", "ci"}, "pm": {"sd"}}


@dataclass
class Traced:
    mention: Mention
    status: str                       # traced | untraced | error
    sources: list[Source] = field(default_factory=list)   # what it was checked against / matched
    expected: str = ""
    message: str = ""
    decisive: bool = False


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
    if m.exponent:
        return f"{v:.{m.decimals}e}"
    return f"{v:.{m.decimals}f}{'%' if scale == 100 else ''}"


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
    for s in pool:
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


def trace_mention(idx: SourceIndex, m: Mention, arms: list[str]) -> Traced:
    want, other = _scales(m)
    if m.pin:
        pinned = [idx.by_id[m.pin]] if m.pin in idx.by_id else []
        if not pinned and m.role in ("low", "high"):
            for suffix in ((".low", ".lower", ".lo") if m.role == "low" else (".high", ".upper", ".hi")):
                if m.pin + suffix in idx.by_id:
                    pinned = [idx.by_id[m.pin + suffix]]
                    break
        if not pinned:
            return Traced(m, "error", [], f"a value with id {m.pin}", "pinned id names no value of the analysis, "
                          "a manifest or the lock", True)
        return _decide(idx, m, pinned, want, other)
    ent, toks = _context(m, arms)
    if toks:
        cands = _candidates(idx, ent, toks, m)
        if cands:
            return _decide(idx, m, cands, want, other)
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


def _decide(idx, m, cands, want, other) -> Traced:
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
    if want == 1 and any(s.percentable and _in(m, s, 100) for s in cands):
        s = next(s for s in cands if s.percentable and _in(m, s, 100))
        return Traced(m, "error", [s], _fmt(m, s, 1), f"a percentage written where the unit is a fraction "
                      f"(source {s.id}; add %, or write the fraction)", True)
    mix = _mixup(m, cands)
    if mix is not None:
        return mix
    s = (usable or cands)[0]
    scale = 1 if s.unit == "percent" else (want if (want == 1 or s.percentable) else 1)
    others = [o for o in idx.matching(*m.bounds, scale=1) if o not in cands][:1]
    hint = f"; the number equals {others[0].id} instead" if others else ""
    if m.comparator:
        exp = f"{s.id} = {s.value * scale!r} satisfying {m.comparator} {abs(m.value)}"
    else:
        exp = f"{_fmt(m, s, scale)} ({s.id} = {s.value!r})"
    return Traced(m, "error", [s], exp, f"number does not equal its source rounded to the digits shown{hint}", True)


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
    """Parse and trace the whole report once per audit (checks 10 and 11 share it)."""
    if "trace" not in ctx._cache:
        idx = build_index(ctx)
        files = parse_report(ctx.report_dir, ctx.rel)
        arms = idx.arms
        results = [trace_mention(idx, m, arms) for f in files for m in f.mentions]
        ctx._cache["trace"] = (results, idx, files)
    return ctx._cache["trace"]


def mentions_exploratory(text: str) -> bool:
    t = text.lower()
    return any(w in t for w in EXPLORATORY_WORDS)
