"""Secondary-metric contrasts: the primary's contrast block on every other metric a plan names,
outside the confirmatory family, with verdicts, rendering and a strictly clean audit."""

from __future__ import annotations

import copy
import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as st

from prereg.errors import UserError
from prereg.jsonio import write_json_atomic
from prereg.lock import build_lock
from prereg.schema import schema_errors
from stats import intervals as iv
from stats.analyze import SECONDARY_SCOPE, analyze, dumps, write
from stats.cli import main
from stats.render import fmt, macro_name
from stats.synthetic import make_campaign, small_prereg

ROOT = Path(__file__).resolve().parents[1]
E1 = json.loads((ROOT / "examples" / "e1.json").read_text())
SEEDS = [1, 2, 3, 4, 5]
CELL = re.compile(r"(?P<text>-?[0-9][0-9.e+\-]*|n/a|true|false)<!-- id:(?P<id>[A-Za-z0-9_.\-]+) -->")


def _prereg(secondary=("zvf_mean", "reward_last10"), hyp_metric="zvf_mean"):
    p = small_prereg(E1, heldout_n=40, steps=5, seeds=SEEDS)
    p["analysis"]["resamples"] = 600
    p["analysis"]["secondary_metrics"] = list(secondary)
    p["hypotheses"].append({"id": "H5", "metric": hyp_metric, "arm": "gspo", "baseline": "grpo",
                            "direction": "two-sided", "statement": "GSPO changes the metric relative to GRPO."})
    return p


@pytest.fixture(scope="module")
def camp(tmp_path_factory):
    root = tmp_path_factory.mktemp("secondary")
    c = make_campaign(root, _prereg(), effects={"gspo": 0.2})
    return root, c, analyze(c.lock_path, c.runs_dir)


def _v(a, vid):
    return a["values"][vid]["value"]


def test_ids_params_and_scipy_agreement(camp):
    _, c, a = camp
    assert schema_errors(a, "analysis") == []
    pre = "contrasts.gspo-grpo.zvf_mean"
    for tail in ("n_pairs", "diff_mean", "diff_sd", "effect_size_dz", "ci95.low", "ci95.high", "ci90.low", "p",
                 "tests.paired_t.p", "tests.wilcoxon.p", "tests.sign_flip.p", "tests.welch_t.p",
                 "tests.paired_bootstrap.p", "mde", "mde_d", "mde_independent", "power_achieved", "tost_p"):
        rec = a["values"][f"{pre}.{tail}"]
        assert rec["params"]["confirmatory"] is False and rec["params"]["metric"] == "zvf_mean", tail
    # not in the family: no adjusted p, no reject; the primary ids carry no confirmatory flag
    assert f"{pre}.p_adjusted" not in a["values"] and f"{pre}.reject" not in a["values"]
    assert "confirmatory" not in a["values"]["contrasts.gspo-grpo.p"]["params"]
    assert "contrasts.gspo-grpo.reward_last10.diff_mean" in a["values"]
    # the pilot SD is in primary-metric units: no mde_pilot for a secondary metric
    assert "contrasts.gspo-grpo.mde_pilot" in a["values"] and f"{pre}.mde_pilot" not in a["values"]
    # per-seed values -> scipy on the same data
    seeds = a["values"][f"{pre}.n_pairs"]["params"]["seeds"]
    x = np.array([_v(a, f"runs.gspo.s{s}.zvf_mean") for s in seeds])
    y = np.array([_v(a, f"runs.grpo.s{s}.zvf_mean") for s in seeds])
    assert _v(a, f"{pre}.n_pairs") == len(SEEDS)
    assert _v(a, f"{pre}.diff_mean") == pytest.approx(float(np.mean(x - y)), abs=1e-12)
    assert np.ptp(x - y) > 0  # the campaign's ZVF differences vary over seeds
    ref = st.ttest_rel(x, y)
    assert _v(a, f"{pre}.tests.paired_t.p") == pytest.approx(ref.pvalue, rel=1e-9)
    assert _v(a, f"{pre}.p") == pytest.approx(ref.pvalue, rel=1e-9)  # the plan's test is paired_t
    assert _v(a, f"{pre}.tests.paired_t.statistic") == pytest.approx(ref.statistic, rel=1e-9)
    assert _v(a, f"{pre}.diff_sd") == pytest.approx(float(np.std(x - y, ddof=1)), rel=1e-9)
    w = st.wilcoxon(x, y)
    assert _v(a, f"{pre}.tests.wilcoxon.p") == pytest.approx(w.pvalue, rel=1e-6, abs=1e-9)
    # primary multiplicity: adjusted over the declared family of primary p-values only
    from statsmodels.stats.multitest import multipletests

    fam = a["plan"]["multiplicity"]["family"]
    adj = multipletests([_v(a, f"contrasts.{f}.p") for f in fam], method="fdr_bh")[1]
    for f, pa in zip(fam, adj, strict=True):
        assert _v(a, f"contrasts.{f}.p_adjusted") == pytest.approx(pa, rel=1e-9)


