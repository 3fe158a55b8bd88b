"""Scrapy's expectations for robots.txt parser backends, applied to robotskit's RobotParser.

The checks restate those of Scrapy's own tests/test_robotstxt_interface.py (BaseRobotParserTest):
the same bodies, URLs, agents and verdicts, as data. Like Protego, robotskit resolves conflicts
by pattern length (RFC 9309 2.2.2), so Scrapy's order-based-precedence check is the one that
does not apply; its opposite, length-based precedence, is asserted instead.
"""

from __future__ import annotations

import pytest

scrapy = pytest.importorskip("scrapy")

from scrapy.robotstxt import RobotParser as ScrapyRobotParser  # noqa: E402
from scrapy.settings import Settings  # noqa: E402

from robotskit.contrib.scrapy import RobotParser  # noqa: E402

WILDCARDS = b"""User-agent: first
                                Disallow: /disallowed/*/end$

                                User-agent: second
                                Allow: /*allowed
                                Disallow: /
                                """

UNICODE = """
        User-Agent: *
        Disallow: /admin/
        Disallow: /static/
        # taken from https://en.wikipedia.org/robots.txt
        Disallow: /wiki/K%C3%A4ytt%C3%A4j%C3%A4:
        Disallow: /wiki/Käyttäjä:

        User-Agent: UnicödeBöt
        Disallow: /some/randome/page.html""".encode()

SIMPLE = b"User-agent: * \nDisallow: /disallowed \nAllow: /allowed \nCrawl-delay: 10"
PRECEDENCE = b"User-agent: * \nDisallow: / \nAllow: /page"
GARBAGE = b"GIF89a\xd3\x00\xfe\x00\xa2"

# (case id, body, url, user agent, expected verdict)
VECTORS = [
    ("allowed", SIMPLE, "https://www.site.local/allowed", "*", True),
    ("disallowed", SIMPLE, "https://www.site.local/disallowed", "*", False),
    ("wildcard-no-match", WILDCARDS, "https://www.site.local/disallowed", "first", True),
    ("wildcard-end-xyz", WILDCARDS, "https://www.site.local/disallowed/xyz/end", "first", False),
    ("wildcard-end-abc", WILDCARDS, "https://www.site.local/disallowed/abc/end", "first", False),
    ("wildcard-anchor", WILDCARDS, "https://www.site.local/disallowed/xyz/endinglater", "first", True),
    ("star-allow-1", WILDCARDS, "https://www.site.local/allowed", "second", True),
    ("star-allow-2", WILDCARDS, "https://www.site.local/is_still_allowed", "second", True),
    ("star-allow-3", WILDCARDS, "https://www.site.local/is_allowed_too", "second", True),
    ("length-precedence", PRECEDENCE, "https://www.site.local/page", "*", True),
    ("empty-root", b"", "https://site.local/", "*", True),
    ("empty-chrome", b"", "https://site.local/", "chrome", True),
    ("empty-index", b"", "https://site.local/index.html", "*", True),
    ("empty-disallowed", b"", "https://site.local/disallowed", "*", True),
    ("garbage-root", GARBAGE, "https://site.local/", "*", True),
    ("garbage-chrome", GARBAGE, "https://site.local/", "chrome", True),
    ("garbage-index", GARBAGE, "https://site.local/index.html", "*", True),
    ("garbage-disallowed", GARBAGE, "https://site.local/disallowed", "*", True),
    ("unicode-root", UNICODE, "https://site.local/", "*", True),
    ("unicode-admin", UNICODE, "https://site.local/admin/", "*", False),
    ("unicode-static", UNICODE, "https://site.local/static/", "*", False),
    ("unicode-bot-admin", UNICODE, "https://site.local/admin/", "UnicödeBöt", True),
    ("unicode-escaped", UNICODE, "https://site.local/wiki/K%C3%A4ytt%C3%A4j%C3%A4:", "*", False),
    ("unicode-raw", UNICODE, "https://site.local/wiki/Käyttäjä:", "*", False),
    ("unicode-page-star", UNICODE, "https://site.local/some/randome/page.html", "*", True),
    ("unicode-page-bot", UNICODE, "https://site.local/some/randome/page.html", "UnicödeBöt", False),
]


