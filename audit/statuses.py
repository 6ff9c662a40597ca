"""One status per report number, and the counts a summary shows (README failure 10).

The tracer (:mod:`audit.trace`) says what a number equals; this module says what the audit makes
of it, so that a drop in the count is visible and nothing is skipped silently:

- ``traced``: its context (pin, scope, row, column, sentence) names the source it equals;
- ``value-only``: it equals some source but nothing in its context says which: counted and shown;
  an error where the reader takes it for a checked result (:func:`setting`: in a *results table*
  or a *sentence with a statistic*), and everywhere with ``--strict``;
- ``label``: a number inside a label (header cell, row label, "n=500", "seed 1", "pass@16"):
  never a value (its checkable facts are checked as facts);
- ``error``: it contradicts the source its context names (or, with ``--strict``, is untraced);
- ``untraced``: it equals nothing (an error with ``--strict``);
- ``in code``: inside a code span or block; counted and shown, with ``--strict`` an untraced or
  wrong number in code is an error;
- ``comment`` and ``front matter``: not shown to a reader of the rendered page (HTML/LaTeX
  comments), or checked separately (YAML front matter: the model-index check); counted as skipped;
- ``citation``: inside a bibliography (a ``.bib`` or ``.bbl`` file in the report folder, a LaTeX
  ``thebibliography`` environment, a fenced ``bibtex`` block): a reference's year, volume and pages
  name the reference, never a result; counted as skipped, not even ``--strict`` traces them
  (README failure 10: the summary says why a number was skipped).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, fields

STATUSES = ("traced", "value-only", "label", "error", "untraced", "in code", "comment", "front matter", "citation")
SKIPPED = ("label", "in code", "comment", "front matter", "citation")   # not checked as values


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
        """Its fields by name, in order (``dataclasses.asdict`` deep-copies: about 18 us a row, 17 s for
        the rows and findings of a 5 MB table; every field here is a string: README failure 10)."""
        return {k: getattr(self, k) for k in _ROW_FIELDS}


_ROW_FIELDS = tuple(f.name for f in fields(NumberRow))


def _rule(t, status: str, where: str = "") -> str:
    """The rule that decided a number's status, in words a reviewer can read."""
    m = t.mention
    own = getattr(t, "rule", "")
    if own and status == "error" and t.status == "traced":
        return f"{own} (value-only is an error {f'in a {where}' if where else 'with --strict'})"
    if own:
        return own
    if status == "error" and t.status == "traced" and where:
        return f"value-only in a {where}: equal to a source by value alone, its context names none"
    if status == "label":
        fact = f" ({m.label_fact[0]} = {m.label_fact[1]:g})" if m.label_fact else ""
        return "label: header cell, row label or label phrase" + fact
    if status == "comment":
        return "inside an HTML/LaTeX comment: not shown to readers"
    if status == "front matter":
        return "YAML front matter: checked by the model-index check"
    if status == "citation":
        return "citation: a bibliography entry (.bib or .bbl file, thebibliography, bibtex block) names a reference"
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


def identifier(m) -> bool:
    """Whether a number in code is an identifier's digits, not a value: a whole number of 13 or more
    digits (a hash prefix that happens to be all decimal digits, "Lock `2283723856417975…`", a millisecond
    timestamp, a run id). No analysed value is written with that many digits, so under ``--strict`` it is
    counted "in code" rather than an untraced error (a hash prefix of 16 hex characters is all digits
    about once in 1,850 locks, which made a rendered report fail ``--strict`` at random).

    Example:
        >>> from audit.numbers import Mention
        >>> identifier(Mention("r.md", 4, "2283723856417975", 2283723856417975.0, 0, in_code=True))
        True
        >>> identifier(Mention("r.md", 4, "0.6125", 0.6125, 4, in_code=True))
        False
    """
    digits = sum(ch.isdigit() for ch in m.text)
    return m.decimals == 0 and digits >= 13 and not getattr(m, "exponent", None)


