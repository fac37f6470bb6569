"""``python -m ratings``: the rating engines on the command line (standard library only)."""

import sys

from ratings.engine.cli import main

sys.exit(main())
