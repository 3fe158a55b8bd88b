"""The cache backends behind one interface (issue 3): memory LRU, SQLite (WAL, crash-safe), open_cache."""

from __future__ import annotations

import os
import pickle
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from contextlib import closing
from dataclasses import replace
from pathlib import Path

import pytest

from robotskit.cache import Cache, MemoryCache, SQLiteCache, entry_from_dict, entry_to_dict, open_cache
from robotskit.errors import InvalidArgument
from robotskit.policy import Outcome, RobotsEntry


def make_entry(authority: str = "https://example.com", **changes: object) -> RobotsEntry:
    """A fully populated entry, so round trips are checked on every field."""
    entry = RobotsEntry(
        authority=authority,
        robots_url=authority + "/robots.txt",
        outcome=Outcome.UNREACHABLE,
        status=503,
        protocol="http",
        body=b"User-agent: *\nDisallow: /x\n\xff\x00binary",
        fetched_at=1_767_225_600.5,
        expires_at=1_767_225_660.5,
        redirects=("https://cdn.example.net/robots.txt",),
        size=30,
        truncated=True,
        reason="HTTP 503",
        stale=True,
        retry_after=120.0,
        good_at=1_767_000_000.0,
        outage_since=1_767_000_000.0,
        failures=3,
        notes=("a note", "another"),
        content_type="text/plain; charset=utf-8",
    )
    return replace(entry, **changes)  # type: ignore[arg-type]


def test_entry_dict_round_trip() -> None:
    """Issue 3: a cached entry keeps every field (body, times, outcome, status, redirects, reason, type)."""
    entry = make_entry()
    assert entry_from_dict(entry_to_dict(entry)) == entry


def test_memory_cache_get_put_delete_clear() -> None:
    """The memory backend stores by authority and satisfies the Cache protocol."""
    cache = MemoryCache()
    assert isinstance(cache, Cache)
    assert cache.get("https://example.com") is None
    cache.put(make_entry())
    assert cache.get("https://example.com") == make_entry()
    cache.delete("https://example.com")
    assert cache.get("https://example.com") is None
    cache.put(make_entry("https://a.example"))
    cache.clear()
    assert len(cache) == 0


def test_memory_cache_is_lru() -> None:
    """The memory backend evicts the least recently *used* authority past maxsize."""
    cache = MemoryCache(maxsize=2)
    cache.put(make_entry("https://a.example"))
    cache.put(make_entry("https://b.example"))
    assert cache.get("https://a.example") is not None  # a is now the most recent
    cache.put(make_entry("https://c.example"))
    assert cache.get("https://b.example") is None
    assert cache.get("https://a.example") is not None
    assert len(cache) == 2


def test_memory_cache_thread_safe() -> None:
    """The memory backend survives many threads writing and reading at once."""
    cache = MemoryCache(maxsize=50)
    errors: list[BaseException] = []

    def work(n: int) -> None:
        try:
            for i in range(300):
                cache.put(make_entry(f"https://h{(n * 7 + i) % 80}.example"))
                cache.get(f"https://h{i % 80}.example")
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(cache) == 50


def test_sqlite_round_trip_and_persistence(tmp_path: Path) -> None:
    """The SQLite backend keeps every field and survives closing and reopening."""
    path = tmp_path / "sub" / "robots.db"
    cache = SQLiteCache(path)
    assert isinstance(cache, Cache)
    cache.put(make_entry())
    cache.put(make_entry(status=500))  # an upsert replaces
    cache.close()
    reopened = SQLiteCache(path)
    assert reopened.get("https://example.com") == make_entry(status=500)
    assert len(reopened) == 1
    assert reopened.get("https://nothing.example") is None
    reopened.close()


def test_sqlite_uses_wal(tmp_path: Path) -> None:
    """The SQLite backend runs in WAL mode, so readers never block the writer."""
    cache = SQLiteCache(tmp_path / "r.db")
    cache.put(make_entry())
    with closing(sqlite3.connect(tmp_path / "r.db")) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    cache.close()


def test_sqlite_prune_delete_clear(tmp_path: Path) -> None:
    """The SQLite backend deletes one authority, old entries, or everything."""
    cache = SQLiteCache(tmp_path / "r.db")
    cache.put(make_entry("https://old.example", fetched_at=100.0))
    cache.put(make_entry("https://new.example", fetched_at=1000.0))
    cache.put(make_entry("https://third.example"))
    cache.delete("https://third.example")
    assert cache.prune(before=500.0) == 1
    assert cache.get("https://old.example") is None
    assert cache.get("https://new.example") is not None
    cache.clear()
    assert len(cache) == 0
    cache.close()


