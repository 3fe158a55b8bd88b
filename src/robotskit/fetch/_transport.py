"""The httpx transports the HTTP adapters run on: a total deadline, hosts isolated, public_only.

httpx's own transports give a timeout *per read*: a server that sends one byte every second
never trips a 10 s read timeout and holds a fetch forever. And their one pool of 100
connections is shared by every host, so 100 stalled hosts make every other fetch wait. These
transports sit on httpcore's connection pool with three changes:

- every socket operation (connect, TLS handshake, each read and write) gets the time *left*
  until the fetch's deadline as its timeout, so the whole exchange, status line and headers
  included, ends by the deadline however the server paces its bytes. The deadline is set by the
  adapter for the duration of one fetch (`deadline()`), in a context variable, so a pooled
  connection reused by a later fetch obeys that fetch's deadline;
- no global connection limit, but at most `per_authority` connections per scheme, host and port
  at a time: a stalled host can only hold its own slots;
- `public_only`: the host name is resolved here, every address it resolves to must be public
  (not loopback, private, link-local, multicast, reserved or unspecified), and the connection is
  made to the address that was checked, so a second DNS answer cannot swap it.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import ssl
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from contextvars import ContextVar
from typing import Generic, TypeVar

import httpcore
import httpx

from robotskit.errors import InvalidArgument
from robotskit.fetch._addresses import addresses_of, check_public, resolve
from robotskit.policy.messages import DEFAULT_TIMEOUT

__all__ = ["AsyncDeadlineTransport", "DeadlineTransport", "deadline", "time_left"]

# _NO_KEEPALIVE: one connection per request. A crawler asks each authority for robots.txt once
# a day, so a kept-alive connection is almost never reused; when it is (a redirect to the same
# host), a server that closed it silently turns a good answer into "Server disconnected without
# sending a response". A fresh connection costs a handshake and never that.

_DEADLINE: ContextVar[float | None] = ContextVar("robotskit_fetch_deadline", default=None)

# httpcore raises its own exception classes; httpx's transport maps them onto httpx's, which is
# what the adapters' error mapping reads. The most specific class comes first.
_HTTPCORE_ERRORS: tuple[tuple[type[Exception], type[httpx.TransportError]], ...] = (
    (httpcore.ConnectTimeout, httpx.ConnectTimeout),
    (httpcore.ReadTimeout, httpx.ReadTimeout),
    (httpcore.WriteTimeout, httpx.WriteTimeout),
    (httpcore.PoolTimeout, httpx.PoolTimeout),
    (httpcore.TimeoutException, httpx.TimeoutException),
    (httpcore.ConnectError, httpx.ConnectError),
    (httpcore.ReadError, httpx.ReadError),
    (httpcore.WriteError, httpx.WriteError),
    (httpcore.NetworkError, httpx.NetworkError),
    (httpcore.UnsupportedProtocol, httpx.UnsupportedProtocol),
    (httpcore.LocalProtocolError, httpx.LocalProtocolError),
    (httpcore.RemoteProtocolError, httpx.RemoteProtocolError),
    (httpcore.ProtocolError, httpx.ProtocolError),
)


@contextlib.contextmanager
def _httpx_errors() -> Iterator[None]:
    try:
        yield
    except Exception as exc:
        for source, target in _HTTPCORE_ERRORS:
            if isinstance(exc, source):
                raise target(str(exc)) from exc
        raise


@contextlib.contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Every socket operation of the transports inside this block ends `seconds` from now."""
    token = _DEADLINE.set(time.monotonic() + seconds)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def time_left(timeout: float | None) -> float | None:
    """`timeout` shortened to what is left of the current deadline; ReadTimeout once it passed."""
    end = _DEADLINE.get()
    if end is None:
        return timeout
    left = end - time.monotonic()
    if left <= 0:
        raise httpcore.ReadTimeout("the fetch's total deadline passed")
    return left if timeout is None else min(timeout, left)


def _no_such_host(host: str, exc: OSError) -> httpcore.ConnectError:
    # Worded as httpx words it, so the adapter reports the `dns` kind.
    return httpcore.ConnectError(f"[Errno {exc.errno}] Name or service not known: {host} ({exc})")


