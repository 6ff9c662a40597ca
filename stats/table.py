"""Imported results tables (CSV or JSON lines) read as the study was run (README failure 16).

A table is per seed (``arm, seed, <metric columns>``) or per item (``arm, seed, item,
<metric columns>``; the old single ``outcome`` column still means the primary metric).
Optional columns: ``session`` (an evaluation batch: the same arm evaluated again in another
session is a second evaluation, not a duplicate) and ``task``. A reference arm evaluated
once leaves ``seed`` empty: a copied evaluation is not a seed, so a seed there is refused.
Every cell is checked against its metric's declared range; a pass@k column holds each
item's number of correct samples (or, in JSON lines, the list of per-sample outcomes) and
becomes the per-item unbiased pass@k.
"""

from __future__ import annotations

import csv
import json
import math
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from prereg.canonical import sha256_file
from prereg.declarations import ArmDecl, MetricDecl
from prereg.errors import UserError
from prereg.jsonio import RecordError, read_text, unique_pairs
from prereg.records import seed_tag
from prereg.study import Study
from stats import passk

RESERVED = ("arm", "seed", "item", "session", "task")


@dataclass(frozen=True)
class Cell:
    """Where a value came from, for one-line errors: file, line, column."""

    path: Path
    line: int
    col: str

    def fail(self, why: str) -> UserError:
        return UserError(f"{self.path}: line {self.line}: column {self.col!r}: {why}")


def _rows(path: Path) -> list[tuple[int, dict]]:
    """(line number, row dict) of a CSV (header row) or JSON-lines table."""
    if path.suffix.lower() == ".csv":
        try:
            with open(path, newline="", encoding="utf-8-sig") as fh:
                reader = csv.DictReader(fh)
                if not reader.fieldnames:
                    raise UserError(f"{path}: empty table (no header row)")
                out = []
                for row in reader:
                    if None in row:
                        raise UserError(f"{path}: line {reader.line_num}: more cells than header columns")
                    out.append((reader.line_num, {k.strip(): (v.strip() if isinstance(v, str) else v)
                                                  for k, v in row.items()}))
                return out
        except UnicodeDecodeError as exc:
            raise UserError(f"{path}: not UTF-8 text ({exc.reason})") from None
        except OSError as exc:
            raise UserError(f"{path}: cannot read ({exc.strerror})") from None
    # NaN/Infinity literals are read as floats so the check of each cell names the column too
    out = []
    for i, line in enumerate(read_text(path, "results table").splitlines(), 1):
        if not line.strip():
            continue
        try:
            r = json.loads(line, parse_constant=float, object_pairs_hook=unique_pairs)
        except RecordError as exc:  # a repeated key: one row, two meanings
            raise UserError(f"{path}: line {i}: {exc}") from None
        except ValueError as exc:
            raise UserError(f"{path}: line {i}: not valid JSON ({exc})") from None
        if not isinstance(r, dict):
            raise UserError(f"{path}: line {i}: not a JSON object")
        out.append((i, r))
    return out


def _number(cell: Cell, v) -> float:
    """A finite number from a cell (true/false read as 1/0); else a one-line error naming it."""
    if v is None or v == "":
        raise cell.fail("empty value")
    if isinstance(v, bool):
        return float(v)
    if isinstance(v, str) and v.lower() in ("true", "false"):
        return 1.0 if v.lower() == "true" else 0.0
    try:
        f = float(v)
    except (TypeError, ValueError):
        raise cell.fail(f"{v!r} is not a number") from None
    if not math.isfinite(f):
        raise cell.fail(f"non-finite value {v!r}")
    return f


def _in_range(cell: Cell, value: float, decl: MetricDecl | None, raw) -> float:
    """``value`` when inside the metric's declared range (README failure 14), else an error."""
    if decl is not None and decl.range is not None:
        lo, hi = decl.range
        if not lo - 1e-12 <= value <= hi + 1e-12:
            raise cell.fail(f"{raw!r} is outside the declared range [{lo:g}, {hi:g}] of {decl.unit} metric "
                            f"{decl.name!r}")
    return value


