"""Inputs of an analysis: run folders or an imported table, reduced to per-(arm, seed) units.

Only complete, sealed, confirmatory runs made under exactly the analysed lock count. Every
other run is listed in ``excluded`` with its reason, and every way the data differ from the
plan becomes a ``deviation`` (the study-level deviation verdict is built from them).
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from operator import itemgetter
from pathlib import Path

import numpy as np

from prereg.declarations import RUN_METRICS, MetricDecl, metric_decls, planned_metrics, unregistered_reason
from prereg.errors import UserError
from prereg.jsonio import read_jsonl
from prereg.lock import Lock, parse_time
from prereg.records import HELDOUT_TRACE, TELEMETRY, seed_tag, task_record  # noqa: F401  (seed_tag: stats.load API too)
from prereg.rules import manifest_paths
from prereg.runfiles import RunFiles
from prereg.study import AnalysisPlan, Study
from stats import table as tbl
from stats.curves import declared_curves

# Held-out metrics and the per-item trace field each is the mean of.
ITEM_FIELD = {"heldout_accuracy": "correct", "heldout_reward_mean": "reward"}
# Descriptive per-run summaries reported per arm whatever the plan says.
DESCRIPTIVE = ("zvf_mean", "gu_mean", "reward_first5", "reward_last10", "rollouts", "steps")
# Per-run counts reported per run (so a quoted count is traceable to one manifest).
RUN_COUNTS = ("heldout_n", "heldout_correct")
# analysis.json units of the run-folder metrics: their task-default units (the one name list,
# prereg.declarations.RUN_METRICS), a real-valued one written "reward" (each is a reward mean), and
# the held-out item count.
UNITS = {**{m: "reward" if unit == "real" else unit for m, (unit, _, _) in RUN_METRICS.items()}, "heldout_n": "items"}


# Declared metric unit -> the unit of its values in analysis.json.
_DECLARED_UNIT = {"fraction": "fraction", "percent": "percent", "count": "count", "real": "real"}


def metric_unit(metric: str, decls: dict[str, MetricDecl] | None = None) -> str:
    """The analysis.json unit of a metric's values: its declaration's unit (prereg.declarations),
    else the run-folder default; "other" only for a metric nobody declared."""
    d = (decls or {}).get(metric)
    if d is not None and d.declared:
        return _DECLARED_UNIT[d.unit]
    return UNITS.get(metric, "other")


@dataclass
class Unit:
    """One evaluation in the analysis: (arm, seed or None for a once-evaluated reference,
    session), its seed-level metrics and, when needed, its items."""

    arm: str
    seed: int | None
    seal: str | None
    path: str | None
    metrics: dict[str, float | None]
    item_ids: list[str] | None = None
    items: dict[str, np.ndarray] = field(default_factory=dict)  # metric -> per-item values, by item id
    item_tasks: list[str] | None = None
    task_metrics: dict[str, float] = field(default_factory=dict)  # task -> primary metric
    fingerprint: str | None = None
    session: str | None = None

    @property
    def input_id(self) -> str:
        return self.seal or ""


@dataclass
class Data:
    """The included evaluations. ``units`` is the primary view, (arm, seed) -> unit, each arm
    in the first session it was evaluated in; ``sessions`` holds every session's view (the
    key ``None`` when the data name no session), in order of first appearance."""

    source: str  # "runs" | "imported"
    units: dict[tuple[str, int | None], Unit]
    excluded: list[dict]
    deviations: list[dict]
    origin: str
    table: dict | None = None
    decls: dict[str, MetricDecl] = field(default_factory=dict)
    sessions: dict[str | None, dict[tuple[str, int | None], Unit]] = field(default_factory=dict)

    def add_units(self, units: list[Unit]) -> None:
        """Index evaluations by session, and the primary view by each arm's first session."""
        for u in units:
            self.sessions.setdefault(u.session, {})[(u.arm, u.seed)] = u
        first = self.first_sessions()
        self.units = {k: u for sess, view in self.sessions.items() for k, u in view.items() if first[k[0]] == sess}

    def seeds_of(self, arm: str, view: dict | None = None) -> list[int | None]:
        """Seeds of ``arm`` in a view (the primary one by default); ``[None]`` for a once-evaluated reference."""
        keys = [s for a, s in (self.units if view is None else view) if a == arm]
        return sorted(keys, key=lambda s: -1 if s is None else s)

    def first_sessions(self) -> dict[str, str | None]:
        """Arm -> the session its primary view (``units``, the ``arms.<arm>.*`` values) comes from."""
        first: dict[str, str | None] = {}
        for sess, view in self.sessions.items():
            for (arm, _s) in view:
                first.setdefault(arm, sess)
        return first

    def sessions_of(self, arm: str) -> list[str | None]:
        return [s for s, view in self.sessions.items() if any(a == arm for a, _ in view)]

    @property
    def named_sessions(self) -> bool:
        return any(s is not None for s in self.sessions)


