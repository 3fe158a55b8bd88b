"""Every server fault is a fetch outcome with a reason, cached for its TTL: never an exception.

A server controls its status line, its headers and its redirect targets. Whatever it sends,
both clients answer with a Decision, the entry names what went wrong, and a second call within
the TTL reaches no server. Real servers on 127.0.0.1; the request counts are the servers' own.
"""

from __future__ import annotations

import asyncio
import socket
import ssl
from collections.abc import Callable

import pytest

from robotskit.client import AsyncRobotsClient, RobotsClient
from robotskit.errors import ProtocolViolation
from robotskit.fetch import FetchRequest
from robotskit.fetch.http import AsyncHttpFetcher, HttpFetcher
from robotskit.policy.flow import Outcome, PolicyConfig, RobotsEntry

from .conftest import ROBOTS
from .servers.certs import CertPair
from .servers.http_server import HttpScenarioServer, Scenario
from .servers.raw_server import Conn, RawServer, ftp_play, http_play

pytestmark = [pytest.mark.integration, pytest.mark.slow]


def _both(url: str, **kw: object) -> list[tuple[RobotsEntry, RobotsEntry, bool]]:
    """(first entry, second entry, decision for /page) from the sync then the async client."""
    page = url.rsplit("/", 1)[0] + "/page"
    with RobotsClient("MyBot", **kw) as client:  # type: ignore[arg-type]
        sync = (client.lookup(url), client.lookup(url), client.allowed(page))

    async def go() -> tuple[RobotsEntry, RobotsEntry, bool]:
        async with AsyncRobotsClient("MyBot", **kw) as aclient:  # type: ignore[arg-type]
            return await aclient.lookup(url), await aclient.lookup(url), await aclient.allowed(page)

    return [sync, asyncio.run(go())]


def _assert_outcome(
    results: list[tuple[RobotsEntry, RobotsEntry, bool]], outcome: Outcome, words: str
) -> None:
    for first, second, _ in results:
        assert first.outcome is outcome, first
        assert words in f"{first.reason} {' '.join(first.notes)}", first
        assert second == first  # served from the cache: same entry, no new fetch


# --- header values ----------------------------------------------------------------------------


def test_stacked_content_encodings_are_a_bad_response(http_server: HttpScenarioServer) -> None:
    """5000 stacked Content-Encoding values: unreachable ("bad response"), one request per client."""
    coding = ", ".join(["gzip"] * 5000)
    url = http_server.route("/robots.txt", Scenario(200, ROBOTS, (("Content-Encoding", coding),)))
    results = _both(url)
    _assert_outcome(results, Outcome.UNREACHABLE, "bad response")
    assert http_server.hits["/robots.txt"] == 2


def _raw_http(status: bytes, headers: bytes, body: bytes) -> Callable[[Conn], None]:
    """One HTTP response written verbatim: header bytes may be anything, UTF-8 included."""
    length = b"Content-Length: " + str(len(body)).encode() + b"\r\n"
    head = b"HTTP/1.1 " + status + b"\r\n" + headers + length + b"Connection: close\r\n\r\n"
    return http_play([(0.0, head + body)])


NON_ASCII_NUMBERS = ["\u00b2", "\u0661\u0662", "\uff11\uff10", "1\u00b9", "\U0001d7d9"]


@pytest.mark.parametrize("value", NON_ASCII_NUMBERS)
def test_non_ascii_retry_after_is_ignored(raw_servers: Callable[[RawServer], RawServer], value: str) -> None:
    """Retry-After in non-ASCII digits: a plain 503 (backoff as usual), one request per client."""
    play = _raw_http(b"503 Busy", b"Retry-After: " + value.encode() + b"\r\n", b"")
    server = raw_servers(RawServer(play))
    results = _both(server.url())
    _assert_outcome(results, Outcome.UNREACHABLE, "HTTP 503")
    for first, _, allowed in results:
        assert first.retry_after is None and not allowed
    assert len(server.requests) == 2


@pytest.mark.parametrize("value", NON_ASCII_NUMBERS)
def test_non_ascii_max_age_is_ignored(raw_servers: Callable[[RawServer], RawServer], value: str) -> None:
    """max-age in non-ASCII digits: the file is read and cached for the default 24 h."""
    play = _raw_http(b"200 OK", b"Cache-Control: max-age=" + value.encode() + b"\r\n", ROBOTS)
    server = raw_servers(RawServer(play))
    results = _both(server.url())
    _assert_outcome(results, Outcome.OK, "HTTP 200")
    for first, _, _ in results:
        assert first.expires_at - first.fetched_at == 24 * 3600
    assert len(server.requests) == 2


