"""Every number written in a report (Markdown and LaTeX), with the context that says what it is.

A number is kept with its literal spelling (the digits shown set the rounding interval it
stands for), its unit cues (a ``%`` sign, a percent column), its role (low/high end of an
interval, a ``±`` spread), its table context (row label, column header, every header and row
cell), the headings above it, its sentence, a LaTeX macro name, an explicit pin
(``<!-- id: X -->`` or ``% id: X``) when the author gave one, and a status hint: a number in a
label (a header cell, a row label, "n=500", "seed 1", "pass@16", "(0-4)") is a label and never a
value; numbers in code, HTML/LaTeX comments and YAML front matter are counted but are not prose.

Documents are parsed by :mod:`audit.markdown_doc` (CommonMark, markdown-it-py) and
:mod:`audit.latex_doc` (a small documented LaTeX grammar); this module turns their pieces into
:class:`Mention` objects. Everything is linear in the input (README failure 10: no report shape
may hide numbers, nor take minutes to read).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import MISSING, dataclass, field, fields
from pathlib import Path

from audit.doc import Doc, Piece, Table, TableRows
from prereg.errors import UserError

# The lookahead names the characters a number can start with, so that the scan skips the letters of a
# sentence at the cost of one set test each (README failure 10); the groups are all named, in this order
# (``m.groups()`` reads them in one call): sign, body, exp, pow, sup, tpow, tsup, mult, pct.
_NUM = re.compile(
    r"(?=[-−–+.\d])(?P<sign>[-−–+])?(?P<body>0,\d{4,}(?![\d,])|\d{1,3}(?:,\d{3})+(?![\d])(?:\.\d+)?|\d+,\d{1,2}(?=\s?%)|\d+(?:\.\d+|·\d+(?![\d⁰¹²³⁴⁵⁶⁷⁸⁹⁻^]))?|\.\d+)"
    r"(?:(?P<exp>[eE][-+−]?\d+)|\s{0,3}(?:×|x|·|⋅|\\times|\\cdot)\s{0,3}10\s?(?:\^\s?\{?\s?(?P<pow>[-−+]?\s?\d+)(?:\s?\})?"
    r"|(?P<sup>[⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+))"
    r"|(?<=(?<![\d.,])10)(?:\^\s?\{?\s?(?P<tpow>[-−]\s?\d+)(?:\s?\})?|(?P<tsup>⁻[⁰¹²³⁴⁵⁶⁷⁸⁹]+)))?"
    r"(?:(?P<mult>\s?k|K|M)(?![\w-]))?(?P<pct>\s?\\?%)?"
)
# "1.5 × 10⁻⁴", "3.2\times10^{-4}", "2 x 10^-3", "1.5·10⁻⁴": scientific notation written out, the same as
# "1.5e-4" (the mantissa's digits set the interval: 1.45e-4 to 1.55e-4). A bare negative power of ten
# ("p < 10^-4", "10⁻⁴", "10^{-4}") is 1e-4, half a unit of its exponent either side; "2^10" is not read.
_SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")
# "1.3k", "12k", "2.5 k", "1.2M": a count shown rounded in thousands or millions. The suffix is a
# power of ten on the mantissa, like "1.3e3": the digits shown set the interval, so "1.3k" stands
# for [1,250, 1,350] (half a unit of its last digit, 0.05 thousand) and "12k" for [11,500, 12,500].
# "B" (billions) is not read: "7B" names a model size far more often than it reports a count.
_MULT = {"k": 3, "K": 3, "M": 6}
_CMP = re.compile(r"(<=|>=|≤|≥|<|>|\\leq?|\\geq?|\\lt|\\gt)\s*\$?\s*$")
_PM = re.compile(r"(?:±|\+/-|\\pm)\s*\$?\s*$")
# Words that name the scale of a number: a count (of items, of the 4 groups of a board) or a
# fraction. A header "(fraction)" or "share" wins over "groups" in "share of groups".
_FRACTION_WORDS = re.compile(r"\bfractions?\b|\bproportions?\b|\bshare\b|\b0\s*[–-]\s*1\b", re.I)
_COUNT_WORDS = re.compile(r"\(\s*(?:counts?|n|number|items|seeds|runs|groups)\s*\)|\bcounts?\b|\bgroups?\b"
                          r"|\bof\s+4\b|/\s*4\b|\b0\s*[–-]\s*4\b|\bnumber of\b|\bhow many\b", re.I)
# After a prose number: "2.75 groups", "2.75 of 4", "32 of 50 items", "32 items correct", "3 (count)".
_COUNT_AFTER = re.compile(r"\s*(?:\(\s*count\s*\)|groups?\b|(?:out\s+)?of\s+4\b|/\s*4\b"
                          r"|(?:out\s+)?of\s+\d[\d,]*\s+(?:held[- ]out\s+)?(?:items|groups|boards)\b"
                          r"|(?:held[- ]out\s+)?items?\s+correct\b|correct\s+(?:items|groups|answers)\b)", re.I)


def scale_word(text: str) -> str | None:
    """"fraction" or "count" when a header or unit phrase names the scale of its numbers.

    Args:
        text: a column header, row label or the words after a number.

    Returns:
        "fraction", "count" or None ("share of groups" is a fraction: the fraction words win).

    Example:
        >>> scale_word("Groups correct (0-4)"), scale_word("share of groups"), scale_word("Accuracy")
        ('count', 'fraction', None)
    """
    if _FRACTION_WORDS.search(text):
        return "fraction"
    if _COUNT_WORDS.search(text):
        return "count"
    return None


EXPLORATORY_WORDS = ("exploratory", "post hoc", "post-hoc", "not preregistered", "unregistered", "not registered")


@dataclass(slots=True)
class Mention:
    """One number as written in a report, with everything around it that says what it is.

    ``value`` is in the units written and ``decimals``/``exponent`` set the rounding interval it
    stands for (``bounds``); the rest is context for :mod:`audit.trace`: table row and column,
    headings (``scope``), sentence, macro, pin, interval role and a status hint.

    Example:
        >>> (m,) = parse_markdown("r.md", "# gspo\\n\\nAccuracy was 61.3%.", "r.md").mentions
        >>> m.value, m.percent, m.decimals, m.scope, m.line
        (61.3, True, 1, ('gspo',), 3)
        >>> [round(b, 6) for b in m.bounds]   # what "61.3" stands for: half a unit of its last digit either side
        [61.25, 61.35]
    """

    file: str
    line: int
    text: str                   # the literal as written
    value: float                # in the units written (a "61.3%" is 61.3)
    decimals: int               # digits after the point in the mantissa
    exponent: int = 0
    percent: bool = False       # a % sign on the number itself
    column_percent: bool = False
    comparator: str | None = None
    role: str | None = None     # low | high | pm
    interval: int | None = None  # id shared by the two ends of one interval
    kind: str = "prose"         # prose | table | macro | heading
    row: str | None = None
    column: str | None = None
    identity: str = ""          # text of the identity cells of the row (arm, seed, comparison)
    macro: str | None = None
    pin: str | None = None
    line_text: str = ""
    section: str = ""
    table_caption: str = ""
    window: str = ""            # the words around the number, numbers blanked (prose context)
    scale: str | None = None    # count | fraction: what the column header or the words after it say
    # Context for the tracer (agreed interface with audit/trace.py):
    scope: tuple[str, ...] = ()         # texts of the enclosing headings, outermost (document title) first
    status_hint: str = "value"          # value | label | code | front_matter | comment
    label_fact: tuple[str, float] | None = None   # ("n", 500) for "n=500", ("seed", 1), ("pass@k", 16)
    header: tuple[str, ...] = ()        # every header cell of the table the number sits in
    row_cells: tuple[str, ...] = ()     # every cell of its row (transposed tables: seeds/arms as columns)
    sentence: str = ""                  # the whole sentence of a prose number
    in_code: bool = False               # inside a code span or a code block
    session: str | None = None          # the evaluation session its context names (audit.sessions.mark)

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"

    @property
    def half_width(self) -> float:
        return 0.5 * 10.0 ** (self.exponent - self.decimals)

    @property
    def bounds(self) -> tuple[float, float]:
        h = self.half_width
        slack = 1e-9 * h
        return self.value - h - slack, self.value + h + slack

    @classmethod
    def _of(cls, values: dict) -> Mention:
        """A mention from a dict of its fields. Slots, not a ``__dict__``: a mention of 30 fields took
        ~900 bytes with one, ~280 without; a 5 MB table's 466,366 mentions took ~290 MB less (README
        failure 10: memory that was allocated, copied into the forked workers and freed again). Its
        values are passed in order where the dict holds every field and no other key (it is made from
        ``_MENTION_FIELDS``, which lists them in order), by name otherwise."""
        return cls(*values.values()) if len(values) == _NFIELDS else cls(**values)


# Every field of a Mention with its default (None for the five without one), in declaration order.
_MENTION_FIELDS = {f.name: None if f.default is MISSING else f.default for f in fields(Mention)}
_NFIELDS = len(_MENTION_FIELDS)


@dataclass
class ParsedFile:
    """Every number of one report file, its lines, its front matter and its headings.

    Example:
        >>> f = parse_markdown("r.md", "# GRPO seed 1\\n\\nacc 0.61", "r.md")
        >>> [m.text for m in f.mentions], f.heading_scopes
        (['1', '0.61'], [(1, ('GRPO seed 1',))])
    """

    path: str
    mentions: list[Mention] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    front_matter: str = ""      # the YAML front matter of a Markdown file (model-index values), without fences
    # (line, scope) of each heading, in order: the headings a line sits under, numbers or not
    # (audit.claims scopes a verdict bullet under an arm's heading to that arm).
    heading_scopes: list[tuple[int, tuple[str, ...]]] = field(default_factory=list)
    # (line, message) of each part of the file its reader could not read (a reStructuredText block
    # docutils dropped): check 10 reports each, so no number is hidden by breaking the markup.
    problems: list[tuple[int, str]] = field(default_factory=list)


def _parse_literal(m: re.Match) -> tuple[float, int, int, bool] | None:
    return _literal(m.groups())


def _literal(g: tuple) -> tuple[float, int, int, bool] | None:
    """(value, decimals, exponent, percent) of a number from its ``_NUM`` groups (None: not a number)."""
    sign, body, exp, pw, sup, tpow, tsup, mult, pct = g
    if "," in body:   # a thousands separator, or a decimal comma: before a percent sign ("64,11 %": _NUM), or
        # after a lone zero with four or more digits ("0,6411": no thousands group starts "0," or has four digits)
        lone_zero = body.startswith("0,") and body.count(",") == 1 and len(body) > 5
        body = body.replace(",", "." if len(body) - body.rfind(",") <= 3 or lone_zero else "")
    if "·" in body:
        body = body.replace("·", ".")   # "0·658": a middle dot as the decimal point (not "1.5·10⁻⁴")
    e = 0
    if exp is not None or pw is not None or sup is not None or tpow is not None or tsup is not None \
            or mult is not None:
        if exp:
            e = int(exp[1:].replace("−", "-"))
        if pw or sup:
            e = int((pw or sup.translate(_SUPERSCRIPT)).replace("−", "-").replace(" ", ""))
        if tpow or tsup:   # a bare power of ten: 10 to that power, no mantissa
            e = int((tpow or tsup.translate(_SUPERSCRIPT)).replace("−", "-").replace(" ", ""))
            body = "1"
        if mult:
            e += _MULT[mult.strip()]
    dot = body.find(".")
    try:
        v = float(body) * (10.0 ** e if e else 1.0)
    except (ValueError, OverflowError):
        return None   # past a double's range ("1e400"): no record holds it (it stopped the audit with a traceback)
    return (-v if sign in _MINUS else v), (len(body) - dot - 1 if dot >= 0 else 0), e, pct is not None


_MINUS = ("-", "−", "–")


def _boundary_ok(text: str, m: re.Match, g: tuple | None = None) -> bool:
    if g is None:
        g = m.groups()
    sign, body, pct = g[0], g[1], g[8]
    start = m.start()
    prev = text[start - 1] if start > 0 else " "
    if prev == "@" and start > 1 and text[start - 2].isalpha():
        return True   # "pass@16", "maj@8": a label, kept so that it is counted as one
    if prev.isalnum() or prev in "_.#/\\@^":
        return False
    if sign == "-" or sign == "–":
        pass
    elif prev in "-–" and start > 1 and text[start - 2].isalnum():
        return False  # "arm-2", "2026-01": part of a word or a date
    if pct:
        return True
    end = m.end()
    nxt = text[end] if end < len(text) else " "
    if nxt.isalpha() or nxt == "_":
        return _GLUED_UNIT.match(text, end) is not None   # "sd 0.24pp", "~1.2pts": points glued to the number
    if nxt == "/" and _OF_N.match(text, end) and not sign and "." not in body:
        return True   # "28/50": a count k of n (the n after the slash is not read; a date 2026/01/01 is no count)
    if nxt in ".-:/–" and (text[end + 1] if end + 1 < len(text) else " ").isdigit():
        return False
    return True


_GLUED_UNIT = re.compile(r"(?:pp|pts?)(?![A-Za-z0-9_])")
_OF_N = re.compile(r"/\s?\d+(?![\d/,-]|\.\d)")   # "193/300." ends a sentence: its "." is no decimal point


# An interval written with a dash between its ends: "60.4–61.7%", "(95% CI 2.64–3.44)", "−0.03–0.01",
# "-0.03 – -0.01", "0.03-0.05". Both ends are decimals (so "0–4", "seeds 1-3", "GSM8K-500" and "2026–2027"
# stay labels, words or years) and the dash separates the ends: it is no minus sign. Each end keeps its own
# sign: a minus written before the low end, or before the high end after the dash ("– -0.01"), is a minus.
_DASH_RANGE = re.compile(r"(?=[-−+\d])(?<![\w.])[-−+]?(?P<a>\d+\.\d+)\s?\\?%?\s?(?P<dash>[–—-])\s?(?P<bs>[-−])?"
                         r"(?P<b>\d+\.\d+)(?![\d])")
# An interval written in words: "95% CI from −0.03 to −0.01", "the credible interval runs from 0.2 to 0.4",
# "(95% CI 0.0144 to 0.0244)". Only after an interval word: "accuracy rose from 0.5 to 0.7" is two values.
_FROM_TO = re.compile(r"(?=[cih])\b(?:CI|intervals?|credible|HDI)\b[^.;:\d]{0,40}?(?:\bfrom\s+|(?<=CI)\s+)"
                      r"(?P<a>[-−+]?\d+\.\d+)\s?\\?%?"
                      r"\s+to\s+(?P<b>[-−+]?\d+\.\d+)(?![\d])", re.I)


def dash_ranges(text: str) -> list[re.Match]:
    """The dash intervals of ``text`` (both ends decimals; see ``_DASH_RANGE``).

    Args:
        text: a sentence, cell or heading.

    Returns:
        One match per interval: groups ``a`` and ``b`` are the ends' digits, ``bs`` the high end's own
        minus sign (None when the dash is the only thing between the ends).

    Example:
        >>> [(r.group("a"), r.group("bs"), r.group("b")) for r in dash_ranges("CI -0.03 – -0.01, 0.2-0.4")]
        [('0.03', '-', '0.01'), ('0.2', None, '0.4')]
    """
    if not ("-" in text or "–" in text or "—" in text):
        return []
    return [r for r in _DASH_RANGE.finditer(text)
            if r.group("dash") != "-" or not text[r.end():r.end() + 1].isalpha()]   # "1.5-2.0x" is no interval


# A piece that is nothing but "A to B" (a table cell "| 0.543 to 0.627 |"): an interval without an interval word.
_BARE_TO = re.compile(r"[\s*_]*(?P<a>[-−+]?\d+\.\d+)\s?\\?%?\s+to\s+(?P<b>[-−+]?\d+\.\d+)\s?\\?%?[\s*_]*")


def worded_ranges(text: str) -> list[re.Match]:
    """The "CI from A to B" intervals of ``text`` (see ``_FROM_TO``), or the whole of a piece that is only
    "A to B" (a table cell).

    Args:
        text: a sentence, cell or heading.

    Returns:
        One match per interval; groups ``a`` and ``b`` hold each end with its own sign.

    Example:
        >>> [(r.group("a"), r.group("b")) for r in worded_ranges("95% CI from −0.03 to −0.01; rose from 0.5 to 0.7")]
        [('−0.03', '−0.01')]
        >>> [(r.group("a"), r.group("b")) for r in worded_ranges(" 0.543 to 0.627 ")], worded_ranges("rose 0.5 to 0.7")
        ([('0.543', '0.627')], [])
    """
    if "from" not in text and " to " not in text:
        return []
    got = list(_FROM_TO.finditer(text))
    if not got and " to " in text:   # a cell (or line) that is only "0.543 to 0.627": an interval by itself
        whole = _BARE_TO.fullmatch(text)
        got = [whole] if whole is not None else []
    return got


def numbers_in(text: str) -> list[tuple[re.Match, float, int, int, bool]]:
    """Every number of ``text`` with its value, digits after the point, exponent and % sign.

    Args:
        text: a sentence, cell or heading.

    Returns:
        ``(match, value, decimals, exponent, percent)`` per number, in order; a dash between the ends
        of an interval is no minus sign, a minus before either end is.

    Example:
        >>> [v for _m, v, *_ in numbers_in("CI −0.03–0.01 and 0.2-0.4; -0.03 – -0.01")]
        [-0.03, 0.01, 0.2, 0.4, -0.03, -0.01]
    """
    return _numbers(text)[0]


def _numbers(text: str) -> tuple[list, list[re.Match]]:
    """:func:`numbers_in` and the dash intervals it found on the way (read once per piece)."""
    out = []
    ranges = dash_ranges(text)
    if ranges:
        highs = {r.start("b") for r in ranges}
        signed_highs = {r.start("b") for r in ranges if r.group("bs")}
        either = {r.start("a") for r in ranges} | highs   # once: per number, 20,000 interval ends took seconds
    else:
        highs = signed_highs = either = _NONE
    for m in _NUM.finditer(text):
        g = m.groups()
        body_at = m.start(2)
        if g[0] is not None and body_at in highs and body_at not in signed_highs and text[body_at - 1] in "-–—":
            m = _NUM.match(text, body_at)   # "61.7" of "60.4–61.7": the dash is no sign
            g = m.groups()
        if not (body_at in either or _boundary_ok(text, m, g)):
            continue
        lit = _literal(g)
        if lit is None:
            continue
        out.append((m, *lit))
    return out, ranges


_NONE: frozenset = frozenset()


# ---- labels: numbers that name a thing rather than report a value --------------------------------
# Each pattern marks the numbers of its "v" groups as labels and, when it has a fact name, records
# (name, value) so the tracer can check it (n=500 against the locked held-out n, a seed list
# against the locked seeds). Every pattern is bounded, so scanning stays linear.
# Each starts with a lookahead on the first letters it can match (case folded by the pattern's own flags,
# so it matches exactly where the pattern may): the scan then skips other letters at one set test each
# (README failure 10).
_LABELS: tuple[tuple[re.Pattern, str | None], ...] = (
    (re.compile(r"(?=n)\bn\s*=\s*(?P<v>\d{1,3}(?:,\d{3})+|\d+)(?!\.?\d)", re.I), "n"),
    # "seed 1", "seeds 11, 23, 37" name runs; an "RNG seed" or "random seed" is a value of the plan
    (re.compile(r"(?=s)(?<!rng )(?<!random )(?<!bootstrap )\bseeds?\s*(?:each\s*)?[#:=]?\s*\(?\s*"
                r"(?P<list>\d+(?!\.?\d|%)(?![\d,]*\s+(?:bootstrap\s+)?(?:resamples|samples|draws|replicates)\b)"
                r"(?:\s*,\s*\d+(?!\.?\d|%)){0,99})", re.I), "seed"),
    (re.compile(r"(?=[pmabc])\b(?P<w>pass|maj|avg|mean|best|cons)\s*@\s*(?P<v>\d+)", re.I), "@k"),
    (re.compile(r"(?=l)\blast\s+(?P<v>\d+)\s+(?:training\s+)?(?:steps?|epochs?|iterations?|updates?|evals?|evaluations?)\b",
                re.I), "last_steps"),
    (re.compile(r"\(\s*(?P<lo>\d+)\s*[-–—]\s*(?P<v>\d+)\s*\)"), "range"),
    (re.compile(r"(?=[lr])\b(?:lora\s+)?rank\s*[=:]?\s*(?P<v>\d+)(?!\.?\d)", re.I), "rank"),
    (re.compile(r"(?<!\d)(?P<v>\d+(?:\.\d+)?)\s*%\s*(?:[\w-]+\s+){0,2}?(?P<w>CI|confidence|credible|HDI|power|intervals?)\b",
                re.I), "%"),
    (re.compile(r"(?=C)\bCI\s*(?P<v>\d+)\b(?![.,]\d)"), "ci_level"),
    (re.compile(r"(?=t)\btop[-\s]?(?P<v>\d+)\b", re.I), "top"),
    (re.compile(r"(?=k)\bk\s*=\s*(?P<v>\d+)(?!\.?\d)"), "k"),
    (re.compile(r"(?=[aseic])\b(?:at\s+)?(?P<w>step|epoch|iteration|checkpoint)\s+(?P<v>\d+)(?!\.?\d)", re.I), "@w"),
    (re.compile(r"(?=[tfs§eahv])\b(?:table|tab\.|figure|fig\.|section|sec\.|§|eq\.|equation|appendix|hypothesis|"
                r"version)\s*(?P<v>\d+(?:\.\d+)*)\b", re.I), None),
)


# What each pattern of _LABELS cannot match without (lower case, in an ASCII text).
_LABEL_CUES: tuple[tuple[str, ...], ...] = (
    ("=",), ("seed",), ("@",), ("last",), ("(",), ("rank",), ("%",), ("ci",), ("top",), ("=",),
    ("step", "epoch", "iteration", "checkpoint"),
    ("table", "tab.", "fig", "section", "sec.", "§", "eq.", "equation", "appendix", "hypothesis", "version"),
)
_LABEL_CUE = re.compile(r"[=@(%§]|seed|last|rank|CI|top|step|epoch|iteration|checkpoint|table|tab\.|fig|section|"
                        r"sec\.|eq\.|equation|appendix|hypothesis|version", re.I)


def label_spans(text: str) -> dict[int, tuple[str, float] | None]:
    """{start of a label number: its fact or None} for every label phrase in ``text``.

    Args:
        text: a cell, heading or sentence.
    Returns:
        Number start positions mapped to (fact name, value) or None when the label states no fact.
    Example:
        >>> sorted(label_spans("accuracy (n=500, test split), pass@16").items())
        [(12, ('n', 500.0)), (35, ('pass@k', 16.0))]
    """
    out: dict[int, tuple[str, float] | None] = {}
    if not _LABEL_CUE.search(text):   # one scan decides whether any of the patterns below can match
        return out
    low = text.lower() if text.isascii() else None
    for (pat, name), cues in zip(_LABELS, _LABEL_CUES, strict=True):
        if low is not None and not any(map(low.__contains__, cues)):
            continue   # none of the words this pattern needs (an ASCII text: case folds as the pattern's)
        for m in pat.finditer(text):
            if name == "seed":
                for im in re.finditer(r"\d+", m.group("list")):
                    out[m.start("list") + im.start()] = ("seed", float(im.group(0)))
                continue
            if name is None:   # "Table 2", "Section 3.2.1", "version 1.2.3": a label stating no fact
                out.setdefault(m.start("v"), None)
                continue
            v = float(m.group("v").replace(",", ""))
            if name == "@k":
                fact = (f"{m.group('w').lower()}@k", v)
            elif name == "%":
                fact = ("power" if m.group("w").lower() == "power" else "ci_level", v)   # "95% CI", "80% power"
            elif name == "@w":
                fact = (m.group("w").lower(), v)
            else:
                fact = (name, v)
            out.setdefault(m.start("v"), fact)
            if name == "range":
                out.setdefault(m.start("lo"), fact)
    return out


# A column that names what each row is (singular: "Seeds" is a count of seeds, "Seed" names one).
# "Seed SD", "Run-to-run std", "Seed spread": a statistic over the seeds, not a column naming each row's seed
_IDENTITY_HEADER = re.compile(r"^\W*(arm|seed|run|comparison|contrast|method|algorithm|variant|model|recipe|"
                              r"checkpoint|adapter)\b(?!\s*[#:=]?\s*\d)"
                              r"(?!(?:[\s-]*to[\s-]*\w+)?\s*(?:sd|std|s\.d\.|stdev|spread|variance|var|range|se|sem)\b)", re.I)


_BLANKS = re.compile(r"\s{3,}")


_BLANK_NUM = re.compile(r"[-−–+]?\d[\d.,]*(?:[eE][-+−]?\d+)?%?")


_CLAUSE = re.compile(r"\. |; |\||\n\n")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\[\"'*_`])|\n\s*\n")


_INTERVAL = re.compile(r"[\[(]\s*(?P<a>[-−–+]?\d[\d.,]{0,40}(?:[eE][-+−]?\d+)?\s?\\?%?)\s*[,;]\s*"
                       r"(?P<b>[-−–+]?\d[\d.,]{0,40}(?:[eE][-+−]?\d+)?\s?\\?%?)\s*[\])]")
_HINT_OF_KIND = {"code": "code", "comment": "comment", "front_matter": "front_matter"}


def _positions(pat: re.Pattern, text: str, *, end: bool = False) -> list[int]:
    return [m.end() if end else m.start() for m in pat.finditer(text)]


def _shared_percent(made: list) -> None:
    """"60.4–61.7%": one % sign after an interval's high end is the unit of both ends."""
    lows = {mn.interval: mn for _, mn in made if mn.role == "low" and not mn.percent}
    for _, mn in made:
        if mn.role == "high" and mn.percent and mn.interval in lows:
            lows[mn.interval].percent = True


