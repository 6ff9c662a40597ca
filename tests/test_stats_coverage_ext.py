"""The extended coverage table (issue 13 finding 2 and the table items): paired contrasts, 90% level,
medians, the clustered item-level study; the demo plans intervals that hold their level."""

from __future__ import annotations

import json
from pathlib import Path

from stats import coverage
from stats.cli import main

ROOT = Path(__file__).resolve().parents[1]
DEMO = json.loads((ROOT / "examples" / "demo.json").read_text())


def _cov(stat, level, dist, method, n):
    [r] = [r for r in coverage.load_table()["rows"] if r.get("stat") == stat and r.get("level") == level
           and r["dist"] == dist and r["method"] == method and r["n"] == n]
    return r["coverage"]


def test_percentile_contrast_interval_excludes_zero_too_often_at_8_seeds_t_does_not():
    """Finding 2: a 95% percentile interval of a null paired contrast excludes 0 in ~11% of studies at 8 seeds."""
    assert 1 - _cov("mean", 0.95, "paired_bounded", "percentile", 8) > 0.09
    assert abs(_cov("mean", 0.95, "paired_bounded", "t", 8) - 0.95) < 0.015
    assert 1 - _cov("mean", 0.9, "paired_bounded", "percentile", 3) > 0.3  # the 90% interval equivalence reads


def test_demo_plans_t_intervals_that_drive_its_verdicts():
    plan = DEMO["analysis"]
    assert plan["arm_summary"]["interval"] == "t"
    assert {s["method"] for s in plan["contrasts"]["intervals"]} == {"t"}
    n = len(DEMO["seeds"])
    for s in plan["contrasts"]["intervals"]:
        assert coverage.warning_for("t", n, s["level"], "heldout_accuracy", contrast=True) is None
        assert coverage.warning_for("percentile", n, s["level"], "heldout_accuracy", contrast=True) is not None


def test_shipped_table_has_every_extension():
    t = coverage.load_table()
    keys = {(r.get("stat"), r.get("level")) for r in t["rows"]}
    assert {("mean", 0.95), ("mean", 0.9), ("median", 0.95), ("median", 0.9)} <= keys
    assert {r["dist"] for r in t["rows"]} >= {"paired_bounded", "bounded", "normal", "lognormal"}
    clustered = {(r["method"], r["sigma"]): r["rejection_rate"] for r in t["clustered"]["rows"]}
    assert clustered[("mcnemar_pooled", 0.4)] > 0.3 and 0.04 <= clustered[("cluster_t", 0.4)] <= 0.06


def test_clustered_cli(tmp_path, capsys):
    js = tmp_path / "c.json"
    assert main(["coverage", "--clustered", "--reps", "40", "--resampled-reps", "3", "--resamples", "100",
                 "--json", str(js)]) == 0
    out = capsys.readouterr().out
    assert "| cluster_t (recommended) |" in out and "mcnemar_pooled" in out
    tab = json.loads(js.read_text())
    assert {r["reps"] for r in tab["rows"] if r["method"] == "cluster_t"} == {40}
    assert {r["reps"] for r in tab["rows"] if r["method"] == "crossed_bootstrap"} == {3}
    assert main(["coverage", "--clustered", "--json", str(js)]) == 2  # never overwrites
