"""HttpFetcher / AsyncHttpFetcher against a real scripted HTTP server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import gzip
import ssl
import time
import zlib
from collections.abc import Callable

import httpx
import pytest

from robotskit.errors import FetchError, FetchTimeout, InvalidURL
from robotskit.fetch import FetchRequest, FetchResponse
from robotskit.fetch.http import AsyncHttpFetcher, HttpFetcher, _BoundedDecoder, _map_error

from .servers.certs import CertPair
from .servers.gemini_server import free_port
from .servers.http_server import HTML_404, HttpScenarioServer, Scenario

pytestmark = pytest.mark.integration

ROBOTS = b"User-agent: *\nDisallow: /private/\n"
UA = "MyBot/1.0 (+https://example.org/bot)"


def fetch(url: str, **kw: object) -> FetchResponse:
    with HttpFetcher(trust_env=False) as f:
        return f.fetch(FetchRequest(url, user_agent=UA, **kw))  # type: ignore[arg-type]


def afetch(url: str, **kw: object) -> FetchResponse:
    async def go() -> FetchResponse:
        async with AsyncHttpFetcher(trust_env=False) as f:
            return await f.fetch(FetchRequest(url, user_agent=UA, **kw))  # type: ignore[arg-type]

    return asyncio.run(go())


Getter = Callable[..., FetchResponse]
BOTH = pytest.mark.parametrize("get", [fetch, afetch], ids=["sync", "async"])


@BOTH
def test_200_body_headers_and_user_agent(http_server: HttpScenarioServer, get: Getter) -> None:
    """A 200 returns the exact body, lower-cased header names, and the server saw the caller's User-Agent."""
    url = http_server.route(
        "/robots.txt", Scenario(200, ROBOTS, (("Content-Type", "text/plain"), ("X-Thing", "a")))
    )
    resp = get(url)
    assert (resp.status, resp.body, resp.truncated, resp.protocol) == (200, ROBOTS, False, "http")
    assert resp.headers["content-type"] == "text/plain"
    assert resp.headers["x-thing"] == "a"
    assert all(k == k.lower() for k in resp.headers)
    assert http_server.requests[-1][2]["user-agent"] == UA


@BOTH
@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_3xx_is_returned_not_followed(http_server: HttpScenarioServer, get: Getter, status: int) -> None:
    """Every redirect status comes back as-is with its Location; the target is never requested."""
    http_server.route("/target", Scenario(200, ROBOTS))
    url = http_server.redirect("/robots.txt", "/target", status)
    resp = get(url)
    assert resp.status == status
    assert resp.headers["location"] == "/target"
    assert http_server.hits["/target"] == 0


@BOTH
def test_absolute_cross_host_location_is_returned(
    http_server: HttpScenarioServer, http_server2: HttpScenarioServer, get: Getter
) -> None:
    """An absolute Location to another authority is reported verbatim and not fetched."""
    target = http_server2.route("/robots.txt", Scenario(200, ROBOTS))
    url = http_server.redirect("/robots.txt", target)
    resp = get(url)
    assert (resp.status, resp.headers["location"]) == (301, target)
    assert http_server2.hits["/robots.txt"] == 0


@BOTH
@pytest.mark.parametrize("status", [401, 403, 404, 410, 500, 503])
def test_error_statuses_keep_their_body(http_server: HttpScenarioServer, get: Getter, status: int) -> None:
    """4xx/5xx are responses, not exceptions: status and HTML error page come back."""
    page = b"<html><body>error %d</body></html>" % status
    url = http_server.route("/robots.txt", Scenario(status, page, (("Content-Type", "text/html"),)))
    resp = get(url)
    assert (resp.status, resp.body) == (status, page)


def test_unknown_path_gets_html_404(http_server: HttpScenarioServer) -> None:
    """The scenario server's default is a real-looking HTML 404 page."""
    resp = fetch(http_server.url("/robots.txt"))
    assert (resp.status, resp.body) == (404, HTML_404)


@BOTH
def test_429_retry_after_header(http_server: HttpScenarioServer, get: Getter) -> None:
    """429 comes back with its Retry-After header for the policy to honour."""
    url = http_server.route("/robots.txt", Scenario(429, b"slow down", (("Retry-After", "120"),)))
    resp = get(url)
    assert (resp.status, resp.headers["retry-after"]) == (429, "120")