class _Builder:
    """Turns pieces into mentions; one pass over each piece's text, with bisect for lines and clauses."""

    def __init__(self, path: str, lines: list[str]):
        self.path = path
        self.lines = lines
        self.out: list[Mention] = []
        self._interval = 0
        self._shapes: dict[tuple, list[tuple]] = {}

    @property
    def interval_count(self) -> int:
        """Intervals numbered so far (their ids are 1 to this)."""
        return self._interval

    def piece(self, p: Piece, *, status: str | None = None, fact: str | None = None, **ctx) -> list:
        """Numbers of one piece; ``status`` forces a hint (a label cell), ``fact`` names the label fact
        of a bare number in a label cell (a "Seed" column's "37" is ("seed", 37)); ``ctx`` sets
        Mention fields that come from where the piece stands (table row, column, ...)."""
        return self.place(p, status, fact, ctx)

    def place(self, p: Piece, status: str | None, fact: str | None, ctx: dict) -> list:
        """:meth:`piece` with its context as one dict (a table cell's, built once per cell).

        A piece with no hint, pin or interval (a table cell, most often) gives numbers that depend on
        its text alone, save for where it stands: those are read once per distinct text (README
        failure 10: a 5 MB table repeats its cell texts; "s1" with no number is remembered too) and
        copied for each place they occur."""
        text = p.text
        if not text or _DIGIT.search(text) is None:
            return []
        plain = not (p.hints or p.pins)
        if plain and _PLAIN.fullmatch(text):
            read = _plain_read(text, status or _HINT_OF_KIND.get(p.kind), fact)   # most table cells: "61.23"
        else:
            key = (text, status, fact, p.kind) if plain else None
            read = self._shapes.get(key) if key is not None else None
        if read is None:
            found, ranges = _numbers(text)
            ends = self._intervals(text, ranges) if found else {}
            read = self._read(p, found, ends, status, fact) if found else _NOTHING
            if key is not None and not ends and _SHAPES_MAX:
                if len(self._shapes) >= _SHAPES_MAX:
                    self._shapes.clear()   # bounded: a table of all-distinct cells gains nothing, loses nothing
                self._shapes[key] = read
        shapes, shared = read
        if not shapes:
            return []
        base = dict(_MENTION_FIELDS)
        base["file"], base["macro"], base["scope"] = self.path, p.macro, p.scope
        base["section"] = p.scope[-1] if p.scope else ""
        base.update(ctx)
        made = []
        lines, nlines, first, one = self.lines, len(self.lines), p.line, len(shapes) == 1
        for end, offset, values, count_after in shapes:
            d = base if one else base.copy()
            d.update(values)
            d["line"] = line = first + offset
            d["line_text"] = lines[line - 1] if 0 < line <= nlines else ""
            if count_after and d["scale"] is None:
                d["scale"] = "count"
            made.append((end, Mention._of(d)))
        if shared:
            _shared_percent(made)
        if p.pins:
            _bind_pins(made, p.pins)
            if p.kind == "macro":   # "% id: X" after a macro definition pins its whole body
                for _, mn in made:
                    mn.pin = p.pins[0][1]
        self.out.extend(mn for _, mn in made)
        return made

    def row_base(self, p: Piece, ctx: dict) -> dict:
        """The fields every number of a table row shares (its cell ``p``'s file, scope and macro, and the
        row's ``ctx``), for :meth:`plain_cell`: made once per row, not once per cell."""
        base = dict(_MENTION_FIELDS)
        base["file"], base["macro"], base["scope"] = self.path, p.macro, p.scope
        base["section"] = p.scope[-1] if p.scope else ""
        base.update(ctx)
        return base

    def plain_cell(self, p: Piece, status: str | None, fact: str | None, base: dict, column: str,
                   column_percent: bool, scale: str | None) -> None:
        """A table cell that is one plain number (``_PLAIN``, no hint or pin): the mention :meth:`place`
        makes of it, from its row's fields (:meth:`row_base`) and its column's, without a context dict
        or a reading per cell (README failure 10)."""
        d = base.copy()
        d["column"], d["column_percent"], d["scale"] = column, column_percent, scale
        d.update(_plain_fields(p.text, status or _HINT_OF_KIND.get(p.kind), fact))
        d["line"] = line = p.line
        d["line_text"] = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        self.out.append(Mention(*d.values()))

    def _read(self, p: Piece, found: list, ends: dict, status: str | None, fact: str | None) -> tuple[list, bool]:
        """(end, line offset, fields, count word after) of each number of a piece: what its text says;
        and whether a % sign after an interval's high end may be the low end's unit too.

        Per piece, once: labels, line and clause and sentence starts, the text with numbers blanked,
        whether any comparator or ``±`` can stand before a number. Per number: look-ups in those.
        A label phrase matters only to a number with no hint of its own: none in code, a comment or
        front matter (the code shape's fences: README failure 10)."""
        text = p.text
        base = status or _HINT_OF_KIND.get(p.kind)
        labels = label_spans(text) if base is None or base == "label" else None
        nl = _positions(_NEWLINE, text) if "\n" in text else None
        clause = _positions(_CLAUSE, text)
        nclause = len(clause)
        blanked = _BLANK_NUM.sub(_spaces, text)
        sents = _positions(_SENTENCE, text, end=True) if len(text) > 12 else None
        hints = sorted(p.hints)
        nh = len(hints)
        cues = _CMP_CUE.search(text) is not None   # else no number has a comparator or ± before it
        out, h, sentence_of, window_of, shared = [], 0, {}, {}, False
        for m, value, decimals, exp, pct in found:
            start, end = m.span()
            while h < nh and hints[h][1] <= start:
                h += 1
            hint = hints[h][2] if h < nh and hints[h][0] <= start else base
            role, iv = ends.get(start, _NO_END) if ends else _NO_END
            if role is None and ends and m.group(1):
                role, iv = ends.get(m.start(2), _NO_END)
            lab = labels.get(start, labels.get(m.start(2), False)) if labels else False
            if hint is None and lab is not False:
                hint = "label"
            label_fact = lab or None
            if hint == "label" and label_fact is None and fact and not decimals and not pct:
                label_fact = (fact, value)
            comparator = None
            if cues:
                before = text[max(0, start - 16):start]
                cmp_m = _CMP.search(before)
                comparator = cmp_m.group(1) if cmp_m else None
                if role is None and _PM.search(before):
                    role = "pm"
            k = bisect.bisect_right(sents, start) if sents else 0
            sentence = sentence_of.get(k)
            if sentence is None:   # one string per sentence, shared by its numbers (linear)
                sentence = text[sents[k - 1] if k else 0:sents[k] if sents and k < len(sents) else len(text)].strip()
                sentence = sentence_of[k] = sentence if len(sentence) <= 2000 else sentence[:2000]
            # the clause around the number (numbers blanked), at most 240 characters each side; numbers
            # of one short clause share one window string
            c = bisect.bisect_right(clause, start)
            lo = max(clause[c - 1] + 1 if c else 0, start - 240)
            c = bisect.bisect_left(clause, end, c - 1 if c else 0)
            hi = min(clause[c] if c < nclause else len(blanked), end + 240)
            window = window_of.get((lo, hi))
            if window is None:
                window = window_of[lo, hi] = _BLANKS.sub("  ", blanked[lo:hi])
            if hint is None:
                hint = "value"
            out.append((end, bisect.bisect_right(nl, start) if nl else 0,
                        {"text": m.group(0).strip(), "value": value, "decimals": decimals, "exponent": exp,
                         "percent": pct, "comparator": comparator, "role": role, "interval": iv,
                         "window": window, "status_hint": hint,
                         "label_fact": label_fact if hint == "label" else None, "in_code": hint == "code",
                         "sentence": sentence},
                        not pct and _COUNT_AFTER.match(text, end) is not None))
            shared = shared or (role == "high" and pct)
        return out, shared

    def _intervals(self, text: str, dashed: list[re.Match]) -> dict[int, tuple[str, int]]:
        """{start of an interval end: (low | high, interval id)}: bracketed, dashed (``dashed``, from
        :func:`_numbers`) and worded intervals, ids numbered in that order."""
        ends = {}
        if "[" in text or "(" in text:
            for im in _INTERVAL.finditer(text):
                self._interval += 1
                ends[im.start("a")] = ("low", self._interval)
                ends[im.start("b")] = ("high", self._interval)
        for im in dashed:
            self._interval += 1
            ends[im.start("a")] = ("low", self._interval)
            ends[im.start("b")] = ("high", self._interval)
        for im in worded_ranges(text):
            self._interval += 1
            ends[im.start("a")] = ("low", self._interval)
            ends[im.start("b")] = ("high", self._interval)
        return ends


