"""A small logging web site on 127.0.0.1 for the contrib tests (httpx transports, Scrapy).

Every request is logged with its path and arrival time (monotonic), so tests can count what
reached the server and measure the spacing between requests. Routes map a path to
(status, body, headers, delay); other paths serve an HTML page linking to `links`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass(frozen=True)
class Page:
    status: int = 200
    body: bytes = b""
    headers: tuple[tuple[str, str], ...] = ()
    delay: float = 0.0


@dataclass
class Site:
    routes: dict[str, Page] = field(default_factory=dict)
    links: list[str] = field(default_factory=list)
    log: list[tuple[str, float]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    base: str = ""

    @property
    def paths(self) -> list[str]:
        with self.lock:
            return [path for path, _ in self.log]

    def times(self, prefix: str) -> list[float]:
        """Arrival times of the requests whose path starts with `prefix`, in order."""
        with self.lock:
            return sorted(at for path, at in self.log if path.startswith(prefix))


def _handler(site: Site) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            with site.lock:
                site.log.append((self.path, time.monotonic()))
                page = site.routes.get(self.path)
            if page is None:
                links = "".join(f'<a href="{href}">{href}</a>' for href in site.links)
                page = Page(
                    200, f"<html><body>{links}</body></html>".encode(), (("Content-Type", "text/html"),)
                )
            if page.delay:
                time.sleep(page.delay)
            self.send_response(page.status)
            for key, value in page.headers:
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(page.body)))
            self.end_headers()
            self.wfile.write(page.body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    return Handler


@contextmanager
def serve(site: Site) -> Iterator[Site]:
    """Serve `site` on 127.0.0.1 (ephemeral port) until the block ends; sets `site.base`."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(site))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    site.base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield site
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
