"""Fixtures for the command-line tests: run `main` and capture its output, and a local robots.txt server."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest

from robotskit.cli import main

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "robots.txt"


@dataclass(frozen=True)
class Result:
    """What one `main([...])` call did."""

    code: int
    out: str
    err: str


Run = Callable[..., Result]


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Run:
    """Call `robotskit.cli.main` with argv; the user cache dir points into tmp_path."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("ROBOTSKIT_CACHE", raising=False)

    def _run(*argv: str) -> Result:
        code = main(list(argv))
        captured = capsys.readouterr()
        return Result(code, captured.out, captured.err)

    return _run


@pytest.fixture
def robots_file(tmp_path: Path) -> Callable[[str | bytes], Path]:
    """Write a robots.txt body to a temporary file and return its path."""
    counter = iter(range(1_000_000))

    def _write(body: str | bytes) -> Path:
        path = tmp_path / f"robots-{next(counter)}.txt"
        path.write_bytes(body.encode("utf-8") if isinstance(body, str) else body)
        return path

    return _write


class _Handler(BaseHTTPRequestHandler):
    routes: ClassVar[dict[str, tuple[int, dict[str, str], bytes]]] = {}
    hits: ClassVar[list[str]] = []

    def log_message(self, format: str, *args: Any) -> None:
        """Keep test output quiet."""

    def do_GET(self) -> None:
        self.hits.append(self.path)
        status, headers, body = self.routes.get(
            self.path, (404, {"Content-Type": "text/html"}, b"<h1>404</h1>")
        )
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@dataclass
class Server:
    """A robots.txt server on 127.0.0.1: `routes[path] = (status, headers, body)`."""

    base: str
    routes: dict[str, tuple[int, dict[str, str], bytes]]
    hits: list[str]


@pytest.fixture
def server() -> Iterator[Server]:
    """Start an HTTP server on 127.0.0.1 (ephemeral port) for one test, and stop it after."""
    routes: ClassVar[dict[str, tuple[int, dict[str, str], bytes]]] = {}
    hits: ClassVar[list[str]] = []
    handler = type("Handler", (_Handler,), {"routes": routes, "hits": hits})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield Server(f"http://127.0.0.1:{httpd.server_address[1]}", routes, hits)
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(5)
