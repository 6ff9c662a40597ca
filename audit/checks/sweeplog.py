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


def _swept(ctx) -> dict:
    """(sweep id, arm, seed) -> manifest path of every complete run a sweep made (``settings.sweep_id``,
    also of the sweeps that resumed it)."""
    out = {}
    for r in ctx.runs:
        m = r.manifest
        if m.get("status") != "complete":
            continue
        blocks = [m.get("settings")] + [e.get("settings") for e in m.get("resumes") or [] if isinstance(e, dict)]
        for b in blocks:
            sid = b.get("sweep_id") if isinstance(b, dict) else None
            if isinstance(sid, str):
                out[(sid, m.get("arm"), m.get("seed"))] = ctx.rel(r.path / "manifest.json")
    return out


def _missing_events(ctx, out, where, events) -> None:
    """A run that says a sweep made it needs that sweep's attempt event: a cut log tail shows."""
    attempts = {(e.get("sweep"), e.get("arm"), e.get("seed")) for e in events if e.get("event") == "attempt"}
    for (sid, arm, seed), mp in sorted(_swept(ctx).items(), key=str):
        if (sid, arm, seed) not in attempts:
            out.add(where, f"the attempt event of {arm}/s{seed} in sweep {sid} ({mp})", "none",
                    f"the sweep log lacks the events of unit {arm}/s{seed} that its run says sweep {sid} made "
                    "(deleted or cut)")


def check_sweep_log(ctx, out) -> None:
    path = sweep_log_path(ctx)
    if path is None:
        swept = _swept(ctx)
        if swept:
            (sid, arm, seed), mp = next(iter(sorted(swept.items(), key=str)))
            out.add(mp, f"runs/<study>/{SWEEP_LOG} (the run says sweep {sid} made it)", "missing",
                    f"the sweep log is missing though {len(swept)} run(s) were made by a sweep (deleted?)")
        else:
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
    _missing_events(ctx, out, where, events)
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
