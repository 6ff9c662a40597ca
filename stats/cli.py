"""`stats`: analyze a locked study, render its report, measure interval coverage."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from prereg.errors import OneLineParser, UserError, run_cli

if TYPE_CHECKING:
    from stats.result import AnalysisResult


def _cmd_analyze(args) -> int:
    from stats import analyze

    out = Path(args.output)
    if out.exists():
        raise UserError(f"{out}: already exists; refusing to overwrite (choose another -o)")
    result = analyze(args.lock, args.runs, require_signature=args.require_signature)
    result.write(out)
    _summary(result, out)
    return 0


def _summary(r: AnalysisResult, out: Path) -> None:
    """The analysis in one table on the terminal, read from its typed views (``stats.result``)."""
    from rich.console import Console
    from rich.table import Table

    from stats.result import NO_VERDICT

    con = Console(stderr=False, highlight=False)
    t = Table(title=f"{r.study_id}: {len(r.values)} values -> {out}")
    for col in ("contrast", "diff", "p", "p adj", "verdict"):
        t.add_column(col)

    def f(k):
        x = r.value(k)
        return "n/a" if x is None else (f"{x:.4g}" if not isinstance(x, bool) else str(x))
    for c in r.contrasts:
        res = r.contrast_verdicts.get(c, NO_VERDICT)
        label = " (exploratory)" if res.confirmatory is False else ""
        label += " (deviation: across sessions)" if res.deviation else ""
        t.add_row(c, f(f"contrasts.{c}.diff_mean"), f(f"contrasts.{c}.p"), f(f"contrasts.{c}.p_adjusted"),
                  str(res.verdict) + label)
    for key, res in r.secondary_verdicts.items():  # outside the family: no adjusted p
        pre = f"contrasts.{key}"
        t.add_row(f"{res.contrast} ({res.metric}, secondary)", f(f"{pre}.diff_mean"), f(f"{pre}.p"),
                  "not in family", str(res.verdict))
    con.print(t)
    if r.exploratory:
        con.print("EXPLORATORY study (evidence_class exploratory): no verdict below is confirmatory")
    con.print(f"study verdict: {r.study.verdict} ({len(r.deviations)} deviations, {len(r.excluded)} excluded runs)")
    for d in r.deviations:
        con.print(f"  deviation {d.kind}: {d.detail}", markup=False)
    for w in r.warnings:
        con.print(f"  warning: {w}", markup=False)


def _cmd_interim(args) -> int:
    from stats.interim import interim

    rec = interim(args.lock, args.runs, args.look, require_signature=args.require_signature)
    print(f"look {rec['look']} ({rec['n_seeds']} seeds per arm): {rec['decision']}  [sealed {rec['seal'][:16]}, "
          f"log entry {rec['index']}]")
    for cid, c in rec["contrasts"].items():
        t = "n/a" if c.get("t") is None else f"{c['t']:.3f}"
        bound = "—" if c.get("bound_efficacy") is None else f"{c['bound_efficacy']:.3f}"
        fut = "" if c.get("bound_futility") is None else f", futility below {c['bound_futility']:.3f}"
        carried = " (decided at an earlier look)" if c.get("carried") else ""
        print(f"  {cid}: diff {c['mean_diff']:.4g}, t {t} vs bound {bound}{fut} -> {c['decision']}{carried}")
    return 0


def _cmd_render(args) -> int:
    from stats import render

    for p in render(args.analysis, args.output, runs_root=args.runs, model_cards=args.model_cards,
                    hub_dir=args.hub_dir, lock=args.lock, card_license=args.card_license,
                    figures=not args.no_figures):
        print(p)
    return 0


def _seeds(text: str) -> list[int]:
    try:
        out = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise UserError(f"--seeds: {text!r} is not a comma-separated list of integers") from None
    if not out or any(n < 2 for n in out):
        raise UserError(f"--seeds: need seed counts >= 2, got {text!r}")
    return out


def _cmd_coverage(args) -> int:
    import json

    from rich.console import Console

    from prereg.jsonio import write_atomic
    from stats import coverage

    if args.reps < 10:
        raise UserError("--reps: need at least 10 replications")
    if args.resamples < 100:
        raise UserError("--resamples: need at least 100")
    seeds = _seeds(args.seeds)
    if args.clustered:
        return _clustered(args)
    if args.reference:
        return _reference(args, [1] + seeds if 1 not in seeds else seeds)
    if args.sequential:
        return _sequential(args)
    _refuse_existing(args)
    con = Console(highlight=False, stderr=True)
    with con.status("Monte-Carlo coverage ...") as st:
        tab = coverage.study(seeds, reps=args.reps, resamples=args.resamples, rng_seed=args.rng_seed,
                             progress=lambda d, n: st.update(f"Monte-Carlo coverage ... {d} n={n} done"))
    md = coverage.to_markdown(tab)
    _emit(args, tab, md)
    if args.write_table:  # the clustered study (--clustered --write-table) is kept
        old = coverage.load_table() or {}
        if "clustered" in old:
            tab["clustered"] = old["clustered"]
        write_atomic(coverage.TABLE_PATH, json.dumps(tab, indent=1, sort_keys=True) + "\n", overwrite=True)
        print(f"wrote {coverage.TABLE_PATH}")
    return 0


def _sequential(args) -> int:
    """`stats coverage --sequential`: type I error of each small-sample correction (README failure 19)."""
    import math

    from rich.console import Console
    from rich.table import Table

    from prereg.seqdesign import SMALL_SAMPLE, SequentialPlan, design
    from prereg.sequential import Spec
    from prereg.sequential_sim import simulate

    reps = args.reps * 50
    t = Table(title=f"Type I error of the sequential paired-t procedure, two-sided 0.05 ({reps} studies per cell, "
                    f"MC s.e. ~{math.sqrt(0.05 * 0.95 / reps):.4f}); benchmarks/sequential_sim.py is the full table")
    for col in ("looks (seeds per arm)", "spending", *SMALL_SAMPLE):
        t.add_column(col, justify="right")
    for looks in ((3, 6), (4, 6, 8), (3, 4, 5, 6, 7, 8)):
        for fn in ("obrien_fleming", "pocock"):
            row = []
            for corr in SMALL_SAMPLE:
                plan = SequentialPlan(looks, Spec(fn), corr, max(reps, 200_000), "stagewise", 0.05, 2, 1, args.rng_seed,
                                      ("a-b",), None, None)
                d = design(plan)
                r = simulate(looks, d.t_upper, d.t_futility, reps=reps, seed=[args.rng_seed, 99])
                row.append(f"{r.reject:.4f}")
            t.add_row(", ".join(map(str, looks)), fn, *row)
    Console(highlight=False).print(t)
    return 0


def _clustered(args) -> int:
    """`stats coverage --clustered`: type I error of each item-level method (README failure 17)."""
    from prereg.jsonio import write_atomic
    from stats import coverage
    from stats import coverage_items as ci

    _refuse_existing(args)
    tab = ci.null_study(reps=args.reps, resamples=args.resamples, rng_seed=args.rng_seed,
                        resampled_reps=args.resampled_reps)
    md = ci.to_markdown(tab)
    _emit(args, tab, md)
    if args.write_table:
        import json

        table = coverage.load_table() or {}
        table["clustered"] = tab
        write_atomic(coverage.TABLE_PATH, json.dumps(table, indent=1, sort_keys=True) + "\n", overwrite=True)
        print(f"wrote the clustered study into {coverage.TABLE_PATH}")
    return 0



def _refuse_existing(args) -> None:
    """A coverage table never replaces a file the user named (--json, --md): checked before the
    minutes of simulation, not after."""
    for p in (args.json, args.md):
        if p and Path(p).exists():
            raise UserError(f"{p}: already exists; refusing to overwrite")


def _emit(args, tab: dict, md: str) -> None:
    """Print a coverage table and write it where --json / --md say."""
    from prereg.jsonio import dumps_pretty, write_atomic

    print(md)
    if args.json:
        write_atomic(args.json, dumps_pretty(tab), overwrite=False)
    if args.md:
        write_atomic(args.md, md, overwrite=False)

def _reference(args, seeds: list[int]) -> int:
    """`stats coverage --reference`: the reference-contrast methods (README failure 16)."""
    from stats import coverage_reference as cr

    _refuse_existing(args)
    tab = cr.study(tuple(seeds), reps=args.reps, resamples=args.resamples, rng_seed=args.rng_seed)
    md = cr.to_markdown(tab)
    _emit(args, tab, md)
    return 0


def build_parser() -> argparse.ArgumentParser:
    ap = OneLineParser(prog="stats", description="Execute exactly the locked analysis plan.")
    sub = ap.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("analyze", help="run the locked analysis over run folders or an imported table")
    a.add_argument("lock", help="lock file (locks/<study>.lock.json)")
    a.add_argument("runs", help="runs folder, or a .csv/.jsonl table of per-seed or per-item results")
    a.add_argument("-o", "--output", default="report/analysis.json", help="analysis.json to write (never replaced)")
    a.add_argument("--require-signature", action="store_true", help="refuse an unsigned lock")
    a.set_defaults(fn=_cmd_analyze)
    i = sub.add_parser("interim", help="take the next registered look of a sequential study (sealed record)")
    i.add_argument("lock", help="lock file with analysis.sequential")
    i.add_argument("runs", help="runs folder")
    i.add_argument("--look", type=int, default=None, help="1-based look (default: the next one)")
    i.add_argument("--require-signature", action="store_true", help="refuse an unsigned lock")
    i.set_defaults(fn=_cmd_interim)
    from stats.render import RENDERING

    r = sub.add_parser("render", help="report.md, results.tex and figures from analysis.json",
                       formatter_class=argparse.RawDescriptionHelpFormatter, epilog=RENDERING)
    r.add_argument("analysis")
    r.add_argument("-o", "--output", default="report", help="output folder (existing files are never replaced)")
    r.add_argument("--runs", default=None, help="runs folder for telemetry curves (default: the analysed one)")
    r.add_argument("--no-figures", action="store_true",
                   help="write report.md and results.tex only, no PNGs (headless/CI pipelines; much faster)")
    r.add_argument("--model-cards", action="store_true",
                   help="also write a Hugging Face model card per run and one for the study (<output>/model_cards/)")
    r.add_argument("--hub-dir", default=None, metavar="OUT",
                   help="also lay out one upload-ready folder per run in OUT (adapter, card, manifest, telemetry, "
                        "traces); implies --model-cards; nothing is uploaded")
    r.add_argument("--lock", default=None, help="lock file for the cards (default: analysis.json $.lock.path)")
    r.add_argument("--card-license", default=None, metavar="ID",
                   help="license id for the cards' metadata (e.g. apache-2.0; default: other, linking the base "
                        "model's terms)")
    r.set_defaults(fn=_cmd_render)
    c = sub.add_parser("coverage", help="Monte-Carlo coverage of every interval method")
    c.add_argument("--reps", type=int, default=2000, help="Monte-Carlo replications per cell (default 2000)")
    c.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples per interval (default 1000)")
    c.add_argument("--seeds", default="3,5,8,20", help="comma-separated seed counts (default 3,5,8,20)")
    c.add_argument("--rng-seed", type=int, default=20260714, help="seed of the study's generators")
    c.add_argument("--json", default=None, help="also write the table as JSON")
    c.add_argument("--md", default=None, help="also write the table as markdown")
    c.add_argument("--sequential", action="store_true",
                   help="type I error of group-sequential paired-t designs at 3-8 seeds per look, per "
                        "small-sample correction (analysis.sequential.small_sample)")
    c.add_argument("--clustered", action="store_true",
                   help="instead: type I error of the item-level methods under the clustered null "
                        "(8 seeds x 500 shared items, sigma 0-0.4)")
    c.add_argument("--reference", action="store_true",
                   help="instead: coverage of the reference-contrast methods (a trained arm over 1 and --seeds seeds "
                        "vs a reference evaluated once on 162 shared items; seed SD 0 and 0.3)")
    c.add_argument("--resampled-reps", type=int, default=None,
                   help="with --clustered: replications for the bootstrap methods (default --reps)")
    c.add_argument("--write-table", action="store_true", help="replace the table shipped in stats/coverage_table.json")
    c.set_defaults(fn=_cmd_coverage)
    return ap


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return run_cli(args.fn, args)


if __name__ == "__main__":
    sys.exit(main())