WRITER = textwrap.dedent(
    """
    import sys
    from dataclasses import replace
    from robotskit.cache import SQLiteCache
    from robotskit.policy import Outcome, RobotsEntry
    cache = SQLiteCache(sys.argv[1])
    name, count = sys.argv[2], int(sys.argv[3])
    body = (b"User-agent: *\\nDisallow: /x\\n" * 3000)
    i = 0
    while count < 0 or i < count:
        entry = RobotsEntry(authority=f"https://{name}{i % 200}.example", robots_url="https://x/robots.txt",
                            outcome=Outcome.OK, status=200, protocol="http", body=body + str(i).encode(),
                            fetched_at=float(i), expires_at=float(i) + 1, size=len(body))
        cache.put(entry)
        if i == 20:
            print("looping", flush=True)
        i += 1
    cache.close()
    """
)


def _writer(path: Path, name: str, count: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path), name, str(count)], stdout=subprocess.PIPE, text=True
    )


@pytest.mark.slow
def test_sqlite_concurrent_processes(tmp_path: Path) -> None:
    """Issue 3: several processes write one SQLite cache at once without errors or lost rows."""
    path = tmp_path / "shared.db"
    SQLiteCache(path).close()
    writers = [_writer(path, name, 150) for name in ("a", "b", "c")]
    reader = SQLiteCache(path)
    while any(w.poll() is None for w in writers):
        reader.get("https://a1.example")  # reads alongside the writers must not fail
        time.sleep(0.01)
    for w in writers:
        assert w.stdout is not None
        w.stdout.close()
    assert [w.returncode for w in writers] == [0, 0, 0]
    assert len(reader) == 3 * 150
    entry = reader.get("https://b149.example")
    assert entry is not None and entry.body.endswith(b"149")
    reader.close()


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs POSIX SIGKILL")
def test_sqlite_survives_sigkill_mid_write(tmp_path: Path) -> None:
    """Issue 3: a writer killed (SIGKILL) in the middle of its loop never leaves the file corrupt."""
    path = tmp_path / "killed.db"
    for round_ in range(3):
        writer = _writer(path, f"k{round_}-", -1)  # loops forever
        assert writer.stdout is not None
        assert writer.stdout.readline().strip() == "looping"
        time.sleep(0.05 + 0.05 * round_)
        os.kill(writer.pid, signal.SIGKILL)
        writer.wait()
        assert writer.returncode == -signal.SIGKILL
        writer.stdout.close()
        with closing(sqlite3.connect(path)) as conn:
            assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        cache = SQLiteCache(path)
        entry = cache.get(f"https://k{round_}-0.example")
        assert entry is not None and entry.outcome is Outcome.OK
        assert entry.body.startswith(b"User-agent: *")
        cache.put(make_entry())  # still writable after the crash
        cache.close()


def test_open_cache_urls(tmp_path: Path) -> None:
    """open_cache understands memory://, sqlite:///abs/path and passes a Cache through."""
    memory = open_cache("memory://?maxsize=3")
    assert isinstance(memory, MemoryCache) and memory.maxsize == 3
    assert isinstance(open_cache(None), MemoryCache)
    assert open_cache(memory) is memory
    sqlite_cache = open_cache(f"sqlite://{tmp_path}/c.db")
    assert isinstance(sqlite_cache, SQLiteCache)
    assert sqlite_cache.path == tmp_path / "c.db"
    sqlite_cache.close()
    with pytest.raises(InvalidArgument):
        open_cache("ftp://nope")
    with pytest.raises(InvalidArgument):
        open_cache("sqlite://")


def test_entry_pickles() -> None:
    """A RobotsEntry is a plain frozen value: it pickles (multiprocessing crawlers) and hashes."""
    entry = make_entry()
    assert pickle.loads(pickle.dumps(entry)) == entry
    assert hash(entry) == hash(make_entry())


@pytest.mark.parametrize(
    "url", ["memory://?maxsize=abc", "memory://?maxsize=1.5", "redis://[::1", "sqlite:///tmp/a\x00b.db"]
)
def test_a_malformed_cache_url_is_invalid_argument(url: str) -> None:
    """These raised a plain ValueError (int(), urlsplit, a NUL in the path)."""
    with pytest.raises(InvalidArgument):
        open_cache(url)
