"""HTTP and HTTPS fetch adapters on httpx: one request, no redirect following, bounded body.

This module owns everything robotskit does on an HTTP socket:
- the caller's User-Agent header on every request;
- a total deadline for the whole fetch (`request.timeout`): every socket operation gets the time
  left (robotskit.fetch._transport), so dripping a status line or headers cannot stretch it;
- connection limits per authority, not one pool shared by all hosts, and opt-in `public_only`
  (only public addresses, checked on the resolved address);
- no automatic redirects: a 3xx comes back as it is, with its `location` header, because the
  policy counts hops and keeps the rules on the original authority (SPEC.md section 6);
- a body read that stops at `max_bytes` *after* decompression. httpx's `iter_bytes()` inflates
  a whole network chunk at once (a 10 KB gzip chunk can become 10 MB), so the raw bytes are read
  with `iter_raw()` and inflated here with `zlib`'s `max_length`, never past the limit
  (SPEC.md section 6: "compressed bodies are limited after decompression");
- bounded decoding work, since a body that decodes to nothing never reaches that limit: at most
  `MAX_GZIP_MEMBERS` gzip members per coding, at most `_WORK_FACTOR` x the limit of bytes passed
  between stacked codings (both `ProtocolViolation`), and the deadline checked inside the decode
  loop (`FetchTimeout`), since one small network chunk can hold seconds of inflating;
- httpx exceptions mapped onto robotskit.errors (see `_map_error`).

The adapters are thin drivers around shared helpers so sync and async behave the same.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import ssl
import time
import zlib
from collections.abc import AsyncGenerator, AsyncIterator, Iterator
from contextlib import aclosing
from types import TracebackType
from typing import TypeVar, cast
from urllib.parse import urlsplit

import httpx

from robotskit.errors import FetchError, FetchTimeout, InvalidArgument, InvalidURL, ProtocolViolation
from robotskit.fetch._transport import AsyncDeadlineTransport, DeadlineTransport
from robotskit.fetch._transport import deadline as total_deadline
from robotskit.policy.messages import MAX_CODINGS, MAX_GZIP_MEMBERS, FetchRequest, FetchResponse

__all__ = ["AsyncHttpFetcher", "HttpFetcher"]

log = logging.getLogger(__name__)

# Only encodings this module can inflate with a bounded output are advertised; a server that
# sends another one anyway (br, zstd) has its body passed through undecoded, as httpx does.
_ACCEPT_ENCODING = "gzip, deflate"
_PULL = 64 * 1024
# Bytes one coding may hand the next, as a multiple of (limit + one pull). An honest inner
# layer is compressed, so smaller than the limit; a hostile one (empty members or empty deflate
# blocks, from a few KB on the wire through stacked bombs) is CPU spent on no output.
_WORK_FACTOR = 16


class _Stage:
    """One content-coding layer; `read(n)` never produces more than `n` bytes."""

    def __init__(self, coding: str) -> None:
        self._coding = coding
        self._pending = b""
        self._z = self._new()
        self._deflate_probe = coding == "deflate"
        self._members = 0

    def _new(self) -> zlib._Decompress | None:
        if self._coding in ("gzip", "x-gzip"):
            return zlib.decompressobj(zlib.MAX_WBITS | 16)
        if self._coding == "deflate":
            return zlib.decompressobj()
        return None  # identity, or a coding we pass through

    def feed(self, data: bytes) -> None:
        self._pending += data

    def read(self, n: int) -> bytes:
        """Up to `n` decoded bytes from the input fed so far ("" when it needs more input)."""
        z = self._z
        if z is None:
            out, self._pending = self._pending[:n], self._pending[n:]
            return out
        while self._pending:
            data, self._pending = self._pending, b""
            try:
                out = z.decompress(data, n)
            except zlib.error as exc:
                if self._deflate_probe:
                    # RFC 9110 8.4.1.2 says zlib-wrapped, but servers send raw deflate too.
                    self._deflate_probe = False
                    self._z = z = zlib.decompressobj(-zlib.MAX_WBITS)
                    self._pending = data
                    continue
                if self._members:
                    return b""  # junk after a complete gzip member: ignore it, as browsers do
                raise ProtocolViolation(f"cannot decode {self._coding} body: {exc}") from exc
            self._deflate_probe = False
            self._pending = z.unconsumed_tail
            if z.eof and z.unused_data:
                # Concatenated gzip members: start a new decompressor on what follows.
                self._members += 1
                if self._members >= MAX_GZIP_MEMBERS:
                    raise ProtocolViolation(
                        f"more than {MAX_GZIP_MEMBERS} {self._coding} members in one body"
                    )
                self._pending = z.unused_data + self._pending
                self._z = z = self._new() or z
            if out:
                return out
        return b""


class _BoundedDecoder:
    """Raw body chunks in, at most `limit + 1` decoded bytes out (the extra byte flags truncation).

    `deadline` (time.monotonic()) is checked between decode steps: FetchTimeout for `url` past it.
    """

    def __init__(self, content_encoding: str, limit: int, deadline: float = math.inf, url: str = "") -> None:
        codings = [c.strip().lower() for c in content_encoding.split(",") if c.strip()]
        if len(codings) > MAX_CODINGS:
            raise ProtocolViolation(
                f"{len(codings)} content codings stacked (at most {MAX_CODINGS} are read)"
            )
        # RFC 9110 8.4: codings are listed in the order applied, so decode in reverse.
        self._stages = [_Stage(c) for c in reversed(codings)] or [_Stage("identity")]
        self._limit = limit
        self._deadline = deadline
        self._url = url
        # Bytes the inner codings may still hand on (see _WORK_FACTOR).
        self._budget = _WORK_FACTOR * (limit + _PULL)
        self.body = bytearray()

    @property
    def full(self) -> bool:
        return len(self.body) > self._limit

    def _read(self, k: int, n: int) -> bytes:
        # Recursion depth is the number of codings, at most MAX_CODINGS.
        while True:
            # Every step below is bounded (one zlib call of at most a pull or the limit), so a
            # check per step ends a CPU-bound decode on time, in the async adapter too, whose
            # wait_for cannot interrupt code that never awaits.
            if time.monotonic() > self._deadline:
                raise FetchTimeout(f"timed out decoding {self._url}", url=self._url)
            out = self._stages[k].read(n)
            if out or k == 0:
                return out
            src = self._read(k - 1, _PULL)
            if not src:
                return b""
            self._budget -= len(src)
            if self._budget < 0:
                raise ProtocolViolation(
                    f"content codings of {self._url or 'a body'} expand past "
                    f"{_WORK_FACTOR}x the size limit between layers",
                    url=self._url,
                )
            self._stages[k].feed(src)

    def feed(self, raw: bytes) -> None:
        self._stages[0].feed(raw)
        while not self.full:
            out = self._read(len(self._stages) - 1, self._limit + 1 - len(self.body))
            if not out:
                return
            self.body += out

    def result(self) -> tuple[bytes, bool]:
        truncated = self.full
        return bytes(self.body[: self._limit]), truncated


def _headers(request: FetchRequest) -> dict[str, str]:
    headers = {k: v for k, v in request.headers.items() if k.lower() not in ("user-agent", "accept-encoding")}
    headers["User-Agent"] = request.user_agent
    headers["Accept-Encoding"] = _ACCEPT_ENCODING
    headers.setdefault("Accept", "*/*")
    return headers


def _request(request: FetchRequest) -> httpx.Request:
    """The httpx request for `request`; InvalidURL for a URL httpx cannot encode (a bad IDN label)."""
    if urlsplit(request.url).scheme.lower() not in ("http", "https"):
        raise InvalidURL(
            f"cannot fetch {request.url!r} over HTTP: not an http:// or https:// URL", request.url
        )
    try:
        return httpx.Request(
            "GET",
            request.url,
            headers=_headers(request),
            extensions={"timeout": httpx.Timeout(request.timeout).as_dict()},
        )
    except (httpx.InvalidURL, httpx.UnsupportedProtocol, ValueError) as exc:  # idna errors are UnicodeErrors
        raise InvalidURL(f"cannot fetch {request.url!r} over HTTP: {exc}", request.url) from exc


def _chain(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        yield cur
        cur = cur.__cause__ or cur.__context__


def _map_error(exc: Exception, url: str) -> FetchError | InvalidURL:
    """httpx (and socket) exceptions -> robotskit.errors, with the kind the policy reports."""
    if isinstance(exc, (httpx.TimeoutException, TimeoutError, asyncio.TimeoutError)):
        return FetchTimeout(f"timed out fetching {url}", url=url)
    if isinstance(exc, (httpx.UnsupportedProtocol, httpx.InvalidURL)):
        # The request URL was already accepted (`_request`): this is a caller-supplied httpx
        # client choking on the server's Location header while preparing its next request.
        return ProtocolViolation(f"unusable response from {url}: {exc}", url=url)
    causes = list(_chain(exc))
    text = " ".join(str(c) for c in causes)
    if any(isinstance(c, ssl.SSLError) for c in causes) or "SSL" in text or "CERTIFICATE" in text:
        return FetchError(f"TLS failure fetching {url}: {exc}", url=url, kind="tls")
    if isinstance(exc, httpx.ConnectError):
        if "name" in text.lower() and ("resolution" in text or "known" in text or "getaddrinfo" in text):
            return FetchError(f"DNS lookup failed for {url}: {exc}", url=url, kind="dns")
        return FetchError(f"cannot connect to {url}: {exc}", url=url, kind="connection")
    if any(isinstance(c, ConnectionResetError) for c in causes):
        return FetchError(f"connection reset fetching {url}: {exc}", url=url, kind="reset")
    if isinstance(exc, httpx.RemoteProtocolError):
        # h11 says "peer closed connection without sending complete message body" or
        # "Server disconnected without sending a response": the peer hung up, not a grammar error.
        if "peer closed" in text or "disconnected" in text:
            return FetchError(f"connection closed early fetching {url}: {exc}", url=url, kind="reset")
        return ProtocolViolation(f"malformed HTTP response from {url}: {exc}", url=url)
    if isinstance(exc, (httpx.ReadError, httpx.WriteError)):
        return FetchError(f"connection broken fetching {url}: {exc}", url=url, kind="reset")
    return FetchError(f"HTTP fetch of {url} failed: {exc}", url=url, kind="connection")


def _response(
    request: FetchRequest, resp: httpx.Response, decoder: _BoundedDecoder, started: float
) -> FetchResponse:
    body, truncated = decoder.result()
    return FetchResponse(
        url=request.url,
        protocol="http",
        status=resp.status_code,
        body=body,
        # httpx lower-cases names in items() and joins repeated fields with ", ".
        headers={k.lower(): v for k, v in resp.headers.items()},
        truncated=truncated,
        elapsed=time.monotonic() - started,
    )


def _ssl_context(verify: bool | ssl.SSLContext, trust_env: bool) -> ssl.SSLContext:
    if isinstance(verify, ssl.SSLContext):
        return verify
    # trust_env here means SSL_CERT_FILE / SSL_CERT_DIR only: see the fetcher docstrings.
    return httpx.create_ssl_context(verify=verify, trust_env=trust_env)


def _check_proxy(proxy: str | None, public_only: bool) -> None:
    if proxy is not None and public_only:
        # The proxy resolves and connects, so the addresses cannot be checked here.
        raise InvalidArgument("public_only cannot be enforced through a proxy; use one or the other")


_Transport = TypeVar("_Transport", DeadlineTransport, AsyncDeadlineTransport)


def _own_transport(
    kind: type[_Transport],
    client: httpx.Client | httpx.AsyncClient | None,
    verify: bool | ssl.SSLContext,
    trust_env: bool,
    public_only: bool,
    per_authority: int,
    proxy: str | None,
) -> _Transport | None:
    """The fetcher's own transport; None when the caller brought a client (its transport rules)."""
    if client is not None:
        return None
    _check_proxy(proxy, public_only)
    return kind(
        ssl_context=_ssl_context(verify, trust_env),
        public_only=public_only,
        per_authority=per_authority,
        proxy=proxy,
    )


