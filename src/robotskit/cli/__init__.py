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
from typing import TYPE_CHECKING

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
    except RuntimeError as exc:
        # Python wraps what a class body's `__set_name__` raises (dataclass fields, cached
        # properties) in RuntimeError: a Ctrl-C landing there while a module loads arrives so.
        if interrupted(exc):
            return 130
        raise


def interrupted(exc: BaseException) -> bool:
    """Is a KeyboardInterrupt the cause (or context) of `exc`, however deep?"""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, KeyboardInterrupt):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


if not TYPE_CHECKING:  # (hidden from type checkers: a misspelt name is then an error)
    from robotskit._lazy import lazy_names

    __getattr__, __dir__ = lazy_names(__name__, _LAZY, globals())