# --- redirect targets -------------------------------------------------------------------------

BAD_TARGETS = {
    "data": "data:text/plain,User-agent: *",
    "javascript": "javascript:alert(1)",
    "mailto": "mailto:webmaster@example.com",
    "ftp CRLF": "ftp://127.0.0.1:1/robots.txt%0d%0aDELE%20x",
    "long gemini": "gemini://127.0.0.1:1/" + "a" * 1100,
    "invalid IDN": "http://\u2603.example/robots.txt",
    "bad IDN label": "http://xn--a.example/robots.txt",
    "bad port": "http://127.0.0.1:99999/robots.txt",
    "unsupported scheme": "file:///etc/passwd",
}


@pytest.mark.parametrize("target", list(BAD_TARGETS))
def test_redirect_to_unusable_target(raw_servers: Callable[[RawServer], RawServer], target: str) -> None:
    """A redirect to a URL robotskit cannot or must not fetch: unreachable with a reason, cached."""
    location = BAD_TARGETS[target].encode()  # UTF-8 on the wire, as a hostile server may send it
    server = raw_servers(RawServer(_raw_http(b"301 Moved", b"Location: " + location + b"\r\n", b"")))
    results = _both(server.url())
    _assert_outcome(results, Outcome.UNREACHABLE, "redirect")
    for _, _, allowed in results:
        assert not allowed
    assert len(server.requests) == 2


# --- FTP transient replies --------------------------------------------------------------------


def _ftp_retr_play(retr_reply: bytes, commands: list[bytes]) -> Callable[[Conn], None]:
    """A minimal FTP server: logs in anyone, opens a passive data port, answers RETR with `retr_reply`."""

    def play(conn: Conn) -> None:
        conn.sock.sendall(b"220 hello\r\n")
        while line := conn.read_until(b"\r\n"):
            commands.append(line)
            verb = line.split(b" ", 1)[0].strip().upper()
            if verb == b"USER":
                conn.sock.sendall(b"331 password please\r\n")
            elif verb == b"PASS":
                conn.sock.sendall(b"230 in\r\n")
            elif verb == b"TYPE":
                conn.sock.sendall(b"200 ok\r\n")
            elif verb == b"PASV":
                data = socket.create_server(("127.0.0.1", 0))
                port = data.getsockname()[1]
                conn.sock.sendall(
                    f"227 Entering Passive Mode (127,0,0,1,{port // 256},{port % 256})\r\n".encode()
                )
                data.settimeout(5)
                accepted, _ = data.accept()
                accepted.close()
                data.close()
            elif verb == b"RETR":
                conn.sock.sendall(retr_reply)
            else:
                conn.sock.sendall(b"221 bye\r\n")
                return

    return play


@pytest.mark.parametrize(
    "reply",
    [
        b"421 Service not available\r\n",
        b"450 File unavailable\r\n",
        b"450 No such file or directory\r\n",
        b"451 Requested action aborted: not found\r\n",
    ],
)
def test_ftp_transient_replies_are_unreachable(
    raw_servers: Callable[[RawServer], RawServer], reply: bytes
) -> None:
    """FTP 421/450/451 are transient (RFC 959 4.2): unreachable whatever the text says."""
    server = raw_servers(RawServer(_ftp_retr_play(reply, [])))
    results = _both(server.url(scheme="ftp"))
    _assert_outcome(results, Outcome.UNREACHABLE, f"FTP {reply[:3].decode()}")


def test_ftp_550_is_still_no_file(raw_servers: Callable[[RawServer], RawServer]) -> None:
    """FTP 550 stays "no file": unavailable, everything allowed."""
    server = raw_servers(RawServer(_ftp_retr_play(b"550 No such file\r\n", [])))
    results = _both(server.url(scheme="ftp"))
    _assert_outcome(results, Outcome.UNAVAILABLE, "FTP 550")
    assert all(allowed for _, _, allowed in results)


# --- credentials and downgrades ---------------------------------------------------------------


