r"""A LaTeX report section as pieces of text and tables: a small, documented grammar.

No maintained Python LaTeX parser both keeps source lines and reads ``tabular`` cells (pylatexenc
drops line numbers, TexSoup is unmaintained), so this module reads the subset a results section uses.
Its rule is that a command hides only itself and its own arguments, never the rest of the line
(README failure 10: ``\label{sec:x} GSPO mean held-out accuracy was 0.9999.`` must be read).

The grammar, line by line:

- ``%`` starts a comment to the end of the line (``\%`` is a percent sign). Numbers in comments
  are counted as "comment". ``% id: X`` pins the last number before it on that line (for a macro
  definition, every number of its body). ``\begin{comment}`` ... ``\end{comment}`` is a comment.
- ``verbatim``, ``Verbatim``, ``lstlisting`` and ``minted`` environments, and ``\verb|...|``, are code.
  A ``thebibliography`` environment (``\bibitem`` ...) is a citation: its years, volumes and pages
  name references, never results (:mod:`audit.statuses`).
- ``\newcommand``, ``\renewcommand``, ``\providecommand`` (``*`` and ``[n]`` allowed) and
  ``\def\Name{...}`` define macros: the body's numbers are kept with the macro name. Text after the
  definition on the same line is prose.
- ``\title``, ``\chapter``, ``\section``, ``\subsection``, ``\subsubsection`` and ``\paragraph``
  (starred or not) are headings: they scope what follows until the next heading of the same or a
  higher level. ``\caption{...}`` names the table it is in (or the next one) and is prose too.
- ``tabular``, ``tabular*``, ``tabularx``, ``longtable`` and ``array``: rows end at ``\\``, cells
  split at ``&``. Rows before the first ``\midrule``/``\hline`` that follows a row are the header
  (several header rows are joined per column); ``\multicolumn{n}{spec}{text}`` spans n columns,
  ``\multirow{n}{width}{text}`` is its text. ``\toprule``, ``\midrule``, ``\bottomrule``,
  ``\hline``, ``\cline``, ``\cmidrule``, ``\addlinespace`` are rules.
- Commands skipped with their arguments (and nothing else): ``\label``, ``\ref``, ``\eqref``,
  ``\autoref``, ``\cref``, ``\cite`` (all variants), ``\input``, ``\include``, ``\includegraphics``,
  ``\usepackage``, ``\documentclass``, ``\bibliography``, ``\bibliographystyle``, ``\url``, the URL
  of ``\href``, ``\vspace``, ``\hspace``, ``\setlength``, ``\graphicspath``, ``\begin``/``\end``
  with the environment name.
- Numbers: ``\num{1.2e-3}`` and ``\SI{61.3}{\percent}`` / ``\qty{...}{...}`` are their number;
  ``\numrange{a}{b}``, ``\qtyrange{a}{b}{unit}`` and ``\SIrange{a}{b}{unit}`` the interval ``[a, b]``
  (``\percent`` and ``\%`` a percent sign), ``\pm`` is ±, ``\leq``/``\geq``/``\lt``/``\gt`` are
  comparators, ``{,}`` and ``\,`` between digits are a thousands separator; ``$`` and braces are
  spaces, every other command is dropped and its arguments read as text.

Every step is linear in the input: each line is scanned once, arguments by brace counting.
"""

from __future__ import annotations

import bisect
import re

from audit.doc import Doc, Piece, Table

_PIN = re.compile(r"%\s*id\s*:\s*([A-Za-z0-9_.:\-/]+)")
_CMD = re.compile(r"\\([A-Za-z@]+)\*?|\\(.)|[${}~]")
# command -> number of brace arguments skipped with it
_SKIP = {"label": 1, "ref": 1, "eqref": 1, "autoref": 1, "cref": 1, "Cref": 1, "pageref": 1, "nameref": 1,
         "cite": 1, "citep": 1, "citet": 1, "citealp": 1, "citeauthor": 1, "citeyear": 1, "nocite": 1,
         "input": 1, "include": 1, "includegraphics": 1, "usepackage": 1, "documentclass": 1,
         "bibliography": 1, "bibliographystyle": 1, "url": 1, "href": 1, "vspace": 1, "hspace": 1,
         "setlength": 2, "graphicspath": 1, "begin": 1, "end": 1, "cline": 1, "cmidrule": 1, "addlinespace": 0,
         "toprule": 0, "midrule": 0, "bottomrule": 0, "hline": 0, "newline": 0, "centering": 0,
         "multicolumn": 2, "multirow": 2, "tnote": 1, "color": 1, "textcolor": 1, "cellcolor": 1, "rowcolor": 1,
         "resizebox": 2, "scalebox": 1, "setcounter": 2, "addtocounter": 2, "hypersetup": 1,
         # settings of the typesetting, not of the study ("\\sisetup{group-minimum-digits=4}")
         "sisetup": 1, "captionsetup": 1, "geometry": 1, "lstset": 1, "definecolor": 3, "setlist": 1}
