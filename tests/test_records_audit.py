"""Audit findings on records that contradict themselves (issue 14, items 1, 2, 11).

Each case is the adversary's move from the issue, applied to a copy of the clean synthetic
campaign with summaries recomputed, the manifest re-sealed and the analysis rerun, so only
the new cross-checks can catch it.
"""

from __future__ import annotations

import json
import shutil

import pytest
from audit_defects import (
    HELDOUT_TRACE,
    MANIFEST,
    copy_campaign,
    edit_manifest,
    edit_rows,
    reanalyze,
)

from audit.engine import run_audit
from prereg.scoring import SCORERS, scorer_for


@pytest.fixture(scope="module")
def clean(clean_campaign):
    return clean_campaign


def _audit(clean, tmp_path, fn, *, analyze=True):
    camp = copy_campaign(clean, tmp_path / "c")
    fn(camp)
    if analyze:
        reanalyze(camp)
    return run_audit(camp.report)


def _said(result, check_id: str) -> list[str]:
    return [f"{f.location}: {f.message} (expected {f.expected}, found {f.found})"
            for f in result.findings if f.check == check_id]


def test_clean_campaign_passes(clean):
    res = run_audit(clean.report)
    assert res.exit_code == 0, [f.message for f in res.findings]


def _row(i, **kw):
    def fn(rows):
        rows[i].update(kw)
        return rows
    return fn


@pytest.mark.parametrize("edit, message", [
    # issue item 1: correct true with prediction 3, target 7, reward 0.1
    (dict(correct=True, prediction="3", target="7", reward=0.1), "outcome contradicts its own prediction"),
    # prediction == target but correct false (reward 0 keeps reward and correctness in step)
    (dict(correct=False, prediction="1", target="1", reward=0.0), "outcome contradicts its own prediction"),
    # correct and consistent, but the reward says otherwise
    (dict(correct=True, prediction="1", target="1", reward=0.5), "reward contradicts its own prediction"),
    # reward outside the task's range
    (dict(correct=True, prediction="1", target="1", reward=3.0), "outside the task's range"),
])
def test_self_contradicting_heldout_row_is_a_finding(clean, tmp_path, edit, message):
    res = _audit(clean, tmp_path, lambda c: edit_rows(c.run_dir("grpo", 11), HELDOUT_TRACE, _row(3, **edit),
                                                       resummarize=True))
    said = _said(res, "7")
    assert any(message in s and "heldout.jsonl:4" in s for s in said), said
    assert res.exit_code == 1


def test_scorers_agree_with_the_runner_tasks():
    """prereg.scoring is the tasks' own rule: re-scoring what a task computed gives the same."""
    from runner.tasks.arith import ArithTask
    from runner.tasks.connections import format_answer, parse_answer

    t = ArithTask({"name": "arith"}, {})
    for completion, answer in [("3", "3"), ("12abc", "3"), ("nothing", "3"), ("-4", "-4")]:
        item = {"answer": answer}
        want = scorer_for("arith").rescore(t.parse(completion), answer)
        assert (want.correct, want.reward) == (t.correct(completion, item), t.reward(completion, item))
    groups = [["A", "B", "C", "D"], ["E", "F", "G", "H"], ["I", "J", "K", "L"], ["M", "N", "O", "P"]]
    target = " | ".join(sorted(", ".join(sorted(g)) for g in groups))
    solved = parse_answer(format_answer(groups))
    assert scorer_for("connections").rescore(solved, target).reward == SCORERS["connections"].max_reward
    swapped = parse_answer(format_answer([["A", "B", "C", "E"], ["D", "F", "G", "H"], *groups[2:]]))
    out = scorer_for("connections").rescore(swapped, target)
    assert out.correct is False and abs(out.reward - (0.1 + 0.5 + 0.05)) < 1e-12
    assert scorer_for("connections").rescore(None, target).reward == -0.1


