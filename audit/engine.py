"""Run every registered check over one report folder and collect the result."""

from __future__ import annotations

import contextlib
import gc
import time
from pathlib import Path

from audit.context import NumberTable, load_context
from audit.findings import ERROR, AuditResult, CheckResult
from audit.registry import CHECKS
from audit.rootcause import link
from prereg.errors import UserError


def run_audit(report_dir: str | Path, *, lock: str | Path | None = None, runs: str | Path | None = None,
              strict: bool = False, trusted_keys: list[str] | None = None,
              only: list[str] | None = None, trusted_run_keys: list[str] | None = None) -> AuditResult:
    """Audit ``report_dir`` (which holds analysis.json and the report files).

    Raises :class:`prereg.errors.UserError` for bad usage (missing folder or file,
    malformed JSON); every problem in the records or the report is a finding instead.
    """
    known = {c.id for c in CHECKS} | {c.name for c in CHECKS}
    unknown = [o for o in (only or []) if o not in known]
    if unknown:  # selecting nothing would pass with no check run
        raise UserError(f"--only: {unknown[0]!r} is not a check id or name (known: "
                        f"{', '.join(f'{c.id} {c.name}' for c in CHECKS)})")
    with _collector_paused():
        ctx = load_context(report_dir, lock=lock, runs=runs, strict=strict, trusted_keys=trusted_keys,
                           trusted_run_keys=trusted_run_keys)
        results = [_run_check(check, ctx, only) for check in CHECKS]
    link(ctx, results)
    nums = ctx.numbers or NumberTable(rows=[], counts={}, untraced=[], traced_count=0)  # check 10 not run
    return AuditResult(report_dir=str(report_dir), lock_path=str(ctx.lock_path),
                       runs_path=str(ctx.runs_path) if ctx.runs_path else None, results=results,
                       untraced=nums.untraced, traced_count=nums.traced_count,
                       strict=strict, numbers=nums.rows, number_counts=nums.counts)


@contextlib.contextmanager
def _collector_paused():
    """No cyclic garbage collection while the audit runs: it allocates millions of trace rows
    and frees them run by run (no cycles), and each full collection rescans every live object."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _run_check(check, ctx, only) -> CheckResult:
    res = CheckResult(check.id, check.name, check.title)
    if only is not None and check.id not in only and check.name not in only:
        res.not_applicable("not selected")
    elif check.needs_runs and ctx.imported:
        res.not_applicable("imported study: no run folders to check")
    else:
        t0, c0 = time.perf_counter(), time.process_time()
        check.run(ctx, res)
        res.seconds, res.cpu_seconds = time.perf_counter() - t0, time.process_time() - c0
        if any(f.level == ERROR for f in res.findings):
            res.status = "fail"
        elif res.status == "n.a." and not res.findings:
            pass   # the check itself found nothing to check (check 12 on a fixed design): say so, not "pass"
        else:
            res.status = "warn" if res.findings else "pass"
    return res
