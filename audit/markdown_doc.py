"""A Markdown report as the pieces of text a reader sees, parsed by markdown-it-py (CommonMark).

Why a real parser: a report can hide numbers from a line-based reader (a line starting with three
backticks that is an inline code span, not a fence, used to switch off the audit for the rest of the
file; README failure 10). Here block and inline structure are exactly CommonMark's, as implemented
by markdown-it-py, plus GFM pipe tables ("table" rule), footnotes and YAML front matter
(mdit-py-plugins).

What a piece is: a run of text with the line it starts on, the headings it sits under (``scope``)
and sub-ranges whose numbers are not prose values:

- code spans, fenced and indented code blocks: ``code`` (counted and shown "in code");
- HTML comments (inline or block): ``comment``; a comment ``<!-- id: X -->`` is a pin instead,
  bound by :mod:`audit.numbers` to the number just before it;
- YAML front matter: ``front_matter`` (its text is also kept whole for the model-index check);
- a fenced ``bibtex``/``bib``/``biblatex`` block (a citation): ``citation``, its year and pages name
  the reference and are never report numbers (:mod:`audit.statuses`).

Link destinations, image URLs, footnote reference labels and HTML tags are not text and never
yield numbers; link text, image alt text and footnote bodies are text like any other.

Every step is linear in the size of the input: one markdown-it pass, one walk over its tokens.
"""

from __future__ import annotations

import bisect
import re
from functools import lru_cache

from markdown_it.common.html_re import HTML_TAG_RE
from markdown_it.common.utils import mdTrim
from markdown_it.rules_block.blockquote import blockquote as _blockquote
from markdown_it.rules_block.table import MAX_AUTOCOMPLETED_CELLS, escapedSplit, getLine
from markdown_it.rules_block.table import table as gfm_table

from audit.code_table import read_code_table
from audit.doc import Doc, Piece, Table
from audit.html_table import read_html

_BIB_FENCE = re.compile(r"\s*(?:bibtex|bib|biblatex)\b", re.I)

PIN_MD = re.compile(r"<!--\s*id\s*:\s*([A-Za-z0-9_.:\-/]+)\s*-->\s*$")
_TAG = re.compile(r"<[^<>]{0,2000}>")


@lru_cache(maxsize=2)
def _parser(shortcuts: bool = True):
    from markdown_it import MarkdownIt
    from mdit_py_plugins.footnote import footnote_plugin
    from mdit_py_plugins.front_matter import front_matter_plugin

    md = MarkdownIt("commonmark").enable("table").use(front_matter_plugin).use(footnote_plugin)
    if shortcuts:
        md.core.ruler.at("inline", _inline_where_needed)
        md.block.ruler.at("table", _table_rows_rule, {"alt": ["paragraph", "reference"]})   # as markdown-it-py's
        md.block.ruler.at("blockquote", _quote_rule, {"alt": ["paragraph", "reference", "blockquote", "list"]})
    return md


