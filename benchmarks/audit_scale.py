"""How long `audit check` takes on 100, 300 and 1,000 runs x 500 items with a 500-number report.

    .venv/bin/python benchmarks/audit_scale.py [--sizes 100 300 1000] [--keep DIR]

Campaigns come from ``stats.synthetic`` (5 arms of examples/e1.json, runs/5 seeds each,
500 held-out items, 30 steps); the analysis is ``stats analyze`` with 1,000 resamples; the
report is 250 table rows (arm, seed, held-out accuracy in %, ZVF) = 500 numbers checked by
table context. Prints generation, analysis and audit times, per-check audit times, and the
growth ratio of the audit time per run (1.0 = linear).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def prereg_for(runs: int) -> dict:
    from stats.synthetic import small_prereg

    base = json.loads((REPO / "examples" / "e1.json").read_text())
    arms = len(base["arms"])
    p = small_prereg(base, heldout_n=500, steps=30, seeds=list(range(1, runs // arms + 1)))
    p["id"] = f"scale{runs}"
    p["analysis"]["resamples"] = 1000
    return p


def report_text(root: Path, study: str, n_numbers: int = 500) -> str:
    from prereg.jsonio import read_json

    runs = sorted((root / "runs" / study).glob("*/s*/manifest.json"))
    lines = ["# Scale report", "", "| Arm | Seed | Held-out accuracy (%) | ZVF |", "|---|---|---|---|"]
    summ = [read_json(p) for p in runs]
    for i in range(n_numbers // 2):
        m = summ[i % len(summ)]
        s = m["summaries"]
        lines.append(f"| {m['arm']} | s{m['seed']} | {100 * s['heldout_accuracy']:.1f} | {s['zvf_mean']:.3f} |")
    return "\n".join(lines) + "\n"


def one(size: int, work: Path) -> dict:
    from audit.engine import run_audit
    from prereg.jsonio import write_atomic
    from stats.analyze import analyze, write
    from stats.synthetic import make_campaign

    root = work / f"c{size}"
    root.mkdir(parents=True)
    prereg = prereg_for(size)
    old = os.getcwd()
    os.chdir(root)
    try:
        t0 = time.perf_counter()
        make_campaign(".", prereg, effects={"gspo": 0.03}, rng_seed=3)
        t_gen = time.perf_counter() - t0
        t0 = time.perf_counter()
        a = analyze(f"locks/{prereg['id']}.lock.json", "runs")
        write(a, "report/analysis.json")
        t_an = time.perf_counter() - t0
        write_atomic("report/report.md", report_text(root, prereg["id"]))
    finally:
        os.chdir(old)
    t0 = time.perf_counter()
    res = run_audit(root / "report")
    t_audit = time.perf_counter() - t0
    n_runs = sum(1 for _ in (root / "runs").rglob("manifest.json"))
    return {"runs": n_runs, "generate_s": t_gen, "analyze_s": t_an, "audit_s": t_audit,
            "findings": len(res.findings), "traced": res.traced_count, "untraced": len(res.untraced),
            "checks": {f"{r.check}:{r.name}": r.seconds for r in res.results}}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[100, 300, 1000])
    ap.add_argument("--keep", help="keep campaigns under this folder")
    args = ap.parse_args(argv)
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="audit_scale_"))
    rows = []
    try:
        for size in args.sizes:
            r = one(size, work)
            rows.append(r)
            print(f"{r['runs']:>5} runs: generate {r['generate_s']:7.1f}s  analyze {r['analyze_s']:6.1f}s  "
                  f"audit {r['audit_s']:6.1f}s  ({r['traced']} numbers traced, {r['untraced']} untraced, "
                  f"{r['findings']} findings)", flush=True)
            print("        per check: " + ", ".join(f"{k} {v:.2f}s" for k, v in r["checks"].items()), flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    base = rows[0]
    for r in rows[1:]:
        growth = (r["audit_s"] / base["audit_s"]) / (r["runs"] / base["runs"])
        print(f"growth {base['runs']} -> {r['runs']} runs: audit time x{r['audit_s'] / base['audit_s']:.2f} "
              f"for x{r['runs'] / base['runs']:.1f} runs (per-run ratio {growth:.2f}; 1.0 = linear)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
