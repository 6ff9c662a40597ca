"""GPU-only paths (vLLM generation, 4-bit QLoRA): seeding, config plumbing and one-line refusals.

vLLM seeding (README failure 7). TRL 1.16 builds its colocated engine in
``trl.generation.vllm_generation.VLLMGeneration._init_vllm`` as
``LLM(..., seed=accelerator.process_index // tensor_parallel_size)``: the seed is the
process rank, the same for every run, so two runs that differ only in ``--seed`` draw the
same rollouts from the same weights. ``seeded_vllm_engine`` makes the run seed reach it:
while the trainer is constructed, the module's ``LLM`` name is wrapped so that the ``seed``
keyword becomes ``vllm_colocate_seed(run_seed, rank // tp)`` (identical within a
tensor-parallel group, as TRL needs; different between run seeds). A per-request
``SamplingParams(seed=...)`` would be the wrong tool in colocate mode: TRL sends each of a
group's ``num_generations`` copies of a prompt as its own request, and one seed per request
would make those copies identical. In server mode the engine lives in another process, so
the run seed reaches sampling as a per-call request seed instead
(``vllm_server_request_seed``; the server samples ``n`` completions from one seeded
request, which stay distinct). The seeds used are recorded in the manifest.

4-bit QLoRA: the BitsAndBytes settings come only from the lock's ``model.quantization``
(``runner.models.bnb_config_kwargs``); the compute dtype is the locked one.

Without CUDA (or without the extra installed) each path refuses in one line (exit 2).
"""

from __future__ import annotations

import contextlib
import importlib.util
import inspect
from typing import Any

from prereg.errors import Refusal, UserError
from prereg.study import ModelSpec


def cuda_available() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return bool(torch.cuda.is_available())


def require_cuda(what: str) -> None:
    """One-line refusal (exit 2) when no CUDA GPU is visible."""
    if not cuda_available():
        raise UserError(f"{what}: needs a CUDA GPU; none is visible on this machine")


def require_module(module: str, what: str, extra: str) -> None:
    if importlib.util.find_spec(module) is None:
        raise UserError(f"{what}: needs {module}, which is not installed (pip install 'rlprereg[{extra}]' on a GPU host)")


def check_gpu_requirements(training: dict, model: ModelSpec, device: str) -> list[str]:
    """Refuse, before anything is written, an arm whose GPU paths cannot run here.

    ``training`` is the arm's locked view (shared settings + its changes); returns the GPU
    paths it uses (``vllm``, ``qlora-4bit``) so the caller can record them.
    """
    paths = []
    quant = model.quantization
    if training.get("use_vllm"):
        paths.append("vllm")
        if device != "cuda":
            raise UserError("training.use_vllm: vLLM generation needs a CUDA GPU (--device cuda)")
        require_cuda("training.use_vllm")
        require_module("vllm", "training.use_vllm", "vllm")
        check_trl_vllm_seed_hook()
    if quant and quant.get("load_in_4bit", True):
        paths.append("qlora-4bit")
        if device != "cuda":
            raise UserError("model.quantization: 4-bit QLoRA needs a CUDA GPU (--device cuda)")
        require_cuda("model.quantization")
        require_module("bitsandbytes", "model.quantization", "bnb")
    return paths


# -- vLLM seeding ------------------------------------------------------------------------------

def vllm_colocate_seed(run_seed: int, process_index: int = 0, tensor_parallel_size: int = 1) -> int:
    """The engine seed of a colocated vLLM: from the run seed, shared by one TP group."""
    from runner.evaluate import derive_seed

    return derive_seed(run_seed, f"vllm-colocate:{process_index // max(tensor_parallel_size, 1)}")


def vllm_server_request_seed(run_seed: int, step: int, call: int) -> int:
    """The request seed of one generation call in vLLM server mode."""
    from runner.evaluate import derive_seed

    return derive_seed(run_seed, f"vllm-server:{step}:{call}")


