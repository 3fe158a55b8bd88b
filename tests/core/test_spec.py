"""SPEC.md sections 1-5, one vector per rule, each naming the section it proves.

Vectors are data: (id, section, profile, robots.txt, agent, url, expected allowed). `agent` is a
string, or a dict of robotskit.Agent keyword arguments. Every vector also runs again with CRLF
and CR line endings and a UTF-8 BOM (h11's trick): the verdict must not change.
"""

from __future__ import annotations

from typing import Any

import pytest

import robotskit
from robotskit import Agent

V = tuple[str, str, str | None, str, Any, str, bool]

VECTORS: list[V] = [
    # -- 1. profiles ---------------------------------------------------------------------------
    (
        "s1-rfc-unreserved-decoded",
        "1",
        "rfc9309",
        "User-agent: *\nDisallow: /%7Ejoe/\n",
        "Bot",
        "/~joe/x",
        False,
    ),
    (
        "s1-rfc-unreserved-decoded-url",
        "1",
        "rfc9309",
        "User-agent: *\nDisallow: /~joe/\n",
        "Bot",
        "/%7ejoe/x",
        False,
    ),
    (
        "s1-google-unreserved-kept",
        "1",
        "google",
        "User-agent: *\nDisallow: /%7Ejoe/\n",
        "Bot",
        "/~joe/x",
        True,
    ),
    ("s1-rfc-hex-case", "1", "rfc9309", "User-agent: *\nDisallow: /a%2fb\n", "Bot", "/a%2Fb", False),
    ("s1-rfc-slash-stays-escaped", "1", "rfc9309", "User-agent: *\nDisallow: /a%2Fb\n", "Bot", "/a/b", True),
    ("s1-rfc-star-escaped", "1", "rfc9309", "User-agent: *\nDisallow: /a%2Ab\n", "Bot", "/a*b", False),
    (
        "s1-rfc-star-escaped-no-wildcard",
        "1",
        "rfc9309",
        "User-agent: *\nDisallow: /a%2Ab\n",
        "Bot",
        "/axb",
        True,
    ),
    ("s1-rfc-non-ascii-url", "1", "rfc9309", "User-agent: *\nDisallow: /caf%C3%A9\n", "Bot", "/café", False),
    ("s1-rfc-non-ascii-rule", "1", "rfc9309", "User-agent: *\nDisallow: /café\n", "Bot", "/caf%c3%a9", False),
    ("s1-google-non-ascii-url-raw", "1", "google", "User-agent: *\nDisallow: /café\n", "Bot", "/café", True),
    (
        "s1-google-non-ascii-rule",
        "1",
        "google",
        "User-agent: *\nDisallow: /café\n",
        "Bot",
        "/caf%C3%A9",
        False,
    ),
    ("s1-rfc-robots-txt-allowed", "1", "rfc9309", "User-agent: *\nDisallow: /\n", "Bot", "/robots.txt", True),
    (
        "s1-google-robots-txt-rules",
        "1",
        "google",
        "User-agent: *\nDisallow: /\n",
        "Bot",
        "/robots.txt",
        False,
    ),
    (
        "s1-gemini-robots-txt-allowed",
        "1",
        "gemini",
        "User-agent: *\nDisallow: /\n",
        None,
        "/robots.txt",
        True,
    ),
    ("s1-rfc-token-digits", "1", "rfc9309", "User-agent: AB42bot\nDisallow: /\n", "AB42bot", "/x", False),
    ("s1-rfc-token-digits-no-prefix", "1", "rfc9309", "User-agent: AB42bot\nDisallow: /\n", "AB", "/x", True),
    ("s1-google-token-cut-at-digit", "1", "google", "User-agent: AB42bot\nDisallow: /\n", "AB", "/x", False),
    (
        "s1-rfc-token-from-full-ua",
        "1",
        "rfc9309",
        "User-agent: Googlebot/2.1\nDisallow: /\n",
        "Googlebot",
        "/x",
        False,
    ),
    (
        "s1-rfc-caller-reduced",
        "1",
        "rfc9309",
        "User-agent: MyBot\nDisallow: /\n",
        "MyBot/2.1 (+https://x)",
        "/x",
        False,
    ),
    ("s1-google-caller-verbatim", "1", "google", "User-agent: MyBot\nDisallow: /\n", "MyBot/2.1", "/x", True),
    ("s1-google-star-space", "1", "google", "User-agent: * foo\nDisallow: /\n", "Bot", "/x", False),
    ("s1-rfc-star-alone-only", "1", "rfc9309", "User-agent: * foo\nDisallow: /\n", "Bot", "/x", True),
    (
        "s1-google-index-html",
        "1",
        "google",
        "User-agent: *\nAllow: /d/index.html\nDisallow: /\n",
        "Bot",
        "/d/",
        True,
    ),
    (
        "s1-google-index-htm",
        "1",
        "google",
        "User-agent: *\nAllow: /d/index.htm\nDisallow: /\n",
        "Bot",
        "/d/",
        True,
    ),
    (
        "s1-google-index-not-deeper",
        "1",
        "google",
        "User-agent: *\nAllow: /d/index.html\nDisallow: /\n",
        "Bot",
        "/d/x",
        False,
    ),
    (
        "s1-rfc-no-index-html",
        "1",
        "rfc9309",
        "User-agent: *\nAllow: /d/index.html\nDisallow: /\n",
        "Bot",
        "/d/",
        False,
    ),
    ("s1-rfc-preamble-ignored", "1", "rfc9309", "Disallow: /x\nUser-agent: *\nAllow: /\n", "Bot", "/x", True),
    (
        "s1-google-preamble-ignored",
        "1",
        "google",
        "Disallow: /x\nUser-agent: Bot\nAllow: /y\n",
        "Bot",
        "/x",
        True,
    ),
    (
        "s1-gemini-preamble-applies",
        "1",
        "gemini",
        "Disallow: /x\nUser-agent: *\nAllow: /\n",
        None,
        "/x",
        False,
    ),
    (
        "s1-specific-over-star",
        "1",
        "rfc9309",
        "User-agent: *\nDisallow: /\n\nUser-agent: Bot\nAllow: /\n",
        "Bot",
        "/x",
        True,
    ),
    (
        "s1-specific-groups-merged",
        "1",
        "rfc9309",
        "User-agent: Bot\nDisallow: /a\n\nUser-agent: *\nDisallow: /\n\nUser-agent: Bot\nDisallow: /b\n",
        "Bot",
        "/b",
        False,
    ),
    (
        "s1-star-groups-merged",
        "1",
        "rfc9309",
        "User-agent: *\nDisallow: /a\n\nUser-agent: *\nDisallow: /b\n",
        "Bot",
        "/b",
        False,
    ),
    ("s1-no-group-allows", "1", "rfc9309", "User-agent: Other\nDisallow: /\n", "Bot", "/x", True),
    (
        "s1-specific-empty-group-allows",
        "1",
        "rfc9309",
        "User-agent: Bot\n\nUser-agent: *\nDisallow: /\n",
        "Bot",
        "/x",
        False,
    ),
    (
        "s1-specific-group-no-rules-allows",
        "1",
        "rfc9309",
        "User-agent: *\nDisallow: /\n\nUser-agent: Bot\nAllow:\n",
        "Bot",
        "/x",
        True,
    ),
    # -- 2. reading a file ---------------------------------------------------------------------
    ("s2-keys-case-insensitive", "2", None, "USER-AGENT: *\nDISALLOW: /x\n", "Bot", "/x", False),
    ("s2-paths-case-sensitive", "2", None, "User-agent: *\nDisallow: /X\n", "Bot", "/x", True),
    ("s2-comment", "2", None, "User-agent: * # all\nDisallow: /x # no\n", "Bot", "/x", False),
    ("s2-comment-cuts-value", "2", None, "User-agent: *\nDisallow: /x#y\n", "Bot", "/x", False),
    ("s2-missing-colon", "2", None, "User-agent *\nDisallow /x\n", "Bot", "/x", False),
    ("s2-missing-colon-three-words", "2", None, "User-agent: *\nDisallow /x y\n", "Bot", "/x", True),
    ("s2-typo-useragent", "2", None, "useragent: *\nDisallow: /x\n", "Bot", "/x", False),
    ("s2-typo-user-agent-space", "2", None, "user agent: *\nDisallow: /x\n", "Bot", "/x", False),
    ("s2-typo-dissallow", "2", None, "User-agent: *\ndissallow: /x\n", "Bot", "/x", False),
    ("s2-typo-disalow", "2", None, "User-agent: *\ndisalow: /x\n", "Bot", "/x", False),
    ("s2-typo-diasllow", "2", None, "User-agent: *\ndiasllow: /x\n", "Bot", "/x", False),
    ("s2-typo-disallaw", "2", None, "User-agent: *\ndisallaw: /x\n", "Bot", "/x", False),
    ("s2-no-other-typo", "2", None, "User-agent: *\ndisalou: /x\n", "Bot", "/x", True),
    (
        "s2-group-starts-after-rule",
        "2",
        None,
        "User-agent: A\nDisallow: /a\nUser-agent: Bot\nDisallow: /b\n",
        "Bot",
        "/a",
        True,
    ),
    (
        "s2-consecutive-agents-share",
        "2",
        None,
        "User-agent: A\nUser-agent: Bot\nDisallow: /a\n",
        "Bot",
        "/a",
        False,
    ),
    (
        "s2-unknown-key-keeps-group",
        "2",
        None,
        "User-agent: A\nCrawl-delay: 1\nUser-agent: Bot\nDisallow: /a\n",
        "Bot",
        "/a",
        False,
    ),
    (
        "s2-sitemap-keeps-group",
        "2",
        None,
        "User-agent: A\nSitemap: https://x/s\nUser-agent: Bot\nDisallow: /a\n",
        "Bot",
        "/a",
        False,
    ),
    ("s2-empty-disallow-no-rule", "2", None, "User-agent: *\nDisallow:\n", "Bot", "/x", True),
    (
        "s2-empty-disallow-ends-agents",
        "2",
        None,
        "User-agent: A\nDisallow:\nUser-agent: Bot\nDisallow: /\n",
        "A",
        "/x",
        True,
    ),
    ("s2-pattern-without-slash", "2", "google", "User-agent: *\nDisallow: x\n", "Bot", "/x", True),
    ("s2-leading-whitespace", "2", None, "   User-agent: *\n\tDisallow: /x\n", "Bot", "/x", False),
    # -- 3. matching one token -----------------------------------------------------------------
    ("s3-prefix", "3", None, "User-agent: *\nDisallow: /fish\n", "Bot", "/fish.html", False),
    ("s3-prefix-no-match", "3", None, "User-agent: *\nDisallow: /fish\n", "Bot", "/Fish", True),
    ("s3-query-included", "3", None, "User-agent: *\nDisallow: /p?q=1\n", "Bot", "https://h/p?q=1", False),
    ("s3-params-included", "3", None, "User-agent: *\nDisallow: /p;s=1\n", "Bot", "https://h/p;s=1", False),
    ("s3-fragment-excluded", "3", None, "User-agent: *\nDisallow: /p$\n", "Bot", "https://h/p#frag", False),
    ("s3-empty-path-is-slash", "3", None, "User-agent: *\nDisallow: /$\n", "Bot", "https://h", False),
    ("s3-star-any-run", "3", None, "User-agent: *\nDisallow: /*.php\n", "Bot", "/a/b.php?x", False),
    ("s3-star-empty-run", "3", None, "User-agent: *\nDisallow: /a*b\n", "Bot", "/ab", False),
    ("s3-dollar-anchors", "3", None, "User-agent: *\nDisallow: /*.php$\n", "Bot", "/a.php?x", True),
    ("s3-dollar-anchors-end", "3", None, "User-agent: *\nDisallow: /*.php$\n", "Bot", "/a.php", False),
    (
        "s3-dollar-middle-literal-google",
        "3",
        "google",
        "User-agent: *\nDisallow: /a$b\n",
        "Bot",
        "/a$b",
        False,
    ),
    (
        "s3-dollar-middle-literal-rfc",
        "3",
        "rfc9309",
        "User-agent: *\nDisallow: /a$b\n",
        "Bot",
        "/a%24b",
        False,
    ),
    ("s3-longest-wins-allow", "3", None, "User-agent: *\nDisallow: /a\nAllow: /a/b\n", "Bot", "/a/b/c", True),
    (
        "s3-longest-wins-disallow",
        "3",
        None,
        "User-agent: *\nAllow: /a\nDisallow: /a/b\n",
        "Bot",
        "/a/b/c",
        False,
    ),
    ("s3-tie-allow-wins", "3", None, "User-agent: *\nDisallow: /a\nAllow: /a\n", "Bot", "/a", True),
    (
        "s3-length-counts-wildcards",
        "3",
        None,
        "User-agent: *\nAllow: /*p\nDisallow: /ap\n",
        "Bot",
        "/ap",
        True,
    ),
    (
        "s3-length-in-octets",
        "3",
        "rfc9309",
        "User-agent: *\nAllow: /é\nDisallow: /%C3%A\n",
        "Bot",
        "/é",
        True,
    ),
    ("s3-no-match-allowed", "3", None, "User-agent: *\nDisallow: /a\n", "Bot", "/b", True),
    ("s3-agent-case-insensitive", "3", None, "User-agent: MYBOT\nDisallow: /\n", "mybot", "/x", False),
    ("s3-agent-no-prefix-match", "3", None, "User-agent: MyBot\nDisallow: /\n", "MyBotNews", "/x", True),
    ("s3-agent-no-substring-match", "3", None, "User-agent: Bot\nDisallow: /\n", "MyBot", "/x", True),
    # -- 4. agents, purposes, Gemini -----------------------------------------------------------
    (
        "s4-merge-aliases",
        "4",
        "google",
        "User-agent: googlebot\nDisallow: /a\nUser-agent: googlebot-news\nAllow: /a\n",
        {"token": "googlebot-news", "aliases": ["googlebot"]},
        "/a",
        True,
    ),
    (
        "s4-most-restrictive-aliases",
        "4",
        "google",
        "User-agent: googlebot\nDisallow: /a\nUser-agent: googlebot-news\nAllow: /a\n",
        {"token": "googlebot-news", "aliases": ["googlebot"], "combine": "most_restrictive"},
        "/a",
        False,
    ),
    (
        "s4-gemini-star-always",
        "4",
        "gemini",
        "User-agent: *\nDisallow: /a\nUser-agent: indexer\nAllow: /a\n",
        {"token": None, "purposes": ["indexer"]},
        "/a",
        False,
    ),
    (
        "s4-gemini-purpose",
        "4",
        "gemini",
        "User-agent: indexer\nDisallow: /a\n",
        {"token": None, "purposes": ["indexer"]},
        "/a",
        False,
    ),
    (
        "s4-gemini-other-purpose",
        "4",
        "gemini",
        "User-agent: archiver\nDisallow: /a\n",
        {"token": None, "purposes": ["indexer"]},
        "/a",
        True,
    ),
    (
        "s4-gemini-union-of-purposes",
        "4",
        "gemini",
        "User-agent: archiver\nDisallow: /a\nUser-agent: indexer\nDisallow: /b\n",
        {"token": None, "purposes": ["indexer", "archiver"]},
        "/a",
        False,
    ),
    (
        "s4-gemini-union-of-purposes-2",
        "4",
        "gemini",
        "User-agent: archiver\nDisallow: /a\nUser-agent: indexer\nDisallow: /b\n",
        {"token": None, "purposes": ["indexer", "archiver"]},
        "/b",
        False,
    ),
    (
        "s4-gemini-allow-does-not-override",
        "4",
        "gemini",
        "User-agent: archiver\nAllow: /a\nUser-agent: indexer\nDisallow: /a\n",
        {"token": None, "purposes": ["indexer", "archiver"]},
        "/a",
        False,
    ),
    (
        "s4-gemini-own-token",
        "4",
        "gemini",
        "User-agent: kennedy\nDisallow: /\n",
        {"token": "Kennedy", "purposes": ["indexer"]},
        "/x",
        False,
    ),
    (
        "s4-gemini-own-token-falls-back-to-star",
        "4",
        "gemini",
        "User-agent: *\nDisallow: /p\n",
        {"token": "kennedy", "purposes": ["researcher"]},
        "/p",
        False,
    ),
    (
        "s4-gemini-purpose-falls-back-to-star",
        "4",
        "gemini",
        "User-agent: *\nDisallow: /p\nUser-agent: webproxy\nAllow: /\n",
        {"token": None, "purposes": ["researcher"]},
        "/p",
        False,
    ),
    (
        "s4-gemini-webproxy",
        "4",
        "gemini",
        "User-agent: webproxy\nDisallow: /\n",
        {"token": None, "purposes": ["webproxy"]},
        "gemini://h/x",
        False,
    ),
    (
        "s4-gemini-researcher-allowed",
        "4",
        "gemini",
        "User-agent: webproxy\nDisallow: /\n",
        {"token": None, "purposes": ["researcher"]},
        "gemini://h/x",
        True,
    ),
    (
        "s4-gemini-by-scheme",
        "4",
        None,
        "User-agent: *\nAllow: /\nUser-agent: indexer\nDisallow: /\n",
        {"token": None, "purposes": ["indexer"]},
        "gemini://h/x",
        False,
    ),
    (
        "s4-web-ignores-purposes",
        "4",
        None,
        "User-agent: indexer\nDisallow: /\n",
        {"token": "Bot", "purposes": ["indexer"]},
        "https://h/x",
        True,
    ),
    (
        "s4-web-allow-in-own-group",
        "4",
        "rfc9309",
        "User-agent: Bot\nDisallow: /a\nAllow: /a/b\n",
        "Bot",
        "/a/b",
        True,
    ),
]


