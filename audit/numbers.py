"""Every number written in a report (Markdown and LaTeX), with the context that says what it is.

A number is kept with its literal spelling (the digits shown set the rounding interval it
stands for), its unit cues (a ``%`` sign, a percent column), its role (low/high end of an
interval, a ``±`` spread), its table context (row label, column header), a LaTeX macro
name, and an explicit pin (``<!-- id: X -->`` or ``% id: X``) when the author gave one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from prereg.errors import UserError

_NUM = re.compile(
    r"(?P<sign>[-−–+])?(?P<body>\d{1,3}(?:,\d{3})+(?![\d])(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
    r"(?P<exp>[eE][-+−]?\d+)?(?P<pct>\s?\\?%)?"
)
_CMP = re.compile(r"(<=|>=|≤|≥|<|>|\\leq?|\\geq?|\\lt|\\gt)\s*\$?\s*$")
_PIN_MD = re.compile(r"<!--\s*id\s*:\s*([A-Za-z0-9_.:\-/]+)\s*-->")
_PIN_TEX = re.compile(r"(?<!\\)%\s*id\s*:\s*([A-Za-z0-9_.:\-/]+)")
_HTML_COMMENT = re.compile(r"<!--.*?-->")
_INTERVAL = re.compile(r"[\[(]\s*(?P<a>[-−–+]?[\d.,]+(?:[eE][-+−]?\d+)?\s?\\?%?)\s*[,;]\s*"
                       r"(?P<b>[-−–+]?[\d.,]+(?:[eE][-+−]?\d+)?\s?\\?%?)\s*[\])]")
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
    """"fraction" or "count" when a header or unit phrase names the scale of its numbers."""
    if _FRACTION_WORDS.search(text):
        return "fraction"
    if _COUNT_WORDS.search(text):
        return "count"
    return None


EXPLORATORY_WORDS = ("exploratory", "post hoc", "post-hoc", "not preregistered", "unregistered", "not registered")


@dataclass
class Mention:
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


@dataclass
class ParsedFile:
    path: str
    mentions: list[Mention] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    front_matter: str = ""      # the YAML front matter of a Markdown file (model-index values), without fences


def _parse_literal(m: re.Match) -> tuple[float, int, int, bool] | None:
    body = m.group("body").replace(",", "")
    sign = m.group("sign") or ""
    neg = sign in ("-", "−", "–")
    exp = m.group("exp")
    e = int(exp[1:].replace("−", "-")) if exp else 0
    decimals = len(body.split(".", 1)[1]) if "." in body else 0
    try:
        v = float(body) * (10.0 ** e if e else 1.0)
    except ValueError:
        return None
    return (-v if neg else v), decimals, e, bool(m.group("pct"))


def _boundary_ok(text: str, m: re.Match) -> bool:
    start = m.start("sign") if m.group("sign") else m.start("body")
    prev = text[start - 1] if start > 0 else " "
    if prev.isalnum() or prev in "_.#/\\@":
        return False
    if m.group("sign") == "-" or m.group("sign") == "–":
        pass
    elif prev in "-–" and start > 1 and text[start - 2].isalnum():
        return False  # "arm-2", "2026-01": part of a word or a date
    end = m.end()
    nxt = text[end] if end < len(text) else " "
    nxt2 = text[end + 1] if end + 1 < len(text) else " "
    if m.group("pct"):
        return True
    if nxt.isalpha() or nxt == "_":
        return False
    if nxt in ".-:/–" and nxt2.isdigit():
        return False
    return True


def numbers_in(text: str) -> list[tuple[re.Match, float, int, int, bool]]:
    out = []
    for m in _NUM.finditer(text):
        if not _boundary_ok(text, m):
            continue
        lit = _parse_literal(m)
        if lit is None:
            continue
        out.append((m, *lit))
    return out


def _window(text: str, start: int, end: int) -> str:
    """The clause around a number: back to the previous sentence break, on to the next."""
    lo = max(text.rfind(". ", 0, start), text.rfind("; ", 0, start), text.rfind("|", 0, start), -1) + 1
    nxt = [i for i in (text.find(". ", end), text.find("; ", end), text.find("|", end)) if i >= 0]
    hi = min(nxt) if nxt else len(text)
    return _NUM.sub(" ", text[lo:start] + " " + text[end:hi])


class _Builder:
    def __init__(self, path: str):
        self.path = path
        self.out: list[Mention] = []
        self._interval = 0

    def span(self, text: str, line: int, **ctx) -> list[Mention]:
        """Numbers of one span of text (a cell, a line of prose, a macro body)."""
        made = []
        ends = {}
        for im in _INTERVAL.finditer(text):
            self._interval += 1
            ends[im.start("a")] = ("low", self._interval)
            ends[im.start("b")] = ("high", self._interval)
        for m, value, decimals, exp, pct in numbers_in(text):
            start = m.start()
            role, iv = ends.get(start, (None, None))
            if role is None and m.group("sign"):
                role, iv = ends.get(m.start("body"), (None, None))
            before = text[:start]
            cmp_m = _CMP.search(before)
            if role is None and _PM.search(before):
                role = "pm"
            mention = Mention(file=self.path, line=line, text=m.group(0).strip(), value=value, decimals=decimals,
                              exponent=exp, percent=pct, comparator=cmp_m.group(1) if cmp_m else None,
                              role=role, interval=iv, window=_window(text, start, m.end()), **ctx)
            if mention.scale is None and not pct and _COUNT_AFTER.match(text, m.end()):
                mention.scale = "count"
            made.append((m.end(), mention))
        self.out.extend(mn for _, mn in made)
        return made


def _pins_to_last_number(made, pins: list[tuple[int, str]]) -> None:
    """``<!-- id: X -->`` pins the number just before it (both ends when that closes an interval)."""
    for pos, pid in pins:
        before = [mn for end, mn in made if end <= pos]
        if not before:
            continue
        last = before[-1]
        last.pin = pid
        specific = pid.rsplit(".", 1)[-1] in ("low", "high", "lower", "upper", "lo", "hi")
        if last.interval is not None and not specific:
            for _, mn in made:
                if mn.interval == last.interval and mn.pin is None:
                    mn.pin = pid


def _split_row(line: str, sep: str) -> list[str]:
    s = line.strip()
    if sep == "|":
        s = s.strip("|")
        return [c.strip() for c in re.split(r"(?<!\\)\|", s)]
    return [c.strip() for c in s.split(sep)]


def _is_sep_row(line: str) -> bool:
    return bool(re.fullmatch(r"\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*", line))


_IDENTITY_HEADER = re.compile(r"^\W*(arm|seed|run|comparison|contrast|method|algorithm|variant|model)\b", re.I)


def _label(cell: str) -> str:
    """A cell as a label: comments dropped, code spans kept as text."""
    return _HTML_COMMENT.sub(" ", cell).replace("`", "").replace("**", "").strip()


def _table_cells(b: _Builder, header: list[str], rows: list[tuple[int, str, list[str]]], section: str,
                 caption: str, cell_pins) -> None:
    ident_cols = [i for i, h in enumerate(header) if _IDENTITY_HEADER.search(h)] or [0]
    for lineno, raw, cells in rows:
        label = _label(cells[0]) if cells else ""
        identity = " ".join(_label(cells[i]) for i in ident_cols if i < len(cells))
        for ci, cell in enumerate(cells):
            col = header[ci] if ci < len(header) else ""
            pct_col = bool(re.search(r"(?<![\d\\])%|\bpercent(age)?s?\b|\bpp\b|\bpct\b", col, re.I))
            text, pins = cell_pins(cell)
            made = b.span(text, lineno, kind="table", row=label, column=col, identity=identity,
                          column_percent=pct_col, line_text=raw, section=section, table_caption=caption,
                          scale=None if ci in ident_cols else scale_word(col))
            _pins_to_last_number(made, pins)


def _md_clean(text: str) -> str:
    text = re.sub(r"`[^`]*`", " ", text)
    text = re.sub(r"!\[[^\]]*\]\([^)]*\)", " ", text)
    text = re.sub(r"\]\([^)]*\)", "]", text)
    return text.replace("**", "").replace("__", "")


def _md_pins(text: str) -> tuple[str, list[tuple[int, str]]]:
    pins = []
    out = []
    pos = 0
    for m in _HTML_COMMENT.finditer(text):
        out.append(text[pos:m.start()])
        pm = _PIN_MD.fullmatch(m.group(0))
        cur = sum(len(x) for x in out)
        if pm:
            pins.append((cur, pm.group(1)))
        out.append(" " * (m.end() - m.start()))
        pos = m.end()
    out.append(text[pos:])
    return "".join(out), pins


def parse_markdown(path: str | Path, text: str, rel: str) -> ParsedFile:
    b = _Builder(rel)
    lines = text.splitlines()
    section = ""
    fenced = False
    i = 0
    last_prose = ""
    while i < len(lines):
        line = lines[i]
        if re.match(r"\s*(```|~~~)", line):
            fenced = not fenced
            i += 1
            continue
        if fenced:
            i += 1
            continue
        if line.strip().startswith("|") and i + 1 < len(lines) and _is_sep_row(lines[i + 1]):
            header = [_md_clean(_md_pins(c)[0]) for c in _split_row(lines[i], "|")]
            caption = last_prose
            rows = []
            j = i + 2
            while j < len(lines) and lines[j].strip().startswith("|"):
                rows.append((j + 1, lines[j], _split_row(lines[j], "|")))
                j += 1
            # header numbers ("95% CI") are context, checked as prose
            hdr_text, hdr_pins = _md_pins(lines[i])
            made = b.span(_md_clean(hdr_text), i + 1, kind="heading", line_text=lines[i], section=section)
            _pins_to_last_number(made, hdr_pins)

            def cell_pins(cell):
                t, p = _md_pins(cell)
                return _md_clean(t), p

            _table_cells(b, header, rows, section, caption, cell_pins)
            i = j
            continue
        heading = re.match(r"\s*#{1,6}\s+(.*)", line)
        text_l, pins = _md_pins(line)
        text_l = re.sub(r"^\s*(?:\d+[.)]|[-*+])\s+", lambda m: " " * len(m.group(0)), text_l)
        text_l = _md_clean(text_l)
        if heading:
            section = heading.group(1).strip()
        made = b.span(text_l, i + 1, kind="heading" if heading else "prose", line_text=line, section=section)
        _pins_to_last_number(made, pins)
        if line.strip():
            last_prose = line.strip()
        i += 1
    return ParsedFile(rel, b.out, lines)


_TEX_SKIP = re.compile(r"^\s*\\(documentclass|usepackage|label|ref|cite|input|include|includegraphics|"
                       r"setlength|graphicspath|bibliography|bibliographystyle)\b")
_TEX_RULES = re.compile(r"\\(toprule|midrule|bottomrule|hline|cline\{[^}]*\}|cmidrule(\([^)]*\))?\{[^}]*\})")
_NEWCMD = re.compile(r"\\(?:re)?newcommand\*?\s*\{?\\([A-Za-z@]+)\}?\s*(?:\[\d\])?\s*\{(?P<body>(?:[^{}]|\{[^{}]*\})*)\}"
                     r"|\\def\s*\\([A-Za-z@]+)\s*\{(?P<body2>(?:[^{}]|\{[^{}]*\})*)\}")


def _tex_clean(text: str) -> str:
    text = re.sub(r"\\(textbf|textit|emph|mathrm|text|mathbf|num|SI|si)\s*\{", "{", text)
    text = re.sub(r"\\[a-zA-Z]+\*?\s*\[[^\]]*\]", " ", text)   # command options
    text = text.replace("\\pm", " ± ").replace("\\%", "%").replace("\\,", "").replace("{,}", ",")
    text = text.replace("$", " ").replace("{", " ").replace("}", " ").replace("--", "–")
    text = re.sub(r"\\(leq?|geq?|lt|gt)\b", lambda m: {"le": "≤", "leq": "≤", "ge": "≥", "geq": "≥",
                                                        "lt": "<", "gt": ">"}[m.group(1)], text)
    text = re.sub(r"\\[A-Za-z@]+", " ", text)
    return text


def _tex_strip_comment(line: str) -> tuple[str, str | None]:
    pin = _PIN_TEX.search(line)
    m = re.search(r"(?<!\\)%", line)
    return (line[:m.start()] if m else line), (pin.group(1) if pin else None)


def parse_latex(path: str | Path, text: str, rel: str) -> ParsedFile:
    b = _Builder(rel)
    lines = text.splitlines()
    section = ""
    in_tab = False
    header: list[str] | None = None
    rows: list = []
    caption = ""
    tab_start = 0
    for i, raw in enumerate(lines):
        line, pin = _tex_strip_comment(raw)
        sec = re.search(r"\\(?:sub)*section\*?\{([^}]*)\}", line)
        if sec:
            section = sec.group(1)
        cap = re.search(r"\\caption\{(.*)\}?", line)
        if cap:
            caption = cap.group(1)
        if re.search(r"\\begin\{tabular", line):
            in_tab, header, rows, tab_start = True, None, [], i
            continue
        if in_tab:
            if re.search(r"\\end\{tabular", line):
                in_tab = False
                if header is not None:
                    _table_cells(b, header, rows, section, caption, lambda c: (_tex_clean(c), []))
                continue
            body = _TEX_RULES.sub(" ", line).strip()
            if not body:
                continue
            for part in [p for p in re.split(r"\\\\", body) if p.strip()]:
                cells = [c.strip() for c in part.split("&")]
                if header is None:
                    header = [_tex_clean(c) for c in cells]
                    made = b.span(_tex_clean(part), i + 1, kind="heading", line_text=raw, section=section)
                else:
                    rows.append((i + 1, raw, cells))
            continue
        nc = _NEWCMD.search(line)
        if nc:
            name = nc.group(1) or nc.group(3)
            body = nc.group("body") if nc.group("body") is not None else nc.group("body2")
            made = b.span(_tex_clean(body), i + 1, kind="macro", macro=name, pin=None, line_text=raw, section=section)
            for _, mn in made:
                mn.pin = pin
            continue
        if _TEX_SKIP.match(line) or re.match(r"\s*\\(begin|end)\{", line):
            continue
        made = b.span(_tex_clean(line), i + 1, kind="prose", line_text=raw, section=section)
        if pin:
            _pins_to_last_number(made, [(10**9, pin)])
    del tab_start
    return ParsedFile(rel, b.out, lines)


def parse_report(report_dir: Path, rel_of) -> list[ParsedFile]:
    files = []
    for p in sorted(report_dir.rglob("*")):
        if not p.is_file() or p.suffix not in (".md", ".tex"):
            continue
        try:
            text = p.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            raise UserError(f"{p}: cannot read ({exc.strerror})") from None
        rel = rel_of(p)
        files.append(parse_markdown(p, text, rel) if p.suffix == ".md" else parse_latex(p, text, rel))
    return files
