"""Inputs of an analysis: run folders or an imported table, reduced to per-(arm, seed) units.

Only complete, sealed, confirmatory runs made under exactly the analysed lock count. Every
other run is listed in ``excluded`` with its reason, and every way the data differ from the
plan becomes a ``deviation`` (the study-level deviation verdict is built from them).
"""

from __future__ import annotations

import csv
import json
import math
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from prereg.canonical import sha256_file
from prereg.errors import UserError
from prereg.jsonio import read_jsonl, read_text
from prereg.lock import Lock, parse_time
from prereg.records import HELDOUT_TRACE, TELEMETRY, read_run
from prereg.rules import manifest_paths

# Held-out metrics and the per-item trace field each is the mean of.
ITEM_FIELD = {"heldout_accuracy": "correct", "heldout_reward_mean": "reward"}
# Descriptive per-run summaries reported per arm whatever the plan says.
DESCRIPTIVE = ("zvf_mean", "gu_mean", "reward_first5", "reward_last10", "rollouts", "steps")
# Per-run counts reported per run (so a quoted count is traceable to one manifest).
RUN_COUNTS = ("heldout_n", "heldout_correct")
UNITS = {"heldout_accuracy": "fraction", "zvf_mean": "fraction", "gu_mean": "fraction",
         "heldout_reward_mean": "reward", "reward_first5": "reward", "reward_last10": "reward",
         "rollouts": "count", "steps": "count", "heldout_correct": "count", "heldout_n": "items"}


def metric_unit(metric: str) -> str:
    return UNITS.get(metric, "other")


@dataclass
class Unit:
    """One (arm, seed) of the analysis: its seed-level metrics and, when needed, its items."""

    arm: str
    seed: int
    seal: str | None
    path: str | None
    metrics: dict[str, float | None]
    item_ids: list[str] | None = None
    items: dict[str, np.ndarray] = field(default_factory=dict)  # metric -> per-item values, by item id
    item_tasks: list[str] | None = None
    task_metrics: dict[str, float] = field(default_factory=dict)  # task -> primary metric
    fingerprint: str | None = None

    @property
    def input_id(self) -> str:
        return self.seal or ""


@dataclass
class Data:
    source: str  # "runs" | "imported"
    units: dict[tuple[str, int], Unit]
    excluded: list[dict]
    deviations: list[dict]
    origin: str
    table: dict | None = None

    def seeds_of(self, arm: str) -> list[int]:
        return sorted(s for a, s in self.units if a == arm)


def needed_metrics(plan: dict) -> list[str]:
    out = [plan["primary_metric"]]
    for m in plan.get("secondary_metrics", []):
        if m not in out:
            out.append(m)
    return out


def secondary_contrast_metrics(prereg: dict) -> list[str]:
    """Non-primary metrics that get a full (non-confirmatory) contrast block: the plan's
    secondary_metrics, then any other metric a hypothesis names, in declaration order."""
    plan = prereg["analysis"]
    out: list[str] = []
    for m in list(plan.get("secondary_metrics", [])) + [h["metric"] for h in prereg.get("hypotheses", [])]:
        if m != plan["primary_metric"] and m not in out:
            out.append(m)
    return out


def needs_items(plan: dict) -> bool:
    return (plan["primary_metric"] in ITEM_FIELD or plan["contrasts"].get("item_level", "none") != "none"
            or bool(plan.get("tasks")))


def _finite(v) -> float | None:
    if v is None or isinstance(v, bool):
        return None
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) else None


# ----------------------------------------------------------------------------- run folders
def _deviation(kind: str, detail: str, **kw) -> dict:
    return {"kind": kind, "detail": detail, **kw}


def _read_items(run, plan: dict) -> tuple[list[str], dict[str, np.ndarray], list[str] | None]:
    rows = read_jsonl(run.path / HELDOUT_TRACE, "held-out trace")
    rows = sorted(rows, key=lambda r: (str(r.get("item_id", r.get("index"))), r.get("index", 0)))
    ids = [str(r.get("item_id", r.get("index"))) for r in rows]
    items = {}
    for metric, fld in ITEM_FIELD.items():
        vals = [r.get(fld) for r in rows]
        if all(v is not None for v in vals):
            items[metric] = np.asarray([float(v) for v in vals], dtype=float)
    tasks = [str(r.get("task")) for r in rows] if plan.get("tasks") else None
    return ids, items, tasks


