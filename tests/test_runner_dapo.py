"""DAPO dynamic sampling and overlong shaping, on hand-made reward groups."""

from __future__ import annotations

import pytest

from prereg.errors import UserError
from runner.dapo import (
    DynamicSamplingExhausted,
    all_equal,
    fill_eligible_groups,
    overlong_filter_keep,
    overlong_penalties,
    overlong_penalty,
    zvf,
)


def scripted(batches):
    calls = []

    def generate(i):
        calls.append(i)
        return batches[i]

    return generate, calls


def test_drops_all_equal_groups_and_refills_from_further_batches():
    batches = [
        [[1, 1, 1, 1], [0, 1, 0, 0], [0, 0, 0, 0]],   # 1 eligible of 3
        [[0.5, 0.5, 0.5, 0.5], [1, 0, 1, 1], [0, 0, 1, 0]],  # 2 eligible
    ]
    gen, calls = scripted(batches)
    out = fill_eligible_groups(gen, needed_groups=3, max_batches=4)
    assert calls == [0, 1]
    assert out.groups == [[0, 1, 0, 0], [1, 0, 1, 1], [0, 0, 1, 0]]
    assert out.kept_from == [(0, 1), (1, 1), (1, 2)]
    assert out.batches == 2 and out.groups_generated == 6 and out.rollouts_generated == 24
    assert out.eligible_groups == 3 and out.surplus_eligible == 0
    assert out.zvf_generated == pytest.approx(3 / 6)
    assert out.zvf_optimized == 0.0
    t = out.telemetry()
    assert t["zvf_generated"] != t["zvf_optimized"] and t["dynamic_sampling_batches"] == 2


def test_surplus_eligible_groups_of_last_batch_are_counted_and_dropped():
    gen, calls = scripted([[[0, 1], [1, 0], [0, 0], [1, 1], [0, 1]]])
    out = fill_eligible_groups(gen, needed_groups=2, max_batches=1)
    assert out.groups == [[0, 1], [1, 0]]
    assert out.eligible_groups == 3 and out.surplus_eligible == 1
    assert out.zvf_generated == pytest.approx(2 / 5)


def test_limit_hit_fails_loudly_naming_the_lock_field():
    gen, calls = scripted([[[0, 0], [0, 1]], [[1, 1], [1, 1]], [[0, 0], [0, 0]]])
    with pytest.raises(DynamicSamplingExhausted, match="dynamic_sampling_max_batches: 3 .* only 1 of the 2"):
        fill_eligible_groups(gen, needed_groups=2, max_batches=3)
    assert calls == [0, 1, 2]
    assert issubclass(DynamicSamplingExhausted, UserError)


def test_rewards_of_extracts_rewards_from_payload_groups():
    groups = [{"id": "a", "r": [1.0, 1.0]}, {"id": "b", "r": [0.1, 1.0]}]
    out = fill_eligible_groups(lambda i: groups, 1, 1, rewards_of=lambda g: g["r"])
    assert out.groups == [groups[1]]


def test_all_equal_and_zvf():
    assert all_equal([0.3, 0.3, 0.3]) and not all_equal([0.3, 0.30001])
    assert all_equal([0.3, 0.30001], tol=1e-3)
    assert all_equal([1.0]) and all_equal([1.0, float("nan")])
    assert zvf([[1, 1], [0, 1], [0, 0], [2, 3]]) == 0.5
    assert zvf([]) == 0.0


def test_overlong_penalty_matches_dapo_piecewise_rule():
    # max 20, buffer 4: no penalty up to 16, linear to -1 at 20, -1 beyond.
    assert overlong_penalties([10, 16, 17, 18, 20, 25], 20, 4) == pytest.approx([0, 0, -0.25, -0.5, -1, -1])
    assert overlong_penalty(18, 20, 4, factor=0.5) == pytest.approx(-0.25)
    assert overlong_penalty(21, 20, 0) == -1.0 and overlong_penalty(20, 20, 0) == 0.0
    with pytest.raises(UserError, match="overlong_buffer_length"):
        overlong_penalty(5, 10, 11)