def _agent(spec: Any) -> Any:
    return Agent(**spec) if isinstance(spec, dict) else spec


@pytest.mark.parametrize(
    ("vid", "section", "profile", "body", "agent", "url", "expected"), VECTORS, ids=[v[0] for v in VECTORS]
)
def test_spec_vector(
    vid: str, section: str, profile: str | None, body: str, agent: Any, url: str, expected: bool
) -> None:
    """SPEC section `section`: the vector's verdict, whatever the line endings or a BOM."""
    for variant in (body, body.replace("\n", "\r\n"), body.replace("\n", "\r"), "\ufeff" + body):
        robots = robotskit.parse(variant.encode(), profile)
        assert robots.allowed(url, _agent(agent)) is expected, (vid, repr(variant))
        assert robots.decide(url, _agent(agent)).allowed is expected, vid


def test_decision_names_the_deciding_line() -> None:
    """SPEC 7: a decision reports the deciding rule's line, kind and pattern, the groups and a reason."""
    robots = robotskit.parse(b"# c\nUser-agent: *\nDisallow: /private/\nAllow: /private/ok\n")
    decision = robots.decide("https://example.com/private/x", "MyBot/2.1")
    assert not decision.allowed
    assert decision.rule is not None
    assert (decision.rule.line, decision.rule.kind, decision.rule.pattern) == (3, "disallow", "/private/")
    assert decision.groups == (2,)
    assert decision.reason == "matched disallow rule"
    assert decision.profile == "rfc9309"
    assert decision.tokens == ("mybot",)
    allowed = robots.decide("/other", "MyBot")
    assert allowed.allowed and allowed.rule is None and allowed.reason == "no matching rule"


