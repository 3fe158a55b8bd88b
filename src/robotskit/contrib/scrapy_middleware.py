"""A drop-in for Scrapy's RobotsTxtMiddleware that judges every waiting request.

    DOWNLOADER_MIDDLEWARES = {
        "scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware": None,
        "robotskit.contrib.scrapy.RobotsTxtMiddleware": 100,
    }

Scrapy 2.19's middleware keeps one Deferred per host while its robots.txt downloads; every
request arriving meanwhile awaits that Deferred through `Deferred.asFuture`, whose callback
hands the parser to the first waiter and passes None down the chain, so every other waiter
gets no parser and goes out unchecked: with CONCURRENT_REQUESTS_PER_DOMAIN > 1 disallowed
pages are fetched. Here each waiter gets a Deferred of its own, all fired with the parser.

Same settings (`ROBOTSTXT_OBEY`, `ROBOTSTXT_USER_AGENT`, `ROBOTSTXT_PARSER`, `USER_AGENT`),
the same stats keys (`robotstxt/request_count`, `robotstxt/response_count`,
`robotstxt/response_status_count/<status>`, `robotstxt/exception_count/<type>`,
`robotstxt/forbidden`) and the same `robots_parsed` signal. Differences, on purpose:

- robots.txt outcomes follow RFC 9309 2.3.1 through robotskit's fetch policy: redirects are
  followed (up to five hops), a 4xx means no rules (everything allowed), a 5xx, a 429 or a
  download error means everything disallowed for that host until the entry expires (Scrapy
  parses the error page, or allows everything after an error).
- One robots.txt per scheme, host and port (Scrapy keys by `netloc`, sharing http and https).
- `ROBOTSKIT_CACHE` (optional): a robotskit cache URL (`sqlite:///abs/path.db`,
  `redis://host:6379/0`) shared by a fleet: a fresh entry there is used without a download,
  and every download is stored there for the others.
"""

from __future__ import annotations

import logging
import math
import time
from typing import TYPE_CHECKING, Any

from scrapy import signals
from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.http import Request, Response
from scrapy.http.request import NO_CALLBACK
from scrapy.utils.defer import maybe_deferred_to_future
from scrapy.utils.misc import build_from_crawler, load_object
from twisted.internet.defer import Deferred
from twisted.internet.error import DNSLookupError
from twisted.internet.error import TimeoutError as TwistedTimeout
from twisted.internet.threads import deferToThread

from robotskit.cache.base import Cache
from robotskit.cache.open import open_cache
from robotskit.errors import FetchError, RobotskitError
from robotskit.policy.authority import authority_key
from robotskit.policy.flow import Outcome, RobotsEntry, arun_flow, fetch_flow
from robotskit.policy.messages import DEFAULT_MAX_BYTES, FetchRequest, FetchResponse

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.statscollectors import StatsCollector

__all__ = ["CACHE_SETTING", "RobotsTxtMiddleware"]

log = logging.getLogger(__name__)

CACHE_SETTING = "ROBOTSKIT_CACHE"


# How long a robots.txt whose handling failed unexpectedly (a parser raising on content, say)
# keeps its host closed before the next request asks again.
_FAILURE_BACKOFF = 60.0


class _Unreachable:
    """The parser for a robots.txt that could not be fetched: RFC 9309 2.3.1.4, disallow all."""

    def __init__(self, reason: str) -> None:
        self.reason = reason

    def allowed(self, url: str | bytes, user_agent: str | bytes) -> bool:
        return False

    def crawl_delay(self, user_agent: str | bytes) -> float | None:
        return None


