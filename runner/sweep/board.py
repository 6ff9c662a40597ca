"""What a person watching a sweep sees: the live table, progress lines, and the summary."""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass
from pathlib import Path

from prereg.records import TELEMETRY
from runner.status import STATE_STYLE, count_lines
from runner.sweep.model import SweepResult, UnitOutcome


class Board:
    """The live table: one row per unit, steps read from the unit's telemetry as it grows."""

    def __init__(self, study: str, specs: list[dict], outcomes: dict, max_steps: dict):
        self.study, self.specs, self.outcomes, self.max_steps = study, specs, outcomes, max_steps
        self.started: dict = {}

    def _row(self, spec: dict, now: float) -> tuple[str, ...]:
        key = (spec["arm"], spec["seed"])
        u = self.outcomes[key]
        steps = count_lines(Path(spec["run_dir"]) / TELEMETRY) if u.outcome in ("running", "complete") else ""
        if steps != "":
            steps = f"{steps}/{self.max_steps.get(spec['arm'], '?')}"
        secs = now - self.started[key] if u.outcome == "running" and key in self.started else u.seconds
        style = STATE_STYLE.get(u.outcome, "")
        return (spec["arm"], str(spec["seed"]), f"[{style}]{u.outcome}[/]" if style else u.outcome,
                str(u.attempts or ""), str(steps), f"{secs:.0f}s" if secs else "", u.host or "",
                (u.error or "")[:120])

    def __rich__(self):
        from rich.table import Table

        t = Table(title=f"sweep {self.study}")
        for col in ("arm", "seed", "state", "try", "steps", "time", "host", "note"):
            t.add_column(col, overflow="fold")
        now = time.monotonic()
        for spec in self.specs:
            t.add_row(*self._row(spec, now))
        return t


@dataclass
class PlainProgress:
    """Outside a terminal a live table only appears at the end; print one line per finished unit
    instead, so a long sweep shows progress in logs and CI."""

    console: object
    total: int
    done: int = 0

    def __call__(self, u: UnitOutcome) -> None:
        self.done += 1
        secs = f" in {u.seconds:.0f}s" if u.seconds else ""
        self.console.print(f"[{self.done}/{self.total}] {u.arm}/s{u.seed}: {u.outcome}{secs}"
                           + (f" - {u.error}" if u.error else ""), highlight=False, markup=False)


@contextlib.contextmanager
def live(board: Board, console, enabled: bool):
    """Redraw ``board`` twice a second while the body runs (nothing when not enabled)."""
    if not enabled:
        yield
        return
    from rich.live import Live

    with Live(board, console=console, refresh_per_second=2, transient=False):
        yield


def print_summary(result: SweepResult, console) -> None:
    """One line of counts, then one line per unit that is neither complete nor skipped."""
    c = result.counts()
    console.line()
    console.print(f"sweep {result.sweep_id}: " + "  ".join(f"{k} {v}" for k, v in c.items() if v)
                  + f"  (log: {result.log_path})")
    for u in result.units:
        if u.outcome not in ("complete", "skipped"):
            console.print(f"  {u.arm}/s{u.seed}: {u.outcome}" + (f" - {u.error}" if u.error else ""))
