"""Profiles never share a view (issue 14): every answer equals a fresh object's, whatever came before.

A parsed file builds one `View` per profile on first use. When the Gemini profile shared the
rfc9309 view (same "family"), a file with rules before its first `User-agent` line decided
`gemini://` URLs differently after an https check or `crawl_delay()` had built the view
without the Gemini preamble. The properties below run random sequences of calls across
profiles and accessors, on one object (and through the client, on one cached entry), and
compare each answer with the same call on a fresh object.
"""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from robotskit import parse
from robotskit.agents import Agent
from robotskit.client import RobotsClient
from robotskit.document import RobotsTxt
from robotskit.policy.parses import PARSES
from robotskit.testing import FrozenClock, MockFetcher, gemini_response, http_response

PREAMBLE_FILE = b"Disallow: /secret\nUser-agent: other\nDisallow: /\n"

_LINES = st.sampled_from(
    [
        "Disallow: /secret",
        "Allow: /secret/open",
        "Disallow: /*.gmi$",
        "Crawl-delay: 3",
        "Sitemap: /map.xml",
        "User-agent: *",
        "User-agent: mybot",
        "User-agent: other",
        "User-agent: researcher",
        "Disallow: /",
        "Allow: /",
        "",
        "# comment",
    ]
)
# Half the files open with rules before any User-agent line (the Gemini preamble).
BODIES = st.tuples(st.booleans(), st.lists(_LINES, max_size=12)).map(
    lambda drawn: ("Disallow: /secret\n" * drawn[0] + "\n".join(drawn[1])).encode()
)
URLS = st.sampled_from(
    [
        "https://x.example/secret",
        "https://x.example/secret/open",
        "http://x.example/a.gmi",
        "gemini://x.example/secret",
        "gemini://x.example/secret/open",
        "gemini://x.example/a.gmi",
        "GEMINI://x.example/secret",
        "/secret",
    ]
)
AGENTS = st.sampled_from([None, "MyBot", "MyBot/1.0", "other", Agent("MyBot", purposes=("researcher",))])
PROFILES = st.sampled_from([None, "rfc9309", "google", "gemini"])

Call = Callable[[RobotsTxt], object]


def _call(kind: str, url: str, agent: str | Agent | None) -> Call:
    calls: dict[str, Call] = {
        "allowed": lambda r: r.allowed(url, agent),
        "decide": lambda r: r.decide(url, agent),
        "explain": lambda r: r.decide(url, agent, explain=True),
        "groups_for": lambda r: r.groups_for(agent, url),
        "crawl_delay": lambda r: r.crawl_delay(agent),
        "request_rate": lambda r: r.request_rate(agent),
        "groups": lambda r: r.groups,
        "diagnostics": lambda r: r.diagnostics,
        "sitemaps": lambda r: r.sitemaps,
    }
    return calls[kind]


CALLS = st.lists(
    st.tuples(
        st.sampled_from(
            [
                "allowed",
                "decide",
                "explain",
                "groups_for",
                "crawl_delay",
                "request_rate",
                "groups",
                "diagnostics",
                "sitemaps",
            ]
        ),
        URLS,
        AGENTS,
    ),
    min_size=1,
    max_size=8,
)


def test_gemini_verdict_after_other_profiles_known_case() -> None:
    """The issue's case: rules before the first User-agent bind Gemini crawlers, asked first or last."""
    fresh = parse(PREAMBLE_FILE)
    assert not fresh.allowed("gemini://g.example/secret", "MyBot")
    for warm_up in (
        lambda r: r.allowed("https://g.example/secret", "MyBot"),
        lambda r: r.crawl_delay("MyBot"),
        lambda r: r.groups,
        lambda r: r.decide("/secret"),
    ):
        robots = parse(PREAMBLE_FILE)
        warm_up(robots)
        assert not robots.allowed("gemini://g.example/secret", "MyBot")
        assert not robots.decide("gemini://g.example/secret", "MyBot").allowed
    robots = parse(PREAMBLE_FILE)
    assert not robots.allowed("gemini://g.example/secret", "MyBot")
    assert robots.allowed("https://g.example/secret", "MyBot")  # rfc9309 ignores the preamble


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=BODIES, profile=PROFILES, calls=CALLS)
def test_answers_do_not_depend_on_earlier_calls(
    body: bytes, profile: str | None, calls: list[tuple[str, str, str | Agent | None]]
) -> None:
    """Each answer of one parsed object equals the same call on a fresh parse of the same bytes."""
    shared = parse(body, profile)
    for kind, url, agent in calls:
        call = _call(kind, url, agent)
        assert call(shared) == call(parse(body, profile)), (kind, url, agent)


