"""A per-body result store shared by the worker processes of one run (an SQLite file).

Each worker keeps its own in-memory cache of what a body says (`robotskit.batch.analysis`); with
several workers, a body seen by two of them would be parsed and linted twice. Workers that can
open the run's store file (same machine, or a shared file system) look a body up there before
judging it, and add what they judged. The store is an accelerator only: any failure to open,
read or write it just means the worker judges the body itself, so results never depend on it.
Entries are the `Facts` of this very run, pickled as plain tuples (`encode`: a slots dataclass
pickles through Python-level `__getstate__`, about five times slower, and every judged body is
stored); the file lives in the run's parts folder and is deleted at its end, so nothing is ever
read back from another version or configuration.
"""

from __future__ import annotations

import contextlib
import pickle
import sqlite3
from collections.abc import Sequence
from pathlib import Path

from robotskit.batch.analysis import AgentVerdicts, Facts, Verdicts

_SCHEMA = "CREATE TABLE IF NOT EXISTS facts (key BLOB PRIMARY KEY, value BLOB NOT NULL)"
# Who is judging which body now: the first worker to claim a key judges it; the others let the
# capture wait to the end of their unit (robotskit.batch.runner.process_unit).
_CLAIMS = "CREATE TABLE IF NOT EXISTS claims (key BLOB PRIMARY KEY)"


# Puts are written this many at a time, in one transaction: a commit per put cost 27 µs of CPU,
# batched 12 µs (4,624 puts of a small Facts, as one worker of the 21,848-capture set makes).
_BATCH = 32
# Keys per statement of `get_many` and `claim_many` (SQLite allows 32,766 variables since 3.32,
# 999 before).
_MAX_VARIABLES = 500


# What a stored value may raise when read: it was cut, or is not what `encode` wrote.
_BAD_VALUE = (pickle.PickleError, EOFError, AttributeError, TypeError, ValueError, IndexError)


def encode(facts: Facts) -> bytes:
    """`facts` as the store keeps it: tuples in the fields' order (`decode` reads it back)."""
    agents = facts.agents
    keys = tuple(
        (key.verdict, key.root, key.paths, key.crawl_delay, key.content_signal) for key in agents.keys
    )
    fields = (facts.groups, facts.rules, facts.sitemaps, facts.lint_ids, facts.truncated, facts.size)
    return pickle.dumps((*fields, keys, agents.of_agent, facts.lint_error), pickle.HIGHEST_PROTOCOL)


def decode(value: bytes) -> Facts:
    """The `Facts` that `encode` wrote; raises one of `_BAD_VALUE` for anything else."""
    groups, rules, sitemaps, lint_ids, truncated, size, keys, of_agent, lint_error = pickle.loads(value)
    agents = AgentVerdicts(tuple(Verdicts(*key) for key in keys), of_agent)
    return Facts(groups, rules, sitemaps, lint_ids, truncated, size, agents, lint_error)


class SharedFacts:
    """Get and put `Facts` by key in one SQLite file; every error disables the store quietly."""

    def __init__(self, path: str) -> None:
        self._pending: list[tuple[bytes, bytes]] = []
        self._db: sqlite3.Connection | None = None
        with contextlib.suppress(sqlite3.Error, OSError):
            if Path(path).parent.is_dir():
                db = sqlite3.connect(path, timeout=0.5, isolation_level=None, check_same_thread=False)
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA synchronous=OFF")  # a cache: losing it on a crash costs nothing
                db.execute(_SCHEMA)
                db.execute(_CLAIMS)
                self._db = db

    def get(self, key: bytes) -> Facts | None:
        if self._db is None:
            return None
        try:
            found = self._db.execute("SELECT value FROM facts WHERE key = ?", (key,)).fetchone()
            return decode(found[0]) if found else None
        except (sqlite3.Error, *_BAD_VALUE):
            self._disable()
            return None

    def get_many(self, keys: Sequence[bytes]) -> dict[bytes, Facts]:
        """The stored facts of those `keys` that have any, in one query (a worker looks up a
        batch of captures at once: one statement instead of one per body)."""
        if self._db is None or not keys:
            return {}
        found: dict[bytes, Facts] = {}
        try:
            for start in range(0, len(keys), _MAX_VARIABLES):
                chunk = keys[start : start + _MAX_VARIABLES]
                marks = ",".join("?" * len(chunk))  # the keys are bound, never in the text
                query = f"SELECT key, value FROM facts WHERE key IN ({marks})"
                for key, value in self._db.execute(query, chunk):
                    found[bytes(key)] = decode(value)
        except (sqlite3.Error, *_BAD_VALUE):
            self._disable()
            return {}
        return found

    def put(self, key: bytes, facts: Facts) -> None:
        """Add what a body says; written with the next `_BATCH` (or at `flush`)."""
        if self._db is None:
            return
        self._pending.append((key, encode(facts)))
        if len(self._pending) >= _BATCH:
            self.flush()

    def claim(self, key: bytes) -> bool:
        """Take `key` for judging: False when another worker took it first (it is judging that
        body now, or did and its facts are on their way). True when the store is unusable."""
        if self._db is None:
            return True
        try:
            return self._db.execute("INSERT OR IGNORE INTO claims VALUES (?)", (key,)).rowcount == 1
        except sqlite3.Error:
            self._disable()
            return True

    def claim_many(self, keys: Sequence[bytes]) -> set[bytes]:
        """`claim` for several keys in one statement: the set of those this worker took (all of
        them when the store is unusable: the worker then judges every body itself)."""
        if self._db is None or not keys:
            return set(keys)
        if sqlite3.sqlite_version_info < (3, 35):  # no RETURNING: one statement per key
            return {key for key in keys if self.claim(key)}
        taken: set[bytes] = set()
        try:
            for start in range(0, len(keys), _MAX_VARIABLES):
                chunk = keys[start : start + _MAX_VARIABLES]
                marks = ",".join("(?)" for _ in chunk)
                # RETURNING (SQLite 3.35+) names only the rows inserted: a key another worker
                # claimed first is ignored and not returned.
                query = f"INSERT OR IGNORE INTO claims VALUES {marks} RETURNING key"
                taken.update(bytes(row[0]) for row in self._db.execute(query, chunk).fetchall())
        except sqlite3.Error:
            self._disable()
            return set(keys)
        return taken

    def flush(self) -> None:
        """Write the pending puts in one transaction (a unit's end calls this)."""
        pending, self._pending = self._pending, []
        if self._db is None or not pending:
            return
        try:
            with self._db:  # one transaction: BEGIN ... COMMIT (ROLLBACK on error)
                self._db.execute("BEGIN")
                self._db.executemany("INSERT OR IGNORE INTO facts VALUES (?, ?)", pending)
        except sqlite3.Error:
            self._disable()

    def _disable(self) -> None:
        self._pending = []
        db, self._db = self._db, None
        if db is not None:
            with contextlib.suppress(sqlite3.Error):
                db.close()


_OPEN: dict[str, SharedFacts] = {}


def shared_facts(path: str | None) -> SharedFacts | None:
    """The process's connection to the store at `path` (None: no store for this run)."""
    if path is None:
        return None
    store = _OPEN.get(path)
    if store is None:
        if len(_OPEN) >= 4:
            for old in _OPEN.values():
                old._disable()
            _OPEN.clear()
        store = _OPEN[path] = SharedFacts(path)
    return store


def remove(path: str) -> None:
    """Delete a run's store (and SQLite's WAL files) once the run is done."""
    for suffix in ("", "-wal", "-shm"):
        with contextlib.suppress(OSError):
            Path(path + suffix).unlink()
