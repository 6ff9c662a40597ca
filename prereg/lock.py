"""Locks: a preregistration frozen in canonical form, hashed, timestamped and optionally signed.

A lock file is never rewritten. An amendment is a new lock (version n+1) that names the
hash of the lock it replaces and the reason, so runs made under the old version stay
checkable against exactly what they ran under.

The ``lock_hash`` is SHA-256 over the canonical body (everything but ``lock_hash`` and
``signature``); runs and analyses reference it. ``content_hash`` is SHA-256 over the
canonical preregistration alone, so the same study text locked twice has the same
content hash on any machine.
"""

from __future__ import annotations

import datetime as _dt
import functools
from dataclasses import dataclass
from pathlib import Path

from prereg.canonical import sha256_json
from prereg.errors import UserError
from prereg.gitinfo import git_state
from prereg.jsonio import read_json, write_json_atomic
from prereg.rules import LOCK_DIR, lock_files
from prereg.schema import require_valid, schema_errors
from prereg.signing import load_private_key, sign, signature_ok

LOCK_FORMAT = 1
_BODY_EXCLUDE = ("lock_hash", "signature")


def utc_now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_time(text: str) -> _dt.datetime:
    return _dt.datetime.fromisoformat(text.replace("Z", "+00:00"))


def lock_body(lock: dict) -> dict:
    return {k: v for k, v in lock.items() if k not in _BODY_EXCLUDE}


def lock_hash_of(lock: dict) -> str:
    return sha256_json(lock_body(lock))


@dataclass(frozen=True)
class Lock:
    """A verified lock as the other modules see it."""

    path: Path
    data: dict

    @property
    def prereg(self) -> dict:
        return self.data["preregistration"]

    @property
    def hash(self) -> str:
        return self.data["lock_hash"]

    @property
    def version(self) -> int:
        return self.data["version"]

    @property
    def study_id(self) -> str:
        return self.data["study_id"]

    @property
    def locked_at(self) -> str:
        return self.data["locked_at"]

    @property
    def signed(self) -> bool:
        return self.data.get("signature") is not None

    @functools.cached_property
    def study(self):
        """The preregistration as typed values (:class:`prereg.study.Study`), parsed once."""
        from prereg.study import study_of

        return study_of(self.prereg)


def read_json_strict(path: str | Path, what: str):
    """``read_json``: every record reader refuses duplicate keys now (kept for callers' names)."""
    return read_json(path, what)


def load_prereg(path: str | Path) -> dict:
    """Read and schema-validate a preregistration; one-line error naming file and field."""
    doc = read_json_strict(path, "preregistration")
    require_valid(doc, "preregistration", str(path))
    from prereg.crossfield import task_errors

    errs = task_errors(doc)  # only when locking: a verifier or auditor need not have the user's module
    if errs:
        raise UserError(f"{path}: {errs[0]}")
    return doc


def lock_filename(study_id: str, version: int) -> str:
    return f"{study_id}.lock.json" if version == 1 else f"{study_id}.v{version}.lock.json"


def build_lock(prereg: dict, *, version: int = 1, amends: dict | None = None,
               key_path: str | Path | None = None, cwd: str | Path | None = None,
               now: str | None = None) -> dict:
    lock = {
        "lock_format": LOCK_FORMAT,
        "study_id": prereg["id"],
        "version": version,
        "preregistration": prereg,
        "content_hash": sha256_json(prereg),
        "locked_at": now or utc_now(),
        "git": git_state(cwd),
        "amends": amends,
    }
    lock["lock_hash"] = lock_hash_of(lock)
    lock["signature"] = None
    if key_path is not None:
        lock["signature"] = sign(load_private_key(key_path), lock["lock_hash"].encode())
    return lock


def lock_file(prereg_path: str | Path, *, lock_dir: str | Path = LOCK_DIR,
              key_path: str | Path | None = None) -> Path:
    """Lock a preregistration; refuses invalid documents and never overwrites a lock."""
    prereg = load_prereg(prereg_path)
    lock = build_lock(prereg, key_path=key_path, cwd=Path(prereg_path).resolve().parent)
    out = Path(lock_dir) / lock_filename(prereg["id"], 1)
    write_json_atomic(out, lock, overwrite=False)
    return out


