"""What a sweep is asked to do and what it reports: options, per-unit outcomes, the result."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from prereg.rules import RUNS_DIR
from runner.options import RunOptions

OUTCOMES = ("complete", "skipped", "failed", "lost", "busy", "other_lock", "interrupted", "not_started")


@dataclass
class SweepOptions:
    """Everything a sweep may vary; none of it touches the science (that is the lock's)."""

    lock_path: str
    out: str = RUNS_DIR
    arms: list[str] | None = None
    seeds: list[int] | None = None
    executor: str = "local"
    address: str | None = None
    gpus_per_run: float = 0
    cpus_per_run: float | None = None
    max_parallel: int | None = None  # local: 1; ray: as many as the cluster's resources fit
    retries: int = 2
    run: RunOptions = field(default_factory=RunOptions)  # the free settings of every unit's `runner run`
    busy_wait_s: float = 60.0
    live: bool = True
    ray_init: dict = field(default_factory=dict)  # extra ray.init kwargs for a local cluster
    sign_key: str | None = None  # --sign: signs every manifest seal (via runner run) and sweep-log event


@dataclass
class UnitOutcome:
    """One unit's state as the sweep driver sees it (the disk stays the authority: runner.status)."""

    arm: str
    seed: int
    outcome: str = "queued"
    attempts: int = 0
    rc: int | None = None
    error: str | None = None
    seconds: float = 0.0
    host: str | None = None
    path: str = ""

    def apply(self, res: dict) -> None:
        """Take in an executor's verdict on one attempt (seconds add up over attempts)."""
        self.outcome, self.rc, self.error = res["outcome"], res.get("rc"), res.get("error")
        self.seconds += res.get("seconds", 0.0) or 0.0
        self.host = res.get("host") or self.host


@dataclass
class SweepResult:
    """The outcome of every selected unit; ``ok`` when each is complete or skipped."""

    sweep_id: str
    study_id: str
    log_path: Path
    units: list[UnitOutcome]

    @property
    def ok(self) -> bool:
        return all(u.outcome in ("complete", "skipped") for u in self.units)

    def counts(self) -> dict[str, int]:
        c = dict.fromkeys(OUTCOMES, 0)
        for u in self.units:
            c[u.outcome] = c.get(u.outcome, 0) + 1
        return c
