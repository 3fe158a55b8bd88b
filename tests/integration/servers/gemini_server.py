"""Gemini servers on 127.0.0.1: jetforce (a real server, separate process) and a scripted TLS server.

The scripted server uses blocking `ssl` sockets in threads so each misbehaviour is exact:
Python's `SSLSocket.close()` sends no close_notify (an *unclean* close, as many Gemini servers do),
while `unwrap()` first sends close_notify (a clean close).
"""

from __future__ import annotations

import contextlib
import socket
import socketserver
import ssl
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from .certs import CertPair


@dataclass(frozen=True)
class GeminiScenario:
    """What the scripted server does for one path.

    `header`: the raw header bytes (CRLF included; malformed on purpose if the test wants);
    `delay`: sleep before the header; `silent`: never answer; `clean_close`: send close_notify
    before closing; `endless`: repeat `body` until the client hangs up; `drip`: send header and
    body one byte per `drip` seconds.
    """

    header: bytes = b"20 text/plain\r\n"
    body: bytes = b""
    delay: float = 0.0
    silent: bool = False
    clean_close: bool = False
    endless: bool = False
    drip: float = 0.0


class _Handler(socketserver.BaseRequestHandler):
    server: _TLSServer

    def handle(self) -> None:
        raw: socket.socket = self.request
        raw.settimeout(5)
        try:
            tls = self.server.ctx.wrap_socket(raw, server_side=True)
        except (ssl.SSLError, OSError):
            return  # the client gave up during the handshake (e.g. a pin mismatch test)
        try:
            self._serve(tls)
        except (ssl.SSLError, OSError):
            pass
        finally:
            with contextlib.suppress(OSError):
                tls.close()

    def _serve(self, tls: ssl.SSLSocket) -> None:
        line = b""
        while not line.endswith(b"\r\n") and len(line) < 2048:
            chunk = tls.recv(1)
            if not chunk:
                return
            line += chunk
        url = line[:-2].decode("utf-8", "replace")
        path = urlsplit(url).path or "/"
        state = self.server
        with state.lock:
            state.hits[path] += 1
            state.lines.append(line)
            sc = state.routes.get(path, GeminiScenario(b"51 Not found\r\n"))
        if sc.silent:
            time.sleep(3)
            return
        if sc.delay:
            time.sleep(sc.delay)
        if sc.drip:
            data = sc.header + sc.body
            for i in range(len(data)):
                tls.sendall(data[i : i + 1])
                time.sleep(sc.drip)
            return
        tls.sendall(sc.header + sc.body)
        if sc.endless:
            for _ in range(10_000):
                tls.sendall(sc.body)
        if sc.clean_close:
            tls.unwrap()  # close_notify first


class _TLSServer(socketserver.ThreadingTCPServer):
    daemon_threads = True
    block_on_close = False
    allow_reuse_address = True
    ctx: ssl.SSLContext
    routes: dict[str, GeminiScenario]
    hits: Counter[str]
    lines: list[bytes]
    lock: threading.Lock

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Clients hanging up is part of the scenarios; stay quiet."""


class GeminiScriptServer:
    """A TLS server that answers each path with a `GeminiScenario`; unknown paths get `51`."""

    def __init__(self, cert: CertPair, port: int = 0) -> None:
        self.cert = cert
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.minimum_version = ssl.TLSVersion.TLSv1_2
        ctx.load_cert_chain(cert.cert, cert.key)
        self._server = _TLSServer(("127.0.0.1", port), _Handler)
        self._server.ctx = ctx
        self._server.routes = {}
        self._server.hits = Counter()
        self._server.lines = []
        self._server.lock = threading.Lock()
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05})
        self._thread.daemon = True

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def hits(self) -> Counter[str]:
        return self._server.hits

    @property
    def lines(self) -> list[bytes]:
        return self._server.lines

    def url(self, path: str) -> str:
        return f"gemini://127.0.0.1:{self.port}{path}"

    def route(self, path: str, scenario: GeminiScenario) -> str:
        with self._server.lock:
            self._server.routes[path] = scenario
        return self.url(path)

    def start(self) -> GeminiScriptServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


def free_port() -> int:
    """An ephemeral port the kernel just handed out (jetforce takes a port number, not 0)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class JetforceServer:
    """jetforce serving `root` over TLS on 127.0.0.1, run as `python -m jetforce` in a child process."""

    def __init__(self, root: Path, cert: CertPair) -> None:
        self.root = root
        self.cert = cert
        self.port = free_port()
        self._log = root.parent / f"jetforce-{self.port}.log"
        self._proc: subprocess.Popen[bytes] | None = None

    def url(self, path: str) -> str:
        return f"gemini://127.0.0.1:{self.port}{path}"

    def start(self, wait: float = 15.0) -> JetforceServer:
        cmd = [
            sys.executable,
            "-m",
            "jetforce",
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--hostname",
            "127.0.0.1",
            "--tls-certfile",
            str(self.cert.cert),
            "--tls-keyfile",
            str(self.cert.key),
            "--dir",
            str(self.root),
        ]
        with self._log.open("wb") as log:
            self._proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
        end = time.monotonic() + wait
        while time.monotonic() < end:
            if self._proc.poll() is not None:
                raise RuntimeError(f"jetforce exited: {self._log.read_text(errors='replace')}")
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), 0.2):
                return self
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"jetforce did not listen within {wait}s: {self._log.read_text(errors='replace')}")

    def stop(self) -> None:
        if self._proc is None:
            return
        self._proc.terminate()
        try:
            self._proc.wait(5)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait(5)
        self._proc = None
