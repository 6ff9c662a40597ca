"""``prereg``: scaffold, validate, lint, lock, verify, amend, show and diff preregistrations.

A thin layer over the Python API (``prereg.lock``, ``prereg.lint``, ``prereg.diff``,
``prereg.signing``). Every bad input ends as one ``error: ...`` line on stderr and exit
status 2; nothing already written is overwritten. Heavy imports (scipy for power, rich for
tables) happen only in the commands that need them, so ``prereg lock`` stays instant.
"""

from __future__ import annotations

import argparse
import os
import sys
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from prereg import __version__
from prereg.errors import UserError, run_cli
from prereg.rules import LOCK_DIR

if TYPE_CHECKING:
    from prereg.study import Condition, Study

TEMPLATES = ("e1", "demo")
EXIT_OK, EXIT_DIFFERENT, EXIT_ERROR = 0, 1, 2


# ----------------------------------------------------------------------------- helpers
def template_bytes(name: str) -> bytes:
    """The packaged template: the single source the examples/ copies must equal."""
    if name not in TEMPLATES:
        raise UserError(f"--template: {name!r} is not one of {', '.join(TEMPLATES)}")
    return resources.files("prereg").joinpath("templates", f"{name}.json").read_bytes()


def _out(*lines: str) -> None:
    for line in lines:
        print(line)


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


# ----------------------------------------------------------------------------- commands
def cmd_init(args) -> int:
    from prereg.jsonio import write_atomic

    path = Path(args.path)
    write_atomic(path, template_bytes(args.template), overwrite=False)
    _out(f"wrote {path} (template {args.template}); edit id, title, model, dataset, arms and seeds, "
         f"then `prereg validate {path}` and `prereg lint {path}`")
    return EXIT_OK


def validate_file(path: str | Path) -> list[str]:
    """Every schema error of a preregistration (or of a lock and the preregistration inside it)."""
    from prereg.crossfield import task_errors
    from prereg.diff import read_document
    from prereg.schema import schema_errors

    doc = read_document(path)
    if doc.lock is None:
        return sorted(set(schema_errors(doc.prereg, "preregistration") + task_errors(doc.prereg)))
    errs = schema_errors(doc.lock, "lock")
    errs += [e.replace("$", "$.preregistration", 1) for e in schema_errors(doc.prereg, "preregistration")]
    return sorted(set(errs))


def cmd_validate(args) -> int:
    errs = validate_file(args.file)
    if errs:
        for e in errs:
            print(f"{args.file}: {_one_line(e)}", file=sys.stderr)
        print(f"error: {args.file}: {len(errs)} schema error(s)", file=sys.stderr)
        return EXIT_ERROR
    _out(f"ok: {args.file} is valid")
    return EXIT_OK


def cmd_lint(args) -> int:
    import json

    from prereg.lint import lint_file

    findings = lint_file(args.file)
    if args.json:
        print(json.dumps([f.to_dict() for f in findings], indent=2))
    else:
        for f in findings:
            print(f.line().replace("warning:", "error:", 1) if args.strict else f.line())
    if findings and args.strict:
        print(f"error: {args.file}: {len(findings)} lint finding(s) under --strict", file=sys.stderr)
        return EXIT_ERROR
    if not args.json:
        _out(f"{args.file}: {len(findings)} warning(s)" if findings else f"ok: {args.file}: no lint findings")
    return EXIT_OK


def _print_lock(path: Path) -> None:
    from prereg.jsonio import read_json

    data = read_json(path, "lock")
    _out(f"path: {path}", f"lock_hash: {data['lock_hash']}", f"content_hash: {data['content_hash']}",
         f"version: {data['version']}", f"locked_at: {data['locked_at']}")
    git = data.get("git")
    if git and git.get("dirty"):
        print(f"note: the git tree at {git['commit'][:12]} had uncommitted changes (recorded in the lock)",
              file=sys.stderr)


def cmd_lock(args) -> int:
    from prereg import lock

    _print_lock(lock(args.file, lock_dir=args.lock_dir, key_path=args.sign))
    return EXIT_OK


def cmd_amend(args) -> int:
    from prereg.lock import amend_file

    _print_lock(amend_file(args.file, args.reason, lock_dir=args.lock_dir, key_path=args.sign))
    return EXIT_OK


