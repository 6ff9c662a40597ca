"""The one schema loader: JSON Schemas (draft 2020-12) shipped in the ``schemas`` package."""

from __future__ import annotations

import hashlib
import json
import pickle
import re
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from prereg.errors import UserError
from prereg.values import value_problems

if TYPE_CHECKING:  # jsonschema is imported when a document is first validated, not with prereg
    from jsonschema import Draft202012Validator

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
        yield _error(f"{instance!r} does not match {pattern!r}")


def _is_integer(checker, instance) -> bool:
    # JSON Schema's "integer" admits 1.0; a seed, count or step read as 1.0 is not the seed 1
    # (README "Record guarantees"), so an integer here is a JSON number without fraction or exponent.
    return isinstance(instance, int) and not isinstance(instance, bool)


def _same(a, b) -> bool:
    """JSON equality that tells an integer from a number with a fraction or exponent: jsonschema's
    ``const``/``enum`` take 1.0 for 1, so ``"manifest_format": 1.0`` would pass ``{"const": 1}``
    (and seal like 1: RFC 8785 writes 1.0 as ``1``) although a format version is an integer."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return type(a) is type(b) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def _written(v) -> str:
    """``v`` as JSON would write it (1.0 stays ``1.0``), for an error message."""
    return json.dumps(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else repr(v)


def _const(validator, const, instance, schema):
    if not _same(instance, const):
        yield _error(f"{_written(const)} was expected, not {_written(instance)}")


def _enum(validator, enums, instance, schema):
    if not any(_same(instance, e) for e in enums):
        yield _error(f"{_written(instance)} is not one of {enums!r}")


def _unique_items(validator, unique, instance, schema):
    # jsonschema's own message prints the whole list; this names the repeated values (a seed
    # listed twice: "$.seeds: 2 is listed more than once"). JSON text is the key, so 1 and 1.0
    # and true stay distinct, as _same has them.
    if not unique or not validator.is_type(instance, "array"):
        return
    seen, repeated = set(), []
    for item in instance:
        key = json.dumps(item, sort_keys=True)
        if key in seen and key not in repeated:
            repeated.append(key)
        seen.add(key)
    if repeated:
        yield _error(f"{', '.join(repeated)} {'is' if len(repeated) == 1 else 'are'} listed more than "
                     "once; the items must be distinct")


def _error(message: str):
    """jsonschema's ``ValidationError``, imported here: a keyword check runs only while a document is
    validated, so jsonschema (~0.1 s of import, the most of ``import prereg``) loads only then; the
    CLIs' ``--help``, the torch-free import checks and the paths that a compiled predicate decides
    never import it."""
    from jsonschema import ValidationError

    return ValidationError(message)


@cache
def _strict_validator_class():
    """Draft 2020-12 with strict integers, ECMA ``$`` and JSON-typed ``const``/``enum``/``uniqueItems``,
    built on first use (see :func:`_error` for why jsonschema is not imported with the module)."""
    from jsonschema import Draft202012Validator, validators

    return validators.extend(
        Draft202012Validator,
        validators={"pattern": _pattern, "const": _const, "enum": _enum, "uniqueItems": _unique_items},
        type_checker=Draft202012Validator.TYPE_CHECKER.redefine("integer", _is_integer))


def __getattr__(name: str):
    # ``from prereg.schema import StrictValidator`` (stats.result) still works, the class built lazily
    if name == "StrictValidator":
        return _strict_validator_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@cache
def _validator(name: str) -> Draft202012Validator:
    from jsonschema import Draft202012Validator

    schema = load_schema(name)
    Draft202012Validator.check_schema(schema)
    return _strict_validator_class()(schema)


def json_path(parts) -> str:
    out = "$"
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else f".{p}"
    return out


def schema_errors(doc: Any, name: str) -> list[str]:
    """Every violation as ``path: message``, sorted by path for stable output.

    Three layers, so validate, lint, lock, verify and the audit refuse the same things: values a
    canonical record cannot hold (:func:`prereg.values.value_problems`), the JSON Schema (strict
    integers, ECMA ``$``), and for a preregistration the cross-field rules of
    :func:`prereg.crossfield.prereg_errors` (a baseline that is not an arm).

    A schema that :func:`_compile` cannot turn into a predicate (the preregistration's, ~5 ms in
    jsonschema) has its result remembered by the document's exact content (:func:`_content_key`):
    a study's lock is read by verify, lint, analyze, render and every audit check, and the same
    bytes give the same answer; a document changed in any value, type or key order is a new key
    and is validated afresh, so every tamper check still fires. Cheap schemas (manifests, rows)
    are not remembered; a caller that validates one file for several readers keeps the result
    itself (the audit's :class:`prereg.runfiles.RunFiles` validates each of 1,000 manifests once).

    Args:
        doc: the parsed JSON document.
        name: the schema, a key of :data:`SCHEMAS` (``"manifest"``, ``"lock"``, ...).

    Returns:
        The violations, empty when ``doc`` is valid.

    Example:
        >>> [e for e in schema_errors({"manifest_format": 1.0}, "manifest") if "format" in e]
        ['$.manifest_format: 1 was expected, not 1.0']
    """
    return _schema_errors(doc, name)


# ----------------------------------------------------------------------------- fast path
# An analysis of 1,000 runs holds ~9,000 value records (84,000 input seals); jsonschema walks each
# in Python (~1 s). A record map whose record schema uses only the keywords below is checked by
# a predicate compiled from that same schema; only when every record passes is the rest of the
# document validated with the map's records left out. Any failing record means full validation,
# so error messages are jsonschema's own.
_PY_TYPES = {"string": (str,), "integer": (int,), "number": (int, float), "boolean": (bool,),
             "null": (type(None),), "object": (dict,), "array": (list,)}  # exact types: bool is not an integer
_COMPILABLE = {"type", "required", "properties", "items", "enum", "description", "title", "$schema", "$id",
               "$defs", "$ref", "const", "minimum", "maximum", "minItems", "maxItems", "minLength", "pattern",
               "additionalProperties", "if", "then", "oneOf"}
_EXACT = {"type", "required", "properties", "description"}  # keywords whose predicate is exact, not only sufficient


def _exact(schema: Any) -> bool:
    """True when :func:`_compile`'s predicate for ``schema`` is False exactly when jsonschema
    refuses (needed under ``if``, where a predicate that is only sufficient would skip ``then``)."""
    return (isinstance(schema, dict) and not set(schema) - _EXACT
            and all(_exact(sub) for sub in (schema.get("properties") or {}).values()))


def _type_of(schema: Any):
    """The exact type test of a schema's ``type`` keyword, or None when it has none it can read."""
    names = [schema.get("type")] if isinstance(schema.get("type"), str) else list(schema.get("type") or [])
    if not names or any(n not in _PY_TYPES for n in names):
        return None
    allowed = frozenset(t for n in names for t in _PY_TYPES[n])
    if len(allowed) == 1:
        (only,) = allowed
        return lambda v: type(v) is only
    return lambda v: type(v) in allowed


def _compile(schema: Any, root: Any = None):
    """A predicate True only for instances ``schema`` accepts (strict integers, ECMA ``$``), or
    None when the schema uses a keyword this compiler does not handle. Only exact JSON types
    (str, int, float, bool, None, dict, list) pass, which is all a parsed record holds. ``root``
    is the document ``$ref: #/$defs/NAME`` points into. A predicate may be stricter than the
    schema (``const`` compares types too): False only means "validate fully"."""
    if not isinstance(schema, dict) or set(schema) - _COMPILABLE:
        return None
    checks = []
    if "type" in schema:
        of_type = _type_of(schema)
        if of_type is None:
            return None
        checks.append(of_type)
    if "enum" in schema:
        if not all(type(x) is str for x in schema["enum"]):
            return None
        allowed = frozenset(schema["enum"])
        checks.append(lambda v: type(v) is str and v in allowed)
    if "required" in schema:
        req = tuple(schema["required"])
        checks.append(lambda v: type(v) is not dict or all(k in v for k in req))
    if "items" in schema:
        item = _compile(schema["items"], root)
        if item is None:
            return None
        if schema["items"] == {"type": "string"}:  # a list of seals: one C-level pass
            checks.append(lambda v: type(v) is not list or set(map(type, v)) <= {str})
        else:
            checks.append(lambda v: type(v) is not list or all(map(item, v)))
    if "properties" in schema:
        props = {}
        for k, sub in schema["properties"].items():
            props[k] = _compile(sub, root)
            if props[k] is None:
                return None
        checks.append(_properties_check(tuple(props.items())))
    more = _compile_more(schema, root)
    if more is None:
        return None
    return _all_of(checks + more)


def _properties_check(props: tuple):
    """``properties``: each present key's value passes its predicate (a loop, not a generator:
    1,000 manifests and ~9,000 analysis records walk it per audit)."""
    def check(v) -> bool:
        if type(v) is not dict:
            return True
        for k, f in props:
            if k in v and not f(v[k]):
                return False
        return True
    return check


def _all_of(checks: list):
    """One predicate true when every check is (the check itself when there is one)."""
    if len(checks) == 1:
        return checks[0]
    checks = tuple(checks)

    def every(v) -> bool:
        for c in checks:
            if not c(v):
                return False
        return True
    return every


def _compile_more(schema: dict, root: Any) -> list | None:
    """The checks of the keywords beyond the record schemas' (a whole manifest compiles): bounds,
    lengths, ``pattern``, ``const``, ``additionalProperties``, ``$ref``, ``if``/``then``, ``oneOf``."""
    checks = []
    num = (int, float)
    for key, test in (("minimum", lambda v, m: type(v) not in num or v >= m),
                      ("maximum", lambda v, m: type(v) not in num or v <= m),
                      ("minItems", lambda v, m: type(v) is not list or len(v) >= m),
                      ("maxItems", lambda v, m: type(v) is not list or len(v) <= m),
                      ("minLength", lambda v, m: type(v) is not str or len(v) >= m)):
        if key in schema:
            if type(schema[key]) not in num:
                return None
            checks.append(lambda v, m=schema[key], t=test: t(v, m))
    if "pattern" in schema:
        rx = _ecma(schema["pattern"])
        checks.append(lambda v: type(v) is not str or rx.search(v) is not None)
    if "const" in schema:
        c = schema["const"]
        if type(c) not in (str, int, bool, type(None)):
            return None
        checks.append(lambda v: type(v) is type(c) and v == c)
    if "additionalProperties" in schema:
        extra, known = schema["additionalProperties"], frozenset(schema.get("properties") or {})
        if extra is False:
            checks.append(lambda v: type(v) is not dict or known.issuperset(v))
        else:
            sub = _compile(extra, root)
            if sub is None:
                return None
            checks.append(lambda v: type(v) is not dict or all(sub(x) for k, x in v.items() if k not in known))
    for key in ("$ref", "if", "oneOf"):
        if key in schema:
            check = _compile_applicator(schema, key, root)
            if check is None:
                return None
            checks.append(check)
    return checks


def _compile_applicator(schema: dict, key: str, root: Any):
    """``$ref`` into ``root``'s ``$defs``; ``if``/``then`` with an exact ``if``; ``oneOf`` whose
    branches each have a type no other branch has (a value then matches at most one)."""
    if key == "$ref":
        ref = schema["$ref"]
        name = ref[len("#/$defs/"):] if isinstance(ref, str) and ref.startswith("#/$defs/") else None
        target = ((root or {}).get("$defs") or {}).get(name) if name else None
        return _compile(target, root) if target is not None else None
    if key == "if":
        cond, then = _compile(schema["if"], root), _compile(schema.get("then", {}), root)
        if cond is None or then is None or not _exact(schema["if"]) or "else" in schema:
            return None
        return lambda v: not cond(v) or then(v)
    branches = [(_type_of(b), _compile(b, root)) for b in schema["oneOf"] if isinstance(b, dict)]
    if len(branches) != len(schema["oneOf"]) or any(t is None or p is None for t, p in branches):
        return None
    return lambda v: [p(v) for t, p in branches if t(v)] == [True]


@cache
def _document_predicate(name: str):
    """The whole schema ``name`` compiled (:func:`_compile`), or None when it uses other keywords."""
    schema = load_schema(name)
    return _compile(schema, schema)


@cache
def _record_maps(name: str) -> tuple:
    """(property, key pattern, record predicate) for each top-level map of records that compiles,
    and the validator of the schema with those maps' records left out."""
    schema = load_schema(name)
    maps, reduced = [], {**schema, "properties": dict(schema.get("properties") or {})}
    for prop, sub in (schema.get("properties") or {}).items():
        if not isinstance(sub, dict) or set(sub) - {"type", "description", "propertyNames", "additionalProperties"}:
            continue
        names = sub.get("propertyNames", {})
        if sub.get("type") != "object" or set(names) - {"pattern"}:
            continue
        pred = _compile(sub.get("additionalProperties"))
        if pred is None:
            continue
        maps.append((prop, _ecma(names["pattern"]) if "pattern" in names else None, pred))
        reduced["properties"][prop] = {"type": "object"}
    return tuple(maps), (_strict_validator_class()(reduced) if maps else None)


def _records_valid(doc: Any, name: str):
    """The reduced validator when every record map of ``doc`` passes its compiled predicate, else None."""
    maps, reduced = _record_maps(name)
    if reduced is None or not isinstance(doc, dict):
        return None
    for prop, pattern, pred in maps:
        recs = doc.get(prop)
        if recs is None:
            continue
        if type(recs) is not dict or not all(map(pred, recs.values())):
            return None
        if pattern is not None and not all(pattern.search(k) for k in recs):
            return None
    return reduced


_MEMO: dict[tuple[str, bytes], tuple[str, ...]] = {}
_MEMO_MAX = 256  # documents; cleared whole when full (a plain dict is safe across threads)


def _content_key(doc: Any) -> bytes:
    """SHA-256 of the document's pickle: equal only for documents equal in every value, type (1
    against 1.0 against True, a list against a tuple, NaN against None) and key order, which is
    all a validation reads. A pickle is an exact serialisation of the object graph, written in C
    ~3x faster than ``repr`` (floats as their 8 bytes; an analysis is read by analyze, render and
    the audit); what pickle refuses is keyed by its ``repr``, as before."""
    try:
        data = b"p" + pickle.dumps(doc, protocol=5)
    except Exception:  # noqa: BLE001 - any object pickle cannot write: its repr, as before
        data = b"r" + repr(doc).encode("utf-8", "surrogatepass")
    return hashlib.sha256(data).digest()


def _schema_errors(doc: Any, name: str) -> list[str]:
    if _document_predicate(name) is not None:
        return _validate(doc, name)
    key = (name, _content_key(doc))
    hit = _MEMO.get(key)
    if hit is None:
        hit = tuple(_validate(doc, name))
        if len(_MEMO) >= _MEMO_MAX:
            _MEMO.clear()
        _MEMO[key] = hit
    return list(hit)


def _validate(doc: Any, name: str) -> list[str]:
    errs = value_problems(doc)
    whole = _document_predicate(name)
    if whole is not None and whole(doc):  # jsonschema would find nothing (a 1,000-run audit reads 1,000 manifests)
        validator = None
    else:
        validator = _records_valid(doc, name) or _validator(name)
    for e in validator.iter_errors(doc) if validator is not None else ():
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