def secondary_contrast_metrics(study: Study) -> list[str]:
    """Non-primary metrics that get a full (non-confirmatory) contrast block: the plan's
    secondary_metrics, then any other metric a hypothesis names, in declaration order."""
    plan = study.analysis
    out: list[str] = []
    for m in [*plan.secondary_metrics, *(h.metric for h in study.hypotheses)]:
        if m != plan.primary_metric and m not in out:
            out.append(m)
    return out


def needs_items(plan: AnalysisPlan) -> bool:
    """Whether the plan reads per-item values (item metrics, an item-level comparison, task strata)."""
    return plan.primary_metric in ITEM_FIELD or plan.item_level != "none" or bool(plan.tasks)


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


def _column(rows: list[dict], key: str, default=None) -> list:
    """``[r.get(key, default) for r in rows]``, in C when every row has the key."""
    try:
        return list(map(itemgetter(key), rows))
    except KeyError:
        return [r.get(key, default) for r in rows]


def items_key(plan: AnalysisPlan) -> tuple:
    """What :func:`items_from_rows` depends on besides the rows: names a kept derivation in
    :meth:`prereg.runfiles.RunFiles.keep`."""
    return ("heldout_items", bool(plan.tasks))


class ItemOrder:
    """Held-out rows in (item id, index) order, remembering the last trace's: every run of a
    campaign holds the same items in the same rows, so an audit of 1,000 runs sorts its 500 ids
    once instead of 1,000 times. A trace whose ids or indices differ in any value is sorted
    afresh (equal values compare alike, so equal lists sort alike).

    ``order_of(ids, idx)`` returns ``(ids in order, row positions, the positions as an index array)``.

    Example:
        >>> ItemOrder()(["b", "a"], [0, 1])[0]
        ['a', 'b']
    """

    def __init__(self) -> None:
        self._last: tuple | None = None

    def __call__(self, ids: list[str], idx: list) -> tuple[list[str], list[int], np.ndarray]:
        last = self._last
        if last is not None and last[0] == ids and last[1] == idx:
            return last[2]
        order = _item_order(ids, idx)
        out = (list(map(ids.__getitem__, order)), order, np.asarray(order, dtype=np.intp))
        self._last = (ids, idx, out)
        return out


def items_from_rows(rows: list[dict], path, tasks: bool,
                    column=None, order_of: ItemOrder | None = None,
                    ) -> tuple[list[str], dict[str, np.ndarray], list[str] | None]:
    """A held-out trace's per-item ids, metric vectors and (with ``tasks``) task names, in
    (item id, index) order: all the analysis reads of it.

    Args:
        rows: the trace's rows as :func:`prereg.jsonio.read_jsonl` reads them.
        path: the trace's path, for the error message.
        tasks: whether the plan has task strata (then each row's ``task`` is read).
        column: field name -> ``[row.get(field) for row in rows]``, when the caller already
            took the trace's columns (the audit's check 7); taken here otherwise.
        order_of: an :class:`ItemOrder` shared by the caller's traces (the audit's check 7), so
            traces holding the same items in the same rows are sorted once; a fresh one otherwise.

    Returns:
        ``(ids, {metric: values}, task names or None)``.

    Raises:
        UserError: a metric field holds something that is not a number (naming it).

    Example:
        >>> items_from_rows([{"index": 1, "correct": True, "reward": 1.0},
        ...                  {"index": 0, "correct": False, "reward": 0.0}], "t", False)[0]
        ['0', '1']
    """
    column = column or (lambda key: _column(rows, key))
    idx = column("index")
    raw = column("item_id")
    if None in raw:  # a row without an id is known by its index (an explicit null stays null)
        raw = [r.get("item_id", i) for r, i in zip(rows, idx, strict=True)]
    ids = list(map(str, raw))
    ids, order, at = (order_of or ItemOrder())(ids, idx if None not in idx else _column(rows, "index", 0))
    items = {}
    for metric, fld in ITEM_FIELD.items():
        vals = column(fld)
        if None not in vals:
            try:
                exact = set(map(type, vals)) <= {bool, int, float}  # float(v) is what numpy does for these
                arr = np.asarray(vals if exact else [float(v) for v in vals], dtype=float)
            except (TypeError, ValueError):  # a list or object where a number belongs: name it
                bad = next(v for v in map(vals.__getitem__, order) if not isinstance(v, (int, float, bool)))
                raise UserError(f"{path}: {fld} {bad!r:.60} is not a number") from None
            items[metric] = arr[at] if len(arr) else arr
    tasks_of = [str(r.get("task")) for r in rows] if tasks else None
    return ids, items, (list(map(tasks_of.__getitem__, order)) if tasks_of is not None else None)


