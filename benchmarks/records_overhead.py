"""What the record guarantees cost: the strict JSON reader and check 7's re-scoring.

    .venv/bin/python benchmarks/records_overhead.py [--rows 500] [--runs 300] [--repeats 5]

Both are measured against a baseline run in the same process, repeated, and printed as ratios
with their spread (min-max over repeats):

* reader: ``prereg.jsonio`` decoding trace lines (duplicate-key hook, digit limit) vs a plain
  ``json.JSONDecoder`` on the same lines;
* re-scoring: ``audit.checks.traces._rescore_heldout`` over ``runs`` x ``rows`` held-out rows vs
  the range-and-type loop it replaced (the old check 7 row scan), as seconds per 1,000 runs.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


class _Out:
    def add(self, *a, **k):
        pass


def _rows(n: int) -> list[dict]:
    return [{"index": i, "item_id": f"q{i}", "prompt_sha256": "a" * 64, "completion_sha256": "b" * 64,
             "prediction": str(i % 3), "target": "1", "correct": i % 3 == 1, "reward": 1.0 if i % 3 == 1 else 0.0}
            for i in range(n)]


def _old_scan(rows, bounds):
    for row in rows:
        rw = row.get("reward")
        if rw is not None and (not (isinstance(rw, (int, float)) and math.isfinite(rw))
                               or not bounds[0] <= rw <= bounds[1]):
            break
        if not isinstance(row.get("correct"), bool):
            break


def _time(fn, repeats: int) -> list[float]:
    out = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=500)
    ap.add_argument("--runs", type=int, default=300)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    from audit.checks.traces import _rescore_heldout
    from prereg import jsonio
    from prereg.scoring import scorer_for

    rows = _rows(args.rows)
    lines = [json.dumps(r) + "\n" for r in rows] * args.runs
    plain = json.JSONDecoder()
    base = _time(lambda: [plain.decode(x) for x in lines], args.repeats)
    strict = _time(lambda: [jsonio._DECODER.decode(x) for x in lines], args.repeats)
    ratios = [s / b for s, b in zip(strict, base, strict=True)]
    print(f"reader: {len(lines):,} trace lines; strict / plain decoder = {statistics.median(ratios):.2f} "
          f"(min {min(ratios):.2f}, max {max(ratios):.2f})")
    sc, bounds = scorer_for("gsm8k"), (0.0, 1.0)
    old = _time(lambda: [_old_scan(rows, bounds) for _ in range(args.runs)], args.repeats)
    new = _time(lambda: [_rescore_heldout(_Out(), "x", rows, sc, bounds) for _ in range(args.runs)], args.repeats)
    per_k = [t * 1000 / args.runs for t in new]
    ratios = [n / o for n, o in zip(new, old, strict=True)]
    print(f"re-scoring: {args.runs} runs x {args.rows} rows; {statistics.median(per_k):.2f} s per 1,000 runs "
          f"(min {min(per_k):.2f}, max {max(per_k):.2f}); re-scoring / old scan = {statistics.median(ratios):.2f} "
          f"(min {min(ratios):.2f}, max {max(ratios):.2f})")


if __name__ == "__main__":
    main()
