"""Execute exactly the locked analysis plan and nothing else -> the analysis dict.

Every number is one entry of the flat ``values`` map (id -> value, method, params, unit,
inputs, rng_seed), so the audit can recompute any of them: :func:`analyze` is pure given
(lock, runs) — random draws come from ``resample.generator(rng_seed, stream)`` where the
stream is named in the value's params — so rerunning it reproduces any one id.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from prereg import power as pw
from prereg.declarations import ContrastDecl, default_baseline
from prereg.errors import UserError
from prereg.jsonio import dumps_pretty, write_atomic
from prereg.lock import Lock, verify_lock
from prereg.rules import same_level
from prereg.schema import require_valid
from prereg.study import AnalysisPlan, IntervalSpec, Study
from stats import coverage, designs, rliable, sessions
from stats import intervals as iv
from stats import multiplicity as mult
from stats import tests as ht
from stats.load import (
    DESCRIPTIVE,
    ITEM_FIELD,
    RUN_COUNTS,
    Data,
    load,
    metric_unit,
    secondary_contrast_metrics,
    seed_tag,
)

ANALYSIS_FORMAT = 1
ZERO_SD = "all paired differences equal (SD 0): t-based quantity undefined"
SIG_DIGITS = 12
SECONDARY_SCOPE = "secondary (not in the multiplicity family)"
IQM_FEW = "IQM over fewer than 4 seeds trims nothing: it equals the mean (flagged, not an IQM)"
# README failure 18: observed ("post-hoc") power is a one-to-one function of p at fixed n (Hoenig & Heisey 2001)
OBSERVED_POWER = ("observed power of the paired t test (observed mean difference and SD): a one-to-one function of "
                  "p at fixed n (Hoenig & Heisey 2001), no evidential weight; never used in a verdict")


def clean(x):
    """JSON-stable value: Python bool/int/float rounded to 12 significant digits; non-finite -> None."""
    if x is None or isinstance(x, bool):
        return x
    if isinstance(x, (np.bool_,)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    f = float(x)
    if not math.isfinite(f):
        return None
    f = float(f"{f:.{SIG_DIGITS}g}")
    return 0.0 if f == 0 else f


class Values:
    def __init__(self, rng_seed: int):
        self.rng_seed = rng_seed
        self.v: dict[str, dict] = {}

    def add(self, vid: str, value, method: str, unit: str, *, params: dict | None = None,
            inputs=(), random: bool = False, note: str | None = None) -> None:
        if vid in self.v:
            raise AssertionError(f"duplicate value id {vid}")
        val = clean(value)
        rec = {"value": val, "method": method, "unit": unit, "params": _clean_params(params or {}),
               "inputs": sorted(set(i for i in inputs if i)), "rng_seed": self.rng_seed if random else None}
        if value is not None and val is None and note is None:
            note = "undefined (non-finite) result"
        if note:
            rec["note"] = note
        self.v[vid] = rec

    def get(self, vid: str):
        r = self.v.get(vid)
        return None if r is None else r["value"]


def _clean_params(p):
    if isinstance(p, dict):
        return {str(k): _clean_params(v) for k, v in p.items()}
    if isinstance(p, (list, tuple)):
        return [_clean_params(v) for v in p]
    if isinstance(p, (str, type(None))):
        return p
    return clean(p)


def interval_tags(specs: Sequence[IntervalSpec]) -> list[str]:
    """Value-id tag of each contrast interval spec: ci95; ci95_<method> when a level repeats."""
    tags = []
    for i, s in enumerate(specs):
        base = "ci" + iv.level_tag(s.level)
        if any(same_level(o.level, s.level) for o in specs[:i]):
            base += "_" + s.method
        tags.append(base)
    return tags


def _item_matrix(units, metric: str):
    """(seeds x items) matrix of per-item values when every unit has the same items, else None."""
    if not units or any(metric not in u.items or u.item_ids is None for u in units):
        return None
    ref = units[0].item_ids
    if any(u.item_ids != ref for u in units):
        return None
    return np.vstack([u.items[metric] for u in units])


# ----------------------------------------------------------------------------- arms
def _arm_values(V: Values, plan: AnalysisPlan, data: Data, arm: str, warnings: list[str],
                session: str | None = None, prefix: str = "") -> None:
    """``arms.<arm>.*`` and ``runs.<arm>.*``: seeds, each planned metric's per-run values and
    summaries with their intervals, and the descriptive run summaries. By default of the arm's
    primary view (its first session); with ``session`` and ``prefix`` (``sessions.<tag>.``), of its
    evaluation in that session, under ids with that prefix (:mod:`stats.sessions`): one code path
    for every session's summaries."""
    view = data.units if session is None or not prefix else data.sessions[session]
    seeds = data.seeds_of(arm, view)
    units = [view[(arm, s)] for s in seeds]
    once = seeds == [None]
    sess = {"session": units[0].session} if units and units[0].session is not None else {}
    V.add(f"{prefix}arms.{arm}.n_seeds", 0 if once else len(units), "count of included runs (one per seed)", "seeds",
          params={"seeds": seeds, **({"evaluated": "once"} if once else {}), **sess},
          inputs=[u.input_id for u in units], note="reference arm evaluated once: no seeds" if once else None)
    for metric in plan.metrics:
        _arm_metric_values(V, plan, data, arm, metric, units, warnings, prefix)
    _arm_descriptives(V, plan, arm, units, prefix)


def _session_arm_values(V: Values, plan: AnalysisPlan, data: Data, warnings: list[str]) -> dict[str, dict[str, str]]:
    """Every later session's evaluation of each arm summarised like its first (``sessions.<tag>.*``,
    README failure 16), so a report quoting a re-evaluation has a source; returns ``session_arms``."""
    if not data.named_sessions:
        return {}
    where = sessions.session_arms(data.sessions, data.first_sessions())
    for sess, arms in where.items():
        for arm, prefix in arms.items():
            if prefix:
                _arm_values(V, plan, data, arm, warnings, sess, prefix)
    return where


