"""Item-level inference that keeps the seed clustering (README failure 17; issue 13 findings 1 and 7)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from prereg.lock import build_lock, lock_filename
from stats import coverage_items as ci
from stats import items as it
from stats import resample as rs
from stats.analyze import analyze, write
from stats.cli import main
from stats.synthetic import small_prereg

ROOT = Path(__file__).resolve().parents[1]
E1 = json.loads((ROOT / "examples" / "e1.json").read_text())


def _diff(seed=3, g=8, m=60):
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.2, 0.8, m)
    shift = rng.normal(0, 0.08, (g, 1))
    a = rng.random((g, m)) < np.clip(p + shift, 0, 1)
    b = rng.random((g, m)) < p
    return a.astype(float) - b.astype(float)


def test_crossed_bootstrap_variance_matches_its_closed_form():
    d = _diff()
    dist = it.crossed_bootstrap(d, 40000, rs.generator(7, "crossed.variance"))
    assert dist.mean() == pytest.approx(d.mean(), abs=4 * np.sqrt(it.crossed_variance(d) / 40000))
    assert np.var(dist) == pytest.approx(it.crossed_variance(d), rel=0.03)  # MC s.e. of a variance ~0.7%


def test_crossed_variance_closed_form_by_enumeration():
    # 2 x 2: every (seed draw, item draw) enumerated exactly
    d = np.array([[1.0, 0.0], [-1.0, 1.0]])
    vals = []
    for s in [(0, 0), (0, 1), (1, 0), (1, 1)]:
        for i in [(0, 0), (0, 1), (1, 0), (1, 1)]:
            vals.append(d[np.ix_(s, i)].mean())
    assert it.crossed_variance(d) == pytest.approx(np.var(vals), rel=1e-12)


def test_crossed_differs_from_nested_when_items_are_shared():
    # A pure item effect shared by all seeds (no seed variation): the nested bootstrap misses the
    # item sampling's shared component (its items redrawn independently per seed average out),
    # the crossed one keeps it.
    rng = np.random.default_rng(0)
    item = rng.normal(0, 1, 200)
    d = np.tile(item, (8, 1)) + rng.normal(0, 0.01, (8, 200))
    crossed = np.var(it.crossed_bootstrap(d, 4000, rs.generator(1, "c")))
    nested = np.var(rs.hierarchical(d, 4000, rs.generator(1, "n"), engine="index")[0])
    assert crossed == pytest.approx(np.var(item) / 200, rel=0.1)
    assert nested < crossed / 4


def test_cluster_t_equals_statsmodels_cluster_robust_ols():
    import statsmodels.api as sm

    d = _diff(seed=5, g=6, m=40)
    groups = np.repeat(np.arange(d.shape[0]), d.shape[1])
    fit = sm.OLS(d.ravel(), np.ones(d.size)).fit(cov_type="cluster", cov_kwds={"groups": groups}, use_t=True)
    r = it.cluster_t(d)
    assert r.statistic == pytest.approx(float(fit.tvalues[0]), rel=1e-10)
    assert r.p == pytest.approx(float(fit.pvalues[0]), rel=1e-10)
    assert r.params["df"] == d.shape[0] - 1


def test_cluster_sign_flip_is_exact_enumeration_over_seeds():
    d = _diff(seed=2, g=6, m=30)
    r = it.cluster_sign_flip(d)
    assert r.params["n_sign_vectors"] == 64
    means = d.mean(axis=1)
    signs = np.array([[1 - 2 * ((k >> j) & 1) for j in range(6)] for k in range(64)])
    expect = np.mean(np.abs(signs @ means) >= abs(means.sum()) - 1e-12)
    assert r.p == pytest.approx(expect)


def test_clustered_null_pooled_mcnemar_over_rejects_cluster_t_holds():
    """Finding 1, CI size: 8 seeds x 500 shared items (benchmarks/clustered_null.py is the full run)."""
    t = ci.null_study(sigmas=(0.0, 0.4), reps=2000, methods=ci.ANALYTIC)
    rate = {(r["sigma"], r["method"]): r["rejection_rate"] for r in t["rows"]}
    for s in (0.0, 0.4):
        assert 0.04 <= rate[(s, "cluster_t")] <= 0.06, rate
        assert rate[(s, "cluster_sign_flip")] <= 0.06
    assert rate[(0.4, "mcnemar_pooled")] > 0.3  # pooling (seed, item) pairs: far above 0.05
    assert rate[(0.0, "mcnemar_pooled")] <= 0.06  # ... but fine when seeds do not differ


@pytest.mark.slow  # 150 studies x 400 resamples x 3 methods (~3 CPU-s); fast tier: the analytic null study
# above (pooling over-rejects, the clustered test holds) and the crossed bootstrap's closed-form variance
def test_clustered_null_pooled_bootstraps_over_reject_crossed_holds():
    t = ci.null_study(sigmas=(0.4,), reps=150, resamples=400,
                      methods=("item_bootstrap_pooled", "crossed_t", "crossed_bootstrap"))
    rate = {r["method"]: r["rejection_rate"] for r in t["rows"]}
    assert rate["item_bootstrap_pooled"] > 0.3
    assert rate["crossed_t"] <= 0.09  # 150 reps: MC s.e. ~0.018


def _item_lock(tmp_path, kind):
    pre = small_prereg(E1, heldout_n=40, steps=4, seeds=[1, 2, 3, 4, 5, 6])
    pre["analysis"]["contrasts"]["item_level"] = kind
    pre["analysis"]["resamples"] = 500
    lock = build_lock(pre)
    path = tmp_path / "locks" / lock_filename(pre["id"], 1)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(lock))
    rng = np.random.default_rng(4)
    lines = []
    for arm in pre["arms"]:
        for s in pre["seeds"]:
            shift = rng.normal(0, 0.15) if arm == "gspo" else 0.0
            for i in range(40):
                lines.append(json.dumps({"arm": arm, "seed": s, "item": f"q{i}",
                                         "outcome": int(rng.random() < 0.5 + shift)}))
    (tmp_path / "items.jsonl").write_text("\n".join(lines) + "\n")
    return path, tmp_path / "items.jsonl", pre


def test_pooled_mcnemar_carries_its_caveat_and_report_says_pairs(tmp_path):
    lock, table, pre = _item_lock(tmp_path, "mcnemar")
    a = analyze(lock, table)
    rec = a["values"]["contrasts.gspo-grpo.item.mcnemar.p"]
    assert "clustered by seed" in rec["note"] and "caveat" in rec["params"]
    assert any("item.mcnemar" not in w and "planned item-level mcnemar pools (seed, item) pairs" in w
               for w in a["warnings"])
    # the recommended test is there and is the paired t on per-seed item means
    from stats import tests as ht

    means = {}
    for line in table.read_text().splitlines():
        r = json.loads(line)
        means.setdefault((r["arm"], r["seed"]), []).append(r["outcome"])
    d = [np.mean(means[("gspo", s)]) - np.mean(means[("grpo", s)]) for s in pre["seeds"]]
    assert a["values"]["contrasts.gspo-grpo.item.cluster_t.p"]["value"] == pytest.approx(ht.paired_t(d).p, rel=1e-9)
    assert a["values"]["contrasts.gspo-grpo.item.n_items"]["value"] == 40
    apath = write(a, tmp_path / "report" / "analysis.json")
    assert main(["render", str(apath), "-o", str(tmp_path / "report"), "--no-figures"]) == 0
    md = (tmp_path / "report" / "report.md").read_text()
    assert "**Caveat:** pooled McNemar" in md
    assert "Item pairs (items)" not in md and "(seed, item) pairs (count)" in md


def test_crossed_bootstrap_plan_gives_intervals_without_caveat(tmp_path):
    lock, table, _ = _item_lock(tmp_path, "crossed_bootstrap")
    a = analyze(lock, table)
    lo = a["values"]["contrasts.gspo-grpo.item.crossed_t.ci95.low"]["value"]
    hi = a["values"]["contrasts.gspo-grpo.item.crossed_t.ci95.high"]["value"]
    mid = a["values"]["contrasts.gspo-grpo.item.diff_mean"]["value"]
    assert lo < mid < hi
    assert a["values"]["contrasts.gspo-grpo.item.crossed_bootstrap.ci90.low"]["value"] is not None
    assert not any("pools (seed, item) pairs" in w for w in a["warnings"])
    again = analyze(lock, table)  # seeded: byte-identical
    assert again["values"] == a["values"]
