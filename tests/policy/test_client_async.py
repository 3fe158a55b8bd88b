"""AsyncRobotsClient end to end with scripted async fetchers (issue 3), single-flight across tasks."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from robotskit.agents import Agent
from robotskit.client import AsyncRobotsClient
from robotskit.errors import FetchTimeout, InvalidURL
from robotskit.testing import AsyncMockFetcher, FrozenClock, gemini_response, http_response

ROBOTS = "https://example.com/robots.txt"
BODY = b"User-agent: *\nDisallow: /private\nCrawl-delay: 1\n"


def test_async_fetch_once_and_decide(clock: FrozenClock) -> None:
    """Issue 3: the async client fetches once per authority and answers from the cache after."""
    fetcher = AsyncMockFetcher({ROBOTS: http_response(200, BODY)})

    async def main() -> tuple[bool, bool, float | None]:
        async with AsyncRobotsClient("MyBot", fetchers={"https": fetcher}, clock=clock) as client:
            return (
                await client.allowed("https://example.com/private/a"),
                await client.allowed("https://example.com/public"),
                await client.crawl_delay("https://example.com/"),
            )

    assert asyncio.run(main()) == (False, True, 1.0)
    assert fetcher.count() == 1


def test_async_single_flight_100_tasks(clock: FrozenClock) -> None:
    """SPEC.md 6: 100 concurrent tasks asking about one new host make exactly one request."""
    fetcher = AsyncMockFetcher({ROBOTS: http_response(200, BODY)}, delay=0.2)

    async def main() -> list[bool]:
        client = AsyncRobotsClient("MyBot", fetchers={"https": fetcher}, clock=clock)
        results = await asyncio.gather(
            *(client.allowed(f"https://example.com/private/{i}") for i in range(100))
        )
        await client.close()
        return list(results)

    assert asyncio.run(main()) == [False] * 100
    assert fetcher.count() == 1


def test_async_single_flight_survives_one_cancelled_waiter(clock: FrozenClock) -> None:
    """A cancelled caller does not cancel the shared fetch the other callers wait on."""
    fetcher = AsyncMockFetcher({ROBOTS: http_response(200, BODY)}, delay=0.2)

    async def main() -> bool:
        client = AsyncRobotsClient("MyBot", fetchers={"https": fetcher}, clock=clock)
        first = asyncio.ensure_future(client.allowed("https://example.com/a"))
        second = asyncio.ensure_future(client.allowed("https://example.com/private"))
        await asyncio.sleep(0.05)
        first.cancel()
        return await second

    assert asyncio.run(main()) is False
    assert fetcher.count() == 1


def test_async_unreachable_reason_and_error_shared(clock: FrozenClock) -> None:
    """SPEC.md 6 row 4 / 7: a timeout for many waiting tasks is one request and one clear reason."""
    fetcher = AsyncMockFetcher({ROBOTS: FetchTimeout("timed out", url=ROBOTS)}, delay=0.1)

    async def main() -> list[str]:
        client = AsyncRobotsClient("MyBot", fetchers={"https": fetcher}, clock=clock)
        decisions = await asyncio.gather(*(client.decide("https://example.com/") for _ in range(10)))
        return [d.reason for d in decisions]

    assert asyncio.run(main()) == ["robots.txt unreachable (timeout)"] * 10
    assert fetcher.count() == 1


def test_async_gemini_by_scheme(clock: FrozenClock) -> None:
    """Issue 3 example: an indexer asks about a gemini:// URL; the gemini profile applies."""
    body = b"User-agent: indexer\nDisallow: /gemlog/\n"
    fetcher = AsyncMockFetcher({"gemini://example.org/robots.txt": gemini_response(20, "text/gemini", body)})

    async def main() -> tuple[bool, bool]:
        agent = Agent("MyBot", purposes=["indexer"])
        async with AsyncRobotsClient(agent, fetchers={"gemini": fetcher}, clock=clock) as client:
            return await client.allowed("gemini://example.org/gemlog/"), await client.allowed(
                "gemini://example.org/"
            )

    assert asyncio.run(main()) == (False, True)


def test_async_sqlite_cache(clock: FrozenClock, tmp_path: Path) -> None:
    """The async client uses a persistent cache off the event loop and shares it with a new client."""
    url = f"sqlite://{tmp_path}/a.db"
    fetcher = AsyncMockFetcher({ROBOTS: http_response(200, BODY)})

    async def main() -> tuple[bool, bool]:
        async with AsyncRobotsClient("MyBot", cache=url, fetchers={"https": fetcher}, clock=clock) as one:
            a = await one.allowed("https://example.com/private")
        async with AsyncRobotsClient("MyBot", cache=url, fetchers={"https": fetcher}, clock=clock) as two:
            b = await two.allowed("https://example.com/public")
        return a, b

    assert asyncio.run(main()) == (False, True)
    assert fetcher.count() == 1


def test_async_invalid_url(clock: FrozenClock) -> None:
    """Issue 3: an unsupported scheme raises InvalidURL from the async client too."""

    async def main() -> None:
        client = AsyncRobotsClient("MyBot", fetchers={}, clock=clock)
        await client.allowed("mailto:x@example.com")

    with pytest.raises(InvalidURL):
        asyncio.run(main())