def _arm_metric_values(V: Values, plan: AnalysisPlan, data: Data, arm: str, metric: str, units: list,
                       warnings: list[str], prefix: str = "") -> None:
    """One metric of one arm: per-run values, SD, each planned statistic with its planned interval
    (plus a two-level interval where items exist) and the item-level interval of the mean."""
    summ = plan.arm_summary
    method, level = summ.interval, summ.level
    tag = "ci" + iv.level_tag(level)
    mu = metric_unit(metric, data.decls)
    have = [u for u in units if u.metrics.get(metric) is not None]
    x = iv.rs.snap_constant(np.asarray([u.metrics[metric] for u in have], dtype=float))
    ins = [u.input_id for u in have]
    sess = {"session": have[0].session} if have and have[0].session is not None else {}
    for u in have:
        V.add(f"{prefix}runs.{arm}.{seed_tag(u.seed)}.{metric}", u.metrics[metric],
              "run summary (manifest summaries)" if data.source == "runs" else "imported table value",
              mu, params={"arm": arm, "seed": u.seed, "metric": metric, **sess}, inputs=[u.input_id])
    if len(have) < len(units):
        warnings.append(f"{prefix}arms.{arm}.{metric}: {len(units) - len(have)} runs lack the metric; "
                        f"summarised over {len(have)}")
    base_params = {"metric": metric, "seeds": [u.seed for u in have], **sess}
    V.add(f"{prefix}arms.{arm}.{metric}.sd", (0.0 if np.ptp(x) == 0 else float(np.std(x, ddof=1))) if x.size > 1 else None,
          "sample standard deviation over seeds (ddof=1)", mu, params=base_params, inputs=ins,
          note=None if x.size > 1 else "fewer than two seeds: SD undefined")
    items = _item_matrix(have, metric)
    for stat in summ.statistics:
        vid = f"{prefix}arms.{arm}.{metric}.{stat}"
        note = None if x.size else "no seeds: undefined"
        if stat == "iqm" and 0 < x.size < 4:  # 25% of fewer than 4 seeds rounds to 0: nothing is trimmed
            note = IQM_FEW
            w = f"{prefix}arms.{arm}.{metric}.iqm: {IQM_FEW}"
            if w not in warnings:
                warnings.append(w)
        V.add(vid, float(iv.rs.statistic(stat)(x)) if x.size else None, f"{stat} over seeds", mu,
              params=base_params, inputs=ins, note=note)
        plans = [(tag, method)]
        if (items is not None or metric in ITEM_FIELD) and method != "hierarchical_bootstrap":
            plans.append(("h" + tag, "hierarchical_bootstrap"))  # additional two-level interval
        for t, m in plans:
            res = iv.compute(x, stat, m, [level], resamples=plan.resamples, rng_seed=plan.rng_seed,
                             stream=f"{vid}.{t}", items=items)[level]
            for end in ("low", "high"):
                V.add(f"{vid}.{t}.{end}", getattr(res, end), f"{m} interval ({'planned' if t == tag else 'additional'})",
                      mu, params={**base_params, **res.params, "level": level, "method": m},
                      inputs=ins, random=m != "t" and res.low is not None, note=res.note)
    if items is not None:
        _arm_item_interval(V, plan, f"{prefix}arms.{arm}", metric, mu, items, ins, have, sess)
    if metric == plan.primary_metric:
        w = coverage.warning_for(method, x.size, level, metric, decls=data.decls)
        if w and f"arms.*.{metric}: {w}" not in warnings:
            warnings.append(f"arms.*.{metric}: {w}")


def _arm_descriptives(V: Values, plan: AnalysisPlan, arm: str, units: list, prefix: str = "") -> None:
    """Per-run descriptive summaries and counts (not planned metrics), and their mean over seeds."""
    for u in units:
        for d in DESCRIPTIVE + RUN_COUNTS:
            if d in plan.metrics or u.metrics.get(d) is None:
                continue
            V.add(f"{prefix}runs.{arm}.{seed_tag(u.seed)}.{d}", u.metrics[d], "run summary (manifest summaries)", metric_unit(d),
                  params={"arm": arm, "seed": u.seed, "metric": d}, inputs=[u.input_id])
    seals = [u.input_id for u in units]
    for d in DESCRIPTIVE:
        vals = [u.metrics.get(d) for u in units if u.metrics.get(d) is not None]
        if not vals:
            continue
        V.add(f"{prefix}arms.{arm}.{d}", float(np.mean(vals)), "mean over seeds of run summaries",
              metric_unit(d) if d not in ("rollouts", "steps") else "count",
              params={"summary": d, "n": len(vals)}, inputs=seals)


def _arm_item_interval(V: Values, plan: AnalysisPlan, pre: str, metric: str, mu: str, items: np.ndarray, ins: list[str],
                       have: list, sess: dict) -> None:
    """Per-arm item-level interval of the mean (``<pre>.<metric>.mean.item.ciNN``, ``pre`` the arm's
    ``arms.<arm>`` id prefix): defined with one seed or a reference evaluated once, where every
    seed-level interval is null.
    Unit ``item``: items resampled (seeds fixed); otherwise the crossed (seed x item) bootstrap."""
    from stats import items as it

    level = plan.arm_summary.level
    tag = "ci" + iv.level_tag(level)
    unit = "item" if plan.unit == "item" or items.shape[0] == 1 else "seed_item"
    stream = f"{pre}.{metric}.mean.item.{tag}"
    g = iv.rs.generator(plan.rng_seed, stream)
    dist = (iv.rs.bootstrap(items.mean(axis=0), "mean", plan.resamples, g) if unit == "item"
            else it.crossed_bootstrap(items, plan.resamples, g))
    lo, hi = np.quantile(dist, [(1 - level) / 2, (1 + level) / 2])
    prm = {"metric": metric, "seeds": [u.seed for u in have], "items": int(items.shape[1]), "unit": unit,
           "level": level, "resamples": plan.resamples, "stream": stream,
           "resampling": "items with replacement" if unit == "item" else
           "seeds with replacement, one item resample shared by all drawn seeds", **sess}
    for end, val in (("low", lo), ("high", hi)):
        V.add(f"{stream}.{end}", float(val),
              f"item-level percentile bootstrap interval of the mean (unit {unit})", mu, params=prm, inputs=ins,
              random=True)


# ----------------------------------------------------------------------------- contrasts
def _published(study: Study, arm: str, base: str, metric: str):
    for h in study.hypotheses:
        if h.arm == arm and h.baseline == base and h.metric == metric:
            return h.published_effect
    return None


def _margin(plan: AnalysisPlan, metric: str, mu: str, primary: bool, data: Data, bp: dict) -> tuple[float | None, str | None]:
    """The equivalence margin that applies to ``metric`` (the plan's, if in the primary metric's unit)."""
    margin = plan.equivalence_margin
    if not primary:
        bp["confirmatory"] = False
    if primary or margin is None:
        return margin, None
    pu = metric_unit(plan.primary_metric, data.decls)
    if mu != pu or mu == "other":
        return None, (f"the plan's equivalence_margin is declared for {plan.primary_metric} ({pu}); "
                      f"{metric} is in {mu}: no margin applies")
    bp["margin_from"] = f"analysis.equivalence_margin (declared for {plan.primary_metric}, same unit {mu})"
    return margin, None


def _session_views(data: Data, arm: str, base: str) -> tuple[dict, dict, designs.SessionFacts]:
    """The (arm view, baseline view, session facts) a contrast is formed in: the first session
    both arms were evaluated in; without one, each arm's first session (a cross-session
    contrast, which is a deviation stated in its verdict)."""
    def has(view, a):
        return any(x == a for x, _ in view)

    shared = [s for s, view in data.sessions.items() if has(view, arm) and has(view, base)]
    if shared:
        return data.sessions[shared[0]], data.sessions[shared[0]], designs.SessionFacts(shared[0], tuple(shared[1:]))
    sa, sb = data.sessions_of(arm), data.sessions_of(base)
    if not sa or not sb:
        return data.units, data.units, designs.SessionFacts()
    return data.sessions[sa[0]], data.sessions[sb[0]], designs.SessionFacts(cross=(sa[0], sb[0]))


@dataclass(frozen=True)
class _Pairs:
    """One seed-paired contrast's data and plan, shared by the steps of :func:`_contrast_values`."""

    plan: AnalysisPlan
    pre: str                 # value id prefix: contrasts.<id> or contrasts.<id>.<metric>
    metric: str
    primary: bool
    alt: str
    resamples: int
    rng_seed: int
    ua: list
    ub: list
    a: np.ndarray
    b: np.ndarray
    d: np.ndarray            # per-seed paired differences, arm - baseline
    bp: dict                 # params every value of the block records
    ins: list                # input ids
    decls: dict              # the metric declarations (the unit picks the coverage row)

    @property
    def n(self) -> int:
        return int(self.d.size)


