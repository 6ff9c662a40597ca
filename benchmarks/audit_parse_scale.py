"""Report shapes that used to hide numbers or take minutes: how long parsing and `audit check` take.

    .venv/bin/python benchmarks/audit_parse_scale.py [--repeats 3] [--mb 5] [--keep DIR]

One small campaign (``stats.synthetic`` via benchmarks/audit_scale.py: 5 arms x 2 seeds, 500
items) is analysed once; then its report folder holds, in turn, one report of each shape:

- ``baseline``: the 500-number arm/seed table of benchmarks/audit_scale.py;
- ``comment-line``: one 200 KB line of ``<!--`` inside a paragraph (the old reader took 98 s);
- ``numbers-line``: 30,000 numbers on one line (the old reader took over 300 s);
- ``latex-commands``: 200 KB of unclosed ``\\label{`` and ``\\cite{`` with numbers between;
- ``mixed``: a ``--mb`` MB Markdown report of mixed shapes (headings, prose with statistics,
  pipe tables, code blocks and spans, HTML comments, footnotes) plus a LaTeX section.

For each it prints the median (and min-max over repeats) of the parse alone and of the whole
``audit check`` (every check; check 9 recomputes the analysis), the number of numbers seen, and
both times as ratios to the baseline's in the same process. Wall and CPU time are shown: the CPU
time is the fair one on a shared machine. The target (issue 11) is every shape under 10 s.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))


def campaign(work: Path) -> Path:
    """A small analysed campaign; returns its report folder."""
    from audit_scale import fast_campaign, prereg_for

    from stats.analyze import analyze, write

    root = work / "c"
    root.mkdir(parents=True)
    prereg = prereg_for(10)
    old = os.getcwd()
    os.chdir(root)
    try:
        fast_campaign(Path("."), prereg)
        write(analyze(f"locks/{prereg['id']}.lock.json", "runs"), "report/analysis.json")
    finally:
        os.chdir(old)
    return root / "report"


def _mixed_block(i: int) -> str:
    return (f"## Section {i}: GSPO against GRPO\n\n"
            f"GSPO reached 61.{i % 10}% [58.0%, 64.1%] on held-out accuracy (n=500, test split); paired t "
            f"p = 0.0{i % 9 + 1} (BH-adjusted 0.084), Δ = +0.005, SFT − GRPO: +0.296 [0.191, 0.407].[^{i}]\n\n"
            "| Metric | seed 0 | seed 1 | mean ± sd |\n|---|---|---|---|\n"
            + "".join(f"| Held-out accuracy (%) row {k} | 61.{k} | 62.{k} | 61.5 ± 0.{k} |\n" for k in range(8))
            + f"\n```python\nacc = 0.{i:04d}\nprint(acc * 100)\n```\n\nSee `lr = 1e-6` and <!-- draft {i}.5 -->.\n\n"
            f"[^{i}]: measured over 1,078 puzzles at step {i}.\n\n")


def _latex_block(i: int) -> str:
    return (f"\\subsection{{Run {i}}}\\label{{sec:{i}}} GSPO mean held-out accuracy was 0.{i:04d}.\n"
            f"\\newcommand{{\\Acc{chr(65 + i % 26)}}}{{0.61}} % id: x\n"
            "\\begin{tabular}{lrr}\n\\toprule\nArm & mean (\\%) & sd \\\\\n\\midrule\n"
            f"GSPO & \\SI{{61.{i % 10}}}{{\\percent}} & $0.61 \\pm 0.02$ \\\\\n\\bottomrule\n\\end{{tabular}}\n\n")


def shapes(mb: float) -> dict[str, dict[str, str]]:
    """{shape: {file name: text}}."""
    from audit_scale import report_text  # noqa: F401  (the baseline is written by the caller)

    mixed_md, mixed_tex = [], []
    size, i = 0, 0
    while size < mb * 1_000_000 * 0.9:
        b = _mixed_block(i)
        mixed_md.append(b)
        size += len(b)
        i += 1
    size, i = 0, 0
    while size < mb * 1_000_000 * 0.1:
        b = _latex_block(i)
        mixed_tex.append(b)
        size += len(b)
        i += 1
    return {
        "comment-line": {"report.md": "# Report\n\nx " + "<!--" * 50_000 + " 0.5\n"},
        "numbers-line": {"report.md": "# Report\n\n" + " ".join(f"{k % 997}.{k % 10}" for k in range(30_000)) + "\n"},
        "latex-commands": {"paper.tex": ("\\label{\\cite{ 0.5 " * 12_000) + "\n"},
        "mixed": {"report.md": "".join(mixed_md), "paper.tex": "".join(mixed_tex)},
    }


def _timed(fn, repeats: int) -> tuple[list[float], list[float], object]:
    walls, cpus, out = [], [], None
    for _ in range(repeats):
        t0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    return walls, cpus, out


def measure(report: Path, files: dict[str, str], repeats: int, parse_only: bool = False) -> dict:
    from audit.engine import run_audit
    from audit.numbers import parse_report

    for p in report.iterdir():
        if p.suffix in (".md", ".tex"):
            p.unlink()
    for name, text in files.items():
        (report / name).write_text(text, encoding="utf-8")
    pw, pc, parsed = _timed(lambda: parse_report(report, lambda p: p.name), repeats)
    aw, ac = ([float("nan")], [float("nan")]) if parse_only else _timed(lambda: run_audit(report), repeats)[:2]
    return {"bytes": sum(len(t.encode()) for t in files.values()), "numbers": sum(len(f.mentions) for f in parsed),
            "parse_wall": pw, "parse_cpu": pc, "audit_wall": aw, "audit_cpu": ac}


def _fmt(xs: list[float]) -> str:
    return f"{statistics.median(xs):7.2f} ({min(xs):.2f}-{max(xs):.2f})"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--mb", type=float, default=5.0)
    ap.add_argument("--keep", help="build the campaign here and keep it")
    ap.add_argument("--parse-only", action="store_true", help="time the parse alone (no `audit check`)")
    args = ap.parse_args(argv)
    from audit_scale import report_text

    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="audit_parse_scale_"))
    try:
        report = campaign(work)
        from audit.numbers import parse_latex, parse_markdown

        parse_markdown("warm", "warm 1", "warm"), parse_latex("warm", "warm 1", "warm")   # imports, parser setup
        base = measure(report, {"report.md": report_text(work / "c", "scale10")}, args.repeats, args.parse_only)
        rows = [("baseline", base)] + [(k, measure(report, v, args.repeats, args.parse_only))
                                       for k, v in shapes(args.mb).items()]
        print(f"{'shape':15} {'bytes':>9} {'numbers':>8}  {'parse s (wall)':>20}  {'audit s (wall)':>20}  "
              f"{'audit s (cpu)':>20}  parse x  audit x  under 10 s")
        bp, ba = statistics.median(base["parse_cpu"]), statistics.median(base["audit_cpu"])
        for name, r in rows:
            ok = statistics.median(r["parse_wall" if args.parse_only else "audit_wall"]) < 10.0
            print(f"{name:15} {r['bytes']:9d} {r['numbers']:8d}  {_fmt(r['parse_wall']):>20}  {_fmt(r['audit_wall']):>20}  "
                  f"{_fmt(r['audit_cpu']):>20}  {statistics.median(r['parse_cpu']) / bp:7.1f}  "
                  f"{statistics.median(r['audit_cpu']) / ba:7.1f}  {'yes' if ok else 'NO'}")
        print("ratios are CPU-time medians against the baseline in this process")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
