"""RobotsClient / AsyncRobotsClient end to end: real adapters against real servers on 127.0.0.1.

Each test proves one row of SPEC.md section 6 with real sockets: what the server does, what the
client decides, and how many requests reached the server.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from robotskit.agents import Agent
from robotskit.client import AsyncRobotsClient, RobotsClient
from robotskit.fetch.gemini import AsyncGeminiFetcher, GeminiFetcher, TofuStore

from .conftest import ROBOTS
from .servers.ftp_server import FtpServer
from .servers.gemini_server import GeminiScenario, GeminiScriptServer, JetforceServer
from .servers.http_server import HttpScenarioServer, Scenario

pytestmark = pytest.mark.integration

UA = "MyBot/1.0 (+https://example.org/bot)"


def client(**kw: object) -> RobotsClient:
    return RobotsClient("MyBot", user_agent=UA, **kw)  # type: ignore[arg-type]


def test_200_rules_apply(http_server: HttpScenarioServer) -> None:
    """HTTP 200: the file's rules decide, crawl-delay is read, and the caller's User-Agent was sent."""
    http_server.route("/robots.txt", Scenario(200, ROBOTS, (("Content-Type", "text/plain"),)))
    with client() as c:
        assert not c.allowed(http_server.url("/private/x"))
        assert c.allowed(http_server.url("/private/open"))
        assert c.allowed(http_server.url("/public"))
        assert c.crawl_delay(http_server.url("/")) == 2.0
        entry = c.lookup(http_server.url("/"))
    assert (entry.status, entry.reason, entry.body) == (200, "HTTP 200", ROBOTS)
    assert http_server.hits["/robots.txt"] == 1  # cached after the first fetch
    assert http_server.requests[0][2]["user-agent"] == UA


def test_async_200_rules_apply(http_server: HttpScenarioServer) -> None:
    """The async client with the async HTTP adapter applies the same rules."""
    http_server.route("/robots.txt", Scenario(200, ROBOTS))

    async def go() -> tuple[bool, bool]:
        async with AsyncRobotsClient("MyBot", user_agent=UA) as c:
            return await c.allowed(http_server.url("/private/x")), await c.allowed(http_server.url("/ok"))

    assert asyncio.run(go()) == (False, True)


def test_404_allows_everything(http_server: HttpScenarioServer) -> None:
    """HTTP 404 (an HTML error page): robots.txt unavailable, everything allowed."""
    with client() as c:
        d = c.decide(http_server.url("/private/x"))
    assert d.allowed and "404" in d.reason


@pytest.mark.parametrize("status", [401, 403, 410])
def test_other_4xx_allow_everything(http_server: HttpScenarioServer, status: int) -> None:
    """401, 403 and 410 are unavailable too (RFC 9309 2.3.1.3): everything allowed."""
    http_server.route("/robots.txt", Scenario(status, b"<html>no</html>"))
    with client() as c:
        assert c.allowed(http_server.url("/private/x"))


@pytest.mark.parametrize("status", [500, 503])
def test_5xx_disallows_everything(http_server: HttpScenarioServer, status: int) -> None:
    """HTTP 5xx: unreachable, everything disallowed, and the reason names the status."""
    http_server.route("/robots.txt", Scenario(status, b"<html>down</html>"))
    with client() as c:
        d = c.decide(http_server.url("/public"))
    assert not d.allowed and f"HTTP {status}" in d.reason


def test_429_disallows_and_keeps_retry_after(http_server: HttpScenarioServer) -> None:
    """HTTP 429: unreachable (everything disallowed) and Retry-After is kept on the entry."""
    http_server.route("/robots.txt", Scenario(429, b"", (("Retry-After", "120"),)))
    with client() as c:
        assert not c.allowed(http_server.url("/public"))
        assert c.lookup(http_server.url("/")).retry_after == 120.0


def test_timeout_disallows(http_server: HttpScenarioServer) -> None:
    """A server slower than the client's timeout: unreachable, everything disallowed, quickly."""
    http_server.route("/robots.txt", Scenario(200, ROBOTS, delay=4.0))
    with client(timeout=0.5) as c:
        d = c.decide(http_server.url("/public"))
    assert not d.allowed and "timeout" in d.reason.lower()


