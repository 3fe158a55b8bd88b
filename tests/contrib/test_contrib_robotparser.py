"""robotskit.contrib.robotparser.RobotFileParser against urllib.robotparser.RobotFileParser.

Part one: cases where both must agree (parametrized, run through both classes). Part two: one
test per documented difference (docs/robotparser.md), asserting both the standard library's
answer and ours, so a change on either side shows up.
"""

from __future__ import annotations

import urllib.robotparser as stdlib

import pytest

from robotskit.contrib.robotparser import RequestRate, RobotFileParser

AGREE_FILE = """\
User-agent: figtree
Crawl-delay: 3
Request-rate: 9/30
Disallow: /tmp
Disallow: /a%3cd.html
Disallow: /a/b.html

User-agent: *
Disallow: /cyberworld/map/
Disallow: /private/
Allow: /public/
Sitemap: https://example.com/sitemap.xml
"""

# (agent, url, expected) on AGREE_FILE, where urllib and RFC 9309 give the same answer.
AGREE_CASES = [
    ("figtree", "/tmp", False),
    ("figtree", "/tmp.html", False),
    ("figtree", "/tmp/a.html", False),
    ("figtree", "/a%3cd.html", False),
    ("figtree", "/a%3Cd.html", False),
    ("figtree", "/a/b.html", False),
    ("figtree", "/", True),
    ("figtree", "/private/x", True),
    ("FigTree/1.0 (+https://fig.test)", "/tmp", False),
    ("FigTree/1.0", "/cyberworld/map/index.html", True),
    ("otherbot", "/cyberworld/map/index.html", False),
    ("otherbot", "/cyberworld/", True),
    ("otherbot", "/private/", False),
    ("otherbot", "https://example.com/private/deep/x?q=1", False),
    ("otherbot", "https://example.com/public/x", True),
    ("otherbot", "https://example.com/", True),
    ("otherbot", "", True),
]


def _both(text: str) -> tuple[stdlib.RobotFileParser, RobotFileParser]:
    theirs, ours = stdlib.RobotFileParser(), RobotFileParser()
    theirs.parse(text.splitlines())
    ours.parse(text.splitlines())
    return theirs, ours


@pytest.mark.parametrize(("agent", "url", "expected"), AGREE_CASES)
def test_agrees_with_stdlib(agent: str, url: str, expected: bool) -> None:
    """On plain prefix rules both parsers give the same verdict."""
    theirs, ours = _both(AGREE_FILE)
    assert theirs.can_fetch(agent, url) is expected
    assert ours.can_fetch(agent, url) is expected


@pytest.mark.parametrize(
    "text",
    [
        "",
        "User-agent: *\nDisallow: /\n",
        "User-agent: *\nDisallow:\n",
        "# only a comment\n",
        "User-agent: a\nAllow: /\n",
    ],
)
@pytest.mark.parametrize("url", ["/", "/x", "/x/y?z"])
def test_agrees_on_trivial_files(text: str, url: str) -> None:
    """Empty, allow-all and disallow-all files give the same verdicts in both."""
    theirs, ours = _both(text)
    assert ours.can_fetch("somebot", url) is theirs.can_fetch("somebot", url)


def test_extensions_agree() -> None:
    """crawl_delay, request_rate and site_maps match urllib's values and types."""
    theirs, ours = _both(AGREE_FILE)
    for agent in ("figtree", "otherbot"):
        assert ours.crawl_delay(agent) == theirs.crawl_delay(agent)
        assert ours.request_rate(agent) == theirs.request_rate(agent)
    assert isinstance(ours.request_rate("figtree"), RequestRate)
    assert ours.request_rate("figtree") == RequestRate(9, 30)
    assert type(ours.crawl_delay("figtree")) is int
    assert ours.site_maps() == theirs.site_maps() == ["https://example.com/sitemap.xml"]
    assert _both("User-agent: *\nDisallow: /\n")[1].site_maps() is None


def test_state_before_parse_matches_stdlib() -> None:
    """Before read()/parse() nothing is allowed and mtime() is 0, as in urllib."""
    ours, theirs = RobotFileParser("https://example.com/robots.txt"), stdlib.RobotFileParser()
    assert ours.can_fetch("bot", "/") is theirs.can_fetch("bot", "/") is False
    assert ours.mtime() == theirs.mtime() == 0
    assert ours.crawl_delay("bot") is None and ours.request_rate("bot") is None
    ours.modified()
    assert ours.mtime() > 0


def test_set_url_attributes() -> None:
    """set_url() sets url, host and path exactly like urllib."""
    ours, theirs = RobotFileParser(), stdlib.RobotFileParser()
    for parser in (ours, theirs):
        parser.set_url("https://example.com:8443/robots.txt")
    assert (ours.url, ours.host, ours.path) == (theirs.url, theirs.host, theirs.path)
    assert ours.host == "example.com:8443"


def test_allow_all_and_disallow_all_flags() -> None:
    """The allow_all / disallow_all attributes short-circuit can_fetch as in urllib."""
    ours = RobotFileParser()
    ours.parse(["User-agent: *", "Disallow: /"])
    ours.allow_all = True
    assert ours.can_fetch("bot", "/x") is True
    ours.allow_all, ours.disallow_all = False, True
    assert ours.can_fetch("bot", "/") is False


def test_str_renders_groups_like_stdlib() -> None:
    """__str__ prints specific groups, then the `*` group, in urllib's layout."""
    text = "User-agent: *\nDisallow: /x\n\nUser-agent: figtree\nCrawl-delay: 3\nDisallow: /tmp\n"
    theirs, ours = _both(text)
    assert str(ours) == str(theirs)


