"""Real studies as they were run (issue 12, README failure 16).

A study shaped like the issue's (base + SFT references, GRPO x 3 seeds x 162 items, two
sessions, fraction / percent / 0-4 count metrics, pass@16) goes lock -> analyze -> render ->
audit with zero findings from CSV and from JSON lines; then one test per problem of the
issue, each failing on the old behaviour (the old behaviour is reproduced in the test where
it still can be: an undeclared metric, copied seeds, a fake RL arm).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as st

from prereg.errors import UserError
from prereg.jsonio import write_json_atomic
from prereg.lint import lint
from prereg.lock import build_lock
from stats.analyze import analyze, write
from stats.cli import main as stats_main
from tests import study12 as S

NOW = "2026-01-01T00:00:00.000000Z"


def _lock(folder: Path, prereg: dict) -> Path:
    path = folder / f"{prereg['id']}.lock.json"
    write_json_atomic(path, build_lock(prereg, now=NOW), overwrite=True)
    return path


def _v(a, vid):
    return a["values"][vid]["value"]


def _audit(report: Path, lock: Path, table: Path) -> tuple[int, dict]:
    from audit.cli import main as audit_main

    out = report.parent / "audit.json"
    rc = audit_main(["check", str(report), "--lock", str(lock), "--runs", str(table), "--strict",
                     "--json", str(out)])
    return rc, json.loads(out.read_text()) if out.exists() else {}


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    root = tmp_path_factory.mktemp("study12")
    pre = S.prereg()
    lock = _lock(root, pre)
    rs = S.rows()
    return root, pre, lock, S.write_csv(root / "items.csv", rs), S.write_jsonl(root / "items.jsonl", rs)


@pytest.fixture(scope="module")
def analysed(study):
    """The study's analysis from each table format, computed once for the tests that only read it
    (each analysis of the whole study costs ~0.4 CPU-s; no test edits the dicts)."""
    _root, _pre, lock, csv_path, jsonl_path = study
    return {"csv": analyze(lock, csv_path), "jsonl": analyze(lock, jsonl_path)}


# ----------------------------------------------------------------------------- the whole study
def test_study_is_described_as_run_and_lints_clean(study):
    _root, pre, *_ = study
    # no fake RL arm, no 'treatment not wired', no invented seed; the plan's paired_bootstrap interval
    # (kept beside the t interval) is rightly flagged for its coverage at these seeds (README failure 10)
    assert {f.rule for f in lint(pre)} <= {"interval-coverage"}


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_lock_analyze_render_audit_with_zero_findings(study, analysed, tmp_path, fmt):
    root, pre, lock, csv_path, jsonl_path = study
    table = csv_path if fmt == "csv" else jsonl_path
    a = analysed[fmt]
    assert a["deviations"] == [] and a["verdicts"]["study"]["verdict"] == "AS_PLANNED"
    assert a["inputs"]["table"]["kind"] == "per_item"
    assert a["metric_units"] == {"solve_rate": "fraction", "format_pct": "percent", "groups_correct": "count",
                                 "pass16": "fraction"}
    d = a["contrast_designs"]
    assert (d["grpo-base"]["design"], d["grpo-base"]["unit"]) == ("reference_once", "seed_item")
    assert (d["sft-base"]["design"], d["sft-base"]["unit"]) == ("single_evaluations", "item")
    assert all(x.get("session") == "s1" for x in d.values())  # the one session with all three arms
    apath = write(a, tmp_path / "report" / "analysis.json")
    # the figures once (csv): the jsonl analysis is the csv one (test_csv_and_jsonl_give_the_same_analysis)
    figures = [] if fmt == "csv" else ["--no-figures"]
    assert stats_main(["render", str(apath), "-o", str(tmp_path / "report"), *figures]) == 0
    assert (tmp_path / "report" / "figures" / "forest.png").exists() == (fmt == "csv")
    md = (tmp_path / "report" / "report.md").read_text()
    assert "reference, evaluated once" in md and "`sft-base` (exploratory)" in md
    rc, res = _audit(tmp_path / "report", lock, table)
    assert rc == 0, json.dumps([f for c in res.get("checks", []) for f in c.get("findings", [])], indent=1)[:3000]


def test_csv_and_jsonl_give_the_same_analysis(analysed):
    a, b = analysed["csv"], analysed["jsonl"]

    def strip(x):  # the inputs name each table's own sha256
        return {k: {f: v for f, v in rec.items() if f != "inputs"} for k, rec in x["values"].items()}
    assert strip(a) == strip(b)
    assert a["verdicts"] == b["verdicts"]


# ----------------------------------------------------------------------------- issue bullet 1: units
def test_declared_units_reach_values_and_the_audit(study, analysed, tmp_path):
    """A correct '61.1%' for a 0.611 rate traces; before metric declarations the metric was unit
    'other' and the same sentence was an audit error."""
    root, pre, lock, csv_path, _ = study
    a = analysed["csv"]
    assert a["values"]["arms.grpo.format_pct.mean"]["unit"] == "percent"
    assert a["values"]["arms.grpo.groups_correct.mean"]["unit"] == "count"
    assert a["values"]["contrasts.grpo-base.format_pct.diff_mean"]["params"]["metric_unit"] == "percent"
    pct = f"{100 * _v(a, 'arms.grpo.solve_rate.mean'):.1f}%"

    def audited(prereg, name):
        lk = _lock(tmp_path / name, prereg) if (tmp_path / name).mkdir() is None else None
        an = analyze(lk, csv_path)
        rep = tmp_path / name / "report"
        write(an, rep / "analysis.json")
        (rep / "notes.md").write_text(f"# Notes\n\nGRPO solved {pct}<!-- id:arms.grpo.solve_rate.mean --> of the "
                                      "held-out puzzles.\n")
        return _audit(rep, lk, csv_path)[0]

    assert audited(pre, "declared") == 0
    old = copy.deepcopy(pre)
    del old["metrics"]["solve_rate"]  # the old world: an imported metric has no unit
    assert audited(old, "undeclared") != 0


# ----------------------------------------------------------------------------- bullet 2: references
def test_reference_evaluated_once_refuses_invented_seeds(study, tmp_path):
    root, pre, lock, *_ = study
    rs = [r for r in S.rows() if r["session"] == "s1"]
    copied = [dict(r, seed=s) for r in rs if r["arm"] == "sft" for s in S.SEEDS] + \
             [r for r in rs if r["arm"] != "sft"]
    table = S.write_csv(tmp_path / "copied.csv", copied)
    with pytest.raises(UserError, match=r"column 'seed': arm 'sft' is a reference evaluated once: leave 'seed' empty"):
        analyze(lock, table)


def test_copied_seeds_of_a_fake_rl_arm_are_a_deviation(tmp_path):
    """The old workaround (SFT declared as an RL arm, its one evaluation copied to seeds 0-2) is
    now a 'copied_evaluation' deviation instead of silent replication."""
    pre = S.prereg()
    pre["arms"]["sft"] = {"algorithm": "grpo", "changes": {"learning_rate": 1e-9}}
    pre["analysis"]["contrasts"]["pairs"][2].pop("sign")
    lock = _lock(tmp_path, pre)
    rs = [r for r in S.rows() if r["session"] == "s1"]
    fake = [dict(r, seed=s) for r in rs if r["arm"] == "sft" for s in S.SEEDS] + [r for r in rs if r["arm"] != "sft"]
    a = analyze(lock, S.write_csv(tmp_path / "fake.csv", fake))
    kinds = [(d["kind"], d.get("arm")) for d in a["deviations"]]
    assert ("copied_evaluation", "sft") in kinds and a["verdicts"]["study"]["verdict"] == "DEVIATION"


def test_copied_per_seed_values_are_a_deviation(tmp_path):
    """The issue's workaround in a per-seed table: SFT's one value under seeds 0-2."""
    pre = S.prereg(unit="seed")
    pre["arms"]["sft"] = {"algorithm": "grpo", "changes": {"learning_rate": 1e-9}}
    pre["analysis"]["contrasts"]["pairs"] = [{"arm": "grpo", "baseline": "sft"}]
    pre["analysis"]["multiplicity"]["family"] = ["grpo-sft"]
    pre["hypotheses"] = pre["hypotheses"][1:]
    pre["analysis"]["secondary_metrics"] = []
    for m in ("format_pct", "groups_correct", "pass16"):
        del pre["metrics"][m]
    lock = _lock(tmp_path, pre)
    lines = ["arm,seed,solve_rate", "base,,0.35"] + [f"sft,{s},0.4506" for s in S.SEEDS] + \
        [f"grpo,{s},{0.44 + s / 1000}" for s in S.SEEDS]
    (tmp_path / "t.csv").write_text("\n".join(lines) + "\n")
    a = analyze(lock, tmp_path / "t.csv")
    assert [(d["kind"], d.get("arm")) for d in a["deviations"]] == [("copied_evaluation", "sft")]


def test_verdict_says_which_side_the_declared_direction_favours(study, tmp_path):
    _root, pre, lock, csv_path, _ = study
    a = analyze(lock, csv_path)
    fav = a["verdicts"]["contrasts"]["grpo-base"]["favours"]
    assert fav == {"side": "arm", "level": 0.95, "higher_is_better": True}  # interval above 0
    low = copy.deepcopy(pre)
    low["metrics"]["solve_rate"]["higher_is_better"] = False  # e.g. an error rate
    (tmp_path / "low").mkdir()
    b = analyze(_lock(tmp_path / "low", low), csv_path)
    assert b["verdicts"]["contrasts"]["grpo-base"]["favours"]["side"] == "baseline"


def test_reference_contrast_keeps_item_uncertainty_not_seed_pairing(study):
    """Against a reference evaluated once the interval is not the zero-width 'replication' of a
    copied value: it is the crossed bootstrap of item-paired differences (seeds and items)."""
    _root, _pre, lock, csv_path, _ = study
    a = analyze(lock, csv_path)
    lo, hi = _v(a, "contrasts.grpo-sft.ci95.low"), _v(a, "contrasts.grpo-sft.ci95.high")
    assert hi - lo > 0.05
    prm = a["values"]["contrasts.grpo-sft.ci95.low"]["params"]
    assert prm["design"] == "reference_once" and prm["seeds"] == 3 and prm["items"] == S.N_ITEMS
    assert "crossed" in a["contrast_designs"]["grpo-sft"]["method"]


# ----------------------------------------------------------------------------- bullet 3: several baselines
def test_several_baselines_each_with_verdict_and_family(study):
    _root, _pre, lock, csv_path, _ = study
    a = analyze(lock, csv_path)
    assert a["contrasts"] == ["grpo-base", "grpo-sft", "sft-base"]
    assert a["values"]["contrasts.grpo-base.p_adjusted"]["params"]["family"] == ["grpo-base", "grpo-sft"]
    assert a["verdicts"]["hypotheses"]["H1"]["contrast"] == "grpo-base"
    assert a["verdicts"]["hypotheses"]["H2"]["contrast"] == "grpo-sft"
    sb = a["verdicts"]["contrasts"]["sft-base"]
    assert sb["confirmatory"] is False and "exploratory" in sb["scope"]
    # declared reporting sign baseline - arm: negated values to trace a report quoting it that way
    assert _v(a, "contrasts.sft-base.reported.diff_mean") == pytest.approx(-_v(a, "contrasts.sft-base.diff_mean"))
    assert _v(a, "contrasts.sft-base.reported.ci95.low") == pytest.approx(-_v(a, "contrasts.sft-base.ci95.high"))


# ----------------------------------------------------------------------------- bullet 4: one seed per arm
def test_one_seed_per_arm_item_level_interval_decides_the_verdict(tmp_path):
    pre = S.prereg(unit="item")
    pre["seeds"] = [0]
    lock = _lock(tmp_path, pre)
    rs = [r for r in S.rows(abilities={"base": -1.0, "sft": -0.8, "grpo": 0.8}) if r["seed"] in (None, 0)
          and r["session"] == "s1"]
    a = analyze(lock, S.write_csv(tmp_path / "one.csv", rs))
    assert _v(a, "arms.grpo.solve_rate.mean.ci95.low") is None  # no seed replication: seed-level CI null
    assert _v(a, "arms.grpo.solve_rate.mean.item.ci95.low") is not None  # per-arm item-level interval
    assert _v(a, "contrasts.grpo-base.ci95.low") > 0
    assert a["verdicts"]["contrasts"]["grpo-base"]["verdict"] == "IMPROVES"  # was INCONCLUSIVE
    # the item-level t interval is scipy's one-sample t interval on the per-item differences
    g = {(r["arm"], r["item"]): r["solve_rate"] for r in rs}
    items = sorted({r["item"] for r in rs})
    d = np.array([g[("grpo", i)] - g[("base", i)] for i in items], dtype=float)
    ci = st.ttest_1samp(d, 0).confidence_interval(0.95)
    assert _v(a, "contrasts.grpo-base.ci95_t.low") == pytest.approx(ci.low, rel=1e-9)
    assert _v(a, "contrasts.grpo-base.ci95_t.high") == pytest.approx(ci.high, rel=1e-9)
    assert _v(a, "contrasts.grpo-base.p") == pytest.approx(st.ttest_rel([g[("grpo", i)] for i in items],
                                                                        [g[("base", i)] for i in items]).pvalue)
    # the per-arm item-level interval is scipy.stats.bootstrap's percentile interval, same draws
    from stats import resample as rs

    rec = a["values"]["arms.base.solve_rate.mean.item.ci95.low"]
    x = np.array([g[("base", i)] for i in items], dtype=float)
    ref = st.bootstrap((x,), np.mean, method="percentile", n_resamples=rec["params"]["resamples"],
                       random_state=rs.generator(pre["analysis"]["rng_seed"], rec["params"]["stream"]))
    assert rec["value"] == pytest.approx(ref.confidence_interval.low, abs=1e-12)
    assert _v(a, "arms.base.solve_rate.mean.item.ci95.high") == pytest.approx(ref.confidence_interval.high, abs=1e-12)
    rec = a["values"]["contrasts.grpo-base.ci95.low"]  # paired bootstrap over items of the differences
    ref = st.bootstrap((d,), np.mean, method="percentile", n_resamples=rec["params"]["resamples"],
                       random_state=rs.generator(pre["analysis"]["rng_seed"], rec["params"]["stream"]))
    assert (rec["value"], _v(a, "contrasts.grpo-base.ci95.high")) == pytest.approx(
        (ref.confidence_interval.low, ref.confidence_interval.high), abs=1e-12)


# ----------------------------------------------------------------------------- bullet 5: analysis.unit
def _two_trained(unit: str) -> dict:
    pre = S.prereg(unit=unit)
    pre["arms"]["drgrpo"] = {"algorithm": "dr_grpo", "changes": {"loss_type": "dr_grpo", "scale_rewards": "none"},
                             "labels": ["Dr. GRPO"]}
    pre["analysis"]["contrasts"]["pairs"] = [{"arm": "drgrpo", "baseline": "grpo"}]
    pre["analysis"]["multiplicity"]["family"] = ["drgrpo-grpo"]
    pre["hypotheses"] = [{"id": "H1", "metric": "solve_rate", "arm": "drgrpo", "baseline": "grpo",
                          "direction": "two-sided"}]
    return pre


def test_analysis_unit_decides_the_inferential_unit(tmp_path):
    rs = S.rows(sessions={"s1": ["grpo"]}) + [dict(r, arm="drgrpo") for r in
                                              S.rows(seed=5, sessions={"s1": ["grpo"]})]
    table = S.write_csv(tmp_path / "two.csv", rs)
    res = {}
    for unit in ("seed", "item", "seed_item"):
        (tmp_path / unit).mkdir()
        res[unit] = analyze(_lock(tmp_path / unit, _two_trained(unit)), table)
    n = {u: res[u]["values"]["contrasts.drgrpo-grpo.n_pairs"] for u in res}
    assert (n["seed"]["value"], n["seed"]["unit"]) == (3, "seeds")
    assert (n["item"]["value"], n["item"]["unit"]) == (S.N_ITEMS, "items")
    assert (n["seed_item"]["value"], n["seed_item"]["unit"]) == (3, "seeds")
    cis = {u: (_v(res[u], "contrasts.drgrpo-grpo.ci95_t.low"), _v(res[u], "contrasts.drgrpo-grpo.ci95_t.high"))
           for u in res}
    assert len(set(cis.values())) == 3  # three units, three analyses (was: identical)
    for u in res:  # the verdict reads the planned unit's interval
        trail = res[u]["verdicts"]["contrasts"]["drgrpo-grpo"]["trail"][0]["checks"][0]["detail"]
        assert f"{_v(res[u], 'contrasts.drgrpo-grpo.ci95.low'):.6g}" in trail
        assert res[u]["contrast_designs"]["drgrpo-grpo"]["unit"] == u


# ----------------------------------------------------------------------------- bullet 6: multi-outcome
def test_one_per_item_table_carries_every_metric(study):
    _root, _pre, lock, csv_path, _ = study
    a = analyze(lock, csv_path)
    assert a["inputs"]["table"]["columns"] == {"correct_of_32": "pass16", "format_pct": "format_pct",
                                               "groups_correct": "groups_correct", "solve_rate": "solve_rate"}
    for m in ("solve_rate", "format_pct", "groups_correct", "pass16"):
        assert _v(a, f"arms.grpo.{m}.mean") is not None


@pytest.mark.parametrize("col, bad, needle", [
    ("groups_correct", 5, "column 'groups_correct': '5' is outside the declared range [0, 4] of count"),
    ("format_pct", 150, "column 'format_pct': '150' is outside the declared range [0, 100] of percent"),
    ("solve_rate", 2, "column 'solve_rate': '2' is outside the declared range [0, 1] of fraction"),
    ("correct_of_32", 33, "column 'correct_of_32': '33' is not a count of correct samples in 0..32"),
])
def test_cells_outside_their_declared_range_are_refused(study, tmp_path, capsys, col, bad, needle):
    _root, _pre, lock, *_ = study
    rs = S.rows(sessions={"s1": ["base", "sft", "grpo"]})
    rs[7][col] = [1] * bad if col == "correct_of_32" else bad
    table = S.write_csv(tmp_path / "bad.csv", rs)
    assert stats_main(["analyze", str(lock), str(table), "-o", str(tmp_path / "o.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "line 9" in err and needle in err, err
    assert not (tmp_path / "o.json").exists()


# ----------------------------------------------------------------------------- bullet 7: sessions
def test_second_session_is_a_second_evaluation_not_a_duplicate(study):
    _root, _pre, lock, csv_path, _ = study
    a = analyze(lock, csv_path)
    assert a["sessions"] == ["s1", "s2"]
    assert sum(1 for r in a["inputs"]["runs"] if r["arm"] == "grpo") == 6  # 3 seeds x 2 sessions


def test_duplicate_within_a_session_is_still_refused(study, tmp_path):
    _root, _pre, lock, *_ = study
    rs = S.rows(sessions={"s1": ["base", "sft", "grpo"]})
    table = S.write_csv(tmp_path / "dup.csv", rs + rs[:1])
    with pytest.raises(UserError, match="duplicate row for item 'p000' of base/once session 's1'"):
        analyze(lock, table)


def test_cross_session_contrast_is_a_deviation_stated_in_its_verdict(study, tmp_path):
    _root, _pre, lock, *_ = study
    rs = S.rows(sessions={"s1": ["base", "grpo"], "s2": ["sft"]})
    a = analyze(lock, S.write_csv(tmp_path / "x.csv", rs))
    kinds = [d["kind"] for d in a["deviations"]]
    assert kinds.count("cross_session_contrast") == 2  # grpo-sft and sft-base
    v = a["verdicts"]["contrasts"]["grpo-sft"]
    assert "session 's1'" in v["deviation"] and "session 's2'" in v["deviation"]
    assert "deviation" not in a["verdicts"]["contrasts"]["grpo-base"]
    assert a["verdicts"]["study"]["verdict"] == "DEVIATION"


# ----------------------------------------------------------------------------- bullet 8: exploratory
def test_exploratory_study_is_labelled_everywhere(tmp_path):
    pre = S.prereg()
    pre["evidence_class"] = "exploratory"
    lock = _lock(tmp_path, pre)
    table = S.write_csv(tmp_path / "t.csv", S.rows())
    a = analyze(lock, table)
    assert a["evidence_class"] == "exploratory"
    assert a["verdicts"]["study"]["confirmatory"] is False
    assert all(v["confirmatory"] is False for v in a["verdicts"]["contrasts"].values())
    assert all(v["params"].get("evidence_class") == "exploratory" for v in a["values"].values())
    apath = write(a, tmp_path / "report" / "analysis.json")
    assert stats_main(["render", str(apath), "-o", str(tmp_path / "report"), "--no-figures"]) == 0  # the text is read
    md = (tmp_path / "report" / "report.md").read_text()
    assert "**Exploratory study**" in md and "## Contrasts (arm − baseline) (exploratory)" in md
    assert "\\exploratoryContrastsGrpoVsBaseP" in (tmp_path / "report" / "results.tex").read_text()
    assert _audit(tmp_path / "report", lock, table)[0] == 0


def test_exploratory_label_in_the_cli_summary(tmp_path, capsys):
    pre = S.prereg()
    pre["evidence_class"] = "exploratory"
    lock = _lock(tmp_path, pre)
    table = S.write_csv(tmp_path / "t.csv", S.rows())
    assert stats_main(["analyze", str(lock), str(table), "-o", str(tmp_path / "a.json")]) == 0
    out = capsys.readouterr().out
    assert "EXPLORATORY study" in out and "(exploratory)" in out


def test_per_seed_table_against_a_once_reference_states_why_nothing_is_computed(study, tmp_path):
    """Per-seed numbers cannot be paired with a single reference evaluation: the item-level
    design needs items, and the values say so instead of pairing a copied value over seeds."""
    _root, _pre, lock, *_ = study
    lines = ["arm,seed,session,solve_rate,format_pct,groups_correct,correct_of_32",
             "base,,s1,0.35,90,1.4,0.8", "sft,,s1,0.45,91,2.0,0.88"]
    lines += [f"grpo,{s},s1,{0.6 + s / 100},90,2.4,0.93" for s in S.SEEDS]
    (tmp_path / "seeds.csv").write_text("\n".join(lines) + "\n")
    a = analyze(lock, tmp_path / "seeds.csv")
    rec = a["values"]["contrasts.grpo-base.diff_mean"]
    assert rec["value"] is None and "needs per-item data" in rec["note"]
    assert "per-item table (arm, seed, item, metric" in rec["note"] and "analysis.unit 'seed'" in rec["note"]
    assert a["verdicts"]["contrasts"]["grpo-base"]["verdict"] == "INCONCLUSIVE"
    assert _v(a, "runs.base.once.solve_rate") == 0.35


def test_per_seed_table_unit_seed_holds_the_reference_value_fixed(tmp_path):
    """With only per-seed values and unit seed, each seed's value is compared with the reference's
    one value held fixed: the t interval equals scipy's one-sample t of (seed values - reference),
    the design says the reference's error is ignored, and a warning names the estimand."""
    pre = S.prereg()
    pre["analysis"]["unit"] = "seed"
    lock = _lock(tmp_path, pre)
    vals = [0.61, 0.64, 0.58]
    lines = ["arm,seed,session,solve_rate,format_pct,groups_correct,correct_of_32",
             "base,,s1,0.35,90,1.4,0.8", "sft,,s1,0.45,91,2.0,0.88"]
    lines += [f"grpo,{s},s1,{v},90,2.4,0.93" for s, v in zip(S.SEEDS, vals, strict=False)]
    (tmp_path / "seeds.csv").write_text("\n".join(lines) + "\n")
    a = analyze(lock, tmp_path / "seeds.csv")
    x = np.asarray(vals) - 0.35
    ci = st.ttest_1samp(x, 0.0).confidence_interval(0.95)
    t_id = next(k for k in a["values"] if k.startswith("contrasts.grpo-base.ci95") and k.endswith(".low")
                and a["values"][k]["params"]["method"] == "t")
    assert _v(a, t_id) == pytest.approx(ci.low, abs=1e-12)
    assert _v(a, t_id.replace(".low", ".high")) == pytest.approx(ci.high, abs=1e-12)
    assert _v(a, "contrasts.grpo-base.p") == pytest.approx(st.ttest_1samp(x, 0.0).pvalue, abs=1e-12)
    assert _v(a, "contrasts.grpo-base.diff_mean") == pytest.approx(x.mean())
    prm = a["values"]["contrasts.grpo-base.diff_mean"]["params"]
    assert (prm["design"], prm["unit"]) == ("reference_once", "seed") and "ignored" in prm["reference_error"]
    assert a["contrast_designs"]["grpo-base"]["unit"] == "seed"
    assert any("held fixed" in w and "grpo-base" in w for w in a["warnings"])
    # two single evaluations hold no seeds to compare: still undefined without items
    assert _v(a, "contrasts.sft-base.diff_mean") is None
    write(a, tmp_path / "report" / "analysis.json")
    assert stats_main(["render", str(tmp_path / "report" / "analysis.json"), "-o", str(tmp_path / "report"),
                       "--no-figures"]) == 0  # the audit reads the text
    rc, doc = _audit(tmp_path / "report", lock, tmp_path / "seeds.csv")
    assert rc == 0, [f for ch in doc["checks"] for f in ch.get("findings", [])]