def test_each_secondary_random_value_recomputes_alone(camp):
    _, _, a = camp
    pre = "contrasts.gspo-grpo.reward_last10"
    rec = a["values"][f"{pre}.ci95.low"]
    assert rec["params"]["stream"] == f"{pre}.paired_bootstrap" and rec["rng_seed"] == a["plan"]["rng_seed"]
    d = [_v(a, f"runs.gspo.s{s}.reward_last10") - _v(a, f"runs.grpo.s{s}.reward_last10")
         for s in rec["params"]["seeds"]]
    r = iv.compute(d, "mean", rec["params"]["method"], [0.95], resamples=rec["params"]["resamples"],
                   rng_seed=rec["rng_seed"], stream=rec["params"]["stream"])[0.95]
    assert r.low == pytest.approx(rec["value"], rel=1e-10)
    # distinct streams from the primary contrast
    assert a["values"]["contrasts.gspo-grpo.ci95.low"]["params"]["stream"] != rec["params"]["stream"]


def test_reruns_are_byte_identical(camp):
    _, c, a = camp
    assert dumps(analyze(c.lock_path, c.runs_dir)) == dumps(a)


def test_verdicts_secondary_and_hypothesis(camp):
    _, _, a = camp
    v = a["verdicts"]
    sec = v["secondary"]
    assert set(sec) == {f"{c}.{m}" for m in ("zvf_mean", "reward_last10") for c in a["contrasts"]}
    res = sec["gspo-grpo.zvf_mean"]
    assert res["confirmatory"] is False and res["scope"] == SECONDARY_SCOPE and res["verdict"]
    details = [ch["detail"] for step in res["trail"] for ch in step["checks"] if ch["check"] == "multiplicity_rejects"]
    assert details and all("not in the multiplicity family" in d for d in details)
    h = v["hypotheses"]["H5"]
    assert h["verdict"] == res["verdict"] and h["confirmatory"] is False and h["scope"] == SECONDARY_SCOPE
    assert h["metric"] == "zvf_mean" and h["contrast"] == "gspo-grpo" and "unadjusted" in h["note"]
    # primary hypotheses unchanged in shape
    assert set(v["hypotheses"]["H3"]) == {"contrast", "verdict"}
    # reward is not in the primary metric's unit: the declared margin does not apply
    rec = a["values"]["contrasts.gspo-grpo.reward_last10.tost_p"]
    assert rec["value"] is None and "no margin applies" in rec["note"]
    assert a["values"]["contrasts.gspo-grpo.zvf_mean.tost_p"]["value"] is not None  # same unit (fraction)


def _import_lock(tmp_path, **kw):
    pre = _prereg(**kw)
    lk = build_lock(pre, now="2026-01-01T00:00:00.000000Z")
    write_json_atomic(tmp_path / "l.json", lk)
    return tmp_path / "l.json", pre