def _quote_rule(state, start: int, end: int, silent: bool) -> bool:
    """markdown-it-py's block quote rule, with a block quote nested ``k`` deep on every line read in one
    pass instead of ``k`` (README failure 10: markdown-it strips one ``>`` a level, so a 5 MB report of
    lists in quotes 12 deep read each line twelve times, the nesting shape's largest parse cost).

    Where every line from ``start`` to the next blank line (or ``end``) begins at the margin with the same
    ``"> " * k`` (k >= 2) and then text (no space, tab or ``>``), each level would strip exactly that from
    each line and end at the same line: here the ``k`` levels' tokens are pushed around one tokenize of
    the lines with the whole prefix stripped, the line offsets set as the ``k``-th level sets them (bMarks
    past the prefix, no shift, sCount 0, bsCount 2) and restored after. Anything else (lazy lines, tabs,
    indents, other depths, inside a list) is markdown-it-py's own rule; tests/test_audit_parse.py compares
    the tokens of both on quote shapes."""
    if silent or state.blkIndent or state.parentType != "root" or state.md.options.get("alerts", False):
        return _blockquote(state, start, end, silent)
    k, stop = _uniform_quote(state, start, end)
    if k < 2:
        return _blockquote(state, start, end, silent)
    saved = [(state.bMarks[n], state.tShift[n], state.sCount[n], state.bsCount[n]) for n in range(start, stop)]
    for n in range(start, stop):
        state.bMarks[n] += 2 * k
        state.sCount[n], state.bsCount[n] = 0, 2
    old_parent, state.parentType = state.parentType, "blockquote"
    maps = []
    for _ in range(k):
        tok = state.push("blockquote_open", "blockquote", 1)
        tok.markup, tok.map = ">", [start, 0]
        maps.append(tok.map)
    state.md.block.tokenize(state, start, stop)
    for _ in range(k):
        state.push("blockquote_close", "blockquote", -1).markup = ">"
    state.parentType = old_parent
    for m in maps:
        m[1] = state.line
    for n, (b, t, sc, bs) in zip(range(start, stop), saved, strict=True):
        state.bMarks[n], state.tShift[n], state.sCount[n], state.bsCount[n] = b, t, sc, bs
    return True


def _uniform_quote(state, start: int, end: int) -> tuple[int, int]:
    """(k, the line after the quote) where lines ``start`` up to a blank line or ``end`` all begin at the
    margin with ``"> " * k`` and then a character that is no space, tab or ``>``; (0, start) otherwise."""
    src, b0 = state.src, state.bMarks[start]
    if state.tShift[start] or state.sCount[start]:
        return 0, start
    k = 0
    while src.startswith("> ", b0 + 2 * k):
        k += 1
    prefix = "> " * k
    if k < 2:
        return 0, start
    line = start
    while line < end:
        b, e = state.bMarks[line], state.eMarks[line]
        if b + state.tShift[line] >= e:
            break   # a blank line ends every level of the quote
        if state.tShift[line] or state.sCount[line] or not src.startswith(prefix, b) or b + 2 * k >= e \
                or src[b + 2 * k] in " \t>":
            return 0, start
        line += 1
    return k, line


def _table_rows_rule(state, start: int, end: int, silent: bool) -> bool:
    """markdown-it-py's GFM table rule (``rules_block/table.py``) with the same lines, cells and end,
    emitted as ``table_open``, one ``table_rows`` token and ``table_close`` instead of ~3 tokens a cell
    (README failure 10: a 5 MB table is ~600,000 cells). The header and delimiter rows are checked by
    markdown-it-py's own rule; the body rows are read as it reads them. ``meta["rows"]``: (line, cell
    contents) for the header row and each body row, ``columns`` cells each."""
    if not gfm_table(state, start, end, True):
        return False
    if silent:
        return True
    head = _split_row(mdTrim(getLine(state, start)), escapedSplit)
    count = len(head)
    rows = [(start, [mdTrim(c) for c in head])]
    terminators = state.md.block.ruler.getRules("blockquote")
    old_parent, state.parentType = state.parentType, "table"
    line, autocompleted = start + 2, 0
    while line < end and state.sCount[line] >= state.blkIndent:
        first = state.bMarks[line] + state.tShift[line]
        if state.src[first:first + 1] in _MAY_INTERRUPT \
                and any(rule(state, line, end, True) for rule in terminators):
            break
        text = mdTrim(getLine(state, line))
        if not text or state.is_code_block(line):
            break
        cells = _split_row(text, escapedSplit)
        autocompleted += count - len(cells)
        if autocompleted > MAX_AUTOCOMPLETED_CELLS:
            break
        rows.append((line, [mdTrim(c) if c else "" for c in cells[:count]] + [""] * (count - len(cells))))
        line += 1
    state.push("table_open", "table", 1).map = [start, line]
    state.push("table_rows", "", 0).meta["rows"] = rows
    state.push("table_close", "table", -1)
    state.parentType = old_parent
    state.line = line
    return True


