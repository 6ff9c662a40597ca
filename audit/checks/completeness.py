"""Check 3: each registered (arm, seed) has exactly one complete confirmatory run on this lock,
and the analysis counted exactly those runs."""

from __future__ import annotations

from collections import defaultdict

from prereg.records import MANIFEST


def is_registered(ctx, m: dict) -> bool:
    """Whether a manifest's (arm, seed, kind) is a registered evaluation (prereg.declarations, one rule)."""
    from prereg.declarations import unregistered_reason

    try:
        return bool(ctx.prereg) and unregistered_reason(ctx.prereg, m.get("arm"), m.get("seed"), m.get("kind")) is None
    except (TypeError, KeyError, AttributeError):  # a malformed lock or manifest is reported elsewhere
        return False


def unit_name(arm, seed) -> str:
    """``grpo/s1``; ``base/once`` for a reference evaluated once."""
    return f"{arm}/{'once' if seed is None else f's{seed}'}"


def qualifying(ctx, run) -> bool:
    m = run.manifest
    return (m.get("evidence_class") == "confirmatory" and m.get("status") == "complete"
            and (m.get("lock") or {}).get("hash") == ctx.lock.hash and is_registered(ctx, m))


def misplaced(run) -> str | None:
    """``"<arm>/s<seed>"`` of the record when its folder is not ``.../<arm>/s<seed>``, else None.

    A run moved or copied into another unit's folder keeps its own manifest; ``runner status``
    names it, and so does the audit (README "Record guarantees").
    """
    m = run.manifest
    name = unit_name(m.get("arm"), m.get("seed"))
    if f"{run.path.parent.name}/{run.path.name}" == name:
        return None
    return name


def _registered(ctx, study) -> list[tuple[str, int]]:
    """Every (arm, seed) the design asks the runner for: a sequential study stopped at look j by its
    sealed interim record asks only for that look's seeds (README failure 19; check 12 audits the
    record). A reference arm (README failure 16) is evaluated, not trained: once (``<arm>/once``,
    no seed) or per seed, by ``runner evaluate``."""
    from prereg.declarations import registered_evaluations

    if not ctx.prereg:
        return []
    every = registered_evaluations(ctx.prereg)
    asked = set(_registered_all(ctx, study))  # once: rebuilt per unit it made the check quadratic in runs
    return [(a, s) for a, s in every if s is None or (a, s) in asked]


def _registered_all(ctx, study) -> list[tuple[str, int]]:
    if ctx.study is None or not ctx.study.analysis.sequential:
        return [(a, s) for a in ctx.arms for s in ctx.seeds]
    from prereg import looks as lk

    entries = lk.read_log(ctx.runs_path, str(study))
    if lk.chain_problems(entries):
        return [(a, s) for a in ctx.arms for s in ctx.seeds]
    planned = lk.planned_seeds(ctx.study, ctx.lock.hash, entries)
    return [(a, s) for a in ctx.arms for s in ctx.seeds[: planned[a]]]


def run(ctx, out) -> None:
    study = ctx.lock.data.get("study_id")
    registered = _registered(ctx, study)
    base = ctx.runs_path / study if (ctx.runs_path / str(study)).is_dir() else ctx.runs_path
    units, others, squatters = _sort_runs(ctx, out)
    _check_each_unit_once(ctx, out, base, registered, units, others, squatters)
    _check_counted(ctx, out, registered, {k for k, rs in units.items() if rs})


