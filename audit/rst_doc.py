"""A reStructuredText report as the pieces of text a reader sees, parsed by docutils.

Why docutils: it is reStructuredText's reference parser, so a page is read as Sphinx and GitHub
show it (sections of any adornment, grid and simple tables, ``list-table`` and ``csv-table``,
literal blocks, comments, roles, substitutions, footnotes); a regular-expression reader could be
made to hide numbers (README failure 10). A page the audit does not read must never pass silently
(README failure 15).

The doctree becomes the document model the Markdown and LaTeX readers make (:mod:`audit.doc`), so
one number extractor (:mod:`audit.numbers`) applies the same rules to all three formats:

- a section title is a heading: it scopes what follows until the next title of its level or above;
- paragraphs, list items, definition-list terms and definitions, field lists ("Name: body"), line
  blocks, admonitions (note, warning, ...), block quotes, footnotes, figure captions, ``:math:``
  roles and ``.. math::`` blocks are prose; substitutions are read as replaced;
- grid tables, simple tables, ``list-table`` and ``csv-table`` are tables: their header rows name
  the columns (a cell spanning columns names each), a cell spanning rows labels each row it covers;
- inline literals, literal blocks (``::``), ``code``/``code-block`` and doctest blocks are "code"
  (counted, shown "in code", covered by ``--strict``); a ``bibtex`` code block and ``.. [CIT]``
  citations are "citation"; comments (``..``) are "comment";
- footnote and citation reference labels are not text; generated text (a table of contents,
  section numbers) is not what the author wrote and is skipped.

Line numbers are those of the ``.rst`` source. docutils runs with every file access off (no
``include``, no ``raw :file:``, no configuration files), writes nothing, and never raises into the
audit: a page it cannot read, or a block whose text it drops (an unknown directive, a malformed
table), is a problem the audit reports as a finding naming the file and line.

:func:`read` also returns the page's lines as the line-based readers (:mod:`audit.prose`,
:mod:`audit.claims`) read Markdown: the same lines, each number where it was, with reST markup
that would read as something else (adornments, directive markers, table borders, code and comment
bodies) blanked and titles written as Markdown headings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from audit.doc import Doc, Piece

# docutils settings: nothing read from disk or the network, nothing written, never halted.
_SETTINGS = {
    "_disable_config": True, "file_insertion_enabled": False, "raw_enabled": True,
    "report_level": 2, "halt_level": 5, "warning_stream": False, "traceback": True,   # raise (caught below), never print and exit
    "doctitle_xform": False, "docinfo_xform": False, "sectsubtitle_xform": False,
    "syntax_highlight": "none", "input_encoding": "unicode", "output_encoding": "unicode",
}
_ERROR = 3   # docutils' level of an error: the text of a block it could not read is dropped


@dataclass(frozen=True)
class RstRead:
    """What :func:`read` makes of a page: its pieces and tables, its lines as the line-based
    readers see them, and (line, message) of each problem docutils reported."""

    doc: Doc
    lines: list[str]
    problems: list[tuple[int, str]] = field(default_factory=list)


def read(text: str, name: str = "report.rst") -> RstRead:
    """Parse a reStructuredText page into the audit's document model.

    Args:
        text: the whole ``.rst`` file.
        name: the file's name (in problem messages only).
    Returns:
        An :class:`RstRead`: the :class:`audit.doc.Doc`, the Markdown-like lines and the problems.
    Example:
        >>> r = read("GRPO\\n====\\n\\nAccuracy was 0.61 (``x = 2``).\\n")
        >>> [(p.kind, p.text, p.line, p.hints) for p in r.doc.items]
        [('heading', 'GRPO', 1, []), ('prose', 'Accuracy was 0.61 (x = 2).', 4, [(19, 24, 'code')])]
        >>> r.lines
        ['# GRPO', '', '', 'Accuracy was 0.61 (``x = 2``).']
    """
    lines = text.splitlines()
    try:
        tree = _doctree(text, name)
    except Exception as exc:   # docutils' own failure (deep nesting, a bug): one problem, never a traceback
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]
        return RstRead(Doc(), list(lines), [(0, f"docutils could not parse it ({first})")])
    w = _Walker(lines)
    for child in tree.children:
        w.block(child, (), 1)
    return RstRead(w.doc, shadow_lines(lines, w.marks, w.subs), w.problems)


def _doctree(text: str, name: str):
    """The docutils doctree of ``text``, transforms applied (substitutions, footnote numbers)."""
    import warnings

    from docutils.core import publish_doctree

    if "::" in text:
        _register_unknown(text)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return publish_doctree(text, source_path=name, settings_overrides=dict(_SETTINGS))


# ---- directives docutils does not know --------------------------------------------------------------

# Sphinx's and its extensions' directives (``.. tab::``, ``.. tabs::``, ``.. tab-set::``, ``.. dropdown::``,
# ``.. only::``, ``.. versionadded::``, ...) are unknown to docutils, which drops their whole block: a page
# written for Sphinx would hide every number inside one (README failure 15). A directive docutils does not
# know is read instead: its argument (a tab's title) and its content as reST; the content of one that holds
# code or program output as code; the entries of one that lists page or object names as nothing to read.
_CODE_DIRECTIVES = frozenset((
    "ipython", "ipython3", "jupyter-execute", "jupyter-input", "jupyter-output", "code-cell", "testcode",
    "testoutput", "testsetup", "testcleanup", "doctest", "plot", "mermaid", "graphviz", "graph", "digraph",
    "sourcecode", "program-output", "command-output", "runblock", "exec", "prompt", "tab-code"))
_NAME_DIRECTIVES = frozenset(("toctree", "autosummary", "index", "literalinclude", "highlight", "currentmodule",
                              "automodule", "autoclass", "autofunction", "bibliography"))
_DIRECTIVE = re.compile(r"^[ \t]*\.\.[ \t]+(?:\|[^|\n]+\|[ \t]*)?([A-Za-z0-9][\w:+.-]*)::", re.M)


def _register_unknown(text: str) -> None:
    """Register a reader for each directive of ``text`` that docutils does not know (docutils keeps
    directives in one table per process; a name registered here was unknown, so nothing it knew changes)."""
    from docutils.parsers.rst import directives
    from docutils.parsers.rst.languages import en

    for name in {n.lower() for n in _DIRECTIVE.findall(text)}:
        if name in directives._directives or en.directives.get(name, name) in directives._directive_registry:
            continue
        kind = "code" if name in _CODE_DIRECTIVES else "names" if name in _NAME_DIRECTIVES else "body"
        directives.register_directive(name, _unknown_directive(kind))


def _unknown_directive(kind: str):
    """A docutils directive class that reads an unknown directive's block as ``kind``: "body" (its
    argument a paragraph, its content reST), "code" (its content a literal block) or "names" (nothing)."""
    from docutils import nodes
    from docutils.parsers.rst import Directive, directives

    class _AnyOption(dict):   # any option an extension defines (":sync: py", ":open:"), its value kept as text
        def __missing__(self, key):
            return directives.unchanged

    class Unknown(Directive):
        optional_arguments = 1
        final_argument_whitespace = True
        has_content = True
        option_spec = _AnyOption(name=directives.unchanged)

        def run(self):
            if kind == "names":
                return []
            if kind == "code":
                text = "\n".join(self.content)
                node = nodes.literal_block(text, text)
                node.line = self.content_offset + 1
                return [node] if text.strip() else []
            box = nodes.container(classes=[self.name])
            if self.arguments:
                inline, msgs = self.state.inline_text(self.arguments[0], self.lineno)
                title = nodes.paragraph(self.arguments[0], "", *inline)
                title.line = self.lineno
                box += [title, *msgs]
            self.state.nested_parse(self.content, self.content_offset, box)
            return [box]

    return Unknown


# ---- inline text ----------------------------------------------------------------------------------

def inline_text(node, pins: list | None = None) -> tuple[str, list[tuple[int, int, str]]]:
    """The text a reader sees in a text element (a paragraph, a title, a term), with its inline
    literals marked "code" and raw HTML comments "comment".

    Args:
        node: a docutils text element.
        pins: where to append (position, id) of each ``:id:`X``` pin role (:func:`pin_of`); its text
            is not the reader's.
    Returns:
        (text, hints): newlines kept where the source has them (each number keeps its line).
    Example:
        >>> from docutils.core import publish_doctree
        >>> p = publish_doctree("See ``0.5`` and [#a]_ :math:`p = 0.01`.\\n\\n.. [#a] x",
        ...                     settings_overrides=dict(_SETTINGS))[0]
        >>> inline_text(p)
        ('See 0.5 and   p = 0.01.', [(4, 7, 'code')])
    """
    parts: list[str] = []
    hints: list[tuple[int, int, str]] = []
    _inline(node, parts, hints, [0], pins if pins is not None else [])
    return "".join(parts), hints


_PIN_ROLE = re.compile(r":id:`\s*([^`]*?)\s*`")


def pin_of(node) -> str | None:
    """The analysis id a ``:id:`X``` role pins, or None: the reST form of Markdown's ``<!-- id: X -->``
    (README: pins). Read whether the page declares the role (``.. role:: id``, an inline node of
    class "id") or not (docutils' "unknown role" keeps its text)."""
    from docutils import nodes

    if isinstance(node, nodes.inline) and "id" in node.get("classes", ()):
        return " ".join(node.astext().split()) or None
    if isinstance(node, nodes.problematic):
        m = _PIN_ROLE.fullmatch(node.astext().strip())
        return m.group(1) if m else None
    return None


def _inline(node, parts: list[str], hints: list, pos: list[int], pins: list) -> None:
    """Append the reader's text of ``node``'s children to ``parts``; ``pos``: the text's length so far."""
    from docutils import nodes

    for c in node.children:
        pid = pin_of(c) if isinstance(c, (nodes.inline, nodes.problematic)) else None
        if pid:
            pins.append((pos[0], pid))   # pins the number just before it (audit.numbers._bind_pins)
            continue
        if isinstance(c, nodes.Text):
            s = c.astext()
        elif isinstance(c, (nodes.footnote_reference, nodes.citation_reference)):
            s = " "   # "[1]_": a reference label, not a number of the report
        elif isinstance(c, (nodes.generated, nodes.image)):
            continue   # section numbers docutils adds, an inline image: not text the author wrote
        elif isinstance(c, nodes.literal):
            s = c.astext()
            hints.append((pos[0], pos[0] + len(s), "code"))
        elif isinstance(c, nodes.raw):
            s = _raw_text(c.astext())
        elif isinstance(c, nodes.Element):
            _inline(c, parts, hints, pos, pins)
            continue
        else:
            continue
        parts.append(s)
        pos[0] += len(s)


# ---- blocks ---------------------------------------------------------------------------------------

_CODE_NODES = ("literal_block", "doctest_block")
_SKIP = ("target", "pending", "decoration", "image", "colspec", "transition",
         "label", "meta")
_TEXT_NODES = ("paragraph", "term", "attribution", "rubric", "caption", "line", "title", "subtitle",
               "math_block", "field_name", "classifier", "option_string")
_HIDES = re.compile(r"\d|\b[A-Z][A-Z_]{3,}\b")   # what a dropped block may hide: a number or a verdict word
_OPTION_LINE = re.compile(r"^\s*:[\w-]+:.*$", re.M)   # ":maxdepth: 2": a directive's setting
_ONE_CHAR_RULE = re.compile(r"\s*([!-/:-@\[-`{-~])\1*\s*")
_BIB_LANG = re.compile(r"\s*(?:bibtex|bib|biblatex)\b", re.I)


class _Walker:
    """Turns a doctree into pieces and tables in document order, noting for each source line what
    it holds (``marks``: line -> "blank" | "heading:<level>:<text>" | "line" | "field" | "enum")."""

    def __init__(self, lines: list[str]):
        self.lines = lines
        self.doc = Doc()
        self.problems: list[tuple[int, str]] = []
        self.marks: dict[int, str] = {}
        self.subs: dict[str, str] = {}   # substitution name (lower case) -> its text
        self.caption = ""

    def add(self, piece: Piece) -> None:
        self.doc.items.append(piece)
        if piece.kind == "prose" and piece.text.strip():
            self.caption = " ".join(piece.text.split())

    def block(self, node, scope: tuple[str, ...], depth: int, hint: str | None = None) -> None:
        """Read one block node (and what it holds) under the headings ``scope``."""
        from docutils import nodes

        name = node.tagname
        if name in _SKIP or isinstance(node, nodes.Text):
            return
        if name == "section":
            self.section(node, scope, depth)
        elif name == "substitution_definition":   # read where it is used; the line readers see it there too
            for sub in node.get("names", ()):
                self.subs[nodes.whitespace_normalize_name(sub).lower()] = " ".join(node.astext().split())
        elif name == "system_message":
            self.problem(node)
        elif name == "comment":
            self.text_piece(node, scope, "comment", node.astext())
        elif name in _CODE_NODES:
            lang = " ".join(node.get("classes", ()))
            self.text_piece(node, scope, "code", node.astext(), "citation" if _BIB_LANG.match(lang) else "code")
        elif name == "table":
            self.table(node, scope)
        elif name == "citation":   # ".. [Smith2020] ...": a reference's year and pages, not results
            for c in node.children:
                self.block(c, scope, depth, "citation")
                if c.tagname == "paragraph":
                    self.blank(_line_of(c, self.lines), c.astext())
        elif name == "field":
            self.field(node, scope, depth, hint)
        elif name == "raw":
            self.text_piece(node, scope, "prose", _raw_text(node.astext()), [])
        elif name == "topic" and "contents" in node.get("classes", ()) or isinstance(node, nodes.generated):
            return   # a generated table of contents: the titles again, not the author's text
        elif name in _TEXT_NODES:
            self.para(node, scope, hint)
        elif isinstance(node, nodes.Element):
            for c in node.children:
                self.block(c, scope, depth, hint)

    def para(self, node, scope, hint: str | None) -> None:
        pins: list = []
        text, hints = inline_text(node, pins)
        if hint:
            hints = [(0, len(text), hint)]
        line = _line_of(node, self.lines)
        if node.tagname == "line":
            self.marks[line] = "line"
        self.add(Piece(text, line, "prose", scope, hints, pins, node.rawsource or text))

    def text_piece(self, node, scope, kind: str, text: str, hint: str | list | None = None) -> None:
        """A block read as one piece (code, comment, raw HTML), its lines blanked for the line readers.
        docutils gives a comment or a ``code`` directive the line after it: it is found in the page."""
        line = _locate(self.lines, text, _line_of(node, self.lines))
        hints = hint if isinstance(hint, list) else [(0, len(text), hint or kind)]
        self.add(Piece(text, line, "prose" if kind == "prose" else kind, scope, hints, [], text))
        if kind != "prose":
            self.blank(line, text)

    def blank(self, line: int, text: str) -> None:
        for k in range(line, line + text.count("\n") + 1):
            self.marks[k] = "blank"

    def section(self, node, scope, depth: int) -> None:
        title = node.children[0] if node.children and node.children[0].tagname == "title" else None
        text = " ".join(inline_text(title)[0].split()) if title is not None else ""
        line = _title_line(title, self.lines) if title is not None else _line_of(node, self.lines)
        inner = (*scope, text)
        self.doc.items.append(Piece(text, line, "heading", inner, [], [], text))
        self.marks[line] = f"heading:{depth}:{text}"
        for k in (line - 1, line + 1):   # its adornments, however short ("Abc" over "===")
            if 0 < k <= len(self.lines) and _ONE_CHAR_RULE.fullmatch(self.lines[k - 1]):
                self.marks.setdefault(k, "blank")
        for c in node.children[1 if title is not None else 0:]:
            self.block(c, inner, depth + 1)

    def field(self, node, scope, depth: int, hint) -> None:
        """":Seeds: 1 to 6": the name and the body's first paragraph are one sentence, "Seeds: 1 to 6"."""
        name, body = node.children[0], node.children[1] if len(node.children) > 1 else None
        label = inline_text(name)[0]
        first = body.children[0] if body is not None and body.children else None
        line = _line_of(node, self.lines)
        self.marks[line] = "field"
        if first is not None and first.tagname == "paragraph":
            pins: list = []
            text, hints = inline_text(first, pins)
            off = len(label) + 2
            self.add(Piece(f"{label}: {text}", line, "prose", scope, [(a + off, b + off, h) for a, b, h in hints],
                           [(a + off, pid) for a, pid in pins]))
            rest = body.children[1:]
        else:
            self.add(Piece(f"{label}:", line, "prose", scope))
            rest = body.children if body is not None else []
        for c in rest:
            self.block(c, scope, depth, hint)

    def problem(self, node) -> None:
        """A docutils error whose block it dropped (an unknown directive, a malformed table): its
        numbers are not read, so the audit says so. Errors that keep their text (an unknown role,
        an unexpected indentation), a dropped block with no digit and no upper-case word (a verdict)
        and warnings are not problems."""
        dropped = _OPTION_LINE.sub("", " ".join(c.astext() for c in node.children if c.tagname == "literal_block"))
        if node.get("level", 0) < _ERROR or not _HIDES.search(dropped):
            return   # kept its text, or dropped none a number or verdict could be in (".. toctree::" of names)
        msg = " ".join(node.children[0].astext().split()) if node.children else "error"
        self.problems.append((node.get("line") or 0, msg[:200]))
        for c in node.children:
            if c.tagname == "literal_block":
                start = node.get("line") or _line_of(c, self.lines)
                for k in range(start, start + c.astext().count("\n") + 1):
                    self.marks.setdefault(k, "blank")

    def table(self, node, scope) -> None:
        from audit.rst_table import read_table

        for item in read_table(self, node, scope):
            if isinstance(item, Piece):
                self.add(item)
            else:
                self.doc.items.append(item)


def _line_of(node, lines: list[str]) -> int:
    """The source line a node starts on: its own, else its first descendant's that has one."""
    line = getattr(node, "line", None)
    if line:
        return line
    for d in node.findall(include_self=False):
        if getattr(d, "line", None):
            return d.line
    return 1


def _locate(lines: list[str], text: str, hint: int) -> int:
    """The line where a block whose first line reads like ``text``'s starts, near ``hint``: at it,
    or where a block of its length ending at ``hint`` would start (docutils' line for a comment)."""
    first = next((t.strip() for t in text.splitlines() if t.strip()), "")
    if not first:
        return hint
    skip = next((k for k, t in enumerate(text.splitlines()) if t.strip()), 0)
    n = text.count("\n")
    found = [k for k in range(max(1, hint - n - 3), min(len(lines), hint + 1) + 1) if first in lines[k - 1]]
    if not found:
        return hint
    return min(found, key=lambda k: min(abs(k - hint), abs(k - (hint - n - 1)))) - skip


def _raw_text(html: str) -> str:
    """Raw HTML as a reader sees it: tags and comments are not text (one space per character)."""
    return re.sub(r"<!--.*?-->|<[^<>]{0,2000}>", lambda m: re.sub(r"[^\n]", " ", m.group(0)), html, flags=re.S)


def _title_line(title, lines: list[str]) -> int:
    """A section title's own line: docutils gives the underline's."""
    line = getattr(title, "line", None) or 2
    return max(1, line - 1)


# ---- the lines the line-based readers see -----------------------------------------------------------

_ADORNMENT = re.compile(r"\s*([!-/:-@\[-`{-~])\1{3,}\s*|\s*=+(?:\s+=+)+\s*|\s*-+(?:\s+-+)+\s*")
_MARKER = re.compile(r"^(\s*)(\.\.\s+(?:[\w:-]+::|\|[^|]+\|\s*[\w:-]+::|_[^:]*:|\[[^\]]+\]))")
_DEFINITION = re.compile(r"\s*\.\.\s+(?:\|[^|]+\|\s*[\w:-]+::|_[^:]*:)")
_OPTION = re.compile(r"\s+:[\w -]+:(?:\s|$)")
_SUB = re.compile(r"\|(?![\s|])([^|]{1,100}?)(?<!\s)\|(?!_)")
# reST emphasis and strong: the start-string after a space or an opening mark, the end-string before a space,
# a closing mark or the end ("0.631*, 0.640*" are two starred values, not emphasis)
_EMPHASIS = re.compile(r"(?<![\w*\\])\*{1,2}(?=[^\s*])(.+?)(?<=[^\s*\\])\*{1,2}(?![\w*])")
_ROLE = re.compile(r":[\w.+-]+:(?=`)")
_FIELD = re.compile(r"^(\s*):(?=[^:\s])")
_ENUM = re.compile(r"^(\s*)#\.(?=\s)")
_TABLE_BORDER = re.compile(r"\s*\+[-=+:]*\+\s*")


def shadow_lines(lines: list[str], marks: dict[int, str], subs: dict[str, str] | None = None) -> list[str]:
    """The page's lines as :mod:`audit.prose` and :mod:`audit.claims` read Markdown: one line per
    source line (each number on its line; those readers find a number in its line by its text),
    with adornments, table borders, directive markers and their options, code and comment bodies
    blanked, roles' names and emphasis marks dropped, substitutions replaced, each field a list item
    ("- Seeds: 1 to 6"), "#." enumerators numbered and each section title written as a Markdown
    heading.

    Args:
        lines: the source lines.
        marks: what :class:`_Walker` noted per line (1-based).
        subs: substitution name (lower case) -> its text.
    Returns:
        The lines, as many as ``lines``.
    Example:
        >>> shadow_lines(["Title", "=====", "", ".. note:: see |x|", ":Seeds: 1 to 6"], {1: "heading:1:Title",
        ...              5: "field"}, {"x": "0.5"})
        ['# Title', '', '', '          see 0.5', '- Seeds: 1 to 6']
    """
    out = []
    in_options = False
    for i, line in enumerate(lines, 1):
        mark = marks.get(i)
        if mark and mark.startswith("heading:"):
            _, level, text = mark.split(":", 2)
            out.append("#" * min(6, int(level)) + " " + text)
            continue
        if mark == "rule":   # a grid table's header rule: the "|---|" line after a Markdown header row
            out.append(line.replace("=", "-").replace("+", "|"))
            continue
        if mark == "blank" or _ADORNMENT.fullmatch(line) or _TABLE_BORDER.fullmatch(line):
            out.append("")
            in_options = False
            continue
        if in_options and _OPTION.match(line):
            out.append("")
            continue
        if _DEFINITION.match(line):   # ".. |sub| replace:: 0.77", ".. _name: url": read where used, not here
            out.append("")
            continue
        m = _MARKER.match(line)
        in_options = m is not None
        if m:
            line = m.group(1) + " " * len(m.group(2)) + line[m.end():]
        if mark == "line":
            line = re.sub(r"^(\s*)\|", r"\1 ", line)
        elif mark == "field":
            line = _FIELD.sub(r"\1- ", line, count=1)
        line = _ENUM.sub(r"\g<1>1.", line)
        if subs and "|" in line:
            line = _SUB.sub(lambda r: subs.get(" ".join(r.group(1).split()).lower(), r.group(0)), line)
        if "*" in line:   # "**+2.21 points**": emphasis is markup, not words (the readers look past none)
            line = _EMPHASIS.sub(r"\1", line)
        if ":id:`" in line:   # a pin (pin_of) is no text of the page
            line = _PIN_ROLE.sub(lambda r: " " * len(r.group(0)), line)
        out.append(_ROLE.sub(lambda r: " " * len(r.group(0)), line) if ":`" in line else line)
    return out