_NEWLINE = re.compile(r"\n")
_NO_END = (None, None)
_NOTHING: tuple[list, bool] = ([], False)
# A character without which neither _CMP nor _PM can match before a number ("<", "≥", "\\leq", "±", "+/-").
_CMP_CUE = re.compile(r"[<>≤≥\\±]|\+/-")
_DIGIT = re.compile(r"\d")
_SHAPES_MAX = 100_000   # distinct cell texts kept (0: none, each piece read afresh)


# A piece that is one plain number and nothing else ("61.23", "500"): most cells of a results table.
_PLAIN = re.compile(r"[0-9]{1,300}(?:\.[0-9]{1,300})?")


def _plain_read(text: str, hint: str | None, fact: str | None) -> tuple[list, bool]:
    """What :meth:`_Builder._read` makes of a piece that is one plain number (``_PLAIN``) with no hint or
    pin (``hint``: the piece's own, from its status or kind), without its per-piece scans (README
    failure 10: a 5 MB table is ~470,000 such cells): no interval, comparator, label phrase, clause or
    sentence break can be in it, so its sentence is itself and its window its digits blanked. The same
    fields, field for field (tests/test_audit_numbers.py compares the two on plain numbers of every
    kind and status)."""
    return [(len(text), 0, _plain_fields(text, hint, fact), False)], False


