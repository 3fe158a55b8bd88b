"""GeminiFetcher / AsyncGeminiFetcher against jetforce (a real server) and a scripted TLS server."""

from __future__ import annotations

import asyncio
import json
import socket
import ssl
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from robotskit.errors import FetchError, FetchTimeout, InvalidArgument, InvalidURL, ProtocolViolation
from robotskit.fetch import AsyncFetcher, Fetcher, FetchRequest, FetchResponse
from robotskit.fetch.gemini import (
    AsyncGeminiFetcher,
    GeminiFetcher,
    Pin,
    TofuStore,
    cert_not_after,
    default_ssl_context,
    parse_header,
)

from .conftest import ROBOTS
from .servers.certs import CertPair
from .servers.gemini_server import GeminiScenario, GeminiScriptServer, JetforceServer, free_port

pytestmark = pytest.mark.integration

Getter = Callable[..., FetchResponse]


def fetch(url: str, tofu: TofuStore | None = None, **kw: object) -> FetchResponse:
    return GeminiFetcher(tofu).fetch(FetchRequest(url, **kw))  # type: ignore[arg-type]


def afetch(url: str, tofu: TofuStore | None = None, **kw: object) -> FetchResponse:
    return asyncio.run(AsyncGeminiFetcher(tofu).fetch(FetchRequest(url, **kw)))  # type: ignore[arg-type]


BOTH = pytest.mark.parametrize("get", [fetch, afetch], ids=["sync", "async"])


def test_adapters_satisfy_protocols() -> None:
    """The sync and async adapters implement the Fetcher / AsyncFetcher protocols."""
    assert isinstance(GeminiFetcher(), Fetcher)
    assert isinstance(AsyncGeminiFetcher(), AsyncFetcher)


# --------------------------------------------------------------------------- jetforce


@BOTH
def test_jetforce_serves_robots(jetforce: JetforceServer, cert: CertPair, get: Getter) -> None:
    """A real Gemini server returns 20 text/plain with the robots.txt bytes; the cert gets pinned."""
    tofu = TofuStore()
    resp = get(jetforce.url("/robots.txt"), tofu)
    assert (resp.status, resp.meta, resp.body, resp.protocol) == (20, "text/plain", ROBOTS, "gemini")
    pin = tofu.get("127.0.0.1", jetforce.port)
    assert pin is not None and pin.sha256 == cert.sha256
    assert pin.expires == cert.not_after.timestamp()


@BOTH
def test_jetforce_missing_file_is_51(jetforce: JetforceServer, get: Getter) -> None:
    """A missing file on a real server answers 51 with no body."""
    resp = get(jetforce.url("/nope.txt"))
    assert (resp.status, resp.body) == (51, b"")


def test_jetforce_body_cut_at_max_bytes(jetforce: JetforceServer) -> None:
    """A real server's body is cut at max_bytes with truncated=True."""
    resp = fetch(jetforce.url("/robots.txt"), max_bytes=10)
    assert (resp.body, resp.truncated) == (ROBOTS[:10], True)


# --------------------------------------------------------------------------- scripted statuses


@BOTH
@pytest.mark.parametrize(
    ("header", "status", "meta"),
    [
        (b"10 Enter a search term\r\n", 10, "Enter a search term"),
        (b"11 Password\r\n", 11, "Password"),
        (b"30 /new/robots.txt\r\n", 30, "/new/robots.txt"),
        (b"31 gemini://elsewhere.example/robots.txt\r\n", 31, "gemini://elsewhere.example/robots.txt"),
        (b"40 Temporary failure\r\n", 40, "Temporary failure"),
        (b"44 60\r\n", 44, "60"),
        (b"51 Not found\r\n", 51, "Not found"),
        (b"59 Bad request\r\n", 59, "Bad request"),
        (b"60 Client certificate required\r\n", 60, "Client certificate required"),
        (b"51 \r\n", 51, ""),
        (b"51\r\n", 51, ""),
    ],
)
def test_status_and_meta(
    gemini_server: GeminiScriptServer, get: Getter, header: bytes, status: int, meta: str
) -> None:
    """Every status family comes back with its META and no body; redirects are not followed."""
    url = gemini_server.route("/robots.txt", GeminiScenario(header, body=b"ignored"))
    resp = get(url)
    assert (resp.status, resp.meta, resp.body) == (status, meta, b"")
    assert gemini_server.hits["/new/robots.txt"] == 0


