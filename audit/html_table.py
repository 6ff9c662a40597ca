"""A raw HTML ``<table>`` in a Markdown report, read as the grid a browser renders (README failure 15).

Model cards and READMEs often carry tables as raw HTML, with ``rowspan``/``colspan`` for grouped
headers (``<th colspan="3">Held-out accuracy</th>`` over ``mean | 95% CI | Δ``) and grouped rows
(``<td rowspan="2">GRPO</td>`` beside two seed rows). Read cell by cell, such a table loses the
column each number sits in. Here the table is expanded into its grid first:

- header rows are the rows of ``<thead>``, or without one the leading rows made only of ``<th>``;
- a cell spanning columns or rows fills each slot it covers, so a value under a colspan header gets
  that header, and a row beside a rowspan label gets that label;
- each column's name joins the header texts above it, top first (``Held-out accuracy mean``);
- the numbers of a cell are read once, from the slot where it starts: the other slots it fills are
  context only (``Piece.kind == "span"``), so a spanning cell never counts twice;
- a comment in a cell is a comment (its numbers counted as such) and a pin ``<!-- id: X -->`` in a
  cell pins the number before it, checked against the cell's row and column like a pipe table's;
- what a browser shows outside the cells is read as it shows it: text between ``<tr>``s or
  ``<td>``s (a browser moves it above the table) and text around the table are prose, a
  ``<caption>`` is the table's caption and prose, a comment outside the cells is a comment; the
  grid is still read as a grid, and each of several tables in one block is its own grid
  (:func:`read_html`);
- a table nested in a cell ("| GSPO | <table> mean | 95% CI ... </table> |") is its own grid, under
  the outer cell's row label and column name as the headings it sits in (``GSPO``, ``Held-out
  accuracy``), and the outer cell holds what is written around it; a table nested two deep sends
  the block to the prose reader, which still reads and counts every number in it.

The scan is linear: the grid may hold at most ``4 x cells + 256`` slots, else the block is left to
the prose reader (which still reads every number in it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html.parser import HTMLParser

from audit.doc import Piece, Table

PIN_MD = re.compile(r"<!--\s*id\s*:\s*([A-Za-z0-9_.:\-/]+)\s*-->\s*$")


@dataclass(frozen=True)
class Cell:
    """One ``<td>``/``<th>`` as written: its text, tag, spans, line offset, comments and pins.

    ``text`` keeps the cell's line breaks (each number keeps its line) and its comments (their
    numbers are counted as comments: ``hints``); a pin ``<!-- id: X -->`` is blanked and kept in
    ``pins`` at its position, bound by :mod:`audit.numbers` to the number before it.
    """

    text: str
    header: bool
    rowspan: int
    colspan: int
    line: int
    hints: tuple[tuple[int, int, str], ...] = ()
    pins: tuple[tuple[int, str], ...] = ()

    @property
    def plain(self) -> str:
        """The text a reader sees as the cell's label: comments blanked, whitespace folded."""
        t = self.text
        for a, b, _h in reversed(self.hints):
            t = t[:a] + " " * (b - a) + t[b:]
        return " ".join(t.split())