def classify(t, strict: bool = False, where: str = "") -> str:
    """The final status of one traced number (see the module docstring).

    Args:
        t: an :class:`audit.trace.Traced`.
        strict: ``--strict``: value-only, untraced and wrong-in-code numbers are errors.
        where: :func:`setting` of the number: a value-only number in a results table or a sentence
            with a statistic is an error (README failure 15), elsewhere it is only counted.
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
    if hint == "citation":
        return "citation"
    if m.in_code or hint == "code":
        return "error" if strict and t.status != "traced" and not identifier(m) else "in code"
    if t.status == "traced" and not t.decisive and not m.pin:
        if _quoted(t):
            return "traced"
        return "error" if strict or where else "value-only"
    if t.status == "untraced" and strict:
        return "error"
    return t.status if t.status in STATUSES else "untraced"


def number_row(t, status: str, where: str = "") -> NumberRow:
    """The traceability-table line of one number (``where``: its :func:`setting`)."""
    m = t.mention
    src = t.sources[0] if t.sources else None
    row = object.__new__(NumberRow)   # its fields set at once: the frozen __init__ sets them one by one through
    row.__dict__.update(               # object.__setattr__, half the cost of a row of a 5 MB table (README failure 10)
        location=f"{m.file}:{m.line}", text=m.text, status=status, rule=_rule(t, status, where),
        source=src.id if src else "", source_value=f"{src.value!r}" if src else "",
        expected=t.expected, kind=m.kind, row=m.row or "", column=m.column or "",
        context=_line_context(m.line_text or ""))
    return row


def per_line(fn):
    """``fn(line)`` computed once per line *object* (the one string every number on a line shares), not
    once per number on it (README failure 10: a line may hold 30,000 numbers). Keyed by identity, not by
    value: a cache keyed by value compares a new line with an equal one kept from an earlier audit in
    the same process character by character, on every look-up (a 1 MB line: ~50 us a number).
    Bounded: 1,024 lines kept (each kept line is held, so its id cannot be reused while it is).

    Args:
        fn: a function of one string.
    Returns:
        The memoised function.
    Example:
        >>> squash = per_line(lambda line: " ".join(line.split()))
        >>> squash("a  b"), squash("a  b")
        ('a b', 'a b')
    """
    memo: dict[int, tuple[str, object]] = {}

    @functools.wraps(fn)
    def once(line: str):
        hit = memo.get(id(line))
        if hit is not None and hit[0] is line:
            return hit[1]
        out = fn(line)
        if len(memo) >= 1024:
            memo.clear()
        memo[id(line)] = (line, out)
        return out
    return once


@per_line
def _line_context(line: str) -> str:
    """A number's line as the traceability table shows it: whitespace squashed, 200 characters (bounded: linear)."""
    return " ".join(line[:400].split())[:200]


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


# Where a value-only number is an error (README failure 15). One definition, used by check 10:
#
# - a *results table* is a table (Markdown, HTML or LaTeX) whose header cells or row labels name
#   an arm, a seed or a metric of the study, or that holds a number its context traced to a value
#   of the analysis or of a run record (a hyperparameter table whose numbers are all lock values is
#   not one);
# - a *sentence with a statistic* is a prose sentence that states a statistic with a number:
#   "p = 0.021", "p < 0.05", "95% CI [0.630, 0.635]", "(CI 2.64-3.44)", an interval "[a, b]",
#   "Δ = +0.005", "± 0.8", "t(7) = 2.9", "d = 0.41", "effect size 0.4", "SD 0.8". The word alone
#   ("percentile intervals", "effect sizes are reported below") is not a statistic.
#
# A reader takes every number there for a checked result, so one the audit can only match by
# value is an error there; elsewhere (a hyperparameter sentence, "2,000 resamples") it is counted.
# Two kinds of number stay counted even there, because what they lack is our reading, not the
# writer's context: a whole number written without decimals or % ("of 4", "the ±1-point margin",
# the 10 of "3.2 × 10^-4", "8 seeds": counts and parameters, not statistics), and a table cell
# whose column header could not be read (an empty column name).

RESULTS_TABLE = "results table"
STATISTIC_SENTENCE = "sentence with a statistic"

_NUM = r"[-−+]?(?:\d[\d,]*(?:\.\d+)?|\.\d+)"
_DEC = r"[-−+]?\d*\.\d+"   # an interval's ends have decimals: "(1, 2)" is a list of seeds, not an interval
_STATISTIC = re.compile(
    rf"\bp(?:[-_ ]?(?:adj(?:usted)?|values?))?\s*(?:=|<|>|≤|≥|<=|>=|\\le\b|\\leq\b|\\ge\b|\\geq\b|\\lt\b|of)\s*\$?\s*{_NUM}"
    rf"|\b(?:CIs?|confidence\s+intervals?|credible\s+intervals?|HDI)\b\W{{0,6}}(?:of\s+|from\s+)?{_NUM}"
    rf"|[\[(]\s*{_DEC}\s*%?\s*,\s*{_DEC}\s*%?\s*[\])]"
    rf"|Δ|\\Delta\b|±|\\pm\b|\+/-"
    rf"|\bt\s*(?:\(\s*\d+(?:\.\d+)?\s*\))?\s*=\s*{_NUM}"
    rf"|\b(?:Cohen'?s\s+)?d(?:_?z|_\{{z\}})?\s*=\s*{_NUM}"
    rf"|\beffect\s+sizes?\b\W{{0,4}}(?:of\s+|was\s+|is\s+)?(?:d_?z?\s*=\s*)?{_NUM}"
    rf"|\b(?:s\.?d\.?|std|standard\s+deviation|s\.?e\.?m?|standard\s+error)\b\W{{0,3}}(?:of\s+|was\s+|is\s+)?{_NUM}",
    re.I)


