"""Telemetry against hand-computed groups, incl. the batch-scaling case where TRL's metric is not ZVF."""

from __future__ import annotations

import math

import pytest
from runner_run_support import prereg, run, write_lock

from prereg.jsonio import read_json, read_jsonl
from prereg.records import read_run
from prereg.schema import schema_errors
from runner.telemetry import group_stats

# three groups of four: all max, mixed, all fail
HAND = [1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0]


def test_group_stats_hand_example():
    s = group_stats(HAND, 4, max_reward=1.0)
    assert s["groups"] == 3
    assert s["zvf"] == pytest.approx(2 / 3) and s["gu"] == pytest.approx(1 / 3)
    assert s["frac_all_max"] == pytest.approx(1 / 3) and s["frac_all_fail"] == pytest.approx(1 / 3)
    assert s["reward_mean"] == pytest.approx(0.5)
    assert s["reward_std"] == pytest.approx(math.sqrt(12 * 0.25 / 11))  # ddof=1, like TRL
    # the same rewards in groups of 2: [1,1][1,1][0,1][0,1][0,0][0,0] -> 4 of 6 zero-variance
    assert group_stats(HAND, 2, max_reward=1.0)["zvf"] == pytest.approx(4 / 6)
    # partial credit: equal-but-not-zero rewards are zero-variance, neither all-fail nor all-max
    s = group_stats([0.1, 0.1, 0.1, 0.1], 4, max_reward=1.0)
    assert (s["zvf"], s["frac_all_fail"], s["frac_all_max"]) == (1.0, 0.0, 0.0)
    with pytest.raises(ValueError, match="3 rewards do not form groups of 2"):
        group_stats([1.0, 0.0, 1.0], 2, max_reward=1.0)


def _fixed_study(tmp_path, scale_rewards, **task_options):
    p = prereg(id=f"fixed-{scale_rewards}")
    p["task"] = {"name": "runner_run_support:make_fixed_task", "options": task_options}
    p["dataset"] = {"name": "fixed", "revision": None, "train_split": "train", "heldout_split": "heldout",
                    "heldout_n": 2}
    p["training"]["scale_rewards"] = scale_rewards
    return write_lock(tmp_path / "locks", p)


@pytest.fixture(scope="module")
def fixed_runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("fixed")
    return {s: run(_fixed_study(root / s, s), "grpo", 1, root / s / "runs") for s in ("batch", "group")}


@pytest.mark.slow  # real training runs; test_group_stats_hand_example is the unit test
@pytest.mark.parametrize("scale", ["batch", "group"])
def test_zvf_on_a_real_run_with_known_groups(fixed_runs, scale):
    """Each step: a 'const' group (1,1,1,1) and a 'var' group (0,1,0,1): ZVF 0.5 by hand."""
    tel = read_jsonl(fixed_runs[scale] / "telemetry.jsonl")
    assert len(tel) == 2
    for row in tel:
        assert row["groups"] == 2
        assert row["zvf"] == 0.5 and row["gu"] == 0.5
        assert row["frac_all_max"] == 0.5 and row["frac_all_fail"] == 0.0
        assert row["reward_mean"] == pytest.approx(0.75)
        assert row["reward_std"] == pytest.approx(math.sqrt((6 * 0.25**2 + 2 * 0.75**2) / 7))
        assert row["trl"]["reward"] == pytest.approx(0.75)
        trl_frac = row["trl"]["frac_reward_zero_std"]
        if scale == "batch":
            # TRL tests the batch std (nonzero here): its "fraction" is 0, not a fraction of groups
            assert trl_frac == 0.0 != row["zvf"]
        else:
            assert trl_frac == pytest.approx(row["zvf"])
    m = read_json(fixed_runs[scale] / "manifest.json")
    assert m["summaries"]["zvf_mean"] == 0.5 and m["summaries"]["gu_mean"] == 0.5
    assert m["summaries"]["rollouts"] == 16 and m["summaries"]["reward_first5"] == pytest.approx(0.75)
    assert m["telemetry_sources"]["zvf"] == "runner" and m["telemetry_sources"]["entropy"] == "trl:entropy"


@pytest.mark.slow  # a real training run
def test_crash_leaves_a_sealed_failed_manifest_and_no_rerun_over_it(tmp_path):
    lock = _fixed_study(tmp_path, "group", fail_after=8)  # step 1's 8 rewards, then the reward raises
    with pytest.raises(RuntimeError, match="injected reward failure"):
        run(lock, "grpo", 1, tmp_path / "runs")
    d = tmp_path / "runs" / "fixed-group" / "grpo" / "s1"
    r = read_run(d)
    assert r.manifest["status"] == "failed" and "injected reward failure" in r.manifest["error"]
    assert r.manifest["ended_at"] is not None and r.seal_ok()
    assert schema_errors(r.manifest, "manifest") == []
    assert [row["step"] for row in r.telemetry()] == [1]  # the completed step survived, flushed
    assert "telemetry.jsonl" in r.manifest["artifacts"] and r.manifest["summaries"]["steps"] == 1
    assert not list(d.glob(".*.tmp"))  # no half-written file
    from prereg.errors import Refusal

    with pytest.raises(Refusal, match="earlier failed run"):
        run(lock, "grpo", 1, tmp_path / "runs")


@pytest.mark.slow  # a real training run
def test_kl_is_reported_when_beta_is_positive(tmp_path):
    p = prereg(id="kl")
    p["training"].update(beta=0.04, max_steps=1)
    d = run(write_lock(tmp_path / "locks", p), "grpo", 1, tmp_path / "runs")
    (row,) = read_jsonl(d / "telemetry.jsonl")
    assert row["kl"] is not None and row["kl"] >= 0 and row["kl"] == row["trl"]["kl"]
    assert read_json(d / "manifest.json")["resolved_config"]["trainer"]["beta"] == 0.04
