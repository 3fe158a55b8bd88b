"""Gemini fetch adapter: standard library only (asyncio + ssl), trust-on-first-use pinning.

This module owns the Gemini wire exchange (Gemini protocol specification, sections 2-4):
- TLS 1.2 or newer with SNI; certificates are not checked against a CA (Geminispace is mostly
  self-signed) but pinned on first use in a `TofuStore` (host:port -> SHA-256 of the leaf DER);
- the request is the absolute URL + CRLF, at most 1024 bytes of URL;
- the response header `<2 digits><SPACE><META><CR><LF>` is parsed strictly (META at most 1024 bytes,
  UTF-8); anything else raises `ProtocolViolation`;
- a `2x` body is read to EOF or `max_bytes`; a close without TLS close_notify ends the body normally
  (many servers do it, and Gemini has no length field to contradict it);
- every step (connect+handshake, send, header, body) runs under one overall deadline.

Status mapping (1x/20/3x/4x/44/5x/6x) is the policy's job; this adapter reports what the server said.
The pins (`TofuStore`, `Pin`, `cert_not_after`) live in `robotskit.fetch._tofu` and are re-exported here.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import hashlib
import re
import socket
import ssl
import time
from collections.abc import Awaitable
from typing import TypeVar
from urllib.parse import urlsplit

from robotskit.errors import FetchError, FetchTimeout, InvalidURL, ProtocolViolation
from robotskit.fetch._addresses import addresses_of, check_public
from robotskit.fetch._errors import os_error
from robotskit.fetch._tofu import Pin, TofuStore, cert_not_after
from robotskit.policy.messages import FetchRequest, FetchResponse

__all__ = ["AsyncGeminiFetcher", "GeminiFetcher", "Pin", "TofuStore"]

DEFAULT_PORT = 1965
MAX_URL_BYTES = 1024
MAX_META_BYTES = 1024
# "20" + " " + META + CRLF
_MAX_HEADER = 2 + 1 + MAX_META_BYTES + 2
_T = TypeVar("_T")
_HEADER = re.compile(rb"([0-9]{2})(?: (.*))?", re.DOTALL)


# --------------------------------------------------------------------------- wire


def _target(url: str) -> tuple[str, int]:
    """Host (IDNA-encoded) and port of a gemini:// URL; InvalidURL for anything else."""
    try:
        parts = urlsplit(url)
        port = parts.port or DEFAULT_PORT
    except ValueError as exc:
        raise InvalidURL(f"cannot parse Gemini URL {url!r}: {exc}", url) from exc
    if parts.scheme.lower() != "gemini":
        raise InvalidURL(f"not a gemini:// URL: {url!r}", url)
    if not parts.hostname:
        raise InvalidURL(f"Gemini URL has no host: {url!r}", url)
    if len(url.encode("utf-8")) > MAX_URL_BYTES:
        # Gemini spec 2: a request is at most 1024 bytes of URL.
        raise InvalidURL(f"Gemini URL longer than {MAX_URL_BYTES} bytes", url)
    try:
        host = parts.hostname if parts.hostname.isascii() else parts.hostname.encode("idna").decode("ascii")
    except UnicodeError as exc:
        raise InvalidURL(f"invalid host in {url!r}: {exc}", url) from exc
    return host, port


def parse_header(line: bytes, url: str = "") -> tuple[int, str]:
    """`<STATUS><SPACE><META>` (CRLF already removed) -> (status, meta). Strict (Gemini spec 3.1).

    Accepted: exactly two digits 10-69, then a space and a UTF-8 META of at most 1024 bytes with
    no control characters. A bare status with nothing after it ("51") is read as an empty META,
    since later revisions of the spec allow it. Everything else raises ProtocolViolation.
    """
    m = _HEADER.fullmatch(line)
    if m is None:
        raise ProtocolViolation(f"malformed Gemini response header {line[:40]!r}", url=url)
    status = int(m.group(1))
    if not 10 <= status <= 69:
        raise ProtocolViolation(f"Gemini status {status} is outside 10-69", url=url)
    raw = m.group(2) or b""
    if len(raw) > MAX_META_BYTES:
        raise ProtocolViolation(f"Gemini META longer than {MAX_META_BYTES} bytes", url=url)
    if any(b < 0x20 or b == 0x7F for b in raw):
        raise ProtocolViolation("control character in Gemini META", url=url)
    try:
        meta = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ProtocolViolation(f"Gemini META is not UTF-8: {exc}", url=url) from exc
    return status, meta


