"""A scripted HTTP/1.1 server on 127.0.0.1 that plays one `Scenario` per path.

Stdlib `http.server` in a daemon thread. Tests register scenarios with `route(path, Scenario(...))`
and read back `hits[path]` and `requests` (method, path, headers) to prove what the client sent.
Unknown paths answer 404 with an HTML error page, like a real web server.
"""

from __future__ import annotations

import gzip
import socket
import ssl
import struct
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from .certs import CertPair

HTML_404 = (
    b"<!doctype html><html><head><title>404 Not Found</title></head><body><h1>Not Found</h1></body></html>"
)


@dataclass(frozen=True)
class Scenario:
    """What the server does for one path.

    `delay`: sleep before the status line; `body_delay`: sleep after the headers;
    `drip`: send the body one byte per `drip` seconds; `reset_after`: send that many body bytes
    (of a declared longer Content-Length) then reset the TCP connection; `endless`: keep sending
    chunks of `body` until the client hangs up (no Content-Length); `gzip`: compress the body and
    say so; `raw`: bytes written verbatim instead of an HTTP response.
    """

    status: int = 200
    body: bytes = b""
    headers: tuple[tuple[str, str], ...] = ()
    delay: float = 0.0
    body_delay: float = 0.0
    drip: float = 0.0
    reset_after: int | None = None
    endless: bool = False
    gzip: bool = False
    raw: bytes | None = None


@dataclass
class _State:
    routes: dict[str, Scenario] = field(default_factory=dict)
    hits: Counter[str] = field(default_factory=Counter)
    requests: list[tuple[str, str, dict[str, str]]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        """Keep test output quiet."""

    def do_GET(self) -> None:
        state = self.server.state
        with state.lock:
            state.hits[self.path] += 1
            state.requests.append(("GET", self.path, {k.lower(): v for k, v in self.headers.items()}))
            sc = state.routes.get(self.path)
        if sc is None:
            sc = Scenario(404, HTML_404, (("Content-Type", "text/html"),))
        try:
            self._play(sc)
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError):
            self.close_connection = True

    def _play(self, sc: Scenario) -> None:
        if sc.delay:
            time.sleep(sc.delay)
        if sc.raw is not None:
            self.wfile.write(sc.raw)
            self.wfile.flush()
            self.close_connection = True
            return
        body = gzip.compress(sc.body) if sc.gzip else sc.body
        self.send_response(sc.status)
        for k, v in sc.headers:
            self.send_header(k, v)
        if sc.gzip:
            self.send_header("Content-Encoding", "gzip")
        if sc.endless:
            self.send_header("Connection", "close")
        else:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.flush()
        if sc.body_delay:
            time.sleep(sc.body_delay)
        if sc.reset_after is not None:
            self.wfile.write(body[: sc.reset_after])
            self.wfile.flush()
            # SO_LINGER 0 turns close() into a TCP RST: a real "connection reset by peer".
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()
            self.close_connection = True
            return
        if sc.endless:
            self.close_connection = True
            for _ in range(10_000):  # bounded so a stuck client cannot pin a thread forever
                self.wfile.write(body)
            return
        if sc.drip:
            for i in range(len(body)):
                self.wfile.write(body[i : i + 1])
                self.wfile.flush()
                time.sleep(sc.drip)
            return
        self.wfile.write(body)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    state: _State

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client hanging up mid-scenario is expected; stay quiet."""


class HttpScenarioServer:
    """Start with `start()`, stop with `stop()`; `url(path)` is an absolute http:// (or https://) URL."""

    def __init__(self, tls: CertPair | None = None) -> None:
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.state = _State()
        self.scheme = "http"
        if tls is not None:
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(tls.cert, tls.key)
            self._server.socket = ctx.wrap_socket(
                self._server.socket, server_side=True, do_handshake_on_connect=False
            )  # the handshake then runs in the handler thread, not in the accept loop
            self.scheme = "https"
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05})
        self._thread.daemon = True

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def authority(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def hits(self) -> Counter[str]:
        return self._server.state.hits

    @property
    def requests(self) -> list[tuple[str, str, dict[str, str]]]:
        return self._server.state.requests

    def url(self, path: str) -> str:
        return f"{self.scheme}://{self.authority}{path}"

    def route(self, path: str, scenario: Scenario) -> str:
        """Play `scenario` at `path`; returns the absolute URL."""
        with self._server.state.lock:
            self._server.state.routes[path] = scenario
        return self.url(path)

    def redirect(self, path: str, location: str, status: int = 301) -> str:
        return self.route(path, Scenario(status, b"", (("Location", location),)))

    def start(self) -> HttpScenarioServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
