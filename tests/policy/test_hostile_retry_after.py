"""A server's wait of any size (Retry-After, Gemini 44) becomes a finite, storable entry.

400 digits read as float("inf"). The policy honours a wait up to the backoff cap and records it
as honoured, so every cache backend can store and read the entry back: the backoff holds and
the last good copy survives (persistent caches refuse non-finite numbers as corrupt data).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from robotskit.cache import MemoryCache, SQLiteCache, entry_from_dict, entry_to_dict
from robotskit.client import RobotsClient
from robotskit.policy import DEFAULT_POLICY, Outcome
from robotskit.policy.messages import FetchResponse
from robotskit.testing import FrozenClock, MockFetcher, gemini_response, http_response

if TYPE_CHECKING:
    from .conftest import Drive

HUGE = "9" * 400  # float(HUGE) == inf
CAP = DEFAULT_POLICY.backoff_cap
ROBOTS = "https://example.com/robots.txt"
GEMINI = "gemini://gem.example/robots.txt"
BODY = b"User-agent: *\nDisallow: /private/\n"

HUGE_WAITS = {
    "http 503": (ROBOTS, http_response(503, headers={"Retry-After": HUGE})),
    "http 429": (ROBOTS, http_response(429, headers={"Retry-After": HUGE})),
    "gemini 44": (GEMINI, gemini_response(44, HUGE)),
}


@pytest.mark.parametrize("case", list(HUGE_WAITS))
def test_huge_wait_is_recorded_as_the_cap(drive: Drive, case: str) -> None:
    """The entry's retry_after and TTL are the backoff cap, finite, not inf."""
    url, response = HUGE_WAITS[case]
    entry, _ = drive(url.rsplit("/", 1)[0] + "/", {url: response})
    assert entry.outcome is Outcome.UNREACHABLE
    assert entry.retry_after == CAP
    assert entry.expires_at - entry.fetched_at == CAP
    assert all(math.isfinite(v) for v in (entry.fetched_at, entry.expires_at, entry.outage_since or 0.0))


@pytest.mark.parametrize("case", list(HUGE_WAITS))
def test_every_backend_reads_the_entry_back(drive: Drive, tmp_path: Path, case: str) -> None:
    """Memory, SQLite and the JSON the Redis backend stores all return the entry unchanged."""
    url, response = HUGE_WAITS[case]
    entry, _ = drive(url.rsplit("/", 1)[0] + "/", {url: response})
    memory = MemoryCache()
    memory.put(entry)
    assert memory.get(entry.authority) == entry
    sqlite = SQLiteCache(tmp_path / "c.db")
    try:
        sqlite.put(entry)
        assert sqlite.get(entry.authority) == entry
    finally:
        sqlite.close()
    # RedisCache.put stores json.dumps(entry_to_dict(entry)); get reads it with entry_from_dict.
    assert entry_from_dict(json.loads(json.dumps(entry_to_dict(entry)))) == entry


def _client(tmp_path: Path, fetcher: MockFetcher, clock: FrozenClock) -> RobotsClient:
    return RobotsClient(
        "MyBot", cache=f"sqlite://{tmp_path / 'c.db'}", fetchers={"https": fetcher}, clock=clock
    )


def test_sqlite_client_backs_off_and_keeps_the_stale_copy(tmp_path: Path) -> None:
    """With an SQLite cache: one request per backoff, and the good copy still answers."""
    clock = FrozenClock()
    answers: list[FetchResponse] = [
        http_response(200, BODY),
        *[http_response(503, headers={"Retry-After": HUGE})] * 10,
    ]
    fetcher = MockFetcher({ROBOTS: answers})
    with _client(tmp_path, fetcher, clock) as client:
        assert client.allowed("https://example.com/public/page")
        clock.advance(25 * 3600)  # the good copy has expired
        for _ in range(6):
            assert client.allowed("https://example.com/public/page")  # the stale copy's rules
            assert not client.allowed("https://example.com/private/page")
            clock.advance(1)
        entry = client.lookup("https://example.com/")
    assert fetcher.count(ROBOTS) == 2  # the good fetch, then one failed fetch for the backoff
    assert entry.stale and entry.body == BODY and entry.retry_after == CAP
