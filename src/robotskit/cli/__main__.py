"""`python -m robotskit.cli ...`: the same as the `robotskit` console script."""

import sys

from robotskit.cli import main

sys.exit(main())
