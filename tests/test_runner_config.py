"""Resolving an arm's trainer config from the lock: presets, refusals, sources, environment."""

from __future__ import annotations

import pytest
from runner_run_support import prereg

from prereg.errors import Refusal
from runner.arms import PRESETS, ArmPreset, check_preset
from runner.config import check_environment, peft_dict, resolve


def _resolve(p, arm="grpo", seed=1, **kw):
    kw.setdefault("device", "cpu")
    kw.setdefault("output_dir", "/tmp/unused")
    return resolve(p, arm, seed, **kw)


@pytest.mark.parametrize("arm", ["grpo", "dr_grpo", "gspo", "bnpo"])
def test_each_preset_resolves_the_locked_values(arm):
    cfg = _resolve(prereg(), arm)
    g = cfg.grpo_config
    want = {"grpo": ("grpo", "group", "token"), "dr_grpo": ("dr_grpo", "none", "token"),
            "gspo": ("grpo", "group", "sequence"), "bnpo": ("bnpo", "group", "token")}[arm]
    assert (g.loss_type, g.scale_rewards, g.importance_sampling_level) == want
    assert g.per_device_train_batch_size == 8 and g.seed == 1 and g.data_seed == 1
    assert g.use_cpu is True and g.bf16 is False
    assert cfg.lora_config.r == 4 and cfg.lora_config.lora_alpha == 8
    assert cfg.sources["trainer.loss_type"] == "lock"


def test_preset_fills_a_silent_loss_type_instead_of_trls_default():
    p = prereg()
    del p["training"]["loss_type"]
    cfg = _resolve(p, "grpo")
    assert cfg.grpo_config.loss_type == "grpo"  # TRL 1.16's default would be "dapo"
    assert cfg.sources["trainer.loss_type"] == "preset:grpo"
    cfg = _resolve(p, "gspo")
    assert cfg.grpo_config.loss_type == "grpo" and cfg.sources["trainer.loss_type"] == "preset:gspo"
    cfg = _resolve(p, "bnpo")  # declared in the arm's changes: the lock wins, and says so
    assert cfg.grpo_config.loss_type == "bnpo" and cfg.sources["trainer.loss_type"] == "lock"


def test_arm_contradicting_its_algorithm_is_refused():
    p = prereg()
    p["arms"]["dr_grpo"]["changes"] = {"scale_rewards": "none"}  # loss_type stays the shared "grpo"
    with pytest.raises(Refusal, match=r"arms.dr_grpo: algorithm 'dr_grpo' means loss_type='dr_grpo'"):
        _resolve(p, "dr_grpo")


def test_field_the_installed_trl_lacks_is_refused_not_dropped():
    p = prereg()
    p["training"]["max_prompt_length"] = 64  # removed from GRPOConfig in TRL 1.x
    with pytest.raises(Refusal, match=r"training.max_prompt_length: the installed TRL GRPOConfig has no such field"):
        _resolve(p)
    p = prereg()
    p["arms"]["bnpo"]["changes"]["lora_nonsense"] = 1
    with pytest.raises(Refusal, match="training.lora_nonsense"):
        _resolve(p, "bnpo")


def test_lock_cannot_set_a_runner_owned_field():
    p = prereg()
    p["training"]["seed"] = 5
    with pytest.raises(Refusal, match="training.seed: set by the runner"):
        _resolve(p)


def test_unimplemented_runner_extension_is_refused():
    p = prereg()
    p["arms"]["grpo"]["changes"]["dynamic_sampling"] = True
    with pytest.raises(Refusal, match="training.dynamic_sampling: arm 'grpo'"):
        _resolve(p)
    p["arms"]["grpo"]["changes"]["dynamic_sampling"] = False  # off is not a change of behaviour
    assert _resolve(p).runner_fields["dynamic_sampling"] is False


def test_on_policy_gspo_is_refused_unless_exploratory():
    p = prereg()
    p["arms"]["gspo"]["changes"].update(steps_per_generation=1, num_iterations=1)
    with pytest.raises(Refusal, match="fully on-policy"):
        _resolve(p, "gspo")
    cfg = _resolve(p, "gspo", exploratory=True)
    assert any("on-policy" in n for n in cfg.notes)


