"""`robotskit cache info` and `robotskit cache clear [HOST]`: the CLI's robots.txt cache and Gemini pins.

Both honour `--cache` and `$ROBOTSKIT_CACHE` (a SQLite file or a cache URL); the pins live beside
a SQLite cache file (in memory only for memory:// and Redis caches). Neither creates a SQLite
file that is not there: `info` says so, `clear` has nothing to clear. A Redis server that does not
answer is an error for both. `clear HOST[:PORT]` forgets that host's robots.txt for every scheme
and port (only PORT when given; one authority when HOST is a URL) and its Gemini certificate
pins, so a legitimately changed certificate is trusted again. Backends that cannot list their
entries (Redis) forget the host on its default ports only.
"""

from __future__ import annotations

import argparse
import re
import time
import unicodedata
from collections.abc import Sized
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from robotskit.cache import Cache, MemoryCache, RedisCache, SQLiteCache, open_cache
from robotskit.cli._origin import of_entry
from robotskit.cli._output import Output
from robotskit.cli._sources import OK, CliError, cache_spec, pins_path
from robotskit.errors import InvalidURL
from robotskit.fetch.gemini import TofuStore
from robotskit.policy.authority import DEFAULT_PORTS, authority_key

__all__ = ["add_cache_command", "cmd_cache"]

_SCHEMES = ("https", "http", "ftp", "gemini")
# HOST[:PORT] as typed: a name or an [IPv6] literal, then digits. No path, query or user info:
# urlsplit would drop them (`user@host`, `host?x` name `host`) and clear a host not typed.
_HOST_PORT = re.compile(r"(\[[^\]]*\]|[^:/?#@\[\]]+)(:[0-9]+)?")
# A label of a host name (RFC 1123, and `_`, which real names carry). WHATWG hosts also admit
# `*` or a lone `-`; no robots.txt is fetched from such a host, so it names nothing to clear.
_LABEL = re.compile(r"[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?")


