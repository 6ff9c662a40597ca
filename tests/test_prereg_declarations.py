"""Declarations (README failure 16): metric units/ranges/labels, arm kinds, declared contrasts.

The schema accepts the new forms and refuses their inconsistent variants; old plans keep
their meaning; the pure readers in ``prereg.declarations`` give the typed view the rest of
the toolkit (stats, lint, render, audit) reads.
"""

from __future__ import annotations

import copy
import doctest
import json
from pathlib import Path

import pytest

import prereg.declarations as decl
from prereg.declarations import (
    arm_decls,
    contrast_decls,
    label_index,
    metric_decls,
    normalise_label,
    resolve_label,
)
from prereg.schema import schema_errors

ROOT = Path(__file__).resolve().parents[1]
DEMO = json.loads((ROOT / "examples" / "demo.json").read_text())


def study() -> dict:
    """A demo plan rewritten as a real after-the-fact study: base + SFT references, GRPO trained."""
    p = copy.deepcopy(DEMO)
    p["arms"] = {
        "base": {"kind": "reference", "checkpoint": "base", "labels": ["Base model", "Qwen2.5-0.5B"]},
        "sft": {"kind": "reference", "checkpoint": "runs/sft/checkpoint-500", "evaluated": "once",
                "labels": ["SFT baseline", "SFT"]},
        "grpo": {"algorithm": "grpo", "changes": {}, "labels": ["GRPO", "Dr. GRPO-free GRPO"]},
    }
    p["baseline_arm"] = "base"
    p["hypotheses"] = [
        {"id": "H1", "metric": "solve_rate", "arm": "grpo", "baseline": "base", "direction": "greater"},
        {"id": "H2", "metric": "solve_rate", "arm": "grpo", "baseline": "sft", "direction": "greater"},
    ]
    p["metrics"] = {
        "solve_rate": {"unit": "fraction", "labels": ["Held-out puzzle accuracy"]},
        "solve_pct": {"unit": "percent", "labels": ["Solve rate (%)"]},
        "groups_correct": {"unit": "count", "max": 4, "labels": ["Groups correct"]},
        "pass16": {"unit": "fraction", "kind": "pass_at_k", "k": 16, "n_samples": 32, "column": "correct_of_32",
                   "labels": ["pass@16"]},
        "loss": {"unit": "real", "higher_is_better": False},
    }
    a = p["analysis"]
    a["primary_metric"] = "solve_rate"
    a["secondary_metrics"] = ["solve_pct", "groups_correct", "pass16"]
    a["contrasts"] = {"test": "paired_t", "intervals": [{"method": "t", "level": 0.95}],
                      "pairs": [{"arm": "grpo", "baseline": "base", "hypothesis": "H1"},
                                {"arm": "grpo", "baseline": "sft", "sign": "baseline_minus_arm"},
                                {"arm": "sft", "baseline": "base", "confirmatory": False}]}
    a["multiplicity"] = {"method": "holm", "alpha": 0.05, "family": ["grpo-base", "grpo-sft"]}
    return p


def test_study_validates_and_old_forms_still_do():
    assert schema_errors(study(), "preregistration") == []
    for name in ("demo.json", "e1.json"):
        assert schema_errors(json.loads((ROOT / "examples" / name).read_text()), "preregistration") == []