def _contrast_values(V: Values, study: Study, data: Data, c: ContrastDecl, warnings: list[str],
                     metric: str | None = None) -> designs.ContrastBlock:
    """The contrast block of one declared (arm, baseline) contrast on one metric.

    The primary metric keeps the ids ``contrasts.<id>.*``; any other metric gets
    ``contrasts.<id>.<metric>.*`` with the same plan (test, intervals, resamples,
    power), streams named by those ids, ``confirmatory: false`` in params, and no item-level
    comparison (the plan's item_level is about the primary metric's items). The design and
    unit (stats.designs) decide the block: per-seed pairs here, item-level units there.
    Steps: pair the seeds, describe the differences, intervals, tests, power, TOST,
    non-inferiority, the item-level comparison.
    """
    plan = study.analysis
    arm, base = c.arm, c.baseline
    primary = metric is None or metric == plan.primary_metric
    metric = plan.primary_metric if primary else metric
    mu = metric_unit(metric, data.decls)
    va, vb, sess = _session_views(data, arm, base)
    design = designs.choose(data.seeds_of(arm, va), data.seeds_of(base, vb), plan.unit)
    dp = {"design": design.kind, "unit": design.unit, "planned_unit": plan.unit, **sess.params(),
          **({} if c.sign == "arm_minus_baseline" else {"reported_sign": c.sign})}
    if design.unit != "seed":
        extra: dict = {}
        dp.update(metric_unit=mu, _margin=_margin(plan, metric, mu, primary, data, extra))
        dp.update(extra)
        return _unit_contrast(V, study, c, metric, primary, va, vb, design, dp, sess, warnings)
    P = _pair_seeds(plan, c, data, va, vb, metric, primary, mu, dp)
    margin, margin_note = _margin(plan, metric, mu, primary, data, P.bp)
    sd = _describe_differences(V, P)
    ints = _contrast_intervals(V, P, plan.intervals, warnings)
    planned = _contrast_tests(V, P, plan.test)
    mde = _contrast_power(V, P, sd) if plan.power else None
    tost = _contrast_tost(V, P, margin, margin_note)
    ni = _noninferiority(V, plan, P.pre, P.bp, P.d, P.ins) if primary else None
    if primary and plan.item_level != "none":
        _item_contrast(V, plan, P.pre, P.bp, P.ua, P.ub, metric, plan.item_level, plan.intervals, P.ins, warnings)
    mde_note = V.v[f"{P.pre}.mde"].get("note") if f"{P.pre}.mde" in V.v else None
    return designs.ContrastBlock(p=planned.p, p_note=planned.note if planned.p is None else None,
                                 mde_note=mde_note, intervals=ints, mde=clean(mde), tost_p=clean(tost), margin=margin,
                                 published=_published(study, arm, base, metric), n=P.n, margin_note=margin_note,
                                 design=design, session=sess, noninferiority_p=ni, diffs=P.d)


def _pair_seeds(plan: AnalysisPlan, c: ContrastDecl, data: Data, va, vb, metric, primary, mu, dp) -> _Pairs:
    """Seeds where both arms have the metric, and their per-seed paired differences."""
    arm, base, cid = c.arm, c.baseline, c.id
    base_seeds = set(data.seeds_of(base, vb))  # once: per seed it made the pairing quadratic in runs
    seeds = [s for s in data.seeds_of(arm, va) if s in base_seeds
             and va[(arm, s)].metrics.get(metric) is not None
             and vb[(base, s)].metrics.get(metric) is not None]
    ua = [va[(arm, s)] for s in seeds]
    ub = [vb[(base, s)] for s in seeds]
    a = np.asarray([u.metrics[metric] for u in ua], dtype=float)
    b = np.asarray([u.metrics[metric] for u in ub], dtype=float)
    # equal-by-construction differences (identical arms, or a constant offset) are exactly
    # constant, not 1e-17 apart: zero variance takes its stated branches below
    d = iv.rs.snap_constant(a - b, scale=float(np.max(np.abs(np.concatenate([a, b])))) if a.size else None)
    a, b = iv.rs.snap_constant(a), iv.rs.snap_constant(b)
    bp = {"metric": metric, "arm": arm, "baseline": base, "seeds": seeds, "metric_unit": mu, **dp}
    return _Pairs(plan, f"contrasts.{cid}" if primary else f"contrasts.{cid}.{metric}", metric, primary,
                  plan.alternative, plan.resamples, plan.rng_seed,
                  ua, ub, a, b, d, bp, [u.input_id for u in ua + ub], data.decls)


def _describe_differences(V: Values, P: _Pairs) -> float | None:
    """n, mean and SD of the paired differences and the effect sizes; returns the SD."""
    pre, bp, ins, d, n = P.pre, P.bp, P.ins, P.d, P.n
    none_note = "no paired seeds: undefined" if n == 0 else None
    V.add(f"{pre}.n_pairs", n, "count of seeds with both arms", "seeds", params=bp, inputs=ins)
    V.add(f"{pre}.diff_mean", float(d.mean()) if n else None, "mean of per-seed paired differences (arm - baseline)",
          "difference", params=bp, inputs=ins, note=none_note)
    sd = (0.0 if np.ptp(d) == 0 else float(np.std(d, ddof=1))) if n > 1 else None
    V.add(f"{pre}.diff_sd", sd, "SD of per-seed paired differences (ddof=1)", "difference", params=bp, inputs=ins,
          note=None if n > 1 else "fewer than two pairs: undefined")
    dz = (float(d.mean()) / sd) if sd else None
    V.add(f"{pre}.effect_size_dz", dz, "standardized paired effect: mean / SD of differences", "statistic",
          params=bp, inputs=ins, note=None if dz is not None else
          ZERO_SD if sd == 0 else "fewer than two pairs: effect size undefined")
    _effect_sizes(V, pre, bp, d, P.a, P.b, ins)
    return sd


def _contrast_intervals(V: Values, P: _Pairs, specs: Sequence[IntervalSpec], warnings: list[str]) -> dict[float, tuple]:
    """The planned intervals of the mean difference (all levels of one method share one stream)."""
    pre, bp, ins, metric, n = P.pre, P.bp, P.ins, P.metric, P.n
    wkey = "contrasts.*" if P.primary else f"contrasts.*.{metric}"
    ints: dict[float, tuple] = {}
    tags = interval_tags(specs)
    items_a = _item_matrix(P.ua, metric) if metric in ITEM_FIELD else None
    items_b = _item_matrix(P.ub, metric) if metric in ITEM_FIELD else None
    if items_a is not None and items_b is not None and (P.ua[0].item_ids != P.ub[0].item_ids):
        items_a = items_b = None
    cache: dict[str, dict] = {}
    for spec, tag in zip(specs, tags, strict=True):
        m, lv = spec.method, spec.level
        if m not in cache:
            lvls = [s.level for s in specs if s.method == m]
            cache[m] = iv.compute(P.d, "mean", m, lvls, resamples=P.resamples, rng_seed=P.rng_seed,
                                  stream=f"{pre}.{m}", items=items_a, items_other=items_b)
        r = cache[m][lv]
        for end in ("low", "high"):
            V.add(f"{pre}.{tag}.{end}", getattr(r, end), f"{m} interval of the mean paired difference",
                  "difference", params={**bp, **r.params, "level": lv, "method": m}, inputs=ins,
                  random=m != "t" and r.low is not None, note=r.note)
        if lv not in ints:
            ints[lv] = (clean(r.low), clean(r.high))
        w = coverage.warning_for("percentile" if m == "paired_bootstrap" else m, n, lv, metric, contrast=True,
                                 decls=P.decls)
        if w and f"{wkey}: {w}" not in warnings:
            warnings.append(f"{wkey}: {w}")
    return ints


