"""One status per report number, and the counts a summary shows (README failure 10).

The tracer (:mod:`audit.trace`) says what a number equals; this module says what the audit makes
of it, so that a drop in the count is visible and nothing is skipped silently:

- ``traced``: its context (pin, scope, row, column, sentence) names the source it equals;
- ``value-only``: it equals some source but nothing in its context says which (an error with
  ``--strict``);
- ``label``: a number inside a label (header cell, row label, "n=500", "seed 1", "pass@16"):
  never a value (its checkable facts are checked as facts);
- ``error``: it contradicts the source its context names (or, with ``--strict``, is untraced);
- ``untraced``: it equals nothing (an error with ``--strict``);
- ``in code``: inside a code span or block; counted and shown, with ``--strict`` an untraced or
  wrong number in code is an error;
- ``comment`` and ``front matter``: not shown to a reader of the rendered page (HTML/LaTeX
  comments), or checked separately (YAML front matter: the model-index check); counted as skipped.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

STATUSES = ("traced", "value-only", "label", "error", "untraced", "in code", "comment", "front matter")
SKIPPED = ("label", "in code", "comment", "front matter")   # not checked as values


@dataclass(frozen=True)
class NumberRow:
    """One line of the traceability table."""

    location: str
    text: str
    status: str
    rule: str
    source: str = ""        # the source id it was checked against (or matched)
    source_value: str = ""  # that source's value
    expected: str = ""
    kind: str = ""
    row: str = ""
    column: str = ""
    context: str = ""       # the line it sits on, shortened

    def as_dict(self) -> dict:
        return asdict(self)


def _rule(t, status: str) -> str:
    """The rule that decided a number's status, in words a reviewer can read."""
    m = t.mention
    own = getattr(t, "rule", "")
    if own:
        return own
    if status == "label":
        fact = f" ({m.label_fact[0]} = {m.label_fact[1]:g})" if m.label_fact else ""
        return "label: header cell, row label or label phrase" + fact
    if status == "comment":
        return "inside an HTML/LaTeX comment: not shown to readers"
    if status == "front matter":
        return "YAML front matter: checked by the model-index check"
    if t.status == "error":
        return t.message or "contradicts its source"
    if t.status == "traced" and m.pin:
        return "pinned id"
    if t.status == "traced" and _quoted(t):
        return "quoted from analysis.json's own warnings or deviations"
    if t.status == "traced" and t.decisive:
        return "context names the source (scope, row, column or sentence)"
    if t.status == "traced":
        return "equal to a source by value alone; nothing in its context says which"
    return "equals no source"


_QUOTED = ("analysis.warnings.", "analysis.deviations.")


def _quoted(t) -> bool:
    """Every source it equals is a number quoted inside analysis.json's own warnings or deviations
    (the renderer copies that text): the sentence is the analysis' own, so it says which."""
    return bool(t.sources) and all(s.id.startswith(_QUOTED) for s in t.sources)


def classify(t, strict: bool = False) -> str:
    """The final status of one traced number (see the module docstring).

    Args:
        t: an :class:`audit.trace.Traced`.
        strict: ``--strict``: value-only, untraced and wrong-in-code numbers are errors.
    Returns:
        One of :data:`STATUSES`.
    Example:
        >>> from audit.trace import Traced
        >>> from audit.numbers import Mention
        >>> classify(Traced(Mention("r.md", 1, "1", 1.0, 0, in_code=True, status_hint="code"), "untraced"))
        'in code'
    """
    m = t.mention
    hint = getattr(m, "status_hint", "value")
    if hint == "comment":
        return "comment"
    if hint == "front_matter":
        return "front matter"
    if m.in_code or hint == "code":
        return "error" if strict and t.status != "traced" else "in code"
    if t.status == "traced" and not t.decisive and not m.pin:
        if _quoted(t):
            return "traced"
        return "error" if strict else "value-only"
    if t.status == "untraced" and strict:
        return "error"
    return t.status if t.status in STATUSES else "untraced"


def number_row(t, status: str) -> NumberRow:
    """The traceability-table line of one number."""
    m = t.mention
    src = t.sources[0] if t.sources else None
    return NumberRow(location=m.where, text=m.text, status=status, rule=_rule(t, status),
                     source=src.id if src else "", source_value=f"{src.value!r}" if src else "",
                     expected=t.expected, kind=m.kind, row=m.row or "", column=m.column or "",
                     context=" ".join((m.line_text or "")[:400].split())[:200])   # bounded: linear


def counts(rows: list[NumberRow]) -> dict[str, int]:
    """{"seen": n, status: n for every status} (zeros included, so a drop is visible)."""
    out = {"seen": len(rows)}
    for s in STATUSES:
        out[s] = 0
    for r in rows:
        out[r.status] = out.get(r.status, 0) + 1
    return out


def summary_line(c: dict[str, int]) -> str:
    """``numbers: 420 seen: 362 traced, 0 value-only, 2 error, 0 untraced; skipped 56 (40 label, 13 in code, ...)``."""
    if not c:
        return "numbers: none seen"
    main = ", ".join(f"{c.get(s, 0)} {s}" for s in STATUSES if s not in SKIPPED)
    skipped = sum(c.get(s, 0) for s in SKIPPED)
    why = ", ".join(f"{c.get(s, 0)} {s}" for s in SKIPPED if c.get(s, 0))
    return f"numbers: {c.get('seen', 0)} seen: {main}; skipped {skipped}" + (f" ({why})" if why else "")