def test_request_is_url_crlf(gemini_server: GeminiScriptServer) -> None:
    """The request on the wire is exactly the absolute URL followed by CRLF."""
    url = gemini_server.route("/robots.txt", GeminiScenario(body=b"x"))
    fetch(url)
    assert gemini_server.lines == [url.encode() + b"\r\n"]


@BOTH
@pytest.mark.parametrize(
    "header",
    [
        b"2 text/plain\r\n",
        b"200 text/plain\r\n",
        b"20\ttext/plain\r\n",
        b"xx text/plain\r\n",
        b"20 text/plain\n",
        b"HTTP/1.1 200 OK\r\n\r\n",
        b"70 what\r\n",
        b"05 what\r\n",
        b"20 " + b"a" * 1025 + b"\r\n",
        b"20 " + b"a" * 5000,
        b"20 text/\xffplain\r\n",
        b"20 text/\x01plain\r\n",
        b"20 text/plain",
    ],
    ids=[
        "one-digit",
        "three-digits",
        "tab",
        "letters",
        "bare-lf",
        "http",
        "status-70",
        "status-05",
        "meta-too-long",
        "no-crlf-huge",
        "meta-not-utf8",
        "meta-control",
        "eof-before-crlf",
    ],
)
def test_malformed_header_is_protocol_violation(
    gemini_server: GeminiScriptServer, get: Getter, header: bytes
) -> None:
    """Anything but `<2 digits><SPACE><META>CRLF` (META <= 1024 bytes, UTF-8) raises ProtocolViolation."""
    url = gemini_server.route("/robots.txt", GeminiScenario(header, body=b""))
    with pytest.raises(ProtocolViolation) as info:
        get(url, timeout=2.0)
    assert info.value.kind == "protocol" and info.value.url == url


def test_meta_of_exactly_1024_bytes_is_accepted() -> None:
    """The META limit is inclusive: 1024 bytes parse, 1025 do not."""
    assert parse_header(b"20 " + b"a" * 1024) == (20, "a" * 1024)
    with pytest.raises(ProtocolViolation):
        parse_header(b"20 " + b"a" * 1025)


@BOTH
def test_close_without_response_is_reset(gemini_server: GeminiScriptServer, get: Getter) -> None:
    """A server that closes without sending a header raises FetchError kind 'reset'."""
    url = gemini_server.route("/robots.txt", GeminiScenario(b""))
    with pytest.raises(FetchError) as info:
        get(url)
    assert info.value.kind == "reset"


@BOTH
@pytest.mark.parametrize("clean", [True, False], ids=["close_notify", "unclean"])
def test_body_with_clean_or_unclean_close(
    gemini_server: GeminiScriptServer, get: Getter, clean: bool
) -> None:
    """The body is complete at EOF whether or not the server sent TLS close_notify."""
    url = gemini_server.route("/robots.txt", GeminiScenario(body=ROBOTS, clean_close=clean))
    resp = get(url)
    assert (resp.status, resp.body, resp.truncated) == (20, ROBOTS, False)


def test_unclean_close_without_ignore_eof_option(gemini_server: GeminiScriptServer) -> None:
    """Even when the SSL context reports an unexpected EOF as an error, the body is kept."""
    ctx = default_ssl_context()
    ctx.options &= ~getattr(ssl, "OP_IGNORE_UNEXPECTED_EOF", 0)
    url = gemini_server.route("/robots.txt", GeminiScenario(body=ROBOTS, clean_close=False))
    resp = asyncio.run(AsyncGeminiFetcher(ssl_context=ctx).fetch(FetchRequest(url)))
    assert resp.body == ROBOTS


@BOTH
def test_endless_body_cut_at_max_bytes(gemini_server: GeminiScriptServer, get: Getter) -> None:
    """A server that keeps sending is cut at max_bytes exactly, with truncated=True."""
    url = gemini_server.route("/robots.txt", GeminiScenario(body=b"Disallow: /x\n" * 1000, endless=True))
    t0 = time.monotonic()
    resp = get(url, max_bytes=50_000)
    assert time.monotonic() - t0 < 3.0
    assert (len(resp.body), resp.truncated) == (50_000, True)


