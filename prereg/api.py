"""The Python API of the first stage: lock a preregistration, verify a lock.

The ``prereg`` CLI is a thin layer over these functions (and over :mod:`prereg.lock`, which
holds the rules); errors are :class:`prereg.errors.UserError` (bad input) and its subclass
:class:`prereg.errors.Refusal`, which only the CLI turns into one ``error:`` line and exit 2.
"""

from __future__ import annotations

from pathlib import Path

from prereg import lock as _lock_module
from prereg.lock import Lock
from prereg.rules import LOCK_DIR


def lock(prereg_path: str | Path, *, lock_dir: str | Path = LOCK_DIR, key_path: str | Path | None = None) -> Path:
    """Validate a preregistration and write its lock (version 1) into ``lock_dir``.

    The lock holds the preregistration, its content hash and the time it was locked; with
    ``key_path`` it is also signed (Ed25519). An existing lock is never overwritten.

    Args:
        prereg_path: the preregistration JSON file (``prereg init`` writes a template).
        lock_dir: folder for ``<study id>.lock.json`` (created when missing).
        key_path: an Ed25519 private key (PEM) to sign the lock with.

    Returns:
        The path of the lock file written.

    Raises:
        UserError: the preregistration is invalid (the message names the file and field), or a
            lock of the study already exists.

    Example:
        >>> import shutil, tempfile
        >>> from pathlib import Path
        >>> from prereg import lock, verify
        >>> from prereg.cli import template_bytes
        >>> tmp = Path(tempfile.mkdtemp())
        >>> _ = (tmp / "demo.json").write_bytes(template_bytes("demo"))   # `prereg init --template demo`
        >>> path = lock(tmp / "demo.json", lock_dir=tmp / "locks")
        >>> path.name, verify(path).version
        ('demo.lock.json', 1)
        >>> lock(tmp / "demo.json", lock_dir=tmp / "locks")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        prereg.errors.UserError: ...already exists...
        >>> shutil.rmtree(tmp)
    """
    return _lock_module.lock_file(prereg_path, lock_dir=lock_dir, key_path=key_path)


def verify(lock_path: str | Path, *, require_signature: bool = False,
           trusted_keys: list[str] | None = None) -> Lock:
    """Verify a lock: its hash, its signature, and for an amendment every lock back to version 1.

    Args:
        lock_path: the ``*.lock.json`` file; amended versions are looked up in the same folder.
        require_signature: refuse an unsigned lock.
        trusted_keys: base64 Ed25519 public keys; when given, the lock must be signed by one.

    Returns:
        The verified :class:`prereg.lock.Lock` (``study_id``, ``hash``, ``version``, ``prereg``, ...).

    Raises:
        UserError: the file is missing or malformed, the hash or signature does not match, or the
            amendment chain is broken (the message says which).

    Example:
        >>> import json, shutil, tempfile
        >>> from pathlib import Path
        >>> from prereg import lock, verify
        >>> from prereg.cli import template_bytes
        >>> tmp = Path(tempfile.mkdtemp())
        >>> _ = (tmp / "demo.json").write_bytes(template_bytes("demo"))
        >>> path = lock(tmp / "demo.json", lock_dir=tmp / "locks")
        >>> v = verify(path)
        >>> v.study_id, v.version, v.study.baseline_arm, v.study.seeds
        ('demo', 1, 'grpo', (1, 2, 3))
        >>> doc = json.loads(path.read_text())
        >>> doc["preregistration"]["seeds"] = [1, 2]                       # an edit after locking
        >>> _ = path.write_text(json.dumps(doc))
        >>> verify(path)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        prereg.errors.UserError: ...tampered...
        >>> shutil.rmtree(tmp)
    """
    return _lock_module.verify_lock(lock_path, require_signature=require_signature, trusted_keys=trusted_keys)