# The first characters at which a block that ends a table can start (markdown-it-py's "blockquote"
# terminators, each of which looks at the line's first non-space character first: a fence's ` or ~,
# a quote's >, a rule's * - _, a list's * - + or digit, an HTML block's <, a heading's #). A row
# starting with anything else ("|", a letter) is read without asking them.
_MAY_INTERRUPT = frozenset("`~>*-_+<#0123456789") | {""}


def _split_row(text: str, escaped_split) -> list[str]:
    """A row's cells as markdown-it-py splits them (``escapedSplit``; a plain ``split`` when no
    backslash can escape a pipe), minus the empty cells outside the first and last pipe."""
    cells = escaped_split(text) if "\\" in text else text.split("|")
    if cells and cells[0] == "":
        cells.pop(0)
    if cells and cells[-1] == "":
        cells.pop()
    return cells


# Characters at which some inline rule of this parser (CommonMark + footnotes) can start: text without
# any of them is one text token, exactly what markdown-it's inline parser makes of it.
_RULE_CHAR = re.compile(r"[\n\\`*_\[\]!^<>&~]")
_DIGIT = re.compile(r"\d")


def _inline_where_needed(state) -> None:
    """markdown-it's core "inline" rule, minus the work that cannot change a number (README failure 10:
    a 5 MB report must audit in seconds, and inline parsing is much of markdown-it's time).

    - An inline token with no digit (``\\d``: any script's digits) yields no number: it is left
      unparsed (``meta["lazy"]``) unless it is a heading (scope), a cell of a table that has a digit
      (row and column labels) or holds a footnote (``[^``, ``^[``: footnote order). A character
      reference that makes a digit (``&#49;``) has digits; no named entity makes one.
    - Content with no character an inline rule can start at is one text token (what the parser makes):
      it is marked ``meta["plain"]`` and read as its content, with no token made. Brackets alone
      ("95% CI [0.58, 0.64]") start nothing when no link can form (see :func:`_needs_inline`).

    Everything else is parsed by markdown-it as usual; :func:`walk` parses a left-over token only if
    it becomes a table's caption. ``walk(text, shortcuts=False)`` is the plain parser, for tests."""
    md, env = state.md, state.env
    toks = state.tokens
    table_digits = False
    for i, tok in enumerate(toks):
        t = tok.type
        if t == "table_open":
            table_digits = _table_has_digit(toks, i)
        elif t == "table_rows":
            tok.meta["cells"] = _row_cells(md, env, tok.meta["rows"], table_digits)
        elif t == "inline":
            c = tok.content
            if tok.children is None:
                tok.children = []
            if not (_DIGIT.search(c) or table_digits or (i and toks[i - 1].type == "heading_open")
                    or "[^" in c or "^[" in c):
                tok.meta["lazy"] = True
            elif _needs_inline(c, env):
                spans = None if _NOT_CODE_ONLY.search(c) else _code_spans(c)
                if spans is not None:
                    tok.meta["code"] = spans   # text with code spans only: read without the inline parser
                    continue
                comments = _comments_only(c) if "<!--" in c and toks[i - 1].type != "heading_open" else None
                if comments is None:
                    md.inline.parse(c, md, env, tok.children)
                else:
                    tok.meta["comments"] = comments   # text with HTML comments only: likewise
            else:
                tok.meta["plain"] = True   # one text token: its content, as is (no token made)
        elif t == "table_close":
            table_digits = False


_RULE_START = re.compile(r"[\n\\`*_<>&~]")   # some inline rule may start at these, whatever follows


def _needs_inline(content: str, env: dict) -> bool:
    """Whether markdown-it's inline parser can make of ``content`` anything but one text token.

    ``[``, ``]``, ``!`` and ``^`` start a rule only as a link (``](`` follows its label, or a
    reference definition exists in the document), an image (``![``) or a footnote (``[^``, ``^[``);
    without those they are text, as the parser itself finds after trying (and its link-label scan
    re-runs every inline rule over the bracketed words: most of the inline time of a results
    paragraph full of intervals)."""
    if _RULE_START.search(content):
        return True
    if not _RULE_CHAR.search(content):
        return False
    return "references" in env or "](" in content or "![" in content or "[^" in content or "^[" in content


