"""The `robotskit` command line: check, explain, lint, fetch, audit, diff, cache and batch.

Owns argument parsing, reading ROBOTS (a file, `-` for stdin, or a robots.txt URL fetched
with `RobotsClient`), and rendering: a readable default (colour only on a terminal, NO_COLOR
respected, via rich) and one stable JSON document per command with `--json` (docs/cli.md).
Exit codes (one table, `_help.EXIT_CODES`): 0 allowed / clean / unchanged, 1 disallowed /
findings / changed, 2 usage error, ambiguous or unreadable input, failed fetch. Every answer
says where its robots.txt came from (`_origin`). `audit` and `batch` are imported on demand.

Layout: `_sources` (ROBOTS, URLs, agents: `agent_value` is the one place an --agent string
becomes an agent; the client with its Gemini pins; exit statuses), `_origin` (file, stdin,
fetched, cached, stale), `_output` (text and JSON rendering), `_help` (examples, exit codes),
one module per command (`_check` with explain, `_lint`, `_fetch`, `_audit`, `_diff`, `_cache`),
and `_main` (the parser, where every subcommand is registered, and the dispatcher).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from robotskit.cli._main import build_parser
    from robotskit.cli._sources import default_cache_path, split_targets

__all__ = ["build_parser", "default_cache_path", "main", "split_targets"]

_LAZY = {
    "build_parser": "robotskit.cli._main",
    "default_cache_path": "robotskit.cli._sources",
    "split_targets": "robotskit.cli._sources",
}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (the console script exits with it).

    Everything the commands need is imported here, inside the Ctrl-C handling: the console script
    imports only this light module, so a Ctrl-C while the command is still loading (about 0.2 s)
    ends it with status 130 and no traceback.
    """
    try:
        from robotskit.cli._main import main as run  # noqa: PLC0415

        return run(argv)
    except KeyboardInterrupt:
        return 130


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'robotskit.cli' has no attribute {name!r}")
    import importlib  # noqa: PLC0415

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
