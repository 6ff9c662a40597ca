"""Hash-chained JSON-lines logs (the sweep log): a deleted, inserted or reordered line shows.

Each event carries ``chain: {"n": <line number from 0>, "prev": <SHA-256 of the previous
line's bytes>}`` (``prev`` of line 0 is 64 zeros) and, when written with a key, an Ed25519
``signature`` over the SHA-256 of the canonical event without it. Appends happen under the
caller's file lock, so concurrent writers (sweep drivers, Ray workers on shared storage) extend
one chain. The chain alone stops accidents and casual edits; the signatures stop a forger who
would recompute it (README "Record guarantees").
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from prereg.canonical import sha256_json

GENESIS = "0" * 64


def _tail(path: Path, chunk: int = 65536) -> tuple[bytes, bool]:
    """(last line's bytes, file ends with a newline); b"" for an empty or missing file."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return b"", True
    if size == 0:
        return b"", True
    with open(path, "rb") as fh:
        data, pos = b"", size
        while pos > 0:
            step = min(chunk, pos)
            pos -= step
            fh.seek(pos)
            data = fh.read(step) + data
            body = data[:-1] if data.endswith(b"\n") else data
            if b"\n" in body or pos == 0:
                break
    ends = data.endswith(b"\n")
    body = data[:-1] if ends else data
    last = body.rsplit(b"\n", 1)[-1]
    return last + b"\n", ends


def _event_hash(event: dict) -> str:
    return sha256_json({k: v for k, v in event.items() if k != "signature"})


def append_chained(path: str | Path, event: dict, key=None) -> dict:
    """Append ``event`` as one chained line; the caller holds the log's file lock.

    Args:
        path: the JSON-lines log.
        event: a JSON object (``chain`` and ``signature`` are set here).
        key: an Ed25519 private key, or None for an unsigned event.
    Returns:
        The event as written.
    Example:
        ``append_chained("runs/e1/sweep.jsonl", {"event": "sweep_start"})``
    """
    path = Path(path)
    last, ends = _tail(path)
    n = 0
    if last:
        try:
            n = int(json.loads(last)["chain"]["n"]) + 1
        except (ValueError, KeyError, TypeError):  # a torn or unchained last line: count lines
            with open(path, "rb") as fh:
                n = sum(1 for _ in fh)
    ev = {**{k: v for k, v in event.items() if k not in ("chain", "signature")},
          "chain": {"n": n, "prev": hashlib.sha256(last).hexdigest() if last else GENESIS}}
    if key is not None:
        from prereg.signing import sign

        ev["signature"] = sign(key, _event_hash(ev).encode())
    line = json.dumps(ev, sort_keys=True, allow_nan=False) + "\n"
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(line if ends else "\n" + line)  # a torn last line becomes its own (hashed) line
        fh.flush()
        os.fsync(fh.fileno())
    return ev


@dataclass(frozen=True)
class ChainProblem:
    line: int      # 1-based
    message: str
    expected: str
    found: str


def verify_chain(path: str | Path, trusted_keys: list[str] | None = None) -> tuple[list[dict], list[ChainProblem]]:
    """Every readable event of a chained log, and what breaks the chain (first break per kind).

    ``trusted_keys`` (base64 Ed25519) requires each chained event to carry a signature by one of
    them. Unchained lines before the first chained one are accepted (logs written before chaining).
    """
    from prereg.signing import signature_ok

    raw = Path(path).read_bytes().splitlines(keepends=True)
    events, problems, chained, prev = [], [], False, None
    for i, line in enumerate(raw):
        try:
            ev = json.loads(line)
        except ValueError:
            ev = None
        if not isinstance(ev, dict):
            if i != len(raw) - 1:
                problems.append(ChainProblem(i + 1, "sweep log line is not a JSON object (torn or edited)",
                                             "one JSON object", repr(line[:60])))
            prev = line
            continue
        events.append(ev)
        ch = ev.get("chain")
        if not isinstance(ch, dict):
            if chained:
                problems.append(ChainProblem(i + 1, "unchained line inside a hash-chained sweep log (inserted)",
                                             "a chain field", "none"))
            prev = line
            continue
        want = hashlib.sha256(prev).hexdigest() if prev is not None else GENESIS
        if ch.get("n") != i or ch.get("prev") != want:
            problems.append(ChainProblem(i + 1, "sweep log hash chain broken: a line was deleted, inserted, "
                                         "edited or reordered", f"n {i}, prev {want[:12]}",
                                         f"n {ch.get('n')!r}, prev {str(ch.get('prev'))[:12]}"))
        chained = True
        sig = ev.get("signature")
        if sig is not None and not signature_ok(sig, _event_hash(ev).encode()):
            problems.append(ChainProblem(i + 1, "sweep log event signature does not verify (edited)",
                                         "a valid signature", "invalid"))
        elif trusted_keys is not None and (sig is None or sig.get("public_key") not in trusted_keys):
            problems.append(ChainProblem(i + 1, "sweep log event not signed by a trusted run key",
                                         "a signature by --trusted-run-key", "unsigned" if sig is None else
                                         f"key {str(sig.get('public_key'))[:12]}..."))
        prev = line
    return events, _first_per_kind(problems)


def _first_per_kind(problems: list[ChainProblem]) -> list[ChainProblem]:
    seen, out = set(), []
    for p in problems:
        if p.message not in seen:
            seen.add(p.message)
            out.append(p)
    return out