def _item_order(ids: list[str], idx: list) -> list[int]:
    """Row positions in (item id, index) order, stable (~500k rows at 1,000 runs). Unique ids
    decide the order alone, so the sort compares strings, not (id, index) tuples (4x faster)."""
    if len(set(ids)) == len(ids):
        return sorted(range(len(ids)), key=ids.__getitem__)
    keys = list(zip(ids, idx, strict=True))
    return sorted(range(len(ids)), key=keys.__getitem__)


def _read_items(run, plan: AnalysisPlan, files: RunFiles) -> tuple[list[str], dict[str, np.ndarray], list[str] | None]:
    """:func:`items_from_rows` of the run's held-out trace, as a reader that already parsed the
    trace (the audit's check 7) kept it in ``files``, else read here."""
    path = run.path / HELDOUT_TRACE
    hit = files.kept(path, items_key(plan))
    if hit is not None:
        return hit
    return items_from_rows(read_jsonl(path, "held-out trace"), path, bool(plan.tasks))


@dataclass
class _Exclusions:
    """What load_runs leaves out: each excluded run with its reason, and the deviations some imply."""

    excluded: list[dict] = field(default_factory=list)
    deviations: list[dict] = field(default_factory=list)

    def __call__(self, path, reason, kind=None, arm=None, seed=None, seal=None) -> None:
        self.excluded.append({"path": str(path), "arm": arm, "seed": seed, "seal": seal, "reason": reason})
        if kind:
            self.deviations.append(_deviation(kind, f"{path}: {reason}", arm=arm, seed=seed))


def _inadmissible(run, lock: Lock, locked_at, files: RunFiles) -> tuple[str, str | None] | None:
    """Why a run may not enter the analysis, as (reason, deviation kind), or None when it may:
    another study, a broken seal, another lock, exploratory, unregistered, incomplete or early."""
    m = run.manifest
    if m["study_id"] != lock.study_id:
        return f"run of another study {m['study_id']!r}", None
    if not files.seal_ok(run):
        return "manifest seal does not match its content", "broken_seal"
    if run.lock_hash != lock.hash:
        v = m["lock"].get("version")
        if isinstance(v, int) and v < lock.version:
            return f"run on an older lock version (v{v}, analysing v{lock.version})", "stale_lock"
        return f"run on a different lock {run.lock_hash[:12]}", "foreign_lock"
    if not run.confirmatory:
        return "exploratory run", "exploratory_run"
    what = unregistered_reason(lock.study, m["arm"], m["seed"], m.get("kind"))  # arms parsed once
    if what:
        return what, "unregistered_run"
    if run.status != "complete":
        return f"status {run.status!r}", "incomplete_run"
    try:
        if parse_time(m["started_at"]) < locked_at:
            return "run started before the lock", "run_before_lock"
    except ValueError:
        return "unreadable started_at", "malformed_run"
    return None


