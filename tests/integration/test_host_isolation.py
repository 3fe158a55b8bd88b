"""Hosts are isolated: 200 stalled hosts never make a fast host wait.

A stalled host here is a listening socket that never accepts: the kernel completes the TCP
handshake, takes the request, and nothing ever answers. 200 of them hold 200 fetches open
until their timeout; meanwhile a fast host must answer in its normal time, from the same
client, sync and async.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
import time
from collections.abc import Iterator

import pytest

from robotskit.client import AsyncRobotsClient, RobotsClient
from robotskit.policy.flow import Outcome

from .conftest import ROBOTS
from .servers.http_server import HttpScenarioServer, Scenario

pytestmark = [pytest.mark.integration, pytest.mark.slow]

STALLED = 200
TIMEOUT = 6.0  # the stalled fetches' timeout: far longer than the fast host may take
FAST = 2.0  # a fast loopback fetch takes milliseconds; this allows a loaded machine


@pytest.fixture
def stalled() -> Iterator[list[str]]:
    """URLs of 200 hosts (127.0.0.1 ports) that accept connections and never answer."""
    listeners = [socket.create_server(("127.0.0.1", 0), backlog=16) for _ in range(STALLED)]
    yield [f"http://127.0.0.1:{s.getsockname()[1]}/page" for s in listeners]
    for s in listeners:
        with contextlib.suppress(OSError):
            s.close()


def test_sync_fast_host_unaffected_by_stalled_hosts(
    stalled: list[str], http_server: HttpScenarioServer
) -> None:
    """Sync: with 200 fetches stalled on other hosts, a fast host answers within its normal time."""
    http_server.route("/robots.txt", Scenario(200, ROBOTS))
    with RobotsClient("MyBot", timeout=TIMEOUT) as client:
        threads = [threading.Thread(target=client.lookup, args=(url,), daemon=True) for url in stalled]
        for t in threads:
            t.start()
        time.sleep(1.0)  # let every stalled fetch connect and wait
        assert sum(t.is_alive() for t in threads) == STALLED
        start = time.monotonic()
        entry = client.lookup(http_server.url("/page"))
        elapsed = time.monotonic() - start
        for t in threads:
            t.join(TIMEOUT + 5)
    assert entry.outcome is Outcome.OK, entry
    assert elapsed < FAST


def test_async_fast_host_unaffected_by_stalled_hosts(
    stalled: list[str], http_server: HttpScenarioServer
) -> None:
    """Async: with 200 tasks stalled on other hosts, a fast host answers within its normal time."""
    http_server.route("/robots.txt", Scenario(200, ROBOTS))

    async def go() -> tuple[Outcome, float]:
        async with AsyncRobotsClient("MyBot", timeout=TIMEOUT) as client:
            tasks = [asyncio.create_task(client.lookup(url)) for url in stalled]
            await asyncio.sleep(1.0)
            assert not any(t.done() for t in tasks)
            start = time.monotonic()
            entry = await client.lookup(http_server.url("/page"))
            elapsed = time.monotonic() - start
            await asyncio.gather(*tasks)
            return entry.outcome, elapsed

    outcome, elapsed = asyncio.run(go())
    assert outcome is Outcome.OK
    assert elapsed < FAST
