"""Cache backends fail soft and typed (issue 14): a stopped or hung Redis, and corrupt stored data.

A real redis-server on 127.0.0.1 is started per test, then stopped (SIGTERM) or frozen (SIGSTOP):
the client answers from process memory after at most the configured timeout, logs once, and
never raises. Stored data that is not an entry robotskit wrote is a logged miss, refetched.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import socket
import sqlite3
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest

from robotskit.cache import RedisCache, SQLiteCache, entry_to_dict
from robotskit.client import RobotsClient
from robotskit.testing import FrozenClock, MockFetcher, http_response

from .test_redis_cache import _free_port, _redis_server_binary

pytestmark = [pytest.mark.integration, pytest.mark.slow]

redis = pytest.importorskip("redis", reason="the redis extra (redis-py) is not installed")

ROBOTS = "https://example.com/robots.txt"
BODY = b"User-agent: *\nDisallow: /private\n"


class RedisServer:
    """A private redis-server on 127.0.0.1, which a test may stop or freeze."""

    def __init__(self, workdir: Path) -> None:
        binary = _redis_server_binary()
        if binary is None:
            pytest.skip("no redis-server binary")
        self.port = _free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        args = [binary, "--bind", "127.0.0.1", "--port", str(self.port), "--save", "", "--appendonly", "no"]
        self.proc = subprocess.Popen(
            [*args, "--dir", str(workdir)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        probe = redis.Redis.from_url(self.url)
        deadline = time.monotonic() + 10
        while True:
            try:
                probe.ping()
                break
            except redis.ConnectionError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        probe.close()

    def raw(self) -> redis.Redis:
        return redis.Redis.from_url(self.url)

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGCONT)  # a frozen server must be able to exit
            self.proc.terminate()
            self.proc.wait(timeout=10)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RedisServer]:
    started = RedisServer(tmp_path)
    try:
        yield started
    finally:
        started.stop()


def _client(cache: object, fetcher: MockFetcher, clock: FrozenClock) -> RobotsClient:
    return RobotsClient("MyBot", cache=cache, fetchers={"https": fetcher}, clock=clock)  # type: ignore[arg-type]


def _crawler(
    cache: object, status: int = 200, body: bytes = BODY
) -> tuple[RobotsClient, MockFetcher, FrozenClock]:
    """A client on `cache` at a frozen clock, its fetcher answering ROBOTS with `status` and `body`."""
    clock = FrozenClock()
    fetcher = MockFetcher({ROBOTS: http_response(status, body)})
    return _client(cache, fetcher, clock), fetcher, clock


def _warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage() for r in caplog.records if r.name == "robotskit.cache" and r.levelno >= logging.WARNING
    ]


def test_stopped_redis_client_answers_from_memory_and_logs_once(
    server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    """A Redis stopped mid-crawl: no exception reaches the caller, one warning, one fetch per TTL."""
    cache = RedisCache(server.url, prefix="stopped:")
    client, fetcher, clock = _crawler(cache)
    assert not client.allowed("https://example.com/private/1")
    server.stop()
    clock.advance(86_400)  # expired: the client must fetch again and keep the new copy somewhere
    caplog.set_level(logging.WARNING, logger="robotskit.cache")
    for _ in range(5):
        assert not client.allowed("https://example.com/private/2")
        assert client.allowed("https://example.com/public")
    assert fetcher.count() == 2  # once before the outage, once after the expiry: then from memory
    assert len(_warnings(caplog)) == 1
    assert "unavailable" in _warnings(caplog)[0]
    cache.close()


def test_hung_redis_costs_at_most_the_timeout_then_memory(
    server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    """A frozen Redis (SIGSTOP: connections are accepted, nothing answers) costs one socket timeout."""
    cache = RedisCache(server.url, prefix="hung:", connect_timeout=0.3, socket_timeout=0.3)
    client, fetcher, clock = _crawler(cache)
    assert client.allowed("https://example.com/public")
    os.kill(server.proc.pid, signal.SIGSTOP)
    caplog.set_level(logging.WARNING, logger="robotskit.cache")
    clock.advance(86_400)
    started = time.monotonic()
    answers = [client.allowed("https://example.com/private/x") for _ in range(20)]
    elapsed = time.monotonic() - started
    assert answers == [False] * 20
    # one timed-out read, then the retry interval keeps the server out of the path
    assert elapsed < 0.3 + 1.0, elapsed
    assert fetcher.count() == 2
    assert len(_warnings(caplog)) == 1
    cache.close()


def test_hung_tcp_listener_is_bounded_by_connect_and_socket_timeouts(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A listener that accepts and never answers: a lookup returns a miss within the socket timeout."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.1)
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except TimeoutError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        port = listener.getsockname()[1]
        cache = RedisCache(f"redis://127.0.0.1:{port}/0", connect_timeout=0.2, socket_timeout=0.2)
        started = time.monotonic()
        assert cache.get("https://example.com") is None
        assert time.monotonic() - started < 0.2 + 0.8
        started = time.monotonic()
        assert cache.get("https://example.com") is None  # within the retry interval: not asked
        assert time.monotonic() - started < 0.05
        cache.close()
    finally:
        stop.set()
        thread.join()
        listener.close()
        for sock in held:
            sock.close()


def test_redis_back_after_retry_interval(server: RedisServer, caplog: pytest.LogCaptureFixture) -> None:
    """After the retry interval the server is asked again; entries kept in memory meanwhile still answer."""
    cache = RedisCache(
        server.url, prefix="back:", socket_timeout=0.3, connect_timeout=0.3, retry_interval=0.2
    )
    os.kill(server.proc.pid, signal.SIGSTOP)
    caplog.set_level(logging.WARNING, logger="robotskit.cache")
    client, fetcher, clock = _crawler(cache)
    assert not client.allowed("https://example.com/private/1")  # fetched, kept in memory
    os.kill(server.proc.pid, signal.SIGCONT)
    time.sleep(0.3)
    assert not client.allowed("https://example.com/private/2")  # Redis misses: memory answers
    assert fetcher.count() == 1
    messages = _warnings(caplog)
    assert len(messages) == 2 and "answers again" in messages[1]
    clock.advance(86_400)
    assert not client.allowed("https://example.com/private/3")  # refetched, now written to Redis
    raw = server.raw()
    assert raw.get("back:https://example.com") is not None
    raw.close()
    cache.close()


def _corruptions() -> list[tuple[str, object]]:
    return [
        ("body", "!!! not base64 !!!"),
        ("body", 12),
        ("fetched_at", "yesterday"),
        ("expires_at", None),
        ("outcome", "fine"),
        ("status", "200"),
        ("redirects", "https://a.example"),
        ("truncated", "no"),
        ("size", -1),
        ("v", 99),
    ]


@pytest.mark.parametrize(("field", "value"), _corruptions())
def test_corrupt_redis_entry_is_a_logged_miss_and_refetched(
    server: RedisServer, caplog: pytest.LogCaptureFixture, field: str, value: object
) -> None:
    """A stored entry with a wrong-typed field or a body that is not base64 is a miss (logged), refetched."""
    cache = RedisCache(server.url, prefix="bad:")
    client, fetcher, _clock = _crawler(cache)
    assert not client.allowed("https://example.com/private/1")
    raw = server.raw()
    data = json.loads(raw.get("bad:https://example.com"))
    data[field] = value
    raw.set("bad:https://example.com", json.dumps(data))
    caplog.set_level(logging.WARNING, logger="robotskit.cache")
    assert not client.allowed("https://example.com/private/2")  # never "allow everything"
    assert fetcher.count() == 2
    assert any("unreadable entry" in m for m in _warnings(caplog))
    assert json.loads(raw.get("bad:https://example.com"))[field] != value  # replaced by the refetch
    raw.close()
    cache.close()


@pytest.mark.parametrize("stored", [b"not json", b"[1, 2]", b"\xff\xfe", b"null"])
def test_garbled_redis_value_is_a_miss(server: RedisServer, stored: bytes) -> None:
    """A value that is not a JSON object at all reads as a miss, never an exception."""
    raw = server.raw()
    raw.set("g:https://example.com", stored)
    raw.rpush("g:https://list.example", "x")  # a key of another Redis type (WRONGTYPE on GET)
    cache = RedisCache(server.url, prefix="g:")
    assert cache.get("https://example.com") is None
    assert cache.get("https://list.example") is None
    raw.close()
    cache.close()


@pytest.mark.parametrize(
    ("column", "value"),
    [
        ("body", "text, not a blob"),
        ("fetched_at", "soon"),
        ("meta", "{not json"),
        ("meta", "[]"),
        ("status", 1.5),
    ],
)
def test_corrupt_sqlite_row_is_a_logged_miss_and_refetched(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, column: str, value: object
) -> None:
    """An SQLite row whose columns hold what robotskit never writes is a miss (logged), refetched."""
    path = tmp_path / "c.db"
    cache = SQLiteCache(path)
    client, fetcher, _clock = _crawler(cache)
    assert not client.allowed("https://example.com/private/1")
    with sqlite3.connect(path) as conn:
        conn.execute(f"UPDATE robots_entries SET {column} = ?", (value,))
    caplog.set_level(logging.WARNING, logger="robotskit.cache")
    assert not client.allowed("https://example.com/private/2")
    assert fetcher.count() == 2
    assert any("unreadable entry" in m for m in _warnings(caplog))
    cache.close()


def test_entry_to_dict_still_round_trips_through_redis(server: RedisServer) -> None:
    """The strict reader accepts everything the writer writes (a sanity check for the checks above)."""
    cache = RedisCache(server.url, prefix="rt:")
    client, _fetcher, _clock = _crawler(cache, 503, b"")
    entry = client.lookup("https://example.com/")
    assert cache.get("https://example.com") == entry
    assert json.loads(json.dumps(entry_to_dict(entry))) == entry_to_dict(entry)
    cache.close()


def test_redis_url_forms_and_no_password_in_logs(caplog: pytest.LogCaptureFixture) -> None:
    """unix:// URLs keep their path; a password in the URL never reaches a log line or repr."""
    from robotskit.cache import open_cache

    caplog.set_level(logging.WARNING, logger="robotskit.cache")
    cache = open_cache("unix:///nonexistent/robotskit.sock?db=0")
    assert cache.get("https://example.com") is None
    secret = open_cache(f"redis://user:s3cret@127.0.0.1:{_free_port()}/0?prefix=x:")
    assert secret.get("https://example.com") is None
    assert "s3cret" not in repr(secret)
    assert not any("s3cret" in m for m in _warnings(caplog))
    assert any("user:***@" in m for m in _warnings(caplog))
    cache.close()
    secret.close()


