"""prereg.study: the preregistration parsed once into frozen, typed values with defaults."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from prereg.fields import merged_fields
from prereg.rules import off_policy
from prereg.study import study_of

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("name", ["e1.json", "demo.json"])
def test_study_matches_the_preregistration(name):
    p = json.loads((ROOT / "examples" / name).read_text())
    s = study_of(p)
    assert (s.id, s.seeds, s.baseline_arm) == (p["id"], tuple(p["seeds"]), p["baseline_arm"])
    assert list(s.arms) == list(p["arms"])
    for arm, spec in s.arms.items():
        view = merged_fields(p, arm)
        assert dict(spec.training.fields) == view and spec.changes == p["arms"][arm]["changes"]
        assert spec.training.max_steps == view.get("max_steps")
        assert spec.training.off_policy == off_policy(view)
    a = p["analysis"]
    assert s.analysis.primary_metric == a["primary_metric"] and s.analysis.resamples == a["resamples"]
    assert s.analysis.multiplicity.family == tuple(a["multiplicity"]["family"])
    assert s.evaluation.heldout_n == p["dataset"]["heldout_n"]
    assert s.analysis.alternative == a["contrasts"].get("alternative", "two-sided")  # the default, stated once
    assert s.trained_arms == tuple(a for a in p["arms"] if p["arms"][a].get("kind", "trained") == "trained")
    assert [(iv.method, iv.level) for iv in s.analysis.intervals] == \
        [(iv["method"], iv["level"]) for iv in a["contrasts"]["intervals"]]
    assert (s.analysis.arm_summary.statistics, s.analysis.arm_summary.interval, s.analysis.arm_summary.level) == \
        (tuple(a["arm_summary"]["statistics"]), a["arm_summary"]["interval"], a["arm_summary"]["level"])
    assert (s.analysis.power.method, s.analysis.power.target, s.analysis.power.pilot_sd) == \
        (a["power"]["method"], a["power"]["target"], a["power"].get("pilot_sd"))
    assert s.analysis.metrics[0] == a["primary_metric"] and s.analysis.tasks == tuple(a.get("tasks", ()))
    assert list(s.analysis.verdicts) == a["verdicts"]
    assert [(h.id, h.arm, h.baseline, h.metric, h.published_effect) for h in s.hypotheses] == \
        [(h["id"], h["arm"], h["baseline"], h["metric"], h.get("published_effect")) for h in p["hypotheses"]]
    m, d, k = p["model"], p["dataset"], p["task"]  # model, dataset and task as typed values too
    assert (s.model.name, s.model.revision, s.model.dtype) == (m["name"], m["revision"], m.get("dtype"))
    assert (s.dataset.name, s.dataset.revision, s.dataset.heldout_split, s.dataset.heldout_n, s.dataset.train_n) == \
        (d["name"], d["revision"], d["heldout_split"], d["heldout_n"], d.get("train_n"))
    assert (s.task.name, dict(s.task.options)) == (k["name"], k.get("options", {}))


def test_study_is_read_only_and_defaults_apply():
    p = json.loads((ROOT / "examples" / "demo.json").read_text())
    p["training"].pop("num_iterations", None)
    for spec in p["arms"].values():
        spec["changes"].pop("num_iterations", None)
    s = study_of(p)
    arm = next(iter(s.arms.values()))
    assert arm.training.num_iterations == 1 and arm.training.gradient_accumulation_steps >= 1
    p["analysis"].pop("power")
    p["analysis"]["contrasts"].pop("alternative")
    p["analysis"]["secondary_metrics"] = ["heldout_reward_mean", "heldout_accuracy"]
    plan = study_of(p).analysis
    assert plan.power is None and plan.alternative == "two-sided" and plan.item_level == "none" and plan.tasks == ()
    assert plan.metrics == ("heldout_accuracy", "heldout_reward_mean")  # primary first, each once
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.id = "other"
    with pytest.raises(TypeError):
        s.arms["x"] = arm
    with pytest.raises(TypeError):
        arm.training.fields["max_steps"] = 1


def test_lock_gives_its_study(tmp_path):
    from prereg import lock, verify

    src = tmp_path / "demo.json"
    src.write_text((ROOT / "examples" / "demo.json").read_text())
    got = verify(lock(src, lock_dir=tmp_path / "locks"))
    assert got.study.id == got.study_id and got.study is got.study  # parsed once


def test_record_row_schemas_accept_real_rows_and_catch_broken_ones(tmp_path):
    """telemetry_row / trace_row schemas: what the readers (summaries, stats, audit) rely on."""
    from prereg.jsonio import read_jsonl
    from prereg.records import HELDOUT_TRACE, TELEMETRY, TRAIN_TRACE
    from prereg.schema import schema_errors
    from stats.synthetic import make_campaign, small_prereg

    p = small_prereg(json.loads((ROOT / "examples" / "e1.json").read_text()), heldout_n=10, steps=3, seeds=[1, 2])
    c = make_campaign(tmp_path, p)
    run = next(Path(c.runs_dir).rglob("manifest.json")).parent
    tel, train, held = (read_jsonl(run / f) for f in (TELEMETRY, TRAIN_TRACE, HELDOUT_TRACE))
    assert all(schema_errors(r, "telemetry_row") == [] for r in tel)
    assert all(schema_errors(r, "trace_row") == [] for r in train + held)
    assert schema_errors({**tel[0], "zvf": 1.5}, "telemetry_row")  # a ZVF outside [0, 1]
    assert schema_errors({k: v for k, v in tel[0].items() if k != "rollouts"}, "telemetry_row")
    assert schema_errors({**held[0], "correct": "yes"}, "trace_row")
    assert schema_errors({**train[0], "completion_sha256": "abc"}, "trace_row")


def test_analysis_schema_requires_what_render_and_audit_read(tmp_path):
    from prereg.schema import load_schema, schema_errors
    from stats import analyze
    from stats.synthetic import make_campaign, small_prereg

    required = set(load_schema("analysis")["required"])
    assert {"plan", "arms", "baseline", "contrasts", "values", "verdicts", "inputs", "lock"} <= required
    p = small_prereg(json.loads((ROOT / "examples" / "e1.json").read_text()), heldout_n=10, steps=3, seeds=[1, 2, 3])
    p["analysis"]["resamples"] = 200
    c = make_campaign(tmp_path, p)
    doc = dict(analyze(c.lock_path, c.runs_dir, log_look=False).document)
    assert schema_errors(doc, "analysis") == []
    assert any("'contrasts' is a required property" in e
               for e in schema_errors({k: v for k, v in doc.items() if k != "contrasts"}, "analysis"))


def test_audit_reads_the_study_and_survives_a_lock_whose_preregistration_breaks_its_schema(tmp_path):
    """AuditContext.study is the typed preregistration; a lock edited out of its schema has none:
    check 1 fails it and check 4 says it compared nothing, instead of a traceback."""
    from audit.context import load_context
    from audit.engine import run_audit
    from stats.analyze import analyze, write
    from stats.render import render
    from stats.synthetic import make_campaign, small_prereg

    p = small_prereg(json.loads((ROOT / "examples" / "e1.json").read_text()), heldout_n=12, steps=2, seeds=[1, 2])
    p["analysis"]["resamples"] = 200
    c = make_campaign(tmp_path, p)
    report = tmp_path / "report"
    render(write(analyze(c.lock_path, c.runs_dir), report / "analysis.json"), report, figures=False)
    ctx = load_context(report, lock=c.lock_path, runs=c.runs_dir)
    assert ctx.study.arms["dapo"].changes == p["arms"]["dapo"]["changes"] and ctx.study is ctx.study
    res = run_audit(report, lock=c.lock_path, runs=c.runs_dir, only=["1", "4"])
    assert res.passed and not res.findings

    lock = json.loads(c.lock_path.read_text())
    del lock["preregistration"]["arms"]["dapo"]["algorithm"]
    c.lock_path.write_text(json.dumps(lock))
    assert load_context(report, lock=c.lock_path, runs=c.runs_dir).study is None
    res = run_audit(report, lock=c.lock_path, runs=c.runs_dir, only=["1", "4"])
    by = {r.check: r for r in res.results}
    assert by["1"].status == "fail" and not res.passed
    assert any("does not validate" in n for n in by["4"].notes)


def test_sequential_spec_holds_the_defaults_and_the_design_reads_it():
    """analysis.sequential is parsed once (prereg.study.SequentialSpec) with the schema's defaults;
    the sequential design (prereg.seqdesign.plan_of) and the boundary plot read that one view."""
    from prereg.looks import look_of_seed, registered_looks
    from prereg.seqdesign import plan_of
    from prereg.study import SEQUENTIAL_DRAWS, analysis_plan

    p = json.loads((ROOT / "examples" / "e1.json").read_text())
    assert analysis_plan(p["analysis"]).sequential is None  # a fixed design
    assert registered_looks(study_of(p)) is None
    p["seeds"] = [1, 2, 3, 4, 5]
    p["analysis"]["sequential"] = {"looks": [3, 5], "spending": "pocock"}
    seq = study_of(p).analysis.sequential
    assert (seq.looks, seq.spending, seq.gamma) == ((3, 5), "pocock", None)
    assert (seq.futility, seq.beta, seq.beta_spending, seq.small_sample, seq.calibration_draws, seq.inference) == \
        ("none", 0.2, "obrien_fleming", "t_calibrated", SEQUENTIAL_DRAWS, "stagewise")
    st = study_of(p)
    assert registered_looks(st) == [3, 5] and [look_of_seed(st, s) for s in p["seeds"]] == [1, 1, 1, 2, 2]
    d = plan_of(st)
    assert (d.looks, d.spec.spending, d.spec.futility, d.small_sample, d.draws, d.inference) == \
        (seq.looks, "pocock", "none", "t_calibrated", SEQUENTIAL_DRAWS, "stagewise")
    p["analysis"]["sequential"].update(spending="hsd", gamma=-2, small_sample="t_tail", calibration_draws=5000,
                                       futility={"type": "non_binding", "beta": 0.1, "spending": "pocock"})
    seq = study_of(p).analysis.sequential
    assert (seq.gamma, seq.futility, seq.beta, seq.beta_spending, seq.small_sample, seq.calibration_draws) == \
        (-2, "non_binding", 0.1, "pocock", "t_tail", 5000)
    d = plan_of(study_of(p))
    assert (d.spec.gamma, d.spec.futility, d.spec.beta, d.spec.beta_spending, d.small_sample, d.draws) == \
        (-2, "non_binding", 0.1, "pocock", "t_tail", 5000)
    assert d.effect == study_of(p).analysis.effect_of_interest
    with pytest.raises(dataclasses.FrozenInstanceError):
        seq.looks = (2, 5)


def test_registration_reads_the_parsed_study_and_the_raw_plan_alike():
    """``unregistered_reason`` / ``registered_evaluations`` take the parsed Study (stats asks once per
    run folder and no longer re-parses the arms each time) and give what they give for the raw plan."""
    from prereg.declarations import arm_decls, registered_evaluations, unregistered_reason

    p = json.loads((ROOT / "examples" / "e1.json").read_text())
    p["arms"]["base"] = {"kind": "reference", "labels": ["Base model"]}
    p["arms"]["sft"] = {"kind": "reference", "evaluated": "per_seed"}
    s = study_of(p)
    assert dict(s.arm_decls) == arm_decls(p)
    assert registered_evaluations(s) == registered_evaluations(p)
    assert ("base", None) in registered_evaluations(s) and ("sft", p["seeds"][0]) in registered_evaluations(s)
    cases = [(a, seed, kind) for a in (*p["arms"], "nope", None) for seed in (None, p["seeds"][0], 999, True)
             for kind in (None, "trained", "reference")]
    reasons = [unregistered_reason(s, *c) for c in cases]
    assert reasons == [unregistered_reason(p, *c) for c in cases]
    assert None in reasons and "unregistered seed 999" in reasons  # both branches exercised
    assert unregistered_reason(s, "base", 3, "reference") == \
        "seed 3 for reference arm 'base', which is evaluated once (no seed)"


def test_the_default_alternative_is_one_value_every_reader_takes(monkeypatch):
    """``analysis.contrasts.alternative`` left out means two-sided: the default was written in five
    places (the typed study, two lint rules, the verdict scan, the power helpers); now lint and the
    verdict scan read the typed study, which prereg.study.alternative_of fills, so changing the one
    default moves them all."""
    import prereg.study as study
    from prereg.lint import lint

    p = json.loads((ROOT / "examples" / "e1.json").read_text())
    p["analysis"]["contrasts"].pop("alternative", None)
    p["hypotheses"] = [{**h, "direction": "two-sided"} for h in p["hypotheses"]]
    assert study_of(p).analysis.alternative == study.alternative_of(p["analysis"]) == "two-sided"
    assert "hypothesis-direction" not in {f.rule for f in lint(p, ["hypothesis-direction"])}
    assert lint(p, ["verdict-asymmetric"]) != []  # E1's rules are not mirror images (a two-sided plan)
    monkeypatch.setattr(study, "ALTERNATIVE", "greater")
    assert study_of(p).analysis.alternative == study.alternative_of(p["analysis"]) == "greater"
    found = [f.path for f in lint(p, ["hypothesis-direction"])]
    assert found == [f"$.hypotheses[{i}].direction" for i in range(len(p["hypotheses"]))]
    assert lint(p, ["verdict-asymmetric"]) == []  # a one-sided plan is asymmetric on purpose


def test_evaluated_once_is_one_property():
    """``kind: reference`` with ``evaluated: once`` (the reference default) was tested as
    ``is_reference and evaluated == "once"`` in seven places; ArmDecl.evaluated_once is the one test."""
    from prereg.declarations import arm_decls, registered_evaluations

    p = {"arms": {"base": {"kind": "reference"}, "sft": {"kind": "reference", "evaluated": "per_seed"},
                  "ref1": {"kind": "reference", "evaluated": "once"}, "grpo": {"algorithm": "grpo", "changes": {}}},
         "seeds": [1, 2]}
    decls = arm_decls(p)
    assert {a for a, d in decls.items() if d.evaluated_once} == {"base", "ref1"}
    assert {a for a, s in registered_evaluations(p) if s is None} == {"base", "ref1"}