def test_location_userinfo_never_sent_over_http(
    http_server: HttpScenarioServer, http_server2: HttpScenarioServer
) -> None:
    """user:password in a Location is dropped: the target gets no Authorization header."""
    http_server2.route("/robots.txt", Scenario(200, ROBOTS))
    target = f"http://bob:secret@{http_server2.authority}/robots.txt"
    url = http_server.redirect("/robots.txt", target)
    results = _both(url)
    _assert_outcome(results, Outcome.OK, "HTTP 200")
    assert http_server2.hits["/robots.txt"] == 2
    for _, path, headers in http_server2.requests:
        assert "authorization" not in headers, (path, headers)
    for first, _, _ in results:
        assert all("bob" not in hop and "secret" not in hop for hop in first.redirects)


def test_first_url_userinfo_never_sent(http_server: HttpScenarioServer) -> None:
    """user:password in the caller's URL never reaches the server either (robots.txt is public)."""
    http_server.route("/robots.txt", Scenario(200, ROBOTS))
    results = _both(f"http://bob:secret@{http_server.authority}/robots.txt")
    _assert_outcome(results, Outcome.OK, "HTTP 200")
    assert all("authorization" not in headers for _, _, headers in http_server.requests)


def test_location_userinfo_never_sent_over_ftp(
    http_server: HttpScenarioServer, raw_servers: Callable[[RawServer], RawServer]
) -> None:
    """A redirect to ftp://bob:secret@host/ logs in as anonymous, never as bob."""
    commands: list[bytes] = []
    ftp = raw_servers(RawServer(_ftp_retr_play(b"550 No such file\r\n", commands)))
    url = http_server.redirect("/robots.txt", f"ftp://bob:secret@127.0.0.1:{ftp.port}/robots.txt")
    _both(url)
    users = [c for c in commands if c.upper().startswith((b"USER", b"PASS"))]
    assert users and all(b"bob" not in c and b"secret" not in c for c in users), users


@pytest.fixture
def trusting(cert: CertPair) -> ssl.SSLContext:
    """An SSL context that trusts the test certificate."""
    return ssl.create_default_context(cafile=str(cert.cert))


def _downgrade(https_url: str, ctx: ssl.SSLContext, policy: PolicyConfig) -> list[RobotsEntry]:
    with (
        HttpFetcher(verify=ctx) as fetcher,
        RobotsClient("MyBot", fetchers={"https": fetcher}, policy=policy) as client,
    ):
        sync = client.lookup(https_url)
        sync_decision = client.decide(https_url.replace("/robots.txt", "/private/x"))

    async def go() -> tuple[RobotsEntry, str]:
        async with (
            AsyncHttpFetcher(verify=ctx) as afetcher,
            AsyncRobotsClient("MyBot", fetchers={"https": afetcher}, policy=policy) as c,
        ):
            entry = await c.lookup(https_url)
            return entry, (await c.decide(https_url.replace("/robots.txt", "/private/x"))).reason

    aentry, areason = asyncio.run(go())
    for reason in (sync_decision.reason, areason):
        assert "https to http" in reason.lower(), reason
    return [sync, aentry]


def test_https_to_http_redirect_refused_by_default(
    https_server: HttpScenarioServer, http_server: HttpScenarioServer, trusting: ssl.SSLContext
) -> None:
    """HTTPS -> HTTP is refused by default: unreachable, the reason says so, the target never asked."""
    http_server.route("/robots.txt", Scenario(200, ROBOTS))
    https_server.redirect("/robots.txt", http_server.url("/robots.txt"))
    for entry in _downgrade(https_server.url("/robots.txt"), trusting, PolicyConfig()):
        assert entry.outcome is Outcome.UNREACHABLE
    assert http_server.hits["/robots.txt"] == 0


def test_https_to_http_redirect_followed_when_allowed(
    https_server: HttpScenarioServer, http_server: HttpScenarioServer, trusting: ssl.SSLContext
) -> None:
    """With follow_https_to_http=True the downgrade is followed and every decision says so."""
    http_server.route("/robots.txt", Scenario(200, ROBOTS))
    https_server.redirect("/robots.txt", http_server.url("/robots.txt"))
    for entry in _downgrade(
        https_server.url("/robots.txt"), trusting, PolicyConfig(follow_https_to_http=True)
    ):
        assert entry.outcome is Outcome.OK
    assert http_server.hits["/robots.txt"] == 2


# --- public_only ------------------------------------------------------------------------------


