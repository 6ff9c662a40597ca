"""Root causes first: findings that follow from another finding are grouped under it.

One flipped byte in one manifest breaks its seal (check 2) and then every value computed from that
run differs from its recomputation (check 9), its summaries from their telemetry (check 7), and the
unit may no longer count as complete (check 3): dozens of findings with one cause. A reviewer
needs the cause first. The links are explicit and conservative; a finding is a consequence only
when it is about the same run as a root cause:

- roots: check 2 findings about a run (its manifest cannot be read, its seal or signature does not
  hold, an artifact is missing, changed or unlisted);
- consequences of a root in run R: findings of checks 3, 7 and 8 located in R's folder or naming
  R's unit (``arm/sSEED``); check 9 findings about an analysis input that is R, about a value
  whose recorded inputs include R's seal, and recomputation differences of study-level values and
  verdicts that record no inputs (the recomputation now excludes the broken run). A value whose
  recorded inputs do not include a broken run stays a root of its own (an edit of analysis.json).

Every finding stays in its check (exit status and counts are unchanged); a consequence carries
``cause``, the root's location and message. ``audit check`` shows roots with their consequence
counts and lists consequences only with ``--all``.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

_VALUE = re.compile(r"#\$\.values\['([^']+)'\]")
_INPUT = re.compile(r"#\$\.inputs\.runs\[(\d+)\]")


@dataclass(frozen=True)
class _Run:
    rel: str            # the run folder as findings name it ("runs/e1s/gspo/s37")
    unit: str           # "gspo/s37"
    seals: frozenset    # its seal on disk and as the analysis recorded it


def _runs_of(ctx) -> list[_Run]:
    """Every run folder the audit knows, with the seals that identify it in analysis.json."""
    inputs = (ctx.analysis or {}).get("inputs") or {}
    by_path: dict = {}  # an analysis input's recorded path -> the seals recorded with it
    by_unit: dict = {}  # its arm/sSEED -> the same
    for item in inputs.get("runs") or []:
        if isinstance(item, dict):
            if isinstance(item.get("path"), str):
                by_path.setdefault(item["path"], set()).add(item.get("seal"))
            by_unit.setdefault(f"{item.get('arm')}/s{item.get('seed')}", set()).add(item.get("seal"))
    out = []
    paths = [(r.path, r.manifest) for r in ctx.runs] + [(p, None) for p, _ in ctx.unreadable_runs]
    for path, m in paths:
        run_dir = path if path.name != "manifest.json" else path.parent
        rel = ctx.rel(run_dir)
        tail = "/".join(run_dir.parts[-3:])
        seals = {m.get("seal")} if isinstance(m, dict) and m.get("seal") else set()
        unit = f"{m.get('arm')}/s{m.get('seed')}" if isinstance(m, dict) else "/".join(run_dir.parts[-2:])
        seals |= by_path.get(tail, set()) | by_unit.get(unit, set())
        out.append(_Run(rel, unit, frozenset(s for s in seals if s)))
    return out


def _run_of(f, runs: list[_Run]) -> _Run | None:
    loc = f.location
    for r in runs:
        if loc == r.rel or loc.startswith(r.rel + "/") or loc.startswith(r.rel + "#"):
            return r
    return None


def _consequence_of(f, roots: dict[str, tuple], runs: list[_Run], ctx) -> tuple | None:
    """The root (finding) a finding follows from, or None."""
    if f.check in ("3", "7", "8"):
        r = _run_of(f, runs)
        if r is not None and r.rel in roots:
            return roots[r.rel]
        for rel, root in roots.items():
            unit = next(x.unit for x in runs if x.rel == rel)
            if re.search(rf"(?<![\w/]){re.escape(unit)}(?![\w])", f"{f.found} {f.expected} {f.location}"):
                return root
        return None
    if f.check != "9":
        return None
    inputs = (ctx.analysis or {}).get("inputs") or {}
    m = _INPUT.search(f.location)
    if m:
        items = inputs.get("runs") or []
        i = int(m.group(1))
        seal = items[i].get("seal") if i < len(items) and isinstance(items[i], dict) else None
        return next((root for rel, root in roots.items() if seal in _seals(runs, rel)), None)
    m = _VALUE.search(f.location)
    rec = ((ctx.analysis or {}).get("values") or {}).get(m.group(1)) or {} if m else {}
    used = {s for s in rec.get("inputs") or [] if isinstance(s, str)}
    if used:
        return next((root for rel, root in roots.items() if used & _seals(runs, rel)), None)
    if (m or "#$.verdicts" in f.location) and "recomputation" in f.message:
        # a study-level count or a verdict (no recorded inputs): the recomputation differs because
        # the broken run is excluded from it now
        return next(iter(roots.values()))
    return None


def _seals(runs: list[_Run], rel: str) -> frozenset:
    return next((r.seals for r in runs if r.rel == rel), frozenset())


def link(ctx, results) -> None:
    """Mark every consequence finding with its root cause (in place, on each CheckResult).

    Args:
        ctx: the audit context (runs, analysis).
        results: the CheckResults of one audit, in check order.
    Returns:
        None; consequences get ``Finding.cause`` set.
    Example:
        >>> link(ctx, results)  # doctest: +SKIP
    """
    runs = _runs_of(ctx)
    roots: dict[str, tuple] = {}
    for res in results:
        if res.check != "2":
            continue
        for f in res.findings:
            r = _run_of(f, runs)
            if r is not None and r.rel not in roots:
                roots[r.rel] = (f.location, f.message)
    if not roots:
        return
    for res in results:
        if res.check == "2":
            continue
        res.findings = [_mark(f, _consequence_of(f, roots, runs, ctx)) for f in res.findings]


def _mark(f, root):
    return dataclasses.replace(f, cause=f"{root[0]}: {root[1]}") if root else f


def root_causes(findings) -> list[tuple[object, int]]:
    """(root finding, number of its consequences) for every finding others follow from, in order."""
    n: dict[str, int] = {}
    for f in findings:
        if f.cause:
            n[f.cause] = n.get(f.cause, 0) + 1
    return [(f, n[k]) for f in findings if (k := f"{f.location}: {f.message}") in n and not f.cause]
