"""Part of check 2: the sweep log (``<runs>/<study>/sweep.jsonl``) is hash-chained
(:mod:`prereg.chainlog`), so a deleted, inserted or reordered unit event shows; a unit the log
says completed must still have its run folder; a sweep without its end event is a warning (the
log was cut, or the sweep was killed); with ``--trusted-run-key`` every event must be signed."""

from __future__ import annotations

from pathlib import Path

from audit.findings import WARNING
from prereg.chainlog import verify_chain

SWEEP_LOG = "sweep.jsonl"


def sweep_log_path(ctx) -> Path | None:
    if ctx.runs_path is None:
        return None
    study = str(ctx.lock.data.get("study_id")) if ctx.lock else ""
    for cand in (ctx.runs_path / study / SWEEP_LOG, ctx.runs_path / SWEEP_LOG):
        if cand.is_file():
            return cand
    return None


def _units_on_disk(ctx) -> set:
    return {(r.manifest.get("arm"), r.manifest.get("seed")) for r in ctx.runs
            if r.manifest.get("status") == "complete"}


def check_sweep_log(ctx, out) -> None:
    path = sweep_log_path(ctx)
    if path is None:
        out.notes.append("no sweep log (units run one by one with `runner run`): nothing to chain-check")
        return
    where = ctx.rel(path)
    try:
        events, problems = verify_chain(path, ctx.trusted_run_keys)
    except OSError as exc:
        out.add(where, "a readable sweep log", exc.strerror or str(exc), "sweep log cannot be read")
        return
    for p in problems:
        out.add(f"{where}:{p.line}", p.expected, p.found, p.message)
    if events and not any(isinstance(e.get("chain"), dict) for e in events):
        out.notes.append(f"{where}: not hash-chained (written before chaining); order and deletions unchecked")
    on_disk = _units_on_disk(ctx)
    done = {}
    for e in events:
        if e.get("event") == "unit_end" and e.get("outcome") == "complete":
            done[(e.get("arm"), e.get("seed"))] = e
    for (arm, seed) in sorted(set(done) - on_disk, key=str):
        out.add(where, f"a complete run folder for {arm}/s{seed}", "none",
                f"the sweep log says unit {arm}/s{seed} completed, but its run is gone (deleted unit)")
    starts = [e.get("sweep") for e in events if e.get("event") == "sweep_start"]
    ends = {e.get("sweep") for e in events if e.get("event") == "sweep_end"}
    for sid in starts:
        if sid not in ends:
            out.add(where, f"a sweep_end event of sweep {sid}", "none",
                    "a sweep has no end event: the log was cut short, or the sweep was killed", WARNING)