def test_planted_secondary_effect_survives_on_unadjusted_p(tmp_path):
    lock, pre = _import_lock(tmp_path, secondary=("reward_last10",), hyp_metric="reward_last10")
    rng = np.random.default_rng(3)
    rows = ["arm,seed,heldout_accuracy,reward_last10"]
    for arm in pre["arms"]:
        for s in SEEDS:
            r = 0.4 + 0.02 * s + (0.3 if arm == "gspo" else 0.0) + rng.normal(0, 0.01)
            rows.append(f"{arm},{s},{0.5 + 0.01 * s + rng.normal(0, 0.01):.6f},{r:.6f}")
    (tmp_path / "t.csv").write_text("\n".join(rows) + "\n")
    a = analyze(lock, tmp_path / "t.csv")
    p = _v(a, "contrasts.gspo-grpo.reward_last10.p")
    assert p < 0.05
    res = a["verdicts"]["secondary"]["gspo-grpo.reward_last10"]
    assert res["verdict"] == "SURVIVES"
    assert a["verdicts"]["hypotheses"]["H5"]["verdict"] == "SURVIVES"
    (ok,) = [ch for ch in res["trail"][res["rule"]]["checks"] if ch["check"] == "multiplicity_rejects"]
    assert ok["met"] and ok["detail"].startswith("unadjusted p")
    margin = [ch for ch in res["trail"][1]["checks"] if ch["check"] == "interval_within_margin"]
    assert margin and "no margin applies" in margin[0]["detail"]
    x = [float(r.split(",")[3]) for r in rows[1:] if r.startswith("gspo,")]
    y = [float(r.split(",")[3]) for r in rows[1:] if r.startswith("grpo,")]
    assert p == pytest.approx(st.ttest_rel(x, y).pvalue, rel=1e-9)


def test_metric_name_that_would_collide_is_refused(tmp_path):
    lock, _ = _import_lock(tmp_path, secondary=("tests",), hyp_metric="heldout_accuracy")
    rows = ["arm,seed,heldout_accuracy"] + [f"{a},{s},0.5" for a in E1["arms"] for s in SEEDS]
    (tmp_path / "t.csv").write_text("\n".join(rows) + "\n")
    with pytest.raises(UserError, match=r"secondary_metrics.*'tests'"):
        analyze(lock, tmp_path / "t.csv")


@pytest.fixture(scope="module")
def rendered(camp):
    root, c, a = camp
    out = root / "report"
    apath = write(a, out / "analysis.json")
    assert main(["render", str(apath), "-o", str(out), "--no-figures"]) == 0  # the tests here read the text
    return out, c, a


def test_render_secondary_tables_and_macros(rendered):
    out, _, a = rendered
    md = (out / "report.md").read_text()
    sec = md.split("## Secondary metrics (not in the confirmatory family)")[1].split("\n## ")[0]
    ids = {vid for _, vid in CELL.findall(sec)}
    for vid in ("contrasts.gspo-grpo.zvf_mean.diff_mean", "contrasts.gspo-grpo.zvf_mean.ci95.low",
                "contrasts.gspo-grpo.zvf_mean.p", "contrasts.dapo-grpo.reward_last10.ci90.high"):
        assert vid in ids
    for text, vid in CELL.findall(sec):
        assert text == fmt(a["values"][vid])
    # one table per metric, each column one unit named in its header
    assert "### `zvf_mean` (fraction)" in sec and "### `reward_last10` (reward)" in sec
    assert "Δ mean (difference, reward)" in sec and "unadjusted (probability)" in sec
    verdict = a["verdicts"]["secondary"]["gspo-grpo.zvf_mean"]["verdict"]
    assert f"{verdict}<!-- verdict:secondary.gspo-grpo.zvf_mean -->" in sec and "`H5`" in sec
    tex = (out / "results.tex").read_text()
    assert f"\\newcommand{{\\{macro_name('contrasts.gspo-grpo.zvf_mean.p')}}}" in tex
    assert "% verdict: secondary.gspo-grpo.zvf_mean" in tex
    assert "\\contrastsGspoVsGrpoZvfMeanDiffMean" in tex.split("Secondary metric zvf")[1]


def _findings(res):
    return res.findings


def test_render_passes_the_audit_strictly_and_tampering_is_found(rendered, tmp_path):
    from audit import run_audit

    out, c, a = rendered
    res = run_audit(out, lock=c.lock_path, runs=c.runs_dir, strict=True)
    assert res.passed, [(f.location, f.message) for f in _findings(res)]
    # a changed secondary number and a changed secondary verdict word are both findings
    bad = tmp_path / "bad"
    shutil.copytree(out, bad)
    md = (bad / "report.md").read_text()
    vid = "contrasts.gspo-grpo.zvf_mean.diff_mean"
    rec = copy.deepcopy(a["values"][vid])
    rec["value"] = rec["value"] + 0.5
    md = md.replace(f"{fmt(a['values'][vid])}<!-- id:{vid} -->", f"{fmt(rec)}<!-- id:{vid} -->")
    verdict = a["verdicts"]["secondary"]["gspo-grpo.reward_last10"]["verdict"]
    other = "SURVIVES" if verdict != "SURVIVES" else "REVERSES"
    md = md.replace(f"{verdict}<!-- verdict:secondary.gspo-grpo.reward_last10 -->",
                    f"{other}<!-- verdict:secondary.gspo-grpo.reward_last10 -->")
    (bad / "report.md").write_text(md)
    res = run_audit(bad, lock=c.lock_path, runs=c.runs_dir, strict=True)
    msgs = [f.message for f in _findings(res)]
    assert not res.passed
    assert any("does not equal its source" in m for m in msgs), msgs
    assert any("verdict differs from the analysis (secondary.gspo-grpo.reward_last10)" in m for m in msgs), msgs


