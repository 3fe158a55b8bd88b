"""SPEC.md section 6, every row for HTTP(S): status codes, redirects and network errors."""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

import pytest

from robotskit.errors import FetchError, FetchTimeout, ProtocolViolation
from robotskit.policy import Outcome, fetch_flow
from robotskit.testing import http_response

if TYPE_CHECKING:
    from .conftest import Drive


ROBOTS = "https://example.com/robots.txt"
BODY = b"User-agent: *\nDisallow: /private\n"


@pytest.mark.parametrize("status", [200, 203, 204, 206])
def test_2xx_is_ok_and_body_kept(drive: Drive, status: int) -> None:
    """SPEC.md 6 row 1: any HTTP 2xx means the body is parsed and its rules apply."""
    entry, fetcher = drive("https://example.com/page", {ROBOTS: http_response(status, BODY)})
    assert entry.outcome is Outcome.OK
    assert entry.status == status
    assert entry.body == BODY
    assert entry.reason == f"HTTP {status}"
    assert entry.robots is not None
    assert not entry.robots.allowed("https://example.com/private/x", "AnyBot")
    assert fetcher.urls == [ROBOTS]


def test_2xx_any_mime_type_is_parsed(drive: Drive) -> None:
    """SPEC.md 6 row 1: the MIME type does not matter (text/html, octet-stream ...)."""
    response = http_response(200, BODY, headers={"Content-Type": "text/html; charset=latin-1"})
    entry, _ = drive("https://example.com/", {ROBOTS: response})
    assert entry.outcome is Outcome.OK
    assert entry.robots is not None
    assert not entry.robots.allowed("/private", "x")


def test_request_carries_user_agent_timeout_and_limit(clock) -> None:  # type: ignore[no-untyped-def]
    """SPEC.md 6: the request goes to /robots.txt of the authority with the caller's settings."""
    flow = fetch_flow(
        "https://Example.com:443/a/b?c", clock=clock, user_agent="MyBot/2.0", timeout=3.5, max_bytes=600_000
    )
    request = next(flow)
    assert (request.url, request.user_agent, request.timeout, request.max_bytes) == (
        ROBOTS,
        "MyBot/2.0",
        3.5,
        600_000,
    )


def test_truncated_body_is_recorded_and_partial_line_dropped(drive: Drive) -> None:
    """SPEC.md 6 / 2: a body cut at max_bytes is marked truncated; the cut last line is ignored."""
    body = b"User-agent: *\nDisallow: /a\nDisallow: /b"  # the adapter cut inside the last line
    entry, _ = drive("https://example.com/", {ROBOTS: http_response(200, body, truncated=True)})
    assert entry.truncated
    assert entry.size == len(body)
    assert any("size limit" in n for n in entry.notes)
    assert entry.robots is not None
    assert not entry.robots.allowed("/a", "x")
    assert entry.robots.allowed("/b", "x")  # the partial line was dropped


@pytest.mark.parametrize("status", [400, 401, 403, 404, 405, 410, 451, 499])
def test_4xx_is_unavailable(drive: Drive, status: int) -> None:
    """SPEC.md 6 row 3 / RFC 9309 2.3.1.3: 4xx other than 429, 401 and 403 included: allow all."""
    entry, _ = drive("https://example.com/", {ROBOTS: http_response(status, b"<html>denied</html>")})
    assert entry.outcome is Outcome.UNAVAILABLE
    assert entry.status == status
    assert entry.body == b""
    assert entry.robots is None


@pytest.mark.parametrize("status", [429, 500, 502, 503, 504, 599])
def test_5xx_and_429_are_unreachable(drive: Drive, status: int) -> None:
    """SPEC.md 6 row 4 / RFC 9309 2.3.1.4: 5xx and 429 mean complete disallow."""
    entry, _ = drive("https://example.com/", {ROBOTS: http_response(status, BODY)})
    assert entry.outcome is Outcome.UNREACHABLE
    assert entry.reason == f"HTTP {status}"
    assert not entry.stale
    assert entry.robots is None  # the error page's body is never taken as rules


@pytest.mark.parametrize("status", [100, 199, 300, 304, 600, 999])
def test_odd_statuses_are_bad_responses(drive: Drive, status: int) -> None:
    """SPEC.md 6 row 4: a final 1xx, a 3xx without Location or a code past 599 is unreachable."""
    entry, _ = drive("https://example.com/", {ROBOTS: http_response(status)})
    assert entry.outcome is Outcome.UNREACHABLE
    assert entry.notes


