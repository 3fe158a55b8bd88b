"""RobotsClient end to end with scripted fetchers (issue 3): caching, expiry, single-flight."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest

from robotskit.agents import Agent
from robotskit.cache import MemoryCache, SQLiteCache
from robotskit.client import RobotsClient
from robotskit.errors import FetchError, InvalidArgument, InvalidURL, UnknownProfile
from robotskit.fetch import FetchRequest, FetchResponse
from robotskit.policy import Outcome
from robotskit.testing import FrozenClock, MockFetcher, gemini_response, http_response

ROBOTS = "https://example.com/robots.txt"
BODY = b"User-agent: *\nDisallow: /private\nCrawl-delay: 2.5\nSitemap: /sitemap.xml\n"


def client_for(fetcher: MockFetcher, clock: FrozenClock, **kwargs: object) -> RobotsClient:
    return RobotsClient("MyBot", fetchers={"https": fetcher, "http": fetcher}, clock=clock, **kwargs)  # type: ignore[arg-type]


def test_fetches_once_then_answers_from_cache(clock: FrozenClock) -> None:
    """Issue 3: robots.txt is fetched once per authority, then every question is answered from cache."""
    fetcher = MockFetcher({ROBOTS: http_response(200, BODY)})
    with client_for(fetcher, clock) as client:
        assert not client.allowed("https://example.com/private/1")
        assert client.allowed("https://example.com/public")
        assert client.allowed("https://EXAMPLE.com:443/other")  # same authority, spelled differently
        assert client.crawl_delay("https://example.com/") == 2.5
        assert client.sitemaps("https://example.com/") == ("https://example.com/sitemap.xml",)
    assert fetcher.urls == [ROBOTS]


def test_refetches_after_expiry(clock: FrozenClock) -> None:
    """SPEC.md 6: after the TTL (24 h without max-age) the file is fetched again."""
    fetcher = MockFetcher(
        {ROBOTS: [http_response(200, BODY), http_response(200, b"User-agent: *\nDisallow: /")]}
    )
    client = client_for(fetcher, clock)
    assert client.allowed("https://example.com/public")
    clock.advance(86_399)
    assert client.allowed("https://example.com/public")
    assert fetcher.count() == 1
    clock.advance(1)
    assert not client.allowed("https://example.com/public")
    assert fetcher.count() == 2


def test_user_agent_and_limits_reach_the_fetcher(clock: FrozenClock) -> None:
    """Issue 3: the caller's user_agent goes into every FetchRequest; the agent is the matching token."""
    fetcher = MockFetcher({ROBOTS: http_response(200, b"User-agent: MyBot\nDisallow: /\n")})
    client = client_for(
        fetcher, clock, user_agent="MyBot/1.0 (+https://example.org/bot)", timeout=4.0, max_bytes=1_000_000
    )
    assert not client.allowed("https://example.com/x")
    (request,) = fetcher.calls
    assert request.user_agent == "MyBot/1.0 (+https://example.org/bot)"
    assert (request.timeout, request.max_bytes) == (4.0, 1_000_000)


def test_default_user_agent_is_the_product_token(clock: FrozenClock) -> None:
    """Issue 3: without user_agent, the agent's product token identifies the crawler."""
    fetcher = MockFetcher()
    RobotsClient("MyBot/2.1 (+https://x)", fetchers={"https": fetcher}, clock=clock).allowed(
        "https://e.example/"
    )
    RobotsClient(Agent(None, purposes=["indexer"]), fetchers={"https": fetcher}, clock=clock).allowed(
        "https://f.example/"
    )
    assert [c.user_agent for c in fetcher.calls] == ["MyBot", "robotskit"]


