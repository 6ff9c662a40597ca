r"""Significance marks on table values, and the legend that says what each means (README failure 15).

A hand-typed results table marks a value ("0.650†", "0.631*", "0.631\*", "0.631<sup>*</sup>",
"$0.631^{*}$") and a line under the table says what the mark means ("† significantly better than
GRPO", "* p < 0.05", "*: significant after BH", "* p < 0.05; ** p < 0.01"). :mod:`audit.claims`
checks each marked value's claim against the analysis like the same words in a sentence. This
module is the one place that says what a mark is and what a legend is:

- The marks are †, ‡, § and runs of one to three stars; "*", "**" and "***" are three different
  marks (the usual p < 0.05 / 0.01 / 0.001). ``\ast``, ``\dagger`` and ``\ddagger`` are their marks.
- A mark is read where the page shows it: in a cell's *rendered* text (:mod:`audit.numbers` keeps
  every row's rendered cells), right after a number, or at the end of the row's label ("GSPO†":
  the row's arm is marked, on the primary metric). So Markdown emphasis is never a mark
  ("*0.631*" and "**0.631**" render without a star), while an escaped "\*", "<sup>*</sup>",
  "^{*}" and a star that no emphasis pairs ("0.631*", "**0.631***") are.
- A legend is a line outside the table's rows whose rendered text gives a mark and what it means:
  significance words ("significantly better than GRPO", "not significant") or a p threshold
  ("p < 0.05", "q < 0.1"). At the start of a line the meaning may come anywhere after the mark
  ("† DAPO vs GRPO, significant after BH"); a mark later in the line ("Note: * p < .05") and a
  Markdown bullet ("* p < 0.05", which renders as a list item) must be followed by the meaning
  itself. A star that Markdown reads as emphasis is no legend ("*p < 0.05*" is italic text).
- A mark with no legend claims nothing. A marked value takes the first legend of its mark below it
  (a legend sits under its table), else the last one above it: two tables may give a mark two meanings.
- A sentence marks a value the same way ("GSPO reaches 0.650* (Table 2)", "DAPO − GRPO = +0.021†"),
  read in the sentence's rendered text (:func:`sentence_marks`), the mark right after the number;
  its legend is a line under the paragraph or at the end of the section, found by the same rule.

Linear: one pass over the file's lines and one over its table rows.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from audit.numbers import ParsedFile

_MARK = r"\*{1,3}|[†‡§]{1,3}"
# "^{*}", "$^\dagger$", "\textsuperscript{*}": a superscript mark is the mark
_SUPERSCRIPT = re.compile(r"\$?\s*(?:\^|\\textsuperscript)\s*\{?\s*(\\ast|\\dagger|\\ddagger|\*{1,3}|[†‡§]{1,3})\s*\}?\s*\$?")
_NAMED = {"\\ast": "*", "\\dagger": "†", "\\ddagger": "‡"}
_MAY_HOLD_MARK = re.compile(r"[*†‡§\\]")   # what every mark (_MARK) or superscript (_SUPERSCRIPT) holds
# A mark right after a number ("0.631*", "0.612 *", "63.2%†", "[0.62, 0.64]*"), not a product ("0.6 * 2").
_CELL_MARK = re.compile(rf"\d[\d.,]*\s?%?\s?[\])]?\s?(?P<mark>{_MARK})(?![*†‡§])(?!\s*\d)")
# A mark at the end of a row's label ("GSPO†", "DAPO (ours)*"): the row's arm is marked.
_LABEL_MARK = re.compile(rf"[\w)\]]\s?(?P<mark>{_MARK})\s*$")
# One legend entry: the mark, an optional "=", ":" or verb, then what it says (up to the next mark or ";").
_ENTRY = re.compile(rf"(?:^|(?<=[\s;,(.:]))(?P<mark>{_MARK})(?![*†‡§])\s*(?:[:=]|\b(?:denotes|indicates|marks|means)\b)?"
                    r"\s*(?P<says>[^;†‡§*]{1,300})")
_SIGNIFICANT = re.compile(r"significan|\bp\s*(?:[-_ ]?(?:adj(?:usted)?|values?))?\s*(?:<|≤|<=|\\le)|\bq\s*(?:<|≤|<=)",
                          re.I)
_STARTS_SIGNIFICANT = re.compile(r"\(?\s*(?:(?:statistically\s+)?(?:not\s+|non-?|in)?significan|"
                                 r"[pq](?:[-_ ]?(?:adj(?:usted)?|values?))?\s*(?:<|≤|<=|\\le))", re.I)
_BULLET_STAR = re.compile(r"\s{0,3}\*\s")


@dataclass(frozen=True)
class MarkedCell:
    """A table value carrying a mark: where, its row label and column, the cell as shown, the mark."""

    line: int
    row: str
    column: str
    cell: str
    mark: str


def shown(text: str) -> str:
    """``text`` with every superscript or named mark written as the mark itself.

    Example:
        >>> shown("$0.631^{*}$"), shown(r"0.58$^\\dagger$")
        ('$0.631*', '0.58†')
    """
    if "^" not in text and "\\" not in text:
        return text
    return _SUPERSCRIPT.sub(lambda m: _NAMED.get(m.group(1), m.group(1)), text)


def marked_cells(f: ParsedFile) -> list[MarkedCell]:
    """Every table value of ``f`` with a mark after its number, read from the rendered cells.

    Args:
        f: a parsed report file.
    Returns:
        One :class:`MarkedCell` per marked cell (a marked row label is one, with no column; a header
        cell never is).
    Example:
        >>> from audit.numbers import parse_markdown
        >>> t = "| Arm | Acc | ZVF |\\n|---|---|---|\\n| GSPO | 0.650\\\\* | **0.39** |\\n| DAPO | *0.63* | 0.22† |\\n"
        >>> [(c.row, c.column, c.mark) for c in marked_cells(parse_markdown("r.md", t, "r.md"))]
        [('GSPO', 'Acc', '*'), ('DAPO', 'ZVF', '†')]
    """
    out: list[MarkedCell] = []
    seen: set = set()
    for m in f.mentions:
        if m.kind != "table" or not m.row_cells or (m.line, m.row_cells) in seen:
            continue
        seen.add((m.line, m.row_cells))
        if not _MAY_HOLD_MARK.search("".join(m.row_cells)):
            continue   # every mark, shown or superscript, has one of these characters: a row of plain numbers has none
        for ci, cell in enumerate(m.row_cells):
            hit = (_CELL_MARK if ci else _LABEL_MARK).search(shown(cell))
            if hit:
                out.append(MarkedCell(m.line, m.identity or m.row or "", m.header[ci] if 0 < ci < len(m.header) else "",
                                      cell, hit.group("mark")))
    return out


# A mark right after a number in a sentence: no space ("0.650*", "+0.021†", "63.2%*", "[0.62, 0.64]†"), no
# product or power ("2*3", "10*(n-1)", "0.5**2"), no word glued to the number ("GPT4*").
_PROSE_MARK = re.compile(rf"(?<![\w.])(?P<num>[-+−]?\d[\d.,]*%?[\])]?)(?P<mark>{_MARK})(?![*†‡§(])(?!\s*\d)")
# A LaTeX superscript mark as tex_text shows it ("0.631 ^ *", "62.5% ^‡", "0.631 *"), the mark glued back on.
_TEX_SHOWN = re.compile(rf"(\d%?)\s?\^?\s?({_MARK})(?=[^*†‡§]|$)(?!\s*\d)")
_ANY_NUMBER = re.compile(r"\d[\d.,]*")
_MAY_MARK = re.compile(r"\d[%\])}$]{0,3}(?:\\?[*†‡§]|<sup>|\$?\^|\\textsuperscript)")


@dataclass(frozen=True)
class SentenceMark:
    """A marked number in a sentence: the number as shown, its mark, and the sentence's rendered text
    from the previous number (or the sentence's start) up to it: the arms it names are the marked ones."""

    number: str
    mark: str
    lead: str


def sentence_marks(sentence: str, tex: bool = False) -> list[SentenceMark]:
    """The marked numbers of one sentence of a Markdown (or LaTeX) paragraph, read in its rendered
    text: emphasis ("*0.650*"), code spans and a footnote reference are no mark; an escaped "\\*",
    "<sup>*</sup>" and "$^{*}$" are.

    Args:
        sentence: the sentence as written in a Markdown file, or as :func:`audit.prose.tex_text` gives
            a LaTeX one (its "0.631$^{*}$" shows as "0.631 ^ *", its "\\textsuperscript{*}" as " *").
        tex: whether it is LaTeX.
    Returns:
        One :class:`SentenceMark` per marked number, in order.
    Example:
        >>> [(m.number, m.mark, m.lead) for m in sentence_marks("GSPO reaches 0.650* and *DAPO 0.640* (p = 0.03)")]
        [('0.650', '*', 'GSPO reaches ')]
        >>> [(m.number, m.mark, m.lead) for m in sentence_marks("DAPO − GRPO = +0.021<sup>†</sup>, 2*3 = 6")]
        [('+0.021', '†', 'DAPO − GRPO = ')]
    """
    if tex:
        text = _TEX_SHOWN.sub(r"\1\2", sentence)
    elif _MAY_MARK.search(sentence):
        text = shown(_rendered(sentence, False))
    else:
        return []     # most sentences: no mark can follow a number, nothing to render (README failure 10)
    out, last = [], 0
    for m in _PROSE_MARK.finditer(text):
        lead_start = last
        for n in _ANY_NUMBER.finditer(text, last, m.start("num")):
            lead_start = n.end()
        out.append(SentenceMark(m.group("num"), m.group("mark"), text[lead_start:m.start("num")]))
        last = m.end()
    return out


@dataclass(frozen=True)
class Legends:
    """The legend entries of one file: ``of(mark, line)`` is what ``mark`` means for a value on
    ``line``: the first legend of that mark below it (a legend sits under its table), else the
    last one above it (a legend written before the table, or one legend for several tables)."""

    entries: dict   # mark -> [(line, what it says)], in line order

    def of(self, mark: str, line: int) -> str | None:
        """What ``mark`` on ``line`` means, or None when no legend gives it a meaning."""
        rows = self.entries.get(mark) or []
        below = [says for ln, says in rows if ln > line]
        return below[0] if below else rows[-1][1] if rows else None

    def __bool__(self) -> bool:
        return bool(self.entries)


def legends(f: ParsedFile) -> Legends:
    """The legends of ``f``: what each mark means, by where the marked value sits.

    Args:
        f: a parsed report file (its lines).
    Returns:
        A :class:`Legends`.
    Example:
        >>> from audit.numbers import parse_markdown
        >>> text = "t1\\n\\n* p < 0.05; ** p < 0.01\\n\\n*p < 0.1*\\n\\nt2\\n\\n\\\\* q < 0.1\\n"
        >>> lg = legends(parse_markdown("r.md", text, "r.md"))
        >>> lg.of("*", 1), lg.of("**", 1), lg.of("*", 8), lg.of("*", 20), lg.of("†", 1)
        ('p < 0.05', 'p < 0.01', 'q < 0.1', 'q < 0.1', None)
    """
    out: dict[str, list] = {}
    for line, mark, says in _entries(f):
        out.setdefault(mark, []).append((line, says))
    return Legends(out)


def legend_lines(f: ParsedFile) -> frozenset[int]:
    """The lines of ``f`` that hold a legend: their p thresholds ("* p < 0.05") say what a mark
    means, they are no statistic of the study (:mod:`audit.prose` reads them as labels).

    Example:
        >>> from audit.numbers import parse_markdown
        >>> sorted(legend_lines(parse_markdown("r.md", "a\\n\\n\\\\* p < 0.05\\n\\np < 0.05\\n", "r.md")))
        [3]
    """
    return frozenset(line for line, _, _ in _entries(f))


_LEADS_MARK = re.compile(r"\s*(?:<sup>|\\\*|[†‡§]|\$\^|\\textsuperscript)")


def leading_mark(line: str) -> str | None:
    """The mark a line starts with as rendered ("<sup>‡</sup> equivalent to GRPO ...", "\\* p < 0.05"),
    else None: such a line says something about the rows that carry the mark.

    Example:
        >>> leading_mark("<sup>‡</sup> equivalent to GRPO"), leading_mark("GSPO wins")
        ('‡', None)
    """
    if not _LEADS_MARK.match(line):
        return None
    m = re.match(rf"\s*({_MARK})(?![*†‡§])", shown(_rendered(line, False)))
    return m.group(1) if m else None


def marked_rows(f: ParsedFile) -> dict[str, list[tuple[int, str]]]:
    """mark -> (line, row label) of each table row whose label carries the mark ("| GSPO<sup>*</sup> | ..."),
    found once per file (each part of a large report read apart asks again: audit.report_pool)."""
    memo = f.__dict__.get("_marked_rows")
    if memo is None or memo[0] is not f.lines:
        out: dict[str, list[tuple[int, str]]] = {}
        for c in marked_cells(f):
            if not c.column:
                out.setdefault(c.mark, []).append((c.line, c.row))
        memo = f.__dict__["_marked_rows"] = (f.lines, out)
    return memo[1]


def _entries(f: ParsedFile) -> list[tuple[int, str, str]]:
    """(line, mark, what it says) for each legend entry of ``f``, in order (module docstring); found
    once per file (the prose reader, the claims reader and each worker of a large report ask for
    them: audit.report_pool; rendering each marked line made asking twice cost seconds on a 5 MB report,
    README failure 10)."""
    memo = f.__dict__.get("_legend_entries")
    if memo is None or memo[0] is not f.lines:
        memo = f.__dict__["_legend_entries"] = (f.lines, list(_find_entries(f)))
    return memo[1]


def _find_entries(f: ParsedFile):
    tex = f.path.endswith(".tex")
    fenced = False
    for i, line in enumerate(f.lines, 1):
        if not tex and re.match(r"\s*(```|~~~)", line):
            fenced = not fenced
        if fenced or line.lstrip().startswith("|") or not any(c in line for c in "*†‡§^\\"):
            continue
        bullet = not tex and _BULLET_STAR.match(line) is not None
        text = shown(_tex_legend(line) if tex else _rendered(line, bullet))
        for e in _ENTRY.finditer(text):
            says = e.group("says").strip()
            lead = text[:e.start()]
            at_start = not lead.strip(" -+>:") or re.fullmatch(r"\W*(?:notes?|legend)\W*", lead, re.I)
            if (_STARTS_SIGNIFICANT.match(says) if (bullet or not at_start) else _SIGNIFICANT.search(says)):
                yield i, e.group("mark"), says


def _rendered(line: str, bullet: bool) -> str:
    """The text a Markdown line renders to (emphasis resolved, escapes and tags gone); a leading
    "* " list bullet is kept as the star it shows in a legend."""
    from audit.markdown_doc import _parser

    if bullet:
        line = line.replace("*", "\\*", 1)
    toks = _parser(False).parseInline(line.strip())
    return "".join(c.content for c in (toks[0].children or ()) if c.type in ("text", "text_special")) if toks else ""


def _tex_legend(line: str) -> str:
    """A LaTeX line with its comment dropped and its superscript marks as marks."""
    code = re.split(r"(?<!\\)%", line, maxsplit=1)[0]
    return shown(code).replace("$", " ")


# Footnote references (not significance marks): a letter or a number in <sup>, or a Unicode superscript
# digit or letter, written right after a cell's number ("+0.04<sup>b</sup>", "[0.0047, 0.0188]²").
_SUPER_CHARS = "¹²³⁴⁵⁶⁷⁸⁹⁰ᵃᵇᶜᵈᵉᶠ"
_SUPER_KEYS = dict(zip(_SUPER_CHARS, "1234567890abcdef", strict=True))
_REF = r"(?:<sup>\s*([a-z]|\d{1,2})\s*</sup>|([" + _SUPER_CHARS + r"]{1,2}))"
_FOOT_AFTER = re.compile(r"\s?[%\])]?\s?(?:</b>|</strong>|\*\*)?\s?" + _REF, re.I)
_FOOT_LEAD = re.compile(r"\s*" + _REF + r"(?=\s)", re.I)


def _foot_key(m: re.Match) -> str:
    return (m.group(1) or "".join(_SUPER_KEYS[c] for c in m.group(2))).lower()


def leading_footnote(line: str) -> str | None:
    """The footnote a line starts with ("<sup>b</sup> TOST ...", "² The upper end is ..."), else None:
    such a line is the footnote's body, about the table cell that carries the same reference.

    Example:
        >>> leading_footnote("<sup>b</sup> TOST gives p = 0.049"), leading_footnote("² The upper end"), leading_footnote("2 runs")
        ('b', '2', None)
    """
    m = _FOOT_LEAD.match(line)
    return _foot_key(m) if m else None


def footnote_cells(f: ParsedFile) -> dict[str, list[tuple[int, str, str]]]:
    """footnote -> (line, row label, column) of each table value written with that footnote reference
    right after it, as the line shows it; found once per file, and asked for only where a line starts
    with a footnote (:func:`leading_footnote`).

    Example:
        >>> from audit.numbers import parse_markdown
        >>> t = "| Arm | Δ |\\n|---|---|\\n| GSPO | +0.05<sup>a</sup> |\\n| DAPO | [0.01, 0.04]² |\\n"
        >>> footnote_cells(parse_markdown("r.md", t, "r.md"))
        {'a': [(3, 'GSPO', 'Δ')], '2': [(4, 'DAPO', 'Δ')]}
    """
    memo = f.__dict__.get("_footnote_cells")
    if memo is not None and memo[0] is f.lines:
        return memo[1]
    out: dict[str, list[tuple[int, str, str]]] = {}
    at: dict[int, int] = {}   # line -> where the next number of its cells is searched from
    for m in f.mentions:
        if m.kind != "table" or not 0 < m.line <= len(f.lines):
            continue
        raw = f.lines[m.line - 1]
        if "<sup" not in raw and not any(c in _SUPER_KEYS for c in raw):
            continue
        pos = raw.find(m.text, at.get(m.line, 0))
        if pos < 0:
            continue
        at[m.line] = pos + len(m.text)
        hit = _FOOT_AFTER.match(raw, at[m.line])
        if hit:
            out.setdefault(_foot_key(hit), []).append((m.line, m.identity or m.row or "", m.column or ""))
    f.__dict__["_footnote_cells"] = (f.lines, out)
    return out