def _plain_fields(text: str, hint: str | None, fact: str | None) -> dict:
    """The fields :func:`_plain_read` reads from a plain number's text."""
    dot = text.find(".")
    value = float(text)
    decimals = len(text) - dot - 1 if dot >= 0 else 0
    hint = hint or "value"
    n = len(text)
    return {"text": text, "value": value, "decimals": decimals, "exponent": 0, "percent": False,
            "comparator": None, "role": None, "interval": None, "window": "  " if n >= 3 else " " * n,
            "status_hint": hint, "label_fact": (fact, value) if hint == "label" and fact and not decimals else None,
            "in_code": hint == "code", "sentence": text if n <= 2000 else text[:2000]}


def _spaces(m: re.Match) -> str:
    return " " * (m.end() - m.start())
_SPECIFIC_END = ("low", "high", "lower", "upper", "lo", "hi")


def _bind_pins(made: list[tuple[int, Mention]], pins: list[tuple[int, str]]) -> None:
    """``<!-- id: X -->`` pins the number just before it (both ends when that closes an interval).

    The pin is recorded whatever the number's row, column or sentence say: the tracer checks a pin
    against that context (a pin must not silently override it)."""
    j = -1
    for pos, pid in sorted(pins):
        while j + 1 < len(made) and made[j + 1][0] <= pos:
            j += 1
        if j < 0:
            continue
        last = made[j][1]
        last.pin = pid
        last.status_hint, last.label_fact = ("value", None) if last.status_hint == "label" else \
            (last.status_hint, last.label_fact)   # a pinned number is a value: its author said which
        if last.interval is not None and pid.rsplit(".", 1)[-1] not in _SPECIFIC_END:
            for _, mn in made[max(0, j - 2):j]:
                if mn.interval == last.interval and mn.pin is None:
                    mn.pin = pid
                    if mn.status_hint == "label":
                        mn.status_hint, mn.label_fact = "value", None


