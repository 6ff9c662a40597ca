"""The free settings of ``runner run``, one object for ``run`` and ``sweep``.

``runner run`` reads them from its command line; ``runner sweep`` reads the same flags and
hands the object to every unit, whose child ``runner run`` gets them back as arguments
(:meth:`RunOptions.argv`), so the mapping flag <-> setting is written once, here. None of
them touches the science (that is the lock's); each is recorded in the manifest's settings.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, replace
from pathlib import Path


@dataclass(frozen=True)
class RunOptions:
    device: str | None = None            # None: the runner's default (cpu)
    store_text: bool = False
    require_signature: bool = False
    trusted_keys: tuple[str, ...] = ()
    report_to: tuple[str, ...] = ()
    tensorboard_dir: str | None = None
    sign_key: str | None = None

    @classmethod
    def from_args(cls, args: argparse.Namespace, *, absolute_paths: bool = False) -> RunOptions:
        """The options of a parsed ``runner run`` or ``runner sweep`` command line.

        ``absolute_paths``: for a sweep, whose units may run in another working directory.
        """
        from runner.trackers import parse_report_to

        tb = getattr(args, "tensorboard_dir", None)
        return cls(device=getattr(args, "device", None), store_text=bool(getattr(args, "store_text", False)),
                   require_signature=bool(getattr(args, "require_signature", False)),
                   trusted_keys=tuple(getattr(args, "trusted_key", None) or ()),
                   report_to=tuple(parse_report_to(getattr(args, "report_to", None))),
                   tensorboard_dir=(str(Path(tb).resolve()) if absolute_paths else tb) if tb else None,
                   sign_key=getattr(args, "sign", None))

    def with_(self, **changes) -> RunOptions:
        return replace(self, **changes)

    def argv(self) -> list[str]:
        """The same options as ``runner run`` arguments (for a sweep's child process).

        ``RunOptions.from_args`` of these arguments parsed by ``runner run`` or ``runner sweep``
        is this object again (tests/test_runner_options.py), so neither CLI rebuilds the mapping.
        """
        out: list[str] = ["--device", self.device] if self.device else []
        out += ["--store-text"] if self.store_text else []
        out += ["--require-signature"] if self.require_signature else []
        for key in self.trusted_keys:
            out += ["--trusted-key", key]
        out += ["--report-to", ",".join(self.report_to)] if self.report_to else []
        out += ["--tensorboard-dir", self.tensorboard_dir] if self.tensorboard_dir else []
        out += ["--sign", self.sign_key] if self.sign_key else []
        return out

    def run_unit_kwargs(self) -> dict:
        """The same options as keyword arguments of :func:`runner.run_unit`."""
        kw = {"store_text": self.store_text, "require_signature": self.require_signature,
              "trusted_keys": list(self.trusted_keys) or None, "report_to": list(self.report_to) or None,
              "tensorboard_dir": self.tensorboard_dir, "sign_key": self.sign_key}
        return {**kw, "device": self.device} if self.device else kw