# Any character but a backtick at which an inline rule (or a link, image or footnote) may start.
_NOT_CODE_ONLY = re.compile(r"[\n\\*_\[\]!^<>&~]")
_TICKS = re.compile(r"`+")


def _code_spans(content: str) -> tuple[str, list[tuple[int, int, str]]] | None:
    """The text a reader sees in inline content whose only markup is backticks, with its code spans
    marked "code": what :func:`inline_piece` makes of markdown-it's tokens for it, without the inline
    parser (README failure 10: a report of code spans spent most of its parse there).

    CommonMark code spans (markdown-it-py's ``backticks`` rule): a run of N backticks opens a span
    that the next run of exactly N closes; with no such run it is literal text and reading goes on
    after it. A span's content keeps its text, less one space at each end when both ends have one
    and it is not all spaces. Runs are indexed by length once, so unmatched runs stay linear. None
    when there is no backtick.

    Example:
        >>> _code_spans("Run `acc = 0.5` with ``a`b`` and ` alone")
        ('Run acc = 0.5 with a`b and ` alone', [(4, 13, 'code'), (19, 22, 'code')])
    """
    runs = [(m.start(), m.end()) for m in _TICKS.finditer(content)]
    if not runs:
        return None
    by_len: dict[int, list[int]] = {}
    for k, (a, b) in enumerate(runs):
        by_len.setdefault(b - a, []).append(k)
    parts, hints, pos, at, i = [], [], 0, 0, 0   # pos: length of the text so far; at: read up to here
    while i < len(runs):
        a, b = runs[i]
        same = by_len[b - a]
        k = bisect.bisect_right(same, i)
        if k == len(same):
            i += 1   # no closer: the run is text
            continue
        j = same[k]
        code = content[b:runs[j][0]]
        if code.startswith(" ") and code.endswith(" ") and code.strip():
            code = code[1:-1]
        parts.append(content[at:a])
        pos += a - at
        hints.append((pos, pos + len(code), "code"))
        parts.append(code)
        pos += len(code)
        at = runs[j][1]
        i = j + 1
    parts.append(content[at:])
    return "".join(parts), hints


def _comments_only(content: str) -> tuple[str, list, list] | None:
    """The text, hints and pins :func:`inline_piece` makes of inline content whose only markup is HTML
    comments (``0.682<!-- id: X --> and <!-- draft: was 0.548 --> GRPO 0.739``), without the inline
    parser (README failure 10: a report of pinned and commented numbers spent most of its parse there).

    Between the comments there may be no character at which an inline rule can start (``_RULE_CHAR``:
    then markdown-it-py makes that text one text token); each ``<`` must open a comment as markdown-it-py's
    ``html_inline`` rule reads one (its own ``HTML_TAG_RE``; no earlier rule, an autolink, can match at
    ``<!``). None otherwise: the inline parser reads it.

    Example:
        >>> _comments_only("GSPO 0.68<!-- id: arms.gspo.acc --> and <!-- was 0.5 --> x")
        ('GSPO 0.68                           and <!-- was 0.5 --> x', [(40, 56, 'comment')], [(9, 'arms.gspo.acc')])
        >>> _comments_only("a <b>0.5</b> <!-- c -->") is None
        True
    """
    parts: list[str] = []
    hints: list[tuple[int, int, str]] = []
    pins: list[tuple[int, str]] = []
    at = pos = 0
    while True:
        lt = content.find("<", at)
        seg = content[at:lt if lt >= 0 else len(content)]
        if _RULE_CHAR.search(seg):
            return None
        parts.append(seg)
        pos += len(seg)
        if lt < 0:
            break
        m = HTML_TAG_RE.match(content, lt) if content.startswith("<!--", lt) else None
        if m is None:
            return None
        s, h = _html_inline(m.group(0), pos, pins)
        hints.extend(h)
        parts.append(s)
        pos += len(s)
        at = m.end()
    return "".join(parts), hints, pins


