"""The one list of checks. The engine runs them in order; the defect corpus test iterates it,
so a check added here without a planted defect that fires it fails the test suite."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from audit.checks import (
    analysis,
    completeness,
    exploratory,
    lock,
    looks,
    report_numbers,
    runs,
    seeds,
    stack,
    timeline,
    traces,
    treatment,
)


@dataclass(frozen=True)
class Check:
    id: str
    name: str
    title: str
    run: Callable
    needs_runs: bool   # not applicable to imported studies (no run folders)
    # may run in a forked worker while the checks after it run (a large campaign, audit.pool):
    # it changes nothing that a later check reads
    apart: bool = False


CHECKS: list[Check] = [
    Check("1", "lock", "Lock hash, signature and amendment chain", lock.run, False),
    Check("2", "runs", "Manifest seals and run signatures, artifact digests, the sweep log's hash chain", runs.run, True),
    Check("3", "completeness", "Every registered (arm, seed) has exactly one complete confirmatory run", completeness.run, True),
    Check("4", "treatment", "Arms differ from the baseline exactly in their declared changes", treatment.run, True),
    Check("5", "timeline", "Runs started after their lock and reference a lock of the chain", timeline.run, True),
    Check("6", "stack", "One stack fingerprint across confirmatory runs", stack.run, True),
    Check("7", "traces", "Summaries, counts and metric ranges recomputed from telemetry and traces", traces.run, True),
    Check("8", "seeds", "Different seeds do not share training traces", seeds.run, True),
    Check("9", "analysis", "analysis.json recomputed from the runs with the locked plan", analysis.run, False,
          apart=True),
    Check("10", "report", "Every number in the report traced to a source and equal to it as rounded", report_numbers.run, False),
    Check("11", "exploratory", "Exploratory results labelled as exploratory where they appear", exploratory.run, False),
    Check("12", "looks", "Sequential looks taken as registered, decided by the boundary, looks log intact",
          looks.run, True),
]
