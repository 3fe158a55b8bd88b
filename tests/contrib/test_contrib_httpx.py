"""robotskit.contrib.httpx against real servers on 127.0.0.1: judging, spacing, Retry-After.

Spacing is measured at the server: the gaps between the arrival times of consecutive requests.
"""

from __future__ import annotations

import asyncio
import itertools
import threading
import time

import httpx
import pytest

import robotskit
from robotskit.contrib.httpx import AsyncRobotsTransport, DisallowedByRobots, RobotsTransport

from ._site import Page, Site, serve

pytestmark = [pytest.mark.integration, pytest.mark.slow]

SLACK = 0.05  # timer and scheduling jitter allowed below a requested gap


def _robots(text: str) -> dict[str, Page]:
    return {"/robots.txt": Page(200, text.encode(), (("Content-Type", "text/plain"),))}


def _gaps(times: list[float]) -> list[float]:
    return [b - a for a, b in itertools.pairwise(times)]


def _get_all(http: httpx.Client, urls: list[str]) -> list[int]:
    statuses: list[int] = []
    lock = threading.Lock()

    def one(url: str) -> None:
        status = http.get(url).status_code
        with lock:
            statuses.append(status)

    threads = [threading.Thread(target=one, args=(url,)) for url in urls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    return statuses


def test_concurrent_requests_to_one_host_are_spaced_by_crawl_delay() -> None:
    """Four threads at once: the server sees them at least Crawl-delay (0.3 s) apart."""
    with serve(Site(routes=_robots("User-agent: *\nCrawl-delay: 0.3\n"))) as site:
        client = robotskit.RobotsClient("MyBot")
        with httpx.Client(transport=RobotsTransport(client)) as http:
            statuses = _get_all(http, [f"{site.base}/p{i}" for i in range(4)])
        client.close()
        gaps = _gaps(site.times("/p"))
    assert statuses == [200] * 4
    assert len(gaps) == 3 and min(gaps) >= 0.3 - SLACK, gaps


def test_request_rate_spaces_requests_and_max_delay_caps() -> None:
    """Request-rate 2/1s spaces requests 0.5 s; max_delay=0.2 caps a Crawl-delay of 30 s."""
    with serve(Site(routes=_robots("User-agent: *\nRequest-rate: 2/1s\n"))) as site:
        client = robotskit.RobotsClient("MyBot")
        with httpx.Client(transport=RobotsTransport(client)) as http:
            for i in range(3):
                http.get(f"{site.base}/rate{i}")
        client.close()
        rate_gaps = _gaps(site.times("/rate"))
    assert min(rate_gaps) >= 0.5 - SLACK, rate_gaps
    with serve(Site(routes=_robots("User-agent: *\nCrawl-delay: 30\n"))) as site:
        client = robotskit.RobotsClient("MyBot")
        started = time.monotonic()
        with httpx.Client(transport=RobotsTransport(client, max_delay=0.2)) as http:
            for i in range(3):
                http.get(f"{site.base}/c{i}")
        client.close()
        capped = _gaps(site.times("/c"))
    assert all(0.2 - SLACK <= gap < 1.0 for gap in capped), capped
    assert time.monotonic() - started < 5


def test_disallowed_url_raises_and_never_reaches_the_server() -> None:
    """A disallowed URL raises DisallowedByRobots (an httpx.RequestError) with the Decision."""
    with serve(Site(routes=_robots("User-agent: *\nDisallow: /private\n"))) as site:
        client = robotskit.RobotsClient("MyBot")
        with httpx.Client(transport=RobotsTransport(client)) as http:
            with pytest.raises(DisallowedByRobots) as caught:
                http.get(f"{site.base}/private/x")
            assert http.get(f"{site.base}/public").status_code == 200
        client.close()
        paths = site.paths
    assert isinstance(caught.value, httpx.RequestError)
    assert not caught.value.decision.allowed
    assert caught.value.decision.rule is not None and caught.value.decision.rule.pattern == "/private"
    assert "/private/x" not in paths and "/public" in paths


def test_unreachable_robots_txt_disallows_through_the_transport() -> None:
    """robots.txt answering 503: every URL of the site is disallowed (RFC 9309 2.3.1.4)."""
    with serve(Site(routes={"/robots.txt": Page(503, b"down")})) as site:
        client = robotskit.RobotsClient("MyBot")
        with (
            httpx.Client(transport=RobotsTransport(client)) as http,
            pytest.raises(DisallowedByRobots) as caught,
        ):
            http.get(f"{site.base}/page")
        client.close()
        assert "/page" not in site.paths
    assert "unreachable" in caught.value.decision.reason


def test_retry_after_on_503_holds_the_authority_back() -> None:
    """A 503 with Retry-After: 1 delays the next request to that authority by about a second."""
    routes = {**_robots("User-agent: *\nAllow: /\n"), "/busy": Page(503, b"busy", (("Retry-After", "1"),))}
    with serve(Site(routes=routes)) as site:
        client = robotskit.RobotsClient("MyBot")
        with httpx.Client(transport=RobotsTransport(client)) as http:
            assert http.get(f"{site.base}/busy").status_code == 503
            http.get(f"{site.base}/after")
        client.close()
        busy, after = site.times("/busy")[0], site.times("/after")[0]
    assert after - busy >= 1.0 - SLACK


def test_retry_after_on_429_is_capped_by_max_delay() -> None:
    """A 429 with Retry-After: 120 waits only max_delay (0.3 s)."""
    routes = {**_robots("User-agent: *\nAllow: /\n"), "/slow": Page(429, b"", (("Retry-After", "120"),))}
    with serve(Site(routes=routes)) as site:
        client = robotskit.RobotsClient("MyBot")
        with httpx.Client(transport=RobotsTransport(client, max_delay=0.3)) as http:
            http.get(f"{site.base}/slow")
            http.get(f"{site.base}/next")
        client.close()
        gap = site.times("/next")[0] - site.times("/slow")[0]
    assert 0.3 - SLACK <= gap < 2.0


def test_different_hosts_do_not_wait_for_each_other() -> None:
    """While one host's queue is 1 s deep, a request to another host goes out at once."""
    with (
        serve(Site(routes=_robots("User-agent: *\nCrawl-delay: 1\n"))) as slow,
        serve(Site(routes=_robots("User-agent: *\nAllow: /\n"))) as fast,
    ):
        client = robotskit.RobotsClient("MyBot")
        with httpx.Client(transport=RobotsTransport(client)) as http:
            http.get(f"{slow.base}/warm")  # robots.txt fetched, the first slot taken
            http.get(f"{fast.base}/warm")
            started = time.monotonic()
            threads = [threading.Thread(target=http.get, args=(f"{slow.base}/q{i}",)) for i in range(2)]
            for thread in threads:
                thread.start()
            time.sleep(0.05)
            http.get(f"{fast.base}/now")
            fast_done = time.monotonic() - started
            for thread in threads:
                thread.join(10)
        client.close()
        slow_times = slow.times("/q")
    assert fast_done < 0.5, fast_done
    assert slow_times[-1] - started >= 1.0  # the slow host's queue did wait


def test_async_transport_spaces_concurrent_requests() -> None:
    """AsyncRobotsTransport: five concurrent tasks to one host arrive Crawl-delay apart."""
    with serve(Site(routes=_robots("User-agent: *\nCrawl-delay: 0.25\nDisallow: /private\n"))) as site:

        async def run() -> list[int]:
            async with robotskit.AsyncRobotsClient("MyBot") as client:
                transport = AsyncRobotsTransport(client)
                async with httpx.AsyncClient(transport=transport) as http:
                    responses = await asyncio.gather(*(http.get(f"{site.base}/a{i}") for i in range(5)))
                    return [r.status_code for r in responses]

        statuses = asyncio.run(run())
        gaps = _gaps(site.times("/a"))
    assert statuses == [200] * 5
    assert min(gaps) >= 0.25 - SLACK, gaps


def test_async_disallowed_never_reaches_the_server() -> None:
    """Async: a disallowed URL raises DisallowedByRobots and the server never sees it."""
    with serve(Site(routes=_robots("User-agent: MyBot\nDisallow: /no\n"))) as site:

        async def run() -> DisallowedByRobots:
            async with (
                robotskit.AsyncRobotsClient("MyBot") as client,
                httpx.AsyncClient(transport=AsyncRobotsTransport(client)) as http,
            ):
                with pytest.raises(DisallowedByRobots) as caught:
                    await http.get(f"{site.base}/no/1")
                await http.get(f"{site.base}/yes")
                return caught.value

        error = asyncio.run(run())
        paths = site.paths
    assert not error.decision.allowed and "/no/1" not in paths and "/yes" in paths


def test_async_different_hosts_do_not_wait() -> None:
    """Async: a request to a second host is not queued behind the first host's Crawl-delay."""
    with (
        serve(Site(routes=_robots("User-agent: *\nCrawl-delay: 1\n"))) as slow,
        serve(Site(routes=_robots("User-agent: *\nAllow: /\n"))) as fast,
    ):

        async def run() -> float:
            async with (
                robotskit.AsyncRobotsClient("MyBot") as client,
                httpx.AsyncClient(transport=AsyncRobotsTransport(client)) as http,
            ):
                await http.get(f"{slow.base}/warm")
                await http.get(f"{fast.base}/warm")
                started = time.monotonic()
                slow_tasks = [asyncio.ensure_future(http.get(f"{slow.base}/q{i}")) for i in range(2)]
                await asyncio.sleep(0.05)
                await http.get(f"{fast.base}/now")
                elapsed = time.monotonic() - started
                await asyncio.gather(*slow_tasks)
                return elapsed

        assert asyncio.run(run()) < 0.5