_SYMBOLS = {"pm": " ± ", "mp": " ∓ ", "leq": " ≤ ", "le": " ≤ ", "geq": " ≥ ", "ge": " ≥ ", "lt": " < ",
            "gt": " > ", "percent": "%", "times": " × ", "cdot": " · ", "approx": " ≈ ", "sim": " ~ ", "minus": "−",
            "textminus": "−", "Delta": "Δ", "delta": "δ", "textpm": " ± ", "alpha": "α",
            # significance marks on a table value (audit.markers): "0.58$^\\dagger$" is "0.58†"
            "dagger": "†", "ddagger": "‡", "textdagger": "†", "textdaggerdbl": "‡", "ast": "*"}
_ESCAPES = {"%": "%", "&": "&", "_": "_", "#": "#", "$": "$", "{": "{", "}": "}", "\\": " ", " ": " ", ";": " ",
            ":": " ", "!": "", "-": "", "'": "", '"': "", "`": "", "^": "^", "~": "~"}
_SECTION = {"title": 1, "chapter": 1, "section": 2, "subsection": 3, "subsubsection": 4, "paragraph": 5}
_HEAD = re.compile(r"\\(title|chapter|section|subsection|subsubsection|paragraph)\*?\s*(?:\[[^\]]*\])?\s*\{")
_MACRO = re.compile(r"\\(?:(?:re|provide)?newcommand|DeclareRobustCommand)\*?\s*\{?\s*\\([A-Za-z@]+)\s*\}?"
                    r"\s*(?:\[\d\])?\s*(?:\[[^\]]*\])?\s*\{|\\def\s*\\([A-Za-z@]+)\s*\{")
_TABULAR = re.compile(r"\\begin\{(tabular\*?|tabularx|longtable|array)\}")
_CODE_ENV = re.compile(r"\\begin\{(verbatim\*?|Verbatim|lstlisting|minted|comment|thebibliography)\}")
_RULE = re.compile(r"\s*(?:\\(?:toprule|cmidrule|cline)\S*\s*)*\\(?:midrule|hline)\b")
_LEAD = re.compile(r"(?:\s|\\(?:toprule|midrule|bottomrule|hline|addlinespace)\b|\\c(?:mid)?rule(?:\([^)]*\))?\{[^}]*\})*")


def brace_ends(s: str) -> dict[int, int]:
    """{index of each "{" that closes on ``s``: index just after its "}"}, in one linear pass.

    Computed once per line so that many unclosed groups (``\\label{`` repeated) stay linear."""
    out: dict[int, int] = {}
    stack: list[int] = []
    i, n = 0, len(s)
    while i < n:
        c = s[i]
        if c == "\\":
            i += 2
            continue
        if c == "{":
            stack.append(i)
        elif c == "}" and stack:
            out[stack.pop()] = i + 1
        i += 1
    return out


def _skip_args(s: str, i: int, n_args: int, ends: dict[int, int]) -> int:
    """Past optional ``[..]``/``(..)`` groups and up to ``n_args`` brace groups from ``i``."""
    n = len(s)
    while True:
        j = i
        while j < n and s[j] in " \t*":
            j += 1
        if j < n and s[j] in "[(" and n_args:
            close = s.find("]" if s[j] == "[" else ")", j)
            if close < 0:
                return i
            i = close + 1
            continue
        if j < n and s[j] == "{" and n_args > 0:
            e = ends.get(j, -1)
            if e < 0:
                return i
            i, n_args = e, n_args - 1
            continue
        return i


def _arg(s: str, i: int, ends: dict[int, int]) -> tuple[str, int]:
    """The next brace argument from ``i`` (its inside, the index after it); ("", i) when none."""
    j = i
    while j < len(s) and s[j] in " \t":
        j += 1
    if j < len(s) and s[j] == "{":
        e = ends.get(j, -1)
        if e > 0:
            return s[j + 1:e - 1], e
    return "", i


