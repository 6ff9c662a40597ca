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
available (:func:`audit.pool.can_fork`), and at least two items to share.
"""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor

from audit.doc import Table
from audit.pool import can_fork

MIN_BYTES = 1_000_000    # smaller files are placed in one process (the fork and the transfer cost more)

_PART: tuple | None = None   # (build, path, items, lines, fields): set just before the fork, inherited


def split_at(items: list, text_bytes: int, jobs: int) -> int | None:
    """Where to cut ``items`` so that the two parts hold about as much text, or None (one process).

    Args:
        items: the parsed file's pieces and tables, in order.
        text_bytes: the file's size; below :data:`MIN_BYTES` it is not cut.
        jobs: the audit's worker processes (1: never cut).
    Returns:
        The index of the first item of the worker's part, or None.
    Example:
        >>> split_at([], 10, 2) is None
        True
    """
    if jobs < 2 or text_bytes < MIN_BYTES or len(items) < 2 or not can_fork():
        return None
    sizes = [_size(i) for i in items]
    half, run = sum(sizes) / 2, 0
    for k, s in enumerate(sizes):
        run += s
        if run >= half:
            return k + 1 if 0 < k + 1 < len(items) else None
    return None


def _size(item) -> int:
    if isinstance(item, Table):
        return sum(len(c.text) for _, _, cells in item.rows for c in cells) + 1
    return len(item.text) + 1


def _place_part():
    """The worker's task: its items placed; (interval count, each mention's field values)."""
    build, path, items, lines, fields = _PART
    b = build(path, items, lines)
    rows = []
    for m in b.out:
        d = m.__dict__
        rows.append(tuple(d.values()) if len(d) == fields else dict(d))
    return b.interval_count, rows


def placed_in_two(build, mention_of, path: str, items: list, k: int, lines: list[str], fields: tuple) -> list:
    """The mentions of ``items`` placed by ``build`` in two processes: ``items[:k]`` here,
    ``items[k:]`` in a forked worker; the same list a single ``build(path, items, lines)`` makes.

    Args:
        build: ``(path, items, lines) -> builder`` with ``out`` (mentions) and ``interval_count``.
        mention_of: makes a mention from the dict of its fields.
        path: the file's name in findings. items: its pieces and tables. k: the cut (:func:`split_at`).
        lines: the file's lines. fields: the mention's field names, in the order of its ``__dict__``.
    Returns:
        Every mention, in document order.
    """
    global _PART
    _PART = (build, path, items[k:], lines, len(fields))
    try:
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork")) as worker:
            later = worker.submit(_place_part)
            first = build(path, items[:k], lines)
            shift, rows = first.interval_count, later.result()[1]
    finally:
        _PART = None
    out = first.out
    for r in rows:
        d = dict(zip(fields, r, strict=True)) if isinstance(r, tuple) else r
        if shift and d["interval"] is not None:
            d["interval"] += shift
        out.append(mention_of(d))
    return out
