"""Total deadlines: a fetch ends within its timeout (plus slack) however a server paces its bytes.

Each server here drips one part of its answer one byte at a time, fast enough that no single
read ever times out. A per-read timeout never fires; only a deadline for the whole fetch ends
these exchanges. Every test measures the elapsed time of a real fetch against a loopback server.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Callable

import pytest

from robotskit.client import AsyncRobotsClient, RobotsClient
from robotskit.errors import FetchTimeout
from robotskit.fetch import FetchRequest
from robotskit.fetch.ftp import AsyncFtpFetcher, FtpFetcher
from robotskit.fetch.gemini import AsyncGeminiFetcher, GeminiFetcher
from robotskit.fetch.http import AsyncHttpFetcher, HttpFetcher

from .servers.gemini_server import GeminiScenario, GeminiScriptServer
from .servers.raw_server import Conn, RawServer, Step, drip, ftp_play, http_play

pytestmark = [pytest.mark.integration, pytest.mark.slow]

TIMEOUT = 1.0
SLACK = 1.0  # scheduling on a loaded 2-core machine; a hang would take minutes
EVERY = 0.05  # one byte every 50 ms: each read succeeds long before any read timeout

# What a server drips, and what it sends at full speed around it.
STATUS = b"HTTP/1.1 200 OK\r\n" * 40
HEADERS = b"HTTP/1.1 200 OK\r\n" + b"X-Padding: " + b"a" * 200 + b"\r\n"
CHUNKED = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"

HTTP_DRIPS: dict[str, list[Step]] = {
    "status line": drip(b"HTTP/1.1 200 OK" + b" " * 400 + b"\r\n\r\n", EVERY),
    "headers": [(0.0, b"HTTP/1.1 200 OK\r\n"), *drip(b"X-Padding: " + b"a" * 400 + b"\r\n\r\n", EVERY)],
    "chunk-size lines": [(0.0, CHUNKED), *drip(b"1\r\nU\r\n" * 200, EVERY)],
    "body": [(0.0, b"HTTP/1.1 200 OK\r\nContent-Length: 400\r\n\r\n"), *drip(b"U" * 400, EVERY)],
}


def _timed(call: Callable[[], object]) -> tuple[float, object]:
    start = time.monotonic()
    try:
        result: object = call()
    except Exception as exc:
        result = exc
    return time.monotonic() - start, result


@pytest.mark.parametrize("part", list(HTTP_DRIPS))
def test_sync_http_drip_ends_at_deadline(raw_servers: Callable[[RawServer], RawServer], part: str) -> None:
    """Sync HTTP: a server dripping its status line, headers, chunk sizes or body times out on time."""
    server = raw_servers(RawServer(http_play(HTTP_DRIPS[part])))
    with HttpFetcher() as fetcher:
        elapsed, result = _timed(lambda: fetcher.fetch(FetchRequest(server.url(), timeout=TIMEOUT)))
    assert isinstance(result, FetchTimeout), result
    assert elapsed < TIMEOUT + SLACK


@pytest.mark.parametrize("part", list(HTTP_DRIPS))
def test_async_http_drip_ends_at_deadline(raw_servers: Callable[[RawServer], RawServer], part: str) -> None:
    """Async HTTP: the same drips time out on time."""
    server = raw_servers(RawServer(http_play(HTTP_DRIPS[part])))

    async def go() -> object:
        async with AsyncHttpFetcher() as fetcher:
            return await fetcher.fetch(FetchRequest(server.url(), timeout=TIMEOUT))

    elapsed, result = _timed(lambda: asyncio.run(go()))
    assert isinstance(result, FetchTimeout), result
    assert elapsed < TIMEOUT + SLACK


def _https_record_drip(conn: Conn) -> None:
    """Read the ClientHello, then announce a 16 KiB TLS handshake record and drip its bytes."""
    conn.sock.recv(65536)
    conn.write([(0.0, b"\x16\x03\x03\x40\x00"), *drip(b"\x00" * 2000, EVERY)])


def test_sync_https_handshake_drip_ends_at_deadline(raw_servers: Callable[[RawServer], RawServer]) -> None:
    """Sync HTTPS: a TLS record dripped during the handshake (one recv per byte) times out on time."""
    server = raw_servers(RawServer(_https_record_drip))
    with HttpFetcher() as fetcher:
        url = server.url(scheme="https")
        elapsed, result = _timed(lambda: fetcher.fetch(FetchRequest(url, timeout=TIMEOUT)))
    assert isinstance(result, FetchTimeout), result
    assert elapsed < TIMEOUT + SLACK


def test_async_https_handshake_drip_ends_at_deadline(raw_servers: Callable[[RawServer], RawServer]) -> None:
    """Async HTTPS: the same dripped handshake times out on time."""
    server = raw_servers(RawServer(_https_record_drip))

    async def go() -> object:
        async with AsyncHttpFetcher() as fetcher:
            return await fetcher.fetch(FetchRequest(server.url(scheme="https"), timeout=TIMEOUT))

    elapsed, result = _timed(lambda: asyncio.run(go()))
    assert isinstance(result, FetchTimeout), result
    assert elapsed < TIMEOUT + SLACK


def _ftp_replies(dripped: int) -> list[list[Step]]:
    """Banner, USER, PASS, TYPE replies; the one at index `dripped` comes one byte at a time."""
    replies = [
        b"220 " + b"w" * 100 + b"\r\n",
        b"331 password please" + b" " * 100 + b"\r\n",
        b"230 logged in" + b" " * 100 + b"\r\n",
        b"200 binary" + b" " * 100 + b"\r\n",
    ]
    return [drip(r, EVERY) if i == dripped else [(0.0, r)] for i, r in enumerate(replies)]


FTP_DRIPS = {"banner": 0, "USER reply": 1, "PASS reply": 2, "TYPE reply": 3}


@pytest.mark.parametrize("part", list(FTP_DRIPS))
def test_sync_ftp_control_drip_ends_at_deadline(
    raw_servers: Callable[[RawServer], RawServer], part: str
) -> None:
    """Sync FTP: a control connection dripping its banner or a reply times out on time."""
    server = raw_servers(RawServer(ftp_play(_ftp_replies(FTP_DRIPS[part]))))
    elapsed, result = _timed(
        lambda: FtpFetcher().fetch(FetchRequest(server.url(scheme="ftp"), timeout=TIMEOUT))
    )
    assert isinstance(result, FetchTimeout), result
    assert elapsed < TIMEOUT + SLACK


@pytest.mark.parametrize("part", list(FTP_DRIPS))
def test_async_ftp_control_drip_ends_at_deadline(
    raw_servers: Callable[[RawServer], RawServer], part: str
) -> None:
    """Async FTP: the same drips time out on time."""
    server = raw_servers(RawServer(ftp_play(_ftp_replies(FTP_DRIPS[part]))))
    request = FetchRequest(server.url(scheme="ftp"), timeout=TIMEOUT)
    elapsed, result = _timed(lambda: asyncio.run(AsyncFtpFetcher().fetch(request)))
    assert isinstance(result, FetchTimeout), result
    assert elapsed < TIMEOUT + SLACK


def test_clients_answer_unreachable_on_time(raw_servers: Callable[[RawServer], RawServer]) -> None:
    """Both clients turn a dripping server into "unreachable" (disallow) within the deadline."""
    server = raw_servers(RawServer(http_play(HTTP_DRIPS["headers"])))
    url = server.url("/page")
    with RobotsClient("MyBot", timeout=TIMEOUT) as client:
        elapsed, decision = _timed(lambda: client.decide(url))
    assert elapsed < TIMEOUT + SLACK
    assert not getattr(decision, "allowed", True) and "timeout" in getattr(decision, "reason", "")

    async def go() -> object:
        async with AsyncRobotsClient("MyBot", timeout=TIMEOUT) as aclient:
            return await aclient.decide(url)

    elapsed, decision = _timed(lambda: asyncio.run(go()))
    assert elapsed < TIMEOUT + SLACK
    assert not getattr(decision, "allowed", True) and "timeout" in getattr(decision, "reason", "")


GEMINI_DRIPS = {
    "header": GeminiScenario(b"20 text/plain" + b" " * 400 + b"\r\n", b"", drip=EVERY),
    "body": GeminiScenario(b"20 text/plain\r\n", b"U" * 400, drip=EVERY),
}


@pytest.mark.parametrize("part", list(GEMINI_DRIPS))
def test_gemini_drip_ends_at_deadline(gemini_server: GeminiScriptServer, part: str) -> None:
    """Gemini, sync and async: a dripped header or body times out on time."""
    url = gemini_server.route("/robots.txt", GEMINI_DRIPS[part])
    elapsed, result = _timed(lambda: GeminiFetcher().fetch(FetchRequest(url, timeout=TIMEOUT)))
    assert isinstance(result, FetchTimeout), result
    assert elapsed < TIMEOUT + SLACK
    request = FetchRequest(url, timeout=TIMEOUT)
    elapsed, result = _timed(lambda: asyncio.run(AsyncGeminiFetcher().fetch(request)))
    assert isinstance(result, FetchTimeout), result
    assert elapsed < TIMEOUT + SLACK


@pytest.mark.parametrize("scheme", ["http", "ftp"])
def test_sync_hung_resolver_ends_at_deadline(monkeypatch: pytest.MonkeyPatch, scheme: str) -> None:
    """A resolver that never answers (getaddrinfo stuck) still ends a sync fetch at the deadline."""
    stuck = threading.Event()

    def hung_getaddrinfo(*args: object, **kwargs: object) -> list[tuple[object, ...]]:
        stuck.wait(10)  # released when the test ends
        return []

    monkeypatch.setattr(socket, "getaddrinfo", hung_getaddrinfo)
    request = FetchRequest(f"{scheme}://hung.invalid/robots.txt", timeout=TIMEOUT)
    fetcher = HttpFetcher() if scheme == "http" else FtpFetcher()
    try:
        elapsed, result = _timed(lambda: fetcher.fetch(request))
    finally:
        stuck.set()
        if isinstance(fetcher, HttpFetcher):
            fetcher.close()
    assert isinstance(result, FetchTimeout), result
    assert elapsed < TIMEOUT + SLACK
