"""Inference lint rules (prereg/lint_inference.py): each fires on an E1-like plan and is quiet on a sound one.

Issue 13 findings 2, 3, 4 and 8 are warned about at lint time, before any run.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest

from prereg import power as pw
from prereg.lint import lint
from prereg.schema import schema_errors

ROOT = Path(__file__).resolve().parents[1]
DEMO = json.loads((ROOT / "examples" / "demo.json").read_text())
E1 = json.loads((ROOT / "examples" / "e1.json").read_text())


def doc(base, *edits):
    d = copy.deepcopy(base)
    for path, value in edits:
        obj = d
        for k in path[:-1]:
            obj = obj[k]
        if value is _POP:
            obj.pop(path[-1])
        else:
            obj[path[-1]] = value
    assert schema_errors(d, "preregistration") == []
    return d


_POP = object()
E1_RULES = E1["analysis"]["verdicts"]
SOUND_RULES = [
    {"verdict": "REVERSES", "when": [{"check": "upper_below", "level": 0.95, "value": 0},
                                     {"check": "multiplicity_rejects"}]},
    {"verdict": "SURVIVES", "when": [{"check": "lower_above", "level": 0.95, "value": 0},
                                     {"check": "multiplicity_rejects"}]},
    {"verdict": "EQUIVALENT", "when": [{"check": "tost_equivalent"}]},
    {"verdict": "INCONCLUSIVE", "when": []}]
T_INTERVALS = [{"method": "t", "level": 0.95}, {"method": "t", "level": 0.90}]
# a sound E1: t intervals, Holm, symmetric rules, TOST, enough seeds for TOST at pilot SD = margin / 2
SOUND = doc(E1, (("analysis", "arm_summary", "interval"), "t"), (("analysis", "contrasts", "intervals"), T_INTERVALS),
            (("analysis", "multiplicity", "method"), "holm"), (("analysis", "verdicts"), SOUND_RULES),
            (("analysis", "power", "pilot_sd"), 0.005))

FIRING = {
    "interval-coverage": [
        E1,  # percentile arm interval and paired_bootstrap contrast intervals at 8 seeds
        doc(SOUND, (("analysis", "arm_summary", "interval"), "bca")),
        doc(SOUND, (("analysis", "arm_summary", "statistics"), ["median"]), (("seeds",), [1, 2, 3])),
    ],
    "item-level-pooled": [doc(SOUND, (("analysis", "contrasts", "item_level"), "mcnemar")),
                          doc(SOUND, (("analysis", "contrasts", "item_level"), "paired_bootstrap"))],
    "iqm-few-seeds": [doc(SOUND, (("analysis", "arm_summary", "statistics"), ["iqm"]), (("seeds",), [1, 2, 3]))],
    "bh-confirmatory": [E1, doc(SOUND, (("analysis", "multiplicity", "method"), "bh"))],
    "verdict-asymmetric": [E1, doc(SOUND, (("analysis", "verdicts"), [SOUND_RULES[0], SOUND_RULES[3]]))],
    "verdict-dead-rule": [E1, doc(SOUND, (("analysis", "verdicts"), [SOUND_RULES[3], *SOUND_RULES[:3]]))],
    "equivalence-power": [
        E1,  # the ad hoc interval-and-MDE rule
        doc(SOUND, (("analysis", "power", "pilot_sd"), 0.01)),  # TOST, but 8 seeds give 0.64 < 0.80
        doc(SOUND, (("analysis", "power"), {"method": "exact_noncentral_t", "alpha": 0.05, "target": 0.8})),
    ],
    "noninferiority-plan": [
        doc(SOUND, (("analysis", "verdicts"), [{"verdict": "NONINFERIOR", "when": [{"check": "noninferior"}]},
                                               SOUND_RULES[3]])),
        doc(SOUND, (("analysis", "noninferiority_margin"), 0.002),
            (("analysis", "verdicts"), [{"verdict": "NONINFERIOR", "when": [{"check": "noninferior"}]},
                                        SOUND_RULES[3]])),
    ],
}
NOT_FIRING = {
    "interval-coverage": [SOUND, doc(SOUND, (("seeds",), list(range(1, 21))),
                                     (("analysis", "arm_summary", "interval"), "bootstrap_t"))],
    "item-level-pooled": [doc(SOUND, (("analysis", "contrasts", "item_level"), "cluster_t")),
                          doc(SOUND, (("analysis", "contrasts", "item_level"), "crossed_bootstrap"))],
    "iqm-few-seeds": [doc(SOUND, (("analysis", "arm_summary", "statistics"), ["iqm"]), (("seeds",), [1, 2, 3, 4]))],
    "bh-confirmatory": [SOUND, doc(SOUND, (("analysis", "multiplicity", "method"), "bh"),
                                   (("evidence_class",), "exploratory"))],
    "verdict-asymmetric": [SOUND, doc(SOUND, (("analysis", "verdicts"), [SOUND_RULES[0], SOUND_RULES[3]]),
                                      (("analysis", "contrasts", "alternative"), "less"),
                                      *[(("hypotheses", i, "direction"), "less") for i in range(4)])],
    "verdict-dead-rule": [SOUND, doc(E1, *[(("hypotheses", i, "published_effect"), 0.02) for i in range(4)])],
    "equivalence-power": [SOUND],
    "noninferiority-plan": [SOUND, doc(SOUND, (("analysis", "noninferiority_margin"), 0.01),
                                       (("analysis", "verdicts"),
                                        [{"verdict": "NONINFERIOR", "when": [{"check": "noninferior"}]},
                                         SOUND_RULES[3]]))],
}


def rules_of(d, rules=None):
    """The rules that fire on ``d`` (only among ``rules`` when given: each rule reads the plan alone)."""
    return {f.rule for f in lint(d, rules)}


@pytest.mark.parametrize("rule_id,case", [(r, i) for r, cs in FIRING.items() for i in range(len(cs))])
def test_rule_fires(rule_id, case):
    found = [f for f in lint(FIRING[rule_id][case], [rule_id]) if f.rule == rule_id]  # the rule alone: same findings
    assert found, f"{rule_id} did not fire on case {case}"
    assert all(f.path.startswith("$") and f.message for f in found)


@pytest.mark.parametrize("rule_id,case", [(r, i) for r, cs in NOT_FIRING.items() for i in range(len(cs))])
def test_rule_quiet_on_sound_plan(rule_id, case):
    assert rule_id not in rules_of(NOT_FIRING[rule_id][case], [rule_id])


def test_sound_plan_lints_clean():
    assert lint(SOUND) == []


def test_e1_asymmetry_is_reverses_against_disappears():
    [f] = [f for f in lint(E1) if f.rule == "verdict-asymmetric"]
    assert "gets REVERSES (rule 0)" in f.message and "gets DISAPPEARS (rule 1)" in f.message


def test_e1_dead_retains_names_the_missing_published_effect():
    [f] = [f for f in lint(E1) if f.rule == "verdict-dead-rule"]
    assert f.path == "$.analysis.verdicts[2]" and "published_effect" in f.message


def test_e1_equivalence_power_is_of_the_verdict_applied():
    """Finding 3: lint reports the power of the verdict E1 applies, not of a difference test."""
    [f] = [f for f in lint(E1) if f.rule == "equivalence-power"]
    applied = pw.power_equivalence(0.01, 0.01, 8, 0.05, rule="interval_and_mde", level=0.9)
    tost = pw.power_equivalence(0.01, 0.01, 8, 0.05)
    assert f"power {applied:.2f}" in f.message and f"TOST at the same seeds has {tost:.2f}" in f.message
    assert round(applied, 2) == 0.32 and round(tost, 2) == 0.64
    assert f"needs {pw.n_required_equivalence(0.01, 0.01)} seeds with TOST" in f.message
    assert "seeds-underpowered" not in rules_of(E1)  # the difference-test power no longer stands in for it


def test_coverage_warning_quotes_the_shipped_table():
    from stats.coverage import lookup

    [f] = [f for f in lint(FIRING["interval-coverage"][1]) if f.rule == "interval-coverage"]
    cov, tn, _ = lookup("bca", 8, ("bounded",))
    assert f"covered only {cov:.3f} at n={tn}" in f.message


@pytest.mark.slow  # subprocess; fast tier: test_no_torch times lint the same way
def test_lint_stays_torch_free_and_fast():
    code = ("import sys, time\n"
            "class Block:\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name.split('.')[0] in ('torch', 'transformers', 'trl', 'peft'):\n"
            "            raise ImportError('blocked ' + name)\n"
            "sys.meta_path.insert(0, Block())\n"
            "import json\n"
            "from prereg.lint import lint\n"
            f"d = json.load(open({str(ROOT / 'examples' / 'e1.json')!r}))\n"
            "t = time.process_time(); lint(d); print(time.process_time() - t)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert float(r.stdout.strip()) < 5.0  # CPU seconds for all rules (scan + exact power), not wall time


@pytest.mark.parametrize("seeds", [[1], [4]])
def test_one_seed_plan_is_a_finding_naming_seeds_not_a_crash(seeds, tmp_path, capsys):
    """The schema allows 1 seed (minItems 1): the equivalence-power rule reports that one seed
    cannot support TOST's paired t, at $.seeds, where it used to raise "n: needs at least 2"
    (exit 2 from `prereg lint`, naming no field). A repeated seed ([4, 4]) is a schema error now
    (tests/test_seed_rule.py)."""
    from prereg.cli import main

    one = doc(E1, (("seeds",), seeds))
    [f] = [f for f in lint(one, ["equivalence-power"])]
    assert f.path == "$.seeds" and f.message.startswith("1 seed cannot support a t test")
    assert f"needs {pw.n_required_equivalence(0.01, 0.01)} seeds with TOST" in f.message
    path = tmp_path / "one.json"
    path.write_text(json.dumps(one))
    assert main(["lint", str(path)]) == 0  # findings are warnings
    out, err = capsys.readouterr()
    assert "warning: $.seeds: 1 seed cannot support a t test" in out and "Traceback" not in out + err
    assert main(["lint", "--strict", str(path)]) == 2
    out, err = capsys.readouterr()
    assert "error: $.seeds: 1 seed cannot support a t test" in out and "Traceback" not in out + err


def test_three_seed_plan_lints_as_before():
    """Clean side: with 3 seeds the rule reports the power of the applied verdict, at the verdict."""
    three = doc(E1, (("seeds",), [1, 2, 3]))
    [f] = lint(three, ["equivalence-power"])
    applied = pw.power_equivalence(0.01, 0.01, 3, 0.05, rule="interval_and_mde", level=0.9)
    assert f.path == "$.analysis.verdicts[1]" and f.message.startswith("3 seeds give the DISAPPEARS verdict")
    assert f"power {applied:.2f}" in f.message and "cannot support" not in f.message