def _paired_bootstrap_test(P: _Pairs) -> ht.TestResult:
    d, n, B, alt = P.d, P.n, P.resamples, P.alt
    if n < 1:
        return ht.TestResult(None, None, "paired_bootstrap", {"n": 0}, "no pairs")
    rng = iv.rs.generator(P.rng_seed, f"{P.pre}.tests.paired_bootstrap")
    dist = iv.rs.bootstrap(d, "mean", B, rng)
    pb = ht.bootstrap_p(dist, alt) if n > 1 and np.ptp(d) > 0 else (1.0 if np.all(d == 0) else None)
    return ht.TestResult(
        pb, float(d.mean()), "paired_bootstrap",
        {"n": n, "alternative": alt, "resamples": B, "stream": f"{P.pre}.tests.paired_bootstrap",
         "p_rule": "2*min((#<=0)+1, (#>=0)+1)/(B+1)"},
        None if pb is not None else "all differences equal and non-zero: bootstrap p undefined", P.rng_seed)


def _contrast_tests(V: Values, P: _Pairs, test: str) -> ht.TestResult:
    """Every seed-level paired test, the planned one also as ``.p``; returns the planned one."""
    pre, bp, ins, d, alt, B, seed = P.pre, P.bp, P.ins, P.d, P.alt, P.resamples, P.rng_seed
    results = {
        "paired_t": ht.paired_t(d, alt),
        "wilcoxon": ht.wilcoxon(d, alt, rng_seed=seed, stream=f"{pre}.tests.wilcoxon", resamples=B),
        "sign_flip": ht.sign_flip(d, alt, rng_seed=seed, stream=f"{pre}.tests.sign_flip", resamples=B),
        "welch_t": ht.welch_t(P.a, P.b, alt),
        "paired_bootstrap": _paired_bootstrap_test(P),
    }
    for name, r in results.items():
        V.add(f"{pre}.tests.{name}.p", r.p, f"{r.method} test p-value", "probability",
              params={**bp, **r.params}, inputs=ins, random=r.rng_seed is not None, note=r.note)
        if name != "paired_bootstrap":
            V.add(f"{pre}.tests.{name}.statistic", r.statistic, f"{r.method} test statistic", "statistic",
                  params={**bp, **r.params}, inputs=ins, note=r.note if r.statistic is None else None)
    planned = results[test]
    V.add(f"{pre}.p", planned.p, f"planned test ({test}) p-value", "probability",
          params={**bp, **planned.params, "test": test}, inputs=ins, random=planned.rng_seed is not None,
          note=planned.note)
    return planned


def _contrast_power(V: Values, P: _Pairs, sd: float | None) -> float | None:
    """MDE (standardized, in metric units, at the pilot SD, as if independent) and observed power."""
    pre, bp, ins, n, alt = P.pre, P.bp, P.ins, P.n, P.alt
    pplan = P.plan.power
    pm, pa, target = pplan.method, pplan.alpha, pplan.target
    pparams = {**bp, "power_method": pm, "alpha": pa, "target": target, "alternative": alt, "n": n}
    d_std = pw.mde(1.0, n, pa, target, alt, design="paired", method=pm) if n >= 2 else None
    V.add(f"{pre}.mde_d", d_std, "minimum detectable standardized paired effect (dz) at the seeds present",
          "statistic", params=pparams, inputs=ins, note=None if n >= 2 else "fewer than two pairs: MDE undefined")
    mde = d_std * sd if (d_std is not None and sd) else None
    V.add(f"{pre}.mde", mde, "minimum detectable paired effect in metric units (mde_d x observed SD of differences)",
          "difference", params={**pparams, "sd": sd}, inputs=ins,
          note=None if mde is not None else
          ZERO_SD + "; MDE null by convention (no verdict rests on a zero-variance power analysis)"
          if sd == 0 else "fewer than two pairs: MDE undefined")
    if P.primary and pplan.pilot_sd and n >= 2:  # pilot SD is in primary-metric units
        V.add(f"{pre}.mde_pilot", d_std * pplan.pilot_sd, "minimum detectable paired effect at the plan's pilot SD",
              "difference", params={**pparams, "sd": pplan.pilot_sd}, inputs=ins)
    a, b = P.a, P.b
    sda = (0.0 if np.ptp(a) == 0 else float(np.std(a, ddof=1))) if a.size > 1 else None
    sdb = (0.0 if np.ptp(b) == 0 else float(np.std(b, ddof=1))) if b.size > 1 else None
    pooled = math.sqrt((sda ** 2 + sdb ** 2) / 2) if sda is not None and sdb is not None else None
    mde_ind = (pw.mde(pooled, n, pa, target, alt, design="independent", method=pm)
               if pooled and n >= 2 else None)
    V.add(f"{pre}.mde_independent", mde_ind,
          "minimum detectable effect if arms were independent samples (pooled within-arm SD)", "difference",
          params={**pparams, "sd": pooled, "design": "independent", "n_per_arm": n}, inputs=ins,
          note=None if mde_ind is not None else "pooled SD zero or undefined: MDE undefined")
    _observed_power(V, P, pparams, sd, pooled)
    return mde


def _observed_power(V: Values, P: _Pairs, pparams: dict, sd, pooled) -> None:
    """Observed power, paired and as if independent: labelled a function of p (no evidential weight)."""
    pre, ins, n, alt = P.pre, P.ins, P.n, P.alt
    pm, pa = pparams["power_method"], pparams["alpha"]
    obs = float(P.d.mean()) if n else None
    pa_paired = pw.power(obs, sd, n, pa, alt, design="paired", method=pm) if (sd and n >= 2) else None
    V.add(f"{pre}.power_achieved", pa_paired, OBSERVED_POWER,
          "probability", params={**pparams, "effect": obs, "sd": sd, "evidential_weight": "none"}, inputs=ins,
          note=None if pa_paired is not None else
          ZERO_SD + "; power undefined" if sd == 0 else "fewer than two pairs: power undefined")
    pa_ind = pw.power(obs, pooled, n, pa, alt, design="independent", method=pm) if (pooled and n >= 2) else None
    V.add(f"{pre}.power_achieved_independent", pa_ind,
          "observed power of the two-sample t test (observed difference, pooled SD): a function of p, "
          "no evidential weight", "probability",
          params={**pparams, "effect": obs, "sd": pooled, "design": "independent", "evidential_weight": "none"},
          inputs=ins,
          note=None if pa_ind is not None else "pooled SD zero or undefined: power undefined")