class _Rows(HTMLParser):
    """The tables of one HTML block, each as its rows (line offset, in <thead>, cells) and caption,
    in document order with what lies outside their cells (``parts``)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.rows: list[tuple[int, bool, list[Cell]]] = []   # the rows of the table being read
        # (rows, caption, the outer cell's row label and column name: a nested table's context) of each table read
        self.tables: list[tuple[list, str, tuple[str, ...]]] = []
        # in document order: an int indexes ``tables``; (line offset, text, hint) is what lies outside
        # every cell: stray text (a browser shows it above its table), a caption, a comment ("comment")
        self.parts: list = []
        self.nested = False       # a table two deep inside table cells: not read as grids
        self._depth = 0
        self._outer: tuple | None = None   # the outer table's reading state while a nested one is read
        self._context: tuple[str, ...] = ()
        self._cells: list[Cell] | None = None
        self._cell: list[str] | None = None
        self._hints: list[tuple[int, int, str]] = []
        self._pins: list[tuple[int, str]] = []
        self._attrs: tuple[bool, int, int, int] = (False, 1, 1, 0)
        self._thead = False
        self._line = 0
        self.caption = ""
        self._caption: list[str] | None = None   # the text of a <caption> being read
        self._caption_line = 0

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.nested = self.nested or self._depth > 1 or (self._depth == 1 and self._cell is None)
            self._depth += 1
            if self._depth == 1:
                self._end_table()
            elif self._depth == 2 and not self.nested:
                self._enter_nested()
        elif tag == "thead":
            self._thead = True
        elif tag in ("tbody", "tfoot"):
            self._thead = False
        elif tag == "tr":
            self._end_row()
            self._cells, self._line = [], self.getpos()[0] - 1
        elif tag in ("td", "th"):
            if self._cells is None:   # a cell outside any <tr>: a browser opens a row for it
                self._cells, self._line = [], self.getpos()[0] - 1
            self._end_cell()
            a = dict(attrs)
            self._cell, self._hints, self._pins = [], [], []
            self._attrs = (tag == "th", _span(a.get("rowspan")), _span(a.get("colspan")), self.getpos()[0] - 1)
        elif tag in ("br", "sup", "sub") and self._cell is not None:
            self._cell.append(" ")   # a line break, or a superscript/subscript set apart from the number before it:
            # "+0.04<sup>b</sup>" is the number +0.04 and the footnote b, not "+0.04b"
        elif tag == "caption" and self._cell is None:
            self._caption, self._caption_line = [], self.getpos()[0] - 1

    def handle_endtag(self, tag):
        if tag == "table" and self._depth:
            self._depth -= 1
            if not self._depth or (self._depth == 1 and self._outer is not None):
                self._end_table()
            if self._depth == 1 and self._outer is not None:
                self._leave_nested()
        elif tag in ("td", "th"):
            self._end_cell()
        elif tag == "tr":
            self._end_row()
        elif tag == "thead":
            self._end_row()
            self._thead = False
        elif tag == "caption" and self._caption is not None:
            text, self._caption = "".join(self._caption), None
            self.parts.append((self._caption_line, text, ""))
            self.caption = self.caption or " ".join(text.split())

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)
        elif self._caption is not None:
            self._caption.append(data)
        elif data.strip():
            self.parts.append((self.getpos()[0] - 1, data, ""))

    def handle_comment(self, data):
        if self._cell is None:   # not shown; a pin here names no cell's number
            self.parts.append((self.getpos()[0] - 1, f"<!--{data}-->", "comment"))
            return
        pos = sum(len(x) for x in self._cell)
        pin = PIN_MD.match(f"<!--{data}-->")
        if pin:
            self._pins.append((pos, pin.group(1)))
            return
        self._cell.append(f"<!--{data}-->")
        self._hints.append((pos, pos + len(data) + 7, "comment"))

    def close(self):
        super().close()
        self._end_table()
        if self._outer is not None:   # a nested table left open: the outer one still holds its rows
            self._leave_nested()
            self._end_table()

    def _end_table(self):
        self._end_row()
        if self.rows:
            self.tables.append((self.rows, self.caption, self._context))
            self.parts.append(len(self.tables) - 1)
        self.rows, self.caption = [], ""

    _STATE = ("rows", "caption", "_cells", "_cell", "_hints", "_pins", "_attrs", "_thead", "_line", "_caption",
              "_caption_line")

    def _enter_nested(self):
        """A table opens inside the cell being read: keep the outer table's state, note the outer
        cell's row label and column name (the nested table's context), read the nested one afresh."""
        self._outer = tuple(getattr(self, k) for k in self._STATE)
        self._context = _outer_context(self.rows, self._cells or [])
        self.rows, self.caption, self._cells, self._cell, self._caption = [], "", None, None, None
        self._hints, self._pins, self._thead = [], [], False

    def _leave_nested(self):
        """The nested table closed: the outer cell goes on with what follows it."""
        for k, v in zip(self._STATE, self._outer, strict=True):
            setattr(self, k, v)
        self._outer, self._context = None, ()

    def _end_cell(self):
        if self._cell is not None and self._cells is not None:
            th, rs, cs, line = self._attrs
            self._cells.append(Cell("".join(self._cell), th, rs, cs, line, tuple(self._hints), tuple(self._pins)))
        self._cell = None

    def _end_row(self):
        self._end_cell()
        if self._cells:
            self.rows.append((self._line, self._thead, self._cells))
        self._cells = None


def _outer_context(rows: list[tuple[int, bool, list[Cell]]], cells: list[Cell]) -> tuple[str, ...]:
    """The row label and column name of the cell being read (the next of ``cells``, in a table whose
    rows so far are ``rows``): what a table nested in that cell is about ("GSPO", "Held-out accuracy")."""
    grid = expand([c for _, _, c in rows] + [[*cells, Cell("", False, 1, 1, 0)]], 4 * (sum(len(c) for _, _, c in rows)
                                                                                      + len(cells)) + 256)
    if not grid:
        return ()
    k = len(grid[-1]) - 1
    n_head = _header_rows(rows)
    column = _fold_names([r[k].cell.plain for r in grid[:n_head] if k < len(r)])
    label = grid[-1][0].cell.plain if k else ""
    return tuple(t for t in (label, column) if t)


def _span(value: str | None) -> int:
    """A rowspan/colspan attribute as a count of slots (HTML: 1 when absent or not a positive number)."""
    try:
        n = int(str(value).strip())
    except ValueError:
        return 1
    return min(n, 1000) if n >= 1 else 1


@dataclass(frozen=True)
class Slot:
    """One slot of the expanded grid: the cell that fills it, and whether the cell starts there."""

    cell: Cell
    own: bool


def expand(rows: list[list[Cell]], limit: int) -> list[list[Slot]] | None:
    """The grid a browser renders: every cell placed in each slot it spans.

    Args:
        rows: the cells of each ``<tr>`` in order.
        limit: the most slots the grid may have (None is returned beyond it).

    Returns:
        One list of slots per row (rows are as wide as their cells and the rowspans above reach).

    Example:
        >>> a, b, c = (Cell(t, True, rs, cs, 0) for t, rs, cs in (("Arm", 2, 1), ("Acc", 1, 2), ("mean", 1, 1)))
        >>> [[s.cell.text for s in r] for r in expand([[a, b], [c, Cell("sd", True, 1, 1, 0)]], 100)]
        [['Arm', 'Acc', 'Acc'], ['Arm', 'mean', 'sd']]
    """
    grid: list[list[Slot]] = []
    pending: dict[int, list] = {}      # column -> [rows left, cell] for a rowspan reaching down
    used = 0
    for cells in rows:
        out: list[Slot] = []
        for cell in cells:
            _carry(out, pending)
            for k in range(cell.colspan):
                out.append(Slot(cell, k == 0))
                if cell.rowspan > 1:
                    pending[len(out) - 1] = [cell.rowspan - 1, cell]
        _carry(out, pending)
        used += len(out)
        if used > limit:
            return None
        grid.append(out)
    return grid


def _carry(out: list[Slot], pending: dict[int, list]) -> None:
    """Fill the next slots of ``out`` that a rowspan from a row above covers."""
    while len(out) in pending:
        k = len(out)
        left, cell = pending[k]
        out.append(Slot(cell, False))
        if left <= 1:
            del pending[k]
        else:
            pending[k][0] = left - 1


def _header_rows(rows: list[tuple[int, bool, list[Cell]]]) -> int:
    """How many leading rows are header rows: those of <thead>, else the leading rows of only <th>."""
    if any(head for _, head, _ in rows):
        return next((k for k, (_, head, _) in enumerate(rows) if not head), len(rows))
    return next((k for k, (_, _, cells) in enumerate(rows) if not all(c.header for c in cells)), len(rows))


def _fold_names(parts: list[str]) -> str:
    """A column's name: the header texts above it, top first, a repeat (a rowspan) said once."""
    out: list[str] = []
    for p in parts:
        if p and (not out or out[-1] != p):
            out.append(p)
    return " ".join(out)


