"""A reduced file answers for its agent exactly as the whole file does (issue 14: bounded memory).

For a large body the client keeps, per agent asked, the parse of the file with every line
blanked that this agent's answers do not read (robotskit.policy.parses). The property: for
random files (preamble rules, empty rules, records, sitemaps and their misspellings, comments,
CR/CRLF line ends, a BOM, NULs) and agents, every decision (any URL, explain included),
crawl-delay, request-rate and the sitemaps of the reduced parse equal the whole parse's.
"""

from __future__ import annotations

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from robotskit import parse
from robotskit.agents import Agent
from robotskit.client import RobotsClient
from robotskit.policy.parses import PARSES, REDUCE_FROM, reduced_body
from robotskit.testing import FrozenClock, MockFetcher, http_response

_LINES = st.sampled_from(
    [
        "User-agent: *",
        "User-agent: mybot",
        "user-agent: MyBot/2.0",
        "useragent: other",
        "User-agent: researcher",
        "User-agent: other",
        "User-agent: mybot2",
        "Disallow: /secret",
        "Disallow:",
        "Allow: /secret/open",
        "Allow: /dir/index.html",
        "Disallow: /*.gmi$",
        "dissallow: /typo",
        "Disallow /nocolon",
        "Crawl-delay: 3",
        "Crawl-delay: 7",
        "Request-rate: 1/5",
        "Sitemap: /map.xml",
        "site-map: https://b.example/m.xml",
        "Sitemap https://c.example/x.xml",
        "Disallow: /site/map",
        "# a comment",
        "Unknown: thing",
        "junk line with words",
        "",
        "Disallow: /nul\x00after",
    ]
)
_ENDS = st.sampled_from(["\n", "\r\n", "\r"])
BODIES = st.tuples(st.booleans(), st.lists(st.tuples(_LINES, _ENDS), max_size=25)).map(
    lambda drawn: (b"\xef\xbb\xbf" if drawn[0] else b"") + "".join(a + b for a, b in drawn[1]).encode()
)
AGENTS = st.sampled_from(["MyBot", "mybot/1.0", "other", "nobody", Agent("MyBot", purposes=("researcher",))])
PROFILES = st.sampled_from([None, "rfc9309", "google", "gemini"])
URLS = (
    "https://a.example/secret",
    "https://a.example/secret/open",
    "https://a.example/dir/",
    "https://a.example/x.gmi",
    "https://a.example/typo",
    "https://a.example/nul",
    "https://a.example/robots.txt",
    "gemini://a.example/secret",
    "gemini://a.example/x.gmi",
    "gemini://a.example/site/map",
    "/secret",
)


def _same_answers(body: bytes, profile: str | None, agent: str | Agent) -> None:
    whole = parse(body, profile, robots_url="https://a.example/robots.txt")
    reduced = parse(reduced_body(whole, agent), profile, robots_url="https://a.example/robots.txt")
    for url in URLS:
        assert reduced.decide(url, agent, explain=True) == whole.decide(url, agent, explain=True), url
        assert reduced.allowed(url, agent) == whole.allowed(url, agent), url
    assert reduced.crawl_delay(agent) == whole.crawl_delay(agent)
    assert reduced.request_rate(agent) == whole.request_rate(agent)
    assert reduced.sitemaps == whole.sitemaps


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=BODIES, profile=PROFILES, agent=AGENTS)
@example(body=b"User-agent: a\nDisallow:\nUser-agent: mybot\nDisallow: /\n", profile=None, agent="MyBot")
@example(body=b"Disallow: /secret\nUser-agent: other\nDisallow: /\n", profile=None, agent="MyBot")
def test_reduced_file_answers_as_the_whole_file(body: bytes, profile: str | None, agent: str | Agent) -> None:
    """Decisions, crawl-delay, request-rate and sitemaps for the agent are the whole file's."""
    _same_answers(body, profile, agent)


def test_large_hostile_file_is_reduced_and_answers_alike() -> None:
    """Through a client: a 460 KiB file of 19,000 groups answers as parse() does, from a small parse."""
    body = b"".join(b"user-agent:%x\nallow:/%x\n" % (i, i % 256) for i in range(19_000))
    body += b"User-agent: *\nDisallow: /private\nCrawl-delay: 4\nSitemap: /s.xml\n"
    assert REDUCE_FROM <= len(body) <= 500 * 1024
    fetcher = MockFetcher({"https://a.example/robots.txt": http_response(200, body)})
    client = RobotsClient("MyBot", fetchers={"https": fetcher}, clock=FrozenClock())
    whole = parse(body, robots_url="https://a.example/robots.txt")
    PARSES.clear()
    for url in ("https://a.example/private/x", "https://a.example/public", "https://a.example/1f"):
        for agent in ("MyBot", "1f", "4a"):
            assert client.decide(url, agent).allowed == whole.decide(url, agent).allowed
            assert client.decide(url, agent).rule == whole.decide(url, agent).rule
    assert client.crawl_delay("https://a.example/") == whole.crawl_delay("MyBot") == 4
    assert client.sitemaps("https://a.example/") == whole.sitemaps == ("https://a.example/s.xml",)
    kept = reduced_body(whole, "MyBot")
    assert len(kept.replace(b"\n", b"")) < 200  # the other 19,000 groups are blank lines