def _verify(args):
    from prereg import verify
    from prereg.signing import load_public_key_b64

    trusted = [load_public_key_b64(k) for k in args.trusted_key] if args.trusted_key else None
    # Naming a trusted key means an unsigned lock cannot be accepted either.
    return verify(args.lock, require_signature=args.require_signature or trusted is not None,
                  trusted_keys=trusted)


def cmd_verify(args) -> int:
    lock = _verify(args)
    sig = lock.data["signature"]
    signer = f"signed by ed25519:{sig['public_key']}" if sig else "unsigned"
    _out(f"ok: {lock.path}: study {lock.study_id} version {lock.version}, lock_hash {lock.hash}, {signer}")
    if lock.data.get("amends"):
        a = lock.data["amends"]
        _out(f"amends version {a['version']} ({a['lock_hash']}): {a['reason']}; chain verified back to version 1")
    return EXIT_OK


def cmd_keygen(args) -> int:
    from prereg.signing import keygen, load_public_key_b64

    priv, pub = keygen(args.path)
    _out(f"private key: {priv} (keep it secret)", f"public key: {pub}",
         f"fingerprint: ed25519:{load_public_key_b64(pub)}")
    return EXIT_OK


def _fmt(v) -> str:
    from prereg.canonical import canonical_bytes

    return v if isinstance(v, str) else canonical_bytes(v).decode("utf-8")


def cmd_show(args) -> int:
    from rich.console import Console

    lock = _verify(args)
    s = lock.study
    con = Console(file=sys.stdout, highlight=False, soft_wrap=False, width=max(100, Console().width))
    con.print("[bold]verified lock[/bold]")
    con.print(_grid(_lock_rows(lock.data, s)))
    con.print(_arms_table(s))
    con.print("[bold]shared training[/bold]: " + ", ".join(f"{k}={_fmt(v)}" for k, v in s.training.items()))
    e = s.evaluation
    con.print(f"[bold]evaluation[/bold]: {e.decoding}"
              f"{' T=' + _fmt(e.temperature) if e.temperature is not None else ''}, max_new_tokens {e.max_new_tokens},"
              f" batch {e.batch_size}, {e.backend}")
    con.print("[bold]analysis plan[/bold]")
    con.print(_grid(_plan_rows(s)))
    con.print(_hypotheses_table(s))
    return EXIT_OK


def _grid(rows: list[tuple[str, str]]):
    """A two-column key/value grid (bold keys), as ``show`` prints the lock and the plan."""
    from rich.table import Table

    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold")
    grid.add_column()
    for k, v in rows:
        grid.add_row(k, v)
    return grid


def _lock_rows(d: dict, s: Study) -> list[tuple[str, str]]:
    """What was locked, when, by whom (git, signature, amendment) and on what model, data and seeds."""
    sig, git = d["signature"], d["git"]
    rows = [
        ("study", f"{s.id} — {s.title}"),
        ("evidence", s.evidence_class),
        ("version", str(d["version"])),
        ("lock_hash", d["lock_hash"]),
        ("content_hash", d["content_hash"]),
        ("locked_at", d["locked_at"]),
        ("git", f"{git['commit']}{' (dirty)' if git['dirty'] else ''}" if git else "no repository"),
        ("signature", f"ed25519 {sig['public_key']}" if sig else "unsigned"),
    ]
    if d["amends"]:
        a = d["amends"]
        rows.append(("amends", f"version {a['version']} {a['lock_hash']}: {a['reason']}"))
    m, ds = s.model, s.dataset
    return rows + [
        ("model", f"{m.name} @ {m.revision}"),
        ("dataset", f"{ds.name}{'/' + ds.config if ds.config else ''} @ {ds.revision}; "
                    f"train={ds.train_split} held-out={ds.heldout_split} (n={ds.heldout_n})"),
        ("task", s.task.name),
        ("seeds", ", ".join(map(str, s.seeds)) + f"  ({len(s.seeds)})"),
    ]


