"""How long `audit check` takes on 100, 300 and 1,000 runs x 500 items with a 500-number report,
and whether it grows linearly in runs.

    .venv/bin/python benchmarks/audit_scale.py [--sizes 100 300 1000] [--repeats 3] [--keep DIR] [--jobs N]

Campaigns follow ``stats.synthetic`` (5 arms of examples/e1.json, runs/5 seeds each, 500
held-out items, 30 steps; written by a faster equivalent writer unless --generator stats); the
analysis is ``stats analyze`` with 1,000 resamples; the report is 250 table rows (arm, seed,
held-out accuracy in %, ZVF) = 500 numbers checked by table context. With --keep DIR a campaign
already in DIR/c<size> is audited again instead of rebuilt (profile with it).

The audit checks the runs with ``--jobs`` worker processes (default: the CPUs available,
``audit.pool``); its CPU time counts theirs. Each size is audited ``--repeats`` times, each in a new interpreter (as a user runs it: no memo
of an earlier audit helps) and paired with a baseline measured just before it in that process:
reading and SHA-256-hashing every file of the campaign once (the least any audit of these
records must do). Printed per size: the audit's CPU time (median and range; the fair figure on
a shared machine) and wall time (the target; the load average is printed at start and end), its cost per run, the ratio
audit / baseline (median and range over the pairs: a load change moves both), the per-check
CPU times (median) and the time outside the checks (loading the context, linking root causes).
Then, against the smallest size: per-run cost and audit/baseline ratio (1.0 = linear in runs).
Check 9 includes a full `stats analyze` recomputation.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import statistics
import subprocess
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


def fast_campaign(root: Path, prereg: dict, *, rng_seed: int = 3) -> None:
    """Same records as ``stats.synthetic.make_campaign`` (manifest shape, sealed, consistent
    summaries), but traces are written with string formatting and random hex instead of a
    json.dumps and a sha256 per line, so 1,000 runs x 500 items take seconds, not minutes."""
    import datetime as dt

    import numpy as np

    from prereg.canonical import sha256_json
    from prereg.jsonio import dumps_pretty, write_json_atomic
    from prereg.lock import build_lock, lock_filename
    from prereg.records import (
        HELDOUT_TRACE,
        MANIFEST,
        TELEMETRY,
        TRAIN_TRACE,
        artifact_digests,
        seal,
        unit_dir,
    )
    from prereg.summaries import compute_summaries
    from stats.synthetic import fingerprint_components, resolved_config_for

    rng = np.random.default_rng(rng_seed)
    locked_at = "2026-01-01T00:00:00.000000Z"
    lock = build_lock(prereg, now=locked_at)
    lock_rel = f"locks/{lock_filename(prereg['id'], 1)}"
    write_json_atomic(root / lock_rel, lock)
    tr = prereg["training"]
    steps, k, groups = int(tr["max_steps"]), int(tr["num_generations"]), int(tr.get("prompts_per_step", 2))
    n = int(prereg["dataset"]["heldout_n"])
    comps = fingerprint_components()
    fp = {"components": comps, "hash": sha256_json(comps)}
    t0 = dt.datetime(2026, 1, 2, tzinfo=dt.timezone.utc)
    difficulty = rng.beta(2, 2, size=n)
    for ai, arm in enumerate(prereg["arms"]):
        for si, seed in enumerate(prereg["seeds"]):
            d = unit_dir(root / "runs", prereg["id"], arm, seed)
            d.mkdir(parents=True)
            p = np.clip(0.3 + 0.4 * np.arange(1, steps + 1) / steps, 0.05, 0.95)
            rewards = (rng.random((steps, groups, k)) < p[:, None, None]).astype(float)
            hexes = rng.bytes(32 * (steps * groups * k + n)).hex()
            tel, train = [], []
            rollouts = 0
            for st in range(steps):
                r = rewards[st]
                rollouts += groups * k
                z = float(np.mean(r.min(axis=1) == r.max(axis=1)))
                tel.append({"step": st + 1, "reward_mean": float(r.mean()), "zvf": z, "gu": 1.0 - z,
                            "rollouts": rollouts, "groups": groups})
            j = 0
            for st in range(steps):
                for g in range(groups):
                    for i in range(k):
                        h = hexes[64 * j:64 * (j + 1)]
                        j += 1
                        train.append(f'{{"completion_sha256": "{h}", "group": {g}, "index": {i}, '
                                     f'"reward": {rewards[st, g, i]}, "step": {st + 1}}}\n')
            correct = rng.random(n) < np.clip(difficulty + 0.01 * ai + 0.02 * rng.normal(), 0, 1)
            held_rows = [{"correct": bool(c), "reward": float(c)} for c in correct]
            held = []
            for i, c in enumerate(correct):
                h = hexes[64 * j:64 * (j + 1)]
                j += 1
                held.append(f'{{"completion_sha256": "{h}", "correct": {"true" if c else "false"}, "index": {i}, '
                            f'"item_id": "item-{i}", "prediction": "{1 if c else 0}", "reward": {float(c)}, '
                            f'"target": "1"}}\n')
            # plain writes: fsync per file would dominate the generation time
            (d / "traces").mkdir()
            (d / "adapter").mkdir()
            (d / TELEMETRY).write_text("".join(json.dumps(t, sort_keys=True) + "\n" for t in tel))
            (d / TRAIN_TRACE).write_text("".join(train))
            (d / HELDOUT_TRACE).write_text("".join(held))
            (d / "adapter" / "adapter_model.safetensors").write_bytes(rng.bytes(64))
            start = t0 + dt.timedelta(minutes=ai * len(prereg["seeds"]) + si)
            manifest = seal({
                "manifest_format": 1, "study_id": prereg["id"],
                "lock": {"hash": lock["lock_hash"], "version": 1, "locked_at": locked_at, "path": lock_rel},
                "arm": arm, "algorithm": prereg["arms"][arm]["algorithm"], "seed": seed,
                "evidence_class": "confirmatory", "status": "complete",
                "started_at": start.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
                "ended_at": (start + dt.timedelta(seconds=30)).strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
                "resolved_config": resolved_config_for(prereg, arm, seed),
                "declared_changes": dict(prereg["arms"][arm]["changes"]), "fingerprint": fp,
                "task": {"name": prereg["task"]["name"], "reward_bounds": [0.0, 1.0], "item_metrics": {}},
                "summaries": compute_summaries(tel, held_rows), "artifacts": artifact_digests(d),
                "settings": {"synthetic": True}, "resumes": [], "error": None})
            (d / MANIFEST).write_text(dumps_pretty(manifest))


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


def build(size: int, work: Path, generator: str = "fast") -> tuple[Path, dict]:
    """Campaign, analysis and report for ``size`` runs under work/c<size> (reused when there)."""
    from prereg.jsonio import write_atomic
    from stats.analyze import analyze, write
    from stats.synthetic import make_campaign

    root = work / f"c{size}"
    if (root / "report" / "report.md").exists():
        return root, {"generate_s": 0.0, "analyze_s": 0.0}
    root.mkdir(parents=True)
    prereg = prereg_for(size)
    old = os.getcwd()
    os.chdir(root)
    try:
        t0 = time.perf_counter()
        if generator == "stats":
            make_campaign(".", prereg, effects={"gspo": 0.03}, rng_seed=3)
        else:
            fast_campaign(Path("."), prereg)
        t_gen = time.perf_counter() - t0
        t0 = time.perf_counter()
        a = analyze(f"locks/{prereg['id']}.lock.json", "runs")
        write(a, "report/analysis.json")
        t_an = time.perf_counter() - t0
        write_atomic("report/report.md", report_text(root, prereg["id"]))
    finally:
        os.chdir(old)
    return root, {"generate_s": t_gen, "analyze_s": t_an}


def read_and_hash(root: Path) -> float:
    """The baseline: CPU seconds to read and SHA-256 every file of the campaign once."""
    files = sorted(p for p in root.rglob("*") if p.is_file())
    c0 = time.process_time()
    for p in files:
        hashlib.sha256(p.read_bytes()).hexdigest()
    return time.process_time() - c0


def audit_once(root: Path, jobs: int | None = None) -> dict:
    """One audit: wall seconds, CPU seconds of this process and its worker processes
    (``audit.engine.cpu_seconds``), per-check CPU seconds."""
    from audit.engine import cpu_seconds, run_audit

    t0, c0 = time.perf_counter(), cpu_seconds()
    res = run_audit(root / "report", jobs=jobs)
    wall, cpu = time.perf_counter() - t0, cpu_seconds() - c0
    checks = {f"{r.check}:{r.name}": r.cpu_seconds for r in res.results}
    walls = {f"{r.check}:{r.name}": r.seconds for r in res.results}
    return {"wall": wall, "cpu": cpu, "checks": checks, "outside_checks": cpu - sum(checks.values()), "walls": walls,
            "findings": len(res.findings), "traced": res.traced_count, "untraced": len(res.untraced)}


def fresh_pair(root: Path, jobs: int | None = None) -> tuple[float, dict]:
    """Baseline then audit in a new interpreter (imports done before timing), so no memo left
    by an earlier audit in this process makes a repeat cheaper than a user's first audit."""
    code = ("import json, sys; sys.path.insert(0, sys.argv[1]); import benchmarks.audit_scale as b; "
            "import audit.engine, stats.analyze; from pathlib import Path; r = Path(sys.argv[2]); "
            "j = int(sys.argv[3]) or None; base = b.read_and_hash(r); print(json.dumps([base, b.audit_once(r, j)]))")
    out = subprocess.run([sys.executable, "-c", code, str(REPO), str(root), str(jobs or 0)], check=True,
                         capture_output=True, text=True).stdout
    base, audit = json.loads(out.strip().splitlines()[-1])
    return base, audit


