"""`robotskit cache info` and `robotskit cache clear [HOST]`: the CLI's robots.txt cache and Gemini pins.

Both honour `--cache` (a SQLite file or a cache URL); the pins live beside the SQLite cache.
`clear HOST` forgets that host's robots.txt for every scheme (or just one authority when HOST
is a URL) and its Gemini certificate pin, so a legitimately changed certificate is trusted again.
"""

from __future__ import annotations

import argparse
from collections.abc import Sized
from urllib.parse import urlsplit

from robotskit.cache import open_cache
from robotskit.cli._output import Output
from robotskit.cli._sources import OK, CliError, cache_spec, pins_path
from robotskit.errors import InvalidURL
from robotskit.fetch.gemini import TofuStore
from robotskit.policy.authority import authority_key

__all__ = ["add_cache_command", "cmd_cache"]

_SCHEMES = ("https", "http", "ftp", "gemini")


def add_cache_command(sub: argparse._SubParsersAction[argparse.ArgumentParser], epilog: str) -> None:
    """Register `cache` with its two actions."""
    where = argparse.ArgumentParser(add_help=False)
    where.add_argument(
        "--cache", metavar="PATH|URL", help="SQLite file or cache URL (default: the user cache)"
    )
    where.add_argument("--json", action="store_true", help="print one JSON document (docs/cli.md)")
    cache = sub.add_parser(
        "cache",
        help="show or clear the robots.txt cache",
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = cache.add_subparsers(dest="action", metavar="ACTION", required=True)
    info = actions.add_parser("info", parents=[where], help="where the cache is and what it holds")
    info.set_defaults(handler=cmd_cache)
    clear = actions.add_parser("clear", parents=[where], help="forget every cached file, or one host's")
    clear.add_argument(
        "host", nargs="?", metavar="HOST", help="a host (every scheme) or a URL (its authority)"
    )
    clear.set_defaults(handler=cmd_cache)


def _authorities(host: str) -> list[str]:
    """The cache keys HOST stands for: a URL's own authority, or the host under every scheme."""
    try:
        if "://" in host:
            return [authority_key(host)]
        if not host or "/" in host or not urlsplit(f"//{host}").hostname:
            raise CliError(f"{host!r} is not a host name or a URL")
        return [authority_key(f"{scheme}://{host}/") for scheme in _SCHEMES]
    except InvalidURL as exc:
        raise CliError(f"{host!r} is not a host name or a URL: {exc}") from exc


def cmd_cache(args: argparse.Namespace, out: Output) -> int:
    args.no_cache = False
    spec = cache_spec(args)
    path = pins_path(args)
    cache = open_cache(spec)
    try:
        pins = TofuStore(path) if path is not None and path.exists() else TofuStore()
        if args.action == "info":
            entries = len(cache) if isinstance(cache, Sized) else None
            pinned = sorted(pins.pins())
            body = {
                "cache": spec,
                "entries": entries,
                "pins": str(path) if path is not None else None,
                "pinned_hosts": pinned,
            }
            if out.json:
                return out.document("cache", {"action": "info", **body}, OK)
            out.print(f"cache     {spec}")
            out.print(f"entries   {entries if entries is not None else 'not counted by this backend'}")
            out.print(f"pins      {path} ({len(pinned)} Gemini certificate(s) pinned)")
            return OK
        if args.host is None:
            cache.clear()
            if path is not None and path.exists():
                TofuStore(path).clear()
            removed: list[str] = ["everything"]
        else:
            removed = []
            for key in _authorities(args.host):
                if cache.get(key) is not None:
                    removed.append(key)
                cache.delete(key)
                parts = urlsplit(key)
                if parts.scheme == "gemini" and parts.hostname and path is not None and path.exists():
                    TofuStore(path).forget(parts.hostname, parts.port or 1965)
        if out.json:
            return out.document("cache", {"action": "clear", "cache": spec, "removed": removed}, OK)
        if args.host is None:
            out.print(f"cleared {spec} and the Gemini pins")
        else:
            out.print(f"removed {', '.join(removed) if removed else 'nothing cached'} for {args.host}")
        return OK
    finally:
        cache.close()
