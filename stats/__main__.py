import sys

from stats.cli import main

sys.exit(main())
