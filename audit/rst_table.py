"""reStructuredText tables (grid, simple, ``list-table``, ``csv-table``) as the audit's tables.

docutils gives every kind of table one shape (``table > tgroup > thead/tbody > row > entry``, a
spanning entry with ``morecols``/``morerows``); this module lays each out as the grid a reader sees,
as :mod:`audit.html_table` does for HTML: a cell spanning columns names each column under it (its
numbers read once), a cell spanning rows labels every row it covers (a ``"span"`` piece: context,
never a second copy of its numbers). A table's title (``.. list-table:: Held-out accuracy (%)``) is
its caption and a paragraph of its own; without one, the prose just before it is the caption, as in
Markdown (README failure 15: a header or caption says what a column's numbers are).

docutils numbers the cells of a ``csv-table`` from the CSV text, not from the page: those rows are
found again in the page's lines, so every number keeps its ``.rst`` line.
"""

from __future__ import annotations

from audit.doc import Piece, Table


def read_table(w, node, scope: tuple[str, ...]) -> list:
    """One docutils ``table`` node as a caption piece (when it has a title) and a :class:`Table`.

    Args:
        w: the page's walker (:class:`audit.rst_doc._Walker`): its lines, marks and block reader.
        node: the ``table`` node.
        scope: the headings above it.
    Returns:
        The items in document order: [caption piece,] table (none when the node holds no rows).
    Example:
        >>> from audit.rst_doc import read
        >>> t = read("=== ====\\nArm Acc\\n=== ====\\na   0.61\\n=== ====\\n").doc.items[0]
        >>> [c.text for c in t.header], [(ln, [c.text for c in cells]) for ln, _, cells in t.rows]
        (['Arm', 'Acc'], [(4, ['a', '0.61'])])
    """
    from audit.rst_doc import _line_of, inline_text

    items: list = []
    caption = w.caption
    title = next((c for c in node.children if c.tagname == "title"), None)
    if title is not None:
        text, hints = inline_text(title)
        caption = " ".join(text.split())
        items.append(Piece(text, _line_of(title, w.lines), "prose", scope, hints, [], text))
    tgroup = next((c for c in node.children if c.tagname == "tgroup"), None)
    if tgroup is None:
        return items
    start = _line_of(node, w.lines)
    _mark_extent(w, start)
    ncols = int(tgroup.get("cols", 0)) or 1
    head = [r for part in tgroup.children if part.tagname == "thead" for r in part.children]
    body = [r for part in tgroup.children if part.tagname == "tbody" for r in part.children]
    head_slots, body_slots = _expand(head, ncols), _expand(body, ncols)
    cells = {id(e): _cell(w, e, scope) for r in head + body for e in r.children}
    _relocate(w.lines, start, [*head_slots, *body_slots], cells)
    columns = [_fold([cells[id(s[k][0])].text if s[k][0] is not None else "" for s in head_slots])
               for k in range(ncols)]
    header = [_header_piece(head_slots, k, cells, scope, start) for k in range(ncols)] if head else []
    rows = []
    for slots in body_slots:
        line = _row_line(slots, cells, start)
        pieces = [_slot_piece(s, cells, line, scope) for s in slots]
        rows.append((line, " | ".join(p.text for p in pieces), pieces))
    spans = any(e.get("morecols") or e.get("morerows") for r in head for e in r.children)
    items.append(Table(start, header, rows, scope, caption, columns if len(head) > 1 or spans else []))
    return items


def _expand(rows: list, ncols: int) -> list[list[tuple]]:
    """Each row as ``ncols`` slots (entry or None, whether the entry starts there): an entry fills
    the ``morecols`` slots to its right and the ``morerows`` rows below."""
    out, pending = [], {}   # pending: column -> [rows left, entry] of a cell reaching down
    for row in rows:
        entries = iter(row.children)
        slots: list[tuple] = []
        while len(slots) < ncols:
            col = len(slots)
            if col in pending:
                left = pending[col]
                slots.append((left[1], False))
                left[0] -= 1
                if left[0] <= 0:
                    del pending[col]
                continue
            e = next(entries, None)
            if e is None:
                slots.append((None, False))
                continue
            for k in range(1 + int(e.get("morecols", 0))):
                if len(slots) < ncols:
                    if e.get("morerows"):
                        pending[len(slots)] = [int(e["morerows"]), e]
                    slots.append((e, k == 0))
        out.append(slots)
    return out