def _identity(head: str, cell: str) -> str:
    """An identity cell as its row's name: a bare number under a "Seed" header is that seed
    ("| Seed | GRPO | Dr. GRPO |" with rows "| 1 | 77.71 | 79.76 |": the row is seed 1)."""
    if _SEED_HEAD.fullmatch(head) and _BARE_INT.fullmatch(cell):
        return f"seed {cell.strip()}"
    return cell


_SEED_HEAD = re.compile(r"\W*seeds?\W*", re.I)
_UNIT_HEADER = re.compile(r"\W*(?:units?|scale)\W*", re.I)   # "| Metric | Unit | ..." cells: "fraction", "of 4", labels
_BARE_INT = re.compile(r"\s*\d+\s*")


# "(pts)", "(points)": percentage points of a fraction metric, as "pp" (README failure 10)
_PCT_COLUMN = re.compile(r"(?<![\d\\])%|\bpercent(age)?s?\b|\bpp\b|\bpct\b|\(\s*(?:pts?|points)\s*\)", re.I)


class Cells(tuple):
    """A table's header or row cells: a tuple whose hash is computed once. Every number of a row
    carries its row and header, and the checks key on them (a 20,000-column row hashed once per
    number was quadratic: README failure 10)."""

    def __hash__(self) -> int:
        h = self.__dict__.get("_hash")
        if h is None:
            h = self.__dict__["_hash"] = tuple.__hash__(self)
        return h


