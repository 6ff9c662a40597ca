"""Staged sequential studies on synthetic run records: interim records, the look gate, the looks log
and audit check 12 (README failure 19). The real-training version is tests/test_sequential_real.py."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import numpy as np
import pytest
from budget import examples

from prereg import looks as lk
from prereg.errors import Refusal, UserError
from prereg.jsonio import read_json, write_atomic
from prereg.study import study_of

ROOT = Path(__file__).resolve().parents[1]
SEEDS = [11, 23, 37, 41, 53, 67]


def seq_prereg(spending="pocock") -> dict:
    from stats.synthetic import small_prereg

    p = small_prereg(json.loads((ROOT / "examples" / "e1.json").read_text()), heldout_n=40, steps=4, seeds=SEEDS)
    p["id"] = "seqs"
    p["arms"] = {k: p["arms"][k] for k in ("grpo", "dr_grpo")}
    p["hypotheses"] = [h for h in p["hypotheses"] if h["arm"] == "dr_grpo"]
    p["analysis"]["multiplicity"]["family"] = ["dr_grpo-grpo"]
    p["analysis"]["power"].pop("pilot_sd", None)
    p["analysis"]["resamples"] = 200
    p["analysis"]["sequential"] = {"looks": [3, 6], "spending": spending, "calibration_draws": 20_000}
    return p


def _look1(tmp_path, effect):
    from stats.synthetic import make_campaign

    camp = make_campaign(tmp_path, seq_prereg(), effects={"dr_grpo": effect}, seeds=SEEDS[:3], rng_seed=3)
    return camp, read_json(camp.lock_path)


def _look2_runs(camp, lock, started_at=None, arms=None):
    from stats.synthetic import write_run

    p = lock["preregistration"]
    rng = np.random.default_rng(9)
    diff = np.clip(rng.beta(2, 2, size=p["dataset"]["heldout_n"]), 0, 1)
    t0 = started_at or dt.datetime.now(dt.timezone.utc) + dt.timedelta(seconds=2)
    for arm in arms or p["arms"]:
        for j, s in enumerate(SEEDS[3:]):
            write_run(p, lock, camp.runs_dir, arm, s, accuracy=0.5 + rng.normal(0, 0.03), difficulty=diff, rng=rng,
                      started_at=t0 + dt.timedelta(minutes=j), lock_path=str(camp.lock_path))


def _audit(camp, tmp_path, only=("3", "12")):
    from audit.engine import run_audit
    from stats.analyze import analyze, write

    report = tmp_path / "report"
    write(analyze(camp.lock_path, camp.runs_dir, log_look=False), report / "analysis.json", overwrite=True)
    res = run_audit(report, lock=camp.lock_path, runs=camp.runs_dir, only=list(only))
    return [f.message for f in res.findings]


def _reseal(camp, fn):
    """Edit the looks log and reseal every entry so the chain is intact again (a careful forger)."""
    path = lk.looks_dir(camp.runs_dir, "seqs") / lk.LOG
    entries = [json.loads(x) for x in path.read_text().splitlines()]
    entries = fn(entries)
    prev = None
    for i, e in enumerate(entries):
        e.update(index=i, prev=prev)
        e["seal"] = lk.seal_of(e)
        prev = e["seal"]
    write_atomic(path, "".join(json.dumps(e) + "\n" for e in entries))


@pytest.fixture
def continued(tmp_path):
    """Null effect: look 1 says continue, look 2 runs after the record."""
    from stats.interim import interim

    camp, lock = _look1(tmp_path, 0.0)
    with pytest.raises(Refusal, match="look 2 needs the interim record of look 1"):
        lk.look_units(study_of(lock["preregistration"]), lock["lock_hash"], camp.runs_dir, "seqs", 2, None, None)
    with pytest.raises(Refusal, match="run `stats interim`"):
        lk.gate(study_of(lock["preregistration"]), lock["lock_hash"], camp.runs_dir, "seqs", "dr_grpo", SEEDS[3])
    rec = interim(camp.lock_path, camp.runs_dir)
    assert rec["decision"] == "continue" and rec["contrasts"]["dr_grpo-grpo"]["decision"] == "continue"
    lk.gate(study_of(lock["preregistration"]), lock["lock_hash"], camp.runs_dir, "seqs", "dr_grpo", SEEDS[3])  # now allowed
    assert lk.look_units(study_of(lock["preregistration"]), lock["lock_hash"], camp.runs_dir, "seqs", 2, None, None) \
        == (list(lock["preregistration"]["arms"]), SEEDS)
    _look2_runs(camp, lock)
    return camp, lock, rec


def test_interim_record_is_sealed_and_matches_scipy(continued):
    from scipy import stats

    from stats.load import load
    camp, lock, rec = continued
    assert rec["seal"] == lk.seal_of(rec) and rec["prev"] is None and rec["seeds"] == SEEDS[:3]
    assert read_json(lk.looks_dir(camp.runs_dir, "seqs") / "look1.json") == rec
    from prereg.lock import verify_lock
    data = load(verify_lock(camp.lock_path), camp.runs_dir)
    x = [data.units[("dr_grpo", s)].metrics["heldout_accuracy"] for s in SEEDS[:3]]
    y = [data.units[("grpo", s)].metrics["heldout_accuracy"] for s in SEEDS[:3]]
    assert rec["contrasts"]["dr_grpo-grpo"]["t"] == pytest.approx(stats.ttest_rel(x, y).statistic, rel=1e-9)


def test_interim_refuses_the_final_look_and_fixed_designs(continued, tmp_path):
    from stats.interim import interim

    camp, _lock, _ = continued
    with pytest.raises(UserError, match="final look .* analysed by `stats analyze`"):
        interim(camp.lock_path, camp.runs_dir)
    with pytest.raises(UserError, match="--look 1: the next registered look is 2"):
        interim(camp.lock_path, camp.runs_dir, 1)


def test_clean_staged_study_audits_clean(continued, tmp_path):
    camp, _lock, _ = continued
    assert _audit(camp, tmp_path) == []


def test_audit_catches_a_look_taken_early(continued, tmp_path):
    camp, _, _ = continued

    def early(es):
        es[0].update(n_seeds=2, seeds=SEEDS[:2])
        return es
    _reseal(camp, early)
    assert any("look 1 taken at 2 seeds, not at its registered 3" in m for m in _audit(camp, tmp_path))


def test_audit_catches_an_extra_look(continued, tmp_path):
    camp, _, _ = continued
    _reseal(camp, lambda es: es + [dict(es[0])])
    assert any("extra look" in m for m in _audit(camp, tmp_path))


def test_audit_catches_a_decision_against_the_boundary(continued, tmp_path):
    camp, _, _ = continued

    def flip(es):
        es[0]["contrasts"]["dr_grpo-grpo"]["decision"] = "stop_futility"
        return es
    _reseal(camp, flip)
    msgs = _audit(camp, tmp_path)
    assert any("decision contradicts the registered boundary" in m for m in msgs)


def test_audit_catches_an_edited_log_and_an_edited_statistic(continued, tmp_path):
    camp, _, _ = continued
    path = lk.looks_dir(camp.runs_dir, "seqs") / lk.LOG
    good = path.read_text()
    path.write_text(good.replace('"decision":"continue"', '"decision":"stop"', 1))
    assert any("looks log chain broken" in m for m in _audit(camp, tmp_path))
    path.write_text(good)

    def fake_t(es):
        es[0]["contrasts"]["dr_grpo-grpo"]["t"] = 0.123
        return es
    _reseal(camp, fake_t)
    assert any("differs from its recomputation" in m for m in _audit(camp, tmp_path))


def test_early_analysis_is_logged_and_audited(tmp_path):
    from stats.analyze import analyze

    camp, _ = _look1(tmp_path, 0.0)
    analyze(camp.lock_path, camp.runs_dir)  # a peek at 3 seeds without `stats interim`
    entries = lk.read_log(camp.runs_dir, "seqs")
    assert [e["kind"] for e in entries] == ["analysis"]
    msgs = _audit(camp, tmp_path)
    assert any("outside the registered looks" in m for m in msgs)


def test_later_look_run_before_its_record_is_caught(tmp_path):
    from stats.interim import interim

    camp, lock = _look1(tmp_path, 0.0)
    _look2_runs(camp, lock, started_at=dt.datetime.now(dt.timezone.utc) - dt.timedelta(hours=1))
    msgs = _audit(camp, tmp_path)
    assert any("without the interim record of look 1" in m for m in msgs)
    interim(camp.lock_path, camp.runs_dir, 1)
    assert any("started before the interim record of look 1" in m for m in _audit(camp, tmp_path))


def test_early_stop_refuses_later_seeds_and_audits_clean(tmp_path):
    from stats.analyze import analyze
    from stats.interim import interim

    camp, lock = _look1(tmp_path, 0.3)
    rec = interim(camp.lock_path, camp.runs_dir)
    assert rec["contrasts"]["dr_grpo-grpo"]["decision"] == "stop_efficacy" and rec["decision"] == "stop"
    for arm in ("dr_grpo", "grpo"):
        with pytest.raises(Refusal, match="the design stops here"):
            lk.gate(study_of(lock["preregistration"]), lock["lock_hash"], camp.runs_dir, "seqs", arm, SEEDS[4])
    with pytest.raises(Refusal, match="stopped every selected arm"):
        lk.look_units(study_of(lock["preregistration"]), lock["lock_hash"], camp.runs_dir, "seqs", 2, None, None)
    a = analyze(camp.lock_path, camp.runs_dir)  # the final analysis of a stopped study is not a peek
    assert len(lk.read_log(camp.runs_dir, "seqs")) == 1
    assert a["verdicts"]["study"]["verdict"] == "AS_PLANNED", a["deviations"]  # unrun seeds were not asked for
    assert _audit(camp, tmp_path) == []  # completeness asks only for the seeds the design asked for


def test_runner_refuses_a_later_look_before_its_record(tmp_path, capsys):
    from runner.cli import main as runner_main
    from runner.sweep.cli import main as sweep_main

    camp, _lock = _look1(tmp_path, 0.0)
    out = str(camp.runs_dir)
    assert sweep_main([str(camp.lock_path), "--out", out, "--no-live"]) == 2
    err = capsys.readouterr().err
    assert "runs one look at a time: pass --look" in err
    assert f"(looks of {list(_lock['preregistration']['analysis']['sequential']['looks'])} seeds per arm)" in err
    assert sweep_main([str(camp.lock_path), "--out", out, "--no-live", "--look", "2"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "look 2 needs the interim record of look 1" in err
    assert sweep_main([str(camp.lock_path), "--out", out, "--no-live", "--look", "3"]) == 2
    assert "the design has looks 1..2" in capsys.readouterr().err
    rc = runner_main(["run", "--lock", str(camp.lock_path), "--arm", "dr_grpo", "--seed", str(SEEDS[3]),
                      "--out", out, "--quiet"])
    assert rc == 2 and "run `stats interim` first" in capsys.readouterr().err
    assert not (camp.runs_dir / "seqs" / "dr_grpo" / f"s{SEEDS[3]}").exists()


def test_stats_interim_cli(tmp_path, capsys):
    from stats.cli import main as stats_main

    camp, _lock = _look1(tmp_path, 0.0)
    assert stats_main(["interim", str(camp.lock_path), str(camp.runs_dir)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("look 1 (3 seeds per arm): continue") and "dr_grpo-grpo" in out
    assert stats_main(["interim", str(camp.lock_path), str(camp.runs_dir)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and "runs/seqs/grpo/s41" not in err


def test_final_analysis_of_an_early_stop_uses_the_design(tmp_path):
    from scipy import stats

    from prereg.lock import verify_lock
    from stats.analyze import analyze
    from stats.interim import interim
    from stats.load import load

    camp, _lock = _look1(tmp_path, 0.3)
    interim(camp.lock_path, camp.runs_dir)
    a = analyze(camp.lock_path, camp.runs_dir)
    v = {k: r["value"] for k, r in a["values"].items()}
    pre = "contrasts.dr_grpo-grpo.sequential"
    assert v[f"{pre}.look"] == 1 and v[f"{pre}.n_seeds"] == 3 and v[f"{pre}.reject"] is True
    data = load(verify_lock(camp.lock_path), camp.runs_dir)
    x = [data.units[("dr_grpo", s)].metrics["heldout_accuracy"] for s in SEEDS[:3]]
    y = [data.units[("grpo", s)].metrics["heldout_accuracy"] for s in SEEDS[:3]]
    assert v[f"{pre}.p_stagewise"] == pytest.approx(stats.ttest_rel(x, y).pvalue, rel=1e-6)  # exact at look 1
    assert v["contrasts.dr_grpo-grpo.p_adjusted"] == pytest.approx(v[f"{pre}.p_stagewise"], rel=1e-9)
    lo, hi = v[f"{pre}.ci95.lo"], v[f"{pre}.ci95.hi"]
    assert 0 < lo < v[f"{pre}.estimate"] < hi
    assert a["verdicts"]["contrasts"]["dr_grpo-grpo"]["verdict"] == "SURVIVES"


def test_stagewise_inference_coverage_and_consistency():
    """Seeded studies at a true effect: the 90% stage-wise interval covers it about 90% of the time,
    the repeated CI at least as often, and the stage-wise p agrees with the boundary's decision."""
    from prereg.seqdesign import SequentialPlan, decide, design
    from prereg.sequential import Spec
    from stats.seqfinal import Observed, _paths, repeated_interval, stagewise_interval, stagewise_p

    p = SequentialPlan((3, 6), Spec("pocock"), "t_calibrated", 10_000, "stagewise", 0.05, 2, 1, 5, ("a-b",),
                       None, None)
    d, rng = design(p), np.random.default_rng(1)
    dr = _paths(d)
    cover = cover_r = agree = 0
    n = examples(ci=100, dev=40)  # simulated studies: the fast tier's 40 keep every assertion's meaning
    for _ in range(n):
        x = rng.standard_normal(6) + 1.0
        for k, nk in enumerate(p.looks):
            m, s = x[:nk].mean(), x[:nk].std(ddof=1)
            t = m / (s / np.sqrt(nk))
            if decide(d, k + 1, t) != "continue":
                break
        obs = Observed(k + 1, t, m, s, nk)
        lo, hi = stagewise_interval(d, obs, 0.9, dr)
        cover += lo is not None and lo <= 1.0 <= hi
        rl, rh = repeated_interval(d, obs, 0.9)
        cover_r += rl <= 1.0 <= rh
        agree += (stagewise_p(d, obs, dr) <= 0.05) == (decide(d, k + 1, t) == "stop_efficacy")
    assert 0.80 <= cover / n <= 0.99 and cover_r >= cover - 3
    assert agree == n  # the same draws spend alpha and order outcomes: p <= alpha iff the boundary rejected


