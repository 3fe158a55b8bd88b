"""RedisCache against a real redis-server started on 127.0.0.1 (issue 3: a fleet shares one copy)."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from robotskit.cache import REDIS_TTL, RedisCache, open_cache
from robotskit.client import RobotsClient
from robotskit.errors import CacheError
from robotskit.policy import Outcome, RobotsEntry
from robotskit.testing import FrozenClock, MockFetcher, http_response

pytestmark = pytest.mark.integration

redis = pytest.importorskip("redis", reason="the redis extra (redis-py) is not installed")


def _redis_server_binary() -> str | None:
    """The PyPI package `redis-server` ships a binary; else Debian's `redis-server` on PATH."""
    try:
        import redis_server  # type: ignore[import-not-found]
    except ImportError:
        pass
    else:
        for name in ("REDIS_SERVER_PATH", "redis_server_path"):
            path = getattr(redis_server, name, None)
            if path and Path(path).exists():
                return str(path)
    return shutil.which("redis-server")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A private redis-server on 127.0.0.1:<free port>, no persistence, stopped after the module."""
    binary = _redis_server_binary()
    if binary is None:
        pytest.skip("no redis-server binary: pip install redis-server, or apt-get install redis-server")
    port = _free_port()
    workdir = tmp_path_factory.mktemp("redis")
    args = [
        binary,
        "--bind",
        "127.0.0.1",
        "--port",
        str(port),
        "--save",
        "",
        "--appendonly",
        "no",
        "--dir",
        str(workdir),
        "--protected-mode",
        "yes",
    ]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"redis://127.0.0.1:{port}/0"
    client = redis.Redis.from_url(url)
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                client.ping()
                break
            except redis.ConnectionError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        yield url
    finally:
        client.close()
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _entry(
    authority: str = "https://example.com", body: bytes = b"User-agent: *\nDisallow: /x\n"
) -> RobotsEntry:
    return RobotsEntry(
        authority=authority,
        robots_url=authority + "/robots.txt",
        outcome=Outcome.OK,
        status=200,
        protocol="http",
        body=body + b"\xff",
        fetched_at=1.0,
        expires_at=2.0,
        redirects=("https://b.example/robots.txt",),
        size=len(body) + 1,
        reason="HTTP 200",
        good_at=1.0,
        notes=("n",),
    )


def test_redis_round_trip_with_ttl(redis_url: str) -> None:
    """A RedisCache entry keeps every field and expires a little after the 30-day stale window."""
    cache = RedisCache(redis_url, prefix="t1:")
    cache.put(_entry())
    assert cache.get("https://example.com") == _entry()
    assert cache.get("https://missing.example") is None
    raw = redis.Redis.from_url(redis_url)
    ttl = raw.ttl("t1:https://example.com")
    raw.close()
    assert 30 * 86400 < ttl <= REDIS_TTL
    cache.delete("https://example.com")
    assert cache.get("https://example.com") is None
    cache.close()


def test_redis_prefix_isolates_and_clear_is_scoped(redis_url: str) -> None:
    """Two prefixes never see each other's entries; clear() removes only its own prefix."""
    one, two = RedisCache(redis_url, prefix="p1:"), RedisCache(redis_url, prefix="p2:")
    one.put(_entry(body=b"one"))
    two.put(_entry(body=b"two"))
    one.put(_entry("https://other.example"))
    assert one.get("https://example.com").body == b"one\xff"  # type: ignore[union-attr]
    one.clear()
    assert one.get("https://example.com") is None
    assert one.get("https://other.example") is None
    assert two.get("https://example.com") is not None
    one.close()
    two.close()


def test_fleet_of_clients_shares_one_fetch(redis_url: str) -> None:
    """Issue 3: crawlers sharing a Redis cache fetch robots.txt once between them."""
    clock = FrozenClock()
    robots = "https://example.com/robots.txt"
    fetchers = [
        MockFetcher({robots: http_response(200, b"User-agent: *\nDisallow: /private\n")}) for _ in range(3)
    ]
    url = redis_url + "?prefix=fleet:"
    answers = []
    for fetcher in fetchers:
        with RobotsClient("MyBot", cache=url, fetchers={"https": fetcher}, clock=clock) as client:
            assert isinstance(client.cache, RedisCache) and client.cache.prefix == "fleet:"
            answers.append(client.allowed("https://example.com/private/page"))
    assert answers == [False, False, False]
    assert [f.count() for f in fetchers] == [1, 0, 0]
    open_cache(url).clear()


def test_redis_down_get_is_a_miss_delete_is_a_cache_error() -> None:
    """A Redis that cannot be reached: get() is a miss (no exception); an explicit delete() raises CacheError."""
    cache = RedisCache(f"redis://127.0.0.1:{_free_port()}/0")
    assert cache.get("https://example.com") is None
    with pytest.raises(CacheError) as info:
        cache.delete("https://example.com")
    assert info.value.backend == "redis"
    cache.close()
