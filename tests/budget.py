"""How much randomized work a test run does: the development budget or CI's full one.

``HYPOTHESIS_PROFILE=ci`` (set by ``make test``, which CI runs) gives every property test its
full example count; unset, or ``dev``, gives the fast tier's smaller count (derandomized, so a
development run is repeatable). ``tests/conftest.py`` loads the same profile into hypothesis, so
a test without its own count follows it too.
"""

from __future__ import annotations

import os

PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "dev")
if PROFILE not in ("dev", "ci"):
    raise ValueError(f"HYPOTHESIS_PROFILE: expected 'dev' or 'ci', got {PROFILE!r}")
CI = PROFILE == "ci"


def examples(ci: int, dev: int) -> int:
    """The example count for this run: ``ci`` under the CI profile, ``dev`` otherwise.

    Args:
        ci: the full count CI runs (what the test was sized for).
        dev: the fast tier's count, enough to exercise every branch the strategy reaches.

    Returns:
        ``ci`` when ``HYPOTHESIS_PROFILE=ci``, else ``dev``.

    Example:
        >>> @settings(max_examples=examples(ci=300, dev=30))  # doctest: +SKIP
    """
    return ci if CI else dev