class HttpFetcher:
    """Synchronous HTTP/HTTPS `Fetcher` on httpx, through robotskit's deadline transport.

    `request.timeout` is a total deadline: connect, TLS, the request, the status line, the
    headers and the body all end by it, however slowly the server sends. At most
    `per_authority` connections are open to one scheme://host:port at a time; other hosts
    never wait for them. `public_only=True` refuses (FetchError kind "not-public") any host
    that resolves to a loopback, private, link-local, multicast or reserved address.
    `trust_env` reads SSL_CERT_FILE / SSL_CERT_DIR; proxies and .netrc credentials from the
    environment are never used (a crawler should not send a user's credentials to a site):
    name a proxy explicitly with `proxy="http://proxy:3128"` (the deadline and the limits per
    authority still hold; `public_only` cannot be combined with it).
    With your own `client`, its transport sets the limits and only the body reads are bounded
    by the deadline.
    """

    def __init__(
        self,
        *,
        client: httpx.Client | None = None,
        verify: bool | ssl.SSLContext = True,
        trust_env: bool = True,
        public_only: bool = False,
        per_authority: int = 4,
        proxy: str | None = None,
    ) -> None:
        self._owns = client is None
        # Our own transport is driven directly: httpx's Client would parse every Location
        # itself (raising on hostile ones), add .netrc credentials and follow env proxies.
        self._transport = _own_transport(
            DeadlineTransport, client, verify, trust_env, public_only, per_authority, proxy
        )
        self._client = client

    @contextlib.contextmanager
    def _open(self, request: FetchRequest) -> Iterator[httpx.Response]:
        req = _request(request)
        if self._transport is not None:
            resp = self._transport.handle_request(req)
            resp.request = req
        else:
            assert self._client is not None
            resp = self._client.send(req, stream=True, follow_redirects=False)
        try:
            yield resp
        finally:
            resp.close()

    def fetch(self, request: FetchRequest) -> FetchResponse:
        started = time.monotonic()
        deadline = started + request.timeout
        try:
            with total_deadline(request.timeout), self._open(request) as resp:
                decoder = _BoundedDecoder(
                    resp.headers.get("content-encoding", ""), request.max_bytes, deadline, request.url
                )
                for raw in resp.iter_raw():
                    decoder.feed(raw)
                    if decoder.full:
                        break
                    if time.monotonic() > deadline:
                        raise FetchTimeout(f"timed out reading {request.url}", url=request.url)
                return _response(request, resp, decoder, started)
        except (FetchError, InvalidURL):
            raise
        except (httpx.HTTPError, httpx.InvalidURL, OSError) as exc:
            raise _map_error(exc, request.url) from exc

    def close(self) -> None:
        """Close the connection pool (only if this fetcher created it)."""
        if self._transport is not None:
            self._transport.close()
        elif self._owns and self._client is not None:
            self._client.close()

    def __enter__(self) -> HttpFetcher:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