def _arms_table(s: Study):
    from rich.table import Table

    arms = Table(title="arms (shared training settings + declared changes)", show_lines=False)
    arms.add_column("arm")
    arms.add_column("algorithm")
    arms.add_column("declared changes")
    for name, spec in s.arms.items():
        label = f"{name} (baseline)" if name == s.baseline_arm else name
        if not spec.trained:
            what = next((x for x in (spec.decl.checkpoint, spec.description) if x is not None), "checkpoint not named")
            arms.add_row(label, f"reference, evaluated {spec.decl.evaluated}", f"not trained: {what}")
            continue
        changes = ", ".join(f"{k}={_fmt(v)}" for k, v in sorted(spec.changes.items())) or "(none)"
        arms.add_row(label, spec.algorithm, changes)
    return arms


def _plan_rows(study: Study) -> list[tuple[str, str]]:
    """The analysis plan in words: metric, summaries, contrasts, resampling, multiplicity, margins,
    sequential design, power and the verdict rules in order (read from the typed plan, defaults applied
    in :mod:`prereg.study` only)."""
    a = study.analysis
    mult, s = a.multiplicity, a.arm_summary
    md = study.metrics.get(a.primary_metric)
    pairs = ", ".join(("" if d.confirmatory else "exploratory ") + f"{d.arm} vs {d.baseline}"
                      for d in study.contrasts)
    rows = [
        ("primary metric", f"{a.primary_metric} ({md.unit if md else 'unit not declared'}; "
                           f"inferential unit: {a.unit})"),
        ("per arm", f"{'/'.join(s.statistics)} with {s.level:g} {s.interval} interval"),
        ("contrasts", f"{pairs}: {a.test} ({a.alternative}); intervals "
                      + ", ".join(f"{iv.level:g} {iv.method}" for iv in a.intervals)),
        ("resampling", f"{a.resamples} resamples, rng seed {a.rng_seed}"),
        ("multiplicity", f"{mult.method} at {mult.alpha:g} over {', '.join(mult.family) or '(none)'}"),
    ]
    if a.equivalence_margin is not None:
        rows.append(("equivalence", f"margin ±{a.equivalence_margin:g}"))
    if a.sequential is not None:
        sq = a.sequential
        rows.append(("sequential", f"looks at {', '.join(map(str, sq.looks))} seeds per arm, {sq.spending} "
                                   f"spending, futility {sq.futility}, {sq.small_sample} "
                                   f"(`prereg design` shows the boundaries)"))
    if a.power is not None:
        pw = a.power
        extra = "".join(f", {k} {x:g}" for k, x in (("pilot_sd", pw.pilot_sd), ("effect", pw.effect)) if x is not None)
        rows.append(("power", f"{pw.method}, alpha {pw.alpha:g}, target {pw.target:g}{extra}"))
    verdicts = [f"{v.verdict} when {' and '.join(_cond(x) for x in v.when) or 'otherwise'}"
                for v in a.verdict_rules]
    rows.append(("verdicts", "\n".join(f"{i + 1}. {t}" for i, t in enumerate(verdicts))))
    return rows


def _hypotheses_table(s: Study):
    from rich.table import Table

    hyp = Table(title="hypotheses")
    for col in ("id", "contrast", "metric", "direction", "statement"):
        hyp.add_column(col)
    for h in s.hypotheses:
        hyp.add_row(h.id, f"{h.arm} vs {h.baseline}", h.metric, h.direction, h.statement)
    return hyp


def _cond(c: Condition) -> str:
    parts = [c.check]
    for k in ("level", "value", "fraction"):
        if getattr(c, k) is not None:
            parts.append(f"{k}={getattr(c, k):g}")
    return "(" + " ".join(parts) + ")"


def cmd_design(args) -> int:
    import json

    from prereg.design_table import design_dict, print_design
    from prereg.diff import read_document
    from prereg.schema import require_valid
    from prereg.seqdesign import design, operating, require_usable
    from prereg.study import study_of

    doc = read_document(args.file)
    require_valid(doc.prereg, "preregistration", str(args.file))
    study = study_of(doc.prereg)
    d = design(require_usable(study))
    oc = operating(d)
    if args.json:
        print(json.dumps(design_dict(d, oc), indent=2))
    else:
        print_design(d, oc, study.id)
    return EXIT_OK


def cmd_diff(args) -> int:
    import json

    from prereg.diff import ABSENT, diff_files, format_value

    diffs = diff_files(args.a, args.b)
    if args.json:
        print(json.dumps([{"path": d.path, **({"old": d.old} if d.old is not ABSENT else {}),
                           **({"new": d.new} if d.new is not ABSENT else {})} for d in diffs], indent=2))
    else:
        for d in diffs:
            print(f"{d.path}: {format_value(d.old)} -> {format_value(d.new)}")
        if not diffs:
            print("no differences")
    return EXIT_DIFFERENT if diffs else EXIT_OK