def default_ssl_context() -> ssl.SSLContext:
    """TLS 1.2+, no CA verification (TOFU pins instead), unclean EOF reported as plain EOF."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    # Gemini servers often close without close_notify; the body is complete at EOF anyway.
    ctx.options |= getattr(ssl, "OP_IGNORE_UNEXPECTED_EOF", 0)
    return ctx


class _Deadline:
    def __init__(self, seconds: float, url: str) -> None:
        self._end = time.monotonic() + seconds
        self._url = url

    async def run(self, aw: Awaitable[_T], what: str) -> _T:
        left = self._end - time.monotonic()
        if left <= 0:
            if asyncio.iscoroutine(aw):
                aw.close()  # never awaited: close it so no "never awaited" warning is raised
            raise FetchTimeout(f"timed out {what} {self._url}", url=self._url)
        try:
            return await asyncio.wait_for(aw, left)
        except TimeoutError as exc:
            raise FetchTimeout(f"timed out {what} {self._url}", url=self._url) from exc


class AsyncGeminiFetcher:
    """Asynchronous Gemini `AsyncFetcher`. One TLS connection per request (Gemini has no reuse)."""

    def __init__(
        self,
        tofu: TofuStore | None = None,
        *,
        ssl_context: ssl.SSLContext | None = None,
        public_only: bool = False,
    ) -> None:
        self.tofu = tofu if tofu is not None else TofuStore()
        self._ctx = ssl_context or default_ssl_context()
        self._public_only = public_only

    async def fetch(self, request: FetchRequest) -> FetchResponse:
        host, port = _target(request.url)
        started = time.monotonic()
        deadline = _Deadline(request.timeout, request.url)
        try:
            reader, writer = await self._connect(host, port, deadline, request.url)
        except (FetchError, InvalidURL):
            raise
        except ssl.SSLError as exc:
            raise FetchError(
                f"TLS handshake with {host}:{port} failed: {exc}", url=request.url, kind="tls"
            ) from exc
        except OSError as exc:
            raise os_error(exc, request.url, f"{host}:{port}") from exc
        try:
            self._pin(writer, host, port, request.url)
            writer.write(request.url.encode("utf-8") + b"\r\n")
            await deadline.run(writer.drain(), "sending the request to")
            status, meta, rest = await self._header(reader, deadline, request.url)
            body, truncated = b"", False
            if 20 <= status <= 29:
                body, truncated = await self._body(reader, rest, request.max_bytes, deadline, request.url)
        except (FetchError, InvalidURL):
            raise
        except ssl.SSLError as exc:
            raise FetchError(
                f"TLS failure talking to {host}:{port}: {exc}", url=request.url, kind="tls"
            ) from exc
        except OSError as exc:
            raise os_error(exc, request.url, f"{host}:{port}") from exc
        finally:
            await _close(writer)
        return FetchResponse(
            url=request.url,
            protocol="gemini",
            status=status,
            body=body,
            meta=meta,
            truncated=truncated,
            elapsed=time.monotonic() - started,
        )

    async def _connect(
        self, host: str, port: int, deadline: _Deadline, url: str
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        # server_hostname sends SNI (the stdlib leaves it out for IP literals, as RFC 6066 3 asks).
        if not self._public_only:
            return await deadline.run(
                asyncio.open_connection(host, port, ssl=self._ctx, server_hostname=host), "connecting to"
            )
        # Resolve, check every address, and connect to those checked (never to the name again).
        loop = asyncio.get_running_loop()
        infos = await deadline.run(loop.getaddrinfo(host, port, type=socket.SOCK_STREAM), "resolving")
        addresses = check_public(host, addresses_of(infos), url)
        for address in addresses[:-1]:
            try:
                return await deadline.run(
                    asyncio.open_connection(address, port, ssl=self._ctx, server_hostname=host),
                    "connecting to",
                )
            except ConnectionError:
                continue  # refused or unreachable: the next address (IPv6 may come first without a route)
        return await deadline.run(
            asyncio.open_connection(addresses[-1], port, ssl=self._ctx, server_hostname=host), "connecting to"
        )

    def _pin(self, writer: asyncio.StreamWriter, host: str, port: int, url: str) -> None:
        sslobj = writer.get_extra_info("ssl_object")
        der = sslobj.getpeercert(binary_form=True) if sslobj is not None else None
        if not der:
            raise FetchError(f"{host}:{port} presented no certificate", url=url, kind="tls")
        self.tofu.check(host, port, hashlib.sha256(der).hexdigest(), expires=cert_not_after(der), url=url)

    async def _header(
        self, reader: asyncio.StreamReader, deadline: _Deadline, url: str
    ) -> tuple[int, str, bytes]:
        buf = b""
        while b"\r\n" not in buf:
            if len(buf) > _MAX_HEADER:
                raise ProtocolViolation(f"Gemini response header longer than {_MAX_HEADER} bytes", url=url)
            chunk = await deadline.run(reader.read(4096), "waiting for the response header from")
            if not chunk:
                if not buf:
                    raise FetchError(f"closed without a response: {url}", url=url, kind="reset")
                raise ProtocolViolation(f"Gemini response header not ended by CRLF: {buf[:40]!r}", url=url)
            buf += chunk
        line, rest = buf.split(b"\r\n", 1)
        if len(line) + 2 > _MAX_HEADER:
            raise ProtocolViolation(f"Gemini response header longer than {_MAX_HEADER} bytes", url=url)
        status, meta = parse_header(line, url)
        return status, meta, rest

    async def _body(
        self, reader: asyncio.StreamReader, rest: bytes, limit: int, deadline: _Deadline, url: str
    ) -> tuple[bytes, bool]:
        body = bytearray(rest)
        while len(body) <= limit:
            try:
                chunk = await deadline.run(reader.read(65536), "reading the body of")
            except ssl.SSLError as exc:
                # An EOF without close_notify on builds lacking OP_IGNORE_UNEXPECTED_EOF.
                if "EOF" in str(exc) or "eof" in str(exc):
                    break
                raise
            if not chunk:
                break
            body += chunk
        return bytes(body[:limit]), len(body) > limit


async def _close(writer: asyncio.StreamWriter) -> None:
    """Close politely but briefly: a peer that never answers close_notify must not stall us."""
    writer.close()
    try:
        await asyncio.wait_for(writer.wait_closed(), 0.25)
    except Exception:  # a timeout or a transport error: drop the connection instead
        writer.transport.abort()


class GeminiFetcher:
    """Synchronous Gemini `Fetcher`: runs `AsyncGeminiFetcher` in a private event loop.

    Called from a thread that already runs an event loop, the fetch runs in a helper thread
    so it never blocks on (or nests inside) the caller's loop.
    """

    def __init__(
        self,
        tofu: TofuStore | None = None,
        *,
        ssl_context: ssl.SSLContext | None = None,
        public_only: bool = False,
    ) -> None:
        self._async = AsyncGeminiFetcher(tofu, ssl_context=ssl_context, public_only=public_only)
        self.tofu = self._async.tofu

    def fetch(self, request: FetchRequest) -> FetchResponse:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self._async.fetch(request))
        with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="robotskit-gemini") as pool:
            return pool.submit(asyncio.run, self._async.fetch(request)).result()

    def close(self) -> None:
        """Nothing to release: every fetch opens and closes its own connection."""
