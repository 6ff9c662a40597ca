"""The one canonical-JSON and hashing function of the project.

Every hash that connects records (lock hash, manifest seal, fingerprint hash, analysis
inputs) goes through :func:`canonical_bytes`, which is RFC 8785 (JSON Canonicalization
Scheme): key order, whitespace, unicode escapes and float spelling cannot change a hash.
"""

from __future__ import annotations

import hashlib
import math
from pathlib import Path
from typing import Any

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
    """RFC 8785 canonical UTF-8 bytes of a JSON value."""
    _check_finite(obj)
    try:
        return rfc8785.dumps(obj)
    except (rfc8785.CanonicalizationError, TypeError, ValueError) as exc:
        raise UserError(f"value cannot be canonicalized as JSON: {exc}") from None


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
