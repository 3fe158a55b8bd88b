"""What the policy reads from server-written numbers and redirect targets (sans-IO vectors)."""

from __future__ import annotations

import socket

import pytest

from robotskit.client import AsyncRobotsClient, RobotsClient
from robotskit.errors import FetchError, InvalidArgument, InvalidURL
from robotskit.fetch import FetchRequest, FetchResponse
from robotskit.fetch._addresses import addresses_of, check_public, is_public, resolve
from robotskit.policy.classify import parse_max_age, parse_retry_after, redirect_target
from robotskit.policy.flow import Outcome, PolicyConfig, downgraded
from robotskit.testing import FrozenClock, MockFetcher, http_response

NOW = 1_767_225_600.0

# (header value, seconds or None): only ASCII digits are numbers.
RETRY_AFTER = [
    ("120", 120.0),
    (" 7 ", 7.0),
    ("\u00b2", None),  # superscript two: str.isdigit() says yes, float() raises
    ("1\u00b9", None),
    ("\u0661\u0662", None),  # Arabic-Indic digits: float() would read 12
    ("\uff11\uff10", None),  # full-width digits
    ("\U0001d7d9", None),  # mathematical double-struck one
    ("-5", None),
    ("1e3", None),
    ("Wed, 21 Oct 2015 07:28:00 GMT", 0.0),  # a date in the past: no wait
    ("Wed, 21 Oct 99999 07:28:00 GMT", None),
    ("Mon, 01 Jan 0001 00:00:00 +9999", None),
    ("\u0661 Jan 2030", None),
]


@pytest.mark.parametrize(("value", "expected"), RETRY_AFTER)
def test_retry_after_reads_ascii_digits_only(value: str, expected: float | None) -> None:
    """Retry-After: ASCII delay-seconds or an HTTP-date; anything else is ignored, never raises."""
    assert parse_retry_after(value, NOW) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("max-age=600", 600.0),
        ('max-age="60"', 60.0),
        ("max-age=\u00b2", None),
        ("max-age=\u0661\u0662", None),
        ("max-age=\uff11", None),
        ("no-store", 0.0),
        ("max-age=", None),
    ],
)
def test_max_age_reads_ascii_digits_only(value: str, expected: float | None) -> None:
    """Cache-Control max-age: ASCII digits only; anything else is no max-age, never raises."""
    assert parse_max_age(value) == expected


BASE = "https://example.com/robots.txt"


@pytest.mark.parametrize(
    ("location", "target"),
    [
        ("/other.txt", "https://example.com/other.txt"),
        ("https://bob:secret@cdn.example/r.txt", "https://cdn.example/r.txt"),
        ("https://bob@cdn.example:8443/r.txt#frag", "https://cdn.example:8443/r.txt"),
        ("ftp://bob:pw@ftp.example/robots.txt", "ftp://ftp.example/robots.txt"),
        ("gemini://g.example/" + "a" * 900, "gemini://g.example/" + "a" * 900),
    ],
)
def test_redirect_target_drops_userinfo_and_fragment(location: str, target: str) -> None:
    """Userinfo is never carried to a redirect target; neither is the fragment."""
    assert redirect_target(BASE, location) == (target, "")


@pytest.mark.parametrize(
    ("location", "why"),
    [
        ("", "without a Location"),
        ("data:text/plain,User-agent: *", "unusable target"),
        ("javascript:alert(1)", "unusable target"),
        ("mailto:root@example.com", "unusable target"),
        ("file:///etc/passwd", "unusable target"),
        ("http://127.0.0.1:99999/", "unusable target"),
        ("http://[::1/", "unusable target"),
        ("ftp://ftp.example/robots.txt%0d%0aDELE%20x", "line break"),
        ("ftp://ftp.example/a%0Ab", "line break"),
        ("gemini://g.example/" + "a" * 1100, "over 1024 bytes"),
    ],
)
def test_redirect_target_refuses_unusable_targets(location: str, why: str) -> None:
    """Targets robotskit cannot or must not fetch are refused with a reason, never raised."""
    target, problem = redirect_target(BASE, location)
    assert target is None and why in problem


@pytest.mark.parametrize(
    ("address", "public"),
    [
        ("93.184.215.14", True),
        ("2606:2800:21f:cb07:6820:80da:af6b:8b2c", True),
        ("127.0.0.1", False),
        ("10.1.2.3", False),
        ("172.16.0.1", False),
        ("192.168.1.1", False),
        ("169.254.169.254", False),
        ("100.64.0.1", False),
        ("0.0.0.0", False),
        ("224.0.0.1", False),
        ("239.255.255.250", False),
        ("255.255.255.255", False),
        ("::1", False),
        ("fe80::1%eth0", False),
        ("fc00::1", False),
        ("ff02::1", False),
        ("::ffff:127.0.0.1", False),
        ("::", False),
    ],
)
def test_is_public(address: str, public: bool) -> None:
    """Loopback, private, link-local, shared, multicast, reserved and unspecified are not public."""
    assert is_public(address) is public


