"""What reading a number in its words costs, as a ratio to parsing the same text: a speed guard, not a timed test.

    .venv/bin/python benchmarks/audit_reading_cost.py [--kb 200] [--repeats 5] [--shapes prose,giant-line]
                                                      [--max-ratio R]

The prose shapes of benchmarks/audit_parse_scale.py (results sentences with means, CIs, p-values and
differences: ``prose`` in paragraphs, ``giant-line`` all on one line; ``comments`` with HTML comments
and pins) are built at ``--kb`` KB over its small analysed campaign. For each shape and repeat, in one
process, it times (CPU seconds, the collector paused as in the audit):

- ``mdit``: markdown-it-py's plain CommonMark parse of the text (the baseline: what a real parser
  costs on those bytes, the same on any machine relative to the rest);
- ``read``: :func:`audit.prose.read_file`, the reading of every prose number in its sentence (arm,
  metric, statistic, pair: README failure 15);
- ``trace``: :func:`audit.trace.trace_in_context` of every number with its reading;

and prints each as microseconds a number and as a ratio to ``mdit`` of the same repeat (median and
min-max over the repeats: a load change moves both sides of a ratio, so the ratio is steadier than
either time on a shared machine). A new reading that doubles the per-number cost doubles ``read / mdit``
whatever the machine; ``--max-ratio R`` exits 1 when a shape's median ``(read + trace) / mdit`` is
over R, for a CI job that wants a guard (README failure 10: any report up to 5 MB audits in seconds).
"""

from __future__ import annotations

import argparse
import functools
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

SHAPES = ("prose", "giant-line", "comments")


def _cpu(fn) -> tuple[float, object]:
    t0 = time.process_time()
    out = fn()
    return time.process_time() - t0, out


def _read_all(files, vocab) -> list[dict]:
    from audit.prose import read_file

    return [read_file(f, vocab) for f in files]


def _trace_all(idx, files, readings, vocab) -> list:
    from audit.trace import TraceMemo, _only_contrast, trace_in_context

    memo = TraceMemo(only=_only_contrast(idx))
    return [trace_in_context(idx, m, r.get(id(m)), vocab, memo) for f, r in zip(files, readings, strict=True)
            for m in f.mentions]


def measure(report: Path, text: str, repeats: int) -> dict[str, list[float]]:
    """CPU seconds of markdown-it's parse, the prose reading and the tracing of ``text`` (written as
    ``report/report.md``), ``repeats`` times each, paired by repeat; plus the count of numbers."""
    from markdown_it import MarkdownIt

    from audit.context import load_context
    from audit.engine import collector_paused
    from audit.numbers import parse_report
    from audit.sources import build_index
    from audit.trace import _vocabulary

    for p in report.iterdir():
        if p.suffix in (".md", ".tex"):
            p.unlink()
    (report / "report.md").write_text(text, encoding="utf-8")
    ctx = load_context(report)
    idx, vocab = build_index(ctx), _vocabulary(ctx)
    plain = MarkdownIt("commonmark").enable("table")
    out: dict[str, list[float]] = {"mdit": [], "read": [], "trace": [], "numbers": []}
    with collector_paused():
        for _ in range(repeats):
            out["mdit"].append(_cpu(lambda: plain.parse(text))[0])
            files = parse_report(report, ctx.rel, 1)   # a fresh parse: no memo of the last repeat's reading
            read, readings = _cpu(functools.partial(_read_all, files, vocab))
            out["read"].append(read)
            out["trace"].append(_cpu(functools.partial(_trace_all, idx, files, readings, vocab))[0])
            out["numbers"].append(sum(len(f.mentions) for f in files))
    return out


def _ratio(xs: list[float], base: list[float]) -> tuple[float, str]:
    rs = [x / b for x, b in zip(xs, base, strict=True) if b > 0]
    med = statistics.median(rs)
    return med, f"{med:6.2f} ({min(rs):.2f}-{max(rs):.2f})"


def _us(xs: list[float], n: int) -> str:
    return f"{statistics.median(xs) / n * 1e6:6.1f} ({min(xs) / n * 1e6:.1f}-{max(xs) / n * 1e6:.1f})"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kb", type=float, default=200.0, help="size of each shape's report in KB")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--shapes", default=",".join(SHAPES), help=f"comma-separated, of {', '.join(SHAPES)}")
    ap.add_argument("--max-ratio", type=float, default=None,
                    help="exit 1 if a shape's median (read + trace) / mdit is over this")
    args = ap.parse_args(argv)
    shapes = args.shapes.split(",")
    bad = [s for s in shapes if s not in SHAPES]
    if bad:
        ap.error(f"--shapes: unknown shape {bad[0]!r} (shapes: {', '.join(SHAPES)})")
    from audit_parse_scale import campaign
    from audit_parse_scale import shapes as build

    texts = build(args.kb / 1000, shapes)
    work = Path(tempfile.mkdtemp(prefix="audit_reading_cost_"))
    over = []
    try:
        report = campaign(work)
        print(f"{'shape':11} {'numbers':>7}  {'mdit us/num':>17}  {'read us/num':>17}  {'trace us/num':>17}  "
              f"{'read / mdit':>17}  {'trace / mdit':>17}  {'(read+trace) / mdit':>19}", flush=True)
        for name in shapes:
            r = measure(report, texts[name]["report.md"], args.repeats)
            n = max(1, r["numbers"][0])
            both = [a + b for a, b in zip(r["read"], r["trace"], strict=True)]
            med, both_s = _ratio(both, r["mdit"])
            if args.max_ratio is not None and med > args.max_ratio:
                over.append(name)
            print(f"{name:11} {n:7d}  {_us(r['mdit'], n):>17}  {_us(r['read'], n):>17}  {_us(r['trace'], n):>17}  "
                  f"{_ratio(r['read'], r['mdit'])[1]:>17}  {_ratio(r['trace'], r['mdit'])[1]:>17}  {both_s:>19}",
                  flush=True)
        print(f"CPU seconds, median (min-max) over {args.repeats} repeats; ratios paired by repeat (same process, "
              "same text)")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if over:
        print(f"(read + trace) / mdit over {args.max_ratio:g}: {', '.join(over)}")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