@pytest.mark.parametrize(
    "error",
    [
        FetchTimeout("read timed out", url=ROBOTS),
        FetchError("name not resolved", url=ROBOTS, kind="dns"),
        FetchError("certificate verify failed", url=ROBOTS, kind="tls"),
        FetchError("connection reset by peer", url=ROBOTS, kind="reset"),
        FetchError("connection refused", url=ROBOTS, kind="refused"),
        ProtocolViolation("bad status line", url=ROBOTS),
    ],
    ids=lambda e: e.kind,
)
def test_network_errors_are_unreachable(drive: Drive, error: FetchError) -> None:
    """SPEC.md 6 row 4: timeouts, DNS, TLS, resets and bad responses are unreachable."""
    entry, _ = drive("https://example.com/", {ROBOTS: error})
    assert entry.outcome is Outcome.UNREACHABLE
    assert entry.status is None
    assert entry.reason == ("bad response" if error.kind == "protocol" else error.kind)
    assert str(error) in entry.notes


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_redirect_followed_across_hosts(drive: Drive, status: int) -> None:
    """SPEC.md 6 row 2 / RFC 9309 2.3.1.2: redirects are followed, to another host too."""
    target = "https://cdn.example.net/robots.txt"
    script = {ROBOTS: http_response(status, headers={"Location": target}), target: http_response(200, BODY)}
    entry, fetcher = drive("https://example.com/x", script)
    assert fetcher.urls == [ROBOTS, target]
    assert entry.outcome is Outcome.OK
    assert entry.redirects == (target,)
    assert entry.final_url == target
    # SPEC.md 6: the rules apply to the original authority.
    assert entry.authority == "https://example.com"
    assert entry.robots_url == ROBOTS


def test_relative_location_resolved(drive: Drive) -> None:
    """SPEC.md 6 row 2: a relative Location is resolved against the URL that answered."""
    script = {
        ROBOTS: http_response(301, headers={"Location": "/static/robots.txt"}),
        "https://example.com/static/robots.txt": http_response(302, headers={"Location": "r2.txt"}),
        "https://example.com/static/r2.txt": http_response(200, BODY),
    }
    entry, fetcher = drive("https://example.com/", script)
    assert fetcher.urls == [
        ROBOTS,
        "https://example.com/static/robots.txt",
        "https://example.com/static/r2.txt",
    ]
    assert entry.outcome is Outcome.OK


def _chain(hops: int, final_status: int = 200) -> dict[str, object]:
    urls = [ROBOTS] + [f"https://h{i}.example/robots.txt" for i in range(1, hops + 1)]
    script: dict[str, object] = {
        here: http_response(301, headers={"Location": there}) for here, there in itertools.pairwise(urls)
    }
    script[urls[-1]] = http_response(final_status, BODY)
    return script


def test_five_redirects_are_followed(drive: Drive) -> None:
    """SPEC.md 6 row 2 / RFC 9309 2.3.1.2: five consecutive redirects still reach the file."""
    entry, fetcher = drive("https://example.com/", _chain(5))  # type: ignore[arg-type]
    assert entry.outcome is Outcome.OK
    assert len(entry.redirects) == 5
    assert fetcher.count() == 6


def test_sixth_redirect_is_unavailable(drive: Drive) -> None:
    """SPEC.md 6 row 2: more than five hops is handled as a 404 (unavailable), without a 7th request."""
    entry, fetcher = drive("https://example.com/", _chain(6))  # type: ignore[arg-type]
    assert entry.outcome is Outcome.UNAVAILABLE
    assert fetcher.count() == 6
    assert any("more than 5 redirects" in n for n in entry.notes)


def test_redirect_chain_ending_in_503_is_unreachable(drive: Drive) -> None:
    """SPEC.md 6 row 2: a redirect is cached "as the final outcome", whatever that is."""
    entry, _ = drive("https://example.com/", _chain(2, final_status=503))  # type: ignore[arg-type]
    assert entry.outcome is Outcome.UNREACHABLE
    assert len(entry.redirects) == 2


def test_redirect_loop_detected(drive: Drive) -> None:
    """SPEC.md 6 row 2: a loop is caught at once (no five wasted requests) and is unavailable."""
    other = "https://www.example.com/robots.txt"
    script = {
        ROBOTS: http_response(301, headers={"Location": other}),
        other: http_response(301, headers={"Location": ROBOTS}),
    }
    entry, fetcher = drive("https://example.com/", script)
    assert entry.outcome is Outcome.UNAVAILABLE
    assert fetcher.count() == 2
    assert any("loop" in n for n in entry.notes)


def test_self_redirect_is_a_loop(drive: Drive) -> None:
    """SPEC.md 6 row 2: a robots.txt redirecting to itself is a loop after one request."""
    entry, fetcher = drive("https://example.com/", {ROBOTS: http_response(302, headers={"Location": ROBOTS})})
    assert entry.outcome is Outcome.UNAVAILABLE
    assert fetcher.count() == 1


@pytest.mark.parametrize("location", ["", "mailto:x@example.com", "http:///nohost"])
def test_unusable_redirect_target_is_unreachable(drive: Drive, location: str) -> None:
    """SPEC.md 6 row 4: a redirect with no usable target is a bad response."""
    headers = {"Location": location} if location else {}
    entry, fetcher = drive("https://example.com/", {ROBOTS: http_response(301, headers=headers)})
    assert entry.outcome is Outcome.UNREACHABLE
    assert fetcher.count() == 1


def test_network_error_after_redirect_keeps_history(drive: Drive) -> None:
    """SPEC.md 6 rows 2 and 4: an error on a redirect target is unreachable, hops recorded."""
    target = "https://cdn.example.net/robots.txt"
    script = {
        ROBOTS: http_response(301, headers={"Location": target}),
        target: FetchTimeout("slow", url=target),
    }
    entry, _ = drive("https://example.com/", script)
    assert entry.outcome is Outcome.UNREACHABLE
    assert entry.redirects == (target,)
    assert entry.reason == "timeout"
