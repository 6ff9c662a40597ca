"""The one schema loader: JSON Schemas (draft 2020-12) shipped in the ``schemas`` package."""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources
from typing import Any

from jsonschema import Draft202012Validator, ValidationError, validators

from prereg.errors import UserError
from prereg.values import value_problems

SCHEMAS = {
    "preregistration": "preregistration.schema.json",
    "lock": "lock.schema.json",
    "manifest": "manifest.schema.json",
    "analysis": "analysis.schema.json",
    "telemetry_row": "telemetry_row.schema.json",
    "trace_row": "trace_row.schema.json",
}


@cache
def load_schema(name: str) -> dict:
    fname = SCHEMAS.get(name, name)
    try:
        text = resources.files("schemas").joinpath(fname).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UserError(f"schema {name!r} is not shipped with this installation") from None
    return json.loads(text)


_DOLLAR = re.compile(r"(?<!\\)\$")


@cache
def _ecma(pattern: str) -> re.Pattern:
    # ECMA-262 (the schema dialect) ends input at ``$``; Python's ``$`` also matches before a
    # final newline, so "demo\n" would pass ``^[a-z0-9]+$`` and name a lock file with a newline.
    return re.compile(_DOLLAR.sub(r"\\Z", pattern))


def _pattern(validator, pattern, instance, schema):
    if validator.is_type(instance, "string") and not _ecma(pattern).search(instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _is_integer(checker, instance) -> bool:
    # JSON Schema's "integer" admits 1.0; a seed, count or step read as 1.0 is not the seed 1
    # (README "Record guarantees"), so an integer here is a JSON number without fraction or exponent.
    return isinstance(instance, int) and not isinstance(instance, bool)


StrictValidator = validators.extend(
    Draft202012Validator, validators={"pattern": _pattern},
    type_checker=Draft202012Validator.TYPE_CHECKER.redefine("integer", _is_integer))


@cache
def _validator(name: str) -> Draft202012Validator:
    schema = load_schema(name)
    Draft202012Validator.check_schema(schema)
    return StrictValidator(schema)


def json_path(parts) -> str:
    out = "$"
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else f".{p}"
    return out


def schema_errors(doc: Any, name: str) -> list[str]:
    """Every violation as ``path: message``, sorted by path for stable output.

    Memoized on the document's JSON text: the audit and its recomputed analysis validate the
    same 1,000 manifests, and validation is most of reading one.

    Three layers, so validate, lint, lock, verify and the audit refuse the same things: values a
    canonical record cannot hold (:func:`prereg.values.value_problems`), the JSON Schema (strict
    integers, ECMA ``$``), and for a preregistration the cross-field rules of
    :func:`prereg.crossfield.prereg_errors` (a baseline that is not an arm).
    """
    try:
        key = (name, json.dumps(doc, sort_keys=True, allow_nan=True))
    except (TypeError, ValueError):
        return _schema_errors(doc, name)
    hit = _VALIDATED.get(key)
    if hit is None:
        hit = _VALIDATED.put(key, tuple(_schema_errors(doc, name)))
    return list(hit)


class _BoundedMemo:
    """At most ``size`` results, oldest dropped first (a 1,000-run audit validates 1,000 manifests)."""

    def __init__(self, size: int):
        self.size, self.data = size, {}

    def get(self, key):
        return self.data.get(key)

    def put(self, key, value):
        if len(self.data) >= self.size:
            self.data.pop(next(iter(self.data)))
        self.data[key] = value
        return value


_VALIDATED = _BoundedMemo(4096)


def _schema_errors(doc: Any, name: str) -> list[str]:
    errs = value_problems(doc)
    for e in _validator(name).iter_errors(doc):
        msg = e.message
        if len(msg) > 200:
            msg = msg[:197] + "..."
        errs.append(f"{json_path(e.absolute_path)}: {msg}")
    if name == "preregistration":
        from prereg.crossfield import prereg_errors

        errs += prereg_errors(doc)
    return sorted(set(errs))


def require_valid(doc: Any, name: str, source: str) -> None:
    """Raise a one-line UserError naming the file and first field when ``doc`` is invalid."""
    errs = schema_errors(doc, name)
    if errs:
        more = f" (+{len(errs) - 1} more)" if len(errs) > 1 else ""
        raise UserError(f"{source}: {errs[0]}{more}")