class _Attempts:
    """Connection attempts to a host's addresses, one per address in the resolver's order.

    `with attempts.one(): return connect(address)` in a loop over the addresses: a refused
    address is remembered and the loop goes on to the next (IPv6 first may have no route).
    """

    def __init__(self, host: str) -> None:
        self._host = host
        self._failure: httpcore.ConnectError | None = None

    @contextlib.contextmanager
    def one(self) -> Iterator[None]:
        try:
            yield
        except httpcore.ConnectError as exc:
            self._failure = exc

    def failed(self) -> httpcore.ConnectError:
        """The error once every address failed: the last one's, or none resolved."""
        return self._failure or httpcore.ConnectError(f"no address for {self._host}")


class _DeadlineStream(httpcore.NetworkStream):
    """A network stream whose every operation is bounded by the current fetch's deadline.

    Each call is one `recv`/`sendall`/handshake with a socket timeout: a plain `recv` returns as
    soon as any byte arrives, and CPython bounds a whole `sendall`, TLS read or TLS handshake by
    its timeout (not each underlying read), so no call outlives the deadline.
    """

    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, time_left(timeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        # One write may block for up to the time left; sendall loops inside with that timeout.
        self._inner.write(buffer, time_left(timeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self, ssl_context: ssl.SSLContext, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore.NetworkStream:
        return _DeadlineStream(self._inner.start_tls(ssl_context, server_hostname, time_left(timeout)))

    def get_extra_info(self, info: str) -> object:
        return self._inner.get_extra_info(info)


class _Backend(httpcore.NetworkBackend):
    def __init__(self, public_only: bool) -> None:
        self._inner = httpcore.SyncBackend()
        self._public_only = public_only

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.NetworkStream:
        left = time_left(timeout)
        try:
            # Resolved here, not in socket.create_connection: a hung resolver ends at the deadline.
            addresses = resolve(host, port, left if left is not None else DEFAULT_TIMEOUT)
        except socket.gaierror as exc:
            raise _no_such_host(host, exc) from exc
        if self._public_only:
            check_public(host, addresses)
        attempts = _Attempts(host)
        for address in addresses:
            with attempts.one():
                return _DeadlineStream(
                    self._inner.connect_tcp(address, port, time_left(timeout), local_address, socket_options)
                )
        raise attempts.failed()

    def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.NetworkStream:
        raise httpcore.UnsupportedProtocol("robotskit fetches over TCP only")


class _AsyncStream(httpcore.AsyncNetworkStream):
    """Closes the TCP stream when a TLS handshake is cancelled (the fetch's deadline passed).

    httpcore closes it on a handshake *error* but not on cancellation, which would leave the
    socket to the garbage collector.
    """

    def __init__(self, inner: httpcore.AsyncNetworkStream) -> None:
        self._inner = inner

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return await self._inner.read(max_bytes, timeout)

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        await self._inner.write(buffer, timeout)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def start_tls(
        self, ssl_context: ssl.SSLContext, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore.AsyncNetworkStream:
        try:
            return await self._inner.start_tls(ssl_context, server_hostname, timeout)
        except asyncio.CancelledError:
            raw = self._inner.get_extra_info("socket")
            if isinstance(raw, socket.socket):
                with contextlib.suppress(OSError):
                    raw.shutdown(socket.SHUT_RDWR)
            with contextlib.suppress(Exception):
                await asyncio.shield(self._inner.aclose())
            raise

    def get_extra_info(self, info: str) -> object:
        return self._inner.get_extra_info(info)


class _AsyncBackend(httpcore.AsyncNetworkBackend):
    """The async adapter runs its whole fetch under `asyncio.wait_for`; this adds public_only."""

    def __init__(self, public_only: bool) -> None:
        self._inner = httpcore.AnyIOBackend()
        self._public_only = public_only

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        if not self._public_only:
            return _AsyncStream(
                await self._inner.connect_tcp(host, port, timeout, local_address, socket_options)
            )
        loop = asyncio.get_running_loop()
        try:
            infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except socket.gaierror as exc:
            raise _no_such_host(host, exc) from exc
        attempts = _Attempts(host)
        for address in check_public(host, addresses_of(infos)):  # connect to what was checked
            with attempts.one():
                return _AsyncStream(
                    await self._inner.connect_tcp(address, port, timeout, local_address, socket_options)
                )
        raise attempts.failed()

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        raise httpcore.UnsupportedProtocol("robotskit fetches over TCP only")

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


_Sem = TypeVar("_Sem", threading.BoundedSemaphore, asyncio.Semaphore)


class _Slots(Generic[_Sem]):
    """Semaphores per authority, created on first use and dropped when no fetch holds one."""

    def __init__(self, per_authority: int, make: Callable[[int], _Sem]) -> None:
        self._per_authority = per_authority
        self._make: Callable[[int], _Sem] = make
        self._slots: dict[tuple[bytes, bytes, int | None], tuple[_Sem, int]] = {}
        self._lock = threading.Lock()

    def enter(self, key: tuple[bytes, bytes, int | None]) -> _Sem:
        with self._lock:
            sem, users = self._slots.get(key) or (self._make(self._per_authority), 0)
            self._slots[key] = (sem, users + 1)
            return sem

    def leave(self, key: tuple[bytes, bytes, int | None]) -> None:
        with self._lock:
            sem, users = self._slots[key]
            if users <= 1:
                del self._slots[key]
            else:
                self._slots[key] = (sem, users - 1)

    @contextlib.contextmanager
    def claim(self, key: tuple[bytes, bytes, int | None]) -> Iterator[_Sem]:
        """The authority's semaphore, to acquire in the block; left again if the block fails."""
        sem = self.enter(key)
        try:
            yield sem
        except BaseException:
            self.leave(key)
            raise

    @contextlib.contextmanager
    def freed_on_error(self, key: tuple[bytes, bytes, int | None], sem: _Sem) -> Iterator[None]:
        """Around the request on an acquired slot: httpx's errors, and the slot freed on any failure."""
        try:
            with _httpx_errors():
                yield
        except BaseException:
            self.free(key, sem)
            raise

    def free(self, key: tuple[bytes, bytes, int | None], sem: _Sem) -> None:
        """Give back an acquired slot (the request failed, or its response body was closed)."""
        sem.release()
        self.leave(key)


def _core_request(request: httpx.Request) -> httpcore.Request:
    return httpcore.Request(
        method=request.method,
        url=httpcore.URL(
            scheme=request.url.raw_scheme,
            host=request.url.raw_host,
            port=request.url.port,
            target=request.url.raw_path,
        ),
        headers=request.headers.raw,
        content=request.stream,
        extensions=request.extensions,
    )


def _key(request: httpx.Request) -> tuple[bytes, bytes, int | None]:
    return request.url.raw_scheme, request.url.raw_host, request.url.port


def _pool_timeout(request: httpx.Request) -> float | None:
    timeouts = request.extensions.get("timeout", {})
    pool = timeouts.get("pool") if isinstance(timeouts, dict) else None
    return pool if isinstance(pool, (int, float)) else None


class _SlotBody:
    """A response body holding its authority's connection slot; its first close frees it."""

    def __init__(self, free: Callable[[], None]) -> None:
        self._free = free
        self._closed = False

    @contextlib.contextmanager
    def _closing(self) -> Iterator[bool]:
        """Whether this is the first close; after that block (even if it raised) the slot is free."""
        first = not self._closed
        self._closed = True
        try:
            yield first
        finally:
            if first:
                self._free()


class _ReleasingStream(_SlotBody, httpx.SyncByteStream):
    """The response body; closing it frees the authority's connection slot."""

    def __init__(self, inner: Iterable[bytes], free: Callable[[], None]) -> None:
        super().__init__(free)
        self._inner = inner

    def __iter__(self) -> Iterator[bytes]:
        with _httpx_errors():
            yield from self._inner

    def close(self) -> None:
        with self._closing() as first:
            closer = getattr(self._inner, "close", None)  # httpcore's pool stream returns the connection
            if first and closer is not None:
                closer()


def _response(
    resp: httpcore.Response, stream: httpx.SyncByteStream | httpx.AsyncByteStream
) -> httpx.Response:
    return httpx.Response(
        status_code=resp.status, headers=resp.headers, stream=stream, extensions=resp.extensions
    )


_Pool = TypeVar("_Pool")


def _pool(
    direct: Callable[..., _Pool],
    through_proxy: Callable[..., _Pool],
    backend: Callable[[bool], object],
    ssl_context: ssl.SSLContext,
    public_only: bool,
    proxy: str | None,
) -> _Pool:
    """httpcore's pool: no shared connection limit (limits are per authority), no keep-alive."""
    if proxy is None:
        return direct(
            ssl_context=ssl_context,
            max_connections=None,
            max_keepalive_connections=0,  # see _NO_KEEPALIVE
            network_backend=backend(public_only),
        )
    # Through a proxy the socket operations (to the proxy) are bounded as without one.
    url, auth = _proxy(proxy)
    return through_proxy(
        proxy_url=url,
        proxy_auth=auth,
        ssl_context=ssl_context,
        max_connections=None,
        max_keepalive_connections=0,
        network_backend=backend(False),
    )


def _proxy(proxy: str) -> tuple[httpcore.URL, tuple[bytes, bytes] | None]:
    """An http:// or https:// proxy URL as httpcore takes it; its userinfo becomes Proxy-Authorization."""
    try:
        parsed = httpx.Proxy(proxy)
    except (ValueError, httpx.InvalidURL) as exc:
        raise InvalidArgument(f"cannot use proxy {proxy!r}: {exc}") from exc
    if parsed.url.scheme not in ("http", "https"):
        raise InvalidArgument(f"proxy must be an http:// or https:// URL, got {proxy!r}")
    url = httpcore.URL(
        scheme=parsed.url.raw_scheme,
        host=parsed.url.raw_host,
        port=parsed.url.port,
        target=parsed.url.raw_path,
    )
    return url, parsed.raw_auth


def _acquire(sem: threading.BoundedSemaphore, request: httpx.Request) -> None:
    with _httpx_errors():
        got = sem.acquire(timeout=time_left(_pool_timeout(request)))
    if not got:
        raise httpx.PoolTimeout(f"no free connection slot for {request.url.host}")


class DeadlineTransport(httpx.BaseTransport):
    """Sync transport: deadline-bounded sockets, `per_authority` connections per host, public_only."""

    def __init__(
        self,
        *,
        ssl_context: ssl.SSLContext,
        public_only: bool = False,
        per_authority: int = 4,
        proxy: str | None = None,
    ) -> None:
        self._pool: httpcore.ConnectionPool = _pool(
            httpcore.ConnectionPool, httpcore.HTTPProxy, _Backend, ssl_context, public_only, proxy
        )
        self._slots = _Slots(per_authority, threading.BoundedSemaphore)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        key = _key(request)
        with self._slots.claim(key) as sem:
            _acquire(sem, request)
        with self._slots.freed_on_error(key, sem):
            resp = self._pool.handle_request(_core_request(request))
        body = _ReleasingStream(resp.stream, lambda: self._slots.free(key, sem))  # type: ignore[arg-type]
        return _response(resp, body)

    def close(self) -> None:
        self._pool.close()


class _AsyncReleasingStream(_SlotBody, httpx.AsyncByteStream):
    """The response body; closing it frees the authority's connection slot."""

    def __init__(self, inner: AsyncIterator[bytes], free: Callable[[], None]) -> None:
        super().__init__(free)
        self._inner = inner

    async def __aiter__(self) -> AsyncIterator[bytes]:
        with _httpx_errors():
            async for part in self._inner:
                yield part

    async def aclose(self) -> None:
        with self._closing() as first:
            closer = getattr(self._inner, "aclose", None)
            if first and closer is not None:
                await closer()


class AsyncDeadlineTransport(httpx.AsyncBaseTransport):
    """Async transport: `per_authority` connections per host and public_only (deadline: the adapter)."""

    def __init__(
        self,
        *,
        ssl_context: ssl.SSLContext,
        public_only: bool = False,
        per_authority: int = 4,
        proxy: str | None = None,
    ) -> None:
        self._pool: httpcore.AsyncConnectionPool = _pool(
            httpcore.AsyncConnectionPool,
            httpcore.AsyncHTTPProxy,
            _AsyncBackend,
            ssl_context,
            public_only,
            proxy,
        )
        self._slots = _Slots(per_authority, asyncio.Semaphore)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        key = _key(request)
        with self._slots.claim(key) as sem:
            await sem.acquire()  # bounded by the adapter's asyncio.wait_for
        with self._slots.freed_on_error(key, sem):
            resp = await self._pool.handle_async_request(_core_request(request))
        body = _AsyncReleasingStream(resp.stream, lambda: self._slots.free(key, sem))  # type: ignore[arg-type]
        return _response(resp, body)

    async def aclose(self) -> None:
        await self._pool.aclose()
