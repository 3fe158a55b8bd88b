"""SPEC.md section 6, last row: the last good copy while unreachable, and the 30-day window."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from robotskit.errors import FetchTimeout
from robotskit.policy import Outcome, decide
from robotskit.testing import FrozenClock, http_response

if TYPE_CHECKING:
    from .conftest import Drive


ROBOTS = "https://example.com/robots.txt"
BODY = b"User-agent: *\nDisallow: /private\n"
DAY = 86400.0


@pytest.fixture
def good(drive: Drive):  # type: ignore[no-untyped-def]
    """A good copy fetched at the clock's start."""
    entry, _ = drive("https://example.com/", {ROBOTS: http_response(200, BODY)})
    return entry


@pytest.mark.parametrize(
    "failure", [http_response(503), http_response(429), FetchTimeout("slow", url=ROBOTS)]
)
def test_unreachable_with_good_copy_uses_it(drive: Drive, clock: FrozenClock, good, failure) -> None:  # type: ignore[no-untyped-def]
    """SPEC.md 6 row 5: unreachable with a copy under 30 days old: the copy applies, marked stale."""
    clock.advance(2 * DAY)
    entry, _ = drive("https://example.com/", {ROBOTS: failure}, previous=good)
    assert entry.outcome is Outcome.UNREACHABLE
    assert entry.stale
    assert entry.body == BODY
    assert entry.good_at == good.fetched_at
    assert entry.fetched_at == clock()
    assert entry.expires_at - entry.fetched_at == 60  # still retried soon
    assert entry.robots is not None
    blocked = decide(entry, "https://example.com/private/x", "bot")
    open_ = decide(entry, "https://example.com/public", "bot")
    assert not blocked.allowed
    assert open_.allowed  # not "disallow all": the copy's rules decide
    assert blocked.reason == "stale copy from 2026-01-01T00:00:00Z: matched disallow rule"
    assert "robots.txt unreachable" in blocked.source


def test_stale_copy_kept_across_repeated_failures(drive: Drive, clock: FrozenClock, good) -> None:  # type: ignore[no-untyped-def]
    """SPEC.md 6 row 5: each further failure keeps the same copy and its original fetch time."""
    entry = good
    for _ in range(5):
        clock.advance(DAY)
        entry, _ = drive("https://example.com/", {ROBOTS: http_response(500)}, previous=entry)
    assert entry.stale
    assert entry.good_at == good.fetched_at
    assert entry.failures == 5


def test_copy_older_than_30_days_is_unavailable(drive: Drive, clock: FrozenClock, good) -> None:  # type: ignore[no-untyped-def]
    """SPEC.md 6 row 5: after 30 days since the copy was fetched, act as unavailable (allow all)."""
    clock.advance(31 * DAY)
    entry, _ = drive("https://example.com/", {ROBOTS: http_response(503)}, previous=good)
    assert entry.outcome is Outcome.UNAVAILABLE
    assert not entry.stale
    assert entry.body == b""
    assert entry.expires_at - entry.fetched_at <= 3600  # but retried soon, the server is still failing
    decision = decide(entry, "https://example.com/private", "bot")
    assert decision.allowed
    assert decision.reason == "robots.txt unavailable (HTTP 503 for over 30 days): everything allowed"


def test_stale_window_edge(drive: Drive, clock: FrozenClock, good) -> None:  # type: ignore[no-untyped-def]
    """SPEC.md 6 row 5: a copy exactly 30 days old still stands in; one second more does not."""
    clock.advance(30 * DAY)
    at_edge, _ = drive("https://example.com/", {ROBOTS: http_response(503)}, previous=good)
    assert at_edge.stale
    clock.advance(1)
    past, _ = drive("https://example.com/", {ROBOTS: http_response(503)}, previous=at_edge)
    assert past.outcome is Outcome.UNAVAILABLE


def test_stale_becomes_unavailable_and_stays(drive: Drive, clock: FrozenClock, good) -> None:  # type: ignore[no-untyped-def]
    """SPEC.md 6 row 5: once past 30 days, further failures stay unavailable (no flip back to disallow)."""
    entry = good
    outcomes = []
    for _ in range(40):
        clock.advance(DAY)
        entry, _ = drive("https://example.com/", {ROBOTS: http_response(503)}, previous=entry)
        outcomes.append(entry.outcome)
    assert outcomes[:30] == [Outcome.UNREACHABLE] * 30
    assert outcomes[30:] == [Outcome.UNAVAILABLE] * 10


def test_unreachable_without_copy_disallows(drive: Drive) -> None:
    """SPEC.md 6 row 4: with no good copy, unreachable means everything is disallowed."""
    entry, _ = drive("https://example.com/", {ROBOTS: http_response(503)})
    assert not entry.stale
    decision = decide(entry, "https://example.com/anything", "bot")
    assert not decision.allowed
    assert decision.reason == "robots.txt unreachable (HTTP 503)"


def test_unreachable_for_30_days_without_copy_is_unavailable(drive: Drive, clock: FrozenClock) -> None:
    """RFC 9309 2.3.1.4 (SPEC.md 6): unreachable for over 30 days, never a copy: act as unavailable."""
    entry, _ = drive("https://example.com/", {ROBOTS: http_response(503)})
    start = entry.outage_since
    clock.advance(29 * DAY)
    entry, _ = drive("https://example.com/", {ROBOTS: http_response(503)}, previous=entry)
    assert entry.outcome is Outcome.UNREACHABLE
    assert entry.outage_since == start
    clock.advance(2 * DAY)
    entry, _ = drive("https://example.com/", {ROBOTS: http_response(503)}, previous=entry)
    assert entry.outcome is Outcome.UNAVAILABLE


def test_404_drops_the_good_copy(drive: Drive, clock: FrozenClock, good) -> None:  # type: ignore[no-untyped-def]
    """SPEC.md 6 row 3: once the file is gone (404), an older copy never comes back as stale."""
    clock.advance(DAY)
    gone, _ = drive("https://example.com/", {ROBOTS: http_response(404)}, previous=good)
    clock.advance(DAY)
    failing, _ = drive("https://example.com/", {ROBOTS: http_response(503)}, previous=gone)
    assert gone.outcome is Outcome.UNAVAILABLE
    assert not failing.stale
    assert failing.outcome is Outcome.UNREACHABLE