def _pass_value(cell: Cell, v, decl: MetricDecl) -> float:
    """Per-item pass@k from a correct-sample count c (or a JSON list of per-sample outcomes)."""
    n, k = decl.n_samples, decl.k
    if isinstance(v, list):
        outs = [_number(cell, x) for x in v]
        if len(outs) != n or any(x not in (0.0, 1.0) for x in outs):
            raise cell.fail(f"a list of samples must hold {n} outcomes of 0/1 (pass@{k} from n_samples {n})")
        c = int(sum(outs))
    else:
        f = _number(cell, v)
        if not f.is_integer() or not 0 <= f <= n:
            raise cell.fail(f"{v!r} is not a count of correct samples in 0..{n} (pass@{k} from n_samples {n})")
        c = int(f)
    val = passk.pass_at_k(n, c, k)
    return val * 100.0 if decl.unit == "percent" else val


def _seed_of(cell: Cell, v, arm: ArmDecl, seeds: list[int]) -> int | None:
    """The row's seed: ``None`` for a reference evaluated once (empty cell), else a registered seed."""
    empty = v is None or (isinstance(v, str) and v.strip() == "")
    if arm.evaluated_once:
        if not empty:
            raise cell.fail(f"arm {arm.name!r} is a reference evaluated once: leave 'seed' empty "
                            "(one evaluation copied to seeds is not replication; README failure 16)")
        return None
    if empty:
        raise cell.fail(f"empty seed for arm {arm.name!r}, which is evaluated per seed")
    try:
        seed = int(v) if not isinstance(v, float) or v.is_integer() else None
    except (TypeError, ValueError):
        seed = None
    if seed is None or isinstance(v, bool):
        raise cell.fail(f"{v!r} is not an integer")
    if seed not in seeds:
        raise cell.fail(f"{seed} is not a registered seed of the lock")
    return seed


def _metric_columns(cols: set[str], decls: dict[str, MetricDecl], wanted: list[str], primary: str,
                   per_item: bool) -> dict[str, str]:
    """Column -> metric for every analysed metric the table carries (its declared column or name)."""
    out = {}
    for m in wanted:
        col = decls[m].source_column if m in decls else m
        if col in cols and col not in RESERVED:
            out[col] = m
    if per_item and "outcome" in cols and primary not in out.values():
        out["outcome"] = primary  # the old single-outcome form
    return out


@dataclass(frozen=True)
class Table:
    """An imported table, parsed and checked against the lock (:func:`read`)."""

    entries: Mapping[tuple, list]   # (arm, seed or None, session or None) -> [(item, task, {metric: value})]
    per_item: bool                  # rows are items (an ``item`` column), not one row per run
    columns: Mapping[str, str]      # table column -> the metric it holds
    sha256: str                     # of the file's bytes (the seal every imported unit carries)
    rows: int

    @property
    def kind(self) -> str:
        """``per_item`` or ``per_seed`` (analysis.json ``inputs.table.kind``)."""
        return "per_item" if self.per_item else "per_seed"


