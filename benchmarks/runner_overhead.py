"""Per-step overhead of `runner run`'s instrumentation over a plain GRPOTrainer, with its uncertainty.

In one process, on the tiny offline model, the same resolved config (from a lock built
here) is trained by

* plain:  ``trl.GRPOTrainer`` with the task reward as a bare function, no callbacks;
* runner: ``runner.train.build_trainer`` — the reward recorder (completion hashing, traces),
  the telemetry callback (per-step JSON lines, flushed) and progress off;

**step by step, interleaved**: both trainers run in one process, each in its own thread, and a
baton lets exactly one of them work at a time. Both train identically (same seed, same
rewards; each thread keeps its own RNG state; the script checks the logged losses agree), so
step i is the same work for both: (plain step i, runner step i) is a pair. The order within a
pair alternates, ABBA: plain 1, runner 1, runner 2, plain 2, plain 3, runner 3, ... (and which
variant opens alternates by round), so a drift in machine load cancels out of the pairs
instead of always favouring one side.

A step's time runs from one step begin to the next (so it includes the runner's per-step
telemetry line), measured three ways: wall time, the thread's CPU time and the process's CPU
time (the waiting trainer thread uses none). CPU time is what the runner's extra work costs
and moves little with machine load; wall time on a shared machine mostly measures the other
processes. Each pair gives a log ratio runner/plain (first ``--warmup`` steps of each round
dropped); a round's estimate is the 20% trimmed mean of its pairs' log ratios (steps preempted
by other processes make the tails heavy; ``scipy.stats.mstats.trimmed_mean``).

Each round runs in its own interpreter: within one process the pairs agree with each other
more than with another process's (its memory layout and hash seed shift both variants' steps
by a percent or two; two in-process runs gave 0.997 [0.990, 1.004] and 1.014 [1.005, 1.023]),
so the printed ratio is exp of the mean of the rounds' estimates with a 95% t interval over
rounds, for process CPU time and for wall time, then the even and the odd rounds' means (who
goes first alternates by round). Two independent runs differ by less than sqrt(2) x the
interval's half-width 95% of the time; the script prints that bound.

    .venv/bin/python benchmarks/runner_overhead.py [--steps 32] [--repeats 12] [--json raw.json]
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


class Baton:
    """Lets one of two trainer threads work at a time, in ABBA order of steps.

    The variant that goes first (``first``) hands over before its step 1 (so the other may set
    up) and before its even steps; the other before its odd steps: F1 S1 S2 F2 F3 S3 S4 F4 ...
    The global random generators (torch, numpy, random) are shared by threads, so each thread's
    state is saved when it hands over and restored when its turn comes: each trainer draws the
    same numbers as if it ran alone, and both do identical work.
    """

    def __init__(self, first: str = "plain"):
        import threading

        self.cv = threading.Condition()
        self.first = self.turn = first
        self.done: set[str] = set()
        self.rng: dict[str, tuple] = {}
        self.order: list[str] = []  # "plain 1", "runner 1", ... as the steps ran

    def hands_over_before(self, me: str, step: int) -> bool:
        """Whether ``me`` yields before its ``step``-th step (1-based): the ABBA pattern."""
        return step == 1 or step % 2 == (0 if me == self.first else 1)

    @staticmethod
    def other(me: str) -> str:
        return "runner" if me == "plain" else "plain"

    def wait(self, me: str) -> None:
        with self.cv:
            self.cv.wait_for(lambda: self.turn == me or self.other(me) in self.done)
        if me in self.rng:
            _set_rng(self.rng.pop(me))

    def hand_over(self, me: str) -> None:
        self.rng[me] = _get_rng()
        with self.cv:
            self.turn = self.other(me)
            self.cv.notify_all()

    def finish(self, me: str) -> None:
        with self.cv:
            self.done.add(me)
            self.turn = self.other(me)
            self.cv.notify_all()


def _get_rng() -> tuple:
    import random

    import numpy as np
    import torch

    cuda = torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None
    return random.getstate(), np.random.get_state(), torch.get_rng_state(), cuda


def _set_rng(state: tuple) -> None:
    import random

    import numpy as np
    import torch

    random.setstate(state[0])
    np.random.set_state(state[1])
    torch.set_rng_state(state[2])
    if state[3] is not None:  # on a GPU, sampling draws from the CUDA generators
        torch.cuda.set_rng_state_all(state[3])


class _StepTimer:
    """Times each step from its begin to the next step's begin, holding the baton meanwhile."""

    def __init__(self, baton: Baton | None = None, me: str = "plain"):
        from transformers import TrainerCallback

        timer = self
        self.times: list[float] = []
        self.cpu: list[float] = []
        self.proc: list[float] = []
        self._t0 = None

        def lap():
            if timer._t0 is not None:
                timer.times.append(time.perf_counter() - timer._t0)
                timer.cpu.append(time.thread_time() - timer._c0)
                timer.proc.append(time.process_time() - timer._p0)

        def start():
            timer._t0, timer._c0, timer._p0 = time.perf_counter(), time.thread_time(), time.process_time()

        class CB(TrainerCallback):
            begun = 0

            def on_step_begin(self, args, state, control, **kw):
                lap()
                self.begun += 1
                if baton is not None:
                    if baton.hands_over_before(me, self.begun):
                        baton.hand_over(me)
                        baton.wait(me)
                    baton.order.append(f"{me} {self.begun}")
                start()

            def on_train_end(self, args, state, control, **kw):
                lap()
                timer._t0 = None
                if baton is not None:
                    baton.finish(me)

        self.callback = CB()


