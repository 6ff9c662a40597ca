"""Time our vectorized bootstrap against scipy.stats.bootstrap (and rliable if installed).

    .venv/bin/python benchmarks/stats_bootstrap.py [--resamples 10000] [--repeat 3]

Cases: (1) 8 seeds x 5 arms, percentile and BCa intervals of the mean; (2) the two-level
(seeds, then items) bootstrap for 40 runs x 500 items; (3) the whole E1-sized analysis
(examples/e1.json: 5 arms, 8 seeds, 500 held-out items) from run folders to analysis dict.
Times are the best of --repeat runs, in seconds.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from scipy import stats as st

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from stats import intervals as iv  # noqa: E402
from stats import resample as rs  # noqa: E402


def best(fn, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--resamples", type=int, default=10000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    B, R = args.resamples, args.repeat
    g = np.random.default_rng(0)
    arms = g.beta(6, 4, (5, 8))
    rows = []

    for method, sm in (("percentile", "percentile"), ("bca", "BCa")):
        ours = best(lambda m=method: [iv.compute(x, "mean", m, [0.95, 0.9], resamples=B, rng_seed=1, stream=f"a{i}")
                                      for i, x in enumerate(arms)], R)
        ref = best(lambda sm=sm: [st.bootstrap((x,), np.mean, n_resamples=B, method=sm, rng=1, vectorized=True)
                                  for x in arms], R)
        rows.append((f"8 seeds x 5 arms, {method} (95%+90%)", ours, ref, "scipy.stats.bootstrap, per arm"))

    items = (g.random((40, 500)) < g.uniform(0.3, 0.7, (40, 1))).astype(float)
    real = items * g.random((40, 500))
    t_bin = best(lambda: rs.hierarchical(items, B, rs.generator(1, "h")), R)
    graded = np.round(items * g.random((40, 500)) * 4) / 4  # rewards in {0, .25, .5, .75, 1}
    t_mul = best(lambda: rs.hierarchical(graded, B, rs.generator(1, "h")), R)
    t_idx = best(lambda: rs.hierarchical(real, B, rs.generator(1, "h")), 1)
    t_sc1 = best(lambda: st.bootstrap((items.mean(1),), np.mean, n_resamples=B, method="percentile", rng=1,
                                      vectorized=True), R)

    def naive(nb=500):
        rng = np.random.default_rng(1)
        out = np.empty(nb)
        for b in range(nb):
            s = rng.integers(0, 40, 40)
            out[b] = np.mean([items[j, rng.integers(0, 500, 500)].mean() for j in s])
        return out

    t_naive = best(naive, 1) * B / 500
    rows.append(("two-level 40 runs x 500 items, binary items (Binomial draw)", t_bin, t_naive,
                 "naive per-resample Python loop (timed at 500, x20)"))
    rows.append(("two-level 40 runs x 500 items, 5-level graded reward (Multinomial draw)", t_mul, t_naive,
                 "naive per-resample Python loop (timed at 500, x20)"))
    rows.append(("two-level 40 runs x 500 items, continuous items (index draw)", t_idx, t_naive,
                 "naive per-resample Python loop (timed at 500, x20)"))
    rows.append(("one-level over the 40 run means (for scale)", best(lambda: iv.compute(
        items.mean(1), "mean", "percentile", [0.95], resamples=B, rng_seed=1, stream="o"), R), t_sc1,
        "scipy.stats.bootstrap (no two-level method)"))
    try:
        import rliable  # noqa: F401

        rows.append(("rliable", float("nan"), float("nan"), "installed but not benchmarked"))
    except ImportError:
        rliable_note = "rliable not installed (not benchmarked)"
    else:
        rliable_note = ""

    from stats.analyze import analyze
    from stats.synthetic import make_campaign

    with tempfile.TemporaryDirectory() as tmp:
        prereg = json.loads((ROOT / "examples" / "e1.json").read_text())
        prereg["analysis"]["resamples"] = B
        t0 = time.perf_counter()
        c = make_campaign(tmp, prereg, effects={"gspo": 0.03})
        t_make = time.perf_counter() - t0
        t_an = best(lambda: analyze(c.lock_path, c.runs_dir), R)
        n_values = len(analyze(c.lock_path, c.runs_dir)["values"])

    w = max(len(r[0]) for r in rows)
    print(f"resamples = {B}; best of {R}; seconds")
    print(f"{'case':<{w}}  {'ours':>8}  {'reference':>9}  speed-up  reference")
    for name, ours, ref, what in rows:
        print(f"{name:<{w}}  {ours:8.4f}  {ref:9.4f}  {ref / ours:7.1f}x  {what}")
    if rliable_note:
        print(rliable_note)
    print(f"whole E1-sized analysis (5 arms x 8 seeds x 500 items, {n_values} values, from run folders): "
          f"{t_an:.3f} s  (campaign generation {t_make:.1f} s, not included)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