def test_decision_robots_txt_reason() -> None:
    """SPEC 7: the implicit /robots.txt allowance says so."""
    decision = robotskit.parse(b"User-agent: *\nDisallow: /\n").decide("https://h/robots.txt", "Bot")
    assert decision.allowed and decision.reason == "implicitly allowed /robots.txt"


def test_explain_lists_losing_matches() -> None:
    """SPEC 7: explain mode lists every matching rule, the deciding one first."""
    robots = robotskit.parse(b"User-agent: *\nDisallow: /a\nAllow: /a/b\nDisallow: /*b\n")
    decision = robots.decide("/a/b", "Bot", explain=True)
    assert decision.allowed
    matched = decision.verdicts[0].matched
    assert [rule.line for rule in matched] == [3, 4, 2]


def test_gemini_decision_reports_each_token() -> None:
    """SPEC 4: a Gemini decision judges `*`, each purpose and the own token, and reports each verdict."""
    robots = robotskit.parse(b"User-agent: *\nAllow: /\nUser-agent: archiver\nDisallow: /old/\n", "gemini")
    decision = robots.decide("gemini://h/old/x", Agent("bot", purposes=["indexer", "archiver"]))
    assert not decision.allowed
    assert decision.tokens[0] == "*"
    assert "archiver" in decision.tokens
    denied = [v for v in decision.verdicts if not v.allowed]
    assert [v.token for v in denied] == ["archiver"]
    assert decision.rule is not None and decision.rule.line == 4


