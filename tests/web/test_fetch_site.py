"""POST /api/fetch: "fetch from site" goes through the robotskit client, its cache and its policy."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient

from robotskit import AsyncRobotsClient
from robotskit.fetch.testing import AsyncMockFetcher, http_response
from robotskit.web import create_app
from tests.integration.servers.http_server import HttpScenarioServer, Scenario

from .conftest import PAGE


@pytest.fixture
def site() -> Iterator[HttpScenarioServer]:
    server = HttpScenarioServer().start()
    yield server
    server.stop()


def _fetch(client: TestClient, url: str) -> dict[str, object]:
    response = client.post("/api/fetch", json={"url": url}, headers={"Origin": PAGE})
    assert response.status_code == 200, response.text
    return response.json()  # type: ignore[no-any-return]


def test_outcomes_are_stated_as_the_policy_reads_them() -> None:
    """503 is a complete disallow, 404 a complete allow, 200 the file; the body comes back as text."""
    fetcher = AsyncMockFetcher(
        {
            "https://down.example/robots.txt": http_response(503),
            "https://none.example/robots.txt": http_response(404),
            "https://ok.example/robots.txt": http_response(200, "User-agent: *\nDisallow: /x\n"),
        }
    )
    robots = AsyncRobotsClient("robotskit", fetchers={"https": fetcher})
    with TestClient(create_app(client=robots), base_url=PAGE) as client:
        down = _fetch(client, "https://down.example/some/page")
        assert (down["summary"], down["robots_txt"]) == ("HTTP 503: complete disallow", None)
        assert down["robots_url"] == "https://down.example/robots.txt"
        none = _fetch(client, "none.example")  # a bare host name is taken as https://
        assert (none["summary"], none["robots_txt"]) == ("HTTP 404: complete allow", None)
        ok = _fetch(client, "https://ok.example/")
        assert ok["outcome"] == "ok"
        assert ok["robots_txt"] == "User-agent: *\nDisallow: /x\n"
        _fetch(client, "https://ok.example/")
    assert fetcher.count() == 3  # the second fetch of ok.example came from the client's cache


@pytest.mark.parametrize(
    "url", ["mailto:a@b.invalid", "https://", "http://[::1:80/", "", "https://user@a.invalid/", "file:///etc"]
)
def test_addresses_that_are_not_sites_are_refused(url: str) -> None:
    """Only http(s), ftp and gemini sites are fetched; anything else is a 400 before any fetch."""
    fetcher = AsyncMockFetcher({})
    robots = AsyncRobotsClient("robotskit", fetchers={"https": fetcher, "http": fetcher})
    with TestClient(create_app(client=robots), base_url=PAGE) as client:
        response = client.post("/api/fetch", json={"url": url})
    assert fetcher.count() == 0
    assert response.status_code == 400
    assert response.json()["error"]


@pytest.mark.integration
@pytest.mark.slow
def test_a_real_server_answering_503_reads_complete_disallow(site: HttpScenarioServer) -> None:
    """Against a loopback HTTP server: 503 is shown as "HTTP 503: complete disallow"; 200 gives the file."""
    site.route("/robots.txt", Scenario(503, b"busy"))
    with TestClient(create_app(), base_url=PAGE) as client:
        answer = _fetch(client, site.url("/"))
        assert answer["summary"] == "HTTP 503: complete disallow"
        assert answer["status"] == 503
    site.route("/robots.txt", Scenario(200, b"User-agent: *\nDisallow: /a\n"))
    with TestClient(create_app(), base_url=PAGE) as client:
        answer = _fetch(client, site.url("/"))
        assert answer["robots_txt"] == "User-agent: *\nDisallow: /a\n"
        assert answer["summary"] == "HTTP 200: the file's rules apply"
    assert site.hits["/robots.txt"] == 2


@pytest.mark.integration
@pytest.mark.slow
def test_a_tester_bound_beyond_loopback_never_fetches_private_addresses(site: HttpScenarioServer) -> None:
    """With public_only (what `serve --host 0.0.0.0` sets), "fetch from site" refuses a loopback address."""
    site.route("/robots.txt", Scenario(200, b"User-agent: *\nDisallow: /a\n"))
    with TestClient(create_app(allowed_hosts=None, public_only=True), base_url=PAGE) as client:
        answer = _fetch(client, site.url("/"))
    assert answer["robots_txt"] is None
    assert "not public" in str(answer["summary"]) + str(answer.get("reason", ""))
    assert site.hits.get("/robots.txt", 0) == 0
