"""The item-level block of a contrast in ``analysis.json`` (README failure 17).

Whatever ``analysis.contrasts.item_level`` the plan names, the cluster-robust test
(``item.cluster_t``, seeds as clusters, t with G - 1 df) and its wild-cluster companion
(``item.cluster_sign_flip``) are computed: they are the item-level results that hold
their error rate when the arm effect varies between seeds. ``crossed_bootstrap`` adds
crossed (seed x item) bootstrap intervals; ``mcnemar`` and ``paired_bootstrap`` (which
pool seeds) are still computed when planned, with the caveat in their value notes, in
``analysis.json`` warnings and in the rendered report.
"""

from __future__ import annotations

import numpy as np

from prereg.study import AnalysisPlan
from stats import intervals as iv
from stats import items as it
from stats import tests as ht

KINDS = ("none", "mcnemar", "paired_bootstrap", "cluster_t", "crossed_bootstrap")
POOLED = ("mcnemar", "paired_bootstrap")


def add_values(V, plan: AnalysisPlan, pre: str, bp: dict, ia: np.ndarray, ib: np.ndarray, kind: str,
               levels: list[float], ins: list[str], warnings: list[str]) -> None:
    """Add ``{pre}.item.*`` values for the (seeds x items) outcome matrices ``ia``, ``ib``.

    Args:
        V: the analysis ``Values`` collector.
        plan: the lock's analysis plan (``lock.study.analysis``).
        pre: the contrast's value-id prefix (``contrasts.<arm>-<base>``).
        bp: base params of the contrast.
        ia, ib: arm and baseline outcomes, rows paired by seed, columns by item.
        kind: the planned ``item_level``.
        levels: interval levels of the plan's contrast intervals.
        ins: input seals.
        warnings: the analysis warnings list (the pooled-method caveat goes there).

    Returns:
        None; values are added to ``V``.

    Example:
        ``add_values(V, plan, "contrasts.gspo-grpo", bp, ia, ib, "cluster_t", [0.95], seals, warnings)``
    """
    d = ia - ib
    g, m = d.shape
    alt = plan.alternative
    ip = {**bp, "seeds_as_clusters": g, "items_per_seed": m}
    V.add(f"{pre}.item.n_pairs", int(d.size), "(seed, item) outcome pairs (seeds x shared items; not independent)",
          "count", params=ip, inputs=ins)
    V.add(f"{pre}.item.n_items", int(m), "distinct held-out items, shared by every seed", "items", params=ip,
          inputs=ins)
    V.add(f"{pre}.item.diff_mean", float(d.mean()), "mean over items of the per-item difference (mean over seeds)",
          "difference", params=ip, inputs=ins)
    ct = it.cluster_t(d, alt)
    V.add(f"{pre}.item.cluster_t.p", ct.p, "cluster-robust (CR1, seeds as clusters) t test, t with G-1 df",
          "probability", params={**ip, **ct.params}, inputs=ins, note=ct.note)
    V.add(f"{pre}.item.cluster_t.statistic", ct.statistic, "cluster-robust t statistic", "statistic",
          params={**ip, **ct.params}, inputs=ins, note=ct.note if ct.statistic is None else None)
    stream = f"{pre}.item.cluster_sign_flip"
    sf = it.cluster_sign_flip(d, alt, rng_seed=plan.rng_seed, stream=stream, resamples=plan.resamples)
    V.add(f"{pre}.item.cluster_sign_flip.p", sf.p, "wild cluster bootstrap (Rademacher, null imposed, exact)",
          "probability", params={**ip, **sf.params}, inputs=ins, random=sf.rng_seed is not None, note=sf.note)
    if kind == "crossed_bootstrap":
        _crossed(V, plan, pre, ip, d, levels, ins)
    elif kind == "mcnemar":
        _mcnemar(V, pre, ip, ia, ib, ins)
    elif kind == "paired_bootstrap":
        _pooled_bootstrap(V, plan, pre, ip, d, levels, ins)
    if kind in POOLED:
        w = f"{pre}.item: planned item-level {kind} {it.POOLED_CAVEAT}"
        if w not in warnings:
            warnings.append(w)


def _crossed(V, plan, pre, ip, d, levels, ins) -> None:
    stream = f"{pre}.item.crossed_bootstrap"
    res = it.crossed_intervals(d, levels, plan.resamples, plan.rng_seed, stream)
    prm = {**ip, "resamples": plan.resamples, "stream": stream,
           "resampling": "seeds with replacement, one item resample shared by all drawn seeds"}
    for lv in levels:
        tag = "ci" + iv.level_tag(lv)
        r = res[lv]
        for name, label in (("percentile", "crossed bootstrap percentile interval"),
                            ("crossed_t", "grand mean +- t(G-1) x crossed-bootstrap SE")):
            for end, val in zip(("low", "high"), r[name], strict=True):
                V.add(f"{pre}.item.crossed_{'t' if name == 'crossed_t' else 'bootstrap'}.{tag}.{end}", val, label,
                      "difference", params={**prm, "level": lv, "se": r["se"]}, inputs=ins, random=True)


def _mcnemar(V, pre, ip, ia, ib, ins) -> None:
    if not (np.all((ia == 0) | (ia == 1)) and np.all((ib == 0) | (ib == 1))):
        V.add(f"{pre}.item.mcnemar.p", None, "mcnemar_exact", "probability", params=ip, inputs=ins,
              note="outcomes are not binary: McNemar undefined")
        return
    r = ht.mcnemar_exact(ia.ravel().astype(bool), ib.ravel().astype(bool))
    prm = {**ip, **r.params, "pairing": "(seed, item) pairs pooled over seeds; ignores clustering by seed",
           "caveat": it.POOLED_CAVEAT}
    V.add(f"{pre}.item.mcnemar.p", r.p, "exact McNemar test p-value over pooled (seed, item) pairs", "probability",
          params=prm, inputs=ins, note=(r.note + "; " if r.note else "") + "pooled McNemar " + it.POOLED_CAVEAT)
    V.add(f"{pre}.item.mcnemar.arm_only", r.params["arm_only"],
          "discordant (seed, item) pairs: arm right, baseline wrong", "count", params=prm, inputs=ins)
    V.add(f"{pre}.item.mcnemar.baseline_only", r.params["baseline_only"],
          "discordant (seed, item) pairs: baseline right, arm wrong", "count", params=prm, inputs=ins)


def _pooled_bootstrap(V, plan, pre, ip, d, levels, ins) -> None:
    per_item = d.mean(axis=0)  # per-item difference averaged over paired seeds
    stream = f"{pre}.item.paired_bootstrap"
    res = iv.compute(per_item, "mean", "percentile", levels, resamples=plan.resamples,
                     rng_seed=plan.rng_seed, stream=stream)
    for lv in levels:
        t = "ci" + iv.level_tag(lv)
        r = res[lv]
        for end in ("low", "high"):
            V.add(f"{pre}.item.{t}.{end}", getattr(r, end), "paired bootstrap over items of per-item differences "
                  "(seeds fixed)", "difference", params={**ip, **r.params, "level": lv, "caveat": it.POOLED_CAVEAT},
                  inputs=ins, random=r.low is not None,
                  note=(r.note + "; " if r.note else "") + "item bootstrap " + it.POOLED_CAVEAT)
