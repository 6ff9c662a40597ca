"""Fail when a fast-tier test costs more CPU than its budget, naming the offenders.

Why: the fast tier (``pytest -m "not slow"``, the README's development command) must stay under a
minute on two cores; it crept from 1 min 19 s to 1 min 40 s over rounds, one costly test at a time,
because nothing failed when a test of several CPU-seconds landed outside ``slow``. ``make test``
(hence CI) runs the whole suite with ``TESTS_CPU_RECORD=.test-cpu.json`` (``tests/cpu_record.py``
records each test's CPU: setup, call and teardown, its subprocesses included) and then this script,
which reads the records of the tests that are not ``slow`` and exits 1 when one is over the
per-test budget, or a fixture shared by several tests (a module's built studies) is over the
per-fixture budget. A test is charged its own CPU: not the setup of fixtures it shares, nor a
module's first import in the process (each is paid once, by whichever test comes first). A test whose cost depends on the hypothesis profile (a property test, or one that
reads ``tests/budget.py``'s counts) is not judged on a ``ci``-profile run, where it does its full
count; it is on a ``dev``-profile run such as the fast tier's own
(``TESTS_CPU_RECORD=cpu.json pytest -m "not slow"`` writes ``cpu.json.gw0.json`` and
``cpu.json.gw1.json``). A test that must cost more (it is the only fast coverage of its behaviour)
is listed in :data:`ALLOWED` with its own budget and the reason; anything else over budget belongs
in ``slow`` beside a cheaper fast counterpart.

Usage: ``python scripts/fast_tier_budget.py RECORD.json [RECORD.json ...] [--per-test S] [--per-fixture S]
[--top N] [--warn-only]``.
Prints the fast tier's total CPU and its costliest tests; exits 0, 1 (an offender) or 2 (bad input).
``make test`` (CI) runs it with ``--warn-only``: CPU seconds move with the machine and its load, and the
project's rule is that speed is measured by benchmarks, never by a test that can fail on a slower
machine; the offenders are named in CI's log for a developer to act on.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import sys
from dataclasses import dataclass
from pathlib import Path

PER_TEST_CPU_S = 3.0  # a fast test's budget in CPU seconds (shared fixtures and first imports apart)
PER_FIXTURE_CPU_S = 12.0  # a shared fixture's setup (a report set's studies built and audited clean)

# nodeid pattern -> (its budget in CPU-s, why it may cost that much in the fast tier)
ALLOWED: dict[str, tuple[float, str]] = {
    "tests/test_no_torch.py::*": (
        7.0, "one fresh interpreter makes every torch-free import check (README: Tests for development)"),
}


@dataclass(frozen=True)
class Record:
    """One test's CPU record, as ``tests/conftest.py::_CpuRecorder`` writes it."""

    nodeid: str
    cpu: float            # the test's own CPU: its protocol less shared fixtures and first imports
    slow: bool
    profile_dependent: bool


def read_records(paths: list[Path]) -> tuple[list[Record], dict[str, float], set[str]]:
    """Every test record in ``paths``, the shared fixtures' setup CPU, and the hypothesis profiles.

    Args:
        paths: JSON files of ``{"profile": ..., "tests": {nodeid: {"cpu", "shared", "imports", "slow",
            "profile_dependent"}}, "fixtures": {name: {"cpu", "slow"}}}`` (``tests/cpu_record.py``).

    Returns:
        (records, shared fixtures set up for a fast test -> their setup CPU, profiles).

    Example:
        >>> read_records([])
        ([], {}, set())
    """
    out, fixtures, profiles = [], {}, set()
    for p in paths:
        try:
            data = json.loads(Path(p).read_text())
            profiles.add(data["profile"])
            out += [Record(k, float(v["cpu"]) - float(v.get("shared", 0)) - float(v.get("imports", 0)),
                           bool(v["slow"]), bool(v["profile_dependent"])) for k, v in data["tests"].items()]
            for name, f in data.get("fixtures", {}).items():
                if not f["slow"]:  # set up for a fast test: the fast tier pays it
                    fixtures[name] = max(fixtures.get(name, 0.0), float(f["cpu"]))
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
            raise SystemExit(f"error: {p}: not a test CPU record ({type(e).__name__}: {e})") from None
    return out, fixtures, profiles


