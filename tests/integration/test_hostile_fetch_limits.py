"""Hostile servers that cost CPU, memory or threads rather than bytes: each fetch stays bounded.

- HTTP: a few KB of stacked gzip whose inner layer is millions of empty members (or empty deflate
  blocks) decodes to nothing, so the size limit never trips; the decoder caps members and the
  bytes handed between codings, and checks the deadline inside one network chunk.
- FTP: a multi-line reply (`220-`) that never ends; the reply size is capped.
- Async FTP: stalled hosts must not hold the event loop's default executor (which the clients'
  SQLite cache shares), and the deadline starts when the fetch is asked for.
Real servers on 127.0.0.1; small timeouts.
"""

from __future__ import annotations

import asyncio
import gzip
import os
import struct
import time
import zlib
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from robotskit.client import AsyncRobotsClient, RobotsClient
from robotskit.errors import FetchTimeout, ProtocolViolation
from robotskit.fetch import FetchRequest
from robotskit.fetch.ftp import AsyncFtpFetcher, FtpFetcher
from robotskit.fetch.http import _BoundedDecoder
from robotskit.policy.messages import MAX_GZIP_MEMBERS

from .conftest import ROBOTS
from .servers.http_server import HttpScenarioServer, Scenario
from .servers.raw_server import Conn, RawServer, ftp_play, stall_play

pytestmark = [pytest.mark.integration, pytest.mark.slow]

TIMEOUT = 1.0
SLACK = 1.0  # scheduling on a loaded 2-core machine; the failures these guard against take seconds

EMPTY_MEMBER = gzip.compress(b"", 0)


def _gzip_stream(chunks: list[bytes]) -> bytes:
    co = zlib.compressobj(9, zlib.DEFLATED, 31)
    return b"".join([*(co.compress(c) for c in chunks), co.flush()])


def _empty_blocks_member(blocks: int) -> bytes:
    """One gzip member whose deflate stream is `blocks` empty stored blocks: 5 bytes in, 0 out each."""
    header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"
    deflate = b"\x00\x00\x00\xff\xff" * blocks + b"\x01\x00\x00\xff\xff"  # BFINAL on the last
    return header + deflate + struct.pack("<II", zlib.crc32(b""), 0)


# --- the HTTP decoder ---------------------------------------------------------------------------


def test_gzip_members_are_capped() -> None:
    """Past MAX_GZIP_MEMBERS members in one coding: ProtocolViolation, not a decompressor each."""
    decoder = _BoundedDecoder("gzip", 4096)
    with pytest.raises(ProtocolViolation, match="members"):
        decoder.feed(EMPTY_MEMBER * (MAX_GZIP_MEMBERS + 1))


def test_a_few_gzip_members_still_decode() -> None:
    """Concatenated members under the cap decode whole (RFC 1952 2.2)."""
    decoder = _BoundedDecoder("gzip", 4096)
    decoder.feed(b"".join(gzip.compress(b"line %d\n" % i) for i in range(100)))
    assert decoder.result() == (b"".join(b"line %d\n" % i for i in range(100)), False)


def test_bytes_between_codings_are_capped() -> None:
    """'gzip, gzip' whose inner layer is megabytes of empty deflate blocks: ProtocolViolation."""
    body = gzip.compress(_empty_blocks_member(2_000_000))  # 10 MB inside, ~10 KB outside
    decoder = _BoundedDecoder("gzip, gzip", 4096, url="http://x/robots.txt")
    with pytest.raises(ProtocolViolation, match="expand"):
        decoder.feed(body)


def test_decoding_checks_the_deadline() -> None:
    """The deadline is checked inside the decode loop, not only between network chunks."""
    decoder = _BoundedDecoder("gzip", 4096, time.monotonic() - 1, "http://x/robots.txt")
    with pytest.raises(FetchTimeout):
        decoder.feed(gzip.compress(ROBOTS))


@pytest.fixture(scope="module")
def empty_members_body() -> bytes:
    """'gzip, gzip, gzip' over 3 million empty members: under 1 KB on the wire."""
    block = EMPTY_MEMBER * 100_000
    return gzip.compress(_gzip_stream([block] * 30), 9)


