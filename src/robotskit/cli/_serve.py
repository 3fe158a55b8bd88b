"""`robotskit serve`: the robots.txt tester in the browser (needs the `web` extra).

Self-contained: `add_serve(subparsers)` registers the command; its handler takes only `args`.
The web package is imported when the command runs, so the rest of the CLI never needs Starlette.
"""

from __future__ import annotations

import argparse
import math
import sys

from robotskit.cache import open_cache
from robotskit.cli._sources import CliError, cache_spec
from robotskit.errors import RobotskitError

__all__ = ["add_serve", "cmd_serve"]

_EXIT_USAGE = 2


def add_serve(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register `serve` on the CLI's subparsers."""
    serve = subparsers.add_parser(
        "serve",
        help="open the robots.txt tester in the browser (needs robotskit[web])",
        description="Serve the robots.txt tester page on 127.0.0.1 and print its address.",
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8009, help="port (default 8009; 0 picks a free one)")
    serve.add_argument(
        "--cache",
        metavar="PATH|URL",
        help="SQLite file or cache URL for 'fetch from site' (default: the CLI's SQLite cache)",
    )
    serve.add_argument("--no-cache", action="store_true", help="keep fetched files in memory only")
    serve.add_argument("--timeout", type=float, default=10.0, help="seconds per fetch (default 10)")
    serve.set_defaults(handler=cmd_serve)


def _usage(message: str) -> int:
    print(f"robotskit: error: {message}", file=sys.stderr)
    return _EXIT_USAGE


def _checked_cache(args: argparse.Namespace) -> str:
    """The cache URL, opened once now: the page opens it on its first fetch, where a bad --cache
    (an unknown scheme, a file that is no SQLite database) would fail every request instead."""
    spec = cache_spec(args)
    try:
        open_cache(spec).close()
    except ValueError as exc:  # urlsplit: a broken [IPv6] host
        raise CliError(f"cannot read cache URL {spec!r}: {exc}") from exc
    return spec


def cmd_serve(args: argparse.Namespace) -> int:
    """Run the tester until Ctrl-C; exit 2 when the web extra is missing or the port is taken."""
    try:
        from robotskit.web.server import serve  # noqa: PLC0415 - optional extra
    except ImportError as exc:
        return _usage(
            f"robotskit serve needs the web extra (starlette, uvicorn): pip install 'robotskit[web]' ({exc})"
        )
    if not 0 <= args.port <= 65535:
        return _usage(f"--port {args.port} is not a port (0-65535)")
    # NaN and infinity would never time out: every fetch from the page could hang for good.
    if not (math.isfinite(args.timeout) and args.timeout > 0):
        return _usage(f"--timeout must be a positive number of seconds (finite), not {args.timeout}")
    try:
        cache = _checked_cache(args)
    except (CliError, RobotskitError, OSError) as exc:  # RobotskitError: no SQLite file, no redis
        return _usage(str(exc))
    try:
        serve(args.host, args.port, cache=cache, timeout=args.timeout)
    except OSError as exc:
        print(f"robotskit: error: cannot listen on {args.host}:{args.port}: {exc}", file=sys.stderr)
        return _EXIT_USAGE
    except KeyboardInterrupt:
        pass
    return 0
