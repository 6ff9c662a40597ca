"""The project's git commit and dirty flag, recorded in locks and fingerprints.

Absent git or repository is not an error: the record says ``null`` rather than guessing.
"""

from __future__ import annotations

import subprocess
from pathlib import Path


def git_state(cwd: str | Path | None = None) -> dict | None:
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=cwd, capture_output=True, text=True, timeout=10
        )
        if commit.returncode != 0:
            return None
        status = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=cwd, capture_output=True, text=True, timeout=10,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return {"commit": commit.stdout.strip(), "dirty": bool(status.stdout.strip())}
