"""probe_5xx: telling "answers 5xx for every missing page" from "down", against real servers.

Google's earlier robots.txt specification reads a robots.txt 5xx as "not found" when the site
answers 5xx instead of 404 for missing pages. With `probe_5xx=True` the client asks `/` and a
page that cannot exist; only `/` 2xx plus the missing page 5xx turns the 5xx into a 4xx.
"""

from __future__ import annotations

import asyncio

import pytest

from robotskit.client import AsyncRobotsClient, RobotsClient
from robotskit.policy.flow import MISSING_PAGE_PROBE, Outcome

from .servers.http_server import HttpScenarioServer, Scenario

pytestmark = [pytest.mark.integration, pytest.mark.slow]


def _site_answering_5xx_for_missing(server: HttpScenarioServer) -> None:
    server.route("/robots.txt", Scenario(503, b"oops"))
    server.route("/", Scenario(200, b"<html>home</html>"))
    server.route(MISSING_PAGE_PROBE, Scenario(503, b"oops"))


def test_site_answering_5xx_for_missing_pages_is_read_as_4xx(http_server: HttpScenarioServer) -> None:
    """/ 200 and the missing page 503: the robots.txt 503 is read as not found; everything allowed."""
    _site_answering_5xx_for_missing(http_server)
    with RobotsClient("MyBot", probe_5xx=True) as client:
        decision = client.decide(http_server.url("/private"))
        assert decision.allowed
        assert "read as not found" in decision.reason
        assert "answers 5xx for missing pages" in decision.reason
        assert client.lookup(http_server.url("/")).outcome is Outcome.UNAVAILABLE
        client.allowed(http_server.url("/other"))
    # Cached with the entry: one robots.txt request and one of each probe, for three decisions.
    assert http_server.hits["/robots.txt"] == 1
    assert http_server.hits["/"] == 1
    assert http_server.hits[MISSING_PAGE_PROBE] == 1


def test_probing_is_off_by_default(http_server: HttpScenarioServer) -> None:
    """Without probe_5xx a 503 disallows everything and no probe reaches the server."""
    _site_answering_5xx_for_missing(http_server)
    with RobotsClient("MyBot") as client:
        assert not client.allowed(http_server.url("/page"))
    assert http_server.hits["/"] == 0
    assert http_server.hits[MISSING_PAGE_PROBE] == 0


def test_site_down_stays_complete_disallow(http_server: HttpScenarioServer) -> None:
    """/ fails too (503): the site is down; complete disallow, and the entry notes the probe."""
    http_server.route("/robots.txt", Scenario(503, b"down"))
    http_server.route("/", Scenario(503, b"down"))
    http_server.route(MISSING_PAGE_PROBE, Scenario(503, b"down"))
    with RobotsClient("MyBot", probe_5xx=True) as client:
        assert not client.allowed(http_server.url("/page"))
        entry = client.lookup(http_server.url("/"))
    assert entry.outcome is Outcome.UNREACHABLE
    assert any("/ answered HTTP 503" in note for note in entry.notes)
    assert http_server.hits[MISSING_PAGE_PROBE] == 0  # / failing is enough


def test_missing_page_404_means_robots_txt_really_errs(http_server: HttpScenarioServer) -> None:
    """/ 200 but the missing page a proper 404: the robots.txt 5xx is a real error; disallow."""
    http_server.route("/robots.txt", Scenario(500, b"err"))
    http_server.route("/", Scenario(200, b"home"))
    with RobotsClient("MyBot", probe_5xx=True) as client:
        assert not client.allowed(http_server.url("/page"))
    assert http_server.hits[MISSING_PAGE_PROBE] == 1


def test_429_is_never_probed(http_server: HttpScenarioServer) -> None:
    """429 asks the crawler to slow down; it is not a 5xx and is never probed."""
    http_server.route("/robots.txt", Scenario(429, b"slow down"))
    http_server.route("/", Scenario(200, b"home"))
    with RobotsClient("MyBot", probe_5xx=True) as client:
        assert not client.allowed(http_server.url("/page"))
    assert http_server.hits["/"] == 0


def test_probes_count_against_the_same_deadline(http_server: HttpScenarioServer) -> None:
    """A slow robots.txt 503 uses up the timeout: the probes are skipped and the 503 disallows."""
    http_server.route("/robots.txt", Scenario(503, b"slow", delay=0.6))
    http_server.route("/", Scenario(200, b"home"))
    http_server.route(MISSING_PAGE_PROBE, Scenario(503, b"oops"))
    with RobotsClient("MyBot", probe_5xx=True, timeout=0.5) as client:
        entry = client.lookup(http_server.url("/"))
    assert entry.outcome is Outcome.UNREACHABLE
    assert http_server.hits["/"] == 0


def test_async_client_probes_too(http_server: HttpScenarioServer) -> None:
    """AsyncRobotsClient shares the sans-IO flow: same inference, same single set of probes."""
    _site_answering_5xx_for_missing(http_server)

    async def run() -> tuple[bool, str]:
        async with AsyncRobotsClient("MyBot", probe_5xx=True) as client:
            decisions = await asyncio.gather(*(client.decide(http_server.url(f"/p{i}")) for i in range(5)))
            return all(d.allowed for d in decisions), decisions[0].reason

    allowed, reason = asyncio.run(run())
    assert allowed and "answers 5xx for missing pages" in reason
    assert (http_server.hits["/robots.txt"], http_server.hits["/"], http_server.hits[MISSING_PAGE_PROBE]) == (
        1,
        1,
        1,
    )


def test_async_site_down_stays_disallowed(http_server: HttpScenarioServer) -> None:
    """Async: / failing keeps the 5xx a complete disallow."""
    http_server.route("/robots.txt", Scenario(502, b"bad gateway"))
    http_server.route("/", Scenario(502, b"bad gateway"))

    async def run() -> bool:
        async with AsyncRobotsClient("MyBot", probe_5xx=True) as client:
            return await client.allowed(http_server.url("/page"))

    assert not asyncio.run(run())
