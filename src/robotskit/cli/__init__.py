"""The `robotskit` command line: check, explain, lint, fetch, audit and batch.

Owns argument parsing, reading ROBOTS (a file, `-` for stdin, or a robots.txt URL fetched
with `RobotsClient`), and rendering: a readable default (colour only on a terminal, NO_COLOR
respected, via rich) and one stable JSON document per command with `--json` (docs/cli.md).
Exit codes follow Google's robots_main: 0 allowed / clean, 1 disallowed / findings, 2 usage
or I/O error. It uses only the public API; `audit` and `batch` are imported on demand.

Layout: `_sources` (ROBOTS, URLs, agents, exit statuses), `_output` (text and JSON rendering),
one module per command (`_check` with explain, `_lint`, `_fetch`, `_audit`), and `_main` (the
parser and the dispatcher).
"""

from __future__ import annotations

from robotskit.cli._main import build_parser, main
from robotskit.cli._sources import default_cache_path, split_targets

__all__ = ["build_parser", "default_cache_path", "main", "split_targets"]