def read(path: Path, study: Study, decls: dict[str, MetricDecl], wanted: list[str]) -> Table:
    """Parse and check every row of an imported table against the lock.

    Args:
        path: the .csv or .jsonl table.
        study: the lock's preregistration as typed values (arms, seeds, plan).
        decls: metric declarations (``prereg.declarations.metric_decls``): columns, ranges, pass@k.
        wanted: the metrics to read, in order (planned, descriptive, declared).

    Returns:
        The :class:`Table`; ``entries`` maps (arm, seed or None, session or None) to a list of
        (item, task, {metric: value}).

    Example:
        ``read(Path("items.csv"), lock.study, metric_decls(lock.prereg), ["solve_rate"])``
    """
    rs = _rows(path)
    if not rs:
        raise UserError(f"{path}: table has no rows")
    cols = set(rs[0][1])
    for c in ("arm", "seed"):
        if c not in cols:
            raise UserError(f"{path}: missing column {c!r} (need arm, seed and metric or item/outcome columns)")
    plan = study.analysis
    per_item = "item" in cols
    primary = plan.primary_metric
    mcols = _metric_columns(cols, decls, wanted, primary, per_item)
    primary_col = next((c for c, m in mcols.items() if m == primary), None)
    if primary_col is None and not plan.tasks:
        need = decls[primary].source_column if primary in decls else primary
        hint = " or 'outcome'" if per_item else ""
        raise UserError(f"{path}: missing column {need!r}{hint} (the plan's primary metric)")
    if plan.tasks and "task" not in cols:
        raise UserError(f"{path}: the plan has tasks; the table needs a 'task' column")
    arms = {name: arm.decl for name, arm in study.arms.items()}
    seen: set = set()
    entries: dict[tuple, list] = defaultdict(list)
    for line, r in rs:
        missing = [c for c in cols if c not in r]
        if missing:
            raise UserError(f"{path}: line {line}: missing column {missing[0]!r}")
        key, item, task = _identity(path, line, r, arms, study, per_item, "task" in cols)
        full = (*key, task, item)
        if full in seen:
            what = f"item {item!r} of " if per_item else ""
            sess = f" session {key[2]!r}" if key[2] is not None else ""
            raise UserError(f"{path}: line {line}: duplicate row for {what}{key[0]}/{seed_tag(key[1])}{sess}"
                            + (f" task {task}" if task else ""))
        seen.add(full)
        entries[key].append((item, task, _row_values(path, line, r, mcols, decls, per_item)))
    return Table(dict(entries), per_item, mcols, sha256_file(path), len(rs))


def _row_values(path: Path, line: int, r: dict, mcols: dict, decls: dict, per_item: bool) -> dict:
    """One row's metric values, each a number inside its declared range (pass@k cells as counts or lists)."""
    vals = {}
    for col, m in mcols.items():
        cell = Cell(path, line, col)
        d = decls.get(m)
        if per_item and d is not None and d.kind == "pass_at_k":
            vals[m] = _pass_value(cell, r[col], d)
            continue
        v = _in_range(cell, _number(cell, r[col]), d, r[col])
        if per_item and m == "heldout_accuracy" and v not in (0.0, 1.0):
            raise cell.fail(f"{r[col]!r} is not 0/1 (accuracy items)")
        vals[m] = v
    return vals


def _identity(path, line, r, arms, study: Study, per_item, has_task):
    arm_name = str(r["arm"])
    if arm_name not in arms:
        raise Cell(path, line, "arm").fail(f"{arm_name!r} is not an arm of the lock ({', '.join(arms)})")
    seed = _seed_of(Cell(path, line, "seed"), r["seed"], arms[arm_name], list(study.seeds))
    sess = r.get("session")
    sess = None if sess is None or str(sess).strip() == "" else str(sess).strip()
    task = str(r["task"]) if has_task else None
    planned = study.analysis.tasks
    if planned and task not in planned:
        raise Cell(path, line, "task").fail(f"{task!r} is not a planned task")
    return (arm_name, seed, sess), (str(r["item"]) if per_item else None), task


def item_vectors(entries: list, metrics: list[str]) -> tuple[list[str], dict[str, np.ndarray], list]:
    """Per-item rows of one evaluation, sorted by item id.

    Args:
        entries: (item, task, {metric: value}) rows of one (arm, seed, session).
        metrics: metrics to collect (one present in every row becomes a vector).

    Returns:
        (item ids, metric -> values in id order, tasks in id order).

    Example:
        >>> item_vectors([("b", None, {"m": 1.0}), ("a", None, {"m": 0.0})], ["m"])[1]["m"].tolist()
        [0.0, 1.0]
    """
    entries = sorted(entries, key=lambda e: (e[0], e[1] or ""))
    ids = [e[0] for e in entries]
    items = {m: np.asarray([e[2][m] for e in entries], dtype=float) for m in metrics
             if all(m in e[2] for e in entries)}
    return ids, items, [e[1] for e in entries]
