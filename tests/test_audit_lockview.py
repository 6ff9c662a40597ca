"""audit.lockview: the one tolerant reading of the lock the report readers share.

A lock may fail its schema (check 1 reports it) and every other check still runs; the readers
then get empty values or the plan's defaults from one place, never an exception, and a valid
lock reads exactly as its typed Study says.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from audit.claims import facts_of
from audit.lockview import DEFAULT_ALPHA, DEFAULT_PRIMARY, LockView, lock_view
from audit.words import vocabulary
from prereg.study import study_of

ROOT = Path(__file__).resolve().parents[1]
E1 = json.loads((ROOT / "examples" / "e1.json").read_text())


def test_a_valid_lock_reads_as_its_study():
    v, s = lock_view(E1), study_of(E1)
    assert v.present and v.arms == tuple(s.arms) and v.seeds == s.seeds and v.baseline_arm == s.baseline_arm
    assert v.primary_metric == s.analysis.primary_metric and v.alpha == s.analysis.multiplicity.alpha
    assert v.heldout_n == s.evaluation.heldout_n and v.hypotheses == len(s.hypotheses)
    assert v.resamples == s.analysis.resamples and dict(v.metric_decls) == dict(s.metrics)
    assert v.verdict_names == {r["verdict"] for r in s.analysis.verdicts}


@pytest.mark.parametrize("field,value", [("arms", [1, 2]), ("arms", {"grpo": 3}), ("seeds", 7), ("analysis", "x"),
                                         ("dataset", []), ("hypotheses", {}), ("analysis.multiplicity", None),
                                         ("analysis.verdicts", [1, None]), ("metrics", {"m": 3}), ("metrics", [1])])
def test_a_broken_lock_reads_as_empty_or_default_never_raises(field, value):
    p = copy.deepcopy(E1)
    *head, last = field.split(".")
    target = p
    for k in head:
        target = target[k]
    target[last] = value
    v = lock_view(p)
    assert v.present
    facts = facts_of(v, {"values": {}, "verdicts": {}})   # the claim reader takes it too
    vocab = vocabulary(v)
    assert facts.primary == v.primary_metric and vocab.primary == v.primary_metric
    if field == "arms":
        assert v.arm_decls == {} and v.labels == {}
    if field == "analysis":
        assert v.primary_metric == DEFAULT_PRIMARY and v.alpha == DEFAULT_ALPHA and v.metric_decls == {}
    if field == "seeds":
        assert v.seeds == () and facts.seeds == ()


@pytest.mark.parametrize("prereg", [None, {}, [], "x", 3])
def test_no_preregistration_is_an_empty_view(prereg):
    assert lock_view(prereg) == LockView() and not lock_view(prereg).present


def test_the_readers_accept_the_preregistration_or_its_view():
    assert facts_of(E1, {}) == facts_of(lock_view(E1), {})
    assert vocabulary(E1) == vocabulary(lock_view(E1))


def _plan_findings(prereg, values: dict) -> list[str]:
    """Check 3's plan-consistency and GRIM steps on an analysis document, reading the lock's view."""
    from types import SimpleNamespace

    from audit.checks.analysis import _consistency, _grim
    from audit.findings import CheckResult

    out = CheckResult("3", "analysis", "analysis")
    ctx = SimpleNamespace(lock_view=lock_view(prereg), analysis={"values": values})
    _consistency(ctx, out, "analysis.json")
    _grim(ctx, out, "analysis.json")
    return [f.message for f in out.findings]


def test_the_analysis_check_reads_the_plan_from_the_view():
    """Check 3 compares each value's RNG seed, power method, multiplicity correction and k/n
    proportions to the plan as the lock view reads it: each planted departure fires, the
    plan's own values pass, and a lock with no readable plan is not a crash."""
    v, s = lock_view(E1), study_of(E1)
    assert (v.rng_seed, v.power_method, v.multiplicity_method, v.family) == \
        (s.analysis.rng_seed, s.analysis.power.method, s.analysis.multiplicity.method, s.analysis.multiplicity.family)
    fam, seed, n = s.analysis.multiplicity.family, s.analysis.rng_seed, s.evaluation.heldout_n
    from stats.multiplicity import adjust

    ps = [0.01, 0.02, 0.03, 0.04]
    clean = {f"contrasts.{c}.p": {"value": p} for c, p in zip(fam, ps, strict=True)}
    clean |= {f"contrasts.{c}.p_adjusted": {"value": q} for c, q in zip(fam, adjust(ps, "bh"), strict=True)}
    clean |= {"contrasts.gspo-grpo.mde": {"value": 0.1, "method": "exact noncentral t", "rng_seed": seed},
              "runs.gspo.s1.heldout_accuracy": {"value": 3 / n}}
    assert _plan_findings(E1, clean) == []
    broken = copy.deepcopy(clean)
    broken[f"contrasts.{fam[0]}.p_adjusted"]["value"] = ps[0]
    broken["contrasts.gspo-grpo.mde"].update(method="normal approximation", rng_seed=seed + 1)
    broken["runs.gspo.s1.heldout_accuracy"]["value"] = 0.5 / n
    assert sorted(_plan_findings(E1, broken)) == sorted([
        "declared multiplicity correction not applied", "power computed by another method than planned",
        "value drawn with an RNG seed other than the plan's", f"proportion impossible with n = {n} (GRIM)"])
    p = copy.deepcopy(E1)
    p["analysis"]["multiplicity"] = None
    p["analysis"]["power"] = [1]
    assert _plan_findings(p, broken) == ["value drawn with an RNG seed other than the plan's",
                                         f"proportion impossible with n = {n} (GRIM)"]  # no plan for the rest
    assert _plan_findings(None, broken) == []
