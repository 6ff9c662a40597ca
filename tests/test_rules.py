"""One rule in one place (prereg.rules): the runner, lint and the audit decide alike.

Issue 15: with 4 gradient-accumulation steps, 4 steps per generation and 1 iteration the
runner called a GSPO arm on-policy, the audit called it off-policy and lint did not flag it.
Here the three consumers are asked about the same arm over a grid of batch geometries.
"""

from __future__ import annotations

import itertools
import math

import pytest
from runner_run_support import prereg

from audit.checks.treatment import _on_policy as audit_on_policy
from prereg.errors import UserError
from prereg.fields import flatten
from prereg.lint import lint
from prereg.rules import (
    ZERO_VARIANCE_TOL,
    all_at,
    all_equal,
    lock_files,
    manifest_paths,
    off_policy,
    zero_variance_fraction,
)

GRID = list(itertools.product([1, 2, 4], [None, 1, 2, 4, 8], [1, 2]))  # gas, spg, iterations


def _gspo(gas, spg, iters) -> dict:
    p = prereg()
    p["training"]["gradient_accumulation_steps"] = gas
    changes = p["arms"]["gspo"]["changes"]
    changes.pop("steps_per_generation", None)
    if spg is not None:
        changes["steps_per_generation"] = spg
    changes["num_iterations"] = iters
    return p


def test_runner_lint_and_audit_agree_on_every_geometry():
    from runner.config import resolve

    judged = 0
    for gas, spg, iters in GRID:
        p = _gspo(gas, spg, iters)
        try:  # exploratory: the runner notes an on-policy GSPO arm instead of refusing it
            cfg = resolve(p, "gspo", 1, device="cpu", output_dir="/tmp/unused", exploratory=True)
        except (ValueError, UserError):
            continue  # a geometry TRL itself rejects (generation batch not a multiple of the group)
        runner_on = any("fully on-policy" in n for n in cfg.notes)
        lint_on = any(f.rule == "gspo-on-policy" for f in lint(p, ["gspo-on-policy"]))
        audit_on = audit_on_policy(flatten(cfg.resolved()))
        expect_on = iters == 1 and (spg or gas) <= gas
        assert runner_on == lint_on == audit_on == expect_on, (gas, spg, iters, runner_on, lint_on, audit_on)
        judged += 1
    assert judged >= 12, "the grid must exercise real geometries, not only rejected ones"


def test_the_case_the_copies_disagreed_on_is_on_policy_for_all_three():
    from runner.config import resolve

    p = _gspo(4, 4, 1)
    cfg = resolve(p, "gspo", 1, device="cpu", output_dir="/tmp/unused", exploratory=True)
    assert cfg.grpo_config.steps_per_generation == 4 and cfg.grpo_config.gradient_accumulation_steps == 4
    assert any("fully on-policy" in n for n in cfg.notes)
    assert [f.rule for f in lint(p, ["gspo-on-policy"])] == ["gspo-on-policy"]
    assert audit_on_policy(flatten(cfg.resolved())) is True
    assert off_policy({"gradient_accumulation_steps": 4, "steps_per_generation": 8}) is True


@pytest.mark.parametrize("level", [None, "token", "sequence", "sequence_token"])
@pytest.mark.parametrize("arm", ["dr_grpo", "bnpo", "gspo"])
def test_runner_and_lint_agree_on_which_arms_need_off_policy(arm, level):
    """Which arms must be off-policy is one rule (prereg.rules.needs_off_policy). Firing before the
    fix: a Dr. GRPO arm with sequence-level importance sampling, run fully on-policy, was warned about
    by lint (its own condition) and run confirmatory by the runner (only the GSPO preset counted)."""
    from prereg.errors import Refusal
    from runner.config import resolve

    p = prereg()
    changes = p["arms"][arm]["changes"]
    for k in ("steps_per_generation", "num_iterations", "importance_sampling_level"):
        changes.pop(k, None)  # fully on-policy
    if level is not None:
        changes["importance_sampling_level"] = level
    try:
        resolve(p, arm, 1, device="cpu", output_dir="/tmp/unused")
        refused = False
    except Refusal as e:
        if "fully on-policy" not in str(e):
            return  # a preset that fixes another level (gspo implies sequence): nothing to compare
        refused = True
    warned = [f.path for f in lint(p, ["gspo-on-policy"])] == [f"$.arms.{arm}"]
    expect = arm == "gspo" or level in ("sequence", "sequence_token")
    assert refused == warned == expect, (arm, level, refused, warned)
    changes["num_iterations"] = 2  # off-policy: neither complains
    resolve(p, arm, 1, device="cpu", output_dir="/tmp/unused")
    assert lint(p, ["gspo-on-policy"]) == []


