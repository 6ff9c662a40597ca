"""prereg: the root of rlprereg — preregistrations, canonical JSON, locks and record readers.

Everything here imports without torch so that a reviewer can verify a study on a laptop.

Python API: ``from prereg import lock, verify`` (see :mod:`prereg.api`); the other stages are
``from runner import run_unit, run_sweep``, ``from stats import analyze, render`` and
``from audit import check``.
"""

# The API (prereg.api). Importing it loads the prereg.lock module first, so the names ``lock``
# and ``verify`` below are the functions; the module stays importable as ``from prereg.lock import ...``.
from prereg.api import lock, verify  # noqa: E402  (after the names it depends on)
from prereg.canonical import canonical_bytes, sha256_bytes, sha256_file, sha256_json
from prereg.errors import Refusal, UserError

__version__ = "0.1.0"

__all__ = [
    "Refusal",
    "UserError",
    "lock",
    "verify",
    "__version__",
    "canonical_bytes",
    "sha256_bytes",
    "sha256_file",
    "sha256_json",
]