def verify_data(lock: dict, source: str, *, require_signature: bool = False,
                trusted_keys: list[str] | None = None) -> None:
    """Check one lock's own integrity: schema, content hash, lock hash, signature."""
    errs = schema_errors(lock, "lock")
    if errs:
        raise UserError(f"{source}: malformed lock: {errs[0]}")
    require_valid(lock["preregistration"], "preregistration", f"{source} (preregistration)")
    if sha256_json(lock["preregistration"]) != lock["content_hash"]:
        raise UserError(f"{source}: content_hash does not match the locked preregistration (tampered)")
    if lock["preregistration"]["id"] != lock["study_id"]:
        raise UserError(f"{source}: study_id differs from preregistration.id (tampered)")
    try:
        parse_time(lock["locked_at"])
    except ValueError:
        raise UserError(f"{source}: $.locked_at: {lock['locked_at']!r} is not a valid UTC time") from None
    if lock_hash_of(lock) != lock["lock_hash"]:
        raise UserError(f"{source}: lock_hash does not match the lock body (tampered)")
    sig = lock.get("signature")
    if sig is None:
        if require_signature:
            raise UserError(f"{source}: lock is unsigned but a signature is required")
        return
    if not signature_ok(sig, lock["lock_hash"].encode()):
        raise UserError(f"{source}: signature does not verify")
    if trusted_keys is not None and sig["public_key"] not in trusted_keys:
        raise UserError(f"{source}: signed by an untrusted key {sig['public_key'][:12]}...")


def find_lock_by_hash(lock_dir: Path, study_id: str, lock_hash: str) -> Path | None:
    """The lock of ``study_id`` in ``lock_dir`` whose hash is ``lock_hash`` (found by content, not name)."""
    return next((p for p, data in lock_files(lock_dir, study_id) if data["lock_hash"] == lock_hash), None)


def verify_lock(path: str | Path, *, require_signature: bool = False,
                trusted_keys: list[str] | None = None) -> Lock:
    """Verify a lock and, for an amendment, every lock it replaces back to version 1."""
    path = Path(path)
    data = read_json_strict(path, "lock")
    if not isinstance(data, dict):
        raise UserError(f"{path}: malformed lock: not a JSON object")
    verify_data(data, str(path), require_signature=require_signature, trusted_keys=trusted_keys)
    cur, cur_path = data, path
    seen = {data["lock_hash"]}
    while cur.get("amends"):
        prev_hash = cur["amends"]["lock_hash"]
        prev_path = find_lock_by_hash(cur_path.parent, cur["study_id"], prev_hash)
        if prev_path is None:
            raise UserError(f"{cur_path}: amends lock {prev_hash[:12]}... which is not in {cur_path.parent}")
        prev = read_json_strict(prev_path, "lock")
        verify_data(prev, str(prev_path), require_signature=require_signature, trusted_keys=trusted_keys)
        if (prev["version"] != cur["version"] - 1 or prev["version"] != cur["amends"]["version"]
                or prev["study_id"] != cur["study_id"] or prev_hash in seen):
            raise UserError(f"{cur_path}: amendment chain broken at version {cur['version']}")
        if parse_time(prev["locked_at"]) > parse_time(cur["locked_at"]):
            raise UserError(f"{cur_path}: amendment is dated before the lock it replaces")
        seen.add(prev_hash)
        cur, cur_path = prev, prev_path
    if cur["version"] != 1:
        raise UserError(f"{cur_path}: version {cur['version']} names no earlier lock (chain broken)")
    return Lock(path=path, data=data)


def latest_lock(lock_dir: Path, study_id: str) -> Path | None:
    """The highest-version lock of ``study_id`` in ``lock_dir`` (None when there is none)."""
    best, best_v = None, 0
    for cand, data in lock_files(lock_dir, study_id):
        v = data.get("version", 0)
        if isinstance(v, int) and not isinstance(v, bool) and v > best_v:
            best, best_v = cand, v
    return best


def amend_file(prereg_path: str | Path, reason: str, *, lock_dir: str | Path = LOCK_DIR,
               key_path: str | Path | None = None) -> Path:
    """Lock a changed preregistration as version n+1 of the latest lock of the same study."""
    if not reason or not reason.strip():
        raise UserError("--reason: an amendment needs a non-empty reason")
    prereg = load_prereg(prereg_path)
    lock_dir = Path(lock_dir)
    prev_path = latest_lock(lock_dir, prereg["id"])
    if prev_path is None:
        raise UserError(f"{lock_dir}: no lock of study {prereg['id']!r} to amend; use `prereg lock`")
    prev = verify_lock(prev_path)
    if sha256_json(prereg) == prev.data["content_hash"]:
        raise UserError(f"{prereg_path}: identical to {prev_path}; nothing to amend")
    version = prev.version + 1
    lock = build_lock(
        prereg, version=version, key_path=key_path, cwd=Path(prereg_path).resolve().parent,
        amends={"lock_hash": prev.hash, "version": prev.version, "reason": reason.strip()},
    )
    out = lock_dir / lock_filename(prereg["id"], version)
    write_json_atomic(out, lock, overwrite=False)
    return out
