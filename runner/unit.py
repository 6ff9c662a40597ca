"""One (arm, seed) unit's folder: exclusive ownership while running, never overwritten.

A non-blocking file lock (``runs/<id>/<arm>/s<seed>/.unit.lock``) keeps a second process
off a unit that is running. A folder that already holds a manifest is never reused: a
complete unit is refused outright, and an incomplete or failed one is refused with the
hint to move it aside (its files are the record of what happened and are not deleted).
"""

from __future__ import annotations

from pathlib import Path

from filelock import FileLock, Timeout

from prereg.errors import Refusal
from prereg.jsonio import make_dirs, read_json
from prereg.records import MANIFEST

LOCK_NAME = ".unit.lock"


class UnitGuard:
    """``with UnitGuard(run_dir):`` holds the unit; refuses a busy or already-used folder."""

    def __init__(self, run_dir: str | Path, *, allow_resume: bool = False):
        self.run_dir = Path(run_dir)
        self._lock: FileLock | None = None
        # With allow_resume, a unit whose manifest says running/incomplete (killed or
        # interrupted; no process holds its lock) is handed back for resuming
        # (runner.resume) instead of refused; ``resumable`` is then its status.
        self.allow_resume = allow_resume
        self.resumable: str | None = None

    def __enter__(self) -> UnitGuard:
        make_dirs(self.run_dir)
        lock = FileLock(str(self.run_dir / LOCK_NAME), timeout=0)
        try:
            lock.acquire(timeout=0, blocking=False)
        except Timeout:
            raise Refusal(f"{self.run_dir}: another process is running this unit (file lock held)") from None
        self._lock = lock
        try:
            self._check_unused()
        except BaseException:
            self.release()
            raise
        return self

    def _check_unused(self) -> None:
        manifest = self.run_dir / MANIFEST
        if manifest.exists():
            try:
                status = read_json(manifest, "run manifest").get("status", "unknown")
            except Exception:
                status = "unreadable"
            if status == "complete":
                raise Refusal(f"{self.run_dir}: unit is complete; refusing to overwrite it")
            if self.allow_resume and status in ("running", "incomplete"):
                self.resumable = status
                return
            raise Refusal(
                f"{self.run_dir}: holds an earlier {status} run of this unit; move it aside to rerun "
                f"(its record is kept, not overwritten)"
            )
        leftovers = sorted(p.name for p in self.run_dir.iterdir() if p.name != LOCK_NAME)
        if leftovers:
            raise Refusal(f"{self.run_dir}: folder is not empty ({', '.join(leftovers[:3])}); refusing to overwrite")

    def release(self) -> None:
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def __exit__(self, *exc) -> None:
        self.release()
