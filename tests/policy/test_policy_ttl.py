"""SPEC.md section 6, column "cached for": max-age clamping, fixed TTLs, backoff, Retry-After."""

from __future__ import annotations

from email.utils import formatdate
from typing import TYPE_CHECKING

import pytest

from robotskit.policy import Outcome, parse_max_age, parse_retry_after
from robotskit.testing import FrozenClock, ftp_response, gemini_response, http_response

if TYPE_CHECKING:
    from .conftest import Drive


ROBOTS = "https://example.com/robots.txt"
HOUR, DAY = 3600.0, 86400.0


@pytest.mark.parametrize(
    ("cache_control", "ttl"),
    [
        (None, DAY),  # no header: 24 h
        ("max-age=7200", 7200.0),  # inside the range: as given
        ("public, max-age=43200", 43200.0),
        ("max-age=60", HOUR),  # below: clamped up to 1 h
        ("max-age=0", HOUR),
        ("no-cache", HOUR),
        ("no-store", HOUR),
        ("max-age=604800", DAY),  # above: clamped down to 24 h (RFC 9309 2.4)
        ('max-age="5400"', 5400.0),
        ("max-age=abc", DAY),  # unreadable: as if absent
    ],
)
def test_http_ok_ttl_from_max_age(
    drive: Drive, clock: FrozenClock, cache_control: str | None, ttl: float
) -> None:
    """SPEC.md 6 row 1: Cache-Control max-age clamped to [1 h, 24 h]; 24 h without it."""
    headers = {"Cache-Control": cache_control} if cache_control else {}
    entry, _ = drive("https://example.com/", {ROBOTS: http_response(200, b"", headers=headers)})
    assert entry.fetched_at == clock()
    assert entry.expires_at - entry.fetched_at == ttl


def test_gemini_and_ftp_ok_ttl_24h(drive: Drive) -> None:
    """SPEC.md 6 row 1: Gemini and FTP files are kept 24 h."""
    gem, _ = drive(
        "gemini://g.example/", {"gemini://g.example/robots.txt": gemini_response(20, "text/gemini")}
    )
    ftp, _ = drive("ftp://f.example/", {"ftp://f.example/robots.txt": ftp_response(226)})
    assert gem.expires_at - gem.fetched_at == DAY
    assert ftp.expires_at - ftp.fetched_at == DAY


def test_unavailable_ttl_24h(drive: Drive) -> None:
    """SPEC.md 6 row 3: an unavailable verdict is cached 24 h (a max-age on the 404 does not matter)."""
    response = http_response(404, headers={"Cache-Control": "max-age=60"})
    entry, _ = drive("https://example.com/", {ROBOTS: response})
    assert entry.expires_at - entry.fetched_at == DAY


def test_unreachable_backoff_doubles_to_one_hour(drive: Drive, clock: FrozenClock) -> None:
    """SPEC.md 6 row 4: unreachable is cached minutes, 1 min doubling, capped at 1 h, never 24 h."""
    previous = None
    ttls = []
    for _ in range(9):
        previous, _ = drive("https://example.com/", {ROBOTS: http_response(503)}, previous=previous)
        ttls.append(previous.expires_at - previous.fetched_at)
        clock.advance(ttls[-1])
    assert ttls == [60, 120, 240, 480, 960, 1920, 3600, 3600, 3600]
    assert previous is not None
    assert previous.failures == 9


def test_success_resets_backoff(drive: Drive) -> None:
    """SPEC.md 6 row 4: the backoff counts consecutive failures only."""
    failed, _ = drive("https://example.com/", {ROBOTS: http_response(503)})
    failed, _ = drive("https://example.com/", {ROBOTS: http_response(503)}, previous=failed)
    ok, _ = drive("https://example.com/", {ROBOTS: http_response(200)}, previous=failed)
    again, _ = drive("https://example.com/", {ROBOTS: http_response(503)}, previous=ok)
    assert (failed.failures, ok.failures, again.failures) == (2, 0, 1)
    assert again.expires_at - again.fetched_at == 60


@pytest.mark.parametrize(
    ("retry_after", "ttl"), [("600", 600.0), ("30", 60.0), ("86400", HOUR), ("soon", 60.0)]
)
def test_retry_after_seconds_honoured(drive: Drive, retry_after: str, ttl: float) -> None:
    """SPEC.md 6 row 4: Retry-After (seconds) sets the retry time, within [backoff, 1 h]."""
    response = http_response(503, headers={"Retry-After": retry_after})
    entry, _ = drive("https://example.com/", {ROBOTS: response})
    assert entry.expires_at - entry.fetched_at == ttl


def test_retry_after_http_date_honoured(drive: Drive, clock: FrozenClock) -> None:
    """SPEC.md 6 row 4: Retry-After as an HTTP-date is measured against the injected clock."""
    when = formatdate(clock() + 900, usegmt=True)
    entry, _ = drive("https://example.com/", {ROBOTS: http_response(429, headers={"Retry-After": when})})
    assert entry.outcome is Outcome.UNREACHABLE
    assert entry.retry_after == 900.0
    assert entry.expires_at == clock() + 900


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        ("120", 120.0),
        (" 5 ", 5.0),
        ("", None),
        ("-5", None),
        ("1.5", None),
        ("Wed, 21 Oct 2015 07:28:00 GMT", 0.0),
    ],
)
def test_parse_retry_after(value: str, seconds: float | None) -> None:
    """RFC 9110 10.2.3: delay-seconds or an HTTP-date; a date in the past means now."""
    assert parse_retry_after(value, now=1_767_225_600.0) == seconds


def test_parse_max_age_first_valid_directive() -> None:
    """RFC 9111 5.2.2.1: max-age is read from a comma-separated directive list, case-insensitively."""
    assert parse_max_age("private, MAX-AGE=300, must-revalidate") == 300.0
    assert parse_max_age("s-maxage=10") is None


def test_policy_reads_only_the_injected_clock(drive: Drive, monkeypatch: pytest.MonkeyPatch) -> None:
    """STYLE.md sans-IO: the policy never calls time.time(); every time comes from the clock."""
    import time

    def forbidden() -> float:
        raise AssertionError("policy called time.time()")

    monkeypatch.setattr(time, "time", forbidden)
    date = "Thu, 01 Jan 2026 00:10:00 GMT"
    entry, _ = drive("https://example.com/", {ROBOTS: http_response(503, headers={"Retry-After": date})})
    assert entry.retry_after == 600.0
    ok, _ = drive("https://example.com/", {ROBOTS: http_response(200, b"User-agent: *\nDisallow: /")})
    assert ok.fetched_at == 1_767_225_600.0