def test_copied_run_under_another_seed_is_a_finding(clean, tmp_path):
    """Issue item 2: grpo/s11 copied over grpo/s23, one training hash changed, seed set, resealed."""
    def copy_run(c):
        src, dst = c.run_dir("grpo", 11), c.run_dir("grpo", 23)
        shutil.rmtree(dst)
        shutil.copytree(src, dst)
        p = dst / "traces" / "train.jsonl"
        rows = [json.loads(x) for x in p.read_text().splitlines()]
        rows[0]["completion_sha256"] = "f" * 64
        p.write_text("".join(json.dumps(r) + "\n" for r in rows))
        edit_manifest(dst, lambda m: m.update(seed=23))

    said = _said(_audit(clean, tmp_path, copy_run), "8")
    assert any("two different seeds" in s and "resolved_config.trainer.seed" in s for s in said), said
    assert any("runner.seed" in s for s in said), said
    assert any("share one held-out trace" in s for s in said), said


def test_run_moved_into_another_arms_folder_is_named(clean, tmp_path):
    """Issue item 11: the audit names the misplaced run, as `runner status` does."""
    def move(c):
        shutil.rmtree(c.run_dir("dapo", 11))
        shutil.move(str(c.run_dir("grpo", 11)), str(c.run_dir("dapo", 11)))

    said = _said(_audit(clean, tmp_path, move, analyze=False), "3")
    assert any("run grpo/s11 sits in another unit's folder" in s for s in said), said
    assert any("dapo/s11 has no complete confirmatory run" in s and "holds the run of grpo/s11" in s
               for s in said), said


def test_float_index_and_step_are_findings(clean, tmp_path):
    def edit(c):
        edit_rows(c.run_dir("gspo", 37), HELDOUT_TRACE, _row(0, index=0.0))
    said = _said(_audit(clean, tmp_path, edit), "7")
    assert any("index not an integer" in s for s in said), said


def test_duplicate_key_in_a_manifest_is_a_finding_not_a_traceback(clean, tmp_path):
    """Issue item 3: a second heldout_accuracy inserted before the real one."""
    def dup(c):
        p = c.run_dir("grpo", 11) / MANIFEST
        text = p.read_text()
        p.write_text(text.replace('"summaries": {', '"summaries": {"heldout_accuracy": 0.9, ', 1))
    res = _audit(clean, tmp_path, dup, analyze=False)
    said = _said(res, "2")
    assert any("'heldout_accuracy' appears twice" in s for s in said), said
    assert res.exit_code == 1


def test_reward_bounds_come_from_the_manifest_first():
    from audit.checks.traces import reward_bounds

    assert reward_bounds({"task": {"reward_bounds": [-1.0, 2.0]}}, "arith") == (-1.0, 2.0)
    assert reward_bounds({}, "connections") == (-0.1, 1.6)
    assert reward_bounds({"task": {"reward_bounds": "junk"}}, "gsm8k") == (0.0, 1.0)
    assert reward_bounds({}, "mymod:make") is None


def test_manifest_bounds_that_contradict_the_task_are_a_finding(clean, tmp_path):
    def widen(c):
        edit_manifest(c.run_dir("grpo", 11), lambda m: m["task"].update(reward_bounds=[0.0, 5.0]))
    said = _said(_audit(clean, tmp_path, widen), "7")
    assert any("reward bounds differ from the task's" in s for s in said), said


def test_a_user_task_is_range_checked_and_says_it_was_not_rescored(clean, tmp_path):
    """A module:callable task has no registered scorer: rows are range-checked only, and the audit says so."""
    from audit.checks import traces
    from audit.findings import CheckResult
    from audit.lockview import lock_view as view_of

    class Ctx:
        prereg = {"task": {"name": "mymod:make"}, "dataset": {}}
        lock_view = view_of(prereg)
        runs = []
        jobs = 1
        arms = []

    res = CheckResult("7", "traces", "t")
    traces.run(Ctx(), res)
    assert any("no registered scorer" in n for n in res.notes)


def test_manifest_bounds_that_are_not_a_valid_pair_are_a_finding(clean, tmp_path):
    """A reversed pair passes the manifest schema but is read as no record by stats and audit alike
    (prereg.records.recorded_reward_bounds); check 7 says so rather than silently using the
    scorer's range. (A bool pair fails the manifest schema and a NaN cannot be read from JSON at all:
    such a run is malformed before either reader sees it.)"""
    def spoil(c):
        edit_manifest(c.run_dir("grpo", 11), lambda m: m["task"].update(reward_bounds=[1.0, 0.0]))
    res = _audit(clean, tmp_path, spoil)
    said = _said(res, "7")
    assert any("not a valid [min, max] pair" in s for s in said), said
    assert not any("differ from the task's" in s for s in said), said