def _fresh(cfg, prereg):
    from transformers import set_seed

    from runner.models import load_model_and_tokenizer
    from runner.tasks import get_task

    set_seed(cfg.seed)
    task = get_task(prereg["task"], prereg["dataset"])
    model, tok, _ = load_model_and_tokenizer(prereg["model"]["name"], prereg["model"].get("revision"))
    return task, model, tok


def run_plain(cfg, prereg, baton=None):
    from datasets import Dataset
    from transformers.trainer_callback import PrinterCallback
    from trl import GRPOTrainer

    task, model, tok = _fresh(cfg, prereg)
    items = task.train_items(seed=cfg.seed)
    ds = Dataset.from_list([{"prompt": it["prompt"], "item_id": str(it["id"])} for it in items])
    by_id = {str(it["id"]): it for it in items}

    def reward(prompts, completions, item_id, **_):
        return [float(task.reward(c, by_id[i])) for c, i in zip(completions, item_id, strict=True)]

    timer = _StepTimer(baton, "plain")
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


def run_runner(cfg, prereg, out: Path, baton=None):
    from runner.train import build_trainer

    task, model, tok = _fresh(cfg, prereg)
    recorder = _timed_recorder_cls()(out, num_generations=cfg.grpo_config.num_generations, max_reward=task.max_reward,
                        max_completion_length=cfg.grpo_config.max_completion_length,
                        eos_token_id=tok.eos_token_id, total_steps=cfg.grpo_config.max_steps)
    timer = _StepTimer(baton, "runner")
    trainer = build_trainer(cfg, model, tok, task, recorder, callbacks=[timer.callback])
    trainer.train()
    recorder.close()
    timer.instrumentation = recorder.spent
    return timer, [h["loss"] for h in trainer.state.log_history if "loss" in h]


CLOCKS = {"process": "process-CPU-time", "wall": "wall-time"}


def log_ratios(rounds: list[dict], clock: str, warmup: int) -> list[list[float]]:
    """Per round, each pair's log(runner step / plain step) on ``clock``, warm-up steps dropped."""
    import math

    out = []
    for x in rounds:
        plain, ours = x["raw"]["plain"][clock], x["raw"]["runner"][clock]
        out.append([math.log(ours[i] / plain[i]) for i in range(warmup, min(len(plain), len(ours)))])
    return out


