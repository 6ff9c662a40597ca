"""Check 5: runs started after the lock they claim, and claim a lock that exists in the chain.

A lock dated the same UTC day as the first result (README failure 11) is reported as a
warning: it is how a lock written after looking at results usually shows.
"""

from __future__ import annotations

from audit.findings import WARNING
from prereg.lock import parse_time
from prereg.records import MANIFEST


def _time(text):
    try:
        return parse_time(text) if isinstance(text, str) else None
    except ValueError:
        return None


def run(ctx, out) -> None:
    first_result = None
    for r in ctx.runs:
        m = r.manifest
        mp = ctx.rel(r.path / MANIFEST)
        claim = m.get("lock") or {}
        rec = ctx.chain.get(claim.get("hash"))
        started, ended = _time(m.get("started_at")), _time(m.get("ended_at"))
        if started is None:
            out.add(f"{mp}#$.started_at", "an ISO-8601 UTC time", repr(m.get("started_at")), "unreadable start time")
        if rec is None:
            out.add(f"{mp}#$.lock.hash", f"a lock of study {ctx.lock.data.get('study_id')} in {ctx.rel(ctx.lock_path.parent)}",
                    claim.get("hash"), "run references a lock that is not in the lock chain")
            continue
        if claim.get("version") != rec.version:
            out.add(f"{mp}#$.lock.version", rec.version, claim.get("version"),
                    f"run claims lock version {claim.get('version')} but its lock hash is version {rec.version}")
        if claim.get("locked_at") != rec.data.get("locked_at"):
            out.add(f"{mp}#$.lock.locked_at", rec.data.get("locked_at"), claim.get("locked_at"),
                    "run records a lock time different from its lock")
        locked = _time(rec.data.get("locked_at"))
        if started is not None and locked is not None and started <= locked:
            out.add(f"{mp}#$.started_at", f"after {rec.data.get('locked_at')}", m.get("started_at"),
                    "run started before its lock was made")
        if started is not None and ended is not None and ended < started:
            out.add(f"{mp}#$.ended_at", f"after {m.get('started_at')}", m.get("ended_at"), "run ended before it started")
        if (m.get("status") == "complete" and ended is not None
                and (first_result is None or ended < first_result[0])):
            first_result = (ended, mp)
    # The registration is the first lock of the chain; an amendment is dated after results by nature.
    versions = [r for r in ctx.chain.values() if isinstance(r.version, int)]
    first = min(versions, key=lambda r: r.version) if versions else ctx.lock
    locked = _time(first.data.get("locked_at"))
    if first_result is not None and locked is not None and locked.date() == first_result[0].date():
        out.add(f"{ctx.rel(first.path)}#$.locked_at", f"a lock dated before the day of the first result "
                f"({first_result[0].date()}, {first_result[1]})", first.data.get("locked_at"),
                "lock dated the same UTC day as the first result", WARNING)
