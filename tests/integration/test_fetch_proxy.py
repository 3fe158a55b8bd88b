"""HttpFetcher(proxy=...): requests go through the named proxy, still under the total deadline.

The proxy is a raw loopback server playing a forward proxy: it records the absolute-form request
line it receives and answers for the origin. Environment proxy variables are never used.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import pytest

from robotskit.errors import FetchTimeout, InvalidArgument
from robotskit.fetch import FetchRequest
from robotskit.fetch.http import AsyncHttpFetcher, HttpFetcher

from .conftest import ROBOTS
from .servers.raw_server import RawServer, drip, http_play

pytestmark = [pytest.mark.integration, pytest.mark.slow]

ANSWER = b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % len(ROBOTS) + ROBOTS


@pytest.fixture
def proxy() -> Iterator[RawServer]:
    server = RawServer(http_play([(0.0, ANSWER)])).start()
    yield server
    server.stop()


def test_sync_and_async_fetch_through_proxy(proxy: RawServer) -> None:
    """The request reaches the proxy in absolute form and the proxy's answer is the response."""
    origin = "http://origin.invalid/robots.txt"  # never resolved: the proxy answers for it
    proxy_url = f"http://127.0.0.1:{proxy.port}"
    with HttpFetcher(proxy=proxy_url) as fetcher:
        resp = fetcher.fetch(FetchRequest(origin, user_agent="MyBot"))
    assert (resp.status, resp.body) == (200, ROBOTS)

    async def go() -> bytes:
        async with AsyncHttpFetcher(proxy=proxy_url) as afetcher:
            return (await afetcher.fetch(FetchRequest(origin, user_agent="MyBot"))).body

    assert asyncio.run(go()) == ROBOTS
    assert [head.split(b"\r\n", 1)[0] for head in proxy.requests] == [
        b"GET " + origin.encode() + b" HTTP/1.1"
    ] * 2


def test_dripping_proxy_ends_at_deadline() -> None:
    """A proxy that drips its answer is cut off at the fetch's deadline, as a server would be."""
    server = RawServer(http_play(drip(b"HTTP/1.1 200 OK" + b" " * 400 + b"\r\n\r\n", 0.05))).start()
    try:
        with HttpFetcher(proxy=f"http://127.0.0.1:{server.port}") as fetcher:
            start = time.monotonic()
            with pytest.raises(FetchTimeout):
                fetcher.fetch(FetchRequest("http://origin.invalid/robots.txt", timeout=1.0))
            assert time.monotonic() - start < 2.0
    finally:
        server.stop()


@pytest.mark.parametrize(
    "bad", [{"proxy": "socks5://127.0.0.1:1080"}, {"proxy": "http://p:1", "public_only": True}]
)
def test_proxy_arguments_are_checked(bad: dict[str, object]) -> None:
    """A proxy other than http(s)://, or a proxy with public_only, is a caller error."""
    with pytest.raises(InvalidArgument):
        HttpFetcher(**bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument):
        AsyncHttpFetcher(**bad)  # type: ignore[arg-type]