def _unit_of(run, rel: str, study: Study, curves, exclude: _Exclusions, files: RunFiles) -> Unit | None:
    """The run's evaluation unit with its metrics, curves and (when the plan needs them) items;
    None when its curves or held-out trace do not hold up (``exclude`` says why)."""
    plan = study.analysis
    m = run.manifest
    a, s, sl = m["arm"], m["seed"], m.get("seal")
    summ = m.get("summaries", {})
    wanted = set(plan.metrics) | set(DESCRIPTIVE) | set(RUN_COUNTS) | set(secondary_contrast_metrics(study))
    unit = Unit(a, s, sl, rel, {k: _finite(summ.get(k)) for k in wanted},
                fingerprint=m["fingerprint"]["hash"], session=m.get("session"))
    # a reference evaluation trained nothing: it has no learning curve (its curve metrics stay absent)
    if curves and m.get("kind") != "reference" and not _curve_metrics(unit, run, m, curves, exclude, rel, a, s, sl,
                                                                      files):
        return None
    if not needs_items(plan):
        return unit
    digest = m["artifacts"].get(HELDOUT_TRACE, {}).get("sha256")
    tpath = run.path / HELDOUT_TRACE
    if digest is None or not tpath.exists() or files.sha256(tpath) != digest:
        exclude(rel, "held-out trace missing or does not match its manifest digest", "trace_mismatch", a, s, sl)
        return None
    unit.item_ids, unit.items, unit.item_tasks = _read_items(run, plan, files)
    bad = [k for k, arr in unit.items.items()
           if unit.metrics.get(k) is not None and abs(float(arr.mean()) - unit.metrics[k]) > 1e-9]
    if bad:
        exclude(rel, f"summary {bad[0]} disagrees with the held-out trace", "trace_mismatch", a, s, sl)
        return None
    if plan.tasks:
        _task_means(unit, plan)
    return unit


def _one_per_key(candidates: dict, exclude: _Exclusions) -> dict:
    """One unit per (arm, seed, session): a key with several runs keeps none of them (a deviation)."""
    units = {}
    for key, group in sorted(candidates.items(), key=lambda kv: (kv[0][0], -1 if kv[0][1] is None else kv[0][1],
                                                                 kv[0][2] or "")):
        if len(group) > 1:
            name = f"{key[0]}/{seed_tag(key[1])}" + (f" in session {key[2]!r}" if key[2] is not None else "")
            for u in group:
                exclude.excluded.append({"path": u.path, "arm": u.arm, "seed": u.seed, "seal": u.seal,
                                         "reason": f"duplicate unit ({len(group)} runs for {name})"})
            exclude.deviations.append(_deviation("duplicate_unit", f"{len(group)} confirmatory runs for {name}: "
                                                 + ", ".join(u.path for u in group) + "; all excluded",
                                                 arm=key[0], seed=key[1]))
            continue
        units[key] = group[0]
    return units


def _mixed_fingerprints(units) -> dict | None:
    """The mixed_fingerprint deviation when the units ran on more than one software stack."""
    fps = defaultdict(list)
    for u in units:
        fps[u.fingerprint].append(f"{u.arm}/{seed_tag(u.seed)}")
    if len(fps) <= 1:
        return None
    detail = "; ".join(f"{h[:12]}: {len(v)} runs" for h, v in sorted(fps.items()))
    return _deviation("mixed_fingerprint", f"runs differ in stack fingerprint ({detail})",
                      fingerprints={h: sorted(v) for h, v in fps.items()})


def load_runs(lock: Lock, root: str | Path, files: RunFiles | None = None) -> Data:
    """Read the run folders under ``root`` into the analysis's units.

    Args:
        lock: the verified lock being analysed.
        root: the runs folder.
        files: manifests and digests another reader already took in this step (the audit's),
            so each manifest is read, validated and sealed once; a fresh one when None.

    Returns:
        The :class:`Data`: admitted units, excluded runs with reasons, and deviations.

    Raises:
        UserError: ``root`` does not exist, or a held-out trace holds a non-number.

    Example:
        >>> load_runs(verify("locks/demo.lock.json"), "runs").seeds_of("grpo")  # doctest: +SKIP
        [1, 2, 3]
    """
    root = Path(root)
    if not root.exists():
        raise UserError(f"{root}: runs folder not found")
    study = lock.study
    curves = declared_curves(study)
    exclude = _Exclusions()
    candidates: dict[tuple[str, int | None, str | None], list[Unit]] = defaultdict(list)
    manifests: list[dict] = []
    locked_at = parse_time(lock.locked_at)
    files = files if files is not None else RunFiles()
    for mpath in manifest_paths(root):
        rdir = mpath.parent
        rel = rdir.relative_to(root).as_posix() if rdir != root else "."
        try:
            run = files.read_run(rdir)
        except UserError as exc:
            exclude(rel, f"malformed manifest ({exc})", "malformed_run")
            continue
        m = run.manifest
        why = _inadmissible(run, lock, locked_at, files)
        if why:
            exclude(rel, why[0], why[1], m["arm"], m["seed"], m.get("seal"))
            continue
        unit = _unit_of(run, rel, study, curves, exclude, files)
        if unit is not None:
            candidates[(unit.arm, unit.seed, unit.session)].append(unit)
            manifests.append(m)
    units = _one_per_key(candidates, exclude)
    task = next((task_record(u_manifest) for u_manifest in manifests if task_record(u_manifest)), None)
    decls = metric_decls(study.raw, reward_range=task.reward_bounds if task else None,
                         task_metrics=task.item_metrics if task else None)
    data = Data("runs", {}, exclude.excluded, exclude.deviations, str(root), decls=decls)
    data.add_units(list(units.values()))
    _missing(data, study)
    _missing_metrics(data, study)
    mixed = _mixed_fingerprints(units.values())
    if mixed:
        exclude.deviations.append(mixed)
    return data