def test_batch_geometry_and_cpu_precision():
    p = prereg()
    p["training"]["gradient_accumulation_steps"] = 2
    g = _resolve(p).grpo_config
    assert g.per_device_train_batch_size == 4 and g.gradient_accumulation_steps == 2
    p["training"]["prompts_per_step"] = 1
    p["training"]["num_generations"] = 3
    with pytest.raises(Refusal, match="do not split"):
        _resolve(p)
    p = prereg()
    p["training"]["bf16"] = True
    with pytest.raises(Refusal, match="training.bf16"):
        _resolve(p)
    p = prereg()
    del p["training"]["prompts_per_step"]
    with pytest.raises(Refusal, match="prompts_per_step"):
        _resolve(p)


def test_trl_validation_errors_become_one_line_refusals():
    p = prereg()
    p["training"]["generation_batch_size"] = 16  # with steps_per_generation also set: TRL rejects
    with pytest.raises(Refusal, match="TRL rejects the locked trainer config"):
        _resolve(p)


def test_unregistered_arm_lists_the_registered_ones():
    with pytest.raises(Refusal, match=r"registered: bnpo, dr_grpo, grpo, gspo"):
        _resolve(prereg(), "dapo")
    cfg = _resolve(prereg(), "bnpo", exploratory=True)
    assert cfg.algorithm == "bnpo"


def test_sources_cover_every_field():
    cfg = _resolve(prereg())
    resolved = cfg.resolved()
    for ns in ("trainer", "peft", "runner"):
        for key in resolved[ns]:
            assert f"{ns}.{key}" in cfg.sources, f"{ns}.{key}"
    assert cfg.sources["trainer.per_device_train_batch_size"].startswith("derived:")
    assert cfg.sources["trainer.seed"] == "runner"
    assert set(cfg.sources.values()) <= {"lock", "runner", "default", "trl-derived",
                                         "derived:prompts_per_step*num_generations"}


def test_peft_record_uses_the_lock_vocabulary():
    d = peft_dict(_resolve(prereg()).lora_config)
    assert d["alpha"] == 8 and d["dropout"] == 0.0 and d["r"] == 4 and d["target_modules"] == "all-linear"
    assert "lora_alpha" not in d


def test_environment_overrides_are_refused_or_recorded():
    for name in ("ACCELERATE_MIXED_PRECISION", "RLPREREG_LEARNING_RATE", "TRL_USE_VLLM"):
        with pytest.raises(Refusal, match=name):
            check_environment({name: "1", "HOME": "/root"})
    rec = check_environment({"ACCELERATE_MIXED_PRECISION": "bf16"}, exploratory=True)
    assert rec == {"ACCELERATE_MIXED_PRECISION": "bf16"}
    with pytest.raises(Refusal, match="WORLD_SIZE=2"):
        check_environment({"WORLD_SIZE": "2"}, exploratory=True)
    rec = check_environment({"OMP_NUM_THREADS": "2", "RLPREREG_CACHE": "/c", "PATH": "/bin"})
    assert rec == {"OMP_NUM_THREADS": "2", "RLPREREG_CACHE": "/c"}


def test_preset_check_and_registry_shape():
    assert {"grpo", "dr_grpo", "gspo", "bnpo"} <= set(PRESETS)
    preset = ArmPreset(name="x", description="", implies={"loss_type": "dapo"}, fills={"epsilon_high": 0.28})
    assert check_preset("a", preset, {"loss_type": "dapo"}) == {"epsilon_high": 0.28}
    assert check_preset("a", preset, {}) == {"loss_type": "dapo", "epsilon_high": 0.28}
    with pytest.raises(Refusal):
        check_preset("a", preset, {"loss_type": "grpo"})


def test_wiring_check_catches_a_trainer_that_ignores_the_config():
    from types import SimpleNamespace

    from runner.train import check_wiring

    cfg = _resolve(prereg(), "dr_grpo")
    good = SimpleNamespace(loss_type="dr_grpo", scale_rewards="none", beta=0.0, args=SimpleNamespace(seed=1))
    check_wiring(good, cfg)
    bad = SimpleNamespace(loss_type="grpo", scale_rewards="none", beta=0.0, args=SimpleNamespace(seed=1))
    with pytest.raises(RuntimeError, match="trainer.loss_type='grpo'.*not wired"):
        check_wiring(bad, cfg)