def _contrast_tost(V: Values, P: _Pairs, margin, margin_note) -> float | None:
    """TOST against the equivalence margin (or both values null, saying why); returns its p."""
    pre, bp, ins = P.pre, P.bp, P.ins
    alpha = P.plan.multiplicity.alpha
    if margin is not None:
        tr = ht.tost_paired(P.d, margin)
        V.add(f"{pre}.tost_p", tr.p, "TOST (two one-sided paired t tests) p-value", "probability",
              params={**bp, **tr.params}, inputs=ins, note=tr.note)
        V.add(f"{pre}.tost_equivalent", None if tr.p is None else tr.p < alpha, "TOST p < alpha", "other",
              params={**bp, "alpha": alpha, "margin": margin}, inputs=ins, note=tr.note)
        return tr.p
    if margin_note:
        V.add(f"{pre}.tost_p", None, "TOST (two one-sided paired t tests) p-value", "probability", params=bp,
              inputs=ins, note=margin_note)
        V.add(f"{pre}.tost_equivalent", None, "TOST p < alpha", "other", params={**bp, "alpha": alpha},
              inputs=ins, note=margin_note)
    return None


def _unit_contrast(V: Values, study: Study, c: ContrastDecl, metric: str, primary: bool, va: dict, vb: dict,
                   design, dp: dict, sess: designs.SessionFacts, warnings: list[str]) -> designs.ContrastBlock:
    """A contrast analysed at the item or crossed (seed x item) unit (stats.designs): the arm's
    and the baseline's per-item matrices, paired by seed when both have seeds, else the side
    evaluated once broadcast over the other's seeds."""
    plan = study.analysis
    arm, base, cid = c.arm, c.baseline, c.id
    pre = f"contrasts.{cid}" if primary else f"contrasts.{cid}.{metric}"

    def usable(view, a):
        return [view[(x, s)] for (x, s) in sorted(view, key=lambda k: (k[0], -1 if k[1] is None else k[1]))
                if x == a and view[(x, s)].metrics.get(metric) is not None]

    ua, ub = usable(va, arm), usable(vb, base)
    if design.kind == "seed_paired":
        common = sorted({u.seed for u in ua} & {u.seed for u in ub})
        ua = [u for u in ua if u.seed in common]
        ub = [u for u in ub if u.seed in common]
    A, Bm = _item_matrix(ua, metric), _item_matrix(ub, metric)
    same_items = A is not None and Bm is not None and ua[0].item_ids == ub[0].item_ids
    mu = dp.pop("metric_unit")
    bp = {"metric": metric, "arm": arm, "baseline": base, "metric_unit": mu,
          "seeds_arm": [u.seed for u in ua], "seeds_baseline": [u.seed for u in ub],
          "method_text": design.describe(), **dp}
    if design.note:
        bp["design_note"] = design.note
    margin, margin_note = dp.pop("_margin")
    if not primary:
        bp["confirmatory"] = False
    ins = [u.input_id for u in ua + ub]
    x = designs.fixed_reference_diffs(ua, ub, metric) if not same_items and plan.unit == "seed" else None
    if x is not None:  # per-seed values only, unit seed: the reference's one value held fixed (stats.designs)
        facts = designs.fixed_reference_block(V, plan, pre, bp, x, ins, margin, margin_note,
                                              interval_tags(plan.intervals), warnings)
        return replace(facts, published=_published(study, arm, base, metric), session=sess)
    if not same_items:
        why = (f"{design.kind} at unit {design.unit!r} needs per-item data for both sides on the same items: give "
               "a per-item table (arm, seed, item, metric; the reference's seed empty) or run folders with held-out "
               "traces" + (", or plan analysis.unit 'seed' to compare each seed's value with the reference's one "
                           "value held fixed (an estimand conditional on that evaluation)"
                           if design.kind == "reference_once" else "") + ": undefined")
        return designs.undefined_block(V, plan, pre, bp, ins, why, margin, margin_note,
                                       _published(study, arm, base, metric), design, sess)
    d = designs.difference_matrix(A, Bm)
    if design.kind == "reference_once" and d.shape[0] == 1:
        w = (f"contrasts.{cid}: one evaluation on each side ({arm} has one seed): the interval holds item sampling "
             "only, not seed-to-seed variation, and under-covers when seeds differ (`stats coverage --reference`)")
        if w not in warnings:
            warnings.append(w)
    facts = designs.add_unit_block(V, plan, pre, bp, d, A, Bm, design, ins, margin, margin_note,
                                   interval_tags(plan.intervals))
    facts = replace(facts, published=_published(study, arm, base, metric), design=design, session=sess)
    if primary and plan.item_level != "none" and design.kind == "seed_paired":
        _item_contrast(V, plan, pre, bp, ua, ub, metric, plan.item_level, plan.intervals, ins, warnings)
    return facts


def _effect_sizes(V, pre, bp, d, a, b, ins) -> None:
    """Exact noncentral-t 95% intervals of dz, and Hedges' g (arms as independent groups) with its interval."""
    from stats import effect_sizes as es

    r = es.dz(d)
    for end in ("low", "high"):
        V.add(f"{pre}.effect_size_dz.ci95.{end}", getattr(r, end), "exact noncentral-t interval of dz (inverted in "
              "the noncentrality)", "statistic", params={**bp, "level": 0.95, "method": r.method}, inputs=ins,
              note=r.note)
    g = es.hedges_g(a, b)
    V.add(f"{pre}.hedges_g", g.value, "Hedges' g: (mean arm - mean baseline) / pooled SD x exact J (arms as "
          "independent groups)", "statistic", params={**bp, "method": g.method}, inputs=ins, note=g.note)
    for end in ("low", "high"):
        V.add(f"{pre}.hedges_g.ci95.{end}", getattr(g, end), "exact noncentral-t interval of Hedges' g", "statistic",
              params={**bp, "level": 0.95, "method": g.method}, inputs=ins, note=g.note)


def _noninferiority(V, plan, pre, bp, d, ins):
    """One-sided paired t of difference > -noninferiority_margin (README failure 18), when a margin is declared."""
    margin = plan.noninferiority_margin
    if margin is None:
        return None
    r = ht.noninferiority_paired(d, margin)
    V.add(f"{pre}.noninferiority_p", r.p, "non-inferiority: one-sided paired t of difference > -margin",
          "probability", params={**bp, **r.params}, inputs=ins, note=r.note)
    return clean(r.p)


def _item_contrast(V, plan, pre, bp, ua, ub, metric, kind, specs, ins, warnings) -> None:
    """Item-level block (stats.analyze_items): cluster-robust tests always, the planned method too."""
    from stats import analyze_items

    ia, ib = _item_matrix(ua, metric), _item_matrix(ub, metric)
    if ia is None or ib is None or ua[0].item_ids != ub[0].item_ids:
        V.add(f"{pre}.item.n_pairs", None, "(seed, item) outcome pairs", "count", params=bp, inputs=ins,
              note="per-item data missing or item sets differ: item-level comparison undefined")
        return
    levels = sorted({s.level for s in specs}) or [0.95]
    analyze_items.add_values(V, plan, pre, bp, ia, ib, kind, levels, ins, warnings)


