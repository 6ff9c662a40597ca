"""Per-step wall-time overhead of `runner run`'s instrumentation over a plain GRPOTrainer.

In one process, on the tiny offline model, the same resolved config (from a lock built
here) is trained by

* plain:  ``trl.GRPOTrainer`` with the task reward as a bare function, no callbacks;
* runner: ``runner.train.build_trainer`` — the reward recorder (completion hashing, traces),
  the telemetry callback (per-step JSON lines, flushed) and progress off;

in ``--repeats`` paired rounds, the order alternating (plain first in even rounds, runner first
in odd ones, so a drift in machine load cancels). Each optimizer step is timed by the same
tiny begin/end callback in both and the first ``--warmup`` steps of each run are dropped; a
run's figure is its *median* step time (a load spike on a shared machine moves a mean, not a
median). Each round gives one ratio runner/plain; the printed ratio is their geometric mean
with a 95% t interval over the rounds' log ratios, so it carries its own uncertainty (wall
time and process CPU time both). Both variants train identically (same seed, same rewards):
the script checks the logged losses agree. Target: ratio within 1.03.

    .venv/bin/python benchmarks/runner_overhead.py [--steps 12] [--repeats 8]
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


def ratio_interval(ratios: list[float], level: float = 0.95) -> tuple[float, float, float]:
    """Geometric mean of paired ratios and its t interval (computed on the log scale)."""
    import math

    from scipy import stats as st

    logs = [math.log(r) for r in ratios]
    m = statistics.fmean(logs)
    if len(logs) < 2:
        return math.exp(m), float("nan"), float("nan")
    half = st.t.ppf(0.5 + level / 2, len(logs) - 1) * statistics.stdev(logs) / math.sqrt(len(logs))
    return math.exp(m), math.exp(m - half), math.exp(m + half)


def _round(cfg, prereg, out: Path, r: int, warmup: int) -> dict:
    """One paired round: both variants, in an order that alternates between rounds."""
    order = ("plain", "runner") if r % 2 == 0 else ("runner", "plain")
    got = {}
    for kind in order:
        got[kind] = run_plain(cfg, prereg) if kind == "plain" else run_runner(cfg, prereg, out / f"run{r}")
    (plain, plain_loss), (ours, our_loss) = got["plain"], got["runner"]
    med = {k: (statistics.median(t.times[warmup:]), statistics.median(t.cpu[warmup:]))
           for k, t in (("plain", plain), ("runner", ours))}
    return {"wall": med["runner"][0] / med["plain"][0], "cpu": med["runner"][1] / med["plain"][1],
            "plain_ms": 1000 * med["plain"][0], "runner_ms": 1000 * med["runner"][0],
            "share": ours.instrumentation / sum(plain.times), "identical": plain_loss == our_loss,
            "order": "/".join(order)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=12)
    ap.add_argument("--repeats", type=int, default=8)
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
    rounds = []
    with tempfile.TemporaryDirectory() as tmp:
        cfg = resolve(prereg, "grpo", 1, device="cpu", output_dir=str(Path(tmp) / "ckpt"))
        for r in range(args.repeats):
            x = _round(cfg, prereg, Path(tmp), r, args.warmup)
            rounds.append(x)
            print(f"round {r + 1} ({x['order']}): median step plain {x['plain_ms']:.1f} ms runner "
                  f"{x['runner_ms']:.1f} ms  wall ratio {x['wall']:.3f}  cpu ratio {x['cpu']:.3f}", flush=True)
    wall = ratio_interval([x["wall"] for x in rounds])
    cpu = ratio_interval([x["cpu"] for x in rounds])
    print(f"steps {args.steps} (first {args.warmup} dropped), 4 prompts x 4 completions x <=16 tokens, tiny:qwen2, "
          f"torch threads {args.threads}, {args.repeats} paired rounds, load average {os.getloadavg()[0]:.1f}")
    print(f"identical training (logged losses equal): {'yes' if all(x['identical'] for x in rounds) else 'NO'}")
    print(f"per-step wall-time ratio runner/plain: {wall[0]:.3f}  95% CI [{wall[1]:.3f}, {wall[2]:.3f}]  "
          f"(target <= 1.03: {'met' if wall[2] <= 1.03 else 'not shown' if wall[0] <= 1.03 else 'NOT met'})")
    print(f"per-step process-CPU-time ratio runner/plain: {cpu[0]:.3f}  95% CI [{cpu[1]:.3f}, {cpu[2]:.3f}]")
    print(f"time inside the runner's recorder (hashing, traces, telemetry lines) / plain training time: "
          f"{100 * statistics.median(x['share'] for x in rounds):.2f}% (the reward function's own task.reward "
          f"calls excluded)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