def test_public_only_refuses_loopback(http_server: HttpScenarioServer) -> None:
    """public_only=True: 127.0.0.1 is never contacted; unreachable, and the reason says why."""
    http_server.route("/robots.txt", Scenario(200, ROBOTS))
    results = _both(http_server.url("/robots.txt"), public_only=True)
    _assert_outcome(results, Outcome.UNREACHABLE, "not public")
    assert http_server.hits["/robots.txt"] == 0


def test_public_only_refuses_loopback_by_name(http_server: HttpScenarioServer) -> None:
    """The check is on the resolved address: `localhost` is refused like 127.0.0.1."""
    http_server.route("/robots.txt", Scenario(200, ROBOTS))
    results = _both(f"http://localhost:{http_server.port}/robots.txt", public_only=True)
    _assert_outcome(results, Outcome.UNREACHABLE, "not public")
    assert http_server.hits["/robots.txt"] == 0


def test_public_only_refuses_ftp_loopback(raw_servers: Callable[[RawServer], RawServer]) -> None:
    """public_only=True covers FTP: the loopback FTP server is never contacted."""
    server = raw_servers(RawServer(_ftp_retr_play(b"550 No such file\r\n", [])))
    results = _both(server.url(scheme="ftp"), public_only=True)
    _assert_outcome(results, Outcome.UNREACHABLE, "not public")
    assert server.connections == 0


def test_default_allows_loopback(http_server: HttpScenarioServer) -> None:
    """Without public_only, loopback servers are fetched as any other."""
    http_server.route("/robots.txt", Scenario(200, ROBOTS))
    _assert_outcome(_both(http_server.url("/robots.txt")), Outcome.OK, "HTTP 200")


def test_caller_supplied_httpx_client_still_never_raises_on_location(
    raw_servers: Callable[[RawServer], RawServer],
) -> None:
    """With the caller's own httpx.Client (which parses Location itself), a hostile Location is
    still a fetch outcome: httpx's own InvalidURL becomes "bad response", never an exception."""
    import httpx

    server = raw_servers(RawServer(_raw_http(b"301 Moved", b"Location: data:text/plain,x\r\n", b"")))
    with httpx.Client() as own, HttpFetcher(client=own) as fetcher:
        with RobotsClient("MyBot", fetchers={"http": fetcher}) as client:
            entry = client.lookup(server.url())
        with pytest.raises(ProtocolViolation):  # the adapter alone: a FetchError the policy maps
            fetcher.fetch(FetchRequest(server.url("/robots.txt")))
    assert entry.outcome is Outcome.UNREACHABLE and entry.reason == "bad response"


def test_public_only_checks_every_hop(
    http_server: HttpScenarioServer, https_server: HttpScenarioServer
) -> None:
    """public_only applies to redirect hops: a hop to a loopback https:// target is refused.

    The first hop goes through a caller-supplied adapter (which allows loopback); the redirect
    target is fetched by the client's own public_only adapter, which must refuse it unasked.
    """
    https_server.route("/robots.txt", Scenario(200, ROBOTS))
    url = http_server.redirect("/robots.txt", https_server.url("/robots.txt"))
    with (
        HttpFetcher() as first_hop,
        RobotsClient("MyBot", public_only=True, fetchers={"http": first_hop}) as c,
    ):
        entry = c.lookup(url)
    assert entry.outcome is Outcome.UNREACHABLE and entry.reason == "address not public", entry
    assert entry.redirects == (https_server.url("/robots.txt"),)
    assert http_server.hits["/robots.txt"] == 1 and https_server.hits["/robots.txt"] == 0


FTP_GARBAGE = {
    "non-UTF-8 banner": b"220 \xff\xfe hello\r\n",
    "banner over 8 KiB": b"220 " + b"a" * 20000 + b"\r\n",
    "no reply code": b"garbage\r\n",
    "reply code 999": b"999 what\r\n",
    "empty line": b"\r\n",
}


@pytest.mark.parametrize("banner", list(FTP_GARBAGE))
def test_ftp_garbage_is_a_bad_response(raw_servers: Callable[[RawServer], RawServer], banner: str) -> None:
    """An FTP server whose banner is not FTP: unreachable ("bad response"), never an exception."""
    server = raw_servers(RawServer(ftp_play([[(0.0, FTP_GARBAGE[banner])]])))
    results = _both(server.url(scheme="ftp"), timeout=2.0)
    _assert_outcome(results, Outcome.UNREACHABLE, "bad response")
