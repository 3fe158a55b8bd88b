"""Where robots.txt entries are kept between fetches: one interface, three backends.

- `MemoryCache`: an in-process LRU, thread-safe; the library's default.
- `SQLiteCache`: one file, WAL mode, every write one atomic upsert; several processes may
  share it and a killed writer never leaves it corrupt (SQLite's journal guarantees that).
- `RedisCache`: a fleet of crawlers shares one copy per authority (needs `redis`).

A cache keeps whole `RobotsEntry` values (body, fetch time, outcome, status, expiry,
redirects, reason, content type, and the last good copy's time) so the decision that governed
a fetch can be reproduced. Entries are kept past `expires_at`: an expired entry still carries
the last good copy that SPEC.md section 6 lets stand in for 30 days while the server is
unreachable.
"""

from __future__ import annotations

import base64
import json
import sqlite3
import threading
import time
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable
from urllib.parse import parse_qs, parse_qsl, urlencode, urlsplit, urlunsplit

from robotskit.errors import CacheError, InvalidArgument
from robotskit.policy.flow import DEFAULT_POLICY, Outcome, RobotsEntry

if TYPE_CHECKING:
    import redis

__all__ = [
    "Cache",
    "MemoryCache",
    "RedisCache",
    "SQLiteCache",
    "entry_from_dict",
    "entry_to_dict",
    "open_cache",
]


@runtime_checkable
class Cache(Protocol):
    """A store of `RobotsEntry` values keyed by authority (`robotskit.authority_key`)."""

    def get(self, authority: str) -> RobotsEntry | None: ...

    def put(self, entry: RobotsEntry) -> None: ...

    def delete(self, authority: str) -> None: ...

    def clear(self) -> None: ...

    def close(self) -> None: ...


# --- serialisation ------------------------------------------------------------------------

_SCALARS = (
    "authority",
    "robots_url",
    "status",
    "protocol",
    "fetched_at",
    "expires_at",
    "size",
    "truncated",
    "reason",
    "stale",
    "retry_after",
    "good_at",
    "outage_since",
    "failures",
)
# Fields added after the first release, with the value an older entry (a Redis JSON string,
# an SQLite row's meta) that lacks them reads as. Adding one needs no schema migration:
# SQLite keeps every non-column field in the `meta` JSON.
_ADDED = {"content_type": ""}


def entry_to_dict(entry: RobotsEntry) -> dict[str, Any]:
    """A JSON-ready dict of an entry (body as base64)."""
    data: dict[str, Any] = {name: getattr(entry, name) for name in (*_SCALARS, *_ADDED)}
    data["outcome"] = entry.outcome.value
    data["redirects"] = list(entry.redirects)
    data["notes"] = list(entry.notes)
    data["body"] = base64.b64encode(entry.body).decode("ascii")
    data["v"] = 1
    return data


def entry_from_dict(data: dict[str, Any]) -> RobotsEntry:
    """The inverse of `entry_to_dict`."""
    try:
        return RobotsEntry(
            **{name: data[name] for name in _SCALARS},
            **{name: data.get(name, default) for name, default in _ADDED.items()},
            outcome=Outcome(data["outcome"]),
            redirects=tuple(data["redirects"]),
            notes=tuple(data["notes"]),
            body=base64.b64decode(data["body"]),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise CacheError(f"unreadable cache entry: {exc}") from exc


# --- memory -------------------------------------------------------------------------------


class MemoryCache:
    """A thread-safe LRU of at most `maxsize` authorities, in this process only."""

    def __init__(self, maxsize: int = 10_000) -> None:
        if maxsize < 1:
            raise InvalidArgument(f"maxsize must be at least 1, got {maxsize}")
        self.maxsize = maxsize
        self._entries: OrderedDict[str, RobotsEntry] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, authority: str) -> RobotsEntry | None:
        with self._lock:
            entry = self._entries.get(authority)
            if entry is not None:
                self._entries.move_to_end(authority)
            return entry

    def put(self, entry: RobotsEntry) -> None:
        with self._lock:
            self._entries[entry.authority] = entry
            self._entries.move_to_end(entry.authority)
            while len(self._entries) > self.maxsize:
                self._entries.popitem(last=False)  # least recently used

    def delete(self, authority: str) -> None:
        with self._lock:
            self._entries.pop(authority, None)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def close(self) -> None:
        """Nothing to release."""

    def __len__(self) -> int:
        return len(self._entries)

    def __repr__(self) -> str:
        return f"<MemoryCache {len(self)}/{self.maxsize}>"


