"""robotskit.testing: the MockFetcher and FrozenClock users get for their own tests."""

from __future__ import annotations

import asyncio
import time

import pytest

from robotskit.errors import FetchError
from robotskit.fetch import AsyncFetcher, Fetcher, FetchRequest
from robotskit.testing import AsyncMockFetcher, FrozenClock, MockFetcher, http_response


def test_mock_fetcher_scripts_in_order_then_repeats_last() -> None:
    """A list script answers in order and then keeps repeating its last answer."""
    url = "https://a.example/robots.txt"
    fetcher = MockFetcher({url: [http_response(503), http_response(200, "ok")]})
    assert isinstance(fetcher, Fetcher)
    statuses = [fetcher.fetch(FetchRequest(url)).status for _ in range(4)]
    assert statuses == [503, 200, 200, 200]
    assert fetcher.count(url) == 4
    assert fetcher.fetch(FetchRequest(url)).url == url  # the response carries the requested URL


def test_mock_fetcher_defaults_to_not_found_per_protocol() -> None:
    """Unscripted URLs answer "not found" in their own protocol: HTTP 404, Gemini 51, FTP 550."""
    fetcher = MockFetcher()
    got = [
        (r.protocol, r.status)
        for r in (
            fetcher.fetch(FetchRequest("https://x.example/robots.txt")),
            fetcher.fetch(FetchRequest("gemini://x.example/robots.txt")),
            fetcher.fetch(FetchRequest("ftp://x.example/robots.txt")),
        )
    ]
    assert got == [("http", 404), ("gemini", 51), ("ftp", 550)]


def test_mock_fetcher_raises_scripted_errors() -> None:
    """A scripted FetchError is raised, as a real adapter would."""
    url = "https://a.example/robots.txt"
    fetcher = MockFetcher({url: FetchError("refused", url=url, kind="refused")})
    with pytest.raises(FetchError):
        fetcher.fetch(FetchRequest(url))


def test_mock_fetcher_delay_sleeps() -> None:
    """`delay` makes each request take that long (to exercise concurrency)."""
    fetcher = MockFetcher(delay=0.1)
    start = time.monotonic()
    fetcher.fetch(FetchRequest("https://a.example/robots.txt"))
    assert time.monotonic() - start >= 0.09


def test_async_mock_fetcher() -> None:
    """The async variant answers the same scripts with `await`."""
    url = "https://a.example/robots.txt"
    fetcher = AsyncMockFetcher({url: http_response(200, "User-agent: *")}, delay=0.01)
    assert isinstance(fetcher, AsyncFetcher)
    response = asyncio.run(fetcher.fetch(FetchRequest(url)))
    assert (response.status, response.body) == (200, b"User-agent: *")


def test_frozen_clock_moves_only_when_told() -> None:
    """FrozenClock returns the same time until advanced or set."""
    clock = FrozenClock(1000.0)
    assert clock() == clock() == 1000.0
    assert clock.advance(60) == 1060.0
    clock.set(5.0)
    assert clock() == 5.0
