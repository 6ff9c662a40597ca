"""``python -m prereg`` is the ``prereg`` console script."""

import sys

from prereg.cli import main

sys.exit(main())