def budget_of(nodeid: str, per_test: float) -> tuple[float, str]:
    """The CPU budget of test ``nodeid`` and its reason ('' for the common budget)."""
    for pattern, (cpu, why) in ALLOWED.items():
        if fnmatch.fnmatchcase(nodeid, pattern):
            return cpu, why
    return per_test, ""


def offenders(records: list[Record], ci_profile: bool, per_test: float) -> list[tuple[Record, float]]:
    """The fast tests over their budget, costliest first, each with its budget.

    Args:
        records: every test's record.
        ci_profile: the records come from a ``ci``-profile run (profile-dependent tests not judged).
        per_test: the common per-test budget in CPU seconds.

    Returns:
        (record, budget) pairs.

    Example:
        >>> offenders([Record("t.py::a", 9.0, False, False)], False, 3.0)
        [(Record(nodeid='t.py::a', cpu=9.0, slow=False, profile_dependent=False), 3.0)]
    """
    out = []
    for r in records:
        if r.slow or (ci_profile and r.profile_dependent):
            continue
        cap = budget_of(r.nodeid, per_test)[0]
        if r.cpu > cap:
            out.append((r, cap))
    return sorted(out, key=lambda rc: -rc[0].cpu)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("records", nargs="+", type=Path, help="JSON written under TESTS_CPU_RECORD")
    ap.add_argument("--per-test", type=float, default=PER_TEST_CPU_S, help="CPU-s budget of a fast test")
    ap.add_argument("--per-fixture", type=float, default=PER_FIXTURE_CPU_S,
                    help="CPU-s budget of a shared fixture's setup")
    ap.add_argument("--top", type=int, default=10, help="how many of the costliest fast tests to list")
    ap.add_argument("--warn-only", action="store_true",
                    help="name the offenders but exit 0 (CI: a CPU budget is a timing, not a test verdict)")
    args = ap.parse_args(argv)
    try:
        records, fixtures, profiles = read_records(args.records)
    except SystemExit as e:
        print(e, file=sys.stderr)
        return 2
    ci_profile = "ci" in profiles
    fast = [r for r in records if not r.slow]
    judged = [r for r in fast if not (ci_profile and r.profile_dependent)]
    print(f"fast tier: {len(fast)} tests, {sum(r.cpu for r in fast):.1f} CPU-s in these records "
          f"(profile {'/'.join(sorted(profiles))}; {len(fast) - len(judged)} profile-dependent tests not judged)")
    for r in sorted(judged, key=lambda r: -r.cpu)[:args.top]:
        print(f"  {r.cpu:6.2f}  {r.nodeid}")
    bad = offenders(records, ci_profile, args.per_test)
    for r, cap in bad:
        print(f"over budget: {r.nodeid}: {r.cpu:.2f} CPU-s > {cap:g} (make it cheaper, or mark it slow "
              f"beside a cheaper fast test that covers its behaviour)", file=sys.stderr)
    heavy = {k: v for k, v in fixtures.items() if v > args.per_fixture}
    for name, cpu in sorted(heavy.items(), key=lambda kv: -kv[1]):
        print(f"over budget: shared fixture {name}: {cpu:.2f} CPU-s > {args.per_fixture:g} "
              f"(build less, or share what it builds: tests/report_corpus/corpus.py::built_once)", file=sys.stderr)
    if (bad or heavy) and args.warn_only:
        print(f"fast-tier budget: {len(bad) + len(heavy)} over (warning only)", file=sys.stderr)
        return 0
    return 1 if bad or heavy else 0


if __name__ == "__main__":
    sys.exit(main())
