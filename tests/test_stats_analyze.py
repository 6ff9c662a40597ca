"""`stats analyze` over synthetic campaigns: ids, determinism, deviations, imports, degenerate data."""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from prereg.errors import UserError
from prereg.jsonio import read_json, write_json_atomic
from prereg.lock import build_lock, lock_filename
from prereg.schema import schema_errors
from stats import intervals as iv
from stats.analyze import analyze, dumps, write
from stats.cli import main
from stats.synthetic import fingerprint_components, make_campaign, small_prereg, write_run

ROOT = Path(__file__).resolve().parents[1]
E1 = json.loads((ROOT / "examples" / "e1.json").read_text())
SEEDS = [11, 23, 37, 53, 71]
EFFECTS = {"gspo": 0.3, "dapo": -0.3}


def _prereg(**kw):
    p = small_prereg(E1, heldout_n=100, steps=6, seeds=SEEDS)
    p["analysis"]["resamples"] = 2000
    for k, v in kw.items():
        p["analysis"][k] = v
    return p


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    root = tmp_path_factory.mktemp("stats_base")
    c = make_campaign(root, _prereg(), effects=EFFECTS, seed_sd=0.02)
    return c


@pytest.fixture
def camp(base, tmp_path):
    """A private copy of the base campaign that a test may damage."""
    dst = tmp_path / "c"
    shutil.copytree(base.lock_path.parents[1], dst)
    return dst / "locks" / base.lock_path.name, dst / "runs", base


@pytest.fixture(scope="module")
def result(base):
    return analyze(base.lock_path, base.runs_dir)


def _v(a, vid):
    return a["values"][vid]["value"]


def test_schema_ids_and_provenance(result, base):
    a = result
    assert schema_errors(a, "analysis") == []
    assert a["source"] == "runs" and a["verdicts"]["study"]["verdict"] == "AS_PLANNED"
    assert _v(a, "study.n_seeds") == 5 and _v(a, "arms.gspo.n_seeds") == 5
    for vid in ("arms.gspo.heldout_accuracy.mean", "arms.gspo.heldout_accuracy.mean.ci95.low",
                "arms.gspo.heldout_accuracy.mean.hci95.high", "contrasts.gspo-grpo.diff_mean",
                "contrasts.gspo-grpo.ci95.low", "contrasts.gspo-grpo.ci90.high", "contrasts.gspo-grpo.p",
                "contrasts.gspo-grpo.p_adjusted", "contrasts.gspo-grpo.reject", "contrasts.gspo-grpo.mde",
                "contrasts.gspo-grpo.power_achieved", "contrasts.gspo-grpo.tost_p", "runs.gspo.s37.heldout_accuracy",
                "arms.gspo.zvf_mean", "contrasts.gspo-grpo.tests.wilcoxon.p", "contrasts.gspo-grpo.mde_independent"):
        assert vid in a["values"], vid
    # per-seed values are the sealed manifest summaries, with that manifest's seal as input
    man = read_json(base.runs_dir / "e1" / "gspo" / "s37" / "manifest.json")
    rec = a["values"]["runs.gspo.s37.heldout_accuracy"]
    assert rec["value"] == pytest.approx(man["summaries"]["heldout_accuracy"]) and rec["inputs"] == [man["seal"]]
    assert len(a["values"]["contrasts.gspo-grpo.ci95.low"]["inputs"]) == 10
    assert a["values"]["contrasts.gspo-grpo.ci95.low"]["rng_seed"] == a["plan"]["rng_seed"]
    # planted effects are found; the plan's verdict rules are applied in order
    assert a["verdicts"]["contrasts"]["gspo-grpo"]["verdict"] == "SURVIVES"
    assert a["verdicts"]["contrasts"]["dapo-grpo"]["verdict"] == "REVERSES"
    assert a["verdicts"]["hypotheses"]["H3"] == {"contrast": "gspo-grpo", "verdict": "SURVIVES"}
    assert _v(a, "arms.gspo.heldout_accuracy.mean") > _v(a, "arms.grpo.heldout_accuracy.mean")


