"""Learning-curve metrics declared in the plan and read from sealed telemetry (issue 13: claims about
training dynamics preregistered, analysed and audited like any other metric)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from prereg.jsonio import read_jsonl
from prereg.schema import schema_errors
from stats import curves as cv
from stats.analyze import analyze
from stats.synthetic import make_campaign, small_prereg

ROOT = Path(__file__).resolve().parents[1]
E1 = json.loads((ROOT / "examples" / "e1.json").read_text())


def test_curve_values_by_hand():
    rows = [{"step": s, "reward_mean": v, "zvf": z} for s, v, z in [(1, 0.1, 0.5), (2, 0.3, 0.25), (4, 0.7, 0.0)]]
    # trapezoids: (0.1+0.3)/2*1 + (0.3+0.7)/2*2 = 1.2 over a span of 3
    assert cv.curve_value(rows, "curve_auc") == pytest.approx(0.4)
    assert cv.curve_value(rows, "curve_at_step", "zvf", step=2) == 0.25
    assert cv.curve_value(rows, "curve_at_step", "reward_mean", step=4, window=3) == pytest.approx(0.5)
    with pytest.raises(cv.CurveError, match="never reached step 5"):
        cv.curve_value(rows, "curve_at_step", step=5)
    with pytest.raises(cv.CurveError, match="no finite 'kl'"):
        cv.curve_value(rows, "curve_auc", "kl")


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    root = tmp_path_factory.mktemp("curves")
    pre = small_prereg(E1, heldout_n=40, steps=5, seeds=[1, 2, 3, 4])
    pre["analysis"]["resamples"] = 500
    pre["metrics"] = {"reward_auc": {"unit": "real", "kind": "curve_auc", "field": "reward_mean"},
                      "zvf_step3": {"unit": "fraction", "kind": "curve_at_step", "field": "zvf", "step": 3,
                                    "higher_is_better": False}}
    pre["analysis"]["primary_metric"] = "reward_auc"
    pre["analysis"]["secondary_metrics"] = ["zvf_step3"]
    pre["analysis"].pop("equivalence_margin")
    pre["analysis"]["verdicts"] = [v for v in pre["analysis"]["verdicts"]
                                   if not any(c["check"] in ("interval_within_margin", "mde_at_most_margin")
                                              for c in v["when"])]
    for h in pre["hypotheses"]:
        h["metric"] = "reward_auc"
    assert schema_errors(pre, "preregistration") == []
    c = make_campaign(root, pre, effects={"gspo": 0.3}, seed_sd=0.02)
    return c, pre, analyze(c.lock_path, c.runs_dir)


def test_curve_metric_is_read_from_each_runs_telemetry_and_analysed(campaign):
    c, pre, a = campaign
    d = []
    for s in pre["seeds"]:
        vals = {}
        for arm in ("gspo", "grpo"):
            rows = read_jsonl(c.runs_dir / pre["id"] / arm / f"s{s}" / "telemetry.jsonl")
            steps = np.array([r["step"] for r in rows], float)
            rew = np.array([r["reward_mean"] for r in rows], float)
            vals[arm] = np.trapezoid(rew, steps) / (steps[-1] - steps[0])
            assert a["values"][f"runs.{arm}.s{s}.reward_auc"]["value"] == pytest.approx(vals[arm], rel=1e-9)
            zvf3 = [r["zvf"] for r in rows if r["step"] == 3][0]
            assert a["values"][f"runs.{arm}.s{s}.zvf_step3"]["value"] == pytest.approx(zvf3)
        d.append(vals["gspo"] - vals["grpo"])
    assert a["values"]["contrasts.gspo-grpo.p"]["value"] == pytest.approx(stats.ttest_1samp(d, 0).pvalue, rel=1e-9)
    assert a["verdicts"]["contrasts"]["gspo-grpo"]["verdict"] is not None
    assert "contrasts.gspo-grpo.zvf_step3.p" in a["values"]  # secondary: the full contrast block


def test_tampered_telemetry_excludes_the_run(campaign, tmp_path):
    import shutil

    c, pre, _ = campaign
    dst = tmp_path / "c"
    shutil.copytree(c.lock_path.parents[1], dst)
    tel = dst / "runs" / pre["id"] / "gspo" / "s1" / "telemetry.jsonl"
    tel.write_text(tel.read_text().replace('"reward_mean": ', '"reward_mean": 1', 1))
    a = analyze(dst / "locks" / c.lock_path.name, dst / "runs")
    assert any("telemetry missing or does not match" in e["reason"] for e in a["inputs"]["excluded"])


def test_a_curve_metric_is_declared_once_with_its_defaults(campaign):
    from prereg.declarations import CurveSpec
    from prereg.study import study_of

    _c, pre, _a = campaign
    curves = cv.declared_curves(study_of(pre))
    assert list(curves) == ["reward_auc", "zvf_step3"]          # heldout_accuracy etc. are no curves
    assert curves["reward_auc"].curve == CurveSpec("reward_mean", None, 1)
    assert curves["zvf_step3"].curve == CurveSpec("zvf", 3, 1)
    rows = [{"step": 1, "zvf": 0.5}, {"step": 2, "zvf": 0.25}, {"step": 3, "zvf": 0.0}]
    assert cv.metric_value(rows, curves["zvf_step3"]) == 0.0
