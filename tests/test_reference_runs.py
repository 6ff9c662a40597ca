"""Reference arms with run folders (issue 12, README failure 16).

A base model is a reference arm: `runner evaluate` evaluates it on the registered held-out
split with the locked evaluation protocol, trains nothing, and seals a run folder marked
``kind: reference`` (``<arm>/once``, seed null: no invented seed). A study with that base
reference and a GRPO arm trained for real on the tiny offline model x 2 seeds goes
run + evaluate -> analyze -> render -> audit with zero findings; a tampered reference record
is caught; the runner still refuses to train a reference arm.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from prereg.errors import Refusal
from prereg.jsonio import write_json_atomic
from prereg.lock import build_lock
from prereg.records import read_run
from stats.analyze import analyze
from stats.cli import main as stats_main
from tests.runner_run_support import evaluate, reference_plan, run

NOW = "2026-01-01T00:00:00.000000Z"  # locked well before the runs (audit check 5)

pytestmark = pytest.mark.slow


def _plan(evaluated: str = "once", checkpoint: str = "tiny:qwen2") -> dict:
    return reference_plan(f"ref-{evaluated}", evaluated, checkpoint)


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    root = tmp_path_factory.mktemp("refruns")
    lock = root / "ref-once.lock.json"
    write_json_atomic(lock, build_lock(_plan(), now=NOW))
    runs = root / "runs"
    for s in (1, 2):
        run(lock, "grpo", s, runs, session="A")
    ref = evaluate(lock, "base", None, runs, session="A")
    evaluate(lock, "base", None, runs / "B", session="B")  # the base model again, in a later session
    return root, lock, runs, ref


def _audit(report: Path, lock: Path, runs: Path) -> tuple[int, list[dict]]:
    from audit.cli import main as audit_main

    out = report.parent / f"audit-{report.name}.json"
    # not --strict: with 2 seeds the analysis warns that coverage below 3 seeds is untabulated, and
    # --strict calls the "3" quoted in that rendered warning value-only (a report-parsing matter)
    rc = audit_main(["check", str(report), "--lock", str(lock), "--runs", str(runs), "--json", str(out)])
    doc = json.loads(out.read_text())
    return rc, [f for ch in doc["checks"] for f in ch.get("findings", [])]


def test_reference_evaluation_is_a_sealed_run_folder(study):
    root, lock, runs, ref = study
    assert ref == runs / "ref-once" / "base" / "once"
    r = read_run(ref)  # schema-valid, sealed
    m = r.manifest
    assert r.seal_ok() and m["status"] == "complete" and m["kind"] == "reference" and m["seed"] is None
    assert m["reference"]["loaded"]["kind"] == "base" and m["reference"]["evaluated"] == "once"
    assert m["resolved_config"]["trainer"] == {} and m["summaries"]["steps"] == 0
    assert sorted(m["artifacts"]) == ["traces/heldout.jsonl"]  # nothing trained: no telemetry, no adapter
    assert len(r.heldout_trace()) == 4 and m["summaries"]["heldout_n"] == 4
    # evaluated on the same stack as the trained runs: one fingerprint
    g = read_run(runs / "ref-once" / "grpo" / "s1").manifest
    assert m["fingerprint"]["hash"] == g["fingerprint"]["hash"]


@pytest.fixture(scope="module")
def report(study):
    root, lock, runs, _ = study
    report = root / "report"
    assert stats_main(["analyze", str(lock), str(runs), "-o", str(report / "analysis.json")]) == 0
    assert stats_main(["render", str(report / "analysis.json"), "-o", str(report), "--runs", str(runs),
                       "--model-cards", "--lock", str(lock)]) == 0
    return report


def test_run_evaluate_analyze_render_audit_clean(study, report):
    root, lock, runs, _ = study
    a = json.loads((report / "analysis.json").read_text())
    assert a["deviations"] == [] and a["verdicts"]["study"]["verdict"] != "DEVIATION"
    assert sorted((x["arm"], str(x["seed"]), x["session"]) for x in a["inputs"]["runs"]) == [
        ("base", "None", "A"), ("base", "None", "B"), ("grpo", "1", "A"), ("grpo", "2", "A")]
    assert a["sessions"] == ["A", "B"] and a["contrast_designs"]["grpo-base"]["session"] == "A"
    assert a["contrast_designs"]["grpo-base"]["design"] == "reference_once"
    assert a["values"]["runs.base.once.heldout_accuracy"]["value"] is not None
    prm = a["values"]["contrasts.grpo-base.ci95.low"]["params"]
    assert prm["design"] == "reference_once" and prm["seeds"] == 2 and prm["items"] == 4
    # model cards for the trained runs only: the reference evaluation made no model
    assert sorted(p.name for p in (report / "model_cards").iterdir()) == ["grpo-s1", "grpo-s2", "study"]
    rc, findings = _audit(report, lock, runs)
    assert (rc, findings) == (0, [])


def test_tampered_reference_record_is_caught(study, report, tmp_path):
    root, lock, runs, _ = study
    bad_runs = tmp_path / "runs"
    shutil.copytree(runs, bad_runs)
    trace = bad_runs / "ref-once" / "base" / "once" / "traces" / "heldout.jsonl"
    rows = [json.loads(line) for line in trace.read_text().splitlines()]
    rows[0]["correct"] = not rows[0]["correct"]  # the reference 'scored' differently after the fact
    trace.chmod(0o644)
    trace.write_text("".join(json.dumps(r) + "\n" for r in rows))
    rc, findings = _audit(report, lock, bad_runs)
    assert rc == 1
    assert any("base/once" in str(f.get("where", f)) and "changed after the run was sealed" in json.dumps(f)
               for f in findings), findings
    a = analyze(lock, bad_runs)
    assert [(d["kind"], d.get("arm")) for d in a["deviations"]][:1] == [("trace_mismatch", "base")]
    # the excluded session-A evaluation leaves only the base model's session-B evaluation
    assert [d["kind"] for d in a["deviations"]] == ["trace_mismatch", "cross_session_contrast"]


def test_runner_refuses_to_train_a_reference_and_to_evaluate_a_trained_arm(study, capsys):
    from runner.cli import main as runner_main

    root, lock, runs, _ = study
    with pytest.raises(Refusal, match="runner evaluate --arm base"):
        run(lock, "base", 1, root / "other")
    assert runner_main(["evaluate", "--arm", "grpo", "--seed", "1", "--lock", str(lock), "--out",
                        str(root / "other")]) == 2
    assert "is a trained arm" in capsys.readouterr().err
    assert runner_main(["evaluate", "--arm", "base", "--seed", "1", "--lock", str(lock), "--out",
                        str(root / "other")]) == 2
    assert "evaluated once" in capsys.readouterr().err
    assert not (root / "other").exists()  # nothing written
    with pytest.raises(Refusal, match="unit is complete"):
        evaluate(lock, "base", None, runs)  # a sealed reference evaluation is never overwritten


# ----------------------------------------------------------------------------- sessions as a run field
def test_session_is_a_recorded_run_field(study):
    root, lock, runs, ref = study
    assert read_run(ref).manifest["session"] == "A"
    assert read_run(runs / "ref-once" / "grpo" / "s1").manifest["session"] == "A"
    m = read_run(runs / "B" / "ref-once" / "base" / "once").manifest
    assert m["session"] == "B" and m["settings"]["session"] == "B"


def test_cross_session_contrast_of_run_folders_is_a_stated_deviation(study, tmp_path):
    """Without the session-A evaluation of the base model, GRPO (session A) can only be compared
    with the base evaluated in session B: a cross_session_contrast deviation, stated in the verdict."""
    root, lock, runs, _ = study
    cross = tmp_path / "runs"
    shutil.copytree(runs, cross)
    shutil.rmtree(cross / "ref-once" / "base")
    a = analyze(lock, cross)
    dev = [d for d in a["deviations"] if d["kind"] == "cross_session_contrast"]
    assert [d["sessions"] for d in dev] == [["A", "B"]] and a["verdicts"]["study"]["verdict"] == "DEVIATION"
    assert "session" in json.dumps(a["verdicts"]["contrasts"]["grpo-base"]).lower()
    assert not [d for d in a["deviations"] if d["kind"] == "duplicate_unit"]


def test_bad_session_name_is_one_line(study, capsys):
    from runner.cli import main as runner_main

    root, lock, runs, _ = study
    assert runner_main(["evaluate", "--arm", "base", "--lock", str(lock), "--out", str(root / "x"),
                        "--session", " "]) == 2
    err = capsys.readouterr().err
    assert "--session" in err and len(err.strip().splitlines()) == 1 and not (root / "x").exists()


# ----------------------------------------------------------------------------- an SFT adapter, per seed
def test_adapter_checkpoint_is_evaluated_as_trained(study, tmp_path):
    """A reference arm whose checkpoint is a PEFT adapter folder (an SFT LoRA; here the adapter a
    GRPO run saved) is that adapter on the lock's base model: evaluated per seed with the same seed,
    its held-out completions are the ones the trained run's own evaluation produced, its record names
    the adapter's file hashes, and it shares the trained runs' stack fingerprint."""
    root, lock, runs, _ = study
    adapter = runs / "ref-once" / "grpo" / "s1" / "adapter"
    p = _plan(evaluated="per_seed", checkpoint=str(adapter))
    lock2 = tmp_path / "ref-per_seed.lock.json"
    write_json_atomic(lock2, build_lock(p, now=NOW))
    out = evaluate(lock2, "base", 1, tmp_path / "runs")
    assert out == tmp_path / "runs" / "ref-per_seed" / "base" / "s1"
    m = read_run(out).manifest
    assert m["seed"] == 1 and m["reference"]["loaded"]["kind"] == "adapter"
    assert set(m["reference"]["loaded"]["adapter_sha256"]) >= {"adapter_config.json", "adapter_model.safetensors"}
    trained = read_run(runs / "ref-once" / "grpo" / "s1")
    assert [r["completion_sha256"] for r in read_run(out).heldout_trace()] == \
        [r["completion_sha256"] for r in trained.heldout_trace()]
    assert m["summaries"]["heldout_accuracy"] == trained.manifest["summaries"]["heldout_accuracy"]
    assert m["fingerprint"]["hash"] == trained.manifest["fingerprint"]["hash"]
    with pytest.raises(Refusal, match="evaluated per seed; give a registered seed"):
        evaluate(lock2, "base", None, tmp_path / "runs")


def test_checkpoint_resolution():
    from prereg.errors import UserError
    from prereg.study import ModelSpec
    from runner.reference import resolve_checkpoint

    model = ModelSpec("tiny:qwen2", None, None, {})
    assert resolve_checkpoint(None, model).kind == "base" and resolve_checkpoint("tiny:qwen2", model).kind == "base"
    hub = resolve_checkpoint("Qwen/Qwen2.5-7B-Instruct@a09a3545", model)
    assert (hub.kind, hub.name, hub.revision) == ("model", "Qwen/Qwen2.5-7B-Instruct", "a09a3545")
    with pytest.raises(UserError, match="no such folder"):
        resolve_checkpoint("./ckpt/missing", model)


def test_runner_status_lists_the_reference_evaluation(study):
    from prereg.lock import verify_lock
    from runner.status import study_status

    root, lock, runs, _ = study
    st = {(u.arm, u.seed): u.state for u in study_status(verify_lock(lock), runs)}
    assert st == {("grpo", 1): "complete", ("grpo", 2): "complete", ("base", None): "complete"}


def test_invented_seed_or_kind_is_an_unregistered_run(study, report, tmp_path):
    """A reference evaluation re-labelled with a seed (folder s1, re-sealed) and a trained run
    re-labelled a reference evaluation are not registered evaluations: stats excludes them with the
    reason and the audit's completeness check names them (one rule, prereg.declarations)."""
    from prereg.jsonio import read_json
    from prereg.records import write_manifest

    root, lock, runs, _ = study
    bad = tmp_path / "runs"
    shutil.copytree(runs, bad)
    ref = bad / "ref-once" / "base" / "once"
    m = read_json(ref / "manifest.json")
    m["seed"] = 1
    (ref / "manifest.json").chmod(0o644)
    write_manifest(ref, m)
    ref.rename(ref.parent / "s1")
    g = bad / "ref-once" / "grpo" / "s2"
    mg = read_json(g / "manifest.json")
    mg["kind"] = "reference"
    (g / "manifest.json").chmod(0o644)
    write_manifest(g, mg)
    a = analyze(lock, bad)
    reasons = {(e["arm"], e["seed"]): e["reason"] for e in a["inputs"]["excluded"]}
    assert "evaluated once (no seed)" in reasons[("base", 1)]
    assert "a reference evaluation of trained arm 'grpo'" in reasons[("grpo", 2)]
    rc, findings = _audit(report, lock, bad)
    text = json.dumps(findings)
    assert rc == 1 and "confirmatory run of an unregistered arm or seed" in text
    assert "registered unit grpo/s2 has no complete confirmatory run" in text
    assert "base/s1" in text  # named where it sits (the session-B evaluation still covers base/once)