def _cell(w, entry, scope) -> Piece:
    """An entry's blocks as one cell piece, each block's text on its own line (numbers keep lines)."""
    saved, caption = w.doc.items, w.caption
    w.doc.items = []
    for c in entry.children:
        w.block(c, scope, 1)
    found = [p for p in w.doc.items if isinstance(p, Piece)]
    w.doc.items, w.caption = saved, caption
    return merge(found, "cell", scope, getattr(entry, "line", None) or 0)


def merge(pieces: list[Piece], kind: str, scope, line: int = 0) -> Piece:
    """Pieces as one piece of ``kind``: a newline per source line between them, hints kept.

    Args:
        pieces: in document order.
        kind: the merged piece's kind ("cell").
        scope: its headings.
        line: its line when ``pieces`` is empty.
    Returns:
        One :class:`Piece` starting on the first piece's line.
    Example:
        >>> merge([Piece("a 1", 3, "prose"), Piece("b 2", 5, "code", hints=[(0, 3, "code")])], "cell", ()).text
        'a 1\\n\\nb 2'
    """
    if not pieces:
        return Piece("", line, kind, scope)
    text, hints, pins, first = "", [], [], pieces[0].line
    for i, p in enumerate(pieces):
        if i:
            gap = p.line - (first + text.count("\n"))
            text += "\n" * gap if gap > 0 else " "
        hints += [(a + len(text), b + len(text), h) for a, b, h in p.hints]
        pins += [(a + len(text), pid) for a, pid in p.pins]
        text += p.text
    return Piece(text, first, kind, scope, hints, pins, text)


def _relocate(lines: list[str], start: int, rows: list, cells: dict) -> None:
    """Rows whose cells docutils placed before the table (a ``csv-table``'s, numbered from its CSV
    text) found again in the page's lines, in order, from the table's first line."""
    csv = 0 < start <= len(lines) and "csv-table::" in lines[start - 1]
    cursor = start
    for slots in rows:
        own = [cells[id(e)] for e, is_own in slots if e is not None and is_own]
        if not own or not csv and all(p.line >= start for p in own):
            continue
        words = next((p.text.split()[0] for p in own if p.text.split()), None)
        at = next((k for k in range(cursor, len(lines) + 1) if words and words in lines[k - 1]), None)
        if at is None:
            at = cursor
        for p in own:
            p.line = at
        cursor = at + 1


def _row_line(slots: list, cells: dict, start: int) -> int:
    lines = [cells[id(e)].line for e, own in slots if e is not None and own and cells[id(e)].text]
    return min(lines) if lines else start


def _slot_piece(slot: tuple, cells: dict, line: int, scope) -> Piece:
    entry, own = slot
    if entry is None:
        return Piece("", line, "cell", scope)
    p = cells[id(entry)]
    if own:
        return p
    return Piece(p.text, line, "span", scope, list(p.hints), [], p.text)   # context for this row, read once


def _header_piece(head: list, k: int, cells: dict, scope, start: int) -> Piece:
    """Column ``k``'s header piece: the header cells that start in it (their numbers read once)."""
    own = [cells[id(r[k][0])] for r in head if r[k][0] is not None and r[k][1]]
    return merge([p for p in own if p.text], "cell", scope, start)


def _fold(parts: list[str]) -> str:
    """A column's name: the header texts above it, top first, a repeat (a span) said once."""
    out: list[str] = []
    for p in (" ".join(x.split()) for x in parts):
        if p and (not out or out[-1] != p):
            out.append(p)
    return " ".join(out)


def _mark_extent(w, start: int) -> None:
    """Mark the table's lines for the line readers: a grid table's rows stay pipe rows (its ``+===+``
    rule becomes the header rule), every other table line is blanked (a ``list-table``'s items, a
    ``csv-table``'s records and a simple table's rows are not prose)."""
    lines = w.lines
    if not 0 < start <= len(lines):
        return
    first = lines[start - 1]
    indent = len(first) - len(first.lstrip())
    k = start + 1 if first.lstrip().startswith("..") else start
    if k > start:   # a directive: its indented body
        end = k
        while end <= len(lines) and (not lines[end - 1].strip() or
                                     len(lines[end - 1]) - len(lines[end - 1].lstrip()) > indent):
            end += 1
    else:
        end = k
        while end <= len(lines) and lines[end - 1].strip():
            end += 1
    for n in range(k, end):
        s = lines[n - 1].strip()
        if s.startswith("+") and "=" in s:
            w.marks.setdefault(n, "rule")
        elif not s.startswith("|") or s.startswith("+"):
            w.marks.setdefault(n, "blank")