def test_render_draws_the_boundary_plot_with_the_observed_path(continued, tmp_path):
    from stats.analyze import analyze, write
    from stats.render import render

    camp, _lock, rec = continued
    a = analyze(camp.lock_path, camp.runs_dir)
    v = {k: r["value"] for k, r in a["values"].items()}
    assert v["contrasts.dr_grpo-grpo.sequential.path.look1.t"] == pytest.approx(rec["contrasts"]["dr_grpo-grpo"]["t"])
    assert v["contrasts.dr_grpo-grpo.sequential.look"] == 2 and v["sequential.look1.bound_efficacy"] > 4
    write(a, tmp_path / "r" / "analysis.json")
    paths = render(tmp_path / "r" / "analysis.json", tmp_path / "r")
    png = tmp_path / "r" / "figures" / "sequential_boundaries.png"
    assert png in paths and png.stat().st_size > 10_000
    assert "figures/sequential_boundaries.png" in (tmp_path / "r" / "report.md").read_text()


def test_one_sided_less_alternative_signs_the_statistic():
    """alternative 'less': a negative paired t is evidence for the alternative, a positive one is not."""
    from prereg.seqdesign import decide, design, plan_of

    p = seq_prereg()
    p["analysis"]["contrasts"]["alternative"] = "less"
    plan = plan_of(study_of(p))
    assert plan.sides == 1 and plan.direction == -1
    d = design(plan)
    t_obs = -(d.t_upper[0] + 0.5)  # arm far below baseline
    assert decide(d, 1, t_obs * plan.direction) == "stop_efficacy"
    assert decide(d, 1, -t_obs * plan.direction) == "continue"


