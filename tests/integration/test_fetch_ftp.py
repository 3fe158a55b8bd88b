"""FtpFetcher / AsyncFtpFetcher against pyftpdlib on 127.0.0.1."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from robotskit.errors import FetchError, FetchTimeout, InvalidURL
from robotskit.fetch import AsyncFetcher, Fetcher, FetchRequest, FetchResponse
from robotskit.fetch.ftp import AsyncFtpFetcher, FtpFetcher

from .conftest import ROBOTS
from .servers.ftp_server import FtpServer
from .servers.gemini_server import free_port

pytestmark = pytest.mark.integration

Getter = Callable[..., FetchResponse]


def fetch(url: str, **kw: object) -> FetchResponse:
    return FtpFetcher().fetch(FetchRequest(url, **kw))  # type: ignore[arg-type]


def afetch(url: str, **kw: object) -> FetchResponse:
    return asyncio.run(AsyncFtpFetcher().fetch(FetchRequest(url, **kw)))  # type: ignore[arg-type]


BOTH = pytest.mark.parametrize("get", [fetch, afetch], ids=["sync", "async"])


def test_adapters_satisfy_protocols() -> None:
    """The sync and async adapters implement the Fetcher / AsyncFetcher protocols."""
    assert isinstance(FtpFetcher(), Fetcher)
    assert isinstance(AsyncFtpFetcher(), AsyncFetcher)


@BOTH
def test_anonymous_retr(ftp_server: FtpServer, get: Getter) -> None:
    """Anonymous login + RETR returns the file with the final reply code 226."""
    resp = get(ftp_server.url())
    assert (resp.status, resp.body, resp.truncated, resp.protocol) == (226, ROBOTS, False, "ftp")
    assert resp.headers == {}


def test_binary_bytes_preserved(ftp_server: FtpServer, ftp_root: Path) -> None:
    """TYPE I: CRLF, lone CR, NUL and non-UTF-8 bytes arrive exactly as stored."""
    data = b"User-agent: *\r\nDisallow: /a\rDisallow: /\xff\x00b\n"
    (ftp_root / "robots.txt").write_bytes(data)
    assert fetch(ftp_server.url()).body == data


@BOTH
def test_missing_file_is_550(ftp_server: FtpServer, get: Getter) -> None:
    """A missing file is a response with status 550 and the server's reply text, not an exception."""
    resp = get(ftp_server.url("/nope.txt"))
    assert (resp.status, resp.body) == (550, b"")
    assert resp.meta


@BOTH
def test_anonymous_refused_is_530(ftp_refusing: FtpServer, get: Getter) -> None:
    """A server that refuses anonymous login answers status 530, promptly."""
    t0 = time.monotonic()
    resp = get(ftp_refusing.url())
    assert (resp.status, resp.body) == (530, b"")
    assert time.monotonic() - t0 < 3.0


def test_credentials_from_url(ftp_refusing: FtpServer) -> None:
    """user:password in the URL are used instead of anonymous."""
    resp = fetch(f"ftp://robot:secret@127.0.0.1:{ftp_refusing.port}/robots.txt")
    assert (resp.status, resp.body) == (226, ROBOTS)


@BOTH
def test_large_file_cut_at_max_bytes(ftp_server: FtpServer, ftp_root: Path, get: Getter) -> None:
    """A file larger than max_bytes is cut there with truncated=True, without reading it all."""
    (ftp_root / "robots.txt").write_bytes(b"Disallow: /a\n" * 400_000)  # 5.2 MB
    t0 = time.monotonic()
    resp = get(ftp_server.url(), max_bytes=100_000)
    assert time.monotonic() - t0 < 3.0
    assert (len(resp.body), resp.truncated) == (100_000, True)
    assert resp.body == (b"Disallow: /a\n" * 400_000)[:100_000]


def test_exactly_max_bytes_is_complete(ftp_server: FtpServer, ftp_root: Path) -> None:
    """A file of exactly max_bytes is read whole and not marked truncated."""
    (ftp_root / "robots.txt").write_bytes(b"a" * 1000)
    resp = fetch(ftp_server.url(), max_bytes=1000)
    assert (len(resp.body), resp.truncated, resp.status) == (1000, False, 226)


@BOTH
def test_silent_server_times_out(get: Getter) -> None:
    """A listener that never sends the FTP banner raises FetchTimeout within about the timeout."""
    with socket.socket() as srv:
        srv.bind(("127.0.0.1", 0))
        srv.listen()
        t0 = time.monotonic()
        with pytest.raises(FetchTimeout):
            get(f"ftp://127.0.0.1:{srv.getsockname()[1]}/robots.txt", timeout=0.5)
        assert time.monotonic() - t0 < 3.0


def test_connection_refused() -> None:
    """Nothing listening: FetchError kind 'connection'."""
    with pytest.raises(FetchError) as info:
        fetch(f"ftp://127.0.0.1:{free_port()}/robots.txt", timeout=1.0)
    assert info.value.kind == "connection"


def test_garbage_banner_is_protocol_violation() -> None:
    """A peer that speaks something else than FTP raises ProtocolViolation (kind 'protocol')."""
    with socket.socket() as srv:
        srv.bind(("127.0.0.1", 0))
        srv.listen()
        port = srv.getsockname()[1]

        def serve() -> None:
            conn, _ = srv.accept()
            with conn:
                conn.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n")
                time.sleep(0.5)

        t = threading.Thread(target=serve, daemon=True)
        t.start()
        with pytest.raises(FetchError) as info:
            fetch(f"ftp://127.0.0.1:{port}/robots.txt", timeout=2.0)
        t.join(2)
    assert info.value.kind == "protocol"


@pytest.mark.parametrize(
    "url",
    ["http://127.0.0.1/robots.txt", "ftp:///robots.txt", "ftp://127.0.0.1/a%0d%0aDELE%20x", "ftp://[::1"],
)
def test_bad_urls_are_invalid_url(url: str) -> None:
    """Other schemes, no host, CR/LF smuggled into the path, unparsable URLs: InvalidURL."""
    with pytest.raises(InvalidURL):
        fetch(url)