def test_reset_disallows(http_server: HttpScenarioServer) -> None:
    """A connection reset mid-body: unreachable, everything disallowed."""
    http_server.route("/robots.txt", Scenario(200, ROBOTS * 100, reset_after=10))
    with client() as c:
        assert not c.allowed(http_server.url("/public"))


def test_gzip_bomb_is_truncated_not_exploded(http_server: HttpScenarioServer) -> None:
    """A gzip bomb as robots.txt is read to the size limit only; the entry records the truncation."""
    http_server.route("/robots.txt", Scenario(200, ROBOTS + bytes(10_000_000), gzip=True))
    with client() as c:
        entry = c.lookup(http_server.url("/"))
        assert entry.truncated and len(entry.body) == 512_000
        assert not c.allowed(http_server.url("/private/x"))


def _chain(server: HttpScenarioServer, hops: int) -> None:
    """/robots.txt -> /hop1 -> ... -> /hop{hops} (the last serves ROBOTS); relative Locations."""
    path = "/robots.txt"
    for i in range(1, hops + 1):
        server.redirect(path, f"hop{i}" if i % 2 else f"/hop{i}", 301 if i % 2 else 302)
        path = f"/hop{i}"
    server.route(path, Scenario(200, ROBOTS))


def test_five_redirects_are_followed(http_server: HttpScenarioServer) -> None:
    """Five hops (relative and absolute-path Locations) reach the file; its rules apply to the origin."""
    _chain(http_server, 5)
    with client() as c:
        assert not c.allowed(http_server.url("/private/x"))
        entry = c.lookup(http_server.url("/"))
    assert len(entry.redirects) == 5 and entry.final_url.endswith("/hop5")
    assert http_server.hits["/hop5"] == 1


def test_six_redirects_are_as_404(http_server: HttpScenarioServer) -> None:
    """A sixth redirect is not followed: as 404, everything allowed, and the target is never fetched."""
    _chain(http_server, 6)
    with client() as c:
        assert c.allowed(http_server.url("/private/x"))
    assert http_server.hits["/hop6"] == 0


def test_redirect_loop_is_as_404(http_server: HttpScenarioServer) -> None:
    """A redirect loop ends without a file: everything allowed, each URL fetched once."""
    http_server.redirect("/robots.txt", "/a")
    http_server.redirect("/a", "/robots.txt")
    with client() as c:
        assert c.allowed(http_server.url("/private/x"))
    assert http_server.hits["/a"] == 1


def test_cross_host_redirect(http_server: HttpScenarioServer, http_server2: HttpScenarioServer) -> None:
    """A redirect to another authority is followed; the rules found there govern the original host."""
    target = http_server2.route("/shared-robots.txt", Scenario(200, ROBOTS))
    http_server.redirect("/robots.txt", target, 308)
    with client() as c:
        assert not c.allowed(http_server.url("/private/x"))
        assert c.allowed(http_server2.url("/private/x"))  # server2's own robots.txt is a 404
    assert http_server2.hits["/shared-robots.txt"] == 1


def test_single_flight_async(http_server: HttpScenarioServer) -> None:
    """100 concurrent async allowed() calls for a new host make exactly one request."""
    http_server.route("/robots.txt", Scenario(200, ROBOTS, delay=0.3))

    async def go() -> list[bool]:
        async with AsyncRobotsClient("MyBot") as c:
            return await asyncio.gather(*(c.allowed(http_server.url(f"/private/{i}")) for i in range(100)))

    assert asyncio.run(go()) == [False] * 100
    assert http_server.hits["/robots.txt"] == 1