def test_one_arm_stops_while_the_baseline_and_another_arm_go_on(tmp_path):
    from stats.analyze import analyze
    from stats.interim import interim
    from stats.synthetic import make_campaign

    p = seq_prereg()
    p["arms"]["gspo"] = json.loads((ROOT / "examples" / "e1.json").read_text())["arms"]["gspo"]
    p["analysis"]["multiplicity"]["family"] = ["dr_grpo-grpo", "gspo-grpo"]
    camp = make_campaign(tmp_path, p, effects={"dr_grpo": 0.3}, seeds=SEEDS[:3], rng_seed=3)
    lock = read_json(camp.lock_path)
    rec = interim(camp.lock_path, camp.runs_dir)
    cs = rec["contrasts"]
    assert cs["dr_grpo-grpo"]["decision"] == "stop_efficacy" and cs["gspo-grpo"]["decision"] == "continue"
    assert rec["decision"] == "continue"
    going, _ = lk.look_units(study_of(lock["preregistration"]), lock["lock_hash"], camp.runs_dir, "seqs", 2, None, None)
    assert sorted(going) == ["grpo", "gspo"]
    with pytest.raises(Refusal, match="the design stops here"):
        lk.gate(study_of(lock["preregistration"]), lock["lock_hash"], camp.runs_dir, "seqs", "dr_grpo", SEEDS[3])
    _look2_runs(camp, lock, arms=going)
    a = analyze(camp.lock_path, camp.runs_dir)
    v = {k: r["value"] for k, r in a["values"].items()}
    assert v["contrasts.dr_grpo-grpo.sequential.look"] == 1 and v["contrasts.gspo-grpo.sequential.look"] == 2
    assert a["verdicts"]["study"]["verdict"] == "AS_PLANNED" and lk.read_log(camp.runs_dir, "seqs")[-1] == rec
    assert _audit(camp, tmp_path) == []


def test_stagewise_interval_for_a_huge_statistic_is_finite():
    """Three seeds with nearly equal differences give t in the hundreds: the limits are still found."""
    from prereg.seqdesign import SequentialPlan, design
    from prereg.sequential import Spec
    from stats.seqfinal import Observed, median_unbiased, stagewise_interval

    d = design(SequentialPlan((3, 6), Spec("pocock"), "t_calibrated", 10_000, "stagewise", 0.05, 2, 1, 5,
                              ("a-b",), None, None))
    obs = Observed(1, 500.0, 0.1, 0.1 * 3 ** 0.5 / 500.0, 3)
    lo, hi = stagewise_interval(d, obs, 0.95)
    est = median_unbiased(d, obs)
    assert lo is not None and hi is not None and 0 < lo < est < hi
