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
