"""audit: check a study's records and its written report against the lock, without torch.

Public API: :func:`audit.engine.run_audit` (returns an :class:`audit.findings.AuditResult`),
the check registry :data:`audit.registry.CHECKS`, and the ``audit`` console script.
"""

from audit.findings import AuditResult, CheckResult, Finding

__all__ = ["AuditResult", "CheckResult", "Finding", "run_audit"]


def run_audit(*args, **kwargs):
    from audit.engine import run_audit as _run

    return _run(*args, **kwargs)