@pytest.mark.parametrize("edit, fragment", [
    (lambda p: p["arms"]["base"].update(algorithm="grpo"), "arms.base"),  # a reference is not an RL arm
    (lambda p: p["arms"]["sft"].update(changes={}), "arms.sft"),
    (lambda p: p["arms"]["grpo"].pop("algorithm"), "'algorithm' is a required property"),
    (lambda p: p["arms"]["grpo"].update(evaluated="once"), "arms.grpo"),  # trained arms are per seed
    (lambda p: p["arms"]["sft"].update(evaluated="twice"), "arms.sft.evaluated"),
    (lambda p: p["metrics"]["groups_correct"].pop("max"), "'max' is a required property"),
    (lambda p: p["metrics"]["solve_rate"].update(max=1), "metrics.solve_rate"),
    (lambda p: p["metrics"]["pass16"].pop("k"), "'k' is a required property"),
    (lambda p: p["metrics"]["solve_rate"].update(k=4), "metrics.solve_rate"),
    (lambda p: p["metrics"]["solve_rate"].update(unit="other"), "metrics.solve_rate.unit"),
    (lambda p: p["metrics"]["solve_rate"].update(range=[0]), "metrics.solve_rate.range"),
    (lambda p: p["metrics"].update({"bad name": {"unit": "real"}}), "metrics"),
    (lambda p: p["analysis"]["contrasts"]["pairs"][0].pop("baseline"), "'baseline' is a required property"),
    (lambda p: p["analysis"]["contrasts"]["pairs"][0].update(sign="minus"), "pairs[0].sign"),
    (lambda p: p["analysis"]["contrasts"].update(pairs=[]), "contrasts.pairs"),
    (lambda p: p["analysis"]["contrasts"]["pairs"][1].update(baseline="sft2"),  # prereg.crossfield
     "pairs[1].baseline: 'sft2' is not one of the arms"),
])
def test_schema_refuses_inconsistent_declarations(edit, fragment):
    p = study()
    edit(p)
    errs = schema_errors(p, "preregistration")
    assert errs and any(fragment in e for e in errs), errs


def test_metric_decls_units_ranges_and_task_defaults():
    m = metric_decls(study(), reward_range=(0.0, 3.0))
    assert (m["solve_rate"].unit, m["solve_rate"].range, m["solve_rate"].declared) == ("fraction", (0.0, 1.0), True)
    assert (m["solve_pct"].unit, m["solve_pct"].range) == ("percent", (0.0, 100.0))
    assert (m["groups_correct"].unit, m["groups_correct"].max, m["groups_correct"].range) == ("count", 4.0, (0.0, 4.0))
    p16 = m["pass16"]
    assert (p16.kind, p16.k, p16.n_samples, p16.source_column) == ("pass_at_k", 16, 32, "correct_of_32")
    assert m["loss"].higher_is_better is False and m["loss"].range is None
    assert m["solve_rate"].source_column == "solve_rate"
    # run-folder metrics are not declared here: the task's defaults apply
    assert m["heldout_accuracy"].unit == "fraction" and not m["heldout_accuracy"].declared
    assert m["heldout_reward_mean"].range == (0.0, 3.0)
    assert m["zvf_mean"].higher_is_better is False
    # a declaration overrides the default
    p = study()
    p["metrics"]["heldout_accuracy"] = {"unit": "percent"}
    assert metric_decls(p)["heldout_accuracy"].unit == "percent"
    # an undeclared, non-run metric has no declaration (its unit is unknown, not invented)
    p = study()
    del p["metrics"]["solve_pct"]
    assert "solve_pct" not in metric_decls(p)


def test_arm_decls_kinds_and_old_form():
    a = arm_decls(study())
    assert [(x.name, x.kind, x.evaluated, x.is_reference) for x in a.values()] == [
        ("base", "reference", "once", True), ("sft", "reference", "once", True), ("grpo", "trained", "per_seed", False)]
    assert a["grpo"].algorithm == "grpo" and a["base"].algorithm is None
    assert a["sft"].checkpoint == "runs/sft/checkpoint-500" and a["sft"].labels == ("SFT baseline", "SFT")
    old = arm_decls(DEMO)
    assert all(x.kind == "trained" and x.evaluated == "per_seed" for x in old.values())
    p = study()
    p["arms"]["sft"]["evaluated"] = "per_seed"
    assert arm_decls(p)["sft"].evaluated == "per_seed"


def test_contrast_decls_several_baselines_signs_family():
    c = contrast_decls(study())
    assert [(x.id, x.arm, x.baseline) for x in c] == [("grpo-base", "grpo", "base"), ("grpo-sft", "grpo", "sft"),
                                                      ("sft-base", "sft", "base")]
    assert [x.hypothesis for x in c] == ["H1", "H2", None]  # named, found by (arm, baseline), none
    assert [x.confirmatory for x in c] == [True, True, False]
    assert [x.in_family for x in c] == [True, True, False]
    assert [x.reported_sign for x in c] == [1, -1, 1]


