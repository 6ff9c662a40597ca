"""``runner``: the console script that trains registered units of a locked study.

Thin over :func:`runner.train.run_unit`. Subcommands register themselves through
``SUBCOMMANDS`` (name -> (add_arguments, handler)), so ``sweep`` and ``status`` slot in
without touching ``run``. No flag exists for any scientific setting: those come only from
the lock.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from prereg.errors import OneLineParser, run_cli
from prereg.rules import RUNS_DIR


def _add_run(p: argparse.ArgumentParser) -> None:
    p.add_argument("--arm", required=True, help="registered arm name (see the lock's arms)")
    p.add_argument("--seed", required=True, type=int, help="registered seed")
    p.add_argument("--lock", default=None,
                   help="lock file (default: the latest version of the only study in ./locks)")
    p.add_argument("--out", default=RUNS_DIR, help="runs folder (default runs/); the unit is <out>/<study>/<arm>/s<seed>")
    p.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    p.add_argument("--store-text", action="store_true", help="also store prompt and completion text in traces")
    p.add_argument("--exploratory", action="store_true",
                   help="run an unregistered arm/seed or despite refused overrides; the record says exploratory")
    p.add_argument("--require-signature", action="store_true", help="refuse an unsigned lock")
    p.add_argument("--trusted-key", action="append", default=None, metavar="PUBKEY",
                   help="accept only signatures by this public key (repeatable)")
    p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    p.add_argument("--sweep-id", default=None, help=argparse.SUPPRESS)  # set by `runner sweep` (settings.sweep_id)
    add_sign_argument(p)
    add_tracker_arguments(p)
    add_session_argument(p)


def _add_evaluate(p: argparse.ArgumentParser) -> None:
    p.add_argument("--arm", required=True, help="registered reference arm (kind: reference)")
    p.add_argument("--seed", type=int, default=None,
                   help="registered seed, only for a reference evaluated per seed (evaluated: per_seed)")
    p.add_argument("--lock", default=None,
                   help="lock file (default: the latest version of the only study in ./locks)")
    p.add_argument("--out", default=RUNS_DIR,
                   help="runs folder (default runs/); the unit is <out>/<study>/<arm>/once or .../s<seed>")
    p.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    p.add_argument("--require-signature", action="store_true", help="refuse an unsigned lock")
    p.add_argument("--trusted-key", action="append", default=None, metavar="PUBKEY",
                   help="accept only signatures by this public key (repeatable)")
    p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    add_session_argument(p)
    add_sign_argument(p)


def add_session_argument(p: argparse.ArgumentParser) -> None:
    """``--session NAME``: the evaluation session (batch), a free setting recorded in the manifest."""
    p.add_argument("--session", default=None, metavar="NAME",
                   help="evaluation session (batch) of this unit, recorded in the manifest; stats forms contrasts "
                        "within a session and states a cross-session contrast as a deviation")


def _evaluate(args: argparse.Namespace) -> int:
    _quiet_libraries()
    from runner.reference import evaluate_reference

    run_dir = evaluate_reference(args.lock, args.arm, args.seed, args.out, device=args.device,
                                 quiet=args.quiet,
                                 require_signature=args.require_signature, trusted_keys=args.trusted_key,
                                 sign_key=args.sign, session=args.session)
    print(run_dir)
    return 0


def add_sign_argument(p: argparse.ArgumentParser) -> None:
    """``--sign KEY``, shared by ``runner run`` and ``runner sweep``."""
    p.add_argument("--sign", default=None, metavar="KEY",
                   help="Ed25519 private key (prereg keygen) of this machine or cluster: signs each manifest's "
                        "seal, for `audit check --trusted-run-key`")


def add_tracker_arguments(p: argparse.ArgumentParser) -> None:
    """``--report-to`` and ``--tensorboard-dir``: free settings shared by ``runner run`` and ``runner sweep``."""
    p.add_argument("--report-to", action="append", default=None, metavar="TRACKER",
                   help="experiment tracker(s): none (default), wandb, mlflow, trackio, tensorboard; repeatable or "
                        "comma-separated. A free setting: recorded in the manifest, never in the config or traces")
    p.add_argument("--tensorboard-dir", default=None, metavar="DIR",
                   help="root of TensorBoard event folders (default ./tensorboard; <DIR>/<study>/<arm>/s<seed>)")


def _run(args: argparse.Namespace) -> int:
    _quiet_libraries()
    from runner import run_unit
    from runner.options import RunOptions

    opts = RunOptions.from_args(args)  # the same settings object `runner sweep` passes to each unit
    run_dir = run_unit(args.lock, args.arm, args.seed, args.out, exploratory=args.exploratory, quiet=args.quiet,
                       sweep_id=args.sweep_id, session=args.session, **opts.run_unit_kwargs())
    print(run_dir)
    return 0


def _quiet_libraries() -> None:
    import logging
    import warnings

    warnings.filterwarnings("ignore", category=FutureWarning)
    warnings.filterwarnings("ignore", category=UserWarning)
    for name in ("transformers", "trl", "peft", "accelerate", "datasets"):
        logging.getLogger(name).setLevel(logging.ERROR)
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()


SUBCOMMANDS: dict[str, tuple[Callable[[argparse.ArgumentParser], None], Callable[[argparse.Namespace], int], str]] = {
    "run": (_add_run, _run, "train one registered (arm, seed) of a locked study and seal its record"),
}


def _add_sweep(p: argparse.ArgumentParser) -> None:
    from runner.sweep import add_sweep_arguments

    add_sweep_arguments(p)


def _sweep(args: argparse.Namespace) -> int:
    from runner.sweep import sweep_command

    return sweep_command(args)


def _add_status(p: argparse.ArgumentParser) -> None:
    from runner.status import add_status_arguments

    add_status_arguments(p)


def _status(args: argparse.Namespace) -> int:
    from runner.status import status_command

    return status_command(args)


SUBCOMMANDS["evaluate"] = (_add_evaluate, _evaluate, "evaluate a reference arm (base model, SFT or other "
                           "checkpoint) on the held-out split without training it, and seal its record")
SUBCOMMANDS["sweep"] = (_add_sweep, _sweep, "run every registered unit of a locked study, locally or on Ray")
SUBCOMMANDS["status"] = (_add_status, _status, "which units of a locked study are complete, running, failed, missing")


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="runner", description="Run registered units of a locked RL study.")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, (add, _, help_text) in SUBCOMMANDS.items():
        add(sub.add_parser(name, help=help_text, description=help_text))
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # usage errors (one line, 2) and --help (0)
        return exc.code if isinstance(exc.code, int) else 2
    return run_cli(SUBCOMMANDS[args.command][1], args,
                   interrupted="interrupted; the unit's manifest is marked incomplete")


if __name__ == "__main__":
    sys.exit(main())
