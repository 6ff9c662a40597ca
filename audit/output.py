"""Showing an audit: plain text (pipes, CI logs), rich (a terminal), JSON and a self-contained HTML page."""

from __future__ import annotations

import html
import json
import uuid

from audit.findings import AuditResult


def verdict_line(result: AuditResult) -> str:
    e, w = len(result.errors), len(result.warnings)
    if result.passed:
        return "audit passed: no findings" if not w else f"audit passed with {w} warning(s) (they fail with --strict)"
    roots = result.root_causes
    if roots:
        n = sum(k for _, k in roots)
        return (f"audit failed: {e} error(s), {w} warning(s): {len(roots)} root cause(s) with {n} consequence(s), "
                f"{e - n - len(roots)} other error(s)")
    return f"audit failed: {e} error(s), {w} warning(s)"


def numbers_line(result: AuditResult) -> str:
    """How many report numbers were seen and what became of them (audit.statuses)."""
    from audit.statuses import summary_line

    if result.number_counts:
        line = summary_line(result.number_counts)
    else:
        line = f"numbers: {result.traced_count} traced, {len(result.untraced)} untraced"
    return line + ("" if result.strict else " (value-only numbers are errors in a results table or a sentence with a "
                                            "statistic; elsewhere value-only, untraced and in-code numbers are findings "
                                            "only with --strict)")


def claims_line(result: AuditResult) -> str:
    """How many claims in words check 10 decided, and the ones the analysis cannot decide (audit.claims)."""
    return next((n for r in result.results for n in r.notes if n.startswith("claims in words:")), "")


def root_lines(result: AuditResult) -> list[str]:
    """The root causes first, each with how many findings follow from it."""
    roots = result.root_causes
    if not roots:
        return []
    out = [f"root causes ({len(roots)}; {sum(n for _, n in roots)} consequence(s) grouped under them):"]
    for f, n in roots:
        out.append(f"    {f.location}: {f.message} -> {n} consequence(s)")
    return out


def _shown(r, show_all: bool):
    return r.findings if show_all else [f for f in r.findings if not f.cause]


def plain_text(result: AuditResult, *, max_per_check: int = 50, show_all: bool = False) -> str:
    """The audit as plain text; consequences of a root cause are counted, listed only with ``show_all``."""
    lines = root_lines(result)
    for r in result.results:
        tag = {"pass": "PASS", "warn": "WARN", "fail": "FAIL", "n.a.": "N/A "}[r.status]
        extra = f" ({r.reason})" if r.reason else (f" — {len(r.findings)} finding(s)" if r.findings else "")
        lines.append(f"[{tag}] {r.check:>2} {r.name}: {r.title}{extra}")
        shown = _shown(r, show_all)
        for f in shown[:max_per_check]:
            lvl = "warning" if f.level == "warning" else "error"
            lines.append(f"    {lvl}: {f.location}: {f.message}")
            lines.append(f"        expected: {f.expected}")
            lines.append(f"        found:    {f.found}")
            if f.cause:
                lines.append(f"        follows from: {f.cause}")
        if len(shown) > max_per_check:
            lines.append(f"    ... {len(shown) - max_per_check} more (see --json)")
        hidden = len(r.findings) - len(shown)
        if hidden:
            lines.append(f"    + {hidden} consequence(s) of the root causes above (listed with --all)")
    lines.append(numbers_line(result))
    lines += [claims_line(result)] if claims_line(result) else []
    lines.append(verdict_line(result))
    return "\n".join(lines) + "\n"


def rich_print(result: AuditResult, *, max_per_check: int = 50, show_all: bool = False) -> None:
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
    for line in root_lines(result):
        con.print(line, markup=False, highlight=False, style="bold red")
    for r in result.results:
        shown = _shown(r, show_all)
        for f in shown[:max_per_check]:
            color = "yellow" if f.level == "warning" else "red"
            con.print(f"[{color}]{r.check} {r.name}[/] {escape(f.location)}: {escape(f.message)}", markup=True,
                      highlight=False)
            con.print(f"    expected: {f.expected}\n    found:    {f.found}", markup=False, highlight=False)
        if len(shown) > max_per_check:
            con.print(f"    ... {len(shown) - max_per_check} more (see --json)", markup=False)
        if len(r.findings) > len(shown):
            con.print(f"    + {len(r.findings) - len(shown)} consequence(s) of the root causes above (listed with --all)",
                      markup=False)
    con.print(numbers_line(result), markup=False)
    if claims_line(result):
        con.print(claims_line(result), markup=False, highlight=False)
    con.print(f"[{'green' if result.passed else 'red'}]{escape(verdict_line(result))}[/]")


