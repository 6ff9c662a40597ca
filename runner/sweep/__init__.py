"""Run every registered unit of a locked study: one after another, K at a time, or on Ray.

Each unit is exactly a ``runner run`` in a child process (``python -m runner.sweep --child``
→ ``runner.cli.main(["run", ...])``), so a sweep has the same refusals as a single run and
its run folders are the same as those of single runs. The child dies with its parent
(``PR_SET_PDEATHSIG``), so a killed sweep driver or Ray worker leaves an interrupted unit,
never an orphan still holding the unit's file lock.

What a sweep does with a unit is decided from disk (see ``runner.status``), once before the
sweep starts and again when the unit's turn comes: complete -> skipped (reported, and not
counted as done, when it was run under another lock); running (lock held by another process)
-> busy, not started (at the unit's turn, e.g. on a retry, it first waits briefly for a
killed attempt to let go); interrupted (a manifest that says running/incomplete, no process on it) -> resumed
by ``runner run`` itself (``runner.resume``: from its last checkpoint, recorded in the
manifest's ``resumes``); failed, or a folder the runner cannot resume -> moved aside, whole,
to ``<out>/<study>/_superseded/<arm>/s<seed>/<UTC stamp>-<state>/`` (nothing written is
lost) and the unit is run afresh.

Bookkeeping lives outside the unit folders, so those stay identical to single runs:
``<out>/<study>/sweep.jsonl`` (one JSON object per event: sweep start/end, skip, attempt with
host and pids, superseded folder, unit end with outcome and error) and the child's
stdout/stderr in ``<out>/<study>/sweep-logs/``. A unit killed by a signal (worker lost, OOM
killer) is retried, at most ``retries`` times in all (Ray's own task retries included, counted
from the attempt events); a unit whose ``runner run`` exits with an error is failed and not
retried, since it would fail the same way.

The package is split by concern: ``model`` (options, outcomes, result), ``log`` (the event
log), ``child`` (one unit as a child process), ``local`` and ``on_ray`` (the executors),
``board`` (live table, progress lines, summary), ``driver`` (``run_sweep``) and ``cli``.
"""

from runner.sweep.child import (
    LOG_DIR,
    PASS_ENV_PREFIXES,
    SUPERSEDED,
    child_main,
    execute_unit,
    finish_unit,
    prepare_unit,
    runner_resumes,
    start_unit,
    unit_command,
)
from runner.sweep.cli import add_sweep_arguments, main, sweep_command
from runner.sweep.driver import run_sweep
from runner.sweep.local import local_slots
from runner.sweep.log import SWEEP_LOG, SweepRecorder, append_event, attempts_of, read_events
from runner.sweep.model import OUTCOMES, SweepOptions, SweepResult, UnitOutcome

__all__ = [
    "LOG_DIR", "OUTCOMES", "PASS_ENV_PREFIXES", "SUPERSEDED", "SWEEP_LOG", "SweepOptions", "SweepRecorder",
    "SweepResult", "UnitOutcome", "add_sweep_arguments", "append_event", "attempts_of", "child_main",
    "execute_unit", "finish_unit", "local_slots", "main", "prepare_unit", "read_events", "run_sweep",
    "runner_resumes", "start_unit", "sweep_command", "unit_command",
]