def test_clients_end_empty_member_flood_on_time(
    http_server: HttpScenarioServer, empty_members_body: bytes
) -> None:
    """Both clients answer "unreachable (bad response)" well within the deadline, no CPU stall."""
    headers = (("Content-Encoding", "gzip, gzip, gzip"),)
    http_server.route("/robots.txt", Scenario(200, empty_members_body, headers))
    url = http_server.url("/page")
    start = time.monotonic()
    with RobotsClient("MyBot", timeout=TIMEOUT) as client:
        decision = client.decide(url)
    assert time.monotonic() - start < TIMEOUT + SLACK
    assert not decision.allowed and "bad response" in decision.reason

    async def go() -> tuple[float, bool, str]:
        async with AsyncRobotsClient("MyBot", timeout=TIMEOUT) as aclient:
            start = time.monotonic()
            decision = await aclient.decide(url)
            return time.monotonic() - start, decision.allowed, decision.reason

    elapsed, allowed, reason = asyncio.run(go())
    assert elapsed < TIMEOUT + SLACK
    assert not allowed and "bad response" in reason


# --- FTP replies ----------------------------------------------------------------------------------


def _endless_multiline(conn: Conn) -> None:
    """'220-' then continuation lines (each under ftplib's 8 KiB line limit) until the client leaves."""
    conn.sock.sendall(b"220-welcome\r\n")
    while not conn.server.stopping.is_set():
        conn.sock.sendall((b"x" * 8000 + b"\r\n") * 8)


def test_endless_multiline_reply_is_a_protocol_violation(
    raw_servers: Callable[[RawServer], RawServer],
) -> None:
    """Sync and async: ProtocolViolation as soon as the reply passes its cap, not at the deadline."""
    server = raw_servers(RawServer(_endless_multiline))
    request = FetchRequest(server.url(scheme="ftp"), timeout=TIMEOUT)
    for run in (lambda: FtpFetcher().fetch(request), lambda: asyncio.run(AsyncFtpFetcher().fetch(request))):
        start = time.monotonic()
        with pytest.raises(ProtocolViolation, match="reply over"):
            run()
        assert time.monotonic() - start < TIMEOUT / 2


def test_a_long_real_banner_is_read(raw_servers: Callable[[RawServer], RawServer]) -> None:
    """A multi-line banner of a few KiB is an answer: here the login is refused (530)."""
    banner = (
        b"220-Welcome\r\n" + b" a notice line, as FTP sites print them at login\r\n" * 60 + b"220 ready\r\n"
    )
    server = raw_servers(RawServer(ftp_play([[(0.0, banner)], [(0.0, b"530 no anonymous\r\n")]])))
    response = FtpFetcher().fetch(FetchRequest(server.url(scheme="ftp"), timeout=TIMEOUT))
    assert response.status == 530


# --- async FTP and the default executor -------------------------------------------------------------

# More stalled hosts than the default executor has threads, twice over: with fetches queued
# there, the last would start its deadline two timeouts late.
STALLED = 2 * min(32, (os.cpu_count() or 1) + 4) + 1


def test_stalled_ftp_hosts_leave_the_default_executor_free(
    raw_servers: Callable[[RawServer], RawServer], http_server: HttpScenarioServer, tmp_path: Path
) -> None:
    """AsyncRobotsClient, SQLite cache: every FTP lookup ends on time, an HTTP one promptly."""
    ftp_urls = [raw_servers(RawServer(stall_play)).url("/x", scheme="ftp") for _ in range(STALLED)]
    http_server.route("/robots.txt", Scenario(200, ROBOTS))

    async def timed(call: Awaitable[bool]) -> float:
        start = time.monotonic()
        await call
        return time.monotonic() - start

    async def go() -> tuple[list[float], float]:
        cache = f"sqlite://{tmp_path / 'c.db'}"
        async with AsyncRobotsClient("MyBot", timeout=TIMEOUT, cache=cache) as client:
            ftp = [asyncio.ensure_future(timed(client.allowed(u))) for u in ftp_urls]
            await asyncio.sleep(0.1)
            http = await timed(client.allowed(http_server.url("/page")))
            return list(await asyncio.gather(*ftp)), http

    ftp_times, http_time = asyncio.run(go())
    assert max(ftp_times) < TIMEOUT + SLACK
    assert http_time < TIMEOUT / 2
