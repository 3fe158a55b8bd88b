"""`python -m robotskit.batch INPUT... --out results.parquet` (same as `robotskit batch`).

Through `robotskit.cli.main`, which imports the command inside its Ctrl-C handling: a press
while the command loads ends it with status 130 and no traceback."""

import sys

from robotskit.cli import main

sys.exit(main(["batch", *sys.argv[1:]]))