def _table_has_digit(toks, i: int) -> bool:
    while toks[i].type != "table_close":
        if toks[i].type == "inline" and _DIGIT.search(toks[i].content):
            return True
        if toks[i].type == "table_rows":
            return any(_DIGIT.search(c) for _, cells in toks[i].meta["rows"] for c in cells)
        i += 1
    return False


def _row_cells(md, env, rows: list, table_digits: bool) -> list[list]:
    """Each cell of compact table rows as :func:`_inline_where_needed` treats an inline token: its
    content when it is one text token (``str``), an inline token parsed by markdown-it, or None where
    it is left unparsed (no digit in the whole table, no footnote): no text. In document order, so
    that footnotes are numbered as markdown-it numbers them."""
    from markdown_it.token import Token

    out = []
    for line, cells in rows:
        row: list = []
        for c in cells:
            if not (table_digits or "[^" in c or "^[" in c):
                row.append(None)
            elif _RULE_CHAR.search(c):
                tok = Token("inline", "", 0, content=c, map=[line, line + 1], children=[])
                md.inline.parse(c, md, env, tok.children)
                row.append(tok)
            else:
                row.append(c)
        out.append(row)
    return out


_EMPTY = {"strong_open", "strong_close", "em_open", "em_close", "link_open", "link_close", "s_open", "s_close",
          "footnote_ref"}


def inline_piece(tok, line: int, kind: str, scope: tuple[str, ...]) -> Piece:
    """The text a reader sees in one inline token, with code spans and comments marked."""
    if tok.meta.get("plain"):
        return Piece(tok.content, line, kind, scope, [], [], tok.content)
    if "code" in tok.meta:
        text, hints = tok.meta["code"]
        return Piece(text, line, kind, scope, list(hints), [], tok.content)
    if "comments" in tok.meta:
        text, hints, pins = tok.meta["comments"]
        return Piece(text, line, kind, scope, list(hints), list(pins), tok.content)
    parts: list[str] = []
    hints: list[tuple[int, int, str]] = []
    pins: list[tuple[int, str]] = []
    pos = 0
    in_autolink = False
    for c in tok.children or ():
        t = c.type
        if t in ("link_open", "link_close") and c.markup == "autolink":
            in_autolink = t == "link_open"   # <https://...>: the URL is not text a reader reads as numbers
            continue
        if in_autolink:
            s = " "
        elif t in ("text", "text_special"):
            s = c.content
        elif t in ("softbreak", "hardbreak"):
            s = "\n"
        elif t == "code_inline":
            s = c.content
            hints.append((pos, pos + len(s), "code"))
        elif t == "image":
            s = c.content
        elif t == "html_inline":
            s, h = _html_inline(c.content, pos, pins)
            hints.extend(h)
        elif t == "footnote_ref":
            s = " "
        elif t in _EMPTY:
            s = ""
        else:
            s = c.content or ""
        if s:
            parts.append(s)
            pos += len(s)
    return Piece("".join(parts), line, kind, scope, hints, pins, tok.content)


def _html_inline(content: str, pos: int, pins: list) -> tuple[str, list]:
    """An inline HTML tag is a space; a comment keeps its text (numbers there are "comment")."""
    if content.startswith("<!--"):
        pm = PIN_MD.match(content)
        if pm:
            pins.append((pos, pm.group(1)))
            return " " * len(content), []
        return content, [(pos, pos + len(content), "comment")]
    return " " + "\n" * content.count("\n"), []


def _html_block(content: str, line: int, scope) -> Piece:
    """Raw HTML: comments are comments, tags are not text, what is between them is prose.

    Scanned with ``str.find`` so that an unclosed ``<!--`` (or thousands of them) stays linear."""
    hints = []
    out = []
    p = 0
    while True:
        c = content.find("<!--", p)
        seg = content[p:c if c >= 0 else len(content)]
        out.append(_TAG.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), seg) if "<" in seg else seg)
        if c < 0:
            break
        e = content.find("-->", c + 4)
        e = len(content) if e < 0 else e + 3
        hints.append((c, e, "comment"))
        out.append(content[c:e])
        p = e
    return Piece("".join(out), line, "prose", scope, hints, [], content)