@BOTH
def test_slow_header_times_out(gemini_server: GeminiScriptServer, get: Getter) -> None:
    """A server that answers after the timeout raises FetchTimeout within about the timeout."""
    url = gemini_server.route("/robots.txt", GeminiScenario(delay=4.0, body=ROBOTS))
    t0 = time.monotonic()
    with pytest.raises(FetchTimeout):
        get(url, timeout=0.5)
    assert time.monotonic() - t0 < 3.0


def test_silent_tcp_peer_times_out_in_handshake() -> None:
    """A TCP listener that never speaks TLS makes the handshake time out (FetchTimeout)."""
    with socket.socket() as srv:
        srv.bind(("127.0.0.1", 0))
        srv.listen()
        port = srv.getsockname()[1]
        t0 = time.monotonic()
        with pytest.raises(FetchTimeout):
            fetch(f"gemini://127.0.0.1:{port}/robots.txt", timeout=0.5)
        assert time.monotonic() - t0 < 3.0


def test_connection_refused() -> None:
    """Nothing listening: FetchError kind 'connection'."""
    with pytest.raises(FetchError) as info:
        fetch(f"gemini://127.0.0.1:{free_port()}/robots.txt", timeout=1.0)
    assert info.value.kind == "connection"


@pytest.mark.parametrize(
    "url",
    [
        "https://127.0.0.1/robots.txt",
        "gemini:///robots.txt",
        "gemini://127.0.0.1/" + "a" * 1100,
        "gemini://[::1",
    ],
)
def test_bad_urls_are_invalid_url(url: str) -> None:
    """Non-gemini schemes, missing hosts, URLs over 1024 bytes and unparsable URLs raise InvalidURL."""
    with pytest.raises(InvalidURL):
        fetch(url)


def test_sync_adapter_inside_running_loop(gemini_server: GeminiScriptServer) -> None:
    """GeminiFetcher works when called from code already running an event loop (helper thread)."""
    url = gemini_server.route("/robots.txt", GeminiScenario(body=ROBOTS))

    async def inside() -> FetchResponse:
        return GeminiFetcher().fetch(FetchRequest(url))

    assert asyncio.run(inside()).body == ROBOTS


def test_concurrent_async_fetches(gemini_server: GeminiScriptServer) -> None:
    """Twenty concurrent fetches on one AsyncGeminiFetcher all succeed (one connection each)."""
    url = gemini_server.route("/robots.txt", GeminiScenario(body=ROBOTS))
    f = AsyncGeminiFetcher()

    async def many() -> list[FetchResponse]:
        return await asyncio.gather(*(f.fetch(FetchRequest(url)) for _ in range(20)))

    assert [r.body for r in asyncio.run(many())] == [ROBOTS] * 20
    assert gemini_server.hits["/robots.txt"] == 20


# --------------------------------------------------------------------------- TOFU


def test_changed_certificate_is_refused(gemini_server: GeminiScriptServer) -> None:
    """A pin for host:port that differs from the presented certificate raises FetchError kind 'tls'."""
    url = gemini_server.route("/robots.txt", GeminiScenario(body=ROBOTS))
    tofu = TofuStore()
    tofu.pin("127.0.0.1", gemini_server.port, "ab" * 32)
    with pytest.raises(FetchError) as info:
        fetch(url, tofu)
    assert info.value.kind == "tls"
    assert "changed" in str(info.value) and gemini_server.cert.sha256 in str(info.value)
    assert gemini_server.hits["/robots.txt"] == 0  # refused before the request was sent


def test_restarted_server_with_new_certificate_is_refused(cert: CertPair, cert2: CertPair) -> None:
    """A server restarted on the same port with another certificate is refused by the pinned store."""
    tofu = TofuStore()
    first = GeminiScriptServer(cert).start()
    port = first.port
    try:
        assert fetch(first.url("/x"), tofu).status == 51
    finally:
        first.stop()
    second = GeminiScriptServer(cert2, port).start()
    try:
        with pytest.raises(FetchError, match="changed") as info:
            fetch(second.url("/x"), tofu)
        assert info.value.kind == "tls"
        assert fetch(second.url("/x"), TofuStore()).status == 51  # a fresh store trusts it
    finally:
        second.stop()
    pin = tofu.get("127.0.0.1", port)
    assert pin is not None and pin.sha256 == cert.sha256