def add_cache_command(sub: argparse._SubParsersAction[argparse.ArgumentParser], epilog: str) -> None:
    """Register `cache` with its two actions."""
    where = argparse.ArgumentParser(add_help=False)
    where.add_argument(
        "--cache",
        metavar="PATH|URL",
        help="SQLite file or cache URL (default: $ROBOTSKIT_CACHE, else the user cache)",
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


@dataclass(frozen=True, slots=True)
class _Target:
    """What `cache clear HOST` forgets: these cache keys, and the pins of `host` on `port` (None:
    every port). `pins` is False for a URL of another scheme than gemini (it has no pins)."""

    keys: tuple[str, ...]
    host: str  # canonical, lower case, IPv6 without brackets
    port: int | None
    pins: bool
    every_scheme: bool  # HOST[:PORT]: the cache's other keys of the host count too


def _target(text: str) -> _Target:
    """Read HOST: HOST[:PORT] or a URL of a fetched scheme; anything else is refused (exit 2).

    Text with whitespace or control characters is refused before parsing: urlsplit deletes tabs
    and newlines, so `a<newline>b` would quietly clear `ab`.
    """
    if not text:
        raise CliError("'' is not a host name or a URL: give HOST, HOST:PORT or a URL")
    if any(c.isspace() or unicodedata.category(c) == "Cc" for c in text):
        raise CliError(f"{text!r} is not a host name or a URL: it holds whitespace or a control character")
    try:
        if "://" in text:
            key = authority_key(text)
            scheme = key.partition("://")[0]
            port = urlsplit(key).port or DEFAULT_PORTS[scheme]
            target = _Target((key,), _host_of(key), port, scheme == "gemini", every_scheme=False)
        else:
            if not _HOST_PORT.fullmatch(text):
                raise CliError(f"{text!r} is not a host name or a URL: give HOST, HOST:PORT or a URL")
            keys = tuple(sorted({authority_key(f"{scheme}://{text}/") for scheme in _SCHEMES}))
            given = urlsplit(f"//{text}").port  # None: every port
            target = _Target(keys, _host_of(keys[0]), given, pins=True, every_scheme=True)
    except (InvalidURL, ValueError) as exc:
        raise CliError(f"{text!r} is not a host name or a URL: {exc}") from exc
    if ":" not in target.host and not all(_LABEL.fullmatch(label) for label in target.host.split(".")):
        raise CliError(
            f"{text!r} is not a host name or a URL: {target.host!r} is not a host name "
            "(dot-separated labels of letters, digits, '-' and '_')"
        )
    return target


def _host_of(key: str) -> str:
    return urlsplit(key).hostname or ""


def _listing(cache: Cache) -> list[str] | None:
    """Every cached authority, when the backend can list them."""
    return cache.authorities() if isinstance(cache, (MemoryCache, SQLiteCache)) else None


def _matching(target: _Target, cache: Cache) -> list[str]:
    """The cache keys HOST stands for: a URL's own authority, else the host on every scheme (and port)."""
    keys = set(target.keys)
    if target.every_scheme:
        for key in _listing(cache) or ():
            other = urlsplit(key)
            if other.hostname == target.host and (target.port is None or other.port == target.port):
                keys.add(key)
    return sorted(keys)


def _forget_pins(store: TofuStore, target: _Target) -> list[str]:
    """Forget the Gemini pins of HOST: every port of a bare host, else the port HOST names."""
    if not target.pins:
        return []
    forgotten = []
    for key in store.pins():
        pinned_host, _, pinned_port = key.rpartition(":")
        if pinned_host.strip("[]") == target.host and target.port in (None, int(pinned_port)):
            store.forget(pinned_host.strip("[]"), int(pinned_port))
            forgotten.append(f"pin {key}")
    return forgotten


def _open(spec: str) -> Cache | None:
    """The cache `spec` names; None for a SQLite file that is not there, which is not created:
    `info` is a query, and `clear` has nothing to clear."""
    try:
        if spec.lower().startswith("sqlite://"):
            parts = urlsplit(spec)  # as open_cache reads it
            file = parts.netloc + parts.path
            if file and not Path(file).exists():
                return None
        return open_cache(spec)
    except ValueError as exc:  # urlsplit: a broken [IPv6] host in the URL
        raise CliError(f"cannot read cache URL {spec!r}: {exc}") from exc


def _check_answers(cache: Cache, action: str) -> None:
    """A Redis server that does not answer is an error, for `info` as for `clear`: its reads fall
    back to process memory (a crawler must not stop), which would show an empty cache."""
    if not isinstance(cache, RedisCache):
        return
    import redis  # noqa: PLC0415 - the redis extra: present, since a RedisCache was made

    try:
        # RedisCache has no public probe; PING reads and writes nothing.
        cache._client.ping()
    except (redis.RedisError, OSError) as exc:
        raise CliError(f"Redis cache {action} failed: {exc}") from exc


def _info(out: Output, spec: str, cache: Cache, exists: bool, pins: TofuStore, pins_file: str | None) -> int:
    """What the cache holds; `exists` False: a SQLite file that is not there (`cache` is empty)."""
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
            "exists": exists,
            "entries": count,
            "authorities": entries if listing is not None else None,
            "pins": pins_file,
            "pinned_hosts": pinned,
        }
        return out.document("cache", body, OK)
    out.print(f"cache     {spec}")
    if not exists:
        out.print("entries   none: there is no cache file there (nothing was created)")
    else:
        out.print(f"entries   {count if count is not None else 'not counted by this backend'}")
    for item in entries:
        age = item["age_seconds"]
        minutes = f"{float(age) / 60:.0f} min" if isinstance(age, float | int) else "-"
        out.print(f"  {item['authority']}  {item['kind']}, {minutes} old ({item['reason']})")
    out.print(f"pins      {pins_file or 'in memory'} ({len(pinned)} Gemini certificate(s) pinned)")
    return OK


def _clear(
    out: Output, spec: str, cache: Cache, pins: TofuStore, pinned: bool, target: _Target | None, host: str
) -> int:
    """Forget everything (target None), or what HOST stands for; `pinned`: a pins file is there."""
    if target is None:
        cache.clear()
        if pinned:
            pins.clear()
        removed: list[str] = ["everything"]
    else:
        removed = []
        for key in _matching(target, cache):
            if cache.get(key) is not None:
                removed.append(key)
            cache.delete(key)
        if pinned:
            removed += _forget_pins(pins, target)
    if out.json:
        return out.document("cache", {"action": "clear", "cache": spec, "removed": removed}, OK)
    if target is None:
        out.print(f"cleared {spec} and the Gemini pins")
    else:
        out.print(f"removed {', '.join(removed) if removed else 'nothing cached'} for {host}")
    return OK


def cmd_cache(args: argparse.Namespace, out: Output) -> int:
    args.no_cache = False
    spec = cache_spec(args)
    path = pins_path(args)
    host: str | None = getattr(args, "host", None)
    target = _target(host) if args.action == "clear" and host is not None else None  # before opening
    found = _open(spec)
    cache = found if found is not None else MemoryCache()  # a SQLite file not there: empty
    try:
        _check_answers(cache, args.action)
        pinned = path is not None and path.exists()
        pins = TofuStore(path) if pinned else TofuStore()
        if args.action == "info":
            return _info(out, spec, cache, found is not None, pins, str(path) if path is not None else None)
        return _clear(out, spec, cache, pins, pinned, target, host or "")
    finally:
        cache.close()