# A collapsible section (``<details><summary>GSPO vs GRPO</summary> ... </details>``, how GitHub,
# Notion and W&B exports fold results): its summary heads what the section holds, like a heading below
# every Markdown level, until ``</details>`` (README failure 15).
_TOGGLE = re.compile(r"<summary\b[^>]*>(.*?)</summary\s*>|</details\s*>", re.I | re.S)
_TOGGLE_LEVEL = 7


def _toggle(content: str, line: int, scope: list[tuple[int, str]], doc: Doc) -> tuple[str, ...]:
    """Read an HTML block holding ``<summary>`` / ``</details>``: each summary is a heading piece that
    scopes what follows, each ``</details>`` ends the innermost one; the rest is prose as usual.
    Returns the scope after the block (``scope`` is updated in place)."""
    rest, p = [], 0
    for m in _TOGGLE.finditer(content):
        rest.append(content[p:m.start()] + re.sub(r"[^\n]", " ", m.group(0)))
        p = m.end()
        if m.group(1) is None:
            if scope and scope[-1][0] == _TOGGLE_LEVEL:
                scope.pop()
            continue
        text = " ".join(_TAG.sub(" ", m.group(1)).split())
        at = line + content.count("\n", 0, m.start())
        doc.items.append(Piece(text, at, "heading", tuple(s for _, s in scope)))
        scope.append((_TOGGLE_LEVEL, text))
        doc.items[-1].scope = tuple(s for _, s in scope)
    rest.append(content[p:])
    cur = tuple(s for _, s in scope)
    left = "".join(rest)
    if left.strip():
        doc.items.append(_html_block(left, line, cur))
    return cur


def _heading_text(tok) -> str:
    if tok.meta.get("plain"):
        return tok.content
    if "code" in tok.meta:
        return tok.meta["code"][0]
    return "".join(c.content for c in (tok.children or ()) if c.type in ("text", "code_inline", "text_special"))


def walk(text: str, shortcuts: bool = True) -> Doc:
    """Parse Markdown ``text`` into pieces and tables in document order.

    Args:
        text: the whole Markdown file.
        shortcuts: skip inline parsing that cannot change a number (see :func:`_inline_where_needed`);
            False parses every inline token (the reference the tests compare against).
    Returns:
        A :class:`audit.doc.Doc` (items in order; the front matter's text).
    Example:
        >>> [p.kind for p in walk("# T\\n\\nx `1.5` 2").items]
        ['heading', 'prose']
    """
    md = _parser(shortcuts)
    env: dict = {}
    toks = md.parse(text, env)
    doc = Doc()
    scope: list[tuple[int, str]] = []
    prose = _LastProse(md, env)
    i = 0
    n = len(toks)
    cur: tuple[str, ...] = ()
    while i < n:
        tok = toks[i]
        t = tok.type
        line = (tok.map[0] + 1) if tok.map else 0
        if t == "front_matter":
            doc.front_matter = tok.content
            doc.items.append(Piece(tok.content, line + 1, "front_matter", cur, raw=tok.content))
        elif t == "heading_open":
            level = int(tok.tag[1])
            inline = toks[i + 1]
            piece = inline_piece(inline, line, "heading", cur)
            while scope and scope[-1][0] >= level:
                scope.pop()
            scope.append((level, _heading_text(inline).strip()))
            piece.scope = cur = tuple(s for _, s in scope)
            prose.reset()   # a new section: the paragraph before the heading is no caption of a table below it
            doc.items.append(piece)
            i += 3
            continue
        elif t in ("fence", "code_block"):
            first = line + 1 if t == "fence" else line
            # a citation's year, volume and pages name the reference: labels, not numbers to trace
            hint = "citation" if t == "fence" and _BIB_FENCE.match(tok.info or "") else "code"
            drawn = read_code_table(tok.content, first, cur, prose.text()) if hint == "code" else None
            doc.items.append(drawn or Piece(tok.content, first, "code", cur, [(0, len(tok.content), hint)], [], tok.content))
        elif t == "html_block":
            html = read_html(tok.content, line, cur, prose.text()) if "<t" in tok.content else None
            if html is None and ("<summary" in tok.content or "</details" in tok.content):
                cur = _toggle(tok.content, line, scope, doc)
            else:
                doc.items.extend(html or [_html_block(tok.content, line, cur)])
        elif t == "inline" and tok.meta.get("lazy"):
            prose.later(tok)     # no digit, so no number: read only if it turns out to be a table's caption
        elif t == "inline":
            piece = inline_piece(tok, line, "prose", cur)
            doc.items.append(piece)
            prose.seen(piece.text)
        elif t == "table_open":
            table, i = _table(toks, i, cur, prose.text())
            doc.items.append(table)
            continue
        i += 1
    return doc


