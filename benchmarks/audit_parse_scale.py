"""Report shapes that used to hide numbers or take minutes: how long `audit check` takes on each.

    .venv/bin/python benchmarks/audit_parse_scale.py [--repeats 3] [--mb 5] [--only a,b] [--check]
                                                     [--budget 10] [--parse-only] [--keep DIR]

One small campaign (``stats.synthetic`` via benchmarks/audit_scale.py: 5 arms x 2 seeds, 500
items) is analysed once; then its report folder holds, in turn, one report of each shape. The
target (issue 11, README failure 10): any report up to 5 MB, in any shape, audits in under 10 s.
Shapes (``--mb`` sets the size of those marked MB; the others are the pathological lines that were
quadratic):

- ``baseline``: the 500-number arm/seed table of benchmarks/audit_scale.py (7 KB);
- ``comment-line``: one 200 KB line of ``<!--`` inside a paragraph (the old reader took 98 s);
- ``numbers-line``: 30,000 numbers on one line (over 300 s before);
- ``numbers-words-line``: 30,000 numbers on one line with arm names and words between them, so
  that every number is read in its sentence (arms, metric, statistic);
- ``latex-commands``: 200 KB of unclosed ``\\label{`` and ``\\cite{`` with numbers between;
- ``wide-row``: one pipe table two rows deep and 20,000 columns wide (each cell read in its row and column);
- ``dense-table`` (MB): one pipe table of arm/seed rows, six numbers a row;
- ``prose`` (MB): paragraphs of results sentences (means, CIs, p-values, differences);
- ``giant-line`` (MB): the same sentences as one paragraph on a single line;
- ``comments`` (MB): lines of prose with numbers inside and around HTML comments and pins;
- ``nesting`` (MB): numbers in lists inside block quotes 12 deep;
- ``code`` (MB): fenced code blocks and code spans full of numbers;
- ``latex`` (MB): a ``.tex`` paper: sections, prose, ``tabular`` with ``\\pm``/``\\SI``, macros;
- ``mixed`` (MB): Markdown of mixed shapes (headings, prose with statistics, pipe tables, code
  blocks and spans, HTML comments, footnotes) plus a LaTeX section.

The MB shapes draw their values (2 to 4 decimals) and wordings from a generator seeded per shape, so the
text is the same on every run but no block, sentence or cell repeats another as it would not in a real
report (they used to cycle through a few dozen values: a memo of repeated text looked faster than it is).

For each it prints the median CPU time (and min-max over ``--repeats``) of the parse alone and of the
whole ``audit check`` (every check; check 9 recomputes the analysis; its CPU counts the worker
processes ``--jobs`` lets it fork for a large report, its wall is what a user waits; "own cpu" is the
audit's process alone: on a loaded machine, where wall means little, what the workers took off it
shows whether a shape uses both cores), the numbers seen, the
parse's wall with the audit's jobs (a file of 1 MB or more has its numbers placed in two processes:
audit/parse_pool.py) over the one-process parse run just before it (both with the collector paused, as
in the audit), and the
audit's ratio to two baselines measured in the same process on the same text: markdown-it-py's plain
CommonMark parse of it (the cost of a real parser reading those bytes) and the 7 KB baseline report's
audit. CPU time is the fair measure on a shared machine; wall time is shown too. ``--check`` exits 1
if any shape's median audit CPU time is over ``--budget`` seconds.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

ARMS = ("grpo", "dapo", "dr_grpo", "gspo", "aero")


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


def _fill(block, mb: float) -> str:
    """``block(i)`` for i = 0, 1, ... until ``mb`` MB."""
    out, size, i = [], 0, 0
    while size < mb * 1_000_000:
        b = block(i)
        out.append(b)
        size += len(b)
        i += 1
    return "".join(out)


# The MB shapes draw their numbers and words from a seeded generator (one per shape: byte-identical
# text on every run), so that no block repeats another and nothing can go faster because the same
# text, sentence or cell value comes round again: a value has 2 to 4 decimals as reports write them,
# the words around it vary (verbs, metric names, wordings of the test), and a table's cells are
# as distinct as a real results table's (README failure 10).
_VERBS = ("reached", "scored", "came to", "achieved", "had", "ended at", "improved to", "got")
_METRICS = ("held-out accuracy", "mean reward", "format rate", "held-out pass rate", "ZVF", "GU",
            "accuracy on the test split", "reward over the last 10 steps")
_TESTS = ("paired t", "Welch t", "paired t-test", "Wilcoxon signed-rank")


def _v(rng, lo: float = 0.0, hi: float = 1.0, places: int | None = None) -> str:
    """A value in [lo, hi) written with ``places`` (else 2 to 4) decimals."""
    return f"{rng.uniform(lo, hi):.{places or rng.choice((2, 3, 3, 4))}f}"


def _sentence(rng) -> str:
    a, b = rng.sample(ARMS, 2)
    lo, hi = sorted((rng.uniform(0.45, 0.75), rng.uniform(0.45, 0.75)))
    p = rng.random()
    places, metric = rng.choice((3, 4)), rng.choice(_METRICS)
    return (f"{a.upper() if rng.random() < 0.5 else a} {rng.choice(_VERBS)} {'an' if metric[0] in 'aeiou' else 'a'} "
            f"{metric} of "
            f"{_v(rng, 0.45, 0.75, places)} (95% CI [{lo:.{places}f}, {hi:.{places}f}]) over {rng.randint(2, 8)} seeds, "
            f"against {_v(rng, 0.45, 0.75, places)} for {b}; the difference of {rng.uniform(-0.05, 0.05):+.{places}f} was "
            f"{'not ' if p > 0.05 else ''}significant ({rng.choice(_TESTS)} p = {p:.3f}, BH-adjusted "
            f"{min(1.0, p * rng.uniform(1, 4)):.3f}). ")


def _mixed_block(rng, i: int) -> str:
    lo = rng.uniform(50, 60)
    rows = "".join(f"| {rng.choice(_METRICS).capitalize()} (%) {rng.choice(ARMS)} | {_v(rng, 50, 70, 1)} | "
                   f"{_v(rng, 50, 70, 1)} | {_v(rng, 50, 70, 1)} ± {_v(rng, 0, 2, 1)} |\n" for _ in range(8))
    return (f"## Section {i}: {rng.choice(ARMS).upper()} against {rng.choice(ARMS).upper()}\n\n"
            f"{rng.choice(ARMS).upper()} {rng.choice(_VERBS)} {_v(rng, 50, 70, 1)}% [{lo:.1f}%, {lo + rng.uniform(2, 8):.1f}%] "
            f"on {rng.choice(_METRICS)} (n={rng.choice((300, 500, 1000))}, test split); {rng.choice(_TESTS)} "
            f"p = {rng.random():.3f} (BH-adjusted {rng.random():.3f}), Δ = {rng.uniform(-0.05, 0.05):+.3f}, "
            f"SFT − GRPO: {rng.uniform(0.1, 0.4):+.3f} [{_v(rng, 0, 0.2, 3)}, {_v(rng, 0.3, 0.5, 3)}].[^{i}]\n\n"
            f"| Metric | seed {rng.randint(0, 9)} | seed {rng.randint(10, 19)} | mean ± sd |\n|---|---|---|---|\n"
            + rows + f"\n```python\nacc = {_v(rng)}\nprint(acc * {rng.choice((100, 10, 1000))})\n```\n\n"
            f"See `lr = {rng.choice((1, 2, 5))}e-{rng.randint(5, 7)}` and <!-- draft {_v(rng, 0, 10, 1)} -->.\n\n"
            f"[^{i}]: measured over {rng.randint(300, 3000):,} puzzles at step {rng.randint(1, 5000)}.\n\n")


def _latex_block(rng, i: int) -> str:
    return (f"\\subsection{{Run {i}}}\\label{{sec:{i}}} {rng.choice(ARMS).upper()} mean held-out accuracy was "
            f"{_v(rng, 0.4, 0.8, 4)}.\n"
            f"\\newcommand{{\\Acc{chr(65 + i % 26)}{chr(65 + i // 26 % 26)}}}{{{_v(rng, 0.4, 0.8)}}} % id: x\n"
            "\\begin{tabular}{lrr}\n\\toprule\nArm & mean (\\%) & sd \\\\\n\\midrule\n"
            f"{rng.choice(ARMS).upper()} & \\SI{{{_v(rng, 50, 70, 1)}}}{{\\percent}} & ${_v(rng, 0.4, 0.8, 2)} \\pm "
            f"{_v(rng, 0, 0.05, 2)}$ \\\\\n\\bottomrule\n\\end{{tabular}}\n\n")


def _paper_block(rng, i: int) -> str:
    return (f"\\section{{Results {i}}}\n{_sentence(rng)}\n{_sentence(rng)}\n\n"
            f"\\newcommand{{\\gspoAcc{chr(65 + i % 26)}{chr(65 + i // 26 % 26)}}}{{{_v(rng, 0.4, 0.8, 3)}}}\n"
            "\\begin{tabular}{lrrr}\n\\toprule\nArm & Seed & Accuracy (\\%) & ZVF \\\\\n\\midrule\n"
            + "".join(f"{ARMS[k]} & {rng.randint(1, 8)} & \\SI{{{_v(rng, 50, 70, rng.choice((1, 2)))}}}{{\\percent}} & "
                      f"${_v(rng, 0.3, 0.6, 2)} \\pm {_v(rng, 0, 0.1, 2)}$ \\\\\n" for k in range(5))
            + "\\bottomrule\n\\end{tabular}\n\n")


def _dense_row(rng, i: int) -> str:
    return (f"| {rng.choice(ARMS)} | s{rng.randint(1, 8)} | {_v(rng, 40, 80, rng.choice((1, 2)))} | {_v(rng, 0.2, 0.6)} "
            f"| {_v(rng, 0.5, 0.9)} | {_v(rng, 0.3, 0.8)} | {rng.random():.{rng.choice((2, 3))}f} |\n")


def _comment_line(rng, i: int) -> str:
    return (f"{rng.choice(ARMS).upper()} {rng.choice(_VERBS)} {_v(rng, 0.4, 0.8)}<!-- id: arms.gspo.heldout_accuracy.mean --> "
            f"and <!-- draft: was {_v(rng, 0.4, 0.8)} --> {rng.choice(ARMS).upper()} {_v(rng, 0.4, 0.8)}. "
            f"<!-- {rng.randint(0, 9)} {rng.randint(0, 99)} {rng.randint(0, 999)} {i} -->\n\n")


def _nested_item(rng, i: int) -> str:
    lo = rng.uniform(0.4, 0.7)
    return "> " * 12 + (f"- {rng.choice(ARMS)}: {_v(rng, 0.4, 0.8)} (95% CI [{lo:.2f}, {lo + rng.uniform(0.02, 0.1):.2f}])\n")


def _code_block(rng, i: int) -> str:
    return (f"```python\nacc = [{_v(rng, 0.4, 0.8)}, {_v(rng, 0.4, 0.8)}, {rng.randint(0, 10 ** 6)}]\n"
            f"print(sum(acc) / {rng.randint(2, 9)})\n```\n\n"
            f"Run `acc = {_v(rng, 0, 1)}` with `lr = {rng.choice((1, 2, 5))}e-{rng.randint(5, 7)}`.\n\n")


def _drawn(shape: str, block):
    """``block(rng, i)`` as ``_fill``'s ``block(i)``, drawing from the shape's own seeded generator."""
    rng = random.Random(f"audit_parse_scale:{shape}")
    return lambda i: block(rng, i)


SHAPES = ("comment-line", "numbers-line", "numbers-words-line", "latex-commands", "wide-row", "dense-table", "prose",
          "giant-line", "comments", "nesting", "code", "latex", "mixed")


def shapes(mb: float, only: list[str] | None = None) -> dict[str, dict[str, str]]:
    """{shape: {file name: text}} (see the module docstring); ``only``: build just these."""
    table_head = "# Results\n\n| Arm | Seed | Held-out accuracy (%) | ZVF | GU | Reward (last 10 steps) | p |\n" \
                 "|---|---|---|---|---|---|---|\n"
    build = {
        "comment-line": lambda: {"report.md": "# Report\n\nx " + "<!--" * 50_000 + " 0.5\n"},
        "numbers-line": lambda: {"report.md": "# Report\n\n" + " ".join(f"{k % 997}.{k % 10}" for k in range(30_000))
                                 + "\n"},
        "numbers-words-line": lambda: {"report.md": "# Report\n\n" + "".join(
            f"{ARMS[k % 5]} 0.{k % 997:03d}, {'accuracy' if k % 3 else 'ZVF'} then " for k in range(30_000)) + "\n"},
        "latex-commands": lambda: {"paper.tex": ("\\label{\\cite{ 0.5 " * 12_000) + "\n"},
        "wide-row": lambda: {"report.md": "# Results\n\n| Arm | " + " | ".join(f"{ARMS[k % 5]} acc" for k in range(20_000))
                             + " |\n|---|" + "---|" * 20_000 + "\n" + "".join(
                                 f"| {ARMS[r]} s1 | " + " | ".join(f"0.{(k * 7 + r) % 1000:03d}" for k in range(20_000))
                                 + " |\n" for r in range(2))},
        "dense-table": lambda: {"report.md": table_head + _fill(_drawn("dense-table", _dense_row), mb)},
        "prose": lambda: {"report.md": "# Results\n\n" + _fill(
            _drawn("prose", lambda rng, i: f"{_sentence(rng)}{_sentence(rng)}\n\n"), mb)},
        "giant-line": lambda: {"report.md": "# Results\n\n" + _fill(_drawn("giant-line", lambda rng, i: _sentence(rng)),
                                                                      mb) + "\n"},
        "comments": lambda: {"report.md": "# Results\n\n" + _fill(_drawn("comments", _comment_line), mb)},
        "nesting": lambda: {"report.md": "# Results\n\n" + _fill(_drawn("nesting", _nested_item), mb)},
        "code": lambda: {"report.md": "# Results\n\n" + _fill(_drawn("code", _code_block), mb)},
        "latex": lambda: {"paper.tex": _fill(_drawn("latex", _paper_block), mb)},
        "mixed": lambda: {"report.md": _fill(_drawn("mixed", _mixed_block), 0.9 * mb),
                          "paper.tex": _fill(_drawn("mixed-tex", _latex_block), 0.1 * mb)},
    }
    assert tuple(build) == SHAPES
    return {name: make() for name, make in build.items() if only is None or name in only}


def _timed(fn, repeats: int, own: list | None = None) -> tuple[list[float], list[float], object]:
    """Wall and CPU seconds of ``fn()``; the CPU counts the audit's worker processes too (a large
    report is traced in forked workers: audit.report_pool), so it is the work done, whatever --jobs;
    ``own`` gets the CPU seconds of this process alone (what no worker took off it)."""
    from audit.engine import cpu_seconds

    walls, cpus, out = [], [], None
    for _ in range(repeats):
        t0, c0, p0 = time.perf_counter(), cpu_seconds(), time.process_time()
        out = fn()
        walls.append(time.perf_counter() - t0)
        cpus.append(cpu_seconds() - c0)
        if own is not None:
            own.append(time.process_time() - p0)
    return walls, cpus, out


def measure(report: Path, files: dict[str, str], repeats: int, parse_only: bool = False,
            jobs: int | None = None) -> dict:
    """Times of markdown-it alone, the parse and the whole audit of ``files`` in ``report``."""
    from markdown_it import MarkdownIt

    from audit.engine import collector_paused, run_audit
    from audit.numbers import parse_report
    from audit.pool import default_jobs

    for p in report.iterdir():
        if p.suffix in (".md", ".tex"):
            p.unlink()
    for name, text in files.items():
        (report / name).write_text(text, encoding="utf-8")
    plain = MarkdownIt("commonmark").enable("table")
    mw, mc = _timed(lambda: [plain.parse(t) for t in files.values()], repeats)[:2]
    with collector_paused():   # as the audit parses: the audit's own pause of the collector
        sw, sc, parsed = _timed(lambda: parse_report(report, lambda p: p.name, 1), repeats)
        pw, pc = _timed(lambda: parse_report(report, lambda p: p.name, jobs or default_jobs()), repeats)[:2]
    nan = [float("nan")]
    own: list[float] = []
    aw, ac = (nan, nan) if parse_only else _timed(lambda: run_audit(report, jobs=jobs), repeats, own)[:2]
    return {"bytes": sum(len(t.encode()) for t in files.values()), "numbers": sum(len(f.mentions) for f in parsed),
            "mdit_cpu": mc, "serial_parse_wall": sw, "serial_parse_cpu": sc, "parse_wall": pw, "parse_cpu": pc,
            "audit_wall": aw, "audit_cpu": ac, "audit_own_cpu": own or nan}


def _ratio(xs: list[float], base: list[float]) -> str:
    """Median and range of the paired ratios xs[i] / base[i] ("0.62 (0.58-0.66)" on one line: no range
    for one repeat)."""
    rs = [x / b for x, b in zip(xs, base, strict=True) if b > 0]
    if not rs:
        return "-"
    med = statistics.median(rs)
    return f"{med:.2f}" if len(rs) == 1 else f"{med:.2f} ({min(rs):.2f}-{max(rs):.2f})"


def _fmt(xs: list[float]) -> str:
    return f"{statistics.median(xs):6.2f} ({min(xs):.2f}-{max(xs):.2f})"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--mb", type=float, default=5.0)
    ap.add_argument("--only", help="comma-separated shapes (default: all)")
    ap.add_argument("--budget", type=float, default=10.0, help="seconds of CPU a shape's audit may take")
    ap.add_argument("--check", action="store_true", help="exit 1 if any shape's median audit CPU is over --budget")
    ap.add_argument("--keep", help="build the campaign here and keep it")
    ap.add_argument("--parse-only", action="store_true", help="time the parse alone (no `audit check`)")
    ap.add_argument("--jobs", type=int, default=None,
                    help="worker processes of `audit check` (default: its own, the CPUs; 1: serial)")
    args = ap.parse_args(argv)
    from audit_scale import report_text

    only = args.only.split(",") if args.only else ["baseline", *SHAPES]
    unknown = [s for s in only if s != "baseline" and s not in SHAPES]
    if unknown:
        ap.error(f"--only: unknown shape {unknown[0]!r} (shapes: baseline, {', '.join(SHAPES)})")
    all_shapes = shapes(args.mb, only)
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="audit_parse_scale_"))
    over = []
    try:
        report = campaign(work)
        from audit.numbers import parse_latex, parse_markdown

        parse_markdown("warm", "warm 1", "warm"), parse_latex("warm", "warm 1", "warm")   # imports, parser setup
        base = measure(report, {"report.md": report_text(work / "c", "scale10")}, args.repeats, args.parse_only,
                       args.jobs)
        ba = statistics.median(base["audit_cpu"])
        print(f"{'shape':19} {'bytes':>9} {'numbers':>8}  {'parse cpu s':>19}  {'parse wall s':>19}  {'x 1 job':>17}  "
              f"{'audit cpu s':>19}  {'own cpu s':>19}  {'audit wall s':>19}  {'x mdit':>6}  {'x base':>6}  "
              f"under {args.budget:g} s",
              flush=True)
        for name in only:
            r = base if name == "baseline" else measure(report, all_shapes[name], args.repeats, args.parse_only, args.jobs)
            cpu = statistics.median(r["parse_cpu" if args.parse_only else "audit_cpu"])
            ok = cpu < args.budget
            if not ok:
                over.append(name)
            print(f"{name:19} {r['bytes']:9d} {r['numbers']:8d}  {_fmt(r['parse_cpu']):>19}  {_fmt(r['parse_wall']):>19}  "
                  f"{_ratio(r['parse_wall'], r['serial_parse_wall']):>17}  {_fmt(r['audit_cpu']):>19}  {_fmt(r['audit_own_cpu']):>19}  "
                  f"{_fmt(r['audit_wall']):>19}  {cpu / statistics.median(r['mdit_cpu']):6.1f}  {cpu / ba:6.1f}  "
                  f"{'yes' if ok else 'NO'}", flush=True)
        print(f"times: median (min-max) over {args.repeats} repeats; parse: with the audit's --jobs (CPU counts the "
              "worker); x 1 job: its wall over the one-process parse of the same files, run just before it (median "
              "ratio, min-max over the repeats); own cpu: the audit's process alone, without its workers (on two idle "
              "cores its wall is at least this, the workers' share of the audit cpu done beside it); x mdit: audit CPU over markdown-it's plain parse of the same text; "
              "x base: over the 7 KB baseline report's audit (same process)")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    if args.check and over:
        print(f"over the {args.budget:g} s budget: {', '.join(over)}")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
