"""Where each registered unit of a study stands, read from the run folders alone.

A unit's state comes from disk, never from a sweep's memory, so ``runner status`` tells the
same story on any node that sees the shared ``--out``: ``running`` means some process holds
the unit's file lock right now (the lock, not the manifest, is the truth: a worker killed
mid-run leaves a manifest that still says "running"); otherwise the manifest's status, with a
manifest that says running but whose lock is free read as ``incomplete`` (interrupted); a
folder without a manifest but with files is ``incomplete``; no folder (or only the lock file)
is ``missing``.

Nothing here writes: the lock probe opens the existing lock file read-only and takes a
shared, non-blocking flock for an instant, and a unit folder that does not exist is not
created.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

from prereg.errors import OneLineParser, UserError, run_cli
from prereg.lock import Lock, verify_lock
from prereg.records import MANIFEST, TELEMETRY, read_run, seal_of, unit_dir
from prereg.rules import RUNS_DIR

LOCK_NAME = ".unit.lock"  # the runner's unit lock (runner/unit.py)
STATES = ("complete", "running", "failed", "incomplete", "missing")


@dataclass
class UnitStatus:
    """One unit as found on disk; ``detail`` says anything odd (other lock, broken seal...)."""

    arm: str
    seed: int | None  # None: a reference evaluated once
    path: str
    state: str
    manifest_status: str | None = None
    steps: int = 0
    max_steps: int | None = None
    evidence_class: str | None = None
    seal: str | None = None
    lock_hash_matches: bool | None = None
    detail: str = ""

    @property
    def done(self) -> bool:
        return self.state == "complete"


def lock_held(run_dir: str | Path) -> bool:
    """True when a process holds the unit's flock (works across nodes on NFS-style storage)."""
    path = Path(run_dir) / LOCK_NAME
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)


def count_lines(path: Path) -> int:
    try:
        with open(path, "rb") as fh:
            return sum(1 for line in fh if line.strip())
    except OSError:
        return 0


def unit_status(run_dir: str | Path, arm: str, seed: int | None, *, lock: Lock | None = None,
                max_steps: int | None = None) -> UnitStatus:
    """The state of one unit folder (see the module docstring for the rules)."""
    run_dir = Path(run_dir)
    st = UnitStatus(arm=arm, seed=seed, path=str(run_dir), state="missing", max_steps=max_steps)
    if not run_dir.is_dir():
        return st
    st.steps = count_lines(run_dir / TELEMETRY)
    held = lock_held(run_dir)
    if (run_dir / MANIFEST).exists():
        try:
            run = read_run(run_dir)
        except UserError as exc:
            st.state = "running" if held else "incomplete"
            st.detail = f"unreadable manifest: {exc}"
            return st
        m = run.manifest
        st.manifest_status = m["status"]
        st.evidence_class = m["evidence_class"]
        st.seal = m["seal"]
        if lock is not None:
            st.lock_hash_matches = m["lock"]["hash"] == lock.hash
        notes = []
        if seal_of(m) != m["seal"]:
            notes.append("seal does not match the manifest")
        if st.lock_hash_matches is False:
            notes.append(f"ran under another lock (v{m['lock']['version']}, {m['lock']['hash'][:12]})")
        if m["arm"] != arm or m["seed"] != seed:
            notes.append(f"manifest names {m['arm']}/s{m['seed']}")
        if m["status"] != "complete" and m.get("error"):
            notes.append(str(m["error"]).splitlines()[0][:200])
        if held:
            st.state = "running"
        elif m["status"] == "running":
            st.state = "incomplete"
            notes.append("interrupted (manifest says running, no process holds the unit)")
        else:
            st.state = m["status"]
        st.detail = "; ".join(notes)
        return st
    if held:
        st.state = "running"
        return st
    others = [p.name for p in run_dir.iterdir() if p.name != LOCK_NAME]
    if others:
        st.state = "incomplete"
        st.detail = "no manifest"
    return st


def registered_units(lock: Lock, arms: list[str] | None = None,
                     seeds: list[int] | None = None) -> list[tuple[str, int]]:
    """(arm, seed) pairs the runner trains, optionally filtered; a filter outside the lock is refused.

    Reference arms (a base model, an SFT checkpoint; README failure 16) are never run: the
    runner does not train them, so they are not units of a sweep, and naming one is refused.
    """
    study = lock.study
    if arms is not None:
        ref = [a for a in arms if a in study.arms and not study.arms[a].trained]
        if ref:
            raise UserError(f"--arms: {ref[0]!r} is a reference arm of {lock.path}: the runner does not train "
                            "reference arms (evaluate one with `runner evaluate --arm ARM`)")
    reg_arms = list(study.trained_arms)
    reg_seeds = list(study.seeds)
    if arms is not None:
        bad = [a for a in arms if a not in reg_arms]
        if bad:
            raise UserError(f"--arms: {bad[0]!r} is not registered in {lock.path} (registered: {', '.join(reg_arms)})")
    if seeds is not None:
        bad = [s for s in seeds if s not in reg_seeds]
        if bad:
            raise UserError(
                f"--seeds: {bad[0]} is not registered in {lock.path} "
                f"(registered: {', '.join(str(s) for s in reg_seeds)})"
            )
    arm_list = [a for a in reg_arms if arms is None or a in arms]
    seed_list = [s for s in reg_seeds if seeds is None or s in seeds]
    return [(a, s) for a in arm_list for s in seed_list]


