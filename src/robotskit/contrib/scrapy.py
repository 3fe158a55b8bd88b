"""Scrapy integration: robotskit as Scrapy's robots.txt parser, plus Crawl-delay for download slots.

Enable it in a project's settings::

    ROBOTSTXT_OBEY = True
    ROBOTSTXT_PARSER = "robotskit.contrib.scrapy.RobotParser"

Owns: the adapter between Scrapy's `scrapy.robotstxt.RobotParser` interface and
`robotskit.parse`. Scrapy's RobotsTxtMiddleware downloads `/robots.txt` itself and hands the
raw response bytes to `RobotParser.from_crawler`; robotskit parses bytes (BOMs, invalid UTF-8
and oversized files are handled there, never raised). The middleware passes the user agent
as `ROBOTSTXT_USER_AGENT`, else the request's User-Agent header, else `USER_AGENT`; robotskit
reduces it to its product token (RFC 9309 2.2.1: `MyBot/1.0 (+https://x)` -> `MyBot`).

Extra settings read here: `ROBOTSKIT_PROFILE` ("rfc9309" default, "google", "gemini").

`RobotsTxtMiddleware` (robotskit.contrib.scrapy_middleware, re-exported here) replaces
Scrapy's own middleware: every request waiting for a robots.txt is judged, and a shared
robotskit cache (`ROBOTSKIT_CACHE`) lets a fleet of spiders fetch each robots.txt once.

`CrawlDelayExtension` (opt-in, see docs/scrapy.md) applies a site's `Crawl-delay` to Scrapy's
download slot for that host when the robots.txt is parsed (Scrapy's own middleware reports
it through the `robots_parsed` signal but does not act on it).

This module imports Scrapy at the top on purpose (structlog's adapter style): importing
`robotskit` never imports Scrapy; only `robotskit.contrib.scrapy` does.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from scrapy import signals
from scrapy.robotstxt import RobotParser as _ScrapyRobotParser
from scrapy.utils.python import to_unicode

import robotskit
from robotskit.contrib._protego_api import RequestRate, VisitTime, request_rate_of, visit_time_of
from robotskit.contrib.scrapy_middleware import RobotsTxtMiddleware

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Request

    from robotskit.document import RobotsTxt

__all__ = ["CrawlDelayExtension", "RequestRate", "RobotParser", "RobotsTxtMiddleware", "VisitTime"]

log = logging.getLogger(__name__)

PROFILE_SETTING = "ROBOTSKIT_PROFILE"


def _text(value: str | bytes) -> str:
    """A header or URL Scrapy hands over as bytes, as text that never fails to decode: UTF-8,
    else Latin-1 (HTTP's historical header charset; `Crawler-\xe9/1.0` raised UnicodeDecodeError,
    as it does in Scrapy's own Protego parser). Only the product token is matched anyway."""
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            return value.decode("latin-1")
    return to_unicode(value)


def _user_agent_of(crawler: Crawler | None, request: Request | None = None) -> str:
    """The user agent Scrapy's RobotsTxtMiddleware would pass to `allowed()` (same precedence)."""
    if crawler is None:
        return "Scrapy"
    agent: Any = crawler.settings.get("ROBOTSTXT_USER_AGENT")
    if not agent and request is not None:
        agent = request.headers.get(b"User-Agent")
    if not agent:
        agent = crawler.settings.get("USER_AGENT") or "Scrapy"
    return _text(agent)


class RobotParser(_ScrapyRobotParser):
    """Scrapy's robots.txt parser backend, answered by robotskit with RFC 9309 semantics."""

    def __init__(self, robotstxt_body: bytes, spider: Any = None, *, profile: str | None = None) -> None:
        self.spider = spider
        # Bytes straight from the response: robotskit owns decoding (SPEC.md 2), never raises.
        self.robots: RobotsTxt = robotskit.parse(robotstxt_body, profile)

    @classmethod
    def from_crawler(cls, crawler: Crawler, robotstxt_body: bytes) -> RobotParser:
        """Parse the raw robots.txt bytes Scrapy downloaded (crawler may be None in tests)."""
        spider = getattr(crawler, "spider", None) if crawler else None
        profile = crawler.settings.get(PROFILE_SETTING) if crawler else None
        return cls(robotstxt_body, spider, profile=profile or None)

    def allowed(self, url: str | bytes, user_agent: str | bytes) -> bool:
        """True if `user_agent` (a full UA string or a token) may fetch the absolute `url`."""
        return self.robots.allowed(_text(url), _text(user_agent))

    def crawl_delay(self, user_agent: str | bytes) -> float | None:
        """The `Crawl-delay` (seconds) of the groups that apply to `user_agent`, or None."""
        return self.robots.crawl_delay(_text(user_agent))

    def request_rate(self, user_agent: str | bytes) -> RequestRate | None:
        """As Protego's: `RequestRate(requests, seconds, start_time, end_time)`, or None."""
        return request_rate_of(self.robots.request_rate(_text(user_agent)))

    def visit_time(self, user_agent: str | bytes) -> VisitTime | None:
        """As Protego's: `VisitTime(start_time, end_time)` of the `Visit-time` record, or None."""
        return visit_time_of(self.robots.visit_time(_text(user_agent)))


class CrawlDelayExtension:
    """Sets a download slot's delay from the site's Crawl-delay once its robots.txt is parsed.

    Enable with ``EXTENSIONS = {"robotskit.contrib.scrapy.CrawlDelayExtension": 500}``.
    The delay never lowers a slot's existing delay (DOWNLOAD_DELAY stays a floor) and is capped
    by `ROBOTSKIT_MAX_CRAWL_DELAY` (default 60 s) so one file cannot stall a crawl.
    """

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.max_delay = float(crawler.settings.getfloat("ROBOTSKIT_MAX_CRAWL_DELAY", 60.0))
        crawler.signals.connect(self.robots_parsed, signal=signals.robots_parsed)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> CrawlDelayExtension:
        return cls(crawler)

    def robots_parsed(self, robotparser: Any, request: Request) -> None:
        delay_of = getattr(robotparser, "crawl_delay", None)
        if delay_of is None:
            return
        delay = delay_of(_user_agent_of(self.crawler, request))
        if delay is None or delay <= 0:
            return
        delay = min(float(delay), self.max_delay)
        engine = self.crawler.engine
        if engine is None:
            return
        # Scrapy has no public setter for a slot's delay; `_get_slot` creates the slot with the
        # configured defaults (DOWNLOAD_DELAY, DOWNLOAD_SLOTS) exactly as the downloader would.
        key, slot = engine.downloader._get_slot(request)
        if delay > slot.delay:
            slot.delay = delay
            log.debug("robotskit: Crawl-delay %.3gs applied to download slot %s", delay, key)
