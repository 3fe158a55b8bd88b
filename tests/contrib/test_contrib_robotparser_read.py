"""RobotFileParser.read() against a local HTTP server: robotskit's fetch policy, not urllib's.

The server runs on 127.0.0.1 (ephemeral port), answers /robots.txt with a status chosen per
test and records the User-Agent it was sent.
"""

from __future__ import annotations

import threading
import time
import urllib.robotparser as stdlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from robotskit.contrib.robotparser import RobotFileParser

pytestmark = pytest.mark.integration

BODY = b"User-agent: *\nDisallow: /private/\nCrawl-delay: 2\nSitemap: /sitemap.xml\n"


@dataclass
class _Server:
    base: str
    status: int = 200
    delay: float = 0.0
    body: bytes = BODY
    user_agents: list[str] = field(default_factory=list)


class _Quiet(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False


@pytest.fixture
def server() -> Iterator[_Server]:
    state = _Server(base="")

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            state.user_agents.append(self.headers.get("User-Agent", ""))
            if state.delay:
                time.sleep(state.delay)
            body = state.body if state.status == 200 else b"<html>error page</html>"
            try:
                self.send_response(state.status)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            except OSError:  # the client gave up (timeout test)
                pass

        def log_message(self, format: str, *args: object) -> None:
            pass

    httpd = _Quiet(("127.0.0.1", 0), Handler)
    state.base = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()


def _read(server: _Server, **kwargs: object) -> RobotFileParser:
    parser = RobotFileParser(server.base + "/robots.txt", **kwargs)  # type: ignore[arg-type]
    parser.read()
    return parser


def test_read_200_parses_body(server: _Server) -> None:
    """A 200 answer is parsed: rules, crawl delay and sitemaps (resolved against the URL) apply."""
    parser = _read(server)
    assert parser.mtime() > 0
    assert parser.can_fetch("bot", server.base + "/private/x") is False
    assert parser.can_fetch("bot", server.base + "/public") is True
    assert parser.crawl_delay("bot") == 2
    assert parser.site_maps() == [server.base + "/sitemap.xml"]


def test_read_sends_real_user_agent(server: _Server) -> None:
    """read() identifies itself (robotskit's UA by default, or the one given), not Python-urllib."""
    _read(server)
    _read(server, user_agent="MyCrawler/3.0 (+https://example.com/bot)")
    assert server.user_agents[0].startswith("robotskit/")
    assert server.user_agents[1] == "MyCrawler/3.0 (+https://example.com/bot)"


def test_read_404_allows_all(server: _Server) -> None:
    """404: no robots.txt, everything allowed (RFC 9309 2.3.1.3) -- as urllib does."""
    server.status = 404
    parser = _read(server)
    assert parser.allow_all is True
    assert parser.can_fetch("bot", "/private/x") is True
    theirs = stdlib.RobotFileParser(server.base + "/robots.txt")
    theirs.read()
    assert theirs.can_fetch("bot", "/private/x") is True


@pytest.mark.parametrize("status", [401, 403])
def test_read_401_403_allow_all_unlike_stdlib(server: _Server, status: int) -> None:
    """401/403 mean unavailable, so everything is allowed; urllib disallows everything instead."""
    server.status = status
    parser = _read(server)
    assert parser.allow_all is True and parser.disallow_all is False
    assert parser.can_fetch("bot", "/anything") is True
    theirs = stdlib.RobotFileParser(server.base + "/robots.txt")
    theirs.read()
    assert theirs.can_fetch("bot", "/anything") is False


@pytest.mark.parametrize("status", [500, 503, 429])
def test_read_5xx_and_429_disallow_all(server: _Server, status: int) -> None:
    """5xx and 429 mean unreachable: everything disallowed (RFC 9309 2.3.1.4)."""
    server.status = status
    parser = _read(server)
    assert parser.disallow_all is True
    assert parser.can_fetch("bot", "/") is False
    assert parser.mtime() > 0


def test_read_timeout_disallows_all(server: _Server) -> None:
    """A server slower than the timeout makes read() return quickly and disallow everything."""
    server.delay = 2.0
    started = time.monotonic()
    parser = _read(server, timeout=0.3)
    assert time.monotonic() - started < 1.9
    assert parser.disallow_all is True
    assert parser.can_fetch("bot", "/") is False


def test_read_connection_refused_disallows_all() -> None:
    """Nothing listening: read() does not raise (urllib raises URLError) and disallows everything."""
    with _Quiet(("127.0.0.1", 0), BaseHTTPRequestHandler) as probe:
        port = probe.server_address[1]
    parser = RobotFileParser(f"http://127.0.0.1:{port}/robots.txt", timeout=1.0)
    parser.read()
    assert parser.disallow_all is True


def test_read_non_utf8_body(server: _Server) -> None:
    """A Latin-1 body parses (urllib's read() raises UnicodeDecodeError on it)."""
    server.body = b"User-agent: *\nDisallow: /caf\xe9\nDisallow: /x\n"
    parser = _read(server)
    assert parser.can_fetch("bot", "/x") is False
    theirs = stdlib.RobotFileParser(server.base + "/robots.txt")
    with pytest.raises(UnicodeDecodeError):
        theirs.read()
