"""Ed25519 signatures over lock hashes (``cryptography``), so a lock can be tied to a person.

``cryptography`` is imported by the function that signs, loads or verifies, not with the module:
``prereg.lock`` imports this module, so every CLI, ``--help`` included, and every torch-free import
check paid for it (~60 ms) though most runs check no signature.
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import TYPE_CHECKING

from prereg.errors import UserError
from prereg.jsonio import read_text, write_atomic

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey


def keygen(private_path: str | Path) -> tuple[Path, Path]:
    """Write an unencrypted PEM private key and ``<path>.pub``; never overwrite either."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    priv = Ed25519PrivateKey.generate()
    p = Path(private_path)
    pub = p.with_name(p.name + ".pub")
    pem = priv.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    pub_pem = priv.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    if pub.exists():
        raise UserError(f"{pub}: already exists; refusing to overwrite")
    write_atomic(p, pem, overwrite=False, mode=0o600)  # never readable by others, not even briefly
    write_atomic(pub, pub_pem, overwrite=False)
    return p, pub


def load_private_key(path: str | Path) -> Ed25519PrivateKey:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    p = Path(path)
    data = read_text(p, "signing key").encode()
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError) as exc:
        raise UserError(f"{p}: not a PEM private key ({exc})") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise UserError(f"{p}: not an Ed25519 private key")
    return key


def public_key_b64(key: Ed25519PrivateKey) -> str:
    from cryptography.hazmat.primitives import serialization

    raw = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return base64.b64encode(raw).decode()


def load_public_key_b64(path: str | Path) -> str:
    """Accept either a ``.pub`` PEM or a private key file; return the raw public key in base64."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    p = Path(path)
    data = read_text(p, "public key").encode()
    try:
        pub = serialization.load_pem_public_key(data)
    except ValueError:
        if b"PRIVATE KEY" not in data:  # neither kind: say so, not "not a private key"
            raise UserError(f"{p}: not a PEM public key (nor a private key)") from None
        return public_key_b64(load_private_key(p))
    if not isinstance(pub, Ed25519PublicKey):
        raise UserError(f"{p}: not an Ed25519 public key")
    raw = pub.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return base64.b64encode(raw).decode()


def sign(key: Ed25519PrivateKey, message: bytes) -> dict:
    return {
        "algorithm": "ed25519",
        "public_key": public_key_b64(key),
        "value": base64.b64encode(key.sign(message)).decode(),
    }


def _b64_strict(text: str) -> bytes:
    """Decode base64 that must be in canonical form.

    ``b64decode(validate=True)`` ignores the unused low bits of the last character, so two
    spellings decode to the same bytes; a lock byte changed there would go unnoticed.
    """
    raw = base64.b64decode(text, validate=True)
    if base64.b64encode(raw).decode("ascii") != text:
        raise ValueError("non-canonical base64")
    return raw


def signature_ok(signature: dict, message: bytes) -> bool:
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    try:
        pub = Ed25519PublicKey.from_public_bytes(_b64_strict(signature["public_key"]))
        pub.verify(_b64_strict(signature["value"]), message)
    except (InvalidSignature, ValueError, KeyError, TypeError):
        return False
    return True
