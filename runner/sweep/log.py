"""The sweep log, ``<out>/<study>/sweep.jsonl``: one JSON object per event, appended under a file lock.

Bookkeeping lives here, outside the unit folders, so those stay identical to single runs.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from prereg.jsonio import make_dirs
from prereg.lock import utc_now
from runner.sweep.model import UnitOutcome

SWEEP_LOG = "sweep.jsonl"


def append_event(log_path: str | Path, event: dict, key_path: str | Path | None = None) -> None:
    """One hash-chained JSON line per event (:mod:`prereg.chainlog`), appended under a file lock
    (safe across nodes on shared storage); signed with ``key_path`` (``runner sweep --sign``)."""
    from filelock import FileLock

    from prereg.chainlog import append_chained

    log_path = Path(log_path)
    make_dirs(log_path.parent)
    key = None
    if key_path is not None:
        from prereg.signing import load_private_key

        key = load_private_key(key_path)
    with FileLock(str(log_path) + ".lock"):
        append_chained(log_path, {"t": utc_now(), **event}, key)


def read_events(log_path: str | Path, sweep_id: str | None = None) -> list[dict]:
    """Every event of the log (of one sweep when ``sweep_id`` is given); a torn last line is dropped."""
    log_path = Path(log_path)
    if not log_path.exists():
        return []
    events = []
    with open(log_path, encoding="utf-8") as fh:
        for line in fh:
            line = line.strip()
            if not line:
                continue
            try:
                ev = json.loads(line)
            except json.JSONDecodeError:
                continue  # a torn last line from a node that died mid-write
            if sweep_id is None or ev.get("sweep") == sweep_id:
                events.append(ev)
    return events


def attempts_of(log_path: str | Path, sweep_id: str, arm: str, seed: int) -> int:
    """Attempts of one unit in one sweep, counted from the log (so Ray's own retries count too)."""
    return sum(1 for ev in read_events(log_path, sweep_id)
               if ev.get("event") == "attempt" and ev.get("arm") == arm and ev.get("seed") == seed)


@dataclass
class SweepRecorder:
    """Writes one sweep's events; ``on_unit_end`` (e.g. a progress line) hears of every finished unit."""

    log_path: Path
    sweep_id: str
    on_unit_end: Callable[[UnitOutcome], None] | None = None
    key_path: str | None = None  # runner sweep --sign: every event signed

    def event(self, kind: str, **fields) -> None:
        append_event(self.log_path, {"event": kind, "sweep": self.sweep_id, **fields}, self.key_path)

    def attempts(self, arm: str, seed: int) -> int:
        return attempts_of(self.log_path, self.sweep_id, arm, seed)

    def retry(self, u: UnitOutcome) -> None:
        self.event("retry", arm=u.arm, seed=u.seed, after=u.error, attempt=u.attempts + 1)

    def unit_end(self, u: UnitOutcome) -> None:
        if self.on_unit_end is not None:
            self.on_unit_end(u)
        self.event("unit_end", arm=u.arm, seed=u.seed, outcome=u.outcome, rc=u.rc, error=u.error,
                   attempts=u.attempts, seconds=round(u.seconds, 3), host=u.host)
