"""The one error type that every CLI turns into a single line and exit status 2.

Raising ``UserError`` anywhere (bad file, bad field, refused action) means "the user's
input is wrong"; anything else escaping is a bug and keeps its traceback.
"""

from __future__ import annotations


class UserError(Exception):
    """Bad input or a refused action; the message must name the field or file."""

    exit_code = 2


class Refusal(UserError):
    """An action the lock forbids (unregistered arm, changed locked field, ...)."""
