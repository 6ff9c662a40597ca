"""AERO allocation, curation and Beta-posterior advantages on hand-made groups."""

from __future__ import annotations

import math

import pytest

from prereg.errors import UserError
from runner.aero import AeroSettings, aero_allocate, aero_curate, aero_step, posterior_mean


def success(r):
    return r >= 1.0


def scripted(outcomes):
    """generate_more that hands out the next scripted reward of each requested group."""
    queues = {g: list(v) for g, v in outcomes.items()}
    calls = []

    def generate_more(groups):
        calls.append(list(groups))
        return [queues[g].pop(0) for g in groups]

    return generate_more, calls


def test_rescue_goes_round_robin_to_all_fail_groups_and_stops_at_first_success():
    initial = [[0, 0], [1, 0], [0, 0], [0, 0]]
    gen, calls = scripted({0: [0, 1, 0], 2: [1], 3: [0, 0, 0]})
    alloc = aero_allocate(initial, ceiling=5, rescue_budget=6, generate_more=gen, is_success=success)
    # Round 1: groups 0, 2, 3 (group 1 already succeeded). Group 2 succeeds, leaves.
    # Round 2: groups 0, 3 -> group 0 succeeds. Round 3: budget left 1 -> group 3 only.
    assert calls == [[0, 2, 3], [0, 3], [3]]
    assert alloc.rewards == [[0, 0, 0, 1], [1, 0], [0, 0, 1], [0, 0, 0, 0, 0]]
    assert alloc.rescue_rollouts == [2, 0, 1, 3]
    assert alloc.rescue_used == 6 and alloc.rescue_rounds == 3


def test_rescue_respects_the_rollout_ceiling_and_leaves_budget_unspent():
    gen, calls = scripted({0: [0, 0, 0]})
    alloc = aero_allocate([[0, 0]], ceiling=4, rescue_budget=10, generate_more=gen, is_success=success)
    assert alloc.rewards == [[0, 0, 0, 0]] and alloc.rescue_used == 2 and calls == [[0], [0]]


def test_rescue_budget_split_when_smaller_than_candidates():
    gen, calls = scripted({0: [0], 1: [0], 2: [0]})
    alloc = aero_allocate([[0], [0], [0]], ceiling=4, rescue_budget=2, generate_more=gen, is_success=success)
    assert calls == [[0, 1]] and alloc.rescue_rollouts == [1, 1, 0]


def test_all_fail_and_all_correct_keep_one_rollout_with_posterior_advantage():
    g = aero_curate([0.0, 0.1, 0.0, 0.0], success_threshold=0.5, keep_incorrect=1, is_success=success)
    assert g.strategy == "posterior_all_fail" and g.kept == [0] and g.rejected == 3
    assert g.advantages == pytest.approx([0 - 1 / 6])  # s=0, n=4: posterior mean 1/6
    g = aero_curate([1.0, 1.0], success_threshold=0.5, keep_incorrect=1, is_success=success)
    assert g.strategy == "posterior_all_correct" and g.kept == [0]
    assert g.advantages == pytest.approx([1 - 3 / 4])  # s=n=2: posterior mean 3/4
    assert posterior_mean(0, 0) == 0.5 and posterior_mean(3, 8) == pytest.approx(0.4)


def test_low_success_group_keeps_correct_plus_locked_number_of_incorrect():
    r = [0.0, 1.0, 0.0, 0.0, 0.0, 1.0]  # s=2, n=6, rate 1/3 < 0.5
    g = aero_curate(r, success_threshold=0.5, keep_incorrect=2, is_success=success)
    assert g.strategy == "rejection"
    assert g.kept == [0, 1, 2, 5]  # both successes + the first two failures, generation order
    mean = 2 / 6
    std = math.sqrt(sum((x - mean) ** 2 for x in r) / 5)
    assert g.advantages == pytest.approx([(r[i] - mean) / (std + 1e-4) for i in g.kept])
    g0 = aero_curate(r, success_threshold=0.5, keep_incorrect=0, is_success=success, scale_rewards="none")
    assert g0.kept == [1, 5] and g0.advantages == pytest.approx([1 - mean, 1 - mean])


