"""A large report's numbers placed in two processes (README failure 10: any report up to 5 MB audits
in seconds, and placing each number with its context is most of the parse).

The file is parsed into pieces and tables once, in the audit's process (:mod:`audit.markdown_doc`,
:mod:`audit.latex_doc`). The pieces are independent of one another when their numbers are placed
(:class:`audit.numbers._Builder`): each carries its own line, headings and caption. So the later
items are placed in one forked worker while the audit's process places the earlier ones; the worker
sends its mentions back as tuples of their fields (a tenth of what pickling the objects costs) and
they are put after the audit's own, in document order. The one thing numbered across pieces, the
interval id shared by an interval's two ends, is shifted by the count of the earlier part, so the
result is the one-process result field for field (tests/test_audit_parse_pool.py).

Used only where it pays: a file of :data:`MIN_BYTES` or more, more than one job, ``fork``
available (:func:`audit.pool.can_fork`), and at least two items or two table rows to share.
"""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from operator import attrgetter

from audit.doc import Table, TableRows
from audit.pool import can_fork

MIN_BYTES = 1_000_000    # smaller files are placed in one process (the fork and the transfer cost more)

_PART: tuple | None = None   # (build, path, items, lines, fields): set just before the fork, inherited


def split(items: list, text_bytes: int, jobs: int) -> tuple[list, list] | None:
    """``items`` cut in two parts that hold about as much text, or None (one process). Where the
    middle falls inside a table, the table is cut between two rows (:class:`audit.doc.TableRows`: a
    report that is one large table is placed in two processes too).

    Args:
        items: the parsed file's pieces and tables, in order.
        text_bytes: the file's size; below :data:`MIN_BYTES` it is not cut.
        jobs: the audit's worker processes (1: never cut).
    Returns:
        (the audit's part, the worker's part), or None.
    Example:
        >>> split([], 10, 2) is None
        True
    """
    if jobs < 2 or text_bytes < MIN_BYTES or not items or not can_fork():
        return None
    sizes = [_size(i) for i in items]
    half, run = sum(sizes) / 2, 0
    for k, (item, size) in enumerate(zip(items, sizes, strict=True)):
        if run + size < half:
            run += size
            continue
        if isinstance(item, Table) and len(item.rows) >= 2:
            r = _row_at(item, half - run)
            return [*items[:k], TableRows(item, 0, r)], [TableRows(item, r, len(item.rows)), *items[k + 1:]]
        return (items[:k + 1], items[k + 1:]) if k + 1 < len(items) else None
    return None


def _row_at(t: Table, want: float) -> int:
    """The first row (1 to ``len(t.rows) - 1``) after about ``want`` characters of ``t``'s rows."""
    run = 0
    for r, (_, raw, _) in enumerate(t.rows):
        if r and run >= want:
            return min(r, len(t.rows) - 1)
        run += len(raw) + 1
    return len(t.rows) - 1


def _size(item) -> int:
    """About how much text an item holds: a table's rows as written (an HTML or LaTeX table's raw
    text may hold its markup; a size to cut at, no more)."""
    if isinstance(item, Table):
        return sum(len(raw) + 1 for _, raw, _ in item.rows) + 1
    return len(item.text) + 1


def _place_part():
    """The worker's task: its items placed; (interval count, each mention's field values)."""
    build, path, items, lines, fields = _PART
    b = build(path, items, lines)
    return b.interval_count, list(map(attrgetter(*fields), b.out))


def placed_in_two(build, mention_of, path: str, parts: tuple[list, list], lines: list[str], fields: tuple) -> list:
    """The mentions of two parts of a file's items (:func:`split`) placed by ``build`` in two
    processes: the first here, the later in a forked worker; the same list a single ``build`` of
    all the items makes.

    Args:
        build: ``(path, items, lines) -> builder`` with ``out`` (mentions) and ``interval_count``.
        mention_of: makes a mention from its field values, in declaration order.
        path: the file's name in findings. parts: (the audit's items, the worker's items).
        lines: the file's lines. fields: the mention's field names, in declaration order.
    Returns:
        Every mention, in document order.
    """
    global _PART
    first_items, later_items = parts
    _PART = (build, path, later_items, lines, fields)
    try:
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork")) as worker:
            later = worker.submit(_place_part)
            first = build(path, first_items, lines)
            shift, rows = first.interval_count, later.result()[1]
    finally:
        _PART = None
    out = first.out
    for r in rows:
        mn = mention_of(*r)
        if shift and mn.interval is not None:
            mn.interval += shift
        out.append(mn)
    return out