# ----------------------------------------------------------------------------- rliable
def _rliable_values(V: Values, plan: AnalysisPlan, data: Data, arms: list[str], base: str,
                    warnings: list[str]) -> None:
    tasks = list(plan.tasks)
    level = plan.arm_summary.level
    tag = "ci" + iv.level_tag(level)
    B, seed = plan.resamples, plan.rng_seed
    mats = {}
    for arm in arms:
        units = [data.units[(arm, s)] for s in data.seeds_of(arm)]
        units = [u for u in units if all(t in u.task_metrics for t in tasks)]
        if len(units) < 1:
            warnings.append(f"rliable.{arm}: no run has scores for every planned task; skipped")
            continue
        mats[arm] = (np.asarray([[u.task_metrics[t] for t in tasks] for u in units]), [u.input_id for u in units])
    for arm, (mat, ins) in mats.items():
        dists = None
        for agg in rliable.AGGREGATES:
            vid = f"rliable.{arm}.{agg}"
            prm = {"tasks": tasks, "runs": int(mat.shape[0]), "gamma": 1.0 if agg == "optimality_gap" else None}
            V.add(vid, float(rliable.aggregate(mat, agg)), f"rliable {agg} over (runs x tasks)",
                  "fraction" if metric_unit(plan.primary_metric) == "fraction" else "other", params=prm, inputs=ins)
            if dists is None:
                stream = f"rliable.{arm}.stratified_bootstrap"
                res = rliable.stratified_resample(mat, B, iv.rs.generator(seed, stream))
                dists = {g: rliable.aggregate(res, g) for g in rliable.AGGREGATES}
            lo, hi = rliable.percentile_interval(dists[agg], level)
            for end, val in (("low", lo), ("high", hi)):
                V.add(f"{vid}.{tag}.{end}", val, "stratified bootstrap percentile interval", V.v[vid]["unit"],
                      params={**prm, "level": level, "resamples": B, "stream": f"rliable.{arm}.stratified_bootstrap"},
                      inputs=ins, random=True)
    if base in mats:
        for arm in arms:
            if arm == base or arm not in mats:
                continue
            x, xin = mats[arm]
            y, yin = mats[base]
            vid = f"rliable.{arm}-{base}.prob_improvement"
            prm = {"tasks": tasks, "arm": arm, "baseline": base}
            V.add(vid, float(rliable.probability_of_improvement(x, y)), "P(arm > baseline) averaged over tasks",
                  "probability", params=prm, inputs=xin + yin)
            stream = f"{vid}.stratified_bootstrap"
            g = iv.rs.generator(seed, stream)
            dist = rliable.probability_of_improvement(rliable.stratified_resample(x, B, g),
                                                      rliable.stratified_resample(y, B, g))
            lo, hi = rliable.percentile_interval(dist, level)
            for end, val in (("low", lo), ("high", hi)):
                V.add(f"{vid}.{tag}.{end}", val, "stratified bootstrap percentile interval", "probability",
                      params={**prm, "level": level, "resamples": B, "stream": stream}, inputs=xin + yin, random=True)


# ----------------------------------------------------------------------------- top level
EXPLORATORY_STUDY = "exploratory study (evidence_class exploratory): no confirmatory claim"
EXPLORATORY_CONTRAST = "exploratory contrast (declared confirmatory: false): outside the multiplicity family"


def _cross_session(data: Data, cds: list[ContrastDecl], declared=()) -> dict[str, str]:
    """Contrast id -> the deviation text for contrasts whose arms share no session, or (when the plan
    declares sessions) that are formed in a session it does not declare (added to deviations)."""
    data.deviations.extend(sessions.declaration_deviations(declared, data.sessions))
    out = {}
    for c in cds:
        _va, _vb, info = _session_views(data, c.arm, c.baseline)
        if declared and info.session is not None and info.session not in declared:
            out[c.id] = (f"contrast {c.id} is formed in session {info.session!r}, which the plan does not declare "
                         f"({', '.join(map(repr, declared))}): its evidence comes from an unregistered evaluation")
        elif info.cross is not None:
            sa, sb = info.cross
            out[c.id] = (f"contrast {c.id} compares {c.arm} evaluated in session {sa!r} with {c.baseline} evaluated "
                         f"in session {sb!r}: no session has both, so evaluation-batch differences are confounded "
                         "with the arm difference")
            data.deviations.append({"kind": "cross_session_contrast", "detail": out[c.id], "contrast": c.id,
                                    "sessions": [sa, sb]})
    return out


def _study_values(V: Values, study: Study, data: Data) -> None:
    seal_all = [u.input_id for u in data.units.values()]
    V.add("study.n_seeds", len({s for (_, s) in data.units if s is not None}),
          "distinct registered seeds with an included run", "seeds", inputs=seal_all)
    V.add("study.n_runs", len(data.units), "included runs", "count", inputs=seal_all)
    n_reg = sum(1 if arm.decl.evaluated_once else len(study.seeds) for arm in study.arms.values())
    V.add("study.n_registered_units", n_reg, "registered evaluations: (arm, seed) units, one per once-evaluated "
          "reference arm", "count")
    V.add("study.n_excluded", len(data.excluded), "runs found but excluded", "count")
    V.add("study.n_deviations", len(data.deviations), "deviations from the plan", "count")


def _adjust(V: Values, plan: AnalysisPlan, facts: dict[str, designs.ContrastBlock], warnings: list[str]) -> None:
    """Multiplicity over the declared family (README failure 9); sets each block's ``reject``."""
    mp = plan.multiplicity
    adj = mult.apply_family({c: f.p for c, f in facts.items()}, list(mp.family), mp.method, mp.alpha)
    for fam_c in mp.family:
        if fam_c not in facts:
            warnings.append(f"multiplicity family member {fam_c!r} is not a contrast of this plan; counted with p = 1")
    for c, f in facts.items():
        a = adj[c]
        ins = V.v[f"contrasts.{c}.p"]["inputs"]
        prm = {"method": a.method, "alpha": a.alpha, "family": list(a.family), "test": plan.test}
        note = "contrast not in the declared family: unadjusted" if a.method == "none" and mp.method != "none" else None
        if a.missing:
            note = "p undefined; counted with p = 1 in the family"
        V.add(f"contrasts.{c}.p_adjusted", a.p_adjusted if not a.missing else None,
              f"{a.method} adjusted p-value over the declared family", "probability", params=prm,
              inputs=[i for o in a.family if o in facts for i in V.v[f"contrasts.{o}.p"]["inputs"]] or ins,
              note=note)
        V.add(f"contrasts.{c}.reject", a.reject, f"{a.method} adjusted p < alpha", "other", params=prm,
              inputs=ins, note=note)
        facts[c] = replace(f, reject=a.reject)
        if a.method != "none" and f.diffs is not None:
            _simultaneous(V, c, f.diffs, a, ins)


def _simultaneous(V: Values, c: str, d, a: mult.Adjusted, ins) -> None:
    """Bonferroni simultaneous t interval (level 1 - alpha/m) of a family contrast, next to its adjusted p.

    Together the m intervals cover all family contrasts at 1 - alpha; reported beside Holm/BH/Bonferroni
    adjusted p-values so the verdict's unadjusted intervals are not read as family-wise statements.
    """
    m = len(a.family)
    level = 1 - a.alpha / m
    r = iv.compute(np.asarray(d, dtype=float), "mean", "t", [level], resamples=0, rng_seed=None,
                   stream=f"contrasts.{c}.ci_simultaneous")[level] if len(d) else None
    prm = {"method": "bonferroni simultaneous t", "level": level, "family": list(a.family), "alpha": a.alpha,
           "adjusted_p_method": a.method}
    for end in ("low", "high"):
        V.add(f"contrasts.{c}.ci_simultaneous.{end}", None if r is None else getattr(r, end),
              f"simultaneous (Bonferroni, level 1 - alpha/{m}) t interval of the mean paired difference", "difference",
              params=prm, inputs=ins, note="no paired seeds: undefined" if r is None else r.note)


def _favours(f: designs.ContrastBlock, decl) -> dict | None:
    """Which side the first planned interval favours, by the metric's declared direction: the
    arm or the baseline when the interval excludes 0, else neither (for claims in words)."""
    if decl is None or not f.intervals:
        return None
    level, (lo, hi) = next(iter(f.intervals.items()))
    if lo is None or hi is None:
        side = None
    elif lo > 0:
        side = "arm" if decl.higher_is_better else "baseline"
    elif hi < 0:
        side = "baseline" if decl.higher_is_better else "arm"
    else:
        side = "neither"
    return {"side": side, "level": level, "higher_is_better": decl.higher_is_better}


def _label(res: dict, c: ContrastDecl, f: designs.ContrastBlock, exploratory_study: bool, cross: dict[str, str], decl=None) -> dict:
    """Verdict entry with its design, its scope (exploratory study or contrast), any session
    deviation, and the side its interval favours under the metric's declared direction."""
    fav = _favours(f, decl)
    if fav is not None:
        res["favours"] = fav
    d = f.design
    if d is not None:
        res["design"] = {"kind": d.kind, "unit": d.unit, "planned_unit": d.planned_unit}
        if d.note:
            res["design"]["note"] = d.note
    if exploratory_study or not c.confirmatory:
        res["confirmatory"] = False
        res["scope"] = EXPLORATORY_STUDY if exploratory_study else EXPLORATORY_CONTRAST
    if c.id in cross:
        res["deviation"] = cross[c.id]
    if c.sign != "arm_minus_baseline":
        res["reported_sign"] = c.sign
    return res


def _hypothesis_verdicts(study: Study, cds: list[ContrastDecl], verdicts: dict) -> dict:
    metric = study.analysis.primary_metric
    by_h = {c.hypothesis: c.id for c in cds if c.hypothesis}
    ids = {c.id for c in cds}
    out = {}
    for h in study.hypotheses:
        c = by_h.get(h.id, f"{h.arm}-{h.baseline}")
        sec = verdicts.get("secondary", {}).get(f"{c}.{h.metric}")
        if h.metric != metric and sec is not None:
            out[h.id] = {
                "contrast": c, "metric": h.metric, "verdict": sec["verdict"], "confirmatory": False,
                "scope": SECONDARY_SCOPE, "source": f"verdicts.secondary.{c}.{h.metric}",
                "note": "secondary metric: the plan's verdict rules applied as written, with multiplicity_rejects "
                        "decided by the unadjusted planned-test p < alpha (the declared family adjusts only the "
                        "primary metric); not a confirmatory verdict"}
            continue
        if h.metric != metric or c not in ids:
            out[h.id] = {"contrast": c, "verdict": None,
                            "note": f"hypothesis compares {c}, which is not a contrast of the plan (not declared in "
                                    "analysis.contrasts.pairs, nor an arm against the single baseline); no verdict"}
            continue
        cv = verdicts["contrasts"].get(c, {})
        out[h.id] = {"contrast": c, "verdict": cv.get("verdict")}
        if cv.get("confirmatory") is False:
            out[h.id].update(confirmatory=False, scope=cv["scope"])
    return out


def one_seed_warning(study: Study) -> list[str]:
    """The analysis' warning for a plan with one registered seed at unit 'seed' (the schema allows it):
    every seed-level SD, interval and t test is null, which the values' notes say one by one; this
    says it once, at ``seeds``, as ``prereg lint``'s contrast-plan finding does before the runs."""
    if study.analysis.unit != "seed" or len(study.seeds) >= 2:  # study.seeds: prereg.rules.study_seeds
        return []
    return ["seeds: 1 registered seed with analysis.unit 'seed': no seed-level SD, interval or t test is defined "
            "(those values are null), so no verdict rule on them can hold"]


def build(lock: Lock, data: Data, lock_path: str | Path, *, validate: bool = True) -> dict:
    """Every value, verdict and deviation of the locked plan over the loaded data; checked
    against the analysis schema unless ``validate`` is False (the audit's recomputation, which
    compares it value by value with a file it has validated)."""
    study = lock.study
    plan = study.analysis
    V = Values(plan.rng_seed)
    warnings: list[str] = one_seed_warning(study)
    arms = list(study.arms)
    cds = list(study.contrasts)
    exploratory = study.evidence_class == "exploratory"
    cross = _cross_session(data, cds, tuple(study.sessions))
    _study_values(V, study, data)
    for arm in arms:
        _arm_values(V, plan, data, arm, warnings)
    where = _session_arm_values(V, plan, data, warnings)
    facts = {c.id: _contrast_values(V, study, data, c, warnings) for c in cds}
    if plan.sequential:  # stage-wise p and intervals replace the fixed-design ones (README failure 19)
        from stats import seqvalues

        seqvalues.apply(V, lock, data, facts, warnings)
    _adjust(V, plan, facts, warnings)
    for c in cds:
        if c.sign == "baseline_minus_arm":
            _reported(V, plan, c)
    sec_facts: dict[tuple[str, str], designs.ContrastBlock] = {}
    for m in _secondary_metrics(study):  # same block, outside the confirmatory family (unadjusted p)
        for c in cds:
            f = _contrast_values(V, study, data, c, warnings, m)
            sec_facts[(c.id, m)] = replace(f, reject=f.p is not None and f.p < plan.multiplicity.alpha,
                                           reject_basis="unadjusted")
    by_id = {c.id: c for c in cds}
    verdicts: dict = {"contrasts": {}, "study": {}}
    for cid, f in facts.items():
        res = _verdict(plan, f.facts(plan.multiplicity.alpha))
        res["estimable"] = f.n >= 2
        verdicts["contrasts"][cid] = _label(res, by_id[cid], f, exploratory, cross,
                                            data.decls.get(plan.primary_metric))
    if sec_facts:
        verdicts["secondary"] = {}
        for (cid, m), f in sec_facts.items():
            res = _verdict(plan, f.facts(plan.multiplicity.alpha))
            res.update({"contrast": cid, "metric": m, "estimable": f.n >= 2, "confirmatory": False,
                        "scope": SECONDARY_SCOPE})
            res = _label(res, by_id[cid], f, exploratory, cross, data.decls.get(m))
            res["confirmatory"] = False
            verdicts["secondary"][f"{cid}.{m}"] = res
    verdicts["hypotheses"] = _hypothesis_verdicts(study, cds, verdicts)
    kinds = sorted({d["kind"] for d in data.deviations})
    verdicts["study"] = {"verdict": "DEVIATION" if data.deviations else "AS_PLANNED", "deviation_kinds": kinds,
                         "n_deviations": len(data.deviations), "evidence_class": study.evidence_class}
    if exploratory:
        verdicts["study"].update(confirmatory=False, scope=EXPLORATORY_STUDY)
    if plan.tasks:
        _rliable_values(V, plan, data, arms, default_baseline(study.raw), warnings)
    _mark_exploratory(V, cds, exploratory)
    out = _document(lock, lock_path, data, V, verdicts, warnings, facts, cds)
    if where:
        out["session_arms"] = where
    if validate:
        require_valid(out, "analysis", "analysis output")
    return out