def read_html(content: str, line: int, scope: tuple[str, ...], caption: str) -> list | None:
    """A raw HTML block holding one or more ``<table>``s, as the pieces a browser shows: the text
    outside the cells (prose and comments, each before the table it sits in) and each table, read
    as its grid.

    Args:
        content: a raw HTML block of a Markdown file.
        line: the line the block starts on.
        scope: the headings above it.
        caption: the prose just before it (a table's caption unless the table has a ``<caption>``).

    Returns:
        The pieces and tables in document order: one prose or comment :class:`audit.doc.Piece` per
        run of text or comment outside the cells (a ``<caption>``'s text among them), one
        :class:`audit.doc.Table` per table (see :func:`read_table`). None when the block holds no
        table, a table inside a table, or a grid that would expand past the size limit (the prose
        reader reads it).

    Example:
        >>> items = read_html('<table><caption>Means (n=500)</caption><tr><th>Arm</th><th>Acc</th></tr>'
        ...                   ' note 0.9 <tr><td>GRPO</td><td>0.61</td></tr></table>', 1, (), "")
        >>> [(type(i).__name__, i.text.strip() if hasattr(i, "text") else i.caption) for i in items]
        [('Piece', 'Means (n=500)'), ('Piece', 'note 0.9'), ('Table', 'Means (n=500)')]
    """
    if "<table" not in content:
        return None
    parser = _Rows()
    parser.feed(content)
    parser.close()
    if parser.nested or not parser.tables:
        return None
    items: list = []
    for part in parser.parts:
        if isinstance(part, int):
            rows, own, context = parser.tables[part]
            table = _grid_table(rows, line, scope + context, own or caption, context)
            if table is None:
                return None
            items.append(table)
        else:
            off, text, hint = part
            items.append(Piece(text, line + off, "prose", scope, [(0, len(text), "comment")] if hint else [], [], text))
    return items