def load_runs(lock: Lock, root: str | Path) -> Data:
    root = Path(root)
    if not root.exists():
        raise UserError(f"{root}: runs folder not found")
    prereg = lock.prereg
    plan = prereg["analysis"]
    arms, seeds = list(prereg["arms"]), list(prereg["seeds"])
    want_items = needs_items(plan)
    metrics = needed_metrics(plan)
    excluded, deviations = [], []
    candidates: dict[tuple[str, int], list[Unit]] = defaultdict(list)
    locked_at = parse_time(lock.locked_at)

    def exclude(path, reason, kind=None, arm=None, seed=None, seal=None):
        excluded.append({"path": str(path), "arm": arm, "seed": seed, "seal": seal, "reason": reason})
        if kind:
            deviations.append(_deviation(kind, f"{path}: {reason}", arm=arm, seed=seed))

    for mpath in manifest_paths(root):
        rdir = mpath.parent
        rel = rdir.relative_to(root).as_posix() if rdir != root else "."
        try:
            run = read_run(rdir)
        except UserError as exc:
            exclude(rel, f"malformed manifest ({exc})", "malformed_run")
            continue
        m = run.manifest
        a, s, sl = m["arm"], m["seed"], m.get("seal")
        if m["study_id"] != lock.study_id:
            exclude(rel, f"run of another study {m['study_id']!r}", None, a, s, sl)
            continue
        if not run.seal_ok():
            exclude(rel, "manifest seal does not match its content", "broken_seal", a, s, sl)
            continue
        if run.lock_hash != lock.hash:
            v = m["lock"].get("version")
            if isinstance(v, int) and v < lock.version:
                exclude(rel, f"run on an older lock version (v{v}, analysing v{lock.version})", "stale_lock", a, s, sl)
            else:
                exclude(rel, f"run on a different lock {run.lock_hash[:12]}", "foreign_lock", a, s, sl)
            continue
        if not run.confirmatory:
            exclude(rel, "exploratory run", "exploratory_run", a, s, sl)
            continue
        if a not in arms or s not in seeds:
            what = f"arm {a!r}" if a not in arms else f"seed {s}"
            exclude(rel, f"unregistered {what}", "unregistered_run", a, s, sl)
            continue
        if run.status != "complete":
            exclude(rel, f"status {run.status!r}", "incomplete_run", a, s, sl)
            continue
        try:
            if parse_time(m["started_at"]) < locked_at:
                exclude(rel, "run started before the lock", "run_before_lock", a, s, sl)
                continue
        except ValueError:
            exclude(rel, "unreadable started_at", "malformed_run", a, s, sl)
            continue
        summ = m.get("summaries", {})
        unit = Unit(a, s, sl, rel, {k: _finite(summ.get(k)) for k in set(metrics) | set(DESCRIPTIVE) | set(RUN_COUNTS)
                                  | set(secondary_contrast_metrics(prereg))},
                    fingerprint=m["fingerprint"]["hash"])
        if want_items:
            digest = m["artifacts"].get(HELDOUT_TRACE, {}).get("sha256")
            tpath = run.path / HELDOUT_TRACE
            if digest is None or not tpath.exists() or sha256_file(tpath) != digest:
                exclude(rel, "held-out trace missing or does not match its manifest digest", "trace_mismatch",
                        a, s, sl)
                continue
            unit.item_ids, unit.items, unit.item_tasks = _read_items(run, plan)
            bad = [k for k, arr in unit.items.items()
                   if unit.metrics.get(k) is not None and abs(float(arr.mean()) - unit.metrics[k]) > 1e-9]
            if bad:
                exclude(rel, f"summary {bad[0]} disagrees with the held-out trace", "trace_mismatch", a, s, sl)
                continue
            if plan.get("tasks"):
                _task_means(unit, plan, exclude, rel)
        candidates[(a, s)].append(unit)

    units = {}
    for key, group in sorted(candidates.items()):
        if len(group) > 1:
            for u in group:
                excluded.append({"path": u.path, "arm": u.arm, "seed": u.seed, "seal": u.seal,
                                 "reason": f"duplicate unit ({len(group)} runs for {u.arm}/s{u.seed})"})
            deviations.append(_deviation("duplicate_unit", f"{len(group)} confirmatory runs for {key[0]}/s{key[1]}: "
                                         + ", ".join(u.path for u in group) + "; all excluded",
                                         arm=key[0], seed=key[1]))
            continue
        units[key] = group[0]
    data = Data("runs", units, excluded, deviations, str(root))
    _missing(data, arms, seeds)
    fps = defaultdict(list)
    for u in units.values():
        fps[u.fingerprint].append(f"{u.arm}/s{u.seed}")
    if len(fps) > 1:
        detail = "; ".join(f"{h[:12]}: {len(v)} runs" for h, v in sorted(fps.items()))
        deviations.append(_deviation("mixed_fingerprint", f"runs differ in stack fingerprint ({detail})",
                                     fingerprints={h: sorted(v) for h, v in fps.items()}))
    return data


