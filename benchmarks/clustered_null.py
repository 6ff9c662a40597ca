"""Full clustered-null study of the item-level methods (README failure 17; issue 13 finding 1).

    .venv/bin/python benchmarks/clustered_null.py [--reps 2000] [--resamples 1000] [--json out.json]

8 seeds x 500 shared held-out items, no true arm effect, seed-to-seed SD of the arm effect
sigma = 0, 0.1, 0.2, 0.4 on the logit scale (stats/coverage_items.py describes the model).
Prints each method's rejection rate at nominal 0.05 with its Monte-Carlo s.e. and the
wall time. Seeded: a rerun prints the same rates. `tests/test_stats_items.py` runs a
CI-sized version of the same study.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from stats import coverage_items as ci  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=2000)
    ap.add_argument("--resamples", type=int, default=1000)
    ap.add_argument("--seeds", type=int, default=8)
    ap.add_argument("--items", type=int, default=500)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    t0 = time.perf_counter()
    tab = ci.null_study(seeds=args.seeds, items=args.items, reps=args.reps, resamples=args.resamples,
                        progress=lambda s: print(f"  sigma={s:g} done ({time.perf_counter() - t0:.0f} s)",
                                                 file=sys.stderr))
    print(ci.to_markdown(tab))
    print(f"wall time {time.perf_counter() - t0:.1f} s")
    if args.json:
        Path(args.json).write_text(json.dumps(tab, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
