"""Pandoc's simple tables, as knitr's ``kable(format = "simple")`` and Quarto / R Markdown write them.

A simple table is a space-aligned header line, a line of dash runs (one run per column), and
space-aligned rows up to a blank line::

      arm     mean      sd
    ------  ------  ------
      GRPO  0.6217  0.0075

CommonMark reads the dash line as a thematic break and the rows as one paragraph, so a number in
such a table would be read as prose with no row or column. :func:`pipe_tables` rewrites each one as
the pipe table it renders (same lines, so every line number stays), before the Markdown parser
runs on a ``.qmd`` / ``.Rmd`` file (README failure 15).
"""

from __future__ import annotations

import re

_DASHES = re.compile(r"[ \t]*-{2,}(?:[ \t]+-{2,})+[ \t]*")
_FENCE = re.compile(r"[ \t]{0,3}(```|~~~)")


def _cells(line: str, cuts: list[int]) -> list[str]:
    edges = [0, *cuts, max(len(line), (cuts[-1] if cuts else 0) + 1)]
    return [line[a:b].strip().replace("|", "\\|") for a, b in zip(edges, edges[1:], strict=False)]


def _convert(lines: list[str], i: int) -> int:
    """Rewrite the simple table whose dash line is ``lines[i]`` in place; returns the line after it."""
    runs = [(m.start(), m.end()) for m in re.finditer(r"-+", lines[i])]
    cuts = [(a[1] + b[0] + 1) // 2 for a, b in zip(runs, runs[1:], strict=False)]
    j = i + 1
    while j < len(lines) and lines[j].strip() and not _DASHES.fullmatch(lines[j]):
        j += 1
    if j < len(lines) and lines[j].strip():
        return i + 1     # a dash line again before a blank line: a multiline table, left as it is
    rows = [_cells(lines[k], cuts) for k in range(i + 1, j)]
    if not rows or any(sum(bool(c) for c in r) < 2 for r in rows):
        return i + 1
    lines[i - 1] = "| " + " | ".join(_cells(lines[i - 1], cuts)) + " |"
    lines[i] = "|" + "|".join("---" for _ in runs) + "|"
    for k, r in zip(range(i + 1, j), rows, strict=True):
        lines[k] = "| " + " | ".join(r) + " |"
    return j


def pipe_tables(text: str) -> str:
    """``text`` with every pandoc simple table (outside code fences) rewritten as a pipe table.

    Args:
        text: a Quarto or R Markdown file.
    Returns:
        The same text, line for line, with simple tables as pipe tables.
    Example:
        >>> print(pipe_tables("  arm   mean\\n-----  -----\\n  GRPO  0.62\\n"))
        | arm | mean |
        |---|---|
        | GRPO | 0.62 |
        <BLANKLINE>
    """
    if "--" not in text:
        return text
    lines = text.split("\n")
    fence, i = None, 0
    while i < len(lines):
        f = _FENCE.match(lines[i])
        if f:
            fence = None if fence == f.group(1) else (fence or f.group(1))
        elif fence is None and i > 0 and _DASHES.fullmatch(lines[i]) and lines[i - 1].strip() \
                and (i < 2 or not lines[i - 2].strip()):
            i = _convert(lines, i)
            continue
        i += 1
    return "\n".join(lines)