def test_sitemaps_global_ordered_deduplicated_resolved() -> None:
    """SPEC 5: sitemaps anywhere in the file, in order, de-duplicated, relative ones resolved."""
    body = (
        b"Sitemap: https://a/1.xml\nUser-agent: *\nSitemap: /2.xml\nDisallow: /\nSitemap: https://a/1.xml\n"
    )
    robots = robotskit.parse(body, robots_url="https://a/robots.txt")
    assert robots.sitemaps == ("https://a/1.xml", "https://a/2.xml")
    assert [d.code for d in robots.diagnostics] == ["RK132"]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("10", 10.0),
        ("0.5", 0.5),
        (" 2 ", 2.0),
        ("-1", None),
        ("nan", None),
        ("inf", None),
        ("x", None),
        ("3 s", 3.0),
    ],
)
def test_crawl_delay_values(value: str, expected: float | None) -> None:
    """SPEC 5: crawl-delay is seconds, fractional allowed; negative, NaN or infinite ignored."""
    robots = robotskit.parse(f"User-agent: *\nCrawl-delay: {value}\n".encode())
    assert robots.crawl_delay("Bot") == expected


def test_crawl_delay_is_group_scoped() -> None:
    """SPEC 5: group-scoped records belong to their group, chosen like the rules."""
    robots = robotskit.parse(
        b"User-agent: *\nCrawl-delay: 5\nDisallow: /a\n\nUser-agent: Bot\nCrawl-delay: 1\nDisallow: /x\n"
    )
    assert robots.crawl_delay("Bot") == 1.0
    assert robots.crawl_delay("Other") == 5.0
    # No rule between them: `*` and `Bot` share one group (SPEC 2), so the first value is theirs.
    shared = robotskit.parse(b"User-agent: *\nCrawl-delay: 5\n\nUser-agent: Bot\nCrawl-delay: 1\n")
    assert shared.crawl_delay("Bot") == 5.0