def _info(address: str) -> tuple[object, ...]:
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    return (family, socket.SOCK_STREAM, 6, "", (address, 80))


def test_check_public_refuses_any_private_answer() -> None:
    """One private address among public ones refuses the host: the answer could steer either way."""
    answer = addresses_of([_info("93.184.215.14"), _info("2606:2800:21f:cb07:6820:80da:af6b:8b2c")])
    assert check_public("a.example", answer) == answer
    with pytest.raises(FetchError) as caught:
        check_public("a.example", addresses_of([_info("93.184.215.14"), _info("10.0.0.1")]))
    assert caught.value.kind == "not-public" and "10.0.0.1" in str(caught.value)


def test_resolve_answers_ip_literals_and_localhost() -> None:
    """An IP literal is its own answer; a name goes to the resolver (here: localhost)."""
    assert resolve("127.0.0.1", 80, 1.0) == ["127.0.0.1"]
    assert resolve("::1", 80, 1.0) == ["::1"]
    assert "127.0.0.1" in resolve("localhost", 80, 5.0)


@pytest.mark.parametrize("timeout", [float("nan"), float("inf"), -float("inf"), 0.0, -1.0])
def test_client_timeout_must_be_finite_and_positive(timeout: float) -> None:
    """A caller error: NaN, infinite or non-positive timeouts raise InvalidArgument at construction."""
    for cls in (RobotsClient, AsyncRobotsClient):
        with pytest.raises(InvalidArgument):
            cls("MyBot", timeout=timeout)


# --- the flow: downgrades and targets an adapter refuses (sans-IO, scripted fetcher) -----------

ROBOTS_HTTPS = "https://example.com/robots.txt"


def _redirect_to(location: str) -> dict[str, FetchResponse]:
    return {ROBOTS_HTTPS: http_response(301, headers={"Location": location})}


def test_https_to_http_refused_by_default() -> None:
    """An https:// robots.txt redirecting to http:// is refused: unreachable, the target never asked."""
    fetcher = MockFetcher(
        {
            **_redirect_to("http://example.com/robots.txt"),
            "http://example.com/robots.txt": http_response(200, ""),
        }
    )
    client = RobotsClient("MyBot", fetchers={"https": fetcher, "http": fetcher}, clock=FrozenClock())
    decision = client.decide("https://example.com/page")
    assert not decision.allowed
    assert decision.reason == "robots.txt unreachable (HTTP 301: HTTPS to HTTP redirect refused)"
    assert fetcher.count() == 1


def test_https_to_http_followed_when_configured() -> None:
    """follow_https_to_http=True follows the downgrade, and the decision's reason says so."""
    script = {
        **_redirect_to("http://example.com/robots.txt"),
        "http://example.com/robots.txt": http_response(200, "User-agent: *\nDisallow: /p\n"),
    }
    fetcher = MockFetcher(script)
    policy = PolicyConfig(follow_https_to_http=True)
    client = RobotsClient(
        "MyBot", fetchers={"https": fetcher, "http": fetcher}, clock=FrozenClock(), policy=policy
    )
    decision = client.decide("https://example.com/p")
    assert not decision.allowed
    assert decision.reason.endswith("(robots.txt was reached through an HTTPS to HTTP redirect)")
    assert downgraded(client.lookup("https://example.com/"))


class _RefusingTarget:
    """An adapter that refuses every URL it is given, as one refuses a URL it cannot encode."""

    def fetch(self, request: FetchRequest) -> FetchResponse:
        raise InvalidURL(f"cannot fetch {request.url!r}", request.url)


def test_adapter_refusing_a_redirect_target_is_an_outcome() -> None:
    """InvalidURL for a redirect target is the server's fault: unreachable, "bad redirect target"."""
    fetcher = MockFetcher(_redirect_to("gemini://g.example/robots.txt"))
    client = RobotsClient(
        "MyBot", fetchers={"https": fetcher, "gemini": _RefusingTarget()}, clock=FrozenClock()
    )
    entry = client.lookup("https://example.com/")
    assert entry.outcome is Outcome.UNREACHABLE and entry.reason == "bad redirect target"
    assert client.lookup("https://example.com/") == entry and fetcher.count() == 1  # cached


def test_adapter_refusing_the_callers_url_raises() -> None:
    """InvalidURL for the caller's own URL (the first request) is the caller's error: raised."""
    client = RobotsClient("MyBot", fetchers={"gemini": _RefusingTarget()}, clock=FrozenClock())
    with pytest.raises(InvalidURL):
        client.lookup("gemini://g.example/")
