"""Clients refuse use after close(), refetch on `refresh=True`, and name a wrong-typed `url`."""

from __future__ import annotations

import asyncio

import pytest

from robotskit import AsyncRobotsClient, ClientClosed, RobotsClient, RobotskitError
from robotskit.policy import Outcome
from robotskit.testing import AsyncMockFetcher, FrozenClock, MockFetcher, http_response

ROBOTS = "https://example.com/robots.txt"
BODY = b"User-agent: *\nDisallow: /private\n"


def test_closed_client_raises(clock: FrozenClock) -> None:
    """After close() (here: the end of its `with` block) every use raises ClientClosed."""
    fetcher = MockFetcher({ROBOTS: http_response(200, BODY)})
    with RobotsClient("MyBot", fetchers={"https": fetcher}, clock=clock) as client:
        assert client.allowed("https://example.com/x")
    for use in (client.lookup, client.allowed, client.decide, client.sitemaps):
        with pytest.raises(ClientClosed, match="closed"):
            use("https://example.com/x")
    assert issubclass(ClientClosed, RobotskitError)
    client.close()  # closing twice is harmless


def test_closed_async_client_raises(clock: FrozenClock) -> None:
    """The async client refuses use after close() as well."""
    fetcher = AsyncMockFetcher({ROBOTS: http_response(200, BODY)})

    async def scenario() -> None:
        async with AsyncRobotsClient("MyBot", fetchers={"https": fetcher}, clock=clock) as client:
            assert await client.allowed("https://example.com/x")
        with pytest.raises(ClientClosed):
            await client.allowed("https://example.com/x")

    asyncio.run(scenario())


def test_refresh_fetches_again_while_fresh(clock: FrozenClock) -> None:
    """refresh=True fetches again although the cached copy is fresh; without it the cache answers."""
    fetcher = MockFetcher(
        {ROBOTS: [http_response(200, BODY), http_response(200, b"User-agent: *\nDisallow: /")]}
    )
    client = RobotsClient("MyBot", fetchers={"https": fetcher}, clock=clock)
    assert client.lookup(ROBOTS).outcome is Outcome.OK
    client.lookup(ROBOTS)
    assert fetcher.count() == 1
    entry = client.lookup(ROBOTS, refresh=True)
    assert fetcher.count() == 2 and entry.body.endswith(b"Disallow: /")


@pytest.mark.parametrize("url", [None, b"https://example.com/", 42])
def test_url_of_the_wrong_type_is_a_type_error(clock: FrozenClock, url: object) -> None:
    """A url that is not a str raises TypeError naming `url` (not an AttributeError from inside)."""
    client = RobotsClient("MyBot", fetchers={}, clock=clock)
    with pytest.raises(TypeError, match="url must be a str"):
        client.allowed(url)  # type: ignore[arg-type]
