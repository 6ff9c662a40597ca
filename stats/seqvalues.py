"""The sequential block of ``stats analyze``: values and verdict inputs that respect the design.

Thin glue between :mod:`stats.seqfinal` and :func:`stats.analyze.build` (README failure 19):
each monitored contrast gets ``contrasts.<c>.sequential.*`` values, and its planned p-value and
intervals are replaced by the stage-wise (or repeated) ones before multiplicity and verdicts.
"""

from __future__ import annotations

from dataclasses import replace

from stats import intervals as iv
from stats import seqfinal as sf


def apply(V, lock, data, facts: dict, warnings: list[str]) -> None:
    """Add the sequential values of every monitored contrast and feed them to the verdicts.

    Args:
        V: the analysis' value table.
        lock, data: the verified lock and loaded runs.
        facts: contrast id -> :class:`stats.designs.ContrastBlock` (a monitored contrast's block is replaced
            by one with the stage-wise ``p`` and ``intervals``).
    """
    from prereg import looks as lk
    from prereg.seqdesign import decide, design, plan_of

    plan = plan_of(lock.study)
    if plan is None or data.source != "runs":
        return
    d = design(plan)
    entries = lk.read_log(data.origin, lock.study_id)
    if lk.chain_problems(entries):
        warnings.append("looks log chain broken: sequential inference uses the final look for every contrast")
        entries = []
    decls = {c.id: c for c in lock.study.contrasts}
    dr = sf._paths(d)
    _bounds(V, d)
    for cid in plan.contrasts:
        if cid not in facts:
            continue
        k = sf.stop_look(entries, lock.hash, cid, len(plan.looks))
        obs = sf.observed(lock, data, d, decls[cid], k)
        ins = V.v[f"contrasts.{cid}.p"]["inputs"]
        if obs is None:
            why = "sequential statistic undefined (runs missing or all paired differences equal)"
            warnings.append(f"{cid}: {why} at look {k}")
            V.add(f"contrasts.{cid}.sequential.look", k, "look at which the contrast stopped (sealed looks log)",
                  "count", inputs=ins, note=why)
            continue
        for j in range(1, k + 1):  # the observed path, for the boundary plot
            o = sf.observed(lock, data, d, decls[cid], j)
            V.add(f"contrasts.{cid}.sequential.path.look{j}.t", None if o is None else o.t * plan.direction,
                  f"paired t over the first {plan.looks[j - 1]} seeds (look {j})", "statistic", inputs=ins)
        facts[cid] = _values(V, d, cid, obs, decide(d, k, obs.t), facts[cid], dr, ins)


def _values(V, d, cid, obs, decision, f, dr, ins):
    """The sequential values of one contrast; returns its block with the stage-wise p and intervals."""
    p = d.plan
    pre = f"contrasts.{cid}.sequential"
    prm = {"looks": list(p.looks), "spending": p.spec.spending, "futility": p.spec.futility,
           "small_sample": p.small_sample, "alpha": p.alpha, "draws": p.draws, "inference": p.inference}
    V.add(f"{pre}.look", obs.look, "look at which the contrast stopped (sealed looks log)", "count", params=prm, inputs=ins)
    V.add(f"{pre}.n_seeds", obs.n, "seeds per arm at the stopping look", "seeds", params=prm, inputs=ins)
    V.add(f"{pre}.t", obs.t * p.direction, "paired t at the stopping look", "statistic", params=prm, inputs=ins)
    V.add(f"{pre}.reject", decision == "stop_efficacy", "the registered boundary rejects at the stopping look",
          "other", params=prm, inputs=ins)
    ps = sf.stagewise_p(d, obs, dr)
    V.add(f"{pre}.p_stagewise", ps, "stage-wise ordering p-value (seeded simulation of the look t statistics)",
          "probability", params=prm, inputs=ins, random=True)
    est = sf.median_unbiased(d, obs, dr)
    V.add(f"{pre}.estimate", None if est is None else est * p.direction,
          "median-unbiased estimate (stage-wise ordering; SD plug-in)", "difference", params=prm, inputs=ins, random=True)
    ints = {}
    for level in f.intervals:
        lo, hi = (sf.repeated_interval(d, obs, level) if p.inference == "repeated_ci"
                  else sf.stagewise_interval(d, obs, level, dr))
        if p.direction < 0:
            lo, hi = (None if hi is None else -hi), (None if lo is None else -lo)
        tag = "ci" + iv.level_tag(level)
        how = "repeated confidence interval" if p.inference == "repeated_ci" else "stage-wise ordering interval"
        for end, val in (("lo", lo), ("hi", hi)):
            V.add(f"{pre}.{tag}.{end}", val, f"{how} ({end}); SD plug-in", "difference", params={**prm, "level": level}, inputs=ins,
                  random=p.inference != "repeated_ci")
        ints[level] = (lo, hi)
    return replace(f, p=ps, intervals=ints)


def _bounds(V, d) -> None:
    """The registered t-scale boundaries of every look (study-level values, for report and plot)."""
    import math

    p = d.plan
    for k, n in enumerate(p.looks, start=1):
        prm = {"seeds_per_arm": n, "spending": p.spec.spending, "small_sample": p.small_sample}
        up = d.t_upper[k - 1]
        V.add(f"sequential.look{k}.bound_efficacy", up if math.isfinite(up) else None,
              "t-scale efficacy boundary of the look (prereg.seqdesign)", "statistic", params=prm)
        if p.spec.futility != "none":
            fu = d.t_futility[k - 1]
            V.add(f"sequential.look{k}.bound_futility", fu if math.isfinite(fu) else None,
                  "t-scale futility boundary of the look", "statistic", params=prm)