def vllm_seed_record(trainer_fields: dict, run_seed: int) -> int | str:
    """What the resolved config records as ``runner.vllm_seed`` for a vLLM arm."""
    if trainer_fields.get("vllm_mode", "colocate") == "colocate":
        return vllm_colocate_seed(run_seed)
    return f"per call: derive_seed({run_seed}, 'vllm-server:<step>:<call>')"


def check_trl_vllm_seed_hook() -> None:
    """Refuse when the installed TRL no longer builds its engine as ``LLM(..., seed=...)``.

    The seeding below relies on that call; if TRL changes it, the run seed would silently stop
    reaching vLLM, which is exactly the failure this module exists to prevent.
    """
    try:
        from trl.generation import vllm_generation as vg
    except ImportError as exc:
        raise Refusal(f"training.use_vllm: cannot import TRL's vLLM generation module: {exc}") from None
    src = inspect.getsource(vg.VLLMGeneration._init_vllm)
    if "LLM(" not in src or "seed=" not in src:
        raise Refusal("training.use_vllm: the installed TRL builds its vLLM engine without an LLM(seed=...) call "
                      "this runner can seed; refusing rather than let the run seed not reach vLLM")


def seeded_llm_factory(llm_cls, seed_for_rank, record: list):
    """Wrap ``LLM`` so its ``seed`` keyword is replaced by ``seed_for_rank(trl_seed)``."""

    def make(*args, **kwargs):
        trl_seed = kwargs.get("seed", 0)
        kwargs["seed"] = seed_for_rank(trl_seed)
        record.append({"trl_seed": trl_seed, "seed": kwargs["seed"]})
        return llm_cls(*args, **kwargs)

    return make


@contextlib.contextmanager
def seeded_vllm_engine(run_seed: int, record: list | None = None):
    """While active, TRL's colocated ``LLM(...)`` gets a seed derived from ``run_seed``.

    TRL passes ``rank // tp`` as the seed; that value is kept as the TP-group index, so ranks
    of one TP group still share a seed. ``record`` receives ``{"trl_seed", "seed"}`` per engine.
    """
    from trl.generation import vllm_generation as vg

    check_trl_vllm_seed_hook()
    record = [] if record is None else record
    original = getattr(vg, "LLM", None)
    if original is None:
        raise UserError("training.use_vllm: vllm is not importable here (pip install 'rlprereg[vllm]' on a GPU host)")
    vg.LLM = seeded_llm_factory(original, lambda group: vllm_colocate_seed(run_seed, group), record)
    try:
        yield record
    finally:
        vg.LLM = original


# -- 4-bit QLoRA -----------------------------------------------------------------------------------

def qlora_settings(model: ModelSpec) -> dict[str, Any] | None:
    """The BitsAndBytes keyword arguments the lock's ``model.quantization`` means (None = no 4-bit).

    Plain data (the compute dtype as its name), so it is recorded and tested without a GPU.
    """
    from runner.models import bnb_config_kwargs

    quant = model.quantization
    if not quant or not quant.get("load_in_4bit", True):
        return None
    kwargs = bnb_config_kwargs(quant)
    if kwargs["bnb_4bit_compute_dtype"] not in ("float32", "bfloat16", "float16"):
        raise UserError(f"model.quantization.compute_dtype: {kwargs['bnb_4bit_compute_dtype']!r} is not "
                        "float32, bfloat16 or float16")
    return kwargs


def bnb_config(model: ModelSpec):
    """``transformers.BitsAndBytesConfig`` for the lock (buildable without bitsandbytes installed)."""
    import torch
    from transformers import BitsAndBytesConfig

    kwargs = qlora_settings(model)
    if kwargs is None:
        return None
    kwargs = dict(kwargs, bnb_4bit_compute_dtype=getattr(torch, kwargs["bnb_4bit_compute_dtype"]))
    return BitsAndBytesConfig(**kwargs)


def prepare_qlora(model, *, gradient_checkpointing: bool = False):
    """PEFT's k-bit preparation of a 4-bit model before LoRA is attached (GPU only)."""
    require_cuda("model.quantization")
    from peft import prepare_model_for_kbit_training

    return prepare_model_for_kbit_training(model, use_gradient_checkpointing=gradient_checkpointing)
