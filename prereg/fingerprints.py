"""Comparing stack fingerprints without the ML stack (the audit reads them on a laptop).

A fingerprint is ``{"components": {...}, "hash": sha256_json(components)}`` as written by
``runner.fingerprint.stack_fingerprint``; this module only reads and compares them.
"""

from __future__ import annotations

from typing import Any

from prereg.canonical import sha256_json


def _components(fp: dict) -> dict:
    return fp["components"] if isinstance(fp.get("components"), dict) and "hash" in fp else fp


def fingerprint_hash_ok(fp: dict) -> bool:
    """True when the fingerprint's hash is the canonical hash of its components."""
    return isinstance(fp.get("components"), dict) and fp.get("hash") == sha256_json(fp["components"])


def _leaves(value: Any, prefix: str, out: dict[str, Any]) -> None:
    if isinstance(value, dict) and value:
        for key in value:
            _leaves(value[key], f"{prefix}.{key}" if prefix else str(key), out)
    else:
        out[prefix] = value


def diff_components(a: dict, b: dict) -> list[str]:
    """Dotted paths of the leaves that differ between two fingerprints (or component dicts).

    ``"torch.version"``, ``"task.source_sha256"``...; a component present on one side only
    is named by its own path. The first path segment is the component's name.
    """
    la: dict[str, Any] = {}
    lb: dict[str, Any] = {}
    _leaves(_components(a), "", la)
    _leaves(_components(b), "", lb)
    # A leaf on one side can be a prefix of leaves on the other (null vs a dict): compare by path.
    return sorted(p for p in set(la) | set(lb) if la.get(p, _MISSING) != lb.get(p, _MISSING))


def differing_components(a: dict, b: dict) -> list[str]:
    """Top-level component names that differ (``["task", "torch"]``)."""
    return sorted({p.split(".", 1)[0] for p in diff_components(a, b)})


_MISSING = object()