def test_overlong_filter_masks_truncated():
    assert overlong_filter_keep([False, True, False]) == [True, False, True]


# -- real tiny-model runs ------------------------------------------------------------------------

def _dapo_lock(root, *, task="fixed", **changes):
    from runner_run_support import prereg, write_lock

    p = prereg(id=f"dapo-{root.name}")
    if task == "fixed":  # 'const' earns 1.0 always (never eligible), 'var' alternates 0/1 (always eligible)
        p["task"] = {"name": "runner_run_support:make_fixed_task"}
        p["dataset"] = {"name": "fixed", "revision": None, "train_split": "train", "heldout_split": "heldout",
                        "heldout_n": 2}
    p["arms"] = {**p["arms"], "dapo": {"algorithm": "dapo", "changes": {"loss_type": "dapo", **changes}}}
    return write_lock(root / "locks", p)


@pytest.fixture(scope="module")
def dapo_run(tmp_path_factory):
    from runner_run_support import run

    root = tmp_path_factory.mktemp("dapo")
    lock = _dapo_lock(root, epsilon_high=0.28, dynamic_sampling=True, dynamic_sampling_max_batches=3)
    return run(lock, "dapo", 1, root / "runs")


@pytest.mark.slow
def test_dapo_real_run_refills_dropped_groups_and_reports_both_zvfs(dapo_run):
    from prereg.records import read_run

    r = read_run(dapo_run)
    m = r.manifest
    assert m["status"] == "complete" and r.seal_ok()
    assert m["resolved_config"]["trainer"]["loss_type"] == "dapo"
    assert m["resolved_config"]["trainer"]["epsilon_high"] == 0.28
    assert m["resolved_config"]["runner"]["dynamic_sampling_max_batches"] == 3
    tel = r.telemetry()
    traces = r.train_trace()
    for row in tel:
        # batch 0 holds 'const' (dropped) and 'var'; one refill batch brings the second eligible group
        assert row["dynamic_sampling_batches"] == 2
        assert row["dynamic_sampling_groups_generated"] == 4 and row["dynamic_sampling_eligible_groups"] == 2
        assert row["dynamic_sampling_rollouts"] == 16 == row["new_rollouts"]
        assert row["zvf_generated"] == 0.5 == row["zvf"]
        assert row["zvf_optimized"] == 0.0
        kept = row["dynamic_sampling_kept"]
        assert len(kept) == 2 and len({g for g, _ in kept}) == 2  # one group from each generation batch
        step_rows = [t for t in traces if t["step"] == row["step"]]
        assert len(step_rows) == 16
        for gen, group in kept:
            rewards = [t["reward"] for t in step_rows if t["generation"] == gen and t["group"] == group]
            assert len(rewards) == 4 and len(set(rewards)) > 1 and {t["item_id"] for t in step_rows
                                                                    if t["generation"] == gen
                                                                    and t["group"] == group} == {"var"}
    assert tel[-1]["rollouts"] == 16 * len(tel)
    assert set(tel[0]) - {"step", "generations", "trl"} <= set(m["telemetry_sources"])


@pytest.mark.slow
def test_dapo_real_run_fails_loudly_when_the_generation_limit_is_hit(tmp_path):
    from runner_run_support import run

    from prereg.records import read_run

    lock = _dapo_lock(tmp_path, dynamic_sampling=True, dynamic_sampling_max_batches=1)
    with pytest.raises(DynamicSamplingExhausted, match="dynamic_sampling_max_batches: 1 .* only 1 of the 2"):
        run(lock, "dapo", 1, tmp_path / "runs")
    r = read_run(tmp_path / "runs" / f"dapo-{tmp_path.name}" / "dapo" / "s1")
    assert r.manifest["status"] == "failed" and "DynamicSamplingExhausted" in r.manifest["error"]
    assert r.telemetry() == []  # no step was trained on fewer groups
    assert len(r.train_trace()) == 8  # the one generation batch it was allowed is still traced