def test_secondary_tables_one_unit_per_column(rendered):
    out, _, a = rendered
    sec = (out / "report.md").read_text().split("## Secondary metrics")[1].split("\n## ")[0]
    tables = re.findall(r"((?:^\|.*\|\n)+)", sec, flags=re.M)
    assert len(tables) == 2
    for table in tables:
        rows = [r.strip().strip("|").split(" | ") for r in table.strip().splitlines()]
        head, body = rows[0], rows[2:]
        for j, h in enumerate(head):
            units = set()
            metric_units = set()
            for r in body:
                for _, vid in CELL.findall(r[j]):
                    units.add(a["values"][vid]["unit"])
                    metric_units.add(a["values"][vid]["params"]["metric_unit"])
            assert len(units) <= 1 and len(metric_units) <= 1, (h, units, metric_units)
            if units:
                assert "(" in h and ")" in h, h


def test_hypothesis_only_metric_and_non_plan_pair(tmp_path):
    """A hypothesis metric missing from secondary_metrics still gets its block; a pair that is no
    plan contrast gets no verdict, with a note saying why."""
    pre = _prereg(secondary=(), hyp_metric="gu_mean")
    pre["hypotheses"].append({"id": "H6", "metric": "gu_mean", "arm": "gspo", "baseline": "dapo",
                              "direction": "two-sided"})
    write_json_atomic(tmp_path / "l.json", build_lock(pre, now="2026-01-01T00:00:00.000000Z"))
    rows = ["arm,seed,heldout_accuracy,gu_mean"] + [f"{a},{s},{0.5 + 0.01 * s},{0.3 + 0.02 * s + (0.1 if a == 'gspo' else 0) + 0.003 * (s % 2)}"
                                                    for a in pre["arms"] for s in SEEDS]
    (tmp_path / "t.csv").write_text("\n".join(rows) + "\n")
    a = analyze(tmp_path / "l.json", tmp_path / "t.csv")
    assert _v(a, "contrasts.gspo-grpo.gu_mean.n_pairs") == len(SEEDS)
    assert _v(a, "contrasts.gspo-grpo.gu_mean.diff_mean") == pytest.approx(0.1, abs=1e-9)
    assert a["verdicts"]["hypotheses"]["H5"]["confirmatory"] is False
    h6 = a["verdicts"]["hypotheses"]["H6"]
    assert h6["verdict"] is None and "not a contrast of the plan" in h6["note"]


def test_a_quoted_warning_is_the_context_of_its_numbers(rendered, tmp_path):
    """A coverage figure copied from analysis.json's warnings is traced to that warning even where it
    also equals an arm's value; the same figure changed in the quoted line is a --strict finding."""
    from audit import run_audit

    out, c, a = rendered
    warning = next(w for w in a["warnings"] if "covered" in w)
    md = (out / "report.md").read_text()
    assert f"- {warning}" in md
    bad = tmp_path / "bad"
    shutil.copytree(out, bad)
    import re as _re
    fig = _re.search(r"covered `?(\d\.\d{3})", warning).group(1)
    changed = f"{float(fig) + 0.05:.3f}"
    (bad / "report.md").write_text(md.replace(f"- {warning}", f"- {warning.replace(fig, changed, 1)}", 1))
    res = run_audit(bad, lock=c.lock_path, runs=c.runs_dir, strict=True)
    assert not res.passed
    assert any(f.found == changed or changed in str(f.found) for f in _findings(res)), \
        [(f.location, f.found, f.message) for f in _findings(res)]
