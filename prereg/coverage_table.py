"""The shipped Monte-Carlo coverage table, and the one rule that reads a method's coverage from it.

``stats coverage --write-table`` measures how well every interval method holds its nominal
rate at 3, 5, 8 and 20 seeds and writes ``stats/coverage_table.json`` (package data of
``stats``). Two readers quote it: ``prereg lint`` (rule ``interval-coverage``, before any run)
and ``stats analyze`` (``stats.coverage.warning_for``, in the analysis' warnings; README failures
10 and 17). Both read a coverage through :func:`lookup` here, so the tabulated n, level and
data shape they quote are decided once, and which data shape stands for a metric and below
which coverage a plan is warned about are decided once too (:func:`shapes`, :func:`threshold`,
:func:`short`). This module lives in ``prereg`` (the bottom layer,
which must not import ``stats`` or its numpy/scipy stack): it finds the JSON file through the
import system without importing ``stats``.
"""

from __future__ import annotations

import importlib.util
import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from prereg.rules import same_level

FILE_NAME = "coverage_table.json"
BOUNDED_UNITS = ("fraction", "percent")  # units read at the bounded shapes (:func:`shapes`)


def shipped_path() -> Path | None:
    """Where the shipped table lies (inside the installed ``stats`` package), None without ``stats``.

    Example:
        >>> shipped_path().name
        'coverage_table.json'
    """
    spec = importlib.util.find_spec("stats")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0]) / FILE_NAME


def read(path: Path | str) -> dict | None:
    """A coverage table read from ``path`` (re-read each call), or None when the file is absent.

    Args:
        path: a coverage table JSON file.

    Returns:
        The table (``{"rows": [...], "seeds": [...], ...}``) or None.

    Example:
        >>> read("/nonexistent/coverage_table.json") is None
        True
    """
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None


@lru_cache(maxsize=1)
def shipped() -> dict | None:
    """The shipped table, read once per process (lint reads it for every plan); None when absent.

    Example:
        >>> 3 in shipped()["seeds"]
        True
    """
    path = shipped_path()
    return None if path is None else read(path)


@dataclass(frozen=True)
class Cell:
    """One row of a coverage table (``rows[]``): a method's actual coverage for one data shape, n,
    statistic and nominal level."""

    dist: str
    n: int
    stat: str           # mean or median (tables before medians were added: mean)
    level: float        # nominal level (tables before 90% was added: 0.95)
    method: str
    coverage: float
    mean_width: float | None

    @classmethod
    def of(cls, r: dict) -> Cell:
        return cls(r["dist"], r["n"], r.get("stat", "mean"), float(r.get("level", 0.95)), r["method"],
                   r["coverage"], r.get("mean_width"))

    @property
    def key(self) -> tuple[str, float]:
        """(statistic, level): which of the table's sub-tables the row belongs to."""
        return self.stat, self.level


@dataclass(frozen=True)
class NullRow:
    """One row of the clustered null study (``clustered.rows[]``, ``stats coverage --clustered``): an
    item-level method's type I error at nominal 0.05 for one seed-to-seed SD of the effect."""

    method: str
    sigma: float
    rejection_rate: float

    @classmethod
    def of(cls, r: dict) -> NullRow:
        return cls(r["method"], r["sigma"], r["rejection_rate"])


@dataclass(frozen=True)
class Table:
    """A coverage table parsed once: its rows as :class:`Cell` values, the tabulated seed counts and
    the clustered null study's rows. The JSON file (``stats coverage --write-table``) is unchanged;
    readers ask this, not the dict by string keys.

    Example:
        >>> t = Table.of({"rows": [{"dist": "normal", "n": 3, "method": "t", "coverage": 0.95}]})
        >>> t.levels, t.cells[0].key, t.clustered
        ((0.95,), ('mean', 0.95), ())
    """

    cells: tuple[Cell, ...]
    seeds: tuple[int, ...]
    clustered: tuple[NullRow, ...]

    @classmethod
    def of(cls, table: dict) -> Table:
        rows = tuple(Cell.of(r) for r in table.get("rows") or ())
        nulls = tuple(NullRow.of(r) for r in (table.get("clustered") or {}).get("rows", ()))
        return cls(rows, tuple(table.get("seeds") or sorted({c.n for c in rows})), nulls)

    @property
    def levels(self) -> tuple[float, ...]:
        """The nominal levels the table has rows for, highest first."""
        return tuple(sorted({c.level for c in self.cells}, reverse=True))


@lru_cache(maxsize=1)
def shipped_table() -> Table | None:
    """The shipped table parsed once per process (:class:`Table`); None when absent.

    Returns:
        The parsed table, the same object on every call.

    Example:
        >>> shipped_table().levels
        (0.95, 0.9)
    """
    raw = shipped()
    return None if raw is None else Table.of(raw)


