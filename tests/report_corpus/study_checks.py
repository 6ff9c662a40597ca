"""The audit's checks of a study's records run once for every report audited over the same study.

Why: the report tests (each report set's plants, the readings modules' hand-typed reports) audit
dozens of reports over one built study each; only the report differs, yet every audit ran the
checks of the lock, the runs and the analysis (checks 1-9 and 12) again over byte-identical files:
about half of each audit's CPU. Within :func:`study_checks_once` those checks' results are kept by
the SHA-256 of every file of the study (its lock, records and ``analysis.json``; the report files
left out), the paths that locate them, ``strict`` and ``only``, and handed out again for a study
whose every byte is the same; the report's checks (10, 11) and any check not listed in
:data:`STUDY_CHECKS` always run. A study that differs in one byte is checked afresh.

Only a clean result is kept (every study check passed or was not applicable, with no finding and
no note that names a path), so a kept result never carries a location of another copy; trusted
keys (files outside the study) are never kept. ``tests/test_built_once.py`` audits copies with
and without it and compares the results.
"""

from __future__ import annotations

import contextlib
import hashlib
import pickle
from pathlib import Path

# The checks that read only the study's lock, records and analysis, never the report files (by name:
# :data:`audit.registry.CHECKS`). A check added later and not listed here always runs.
STUDY_CHECKS = ("lock", "runs", "completeness", "treatment", "timeline", "stack", "traces", "seeds", "analysis",
                "looks")
# The report's own files, left out of the study's digest (what ``audit.checks.report_numbers`` reads).
REPORT_SUFFIXES = (".md", ".tex", ".bib", ".qmd", ".Rmd", ".rst", ".org")


def _under(path, root: Path) -> str | None:
    """``path`` relative to ``root`` (as text), or None when it lies outside."""
    try:
        return str(Path(path).resolve().relative_to(root))
    except ValueError:
        return None


def study_key(ctx, only) -> str | None:
    """The SHA-256 naming everything the study checks of ``ctx`` read, or None when they may read
    something outside the study folder (a lock or runs elsewhere, trusted key files)."""
    if ctx.trusted_keys or ctx.trusted_run_keys or ctx.runs_path is None:
        return None
    report = Path(ctx.report_dir).resolve()
    root = report.parent
    rels = [_under(p, root) for p in (ctx.lock_path, ctx.runs_path, ctx.analysis_path)]
    if None in rels:
        return None
    h = hashlib.sha256(repr((rels, _under(report, root), bool(ctx.strict), sorted(only or []),
                             Path(ctx.cwd) == root)).encode())
    for p in sorted(root.rglob("*")):
        if p.is_file() and not (p.parent == report and p.suffix in REPORT_SUFFIXES):
            h.update(b"\0" + str(p.relative_to(root)).encode() + b"\0" + p.read_bytes())
    return h.hexdigest()


def _keepable(results: dict) -> bool:
    """Every study check clean, with nothing that names a path (a location of this copy)."""
    return all(not r.findings and r.status in ("pass", "n.a.") and "/" not in r.reason
               and not any("/" in n or "\\" in n for n in r.notes) for r in results.values())


@contextlib.contextmanager
def study_checks_once(kept: dict | None = None):
    """Within the block the audit runs its study checks once per distinct study (module docstring);
    ``kept`` (key -> pickled results) carries them beyond the block; by default a new one."""
    from audit import engine

    real = engine._run_checks
    kept = {} if kept is None else kept

    def once(ctx, only):
        key = study_key(ctx, only)
        if key is None:
            return real(ctx, only)
        if key in kept:
            saved = pickle.loads(kept[key])
            return [saved[c.name] if c.name in saved else engine._run_check(c, ctx, only) for c in engine.CHECKS]
        results = real(ctx, only)
        study = {r.name: r for r in results if r.name in STUDY_CHECKS}
        if _keepable(study):
            kept[key] = pickle.dumps(study, pickle.HIGHEST_PROTOCOL)
        return results

    engine._run_checks = once
    try:
        yield
    finally:
        engine._run_checks = real
