"""`open_cache`: a cache backend from a URL (the CLI's `--cache` and the clients' `cache=`)."""

from __future__ import annotations

from urllib.parse import parse_qs, parse_qsl, urlencode, urlsplit

from robotskit.cache.base import Cache
from robotskit.cache.memory import MemoryCache
from robotskit.cache.redis import RedisCache
from robotskit.cache.sqlite import SQLiteCache
from robotskit.errors import InvalidArgument

__all__ = ["open_cache"]


def open_cache(spec: str | Cache | None = None) -> Cache:
    """A cache from a URL: `memory://` (optionally `?maxsize=N`), `sqlite:///abs/path.db`
    (`sqlite:relative.db` for a relative path), `redis://host:port/db` (`?prefix=...`).

    A `Cache` is returned as is; None means a new `MemoryCache`.
    """
    if spec is None:
        return MemoryCache()
    if not isinstance(spec, str):
        if not isinstance(spec, Cache):
            raise TypeError(f"cache must be a cache URL (str) or a Cache, not {type(spec).__name__}")
        return spec
    try:
        parts = urlsplit(spec)
    except ValueError as exc:  # a broken [IPv6] host
        raise InvalidArgument(f"cannot parse cache URL {spec!r}: {exc}") from None
    query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
    scheme = parts.scheme.lower()
    if scheme == "memory":
        size = query.get("maxsize", "10000")
        if not (size.isascii() and size.isdigit()):
            raise InvalidArgument(f"maxsize must be a whole number in cache URL {spec!r}, not {size!r}")
        return MemoryCache(int(size))
    if scheme == "sqlite":
        # sqlite:///var/x.db -> /var/x.db (file-URL style); sqlite:x.db -> x.db
        path = parts.netloc + parts.path
        if not path:
            raise InvalidArgument(f"no file in SQLite cache URL {spec!r}")
        if "\x00" in path:
            raise InvalidArgument(f"a NUL in the file of SQLite cache URL {spec!r}")
        return SQLiteCache(path)
    if scheme in ("redis", "rediss", "unix"):
        # `prefix` is ours; every other query parameter is redis-py's (socket_timeout=...).
        rest = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != "prefix"]
        # (not urlunsplit: it turns `unix:///path` into `unix:/path`, which redis-py rejects)
        url = spec.split("?", 1)[0] + (f"?{urlencode(rest)}" if rest else "")
        return RedisCache(url, prefix=query.get("prefix", "robotskit:robots:"))
    raise InvalidArgument(
        f"unknown cache URL {spec!r}: use memory://, sqlite:///path or redis://host:port/db"
    )