def one(size: int, work: Path, generator: str = "fast", repeats: int = 3, jobs: int | None = None) -> dict:
    root, made = build(size, work, generator)
    pairs = [fresh_pair(root, jobs) for _ in range(repeats)]
    n_runs = sum(1 for _ in (root / "runs").rglob("manifest.json"))
    cpus = [a["cpu"] for _, a in pairs]
    ratios = [a["cpu"] / b for b, a in pairs]
    last = pairs[-1][1]
    return {"runs": n_runs, **made, "audit_cpu": cpus, "audit_wall": [a["wall"] for _, a in pairs],
            "baseline_cpu": [b for b, _ in pairs], "ratio": ratios,
            "checks": {k: statistics.median(a["checks"][k] for _, a in pairs) for k in last["checks"]},
            "walls": {k: statistics.median(a["walls"][k] for _, a in pairs) for k in last["walls"]},
            "outside_checks": statistics.median(a["outside_checks"] for _, a in pairs),
            "findings": last["findings"], "traced": last["traced"], "untraced": last["untraced"]}


def _spread(xs: list[float], fmt: str = "{:.2f}") -> str:
    return f"{fmt.format(statistics.median(xs))} ({fmt.format(min(xs))}-{fmt.format(max(xs))})"


def report(r: dict) -> None:
    med = statistics.median(r["audit_cpu"])
    made = f"generate {r['generate_s']:.1f}s, analyze {r['analyze_s']:.1f}s; " if r["generate_s"] else ""
    print(f"{r['runs']:>5} runs: {made}audit cpu {_spread(r['audit_cpu'])} s, wall {_spread(r['audit_wall'])} s, "
          f"{1000 * med / r['runs']:.2f} ms/run; read+hash baseline {_spread(r['baseline_cpu'])} s; "
          f"audit/baseline x{_spread(r['ratio'], '{:.1f}')}  ({r['traced']} numbers traced, "
          f"{r['untraced']} untraced, {r['findings']} findings)", flush=True)
    print("        per check (cpu, median): " + ", ".join(f"{k} {v:.2f}s" for k, v in r["checks"].items())
          + f"; outside checks {r['outside_checks']:.2f}s", flush=True)
    big = [k for k, v in r["walls"].items() if v >= 0.05]
    print("        per check (wall, median; checks 2 and 7 run in worker processes, check 9 beside 10-12): "
          + ", ".join(f"{k} {r['walls'][k]:.2f}s" for k in big), flush=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[100, 300, 1000])
    ap.add_argument("--repeats", type=int, default=3, help="audits per size, each paired with a baseline")
    ap.add_argument("--keep", help="keep campaigns under this folder (and audit those already there again)")
    ap.add_argument("--jobs", type=int, default=None,
                    help="the audit's worker processes (default: audit.pool.default_jobs(), the CPUs available)")
    ap.add_argument("--generator", choices=["fast", "stats"], default="fast",
                    help="fast: the benchmark's own writer (default); stats: stats.synthetic.make_campaign")
    args = ap.parse_args(argv)
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="audit_scale_"))
    work.mkdir(parents=True, exist_ok=True)
    rows = []
    import audit.engine  # noqa: F401  (imports, incl. scipy via stats, are not part of the timed audits)
    import stats.analyze  # noqa: F401
    from audit.pool import default_jobs

    print(f"audit jobs: {args.jobs or default_jobs()}; load average at start: "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    try:
        for size in args.sizes:
            rows.append(one(size, work, args.generator, args.repeats, args.jobs))
            report(rows[-1])
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    base = rows[0]
    for r in rows[1:]:
        per_run = statistics.median(r["audit_cpu"]) / r["runs"] / (statistics.median(base["audit_cpu"]) / base["runs"])
        ratio = statistics.median(r["ratio"]) / statistics.median(base["ratio"])
        print(f"growth {base['runs']} -> {r['runs']} runs (x{r['runs'] / base['runs']:.1f}): cpu per run x{per_run:.2f}, "
              f"audit/baseline x{ratio:.2f} (1.0 = linear in runs)")
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