def test_decision_reason_names_fetch_outcome(clock: FrozenClock) -> None:
    """SPEC.md 7: decisions say "robots.txt unreachable (HTTP 503)" / "unavailable (HTTP 404)"."""
    fetcher = MockFetcher(
        {
            "https://down.example/robots.txt": http_response(503),
            "https://gone.example/robots.txt": http_response(404),
        }
    )
    client = client_for(fetcher, clock)
    down = client.decide("https://down.example/page")
    gone = client.decide("https://gone.example/page")
    assert (down.allowed, down.reason) == (False, "robots.txt unreachable (HTTP 503)")
    assert (gone.allowed, gone.reason) == (True, "robots.txt unavailable (HTTP 404): everything allowed")
    assert client.crawl_delay("https://down.example/") is None


def test_stale_copy_used_when_server_fails(clock: FrozenClock) -> None:
    """SPEC.md 6 row 5 through the client: after expiry a 503 leaves the last good copy in charge."""
    fetcher = MockFetcher({ROBOTS: [http_response(200, BODY), http_response(503)]})
    client = client_for(fetcher, clock)
    assert client.allowed("https://example.com/public")
    clock.advance(86_400)
    decision = client.decide("https://example.com/public")
    assert decision.allowed
    assert decision.reason.startswith("stale copy from 2026-01-01T00:00:00Z")
    entry = client.lookup("https://example.com/")
    assert entry.stale and entry.outcome is Outcome.UNREACHABLE
    assert fetcher.count() == 2  # the failed entry is cached for its backoff, not refetched at once


def test_agent_per_call_shares_one_fetch(clock: FrozenClock) -> None:
    """SPEC.md 6: the cache shares one copy per authority across agents; decisions are per agent."""
    fetcher = MockFetcher({ROBOTS: http_response(200, b"User-agent: OtherBot\nDisallow: /\n")})
    client = client_for(fetcher, clock)
    assert client.allowed("https://example.com/x")
    assert not client.allowed("https://example.com/x", agent="OtherBot")
    assert fetcher.count() == 1


