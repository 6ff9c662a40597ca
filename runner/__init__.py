"""runner: trains one registered (arm, seed) of a locked study with TRL and seals its record.

Kept light on purpose: importing ``runner`` must not import torch, so that the CLI can
print a one-line refusal (bad lock, unregistered arm) without paying for the ML stack.
"""

from prereg import __version__

__all__ = ["__version__"]
