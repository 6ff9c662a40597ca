"""List the functions of the four packages longer than a screen (issue 15: "read any function in one screen").

    python scripts/long_functions.py [--limit 60] [--total]

Counts each function's lines without its docstring (a long Example is documentation, not code
to hold in one's head); ``--total`` counts the docstring too. Exit status 1 when any function
is over the limit, so CI or a reviewer can run it as a check (``tests/test_function_length.py``).
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

PACKAGES = ("prereg", "runner", "stats", "audit")
ROOT = Path(__file__).resolve().parents[1]


def _docstring_lines(node: ast.AST) -> int:
    first = node.body[0] if node.body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        return first.end_lineno - first.lineno + 1
    return 0


def long_functions(limit: int = 60, *, total: bool = False, root: Path = ROOT) -> list[tuple[int, str]]:
    """(lines, "path:line name") of every function over ``limit`` lines, longest first.

    Example:
        >>> long_functions(10_000)
        []
    """
    out = []
    for pkg in PACKAGES:
        for path in sorted((root / pkg).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    n = node.end_lineno - node.lineno + 1 - (0 if total else _docstring_lines(node))
                    if n > limit:
                        out.append((n, f"{path.relative_to(root)}:{node.lineno} {node.name}"))
    return sorted(out, reverse=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, default=60)
    ap.add_argument("--total", action="store_true", help="count docstrings too")
    args = ap.parse_args(argv)
    rows = long_functions(args.limit, total=args.total)
    for n, where in rows:
        print(f"{n:4d}  {where}")
    print(f"{len(rows)} function(s) over {args.limit} lines" + (" (with docstrings)" if args.total else ""))
    return 1 if rows else 0


if __name__ == "__main__":
    sys.exit(main())