def _second_header(t: Table, header: list[str]) -> list[str] | None:
    """The column names of a table whose second header row is typed as its first body row.

    Markdown tables have one header row, so an author who wants two ("| Method | Held-out accuracy (%)
    | | |" over "| | *s = 0* | *s = 1* | *mean (std)* |") types the second as a body row: its first cell
    empty, words in each other cell (a body row holds values). Each column is then named by the group
    header above it (carried right over the empty header cells) and its own sub-header; None when the
    first body row is not such a row."""
    if not t.rows or t.columns:
        return None
    plain = [c.plain().strip() for c in t.rows[0][2]]
    subs = [c for c in plain[1:] if c]
    if len(plain) < 3 or plain[0] or len(subs) < 2 or not all(any(ch.isalpha() for ch in c) for c in subs):
        return None
    out, group = [header[0] if header else ""], ""
    for i in range(1, len(plain)):
        h = header[i].strip() if i < len(header) else ""
        group = h or group
        out.append(f"{group} {plain[i]}".strip() if plain[i] else h)
    return out


def _cells_table(b: _Builder, t: Table, start: int = 0, stop: int | None = None) -> None:
    """Numbers of a table: header cells and row-label cells are labels; value cells carry the row,
    the column, every header cell and every cell of their row. With ``start``/``stop``, only the
    body rows ``t.rows[start:stop]`` (:class:`audit.doc.TableRows`), and the header cells only with
    the part that starts at row 0: the header is read from the whole table either way."""
    header = list(t.columns) or [c.plain() for c in t.header]
    rows, heads = t.rows[start:stop], t.header
    joined = _second_header(t, header)
    if joined:   # a second header row typed as the first body row: its cells are header cells too
        header, rows, heads = joined, t.rows[max(start, 1):stop], [*t.header, *t.rows[0][2]]
    if start > 0:
        heads = []   # placed with the table's first part
    header_t = Cells(header)
    explicit = _group_members([i for i, h in enumerate(header) if _IDENTITY_HEADER.search(h)], header)
    # pandas' "| 0 |", "| 1 |": the row label is the next column (decided on the whole table, whichever part this is)
    index_col = _index_column(header, t.rows[1:] if joined else t.rows)
    lab = 1 if index_col and len(header) > 1 else 0
    ident_cols = explicit or [lab]
    # a worded row label names the row too when the identity columns do not include it: a runs table
    # "| Name | objective | seed | acc |" over "| grpo-s21 | grpo | 21 | 0.574 |" is GRPO's seed 21, not
    # "seed 21" of whatever arm a heading names (README failure 15)
    label_too = [lab, *explicit] if explicit and lab not in explicit else ident_cols
    for ci, hp in enumerate(heads):
        col = header[ci % len(t.header)] if t.header else ""
        b.piece(hp, status="label", kind="heading", column=col, header=header_t, table_caption=t.caption)
    per_col: dict[int, tuple] = {}   # what a column header says, read once per table, not once per cell
    caption, digit, plain_number = t.caption, _DIGIT.search, _PLAIN.fullmatch
    for _lineno, _raw, cells in rows:
        plain = [c.plain() if c.hints else " ".join(c.text.split()) for c in cells]
        label = plain[lab] if len(plain) > lab else ""
        first_label = any(ch.isalpha() for ch in label)
        identity = " ".join(_identity(header[i] if i < len(header) else "", plain[i])
                            for i in (label_too if first_label else ident_cols) if i < len(plain))
        row_t = Cells(plain)
        base = None   # the row's shared fields (Builder.row_base), made at its first plain number
        for ci, cell in enumerate(cells):
            if cell.kind == "span" or digit(cell.text) is None:
                continue   # a slot an HTML rowspan/colspan fills (context for its row, its numbers read once),
                # or a cell with no number
            if ci not in per_col:
                col = header[ci] if ci < len(header) else ""
                idm = _IDENTITY_HEADER.search(col)
                per_col[ci] = (col, idm.group(1).lower() if idm else None, bool(_PCT_COLUMN.search(col)),
                               None if ci in ident_cols else scale_word(col), bool(_UNIT_HEADER.fullmatch(col)))
            col, id_fact, pct_col, scale, unit_col = per_col[ci]
            is_label = ci in explicit or (ci == lab and first_label) or (ci == 0 and index_col) or unit_col
            if not (cell.hints or cell.pins) and plain_number(cell.text):
                if base is None or base["scope"] is not cell.scope or base["macro"] is not cell.macro:
                    base = b.row_base(cell, {"kind": "table", "row": label, "identity": identity,
                                             "table_caption": caption, "header": header_t, "row_cells": row_t})
                b.plain_cell(cell, "label" if is_label else None, id_fact if is_label else None, base, col, pct_col,
                             scale)
                continue
            b.place(cell, "label" if is_label else None, id_fact if is_label else None,
                    {"kind": "table", "row": label, "column": col, "identity": identity, "column_percent": pct_col,
                     "table_caption": caption, "header": header_t, "row_cells": row_t, "scale": scale})