def test_planned_metric_missing_from_the_data_is_a_deviation(study, tmp_path):
    _root, _pre, lock, *_ = study
    rs = [{k: v for k, v in r.items() if k != "groups_correct"} for r in S.rows()]
    path = tmp_path / "no_gc.jsonl"
    S.write_jsonl(path, rs)
    a = analyze(lock, path)
    dev = [d for d in a["deviations"] if d["kind"] == "missing_metric"]
    assert dev and dev[0]["metric"] == "groups_correct"
    assert a["verdicts"]["study"]["verdict"] == "DEVIATION"


# ----------------------------------------------------------------------------- run folders
def test_run_folders_never_hold_a_reference_arm(tmp_path):
    """A synthetic campaign of a plan with a reference arm: the runner's units skip it, stats
    reports its evaluation missing, the audit's completeness check asks for its evaluation
    (`runner evaluate`, tests/test_reference_runs.py), not for training runs of it, and
    `prereg show` says what it is."""
    from audit.cli import main as audit_main
    from prereg.cli import main as prereg_main
    from stats.synthetic import make_campaign, small_prereg

    pre = small_prereg(json.loads((S.ROOT / "examples" / "e1.json").read_text()), heldout_n=40, steps=4,
                       seeds=[1, 2, 3])
    pre["arms"]["base"] = {"kind": "reference", "checkpoint": "base"}
    pre["analysis"]["resamples"] = 200
    c = make_campaign(tmp_path, pre, effects={"gspo": 0.2})
    assert not (c.runs_dir / pre["id"] / "base").exists()
    a = analyze(c.lock_path, c.runs_dir)
    assert [(d["kind"], d.get("arm")) for d in a["deviations"]] == [("missing_arm", "base")]
    assert "no included evaluation" in a["deviations"][0]["detail"]
    write(a, tmp_path / "report" / "analysis.json")
    out = tmp_path / "audit.json"
    audit_main(["check", str(tmp_path / "report"), "--lock", str(c.lock_path), "--runs", str(c.runs_dir),
                "--json", str(out)])
    checks = {ch.get("id", ch.get("check")): ch for ch in json.loads(out.read_text())["checks"]}
    completeness = next(ch for k, ch in checks.items() if str(k) in ("3", "completeness"))
    base = [f for f in completeness.get("findings", []) if "base" in json.dumps(f)]
    assert len(base) == 1 and "runner evaluate --arm base" in json.dumps(base[0]), completeness
    assert "base/once" in json.dumps(base[0]) and "base/s1" not in json.dumps(completeness)
    assert prereg_main(["show", str(c.lock_path)]) == 0


