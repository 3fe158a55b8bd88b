"""RobotFileParser.read() starts from a clean state each call (issue 14), against a loopback server.

One 5xx answer used to set `disallow_all` for the life of the object: a later read() that got
the file still refused everything. The server here answers 503, then 200, then 404, then 503.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from robotskit.contrib.robotparser import RobotFileParser
from tests.integration.servers.http_server import HttpScenarioServer, Scenario

pytestmark = [pytest.mark.integration, pytest.mark.slow]

BODY = b"User-agent: *\nDisallow: /private/\nSitemap: /sitemap.xml\n"


@pytest.fixture
def server() -> Iterator[HttpScenarioServer]:
    started = HttpScenarioServer().start()
    yield started
    started.stop()


def test_read_after_503_then_200_uses_the_file(server: HttpScenarioServer) -> None:
    """503 disallows everything; the next read() that gets the file applies its rules instead."""
    parser = RobotFileParser(server.url("/robots.txt"))
    server.route("/robots.txt", Scenario(503, b"busy"))
    parser.read()
    assert parser.disallow_all and not parser.can_fetch("MyBot", server.url("/public"))
    server.route("/robots.txt", Scenario(200, BODY))
    parser.read()
    assert not parser.disallow_all and not parser.allow_all
    assert parser.can_fetch("MyBot", server.url("/public"))
    assert not parser.can_fetch("MyBot", server.url("/private/x"))
    assert parser.site_maps() == [server.url("/sitemap.xml")]
    assert server.hits["/robots.txt"] == 2


def test_read_forgets_rules_and_allow_all(server: HttpScenarioServer) -> None:
    """200 then 404: the old rules and sitemaps go; 404 then 503: allow_all goes too."""
    parser = RobotFileParser(server.url("/robots.txt"))
    server.route("/robots.txt", Scenario(200, BODY))
    parser.read()
    assert not parser.can_fetch("MyBot", server.url("/private/x"))
    server.route("/robots.txt", Scenario(404, b"gone"))
    parser.read()
    assert parser.allow_all and parser.robots is None and parser.site_maps() is None
    assert parser.can_fetch("MyBot", server.url("/private/x"))
    server.route("/robots.txt", Scenario(503, b"busy"))
    parser.read()
    assert parser.disallow_all and not parser.allow_all
    assert not parser.can_fetch("MyBot", server.url("/anything"))
