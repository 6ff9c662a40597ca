"""``audit check REPORT_DIR``: exit 0 when nothing is wrong, 1 with findings, 2 on bad usage."""

from __future__ import annotations

import argparse
import sys

from prereg.errors import OneLineParser, UserError, run_cli
from prereg.jsonio import write_atomic


def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(prog="audit", description="Check a study's records and report against its lock.")
    sub = p.add_subparsers(dest="cmd", required=True, parser_class=OneLineParser)
    c = sub.add_parser("check", help="run every check over a report folder")
    c.add_argument("report_dir", help="folder holding analysis.json and report .md/.tex files")
    c.add_argument("--lock", help="lock file (default: analysis.json $.lock.path)")
    c.add_argument("--runs", help="runs folder (default: from analysis.json $.inputs)")
    c.add_argument("--json", dest="json_out", help="write machine-readable findings here")
    c.add_argument("--html", dest="html_out", help="write a self-contained HTML page here")
    c.add_argument("--strict", action="store_true",
                   help="untraced report numbers are findings, and warnings fail the audit")
    c.add_argument("--trusted-key", action="append", default=None, metavar="PUB",
                   help="Ed25519 public key (PEM) the lock must be signed with; repeatable")
    c.add_argument("--trusted-run-key", action="append", default=None, metavar="PUB",
                   help="Ed25519 public key (PEM) of a machine or cluster that ran the study (runner --sign); "
                        "every confirmatory run and sweep-log event must be signed by one; repeatable")
    c.add_argument("--only", action="append", default=None, metavar="CHECK", help="run only this check id or name")
    c.add_argument("--jobs", default=None, metavar="N",
                   help="worker processes checking the runs of a large campaign (default: $RLPREREG_AUDIT_JOBS, "
                        "else the CPUs available); the findings do not depend on it")
    c.add_argument("--plain", action="store_true", help="plain text even in a terminal")
    c.add_argument("--all", dest="show_all", action="store_true",
                   help="list the findings that follow from a root cause too (by default they are counted)")
    return p


def _may_write(out_path: str, marker: str) -> None:
    """Only ever replace an earlier audit output: never lose a file someone else wrote."""
    from pathlib import Path

    p = Path(out_path)
    if p.is_dir():
        raise UserError(f"{out_path}: is a folder; give a file name")
    if not p.parent.is_dir():  # create nothing the user did not name as output
        raise UserError(f"{out_path}: folder {p.parent} does not exist (create it first)")
    if p.exists():
        try:
            head = p.read_text(encoding="utf-8", errors="replace")[:4096]
        except OSError as exc:
            raise UserError(f"{out_path}: cannot read ({exc.strerror})") from None
        if marker not in head:
            raise UserError(f"{out_path}: exists and is not an earlier audit output; refusing to overwrite")


def _check(args: argparse.Namespace) -> int:
    from audit import check
    from audit.output import plain_text, rich_print, to_html, to_json
    from audit.pool import check_jobs

    keys = None
    if args.trusted_key:
        from prereg.signing import load_public_key_b64

        keys = [load_public_key_b64(k) for k in args.trusted_key]
    run_keys = None
    if args.trusted_run_key:
        from prereg.signing import load_public_key_b64

        run_keys = [load_public_key_b64(k) for k in args.trusted_run_key]
    for out_path, marker in ((args.json_out, '"audit_format"'), (args.html_out, "<!-- rlprereg-audit -->")):
        if out_path:
            _may_write(out_path, marker)
    result = check(args.report_dir, lock=args.lock, runs=args.runs, strict=args.strict,
                       trusted_keys=keys, only=args.only, trusted_run_keys=run_keys,
                       jobs=None if args.jobs is None else check_jobs(args.jobs))
    if args.json_out:
        write_atomic(args.json_out, to_json(result), make_parents=False)
    if args.html_out:
        write_atomic(args.html_out, to_html(result), make_parents=False)
    if sys.stdout.isatty() and not args.plain:
        rich_print(result, show_all=args.show_all)
    else:
        sys.stdout.write(plain_text(result, show_all=args.show_all))
    return result.exit_code


def main(argv: list[str] | None = None) -> int:
    return run_cli(_check, build_parser().parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())
