"""Check 12: a sequential study's looks were taken as registered (README failure 19, peeking).

The looks log (:mod:`prereg.looks`) must be an intact hash chain; every interim entry must be a
registered look (in order, once, before the final look) taken at its registered number of
seeds, with the boundary the lock gives and the decision that boundary takes on the statistic
recomputed from the runs; no analysis of confirmatory data may sit outside the registered looks;
and no run of a later look may have started before the interim record that allowed it.
"""

from __future__ import annotations

from prereg import looks as lk
from prereg.lock import parse_time

_TOL = 1e-9


def run(ctx, out) -> None:
    study = (ctx.lock.data if ctx.lock else {}).get("study_id")
    seq = ctx.study.analysis.sequential if ctx.study else None
    path = lk.looks_dir(ctx.runs_path, str(study)) / lk.LOG if ctx.runs_path and study else None
    if path is None or (not seq and not path.exists()):
        out.not_applicable("fixed design and no looks log")
        return
    where = ctx.rel(path)
    entries = lk.read_log(ctx.runs_path, study) if path.exists() else []
    for i, problem in lk.chain_problems(entries):
        out.add(f"{where}#{i}", "an intact hash chain", problem, "looks log chain broken: " + problem)
    if not seq:
        out.add(where, "no looks log (fixed design)", f"{len(entries)} entries",
                "a looks log in a study whose lock registers no sequential design")
        return
    from prereg.seqdesign import design, plan_of

    d = design(plan_of(ctx.study))
    _entries(ctx, out, where, entries, d)
    _later_runs(ctx, out, entries, seq.looks)


def _entries(ctx, out, where, entries, d) -> None:
    looks, seen = d.plan.looks, {}
    stopped = None
    for i, e in enumerate(map(lk.LookEntry.of, entries)):
        at = f"{where}#{i}"
        if e.lock_hash != ctx.lock.hash:
            out.notes.append(f"{at}: entry of another lock version (not audited here)")
            continue
        if e.kind == "analysis":
            out.add(at, "analyses only at the registered looks", f"analysis with {e.seeds_per_arm} seeds per arm",
                    "analysis of confirmatory data outside the registered looks (an unlogged peek made visible)")
            continue
        k = e.look
        if not isinstance(k, int) or not 1 <= k < len(looks) or k in seen or k != len(seen) + 1 or stopped:
            why = ("after the study stopped" if stopped else f"look {k!r} again" if k in seen
                   else f"look {k!r} where look {len(seen) + 1} was next (interim looks 1..{len(looks) - 1})")
            out.add(at, f"interim looks 1..{len(looks) - 1}, once each, in order", why,
                    "extra look: an interim analysis the design does not register")
            continue
        seen[k] = e
        want = list(ctx.seeds[: looks[k - 1]])
        if e.n_seeds != looks[k - 1] or e.seeds != want:
            out.add(at, f"{looks[k - 1]} seeds per arm ({want})", f"{e.n_seeds} ({e.seeds})",
                    f"look {k} taken at {e.n_seeds} seeds, not at its registered {looks[k - 1]}")
        _decisions(ctx, out, at, e, d, k)
        if e.decision != lk.CONTINUE:
            stopped = k


def _unit_values(ctx) -> dict:
    metric = ctx.study.analysis.primary_metric
    vals = {}
    for r in ctx.runs:
        m = r.manifest
        if (m.get("status") == "complete" and m.get("evidence_class") == "confirmatory"
                and (m.get("lock") or {}).get("hash") == ctx.lock.hash):
            vals[(m.get("arm"), m.get("seed"))] = (m.get("summaries") or {}).get(metric)
    return vals


def _decisions(ctx, out, at, e: lk.LookEntry, d, k) -> None:
    """Recompute each contrast's t from the runs and re-take the registered decision."""
    import numpy as np

    from prereg.seqdesign import CONTINUE, decide
    from stats.interim import paired_stat

    vals = _unit_values(ctx)
    go = False
    for cid, c in e.contrasts.items():
        go |= c.decision == CONTINUE
        if c.carried:
            continue
        seeds = e.seeds or []
        pairs = [(vals.get((c.arm, s)), vals.get((c.baseline, s))) for s in seeds]
        if any(x is None or y is None for x, y in pairs):
            out.add(f"{at}:{cid}", "runs of every seed of the look", "missing",
                    f"look {k} of {cid}: its runs are not all present to recompute the statistic")
            continue
        st = paired_stat(np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs]))
        if (st.t is None) != (c.t is None) or (st.t is not None and abs(st.t - c.t) > 1e-6):
            out.add(f"{at}:{cid}", f"t = {st.t}", f"t = {c.t}",
                    f"look {k} of {cid}: the recorded statistic differs from its recomputation from the runs")
        t = None if st.t is None else st.t * d.plan.direction
        want = decide(d, k, t)
        if c.decision != want:
            out.add(f"{at}:{cid}", want, c.decision,
                    f"look {k} of {cid}: the decision contradicts the registered boundary "
                    f"(t bound {d.t_upper[k - 1]:.4g})")
        rb = c.bound_efficacy
        if rb is None or abs(rb - d.t_upper[k - 1]) > _TOL * max(1.0, abs(rb)):
            out.add(f"{at}:{cid}", f"{d.t_upper[k - 1]:.6g}", rb,
                    f"look {k} of {cid}: the recorded boundary is not the one the lock gives")
    if (e.decision == CONTINUE) != go:
        out.add(at, "continue while any contrast continues", e.decision,
                f"look {k}: the study decision contradicts its contrasts' decisions")


def _later_runs(ctx, out, entries, looks) -> None:
    """Every run of a seed in look j > 1 started after the interim record of look j - 1 allowed it."""
    recs = lk.interims(entries, ctx.lock.hash)
    for r in ctx.runs:
        m = r.manifest
        arm, seed = m.get("arm"), m.get("seed")
        if m.get("evidence_class") != "confirmatory" or seed not in ctx.seeds or arm not in ctx.arms:
            continue
        j = lk.look_of_seed(ctx.study, seed)
        if j == 1:
            continue
        rec = recs.get(j - 1)
        where = ctx.rel(r.path)
        if rec is None or not rec.continues(arm):
            why = "no interim record" if rec is None else f"the record says {rec.decision!r} for {arm}"
            out.add(where, f"look {j - 1} interim record saying continue", why,
                    f"run {arm}/s{seed} of look {j} without the interim record of look {j - 1} allowing it")
            continue
        try:
            early = parse_time(m.get("started_at")) < parse_time(rec.created_at)
        except (TypeError, ValueError):
            early = True
        if early:
            out.add(where, f"started after {rec.created_at}", m.get("started_at"),
                    f"run {arm}/s{seed} of look {j} started before the interim record of look {j - 1}")