@functools.lru_cache(maxsize=4096)   # one search per sentence, not per number in it (README failure 10)
def statistic_in(sentence: str) -> str:
    """The statistic ``sentence`` states with a number (the text that says so), or ``""``.

    Args:
        sentence: one prose sentence.
    Returns:
        The matched words, e.g. ``"p = 0.021"``; ``""`` when the sentence states no statistic.
    Example:
        >>> statistic_in("GSPO against GRPO: paired t p = 0.021 (BH-adjusted 0.084).")
        'p = 0.021'
        >>> statistic_in("Intervals are percentile intervals over seeds with 2,000 resamples.")
        ''
    """
    m = _STATISTIC.search(sentence or "")
    return m.group(0) if m else ""


@dataclass(frozen=True)
class Settings:
    """The report's results tables, found once: ``of(t)`` gives each number's setting."""

    tables: frozenset

    def of(self, t) -> str:
        """:data:`RESULTS_TABLE`, :data:`STATISTIC_SENTENCE` or ``""`` for one traced number."""
        m = t.mention
        if not (m.decimals > 0 or m.exponent or m.percent):
            return ""      # a whole number: a count or a parameter, not a statistic
        if m.kind == "table":
            return RESULTS_TABLE if (m.column or "").strip() and _table_key(m) in self.tables else ""
        if m.kind == "prose" and statistic_in(m.sentence):
            return STATISTIC_SENTENCE
        return ""


def _table_key(m) -> tuple:
    header = m.header or ()   # audit.numbers.Cells: hashed once per table, not once per number
    return (m.file, header if isinstance(header, tuple) else tuple(header), m.table_caption or "")


def _outcome(t) -> bool:
    """Its context traced it (right or wrong) to a value of the analysis or a run record."""
    return bool(t.decisive and t.sources and t.sources[0].origin != "lock")


def _names_result(text: str, vocab) -> bool:
    from audit.words import seed_in

    if not text or not re.search(r"[A-Za-z]", text):
        return False
    if seed_in(text) is not None:
        return True
    return vocab is not None and bool(vocab.arms_in(text) or vocab.metrics_in(text))


def settings(results: list, vocab=None) -> Settings:
    """Find the results tables of a traced report (see the definition above); linear in numbers.

    Args:
        results: the :class:`audit.trace.Traced` numbers of the report.
        vocab: the study's :class:`audit.words.Vocabulary` (arm and metric names), or None.
    Returns:
        A :class:`Settings`.
    Example:
        >>> settings([]).tables
        frozenset()
    """
    tables: set = set()
    seen_header: set = set()
    seen_row: set = set()
    for t in results:
        m = t.mention
        if m.kind != "table":
            continue
        key = _table_key(m)
        if key in tables:
            continue
        if _outcome(t):
            tables.add(key)
            continue
        if key not in seen_header:
            seen_header.add(key)
            if _names_result(" | ".join(m.header or ()), vocab):
                tables.add(key)
                continue
        row = (key, m.identity or "", m.row or "")
        if row not in seen_row:
            seen_row.add(row)
            if _names_result(f"{m.identity or ''} {m.row or ''}", vocab):
                tables.add(key)
    return Settings(frozenset(tables))


def value_only_error(t, where: str) -> tuple[str, str]:
    """(expected, message) of a value-only number that is an error where it sits.

    Args:
        t: the :class:`audit.trace.Traced` number (traced by value alone).
        where: its setting, :data:`RESULTS_TABLE` or :data:`STATISTIC_SENTENCE`.
    Returns:
        What a reader needed, and the message a person would write.
    """
    m = t.mention
    matched = " or ".join(f"{s.id} = {s.value:.6g}" for s in t.sources[:3]) or "a source"
    if len(t.sources) > 3:
        matched += f" (and {len(t.sources) - 3} other values)"
    if where == RESULTS_TABLE:
        return ("a value its row and column name (arm or run, and metric), or a pinned id",
                f"row {m.row!r}, column {m.column!r}: {m.text} matches {matched} but nothing in its row or column "
                f"says which value it reports (a results table)")
    stat = statistic_in(m.sentence)
    return ("a value its sentence names (arm or contrast, and statistic), or a pinned id",
            f"{m.text} matches {matched} but nothing in its sentence says which value it reports (a sentence "
            f"with a statistic: {stat!r})")
