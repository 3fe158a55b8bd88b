"""`robotskit cache info` and `robotskit cache clear [HOST]`: the CLI's robots.txt cache and Gemini pins.

Both honour `--cache` (a SQLite file or a cache URL); the pins live beside the SQLite cache.
`clear HOST[:PORT]` forgets that host's robots.txt for every scheme and port (only PORT when
given; one authority when HOST is a URL) and its Gemini certificate pins, so a legitimately
changed certificate is trusted again. Backends that cannot list their entries (Redis) forget the
host on its default ports only.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sized
from urllib.parse import urlsplit

from robotskit.cache import Cache, MemoryCache, SQLiteCache, open_cache
from robotskit.cli._origin import of_entry
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
        description="Show or clear the cache the other commands answer from, and the Gemini pins.",
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = cache.add_subparsers(dest="action", metavar="ACTION", required=True)
    info = actions.add_parser(
        "info", parents=[where], help="where the cache is and what it holds", epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    info.set_defaults(handler=cmd_cache)
    clear = actions.add_parser(
        "clear", parents=[where], help="forget every cached file, or one host's", epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    clear.add_argument(
        "host", nargs="?", metavar="HOST", help="HOST[:PORT] (every scheme) or a URL (its authority)"
    )
    clear.set_defaults(handler=cmd_cache)


def _listing(cache: Cache) -> list[str] | None:
    """Every cached authority, when the backend can list them."""
    return cache.authorities() if isinstance(cache, (MemoryCache, SQLiteCache)) else None


def _matching(host: str, cache: Cache) -> list[str]:
    """The cache keys HOST stands for: a URL's own authority, else the host on every scheme (and port)."""
    try:
        if "://" in host:
            return [authority_key(host)]
        parts = urlsplit(f"//{host}")
        if not host or "/" in host or not parts.hostname:
            raise CliError(f"{host!r} is not a host name or a URL")
        keys = {authority_key(f"{scheme}://{host}/") for scheme in _SCHEMES}
        name = urlsplit(next(iter(keys))).hostname
    except (InvalidURL, ValueError) as exc:
        raise CliError(f"{host!r} is not a host name or a URL: {exc}") from exc
    for key in _listing(cache) or ():
        other = urlsplit(key)
        if other.hostname == name and (parts.port is None or other.port == parts.port):
            keys.add(key)
    return sorted(keys)


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


def _info(out: Output, spec: str, cache: Cache, pins: TofuStore, pins_file: str | None) -> int:
    now = time.time()
    listing = _listing(cache)
    entries = []
    for key in listing or ():
        entry = cache.get(key)
        if entry is not None:
            origin = of_entry(entry, now + 1, now)  # nothing here was fetched by this command
            entries.append({"authority": key, **origin.to_json()})
    count = len(cache) if isinstance(cache, Sized) else None
    pinned = sorted(pins.pins())
    if out.json:
        body = {
            "action": "info",
            "cache": spec,
            "entries": count,
            "authorities": entries if listing is not None else None,
            "pins": pins_file,
            "pinned_hosts": pinned,
        }
        return out.document("cache", body, OK)
    out.print(f"cache     {spec}")
    out.print(f"entries   {count if count is not None else 'not counted by this backend'}")
    for item in entries:
        age = item["age_seconds"]
        minutes = f"{float(age) / 60:.0f} min" if isinstance(age, float | int) else "-"
        out.print(f"  {item['authority']}  {item['kind']}, {minutes} old ({item['reason']})")
    out.print(f"pins      {pins_file or 'in memory'} ({len(pinned)} Gemini certificate(s) pinned)")
    return OK


def cmd_cache(args: argparse.Namespace, out: Output) -> int:
    args.no_cache = False
    spec = cache_spec(args)
    path = pins_path(args)
    cache = open_cache(spec)
    try:
        pins = TofuStore(path) if path is not None and path.exists() else TofuStore()
        if args.action == "info":
            return _info(out, spec, cache, pins, str(path) if path is not None else None)
        if args.host is None:
            cache.clear()
            if path is not None and path.exists():
                pins.clear()
            removed: list[str] = ["everything"]
        else:
            removed = []
            for key in _matching(args.host, cache):
                if cache.get(key) is not None:
                    removed.append(key)
                cache.delete(key)
            if path is not None and path.exists():
                removed += _forget_pins(pins, args.host)
        if out.json:
            return out.document("cache", {"action": "clear", "cache": spec, "removed": removed}, OK)
        if args.host is None:
            out.print(f"cleared {spec} and the Gemini pins")
        else:
            out.print(f"removed {', '.join(removed) if removed else 'nothing cached'} for {args.host}")
        return OK
    finally:
        cache.close()
