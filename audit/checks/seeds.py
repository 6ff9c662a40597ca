"""Check 8: runs with different seeds must not produce identical training traces (DESIGN
failure 7, e.g. vLLM seeded independently of the run seed). Same seed and different arms
with identical traces means the treatment changed nothing (failure 2)."""

from __future__ import annotations

import hashlib
from collections import defaultdict

from audit.findings import WARNING
from prereg.records import TRAIN_TRACE


def trace_key(rows) -> str:
    h = hashlib.sha256()
    for r in rows:
        h.update(str(r.get("completion_sha256")).encode())
        h.update(b"\n")
    return h.hexdigest()


def run(ctx, out) -> None:
    groups = defaultdict(list)
    for r in ctx.runs:
        if r.manifest.get("status") != "complete":
            continue
        rows, err = ctx.train(r)
        if rows is None or not rows:
            continue
        groups[trace_key(rows)].append(r)
    for rs in groups.values():
        if len(rs) < 2:
            continue
        seeds = {r.manifest.get("seed") for r in rs}
        arms = {r.manifest.get("arm") for r in rs}
        names = ", ".join(f"{r.manifest.get('arm')}/s{r.manifest.get('seed')}" for r in rs)
        where = ctx.rel(rs[1].path / TRAIN_TRACE)
        if len(seeds) > 1:
            out.add(where, "different completions for different seeds", f"identical training traces: {names}",
                    "runs with different seeds share one training trace (generation not seeded from the run seed)")
        elif len(arms) > 1:
            out.add(where, "different completions for different arms", f"identical training traces: {names}",
                    "different arms produced identical training traces with the same seed: the treatment "
                    "changed no sampled completion (a flag never wired, or updates that coincide, e.g. "
                    "loss normalisations that Adam's scale invariance cancels)", WARNING)