@pytest.mark.slow
def test_dapo_overlong_shaping_in_a_real_run(tmp_path):
    from runner_run_support import run

    from prereg.records import read_run

    lock = _dapo_lock(tmp_path, task="arith", overlong_filtering=True, overlong_buffer_length=4,
                      overlong_penalty_factor=0.5)
    r = read_run(run(lock, "dapo", 1, tmp_path / "runs"))
    assert r.manifest["status"] == "complete"
    for row in r.telemetry():
        n = row["new_rollouts"]
        # every truncated completion (length 8 = max_completion_length, no EOS) is filtered out of the loss
        assert row["overlong_filtered"] == round(row["truncated_frac"] * n)
        # lengths 5..8 are penalized linearly down to -0.5; shorter ones are not
        assert -0.5 <= row["overlong_penalty_mean"] <= 0.0
        assert row["overlong_penalized"] >= row["overlong_filtered"]


def test_dapo_preset_fills_clip_higher_and_refuses_bad_locks():
    from runner_run_support import prereg

    from runner.config import resolve

    p = prereg()
    training = {k: v for k, v in p["training"].items() if k not in ("epsilon", "epsilon_high", "loss_type")}
    p = prereg(training=training, arms={"dapo": {"algorithm": "dapo", "changes": {"dynamic_sampling": True,
                                                                                  "dynamic_sampling_max_batches": 2}}},
               baseline_arm="dapo")
    cfg = resolve(p, "dapo", 1, device="cpu", output_dir="/tmp/x")
    assert cfg.grpo_config.loss_type == "dapo" and cfg.grpo_config.epsilon == 0.2
    assert cfg.grpo_config.epsilon_high == 0.28
    assert cfg.sources["trainer.epsilon_high"] == "preset:dapo"
    bad = prereg(training=training, arms={"dapo": {"algorithm": "dapo", "changes": {"dynamic_sampling": True}}},
                 baseline_arm="dapo")
    with pytest.raises(UserError, match="dynamic_sampling_max_batches"):
        resolve(bad, "dapo", 1, device="cpu", output_dir="/tmp/x")
    wrong = prereg(arms={"dapo": {"algorithm": "dapo", "changes": {"loss_type": "grpo"}}}, baseline_arm="dapo")
    with pytest.raises(UserError, match="loss_type"):
        resolve(wrong, "dapo", 1, device="cpu", output_dir="/tmp/x")
    grpo_ds = prereg(arms={"grpo": {"algorithm": "grpo", "changes": {"dynamic_sampling": True,
                                                                      "dynamic_sampling_max_batches": 2}}})
    with pytest.raises(UserError, match="dynamic_sampling"):
        resolve(grpo_ds, "grpo", 1, device="cpu", output_dir="/tmp/x")


def test_select_rows_merges_generation_outputs_with_trl_padding():
    import torch

    from runner.rollouts import select_rows

    a = {"prompt_ids": torch.tensor([[9, 1, 2], [3, 4, 5]]), "prompt_mask": torch.tensor([[0, 1, 1], [1, 1, 1]]),
         "completion_ids": torch.tensor([[7, 9], [8, 8]]), "completion_mask": torch.tensor([[1, 0], [1, 1]]),
         "advantages": torch.tensor([0.5, -0.5]), "num_items_in_batch": torch.tensor(3)}
    b = {"prompt_ids": torch.tensor([[6, 6]]), "prompt_mask": torch.tensor([[1, 1]]),
         "completion_ids": torch.tensor([[5, 5, 5]]), "completion_mask": torch.tensor([[1, 1, 1]]),
         "advantages": torch.tensor([1.0]), "num_items_in_batch": torch.tensor(3)}
    out = select_rows([a, b], [(1, 0), (0, 0)], pad_token_id=9)
    assert out["prompt_ids"].tolist() == [[9, 6, 6], [9, 1, 2]]  # left-padded like TRL's prompts
    assert out["prompt_mask"].tolist() == [[0, 1, 1], [0, 1, 1]]
    assert out["completion_ids"].tolist() == [[5, 5, 5], [7, 9, 9]]  # right-padded completions
    assert out["completion_mask"].tolist() == [[1, 1, 1], [1, 0, 0]]
    assert out["advantages"].tolist() == [1.0, 0.5]
    assert int(out["num_items_in_batch"]) == 4