def clean(s: str) -> str:
    """LaTeX source (no comments) as the text it typesets, by the grammar of this module.

    Args:
        s: one line (or cell) of LaTeX without its comment.
    Returns:
        The text, with the same newlines.
    Example:
        >>> " ".join(clean(r"\\label{sec:x} GSPO $0.61 \\pm 0.02$ (\\SI{61.3}{\\percent})").split())
        'GSPO 0.61 ± 0.02 ( 61.3% )'
    """
    s = s.replace("{,}", ",")
    if "\\" not in s:
        return s.replace("$", " ").replace("{", " ").replace("}", " ").replace("~", " ")
    ends = brace_ends(s)
    out: list[str] = []
    i = 0
    while True:
        m = _CMD.search(s, i)
        if not m:
            out.append(s[i:])
            break
        out.append(s[i:m.start()])
        i = m.end()
        name, sym = m.group(1), m.group(2)
        if name is None and sym is None:
            out.append(" ")
        elif sym is not None:
            if sym == ",":
                between = m.start() > 0 and s[m.start() - 1].isdigit() and i < len(s) and s[i].isdigit()
                out.append("" if between or s.startswith("\\%", i) else " ")   # "\num{58.92}\,\%": a thin space before %
            else:
                out.append(_ESCAPES.get(sym, " "))
        elif name in ("SI", "qty"):
            num, i = _arg(s, i, ends)
            unit, i = _arg(s, i, ends)
            pp = re.search(r"\bpp\b|percentagepoints?", unit.replace("\\", " ").replace(" ", ""))
            out.append(" " + clean(num) + (" pp" if pp else "%" if "percent" in unit or "%" in unit else " ")
                       + " ")   # \SI{1.21}{pp}: percentage points
        elif name in ("numrange", "qtyrange", "SIrange"):
            lo, i = _arg(s, i, ends)
            hi, i = _arg(s, i, ends)
            unit = ""
            if name != "numrange":
                unit, i = _arg(s, i, ends)
            pp = re.search(r"\bpp\b|percentagepoints?", unit.replace("\\", " ").replace(" ", ""))
            out.append(" [" + clean(lo).strip() + ", " + clean(hi).strip() + "]"
                       + (" pp " if pp else "% " if "percent" in unit or "%" in unit else " "))   # an interval
        elif name in ("si", "unit"):
            unit, i = _arg(s, i, ends)
            out.append("%" if "percent" in unit else " ")
        elif name == "verb" and i < len(s):
            e = s.find(s[i], i + 1)
            e = len(s) if e < 0 else e
            out.append(" " * (e + 1 - i))   # code: not a prose number (counted by the caller's hint)
            i = min(e + 1, len(s))
        elif name in _SKIP:
            j = _skip_args(s, i, _SKIP[name], ends)
            out.append(" " + "\n" * s.count("\n", i, j))
            i = j
        else:
            out.append(_SYMBOLS.get(name, " "))
    return "".join(out)


def _split_comment(line: str) -> tuple[str, str, str | None]:
    """(code, comment, pin) of one line: ``%`` not escaped starts the comment."""
    i = line.find("%")
    while i > 0 and line[i - 1] == "\\":
        i = line.find("%", i + 1)
    if i < 0:
        return line, "", None
    comment = line[i:]
    pm = _PIN.match(comment)
    return line[:i], comment, (pm.group(1) if pm else None)


