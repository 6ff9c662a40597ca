"""GPU-path plumbing tested on CPU: vLLM seeding from the run seed, the 4-bit config from the lock,
and the one-line refusals without a GPU."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from prereg.errors import UserError
from prereg.study import ModelSpec
from runner import gpu

ROOT = Path(__file__).resolve().parent.parent
# a string condition is evaluated when the test runs, so collecting this file does not import torch
needs_no_cuda = pytest.mark.skipif("gpu.cuda_available()", reason="checks the no-GPU refusal")


def model(quantization: dict | None = None) -> ModelSpec:
    """The lock's typed ``model`` block (``lock.study.model``) with this ``quantization``."""
    return ModelSpec("m", "r", None, quantization or {})


def test_vllm_engine_seed_comes_from_the_run_seed():
    seeds = {s: gpu.vllm_colocate_seed(s) for s in (1, 2, 37, 53)}
    assert len(set(seeds.values())) == 4  # different run seeds -> different engine seeds
    assert gpu.vllm_colocate_seed(37) == seeds[37]  # and a run seed always gives the same one
    assert 0 <= seeds[37] < 2**31
    # TRL passes rank // tp as its seed: ranks of one TP group share a seed, groups differ.
    assert gpu.vllm_colocate_seed(37, 0, 2) == gpu.vllm_colocate_seed(37, 1, 2)
    assert gpu.vllm_colocate_seed(37, 2, 2) != gpu.vllm_colocate_seed(37, 1, 2)
    # Server mode: one request seed per generation call, distinct per step/call and per run seed.
    req = {(s, st, c) for s in (1, 2) for st in (1, 2) for c in (0, 1)}
    assert len({gpu.vllm_server_request_seed(*k) for k in req}) == len(req)


def test_seeded_llm_factory_replaces_trls_rank_seed_and_records_it():
    made = []

    class Engine:  # stands in for vllm.LLM, which cannot be constructed without a GPU
        def __init__(self, **kwargs):
            made.append(kwargs)

    record: list = []
    factory = gpu.seeded_llm_factory(Engine, lambda group: gpu.vllm_colocate_seed(37, group), record)
    factory(model="m", seed=0, tensor_parallel_size=1)
    factory(model="m", seed=1, tensor_parallel_size=1)
    assert made[0]["seed"] == gpu.vllm_colocate_seed(37, 0) != 0
    assert made[1]["seed"] == gpu.vllm_colocate_seed(37, 1)
    assert made[0]["model"] == "m"
    assert record == [{"trl_seed": 0, "seed": made[0]["seed"]}, {"trl_seed": 1, "seed": made[1]["seed"]}]


def test_installed_trl_still_builds_its_engine_with_a_seed_keyword():
    gpu.check_trl_vllm_seed_hook()  # raises if TRL's colocate engine stops taking seed=


@pytest.mark.skipif(gpu.importlib.util.find_spec("vllm") is not None, reason="vllm installed")
def test_seeded_engine_without_vllm_refuses_in_one_line():
    with pytest.raises(UserError, match="vllm is not importable"):
        with gpu.seeded_vllm_engine(1):
            pass


def test_bnb_settings_come_from_the_lock():
    spec = model({"load_in_4bit": True, "quant_type": "nf4", "double_quant": True, "compute_dtype": "bfloat16"})
    assert gpu.qlora_settings(spec) == {"load_in_4bit": True, "bnb_4bit_quant_type": "nf4",
                                        "bnb_4bit_use_double_quant": True, "bnb_4bit_compute_dtype": "bfloat16"}
    cfg = gpu.bnb_config(spec).to_dict()  # transformers builds the config object without bitsandbytes
    assert cfg["load_in_4bit"] and cfg["bnb_4bit_quant_type"] == "nf4" and cfg["bnb_4bit_use_double_quant"]
    assert cfg["bnb_4bit_compute_dtype"] == "bfloat16"
    other = model({"quant_type": "fp4", "double_quant": False, "compute_dtype": "float16"})
    cfg = gpu.bnb_config(other).to_dict()
    assert cfg["bnb_4bit_quant_type"] == "fp4" and not cfg["bnb_4bit_use_double_quant"]
    assert cfg["bnb_4bit_compute_dtype"] == "float16"
    assert gpu.qlora_settings(model()) is None
    assert gpu.qlora_settings(model({"load_in_4bit": False})) is None
    with pytest.raises(UserError, match="model.quantization"):
        gpu.qlora_settings(model({"bits": 3}))


@needs_no_cuda
def test_gpu_paths_refuse_without_cuda_naming_the_field():
    assert gpu.check_gpu_requirements({"use_vllm": False}, model(), "cpu") == []
    assert gpu.check_gpu_requirements({}, model({"load_in_4bit": False}), "cpu") == []
    with pytest.raises(UserError, match="training.use_vllm: .*CUDA"):
        gpu.check_gpu_requirements({"use_vllm": True}, model(), "cpu")
    with pytest.raises(UserError, match="training.use_vllm: .*CUDA"):
        gpu.check_gpu_requirements({"use_vllm": True}, model(), "cuda")
    with pytest.raises(UserError, match="model.quantization: .*CUDA"):
        gpu.check_gpu_requirements({}, model({"load_in_4bit": True}), "cuda")
    with pytest.raises(UserError, match="needs a CUDA GPU"):
        gpu.prepare_qlora(object())


@pytest.mark.slow  # subprocess; test_runner_run_refuses_gpu_paths_on_cpu_in_one_line is the in-process refusal
@needs_no_cuda
def test_gpu_smoke_says_it_needs_a_gpu_and_exits_2():
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "gpu_smoke.py")], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == ["error: gpu_smoke needs a CUDA GPU; none is visible on this machine"]
    assert proc.stdout == ""


@needs_no_cuda
@pytest.mark.parametrize("change,needle", [
    ({"model": {"name": "tiny:qwen2", "revision": None, "quantization": {"load_in_4bit": True}}},
     "error: model.quantization: 4-bit QLoRA needs a CUDA GPU"),
    ({"training": {"use_vllm": True, "vllm_mode": "colocate"}}, "error: training.use_vllm: vLLM generation needs a CUDA GPU"),
])
def test_runner_run_refuses_gpu_paths_on_cpu_in_one_line(tmp_path, capsys, change, needle):
    from runner_run_support import prereg, write_lock

    from runner.cli import main

    p = prereg()
    if "training" in change:
        p["training"] = {**p["training"], **change["training"]}
    else:
        p.update(change)
    lock = write_lock(tmp_path / "locks", p)
    rc = main(["run", "--arm", "grpo", "--seed", "1", "--lock", str(lock), "--out", str(tmp_path / "runs")])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and err[0].startswith(needle), err
    assert not (tmp_path / "runs").exists()


def test_recorded_vllm_seed_is_derived_from_the_run_seed():
    colocate = {"use_vllm": True, "vllm_mode": "colocate"}
    assert gpu.vllm_seed_record(colocate, 1) == gpu.vllm_colocate_seed(1)
    assert gpu.vllm_seed_record(colocate, 1) != gpu.vllm_seed_record(colocate, 2)
    server = gpu.vllm_seed_record({"use_vllm": True, "vllm_mode": "server"}, 7)
    assert "derive_seed(7, 'vllm-server:<step>:<call>')" in server