@BOTH
def test_slow_headers_time_out(http_server: HttpScenarioServer, get: Getter) -> None:
    """A server that answers after the timeout raises FetchTimeout, promptly."""
    url = http_server.route("/robots.txt", Scenario(200, ROBOTS, delay=4.0))
    t0 = time.monotonic()
    with pytest.raises(FetchTimeout) as info:
        get(url, timeout=0.5)
    assert time.monotonic() - t0 < 3.0
    assert info.value.kind == "timeout" and info.value.url == url


@BOTH
def test_slow_body_times_out(http_server: HttpScenarioServer, get: Getter) -> None:
    """Headers on time but a body that stalls past the timeout raises FetchTimeout."""
    url = http_server.route("/robots.txt", Scenario(200, ROBOTS, body_delay=4.0))
    with pytest.raises(FetchTimeout):
        get(url, timeout=0.5)


def test_async_dripping_body_hits_overall_deadline(http_server: HttpScenarioServer) -> None:
    """A body dripping a byte every 0.1 s never trips the read timeout but hits the overall deadline."""
    url = http_server.route("/robots.txt", Scenario(200, b"x" * 100, drip=0.1))
    t0 = time.monotonic()
    with pytest.raises(FetchTimeout):
        afetch(url, timeout=0.6)
    assert time.monotonic() - t0 < 3.0


def test_sync_dripping_body_hits_overall_deadline(http_server: HttpScenarioServer) -> None:
    """The sync adapter checks the overall deadline between chunks, overrunning by at most one read."""
    url = http_server.route("/robots.txt", Scenario(200, b"x" * 100, drip=0.1))
    t0 = time.monotonic()
    with pytest.raises(FetchTimeout):
        fetch(url, timeout=0.6)
    assert time.monotonic() - t0 < 3.0


@BOTH
def test_reset_mid_body(http_server: HttpScenarioServer, get: Getter) -> None:
    """A TCP reset after part of a declared body raises FetchError kind 'reset'."""
    url = http_server.route("/robots.txt", Scenario(200, b"x" * 5000, reset_after=100))
    with pytest.raises(FetchError) as info:
        get(url)
    assert info.value.kind == "reset"
    assert not isinstance(info.value, FetchTimeout)


@BOTH
def test_garbage_status_line_is_protocol_violation(http_server: HttpScenarioServer, get: Getter) -> None:
    """A response that is not HTTP raises ProtocolViolation (kind 'protocol')."""
    url = http_server.route("/robots.txt", Scenario(raw=b"SSH-2.0-OpenSSH_9.6\r\n\r\n"))
    with pytest.raises(FetchError) as info:
        get(url)
    assert info.value.kind == "protocol"


@BOTH
def test_connection_refused(get: Getter) -> None:
    """Nothing listening: FetchError kind 'connection'."""
    with pytest.raises(FetchError) as info:
        get(f"http://127.0.0.1:{free_port()}/robots.txt", timeout=1.0)
    assert info.value.kind == "connection"


@BOTH
def test_tls_to_plain_http_server_is_tls_error(http_server: HttpScenarioServer, get: Getter) -> None:
    """https:// to a plain-HTTP port fails the handshake: FetchError kind 'tls'."""
    with pytest.raises(FetchError) as info:
        get(f"https://{http_server.authority}/robots.txt", timeout=1.0)
    assert info.value.kind == "tls"


@BOTH
def test_unsupported_scheme_is_invalid_url(get: Getter) -> None:
    """A non-HTTP URL handed to the HTTP adapter raises InvalidURL (a ValueError), not a fetch error."""
    with pytest.raises(InvalidURL):
        get("gopher://127.0.0.1/robots.txt")


@BOTH
def test_oversized_endless_body_is_cut(http_server: HttpScenarioServer, get: Getter) -> None:
    """A server that keeps sending is cut at max_bytes exactly, with truncated=True, quickly."""
    url = http_server.route("/robots.txt", Scenario(200, b"Disallow: /a\n" * 5000, endless=True))
    t0 = time.monotonic()
    resp = get(url, max_bytes=100_000)
    assert time.monotonic() - t0 < 3.0
    assert len(resp.body) == 100_000 and resp.truncated
    assert resp.body.startswith(b"Disallow: /a\n")


