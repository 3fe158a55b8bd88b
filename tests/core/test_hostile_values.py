"""Values a hostile file or a careless caller sends, found by fuzzing the public API: a parse
never raises on content, and a wrong argument type is a TypeError naming it, never an answer."""

from __future__ import annotations

import pytest

import robotskit


def test_a_request_rate_of_thousands_of_digits_is_an_invalid_value_not_a_crash() -> None:
    """int() refuses 4,300 digits or more: every accessor after the first check raised ValueError."""
    body = (
        "User-agent: *\nDisallow: /private\nRequest-rate: " + "9" * 5000 + "/10s\nCrawl-delay: 3\n"
    ).encode()
    robots = robotskit.parse(body)
    assert robots.allowed("https://example.com/private", "Bot") is False
    assert robots.decide("https://example.com/x", "Bot").allowed is True
    assert robots.request_rate("Bot") is None and robots.crawl_delay("Bot") == 3.0
    assert robots.sitemaps == () and robots.diagnostics is not None
    padded = robotskit.parse(b"User-agent: *\nRequest-rate: " + b"0" * 5000 + b"3/10s\n")
    rate = padded.request_rate("Bot")
    assert rate is not None and rate.requests == 3  # leading zeros are still the number


@pytest.mark.parametrize("profile", ["rfc9309", "google", "gemini", None])
def test_allowed_with_no_url_is_a_type_error_for_every_agent(profile: str | None) -> None:
    """A new check's memo held (None, True): `allowed(None, agent)` answered True."""
    robots = robotskit.parse(b"User-agent: *\nDisallow: /\n", profile)
    with pytest.raises(TypeError, match="url"):
        robots.allowed(None, "FirstBot")  # type: ignore[arg-type]
    assert robots.allowed("https://example.com/", "MyBot") is False
    for agent in ("OtherBot", "MyBot"):
        with pytest.raises(TypeError, match="url"):
            robots.allowed(None, agent)  # type: ignore[arg-type]
