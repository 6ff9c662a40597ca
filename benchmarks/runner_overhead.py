"""Per-step wall-time overhead of `runner run`'s instrumentation over a plain GRPOTrainer.

In one process, on the tiny offline model, the same resolved config (from a lock built
here) is trained by

* plain:  ``trl.GRPOTrainer`` with the task reward as a bare function, no callbacks;
* runner: ``runner.train.build_trainer`` — the reward recorder (completion hashing, traces),
  the telemetry callback (per-step JSON lines, flushed) and progress off;

alternating plain/runner for ``--repeats`` rounds. Each optimizer step is timed by the same
tiny begin/end callback in both, the first ``--warmup`` steps of each run are dropped, and
the ratio of mean step times (runner / plain) is printed per round and as the median. Both
variants train identically (same seed, same rewards): the script checks the logged losses
agree. Target: ratio within 1.03.

    .venv/bin/python benchmarks/runner_overhead.py [--steps 12] [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _prereg(steps: int) -> dict:
    import json

    p = json.loads((Path(__file__).resolve().parents[1] / "examples" / "demo.json").read_text())
    p["training"].update(max_steps=steps, prompts_per_step=4, num_generations=4, max_completion_length=16)
    return p


class _StepTimer:
    def __init__(self):
        from transformers import TrainerCallback

        timer = self
        self.times: list[float] = []
        self.cpu: list[float] = []

        class CB(TrainerCallback):
            def on_step_begin(self, args, state, control, **kw):
                timer._t0, timer._c0 = time.perf_counter(), time.process_time()

            def on_step_end(self, args, state, control, **kw):
                timer.times.append(time.perf_counter() - timer._t0)
                timer.cpu.append(time.process_time() - timer._c0)

        self.callback = CB()


def _fresh(cfg, prereg):
    from transformers import set_seed

    from runner.models import load_model_and_tokenizer
    from runner.tasks import get_task

    set_seed(cfg.seed)
    task = get_task(prereg["task"], prereg["dataset"])
    model, tok, _ = load_model_and_tokenizer(prereg["model"]["name"], prereg["model"].get("revision"))
    return task, model, tok


def run_plain(cfg, prereg):
    from datasets import Dataset
    from transformers.trainer_callback import PrinterCallback
    from trl import GRPOTrainer

    task, model, tok = _fresh(cfg, prereg)
    items = task.train_items(seed=cfg.seed)
    ds = Dataset.from_list([{"prompt": it["prompt"], "item_id": str(it["id"])} for it in items])
    by_id = {str(it["id"]): it for it in items}

    def reward(prompts, completions, item_id, **_):
        return [float(task.reward(c, by_id[i])) for c, i in zip(completions, item_id, strict=True)]

    timer = _StepTimer()
    trainer = GRPOTrainer(model=model, reward_funcs=[reward], args=cfg.grpo_config, train_dataset=ds,
                          processing_class=tok, peft_config=cfg.lora_config, callbacks=[timer.callback])
    trainer.remove_callback(PrinterCallback)
    trainer.train()
    return timer, [h["loss"] for h in trainer.state.log_history if "loss" in h]


def _timed_recorder_cls():
    """Recorder that also sums the wall time spent in its own methods (load-robust overhead bound)."""
    from runner.telemetry import Recorder

    class TimedRecorder(Recorder):
        spent = 0.0

        def _timed(name):
            def method(self, *a, **kw):
                t0 = time.perf_counter()
                try:
                    return getattr(Recorder, name)(self, *a, **kw)
                finally:
                    self.spent += time.perf_counter() - t0
            return method

        record_batch = _timed("record_batch")
        step_begin = _timed("step_begin")
        step_end = _timed("step_end")
        log = _timed("log")

    return TimedRecorder


def run_runner(cfg, prereg, out: Path):
    from runner.train import build_trainer

    task, model, tok = _fresh(cfg, prereg)
    recorder = _timed_recorder_cls()(out, num_generations=cfg.grpo_config.num_generations, max_reward=task.max_reward,
                        max_completion_length=cfg.grpo_config.max_completion_length,
                        eos_token_id=tok.eos_token_id, total_steps=cfg.grpo_config.max_steps)
    timer = _StepTimer()
    trainer = build_trainer(cfg, model, tok, task, recorder, callbacks=[timer.callback])
    trainer.train()
    recorder.close()
    timer.instrumentation = recorder.spent
    return timer, [h["loss"] for h in trainer.state.log_history if "loss" in h]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=12)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--threads", type=int, default=1, help="torch CPU threads (same for both variants)")
    args = ap.parse_args(argv)
    import torch

    torch.set_num_threads(args.threads)
    warnings.filterwarnings("ignore")
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()
    from runner.config import resolve

    prereg = _prereg(args.steps)
    with tempfile.TemporaryDirectory() as tmp:
        cfg = resolve(prereg, "grpo", 1, device="cpu", output_dir=str(Path(tmp) / "ckpt"))
        ratios, cpu_ratios, shares, identical = [], [], [], True
        for r in range(args.repeats):
            plain, plain_loss = run_plain(cfg, prereg)
            ours, our_loss = run_runner(cfg, prereg, Path(tmp) / f"run{r}")
            identical &= plain_loss == our_loss
            p_mean, o_mean = statistics.fmean(plain.times[args.warmup:]), statistics.fmean(ours.times[args.warmup:])
            p_cpu, o_cpu = statistics.fmean(plain.cpu[args.warmup:]), statistics.fmean(ours.cpu[args.warmup:])
            ratios.append(o_mean / p_mean)
            cpu_ratios.append(o_cpu / p_cpu)
            shares.append(ours.instrumentation / sum(plain.times))
            print(f"round {r + 1}: wall plain {p_mean * 1000:.1f} ms/step runner {o_mean * 1000:.1f} ms/step "
                  f"ratio {o_mean / p_mean:.3f} | cpu plain {p_cpu * 1000:.1f} runner {o_cpu * 1000:.1f} "
                  f"ratio {o_cpu / p_cpu:.3f}", flush=True)
    med, cmed = statistics.median(ratios), statistics.median(cpu_ratios)
    print(f"steps {args.steps} (first {args.warmup} dropped), 4 prompts x 4 completions x <=16 tokens, tiny:qwen2, "
          f"torch threads {args.threads}, load average {os.getloadavg()[0]:.1f}")
    print(f"identical training (logged losses equal): {'yes' if identical else 'NO'}")
    print(f"median per-step wall-time ratio runner/plain: {med:.3f}  (target <= 1.03: "
          f"{'met' if med <= 1.03 else 'NOT met'}); process-CPU-time ratio: {cmed:.3f}")
    print(f"time inside the runner's recorder (hashing, traces, telemetry lines) / plain training time: "
          f"{100 * statistics.median(shares):.2f}% (the reward function's own task.reward calls excluded)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
