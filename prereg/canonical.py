"""The one canonical-JSON and hashing function of the project.

Every hash that connects records (lock hash, manifest seal, fingerprint hash, analysis
inputs) goes through :func:`canonical_bytes`, which is RFC 8785 (JSON Canonicalization
Scheme): key order, whitespace, unicode escapes and float spelling cannot change a hash.
"""

from __future__ import annotations

import hashlib
import math
import re
from pathlib import Path
from typing import Any

import orjson
import rfc8785

from prereg.errors import UserError


def _check_finite(obj: Any, path: str = "$") -> None:
    # RFC 8785 has no NaN/Infinity; name the offending field instead of a library error.
    if isinstance(obj, float) and not math.isfinite(obj):
        raise UserError(f"{path}: non-finite number {obj!r} cannot be canonicalized")
    if isinstance(obj, dict):
        for k, v in obj.items():
            _check_finite(v, f"{path}.{k}")
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            _check_finite(v, f"{path}[{i}]")


def canonical_bytes(obj: Any) -> bytes:
    """RFC 8785 canonical UTF-8 bytes of a JSON value.

    Args:
        obj: dicts with string keys, lists, tuples, strings, integers within 2**53, finite
            floats, booleans and None.
    Returns:
        The canonical bytes (what every seal and lock hash digests).
    Raises:
        UserError: a value RFC 8785 cannot write (NaN, a huge integer, a non-string key,
            another type), naming a non-finite number's field.
    Example:
        >>> canonical_bytes({"b": 1.0, "a": [1e-7, "é"]}).decode()
        '{"a":[1e-7,"é"],"b":1}'
    """
    fast = _fast_canonical(obj)
    if fast is not None:
        return fast
    _check_finite(obj)
    try:
        return rfc8785.dumps(obj)
    except (rfc8785.CanonicalizationError, TypeError, ValueError) as exc:
        raise UserError(f"value cannot be canonicalized as JSON: {exc}") from None


# --- the fast path: orjson's bytes with RFC 8785's number spelling ----------------------------
# rfc8785 is pure Python (~0.9 ms for one 3 kB manifest); an audit of 1,000 runs seals 1,000
# manifests. orjson writes the same bytes except for float spelling (``1.0``, ``1e+16``, ``-0.0``
# where RFC 8785 writes ``1``, ``10000000000000000``, ``0``) and two things it does not refuse
# (NaN and Infinity become null; key order differs for characters outside the Basic Multilingual
# Plane). Floats are respelled; anything else that could differ takes the rfc8785 path, and
# tests/test_canonical_fast.py compares both on generated values.

_PLAIN = frozenset({dict, list, str, int, bool, type(None), float})
_ORJSON_OPTS = (orjson.OPT_SORT_KEYS | orjson.OPT_STRICT_INTEGER | orjson.OPT_PASSTHROUGH_SUBCLASS
                | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS)
# a JSON string token, or a number token with a fraction or exponent (integers need no respelling)
_STRING_OR_FLOAT = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?')
# a float token where only numbers and punctuation are left (a leading optional "-?" would
# cost the regex its first-character search: 4x slower)
_FLOAT = re.compile(rb"[-0-9][0-9]*[.eE][-+.eE0-9]*")
_FLOAT_SPELLING = re.compile(rb"[0-9][.eE]")
_ASTRAL = re.compile(rb"[\xf0-\xf4]")  # the lead byte of a 4-byte UTF-8 sequence


def _plain_finite(obj: Any) -> bool:
    """Only dicts, lists, strings, integers, booleans, None and finite floats (exact types)."""
    stack = [obj]
    pop, push = stack.pop, stack.extend
    while stack:
        x = pop()
        t = type(x)
        if t is dict:
            push(x.values())
        elif t is list:
            push(x)
        elif t is float:
            if x - x != 0.0:  # NaN and +-Infinity
                return False
        elif t not in _PLAIN:
            return False
    return True


def _es6_float(token: bytes) -> bytes:
    """A float token respelled as ECMAScript writes the same double (RFC 8785 3.2.2.3)."""
    f = float(token)
    text = repr(f)  # Python's shortest round-trip digits, as rfc8785 uses
    if "e" not in text and "n" not in text:  # 1e-4 <= |f| < 1e16: the spellings differ only by ".0"
        return (text[:-2] if text.endswith(".0") else text).encode() if f != 0 else b"0"
    return rfc8785.dumps(f)


def _respell(m: re.Match) -> bytes:
    tok = m.group()
    return tok if tok[0] == 34 or not _FLOAT_SPELLING.search(tok) else _es6_float(tok)  # 34: '"'


def _respell_floats(out: bytes) -> bytes:
    """orjson's float tokens respelled (:func:`_es6_float`), text inside strings untouched.

    Without an escaped quote, splitting at ``"`` alternates between the text outside strings
    and string contents, so the floats are found in the outside text alone (NUL, which orjson
    always escapes, marks where the strings were); with one, a tokenizer tells them apart."""
    if b'\\"' in out:
        return _STRING_OR_FLOAT.sub(_respell, out)
    parts = out.split(b'"')
    outside = _FLOAT.sub(lambda m: _es6_float(m.group()), b"\0".join(parts[0::2])).split(b"\0")
    parts[0::2] = outside
    return b'"'.join(parts)


def _fast_canonical(obj: Any) -> bytes | None:
    """:func:`canonical_bytes` by orjson, or None where only the rfc8785 path is exact."""
    if not _plain_finite(obj):
        return None
    try:
        out = orjson.dumps(obj, option=_ORJSON_OPTS)
    except (TypeError, ValueError):  # a non-string key, an integer beyond 2**53, a lone surrogate
        return None
    if not out.isascii() and _ASTRAL.search(out):  # UTF-16 key order may differ from orjson's
        return None
    return _respell_floats(out) if _FLOAT_SPELLING.search(out) else out


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_json(obj: Any) -> str:
    """SHA-256 (hex) of the canonical form of a JSON value."""
    return sha256_bytes(canonical_bytes(obj))


def sha256_text(text: str) -> str:
    return sha256_bytes(text.encode("utf-8"))


def sha256_file(path: str | Path, chunk: int = 1 << 20) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(chunk):
            h.update(block)
    return h.hexdigest()