class AsyncHttpFetcher:
    """Asynchronous HTTP/HTTPS `AsyncFetcher` on httpx (asyncio), through robotskit's transport.

    The total deadline is exact: the whole fetch runs under `asyncio.wait_for`. Limits per
    authority, `public_only` and `trust_env` as for `HttpFetcher`.
    """

    def __init__(
        self,
        *,
        client: httpx.AsyncClient | None = None,
        verify: bool | ssl.SSLContext = True,
        trust_env: bool = True,
        public_only: bool = False,
        per_authority: int = 4,
        proxy: str | None = None,
    ) -> None:
        self._owns = client is None
        self._transport = _own_transport(
            AsyncDeadlineTransport, client, verify, trust_env, public_only, per_authority, proxy
        )
        self._client = client

    async def fetch(self, request: FetchRequest) -> FetchResponse:
        try:
            return await asyncio.wait_for(self._fetch(request), request.timeout)
        except (FetchError, InvalidURL):
            raise
        except (TimeoutError, httpx.HTTPError, httpx.InvalidURL, OSError) as exc:
            raise _map_error(exc, request.url) from exc

    @contextlib.asynccontextmanager
    async def _open(self, request: FetchRequest) -> AsyncIterator[httpx.Response]:
        req = _request(request)
        if self._transport is not None:
            resp = await self._transport.handle_async_request(req)
            resp.request = req
        else:
            assert self._client is not None
            resp = await self._client.send(req, stream=True, follow_redirects=False)
        try:
            yield resp
        finally:
            await resp.aclose()

    async def _fetch(self, request: FetchRequest) -> FetchResponse:
        started = time.monotonic()
        async with self._open(request) as resp:
            decoder = _BoundedDecoder(
                resp.headers.get("content-encoding", ""),
                request.max_bytes,
                started + request.timeout,
                request.url,
            )
            # aclosing: leaving the loop early must finalise the generator here, not in the GC.
            raw_iter = cast(AsyncGenerator[bytes, None], resp.aiter_raw())
            async with aclosing(raw_iter):
                async for raw in raw_iter:
                    decoder.feed(raw)
                    if decoder.full:
                        break
            return _response(request, resp, decoder, started)

    async def aclose(self) -> None:
        """Close the connection pool (only if this fetcher created it)."""
        if self._transport is not None:
            await self._transport.aclose()
        elif self._owns and self._client is not None:
            await self._client.aclose()

    async def __aenter__(self) -> AsyncHttpFetcher:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()
