"""A synthetic study shaped like issue 12's (README failure 16): a base model and an SFT
checkpoint (reference arms, evaluated once per session) and GRPO (trained, 3 seeds), 162
held-out puzzles, two evaluation sessions, a fraction, a percent and a 0-4 count metric, and
pass@16 from 32 samples per item. Written as CSV and as JSON lines with the same content.
"""

from __future__ import annotations

import copy
import csv
import json
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DEMO = json.loads((ROOT / "examples" / "demo.json").read_text())
N_ITEMS = 162
SEEDS = [0, 1, 2]
N_SAMPLES = 32
ABILITY = {"base": -0.6, "sft": 0.0, "grpo": 0.5}


def prereg(**analysis) -> dict:
    """The study's preregistration (described as it was run: no fake RL arms, no invented seeds)."""
    p = copy.deepcopy(DEMO)
    p["id"] = "puzzles"
    p["title"] = "GRPO vs base and SFT on held-out puzzles"
    p["dataset"]["heldout_n"] = N_ITEMS
    p["seeds"] = list(SEEDS)
    p["arms"] = {
        "base": {"kind": "reference", "checkpoint": "Qwen/Qwen2.5-0.5B-Instruct@main",
                 "labels": ["Base model", "Base"]},
        "sft": {"kind": "reference", "checkpoint": "ckpt/sft-step-500", "evaluated": "once",
                "labels": ["SFT baseline", "SFT"]},
        "grpo": {"algorithm": "grpo", "changes": {}, "labels": ["GRPO", "GRPO (ours)"]},
    }
    p["baseline_arm"] = "base"
    p["hypotheses"] = [
        {"id": "H1", "metric": "solve_rate", "arm": "grpo", "baseline": "base", "direction": "two-sided"},
        {"id": "H2", "metric": "solve_rate", "arm": "grpo", "baseline": "sft", "direction": "two-sided"},
    ]
    p["metrics"] = {
        "solve_rate": {"unit": "fraction", "labels": ["Held-out puzzle accuracy", "Solve rate"]},
        "format_pct": {"unit": "percent", "labels": ["Well-formed answers (%)"]},
        "groups_correct": {"unit": "count", "max": 4, "labels": ["Groups correct"]},
        "pass16": {"unit": "fraction", "kind": "pass_at_k", "k": 16, "n_samples": N_SAMPLES,
                   "column": "correct_of_32", "labels": ["pass@16"]},
    }
    a = p["analysis"]
    a["primary_metric"] = "solve_rate"
    a["secondary_metrics"] = ["format_pct", "groups_correct", "pass16"]
    a["unit"] = "seed_item"
    a["resamples"] = 1000
    a["contrasts"] = {
        "test": "paired_t", "alternative": "two-sided",
        "intervals": [{"method": "paired_bootstrap", "level": 0.95}, {"method": "t", "level": 0.95}],
        "pairs": [{"arm": "grpo", "baseline": "base", "hypothesis": "H1"},
                  {"arm": "grpo", "baseline": "sft", "hypothesis": "H2"},
                  {"arm": "sft", "baseline": "base", "confirmatory": False, "sign": "baseline_minus_arm"}],
    }
    a["multiplicity"] = {"method": "holm", "alpha": 0.05, "family": ["grpo-base", "grpo-sft"]}
    a.pop("equivalence_margin", None)
    a.pop("power", None)
    a["verdicts"] = [
        {"verdict": "IMPROVES", "when": [{"check": "lower_above", "level": 0.95, "value": 0},
                                         {"check": "multiplicity_rejects"}]},
        {"verdict": "REDUCES", "when": [{"check": "upper_below", "level": 0.95, "value": 0},
                                        {"check": "multiplicity_rejects"}]},
        {"verdict": "INCONCLUSIVE", "when": []},
    ]
    a.update(analysis)
    return p


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def rows(seed: int = 0, sessions: dict[str, list[str]] | None = None, abilities: dict | None = None) -> list[dict]:
    """Per-item rows: every arm of each session, GRPO per seed, references once (seed empty)."""
    g = np.random.default_rng(seed)
    diff = g.normal(0, 1.2, N_ITEMS)
    ab = abilities or ABILITY
    sessions = sessions or {"s1": ["base", "sft", "grpo"], "s2": ["base", "grpo"]}
    seed_fx = {s: g.normal(0, 0.15) for s in SEEDS}
    out = []
    for sess, arms in sessions.items():
        shift = g.normal(0, 0.1)
        for arm in arms:
            for seed in (SEEDS if arm == "grpo" else [None]):
                theta = ab[arm] + shift + (seed_fx[seed] if seed is not None else 0.0)
                p = _sigmoid(theta - diff)
                for i in range(N_ITEMS):
                    solved = int(g.random() < p[i])
                    samples = (g.random(N_SAMPLES) < 0.35 * p[i]).astype(int)
                    out.append({"arm": arm, "seed": seed, "session": sess, "item": f"p{i:03d}",
                                "solve_rate": solved, "format_pct": 100 * int(g.random() < 0.9),
                                "groups_correct": int(g.binomial(4, p[i])),
                                "correct_of_32": samples.tolist()})
    return out


def write_csv(path: Path, rs: list[dict]) -> Path:
    cols = ["arm", "seed", "session", "item", "solve_rate", "format_pct", "groups_correct", "correct_of_32"]
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(cols)
        for r in rs:
            w.writerow([r["arm"], "" if r["seed"] is None else r["seed"], r["session"], r["item"], r["solve_rate"],
                        r["format_pct"], r["groups_correct"], sum(r["correct_of_32"])])
    return path


def write_jsonl(path: Path, rs: list[dict]) -> Path:
    """JSON lines: the pass@k cell is the list of per-sample outcomes (the CSV holds their count)."""
    path.write_text("".join(json.dumps(r) + "\n" for r in rs))
    return path
