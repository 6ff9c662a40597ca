"""Field-level differences between two preregistrations or lock versions.

Either side may be a preregistration or a lock (a lock is recognised by ``lock_format``).
Preregistrations are compared field by field under ``$``; when both sides are locks their
metadata (version, hashes, time, amendment) is compared too, under ``lock.``. Leaves are
compared by their canonical JSON, so ``1`` and ``1.0`` are equal but ``true`` and ``1`` are not.
A diff reads files without verifying them, so a tampered lock can be compared with the
original to see what was changed; ``prereg verify`` is the integrity check.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from prereg.canonical import canonical_bytes
from prereg.errors import UserError
from prereg.jsonio import read_json
from prereg.schema import json_path


class _Absent:
    """Marker for a field present on one side only."""

    def __repr__(self) -> str:
        return "(absent)"

    def __bool__(self) -> bool:
        return False


ABSENT = _Absent()
LOCK_META = ("study_id", "version", "content_hash", "lock_hash", "locked_at", "git", "amends", "signature")


class Difference(NamedTuple):
    """One changed leaf: ``(json_path, old, new)``; ``ABSENT`` where a side lacks the field."""

    path: str
    old: Any
    new: Any


@dataclass(frozen=True)
class Document:
    """A file read for comparison: its preregistration, and the lock around it if it is a lock."""

    path: Path
    prereg: dict
    lock: dict | None

    @property
    def kind(self) -> str:
        return "lock" if self.lock is not None else "preregistration"


def read_document(path: str | Path) -> Document:
    """Read a preregistration or a lock file (shape-checked, not verified).

    Duplicate keys are refused, by ``diff`` too: a file that means two things cannot be compared.
    """
    data = read_json(path, "preregistration or lock")
    if not isinstance(data, dict):
        raise UserError(f"{path}: expected a JSON object (preregistration or lock), got {type(data).__name__}")
    if "lock_format" in data:
        pre = data.get("preregistration")
        if not isinstance(pre, dict):
            raise UserError(f"{path}: malformed lock: $.preregistration is not an object")
        return Document(Path(path), pre, data)
    return Document(Path(path), data, None)


def _same(a: Any, b: Any) -> bool:
    try:
        return canonical_bytes(a) == canonical_bytes(b)
    except UserError:
        return a == b


def diff_values(old: Any, new: Any, parts: tuple = ()) -> list[Difference]:
    """Leaf-level differences; objects by key, arrays by index (extra items show as absent)."""
    if isinstance(old, dict) and isinstance(new, dict):
        out = []
        for k in sorted(set(old) | set(new)):
            out.extend(diff_values(old.get(k, ABSENT), new.get(k, ABSENT), parts + (k,)))
        return out
    if isinstance(old, list) and isinstance(new, list):
        out = []
        for i in range(max(len(old), len(new))):
            out.extend(diff_values(old[i] if i < len(old) else ABSENT,
                                   new[i] if i < len(new) else ABSENT, parts + (i,)))
        return out
    if old is ABSENT or new is ABSENT:
        if old is new:
            return []
        return [Difference(json_path(parts), old, new)]
    if type(old) is not type(new) and not (_num(old) and _num(new)):
        return [Difference(json_path(parts), old, new)]
    return [] if _same(old, new) else [Difference(json_path(parts), old, new)]


def _num(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def diff_documents(a: Document, b: Document) -> list[Difference]:
    out = diff_values(a.prereg, b.prereg)
    if a.lock is not None and b.lock is not None:
        meta_a = {k: a.lock.get(k, ABSENT) for k in LOCK_META}
        meta_b = {k: b.lock.get(k, ABSENT) for k in LOCK_META}
        for d in diff_values(meta_a, meta_b):
            out.append(Difference("lock" + d.path[1:], d.old, d.new))
    return out


def diff_files(a: str | Path, b: str | Path) -> list[Difference]:
    """Differences between two files, each a preregistration or a lock."""
    return diff_documents(read_document(a), read_document(b))


def format_value(v: Any) -> str:
    if v is ABSENT:
        return "(absent)"
    return canonical_bytes(v).decode("utf-8")
