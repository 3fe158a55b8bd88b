"""SPEC.md section 7: decisions name the fetch outcome in `reason` and `source`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from robotskit.agents import Agent
from robotskit.core import model as _model
from robotskit.policy import decide
from robotskit.testing import gemini_response, http_response

if TYPE_CHECKING:
    from .conftest import Drive


ROBOTS = "https://example.com/robots.txt"


def test_ok_decision_keeps_core_reason_and_names_source(drive: Drive) -> None:
    """SPEC.md 7: a fetched file decides by its rules; `source` says how and when it was fetched."""
    entry, _ = drive("https://example.com/", {ROBOTS: http_response(200, b"User-agent: *\nDisallow: /a\n")})
    decision = decide(entry, "https://example.com/a/b", "MyBot")
    assert isinstance(decision, _model.Decision)
    assert not decision
    assert decision.reason == "matched disallow rule"
    assert decision.rule is not None and decision.rule.line == 2
    assert decision.source == "robots.txt HTTP 200 fetched 2026-01-01T00:00:00Z"


def test_unavailable_decision_reason(drive: Drive) -> None:
    """SPEC.md 7: "robots.txt unavailable (HTTP 404): everything allowed"."""
    entry, _ = drive("https://example.com/", {ROBOTS: http_response(404)})
    decision = decide(entry, "https://example.com/admin", "MyBot")
    assert decision.allowed
    assert decision.rule is None
    assert decision.reason == "robots.txt unavailable (HTTP 404): everything allowed"
    assert decision.profile == "rfc9309"


def test_unreachable_decision_reason(drive: Drive) -> None:
    """SPEC.md 7: "robots.txt unreachable (HTTP 503)" and disallowed."""
    entry, _ = drive("https://example.com/", {ROBOTS: http_response(503)})
    decision = decide(entry, "https://example.com/", "MyBot")
    assert not decision.allowed
    assert decision.reason == "robots.txt unreachable (HTTP 503)"


def test_unreachable_still_allows_robots_txt_itself(drive: Drive) -> None:
    """RFC 9309 2.2.2: /robots.txt stays allowed while unreachable (else it could never be retried)."""
    entry, _ = drive("https://example.com/", {ROBOTS: http_response(503)})
    assert decide(entry, ROBOTS, "MyBot").reason == "implicitly allowed /robots.txt"
    assert not decide(entry, ROBOTS, "MyBot", profile="google").allowed


def test_decisions_are_per_agent_on_one_entry(drive: Drive) -> None:
    """SPEC.md 6: one cached copy per authority; decisions are computed per agent."""
    body = b"User-agent: MyBot\nDisallow: /\n\nUser-agent: *\nAllow: /\n"
    entry, _ = drive("https://example.com/", {ROBOTS: http_response(200, body)})
    assert not decide(entry, "https://example.com/x", "MyBot").allowed
    assert decide(entry, "https://example.com/x", "OtherBot").allowed


def test_profile_by_scheme_for_gemini(drive: Drive) -> None:
    """SPEC.md 1: with no profile, gemini:// URLs are judged in the gemini profile (purposes apply)."""
    body = b"User-agent: archiver\nDisallow: /\n"
    gem = "gemini://gem.example/robots.txt"
    entry, _ = drive("gemini://gem.example/", {gem: gemini_response(20, "text/gemini", body)})
    archiver = Agent("MyBot", purposes=["archiver"])
    indexer = Agent("MyBot", purposes=["indexer"])
    assert decide(entry, "gemini://gem.example/log", archiver).profile == "gemini"
    assert not decide(entry, "gemini://gem.example/log", archiver).allowed
    assert decide(entry, "gemini://gem.example/log", indexer).allowed
