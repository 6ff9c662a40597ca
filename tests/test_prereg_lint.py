"""Every lint rule fires on the pitfall it names and stays quiet on the near miss."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from prereg.cli import main
from prereg.lint import RULES, VOLATILE_DEFAULTS, lint, lint_file
from prereg.schema import schema_errors

ROOT = Path(__file__).resolve().parents[1]
DEMO = json.loads((ROOT / "examples" / "demo.json").read_text())
E1 = json.loads((ROOT / "examples" / "e1.json").read_text())


def mutate(fn, base=DEMO):
    doc = copy.deepcopy(base)
    fn(doc)
    assert schema_errors(doc, "preregistration") == [], "mutation must stay schema-valid"
    return doc


def rules_of(doc):
    return {f.rule for f in lint(doc)}


def test_demo_lints_clean():
    assert lint(DEMO) == []


def test_e1_warns_about_its_inference_plan():
    # e1 is what the published study did: percentile intervals at 8 seeds, BH for confirmatory verdicts,
    # asymmetric verdict rules with a dead RETAINS, and an ad hoc equivalence verdict (pilot SD 0.01 =
    # margin: TOST power 0.64, the planned rule 0.32); tests/test_prereg_lint_inference.py checks each.
    rules = {f.rule for f in lint(E1)}
    assert rules == {"interval-coverage", "bh-confirmatory", "verdict-asymmetric", "verdict-dead-rule",
                     "equivalence-power"}


def _drop_shared(field):
    def fn(d):
        d["training"].pop(field, None)
        for arm in d["arms"].values():
            arm["changes"].pop(field, None)
    return fn


def _set(path, value):
    def fn(d):
        obj = d
        for k in path[:-1]:
            obj = obj[k]
        obj[path[-1]] = value
    return fn


def _pop(path):
    def fn(d):
        obj = d
        for k in path[:-1]:
            obj = obj[k]
        obj.pop(path[-1])
    return fn


def _both(*fns):
    def fn(d):
        for f in fns:
            f(d)
    return fn


FIRING = {
    "library-default": [_drop_shared(f) for f in VOLATILE_DEFAULTS],
    "gspo-on-policy": [
        _both(_pop(("arms", "gspo", "changes", "steps_per_generation")),
              _pop(("arms", "gspo", "changes", "num_iterations"))),
        _both(_set(("arms", "gspo", "changes", "steps_per_generation"), None),
              _set(("arms", "gspo", "changes", "num_iterations"), 1)),
        # an arm with sequence-level ratios is GSPO-like whatever its algorithm label says
        _set(("arms", "bnpo", "changes", "importance_sampling_level"), "sequence"),
    ],
    "dr-grpo-std-scaling": [
        _pop(("arms", "dr_grpo", "changes", "scale_rewards")),
        _set(("arms", "dr_grpo", "changes", "scale_rewards"), "batch"),
        _pop(("arms", "dr_grpo", "changes", "loss_type")),
    ],
    "arm-algorithm-mismatch": [
        _pop(("arms", "gspo", "changes", "importance_sampling_level")),
        _set(("arms", "bnpo", "changes", "loss_type"), "dapo"),
        _set(("arms", "bnpo", "algorithm"), "dapo"),  # dapo without clip-higher
        _set(("arms", "bnpo", "algorithm"), "aero"),  # aero without aero_* settings
        _set(("arms", "grpo", "changes"), {"importance_sampling_level": "sequence", "num_iterations": 2}),
    ],
    "arm-identical-to-baseline": [_set(("arms", "bnpo", "changes"), {"loss_type": "grpo"})],
    # a baseline that is not an arm is a validation error now (prereg.crossfield), not a lint
    "baseline-unknown": [_set(("analysis", "contrasts", "baseline"), "bnpo")],
    "hypothesis-unknown-arm": [
        _set(("hypotheses", 0, "arm"), "dapo"),
        _set(("hypotheses", 0, "baseline"), "ghost"),
        _set(("hypotheses", 0, "baseline"), "bnpo"),
        _set(("hypotheses", 2, "arm"), "grpo"),
    ],
    "multiplicity-family": [
        _set(("analysis", "multiplicity", "family"), ["dr_grpo-grpo", "gspo-grpo", "dapo-grpo"]),
        _set(("analysis", "multiplicity", "family"), ["dr_grpo-grpo", "gspo-grpo", "gspo-grpo"]),
        _set(("analysis", "multiplicity", "family"), []),
        _set(("analysis", "multiplicity", "family"), ["dr_grpo-grpo", "gspo-grpo"]),  # H3 uncorrected
        _both(_set(("analysis", "multiplicity", "method"), "none"),
              _set(("analysis", "verdicts"), [{"verdict": "INCONCLUSIVE", "when": []}])),
    ],
    "hypothesis-direction": [
        _set(("hypotheses", 0, "direction"), "greater"),
        _set(("analysis", "contrasts", "alternative"), "less"),
    ],
    "heldout-is-train": [_set(("dataset", "heldout_split"), "train")],
    "unpinned-revision": [
        _set(("model",), {"name": "Qwen/Qwen2.5-0.5B", "revision": None}),
        _set(("model",), {"name": "Qwen/Qwen2.5-0.5B", "revision": "main"}),
        _set(("model",), {"name": "Qwen/Qwen2.5-0.5B", "revision": "v1.0"}),
        _set(("dataset", "revision"), None),
        _set(("dataset", "revision"), "main"),
        _both(_set(("dataset", "name"), "openai/gsm8k"), _set(("dataset", "revision"), "main")),
    ],
    "seeds-underpowered": [
        _set(("analysis", "power", "pilot_sd"), 0.01),  # d = 1 with 3 seeds
        _set(("analysis", "power", "pilot_sd"), 0.5),  # pilot SD without effect or margin
    ],
    "power-normal-approximation": [_set(("analysis", "power", "method"), "normal_approximation")],
    "verdict-plan": [
        _both(_set(("analysis", "verdicts"), E1["analysis"]["verdicts"]), _pop(("analysis", "equivalence_margin"))),
        _both(_set(("analysis", "verdicts"), E1["analysis"]["verdicts"]), _pop(("analysis", "power"))),
        _set(("analysis", "verdicts", 0, "when", 0, "level"), 0.99),
        _set(("analysis", "verdicts"), [{"verdict": "SURVIVES", "when": [{"check": "lower_above", "level": 0.95,
                                                                         "value": 0}]}]),
        _set(("analysis", "multiplicity", "method"), "none"),
    ],
    "metric-mismatch": [_set(("hypotheses", 1, "metric"), "train_reward")],
    "eval-decoding": [
        _set(("evaluation", "decoding"), "sample"),
        _set(("evaluation", "temperature"), 0.7),
    ],
    "eval-shorter-than-training": [
        _set(("evaluation", "max_new_tokens"), 8),
        _set(("arms", "gspo", "changes", "max_completion_length"), 32),
    ],
}


REF = {"kind": "reference", "checkpoint": "base", "labels": ["Base model"]}
PAIRS = ("analysis", "contrasts", "pairs")
FIRING["declarations"] = [
    _set(("metrics",), {"heldout_accuracy": {"unit": "fraction", "range": [0, 2]}}),  # wider than a fraction
    _set(("metrics",), {"heldout_accuracy": {"unit": "real", "range": [1, 1]}}),  # empty range
    _set(("metrics",), {"gc": {"unit": "count", "max": 4, "range": [0, 5]}}),
    _set(("metrics",), {"pk": {"unit": "fraction", "kind": "pass_at_k", "k": 16, "n_samples": 8}}),
    _set(("metrics",), {"pk": {"unit": "count", "max": 1, "kind": "pass_at_k", "k": 1, "n_samples": 8}}),
    _set(("analysis", "secondary_metrics"), ["groups_correct"]),  # planned, unit unknown
    _both(_set(("arms", "grpo", "labels"), ["GRPO"]), _set(("arms", "bnpo", "labels"), ["g-r-p-o"])),
    _set(("metrics",), {"a": {"unit": "real", "labels": ["Acc"]}, "b": {"unit": "real", "labels": ["acc."]}}),
    _set(("arms", "base"), {"kind": "reference"}),  # does not say what was evaluated
    _set(("arms", "base"), {**REF, "evaluated": "per_seed"}),  # greedy: every seed's evaluation the same
    # sessions (README failure 16): named like seed 2's tag with no labels; a label reading as seed 3's
    # tag; a label naming an arm
    _both(_set(("seeds",), [1, 2, 3]), _set(("sessions",), {"s1": {"labels": ["first pass"]}, "s2": {}})),
    _both(_set(("seeds",), [1, 2, 3]), _set(("sessions",), {"a": {"labels": ["s3"]}})),
    _set(("sessions",), {"a": {}, "b": {"labels": ["GRPO"]}}),
]
FIRING["contrast-plan"] = [
    _set(PAIRS, [{"arm": "grpo", "baseline": "grpo"}]),
    _set(PAIRS, [{"arm": "gspo", "baseline": "grpo", "hypothesis": "H9"}]),
    _set(PAIRS, [{"arm": "gspo", "baseline": "grpo", "hypothesis": "H1"}]),  # H1 is dr_grpo vs grpo
    _set(PAIRS, [{"arm": "gspo", "baseline": "grpo"}, {"arm": "gspo", "baseline": "grpo"}]),
    _set(PAIRS, [{"arm": "dr_grpo", "baseline": "grpo", "confirmatory": False}]),  # exploratory in the family
    _both(_set(("arms", "base"), REF), _set(PAIRS, [{"arm": "grpo", "baseline": "base"}])),  # unit seed, no seeds
    _set(("analysis", "unit"), "item"),  # items as the unit over 3 seeds: seeds treated as fixed
    _set(("seeds",), [7]),  # unit seed with one seed: no seed-level interval can exist
]

SEQ = ("analysis", "sequential")
_SEQ23 = {"looks": [2, 3], "spending": "pocock", "calibration_draws": 20_000}
FIRING["sequential-plan"] = [
    _both(_set(SEQ, _SEQ23), _set(("analysis", "contrasts", "test"), "wilcoxon")),
    _set(SEQ, {**_SEQ23, "futility": {"type": "binding"}}),  # beta-spending without a pilot SD
]
FIRING["sequential-underpowered"] = [
    _both(_set(SEQ, _SEQ23), _set(("analysis", "power", "pilot_sd"), 0.03),
          _set(("analysis", "power", "effect"), 0.01)),
]


def test_reference_arms_are_not_training_arms():
    """A base model and an SFT checkpoint declared as reference arms: no 'treatment not wired',
    no algorithm rules, and contrasts against them are planned (README failure 16)."""
    doc = mutate(_both(_set(("arms", "base"), REF),
                       _set(("arms", "sft"), {"kind": "reference", "checkpoint": "ckpt/sft-500"}),
                       _set(("analysis", "unit"), "seed_item"),
                       _set(PAIRS, [{"arm": "grpo", "baseline": "base"}, {"arm": "grpo", "baseline": "sft"},
                                    {"arm": "dr_grpo", "baseline": "grpo"}, {"arm": "gspo", "baseline": "grpo"},
                                    {"arm": "bnpo", "baseline": "grpo"}, {"arm": "high_lr", "baseline": "grpo"}])))
    assert lint(doc) == []
    # the old way: the same checkpoints as fake RL arms with no changes are 'not wired'
    old = mutate(_both(_set(("arms", "base"), {"algorithm": "grpo", "changes": {}}),
                       _set(("arms", "sft"), {"algorithm": "grpo", "changes": {}})))
    assert {f.path for f in lint(old) if f.rule == "arm-identical-to-baseline"} == {
        "$.arms.base.changes", "$.arms.sft.changes"}


def test_every_rule_has_firing_cases():
    from tests.test_prereg_lint_inference import FIRING as INFERENCE_FIRING

    assert set(FIRING) | set(INFERENCE_FIRING) == set(RULES)


@pytest.mark.parametrize("rule_id,case", [(r, i) for r, cases in FIRING.items() for i in range(len(cases))])
def test_rule_fires(rule_id, case):
    doc = FIRING[rule_id][case]
    if rule_id == "seeds-underpowered" and case == 1:
        doc = _both(doc, _pop(("analysis", "equivalence_margin")),
                    _set(("analysis", "verdicts"), [{"verdict": "INCONCLUSIVE", "when": []}]))
    findings = [f for f in lint(mutate(doc)) if f.rule == rule_id]
    assert findings, f"{rule_id} did not fire"
    for f in findings:
        assert f.path.startswith("$") and f.message


NOT_FIRING = {
    # tiny: models need no revision; a 40-hex commit is pinned
    "unpinned-revision": [
        _set(("model", "revision"), None),
        _set(("model",), {"name": "Qwen/Qwen3-8B", "revision": "b968826d9c46dd6066d109eabc6255188de91218"}),
        _both(_set(("dataset", "name"), "openai/gsm8k"),
              _set(("dataset", "revision"), "740312add88f781978c0658806c59bc2815b9866")),
        _both(_set(("dataset", "name"), "local/arith"), _set(("dataset", "path"), "data/a.jsonl"),
              _set(("dataset", "revision"), "sha256:0f3a")),
    ],
    "gspo-on-policy": [
        _pop(("arms", "gspo", "changes", "num_iterations")),  # steps_per_generation 2 still off-policy
        _both(_pop(("arms", "gspo", "changes", "steps_per_generation")),
              _set(("arms", "gspo", "changes", "num_iterations"), 3)),
    ],
    "seeds-underpowered": [
        _set(("analysis", "power", "pilot_sd"), 0.001),  # d = 10: 3 seeds are plenty
        _both(_set(("analysis", "power", "pilot_sd"), 0.05), _set(("analysis", "power", "effect"), 0.5)),
    ],
    "eval-decoding": [_both(_set(("evaluation", "decoding"), "sample"), _set(("evaluation", "temperature"), 1.0)),
                      _set(("evaluation", "temperature"), 0)],
    "eval-shorter-than-training": [_set(("evaluation", "max_new_tokens"), 64)],
    "hypothesis-direction": [_both(*[_set(("hypotheses", i, "direction"), "greater")
                                     for i in range(len(DEMO["hypotheses"]))],
                                   _set(("analysis", "contrasts", "alternative"), "greater"))],
    "arm-algorithm-mismatch": [_set(("arms", "bnpo"), {"algorithm": "dapo", "changes": {
        "loss_type": "dapo", "epsilon_high": 0.28}})],
    "declarations": [_both(_set(("seeds",), [1, 2, 3]), _set(("sessions",), {  # labelled, or not seed-like
        "s1": {"labels": ["first evaluation"]}, "s2": {"labels": ["Nov 20 re-run"]}, "s9": {}, "late": {}}))],
    "multiplicity-family": [_both(_set(("analysis", "multiplicity", "method"), "none"),
                                  _set(("hypotheses",), DEMO["hypotheses"][:1]),
                                  _set(("analysis", "verdicts"), [{"verdict": "INCONCLUSIVE", "when": []}]))],
}


@pytest.mark.parametrize("rule_id,case", [(r, i) for r, cases in NOT_FIRING.items() for i in range(len(cases))])
def test_rule_quiet_on_near_miss(rule_id, case):
    assert rule_id not in rules_of(mutate(NOT_FIRING[rule_id][case]))


def test_library_default_names_each_arm_missing_the_field():
    doc = mutate(_pop(("training", "loss_type")))
    [f] = [f for f in lint(doc) if f.rule == "library-default"]
    # dr_grpo and bnpo set loss_type themselves; grpo and gspo inherit the library default
    assert f.path == "$.training.loss_type" and "grpo, gspo" in f.message


def test_seed_rule_uses_exact_noncentral_t():
    from prereg.power import n_required_paired

    doc = mutate(_both(_set(("analysis", "power", "pilot_sd"), 0.01),
                       _set(("seeds",), list(range(1, 10)))))
    need = n_required_paired(0.01, 0.01, 0.05, 0.80)
    assert need == 10
    assert "seeds-underpowered" in rules_of(doc)  # 9 < 10
    assert "seeds-underpowered" not in rules_of(mutate(_both(_set(("analysis", "power", "pilot_sd"), 0.01),
                                                             _set(("seeds",), list(range(1, 11))))))


def test_lint_cli_strict_and_json(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(mutate(_set(("dataset", "heldout_split"), "train"))))
    assert main(["lint", str(bad)]) == 0
    out = capsys.readouterr().out
    assert "warning: $.dataset.heldout_split" in out and "[heldout-is-train]" in out
    assert main(["lint", "--strict", str(bad)]) == 2
    cap = capsys.readouterr()
    assert "error: $.dataset.heldout_split" in cap.out and cap.err.count("\n") == 1 and cap.err.startswith("error: ")
    assert main(["lint", "--json", str(bad)]) == 0
    assert {f["rule"] for f in json.loads(capsys.readouterr().out)} == {"heldout-is-train"}
    assert main(["lint", "--strict", str(ROOT / "examples" / "demo.json")]) == 0


def test_lint_reads_a_lock_too(tmp_path):
    from prereg.lock import lock_file

    lock = lock_file(ROOT / "examples" / "e1.json", lock_dir=tmp_path)
    assert {f.rule for f in lint_file(lock)} == {f.rule for f in lint(E1)}
