"""A real Scrapy crawl of a local site with ROBOTSTXT_PARSER = robotskit's RobotParser.

The site is served by a stdlib http.server on 127.0.0.1 (ephemeral port) that logs every
request path. Scrapy runs in a subprocess (`scrapy runspider`) so each crawl gets a fresh
Twisted reactor. The assertions read the server's log: disallowed pages were never requested,
allowed ones were.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

pytest.importorskip("scrapy")

pytestmark = pytest.mark.integration

# A UTF-8 BOM in front, a `*` group that blocks everything (so a failed user-agent match
# would show up as "nothing crawled"), and a group for the bot with longest-match and `$` rules.
ROBOTS = (
    b"\xef\xbb\xbfUser-agent: *\r\n"
    b"Disallow: /\r\n"
    b"\r\n"
    b"User-agent: RobotskitTestBot\r\n"
    b"Disallow: /private/\r\n"
    b"Allow: /private/ok.html\r\n"
    b"Disallow: /*.pdf$\r\n"
    b"Crawl-delay: 0.25\r\n"
)

LINKS = [
    "/public.html",
    "/private/secret.html",
    "/private/ok.html",
    "/private/",
    "/doc.pdf",
    "/doc.pdf?download=1",
]

ALLOWED_FOR_BOT = {"/", "/public.html", "/private/ok.html", "/doc.pdf?download=1"}
DISALLOWED_FOR_BOT = {"/private/secret.html", "/private/", "/doc.pdf"}

SPIDER = textwrap.dedent(
    """
    import json, os
    import scrapy

    class SiteSpider(scrapy.Spider):
        name = "site"
        start_urls = [os.environ["SITE"] + "/"]

        def parse(self, response):
            slot = self.crawler.engine.downloader.slots.get("127.0.0.1")
            if slot is not None:
                self.delays.append(slot.delay)
            for href in response.css("a::attr(href)").getall():
                yield response.follow(href, self.parse)

        delays = []

        def closed(self, reason):
            stats = self.crawler.stats.get_stats()
            with open(os.environ["RESULT"], "w") as fh:
                json.dump({"forbidden": stats.get("robotstxt/forbidden", 0), "delays": self.delays}, fh)
    """
)


class _Site:
    def __init__(self) -> None:
        self.paths: list[str] = []
        self.lock = threading.Lock()


def _handler(site: _Site) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            with site.lock:
                site.paths.append(self.path)
            if self.path == "/robots.txt":
                body, ctype = ROBOTS, "text/plain"
            else:
                links = "".join(f'<a href="{href}">{href}</a>' for href in LINKS)
                body, ctype = f"<html><body>{links}</body></html>".encode(), "text/html"
            self.send_response(200)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    return Handler


@pytest.fixture
def site() -> Iterator[tuple[str, _Site]]:
    state = _Site()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def _crawl(tmp_path: Path, base: str, *settings: str) -> dict[str, object]:
    spider = tmp_path / "site_spider.py"
    spider.write_text(SPIDER)
    result = tmp_path / "result.json"
    command = [
        sys.executable,
        "-m",
        "scrapy",
        "runspider",
        str(spider),
        "-s",
        "ROBOTSTXT_OBEY=True",
        "-s",
        "ROBOTSTXT_PARSER=robotskit.contrib.scrapy.RobotParser",
        "-s",
        "USER_AGENT=RobotskitTestBot/1.0 (+http://127.0.0.1/bot)",
        "-s",
        "TELNETCONSOLE_ENABLED=False",
        "-s",
        "REMOTE_CONTROL_ENABLED=False",
        "-s",
        "LOG_LEVEL=INFO",
        "-s",
        "CLOSESPIDER_TIMEOUT=30",
    ]
    for setting in settings:
        command += ["-s", setting]
    env = {**os.environ, "SITE": base, "RESULT": str(result), "PYTHONWARNINGS": "ignore"}
    done = subprocess.run(
        command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert result.exists(), done.stderr[-3000:]
    data: dict[str, object] = json.loads(result.read_text())
    data["log"] = done.stderr
    return data


def test_scrapy_crawl_obeys_robotskit(tmp_path: Path, site: tuple[str, _Site]) -> None:
    """Scrapy with robotskit's parser fetches every allowed page and never a disallowed one."""
    base, state = site
    result = _crawl(tmp_path, base)
    requested = set(state.paths)
    assert "/robots.txt" in requested
    assert requested >= ALLOWED_FOR_BOT, f"allowed pages not crawled: {ALLOWED_FOR_BOT - requested}"
    assert not requested & DISALLOWED_FOR_BOT, f"disallowed pages requested: {requested & DISALLOWED_FOR_BOT}"
    assert result["forbidden"] == len(DISALLOWED_FOR_BOT)


def test_scrapy_robotstxt_user_agent_setting(tmp_path: Path, site: tuple[str, _Site]) -> None:
    """ROBOTSTXT_USER_AGENT overrides USER_AGENT for matching: here the `*` group blocks all."""
    base, state = site
    result = _crawl(tmp_path, base, "ROBOTSTXT_USER_AGENT=SomeOtherBot")
    log = str(result["log"])[-3000:]
    assert set(state.paths) == {"/robots.txt"}, (state.paths, log)
    assert result["forbidden"] == 1, log


def test_scrapy_crawl_delay_extension(tmp_path: Path, site: tuple[str, _Site]) -> None:
    """CrawlDelayExtension sets the host's download slot delay from the bot's Crawl-delay."""
    base, state = site
    extensions = json.dumps({"robotskit.contrib.scrapy.CrawlDelayExtension": 500})
    result = _crawl(tmp_path, base, f"EXTENSIONS={extensions}")
    delays = result["delays"]
    assert isinstance(delays, list) and delays, result["log"][-2000:]
    assert all(delay == pytest.approx(0.25) for delay in delays)
    assert not set(state.paths) & DISALLOWED_FOR_BOT