@pytest.mark.parametrize(
    ("body", "url", "agent", "expected"), [v[1:] for v in VECTORS], ids=[v[0] for v in VECTORS]
)
def test_scrapy_interface_vectors(body: bytes, url: str, agent: str, expected: bool) -> None:
    """Each of Scrapy's parser-interface expectations holds for RobotParser.from_crawler(None, body)."""
    parser = RobotParser.from_crawler(crawler=None, robotstxt_body=body)  # type: ignore[arg-type]
    assert parser.allowed(url, agent) is expected


def test_is_a_scrapy_robot_parser() -> None:
    """RobotParser subclasses Scrapy's abstract RobotParser, so Scrapy can load it by path."""
    parser = RobotParser.from_crawler(None, b"")  # type: ignore[arg-type]
    assert isinstance(parser, ScrapyRobotParser)


def test_bytes_url_and_agent_accepted() -> None:
    """Scrapy may pass the User-Agent header as bytes; allowed() decodes url and agent."""
    parser = RobotParser.from_crawler(None, b"User-agent: mybot\nDisallow: /x\n")  # type: ignore[arg-type]
    assert parser.allowed(b"https://a.test/x", b"MyBot/1.0 (+https://a.test)") is False
    assert parser.allowed(b"https://a.test/y", b"MyBot/1.0 (+https://a.test)") is True


def test_full_user_agent_reduced_to_product_token() -> None:
    """A full USER_AGENT string matches the group of its product token (RFC 9309 2.2.1)."""
    body = b"User-agent: *\nDisallow: /\n\nUser-agent: MyCrawler\nAllow: /\n"
    parser = RobotParser.from_crawler(None, body)  # type: ignore[arg-type]
    assert parser.allowed("https://a.test/page", "MyCrawler/2.1 (+https://a.test/bot)") is True
    assert parser.allowed("https://a.test/page", "Scrapy/2.19 (+https://scrapy.org)") is False


def test_bom_and_latin1_bytes_handled() -> None:
    """A UTF-8 BOM and non-UTF-8 bytes in the raw body do not hide the rules around them."""
    body = b"\xef\xbb\xbfUser-agent: *\nDisallow: /caf\xe9\nDisallow: /private\n"
    parser = RobotParser.from_crawler(None, body)  # type: ignore[arg-type]
    assert parser.allowed("https://a.test/private/x", "bot") is False
    assert parser.allowed("https://a.test/caf%E9", "bot") is False
    assert parser.allowed("https://a.test/public", "bot") is True


def test_crawl_delay_for_user_agent() -> None:
    """crawl_delay() returns the Crawl-delay of the agent's group, fractional seconds kept."""
    body = (
        b"User-agent: *\nDisallow: /x\nCrawl-delay: 10\n\nUser-agent: fast\nDisallow: /y\nCrawl-delay: 0.5\n"
    )
    parser = RobotParser.from_crawler(None, body)  # type: ignore[arg-type]
    assert parser.crawl_delay("Other/1.0") == 10
    assert parser.crawl_delay(b"fast/3") == 0.5
    assert RobotParser.from_crawler(None, b"").crawl_delay("x") is None  # type: ignore[arg-type]


def test_profile_setting_selects_google_profile() -> None:
    """ROBOTSKIT_PROFILE="google" switches to Google's matching (index.html rule applies)."""

    class FakeCrawler:
        settings = Settings({"ROBOTSKIT_PROFILE": "google"})
        spider = None

    body = b"User-agent: *\nDisallow: /\nAllow: /dir/index.html\n"
    google = RobotParser.from_crawler(FakeCrawler(), body)  # type: ignore[arg-type]
    rfc = RobotParser.from_crawler(None, body)  # type: ignore[arg-type]
    assert google.allowed("https://a.test/dir/", "bot") is True
    assert rfc.allowed("https://a.test/dir/", "bot") is False


def test_a_latin1_user_agent_header_is_read_not_raised() -> None:
    """Scrapy passes the User-Agent header's bytes: `Crawler-\\xe9/1.0` raised UnicodeDecodeError."""
    parser = RobotParser.from_crawler(None, b"User-agent: *\nDisallow: /private\nCrawl-delay: 2\n")
    agent = "Crawler-\xe9/1.0".encode("latin-1")
    assert parser.allowed("https://example.com/private", agent) is False
    assert parser.crawl_delay(agent) == 2.0