class _Walker:
    """The line-by-line state of :func:`walk`."""

    def __init__(self, lines: list[str]):
        self.lines = lines
        self.doc = Doc()
        self.scope: list[tuple[int, str]] = []
        self.caption = ""
        self.para: list[tuple[int, str, str, str | None]] = []   # (line, code, comment, pin)

    @property
    def cur(self) -> tuple[str, ...]:
        return tuple(t for _, t in self.scope)

    def flush(self) -> None:
        """The paragraph so far as one prose piece (comments kept as "comment" ranges)."""
        if not self.para:
            return
        parts, hints, pins, pos = [], [], [], 0
        for _, code, comment, pin in self.para:
            text = clean(code)
            parts.append(text)
            pos += len(text)
            if pin:
                pins.append((pos, pin))
            elif comment:
                hints.append((pos, pos + len(comment) + 1, "comment"))
                parts.append(" " + comment)
                pos += len(comment) + 1
            parts.append("\n")
            pos += 1
        self.doc.items.append(Piece("".join(parts), self.para[0][0], "prose", self.cur, hints, pins,
                                    "\n".join(c for _, c, _, _ in self.para)))
        self.para = []

    def heading(self, lineno: int, code: str, m: re.Match) -> str:
        """A sectioning command; returns the text after its title ("\\paragraph{Results.} GSPO gains
        1.85 points": a run-in heading's paragraph starts on its line, and is prose, not heading)."""
        level = _SECTION[m.group(1)]
        title, end = _arg(code, m.end() - 1, brace_ends(code))
        while self.scope and self.scope[-1][0] >= level:
            self.scope.pop()
        self.scope.append((level, " ".join(clean(title).split())))
        head = code[:end] if end > m.end() - 1 else code
        self.doc.items.append(Piece(clean(head), lineno, "heading", self.cur, raw=head))
        return code[len(head):]

    def macros(self, lineno: int, code: str, pin: str | None) -> str:
        """Macro definitions on a line become macro pieces; the rest of the line is returned."""
        rest, pos, ends = [], 0, brace_ends(code)
        for m in _MACRO.finditer(code):
            if m.start() < pos:
                continue
            body_end = ends.get(m.end() - 1, -1)
            if body_end < 0:
                break
            body = clean(code[m.end():body_end - 1])
            pins = [(len(body), pin)] if pin else []
            self.doc.items.append(Piece(body, lineno, "macro", self.cur, [], pins, code, m.group(1) or m.group(2)))
            rest.append(code[pos:m.start()])
            pos = body_end
        rest.append(code[pos:])
        return " ".join(rest)


def walk(text: str) -> Doc:
    """Read a LaTeX file into pieces and tables in document order (grammar: module docstring).

    Args:
        text: the whole .tex file.
    Returns:
        A :class:`audit.doc.Doc`.
    Example:
        >>> [(p.kind, p.text.split()) for p in walk(r"\\label{s:x} GSPO 0.9999.").items]
        [('prose', ['GSPO', '0.9999.'])]
    """
    lines = text.splitlines()
    w = _Walker(lines)
    i, n = 0, len(lines)
    while i < n:
        raw = lines[i]
        code, comment, pin = _split_comment(raw)
        env = _CODE_ENV.search(code)
        tab = _TABULAR.search(code)
        if env:
            w.flush()
            i = _code_env(w, i, env)
            continue
        if tab:
            w.para.append((i + 1, code[:tab.start()], "", None))
            w.flush()
            i = _tabular(w, i, tab)
            continue
        if not code.strip() and not comment:
            w.flush()
        elif _MACRO.search(code):
            w.flush()
            rest = w.macros(i + 1, code, pin)
            if rest.strip() or comment and not pin:
                w.para.append((i + 1, rest, "" if pin else comment, None))
        elif (hm := _HEAD.search(code)):
            w.flush()
            rest = w.heading(i + 1, code, hm)
            if rest.strip() or comment:
                w.para.append((i + 1, rest, comment, pin))
        else:
            cap = re.search(r"\\caption\*?\s*(?:\[[^\]]*\])?\s*\{", code)
            if cap:
                w.caption = _caption(w.lines, i, code, cap.end() - 1)
            w.para.append((i + 1, code, comment, pin))
        i += 1
    w.flush()
    return w.doc


_COMMENT = re.compile(r"(?<!\\)%.*")


def _caption(lines: list[str], i: int, code: str, brace: int) -> str:
    """The text of the ``\\caption{`` whose brace is at ``brace`` of line ``i`` (``code``, its comment
    cut), read over the following lines when it does not close on its own (at most 8 lines: a caption
    typed over two lines was lost, and with it the unit it states: README failure 15)."""
    text = code
    for k in range(i + 1, min(i + 9, len(lines)) + 1):
        arg, end = _arg(text, brace, brace_ends(text))
        if end > brace:
            return " ".join(clean(arg).split())
        if k >= len(lines):
            break
        text += "\n" + _COMMENT.sub("", lines[k])
    return ""


def _code_env(w: _Walker, i: int, env: re.Match) -> int:
    """A verbatim-like (code), comment or bibliography environment, up to its \\end; returns the next line index."""
    name = env.group(1)
    end = "\\end{" + name + "}"
    start = i
    body = [w.lines[i][env.end():]]
    while end not in body[-1] and i + 1 < len(w.lines):
        i += 1
        body.append(w.lines[i])
    text = "\n".join(body)
    text = text[:text.find(end)] if end in text else text
    hint = {"comment": "comment", "thebibliography": "citation"}.get(name, "code")
    w.doc.items.append(Piece(text, start + 1, hint, w.cur, [(0, len(text), hint)], [], text))
    return i + 1


def _tabular(w: _Walker, i: int, tab: re.Match) -> int:
    """One tabular-like environment (possibly spread over many lines); returns the next line index."""
    start = i
    chunks, pins = [], []
    first_code, first_comment, first_pin = _split_comment(w.lines[i])
    after = _skip_args(first_code, tab.end(), 2 if tab.group(1) in ("tabular*", "tabularx") else 1,
                       brace_ends(first_code))
    line_code = first_code[after:]
    comments = [(i + 1, first_comment)] if first_comment and not first_pin else []
    while True:
        end = line_code.find("\\end{" + tab.group(1) + "}")
        chunks.append(line_code if end < 0 else line_code[:end])
        pin = first_pin if i == start else _split_comment(w.lines[i])[2]
        if pin:
            pins.append((i + 1, pin))
        if end >= 0 or i + 1 >= len(w.lines):
            break
        i += 1
        line_code, comment, pin2 = _split_comment(w.lines[i])
        if comment and not pin2:
            comments.append((i + 1, comment))
    body = "\n".join(chunks)
    w.doc.items.append(_table_of(body, start + 1, w.cur, w.caption, pins, w.lines))
    for ln, c in comments:
        w.doc.items.append(Piece(c, ln, "comment", w.cur, [(0, len(c), "comment")], [], c))
    w.caption = ""
    return i + 1


def _cells(row: str) -> list[str]:
    return re.split(r"(?<!\\)&", row)


def _span(cell: str) -> int:
    m = re.match(r"\s*\\multicolumn\s*\{\s*(\d+)\s*\}", cell)
    return int(m.group(1)) if m else 1


def _table_of(body: str, line: int, scope, caption: str, pins, lines) -> Table:
    """Rows, header rows (before the first rule after a row) and cells of a tabular body."""
    nl = [k for k, ch in enumerate(body) if ch == "\n"]
    rows: list[tuple[int, str, bool]] = []   # (start offset, text, a rule follows it)
    pos = 0
    for m in re.finditer(r"\\\\(?:\s*\[[^\]]*\])?", body):
        rows.append((pos, body[pos:m.start()], False))
        pos = m.end()
    if body[pos:].strip():
        rows.append((pos, body[pos:], False))
    parsed = []
    for off, text, _ in rows:
        lead = _LEAD.match(text).end()
        parsed.append((line + bisect.bisect_right(nl, off + lead), text, bool(_RULE.match(text))))
    n_head = next((k for k, (_, _, rule) in enumerate(parsed) if k > 0 and rule), 1)
    head_rows = [(ln, t) for ln, t, _ in parsed[:n_head]]
    body_rows = [(ln, t) for ln, t, _ in parsed[n_head:] if clean(t).strip()]
    header = _header(head_rows, scope)
    out_rows = []
    for ln, t in body_rows:
        cells = [Piece(clean(c), ln, "cell", scope, raw=c) for c in _cells(t)]
        for pl, pid in pins:
            if pl == ln and cells:
                cells[-1].pins.append((len(cells[-1].text), pid))
        out_rows.append((ln, lines[ln - 1] if 0 < ln <= len(lines) else t, cells))
    return Table(line, header, out_rows, scope, caption)


def _header(head_rows, scope) -> list[Piece]:
    """One header piece per column; a multicolumn cell heads each column it spans."""
    cols: list[list[str]] = []
    line = head_rows[0][0] if head_rows else 0
    for _, t in head_rows:
        k = 0
        for c in _cells(t):
            for _ in range(_span(c)):
                while len(cols) <= k:
                    cols.append([])
                txt = " ".join(clean(c).split())
                if txt:
                    cols[k].append(txt)
                k += 1
    return [Piece(" ".join(c), line, "cell", scope, raw=" ".join(c)) for c in cols]