def test_reference_evaluated_per_seed_is_paired_by_seed(tmp_path):
    """A reference evaluated once per seed (e.g. sampled decoding with the run seed) pairs with
    the trained arm seed by seed; a missing seed of it is a missing_seed deviation."""
    pre = S.prereg()
    pre["arms"]["sft"]["evaluated"] = "per_seed"
    lock = _lock(tmp_path, pre)
    rs = [r for r in S.rows(sessions={"s1": ["base", "sft", "grpo"]})]
    per_seed = [dict(r, seed=s) for s in S.SEEDS[:2]  # a distinct evaluation per seed
                for r in S.rows(seed=10 + s, sessions={"s1": ["sft"]})]
    rows = [r for r in rs if r["arm"] != "sft"] + per_seed
    a = analyze(lock, S.write_csv(tmp_path / "ps.csv", rows))
    assert a["contrast_designs"]["grpo-sft"]["design"] == "seed_paired"
    assert a["values"]["contrasts.grpo-sft.ci95.low"]["params"]["seeds"] == 2  # seeds both have
    assert [(d["kind"], d.get("arm"), d.get("seed")) for d in a["deviations"]] == [("missing_seed", "sft", 2)]
    with pytest.raises(UserError, match="empty seed for arm 'sft', which is evaluated per seed"):
        analyze(lock, S.write_csv(tmp_path / "ps2.csv", rs))
