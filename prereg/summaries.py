"""Run summaries computed from telemetry and traces — the one definition.

The runner writes these numbers into the manifest and the audit recomputes them with the
same function, so a hand-edited summary (README failure 5) cannot hide.
"""

from __future__ import annotations

import math
from operator import itemgetter


def _mean(xs: list[float]) -> float | None:
    xs = list(map(float, xs)) if None not in xs else [float(x) for x in xs if x is not None]
    return math.fsum(xs) / len(xs) if xs else None


def _column(rows: list[dict], key: str) -> list:
    """``[r.get(key) for r in rows]``, in C when every row has the key (the audit recomputes the
    summaries of 1,000 runs x 500 held-out rows)."""
    try:
        return list(map(itemgetter(key), rows))
    except KeyError:
        return [r.get(key) for r in rows]


def compute_summaries(telemetry: list[dict], heldout: list[dict], column=None) -> dict:
    """Summaries of one run.

    ``reward_first5``/``reward_last10`` are means of per-step ``reward_mean`` over the first
    5 / last 10 optimizer steps; ``rollouts`` is the cumulative count in the last telemetry
    line (it already counts rollouts that were generated and discarded). ``column`` (a field
    name -> ``[row.get(field) for row in heldout]``) lets a caller that already took the
    held-out trace's columns (the audit's check 7) share them.
    """
    steps = list(telemetry)
    held = column or (lambda key: _column(heldout, key))
    rewards = _column(steps, "reward_mean")
    correct = len(list(filter(None, held("correct"))))  # truthy values, as ``if`` counts them
    n = len(heldout)
    return {
        "heldout_n": n,
        "heldout_correct": correct,
        "heldout_accuracy": (correct / n) if n else None,
        "heldout_reward_mean": _mean(held("reward")),
        "steps": len(steps),
        "rollouts": int(steps[-1].get("rollouts", 0)) if steps else 0,
        "zvf_mean": _mean(_column(steps, "zvf")),
        "gu_mean": _mean(_column(steps, "gu")),
        "reward_first5": _mean(rewards[:5]),
        "reward_last10": _mean(rewards[-10:]),
    }