def test_old_single_baseline_form_keeps_its_meaning():
    c = contrast_decls(DEMO)
    assert [x.id for x in c] == ["dr_grpo-grpo", "gspo-grpo", "bnpo-grpo", "high_lr-grpo"]
    assert all(x.confirmatory and x.in_family and x.sign == "arm_minus_baseline" for x in c)
    assert [x.hypothesis for x in c] == ["H1", "H2", "H3", "H4"]
    p = copy.deepcopy(DEMO)
    p["analysis"]["contrasts"].pop("baseline")
    p["baseline_arm"] = "gspo"  # no contrast baseline: baseline_arm decides
    assert [x.id for x in contrast_decls(p)] == ["grpo-gspo", "dr_grpo-gspo", "bnpo-gspo", "high_lr-gspo"]
    p["analysis"]["multiplicity"]["family"] = ["grpo-gspo"]
    assert [x.in_family for x in contrast_decls(p)] == [True, False, False, False]


@pytest.mark.parametrize("a, b", [("Dr. GRPO", "dr_grpo"), ("dr_grpo", "drgrpo"), ("DR-GRPO", "dr grpo"),
                                  ("SFT baseline", "sft_baseline"), ("pass@16", "PASS 16"),
                                  ("Held-out GSM8K accuracy", "held_out_gsm8k_accuracy"), ("ＧＲＰＯ", "grpo")])
def test_normalise_label_folds_spellings(a, b):
    assert normalise_label(a) == normalise_label(b)


@pytest.mark.parametrize("a, b", [("GRPO", "DAPO"), ("pass@16", "pass@1"), ("sft", "sft2")])
def test_normalise_label_keeps_different_names_apart(a, b):
    assert normalise_label(a) != normalise_label(b)


def test_label_resolution_and_ambiguity():
    arms = arm_decls(study())
    assert resolve_label(arms, "SFT Baseline") == "sft"
    assert resolve_label(arms, "qwen2.5 0.5b") == "base"
    assert resolve_label(arms, "grpo") == "grpo"
    assert resolve_label(arms, "DAPO") is None
    mets = metric_decls(study())
    assert resolve_label(mets, "Held-out puzzle accuracy") == "solve_rate"
    assert resolve_label(mets, "Groups correct") == "groups_correct"
    p = study()
    p["arms"]["base"]["labels"].append("SFT")  # one label on two arms: ambiguous, resolves to nothing
    arms = arm_decls(p)
    assert label_index(arms)["sft"] == ["base", "sft"]
    assert resolve_label(arms, "SFT") is None


def test_docstring_examples_hold():
    res = doctest.testmod(decl, optionflags=doctest.ELLIPSIS)
    assert res.attempted >= 8 and res.failed == 0


def test_task_record_metrics_fill_undeclared_ones():
    """A run manifest's task record (task.item_metrics, reward_bounds) declares the task's own
    metrics; the plan's declaration wins where both exist."""
    tm = {"groups_correct": {"unit": "count", "max": 4}, "solve_rate": {"unit": "percent"},
          "odd": {"unit": "furlongs"}}
    m = metric_decls(study(), reward_range=(-0.1, 1.6), task_metrics=tm)
    gc = m["groups_correct"]
    assert (gc.unit, gc.range, gc.declared) == ("count", (0.0, 4.0), True)  # the plan declares it
    p = study()
    del p["metrics"]["groups_correct"]
    gc = metric_decls(p, task_metrics=tm)["groups_correct"]
    assert (gc.unit, gc.max, gc.range, gc.declared) == ("count", 4.0, (0.0, 4.0), False)
    assert metric_decls(p, task_metrics=tm)["solve_rate"].unit == "fraction"
    assert "odd" not in metric_decls(p, task_metrics=tm)
    assert m["heldout_reward_mean"].range == (-0.1, 1.6)
