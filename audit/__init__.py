"""audit: check a study's records and its written report against the lock, without torch.

Python API: ``from audit import check`` (returns an :class:`audit.findings.AuditResult`); the
check registry is :data:`audit.registry.CHECKS`, and the ``audit`` console script is a thin
layer over ``check``.
"""

from __future__ import annotations

from pathlib import Path

from audit.findings import AuditResult, CheckResult, Finding

__all__ = ["AuditResult", "CheckResult", "Finding", "check", "run_audit"]


def check(report_dir: str | Path, *, lock: str | Path | None = None, runs: str | Path | None = None,
          strict: bool = False, trusted_keys: list[str] | None = None, only: list[str] | None = None,
          trusted_run_keys: list[str] | None = None, jobs: int | None = None) -> AuditResult:
    """Audit a report folder: every check of :data:`audit.registry.CHECKS` over records and report.

    Each check recomputes what it can from the records (seals, traces, the analysis itself) and
    every number in the report is traced to its source; a problem in the records or the report is
    a finding, never an exception.

    Args:
        report_dir: the folder holding analysis.json and the report (.md/.tex) files.
        lock: the lock file (default: analysis.json ``$.lock.path``).
        runs: the runs folder (default: from analysis.json ``$.inputs``).
        strict: untraced report numbers are findings, and warnings fail the audit.
        trusted_keys: base64 Ed25519 public keys the lock must be signed with.
        only: run only these check ids or names (e.g. ``["7", "seeds"]``).
        trusted_run_keys: keys every confirmatory run's seal must be signed with.
        jobs: worker processes that check the runs of a large campaign (default: the
            ``RLPREREG_AUDIT_JOBS`` environment variable, else the CPUs available; the
            result is the same for any number).

    Returns:
        An :class:`AuditResult`: ``passed``, ``findings``/``errors``/``warnings``, per-check results.

    Raises:
        UserError: bad usage (missing folder or analysis.json, unknown check id).

    Example:
        >>> import shutil, tempfile
        >>> from audit import check
        >>> from stats import analyze, render
        >>> from stats.synthetic import demo_campaign
        >>> c = demo_campaign(tempfile.mkdtemp())
        >>> report = c.lock_path.parents[1] / "report"
        >>> _ = render(analyze(c.lock_path, c.runs_dir), report, figures=False)
        >>> result = check(report)
        >>> result.passed, [f.message for f in result.errors]
        (True, [])
        >>> md = report / "report.md"                       # one report number changed by hand
        >>> _ = md.write_text(md.read_text().replace("-0.3500<!-- id:contrasts.high_lr-grpo.diff_mean",
        ...                                          "-0.3000<!-- id:contrasts.high_lr-grpo.diff_mean", 1))
        >>> bad = check(report)
        >>> bad.passed, len(bad.errors), bad.errors[0].expected
        (False, 1, '-0.3500 (contrasts.high_lr-grpo.diff_mean = -0.35)')
        >>> shutil.rmtree(c.lock_path.parents[1])
    """
    from audit.engine import run_audit as _run

    return _run(report_dir, lock=lock, runs=runs, strict=strict, trusted_keys=trusted_keys, only=only,
                trusted_run_keys=trusted_run_keys, jobs=jobs)


run_audit = check  # the earlier name
