"""What a check reports: findings that name a place, what was expected and what was found.

A finding is the unit a reviewer acts on, so it always carries a location precise enough
to open (file and line, or a JSON path inside a named file) and both sides of the
disagreement as text.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

ERROR = "error"
WARNING = "warning"


@dataclass(frozen=True)
class Finding:
    """One problem a check found: where it is, what was expected, what was found, and why.

    Example:
        >>> f = Finding("10", "report_numbers", "report.md:12", "0.6134 (arms.gspo.heldout_accuracy.mean)", "0.6143")
        >>> f.level, f.as_dict()["location"]
        ('error', 'report.md:12')
    """

    check: str          # check id, e.g. "7"
    name: str           # check name, e.g. "traces"
    location: str       # "path:line" or "path#$.json.path"
    expected: str
    found: str
    message: str = ""
    level: str = ERROR
    cause: str = ""     # the root cause this finding follows from ("location: message"), see audit.rootcause

    def as_dict(self) -> dict:
        """Its fields by name, in order (all strings: no ``dataclasses.asdict`` deep copy, README failure 10)."""
        return {k: getattr(self, k) for k in _FINDING_FIELDS}


_FINDING_FIELDS = tuple(f.name for f in fields(Finding))


@dataclass
class CheckResult:
    """What one check of :data:`audit.registry.CHECKS` concluded: its status and its findings.

    Example:
        >>> r = CheckResult("10", "report_numbers", "Report numbers trace to the records")
        >>> r.add("report.md:12", "0.6134", "0.6143", "last digit differs")
        >>> [(f.check, f.location, f.message) for f in r.findings]
        [('10', 'report.md:12', 'last digit differs')]
    """

    check: str
    name: str
    title: str
    status: str = "pass"            # pass | warn | fail | n.a.
    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)   # informational lines (listed, not findings)
    reason: str = ""                # why n.a.
    seconds: float = 0.0            # wall time of the check
    cpu_seconds: float = 0.0        # CPU time of the check (the fair figure on a shared machine)

    def add(self, location: str, expected, found, message: str = "", level: str = ERROR) -> None:
        """Record a finding of this check (``expected`` and ``found`` are shown as text). The finding's
        fields are set at once, not one by one through the frozen ``__init__`` (a 5 MB table of wrong
        numbers records 470,000 findings: README failure 10)."""
        f = object.__new__(Finding)
        f.__dict__.update(check=self.check, name=self.name, location=str(location), expected=str(expected),
                          found=str(found), message=message, level=level, cause="")
        self.findings.append(f)

    def not_applicable(self, reason: str) -> None:
        """Mark the check n.a. (e.g. checks 2-8 on an imported study, which has no run folders)."""
        self.status, self.reason = "n.a.", reason

    def as_dict(self) -> dict:
        return {"check": self.check, "name": self.name, "title": self.title, "status": self.status,
                "reason": self.reason, "seconds": round(self.seconds, 4), "notes": list(self.notes),
                "findings": [f.as_dict() for f in self.findings]}


@dataclass
class AuditResult:
    """The outcome of :func:`audit.check`: every check's result and the status of every report number.

    ``passed`` is False on any error (and on a warning under ``strict``); ``root_causes`` lists the
    findings others follow from, ``consequences`` those that follow (grouped as README's check table says).

    Example:
        >>> r = AuditResult("report", None, None, [CheckResult("1", "lock", "Lock is intact")])
        >>> r.passed, r.exit_code, r.findings
        (True, 0, [])
    """

    report_dir: str
    lock_path: str | None
    runs_path: str | None
    results: list[CheckResult]
    untraced: list[dict] = field(default_factory=list)
    traced_count: int = 0
    strict: bool = False
    numbers: list = field(default_factory=list)          # audit.statuses.NumberRow per report number
    number_counts: dict = field(default_factory=dict)    # {"seen": n, status: n}

    @property
    def findings(self) -> list[Finding]:
        return [f for r in self.results for f in r.findings]

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.level == ERROR]

    @property
    def warnings(self) -> list[Finding]:
        return [f for f in self.findings if f.level == WARNING]

    @property
    def root_causes(self) -> list:
        """(root finding, number of consequences) for findings that others follow from (audit.rootcause)."""
        from audit.rootcause import root_causes

        return root_causes(self.findings)

    @property
    def consequences(self) -> list[Finding]:
        """The findings that follow from another (their ``cause`` names it)."""
        return [f for f in self.findings if f.cause]

    @property
    def passed(self) -> bool:
        """No error; warnings (e.g. a lock dated the day of the first result) fail only with --strict."""
        return not self.errors and not (self.strict and self.warnings)

    @property
    def exit_code(self) -> int:
        """The CLI's exit status: 0 when the audit passed, 1 otherwise."""
        return 0 if self.passed else 1

    def as_dict(self) -> dict:
        return {
            "audit_format": 1,
            "report_dir": self.report_dir,
            "lock": self.lock_path,
            "runs": self.runs_path,
            "strict": self.strict,
            "passed": self.passed,
            "finding_count": len(self.findings),
            "error_count": len(self.errors),
            "root_causes": [{"location": f.location, "message": f.message, "check": f.check, "consequences": n}
                            for f, n in self.root_causes],
            "warning_count": len(self.warnings),
            "numbers": dict(self.number_counts) or {"traced": self.traced_count, "untraced": len(self.untraced)},
            "untraced": self.untraced,
            "traceability": [r.as_dict() for r in self.numbers],
            "checks": [r.as_dict() for r in self.results],
        }