def _group_members(explicit: list[int], header: list[str]) -> list[int]:
    """The identity columns of ``explicit`` less those a group header names: a header spanning
    several columns ("Method" over "GRPO | DAPO | GSPO", an HTML colspan or a second header row) is
    the name of what its sub-headers are, so each such column holds values of its own sub-header's arm
    ("Method GRPO"), not identities. Two or more columns whose names are the same identity word each
    followed by a different sub-header are such a group (README failure 15)."""
    if len(explicit) < 2:
        return explicit
    groups: dict[str, list[int]] = {}
    for i in explicit:
        word, _, rest = header[i].strip().partition(" ")
        if rest.strip():
            groups.setdefault(word.lower(), []).append(i)
    members = {i for cols in groups.values() if len({header[i] for i in cols}) > 1 for i in cols}
    return [i for i in explicit if i not in members] if members else explicit


def _index_column(header: list[str], rows) -> bool:
    """Whether a table's first column is a row index: an empty header over 0, 1, 2, ... (or 1, 2, ...),
    as pandas ``DataFrame.to_markdown()`` writes it. Its numbers count rows; they are labels, no values."""
    if not rows or (header and header[0].strip()):
        return False
    firsts = [cells[0].text.strip() if cells else "" for _lineno, _raw, cells in rows]
    if not all(f.isdigit() for f in firsts):
        return False
    start = int(firsts[0])
    return start in (0, 1) and all(int(f) == start + i for i, f in enumerate(firsts))


def _placed(rel: str, items: list, lines: list[str]) -> _Builder:
    """The numbers of ``items`` placed in their contexts (a builder: ``out``, ``interval_count``)."""
    b = _Builder(rel, lines)
    for item in items:
        if isinstance(item, Table):
            _cells_table(b, item)
        elif isinstance(item, TableRows):
            _cells_table(b, item.table, item.start, item.stop)
        elif item.kind == "heading":
            b.piece(item, kind="heading")
        elif item.kind == "macro":
            b.piece(item, kind="macro")
        else:
            b.piece(item, kind="prose")
    return b


def _build(rel: str, doc: Doc, lines: list[str], jobs: int = 1, size: int = 0) -> ParsedFile:
    """A parsed file's numbers; a file of ``size`` bytes large enough is placed in two processes
    (:mod:`audit.parse_pool`, the same result)."""
    from audit import parse_pool

    scopes = [(item.line, tuple(item.scope)) for item in doc.items
              if not isinstance(item, Table) and item.kind == "heading"]
    parts = parse_pool.split(doc.items, size, jobs)
    if parts is None:
        out = _placed(rel, doc.items, lines).out
    else:
        out = parse_pool.placed_in_two(_placed, Mention, rel, parts, lines, tuple(_MENTION_FIELDS))
    return ParsedFile(rel, out, lines, doc.front_matter, scopes)


def parse_markdown(path: str | Path, text: str, rel: str, shortcuts: bool = True, jobs: int = 1) -> ParsedFile:
    """Every number of a Markdown file (CommonMark via markdown-it-py; see :mod:`audit.markdown_doc`).

    Args:
        path: the file (unused; kept for callers that pass it).
        text: its content.
        rel: the name findings use for it.
        shortcuts: skip the inline parsing that cannot change a number (False: the plain parser).
        jobs: processes to place a large file's numbers in (:mod:`audit.parse_pool`; the same result).
    Returns:
        A :class:`ParsedFile` with every number, its context and status hint.
    Example:
        >>> [m.status_hint for m in parse_markdown("r.md", "```note``` then 0.5", "r.md").mentions]
        ['value']
    """
    from audit.markdown_doc import walk

    if Path(str(path)).suffix.lower() in (".qmd", ".rmd"):   # pandoc Markdown: its simple tables are tables
        from audit.pandoc import pipe_tables

        text = pipe_tables(text)
    return _build(rel, walk(text, shortcuts), text.splitlines(), jobs, len(text))