def test_single_flight_threads(http_server: HttpScenarioServer) -> None:
    """100 threads calling allowed() on one client for a new host make exactly one request."""
    http_server.route("/robots.txt", Scenario(200, ROBOTS, delay=0.3))
    results: list[bool] = []
    with client() as c:
        barrier = threading.Barrier(100)

        def worker(i: int) -> None:
            barrier.wait()
            results.append(c.allowed(http_server.url(f"/private/{i}")))

        threads = [threading.Thread(target=worker, args=(i,)) for i in range(100)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(10)
    assert results == [False] * 100
    assert http_server.hits["/robots.txt"] == 1


# --------------------------------------------------------------------------- Gemini


def test_gemini_20_from_jetforce(jetforce: JetforceServer) -> None:
    """Gemini 20 from a real server: rules apply; the Gemini profile judges '*' and the purpose."""
    with RobotsClient(Agent("MyBot", purposes=("indexer",))) as c:
        assert not c.allowed(jetforce.url("/private/x"))
        assert c.allowed(jetforce.url("/gemlog/"))
        entry = c.lookup(jetforce.url("/"))
    assert (entry.status, entry.reason, entry.protocol) == (20, "Gemini 20", "gemini")


def test_gemini_async_with_persisted_tofu(jetforce: JetforceServer, tmp_path: Path) -> None:
    """The async client with a file-backed TofuStore: the pin is written and the rules apply."""
    pins = tmp_path / "pins.json"

    async def go() -> bool:
        fetcher = AsyncGeminiFetcher(TofuStore(pins))
        async with AsyncRobotsClient("MyBot", fetchers={"gemini": fetcher}) as c:
            return await c.allowed(jetforce.url("/private/x"))

    assert asyncio.run(go()) is False
    assert TofuStore(pins).get("127.0.0.1", jetforce.port) is not None


def test_gemini_51_allows(gemini_server: GeminiScriptServer) -> None:
    """Gemini 51 (not found): unavailable, everything allowed."""
    with RobotsClient("MyBot") as c:
        d = c.decide(gemini_server.url("/private/x"))
    assert d.allowed and "51" in d.reason


def test_gemini_44_disallows_with_wait(gemini_server: GeminiScriptServer) -> None:
    """Gemini 44 SLOW DOWN: unreachable, everything disallowed, the wait kept as retry_after."""
    gemini_server.route("/robots.txt", GeminiScenario(b"44 30\r\n"))
    with RobotsClient("MyBot") as c:
        assert not c.allowed(gemini_server.url("/x"))
        assert c.lookup(gemini_server.url("/")).retry_after == 30.0


def test_gemini_redirect_followed(gemini_server: GeminiScriptServer) -> None:
    """Gemini 31 is followed to the file it names."""
    gemini_server.route("/robots.txt", GeminiScenario(b"31 /real-robots.txt\r\n"))
    gemini_server.route("/real-robots.txt", GeminiScenario(body=ROBOTS))
    with RobotsClient("MyBot") as c:
        assert not c.allowed(gemini_server.url("/private/x"))


def test_gemini_changed_certificate_disallows(gemini_server: GeminiScriptServer) -> None:
    """A TOFU mismatch is a TLS failure: unreachable, everything disallowed."""
    tofu = TofuStore()
    tofu.pin("127.0.0.1", gemini_server.port, "ab" * 32)
    gemini_server.route("/robots.txt", GeminiScenario(body=ROBOTS))
    with RobotsClient("MyBot", fetchers={"gemini": GeminiFetcher(tofu)}) as c:
        assert not c.allowed(gemini_server.url("/public"))
    assert gemini_server.hits["/robots.txt"] == 0


def test_gemini_malformed_header_disallows(gemini_server: GeminiScriptServer) -> None:
    """A malformed Gemini response becomes a decision with a reason, never a crash or a hang."""
    gemini_server.route("/robots.txt", GeminiScenario(b"200 OK\r\n"))
    with RobotsClient("MyBot") as c:
        d = c.decide(gemini_server.url("/public"))
    assert not d.allowed and d.reason


# --------------------------------------------------------------------------- FTP


def test_ftp_file_rules_apply(ftp_server: FtpServer) -> None:
    """An FTP robots.txt read anonymously: its rules apply."""
    with RobotsClient("MyBot") as c:
        assert not c.allowed(ftp_server.url("/private/x"))
        assert c.allowed(ftp_server.url("/pub/file"))
        assert c.lookup(ftp_server.url("/")).status == 226


def test_ftp_550_allows(ftp_server: FtpServer, ftp_root: Path) -> None:
    """No robots.txt on the FTP server (550): everything allowed."""
    (ftp_root / "robots.txt").unlink()
    with RobotsClient("MyBot") as c:
        d = c.decide(ftp_server.url("/private/x"))
    assert d.allowed and "550" in d.reason


def test_ftp_async(ftp_server: FtpServer) -> None:
    """The async client reads FTP through the threaded adapter."""

    async def go() -> bool:
        async with AsyncRobotsClient("MyBot") as c:
            return await c.allowed(ftp_server.url("/private/x"))

    assert asyncio.run(go()) is False
