"""How a contrast is analysed: its design (from the arms' declarations and the data) and its
inferential unit (``analysis.unit``), and the contrast block for item-level units.

Designs (README failure 16):

- ``seed_paired``: both arms evaluated per seed on shared seeds (trained arms, or a
  reference evaluated per seed). ``unit: seed`` is the per-seed paired analysis
  (``stats.analyze``); ``item`` and ``seed_item`` use the blocks here.
- ``reference_once``: one side is a reference evaluated once (a base model, an SFT
  checkpoint). There are no seed pairs: the per-seed item-paired differences
  ``D[s, i] = arm[s, i] - reference[i]`` are combined across seeds with the *crossed*
  (seed x item) bootstrap — seeds resampled, one item resample shared by every drawn seed
  and by the reference — so the reference's item-level uncertainty is kept (it is the
  same draw of items), and with ``unit: item`` items alone are resampled (seeds fixed).
  ``unit: seed`` is impossible here and is analysed as ``seed_item``, stated in
  ``analysis.json``. Copying the reference's one evaluation to every seed and running
  the seed-paired analysis (the workaround this replaces) gives a zero-width interval.
- ``single_evaluations``: both sides evaluated once: item-paired, ``unit: item``.

Every interval, test and the verdict of a contrast read the planned unit's block.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats as _st

from prereg import power as pw
from prereg.study import AnalysisPlan, IntervalSpec, Power
from stats import intervals as iv
from stats import items as it
from stats import resample as rs
from stats import tests as ht

UNITS = ("seed", "item", "seed_item")


@dataclass(frozen=True)
class Design:
    """What a contrast is: ``kind`` (seed_paired | reference_once | single_evaluations), the
    unit it is analysed at, the planned unit, and why they differ (``note``)."""

    kind: str
    unit: str
    planned_unit: str
    note: str | None = None

    def describe(self) -> str:
        return METHOD_TEXT[(self.kind, self.unit)]


@dataclass(frozen=True)
class SessionFacts:
    """The evaluation session(s) a contrast is formed in (README failure 16): the first session both
    arms were evaluated in, or, when they share none, each arm's own (a cross-session contrast, a
    deviation its verdict states)."""

    session: str | None = None               # the shared session (None: the data name no session)
    other_shared: tuple = ()                 # further sessions both arms were evaluated in
    cross: tuple | None = None               # (arm's session, baseline's session) when they share none

    def params(self) -> dict:
        """The session fields as the contrast's value params and ``contrast_designs`` record them.

        Example:
            >>> SessionFacts(cross=("s1", "s2")).params()
            {'sessions': ['s1', 's2'], 'cross_session': True}
        """
        if self.cross is not None:
            return {"sessions": list(self.cross), "cross_session": True}
        out = {} if self.session is None else {"session": self.session}
        if self.other_shared:
            out["other_shared_sessions"] = list(self.other_shared)
        return out


@dataclass(frozen=True)
class ContrastBlock:
    """What one contrast's value block hands on: to multiplicity (``p``), the verdict rules
    (:meth:`facts`) and analysis.json's ``contrast_designs`` (``design``, ``session``).

    The values themselves are in the analysis' value table; this is the part later steps decide
    with, typed so that a step reads a named field (``block.p``) rather than a key. Multiplicity and
    the sequential block replace fields with :func:`dataclasses.replace` (``reject``, ``p``,
    ``intervals``)."""

    p: float | None                     # the planned test's p (stage-wise p for a sequential contrast)
    intervals: Mapping[float, tuple]    # level -> (low, high) of the first planned interval method at that level
    n: int                              # pairs (seeds) or items analysed
    p_note: str | None = None           # why p is undefined
    mde: float | None = None
    mde_note: str | None = None
    tost_p: float | None = None
    margin: float | None = None         # the equivalence margin in the metric's units
    margin_note: str | None = None      # why no margin applies
    noninferiority_p: float | None = None
    published: float | None = None      # the plan's published effect of this contrast, if any
    design: Design | None = None
    session: SessionFacts = SessionFacts()  # the evaluation session(s) the contrast is formed in
    diffs: np.ndarray | None = None     # per-seed paired differences (seed unit only)
    reject: bool | None = None          # set by multiplicity (or the unadjusted p of a secondary metric)
    reject_basis: str | None = None     # "unadjusted": a secondary metric outside the family

    def facts(self, alpha: float):
        """What the plan's verdict rules look at (:class:`prereg.verdicts.ContrastFacts`)."""
        from prereg.verdicts import ContrastFacts

        return ContrastFacts(intervals=self.intervals, p=self.p, reject=self.reject, mde=self.mde,
                             tost_p=self.tost_p, margin=self.margin, alpha=alpha, published_effect=self.published,
                             mde_note=self.mde_note, p_note=self.p_note, reject_basis=self.reject_basis,
                             margin_note=self.margin_note, noninferiority_p=self.noninferiority_p)