# --- documented differences (docs/robotparser.md) -------------------------------------------------


def test_difference_longest_match_wins() -> None:
    """urllib takes the first matching rule; RFC 9309 2.2.2 takes the longest."""
    theirs, ours = _both("User-agent: *\nDisallow: /\nAllow: /page\n")
    assert theirs.can_fetch("bot", "/page") is False
    assert ours.can_fetch("bot", "/page") is True


def test_difference_wildcards() -> None:
    """urllib treats `*` and `$` literally; RFC 9309 2.2.3 makes them wildcards."""
    theirs, ours = _both("User-agent: *\nDisallow: /*.pdf$\n")
    assert theirs.can_fetch("bot", "/files/a.pdf") is True
    assert ours.can_fetch("bot", "/files/a.pdf") is False
    assert ours.can_fetch("bot", "/files/a.pdf?v=2") is True


def test_difference_agent_substring() -> None:
    """urllib applies a group whose name is a substring of the caller's; we need the exact token."""
    theirs, ours = _both("User-agent: bot\nDisallow: /\n")
    assert theirs.can_fetch("Googlebot", "/x") is False
    assert ours.can_fetch("Googlebot", "/x") is True
    assert ours.can_fetch("bot/2.0", "/x") is False


def test_difference_blank_line_inside_group() -> None:
    """urllib drops a group at a blank line after user-agent; RFC 9309 groups ignore blank lines."""
    theirs, ours = _both("User-agent: *\n\nDisallow: /private\n")
    assert theirs.can_fetch("bot", "/private") is True
    assert ours.can_fetch("bot", "/private") is False


def test_difference_groups_for_same_agent_merge() -> None:
    """urllib uses only the first group naming an agent; RFC 9309 2.2.1 merges them."""
    theirs, ours = _both("User-agent: a\nDisallow: /x\n\nUser-agent: a\nDisallow: /y\n")
    assert theirs.can_fetch("a", "/y") is True
    assert ours.can_fetch("a", "/y") is False


def test_difference_empty_disallow_does_not_allow_everything() -> None:
    """urllib reads an empty Disallow as an allow-everything rule that wins first; it is no rule."""
    theirs, ours = _both("User-agent: *\nDisallow:\nDisallow: /x\n")
    assert theirs.can_fetch("bot", "/x") is True
    assert ours.can_fetch("bot", "/x") is False


def test_difference_encoded_slash_stays_encoded() -> None:
    """urllib unquotes `%2F` to `/`; RFC 9309 2.2.2 keeps reserved characters escaped."""
    theirs, ours = _both("User-agent: *\nDisallow: /a%2Fb\n")
    assert theirs.can_fetch("bot", "/a/b") is False
    assert ours.can_fetch("bot", "/a/b") is True
    assert ours.can_fetch("bot", "/a%2Fb") is False


def test_difference_robots_txt_always_allowed() -> None:
    """RFC 9309 2.2.2: /robots.txt is implicitly allowed; urllib applies the rules to it."""
    theirs, ours = _both("User-agent: *\nDisallow: /\n")
    assert theirs.can_fetch("bot", "/robots.txt") is False
    assert ours.can_fetch("bot", "/robots.txt") is True


def test_difference_fractional_crawl_delay() -> None:
    """urllib ignores `Crawl-delay: 1.5`; robotskit keeps fractional seconds."""
    theirs, ours = _both("User-agent: *\nCrawl-delay: 1.5\nDisallow: /x\n")
    assert theirs.crawl_delay("bot") is None
    assert ours.crawl_delay("bot") == 1.5


def test_difference_sitemaps_deduplicated() -> None:
    """urllib lists repeated Sitemap lines twice; robotskit keeps the first of each."""
    text = "Sitemap: https://e.test/a.xml\nSitemap: https://e.test/a.xml\n"
    theirs, ours = _both(text)
    assert theirs.site_maps() == ["https://e.test/a.xml"] * 2
    assert ours.site_maps() == ["https://e.test/a.xml"]


def test_difference_parse_accepts_whole_file_and_bytes() -> None:
    """parse() also takes the whole file as str or bytes (BOM and bad UTF-8 handled)."""
    ours = RobotFileParser()
    ours.parse(b"\xef\xbb\xbfUser-agent: *\nDisallow: /caf\xe9\nDisallow: /p\n")
    assert ours.can_fetch("bot", "/p") is False
    ours.parse("User-agent: *\nDisallow: /q\n")
    assert ours.can_fetch("bot", "/q") is False
    ours.parse([b"User-agent: *", b"Disallow: /r"])
    assert ours.can_fetch("bot", "/r") is False


def test_robots_attribute_exposes_full_api() -> None:
    """The parsed robotskit.RobotsTxt is available as .robots for decisions with provenance."""
    ours = RobotFileParser()
    ours.parse(["User-agent: *", "Disallow: /x"])
    assert ours.robots is not None
    decision = ours.robots.decide("/x/y", "bot")
    assert decision.allowed is False and decision.rule is not None and decision.rule.line == 2


def test_difference_request_rate_units() -> None:
    """urllib ignores `Request-rate: 1/10m`; robotskit reads the unit (600 seconds)."""
    theirs, ours = _both("User-agent: *\nRequest-rate: 1/10m\nDisallow: /x\n")
    assert theirs.request_rate("bot") is None
    assert ours.request_rate("bot") == RequestRate(1, 600)
