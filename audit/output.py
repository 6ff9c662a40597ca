"""Showing an audit: plain text (pipes, CI logs), rich (a terminal), JSON and a self-contained HTML page."""

from __future__ import annotations

import html
import json

from audit.findings import AuditResult


def verdict_line(result: AuditResult) -> str:
    e, w = len(result.errors), len(result.warnings)
    if result.passed:
        return "audit passed: no findings" if not w else f"audit passed with {w} warning(s) (they fail with --strict)"
    return f"audit failed: {e} error(s), {w} warning(s)"


def plain_text(result: AuditResult, *, max_per_check: int = 50) -> str:
    lines = []
    for r in result.results:
        tag = {"pass": "PASS", "warn": "WARN", "fail": "FAIL", "n.a.": "N/A "}[r.status]
        extra = f" ({r.reason})" if r.reason else (f" — {len(r.findings)} finding(s)" if r.findings else "")
        lines.append(f"[{tag}] {r.check:>2} {r.name}: {r.title}{extra}")
        for f in r.findings[:max_per_check]:
            lvl = "warning" if f.level == "warning" else "error"
            lines.append(f"    {lvl}: {f.location}: {f.message}")
            lines.append(f"        expected: {f.expected}")
            lines.append(f"        found:    {f.found}")
        if len(r.findings) > max_per_check:
            lines.append(f"    ... {len(r.findings) - max_per_check} more (see --json)")
    lines.append(f"numbers: {result.traced_count} traced, {len(result.untraced)} untraced"
                 + ("" if result.strict else " (untraced numbers are findings only with --strict)"))
    lines.append(verdict_line(result))
    return "\n".join(lines) + "\n"


def rich_print(result: AuditResult, *, max_per_check: int = 50) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    con = Console()
    t = Table(title=f"audit {result.report_dir}", show_lines=False)
    for col in ("check", "name", "status", "findings"):
        t.add_column(col)
    style = {"pass": "green", "warn": "yellow", "fail": "red", "n.a.": "dim"}
    for r in result.results:
        t.add_row(r.check, r.name, f"[{style[r.status]}]{r.status}[/]", str(len(r.findings)) if r.findings else "")
    con.print(t)
    for r in result.results:
        for f in r.findings[:max_per_check]:
            color = "yellow" if f.level == "warning" else "red"
            con.print(f"[{color}]{r.check} {r.name}[/] {escape(f.location)}: {escape(f.message)}", markup=True,
                      highlight=False)
            con.print(f"    expected: {f.expected}\n    found:    {f.found}", markup=False, highlight=False)
        if len(r.findings) > max_per_check:
            con.print(f"    ... {len(r.findings) - max_per_check} more (see --json)", markup=False)
    con.print(f"numbers: {result.traced_count} traced, {len(result.untraced)} untraced", markup=False)
    con.print(f"[{'green' if result.passed else 'red'}]{escape(verdict_line(result))}[/]")


def to_json(result: AuditResult) -> str:
    return json.dumps(result.as_dict(), indent=2, sort_keys=False, ensure_ascii=False) + "\n"


_CSS = """body{font-family:system-ui,sans-serif;margin:2em;max-width:1100px;color:#222}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top}
.pass{color:#18794e}.fail{color:#c02626;font-weight:bold}.na{color:#888}.warning{color:#b45309}
code{background:#f3f3f3;padding:1px 3px}h2{margin-top:1.5em}"""


def to_html(result: AuditResult) -> str:
    e = html.escape
    n = len(result.findings)
    ok = result.passed
    parts = [f"<!doctype html><!-- rlprereg-audit --><html><head><meta charset='utf-8'><title>audit {e(result.report_dir)}</title>"
             f"<style>{_CSS}</style></head><body>",
             f"<h1>Audit of <code>{e(result.report_dir)}</code></h1>",
             f"<p>lock <code>{e(str(result.lock_path))}</code>, runs <code>{e(str(result.runs_path))}</code></p>",
             f"<p class='{'pass' if ok else 'fail'}'>{e(verdict_line(result))} ({n} finding(s))"
             f"</p><p>numbers in the report: {result.traced_count} traced, {len(result.untraced)} untraced</p>",
             "<table><tr><th>#</th><th>check</th><th>status</th><th>findings</th></tr>"]
    for r in result.results:
        cls = {"pass": "pass", "warn": "warning", "fail": "fail", "n.a.": "na"}[r.status]
        parts.append(f"<tr><td>{e(r.check)}</td><td>{e(r.name)}: {e(r.title)}</td><td class='{cls}'>{e(r.status)}"
                     f"{' (' + e(r.reason) + ')' if r.reason else ''}</td><td>{len(r.findings) or ''}</td></tr>")
    parts.append("</table>")
    for r in result.results:
        if not r.findings and not r.notes:
            continue
        parts.append(f"<h2>{e(r.check)}. {e(r.name)}</h2>")
        if r.findings:
            parts.append("<table><tr><th>level</th><th>where</th><th>what</th><th>expected</th><th>found</th></tr>")
            for f in r.findings:
                parts.append(f"<tr><td class='{e(f.level)}'>{e(f.level)}</td><td><code>{e(f.location)}</code></td>"
                             f"<td>{e(f.message)}</td><td>{e(f.expected)}</td><td>{e(f.found)}</td></tr>")
            parts.append("</table>")
        if r.notes:
            parts.append("<ul>" + "".join(f"<li>{e(x)}</li>" for x in r.notes[:200]) + "</ul>")
    if result.untraced:
        parts.append("<h2>Untraced numbers</h2><table><tr><th>where</th><th>number</th><th>line</th></tr>")
        for u in result.untraced[:1000]:
            parts.append(f"<tr><td><code>{e(u['location'])}</code></td><td>{e(u['text'])}</td><td>{e(u['line'])}</td></tr>")
        parts.append("</table>")
    parts.append("</body></html>\n")
    return "".join(parts)