def test_request_rate() -> None:
    """SPEC 5: request-rate `n/Nm` is parsed into requests per seconds."""
    robots = robotskit.parse(b"User-agent: *\nRequest-rate: 3/2m\n")
    rate = robots.request_rate("Bot")
    assert rate is not None and (rate.requests, rate.seconds, rate.line) == (3, 120.0, 2)


def test_unknown_records_kept_with_group() -> None:
    """SPEC 5: unknown keys are kept raw with their line and group, so nothing is lost."""
    robots = robotskit.parse(b"Host: example.com\nUser-agent: *\nNoindex: /x\nX-Thing: a: b\n")
    assert [(r.line, r.key, r.value, r.group) for r in robots.records] == [
        (1, "host", "example.com", None),
        (3, "noindex", "/x", 0),
        (4, "x-thing", "a: b", 0),
    ]


def test_non_utf8_pattern_percent_encoded() -> None:
    """SPEC 2: non-UTF-8 bytes in patterns are percent-encoded byte by byte."""
    robots = robotskit.parse(b"User-agent: *\nDisallow: /\xe9t\xe9\n")
    assert not robots.allowed("/%E9t%E9", "Bot")
    assert robots.groups[0].rules[0].pattern == "/%E9t%E9"
    assert "RK102" in [d.code for d in robots.diagnostics]


def test_user_agent_text_decoded_with_replacement() -> None:
    """SPEC 2: text values are decoded as UTF-8 with replacement."""
    robots = robotskit.parse(b"User-agent: Bot\xff\nDisallow: /\n")
    assert robots.groups[0].raw_agents == ("Bot\ufffd",)


def test_str_and_bytes_agree() -> None:
    """SPEC 2: str input is read as its UTF-8 bytes."""
    text = "User-agent: *\nDisallow: /café\n"
    assert robotskit.parse(text).allowed("/café", "Bot") is robotskit.parse(text.encode()).allowed(
        "/café", "Bot"
    )


def test_unknown_profile_is_a_clear_error() -> None:
    """SPEC 1: only the three profiles exist; anything else is an InvalidArgument (a ValueError)."""
    with pytest.raises(ValueError, match="unknown profile"):
        robotskit.parse(b"", "bing")
