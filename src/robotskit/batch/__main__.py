"""`python -m robotskit.batch INPUT... --out results.parquet` (same as `robotskit batch`)."""

import sys

from robotskit.batch.cli import main

sys.exit(main())