def trimmed_ratio(logs: list[float], level: float = 0.95, trim: float = 0.2) -> tuple[float, float, float]:
    """exp of the trimmed mean of paired log ratios and of its Tukey–McLaughlin t interval ends.

    Args:
        logs: paired log ratios runner/plain.
        level: the interval's coverage.
        trim: the share cut from each tail (preempted steps make both tails heavy).

    Returns:
        (ratio, low, high); the interval ends are nan with fewer than 3 pairs.

    Example:
        >>> r, lo, hi = trimmed_ratio([0.0, 0.01, -0.01, 0.02, 0.0, 0.5])
        >>> round(r, 3), lo < r < hi
        (1.008, True)
    """
    import math

    import numpy as np
    from scipy.stats import mstats

    x = np.asarray(logs, dtype=float)
    m = float(mstats.trimmed_mean(x, limits=(trim, trim)))
    if x.size < 3:
        return math.exp(m), float("nan"), float("nan")
    lo, hi = mstats.trimmed_mean_ci(x, limits=(trim, trim), alpha=1 - level)
    return math.exp(m), math.exp(lo), math.exp(hi)


def _round(cfg, prereg, out: Path, r: int, warmup: int) -> dict:
    """One round: both trainers in threads, their steps interleaved one by one."""
    import threading

    baton, got = Baton(first="plain" if r % 2 == 0 else "runner"), {}  # who goes first alternates by round

    def work(kind):
        baton.wait(kind)  # set-up too takes turns, so each seeds and draws alone
        try:
            got[kind] = run_plain(cfg, prereg, baton) if kind == "plain" else run_runner(
                cfg, prereg, out / f"run{r}", baton)
        finally:
            baton.finish(kind)  # a failed variant must not leave the other waiting

    threads = [threading.Thread(target=work, args=(k,)) for k in ("plain", "runner")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    (plain, plain_loss), (ours, our_loss) = got["plain"], got["runner"]
    x = {"share": ours.instrumentation / sum(plain.times), "identical": plain_loss == our_loss,
         "first": baton.first, "order": baton.order,
         "raw": {k: {"wall": t.times, "thread": t.cpu, "process": t.proc} for k, t in (("plain", plain), ("runner", ours))}}
    for clock in CLOCKS:
        x[clock] = trimmed_ratio(log_ratios([x], clock, warmup)[0])[0]
        x[f"{clock}_ms"] = {k: 1000 * statistics.median(x["raw"][k][clock][warmup:]) for k in ("plain", "runner")}
    return x


def round_interval(per_round: list[float], level: float = 0.95) -> tuple[float, float, float]:
    """exp of the mean of per-round log ratios and of its t interval ends (rounds are the units).

    Each round runs in its own interpreter, so what one process's memory layout and hash seed do
    to the two variants differs between rounds; the t interval over rounds carries that spread
    (an interval over the pooled steps of one process would not).

    Example:
        >>> r, lo, hi = round_interval([0.0, 0.02, -0.01, 0.01])
        >>> round(r, 4), round(lo, 3), round(hi, 3)
        (1.005, 0.985, 1.026)
    """
    import math

    from scipy import stats as st

    m = statistics.fmean(per_round)
    if len(per_round) < 2:
        return math.exp(m), float("nan"), float("nan")
    half = st.t.ppf(0.5 + level / 2, len(per_round) - 1) * statistics.stdev(per_round) / math.sqrt(len(per_round))
    return math.exp(m), math.exp(m - half), math.exp(m + half)


def _summary(rounds: list[dict], warmup: int) -> None:
    """Per clock: the ratio, its interval over rounds, the even/odd-round halves, the run-to-run spread."""
    import math

    for clock, name in CLOCKS.items():
        per_round = [math.log(trimmed_ratio(r)[0]) for r in log_ratios(rounds, clock, warmup)]
        ratio, lo, hi = round_interval(per_round)
        even = math.exp(statistics.fmean(per_round[0::2]))
        odd = math.exp(statistics.fmean(per_round[1::2])) if len(per_round) > 1 else float("nan")
        half = 100 * max(ratio - lo, hi - ratio) / ratio
        print(f"per-step {name} ratio runner/plain: {ratio:.3f}  95% CI [{lo:.3f}, {hi:.3f}]  "
              f"(even rounds {even:.3f}, odd rounds {odd:.3f}; two runs of this size agree within "
              f"±{math.sqrt(2) * half:.1f}%)")


def _one_round(args) -> int:
    """The child: one round in this fresh interpreter, its per-step times written to ``args.json``."""
    import json

    import torch

    if args.device == "cuda" and not torch.cuda.is_available():
        print("error: --device cuda: no CUDA GPU is visible on this machine", file=sys.stderr)
        return 2
    torch.set_num_threads(args.threads)
    warnings.filterwarnings("ignore")
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()
    from runner.config import resolve

    prereg = _prereg(args.steps)
    with tempfile.TemporaryDirectory() as tmp:
        cfg = resolve(prereg, "grpo", 1, device=args.device, output_dir=str(Path(tmp) / "ckpt"))
        x = _round(cfg, prereg, Path(tmp), args.round, args.warmup)
    Path(args.json).write_text(json.dumps(x))
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=32)
    ap.add_argument("--repeats", type=int, default=12, help="rounds, each in its own interpreter")
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--json", help="write every round's per-step times here")
    ap.add_argument("--threads", type=int, default=1, help="torch CPU threads (same for both variants)")
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"],
                    help="where both variants train (cuda: the GPU path of the same comparison)")
    ap.add_argument("--round", type=int, default=None, help=argparse.SUPPRESS)  # the child's round number
    args = ap.parse_args(argv)
    if args.round is not None:
        return _one_round(args)
    import json
    import subprocess

    rounds, load0 = [], os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.repeats):
            out = Path(tmp) / f"round{r}.json"
            proc = subprocess.run([sys.executable, __file__, "--round", str(r), "--json", str(out),
                                   *(f"--{k}={getattr(args, k)}" for k in ("steps", "warmup", "threads", "device"))])
            if proc.returncode != 0:
                return proc.returncode
            x = json.loads(out.read_text())
            rounds.append(x)
            print(f"round {r + 1} ({x['first']} first): median step CPU plain {x['process_ms']['plain']:.1f} ms "
                  f"runner {x['process_ms']['runner']:.1f} ms, wall plain {x['wall_ms']['plain']:.1f} ms runner "
                  f"{x['wall_ms']['runner']:.1f} ms; ratio CPU {x['process']:.3f} wall {x['wall']:.3f}", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rounds))
    pairs = sum(len(r) for r in log_ratios(rounds, "process", args.warmup))
    print(f"steps {args.steps} (first {args.warmup} of each round dropped), 4 prompts x 4 completions x <=16 tokens, "
          f"tiny:qwen2, torch threads {args.threads}, device {args.device}; {args.repeats} rounds, each in its own "
          f"interpreter, {pairs} ABBA-interleaved step pairs; load average {load0:.1f} at start, "
          f"{os.getloadavg()[0]:.1f} at end")
    print(f"identical training (logged losses equal): {'yes' if all(x['identical'] for x in rounds) else 'NO'}")
    print("ratio: exp(mean over rounds of each round's 20% trimmed mean of its pairs' log ratios), 95% t interval "
          "over rounds")
    _summary(rounds, args.warmup)
    print(f"time inside the runner's recorder (hashing, traces, telemetry lines) / plain training time: "
          f"{100 * statistics.median(x['share'] for x in rounds):.2f}% (the reward function's own task.reward "
          f"calls excluded)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
