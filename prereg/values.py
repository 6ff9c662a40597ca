"""What every JSON record must be before any schema applies: values RFC 8785 can carry exactly.

``prereg validate`` and ``prereg lock`` must agree (README "Record guarantees"): whatever
canonicalization would refuse at lock time — a non-finite number (``1e400`` parses as
infinity), an integer outside ±(2^53 - 1), a lone surrogate in a string or key — is refused
here first, with the JSON path of the field, by every reader that validates a record.
"""

from __future__ import annotations

import json
import math
from typing import Any

import orjson

SAFE_INT = 2**53 - 1  # RFC 8785 (I-JSON): integers beyond this do not survive a float round trip


def _string_problem(text: str) -> str | None:
    if text.isascii():  # C-level passes first: an analysis of 1,000 runs holds ~85,000 seals
        return None
    try:
        text.encode("utf-8")  # fails exactly on a lone surrogate
        return None
    except UnicodeEncodeError:
        pass
    for ch in text:
        if "\ud800" <= ch <= "\udfff":
            return f"contains a lone surrogate {ch.encode('unicode_escape').decode()} (not valid Unicode)"
    return None


def _scalar_problem(v: Any) -> str | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, float) and not math.isfinite(v):
        return f"non-finite number {v!r} (a literal too large for a double reads as infinity)"
    if isinstance(v, int) and abs(v) > SAFE_INT:
        return f"integer {v} is outside ±(2^53 - 1), which JSON cannot carry exactly"
    if isinstance(v, str):
        return _string_problem(v)
    return None


def _plainly_canonical(doc: Any) -> bool:
    """True only when the walk below would find nothing, decided by two C encoders: the standard
    library's refuses NaN and infinity, orjson's strict-integer mode refuses integers beyond
    ±(2^53 - 1) and strings or keys with a lone surrogate. Any refusal (or a type either does
    not encode) means the walk runs and names the path. A 1,000-run audit checks 1,000 manifests
    and an 8 MB analysis this way."""
    try:
        json.dumps(doc, allow_nan=False)
        orjson.dumps(doc, option=orjson.OPT_STRICT_INTEGER)
    except (TypeError, ValueError, OverflowError, RecursionError, orjson.JSONEncodeError):
        return False
    return True


def value_problems(doc: Any, limit: int = 20) -> list[str]:
    """``"$.path: problem"`` for each value a canonical record cannot hold (iterative walk).

    Args:
        doc: a parsed JSON value.
        limit: stop after this many problems.
    Returns:
        Problems in document order, at most ``limit``.
    Example:
        >>> value_problems({"lr": float("inf")})
        ['$.lr: non-finite number inf (a literal too large for a double reads as infinity)']
    """
    if _plainly_canonical(doc):
        return []
    out: list[str] = []
    stack: list[tuple[str, Any]] = [("$", doc)]
    while stack and len(out) < limit:
        path, v = stack.pop()
        if isinstance(v, dict):
            items = []
            for k, sub in v.items():
                kp = _string_problem(k) if isinstance(k, str) else None
                if kp:
                    out.append(f"{path}: key {k.encode('unicode_escape').decode()!r} {kp}")
                items.append((f"{path}.{k}", sub))
            stack.extend(reversed(items))
        elif isinstance(v, list):
            stack.extend(reversed([(f"{path}[{i}]", sub) for i, sub in enumerate(v)]))
        else:
            problem = _scalar_problem(v)
            if problem:
                out.append(f"{path.encode('unicode_escape').decode() if _string_problem(path) else path}: {problem}")
    return out