def test_large_file_read_through_the_skeleton_is_order_independent() -> None:
    """The same holds for a file big enough to be read through the skeleton first."""
    filler = b"".join(b"User-agent: bot%d\nDisallow: /p%d\n" % (i, i) for i in range(3000))
    body = b"Disallow: /secret\n" + filler + b"User-agent: *\nAllow: /\n"
    robots = parse(body)
    assert robots.allowed("https://x.example/secret", "MyBot")
    assert robots.crawl_delay("MyBot") is None
    assert not robots.allowed("gemini://x.example/secret", "MyBot")
    assert robots.allowed("gemini://x.example/secret", "MyBot") == parse(body).allowed(
        "gemini://x.example/secret", "MyBot"
    )


CLIENT_CALLS = st.lists(
    st.tuples(st.sampled_from(["allowed", "decide", "crawl_delay", "sitemaps"]), URLS, AGENTS),
    min_size=1,
    max_size=6,
)


def _client(body: bytes, profile: str | None) -> RobotsClient:
    fetcher = MockFetcher(
        {
            "gemini://x.example/robots.txt": gemini_response(20, "text/plain", body),
            "https://x.example/robots.txt": http_response(200, body),
            "http://x.example/robots.txt": http_response(200, body),
        }
    )
    return RobotsClient(
        "MyBot",
        profile=profile,
        fetchers={"gemini": fetcher, "https": fetcher, "http": fetcher},
        clock=FrozenClock(),
    )


def _client_call(client: RobotsClient, kind: str, url: str, agent: str | Agent | None) -> object:
    if url.startswith("/"):
        url = "gemini://x.example" + url
    if kind == "allowed":
        return client.allowed(url, agent)
    if kind == "decide":
        return client.decide(url, agent)
    if kind == "crawl_delay":
        return client.crawl_delay(url, agent)
    return client.sitemaps(url)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=BODIES, profile=PROFILES, calls=CLIENT_CALLS)
@example(body=PREAMBLE_FILE, profile=None, calls=[("crawl_delay", "/", None), ("allowed", "/secret", None)])
def test_client_answers_do_not_depend_on_earlier_calls(
    body: bytes, profile: str | None, calls: list[tuple[str, str, str | Agent | None]]
) -> None:
    """Through a client (one cached entry, its parse memoised): each answer equals a fresh client's."""
    expected = []
    for kind, url, agent in calls:  # each on a fresh client and a fresh parse
        PARSES.clear()
        expected.append(_client_call(_client(body, profile), kind, url, agent))
    PARSES.clear()
    shared = _client(body, profile)  # one entry, one memoised parse, for the whole sequence
    for (kind, url, agent), answer in zip(calls, expected, strict=True):
        assert _client_call(shared, kind, url, agent) == answer, (kind, url, agent)


def test_client_gemini_verdict_after_crawl_delay_known_case() -> None:
    """Through the client: crawl_delay() first must not change the gemini:// verdict that follows."""
    PARSES.clear()
    assert not _client(PREAMBLE_FILE, None).allowed("gemini://x.example/secret")
    PARSES.clear()
    client = _client(PREAMBLE_FILE, None)
    assert client.crawl_delay("gemini://x.example/") is None
    assert not client.allowed("gemini://x.example/secret")
