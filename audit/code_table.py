"""A results table drawn in a code block, read as a table (README failure 15).

Scripts print their tables, and people paste the print-out into a fenced block::

    +----------+--------+-------+
    | arm      | solve  | fmt % |
    +----------+--------+-------+
    | base     | 0.425  |  90.5 |

Its numbers are in code: counted and shown "in code" by default, and covered by ``--strict``
(:mod:`audit.statuses`). Read as lines of code, each number could only be traced by value alone, so a
wrong cell that happens to equal some other value of the analysis passed ``--strict``. Read as the
table it draws, each cell has its row and column: under ``--strict`` it is checked against the value
they name. The header cells are labels (not in code); the body cells keep the code hint.

A block is read as a table only when every non-blank line is a border (``+----+----+``, ``|---|---|``,
``====``) or a row (``| a | b |``), with at least one border and two rows of the same width; any other
block stays a block of code. Linear in the block's length.
"""

from __future__ import annotations

import re

from audit.doc import Piece, Table

_BORDER = re.compile(r"\s*[+|]?[-=+:| ]*[-=][-=+:| ]*[+|]?\s*")
_ROW = re.compile(r"\s*\|.*\|\s*")


def read_code_table(content: str, first: int, scope: tuple[str, ...], caption: str) -> Table | None:
    """The table a fenced block draws, or None when it is no drawn table.

    Args:
        content: the block's text (inside the fences).
        first: the line its first line is on.
        scope: the headings above it.
        caption: the prose just before it.
    Returns:
        A :class:`audit.doc.Table`: the first row is the header (labels), the others are body rows whose
        cells are marked "code" (their numbers stay numbers in code).
    Example:
        >>> t = read_code_table("+---+----+\\n| a | x  |\\n+---+----+\\n| b | 0.5|\\n+---+----+\\n", 3, (), "")
        >>> [c.text for c in t.header], [(ln, [c.text for c in cells]) for ln, _, cells in t.rows]
        (['a', 'x'], [(6, ['b', '0.5'])])
        >>> read_code_table("x = 1\\n| a | b |\\n", 3, (), "") is None
        True
    """
    if "|" not in content or ("-" not in content and "=" not in content):
        return None
    rows: list[tuple[int, str, list[str]]] = []
    borders = 0
    for k, line in enumerate(content.splitlines()):
        if not line.strip():
            continue
        if _ROW.fullmatch(line) and not _BORDER.fullmatch(line):
            rows.append((first + k, line, [c.strip() for c in line.strip()[1:-1].split("|")]))
        elif _BORDER.fullmatch(line):
            borders += 1
        else:
            return None   # a line that is neither: code that holds a table, not a table
    if not borders or len(rows) < 2 or len({len(c) for _, _, c in rows}) != 1:
        return None
    (hline, _, head), body = rows[0], rows[1:]
    header = [Piece(c, hline, "cell", scope, [], [], c) for c in head]
    out = [(ln, raw, [Piece(c, ln, "cell", scope, [(0, len(c), "code")] if c else [], [], c) for c in cells])
           for ln, raw, cells in body]
    return Table(hline, header, out, scope, caption)
