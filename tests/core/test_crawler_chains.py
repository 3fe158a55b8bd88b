"""Documented fallback chains: a crawler that no group names obeys the next token of its chain.

Google's robots.txt specification (order of precedence for user agents) and its common-crawlers
list: Googlebot-Image, -News and -Video carry the tokens `<own>, Googlebot`; Apple documents that
Applebot follows Googlebot's rules when no group names Applebot.
"""

from __future__ import annotations

import pytest

import robotskit
from robotskit import Agent
from robotskit.audit import audit
from robotskit.core.crawlers import load_crawlers, table_from_json

# Google's own precedence example: groups for googlebot-news, * and googlebot.
GOOGLE_EXAMPLE = b"""\
user-agent: googlebot-news
disallow: /fish

user-agent: *
disallow: /carrots

user-agent: googlebot
disallow: /shrimp
"""


@pytest.mark.parametrize("profile", ["rfc9309", "google"])
def test_googlebot_image_obeys_the_googlebot_group_not_star(profile: str) -> None:
    """Googlebot-Image (no group of its own) obeys `googlebot`, not `*`, in every web profile."""
    robots = robotskit.parse(GOOGLE_EXAMPLE, profile)
    agent = Agent.crawler("Googlebot-Image")
    assert not robots.allowed("https://x.test/shrimp", agent)
    assert robots.allowed("https://x.test/carrots", agent)
    decision = robots.decide("https://x.test/shrimp", agent)
    assert [v.token for v in decision.verdicts] == ["googlebot"]
    assert decision.reason == (
        "matched disallow rule (no group names googlebot-image; googlebot decides, next in its fallback chain)"
    )


@pytest.mark.parametrize("profile", ["rfc9309", "google"])
def test_plain_token_keeps_todays_semantics(profile: str) -> None:
    """A plain token with no group falls to `*`, exactly as before (the chain is opt-in)."""
    robots = robotskit.parse(GOOGLE_EXAMPLE, profile)
    assert robots.allowed("https://x.test/shrimp", "Googlebot-Image")
    assert not robots.allowed("https://x.test/carrots", "Googlebot-Image")
    assert robots.decide("https://x.test/carrots", "Googlebot-Image").reason == "matched disallow rule"


def test_own_group_wins_over_the_chain() -> None:
    """Googlebot-News has its own group: the chain is not consulted and the reason has no note."""
    robots = robotskit.parse(GOOGLE_EXAMPLE)
    agent = Agent.crawler("googlebot-news")
    assert not robots.allowed("https://x.test/fish", agent)
    assert robots.allowed("https://x.test/shrimp", agent)
    decision = robots.decide("https://x.test/fish", agent)
    assert decision.reason == "matched disallow rule"
    assert [v.token for v in decision.verdicts] == ["googlebot-news"]


def test_chain_without_any_group_falls_to_star_and_says_so() -> None:
    """Applebot with neither an Applebot nor a Googlebot group obeys `*`; the reason says why."""
    robots = robotskit.parse(b"User-agent: *\nDisallow: /\n")
    decision = robots.decide("https://x.test/a", Agent.crawler("Applebot"))
    assert not decision.allowed
    assert (
        decision.reason
        == "matched disallow rule (no group names applebot nor its fallbacks googlebot; the * groups apply)"
    )


def test_applebot_follows_googlebot() -> None:
    """Apple: when no group names Applebot but one names Googlebot, Applebot obeys Googlebot's."""
    robots = robotskit.parse(b"User-agent: Googlebot\nAllow: /\n\nUser-agent: *\nDisallow: /\n")
    agent = Agent.crawler("Applebot")
    assert robots.allowed("https://x.test/page", agent)
    assert not robots.allowed("https://x.test/page", "Applebot")
    assert robots.crawl_delay(agent) is None


def test_crawl_delay_follows_the_chain() -> None:
    """Group-scoped records (Crawl-delay) come from the group the chain chose."""
    robots = robotskit.parse(
        b"User-agent: googlebot\nCrawl-delay: 7\nDisallow: /g\n\nUser-agent: *\nCrawl-delay: 1\nDisallow: /s\n"
    )
    assert robots.crawl_delay(Agent.crawler("Googlebot-Video")) == 7
    assert robots.crawl_delay("Googlebot-Video") == 1


def test_checker_agrees_with_decide_on_many_urls() -> None:
    """The compiled hot path (after hundreds of checks) gives decide()'s verdict for a chain agent."""
    robots = robotskit.parse(GOOGLE_EXAMPLE)
    agent = Agent.crawler("Googlebot-Image")
    urls = [f"https://x.test/{p}/{i}" for i in range(300) for p in ("shrimp", "carrots")]
    assert [robots.allowed(u, agent) for u in urls] == [robots.decide(u, agent).allowed for u in urls]


def test_unknown_crawler_raises_value_error_naming_it() -> None:
    """An unknown name raises ValueError whose message names it."""
    with pytest.raises(ValueError, match="NoSuchBot"):
        Agent.crawler("NoSuchBot")


def test_crawler_without_chain_is_a_plain_token() -> None:
    """A table crawler with no documented chain builds an agent without fallbacks."""
    assert Agent.crawler("gptbot") == Agent("GPTBot")


def test_table_chains_carry_source_and_date() -> None:
    """Every chain in the bundled table names an https source and the ISO date it was read."""
    chains = {c.token: c for c in load_crawlers() if c.fallbacks}
    assert {"Googlebot-Image", "Googlebot-News", "Googlebot-Video", "Applebot"} <= set(chains)
    for crawler in chains.values():
        assert crawler.fallbacks == ("Googlebot",)
        assert crawler.fallbacks_source.startswith("https://")
        assert len(crawler.fallbacks_read) == 10


def test_chain_without_source_is_rejected() -> None:
    """A custom table whose chain lacks its source is refused, not silently accepted."""
    bad = b'{"version": "1", "date": "2026-01-01", "crawlers": [{"token": "A", "operator": "x", "categories": ["search"], "fallbacks": {"tokens": ["B"]}}]}'
    with pytest.raises(ValueError, match="source"):
        table_from_json(bad)


def test_audit_uses_the_chain() -> None:
    """audit() judges Googlebot-Image by the googlebot group and says which token it obeys."""
    report = audit(robotskit.parse(b"User-agent: Googlebot\nDisallow: /\n\nUser-agent: *\nAllow: /\n"))
    image = report.get("Googlebot-Image")
    assert image is not None
    assert image.status == "full" and image.obeys == "Googlebot" and not image.own_group
    assert any("obeys the Googlebot group" in note for note in image.notes)
    bing = report.get("Bingbot")
    assert bing is not None and bing.status == "none" and bing.obeys == "*"


def test_chain_without_any_group_and_no_star() -> None:
    """No group names the chain and there is no `*` group: allowed, and the reason claims no `*`."""
    robots = robotskit.parse(b"User-agent: otherbot\nDisallow: /\n")
    decision = robots.decide("https://x.test/a", Agent.crawler("Applebot"))
    assert decision.allowed
    assert decision.reason == "no group applies (no group names applebot nor its fallbacks googlebot)"