def test_single_flight_threads(clock: FrozenClock) -> None:
    """SPEC.md 6: 100 threads asking about one new host at once cause exactly one request."""
    fetcher = MockFetcher({ROBOTS: http_response(200, BODY)}, delay=0.2)
    client = client_for(fetcher, clock)
    barrier = threading.Barrier(100)
    results: list[bool] = []

    def ask() -> None:
        barrier.wait()
        results.append(client.allowed("https://example.com/private/x"))

    threads = [threading.Thread(target=ask) for _ in range(100)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert fetcher.count() == 1
    assert results == [False] * 100


def test_adapter_crash_is_unreachable_and_recovers(clock: FrozenClock) -> None:
    """An adapter that crashes never crashes the caller: unreachable ("bad response"), cached
    for the backoff like any unreachable answer; after it, the next call fetches again."""
    calls = []

    def boom(request):  # type: ignore[no-untyped-def]
        calls.append(request)
        raise RuntimeError("adapter bug")

    fetcher = MockFetcher({ROBOTS: [boom, http_response(200, BODY)]}, delay=0.05)
    client = client_for(fetcher, clock)
    decision = client.decide("https://example.com/")
    assert not decision.allowed and decision.reason == "robots.txt unreachable (bad response)"
    assert not client.allowed("https://example.com/public")  # cached: no second fetch
    assert fetcher.count() == 1
    clock.advance(61)
    assert client.allowed("https://example.com/public")
    assert fetcher.count() == 2


def test_unsupported_scheme_and_missing_host(clock: FrozenClock) -> None:
    """Issue 3: a URL with no host or an unsupported scheme raises InvalidURL, no fetch made."""
    fetcher = MockFetcher()
    client = client_for(fetcher, clock)
    for url in ("mailto:a@example.com", "https:///path", "/relative"):
        with pytest.raises(InvalidURL):
            client.allowed(url)
    assert fetcher.count() == 0


def test_failing_redirect_target_is_unreachable(clock: FrozenClock) -> None:
    """A redirect whose target's fetcher fails is unreachable (SPEC.md 6 row 4), never a crash."""
    fetcher = MockFetcher({ROBOTS: http_response(301, headers={"Location": "gemini://g.example/robots.txt"})})
    client = RobotsClient("MyBot", fetchers={"https": fetcher, "gemini": _Failing()}, clock=clock)
    decision = client.decide("https://example.com/x")
    assert not decision.allowed
    assert decision.reason == "robots.txt unreachable (unsupported)"


class _Failing:
    def fetch(self, request: FetchRequest) -> FetchResponse:
        raise FetchError("no gemini here", url=request.url, kind="unsupported")


def test_os_error_from_adapter_is_unreachable(clock: FrozenClock) -> None:
    """A stray OSError from an adapter still maps to unreachable (SPEC.md 6 row 4), not a crash."""

    def reset(request):  # type: ignore[no-untyped-def]
        raise ConnectionResetError("reset by peer")

    client = client_for(MockFetcher({ROBOTS: reset}), clock)
    decision = client.decide("https://example.com/")
    assert not decision.allowed
    # The stray OSError is classified like the adapters' own errors: a reset says "reset".
    assert decision.reason == "robots.txt unreachable (reset)"


def test_gemini_url_uses_gemini_fetcher_and_profile(clock: FrozenClock) -> None:
    """Issue 3: fetchers are chosen by scheme; profile None means gemini for gemini:// URLs."""
    gem = MockFetcher(
        {
            "gemini://g.example/robots.txt": gemini_response(
                20, "text/gemini", b"User-agent: indexer\nDisallow: /\n"
            )
        }
    )
    client = RobotsClient(Agent("MyBot", purposes=["indexer"]), fetchers={"gemini": gem}, clock=clock)
    decision = client.decide("gemini://g.example/log/")
    assert not decision.allowed
    assert decision.profile == "gemini"


def test_sqlite_cache_shared_between_clients(clock: FrozenClock, tmp_path: Path) -> None:
    """Issue 3: with a SQLite cache a second client (another process, say) reuses the first's fetch."""
    url = f"sqlite://{tmp_path}/robots.db"
    first = MockFetcher({ROBOTS: http_response(200, BODY)})
    second = MockFetcher({ROBOTS: http_response(200, BODY)})
    with client_for(first, clock, cache=url) as a:
        assert not a.allowed("https://example.com/private")
        assert isinstance(a.cache, SQLiteCache)
    with client_for(second, clock, cache=url) as b:
        assert not b.allowed("https://example.com/private")
        assert b.lookup("https://example.com/").fetched_at == clock()
    assert (first.count(), second.count()) == (1, 0)


def test_caller_cache_not_closed(clock: FrozenClock) -> None:
    """A cache passed in belongs to the caller: close() leaves it usable."""
    cache = MemoryCache()
    with client_for(MockFetcher({ROBOTS: http_response(200, BODY)}), clock, cache=cache) as client:
        client.allowed("https://example.com/")
    assert cache.get("https://example.com") is not None


def test_bad_options_rejected() -> None:
    """Client options are checked at construction: profile, size limit, timeout, agent (a wrong type: TypeError)."""
    with pytest.raises(UnknownProfile):
        RobotsClient("MyBot", profile="bing")
    with pytest.raises(InvalidArgument):
        RobotsClient("MyBot", max_bytes=1000)
    with pytest.raises(InvalidArgument):
        RobotsClient("MyBot", timeout=0)
    with pytest.raises(TypeError, match="agent"):
        RobotsClient(42)  # type: ignore[arg-type]


@pytest.mark.slow
def test_default_fetchers_are_lazy() -> None:
    """Issue 3: importing robotskit (and its client) does not import httpx; adapters load on first use."""
    code = (
        "import sys, robotskit, robotskit.client, robotskit.policy, robotskit.cache\n"
        "assert 'httpx' not in sys.modules, 'httpx imported eagerly'\n"
        "c = robotskit.client.RobotsClient('MyBot')\n"
        "assert 'httpx' not in sys.modules\n"
        "f = c._core.fetcher('https://example.com/robots.txt')\n"
        "assert type(f).__name__ == 'HttpFetcher' and 'httpx' in sys.modules\n"
        "assert c._core.fetcher('http://example.com/robots.txt') is f\n"
        "c.close()\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr
