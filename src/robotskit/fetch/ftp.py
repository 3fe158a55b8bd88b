"""FTP fetch adapter on the standard library's ftplib: anonymous login, passive mode, bounded RETR.

This module owns the FTP exchange for `ftp://host[:port]/robots.txt`:
- login as `anonymous` (or the user and password in the URL), binary type, passive mode;
- `RETR <path>` streamed and cut at `max_bytes` (the transfer is dropped, not drained);
- FTP replies become statuses, not exceptions, so the policy can map them (SPEC.md section 6):
  a permanent or transient refusal at login (530, 421, ...) or at RETR (550 no such file, 450, ...)
  is returned as `FetchResponse(status=<code>, meta=<reply text>)`; a completed transfer is the
  final reply code (226 or 250) with the body;
- socket failures become `FetchError` kinds and a garbled reply a `ProtocolViolation`;
- `request.timeout` is a total deadline for the control *and* data connections: a watchdog
  shuts both sockets down when it passes, so a server dripping its banner or a reply one byte
  at a time (each read well inside any per-read timeout) still ends the fetch on time;
- `public_only=True` resolves the host, refuses a non-public address and connects to the
  address it checked (passive data connections go to that same address: ftplib ignores the
  address in a PASV reply).
`AsyncFtpFetcher` runs the same code in a thread of its own per fetch, its deadline counted from
the call (not from when a thread is free): stalled FTP hosts never occupy the event loop's
default executor, which other work (the clients' SQLite cache) shares.
"""

from __future__ import annotations

import asyncio
import contextlib
import ftplib
import socket
import threading
import time
from urllib.parse import unquote, urlsplit

from robotskit.errors import FetchError, FetchTimeout, InvalidURL, ProtocolViolation
from robotskit.fetch._addresses import check_public, resolve
from robotskit.fetch._errors import os_error
from robotskit.policy.messages import FetchRequest, FetchResponse

__all__ = ["AsyncFtpFetcher", "FtpFetcher"]

DEFAULT_PORT = 21
ANONYMOUS_PASSWORD = "anonymous@"
_CHUNK = 65536
# One reply (all lines of a multi-line one): ftplib caps a line at 8 KiB but not their number,
# so "220-" and endless continuation lines would grow memory for the whole deadline. Real
# banners are a few dozen lines at most.
MAX_REPLY_BYTES = 16 * 1024


_Target = tuple[str, int, str, str, str]


def _target(url: str) -> _Target:
    """(host, port, user, password, path) of an ftp:// URL (RFC 1738 3.2)."""
    try:
        parts = urlsplit(url)
        port = parts.port or DEFAULT_PORT
    except ValueError as exc:
        raise InvalidURL(f"cannot parse FTP URL {url!r}: {exc}", url) from exc
    if parts.scheme.lower() != "ftp":
        raise InvalidURL(f"not an ftp:// URL: {url!r}", url)
    if not parts.hostname:
        raise InvalidURL(f"FTP URL has no host: {url!r}", url)
    user = unquote(parts.username) if parts.username else "anonymous"
    password = unquote(parts.password) if parts.password else ANONYMOUS_PASSWORD
    path = unquote(parts.path) or "/robots.txt"
    if "\r" in path or "\n" in path:
        raise InvalidURL(f"FTP path contains a line break: {url!r}", url)
    return parts.hostname, port, user, password, path


def _reply_code(exc: ftplib.Error, url: str) -> tuple[int, str]:
    text = str(exc)
    code = text[:3]
    if not code.isdigit():
        raise ProtocolViolation(f"FTP reply without a status code: {text[:60]!r}", url=url)
    return int(code), text[4:].strip()


class _Deadline:
    def __init__(self, end: float, url: str) -> None:
        self._end = end  # time.monotonic()
        self._url = url

    def left(self) -> float:
        left = self._end - time.monotonic()
        if left <= 0:
            raise FetchTimeout(f"timed out fetching {self._url}", url=self._url)
        return left


class _Watchdog:
    """Shuts down every socket it watches when the deadline passes (unblocking their reads)."""

    def __init__(self, seconds: float) -> None:
        self.fired = False
        self._socks: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._fire)
        self._timer.daemon = True
        self._timer.start()

    def watch(self, sock: socket.socket) -> None:
        with self._lock:
            if sock not in self._socks:
                self._socks.append(sock)
            if self.fired:
                _shutdown(sock)

    def _fire(self) -> None:
        with self._lock:
            self.fired = True
            for sock in self._socks:
                _shutdown(sock)

    def cancel(self) -> None:
        self._timer.cancel()


def _shutdown(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)


class _FTP(ftplib.FTP):
    """ftplib.FTP whose control and data sockets are handed to a watchdog as soon as they exist."""

    def __init__(self, watchdog: _Watchdog, timeout: float) -> None:
        super().__init__(timeout=timeout)
        self._watchdog = watchdog

    def getresp(self) -> str:
        if self.sock is not None:  # connect() reads the banner right after creating the socket
            self._watchdog.watch(self.sock)
        return super().getresp()

    def getmultiline(self) -> str:
        """ftplib's multi-line reply reader, with the whole reply capped at MAX_REPLY_BYTES."""
        lines = [self.getline()]
        size = len(lines[0])
        if lines[0][3:4] == "-":
            code = lines[0][:3]
            while True:
                line = self.getline()
                size += len(line) + 1
                if size > MAX_REPLY_BYTES:
                    # error_proto becomes a ProtocolViolation in FtpFetcher.fetch
                    raise ftplib.error_proto(f"reply over {MAX_REPLY_BYTES} bytes (code {code!r})")
                lines.append(line)
                if line[:3] == code and line[3:4] != "-":
                    break
        return "\n".join(lines)

    def ntransfercmd(self, cmd: str, rest: int | str | None = None) -> tuple[socket.socket, int | None]:
        conn, size = super().ntransfercmd(cmd, rest)
        self._watchdog.watch(conn)
        return conn, size


class FtpFetcher:
    """Synchronous FTP `Fetcher`. One control connection per fetch, closed afterwards.

    `request.timeout` bounds the whole fetch: each socket operation gets what is left of it,
    and a watchdog shuts the sockets down at the deadline. `public_only=True` refuses hosts
    that resolve to loopback, private, link-local, multicast or reserved addresses.
    """

    def __init__(self, *, passive: bool = True, public_only: bool = False) -> None:
        self._passive = passive
        self._public_only = public_only

    def fetch(self, request: FetchRequest) -> FetchResponse:
        return self._fetch_by(request, time.monotonic() + request.timeout)

    def _fetch_by(self, request: FetchRequest, end: float) -> FetchResponse:
        """`fetch`, ending by `end` (a time.monotonic() value) rather than `request.timeout` from now."""
        target = _target(request.url)
        host, port = target[0], target[1]
        started = end - request.timeout  # when the fetch was asked for
        deadline = _Deadline(end, request.url)
        left = deadline.left()  # FetchTimeout if the deadline passed before this thread ran
        watchdog = _Watchdog(left)
        ftp = _FTP(watchdog, left)
        try:
            status, meta, body, truncated = self._exchange(ftp, target, request, deadline)
        except (FetchError, InvalidURL):
            raise
        except (ftplib.error_perm, ftplib.error_temp) as exc:
            # A refusal is an answer: 530 login refused, 550 no such file, 421 busy ... (the policy maps it)
            status, meta = _reply_code(exc, request.url)
            body, truncated = b"", False
        except (TimeoutError, ftplib.Error, EOFError, OSError, UnicodeError) as exc:
            if isinstance(exc, socket.gaierror):
                raise os_error(exc, request.url, host) from exc
            if watchdog.fired or isinstance(exc, TimeoutError):
                raise FetchTimeout(f"timed out fetching {request.url}", url=request.url) from exc
            if isinstance(exc, OSError):
                raise os_error(exc, request.url, f"{host}:{port}") from exc
            # error_reply, error_proto, a reply line over ftplib's 8 KiB, a reply not in UTF-8, EOF
            raise ProtocolViolation(
                f"unexpected FTP reply from {host}:{port}: {exc}", url=request.url
            ) from exc
        finally:
            watchdog.cancel()
            ftp.close()
        return FetchResponse(
            url=request.url,
            protocol="ftp",
            status=status,
            body=body,
            meta=meta,
            truncated=truncated,
            elapsed=time.monotonic() - started,
        )

    def _exchange(
        self, ftp: ftplib.FTP, target: _Target, request: FetchRequest, deadline: _Deadline
    ) -> tuple[int, str, bytes, bool]:
        host, port, user, password, path = target
        # Resolved here, within the deadline (ftplib would wait on the resolver for as long as it
        # likes), and connected address by address: these are the addresses public_only checked.
        addresses = resolve(host, port, deadline.left(), request.url)
        if self._public_only:
            check_public(host, addresses, request.url)
        _connect(ftp, addresses, port, deadline)
        ftp.login(user, password)
        ftp.set_pasv(self._passive)
        _settimeout(ftp, deadline.left())
        ftp.voidcmd("TYPE I")  # binary: the body must reach the parser byte for byte
        ftp.timeout = deadline.left()  # the data connection's connect timeout
        conn = ftp.transfercmd(f"RETR {path}")
        body = bytearray()
        with conn:
            while len(body) <= request.max_bytes:
                conn.settimeout(deadline.left())
                chunk = conn.recv(_CHUNK)
                if not chunk:
                    break
                body += chunk
        if len(body) > request.max_bytes:
            # Cut: the server will answer 426 or 226 to the dropped transfer; do not wait for it.
            return 226, "transfer cut at max_bytes", bytes(body[: request.max_bytes]), True
        _settimeout(ftp, deadline.left())
        # 226/250 after a complete transfer; a 426/451 here raises and becomes that status.
        code, text = _reply_code(ftplib.Error(ftp.voidresp()), request.url)
        with contextlib.suppress(OSError, ftplib.Error, EOFError):
            ftp.quit()  # the body is complete; a failed goodbye changes nothing
        return code, text, bytes(body), False


