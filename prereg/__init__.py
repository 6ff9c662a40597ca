"""prereg: the root of rlprereg — preregistrations, canonical JSON, locks and record readers.

Everything here imports without torch so that a reviewer can verify a study on a laptop.
"""

from prereg.canonical import canonical_bytes, sha256_bytes, sha256_file, sha256_json
from prereg.errors import UserError

__version__ = "0.1.0"

__all__ = [
    "UserError",
    "__version__",
    "canonical_bytes",
    "sha256_bytes",
    "sha256_file",
    "sha256_json",
]