def _reported(V: Values, plan: AnalysisPlan, c: ContrastDecl) -> None:
    """The contrast in its declared reporting sign (baseline - arm): ``contrasts.<id>.reported.*``,
    so a report quoting it that way traces to analysis.json instead of being flagged or hand-negated."""
    pre = f"contrasts.{c.id}"
    rec = V.v.get(f"{pre}.diff_mean")
    if rec is None:
        return
    prm = {"arm": c.arm, "baseline": c.baseline, "sign": "baseline_minus_arm", "from": f"{pre}.diff_mean"}
    V.add(f"{pre}.reported.diff_mean", None if rec["value"] is None else -rec["value"],
          "declared reporting sign: baseline - arm (negated diff_mean)", "difference", params=prm,
          inputs=rec["inputs"], note=rec.get("note"))
    for tag in interval_tags(plan.intervals):
        lo, hi = V.v.get(f"{pre}.{tag}.low"), V.v.get(f"{pre}.{tag}.high")
        if lo is None or hi is None:
            continue
        for end, src in (("low", hi), ("high", lo)):
            V.add(f"{pre}.reported.{tag}.{end}", None if src["value"] is None else -src["value"],
                  "declared reporting sign: baseline - arm (negated interval)", "difference",
                  params={**prm, "from": f"{pre}.{tag}.{'high' if end == 'low' else 'low'}"},
                  inputs=src["inputs"], note=src.get("note"))


def _mark_exploratory(V: Values, cds: list[ContrastDecl], study: bool) -> None:
    """``params.evidence_class: exploratory`` on every value of an exploratory study or contrast,
    so the audit requires the label wherever the report quotes one (audit check 11)."""
    prefixes = tuple(f"contrasts.{c.id}." for c in cds if not c.confirmatory)
    for vid, rec in V.v.items():
        if study or (prefixes and vid.startswith(prefixes)):
            rec["params"]["evidence_class"] = "exploratory"


def _document(lock, lock_path, data: Data, V, verdicts, warnings, facts, cds) -> dict:
    study = lock.study
    runs = [{"arm": u.arm, "seed": u.seed, "seal": u.seal if data.source == "runs" else None, "path": u.path,
             "fingerprint": u.fingerprint, **({"session": u.session} if u.session is not None else {})}
            for _, view in data.sessions.items() for u in view.values()]
    inputs = {"root": data.origin, "runs": runs, "excluded": data.excluded}
    if data.table:
        inputs["table"] = data.table
    out = {
        "analysis_format": ANALYSIS_FORMAT,
        "study_id": lock.study_id,
        "lock": {"hash": lock.hash, "version": lock.version, "path": str(lock_path), "locked_at": lock.locked_at},
        "source": data.source,
        "evidence_class": study.evidence_class,
        "plan": study.raw["analysis"],
        "arms": list(study.arms),
        "baseline": default_baseline(study.raw),
        "contrasts": list(facts),
        "contrast_designs": {c.id: _design_doc(c, facts[c.id]) for c in cds},
        "metric_units": {m: metric_unit(m, data.decls) for m in study.analysis.metrics
                         + tuple(x for x in _secondary_metrics(study) if x not in study.analysis.metrics)},
        "inputs": inputs,
        "values": V.v,
        "verdicts": verdicts,
        "deviations": data.deviations,
        "warnings": warnings,
        "generator": {"package": "rlprereg.stats", "sig_digits": SIG_DIGITS,
                      "rng": "numpy PCG64(SeedSequence([rng_seed, *sha256(stream)[:16] as 4 little-endian u32]))"},
    }
    if data.named_sessions:
        out["sessions"] = [s for s in data.sessions if s is not None]
    if lock.study.sessions:   # the declared labels, for readers of analysis.json (render, the audit)
        out["session_labels"] = {d.name: list(d.labels) for d in lock.study.sessions.values()}
    return out


def _design_doc(c: ContrastDecl, f: designs.ContrastBlock) -> dict:
    d = f.design
    doc = {"arm": c.arm, "baseline": c.baseline, "design": d.kind, "unit": d.unit, "planned_unit": d.planned_unit,
           "method": d.describe(), "confirmatory": c.confirmatory, "in_family": c.in_family, "sign": c.sign,
           "hypothesis": c.hypothesis, **{k: v for k, v in f.session.params().items() if k in ("session", "sessions")}}
    if d.note:
        doc["note"] = d.note
    return doc


# first segments of the primary contrast ids: a secondary metric named like one would collide
_CONTRAST_TAILS = {"n_pairs", "diff_mean", "diff_sd", "effect_size_dz", "hedges_g", "noninferiority_p", "tests", "p",
                   "p_adjusted", "reject", "mde", "ci_simultaneous",
                   "mde_d", "mde_pilot", "mde_independent", "power_achieved", "power_achieved_independent", "tost_p",
                   "tost_equivalent", "item"}


def _secondary_metrics(study: Study) -> list[str]:
    out = secondary_contrast_metrics(study)
    for m in out:
        if not re.fullmatch(r"[A-Za-z0-9_]+", m) or m in _CONTRAST_TAILS or re.fullmatch(r"h?ci\d.*", m):
            where = ("$.analysis.secondary_metrics" if m in study.analysis.secondary_metrics
                     else "$.hypotheses[].metric")
            raise UserError(f"{where}: metric name {m!r} cannot name contrast values "
                            "(letters, digits and '_' only, not a contrast value name such as 'p' or 'tests')")
    return out


def _verdict(plan: AnalysisPlan, facts) -> dict:
    from prereg.verdicts import evaluate

    return evaluate(list(plan.verdicts), facts)


def analyze(lock_path: str | Path, runs_path: str | Path, *, require_signature: bool = False,
            log_look: bool = True, files=None, validate: bool = True) -> dict:
    """Verify the lock, read runs (folder) or an imported table, and execute the plan.

    A sequential study analysed before its final look is a look: it goes on the study's looks
    log (README failure 19) unless ``log_look`` is False (the audit's recomputation only).
    ``files`` (a :class:`prereg.runfiles.RunFiles`) shares the manifests and digests the caller
    has read; ``validate`` as in :func:`build`.
    """
    lock = verify_lock(lock_path, require_signature=require_signature)
    data = load(lock, runs_path, files)
    if not data.units:
        raise UserError(f"{runs_path}: no confirmatory run of lock {lock.hash[:12]} to analyse "
                        f"({len(data.excluded)} excluded)")
    if log_look:
        from stats.interim import log_early_analysis

        log_early_analysis(lock, runs_path, data)
    if lock.study.analysis.sequential and data.source == "runs":
        from stats.interim import drop_unasked_seeds

        drop_unasked_seeds(lock, runs_path, data)
    return build(lock, data, lock_path, validate=validate)


def dumps(analysis: dict) -> str:
    """The byte-stable text of an analysis: sorted keys, 2-space indent, floats as repr of 12-digit values."""
    return dumps_pretty(analysis)


def write(analysis: dict, out: str | Path, *, overwrite: bool = False) -> Path:
    return write_atomic(out, dumps(analysis), overwrite=overwrite)
