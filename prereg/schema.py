"""The one schema loader: JSON Schemas (draft 2020-12) shipped in the ``schemas`` package."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from jsonschema import Draft202012Validator

from prereg.errors import UserError

SCHEMAS = {
    "preregistration": "preregistration.schema.json",
    "lock": "lock.schema.json",
    "manifest": "manifest.schema.json",
    "analysis": "analysis.schema.json",
}


@cache
def load_schema(name: str) -> dict:
    fname = SCHEMAS.get(name, name)
    try:
        text = resources.files("schemas").joinpath(fname).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UserError(f"schema {name!r} is not shipped with this installation") from None
    return json.loads(text)


@cache
def _validator(name: str) -> Draft202012Validator:
    schema = load_schema(name)
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def json_path(parts) -> str:
    out = "$"
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else f".{p}"
    return out


def schema_errors(doc: Any, name: str) -> list[str]:
    """Every schema violation as ``path: message``, sorted by path for stable output."""
    errs = []
    for e in _validator(name).iter_errors(doc):
        msg = e.message
        if len(msg) > 200:
            msg = msg[:197] + "..."
        errs.append(f"{json_path(e.absolute_path)}: {msg}")
    return sorted(set(errs))


def require_valid(doc: Any, name: str, source: str) -> None:
    """Raise a one-line UserError naming the file and first field when ``doc`` is invalid."""
    errs = schema_errors(doc, name)
    if errs:
        more = f" (+{len(errs) - 1} more)" if len(errs) > 1 else ""
        raise UserError(f"{source}: {errs[0]}{more}")
