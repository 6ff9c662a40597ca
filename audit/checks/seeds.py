"""Check 8: seeds. Every seed a manifest records must be the run's seed (the manifest's
``seed``, ``resolved_config.trainer.seed``/``data_seed``, ``runner.seed``, the ``s<seed>``
folder), so a run copied to another seed and re-sealed with only ``seed`` edited shows. Runs
with different seeds must not produce identical training or held-out traces (README failure
7, e.g. vLLM seeded independently of the run seed, or a copied run). Same seed and different
arms with identical traces means the treatment changed nothing (failure 2)."""

from __future__ import annotations

from collections import defaultdict

from audit.findings import WARNING
from prereg.records import HELDOUT_TRACE, MANIFEST, TRAIN_TRACE

# Where a run's resolved config records its seed(s); each present value must equal manifest.seed.
SEED_PATHS = (("trainer", "seed"), ("trainer", "data_seed"), ("runner", "seed"))


def _seed_agreement(ctx, out, r) -> None:
    m = r.manifest
    seed = m.get("seed")
    where = ctx.rel(r.path / MANIFEST)
    cfg = m.get("resolved_config") if isinstance(m.get("resolved_config"), dict) else {}
    for ns, name in SEED_PATHS:
        block = cfg.get(ns) if isinstance(cfg.get(ns), dict) else {}
        v = block.get(name)
        if name in block and v is not None and (type(v) is not type(seed) or v != seed):
            out.add(f"{where}#$.resolved_config.{ns}.{name}", f"{seed!r} (the manifest's seed)", repr(v),
                    "the manifest records two different seeds (copied from another run?)")


def _heldout_copies(ctx, out, runs) -> None:
    groups = defaultdict(list)
    for r in runs:
        key = ctx.trace_key(r, HELDOUT_TRACE)  # read once, by check 7 when it ran
        if key:
            groups[(r.manifest.get("arm"), key)].append(r)
    for (arm, _), rs in groups.items():
        seeds = {r.manifest.get("seed") for r in rs}
        if len(seeds) > 1:
            names = ", ".join(f"{arm}/s{r.manifest.get('seed')}" for r in rs)
            out.add(ctx.rel(rs[1].path / HELDOUT_TRACE), "different held-out completions for different seeds",
                    f"identical held-out traces: {names}",
                    "runs of one arm with different seeds share one held-out trace (a copied run?)")


def run(ctx, out) -> None:
    complete = [r for r in ctx.runs if r.manifest.get("status") == "complete"]
    for r in complete:
        _seed_agreement(ctx, out, r)
    _heldout_copies(ctx, out, complete)
    groups = defaultdict(list)
    for r in ctx.runs:
        if r.manifest.get("status") != "complete":
            continue
        key = ctx.trace_key(r, TRAIN_TRACE)
        if key:
            groups[key].append(r)
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