def read_table(content: str, line: int, scope: tuple[str, ...], caption: str) -> Table | None:
    """The first HTML ``<table>`` of ``content``, as a :class:`audit.doc.Table`, else None.

    Args:
        content: a raw HTML block of a Markdown file.
        line: the line the block starts on.
        scope: the headings above it.
        caption: the prose just before it.

    Returns:
        A table whose header has one piece per column (the header texts that start in that column)
        and whose ``columns`` are the full column names; body cells that a span copies into a slot
        are ``"span"`` pieces (context, not numbers). None when :func:`read_html` reads no grid.
        Text outside the cells is not in it (:func:`read_html` gives it).

    Example:
        >>> t = read_table('<table><tr><th rowspan="2">Arm</th><th colspan="2">Accuracy</th></tr>'
        ...                '<tr><th>mean</th><th>sd</th></tr><tr><td>GRPO</td><td>0.61</td><td>0.02</td></tr>'
        ...                '</table>', 1, (), "")
        >>> t.columns, [c.text for c in t.rows[0][2]]
        (['Arm', 'Accuracy mean', 'Accuracy sd'], ['GRPO', '0.61', '0.02'])
    """
    return next((i for i in read_html(content, line, scope, caption) or () if isinstance(i, Table)), None)


def _grid_table(parsed: list[tuple[int, bool, list[Cell]]], line: int, scope: tuple[str, ...], caption: str,
                context: tuple[str, ...] = ()) -> Table | None:
    """One table's parsed rows, expanded into its grid (None past the size limit). A nested table
    whose rows start with a value, not a label (``| 0.650 | [0.647, 0.652] |`` under ``mean | 95%
    CI``, in the cell of row GSPO), takes its ``context``, the outer cell's row label and column,
    as the label of each row: a ``"span"`` slot, context only, whose numbers are the outer table's."""
    n_cells = sum(len(cells) for _, _, cells in parsed)
    grid = expand([cells for _, _, cells in parsed], 4 * n_cells + 256)
    if grid is None:
        return None
    n_head = _header_rows(parsed)
    if n_head == len(parsed):
        n_head = 0   # only header cells: read as rows, as a browser shows them
    head, body = grid[:n_head], grid[n_head:]
    if context and body and not any(r and any(ch.isalpha() for ch in r[0].cell.plain) for r in body):
        label = Cell(" ".join(context), True, 1, 1, parsed[0][0])
        head, body = [[Slot(label, False), *r] for r in head], [[Slot(label, False), *r] for r in body]
    width = max((len(r) for r in head), default=0)
    columns = [_fold_names([r[k].cell.plain for r in head if k < len(r)]) for k in range(width)]
    header = [_header_piece(head, k, line, scope) for k in range(width)]
    index = _index_name_row(head)
    if index is not None:   # pandas: "arm" names the header's values, "seed" (a row of its own) the first column
        columns[0] = head[index][0].cell.plain
        header[0] = _header_piece([head[index]], 0, line, scope)
    rows = []
    for (off, _, _), slots in zip(parsed[n_head:], body, strict=True):
        cells = [_piece(s.cell, line, "cell" if s.own else "span", scope) for s in slots]
        rows.append((line + off, " | ".join(s.cell.plain for s in slots), cells))
    return Table(line, header, rows, scope, caption, columns if n_head else [])


def _index_name_row(head: list[list[Slot]]) -> int | None:
    """The header row that names only the first column, under a row naming the others: pandas writes a
    DataFrame's index name in a row of its own (``<th>seed</th><th></th>...``) below the column labels,
    whose first cell holds the columns' own name (``<th>arm</th><th>grpo</th>...``); the first column is
    then the index's ("seed"), not "arm seed". None for any other header."""
    if len(head) < 2:
        return None
    for i, r in enumerate(head):
        if i and len(r) > 1 and r[0].own and r[0].cell.plain and not any(s.cell.plain for s in r[1:]):
            return i
    return None


def _piece(c: Cell, line: int, kind: str, scope) -> Piece:
    """A cell as a piece: its text, line, comments and pins."""
    return Piece(c.text, line + c.line, kind, scope, list(c.hints), list(c.pins), c.text)


def _header_piece(head: list[list[Slot]], k: int, line: int, scope) -> Piece:
    """Column ``k``'s header piece: the texts of the header cells that start in it (their numbers once)."""
    own = [r[k].cell for r in head if k < len(r) and r[k].own and r[k].cell.plain]
    if len(own) == 1:
        return _piece(own[0], line, "cell", scope)
    text, hints, pins = "", [], []
    for i, c in enumerate(own):   # a newline per line between them: each number keeps its line
        if i:
            gap = c.line - (own[0].line + text.count("\n"))
            text += "\n" * gap if gap > 0 else " "
        hints += [(a + len(text), b + len(text), h) for a, b, h in c.hints]
        pins += [(p + len(text), pid) for p, pid in c.pins]
        text += c.text
    return Piece(text, line + (own[0].line if own else 0), "cell", scope, hints, pins, text)
