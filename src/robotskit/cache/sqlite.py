"""`SQLiteCache`: entries in one SQLite file, shared safely by threads and processes.

WAL mode lets readers run beside the one writer; each `put` is a single upsert in its own
transaction, so a process killed at any instant leaves either the old or the new row (SQLite's
atomic commit). A row that cannot be read back (a column of the wrong type, meta that is not
a JSON object) is a logged miss: the authority is fetched again and the row replaced. When the
file cannot be read or written (locked by another process past `timeout`, disk full, removed),
`get` and `put` log one warning and keep entries in process memory for `retry_interval`
seconds, as RedisCache does (robotskit.cache.fallback); `delete`, `clear` and `prune`, asked
for explicitly, raise `CacheError`.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from robotskit.cache.base import entry_from_fields, entry_to_dict, unreadable
from robotskit.cache.fallback import DEFAULT_RETRY_INTERVAL, Fallback, Unavailable
from robotskit.errors import CacheError
from robotskit.policy.flow import RobotsEntry

__all__ = ["SQLiteCache"]

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
_SELECT = f"SELECT {', '.join(_COLUMNS)}, body, meta FROM robots_entries WHERE authority = ?"


class SQLiteCache:
    """Entries in one SQLite file; `timeout` is how long to wait for another process's lock."""

    def __init__(
        self, path: str | Path, *, timeout: float = 10.0, retry_interval: float = DEFAULT_RETRY_INTERVAL
    ) -> None:
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
        self._fallback = Fallback(
            f"SQLite cache {self.path}", (sqlite3.Error,), retry_interval=retry_interval
        )

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
        try:
            row = self._fallback.call(lambda: self._read(authority))
        except Unavailable:
            return self._fallback.local.get(authority)
        if row is None:
            return self._fallback.local.get(authority)  # written while the file was unusable
        try:
            return _from_row(authority, row)
        except (CacheError, TypeError, ValueError) as exc:
            unreadable("sqlite", authority, exc)
            return None

    def _read(self, authority: str) -> tuple[object, ...] | None:
        with self._lock:
            row: tuple[object, ...] | None = self._conn.execute(_SELECT, (authority,)).fetchone()
        return row

    def put(self, entry: RobotsEntry) -> None:
        data = entry_to_dict(entry)
        meta = {k: v for k, v in data.items() if k not in (*_COLUMNS, "authority", "body")}
        values = (entry.authority, *(data[c] for c in _COLUMNS), entry.body, json.dumps(meta))
        try:
            self._fallback.call(lambda: self._upsert(values))
        except Unavailable:
            self._fallback.local.put(entry)
        else:
            self._fallback.local.delete(entry.authority)

    def _upsert(self, values: tuple[object, ...]) -> None:
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                self._conn.execute(_UPSERT, values)
                self._conn.execute("COMMIT")
            except BaseException:
                if self._conn.in_transaction:  # a failed COMMIT (disk full) leaves it open
                    self._conn.execute("ROLLBACK")
                raise

    def _write(self, sql: str, params: tuple[Any, ...] = ()) -> int:
        try:
            with self._lock:
                return self._conn.execute(sql, params).rowcount
        except sqlite3.Error as exc:
            raise CacheError(f"SQLite cache write failed: {exc}", backend="sqlite") from exc

    def delete(self, authority: str) -> None:
        self._fallback.local.delete(authority)
        self._write("DELETE FROM robots_entries WHERE authority = ?", (authority,))

    def clear(self) -> None:
        self._fallback.local.clear()
        self._write("DELETE FROM robots_entries")

    def prune(self, before: float) -> int:
        """Delete entries fetched before `before` (epoch seconds); returns how many."""
        return self._write("DELETE FROM robots_entries WHERE fetched_at < ?", (before,))

    def __len__(self) -> int:
        with self._lock:
            (count,) = self._conn.execute("SELECT count(*) FROM robots_entries").fetchone()
        return int(count)

    def authorities(self) -> list[str]:
        """Every cached authority, sorted (for `robotskit cache info` and `cache clear HOST`)."""
        try:
            with self._lock:
                rows = self._conn.execute(
                    "SELECT authority FROM robots_entries ORDER BY authority"
                ).fetchall()
        except sqlite3.Error as exc:
            raise CacheError(f"SQLite cache read failed: {exc}", backend="sqlite") from exc
        return [str(row[0]) for row in rows]

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __repr__(self) -> str:
        return f"<SQLiteCache {self.path}>"


def _from_row(authority: str, row: tuple[object, ...]) -> RobotsEntry:
    """An entry from a row; raises when a column holds what `put` never writes."""
    *columns, body, meta = row
    if not isinstance(body, bytes):
        raise TypeError(f"body is {type(body).__name__}, not a blob")
    if not isinstance(meta, str):
        raise TypeError(f"meta is {type(meta).__name__}, not text")
    data = json.loads(meta)
    if not isinstance(data, dict):
        raise TypeError(f"meta is {type(data).__name__}, not a JSON object")
    data.update(zip(_COLUMNS, columns, strict=True))
    data["authority"] = authority
    return entry_from_fields(data, body)
