"""runner: trains one registered (arm, seed) of a locked study with TRL and seals its record.

Kept light on purpose: importing ``runner`` must not import torch, so that the CLI can
print a one-line refusal (bad lock, unregistered arm) without paying for the ML stack.

Python API: ``from runner import run_unit, run_sweep`` (see :mod:`runner.api`).
"""

from prereg import __version__
from runner.api import evaluate_reference, run_sweep, run_unit
from runner.sweep.model import SweepOptions, SweepResult

__all__ = ["SweepOptions", "SweepResult", "__version__", "evaluate_reference", "run_sweep", "run_unit"]