def test_group_at_or_above_threshold_keeps_all():
    r = [1.0, 0.0, 1.0, 0.0]  # rate 0.5, threshold 0.5 -> not below
    g = aero_curate(r, success_threshold=0.5, keep_incorrect=0, is_success=success, scale_rewards="none")
    assert g.strategy == "keep_all" and g.kept == [0, 1, 2, 3]
    assert g.advantages == pytest.approx([0.5, -0.5, 0.5, -0.5])


def test_aero_step_counts_and_strategies():
    settings = AeroSettings(exploration_rollouts=2, rescue_budget=3, success_threshold=0.5, keep_incorrect=1,
                            ceiling=4, scale_rewards="none")
    exploration = [[1.0, 1.0], [0.0, 0.0], [1.0, 0.0], [0.0, 0.0]]
    gen, calls = scripted({1: [0.0, 1.0], 3: [0.0]})
    step = aero_step(exploration, settings, generate_more=gen, is_success=success)
    assert calls == [[1, 3], [1]]
    strategies = [g.strategy for g in step.groups]
    # group 1 rescued: [0,0,0,1] rate 1/4 -> rejection keeps 1 correct + 1 incorrect
    assert strategies == ["posterior_all_correct", "rejection", "keep_all", "posterior_all_fail"]
    assert step.groups[1].kept == [0, 3]
    assert step.generated == 2 + 4 + 2 + 3 and step.kept == 1 + 2 + 2 + 1 and step.rejected == 5
    t = step.telemetry()
    assert t["aero_rescue_used"] == 3 and t["aero_groups_rescued"] == 1
    assert t["aero_strategies"] == {"keep_all": 1, "rejection": 1, "posterior_all_fail": 1,
                                    "posterior_all_correct": 1}
    assert step.groups[3].advantages == pytest.approx([-1 / 5])


def test_settings_from_lock_fields_refuse_bad_or_missing_values():
    fields = {"aero_exploration_rollouts": 2, "aero_rescue_budget": 8, "aero_success_threshold": 0.5,
              "aero_keep_incorrect": 1}
    s = AeroSettings.from_fields(fields, num_generations=4)
    assert s.ceiling == 4 and s.exploration_rollouts == 2
    with pytest.raises(UserError, match="aero_exploration_rollouts"):
        AeroSettings.from_fields({**fields, "aero_exploration_rollouts": 5}, num_generations=4)
    with pytest.raises(UserError, match="aero_keep_incorrect"):
        AeroSettings.from_fields({k: v for k, v in fields.items() if k != "aero_keep_incorrect"}, num_generations=4)
    with pytest.raises(UserError, match="scale_rewards"):
        AeroSettings.from_fields(fields, num_generations=4, scale_rewards="batch")


# -- real tiny-model runs ------------------------------------------------------------------------

AERO_CHANGES = {"aero_exploration_rollouts": 2, "aero_rescue_budget": 3, "aero_success_threshold": 0.5,
                "aero_keep_incorrect": 1}


def _aero_lock(root, *, task="arith", **changes):
    from runner_run_support import prereg, write_lock

    p = prereg(id=f"aero-{task}")
    if task == "fixed":  # 'const' earns 1.0 always, 'var' alternates 0/1 in call order
        p["task"] = {"name": "runner_run_support:make_fixed_task"}
        p["dataset"] = {"name": "fixed", "revision": None, "train_split": "train", "heldout_split": "heldout",
                        "heldout_n": 2}
    p["arms"] = {**p["arms"], "aero": {"algorithm": "aero", "changes": {**AERO_CHANGES, **changes}}}
    return write_lock(root / "locks", p)


@pytest.fixture(scope="module")
def aero_runs(tmp_path_factory):
    from runner_run_support import run

    root = tmp_path_factory.mktemp("aero")
    return {task: run(_aero_lock(root / task, task=task), "aero", 1, root / task / "runs")
            for task in ("fixed", "arith")}


@pytest.mark.slow
def test_aero_real_run_on_hand_known_groups(aero_runs):
    from prereg.records import read_run

    r = read_run(aero_runs["fixed"])
    assert r.manifest["status"] == "complete" and r.seal_ok()
    assert r.manifest["algorithm"] == "aero"
    for row in r.telemetry():
        # 'const' explores [1, 1]: all-correct, one rollout kept with advantage 1 - 3/4;
        # 'var' explores one success and one failure: rate 0.5, not below the threshold -> keep both.
        assert sorted(row["aero_group_strategy"]) == ["keep_all", "posterior_all_correct"]
        assert row["aero_rollouts_generated"] == 4 == row["new_rollouts"]
        assert row["aero_rollouts_kept"] == 3 and row["aero_rollouts_rejected"] == 1
        assert row["aero_rescue_used"] == 0
        assert row["groups"] == 2 and row["zvf"] == 0.5
        assert set(row) - {"step", "generations", "trl"} <= set(r.manifest["telemetry_sources"])