def _task_means(unit: Unit, plan: AnalysisPlan) -> None:
    """The primary metric's mean over each planned task's items (the strata of rliable's bootstrap)."""
    metric = plan.primary_metric
    arr = unit.items.get(metric)
    if arr is None or unit.item_tasks is None:
        return
    tasks = np.asarray(unit.item_tasks)
    for t in plan.tasks:
        mask = tasks == t
        if mask.any():
            unit.task_metrics[t] = float(arr[mask].mean())


def _missing(data: Data, study: Study) -> None:
    """Registered evaluations absent from the data: an arm, or a seed of an arm evaluated per seed."""
    for a, decl in ((name, arm.decl) for name, arm in study.arms.items()):
        present = {s for view in data.sessions.values() for (arm, s) in view if arm == a}
        if not present:
            what = "evaluation" if decl.is_reference else "run"
            data.deviations.append(_deviation("missing_arm", f"arm {a!r} has no included {what}", arm=a))
            continue
        if decl.evaluated_once:
            continue
        for s in study.seeds:
            if s not in present:
                data.deviations.append(_deviation("missing_seed", f"registered seed {s} of arm {a!r} has no included run",
                                                  arm=a, seed=s))


def _missing_metrics(data: Data, study: Study) -> None:
    """A planned metric absent from the data is a deviation, not a warning (README failure 16):
    from every evaluation, or from every evaluation of some arm."""
    units = [u for view in data.sessions.values() for u in view.values()]
    for m in planned_metrics(study.raw):
        if not units or study.analysis.tasks and m == study.analysis.primary_metric:
            continue
        have = {u.arm for u in units if u.metrics.get(m) is not None}
        if not have:
            data.deviations.append(_deviation("missing_metric", f"planned metric {m!r} is in none of the data",
                                              metric=m))
            continue
        for a in sorted({u.arm for u in units} - have):
            data.deviations.append(_deviation("missing_metric", f"planned metric {m!r} is missing for arm {a!r}",
                                              metric=m, arm=a))


def _copied(data: Data, metric: str, min_items: int = 10) -> None:
    """Two seeds of one arm with identical per-item outcomes in one session (or, in a per-seed
    table, three or more seeds with the identical value): one evaluation copied to several
    seeds, which a seed-level analysis would count as replication."""
    _copied_values(data, metric)
    for sess, view in data.sessions.items():
        by_arm = defaultdict(list)
        for (arm, seed), u in view.items():
            if seed is not None and metric in u.items and u.items[metric].size >= min_items:
                by_arm[arm].append(u)
        for arm, us in sorted(by_arm.items()):
            seen: dict[bytes, int] = {}
            for u in sorted(us, key=lambda x: x.seed):
                key = np.asarray(u.items[metric]).tobytes()
                if key in seen:
                    where = f" in session {sess!r}" if sess is not None else ""
                    data.deviations.append(_deviation(
                        "copied_evaluation", f"arm {arm!r}: seeds {seen[key]} and {u.seed} have identical per-item "
                        f"{metric}{where}: one evaluation copied to seeds is not replication; declare the arm a "
                        "reference evaluated once", arm=arm, seed=u.seed))
                else:
                    seen[key] = u.seed