def to_json(result: AuditResult) -> str:
    """The audit as JSON (``--json``): ``json.dumps(result.as_dict(), indent=2, ensure_ascii=False)``,
    byte for byte, with its long lists of flat rows (the traceability table, the findings) written by
    :func:`_flat_rows`: the indenting encoder is pure Python, about 11 us a row, 10 s for the rows and
    findings of a 5 MB table (README failure 10)."""
    return _dumps(result.as_dict()) + "\n"


_FLAT_MIN = 64   # lists shorter than this go through json.dumps as they are


def _dumps(obj) -> str:
    """``json.dumps(obj, indent=2, ensure_ascii=False)``; every list of at least ``_FLAT_MIN`` dicts whose
    values are all strings is swapped for a marker string first and written back in by :func:`_flat_rows`."""
    marker = f"@rows-{uuid.uuid4().hex}-"
    lists: list[list] = []

    def swap(x):
        if isinstance(x, dict):
            return {k: swap(v) for k, v in x.items()}
        if isinstance(x, list):
            if len(x) >= _FLAT_MIN and all(type(r) is dict and r and all(type(v) is str for v in r.values())
                                           for r in x):
                lists.append(x)
                return f"{marker}{len(lists) - 1}"
            return [swap(v) for v in x]
        return x

    text = json.dumps(swap(obj), indent=2, ensure_ascii=False)
    if not lists:
        return text
    out, at = [], 0
    for k, rows in enumerate(lists):
        token = json.dumps(f"{marker}{k}")
        pos = text.index(token, at)
        out += [text[at:pos], _flat_rows(rows, _indent_at(text, pos))]
        at = pos + len(token)
    out.append(text[at:])
    return "".join(out)


def _indent_at(text: str, pos: int) -> int:
    """The indentation of the line of ``text`` that holds offset ``pos``."""
    line = text[text.rfind("\n", 0, pos) + 1:pos]
    return len(line) - len(line.lstrip(" "))


def _flat_rows(rows: list[dict], pad: int) -> str:
    """A non-empty list of flat dicts of strings as ``json.dumps(indent=2)`` writes it under a key
    indented ``pad`` spaces (keys and values escaped by json's C string encoder)."""
    enc = json.encoder.encode_basestring
    item, key = " " * (pad + 2), " " * (pad + 4)
    sep = f"\n{item}}},\n{item}{{\n"
    body = sep.join(",\n".join(f"{key}{enc(k)}: {enc(v)}" for k, v in r.items()) for r in rows)
    return f"[\n{item}{{\n{body}\n{item}}}\n{' ' * pad}]"


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
             f"</p><p>{e(numbers_line(result))}</p>"]
    roots = result.root_causes
    if roots:
        parts.append("<h2>Root causes</h2><p>Findings that follow from these are listed under their check with the "
                     "root they follow from.</p><table><tr><th>where</th><th>what</th><th>consequences</th></tr>")
        parts += [f"<tr><td><code>{e(f.location)}</code></td><td>{e(f.message)}</td><td>{n}</td></tr>" for f, n in roots]
        parts.append("</table>")
    parts.append("<table><tr><th>#</th><th>check</th><th>status</th><th>findings</th></tr>")
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
            parts.append("<table><tr><th>level</th><th>where</th><th>what</th><th>expected</th><th>found</th>"
                         "<th>follows from</th></tr>")
            for f in r.findings:
                parts.append(f"<tr><td class='{e(f.level)}'>{e(f.level)}</td><td><code>{e(f.location)}</code></td>"
                             f"<td>{e(f.message)}</td><td>{e(f.expected)}</td><td>{e(f.found)}</td>"
                             f"<td>{e(f.cause)}</td></tr>")
            parts.append("</table>")
        if r.notes:
            parts.append("<ul>" + "".join(f"<li>{e(x)}</li>" for x in r.notes[:200]) + "</ul>")
    if result.numbers:
        parts.append(_traceability_html(result.numbers))
    parts.append("</body></html>\n")
    return "".join(parts)


_ROW_CLASS = {"error": "fail", "untraced": "warning", "value-only": "warning", "traced": "pass"}


def _traceability_html(rows) -> str:
    """Every report number: where, what, its status, the source it was checked against, and the rule."""
    e = html.escape
    out = ["<h2>Every number in the report</h2><table><tr><th>where</th><th>number</th><th>status</th>"
           "<th>source</th><th>source value</th><th>expected</th><th>rule</th><th>line</th></tr>"]
    for r in rows:
        out.append(f"<tr><td><code>{e(r.location)}</code></td><td>{e(r.text)}</td>"
                   f"<td class='{_ROW_CLASS.get(r.status, 'na')}'>{e(r.status)}</td><td><code>{e(r.source)}</code></td>"
                   f"<td>{e(r.source_value)}</td><td>{e(r.expected)}</td><td>{e(r.rule)}</td><td>{e(r.context)}</td></tr>")
    out.append("</table>")
    return "".join(out)
