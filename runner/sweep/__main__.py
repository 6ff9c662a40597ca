"""``python -m runner.sweep``: the sweep CLI, and ``--child`` for one unit's ``runner run``."""

import sys

from runner.sweep.cli import main

sys.exit(main())