METHOD_TEXT = {
    ("seed_paired", "seed"): "per-seed paired differences (arm - baseline) over shared seeds; seeds are the unit",
    ("seed_paired", "item"): "per-item differences averaged over shared seeds; items are the unit (seeds fixed)",
    ("seed_paired", "seed_item"): "crossed (seed x item) bootstrap of the paired differences: seeds resampled, one "
                                  "item resample shared by all drawn seeds; t intervals use its closed-form variance",
    ("reference_once", "seed_item"): "per-seed item-paired differences against the reference's one evaluation, "
                                     "combined across seeds by the crossed (seed x item) bootstrap: seeds resampled, "
                                     "one item resample shared by every drawn seed and the reference, so the "
                                     "reference's item-level uncertainty is kept; t intervals use the closed-form "
                                     "crossed variance with G-1 df",
    ("reference_once", "item"): "per-item differences (arm averaged over its seeds, minus the reference) with items "
                                "as the unit (seeds fixed)",
    ("single_evaluations", "item"): "item-paired differences of two single evaluations; items are the unit",
}


def choose(seeds_a: list, seeds_b: list, planned_unit: str) -> Design:
    """The design of a contrast from the seeds each side has (``[None]``: evaluated once).

    Args:
        seeds_a: seeds of the arm in the contrast's session(s).
        seeds_b: seeds of the baseline.
        planned_unit: ``analysis.unit``.

    Returns:
        A ``Design``.

    Example:
        >>> choose([1, 2, 3], [None], "seed").unit
        'seed_item'
    """
    once_a, once_b = seeds_a == [None], seeds_b == [None]
    if once_a and once_b:
        note = None if planned_unit == "item" else (
            f"planned unit {planned_unit!r}, but both sides were evaluated once: items are the only unit")
        return Design("single_evaluations", "item", planned_unit, note)
    if once_a or once_b:
        if planned_unit == "seed":
            return Design("reference_once", "seed_item", planned_unit,
                          "planned unit 'seed', but one side is a reference evaluated once, so there are no seed "
                          "pairs: analysed as seed_item (seeds and items resampled, the reference's item-level "
                          "uncertainty kept)")
        return Design("reference_once", planned_unit, planned_unit)
    return Design("seed_paired", planned_unit, planned_unit)


def difference_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(seeds x items) arm - baseline; a side evaluated once (one row) is broadcast over seeds.

    Args:
        a, b: per-item matrices (seeds x items), or one row for a side evaluated once.

    Returns:
        The difference matrix, rows = the seeds of the side that has them.

    Example:
        >>> difference_matrix([[1, 0], [1, 1]], [[0, 0]]).tolist()
        [[1.0, 0.0], [1.0, 1.0]]
    """
    a, b = np.atleast_2d(np.asarray(a, dtype=float)), np.atleast_2d(np.asarray(b, dtype=float))
    return a - b


def crossed_se(d: np.ndarray) -> float:
    """Standard error of the grand mean under crossed resampling (closed form, stats.items).

    Args:
        d: (seeds x items) differences.

    Returns:
        sqrt of ``stats.items.crossed_variance(d)``.

    Example:
        >>> round(crossed_se(np.array([[1.0, 0.0], [0.0, 0.0]])), 6)
        0.279508
    """
    return float(np.sqrt(it.crossed_variance(d)))


def _t_interval(theta: float, se: float, df: int, lv: float) -> tuple[float, float]:
    q = float(_st.t.ppf(0.5 + lv / 2, df))
    return theta - q * se, theta + q * se


def unit_intervals(d: np.ndarray, unit: str, specs: Sequence[IntervalSpec], *, resamples: int, rng_seed: int, pre: str
                   ) -> list[tuple[float | None, float | None, dict, str | None, bool]]:
    """One (low, high, params, note, random) per planned interval spec, at the contrast's unit.

    ``item``: the spec's method over the per-item differences (t: paired t over items, df
    M-1; bootstrap methods: that bootstrap over items). ``seed_item`` with G >= 2 seeds:
    ``t`` is the grand mean +- t(G-1) x closed-form crossed SE; every bootstrap method is
    the crossed bootstrap percentile. With one seed ``seed_item`` is ``item``.

    Args:
        d: (seeds x items) arm - baseline differences.
        unit: ``item`` or ``seed_item``.
        specs: the plan's interval specs (method, level).
        resamples, rng_seed: the plan's; pre: the contrast's id prefix (names the streams).

    Returns:
        One tuple per spec: (low, high, params, note, whether random draws were used).

    Example:
        ``unit_intervals(d, "seed_item", [{"method": "t", "level": 0.95}], resamples=2000, rng_seed=1, pre="c")``
    """
    g, m = d.shape
    per_item = d.mean(axis=0)
    out = []
    for spec in specs:
        meth, lv = spec.method, spec.level
        if unit == "item" or g == 1:
            use = "percentile" if meth == "hierarchical_bootstrap" else meth
            r = iv.compute(per_item, "mean", use, [lv], resamples=resamples, rng_seed=rng_seed,
                           stream=f"{pre}.items.{use}")[lv]
            note = r.note
            if use != meth:
                note = (note + "; " if note else "") + "items are the unit: one-level percentile bootstrap over items"
            if g == 1 and unit == "seed_item":
                note = (note + "; " if note else "") + "one seed: only items vary (seed_item reduces to item)"
            out.append((r.low, r.high, {**r.params, "unit_of_resampling": "items", "items": m}, note,
                        use != "t" and r.low is not None))
            continue
        theta = float(d.mean())
        if meth == "t":
            se = crossed_se(d)
            lo, hi = _t_interval(theta, se, g - 1, lv)
            out.append((lo, hi, {"se": se, "df": g - 1, "se_method": "closed-form crossed bootstrap variance",
                                 "seeds": g, "items": m}, None, False))
            continue
        stream = f"{pre}.crossed_bootstrap"
        dist = it.crossed_bootstrap(d, resamples, rs.generator(rng_seed, stream))
        lo, hi = np.quantile(dist, [(1 - lv) / 2, (1 + lv) / 2])
        note = None if meth in ("percentile", "paired_bootstrap", "hierarchical_bootstrap") else (
            f"{meth} is not defined for a crossed design: crossed bootstrap percentile interval")
        out.append((float(lo), float(hi), {"resamples": resamples, "stream": stream, "seeds": g, "items": m,
                                            "resampling": "seeds with replacement, one item resample shared"},
                    note, True))
    return out


def unit_test(d: np.ndarray, a: np.ndarray, b: np.ndarray, unit: str, test: str, alt: str, *, resamples: int,
              rng_seed: int, pre: str) -> ht.TestResult:
    """The planned test at the contrast's unit.

    ``item`` (or one seed): the planned test over per-item differences (welch_t: per-item
    arm means vs per-item baseline means). ``seed_item``: ``paired_t`` is the crossed t
    (grand mean / closed-form crossed SE, G-1 df); any other test is the crossed
    bootstrap p, ``2 min(#<=0 + 1, #>=0 + 1) / (B + 1)``.

    Args:
        d: (seeds x items) differences; a, b: the two sides' per-item matrices.
        unit: ``item`` or ``seed_item``; test: the planned test; alt: its alternative.
        resamples, rng_seed, pre: the draws and the stream prefix.

    Returns:
        A ``stats.tests.TestResult``.

    Example:
        ``unit_test(d, a, b, "item", "paired_t", "two-sided", resamples=2000, rng_seed=1, pre="c")``
    """
    g = d.shape[0]
    per_item = d.mean(axis=0)
    if unit == "item" or g == 1:
        if test == "paired_t":
            return ht.paired_t(per_item, alt)
        if test == "welch_t":
            return ht.welch_t(np.atleast_2d(a).mean(axis=0), np.atleast_2d(b).mean(axis=0), alt)
        if test in ("wilcoxon", "sign_flip"):
            fn = ht.wilcoxon if test == "wilcoxon" else ht.sign_flip
            return fn(per_item, alt, rng_seed=rng_seed, stream=f"{pre}.items.tests.{test}", resamples=resamples)
        stream = f"{pre}.items.tests.paired_bootstrap"
        dist = rs.bootstrap(per_item, "mean", resamples, rs.generator(rng_seed, stream))
        return ht.TestResult(ht.bootstrap_p(dist, alt) if np.ptp(per_item) > 0 else None, float(per_item.mean()),
                             "paired_bootstrap", {"n": int(per_item.size), "resamples": resamples, "stream": stream,
                                                  "unit_of_resampling": "items"}, None, rng_seed)
    theta = float(d.mean())
    if test == "paired_t":
        se = crossed_se(d)
        if se == 0:
            return ht.TestResult(None, None, "crossed_t", {"seeds": g}, "all differences equal: t undefined")
        t = theta / se
        df = g - 1
        p = {"two-sided": 2 * _st.t.sf(abs(t), df), "greater": _st.t.sf(t, df), "less": _st.t.cdf(t, df)}[alt]
        return ht.TestResult(float(p), float(t), "crossed_t", {"seeds": g, "items": int(d.shape[1]), "df": df,
                                                               "se": se, "alternative": alt}, None)
    stream = f"{pre}.tests.crossed_bootstrap"
    dist = it.crossed_bootstrap(d, resamples, rs.generator(rng_seed, stream))
    return ht.TestResult(ht.bootstrap_p(dist, alt), theta, "crossed_bootstrap",
                         {"seeds": g, "items": int(d.shape[1]), "resamples": resamples, "stream": stream,
                          "alternative": alt, "p_rule": "2*min((#<=0)+1, (#>=0)+1)/(B+1)"}, None, rng_seed)


def unit_mde(d: np.ndarray, unit: str, pplan: Power | None, alt: str) -> tuple[float | None, str | None]:
    """MDE in metric units at the item unit (paired over items); undefined for crossed designs.

    Args:
        d: (seeds x items) differences; unit: the analysed unit.
        pplan: ``analysis.power`` (or None); alt: the test's alternative.

    Returns:
        (MDE or None, why it is None).

    Example:
        ``unit_mde(d, "item", Power("exact_noncentral_t", 0.05, 0.8, None, None), "two-sided")``
    """
    if not pplan:
        return None, None
    per_item = d.mean(axis=0)
    if unit == "item" or d.shape[0] == 1:
        sd = float(np.std(per_item, ddof=1)) if per_item.size > 1 else 0.0
        if sd == 0:
            return None, "per-item differences have SD 0: MDE undefined"
        dz = pw.mde(1.0, per_item.size, pplan.alpha, pplan.target, alt, design="paired", method=pplan.method)
        return dz * sd, None
    return None, "MDE is not computed for the crossed (seed x item) design"


def _clean_sd(x: np.ndarray) -> float | None:
    if x.size < 2:
        return None
    return 0.0 if np.ptp(x) == 0 else float(np.std(x, ddof=1))


def add_unit_block(V, plan: AnalysisPlan, pre: str, bp: dict, d: np.ndarray, a: np.ndarray, b: np.ndarray, design: Design,
                   ins: list[str], margin: float | None, margin_note: str | None, tags: list[str]) -> dict:
    """Values ``{pre}.*`` of a contrast at the item or crossed unit; returns the verdict facts.

    The ids are those of the seed-level block (``n_pairs``, ``diff_mean``, ``ci95.low``,
    ``p``, ``tests.<test>.p``, ``mde``, ``tost_p``) so the verdict, the report and the audit
    read the planned unit's numbers; ``params.unit``/``params.design`` say which they are.

    Args:
        V: the analysis ``Values``.
        plan: the lock's analysis plan (``lock.study.analysis``).
        pre: value-id prefix of the contrast.
        bp: base params (design, unit, seeds, method text).
        d: (seeds x items) arm - baseline differences.
        a, b: the arm's and baseline's per-item matrices (one row for a side evaluated once).
        design: the contrast's ``Design``.
        ins: input seals.
        margin, margin_note: the equivalence margin that applies, or why none does.
        tags: value-id tags of the planned interval specs.

    Returns:
        The contrast's :class:`ContrastBlock`.

    Example:
        ``add_unit_block(V, plan, "contrasts.grpo-sft", bp, d, a, b, design, seals, 0.01, None, ["ci95"])``
    """
    g, m = d.shape
    unit = "item" if (design.unit == "item" or g == 1) else "seed_item"
    bp = {**bp, "seeds": g, "items": m, "analysed_unit": unit}
    n = _describe_unit_differences(V, pre, bp, d, unit, ins)
    ints = _unit_intervals_values(V, plan, pre, bp, d, unit, design, tags, ins)
    r = unit_test(d, a, b, unit, plan.test, plan.alternative, resamples=plan.resamples, rng_seed=plan.rng_seed,
                  pre=pre)
    for vid in (f"{pre}.tests.{plan.test}.p", f"{pre}.p"):
        V.add(vid, r.p, f"planned test ({plan.test}) at unit {unit}: {r.method}", "probability",
              params={**bp, **r.params, "test": plan.test}, inputs=ins, random=r.rng_seed is not None, note=r.note)
    mde, mde_note = unit_mde(d, unit, plan.power, plan.alternative)
    if plan.power:
        V.add(f"{pre}.mde", mde, f"minimum detectable effect at unit {unit}", "difference", params=bp, inputs=ins,
              note=mde_note)
    tost = None
    if margin is not None and unit == "item":
        tr = ht.tost_paired(d.mean(axis=0), margin)
        tost = tr.p
        V.add(f"{pre}.tost_p", tr.p, "TOST over items (two one-sided paired t tests)", "probability",
              params={**bp, **tr.params}, inputs=ins, note=tr.note)
    elif margin is not None or margin_note:
        V.add(f"{pre}.tost_p", None, "TOST", "probability", params=bp, inputs=ins,
              note=margin_note or "TOST is not defined for the crossed (seed x item) design")
    return ContrastBlock(p=r.p, p_note=r.note if r.p is None else None, mde_note=mde_note, intervals=ints, mde=mde,
                         tost_p=tost, margin=margin, n=n, margin_note=margin_note)


def _describe_unit_differences(V, pre: str, bp: dict, d: np.ndarray, unit: str, ins: list[str]) -> int:
    """Counts, mean, SD and standardized effect of the differences at the analysed unit; returns n units."""
    units_x = d.mean(axis=0) if unit == "item" else d.mean(axis=1)
    n = int(units_x.size)
    V.add(f"{pre}.n_pairs", n, "paired items (unit item)" if unit == "item" else "seeds crossed with shared items",
          "items" if unit == "item" else "seeds", params=bp, inputs=ins)
    V.add(f"{pre}.n_items", d.shape[1], "items shared by both sides", "items", params=bp, inputs=ins)
    V.add(f"{pre}.diff_mean", float(d.mean()), "mean over seeds and items of the item-paired difference "
          "(arm - baseline)", "difference", params=bp, inputs=ins)
    sd = _clean_sd(units_x)
    V.add(f"{pre}.diff_sd", sd, f"SD over {'items of per-item' if unit == 'item' else 'seeds of per-seed'} "
          "mean differences (ddof=1)", "difference", params=bp, inputs=ins,
          note=None if sd is not None else "fewer than two units: undefined")
    dz = float(d.mean()) / sd if sd else None
    V.add(f"{pre}.effect_size_dz", dz, "standardized effect: mean / SD of the unit's differences", "statistic",
          params=bp, inputs=ins, note=None if dz is not None else "SD zero or undefined: effect size undefined")
    return n


def _unit_intervals_values(V, plan: AnalysisPlan, pre: str, bp: dict, d: np.ndarray, unit: str, design: Design,
                           tags: list[str], ins: list[str]) -> dict:
    """The planned intervals at the analysed unit; returns {level: (low, high)}, first spec per level."""
    ints: dict = {}
    res = unit_intervals(d, unit, plan.intervals, resamples=plan.resamples, rng_seed=plan.rng_seed, pre=pre)
    for spec, tag, (lo, hi, prm, note, rnd) in zip(plan.intervals, tags, res, strict=True):
        for end, val in (("low", lo), ("high", hi)):
            V.add(f"{pre}.{tag}.{end}", val, f"{spec.method} interval at unit {unit} ({design.kind})",
                  "difference", params={**bp, **prm, "level": spec.level, "method": spec.method},
                  inputs=ins, random=rnd, note=note)
        ints.setdefault(spec.level, (lo, hi))
    return ints


def undefined_block(V, plan: AnalysisPlan, pre: str, bp: dict, ins: list[str], why: str, margin, margin_note, published,
                    design: Design, sess: dict) -> dict:
    """The contrast's headline values as null with the reason (no per-item data for an item unit).

    Args:
        V: the analysis ``Values``; plan, pre, bp, ins: as ``add_unit_block``.
        why: the note every null value carries.
        margin, margin_note, published, design, sess: carried into the facts.

    Returns:
        A :class:`ContrastBlock` with no intervals and no p (verdict rules on it are not met, saying why).

    Example:
        ``undefined_block(V, plan, "contrasts.grpo-sft", bp, seals, "needs per-item data", None, None, None, d, {})``
    """
    for vid, unit in (("n_pairs", "items"), ("diff_mean", "difference"), ("p", "probability")):
        V.add(f"{pre}.{vid}", None, f"{design.kind} at unit {design.unit}", unit, params=bp, inputs=ins, note=why)
    return ContrastBlock(p=None, p_note=why, mde_note=why, intervals={}, mde=None, tost_p=None, margin=margin, n=0,
                         margin_note=margin_note, published=published, design=design, session=sess)


FIXED_REFERENCE = Design("reference_once", "seed", "seed",
                         "per-seed values only (no per-item data): each seed's value minus the reference's one "
                         "value, seeds as the unit; the reference's evaluation is held fixed, so the estimand is the "
                         "difference from that evaluation on these items, not over new items")
METHOD_TEXT[("reference_once", "seed")] = (
    "one-sample analysis over seeds of (arm seed value - the reference's one value): the reference's sampling "
    "error is ignored, so intervals are for the difference from that evaluation on these items (covers its "
    "nominal rate for that estimand from 3 seeds; for the difference over new items it is the copied-seed "
    "interval, `stats coverage --reference`)")


def fixed_reference_diffs(ua: list, ub: list, metric: str) -> np.ndarray | None:
    """Per-seed differences against a side evaluated once, or None when that is not the data.

    Args:
        ua, ub: the arm's and the baseline's evaluations (one side a single unit with seed None).
        metric: the metric.

    Returns:
        ``arm_s - reference`` (or ``reference - baseline_s`` when the arm is the reference), one per seed.

    Example:
        ``fixed_reference_diffs(grpo_units, [base_unit], "solve_rate")``
    """
    once_a, once_b = [u.seed for u in ua] == [None], [u.seed for u in ub] == [None]
    if once_a == once_b or not ua or not ub:
        return None
    seeds, ref = (ub, ua[0]) if once_a else (ua, ub[0])
    vals = np.asarray([u.metrics[metric] for u in seeds], dtype=float)
    r = float(ref.metrics[metric])
    return r - vals if once_a else vals - r



def _fixed_reference_intervals(V, plan: AnalysisPlan, pre: str, bp: dict, x: np.ndarray, tags: list[str],
                               ins: list[str]) -> dict:
    """The planned intervals over the per-seed differences, the reference's value held fixed;
    returns {level: (low, high)}, first spec per level."""
    ints: dict = {}
    for spec, tag in zip(plan.intervals, tags, strict=True):
        r = iv.compute(x, "mean", spec.method, [spec.level], resamples=plan.resamples,
                       rng_seed=plan.rng_seed, stream=f"{pre}.fixed_reference.{spec.method}")[spec.level]
        for end in ("low", "high"):
            V.add(f"{pre}.{tag}.{end}", getattr(r, end), f"{spec.method} interval over seeds, reference held fixed",
                  "difference", params={**bp, **r.params, "level": spec.level, "method": spec.method},
                  inputs=ins, random=spec.method != "t" and r.low is not None, note=r.note)
        ints.setdefault(spec.level, (r.low, r.high))
    return ints

def fixed_reference_block(V, plan: AnalysisPlan, pre: str, bp: dict, x: np.ndarray, ins: list[str], margin,
                          margin_note, tags: list[str], warnings: list[str]) -> dict:
    """Values ``{pre}.*`` of a contrast against a reference evaluated once when only per-seed values
    exist and the plan's unit is ``seed``: the planned intervals and test over the per-seed
    differences with the reference's value held fixed (``FIXED_REFERENCE``); returns the verdict facts.

    Args:
        V, plan, pre, bp, ins, margin, margin_note, tags: as ``add_unit_block``.
        x: per-seed differences (``fixed_reference_diffs``).
        warnings: the analysis warnings (the estimand caveat is added once per contrast).

    Returns:
        The contrast's :class:`ContrastBlock`.

    Example:
        ``fixed_reference_block(V, plan, "contrasts.grpo-base", bp, x, seals, None, None, ["ci95"], warnings)``
    """
    alt, planned = plan.alternative, plan.test
    n = int(x.size)
    bp = {**bp, "design": "reference_once", "unit": "seed", "analysed_unit": "seed", "seeds": n,
          "method_text": FIXED_REFERENCE.describe(), "design_note": FIXED_REFERENCE.note,
          "reference_error": "ignored (the reference's one value is held fixed)"}
    V.add(f"{pre}.n_pairs", n, "seeds of the arm, each against the reference's one value", "seeds", params=bp,
          inputs=ins)
    V.add(f"{pre}.diff_mean", float(x.mean()) if n else None, "mean over seeds of (arm - reference's one value)",
          "difference", params=bp, inputs=ins)
    sd = _clean_sd(x)
    V.add(f"{pre}.diff_sd", sd, "SD over seeds of the differences (ddof=1)", "difference", params=bp, inputs=ins,
          note=None if sd is not None else "fewer than two seeds: undefined")
    ints = _fixed_reference_intervals(V, plan, pre, bp, x, tags, ins)
    test = planned if planned in ("paired_t", "wilcoxon", "sign_flip") else "paired_t"
    res = (ht.paired_t(x, alt) if test == "paired_t" else
           (ht.wilcoxon if test == "wilcoxon" else ht.sign_flip)(x, alt, rng_seed=plan.rng_seed,
                                                                 stream=f"{pre}.fixed_reference.tests.{test}",
                                                                 resamples=plan.resamples))
    tnote = None if test == planned else f"{planned} needs two samples: one-sample t over seeds instead"
    for vid in (f"{pre}.tests.{planned}.p", f"{pre}.p"):
        V.add(vid, res.p, f"{test} over seeds against the reference's one value", "probability",
              params={**bp, **res.params, "test": planned}, inputs=ins, random=res.rng_seed is not None,
              note="; ".join(t for t in (res.note, tnote) if t) or None)
    tost = None
    if margin is not None:
        tr = ht.tost_paired(x, margin)
        tost = tr.p
        V.add(f"{pre}.tost_p", tr.p, "TOST over seeds, reference held fixed", "probability",
              params={**bp, **tr.params}, inputs=ins, note=tr.note)
    w = (f"{pre}: per-seed values against a reference evaluated once: its one value is held fixed (its sampling "
         "error ignored), so the interval is for the difference from that evaluation on these items; it "
         "under-covers the difference over new items (`stats coverage --reference`, copied_seed_t); a per-item "
         "table or run folders give the crossed analysis instead")
    if w not in warnings:
        warnings.append(w)
    return ContrastBlock(p=res.p, p_note=res.note if res.p is None else None,
                         mde_note="MDE not computed for this design", intervals=ints, mde=None, tost_p=tost,
                         margin=margin, n=n, margin_note=margin_note, design=FIXED_REFERENCE)
