"""Check 10: every number of report/**/*.md and *.tex traced to a source and equal to it as rounded."""

from __future__ import annotations

from audit.trace import swapped_intervals, traced_report


def run(ctx, out) -> None:
    results, idx, files = traced_report(ctx)
    if not files:
        out.notes.append(f"no .md or .tex files under {ctx.rel(ctx.report_dir)}")
    untraced = []
    for t in results:
        m = t.mention
        if t.status == "error":
            out.add(m.where, t.expected, m.text + (f" (row {m.row!r}, column {m.column!r})" if m.kind == "table" else "")
                    + (f" (macro \\{m.macro})" if m.macro else ""), t.message)
        elif t.status == "untraced":
            untraced.append({"location": m.where, "text": m.text, "line": m.line_text.strip()[:200]})
            if ctx.strict:
                out.add(m.where, "a number traced to the analysis, a manifest or the lock", m.text,
                        "untraced number (--strict)")
    for lo, hi in swapped_intervals([t.mention for t in results]):
        out.add(lo.where, f"[{hi.text}, {lo.text}] (low end first)", f"[{lo.text}, {hi.text}]", "interval with swapped ends")
    ctx._cache["untraced"] = untraced
    ctx._cache["traced_count"] = sum(1 for t in results if t.status == "traced")
    out.notes.append(f"{sum(1 for t in results if t.status == 'traced')} numbers traced, {len(untraced)} untraced, "
                     f"{sum(1 for t in results if t.status == 'error')} wrong, over {len(idx.sources)} sources")