def test_async_client_with_stopped_redis_answers_from_memory(server: RedisServer) -> None:
    """The asyncio client, too: a stopped Redis raises nothing and each authority is fetched once per TTL."""
    import asyncio

    from robotskit.client import AsyncRobotsClient
    from robotskit.testing import AsyncMockFetcher

    fetcher = AsyncMockFetcher({ROBOTS: http_response(200, BODY)})
    cache = RedisCache(server.url, prefix="async:")
    server.stop()

    async def crawl() -> list[bool]:
        client = AsyncRobotsClient("MyBot", cache=cache, fetchers={"https": fetcher}, clock=FrozenClock())
        answers = [await client.allowed(f"https://example.com/private/{i}") for i in range(5)]
        await client.close()
        return answers

    assert asyncio.run(crawl()) == [False] * 5
    assert fetcher.count() == 1
    cache.close()


def test_locked_sqlite_file_client_answers_from_memory(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Another process holding the SQLite write lock: writes wait `timeout`, then memory; one warning, no exception."""
    clock = FrozenClock()
    fetcher = MockFetcher(
        {ROBOTS: http_response(200, BODY), "https://b.example/robots.txt": http_response(404)}
    )
    path = tmp_path / "locked.db"
    cache = SQLiteCache(path, timeout=0.2, retry_interval=0.5)
    client = _client(cache, fetcher, clock)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # the write lock, held
    caplog.set_level(logging.WARNING, logger="robotskit.cache")
    try:
        started = time.monotonic()
        for _ in range(5):
            assert not client.allowed("https://example.com/private/1")
        assert time.monotonic() - started < 0.2 + 0.5
        assert fetcher.count(ROBOTS) == 1
        messages = _warnings(caplog)
        assert len(messages) == 1 and "unavailable" in messages[0]
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    time.sleep(0.6)  # past the retry interval: the file is used again
    clock.advance(86_400)
    assert not client.allowed("https://example.com/private/2")
    assert "answers again" in _warnings(caplog)[-1]
    with closing(sqlite3.connect(path)) as conn:
        assert conn.execute("SELECT count(*) FROM robots_entries").fetchone() == (1,)
    cache.close()
