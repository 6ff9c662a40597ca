"""``runner sweep`` on the command line: arguments -> SweepOptions -> run_sweep, and the child entry."""

from __future__ import annotations

import argparse
import sys

from prereg.errors import OneLineParser, UserError, run_cli
from prereg.rules import RUNS_DIR
from runner.status import parse_list
from runner.sweep.child import child_main
from runner.sweep.driver import run_sweep
from runner.sweep.model import SweepOptions


def add_sweep_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("lock", help="the study's lock file (locks/<id>.lock.json)")
    p.add_argument("--arms", help="comma-separated subset of the registered arms (default: all)")
    p.add_argument("--seeds", help="comma-separated subset of the registered seeds (default: all)")
    p.add_argument("--executor", default="local", choices=["local", "ray"])
    p.add_argument("--address", help="Ray cluster address (default: start a local Ray for this sweep)")
    p.add_argument("--gpus-per-run", type=float, default=0, help="GPUs per unit (implies runner --device cuda)")
    p.add_argument("--cpus-per-run", type=float, default=None, help="CPUs per unit (Ray resources; threads locally)")
    p.add_argument("--max-parallel", type=int, default=None,
                   help="units at once (default: 1 locally; on Ray as many as the cluster's resources fit)")
    p.add_argument("--out", default=RUNS_DIR, help="runs root, shared storage for Ray (default: runs)")
    p.add_argument("--look", type=int, default=None,
                   help="sequential study: run the seeds of this look (1-based) and no more; a later look "
                        "waits for the earlier look's interim record (`stats interim`)")
    p.add_argument("--retries", type=int, default=2,
                   help="retries of a unit lost to a killed worker/process (default 2); failures are not retried")
    p.add_argument("--no-live", action="store_true", help="no live table (summary only)")
    g = p.add_argument_group("passed to every `runner run` (free settings, recorded in each manifest)")
    g.add_argument("--device", choices=["cpu", "cuda"], default=None,
                   help="default: cuda when --gpus-per-run > 0, else the runner's default (cpu)")
    g.add_argument("--store-text", action="store_true")
    g.add_argument("--require-signature", action="store_true")
    g.add_argument("--trusted-key", action="append", default=None, metavar="PUBKEY")
    from runner.cli import add_sign_argument, add_tracker_arguments

    add_sign_argument(g)
    add_tracker_arguments(g)


def _look_selection(args, arms, seeds):
    """Arms and seeds of ``--look k`` (README failure 19); a sequential study without --look is refused."""
    from prereg.lock import verify_lock
    from prereg.looks import look_units

    lock = verify_lock(args.lock)
    if args.look is None:
        seq = lock.study.analysis.sequential
        if seq is not None:
            raise UserError(f"{args.lock}: a sequential study runs one look at a time: pass --look "
                            f"(looks of {list(seq.looks)} seeds per arm)")
        return arms, seeds
    going, chosen = look_units(lock.study, lock.hash, args.out, lock.study_id, args.look, arms, seeds)
    return [a for a in going if lock.study.arms[a].trained], chosen


def sweep_command(args: argparse.Namespace) -> int:
    """``runner sweep``: exit 0 when every selected unit is complete, 1 otherwise."""
    from runner.options import RunOptions
    from runner.trackers import check_clients

    run = RunOptions.from_args(args, absolute_paths=True)  # the same settings object `runner run` uses
    check_clients(run.report_to)  # one line before any unit starts, not once per unit
    arms, seeds = _look_selection(args, parse_list(args.arms, "--arms"), parse_list(args.seeds, "--seeds", int))
    opts = SweepOptions(
        lock_path=args.lock, out=args.out, arms=arms,
        seeds=seeds, executor=args.executor, address=args.address,
        gpus_per_run=args.gpus_per_run, cpus_per_run=args.cpus_per_run, max_parallel=args.max_parallel,
        retries=args.retries, run=run.with_(sign_key=None), live=not args.no_live, sign_key=args.sign)
    result = run_sweep(opts)
    return 0 if result.ok else 1


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        return child_main(argv[1:])
    p = OneLineParser(prog="runner sweep", description="Run every registered unit of a locked study.")
    add_sweep_arguments(p)
    args = p.parse_args(argv)
    return run_cli(sweep_command, args, interrupted="sweep interrupted; running units are marked incomplete")


if __name__ == "__main__":
    sys.exit(main())
