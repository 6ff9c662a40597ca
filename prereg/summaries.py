"""Run summaries computed from telemetry and traces — the one definition.

The runner writes these numbers into the manifest and the audit recomputes them with the
same function, so a hand-edited summary (README failure 5) cannot hide.
"""

from __future__ import annotations

import math


def _mean(xs: list[float]) -> float | None:
    xs = [float(x) for x in xs if x is not None]
    return math.fsum(xs) / len(xs) if xs else None


def compute_summaries(telemetry: list[dict], heldout: list[dict]) -> dict:
    """Summaries of one run.

    ``reward_first5``/``reward_last10`` are means of per-step ``reward_mean`` over the first
    5 / last 10 optimizer steps; ``rollouts`` is the cumulative count in the last telemetry
    line (it already counts rollouts that were generated and discarded).
    """
    steps = [row for row in telemetry]
    rewards = [row.get("reward_mean") for row in steps]
    correct = sum(1 for r in heldout if r.get("correct"))
    n = len(heldout)
    return {
        "heldout_n": n,
        "heldout_correct": correct,
        "heldout_accuracy": (correct / n) if n else None,
        "heldout_reward_mean": _mean([r.get("reward") for r in heldout]),
        "steps": len(steps),
        "rollouts": int(steps[-1].get("rollouts", 0)) if steps else 0,
        "zvf_mean": _mean([row.get("zvf") for row in steps]),
        "gu_mean": _mean([row.get("gu") for row in steps]),
        "reward_first5": _mean(rewards[:5]),
        "reward_last10": _mean(rewards[-10:]),
    }
