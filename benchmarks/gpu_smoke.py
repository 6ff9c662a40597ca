"""GPU smoke test: a few GRPO steps of a random-weight Qwen2.5-0.5B-sized model on each GPU path.

    python benchmarks/gpu_smoke.py [--steps 3] [--paths transformers,vllm,qlora] [--seed 1]

Paths: (a) ``transformers`` generation (bf16 LoRA), (b) ``vllm`` colocate generation with the
run seed reaching the engine (``runner.gpu.seeded_vllm_engine``), (c) ``qlora`` 4-bit nf4
double-quant base + LoRA. The model is ``tiny:qwen2.5-0.5b`` (Qwen2.5-0.5B layer shapes,
character vocabulary, random weights built offline by ``runner.models``; no hub access).
Prints one line per optimizer step (wall time) and a summary line per path; a path that
fails prints its error and the script continues, exiting 1 at the end. Without a CUDA GPU
it prints one line and exits 2.

Needs the GPU extras: a CUDA build of torch, ``pip install -e '.[train,vllm,bnb]'``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

PATHS = ("transformers", "qlora", "vllm")


def _dataset(n: int = 64):
    from datasets import Dataset

    from runner.tasks import get_task

    task = get_task({"name": "arith"}, {"name": "synthetic/arith", "revision": None, "train_split": "train",
                                        "heldout_split": "heldout", "heldout_n": 1})
    items = task.train_items(seed=0)[:n]
    by_id = {it["id"]: it for it in items}

    def reward(completions, item_id, **_):
        return [task.reward(c, by_id[i]) for c, i in zip(completions, item_id, strict=True)]

    reward.__name__ = "arith_reward"
    return Dataset.from_list([{"prompt": it["prompt"], "item_id": it["id"]} for it in items]), reward


def _step_timer():
    from transformers import TrainerCallback

    class StepTimer(TrainerCallback):
        def __init__(self):
            self.times, self._t = [], None

        def on_step_begin(self, args, state, control, **kw):
            self._t = time.perf_counter()

        def on_step_end(self, args, state, control, **kw):
            dt = time.perf_counter() - self._t
            self.times.append(dt)
            print(f"  step {state.global_step}: {dt:.3f}s", flush=True)

    return StepTimer()


def run_path(path: str, steps: int, seed: int, out_dir: Path) -> dict:
    import torch
    from peft import LoraConfig
    from trl import GRPOConfig, GRPOTrainer

    from runner.gpu import bnb_config, prepare_qlora, seeded_vllm_engine
    from runner.models import load_model_and_tokenizer

    model_spec = {"name": "tiny:qwen2.5-0.5b", "revision": None, "dtype": "bfloat16"}
    quant = None
    if path == "qlora":
        model_spec["quantization"] = {"load_in_4bit": True, "quant_type": "nf4", "double_quant": True,
                                      "compute_dtype": "bfloat16"}
        quant = model_spec["quantization"]
        print(f"  bnb config: {bnb_config(model_spec).to_dict()}", flush=True)
    t0 = time.perf_counter()
    model, tokenizer, info = load_model_and_tokenizer(model_spec["name"], None, dtype="bfloat16", device="cuda",
                                                      quantization=quant)
    if path == "qlora":
        model = prepare_qlora(model)
    load_s = time.perf_counter() - t0
    dataset, reward = _dataset()
    args = GRPOConfig(
        output_dir=str(out_dir / path), seed=seed, max_steps=steps, per_device_train_batch_size=16,
        num_generations=8, max_completion_length=64, learning_rate=1e-5, beta=0.0, loss_type="grpo",
        scale_rewards="group", logging_steps=1, report_to="none", save_strategy="no", bf16=True,
        disable_tqdm=True, use_vllm=path == "vllm", vllm_mode="colocate", vllm_gpu_memory_utilization=0.3,
    )
    timer = _step_timer()
    lora = LoraConfig(r=16, lora_alpha=32, target_modules="all-linear", task_type="CAUSAL_LM")
    seeds: list = []
    if path == "vllm":
        with seeded_vllm_engine(seed, seeds):
            trainer = GRPOTrainer(model=model, reward_funcs=[reward], args=args, train_dataset=dataset,
                                  processing_class=tokenizer, peft_config=lora, callbacks=[timer])
        print(f"  vLLM engine seed(s): {seeds}", flush=True)
    else:
        trainer = GRPOTrainer(model=model, reward_funcs=[reward], args=args, train_dataset=dataset,
                              processing_class=tokenizer, peft_config=lora, callbacks=[timer])
    trainer.train()
    peak = torch.cuda.max_memory_allocated() / 2**30
    times = timer.times
    return {"path": path, "load_s": load_s, "steps": len(times), "first_step_s": times[0] if times else None,
            "median_step_s": statistics.median(times[1:] or times) if times else None, "peak_gib": peak,
            "params": info["num_parameters"], "vllm_seeds": seeds}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--paths", default=",".join(PATHS))
    args = ap.parse_args(argv)
    try:
        import torch
    except ImportError:
        print("error: gpu_smoke needs torch with CUDA (pip install a CUDA build of torch)", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("error: gpu_smoke needs a CUDA GPU; none is visible on this machine", file=sys.stderr)
        return 2
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    paths = [p.strip() for p in args.paths.split(",") if p.strip()]
    bad = [p for p in paths if p not in PATHS]
    if bad:
        print(f"error: --paths: unknown path {bad[0]!r} (known: {', '.join(PATHS)})", file=sys.stderr)
        return 2
    print(f"gpu_smoke: {torch.cuda.get_device_name(0)}, torch {torch.__version__}, CUDA {torch.version.cuda}")
    results, failed = [], []
    with tempfile.TemporaryDirectory(prefix="gpu-smoke-") as tmp:
        for path in paths:
            print(f"[{path}]", flush=True)
            try:
                r = run_path(path, args.steps, args.seed, Path(tmp))
                results.append(r)
                print(f"  {path}: load {r['load_s']:.1f}s  first step {r['first_step_s']:.3f}s  "
                      f"median step {r['median_step_s']:.3f}s  peak {r['peak_gib']:.2f} GiB  "
                      f"params {r['params']:,}", flush=True)
            except Exception as exc:  # report and continue with the other paths
                failed.append(path)
                print(f"  {path}: FAILED {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}",
                      flush=True)
            finally:
                import gc

                gc.collect()
                torch.cuda.empty_cache()
                torch.cuda.reset_peak_memory_stats()
    print("gpu_smoke: " + ("all paths ok" if not failed else f"failed: {', '.join(failed)}"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
