"""Check 10: every number of report/**/*.md and *.tex traced to a source and equal to it as rounded.

Model cards under the report folder are checked the same way, and the ``model-index`` values of
their YAML front matter against their runs (``audit.model_index``).
"""

from __future__ import annotations

import re

from audit import model_index
from audit.claims import report_claims, report_facts
from audit.context import NumberTable
from audit.numbers import unread_reports
from audit.trace import swapped_intervals, traced_report

_MD_VERDICT = re.compile(r"([A-Z][A-Z_]*)\s*<!--\s*verdict\s*:\s*([A-Za-z0-9_.\-]+)\s*-->")
_TEX_VERDICT = re.compile(r"\\newcommand\*?\{?\\[A-Za-z@]+\}?\{([A-Z\\_]+)\}\s*%\s*verdict\s*:\s*([A-Za-z0-9_.\-]+)")


def _verdict_of(analysis: dict, ref: str):
    v = analysis.get("verdicts") or {}
    if ref == "study":
        return (v.get("study") or {}).get("verdict")
    if ref.startswith("contrasts."):
        return ((v.get("contrasts") or {}).get(ref[len("contrasts."):]) or {}).get("verdict")
    if ref.startswith("secondary."):  # a secondary-metric contrast: secondary.<arm>-<baseline>.<metric>
        return ((v.get("secondary") or {}).get(ref[len("secondary."):]) or {}).get("verdict")
    return None


def _check_verdicts(ctx, out, files) -> None:
    """Verdict words pinned to the analysis (``WORD<!-- verdict:contrasts.a-b -->``) must be its verdicts."""
    for f in files:
        pat = _TEX_VERDICT if f.path.endswith(".tex") else _MD_VERDICT
        for i, line in enumerate(f.lines, 1):
            for m in pat.finditer(line):
                word, ref = m.group(1).replace("\\_", "_"), m.group(2)
                want = _verdict_of(ctx.analysis, ref)
                if want is None:
                    out.add(f"{f.path}:{i}", f"a verdict of the analysis named {ref}", word,
                            "pinned verdict names nothing in analysis.json")
                elif want != word:
                    out.add(f"{f.path}:{i}", want, word, f"verdict differs from the analysis ({ref})")


def _check_claims(ctx, out, files) -> None:
    """Seeds, n, verdict words, significance and comparisons written in words (audit.claims)."""
    found = ctx.report.claims   # read by the workers of a large report (audit.report_pool)
    if found is None:
        found = report_claims(files, ctx.report.vocab, report_facts(ctx, ctx.report.vocab))
    if found is None:
        return
    claims, tally = found
    for c in claims:
        out.add(c.location, c.expected, c.found, c.message)
    out.notes.append(tally.note())


def _number_findings(ctx, out, results) -> list:
    """One status per number (audit.statuses); a finding for each error, the table for --json/--html."""
    from audit.statuses import classify, counts, number_row, settings, value_only_error

    rows, untraced = [], []
    setting = settings(results, ctx.report.vocab)
    for t in results:
        m = t.mention
        where = setting.of(t) if t.status == "traced" and not t.decisive else ""
        status = classify(t, ctx.strict, where)
        rows.append(number_row(t, status, where))
        if t.status == "untraced" and status in ("untraced", "error"):
            untraced.append({"location": m.where, "text": m.text, "line": m.line_text[:400].strip()[:200]})
        if status != "error":
            continue
        if where and not m.in_code and not m.pin:
            expected, message = value_only_error(t, where)
            out.add(m.where, expected, m.text, message)
        elif t.status == "error" and not m.in_code:
            out.add(m.where, t.expected, m.text + (f" (row {m.row!r}, column {m.column!r})" if m.kind == "table" else "")
                    + (f" (macro \\{m.macro})" if m.macro else ""), t.message)
        else:
            what = ("number in code" if m.in_code else "number") + (
                " equal to a source by value alone, its context names none" if t.status == "traced" else
                " that does not equal the source its context names" if t.status == "error" else " untraced")
            out.add(m.where, "a number traced to the analysis, a manifest or the lock" if t.status != "error"
                    else t.expected, m.text, f"{what} (--strict)")
    ctx.numbers = NumberTable(rows=rows, counts=counts(rows), untraced=untraced,
                              traced_count=sum(1 for r in rows if r.status == "traced"))
    return rows


def run(ctx, out) -> None:
    from audit.statuses import SKIPPED, summary_line

    results, idx, files = traced_report(ctx)
    if not files:
        out.notes.append(f"no .md, .qmd, .Rmd, .tex or .rst files under {ctx.rel(ctx.report_dir)}")
    for path, fmt in unread_reports(ctx.report_dir):   # never passed by saying nothing (README failure 15)
        out.add(ctx.rel(path), "a report the audit reads (.md, .qmd, .Rmd, .tex, .rst)", f"{fmt} ({path.suffix})",
                f"report file not read: the audit does not read {fmt}, so none of its numbers is checked")
    for f in files:   # a block the reader could not read (README failure 10: no markup may hide numbers)
        for line, msg in f.problems:
            out.add(f"{f.path}:{line}" if line else f.path, "markup the audit can read", msg,
                    "part of the report not read: none of its numbers is checked")
    rows = _number_findings(ctx, out, results)
    _check_verdicts(ctx, out, files)
    model_index.run(ctx, out, files)
    _check_claims(ctx, out, files)
    values = [t.mention for t, r in zip(results, rows, strict=True) if r.status not in SKIPPED]
    for lo, hi in swapped_intervals(values):
        out.add(lo.where, f"[{hi.text}, {lo.text}] (low end first)", f"[{lo.text}, {hi.text}]", "interval with swapped ends")
    out.notes.append(f"{summary_line(ctx.numbers.counts)}; over {len(idx.sources)} sources")