def study_status(lock: Lock, out: str | Path = RUNS_DIR, arms: list[str] | None = None,
                 seeds: list[int] | None = None) -> list[UnitStatus]:
    units = []
    for arm, seed in registered_units(lock, arms, seeds):
        max_steps = lock.study.arms[arm].training.max_steps if arm in lock.study.arms else None
        units.append(unit_status(unit_dir(out, lock.study_id, arm, seed), arm, seed, lock=lock, max_steps=max_steps))
    if arms is None:  # reference evaluations (runner evaluate; README failure 16), listed after the trained units
        from prereg.declarations import registered_evaluations

        refs = {a for a, spec in lock.study.arms.items() if not spec.trained}
        for arm, seed in registered_evaluations(lock.study):
            if arm in refs and (seed is None and seeds is None or seed is not None and (seeds is None or seed in seeds)):
                st = unit_status(unit_dir(out, lock.study_id, arm, seed), arm, seed, lock=lock)
                st.detail = "; ".join(x for x in ("reference: runner evaluate --arm " + arm
                                                  + ("" if seed is None else f" --seed {seed}"), st.detail) if x)
                units.append(st)
    return units


def counts(units: list[UnitStatus]) -> dict[str, int]:
    c = dict.fromkeys(STATES, 0)
    for u in units:
        c[u.state] = c.get(u.state, 0) + 1
    c["total"] = len(units)
    return c


STATE_STYLE = {"complete": "green", "running": "cyan", "failed": "red", "incomplete": "yellow",
               "missing": "dim", "queued": "dim", "skipped": "green", "lost": "magenta", "other_lock": "yellow",
               "busy": "cyan", "interrupted": "yellow", "not_started": "dim"}


def status_table(units: list[UnitStatus], title: str | None = None):
    from rich.table import Table

    t = Table(title=title)
    for col in ("arm", "seed", "state", "steps", "detail"):
        t.add_column(col, overflow="fold")
    for u in units:
        steps = f"{u.steps}/{u.max_steps}" if u.max_steps is not None else str(u.steps)
        style = STATE_STYLE.get(u.state, "")
        t.add_row(u.arm, "once" if u.seed is None else str(u.seed), f"[{style}]{u.state}[/]" if style else u.state,
                  steps, u.detail)
    return t


def parse_list(text: str | None, what: str, conv=str) -> list | None:
    if text is None:
        return None
    items = [x.strip() for x in text.split(",") if x.strip()]
    if not items:
        raise UserError(f"{what}: empty list")
    try:
        return [conv(x) for x in items]
    except ValueError:
        raise UserError(f"{what}: {text!r} is not a comma-separated list of integers") from None


def add_status_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("lock", help="the study's lock file (locks/<id>.lock.json)")
    p.add_argument("--out", default=RUNS_DIR, help="runs root (default: runs)")
    p.add_argument("--arms", help="comma-separated subset of registered arms")
    p.add_argument("--seeds", help="comma-separated subset of registered seeds")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")


def status_command(args: argparse.Namespace) -> int:
    """``runner status``: exit 0 always when the lock reads (status is information, not a verdict)."""
    lock = verify_lock(args.lock)
    units = study_status(lock, args.out, parse_list(args.arms, "--arms"), parse_list(args.seeds, "--seeds", int))
    c = counts(units)
    if args.json:
        doc = {"study_id": lock.study_id, "lock_hash": lock.hash, "out": str(args.out), "counts": c,
               "units": [asdict(u) for u in units]}
        sys.stdout.write(json.dumps(doc, indent=2, sort_keys=True) + "\n")
        return 0
    from rich.console import Console

    console = Console()
    console.print(status_table(units, title=f"{lock.study_id} (lock v{lock.version} {lock.hash[:12]}) in {args.out}"))
    console.print("  ".join(f"{k}: {c[k]}" for k in (*STATES, "total")))
    return 0


def main(argv: list[str] | None = None) -> int:
    """Standalone entry (``python -m runner.status``) until ``runner status`` is wired into runner.cli."""
    p = OneLineParser(prog="runner status", description="Which units of a locked study are done.")
    add_status_arguments(p)
    args = p.parse_args(argv)
    return run_cli(status_command, args)


if __name__ == "__main__":
    sys.exit(main())