def test_breaking_needs_off_policy_moves_lint_and_the_runner(monkeypatch):
    """The rule is read where it is decided: widen it there (prereg.rules) and both lint and the
    runner follow."""
    import prereg.rules as rules
    from prereg.errors import Refusal
    from runner.config import resolve

    p = prereg()
    assert "$.arms.bnpo" not in [f.path for f in lint(p, ["gspo-on-policy"])]
    resolve(p, "bnpo", 1, device="cpu", output_dir="/tmp/unused")  # token-level, on-policy: fine
    monkeypatch.setattr(rules, "OFF_POLICY_ALGORITHMS", ("gspo", "bnpo"))
    assert "$.arms.bnpo" in [f.path for f in lint(p, ["gspo-on-policy"])]
    with pytest.raises(Refusal, match="fully on-policy"):
        resolve(p, "bnpo", 1, device="cpu", output_dir="/tmp/unused")


def test_zero_variance_tolerance_is_one_number_used_by_telemetry_and_dynamic_sampling():
    from runner.dapo import zvf
    from runner.telemetry import group_stats

    near = [0.1 + 0.2, 0.3, 0.3, 0.3]  # equal up to float rounding: zero advantage
    mixed = [0.3, 0.3, 0.3, 0.3 + 10 * ZERO_VARIANCE_TOL]
    assert all_equal(near) and not all_equal(mixed) and all_equal([1.0, math.nan, None])
    assert group_stats(near + mixed, 4, max_reward=1.0)["zvf"] == 0.5
    assert zvf([near, mixed]) == 0.5 == zero_variance_fraction([near, mixed])
    assert zero_variance_fraction([]) is None and zvf([]) == 0.0  # a step without groups has no ZVF


def test_breaking_the_zvf_rule_moves_telemetry_and_dynamic_sampling(monkeypatch):
    """ZVF is computed in one place: telemetry rows and dynamic sampling both read it."""
    from prereg import rules
    from runner import dapo, telemetry

    groups = [[0.0, 0.0], [0.0, 1.0]]
    assert telemetry.groups_stats(groups, max_reward=1.0)["zvf"] == dapo.zvf(groups) == 0.5
    monkeypatch.setattr(telemetry, "zero_variance_fraction", lambda g, tol=0: 0.25)
    monkeypatch.setattr(dapo, "zero_variance_fraction", lambda g, tol=0: 0.25)
    assert telemetry.group_stats([0.0, 0.0, 0.0, 1.0], 2, max_reward=1.0)["zvf"] == dapo.zvf(groups) == 0.25
    assert rules.zero_variance_fraction(groups) == 0.5
    assert all_at([1.0, 1.0 + ZERO_VARIANCE_TOL / 2], 1.0) and not all_at([1.0, 0.9], 1.0)


def test_lock_and_manifest_discovery(tmp_path):
    locks = tmp_path / "locks"
    locks.mkdir()
    (locks / "a.lock.json").write_text('{"study_id": "a", "lock_hash": "h1"}')
    (locks / "renamed.lock.json").write_text('{"study_id": "a", "lock_hash": "h2"}')  # found by content
    (locks / "b.lock.json").write_text('{"study_id": "b", "lock_hash": "h3"}')
    (locks / "junk.lock.json").write_text("[1, 2]")  # not a lock: passed over
    (locks / "notes.json").write_text('{"study_id": "a", "lock_hash": "h4"}')  # not *.lock.json
    assert [d["lock_hash"] for _, d in lock_files(locks, "a")] == ["h1", "h2"]
    assert len(lock_files(locks)) == 3 and lock_files(tmp_path / "none") == []
    for rel in ("s/arm/s2", "s/arm/s1", "t/x/s1"):
        (tmp_path / "runs" / rel).mkdir(parents=True)
        (tmp_path / "runs" / rel / "manifest.json").write_text("{}")
    assert [p.parent.relative_to(tmp_path / "runs").as_posix() for p in manifest_paths(tmp_path / "runs")] == [
        "s/arm/s1", "s/arm/s2", "t/x/s1"]
    with pytest.raises(UserError, match="runs folder not found"):
        manifest_paths(tmp_path / "nope")