def test_each_random_value_recomputes_alone(result, base):
    """A value's params name its stream; recomputing just that interval reproduces it exactly."""
    a = result
    rec = a["values"]["contrasts.gspo-grpo.ci90.low"]
    seeds = rec["params"]["seeds"]
    d = [_v(a, f"runs.gspo.s{s}.heldout_accuracy") - _v(a, f"runs.grpo.s{s}.heldout_accuracy") for s in seeds]
    r = iv.compute(d, "mean", rec["params"]["method"], [0.9], resamples=rec["params"]["resamples"],
                   rng_seed=rec["rng_seed"], stream=rec["params"]["stream"])[0.9]
    assert r.low == pytest.approx(rec["value"], rel=1e-10)
    rec = a["values"]["arms.grpo.heldout_accuracy.mean.ci95.high"]
    x = [_v(a, f"runs.grpo.s{s}.heldout_accuracy") for s in rec["params"]["seeds"]]
    r = iv.compute(x, "mean", "percentile", [0.95], resamples=rec["params"]["resamples"], rng_seed=rec["rng_seed"],
                   stream=rec["params"]["stream"])[0.95]
    assert r.high == pytest.approx(rec["value"], rel=1e-10)


def test_power_and_multiplicity_match_statsmodels(result):
    from statsmodels.stats.multitest import multipletests
    from statsmodels.stats.power import TTestIndPower, TTestPower

    a = result
    plan = a["plan"]
    fam = plan["multiplicity"]["family"]
    ps = [_v(a, f"contrasts.{c}.p") for c in fam]
    rej, adj, *_ = multipletests(ps, alpha=plan["multiplicity"]["alpha"], method="fdr_bh")
    for c, p_adj, r in zip(fam, adj, rej, strict=True):
        assert _v(a, f"contrasts.{c}.p_adjusted") == pytest.approx(p_adj, rel=1e-9)
        assert _v(a, f"contrasts.{c}.reject") == bool(r)
    n = _v(a, "contrasts.gspo-grpo.n_pairs")
    d_mde = TTestPower().solve_power(effect_size=None, nobs=n, alpha=0.05, power=0.8, alternative="two-sided")
    assert _v(a, "contrasts.gspo-grpo.mde_d") == pytest.approx(d_mde, rel=1e-5)
    assert _v(a, "contrasts.gspo-grpo.mde") == pytest.approx(d_mde * _v(a, "contrasts.gspo-grpo.diff_sd"), rel=1e-5)
    dz = _v(a, "contrasts.gspo-grpo.effect_size_dz")
    assert _v(a, "contrasts.gspo-grpo.power_achieved") == pytest.approx(
        TTestPower().power(effect_size=dz, nobs=n, alpha=0.05), rel=1e-6)
    rec = a["values"]["contrasts.gspo-grpo.power_achieved_independent"]
    es = rec["params"]["effect"] / rec["params"]["sd"]
    assert rec["value"] == pytest.approx(TTestIndPower().power(effect_size=es, nobs1=n, alpha=0.05), rel=1e-6)