# --- SQLite -------------------------------------------------------------------------------

_SCHEMA = """
CREATE TABLE IF NOT EXISTS robots_entries (
    authority  TEXT PRIMARY KEY,
    robots_url TEXT NOT NULL,
    outcome    TEXT NOT NULL,
    status     INTEGER,
    protocol   TEXT NOT NULL,
    reason     TEXT NOT NULL,
    fetched_at REAL NOT NULL,
    expires_at REAL NOT NULL,
    good_at    REAL,
    body       BLOB NOT NULL,
    meta       TEXT NOT NULL
)
"""
_COLUMNS = ("robots_url", "outcome", "status", "protocol", "reason", "fetched_at", "expires_at", "good_at")
_UPSERT = (
    "INSERT INTO robots_entries (authority, {cols}, body, meta) VALUES (?, {marks}, ?, ?) "
    "ON CONFLICT(authority) DO UPDATE SET {sets}, body = excluded.body, meta = excluded.meta"
).format(
    cols=", ".join(_COLUMNS),
    marks=", ".join("?" * len(_COLUMNS)),
    sets=", ".join(f"{c} = excluded.{c}" for c in _COLUMNS),
)


class SQLiteCache:
    """Entries in one SQLite file, shared safely by threads and processes.

    WAL mode lets readers run beside the one writer; each `put` is a single upsert in its
    own transaction, so a process killed at any instant leaves either the old or the new row
    (SQLite's atomic commit). `timeout` is how long to wait for another process's lock.
    """

    def __init__(self, path: str | Path, *, timeout: float = 10.0) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # isolation_level=None: we issue BEGIN/COMMIT ourselves, nothing is implicit.
            self._conn = sqlite3.connect(
                str(self.path), timeout=timeout, isolation_level=None, check_same_thread=False
            )
            self._setup(timeout)
        except (OSError, sqlite3.Error) as exc:
            raise CacheError(f"cannot open SQLite cache {self.path}: {exc}", backend="sqlite") from exc
        self._lock = threading.Lock()  # one connection, used by one thread at a time

    def _setup(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while True:
            try:
                # Switching to WAL needs a moment of exclusive access; a second process opening
                # the same new file at the same time may see SQLITE_BUSY once: retry.
                self._conn.execute("PRAGMA journal_mode=WAL")
                # NORMAL in WAL mode: a crash may lose the last commit, never corrupts the file.
                self._conn.execute("PRAGMA synchronous=NORMAL")
                self._conn.execute(_SCHEMA)
            except sqlite3.OperationalError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
            else:
                return

    def get(self, authority: str) -> RobotsEntry | None:
        query = f"SELECT {', '.join(_COLUMNS)}, body, meta FROM robots_entries WHERE authority = ?"
        try:
            with self._lock:
                row = self._conn.execute(query, (authority,)).fetchone()
        except sqlite3.Error as exc:
            raise CacheError(f"SQLite cache read failed: {exc}", backend="sqlite") from exc
        if row is None:
            return None
        data: dict[str, Any] = dict(zip(_COLUMNS, row[: len(_COLUMNS)], strict=True))
        try:
            data.update(json.loads(row[-1]))
        except ValueError as exc:
            raise CacheError(f"unreadable SQLite cache row for {authority}: {exc}", backend="sqlite") from exc
        data["authority"] = authority
        data["body"] = base64.b64encode(row[-2]).decode("ascii")
        return entry_from_dict(data)

    def put(self, entry: RobotsEntry) -> None:
        data = entry_to_dict(entry)
        meta = {k: v for k, v in data.items() if k not in (*_COLUMNS, "authority", "body")}
        values = (entry.authority, *(data[c] for c in _COLUMNS), entry.body, json.dumps(meta))
        try:
            with self._lock:
                self._conn.execute("BEGIN IMMEDIATE")
                try:
                    self._conn.execute(_UPSERT, values)
                except BaseException:
                    self._conn.execute("ROLLBACK")
                    raise
                self._conn.execute("COMMIT")
        except sqlite3.Error as exc:
            raise CacheError(f"SQLite cache write failed: {exc}", backend="sqlite") from exc

    def _write(self, sql: str, params: tuple[Any, ...] = ()) -> int:
        try:
            with self._lock:
                return self._conn.execute(sql, params).rowcount
        except sqlite3.Error as exc:
            raise CacheError(f"SQLite cache write failed: {exc}", backend="sqlite") from exc

    def delete(self, authority: str) -> None:
        self._write("DELETE FROM robots_entries WHERE authority = ?", (authority,))

    def clear(self) -> None:
        self._write("DELETE FROM robots_entries")

    def prune(self, before: float) -> int:
        """Delete entries fetched before `before` (epoch seconds); returns how many."""
        return self._write("DELETE FROM robots_entries WHERE fetched_at < ?", (before,))

    def __len__(self) -> int:
        with self._lock:
            (count,) = self._conn.execute("SELECT count(*) FROM robots_entries").fetchone()
        return int(count)

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __repr__(self) -> str:
        return f"<SQLiteCache {self.path}>"


# --- Redis --------------------------------------------------------------------------------

# A little longer than the 30-day stale window (SPEC.md 6), so the last good copy outlives it.
REDIS_TTL = int(DEFAULT_POLICY.stale_window + 86_400)


class RedisCache:
    """Entries in Redis, one JSON string per authority under `prefix`, expiring after 31 days.

    Pass a URL (`redis://host:port/db`) or a ready `redis.Redis` client. Needs the `redis`
    extra (`pip install robotskit[redis]`).
    """

    def __init__(
        self,
        url: str = "redis://127.0.0.1:6379/0",
        *,
        prefix: str = "robotskit:robots:",
        client: redis.Redis | None = None,
        ttl: int = REDIS_TTL,
    ) -> None:
        if client is None:
            try:
                import redis as redis_module  # noqa: PLC0415 - optional dependency
            except ImportError as exc:
                raise CacheError(
                    "RedisCache needs the redis package: pip install 'robotskit[redis]'"
                ) from exc
            client = redis_module.Redis.from_url(url)
        self.url, self.prefix, self.ttl = url, prefix, ttl
        self._client = client

    def _key(self, authority: str) -> str:
        return self.prefix + authority

    def get(self, authority: str) -> RobotsEntry | None:
        try:
            raw = self._client.get(self._key(authority))
        except Exception as exc:  # redis.RedisError and socket errors alike
            raise CacheError(f"Redis cache read failed: {exc}", backend="redis") from exc
        if raw is None:
            return None
        try:
            return entry_from_dict(json.loads(raw))
        except ValueError as exc:
            raise CacheError(f"unreadable Redis cache entry for {authority}: {exc}", backend="redis") from exc

    def put(self, entry: RobotsEntry) -> None:
        payload = json.dumps(entry_to_dict(entry))
        try:
            # SET replaces the value atomically; readers see the old or the new entry.
            self._client.set(self._key(entry.authority), payload, ex=self.ttl)
        except Exception as exc:
            raise CacheError(f"Redis cache write failed: {exc}", backend="redis") from exc

    def delete(self, authority: str) -> None:
        try:
            self._client.delete(self._key(authority))
        except Exception as exc:
            raise CacheError(f"Redis cache delete failed: {exc}", backend="redis") from exc

    def clear(self) -> None:
        """Delete every key under this cache's prefix (and nothing else)."""
        try:
            keys = list(self._client.scan_iter(match=self.prefix + "*", count=500))
            if keys:
                self._client.delete(*keys)
        except Exception as exc:
            raise CacheError(f"Redis cache clear failed: {exc}", backend="redis") from exc

    def close(self) -> None:
        self._client.close()

    def __repr__(self) -> str:
        return f"<RedisCache {self.url} prefix={self.prefix!r}>"


# --- by URL -------------------------------------------------------------------------------


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
    parts = urlsplit(spec)
    query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
    scheme = parts.scheme.lower()
    if scheme == "memory":
        return MemoryCache(int(query.get("maxsize", 10_000)))
    if scheme == "sqlite":
        # sqlite:///var/x.db -> /var/x.db (file-URL style); sqlite:x.db -> x.db
        path = parts.netloc + parts.path
        if not path:
            raise InvalidArgument(f"no file in SQLite cache URL {spec!r}")
        return SQLiteCache(path)
    if scheme in ("redis", "rediss", "unix"):
        # `prefix` is ours; every other query parameter is redis-py's (socket_timeout=...).
        rest = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != "prefix"]
        url = urlunsplit(parts._replace(query=urlencode(rest)))
        return RedisCache(url, prefix=query.get("prefix", "robotskit:robots:"))
    raise InvalidArgument(
        f"unknown cache URL {spec!r}: use memory://, sqlite:///path or redis://host:port/db"
    )