def test_a_run_has_one_name_in_its_folder_the_analysis_tables_and_the_report():
    """``s<seed>`` / ``once`` was spelt in five places (unit_dir, stats.load, stats.table, stats.render,
    the sweep's superseded folders); now each reads prereg.records.seed_tag."""
    import importlib

    from prereg import records

    for name in ("stats.load", "stats.table", "stats.render", "runner.sweep.child"):
        assert importlib.import_module(name).seed_tag is records.seed_tag, name
    assert records.unit_dir("runs", "e1", "base", None).name == records.seed_tag(None) == records.ONCE
    assert records.unit_dir("runs", "e1", "grpo", 7).as_posix() == "runs/e1/grpo/s7"


def test_where_runs_and_locks_live_by_default_is_one_value():
    """Every CLI's ``--out`` / ``--lock-dir`` and every API function's ``out`` / ``lock_dir`` default
    to prereg.rules.RUNS_DIR / LOCK_DIR ("runs" and "locks" were typed in 16 places)."""
    import argparse
    import importlib
    import inspect

    from prereg.rules import LOCK_DIR, RUNS_DIR

    functions = {"runner.api": ("run_unit", "evaluate_reference"), "runner.train": ("run_unit", "find_default_lock"),
                 "runner.reference": ("evaluate_reference",), "runner.status": ("study_status",),
                 "prereg.api": ("lock",), "prereg.lock": ("lock_file", "amend_file")}
    seen = 0
    for mod, names in functions.items():
        for name in names:
            params = inspect.signature(getattr(importlib.import_module(mod), name)).parameters
            for p, want in (("out", RUNS_DIR), ("lock_dir", LOCK_DIR)):
                if p in params:
                    assert params[p].default == want, (mod, name, p)
                    seen += 1
    assert seen >= 10
    from prereg.cli import build_parser as prereg_parser
    from runner.cli import build_parser as runner_parser
    from runner.sweep.model import SweepOptions

    assert SweepOptions.__dataclass_fields__["out"].default == RUNS_DIR
    defaults, stack = [], [prereg_parser(), runner_parser()]
    while stack:
        for act in stack.pop()._actions:
            if isinstance(act, argparse._SubParsersAction):
                stack.extend(act.choices.values())
            elif act.dest in ("out", "lock_dir"):
                defaults.append((act.dest, act.default))
    assert {d for d, _ in defaults} == {"out", "lock_dir"} and len(defaults) >= 5, defaults
    assert all(v == (RUNS_DIR if d == "out" else LOCK_DIR) for d, v in defaults), defaults


def test_two_levels_are_one_level_by_one_tolerance(monkeypatch):
    """"The same confidence level" was decided with 1e-9 in three places and 1e-12 in a fourth (the
    analysis' interval tags); now each asks prereg.rules.same_level: change the tolerance there
    and the coverage lookup and the analysis' value ids move together."""
    import prereg.rules as rules
    from prereg import coverage_table as ct
    from prereg.study import IntervalSpec
    from stats.analyze import interval_tags

    near = 0.95 + 1e-10
    specs = [IntervalSpec("t", 0.95), IntervalSpec("percentile", near)]
    assert ct.table_level(near) == 0.95 and interval_tags(specs) == ["ci95", "ci95_percentile"]
    monkeypatch.setattr(rules, "LEVEL_TOL", 1e-12)
    assert ct.table_level(near) is None and interval_tags(specs)[1] != "ci95_percentile"
