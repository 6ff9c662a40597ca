"""The one error type that every CLI turns into a single line and exit status 2.

Raising ``UserError`` anywhere (bad file, bad field, refused action) means "the user's
input is wrong"; anything else escaping is a bug and keeps its traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable


class UserError(Exception):
    """Bad input or a refused action; the message must name the field or file."""

    exit_code = 2


class Refusal(UserError):
    """An action the lock forbids (unregistered arm, changed locked field, ...)."""


class OneLineParser(argparse.ArgumentParser):
    """argparse whose usage mistakes are one ``error: ...`` line and exit status 2, like any bad input."""

    def error(self, message: str):
        print(f"error: {message}", file=sys.stderr)
        raise SystemExit(2)


INTERRUPTED_EXIT = 130  # the shell's status for a process ended by Ctrl-C (128 + SIGINT)


def run_cli(fn: Callable[..., int], *args, interrupted: str = "interrupted",
            format_error: Callable[[UserError], str] = str) -> int:
    """Every CLI's outer layer, so the bad-input contract is kept in one place.

    A ``UserError`` becomes one ``error: ...`` line on stderr and its exit code; Ctrl-C becomes
    ``error: <interrupted>`` and 130 instead of a traceback. Anything else is a bug and escapes.
    """
    try:
        return fn(*args)
    except UserError as exc:
        print(f"error: {format_error(exc)}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print(f"error: {interrupted}", file=sys.stderr)
        return INTERRUPTED_EXIT
