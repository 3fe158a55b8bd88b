"""A raw TCP server on 127.0.0.1 that plays scripted bytes with any pacing: hostile servers.

`RawServer(play)` accepts connections in a daemon thread and runs `play(conn)` for each one in
its own daemon thread. Helpers build the usual plays: `http_play` (read one HTTP request, then
write a script of byte chunks with a pause before each), `drip` (a script cut into one-byte
chunks) and `ftp_play` (an FTP control dialogue whose replies can be dripped). Every play stops
writing as soon as the client hangs up, and `stop()` closes every open connection.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Callable, Sequence

Step = tuple[float, bytes]  # (pause before, bytes to write)
Play = Callable[["Conn"], None]


class Conn:
    """One accepted connection: read a request, write paced bytes; closed by the server."""

    def __init__(self, sock: socket.socket, server: RawServer) -> None:
        self.sock = sock
        self.server = server
        self._buf = b""

    def read_until(self, marker: bytes, limit: int = 65536) -> bytes:
        """Bytes up to and including `marker` (b"" if the client hung up first)."""
        while marker not in self._buf and len(self._buf) < limit:
            chunk = self.sock.recv(4096)
            if not chunk:
                return b""
            self._buf += chunk
        head, sep, self._buf = self._buf.partition(marker)
        return head + sep

    def write(self, steps: Sequence[Step]) -> None:
        """Write each chunk after its pause; stop quietly once the client is gone or we stop."""
        for pause, data in steps:
            if pause and self.server.stopping.wait(pause):
                return
            self.sock.sendall(data)


def drip(data: bytes, every: float) -> list[Step]:
    """`data` one byte at a time, `every` seconds apart."""
    return [(every, data[i : i + 1]) for i in range(len(data))]


class RawServer:
    """Start with `start()`, stop with `stop()`; `requests` holds the request heads HTTP plays read."""

    def __init__(self, play: Play) -> None:
        self.play = play
        self.requests: list[bytes] = []
        self.connections = 0
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        self._open: set[socket.socket] = set()
        self._sock = socket.create_server(("127.0.0.1", 0), backlog=256)
        self._sock.settimeout(0.05)  # accept() wakes up to notice stop()
        self._thread = threading.Thread(target=self._accept, daemon=True)

    @property
    def port(self) -> int:
        return int(self._sock.getsockname()[1])

    def url(self, path: str = "/robots.txt", scheme: str = "http") -> str:
        return f"{scheme}://127.0.0.1:{self.port}{path}"

    def start(self) -> RawServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        with contextlib.suppress(OSError):
            self._sock.close()
        with self._lock:
            for conn in list(self._open):
                with contextlib.suppress(OSError):
                    conn.shutdown(socket.SHUT_RDWR)
                conn.close()
        self._thread.join(timeout=5)

    def _accept(self) -> None:
        while not self.stopping.is_set():
            try:
                sock, _ = self._sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            sock.settimeout(None)
            with self._lock:
                self.connections += 1
                self._open.add(sock)
            threading.Thread(target=self._run, args=(sock,), daemon=True).start()

    def _run(self, sock: socket.socket) -> None:
        try:
            self.play(Conn(sock, self))
        except OSError:
            pass  # the client hung up: expected for hostile plays
        finally:
            with self._lock:
                self._open.discard(sock)
            with contextlib.suppress(OSError):
                sock.close()


def http_play(steps: Sequence[Step] | Callable[[bytes], Sequence[Step]]) -> Play:
    """Read one request head (recorded in `server.requests`), then write `steps` and close.

    `steps` may be a function of the request head, to answer differently per path.
    """

    def play(conn: Conn) -> None:
        head = conn.read_until(b"\r\n\r\n")
        if not head:
            return
        with conn.server._lock:
            conn.server.requests.append(head)
        conn.write(steps(head) if callable(steps) else steps)

    return play


def ftp_play(replies: Sequence[Sequence[Step]]) -> Play:
    """An FTP control dialogue: the first reply is the banner, then one reply per command read."""

    def play(conn: Conn) -> None:
        for i, reply in enumerate(replies):
            if i:
                line = conn.read_until(b"\r\n")
                if not line:
                    return
                with conn.server._lock:
                    conn.server.requests.append(line)
            conn.write(reply)
        # Hold the line open (as a stalled server would) until the client leaves or we stop.
        while not conn.server.stopping.is_set() and conn.read_until(b"\r\n"):
            pass

    return play


def stall_play(conn: Conn) -> None:
    """Accept and say nothing until the client leaves or the server stops."""
    while not conn.server.stopping.wait(0.05):
        pass


def wait_for(predicate: Callable[[], bool], timeout: float = 5.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.01)
    return predicate()