def parse_latex(path: str | Path, text: str, rel: str, jobs: int = 1) -> ParsedFile:
    """Every number of a LaTeX file (the grammar of :mod:`audit.latex_doc`).

    Args:
        path: the file (unused; kept for callers that pass it).
        text: its content.
        rel: the name findings use for it.
        jobs: processes to place a large file's numbers in (:mod:`audit.parse_pool`; the same result).
    Returns:
        A :class:`ParsedFile` with every number, its context and status hint.
    Example:
        >>> [m.text for m in parse_latex("r.tex", "\\\\label{s:x} GSPO was 0.9999.", "r.tex").mentions]
        ['0.9999']
    """
    from audit.latex_doc import walk

    return _build(rel, walk(text), text.splitlines(), jobs, len(text))


def parse_rst(text: str, rel: str) -> ParsedFile:
    """Every number of a reStructuredText file (docutils; see :mod:`audit.rst_doc`).

    Args:
        text: its content.
        rel: the name findings use for it.
    Returns:
        A :class:`ParsedFile` whose lines are the page's as the line readers read Markdown (titles as
        Markdown headings, markup blanked, every number in its place) and whose ``problems`` are
        the blocks docutils could not read.
    Example:
        >>> f = parse_rst("GRPO\\n====\\n\\nAccuracy ``0.5`` was 0.61.\\n", "r.rst")
        >>> [(m.text, m.line, m.in_code, m.scope) for m in f.mentions]
        [('0.5', 4, True, ('GRPO',)), ('0.61', 4, False, ('GRPO',))]
    """
    from audit.rst_doc import read

    got = read(text, rel)
    parsed = _build(rel, got.doc, text.splitlines())   # line_text: the .rst source line
    parsed.lines, parsed.problems = got.lines, list(got.problems)
    return parsed


def parse_bib(text: str, rel: str) -> ParsedFile:
    """A bibliography file of the report folder (BibTeX ``.bib``, or the ``.bbl`` LaTeX compiled from
    it): every number is a citation's (year, volume, pages), counted and shown as ``citation``, never
    traced (:mod:`audit.statuses`).

    Args:
        text: its content.
        rel: the name findings use for it.
    Returns:
        A :class:`ParsedFile` whose mentions all have status hint ``citation``.
    Example:
        >>> [(m.text, m.status_hint) for m in parse_bib("@misc{a, year = {2024}}", "refs.bib").mentions]
        [('2024', 'citation')]
    """
    doc = Doc([Piece(text, 1, "citation", (), [(0, len(text), "citation")], [], text)])
    return _build(rel, doc, text.splitlines())


# Markdown as people save it: Quarto and R Markdown sources (``.qmd``, ``.Rmd``) are Markdown with
# code chunks, so a report typed in them is read like ``report.md`` (README failure 15).
MARKDOWN_SUFFIXES = (".md", ".markdown", ".qmd", ".Rmd", ".rmd")
# A bibliography: BibTeX's ``.bib`` and the ``thebibliography`` LaTeX compiles from it (``.bbl``).
BIBLIOGRAPHY_SUFFIXES = (".bib", ".bbl")
# reStructuredText (Sphinx pages, PyPI READMEs), read by docutils (audit.rst_doc).
RST_SUFFIXES = (".rst", ".rest")
REPORT_SUFFIXES = (*MARKDOWN_SUFFIXES, ".tex", *BIBLIOGRAPHY_SUFFIXES, *RST_SUFFIXES)


# Documents the audit does not read. A report typed in one of them must not audit clean by the audit
# saying nothing about it (a folder holding only report.rst passed whatever its numbers said): each is
# a finding of check 10 (README failure 15). Notebooks and HTML are left out: a report folder holds
# them as figures and analysis code far more often than as the report.
UNREAD_FORMATS = {".org": "Org mode",
                  ".adoc": "AsciiDoc", ".asciidoc": "AsciiDoc", ".docx": "Word", ".odt": "OpenDocument",
                  ".rtf": "RTF"}


def unread_reports(report_dir: Path) -> list[tuple[Path, str]]:
    """(path, format) of every document under ``report_dir`` in a format the audit does not read.

    Example:
        >>> import tempfile
        >>> d = Path(tempfile.mkdtemp()); _ = (d / "report.org").write_text("GRPO 0.61")
        >>> [(p.name, fmt) for p, fmt in unread_reports(d)]
        [('report.org', 'Org mode')]
    """
    return [(p, UNREAD_FORMATS[p.suffix.lower()]) for p in sorted(report_dir.rglob("*"))
            if p.suffix.lower() in UNREAD_FORMATS and p.is_file()]


def is_bibliography(path) -> bool:
    """Whether a report file is a bibliography (``.bib``, ``.bbl``): it names references, no claim
    of the report (the one test :mod:`audit.claims` and :mod:`audit.prose` ask).

    Example:
        >>> is_bibliography("paper/refs.bbl"), is_bibliography("report.tex")
        (True, False)
    """
    return str(path).endswith(BIBLIOGRAPHY_SUFFIXES)


def parse_report(report_dir: Path, rel_of, jobs: int = 1) -> list[ParsedFile]:
    """Parse every Markdown (``.md``, ``.qmd``, ``.Rmd``), ``.tex``, ``.rst``, ``.bib`` and ``.bbl`` file under
    ``report_dir`` (sorted, recursively).

    Args:
        report_dir: the report folder.
        rel_of: how findings name a file (``ctx.rel``).
        jobs: the audit's worker processes: a large file's numbers are placed in two
            (:mod:`audit.parse_pool`); the result is the same for any number.
    Returns:
        One :class:`ParsedFile` per file.
    Example:
        >>> parse_report(Path("report"), lambda p: p.name)  # doctest: +SKIP
    """
    files = []
    for p in sorted(report_dir.rglob("*")):
        if not p.is_file() or p.suffix not in REPORT_SUFFIXES:
            continue
        try:
            text = p.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            raise UserError(f"{p}: cannot read ({exc.strerror})") from None
        rel = rel_of(p)
        files.append(parse_markdown(p, text, rel, jobs=jobs) if p.suffix in MARKDOWN_SUFFIXES else parse_bib(text, rel)
                     if p.suffix in BIBLIOGRAPHY_SUFFIXES else parse_rst(text, rel) if p.suffix in RST_SUFFIXES
                     else parse_latex(p, text, rel, jobs=jobs))
    return files