# ----------------------------------------------------------------------------- parser
class _Parser(argparse.ArgumentParser):
    """Usage mistakes become the same one-line error as any other bad input."""

    def error(self, message: str):
        raise UserError(f"{self.prog}: {message}")


def build_parser() -> argparse.ArgumentParser:
    ap = _Parser(prog="prereg", description="Lock a preregistration so that nothing about it can change unseen.")
    ap.add_argument("--version", action="version", version=f"prereg {__version__}")
    sub = ap.add_subparsers(dest="command", required=True, metavar="COMMAND")

    s = sub.add_parser("init", help="scaffold a preregistration from a template (never overwrites)")
    s.add_argument("--template", choices=TEMPLATES, default="demo")
    s.add_argument("path")
    s.set_defaults(fn=cmd_init)

    s = sub.add_parser("validate", help="check a preregistration (or lock) against the schema")
    s.add_argument("file")
    s.set_defaults(fn=cmd_validate)

    s = sub.add_parser("lint", help="report design pitfalls")
    s.add_argument("file")
    s.add_argument("--strict", action="store_true", help="treat findings as errors (exit 2)")
    s.add_argument("--json", action="store_true", help="findings as a JSON list")
    s.set_defaults(fn=cmd_lint)

    s = sub.add_parser("lock", help="canonicalize, hash and write locks/<id>.lock.json")
    s.add_argument("file")
    s.add_argument("--lock-dir", default=LOCK_DIR)
    s.add_argument("--sign", metavar="KEY", help="Ed25519 private key (from `prereg keygen`)")
    s.set_defaults(fn=cmd_lock)

    for name, fn, help_ in (("verify", cmd_verify, "recompute hashes, check signature and amendment chain"),
                            ("show", cmd_show, "verify and summarize a lock")):
        s = sub.add_parser(name, help=help_)
        s.add_argument("lock")
        s.add_argument("--require-signature", action="store_true", help="refuse unsigned locks")
        s.add_argument("--trusted-key", action="append", metavar="PUB",
                       help="accept only signatures by this public key (repeatable; implies --require-signature)")
        s.set_defaults(fn=fn)

    s = sub.add_parser("amend", help="lock a changed preregistration as the next version")
    s.add_argument("file")
    s.add_argument("--reason", required=True)
    s.add_argument("--lock-dir", default=LOCK_DIR)
    s.add_argument("--sign", metavar="KEY")
    s.set_defaults(fn=cmd_amend)

    s = sub.add_parser("keygen", help="write an Ed25519 key pair PATH and PATH.pub")
    s.add_argument("path")
    s.set_defaults(fn=cmd_keygen)

    s = sub.add_parser("design", help="boundaries, power and expected seeds of the sequential design")
    s.add_argument("file", help="a preregistration or lock with analysis.sequential")
    s.add_argument("--json", action="store_true")
    s.set_defaults(fn=cmd_design)

    s = sub.add_parser("diff", help="field-level differences (exit 1 when they differ)")
    s.add_argument("a")
    s.add_argument("b")
    s.add_argument("--json", action="store_true")
    s.set_defaults(fn=cmd_diff)
    return ap


def _dispatch(argv: list[str] | None) -> int:
    try:
        args = build_parser().parse_args(argv)
        return args.fn(args)
    except UserError:
        raise
    except BrokenPipeError:  # output piped into `head`: not an error of the input
        sys.stderr.close()
        return EXIT_OK
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        raise UserError(f"{where}{_one_line(exc.strerror or exc)}") from None
    except Exception as exc:  # a bug; still no traceback for the user unless asked for
        if os.environ.get("PREREG_DEBUG"):
            raise
        print(f"error: internal error ({type(exc).__name__}: {_one_line(exc)}); "
              "rerun with PREREG_DEBUG=1 for the traceback and please report it", file=sys.stderr)
        return EXIT_ERROR


def main(argv: list[str] | None = None) -> int:
    return run_cli(_dispatch, argv, format_error=_one_line)


if __name__ == "__main__":
    sys.exit(main())