def test_expired_pin_is_replaced(gemini_server: GeminiScriptServer) -> None:
    """A pin whose certificate expired is replaced by the new certificate (renewal is legitimate)."""
    url = gemini_server.route("/robots.txt", GeminiScenario(body=ROBOTS))
    tofu = TofuStore()
    tofu.pin("127.0.0.1", gemini_server.port, "ab" * 32, expires=time.time() - 1)
    assert fetch(url, tofu).body == ROBOTS
    pin = tofu.get("127.0.0.1", gemini_server.port)
    assert pin is not None and pin.sha256 == gemini_server.cert.sha256


def test_forgotten_pin_is_replaced(gemini_server: GeminiScriptServer) -> None:
    """After forget(host, port) the next certificate is trusted on first use again."""
    url = gemini_server.route("/robots.txt", GeminiScenario(body=ROBOTS))
    tofu = TofuStore()
    tofu.pin("127.0.0.1", gemini_server.port, "ab" * 32)
    tofu.forget("127.0.0.1", gemini_server.port)
    assert fetch(url, tofu).status == 20


def test_max_age_caps_pin_lifetime() -> None:
    """With max_age, a pin lapses after that many seconds even if the certificate lives longer."""
    now = [1000.0]
    tofu = TofuStore(max_age=60, clock=lambda: now[0])
    tofu.check("h", 1965, "aa" * 32, expires=10_000.0)
    now[0] = 1059.0
    with pytest.raises(FetchError):
        tofu.check("h", 1965, "bb" * 32)
    now[0] = 1061.0
    tofu.check("h", 1965, "bb" * 32)
    assert tofu.get("h", 1965) == Pin("bb" * 32, 1061.0, 1121.0)


def test_tofu_persists_to_json(gemini_server: GeminiScriptServer, tmp_path: Path) -> None:
    """A file-backed store writes pins as JSON and a new store on the same file enforces them."""
    path = tmp_path / "pins.json"
    url = gemini_server.route("/robots.txt", GeminiScenario(body=ROBOTS))
    fetch(url, TofuStore(path))
    data = json.loads(path.read_text())
    key = f"127.0.0.1:{gemini_server.port}"
    assert data["pins"][key]["sha256"] == gemini_server.cert.sha256
    reloaded = TofuStore(path)
    assert reloaded.get("127.0.0.1", gemini_server.port) == Pin(**data["pins"][key])
    with pytest.raises(FetchError):
        reloaded.check("127.0.0.1", gemini_server.port, "cd" * 32)
    reloaded.clear()
    assert json.loads(path.read_text())["pins"] == {}
    assert not list(tmp_path.glob(".*.tmp"))


def test_tofu_keys_ipv6_and_case() -> None:
    """Pins are keyed by lower-cased host and port; IPv6 literals are bracketed."""
    assert TofuStore.key("Example.ORG", 1965) == "example.org:1965"
    assert TofuStore.key("::1", 1965) == "[::1]:1965"


def test_cert_not_after_matches_cryptography(cert: CertPair) -> None:
    """The tiny DER reader finds the same notAfter that `cryptography` wrote into the certificate."""
    der = ssl.PEM_cert_to_DER_cert(cert.cert.read_text())
    assert cert_not_after(der) == cert.not_after.timestamp()
    assert cert_not_after(b"\x30\x03garbage") is None


@pytest.mark.parametrize("text", ["not json", "[]", '{"pins": {"h:1": {"first_seen": 1}}}'])
def test_unreadable_pin_file_is_invalid_argument(tmp_path: Path, text: str) -> None:
    """A corrupt or mis-shaped pin file raises InvalidArgument naming the file, at construction."""
    path = tmp_path / "pins.json"
    path.write_text(text)
    with pytest.raises(InvalidArgument, match=r"pins\.json"):
        TofuStore(path)