def _task_means(unit: Unit, plan: dict, exclude, rel) -> None:
    metric = plan["primary_metric"]
    arr = unit.items.get(metric)
    if arr is None or unit.item_tasks is None:
        return
    tasks = np.asarray(unit.item_tasks)
    for t in plan["tasks"]:
        mask = tasks == t
        if mask.any():
            unit.task_metrics[t] = float(arr[mask].mean())


def _missing(data: Data, arms: list[str], seeds: list[int]) -> None:
    for a in arms:
        present = data.seeds_of(a)
        if not present:
            data.deviations.append(_deviation("missing_arm", f"arm {a!r} has no included run", arm=a))
            continue
        for s in seeds:
            if s not in present:
                data.deviations.append(_deviation("missing_seed", f"registered seed {s} of arm {a!r} has no included run",
                                                  arm=a, seed=s))


# ----------------------------------------------------------------------------- imported tables
def is_table(path: str | Path) -> bool:
    p = Path(path)
    return p.is_file() and p.suffix.lower() in (".csv", ".jsonl", ".ndjson", ".json")


def _rows(path: Path) -> list[tuple[int, dict]]:
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
    # (read_jsonl would refuse them naming only the line)
    out = []
    text = read_text(path, "results table")
    for i, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            r = json.loads(line, parse_constant=float)
        except ValueError as exc:
            raise UserError(f"{path}: line {i}: not valid JSON ({exc})") from None
        if not isinstance(r, dict):
            raise UserError(f"{path}: line {i}: not a JSON object")
        out.append((i, r))
    return out


def _num(path, line, col, v) -> float:
    if v is None or v == "":
        raise UserError(f"{path}: line {line}: column {col!r}: empty value")
    if isinstance(v, bool):
        return float(v)
    if isinstance(v, str) and v.lower() in ("true", "false"):
        return 1.0 if v.lower() == "true" else 0.0
    try:
        f = float(v)
    except (TypeError, ValueError):
        raise UserError(f"{path}: line {line}: column {col!r}: {v!r} is not a number") from None
    if not math.isfinite(f):
        raise UserError(f"{path}: line {line}: column {col!r}: non-finite value {v!r}")
    return f