class _LastProse:
    """The text of the last non-empty prose piece (a table's caption), parsing left-over inline tokens
    (no digit, so no number) only when a table asks for it: each token is parsed at most once."""

    def __init__(self, md, env: dict):
        self.md, self.env = md, env
        self.last = ""
        self.pending: list = []

    def seen(self, text: str) -> None:
        if text.strip():
            self.last, self.pending = text.strip(), []

    def later(self, tok) -> None:
        self.pending.append(tok)

    def reset(self) -> None:
        self.last, self.pending = "", []

    def text(self) -> str:
        while self.pending:
            tok = self.pending.pop()
            self.md.inline.parse(tok.content, self.md, self.env, tok.children)
            found = inline_piece(tok, 0, "prose", ()).text.strip()
            if found:
                self.last, self.pending = found, []
        return self.last


def _table(toks, i: int, scope, caption: str) -> tuple[Table, int]:
    """Collect one GFM table starting at ``toks[i]`` (table_open); return it and the index after it."""
    if toks[i + 1].type == "table_rows":
        return _compact_table(toks[i + 1], scope, caption), i + 3
    start = toks[i].map[0] + 1
    header: list[Piece] = []
    rows: list[tuple[int, str, list[Piece]]] = []
    row: list[Piece] | None = None
    row_line = start
    in_head = False
    while toks[i].type != "table_close":
        tok = toks[i]
        if tok.type == "thead_open":
            in_head = True
        elif tok.type == "thead_close":
            in_head = False
        elif tok.type == "tr_open":
            row = []
            row_line = (tok.map[0] + 1) if tok.map else row_line + 1
        elif tok.type == "tr_close":
            if in_head:
                header = row or []
            else:
                rows.append((row_line, " | ".join(p.raw for p in row or []), row or []))
            row = None
        elif tok.type == "inline" and row is not None:
            row.append(inline_piece(tok, row_line, "cell", scope))
        i += 1
    return Table(start, header, rows, scope, caption), i + 1


def _compact_table(tok, scope, caption: str) -> Table:
    """A table read by :func:`_table_rows_rule`: the same pieces :func:`_table` makes of the tokens of
    markdown-it-py's own table rule."""
    rows: list[tuple[int, str, list[Piece]]] = []
    header: list[Piece] = []
    for (line, contents), cells in zip(tok.meta["rows"], tok.meta["cells"], strict=True):
        pieces = []
        for content, cell in zip(contents, cells, strict=True):
            if cell is None:
                pieces.append(Piece("", line + 1, "cell", scope, [], [], content))
            elif isinstance(cell, str):
                pieces.append(Piece(cell, line + 1, "cell", scope, [], [], cell))
            else:
                pieces.append(inline_piece(cell, line + 1, "cell", scope))
        if not header and not rows:
            header = pieces
        else:
            rows.append((line + 1, " | ".join(p.raw for p in pieces), pieces))
    return Table(tok.meta["rows"][0][0] + 1, header, rows, scope, caption)
