"""The one manifest reader: run folders, their seals and artifact digests.

The runner writes run folders; stats and audit read them through this module only, so
the on-disk contract (``schemas/manifest.schema.json``) lives in one place.

Run folder layout (``runs/<study>/<arm>/s<seed>/``)::

    manifest.json            sealed record (see schema)
    telemetry.jsonl          one line per optimizer step
    traces/train.jsonl       one line per training completion
    traces/heldout.jsonl     one line per held-out item
    adapter/...              PEFT adapter files
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path

from prereg.canonical import sha256_file, sha256_json
from prereg.errors import UserError
from prereg.jsonio import read_json, read_jsonl, write_json_atomic
from prereg.rules import MANIFEST
from prereg.schema import schema_errors

TELEMETRY = "telemetry.jsonl"
TRAIN_TRACE = "traces/train.jsonl"
HELDOUT_TRACE = "traces/heldout.jsonl"
ADAPTER_DIR = "adapter"
# Files in a run folder that are not artifacts (unit lock, in-progress checkpoints).
NON_ARTIFACTS = (".unit.lock", "checkpoints/")


ONCE = "once"  # folder of a reference arm evaluated once (no seed; README failure 16)


def seed_tag(seed: int | None) -> str:
    """``s7`` for seed 7, ``once`` for a reference arm evaluated once (no seed): the one name of a run
    in its folder, in analysis.json value ids (``runs.<arm>.<tag>.*``), in imported tables and in
    the rendered run columns.

    Args:
        seed: the run's seed, or None for a reference arm evaluated once.

    Returns:
        The tag.

    Example:
        >>> seed_tag(7), seed_tag(None)
        ('s7', 'once')
    """
    return ONCE if seed is None else f"s{seed}"


def unit_dir(out: str | Path, study_id: str, arm: str, seed: int | None) -> Path:
    """``out/<study>/<arm>/s<seed>``; ``.../<arm>/once`` for a reference evaluated once (seed None)."""
    return Path(out) / study_id / arm / seed_tag(seed)


def check_session(session: str | None, declared=()) -> str | None:
    """An evaluation session name (``--session``) as recorded, or a one-line error naming the flag.

    When the lock declares its sessions (``declared``: the preregistration's ``sessions``), a name
    it does not declare is refused before anything is written: the runner runs only what was fixed
    (README failure 16); a plan that declares none keeps the session a free setting.

    Example:
        >>> check_session(" 2025-03 batch ")
        '2025-03 batch'
        >>> check_session("s3", ("s1", "s2"))
        Traceback (most recent call last):
        prereg.errors.UserError: --session 's3': the lock declares sessions 's1', 's2' only
    """
    if session is None:
        return None
    name = str(session).strip()
    if not name or any(ord(c) < 32 for c in name):
        raise UserError(f"--session {session!r}: must be a non-empty name without control characters")
    declared = tuple(declared)
    if declared and name not in declared:
        raise UserError(f"--session {name!r}: the lock declares sessions {', '.join(map(repr, declared))} only")
    return name


def is_reference_run(manifest: dict) -> bool:
    """Whether a manifest records a reference evaluation (``runner evaluate``: nothing trained)."""
    return isinstance(manifest, dict) and manifest.get("kind") == "reference"


SIGNATURE = "signature"  # outside the seal: it signs the seal itself


def seal_of(manifest: dict) -> str:
    """SHA-256 of the canonical manifest without ``seal`` and ``signature``."""
    return sha256_json({k: v for k, v in manifest.items() if k not in ("seal", SIGNATURE)})


def seal(manifest: dict, key=None) -> dict:
    """The manifest with its seal; signed over the seal with ``key`` (Ed25519) when given.

    A stale signature never survives re-sealing: an edited record is unsigned until the
    holder of a key signs it again (README "Record guarantees").
    """
    out = {k: v for k, v in manifest.items() if k != SIGNATURE}
    out["seal"] = seal_of(out)
    if key is not None:
        from prereg.signing import sign

        out[SIGNATURE] = sign(key, out["seal"].encode())
    return out


def write_manifest(run_dir: str | Path, manifest: dict, key=None) -> dict:
    """Seal (and sign, with ``key``) and atomically write; returns the sealed manifest."""
    sealed = seal(manifest, key)
    write_json_atomic(Path(run_dir) / MANIFEST, sealed)
    return sealed


def signature_problem(manifest: dict, trusted_keys: list[str] | None = None) -> str | None:
    """Why a manifest's signature does not vouch for it, or None when it does.

    Args:
        manifest: a parsed manifest.
        trusted_keys: base64 Ed25519 public keys; None accepts any key that verifies.
    Returns:
        None, or "unsigned" / "signature does not verify" / "signed by an untrusted key ...".
    Example:
        >>> signature_problem({"seal": "ab"})
        'unsigned'
    """
    from prereg.signing import signature_ok

    sig = manifest.get(SIGNATURE)
    if sig is None:
        return "unsigned"
    if not isinstance(sig, dict) or not isinstance(manifest.get("seal"), str) \
            or not signature_ok(sig, manifest["seal"].encode()):
        return "signature does not verify over the seal"
    if trusted_keys is not None and sig.get("public_key") not in trusted_keys:
        return f"signed by an untrusted key {str(sig.get('public_key'))[:12]}..."
    return None


def artifact_files(run_dir: str | Path) -> dict[str, Path]:
    """Every artifact file of a run folder (relative POSIX path -> path): all files except the
    manifest, non-artifacts and hidden files. The runner digests these; the audit compares them.

    Listed with ``os.scandir`` as ``sorted(run_dir.rglob("*"))`` would list them (a symlink to a
    file counts, a symlinked folder is not entered, an unreadable folder is skipped, paths in
    ``Path`` order), at a fifth of its cost: the audit lists 1,000 run folders.
    """
    run_dir = Path(run_dir)
    out = {}
    for rel in sorted(_files_under(str(run_dir), ""), key=lambda r: r.split("/")):
        if rel == MANIFEST or rel.startswith(NON_ARTIFACTS) or "/." in "/" + rel:
            continue
        out[rel] = run_dir / rel
    return out


def _files_under(top: str, prefix: str) -> list[str]:
    """Relative paths (``prefix`` + name) of the files under ``top``, recursively."""
    try:
        with os.scandir(top) as it:
            entries = list(it)
    except (PermissionError, FileNotFoundError, NotADirectoryError):
        return []
    found = []
    for e in entries:
        try:
            if e.is_dir():
                if not e.is_symlink():
                    found += _files_under(e.path, f"{prefix}{e.name}/")
            elif e.is_file():
                found.append(prefix + e.name)
        except OSError:
            continue
    return found


def artifact_digests(run_dir: str | Path) -> dict:
    """Digest every artifact file of a run folder (see :func:`artifact_files`)."""
    return {rel: {"sha256": sha256_file(p), "bytes": p.stat().st_size} for rel, p in artifact_files(run_dir).items()}


def recorded_reward_bounds(manifest: dict) -> tuple[float, float] | None:
    """The reward bounds a run's manifest records for its task, or None when it records no valid pair.

    The one reader of ``task.reward_bounds`` (the audit's check 7 and the stats loader both come
    here, so they cannot disagree about which manifests declare bounds; README failure 5). The
    runner writes exactly one shape (``runner.tasks.base.Task.manifest_record``, and the manifest
    schema allows only it): ``task.reward_bounds`` as a list ``[min, max]`` of two numbers. A
    top-level ``reward_bounds``, a ``{"min", "max"}`` dict, a bool, a NaN/infinite number or a
    reversed pair (min > max) is not a declaration and reads as None; what a caller falls back to
    (the registered scorer's range in the audit, no reward range in stats) is the caller's rule.

    Args:
        manifest: a run manifest as read from disk (any JSON value).

    Returns:
        ``(min, max)`` as floats with ``min <= max``, both finite; None otherwise.

    Example:
        >>> recorded_reward_bounds({"task": {"reward_bounds": [-0.1, 1.6]}})
        (-0.1, 1.6)
        >>> recorded_reward_bounds({"task": {"reward_bounds": [1.0, 0.0]}}) is None
        True
    """
    rec = manifest.get("task") if isinstance(manifest, dict) else None
    b = rec.get("reward_bounds") if isinstance(rec, dict) else None
    if not isinstance(b, list) or len(b) != 2 or not all(_finite_number(x) for x in b) or b[0] > b[1]:
        return None
    return float(b[0]), float(b[1])


def _finite_number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


@dataclass(frozen=True)
class TaskRecord:
    """What a task declared about itself in a run's manifest (``task``), see Task.manifest_record."""

    name: str
    reward_bounds: tuple[float, float]
    item_metrics: dict  # name -> {"unit": ..., "max"/"range": ...}

    def item_max(self, metric: str) -> float | None:
        """The largest value a per-item metric can take (its ``max``, else the top of its ``range``)."""
        decl = self.item_metrics.get(metric)
        if not isinstance(decl, dict):
            return None
        top = decl.get("max", (decl.get("range") or [None, None])[1])
        return float(top) if isinstance(top, (int, float)) and not isinstance(top, bool) else None


def task_record(manifest: dict) -> TaskRecord | None:
    """The manifest's task record, or None when it has none (or one of the wrong shape, or no valid
    reward bounds by :func:`recorded_reward_bounds`).

    Example:
        >>> task_record({"task": {"name": "connections", "reward_bounds": [-0.1, 1.6], "item_metrics": {}}})
        TaskRecord(name='connections', reward_bounds=(-0.1, 1.6), item_metrics={})
    """
    rec = manifest.get("task") if isinstance(manifest, dict) else None
    if not isinstance(rec, dict):
        return None
    bounds = recorded_reward_bounds(manifest)
    if bounds is None:
        return None
    metrics = rec.get("item_metrics") if isinstance(rec.get("item_metrics"), dict) else {}
    return TaskRecord(str(rec.get("name")), bounds, metrics)


@dataclass
class Run:
    """A run folder as read from disk; nothing here is trusted until the audit checks it."""

    path: Path
    manifest: dict

    @property
    def arm(self) -> str:
        return self.manifest["arm"]

    @property
    def seed(self) -> int:
        return self.manifest["seed"]

    @property
    def seal(self) -> str:
        return self.manifest["seal"]

    @property
    def status(self) -> str:
        return self.manifest["status"]

    @property
    def confirmatory(self) -> bool:
        return self.manifest["evidence_class"] == "confirmatory"

    @property
    def lock_hash(self) -> str:
        return self.manifest["lock"]["hash"]

    def seal_ok(self) -> bool:
        return seal_of(self.manifest) == self.manifest.get("seal")

    def telemetry(self) -> list[dict]:
        return read_jsonl(self.path / TELEMETRY, "telemetry")

    def train_trace(self) -> list[dict]:
        return read_jsonl(self.path / TRAIN_TRACE, "training trace")

    def heldout_trace(self) -> list[dict]:
        return read_jsonl(self.path / HELDOUT_TRACE, "held-out trace")


def read_run(run_dir: str | Path) -> Run:
    run_dir = Path(run_dir)
    m = read_json(run_dir / MANIFEST, "run manifest")
    errs = schema_errors(m, "manifest")
    if errs:
        raise UserError(f"{run_dir / MANIFEST}: malformed manifest: {errs[0]}")
    return Run(path=run_dir, manifest=m)