def test_byte_identical_reruns(base, tmp_path, capsys):
    assert main(["analyze", str(base.lock_path), str(base.runs_dir), "-o", str(tmp_path / "a.json")]) == 0
    assert main(["analyze", str(base.lock_path), str(base.runs_dir), "-o", str(tmp_path / "b.json")]) == 0
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()
    # refuses to overwrite
    assert main(["analyze", str(base.lock_path), str(base.runs_dir), "-o", str(tmp_path / "a.json")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error:") and "refusing to overwrite" in err[0]


def test_different_rng_seed_changes_only_random_values(camp, tmp_path):
    lock_path, runs, base = camp
    a = analyze(lock_path, runs)
    pre = _prereg()  # same arm order as the base campaign, so the same synthetic numbers
    pre["analysis"]["rng_seed"] += 1
    lk2 = build_lock(pre, now=base.lock["locked_at"])
    c2 = make_campaign(tmp_path / "r2", pre, effects=EFFECTS, seed_sd=0.02, lock=lk2)
    b = analyze(c2.lock_path, c2.runs_dir)
    assert _v(a, "contrasts.gspo-grpo.p") == _v(b, "contrasts.gspo-grpo.p")
    rand = [k for k, r in a["values"].items() if r["rng_seed"] is not None]
    fixed = [k for k, r in a["values"].items() if r["rng_seed"] is None]
    assert rand and all(_v(a, k) == _v(b, k) for k in fixed)
    assert sum(_v(a, k) != _v(b, k) for k in rand) >= len(rand) / 4  # coarse grids at n=5 tie often


# ----------------------------------------------------------------------------- deviations
def _kinds(a):
    return {d["kind"] for d in a["deviations"]}


def test_missing_seed(camp):
    lock_path, runs, _ = camp
    shutil.rmtree(runs / "e1" / "gspo" / "s37")
    a = analyze(lock_path, runs)
    assert "missing_seed" in _kinds(a) and a["verdicts"]["study"]["verdict"] == "DEVIATION"
    assert _v(a, "arms.gspo.n_seeds") == 4 and _v(a, "contrasts.gspo-grpo.n_pairs") == 4
    assert 37 not in a["values"]["contrasts.gspo-grpo.diff_mean"]["params"]["seeds"]


def test_exploratory_and_unregistered_runs_excluded(camp):
    lock_path, runs, base = camp
    prereg, lock = base.lock["preregistration"], base.lock
    rng = np.random.default_rng(0)
    diff = np.full(prereg["dataset"]["heldout_n"], 0.5)
    import datetime as dt

    t = dt.datetime(2026, 1, 3, tzinfo=dt.timezone.utc)
    write_run(prereg, lock, runs / "explore", "gspo", 11, accuracy=0.9, difficulty=diff, rng=rng, started_at=t,
              evidence_class="exploratory")
    write_run(prereg, lock, runs / "extra", "gspo", 999, accuracy=0.9, difficulty=diff, rng=rng, started_at=t)
    a = analyze(lock_path, runs)
    assert {"exploratory_run", "unregistered_run"} <= _kinds(a)
    reasons = {x["reason"] for x in a["inputs"]["excluded"]}
    assert "exploratory run" in reasons and "unregistered seed 999" in reasons
    assert _v(a, "arms.gspo.n_seeds") == 5


def test_stale_lock_and_duplicate_unit(camp, tmp_path):
    lock_path, runs, base = camp
    v1 = base.lock
    pre2 = copy.deepcopy(v1["preregistration"])
    pre2["title"] += " (amended)"
    v2 = build_lock(pre2, version=2, now="2026-01-01T12:00:00.000000Z",
                    amends={"lock_hash": v1["lock_hash"], "version": 1, "reason": "typo"})
    root2 = tmp_path / "v2"
    (root2 / "locks").mkdir(parents=True)
    write_json_atomic(root2 / "locks" / lock_filename("e1", 1), v1)
    c2 = make_campaign(root2, pre2, effects=EFFECTS, seed_sd=0.02, lock=v2)
    shutil.copytree(runs / "e1" / "grpo" / "s11", c2.runs_dir / "old" / "grpo" / "s11")  # v1 run
    shutil.copytree(c2.runs_dir / "e1" / "aero" / "s23", c2.runs_dir / "dup" / "aero" / "s23")
    a = analyze(c2.lock_path, c2.runs_dir)
    assert {"stale_lock", "duplicate_unit", "missing_seed"} <= _kinds(a)
    assert any("older lock version (v1" in x["reason"] for x in a["inputs"]["excluded"])
    assert _v(a, "arms.aero.n_seeds") == 4 and _v(a, "arms.grpo.n_seeds") == 5
    assert a["lock"]["version"] == 2


def test_mixed_fingerprint(camp):
    lock_path, runs, base = camp
    prereg, lock = base.lock["preregistration"], base.lock
    comps = fingerprint_components()
    comps["trl"] = "0.24.0"
    import datetime as dt

    write_run(prereg, lock, runs, "grpo", 11, accuracy=0.5, difficulty=np.full(100, 0.5),
              rng=np.random.default_rng(1), started_at=dt.datetime(2026, 1, 3, tzinfo=dt.timezone.utc),
              components=comps)
    a = analyze(lock_path, runs)
    dev = [d for d in a["deviations"] if d["kind"] == "mixed_fingerprint"]
    assert len(dev) == 1 and any(v == ["grpo/s11"] for v in dev[0]["fingerprints"].values())


def test_tampered_trace_and_broken_seal_excluded(camp):
    lock_path, runs, _ = camp
    tr = runs / "e1" / "gspo" / "s11" / "traces" / "heldout.jsonl"
    tr.write_text(tr.read_text().replace('"correct": false', '"correct": true', 3))
    m = runs / "e1" / "dapo" / "s11" / "manifest.json"
    doc = read_json(m)
    doc["summaries"]["heldout_accuracy"] = 0.99
    write_json_atomic(m, doc)
    a = analyze(lock_path, runs)
    assert {"trace_mismatch", "broken_seal"} <= _kinds(a)
    assert _v(a, "arms.gspo.n_seeds") == 4 and _v(a, "arms.dapo.n_seeds") == 4


def test_missing_arm_states_undefined(camp):
    lock_path, runs, _ = camp
    shutil.rmtree(runs / "e1" / "aero")
    a = analyze(lock_path, runs)
    assert "missing_arm" in _kinds(a)
    rec = a["values"]["contrasts.aero-grpo.diff_mean"]
    assert rec["value"] is None and "no paired seeds" in rec["note"]
    assert a["values"]["contrasts.aero-grpo.p_adjusted"]["value"] is None
    assert a["verdicts"]["contrasts"]["aero-grpo"]["estimable"] is False
    # a missing family member enters the BH correction as p = 1, never weakening it
    assert a["values"]["contrasts.gspo-grpo.p_adjusted"]["params"]["family"] == a["plan"]["multiplicity"]["family"]
    text = dumps(a)
    assert "NaN" not in text and "Infinity" not in text


def test_no_usable_runs_is_one_line_error(camp, capsys):
    lock_path, runs, _ = camp
    empty = runs.parent / "empty"
    empty.mkdir()
    assert main(["analyze", str(lock_path), str(empty), "-o", str(runs.parent / "x.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no confirmatory run" in err


# ----------------------------------------------------------------------------- imported tables
def _lock_only(tmp_path, prereg):
    lk = build_lock(prereg, now="2026-01-01T00:00:00.000000Z")
    p = tmp_path / "locks" / "e1.lock.json"
    write_json_atomic(p, lk)
    return p


def test_imported_per_seed_csv(tmp_path):
    pre = _prereg()
    lock = _lock_only(tmp_path, pre)
    g = np.random.default_rng(0)
    rows = ["arm,seed,heldout_accuracy"]
    for arm in pre["arms"]:
        for s in SEEDS:
            rows.append(f"{arm},{s},{0.5 + (0.1 if arm == 'gspo' else 0) + g.normal(0, 0.01):.4f}")
    (tmp_path / "t.csv").write_text("\n".join(rows) + "\n")
    a = analyze(lock, tmp_path / "t.csv")
    assert a["source"] == "imported" and a["inputs"]["table"]["kind"] == "per_seed"
    assert a["values"]["arms.gspo.heldout_accuracy.mean"]["inputs"][0].startswith("table:sha256:")
    assert a["verdicts"]["contrasts"]["gspo-grpo"]["verdict"] == "SURVIVES"
    assert "arms.gspo.heldout_accuracy.mean.hci95.low" in a["values"]
    assert a["values"]["arms.gspo.heldout_accuracy.mean.hci95.low"]["value"] is None  # no items: stated


def test_imported_per_item_jsonl_mcnemar(tmp_path):
    pre = _prereg()
    pre["analysis"]["contrasts"]["item_level"] = "mcnemar"
    lock = _lock_only(tmp_path, pre)
    g = np.random.default_rng(1)
    lines = []
    for arm in pre["arms"]:
        for s in SEEDS:
            for i in range(40):
                lines.append(json.dumps({"arm": arm, "seed": s, "item": f"q{i}",
                                         "outcome": int(g.random() < (0.7 if arm == "gspo" else 0.5))}))
    (tmp_path / "items.jsonl").write_text("\n".join(lines) + "\n")
    a = analyze(lock, tmp_path / "items.jsonl")
    assert a["inputs"]["table"]["kind"] == "per_item"
    from statsmodels.stats.contingency_tables import mcnemar

    b01 = a["values"]["contrasts.gspo-grpo.item.mcnemar.arm_only"]["value"]
    b10 = a["values"]["contrasts.gspo-grpo.item.mcnemar.baseline_only"]["value"]
    n = a["values"]["contrasts.gspo-grpo.item.n_pairs"]["value"]
    assert n == 200
    assert _v(a, "contrasts.gspo-grpo.item.mcnemar.p") == pytest.approx(
        mcnemar([[0, b01], [b10, 0]], exact=True).pvalue)
    mean, lo, hi = (_v(a, f"arms.gspo.heldout_accuracy.mean{s}") for s in ("", ".hci95.low", ".hci95.high"))
    assert lo < mean < hi  # items present: the hierarchical interval is computed, around the mean


@pytest.mark.parametrize("body,needle", [
    ("arm,seed,heldout_accuracy\ngspo,11,0.5\nnope,11,0.5\n", "line 3: column 'arm': 'nope'"),
    ("arm,seed,heldout_accuracy\ngspo,12,0.5\n", "line 2: column 'seed': 12 is not a registered seed"),
    ("arm,seed,heldout_accuracy\ngspo,11,abc\n", "line 2: column 'heldout_accuracy': 'abc' is not a number"),
    ("arm,seed,heldout_accuracy\ngspo,11,nan\n", "line 2: column 'heldout_accuracy': non-finite"),
    ("arm,seed,heldout_accuracy\ngspo,11,0.5\ngspo,11,0.6\n", "line 3: duplicate row for gspo/s11"),
    ("arm,seed\ngspo,11\n", "missing column 'heldout_accuracy'"),
    ("arm,seed,heldout_accuracy\ngspo,x,0.5\n", "line 2: column 'seed': 'x' is not an integer"),
])
def test_imported_table_errors_name_line_and_column(tmp_path, capsys, body, needle):
    lock = _lock_only(tmp_path, _prereg())
    (tmp_path / "t.csv").write_text(body)
    with pytest.raises(UserError, match="t.csv"):
        analyze(lock, tmp_path / "t.csv")
    assert main(["analyze", str(lock), str(tmp_path / "t.csv"), "-o", str(tmp_path / "o.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and needle in err, err
    assert not (tmp_path / "o.json").exists()


@pytest.mark.parametrize("name", ["t.csv", "t.jsonl"])
def test_unreadable_table_is_one_line(tmp_path, capsys, monkeypatch, name):
    import builtins
    import pathlib

    lock = _lock_only(tmp_path, _prereg())
    table = tmp_path / name
    table.write_text("arm,seed,heldout_accuracy\n")
    # chmod 000 does not stop root; refuse the read itself, for this file only
    real_open, real_read = builtins.open, pathlib.Path.read_text

    def no_read(f, *a, **k):
        if pathlib.Path(f) == table:
            raise PermissionError(13, "Permission denied", str(table))
        return real_open(f, *a, **k)

    monkeypatch.setattr(builtins, "open", no_read)
    monkeypatch.setattr(pathlib.Path, "read_text",
                        lambda p, *a, **k: no_read(p) if p == table else real_read(p, *a, **k))
    assert main(["analyze", str(lock), str(table), "-o", str(tmp_path / "o.json")]) == 2
    assert capsys.readouterr().err == f"error: {table}: cannot read (Permission denied)\n"


def test_degenerate_tables(tmp_path):
    pre = _prereg()
    lock = _lock_only(tmp_path, pre)
    # all seeds equal in every arm; gspo has one seed only
    rows = ["arm,seed,heldout_accuracy"]
    for arm in pre["arms"]:
        for s in ([11] if arm == "gspo" else SEEDS):
            rows.append(f"{arm},{s},0.5")
    (tmp_path / "t.csv").write_text("\n".join(rows) + "\n")
    a = analyze(lock, tmp_path / "t.csv")
    iv95 = a["values"]["arms.grpo.heldout_accuracy.mean.ci95.low"]
    assert iv95["value"] == 0.5 and "equal" in iv95["note"]
    one = a["values"]["arms.gspo.heldout_accuracy.mean.ci95.low"]
    assert one["value"] is None and "one seed" in one["note"]
    assert a["values"]["contrasts.dapo-grpo.p"]["value"] == 1.0  # all differences exactly zero
    assert a["values"]["contrasts.gspo-grpo.p"]["value"] is None and a["values"]["contrasts.gspo-grpo.p"]["note"]
    assert a["values"]["contrasts.dapo-grpo.mde"]["value"] is None and a["values"]["contrasts.dapo-grpo.mde"]["note"]
    assert "missing_seed" in _kinds(a)
    assert "NaN" not in dumps(a)


def test_multi_task_rliable(tmp_path):
    pre = _prereg(tasks=["t1", "t2", "t3"])
    lock = _lock_only(tmp_path, pre)
    g = np.random.default_rng(2)
    rows = ["arm,seed,task,heldout_accuracy"]
    for arm in pre["arms"]:
        for s in SEEDS:
            for t in ("t1", "t2", "t3"):
                rows.append(f"{arm},{s},{t},{min(1, max(0, 0.5 + (0.2 if arm == 'gspo' else 0) + g.normal(0, 0.05))):.4f}")
    (tmp_path / "t.csv").write_text("\n".join(rows) + "\n")
    a = analyze(lock, tmp_path / "t.csv")
    for agg in ("mean", "median", "iqm", "optimality_gap"):
        lo, val, hi = (_v(a, f"rliable.gspo.{agg}.ci95.low"), _v(a, f"rliable.gspo.{agg}"),
                       _v(a, f"rliable.gspo.{agg}.ci95.high"))
        assert lo <= val <= hi
    assert _v(a, "rliable.gspo-grpo.prob_improvement") > 0.9
    assert _v(a, "rliable.gspo.iqm") > _v(a, "rliable.grpo.iqm")


def test_coverage_warning_for_small_n_percentile(tmp_path):
    pre = _prereg()
    lock = _lock_only(tmp_path, pre)
    rows = ["arm,seed,heldout_accuracy"] + [f"{a},{s},{0.5 + 0.01 * i}" for a in pre["arms"]
                                            for i, s in enumerate(SEEDS)]
    (tmp_path / "t.csv").write_text("\n".join(rows) + "\n")
    a = analyze(lock, tmp_path / "t.csv")
    assert any("percentile interval under-covers at n=5" in w for w in a["warnings"])


@pytest.mark.slow  # subprocess; fast tier: test_no_torch makes the same imports
def test_imports_without_torch():
    code = ("import sys\n"
            "class Block:\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name.split('.')[0] in ('torch', 'transformers', 'trl', 'peft'):\n"
            "            raise ImportError('blocked ' + name)\n"
            "sys.meta_path.insert(0, Block())\n"
            "import stats.analyze, stats.render, stats.cli, stats.coverage, stats.rliable, stats.load\n"
            "assert not any(m.split('.')[0] == 'torch' for m in sys.modules)\nprint('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0 and "ok" in out.stdout, out.stderr


def test_write_refuses_overwrite(result, tmp_path):
    p = tmp_path / "a.json"
    write(result, p)
    with pytest.raises(UserError, match="refusing to overwrite"):
        write(result, p)


# ----------------------------------------------------------------------------- plan variants
@pytest.mark.parametrize("arm_interval,contrast_specs", [
    ("bca", [{"method": "t", "level": 0.95}, {"method": "bca", "level": 0.9}]),
    ("bootstrap_t", [{"method": "bootstrap_t", "level": 0.95}, {"method": "percentile", "level": 0.95}]),
    ("t", [{"method": "hierarchical_bootstrap", "level": 0.95}]),
    ("hierarchical_bootstrap", [{"method": "paired_bootstrap", "level": 0.8}]),
])
def test_plan_interval_methods_are_executed(tmp_path, arm_interval, contrast_specs):
    pre = _prereg()
    pre["analysis"]["arm_summary"] = {"statistics": ["mean", "iqm", "median"], "interval": arm_interval, "level": 0.95}
    pre["analysis"]["contrasts"]["intervals"] = contrast_specs
    pre["analysis"]["contrasts"]["test"] = "wilcoxon"
    pre["analysis"]["contrasts"]["item_level"] = "paired_bootstrap"
    pre["analysis"]["verdicts"] = [{"verdict": "UP", "when": [{"check": "lower_above", "level": contrast_specs[0]["level"],
                                                              "value": 0}]},
                                   {"verdict": "OTHER", "when": []}]
    c = make_campaign(tmp_path, pre, effects={"gspo": 0.3}, seed_sd=0.02)
    a = analyze(c.lock_path, c.runs_dir)
    for stat in ("mean", "iqm", "median"):
        rec = a["values"][f"arms.grpo.heldout_accuracy.{stat}.ci95.low"]
        assert rec["params"]["method"] == arm_interval and rec["value"] is not None
        assert rec["value"] <= _v(a, f"arms.grpo.heldout_accuracy.{stat}") <= _v(a, f"arms.grpo.heldout_accuracy.{stat}.ci95.high")
        # the two-level interval is added for held-out metrics unless it is the planned one
        assert (f"arms.grpo.heldout_accuracy.{stat}.hci95.low" in a["values"]) == (arm_interval != "hierarchical_bootstrap")
    tags = ["ci95" if s["level"] == 0.95 else "ci" + iv.level_tag(s["level"]) for s in contrast_specs]
    if len(contrast_specs) == 2 and contrast_specs[0]["level"] == contrast_specs[1]["level"]:
        tags[1] = f"ci95_{contrast_specs[1]['method']}"
    for spec, tag in zip(contrast_specs, tags, strict=True):
        rec = a["values"][f"contrasts.gspo-grpo.{tag}.low"]
        assert rec["params"]["method"] == spec["method"] and rec["params"]["level"] == spec["level"]
        assert rec["value"] < _v(a, "contrasts.gspo-grpo.diff_mean") < _v(a, f"contrasts.gspo-grpo.{tag}.high")
    assert a["values"]["contrasts.gspo-grpo.p"]["params"]["test"] == "wilcoxon"
    assert _v(a, "contrasts.gspo-grpo.p") == _v(a, "contrasts.gspo-grpo.tests.wilcoxon.p")
    itag = "ci" + iv.level_tag(contrast_specs[0]["level"])
    assert _v(a, f"contrasts.gspo-grpo.item.{itag}.low") < _v(a, "contrasts.gspo-grpo.item.diff_mean")
    assert a["verdicts"]["contrasts"]["gspo-grpo"]["verdict"] == "UP"
    assert a["verdicts"]["contrasts"]["aero-grpo"]["verdict"] in ("UP", "OTHER")


def test_multi_task_from_run_folders(tmp_path):
    pre = _prereg(tasks=["a", "b"])
    c = make_campaign(tmp_path, pre, effects={"gspo": 0.3}, tasks=["a", "b"])
    a = analyze(c.lock_path, c.runs_dir)
    assert _v(a, "rliable.gspo-grpo.prob_improvement") > 0.8
    rec = a["values"]["rliable.gspo.iqm.ci95.low"]
    assert rec["rng_seed"] == pre["analysis"]["rng_seed"] and len(rec["inputs"]) == 5


@pytest.mark.parametrize("seeds,unit,says", [([11], "seed", True), ([11, 23, 37], "seed", False),
                                             ([11], "item", False)])  # [11, 11]: refused (test_seed_rule.py)
def test_one_registered_seed_is_one_warning_naming_seeds(tmp_path, capsys, seeds, unit, says):
    """The schema allows 1 seed: `stats analyze` runs (no traceback, exit 0), its seed-level values are
    null, and at unit 'seed' one warning at ``seeds`` says so (as lint's contrast-plan finding does);
    3 seeds, or unit 'item' (items are the unit), give no such warning."""
    pre = _prereg(unit=unit)
    pre["seeds"] = seeds
    lock = _lock_only(tmp_path, pre)
    rows = ["arm,seed,heldout_accuracy"] + [f"{a},{s},{0.5 + 0.01 * i}" for a in pre["arms"]
                                            for i, s in enumerate(sorted(set(seeds)))]
    (tmp_path / "t.csv").write_text("\n".join(rows) + "\n")
    out = tmp_path / "out" / "analysis.json"
    assert main(["analyze", str(lock), str(tmp_path / "t.csv"), "-o", str(out)]) == 0
    assert "Traceback" not in "".join(capsys.readouterr())
    a = read_json(out)
    ours = [w for w in a["warnings"] if w.startswith("seeds: 1 registered seed")]
    assert len(ours) == (1 if says else 0)
    if unit == "seed":
        assert (a["values"]["contrasts.gspo-grpo.ci95.low"]["value"] is None) == says
