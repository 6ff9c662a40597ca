"""Per-step cost of `--report-to` trackers against the training step they report, in one process.

Baseline: one real `runner run` of the tiny offline model (no tracker); its telemetry gives the
per-step wall time (`step_time_s`, median over steps) and the rows a tracker is sent. Then each
tracker is started offline in a temporary folder (MLflow on SQLite, W&B offline, trackio local,
TensorBoard) and sent those rows — what `runner.trackers` sends each step, TRL's log as `train/*`
plus our row as `rlprereg/*`, inside the RNG guard — `--calls` times; the script prints the
median (and interquartile range) time per call and its ratio to the median training step. The
one-off start cost (a first MLflow SQLite store migrates its schema) is printed separately.

    .venv/bin/python benchmarks/tracker_overhead.py [--steps 6] [--calls 60]
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


def _baseline(tmp: Path, steps: int) -> tuple[list[dict], float]:
    import json

    from prereg.jsonio import read_jsonl, write_json_atomic
    from prereg.lock import build_lock
    from runner.train import run_unit

    p = json.loads((Path(__file__).resolve().parents[1] / "examples" / "demo.json").read_text())
    p["training"].update(max_steps=steps)
    lock = tmp / "bench.lock.json"
    write_json_atomic(lock, build_lock(p))
    run_dir = run_unit(lock, "grpo", p["seeds"][0], tmp / "runs", quiet=True, environ={})
    rows = read_jsonl(run_dir / "telemetry.jsonl", "telemetry")
    return rows, statistics.median(r["step_time_s"] for r in rows[1:] or rows)


def _quartiles(xs: list[float]) -> tuple[float, float, float]:
    q = statistics.quantiles(xs, n=4)
    return q[0], statistics.median(xs), q[2]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=6)
    ap.add_argument("--calls", type=int, default=60)
    args = ap.parse_args(argv)
    import torch

    torch.set_num_threads(1)
    warnings.filterwarnings("ignore")
    from runner.trackers import TRACKERS, RunIdentity, start_trackers, step_metrics

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        os.environ.update(MLFLOW_TRACKING_URI=f"sqlite:///{tmp / 'mlflow.db'}", WANDB_MODE="offline",
                          WANDB_DIR=str(tmp), WANDB_SILENT="true", TRACKIO_DIR=str(tmp / "trackio"))
        rows, step = _baseline(tmp, args.steps)
        print(f"baseline: tiny:qwen2, {len(rows)} steps, median step {step * 1000:.1f} ms "
              f"(load average {os.getloadavg()[0]:.1f})")
        payloads = [step_metrics(r["trl"], r) for r in rows]
        ident = RunIdentity("bench", "0" * 64, 1, "grpo", 1, "exploratory")
        for name in TRACKERS:
            t0 = time.perf_counter()
            group = start_trackers((name,), ident, {"trainer": {"learning_rate": 1e-6}}, tensorboard_dir=tmp / "tb")
            started = time.perf_counter() - t0
            times = []
            for i in range(args.calls):
                t = time.perf_counter()
                group.log(payloads[i % len(payloads)], i + 1)
                times.append(time.perf_counter() - t)
            group.finish("0" * 64, "complete")
            lo, med, hi = _quartiles(times)
            print(f"{name:12s} start {started:6.2f} s | per step {med * 1000:7.2f} ms (IQR {lo * 1000:.2f}-"
                  f"{hi * 1000:.2f}) over {args.calls} calls, {len(payloads[0])} values each | "
                  f"ratio to a training step {med / step:.4f}")
            assert not group.problems, group.problems
    return 0


if __name__ == "__main__":
    sys.exit(main())