@BOTH
@pytest.mark.parametrize("extra", [-1, 0])
def test_body_at_or_under_the_limit_is_not_truncated(
    http_server: HttpScenarioServer, get: Getter, extra: int
) -> None:
    """A body of exactly max_bytes (or one less) is complete: truncated stays False."""
    body = b"a" * (1000 + extra)
    url = http_server.route("/robots.txt", Scenario(200, body))
    resp = get(url, max_bytes=1000)
    assert (resp.body, resp.truncated) == (body, False)


@BOTH
def test_body_one_over_the_limit_is_truncated(http_server: HttpScenarioServer, get: Getter) -> None:
    """max_bytes + 1 bytes: cut to max_bytes with truncated=True."""
    url = http_server.route("/robots.txt", Scenario(200, b"a" * 1001))
    resp = get(url, max_bytes=1000)
    assert (len(resp.body), resp.truncated) == (1000, True)


@BOTH
def test_gzip_body_is_decoded(http_server: HttpScenarioServer, get: Getter) -> None:
    """Content-Encoding: gzip is decoded; the server was offered only gzip and deflate."""
    url = http_server.route("/robots.txt", Scenario(200, ROBOTS, gzip=True))
    resp = get(url)
    assert resp.body == ROBOTS and resp.headers["content-encoding"] == "gzip"
    assert http_server.requests[-1][2]["accept-encoding"] == "gzip, deflate"


@BOTH
def test_gzip_bomb_stops_at_limit(http_server: HttpScenarioServer, get: Getter) -> None:
    """10 MB of zeros gzipped (~10 KB on the wire) yields max_bytes decoded bytes and truncated=True."""
    url = http_server.route("/robots.txt", Scenario(200, bytes(10_000_000), gzip=True))
    resp = get(url, max_bytes=512_000)
    assert (len(resp.body), resp.truncated) == (512_000, True)
    assert resp.body == bytes(512_000)


@pytest.mark.parametrize("wbits", [zlib.MAX_WBITS, -zlib.MAX_WBITS], ids=["zlib", "raw"])
def test_deflate_body_zlib_or_raw(http_server: HttpScenarioServer, wbits: int) -> None:
    """Content-Encoding: deflate is decoded whether zlib-wrapped (RFC 9110) or raw, as servers send both."""
    c = zlib.compressobj(wbits=wbits)
    body = c.compress(ROBOTS) + c.flush()
    url = http_server.route("/robots.txt", Scenario(200, body, (("Content-Encoding", "deflate"),)))
    assert fetch(url).body == ROBOTS


def test_concatenated_gzip_members(http_server: HttpScenarioServer) -> None:
    """A gzip body of two members decodes to both parts (RFC 1952 2.2)."""
    body = gzip.compress(b"User-agent: *\n") + gzip.compress(b"Disallow: /x\n")
    url = http_server.route("/robots.txt", Scenario(200, body, (("Content-Encoding", "gzip"),)))
    assert fetch(url).body == b"User-agent: *\nDisallow: /x\n"


def test_double_gzip_bomb_is_bounded(http_server: HttpScenarioServer) -> None:
    """gzip applied twice ('gzip, gzip') is decoded in reverse, and still stops at max_bytes."""
    body = gzip.compress(gzip.compress(bytes(5_000_000)))
    url = http_server.route("/robots.txt", Scenario(200, body, (("Content-Encoding", "gzip, gzip"),)))
    resp = fetch(url, max_bytes=10_000)
    assert (resp.body, resp.truncated) == (bytes(10_000), True)


def test_corrupt_gzip_is_protocol_violation(http_server: HttpScenarioServer) -> None:
    """A body that claims gzip but is not raises ProtocolViolation."""
    url = http_server.route("/robots.txt", Scenario(200, b"not gzip at all", (("Content-Encoding", "gzip"),)))
    with pytest.raises(FetchError) as info:
        fetch(url)
    assert info.value.kind == "protocol"


def test_unknown_encoding_passes_through(http_server: HttpScenarioServer) -> None:
    """An encoding robotskit did not offer (br) is passed through undecoded, like httpx does."""
    url = http_server.route("/robots.txt", Scenario(200, b"\x1b\x00opaque", (("Content-Encoding", "br"),)))
    assert fetch(url).body == b"\x1b\x00opaque"