def _copied_values(data: Data, metric: str) -> None:
    for sess, view in data.sessions.items():
        by_arm = defaultdict(list)
        for (arm, seed), u in view.items():
            if seed is not None and not u.items and u.metrics.get(metric) is not None:
                by_arm[arm].append(u.metrics[metric])
        for arm, vals in sorted(by_arm.items()):
            if len(vals) >= 3 and len(set(vals)) == 1:
                where = f" in session {sess!r}" if sess is not None else ""
                data.deviations.append(_deviation(
                    "copied_evaluation", f"arm {arm!r}: all {len(vals)} seeds have {metric} = {vals[0]!r}{where}: "
                    "one evaluation copied to seeds is not replication; declare the arm a reference evaluated once",
                    arm=arm))


# ----------------------------------------------------------------------------- imported tables
def is_table(path: str | Path) -> bool:
    p = Path(path)
    return p.is_file() and p.suffix.lower() in (".csv", ".jsonl", ".ndjson", ".json")


def load_table(lock: Lock, path: str | Path) -> Data:
    """Per-seed or per-item table (stats.table), one unit per (arm, seed or once, session)."""
    path = Path(path)
    study = lock.study
    plan = study.analysis
    decls = dict(study.metrics)  # metric_decls of the lock's preregistration, parsed once (prereg.study)
    wanted = list(dict.fromkeys([*planned_metrics(study.raw), *DESCRIPTIVE, *decls]))
    t = tbl.read(path, study, decls, wanted)
    seal = f"table:sha256:{t.sha256}"
    tasks_planned = plan.tasks
    metric = plan.primary_metric
    all_units: list[Unit] = []
    for (arm, seed, sess), entries in t.entries.items():
        where = f"{path.name}#{arm}/{seed_tag(seed)}" + (f"@{sess}" if sess is not None else "")
        u = Unit(arm, seed, seal, where, {}, session=sess)
        if t.per_item:
            u.item_ids, u.items, tks = tbl.item_vectors(entries, list(dict.fromkeys(t.columns.values())))
            u.metrics.update({m: float(v.mean()) for m, v in u.items.items()})
            if tasks_planned:
                u.item_tasks = tks
                _task_means(u, plan)
        elif tasks_planned:
            for _item, task, vals in entries:
                if metric not in vals:
                    raise UserError(f"{path}: missing column {metric!r} (the plan's primary metric)")
                u.task_metrics[task] = vals[metric]
            u.metrics[metric] = float(np.mean([u.task_metrics[k] for k in sorted(u.task_metrics)]))
        else:
            u.metrics.update(entries[0][2])
        all_units.append(u)
    if t.per_item:
        ref = None
        for u in all_units:
            if ref is None:
                ref = u.item_ids
            elif u.item_ids != ref:
                raise UserError(f"{path}: {u.arm}/{seed_tag(u.seed)} has a different item set than the first unit "
                                "(per-item tables must list the same items for every unit)")
    data = Data("imported", {}, [], [], str(path),
                table={"path": str(path), "sha256": t.sha256, "kind": t.kind, "rows": t.rows,
                       "columns": {c: m for c, m in sorted(t.columns.items())}},
                decls=decls)
    data.add_units(all_units)
    _missing(data, study)
    _missing_metrics(data, study)
    _copied(data, metric)
    return data


def load(lock: Lock, runs_path: str | Path, files: RunFiles | None = None) -> Data:
    p = Path(runs_path)
    if is_table(p):
        return load_table(lock, p)
    if p.is_file():
        raise UserError(f"{p}: not a runs folder nor a .csv/.jsonl results table")
    return load_runs(lock, p, files)


def _curve_metrics(unit, run, m, curves: dict, exclude, rel, a, s, sl, files: RunFiles) -> bool:
    """Learning-curve metrics (stats/curves.py) from the run's sealed telemetry; False if the run is excluded."""
    from stats import curves as cv

    digest = m["artifacts"].get(TELEMETRY, {}).get("sha256")
    tpath = run.path / TELEMETRY
    if digest is None or not tpath.exists() or files.sha256(tpath) != digest:
        exclude(rel, "telemetry missing or does not match its manifest digest", "trace_mismatch", a, s, sl)
        return False
    rows = read_jsonl(tpath, "telemetry")
    for name, d in curves.items():
        try:
            unit.metrics[name] = cv.metric_value(rows, d)
        except cv.CurveError:  # the arm summary then says the run lacks the metric
            unit.metrics[name] = None
    return True
