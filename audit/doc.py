"""The shapes both report readers produce: pieces of text and tables (Markdown and LaTeX alike).

:mod:`audit.markdown_doc` and :mod:`audit.latex_doc` turn a file into these; :mod:`audit.numbers`
turns them into numbers with context. Keeping one shape means one number extractor, so a rule
about labels, pins or intervals holds in both formats.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Piece:
    """A run of report text as a reader sees it, with its context.

    ``hints`` are (start, end, hint) sub-ranges of ``text`` whose numbers are not prose values
    (hint "code" or "comment"); ``pins`` are (position, id) where a pin comment stood. ``kind``:
    prose | heading | cell | code | comment | front_matter | macro.
    """

    text: str
    line: int
    kind: str
    scope: tuple[str, ...] = ()
    hints: list[tuple[int, int, str]] = field(default_factory=list)
    pins: list[tuple[int, str]] = field(default_factory=list)
    raw: str = ""
    macro: str | None = None

    def plain(self) -> str:
        """The text with comments blanked: what a label or header says."""
        t = self.text
        for a, b, h in reversed(self.hints):
            if h == "comment":
                t = t[:a] + " " * (b - a) + t[b:]
        return " ".join(t.split())


@dataclass
class Table:
    """A table: header cells (one per column, multi-row headers joined), then rows of
    (line, raw text, cells)."""

    line: int
    header: list[Piece]
    rows: list[tuple[int, str, list[Piece]]]
    scope: tuple[str, ...]
    caption: str = ""
    # Each column's full name where the header pieces do not give it whole: an HTML header cell
    # spanning columns names each of them, but its numbers are read once (audit.html_table).
    columns: list[str] = field(default_factory=list)


@dataclass
class Doc:
    """A parsed file: pieces and tables in document order, and the front matter's text."""

    items: list = field(default_factory=list)
    front_matter: str = ""


@dataclass(frozen=True)
class TableRows:
    """Rows ``start`` to ``stop`` of ``table`` (its body rows, as :attr:`Table.rows` counts them): the
    part of one large table a process places (:mod:`audit.parse_pool`); its header cells are placed
    with the part that starts at row 0. Each part reads the whole table's header, caption and scope,
    so its numbers carry the same context as when the table is placed whole (README failure 10)."""

    table: Table
    start: int
    stop: int