class RobotsTxtMiddleware:
    """Scrapy's RobotsTxtMiddleware, race-free, with RFC 9309 fetch outcomes and a shared cache."""

    DOWNLOAD_PRIORITY: int = 1000

    def __init__(self, crawler: Crawler) -> None:
        if not crawler.settings.getbool("ROBOTSTXT_OBEY"):
            raise NotConfigured
        self._default_useragent: str = crawler.settings["USER_AGENT"]
        self._robotstxt_useragent: str | None = crawler.settings["ROBOTSTXT_USER_AGENT"]
        self.crawler = crawler
        self._stats: StatsCollector = crawler.stats
        self._parserimpl: Any = load_object(crawler.settings.get("ROBOTSTXT_PARSER"))
        # As Scrapy: fail at start-up, not at the first page, when the parser cannot be built.
        build_from_crawler(self._parserimpl, crawler, b"")
        spec = crawler.settings.get(CACHE_SETTING)
        self._cache: Cache | None = open_cache(spec) if spec else None
        # authority -> (parser, monotonic expiry); inf: for the whole crawl, as Scrapy keeps them
        self._parsers: dict[str, tuple[Any, float]] = {}
        # authority -> one Deferred per request waiting for that authority's robots.txt
        self._waiters: dict[str, list[Deferred[Any]]] = {}
        crawler.signals.connect(self._close_cache, signal=signals.spider_closed)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> RobotsTxtMiddleware:
        return cls(crawler)

    async def process_request(self, request: Request, spider: Any = None) -> None:
        if request.meta.get("dont_obey_robotstxt"):
            return
        if request.url.startswith(("data:", "file:")):
            return
        rp = await self.robot_parser(request)
        self.process_request_2(rp, request)

    def process_request_2(self, rp: Any, request: Request) -> None:
        """Judge `request` with `rp` (None: no parser, as Scrapy: the request goes out)."""
        if rp is None:
            return
        useragent: str | bytes | None = self._robotstxt_useragent
        if not useragent:
            useragent = request.headers.get(b"User-Agent", self._default_useragent)
            assert useragent is not None
        if not rp.allowed(request.url, useragent):
            log.debug("Forbidden by robots.txt: %(request)s", {"request": request})
            self._stats.inc_value("robotstxt/forbidden")
            raise IgnoreRequest("Forbidden by robots.txt")

    async def robot_parser(self, request: Request) -> Any:
        """The parser for `request`'s authority: known, awaited with the others, or fetched now.

        A `ROBOTSTXT_PARSER` instance, a disallow-all stand-in for an unreachable robots.txt, or
        None (no parser: the request goes out, as Scrapy does for URLs without an authority).
        """
        try:
            key = authority_key(request.url)
        except RobotskitError:
            return None  # a URL robotskit cannot key has no robots.txt to ask (Scrapy: no parser)
        known = self._parsers.get(key)
        if known is not None and time.monotonic() < known[1]:
            return known[0]
        waiting = self._waiters.get(key)
        if waiting is not None:
            mine: Deferred[Any] = Deferred()  # a Deferred per waiter: the fix of the race
            waiting.append(mine)
            return await maybe_deferred_to_future(mine)
        self._waiters[key] = []
        parser: Any = None
        try:
            parser = await self._load(key, request)
        except Exception:
            # Fail closed (RFC 9309 2.3.1.4 treats what cannot be read as unreachable), briefly.
            log.exception("robots.txt of %s could not be handled; disallowing its URLs for a while", key)
            parser = _Unreachable("robots.txt handling failed")
            self._parsers[key] = (parser, time.monotonic() + _FAILURE_BACKOFF)
        finally:
            for waiter in self._waiters.pop(key, []):
                waiter.callback(parser)
        return parser

    async def _load(self, key: str, request: Request) -> Any:
        previous = await self._cache_get(key)
        if previous is not None and previous.is_fresh(time.time()):
            entry = previous  # another spider of the fleet fetched it
        else:
            self._stats.inc_value("robotstxt/request_count")
            flow = fetch_flow(key, clock=time.time, previous=previous, max_bytes=DEFAULT_MAX_BYTES)
            entry = await arun_flow(flow, self._download)
            await self._cache_put(entry)
        return await self._parser_for(entry, request)

    async def _parser_for(self, entry: RobotsEntry, request: Request) -> Any:
        key = entry.authority
        if entry.has_rules or entry.outcome is Outcome.UNAVAILABLE:
            # RFC 9309 2.3.1.3: unavailable (4xx) is an empty file: everything allowed.
            body = entry.body if entry.has_rules else b""
            parser = build_from_crawler(self._parserimpl, self.crawler, body)
            self._parsers[key] = (parser, math.inf)
            await self.crawler.signals.send_catch_log_async(
                signal=signals.robots_parsed, robotparser=parser, request=request
            )
            return parser
        # RFC 9309 2.3.1.4: unreachable: disallow all until the entry expires, then ask again.
        log.warning("robots.txt of %s unreachable (%s): disallowing its URLs", key, entry.reason)
        unreachable = _Unreachable(entry.reason)
        self._parsers[key] = (unreachable, time.monotonic() + max(entry.expires_at - time.time(), 0.0))
        return unreachable

    async def _download(self, wanted: FetchRequest) -> FetchResponse:
        """One hop of the policy flow, downloaded by Scrapy (its middlewares, proxies, settings)."""
        robots_request = Request(
            wanted.url,
            priority=self.DOWNLOAD_PRIORITY,
            meta={"dont_obey_robotstxt": True, "dont_redirect": True, "handle_httpstatus_all": True},
            callback=NO_CALLBACK,
        )
        engine = self.crawler.engine
        assert engine is not None
        try:
            response: Response = await engine.download_async(robots_request)
        except Exception as exc:
            if not isinstance(exc, IgnoreRequest):
                self._stats.inc_value(f"robotstxt/exception_count/{type(exc)}")
            raise _fetch_error(exc, wanted.url) from exc
        self._stats.inc_value("robotstxt/response_count")
        self._stats.inc_value(f"robotstxt/response_status_count/{response.status}")
        body = response.body
        headers = {
            key.decode("latin-1").lower(): b", ".join(values).decode("latin-1")
            for key, values in response.headers.items()
        }
        return FetchResponse(
            url=wanted.url,
            protocol="http",
            status=response.status,
            body=body[: wanted.max_bytes],
            headers=headers,
            truncated=len(body) > wanted.max_bytes,
        )

    async def _cache_get(self, key: str) -> RobotsEntry | None:
        if self._cache is None:
            return None
        try:  # in a thread: a Redis or SQLite read must not block the reactor
            found: RobotsEntry | None = await maybe_deferred_to_future(deferToThread(self._cache.get, key))
        except RobotskitError as exc:  # a shared cache being down must not stop the crawl
            log.warning("robotskit cache read failed for %s: %s", key, exc)
            return None
        return found

    async def _cache_put(self, entry: RobotsEntry) -> None:
        if self._cache is None:
            return
        try:
            await maybe_deferred_to_future(deferToThread(self._cache.put, entry))
        except RobotskitError as exc:
            log.warning("robotskit cache write failed for %s: %s", entry.authority, exc)

    def _close_cache(self) -> None:
        if self._cache is not None:
            self._cache.close()


def _fetch_error(exc: Exception, url: str) -> FetchError:
    """A Scrapy/Twisted download failure as the policy's FetchError (its kind is the reason)."""
    if isinstance(exc, TwistedTimeout):
        return FetchError(str(exc), url=url, kind="timeout")
    if isinstance(exc, DNSLookupError):
        return FetchError(str(exc), url=url, kind="dns")
    return FetchError(f"{type(exc).__name__}: {exc}", url=url, kind="connection")