def parsed(table: dict | Table | None = None) -> Table | None:
    """``table`` as a :class:`Table` (a dict is parsed; None: the shipped table, parsed once).

    Args:
        table: a table as read from JSON, an already parsed one, or None.

    Returns:
        A :class:`Table` (None only when no table is shipped).

    Example:
        >>> parsed() is shipped_table(), parsed({"rows": []}).cells
        (True, ())
    """
    if table is None:
        return shipped_table()
    return table if isinstance(table, Table) else Table.of(table)


def cells(table: dict | Table) -> list[Cell]:
    """A coverage table's rows as :class:`Cell` values, in the table's order.

    Example:
        >>> cells({"rows": [{"dist": "normal", "n": 3, "method": "t", "coverage": 0.95}]})[0].key
        ('mean', 0.95)
    """
    return list(parsed(table).cells)


def levels(table: dict | Table | None = None) -> tuple[float, ...]:
    """The nominal levels ``table`` (default: the shipped one) has rows for, highest first; () without one.

    Example:
        >>> levels()
        (0.95, 0.9)
    """
    t = parsed(table)
    return () if t is None else t.levels


def table_level(level: float, table: dict | Table | None = None) -> float | None:
    """The tabulated nominal level a planned ``level`` is read at: its own, or None when not tabulated.

    Why None and not the nearest level: a 99% interval compared with the 95% row (and its 0.93
    flag threshold) reads another interval's coverage as this one's (a false or a missed warning);
    callers say "not tabulated" instead (:func:`untabulated`).

    Args:
        level: the planned nominal level (e.g. 0.95).
        table: the table (default: the shipped one).

    Returns:
        The tabulated level equal to ``level`` (:func:`prereg.rules.same_level`), or None.

    Example:
        >>> table_level(0.9000000001), table_level(0.95), table_level(0.99)
        (0.9, 0.95, None)
    """
    return next((lv for lv in levels(table) if same_level(level, lv)), None)


def untabulated(level: float, table: dict | Table | None = None) -> str | None:
    """What ``prereg lint`` and ``stats analyze`` both say when ``level`` has no rows in the table
    (None when it has, or when there is no table). Levels are in code spans: they are the table's
    and the plan's, not figures of an analysis (the audit traces report numbers).

    Args:
        level: the planned nominal level.
        table: the table (default: the shipped one).

    Returns:
        One sentence, or None.

    Example:
        >>> untabulated(0.99)
        'coverage at `99%` not tabulated (`stats coverage` tabulates `95%`, `90%`): how well it holds its level is unknown'
        >>> untabulated(0.95) is None
        True
    """
    have = levels(table)
    if not have or table_level(level, table) is not None:
        return None
    return (f"coverage at `{level * 100:g}%` not tabulated (`stats coverage` tabulates "
            + ", ".join(f"`{lv * 100:g}%`" for lv in have) + "): how well it holds its level is unknown")


def table_n(ns, n: int) -> int:
    """The tabulated seed count a study with ``n`` seeds is read at.

    The largest tabulated n at or below the study's; below the smallest tabulated n, the smallest.
    Why this fallback (and not "no answer", which ``stats.coverage.lookup`` gave while lint used
    this one): the preregistration schema allows 1 or 2 seeds, where a poor interval matters
    most, and "no answer" made every caller silent there. For the intervals that get flagged
    (percentile, BCa, bootstrap-t, two-level bootstrap of the mean) the table's coverage rises with
    n, so the smallest n's figure is at best what fewer seeds get: a shortfall there holds a
    fortiori. The n read is returned with the coverage, so callers quote it ("at n=3") and never
    pass it off as the study's n; a pass at the smallest n is no guarantee, which is why
    ``stats.coverage.warning_for`` says "below the smallest tabulated n" before it looks anything up.

    Args:
        ns: the tabulated seed counts (any order).
        n: the study's number of seeds.

    Returns:
        One of ``ns``.

    Example:
        >>> [table_n([3, 5, 8, 20], n) for n in (1, 3, 4, 7, 8, 30)]
        [3, 3, 3, 5, 8, 20]
    """
    ordered = sorted(set(ns))
    below = [m for m in ordered if m <= n]
    return below[-1] if below else ordered[0]


