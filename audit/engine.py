"""Run every registered check over one report folder and collect the result."""

from __future__ import annotations

import contextlib
import functools
import gc
import time

try:
    import resource
except ImportError:  # Windows: no worker processes there either (audit.pool forks)
    resource = None
from pathlib import Path

from audit import pool
from audit.context import NumberTable, load_context
from audit.findings import ERROR, AuditResult, CheckResult
from audit.pool import check_jobs, default_jobs
from audit.registry import CHECKS
from audit.rootcause import link
from prereg.errors import UserError


def run_audit(report_dir: str | Path, *, lock: str | Path | None = None, runs: str | Path | None = None,
              strict: bool = False, trusted_keys: list[str] | None = None,
              only: list[str] | None = None, trusted_run_keys: list[str] | None = None,
              jobs: int | None = None) -> AuditResult:
    """Audit ``report_dir`` (which holds analysis.json and the report files).

    ``jobs`` worker processes check the runs (:mod:`audit.pool`; default
    :func:`audit.pool.default_jobs`); the result does not depend on it.
    Raises :class:`prereg.errors.UserError` for bad usage (missing folder or file,
    malformed JSON, a bad ``jobs``); every problem in the records or the report is a finding instead.
    """
    jobs = default_jobs() if jobs is None else check_jobs(jobs, "jobs")
    known = {c.id for c in CHECKS} | {c.name for c in CHECKS}
    unknown = [o for o in (only or []) if o not in known]
    if unknown:  # selecting nothing would pass with no check run
        raise UserError(f"--only: {unknown[0]!r} is not a check id or name (known: "
                        f"{', '.join(f'{c.id} {c.name}' for c in CHECKS)})")
    with collector_paused():
        ctx = load_context(report_dir, lock=lock, runs=runs, strict=strict, trusted_keys=trusted_keys,
                           trusted_run_keys=trusted_run_keys, jobs=jobs)
        results = _run_checks(ctx, only)
    link(ctx, results)
    nums = ctx.numbers or NumberTable(rows=[], counts={}, untraced=[], traced_count=0)  # check 10 not run
    return AuditResult(report_dir=str(report_dir), lock_path=str(ctx.lock_path),
                       runs_path=str(ctx.runs_path) if ctx.runs_path else None, results=results,
                       untraced=nums.untraced, traced_count=nums.traced_count,
                       strict=strict, numbers=nums.rows, number_counts=nums.counts)


@contextlib.contextmanager
def collector_paused():
    """No cyclic garbage collection while the audit runs: it allocates millions of trace rows
    and frees them run by run (no cycles), and each full collection rescans every live object.
    ``benchmarks/audit_parse_scale.py`` times the parse under the same pause.

    Returns:
        A context manager; the collector is re-enabled on exit only if it was enabled before.
    Example:
        >>> import gc
        >>> with collector_paused():
        ...     gc.isenabled()
        False
    """
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def cpu_seconds() -> float:
    """CPU time of this process and of its finished worker processes (:mod:`audit.pool`): a
    check's CPU figure counts the work its workers did."""
    kids = resource.getrusage(resource.RUSAGE_CHILDREN) if resource is not None else None
    return time.process_time() + (kids.ru_utime + kids.ru_stime if kids is not None else 0.0)


def _run_checks(ctx, only) -> list[CheckResult]:
    """Every check in order; on a campaign of :data:`audit.pool.MIN_RUNS` runs or more a check
    marked ``apart`` (check 9's recomputation) runs in a forked worker while the checks after it
    run here. Results stay in check order, and are the same either way."""
    overlap = ctx.jobs > 1 and len(ctx.runs) >= pool.MIN_RUNS
    results: list = []
    try:
        for check in CHECKS:
            if check.apart and overlap:
                results.append(pool.in_background(functools.partial(_run_check, check, ctx, only), jobs=ctx.jobs))
            else:
                results.append(_run_check(check, ctx, only))
    except BaseException:
        for r in results:  # a later check failed: end the workers before the error goes up
            if callable(r):
                with contextlib.suppress(BaseException):
                    r()
        raise
    return [r() if callable(r) else r for r in results]


def _run_check(check, ctx, only) -> CheckResult:
    res = CheckResult(check.id, check.name, check.title)
    if only is not None and check.id not in only and check.name not in only:
        res.not_applicable("not selected")
    elif check.needs_runs and ctx.imported:
        res.not_applicable("imported study: no run folders to check")
    else:
        t0, c0 = time.perf_counter(), cpu_seconds()
        check.run(ctx, res)
        res.seconds, res.cpu_seconds = time.perf_counter() - t0, cpu_seconds() - c0
        if any(f.level == ERROR for f in res.findings):
            res.status = "fail"
        elif res.status == "n.a." and not res.findings:
            pass   # the check itself found nothing to check (check 12 on a fixed design): say so, not "pass"
        else:
            res.status = "warn" if res.findings else "pass"
    return res
