"""Type I error and expected seeds of group-sequential paired-t designs at 3-8 seeds per look.

Why (README failure 19, "Sequential designs"): the boundaries of prereg.sequential are exact for
the normal canonical distribution, but a paired t over 3-8 seeds is not normal. This seeded
simulation runs the whole procedure (every look, every stop) for each small-sample correction
and reports its type I error with its Monte-Carlo standard error, then the power and expected
seeds at the pilot effect next to the fixed design's exact power (noncentral t).

    python benchmarks/sequential_sim.py            # 400,000 studies per cell (~1 min)
    python benchmarks/sequential_sim.py --reps 50000
    python benchmarks/sequential_sim.py --coverage 400   # interval coverage after early stops (~3 min)

Calibration draws and validation draws come from different seeds, so the calibrated level is
checked on studies it was not fitted to.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from prereg import power as pw  # noqa: E402
from prereg.seqdesign import SequentialPlan, design  # noqa: E402
from prereg.sequential import Spec  # noqa: E402
from prereg.sequential_sim import simulate  # noqa: E402

DESIGNS = ((3, 6), (4, 8), (4, 6, 8), (3, 5, 8), (3, 4, 5, 6, 7, 8))
SPENDING = ("obrien_fleming", "pocock")
CORRECTIONS = ("none", "t_tail", "t_calibrated")
SEED = 20260714
ALPHA = 0.05


def level_rows(reps: int, draws: int) -> list[dict]:
    """Type I error of every (looks, spending, correction) cell on fresh H0 draws."""
    rows = []
    for looks in DESIGNS:
        for fn in SPENDING:
            for corr in CORRECTIONS:
                plan = SequentialPlan(looks, Spec(fn), corr, draws, "stagewise", ALPHA, 2, 1, SEED,
                                      ("arm-base",), None, None)
                d = design(plan)
                r = simulate(looks, d.t_upper, d.t_futility, reps=reps, seed=[SEED, 99])
                rows.append({"looks": looks, "spending": fn, "correction": corr, "level": r.reject,
                             "se": math.sqrt(ALPHA * (1 - ALPHA) / reps)})
    return rows


def saving_rows(reps: int, draws: int, d_effect: float, futility: str = "none") -> list[dict]:
    """Power and expected seeds at the pilot effect (t_calibrated), next to the fixed design."""
    rows = []
    for looks in DESIGNS:
        for fn in SPENDING:
            plan = SequentialPlan(looks, Spec(fn, futility=futility), "t_calibrated", draws, "stagewise", ALPHA, 2, 1,
                                  SEED, ("arm-base",), d_effect if futility != "none" else None,
                                  1.0 if futility != "none" else None)
            d = design(plan)
            h1 = simulate(looks, d.t_upper, d.t_futility, d=d_effect, reps=reps, seed=[SEED, 98])
            h0 = simulate(looks, d.t_upper, d.t_futility, reps=reps, seed=[SEED, 97])
            rows.append({"looks": looks, "spending": fn, "power": h1.reject_upper,
                         "fixed_power": pw.power_paired(d_effect, 1.0, looks[-1], ALPHA),
                         "seeds_h1": h1.expected_seeds, "seeds_h0": h0.expected_seeds, "max": looks[-1]})
    return rows


def coverage(studies: int, d_effect: float = 1.0) -> tuple[float, float, float]:
    """Coverage of the nominal 90% stage-wise and repeated intervals, and how often the stage-wise
    p <= alpha agrees with the boundary's decision, over seeded (3, 6)-seed Pocock studies."""
    import numpy as np

    from prereg.seqdesign import decide
    from stats.seqfinal import Observed, _paths, repeated_interval, stagewise_interval, stagewise_p

    p = SequentialPlan((3, 6), Spec("pocock"), "t_calibrated", 10_000, "stagewise", ALPHA, 2, 1, 5, ("a-b",),
                       None, None)
    d, rng = design(p), np.random.default_rng(1)
    dr = _paths(d)
    cover = cover_r = agree = 0
    for _ in range(studies):
        x = rng.standard_normal(6) + d_effect
        for k, nk in enumerate(p.looks):
            m, s = x[:nk].mean(), x[:nk].std(ddof=1)
            t = m / (s / math.sqrt(nk))
            if decide(d, k + 1, t) != "continue":
                break
        obs = Observed(k + 1, t, m, s, nk)
        lo, hi = stagewise_interval(d, obs, 0.9, dr)
        cover += lo is not None and hi is not None and lo <= d_effect <= hi
        rl, rh = repeated_interval(d, obs, 0.9)
        cover_r += rl <= d_effect <= rh
        agree += (stagewise_p(d, obs, dr) <= ALPHA) == (decide(d, k + 1, t) == "stop_efficacy")
    return cover / studies, cover_r / studies, agree / studies


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=400_000, help="simulated studies per cell")
    ap.add_argument("--draws", type=int, default=400_000, help="calibration draws (t_calibrated)")
    ap.add_argument("--effect", type=float, default=1.25, help="pilot effect / pilot SD of differences")
    ap.add_argument("--coverage", type=int, default=0,
                    help="also measure the 90%% stage-wise / repeated interval coverage over this many studies")
    args = ap.parse_args(argv)
    if args.coverage:
        c, cr, ag = coverage(args.coverage)
        print(f"(3, 6) Pocock, effect 1 SD, {args.coverage} studies: nominal 90% stage-wise interval covers {c:.3f}, "
              f"repeated interval {cr:.3f}; stage-wise p <= alpha agrees with the boundary in {ag:.1%}")
        return 0
    print(f"type I error, two-sided alpha {ALPHA}, {args.reps} studies per cell (MC SE "
          f"{math.sqrt(ALPHA * (1 - ALPHA) / args.reps):.4f}); calibration {args.draws} draws")
    print(f"{'looks':<20}{'spending':<16}" + "".join(f"{c:>14}" for c in CORRECTIONS))
    rows = level_rows(args.reps, args.draws)
    worst = 0.0
    for i in range(0, len(rows), len(CORRECTIONS)):
        cell = rows[i:i + len(CORRECTIONS)]
        print(f"{str(cell[0]['looks']):<20}{cell[0]['spending']:<16}"
              + "".join(f"{r['level']:>14.4f}" for r in cell))
        worst = max(worst, abs(cell[-1]["level"] - ALPHA) / cell[-1]["se"])
    print(f"t_calibrated: largest |level - alpha| = {worst:.1f} MC SE")
    for fut in ("none", "non_binding"):
        print(f"\nat the pilot effect d = {args.effect} (t_calibrated, futility {fut}), fixed design = all seeds")
        print(f"{'looks':<20}{'spending':<16}{'power':>8}{'fixed':>8}{'E[seeds]|H1':>13}{'E[seeds]|H0':>13}"
              f"{'max':>5}{'saved|H1':>10}{'saved|H0':>10}")
        for r in saving_rows(args.reps, args.draws, args.effect, fut):
            print(f"{str(r['looks']):<20}{r['spending']:<16}{r['power']:>8.3f}{r['fixed_power']:>8.3f}"
                  f"{r['seeds_h1']:>13.2f}{r['seeds_h0']:>13.2f}{r['max']:>5}{1 - r['seeds_h1'] / r['max']:>10.1%}"
                  f"{1 - r['seeds_h0'] / r['max']:>10.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