def _connect(ftp: ftplib.FTP, addresses: list[str], port: int, deadline: _Deadline) -> None:
    """Connect to the first address that answers (IPv6 may come first without a route)."""
    for i, address in enumerate(addresses):
        try:
            ftp.connect(address, port, timeout=deadline.left())
        except OSError:
            if ftp.sock is not None or i == len(addresses) - 1:
                raise  # connected and then failed (not a dead address), or no address left
        else:
            return


def _settimeout(ftp: ftplib.FTP, seconds: float) -> None:
    if ftp.sock is not None:
        ftp.sock.settimeout(seconds)


class AsyncFtpFetcher:
    """Asynchronous FTP `AsyncFetcher`: `FtpFetcher` in a daemon thread of its own per fetch.

    Not `asyncio.to_thread`: the loop's default executor has a few dozen threads, shared with
    other blocking work, and a fetch queued there would start its deadline late while stalled
    hosts hold every thread (the `_addresses` module makes the same choice for DNS lookups).
    The deadline starts when `fetch` is called, and the caller stops waiting at it (plus
    `_GRACE`) even if the thread has not finished.
    """

    def __init__(self, *, passive: bool = True, public_only: bool = False) -> None:
        self._sync = FtpFetcher(passive=passive, public_only=public_only)

    async def fetch(self, request: FetchRequest) -> FetchResponse:
        end = time.monotonic() + request.timeout
        loop = asyncio.get_running_loop()
        future: asyncio.Future[FetchResponse] = loop.create_future()

        def run() -> None:
            try:
                response = self._sync._fetch_by(request, end)
            except Exception as exc:  # handed to the awaiting task, which re-raises it
                _settle(loop, future, None, exc)
            else:
                _settle(loop, future, response, None)

        threading.Thread(target=run, name="robotskit-ftp", daemon=True).start()
        try:
            # wait_for cancels `future` on timeout, so a late result is dropped (see _settle).
            return await asyncio.wait_for(future, max(end - time.monotonic(), 0.0) + _GRACE)
        except TimeoutError as exc:
            raise FetchTimeout(f"timed out fetching {request.url}", url=request.url) from exc


# How long past its deadline the awaiting task gives the thread to report (the watchdog has
# shut its sockets by then; only a stuck resolver or an overloaded machine takes longer).
_GRACE = 0.25


def _settle(
    loop: asyncio.AbstractEventLoop,
    future: asyncio.Future[FetchResponse],
    response: FetchResponse | None,
    error: Exception | None,
) -> None:
    """Hand a thread's result to `future` on its loop; dropped once nobody waits (or the loop closed)."""

    def put() -> None:
        if future.done():  # timed out or cancelled meanwhile
            return
        if error is not None:
            future.set_exception(error)
        else:
            assert response is not None
            future.set_result(response)

    with contextlib.suppress(RuntimeError):  # the loop is closed: nobody is waiting
        loop.call_soon_threadsafe(put)