def _sort_runs(ctx, out) -> tuple[dict, dict, dict]:
    """Each run folder as a qualifying run of its unit, a run that does not count (and why), or
    a finding: a run in another unit's folder, a confirmatory run of an unregistered unit."""
    units, others, squatters = defaultdict(list), defaultdict(list), {}
    for r in ctx.runs:
        m = r.manifest
        key = (m.get("arm"), m.get("seed"))
        where = ctx.rel(r.path / MANIFEST)
        record = misplaced(r)
        if record is not None:
            squatters[(r.path.parent.name, r.path.name)] = f"{ctx.rel(r.path)} holds the run of {record}"
            out.add(where, f"a folder .../{record}", ctx.rel(r.path),
                    f"run {record} sits in another unit's folder (moved or copied)")
        if not is_registered(ctx, m):
            if m.get("evidence_class") == "confirmatory":
                out.add(where, f"arms {ctx.arms} x seeds {ctx.seeds}", f"confirmatory run {unit_name(*key)}",
                        "confirmatory run of an unregistered arm or seed")
            else:
                out.notes.append(f"exploratory run of an unregistered unit (not counted): {where}")
            continue
        if qualifying(ctx, r):
            units[key].append(r)
            continue
        if m.get("evidence_class") != "confirmatory":
            why = "exploratory"
        elif m.get("status") != "complete":
            why = f"status {m.get('status')}" + (f" ({m['error']})" if m.get("error") else "")
        else:
            why = f"lock version {(m.get('lock') or {}).get('version')} (not the audited lock)"
        others[key].append(f"{where}: {why}")
        out.notes.append(f"not counted: {where}: {why}")
    return units, others, squatters


def _check_each_unit_once(ctx, out, base, registered, units, others, squatters) -> None:
    """Every registered unit has exactly one complete confirmatory run (one per session)."""
    refs = _reference_arms(ctx)
    for key in registered:
        found = units.get(key, [])
        name = unit_name(*key)
        if not found:
            extra = f"; present: {'; '.join(others[key])}" if others.get(key) else ""
            if tuple(name.split("/")) in squatters:
                extra += f"; {squatters[tuple(name.split('/'))]}"
            what = (f"reference arm {key[0]} has no complete confirmatory evaluation {name} "
                    f"(runner evaluate --arm {key[0]}{'' if key[1] is None else f' --seed {key[1]}'})"
                    if key[0] in refs else f"registered unit {name} has no complete confirmatory run")
            out.add(f"{ctx.rel(base)}/{name}", "one complete confirmatory run", f"none{extra}", what)
        elif len(found) > 1 and len({r.manifest.get("session") for r in found}) < len(found):
            out.add(f"{ctx.rel(base)}/{name}", "exactly one run",
                    ", ".join(ctx.rel(r.path) for r in found), "registered unit has more than one confirmatory run")


def _check_counted(ctx, out, registered, good_units: set) -> None:
    """What the analysis counted must be exactly the qualifying units (a stale seal is check 9's)."""
    ap = ctx.rel(ctx.analysis_path)
    by_unit = defaultdict(list)
    for r in ctx.runs:
        by_unit[(r.manifest.get("arm"), r.manifest.get("seed"))].append(r)
    counted = set()
    for i, item in enumerate((ctx.analysis.get("inputs") or {}).get("runs") or []):
        key = (item.get("arm"), item.get("seed"))
        counted.add(key)
        if key in good_units:
            continue
        rs = by_unit.get(key, [])
        match = [r for r in rs if r.manifest.get("seal") == item.get("seal")] or rs
        why = _why_not_countable(ctx, match[0] if match else None, key, registered)
        out.add(f"{ap}#$.inputs.runs[{i}]", "only complete confirmatory runs of registered units",
                f"{unit_name(*key)} ({why})", "the analysis counted a run it must not count")
    for key in sorted(good_units - counted, key=str):
        out.add(f"{ap}#$.inputs.runs", unit_name(*key), "absent", "the analysis left out a qualifying run")


def _why_not_countable(ctx, r, key, registered) -> str:
    if not (r is not None and is_registered(ctx, r.manifest)) and key not in set(registered):
        return "an unregistered unit"
    if r is None:
        return "no run folder on disk"
    if r.manifest.get("evidence_class") != "confirmatory":
        return "an exploratory run"
    if r.manifest.get("status") != "complete":
        return f"a {r.manifest.get('status')} run"
    return "a run on another lock"


def _reference_arms(ctx) -> set[str]:
    return {a for a, arm in ctx.study.arms.items() if not arm.trained} if ctx.study else set()
