"""Real GRPOTrainer training of the tiny model for every preset, and the sealed record it leaves."""

from __future__ import annotations

import dataclasses
import json
from collections import defaultdict

import pytest
from runner_run_support import prereg, run, write_lock

from prereg.canonical import sha256_text
from prereg.errors import Refusal
from prereg.fields import flatten, resolved_path
from prereg.jsonio import read_json, read_jsonl
from prereg.records import read_run, seal_of
from prereg.schema import schema_errors
from prereg.summaries import compute_summaries
from runner.telemetry import group_stats

pytestmark = pytest.mark.slow

PRESETS = ("grpo", "dr_grpo", "gspo", "bnpo")


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    root = tmp_path_factory.mktemp("study")
    lock = write_lock(root / "locks", prereg())
    runs = {}
    for arm in PRESETS:
        runs[(arm, 1)] = run(lock, arm, 1, root / "runs")
    runs[("grpo", 2)] = run(lock, "grpo", 2, root / "runs")
    runs[("grpo", "1-again")] = run(lock, "grpo", 1, root / "runs-again")
    return {"root": root, "lock": lock, "runs": runs}


@pytest.mark.parametrize("arm", PRESETS)
def test_every_preset_trains_and_seals_a_complete_record(study, arm):
    r = read_run(study["runs"][(arm, 1)])
    m = r.manifest
    assert m["status"] == "complete" and m["error"] is None
    assert schema_errors(m, "manifest") == []
    assert r.seal_ok()
    assert m["arm"] == arm and m["algorithm"] == arm and m["seed"] == 1
    assert m["evidence_class"] == "confirmatory"
    assert m["lock"]["hash"] == read_json(study["lock"])["lock_hash"]
    assert m["declared_changes"] == prereg()["arms"][arm]["changes"]
    # artifacts: telemetry, both traces and the adapter, each digest matching the file
    for rel in ("telemetry.jsonl", "traces/train.jsonl", "traces/heldout.jsonl",
                "adapter/adapter_model.safetensors", "adapter/adapter_config.json"):
        assert rel in m["artifacts"], rel
    assert ".unit.lock" not in m["artifacts"]
    tel, held = r.telemetry(), r.heldout_trace()
    assert [row["step"] for row in tel] == [1, 2]
    assert len(held) == 4 and [h["index"] for h in held] == [0, 1, 2, 3]
    assert m["summaries"] == compute_summaries(tel, held)
    assert m["fingerprint"]["components"]["task"]["name"] == "arith"
    assert "runner/train.py" in m["fingerprint"]["components"]["runner_sources"]


@pytest.mark.parametrize("arm", PRESETS)
def test_resolved_config_has_every_field_and_each_locked_value(study, arm):
    from peft import LoraConfig
    from trl import GRPOConfig

    m = read_json(study["runs"][(arm, 1)] / "manifest.json")
    trainer = m["resolved_config"]["trainer"]
    assert set(trainer) == {f.name for f in dataclasses.fields(GRPOConfig) if f.init}
    assert len(m["resolved_config"]["peft"]) == len([f for f in dataclasses.fields(LoraConfig) if f.init])
    flat = flatten(m["resolved_config"])
    p = prereg()
    locked = {**p["training"], **p["arms"][arm]["changes"]}
    for field, value in locked.items():
        assert flat[resolved_path(field)] == value, field
        assert m["config_sources"][resolved_path(field)] == "lock"
    # loss_type is never TRL's default by accident, and CPU runs are fp32
    assert trainer["loss_type"] == locked["loss_type"] and trainer["bf16"] is False and trainer["use_cpu"] is True
    assert trainer["seed"] == 1 and trainer["data_seed"] == 1
    assert trainer["per_device_train_batch_size"] == 2 * 4


def test_telemetry_zvf_is_recomputed_from_the_traced_rewards(study):
    for key, run_dir in study["runs"].items():
        trace = read_jsonl(run_dir / "traces/train.jsonl")
        by_gen = defaultdict(list)
        for row in trace:
            by_gen[row["generation"]].append(row["reward"])
        for row in read_jsonl(run_dir / "telemetry.jsonl"):
            rewards = [r for g in row["generations"] for r in by_gen[g]]
            expect = group_stats(rewards, 4, max_reward=1.0)
            assert row["zvf"] == expect["zvf"] and row["gu"] == pytest.approx(1 - row["zvf"]), key
            assert row["reward_mean"] == pytest.approx(expect["reward_mean"])
            assert 0 <= row["zvf"] <= 1 and row["groups"] == expect["groups"] == len(rewards) // 4
            assert row["entropy"] is not None and row["loss"] is not None and row["step_time_s"] > 0
        assert read_jsonl(run_dir / "telemetry.jsonl")[-1]["rollouts"] == len(trace)