@pytest.mark.slow
def test_aero_real_run_decisions_match_the_rules_applied_to_its_traced_rewards(aero_runs):
    """Recompute allocation and curation from the traced rewards; the run must have done the same."""
    from prereg.records import read_run

    r = read_run(aero_runs["arith"])
    assert r.manifest["status"] == "complete"
    traces, tel = r.train_trace(), r.telemetry()
    settings = AeroSettings.from_fields(AERO_CHANGES, num_generations=4)
    rescued_total = 0
    for row in tel:
        step = [t for t in traces if t["step"] == row["step"]]
        groups: dict[int, list] = {}
        for t in sorted(step, key=lambda t: (t["generation"], t["index"])):
            groups.setdefault(t["group"], []).append(t)
        for g in groups.values():
            assert [t["index"] for t in g] == list(range(len(g)))  # contiguous, generation order
            assert len(g) <= 4 and len({t["item_id"] for t in g}) == 1
        rewards = [[t["reward"] for t in groups[k]] for k in sorted(groups)]
        queue = {k: rw[2:] for k, rw in enumerate(rewards)}
        replay = aero_step([rw[:2] for rw in rewards], settings,
                           generate_more=lambda gs, q=queue: [q[g].pop(0) for g in gs],
                           is_success=lambda x: x >= 1.0)
        assert all(not q for q in queue.values()), "the run generated rollouts the rules would not"
        assert row["aero_group_strategy"] == [g.strategy for g in replay.groups]
        assert (row["aero_rollouts_generated"], row["aero_rollouts_kept"], row["aero_rescue_used"]) == (
            replay.generated, replay.kept, replay.rescue_used)
        assert row["aero_rollouts_generated"] == len(step) == row["new_rollouts"]
        rescued_total += row["aero_rescue_used"]
    assert rescued_total > 0, "the untrained tiny model fails arith often enough to need rescue"


def test_aero_preset_refuses_locks_it_cannot_run():
    from runner_run_support import prereg

    from runner.config import resolve

    def arm(**changes):
        return prereg(arms={"aero": {"algorithm": "aero", "changes": {**AERO_CHANGES, **changes}}},
                      baseline_arm="aero")

    cfg = resolve(arm(), "aero", 1, device="cpu", output_dir="/tmp/x")
    assert cfg.runner_fields["aero_rescue_budget"] == 3 and cfg.grpo_config.loss_type == "grpo"
    with pytest.raises(UserError, match="aero_exploration_rollouts"):
        resolve(arm(aero_exploration_rollouts=8), "aero", 1, device="cpu", output_dir="/tmp/x")
    with pytest.raises(UserError, match="steps_per_generation"):
        resolve(arm(steps_per_generation=2, num_iterations=2), "aero", 1, device="cpu", output_dir="/tmp/x")
    with pytest.raises(UserError, match="aero_rescue_budget"):
        resolve(prereg(arms={"grpo": {"algorithm": "grpo", "changes": {"aero_rescue_budget": 2}}}), "grpo", 1,
                device="cpu", output_dir="/tmp/x")


def test_example_e1_dapo_and_aero_arms_resolve_with_their_extensions():
    import json
    from pathlib import Path

    from runner.config import resolve

    p = json.loads((Path(__file__).resolve().parent.parent / "examples" / "e1.json").read_text())
    dapo = resolve(p, "dapo", 11, device="cpu", output_dir="/tmp/x")
    assert dapo.grpo_config.loss_type == "dapo" and dapo.grpo_config.epsilon_high == 0.28
    assert dapo.runner_fields["dynamic_sampling_max_batches"] == 8 and dapo.preset.trainer_hook is not None
    aero = resolve(p, "aero", 11, device="cpu", output_dir="/tmp/x")
    assert {k: aero.runner_fields[k] for k in AERO_CHANGES} == {**AERO_CHANGES, "aero_rescue_budget": 8}
    assert aero.preset.trainer_hook is not None