def load_table(lock: Lock, path: str | Path) -> Data:
    """Per-seed (arm, seed, <metric>...[, task]) or per-item (arm, seed, item, outcome[, task]) table."""
    path = Path(path)
    prereg = lock.prereg
    plan = prereg["analysis"]
    arms, seeds = list(prereg["arms"]), list(prereg["seeds"])
    rows = _rows(path)
    if not rows:
        raise UserError(f"{path}: table has no rows")
    cols = set(rows[0][1])
    for c in ("arm", "seed"):
        if c not in cols:
            raise UserError(f"{path}: missing column {c!r} (need arm, seed and metric or item/outcome columns)")
    per_item = "item" in cols
    metric = plan["primary_metric"]
    tasks_planned = plan.get("tasks") or []
    if per_item and "outcome" not in cols:
        raise UserError(f"{path}: per-item table (column 'item') needs an 'outcome' column")
    if not per_item and metric not in cols and not tasks_planned:
        raise UserError(f"{path}: missing column {metric!r} (the plan's primary metric)")
    if tasks_planned and "task" not in cols:
        raise UserError(f"{path}: the plan has tasks; the table needs a 'task' column")
    digest = sha256_file(path)
    seal = f"table:sha256:{digest}"
    seen = set()
    per_unit: dict[tuple[str, int], list] = defaultdict(list)
    for line, r in rows:
        missing = [c for c in cols if c not in r]
        if missing:
            raise UserError(f"{path}: line {line}: missing column {missing[0]!r}")
        arm = str(r["arm"])
        if arm not in arms:
            raise UserError(f"{path}: line {line}: column 'arm': {arm!r} is not an arm of the lock ({', '.join(arms)})")
        sv = r["seed"]
        try:
            seed = int(sv) if not isinstance(sv, float) or sv.is_integer() else None
        except (TypeError, ValueError):
            seed = None
        if seed is None or isinstance(sv, bool):
            raise UserError(f"{path}: line {line}: column 'seed': {sv!r} is not an integer")
        if seed not in seeds:
            raise UserError(f"{path}: line {line}: column 'seed': {seed} is not a registered seed of the lock")
        task = str(r["task"]) if "task" in cols else None
        if tasks_planned and task not in tasks_planned:
            raise UserError(f"{path}: line {line}: column 'task': {task!r} is not a planned task")
        key = (arm, seed, task, str(r["item"]) if per_item else None)
        if key in seen:
            what = f"item {key[3]!r} of " if per_item else ""
            raise UserError(f"{path}: line {line}: duplicate row for {what}{arm}/s{seed}" + (f" task {task}" if task else ""))
        seen.add(key)
        if per_item:
            out = _num(path, line, "outcome", r["outcome"])
            if metric == "heldout_accuracy" and out not in (0.0, 1.0):
                raise UserError(f"{path}: line {line}: column 'outcome': {r['outcome']!r} is not 0/1 (accuracy items)")
            per_unit[(arm, seed)].append((str(r["item"]), out, task))
        else:
            vals = {m: _num(path, line, m, r[m]) for m in cols
                    if m not in ("arm", "seed", "task")
                    and m in set(needed_metrics(plan)) | set(DESCRIPTIVE) | set(secondary_contrast_metrics(prereg))}
            per_unit[(arm, seed)].append((task, vals))

    units: dict[tuple[str, int], Unit] = {}
    for (arm, seed), entries in sorted(per_unit.items()):
        u = Unit(arm, seed, seal, f"{path.name}#{arm}/s{seed}", {})
        if per_item:
            entries.sort(key=lambda e: e[0])
            u.item_ids = [e[0] for e in entries]
            arr = np.asarray([e[1] for e in entries], dtype=float)
            u.items = {metric: arr}
            u.item_tasks = [e[2] for e in entries] if tasks_planned else None
            u.metrics[metric] = float(arr.mean())
            if tasks_planned:
                tk = np.asarray(u.item_tasks)
                for t in tasks_planned:
                    if (tk == t).any():
                        u.task_metrics[t] = float(arr[tk == t].mean())
        else:
            if tasks_planned:
                for task, vals in entries:
                    if metric not in vals:
                        raise UserError(f"{path}: missing column {metric!r} (the plan's primary metric)")
                    u.task_metrics[task] = vals[metric]
                u.metrics[metric] = float(np.mean([u.task_metrics[t] for t in sorted(u.task_metrics)]))
            else:
                u.metrics.update(entries[0][1])
        units[(arm, seed)] = u
    if per_item:
        ref = None
        for u in units.values():
            if ref is None:
                ref = u.item_ids
            elif u.item_ids != ref:
                raise UserError(f"{path}: {u.arm}/s{u.seed} has a different item set than the first unit "
                                "(per-item tables must list the same items for every unit)")
    data = Data("imported", units, [], [], str(path),
                table={"path": str(path), "sha256": digest, "kind": "per_item" if per_item else "per_seed",
                       "rows": len(rows)})
    _missing(data, arms, seeds)
    return data


def load(lock: Lock, runs_path: str | Path) -> Data:
    p = Path(runs_path)
    if is_table(p):
        return load_table(lock, p)
    if p.is_file():
        raise UserError(f"{p}: not a runs folder nor a .csv/.jsonl results table")
    return load_runs(lock, p)


def telemetry_of(root: str | Path, rel: str) -> list[dict]:
    return read_jsonl(Path(root) / rel / TELEMETRY, "telemetry")
