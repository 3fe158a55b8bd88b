"""`robotskit cache info` and `robotskit cache clear [HOST]`: the CLI's robots.txt cache and Gemini pins.

Both honour `--cache` (a SQLite file or a cache URL); the pins live beside the SQLite cache.
`clear HOST[:PORT]` forgets that host's robots.txt for every scheme (on the default ports, or on
PORT), or one authority when HOST is a URL, and its Gemini certificate pins (every port unless one
is named), so a legitimately changed certificate is trusted again.
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
        "host", nargs="?", metavar="HOST", help="HOST[:PORT] (every scheme) or a URL (its authority)"
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


def _forget_pins(store: TofuStore, host: str) -> list[str]:
    """Forget the Gemini pins of HOST: every port of a bare host, else the port HOST names."""
    parts = urlsplit(host if "://" in host else f"//{host}")
    if "://" in host and parts.scheme.lower() != "gemini":
        return []
    name, port = (parts.hostname or "").lower(), parts.port
    forgotten = []
    for key in store.pins():
        pinned_host, _, pinned_port = key.rpartition(":")
        if pinned_host.strip("[]") == name and (port is None or str(port) == pinned_port):
            store.forget(pinned_host.strip("[]"), int(pinned_port))
            forgotten.append(f"pin {key}")
    return forgotten


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
            if path is not None and path.exists():
                removed += _forget_pins(TofuStore(path), args.host)
        if out.json:
            return out.document("cache", {"action": "clear", "cache": spec, "removed": removed}, OK)
        if args.host is None:
            out.print(f"cleared {spec} and the Gemini pins")
        else:
            out.print(f"removed {', '.join(removed) if removed else 'nothing cached'} for {args.host}")
        return OK
    finally:
        cache.close()