def lookup(method: str, n: int, dist=None, table: dict | Table | None = None, *, stat: str = "mean",
           level: float = 0.95) -> tuple[float, int, str] | None:
    """(worst coverage, table n, distribution) for ``method`` at the tabulated n that stands for ``n``.

    Args:
        method: interval method (``paired_bootstrap`` is the percentile interval).
        n: seeds; read at :func:`table_n` (the largest tabulated n <= ``n``, else the smallest).
        dist: a distribution name, a tuple of names, or None for all.
        table: the table (default: the shipped one).
        stat: which statistic (mean or median).
        level: the planned nominal level, read at :func:`table_level` (its own rows only).

    Returns:
        The worst coverage over the selected shapes, the n it was read at and its shape; None
        when there is no table, the level is not tabulated or it has no such cell.

    Example:
        >>> cov, tn, shape = lookup("percentile", 4, ("bounded",))
        >>> tn, shape, cov < 0.93
        (3, 'bounded', True)
    """
    t = parsed(table)
    if t is None or not t.cells:
        return None
    method = "percentile" if method == "paired_bootstrap" else method
    dists = (dist,) if isinstance(dist, str) else dist
    every = t.cells
    lv = table_level(level, t)
    if lv is None:
        return None  # never another level's figures (untabulated says so)
    tn = table_n((c.n for c in every), n)
    key = (stat, lv)
    rows = [c for c in every if c.method == method and c.n == tn and (dists is None or c.dist in dists)
            and c.key == key]
    if not rows:
        return None
    worst = min(rows, key=lambda c: c.coverage)
    return worst.coverage, tn, worst.dist


def threshold(level: float) -> float:
    """Coverage below which a nominal ``level`` interval is flagged (0.93 for 95%, 0.88 for 90%).

    The one flag line of ``prereg lint`` and ``stats analyze`` (and the bold cells of
    ``stats coverage``): two points of coverage below nominal, a shortfall well outside the
    table's Monte-Carlo error.

    Example:
        >>> threshold(0.95), threshold(0.9)
        (0.93, 0.88)
    """
    return round(level - 0.02, 6)


def shapes(unit: str | None, *, contrast: bool, stat: str = "mean") -> tuple[str, ...] | None:
    """The table's data shapes that stand for a metric of ``unit`` (None: every shape, the worst case).

    The one rule of both readers (lint before the runs, ``stats analyze`` after them): a metric
    whose unit is ``fraction`` or ``percent`` (declared by the plan, else its task default,
    :func:`prereg.declarations.unit_of`) is bounded, accuracy-like data (``bounded`` for one arm,
    ``paired_bounded`` for a paired difference; a percent is the same data times 100, and coverage
    does not change with scale); a count, a real value or an unknown unit is read at the worst of
    every tabulated shape, because nothing says which shape its values take (lint used to read
    such a metric as ``normal`` data while ``stats analyze`` took the worst: the plan and the
    analysis disagreed). A median's rows exist only for continuous shapes (a fraction's median is
    a point), so a median is always read at the worst of them.

    Args:
        unit: the metric's unit (``fraction``, ``percent``, ``count``, ``real``), None when unknown.
        contrast: True for an interval of a paired difference.
        stat: the summarised statistic (mean or median).

    Returns:
        Shape names for :func:`lookup`, or None for all.

    Example:
        >>> shapes("fraction", contrast=True), shapes("real", contrast=False), shapes("fraction", contrast=False, stat="median")
        (('paired_bounded',), None, None)
    """
    if unit not in BOUNDED_UNITS or stat != "mean":
        return None
    return ("paired_bounded",) if contrast else ("bounded",)


def short(method: str, n: int, unit: str | None, *, contrast: bool, stat: str = "mean", level: float = 0.95,
          table: dict | Table | None = None) -> tuple[float, int, str] | None:
    """(coverage, table n, shape) when a planned interval under-covers, else None: the one decision
    behind lint's ``interval-coverage`` finding and ``stats analyze``'s coverage warning.

    Args:
        method: interval method (``paired_bootstrap`` is the percentile interval).
        n: registered (or analysed) seeds.
        unit: the metric's unit (:func:`prereg.declarations.unit_of`), None when unknown.
        contrast: True for an interval of a paired difference.
        stat: mean or median.
        level: the nominal level (an untabulated level is never short: :func:`untabulated` says so).
        table: the table (default: the shipped one).

    Returns:
        The worst coverage over :func:`shapes`, the tabulated n it was read at and its shape, when
        that coverage is below :func:`threshold`; None otherwise.

    Example:
        >>> short("percentile", 3, "fraction", contrast=True)
        (0.7675, 3, 'paired_bounded')
        >>> short("t", 3, "fraction", contrast=True) is None
        True
    """
    hit = lookup(method, n, shapes(unit, contrast=contrast, stat=stat), table, stat=stat, level=level)
    if hit is None or hit[0] >= threshold(level):
        return None
    return hit