def test_pooled_client_reuses_connection(http_server: HttpScenarioServer) -> None:
    """One HttpFetcher serves many requests over its pool; close() is idempotent via the context manager."""
    http_server.route("/robots.txt", Scenario(200, ROBOTS))
    with HttpFetcher(trust_env=False) as f:
        for _ in range(5):
            assert f.fetch(FetchRequest(http_server.url("/robots.txt"))).status == 200
    assert http_server.hits["/robots.txt"] == 5


def test_extra_headers_but_user_agent_wins(http_server: HttpScenarioServer) -> None:
    """Extra request headers are sent, but User-Agent always comes from request.user_agent."""
    url = http_server.route("/robots.txt", Scenario(200, ROBOTS))
    fetch(url, headers={"X-Trace": "1", "user-agent": "Other"})
    seen = http_server.requests[-1][2]
    assert (seen["x-trace"], seen["user-agent"]) == ("1", UA)


def test_bomb_in_one_chunk_never_inflates_past_limit() -> None:
    """Fed a whole 10 MB gzip bomb in one raw chunk, the decoder holds at most max_bytes + 1 bytes."""
    bomb = gzip.compress(bytes(10_000_000))
    dec = _BoundedDecoder("gzip", 4096)
    dec.feed(bomb)
    assert len(dec.body) == 4097
    assert dec.result() == (bytes(4096), True)


def test_https_with_trusted_self_signed_cert(https_server: HttpScenarioServer, cert: CertPair) -> None:
    """HTTPS works end to end when the caller's SSL context trusts the certificate."""
    url = https_server.route("/robots.txt", Scenario(200, ROBOTS))
    ctx = ssl.create_default_context(cafile=str(cert.cert))
    with HttpFetcher(verify=ctx, trust_env=False) as f:
        resp = f.fetch(FetchRequest(url, user_agent=UA))
    assert (resp.status, resp.body) == (200, ROBOTS)
    assert https_server.requests[-1][2]["user-agent"] == UA


def test_async_https_with_trusted_self_signed_cert(https_server: HttpScenarioServer, cert: CertPair) -> None:
    """The async adapter takes the same SSL context."""
    url = https_server.route("/robots.txt", Scenario(200, ROBOTS, gzip=True))
    ctx = ssl.create_default_context(cafile=str(cert.cert))

    async def go() -> FetchResponse:
        async with AsyncHttpFetcher(verify=ctx, trust_env=False) as f:
            return await f.fetch(FetchRequest(url))

    assert asyncio.run(go()).body == ROBOTS


@BOTH
def test_https_untrusted_cert_is_tls_error(https_server: HttpScenarioServer, get: Getter) -> None:
    """HTTPS verifies certificates by default: a self-signed one is FetchError kind 'tls'."""
    url = https_server.route("/robots.txt", Scenario(200, ROBOTS))
    with pytest.raises(FetchError) as info:
        get(url, timeout=2.0)
    assert info.value.kind == "tls"
    assert https_server.hits["/robots.txt"] == 0


@pytest.mark.parametrize(
    ("exc", "kind"),
    [
        (httpx.ConnectError("[Errno -2] Name or service not known"), "dns"),
        (httpx.ConnectError("[Errno -3] Temporary failure in name resolution"), "dns"),
        (httpx.ConnectError("[Errno 111] Connection refused"), "connection"),
        (httpx.ConnectError("[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed"), "tls"),
        (httpx.ReadTimeout("timed out"), "timeout"),
        (httpx.PoolTimeout("timed out"), "timeout"),
        (httpx.RemoteProtocolError("peer closed connection without sending complete message body"), "reset"),
        (httpx.RemoteProtocolError("illegal status line: bytearray(b'SSH-2.0')"), "protocol"),
        (httpx.ReadError("[Errno 104] Connection reset by peer"), "reset"),
    ],
)
def test_error_mapping(exc: Exception, kind: str) -> None:
    """httpx exceptions map to FetchError kinds (DNS is tested here: no resolver traffic in tests)."""
    mapped = _map_error(exc, "http://x/robots.txt")
    assert isinstance(mapped, FetchError) and mapped.kind == kind
    assert mapped.url == "http://x/robots.txt"
