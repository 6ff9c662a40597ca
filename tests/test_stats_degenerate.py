"""Degenerate data give stated results or one-line errors, never a traceback or a silent NaN.

The demo-shaped case first: on the tiny model two arms can give identical held-out results for
every seed (or differ by one constant), so every paired difference is equal and the SD is 0.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from prereg.jsonio import read_json, read_jsonl, write_atomic, write_json_atomic
from prereg.lock import build_lock
from prereg.records import HELDOUT_TRACE, MANIFEST, TELEMETRY, artifact_digests, write_manifest
from prereg.summaries import compute_summaries
from stats.analyze import dumps, write
from stats.cli import main
from stats.synthetic import make_campaign

ROOT = Path(__file__).resolve().parents[1]
DEMO = json.loads((ROOT / "examples" / "demo.json").read_text())


def _v(a, vid):
    return a["values"][vid]["value"]


def _note(a, vid):
    return a["values"][vid].get("note") or ""


def _copy_outcomes(runs_dir: Path, study: str, arm: str, base: str, seeds, extra_correct: int = 0) -> None:
    """Give ``arm`` the per-item outcomes of ``base`` (plus ``extra_correct`` items) and reseal it."""
    for s in seeds:
        rdir, bdir = runs_dir / study / arm / f"s{s}", runs_dir / study / base / f"s{s}"
        rows, brows = read_jsonl(rdir / HELDOUT_TRACE), read_jsonl(bdir / HELDOUT_TRACE)
        flip = extra_correct
        for r, b in zip(rows, brows, strict=True):
            ok = bool(b["correct"])
            if not ok and flip:
                ok, flip = True, flip - 1
            # rows consistent with the arith rule check 7 re-scores with (no answer scores 0.0)
            r.update(correct=ok, reward=float(ok), prediction=r["target"] if ok else None)
        assert flip == 0
        write_atomic(rdir / HELDOUT_TRACE, "".join(json.dumps(r, sort_keys=True) + "\n" for r in rows))
        m = read_json(rdir / MANIFEST)
        m.pop("seal")
        m["summaries"] = compute_summaries(read_jsonl(rdir / TELEMETRY), rows)
        m["artifacts"] = artifact_digests(rdir)
        write_manifest(rdir, m)


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """Demo plan; dr_grpo == grpo on every seed, bnpo == grpo + 2/64 on every seed; analysed + rendered."""
    root = tmp_path_factory.mktemp("demo_degenerate")
    pre = json.loads(json.dumps(DEMO))
    pre["analysis"]["resamples"] = 500
    # the E1 rules (an MDE-based equivalence rule among them): their zero-variance branches are under test
    pre["analysis"]["verdicts"] = json.loads((ROOT / "examples" / "e1.json").read_text())["analysis"]["verdicts"][:2] + [
        {"verdict": "SURVIVES", "when": [{"check": "lower_above", "level": 0.95, "value": 0},
                                         {"check": "multiplicity_rejects"}]},
        {"verdict": "INCONCLUSIVE", "when": []}]
    c = make_campaign(root, pre, effects={"gspo": 0.1}, seed_sd=0.05)
    _copy_outcomes(c.runs_dir, pre["id"], "dr_grpo", "grpo", pre["seeds"])
    _copy_outcomes(c.runs_dir, pre["id"], "bnpo", "grpo", pre["seeds"], extra_correct=2)
    out = root / "report"
    assert main(["analyze", str(c.lock_path), str(c.runs_dir), "-o", str(out / "analysis.json")]) == 0
    # no figures (drawing is most of a render's time): the tests here read the text and the audit; a
    # degenerate forest plot (zero differences, undefined intervals) is drawn in
    # test_render_of_degenerate_analysis below
    assert main(["render", str(out / "analysis.json"), "-o", str(out), "--no-figures"]) == 0
    return c, out, read_json(out / "analysis.json")


def test_identical_arms_give_stated_results(demo):
    _, _, a = demo
    c = "contrasts.dr_grpo-grpo"
    assert _v(a, f"{c}.diff_mean") == 0.0 and _v(a, f"{c}.diff_sd") == 0.0
    assert _v(a, f"{c}.p") == 1.0 and "p = 1 by convention" in _note(a, f"{c}.p")
    assert _v(a, f"{c}.tests.paired_t.statistic") is None and "undefined" in _note(a, f"{c}.tests.paired_t.statistic")
    assert _v(a, f"{c}.tests.sign_flip.p") == 1.0 and _v(a, f"{c}.tests.wilcoxon.p") == 1.0
    assert _v(a, f"{c}.ci95.low") == _v(a, f"{c}.ci95.high") == 0.0 and "equal" in _note(a, f"{c}.ci95.low")
    for vid in ("mde", "power_achieved", "effect_size_dz"):
        assert _v(a, f"{c}.{vid}") is None and "SD 0" in _note(a, f"{c}.{vid}")
    assert _v(a, f"{c}.mde_d") > 0  # the standardized MDE does not need the SD
    assert _v(a, f"{c}.tost_p") == 0.0 and _v(a, f"{c}.tost_equivalent") is True
    assert "|difference| 0 < margin 0.01" in _note(a, f"{c}.tost_p")
    v = a["verdicts"]["contrasts"]["dr_grpo-grpo"]
    assert v["verdict"] == "INCONCLUSIVE"
    checks = {ch["check"]: ch for r in v["trail"] for ch in r["checks"]}
    assert checks["interval_within_margin"]["met"] and not checks["mde_at_most_margin"]["met"]
    assert "MDE undefined (all paired differences equal (SD 0)" in checks["mde_at_most_margin"]["detail"]
    assert "NaN" not in dumps(a) and "Infinity" not in dumps(a)


def test_constant_offset_gives_stated_results_and_family(demo):
    _, _, a = demo
    c = "contrasts.bnpo-grpo"
    assert _v(a, f"{c}.diff_mean") == pytest.approx(2 / 64) and _v(a, f"{c}.diff_sd") == 0.0
    assert _v(a, f"{c}.p") is None and "t statistic and p undefined" in _note(a, f"{c}.p")
    assert _v(a, f"{c}.tests.sign_flip.p") == pytest.approx(2 / 2 ** 3)  # exact: 2 of 8 sign vectors
    assert _v(a, f"{c}.tests.paired_bootstrap.p") is None and _note(a, f"{c}.tests.paired_bootstrap.p")
    assert _v(a, f"{c}.ci90.low") == _v(a, f"{c}.ci90.high") == pytest.approx(2 / 64)
    assert _v(a, f"{c}.tost_p") == 1.0 and _v(a, f"{c}.tost_equivalent") is False
    # the null p enters the Holm family as p = 1 and is never rejected
    from statsmodels.stats.multitest import multipletests

    fam = a["plan"]["multiplicity"]["family"]
    ps = [1.0 if _v(a, f"contrasts.{x}.p") is None else _v(a, f"contrasts.{x}.p") for x in fam]
    _, adj, *_ = multipletests(ps, alpha=0.05, method="holm")
    for x, want in zip(fam, adj, strict=True):
        got = _v(a, f"contrasts.{x}.p_adjusted")
        assert (got is None) if x == "bnpo-grpo" else got == pytest.approx(want)
    assert "counted with p = 1" in _note(a, f"{c}.p_adjusted") and _v(a, f"{c}.reject") is False
    v = a["verdicts"]["contrasts"]["bnpo-grpo"]
    assert v["verdict"] == "INCONCLUSIVE"
    surv = [r for r in v["trail"] if r["verdict"] == "SURVIVES"][0]["checks"]
    assert surv[0]["met"] and not surv[1]["met"] and "p undefined" in surv[1]["detail"]


def test_demo_degenerate_campaign_renders_and_passes_the_audit(demo):
    from audit import run_audit

    c, out, a = demo
    assert (out / "report.md").exists() and (out / "results.tex").exists()
    md = (out / "report.md").read_text()
    assert re.search(r"\b(nan|inf)\b", md, re.I) is None
    assert "n/a<!-- id:contrasts.bnpo-grpo.p -->" in md  # the undefined p is shown as n/a, pinned
    res = run_audit(out, lock=c.lock_path, runs=c.runs_dir)
    assert res.errors == [], [f"{f}" for f in res.errors]


# ----------------------------------------------------------------------------- tables via the CLI
@pytest.fixture(scope="module")
def lock(tmp_path_factory):
    root = tmp_path_factory.mktemp("degenerate_tables")
    pre = json.loads(json.dumps(DEMO))
    pre["analysis"]["resamples"] = 300
    p = root / "lock.json"
    write_json_atomic(p, build_lock(pre, now="2026-01-01T00:00:00.000000Z"))
    return p


def _table(tmp_path, rows, header="arm,seed,heldout_accuracy", name="t.csv"):
    t = tmp_path / name
    t.write_text("\n".join([header] + rows) + "\n")
    return t


def _run(lock, table, tmp_path, capsys):
    out = tmp_path / "a.json"
    rc = main(["analyze", str(lock), str(table), "-o", str(out)])
    cap = capsys.readouterr()
    return rc, cap.err, (read_json(out) if out.exists() else None)


ARMS = list(DEMO["arms"])
SEEDS = DEMO["seeds"]


def test_roundoff_constant_offset_does_not_crash(lock, tmp_path, capsys):
    """0.4-0.3, 0.2-0.1, 0.8-0.7 differ by ~1e-17: this used to fail in the noncentral t."""
    base = [0.3, 0.1, 0.7]
    vals = {"grpo": base, "dr_grpo": [0.4, 0.2, 0.8], "gspo": [0.35, 0.05, 0.6], "bnpo": base}
    assert np.ptp(np.array(vals["dr_grpo"]) - np.array(base)) > 0  # the premise
    t = _table(tmp_path, [f"{a},{s},{v}" for a, vs in vals.items() for s, v in zip(SEEDS, vs, strict=True)])
    rc, err, a = _run(lock, t, tmp_path, capsys)
    assert rc == 0, err
    assert _v(a, "contrasts.dr_grpo-grpo.diff_sd") == 0.0 and _v(a, "contrasts.dr_grpo-grpo.p") is None
    assert _v(a, "contrasts.dr_grpo-grpo.power_achieved") is None
    assert _v(a, "contrasts.dr_grpo-grpo.ci95.low") == pytest.approx(0.1)


def test_one_seed_per_arm(lock, tmp_path, capsys):
    t = _table(tmp_path, [f"{a},{SEEDS[0]},{0.25 + 0.125 * i}" for i, a in enumerate(ARMS)])
    rc, err, a = _run(lock, t, tmp_path, capsys)
    assert rc == 0, err
    assert _v(a, "arms.gspo.heldout_accuracy.mean") == 0.5
    assert _v(a, "arms.gspo.heldout_accuracy.sd") is None and "fewer than two seeds" in _note(a, "arms.gspo.heldout_accuracy.sd")
    assert _v(a, "arms.gspo.heldout_accuracy.mean.ci95.low") is None
    assert "one seed" in _note(a, "arms.gspo.heldout_accuracy.mean.ci95.low")
    for vid in ("p", "mde", "tost_p", "ci95.low", "p_adjusted"):
        assert _v(a, f"contrasts.gspo-grpo.{vid}") is None and _note(a, f"contrasts.gspo-grpo.{vid}")
    assert {d["kind"] for d in a["deviations"]} == {"missing_seed"}
    assert all(v["verdict"] == "INCONCLUSIVE" and v["estimable"] is False for v in a["verdicts"]["contrasts"].values())
    assert all(r["value"] is not None or r.get("note") for r in a["values"].values())


def test_all_seeds_equal_within_arms_t_interval(lock, tmp_path, capsys):
    pre = read_json(lock)["preregistration"]
    pre["analysis"]["arm_summary"]["interval"] = "t"
    lk = tmp_path / "t.lock.json"
    write_json_atomic(lk, build_lock(pre, now="2026-01-01T00:00:00.000000Z"))
    t = _table(tmp_path, [f"{a},{s},{0.25 + 0.125 * i}" for i, a in enumerate(ARMS) for s in SEEDS])
    rc, err, a = _run(lk, t, tmp_path, capsys)
    assert rc == 0, err
    for end in ("low", "high"):
        rec = a["values"][f"arms.gspo.heldout_accuracy.mean.ci95.{end}"]
        assert rec["value"] == 0.5 and rec["params"]["method"] == "t" and "zero-width" in rec["note"]
    assert _v(a, "arms.gspo.heldout_accuracy.sd") == 0.0
    assert "NaN" not in dumps(a)


@pytest.mark.parametrize("gone", ["gspo", "grpo"])
def test_missing_arm_or_baseline(lock, tmp_path, capsys, gone):
    rows = [f"{a},{s},{0.25 + 0.125 * i + (s * (i + 2)) % 5 / 64}" for i, a in enumerate(ARMS) if a != gone for s in SEEDS]
    rc, err, a = _run(lock, _table(tmp_path, rows), tmp_path, capsys)
    assert rc == 0, err
    assert [d for d in a["deviations"] if d["kind"] == "missing_arm"][0]["arm"] == gone
    assert a["verdicts"]["study"]["verdict"] == "DEVIATION"
    present = [x for x in ARMS if x != gone]
    assert all(_v(a, f"arms.{x}.heldout_accuracy.mean") is not None for x in present)
    assert _v(a, f"arms.{gone}.heldout_accuracy.mean") is None
    for c in a["contrasts"]:
        if gone in c.split("-"):
            assert _v(a, f"contrasts.{c}.diff_mean") is None and "no paired seeds" in _note(a, f"contrasts.{c}.diff_mean")
        else:
            assert _v(a, f"contrasts.{c}.p") is not None
    assert all(r["value"] is not None or r.get("note") for r in a["values"].values())


@pytest.mark.parametrize("name,body,needle", [
    ("t.csv", "arm,seed,heldout_accuracy\ngrpo,1,0.5\ngrpo,2,NaN\n", "line 3: column 'heldout_accuracy': non-finite"),
    ("t.csv", "arm,seed,item,outcome\ngrpo,1,q1,1\ngrpo,1,q2,nan\n", "line 3: column 'outcome': non-finite"),
    ("t.jsonl", '{"arm": "grpo", "seed": 1, "heldout_accuracy": 0.5}\n'
                '{"arm": "grpo", "seed": 2, "heldout_accuracy": NaN}\n', "line 2: column 'heldout_accuracy': non-finite"),
    ("t.jsonl", '{"arm": "grpo", "seed": 1, "heldout_accuracy": Infinity}\n', "line 1: column 'heldout_accuracy'"),
    ("t.jsonl", '{"arm": "grpo", "seed": 1, "heldout_accuracy": null}\n', "line 1: column 'heldout_accuracy': empty"),
])
def test_nan_in_imported_table_is_one_line_error(lock, tmp_path, capsys, name, body, needle):
    (tmp_path / name).write_text(body)
    rc, err, a = _run(lock, tmp_path / name, tmp_path, capsys)
    assert rc == 2 and a is None
    assert err.count("\n") == 1 and err.startswith("error: ") and needle in err and name in err, err
    assert "Traceback" not in err


def test_render_of_degenerate_analysis(lock, tmp_path, capsys):
    t = _table(tmp_path, [f"{a},{SEEDS[0]},0.5" for a in ARMS])
    rc, err, a = _run(lock, t, tmp_path, capsys)
    assert rc == 0, err
    assert main(["render", str(tmp_path / "a.json"), "-o", str(tmp_path / "r")]) == 0
    md = (tmp_path / "r" / "report.md").read_text()
    assert "n/a<!-- id:contrasts.gspo-grpo.p -->" in md
    assert (tmp_path / "r" / "figures" / "forest.png").read_bytes()[:4] == b"\x89PNG"  # drawn, not skipped
    shutil.rmtree(tmp_path / "r")
    write(a, tmp_path / "b.json")  # the analysis round-trips through the byte-stable writer