def test_gspo_reuses_one_generation_for_two_steps(study):
    """steps_per_generation=2: step 2 trains on step 1's batch; its row says so."""
    tel = read_jsonl(study["runs"][("gspo", 1)] / "telemetry.jsonl")
    assert [row["generations"] for row in tel] == [[0], [0]]
    assert [row["new_rollouts"] for row in tel] == [16, 0]  # 2 steps x 2 prompts x 4, generated at once
    assert [row["rollouts"] for row in tel] == [16, 16]
    assert tel[0]["zvf"] == tel[1]["zvf"]


def test_trace_rows_hash_completions_without_text(study):
    trace = read_jsonl(study["runs"][("grpo", 1)] / "traces/train.jsonl")
    assert len(trace) == 2 * 2 * 4
    for row in trace:
        assert set(row) == {"step", "generation", "group", "index", "item_id", "prompt_sha256",
                            "completion_sha256", "reward"}
        assert len(row["completion_sha256"]) == 64
    # consecutive groups of num_generations completions of one prompt
    for i in range(0, len(trace), 4):
        assert len({r["prompt_sha256"] for r in trace[i:i + 4]}) == 1
        assert [r["index"] for r in trace[i:i + 4]] == [0, 1, 2, 3]
    held = read_jsonl(study["runs"][("grpo", 1)] / "traces/heldout.jsonl")
    assert all(h["prompt_sha256"] == sha256_text(h["item_id"].split(":", 1)[1] + "=") for h in held)


def test_same_seed_gives_identical_traces_and_different_seeds_differ(study):
    runs = study["runs"]

    def hashes(d, name):
        return [r["completion_sha256"] for r in read_jsonl(d / name)]

    a, again, b = runs[("grpo", 1)], runs[("grpo", "1-again")], runs[("grpo", 2)]
    assert hashes(a, "traces/train.jsonl") == hashes(again, "traces/train.jsonl")
    assert hashes(a, "traces/heldout.jsonl") == hashes(again, "traces/heldout.jsonl")
    ma, mg = read_json(a / "manifest.json"), read_json(again / "manifest.json")
    assert ma["artifacts"]["adapter/adapter_model.safetensors"] == mg["artifacts"]["adapter/adapter_model.safetensors"]
    assert hashes(a, "traces/train.jsonl") != hashes(b, "traces/train.jsonl")
    assert [r["item_id"] for r in read_jsonl(a / "traces/train.jsonl")] != \
        [r["item_id"] for r in read_jsonl(b / "traces/train.jsonl")]


def test_manifest_seal_catches_a_changed_byte(study, tmp_path):
    src = study["runs"][("grpo", 1)] / "manifest.json"
    m = json.loads(src.read_text())
    assert seal_of(m) == m["seal"]
    text = src.read_text()
    needle = f'"heldout_correct": {m["summaries"]["heldout_correct"]}'
    tampered = json.loads(text.replace(needle, f'"heldout_correct": {m["summaries"]["heldout_correct"] + 1}'))
    assert tampered != m and seal_of(tampered) != tampered["seal"]
    # one changed character in any string field breaks it too
    m2 = json.loads(text)
    m2["started_at"] = m2["started_at"][:-2] + ("0" if m2["started_at"][-2] != "0" else "1") + "Z"
    assert seal_of(m2) != m2["seal"]


def test_completed_unit_is_never_overwritten(study):
    before = (study["runs"][("grpo", 1)] / "manifest.json").read_bytes()
    with pytest.raises(Refusal, match="complete; refusing to overwrite"):
        run(study["lock"], "grpo", 1, study["root"] / "runs")
    assert (study["runs"][("grpo", 1)] / "manifest.json").read_bytes() == before


def test_store_text_adds_text_to_traces(tmp_path):
    lock = write_lock(tmp_path / "locks", prereg(training={**prereg()["training"], "max_steps": 1}))
    d = run(lock, "grpo", 1, tmp_path / "runs", store_text=True)
    rows = read_jsonl(d / "traces/train.jsonl")
    assert all(sha256_text(r["completion"]) == r["completion_sha256"] for r in rows)
    assert all(sha256_text(r["prompt"]) == r["prompt_sha256"] for r in rows)
    assert read_json(d / "manifest.json")["settings"]["store_text"] is True
