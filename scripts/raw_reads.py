"""Count string-key reads of the raw preregistration dict (issue 15: typed configuration).

    python scripts/raw_reads.py [--list] [PACKAGE ...]

The validated preregistration is parsed once into :mod:`prereg.study`'s frozen dataclasses,
which hold the defaults; a reader that looks a field up by string key (``p["analysis"]``,
``prereg.get("seeds")``) keeps a second copy of the field's name and often of its default.
This AST scan finds such reads so ``tests/test_raw_reads.py`` can fail when a new one appears.

What counts as the preregistration (a heuristic, per function): a parameter named ``p``,
``prereg`` or ``preregistration``; any ``X.prereg`` attribute (a lock's or document's copy);
``X["preregistration"]``; and, transitively, a name assigned from one of those or bound by a
``for`` over one. A read is a subscript with a string constant, or ``.get("...")``, on such a
value; reading a sub-block (``p["analysis"]["unit"]``) counts each key.
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

PACKAGES = ("prereg", "runner", "stats", "audit")
ROOT = Path(__file__).resolve().parents[1]
ROOT_NAMES = frozenset({"p", "prereg", "preregistration"})
ROOT_ATTRS = frozenset({"prereg"})


def _key(node: ast.AST) -> str | None:
    """The string constant a subscript or ``.get`` reads, else None."""
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
        return node.slice.value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
            and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
        return node.args[0].value
    return None


def _base(node: ast.AST) -> ast.AST:
    return node.value if isinstance(node, ast.Subscript) else node.func.value


class _Scan(ast.NodeVisitor):
    """Per function: the names holding (part of) the preregistration, and the reads on them."""

    def __init__(self, path: str):
        self.path, self.reads, self.tainted = path, [], [set()]

    def _is_raw(self, node: ast.AST) -> bool:
        if isinstance(node, ast.Name):
            return node.id in self.tainted[-1]
        if isinstance(node, ast.Attribute):
            return node.attr in ROOT_ATTRS
        if isinstance(node, (ast.Subscript, ast.Call)) and _key(node) is not None:
            return _key(node) == "preregistration" or self._is_raw(_base(node))
        if isinstance(node, ast.BoolOp):
            return any(self._is_raw(v) for v in node.values)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("items", "values", "keys"):
            return self._is_raw(node.func.value)
        return False

    def _bind(self, target: ast.AST) -> None:
        for n in ast.walk(target):
            if isinstance(n, ast.Name):
                self.tainted[-1].add(n.id)

    def _function(self, node) -> None:
        args = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
        self.tainted.append({a.arg for a in args if a.arg in ROOT_NAMES} | (self.tainted[-1] if self.tainted else set()))
        self.generic_visit(node)
        self.tainted.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _function

    def visit_Assign(self, node: ast.Assign) -> None:
        if self._is_raw(node.value):
            for t in node.targets:
                self._bind(t)
        self.generic_visit(node)

    def visit_For(self, node: ast.For) -> None:
        if self._is_raw(node.iter):
            self._bind(node.target)
        self.generic_visit(node)

    def visit_comprehension(self, node: ast.comprehension) -> None:
        if self._is_raw(node.iter):
            self._bind(node.target)
        self.generic_visit(node)

    def _comp(self, node) -> None:  # visit generators first so their targets are bound before the element
        for g in node.generators:
            self.visit(g)
        for field in ("elt", "key", "value"):
            if hasattr(node, field):
                self.visit(getattr(node, field))

    visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = _comp

    def _read(self, node) -> None:
        key = _key(node)
        if key is not None and key != "preregistration" and self._is_raw(_base(node)):
            self.reads.append((self.path, node.lineno, key))
        self.generic_visit(node)

    visit_Subscript = visit_Call = _read


def raw_reads(packages=PACKAGES, root: Path = ROOT) -> list[tuple[str, int, str]]:
    """(path, line, key) of every string-key read of the raw preregistration in ``packages``.

    Args:
        packages: package folders under ``root`` to scan.
        root: the repository root.

    Returns:
        The reads, in path then line order.

    Example:
        >>> raw_reads(("scripts",))
        []
    """
    out = []
    for pkg in packages:
        for path in sorted((root / pkg).rglob("*.py")):
            scan = _Scan(str(path.relative_to(root)))
            scan.visit(ast.parse(path.read_text(encoding="utf-8")))
            out.extend(scan.reads)
    return sorted(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("packages", nargs="*", default=list(PACKAGES))
    ap.add_argument("--list", action="store_true", help="print every read, not only the counts per file")
    args = ap.parse_args(argv)
    reads = raw_reads(args.packages)
    per_file: dict[str, int] = {}
    for path, line, key in reads:
        per_file[path] = per_file.get(path, 0) + 1
        if args.list:
            print(f"{path}:{line}: {key!r}")
    for path, n in sorted(per_file.items(), key=lambda kv: -kv[1]):
        print(f"{n:4d} {path}")
    print(f"{len(reads)} reads in {len(per_file)} files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
