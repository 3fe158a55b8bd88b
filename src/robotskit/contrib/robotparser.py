"""A drop-in for `urllib.robotparser.RobotFileParser` with RFC 9309 semantics.

    from robotskit.contrib.robotparser import RobotFileParser   # was: from urllib.robotparser import ...

Owns: the standard library's method and attribute surface (`set_url`, `read`, `parse`,
`can_fetch`, `mtime`, `modified`, `crawl_delay`, `request_rate`, `site_maps`, `__str__`,
`url`, `host`, `path`, `disallow_all`, `allow_all`, `last_checked`, `sitemaps`) mapped onto
`robotskit.parse` for the answers and `robotskit.RobotsClient` for `read()`.

Every behaviour that differs from the standard library is listed, with the reason, in
docs/robotparser.md; the short version: longest match wins (not first match), `*` and `$`
work, agents match by exact product token (not substring), blank lines do not end groups,
and `read()` follows RFC 9309 2.3.1 (401/403 allow everything, 5xx/429/timeouts disallow
everything) with a timeout, a size limit and a real User-Agent.
"""

from __future__ import annotations

import datetime as dt
import time
import urllib.parse
from collections.abc import Iterable
from importlib import metadata
from typing import TYPE_CHECKING, Any
from urllib.robotparser import RequestRate

import robotskit
from robotskit.client.clients import RobotsClient
from robotskit.contrib._protego_api import VisitTime, visit_time_of
from robotskit.policy.flow import Outcome

if TYPE_CHECKING:
    from robotskit.core.model import Group
    from robotskit.document import RobotsTxt
    from robotskit.policy.flow import RobotsEntry

__all__ = ["RequestRate", "RobotFileParser", "TimedRequestRate", "VisitTime"]


class TimedRequestRate(RequestRate):
    """urllib's `RequestRate(requests, seconds)` plus Protego's `start_time` / `end_time` window.

    Still a two-field tuple (it compares equal to `RequestRate(n, s)` and unpacks as two), so
    code written for the standard library is unaffected; the window is extra attributes.
    """

    start_time: dt.time | None
    end_time: dt.time | None

    @classmethod
    def of(
        cls, requests: int | float, seconds: int | float, start: dt.time | None, end: dt.time | None
    ) -> TimedRequestRate:
        # _make: urllib's stub says int, but fractional seconds (`1/0.5s`) are kept as floats.
        rate = cls._make((requests, seconds))
        rate.start_time = start
        rate.end_time = end
        return rate


def _default_user_agent() -> str:
    try:
        version = metadata.version("robotskit")
    except metadata.PackageNotFoundError:  # running from a source tree without metadata
        version = "0"
    return f"robotskit/{version} (+robotparser)"


def _number(value: float) -> int | float:
    """Integral values come back as int, as the standard library returns them."""
    return int(value) if float(value).is_integer() else value


class RobotFileParser:
    """Answers questions about one robots.txt, like `urllib.robotparser.RobotFileParser`.

    Extra keyword arguments (all optional): `user_agent` sent by `read()`, `timeout` in
    seconds for `read()`, `client` (a `robotskit.RobotsClient` to share its cache and
    fetchers), `profile` ("rfc9309" default, "google", "gemini"). `robots` holds the parsed
    `robotskit.RobotsTxt` after `read()`/`parse()` for everything the standard API cannot say.
    """

    def __init__(
        self,
        url: str = "",
        *,
        user_agent: str | None = None,
        timeout: float = 10.0,
        client: RobotsClient | None = None,
        profile: str | None = None,
    ) -> None:
        # Attribute compatibility: `entries`/`default_entry` exist but stay empty; the parsed
        # file lives in `self.robots` (its groups are `self.robots.groups`).
        self.entries: list[Any] = []
        self.default_entry: Any = None
        self.sitemaps: list[str] = []
        self.disallow_all = False
        self.allow_all = False
        self.last_checked: float = 0
        self.robots: RobotsTxt | None = None
        self.user_agent = user_agent or _default_user_agent()
        self.timeout = timeout
        self.profile = profile
        self._client: RobotsClient | None = client
        self.url = ""
        self.host = ""
        self.path = ""
        self.set_url(url)

    # --- the standard surface -------------------------------------------------------------------

    def mtime(self) -> float:
        """The time the robots.txt was last fetched or parsed (0 before that)."""
        return self.last_checked

    def modified(self) -> None:
        """Set the last-fetched time to now."""
        self.last_checked = time.time()

    def set_url(self, url: str) -> None:
        """Set the URL of the robots.txt (only its scheme and authority matter to `read()`)."""
        self.url = url
        self.host, self.path = urllib.parse.urlparse(url)[1:3]

    def read(self) -> None:
        """Fetch the robots.txt with robotskit's fetch policy and parse it, from a clean state.

        RFC 9309 2.3.1: a 4xx answer (401 and 403 included) means no robots.txt, so everything
        is allowed; a 5xx or 429 answer, a timeout or a network error means everything is
        disallowed. Never raises for network trouble. Each call forgets what the previous one
        found, so a server that failed once is read again (as the standard library does).
        """
        self._forget()
        entry = self._lookup()
        self.modified()
        if entry.outcome is Outcome.UNAVAILABLE:
            self.allow_all = True
            return
        if not entry.has_rules:  # unreachable, and no good copy stands in
            self.disallow_all = True
            return
        self._set_robots(robotskit.parse(entry.body, self.profile, robots_url=entry.robots_url))

    def _forget(self) -> None:
        """Back to the state of a new parser for this URL (what read() starts from)."""
        self.entries = []
        self.default_entry = None
        self.sitemaps = []
        self.disallow_all = False
        self.allow_all = False
        self.robots = None

    def parse(self, lines: Iterable[str | bytes] | str | bytes) -> None:
        """Parse robots.txt lines (an iterable of lines, as the standard library takes).

        Also accepts the whole file as one `str` or `bytes` (the standard library would
        iterate a string character by character).
        """
        if isinstance(lines, (str, bytes)):
            body: str | bytes = lines
        else:
            items = list(lines)
            if items and all(isinstance(item, bytes) for item in items):
                body = b"\n".join(item for item in items if isinstance(item, bytes))
            else:
                body = "\n".join(
                    item.decode("utf-8", "replace") if isinstance(item, bytes) else item for item in items
                )
        self.modified()
        self._set_robots(robotskit.parse(body, self.profile, robots_url=self.url or None))

    def can_fetch(self, useragent: str, url: str) -> bool:
        """True if `useragent` may fetch `url` (absolute URL or path)."""
        if self.disallow_all:
            return False
        if self.allow_all:
            return True
        # As the standard library: before read()/parse() nothing is allowed, so a forgotten
        # read() fails closed.
        if not self.last_checked or self.robots is None:
            return False
        return self.robots.allowed(url or "/", useragent)

    def crawl_delay(self, useragent: str) -> int | float | None:
        """The Crawl-delay for `useragent` in seconds (fractions kept), or None."""
        if not self.mtime() or self.robots is None:
            return None
        delay = self.robots.crawl_delay(useragent)
        return None if delay is None else _number(delay)

    def request_rate(self, useragent: str) -> TimedRequestRate | None:
        """The Request-rate for `useragent` as urllib's `RequestRate(requests, seconds)`, or None.

        The value is still urllib's two-field named tuple (equal to `RequestRate(n, s)`); its
        `start_time` and `end_time` attributes carry the optional window (`1/5s 0600-0845`), as
        Protego's `RequestRate` does (None without one).
        """
        if not self.mtime() or self.robots is None:
            return None
        rate = self.robots.request_rate(useragent)
        if rate is None:
            return None
        requests, seconds = _number(rate.requests), _number(rate.seconds)
        return TimedRequestRate.of(requests, seconds, rate.start_time, rate.end_time)

    def visit_time(self, useragent: str) -> VisitTime | None:
        """The Visit-time window for `useragent` as Protego's `VisitTime(start_time, end_time)`, or None."""
        if not self.mtime() or self.robots is None:
            return None
        return visit_time_of(self.robots.visit_time(useragent))

    def site_maps(self) -> list[str] | None:
        """The Sitemap URLs (file order, de-duplicated), or None when there are none."""
        return list(self.sitemaps) if self.sitemaps else None

    def __str__(self) -> str:
        if self.robots is None:
            return ""
        return "\n\n".join(_render_group(self.robots, group) for group in _stdlib_order(self.robots))

    # --- internals ------------------------------------------------------------------------------

    def _set_robots(self, robots: RobotsTxt) -> None:
        self.robots = robots
        self.sitemaps = list(robots.sitemaps)

    def _lookup(self) -> RobotsEntry:
        if self._client is not None:
            return self._client.lookup(self.url)
        agent = robotskit.product_token(self.user_agent) or "robotskit"
        with RobotsClient(
            agent, user_agent=self.user_agent, timeout=self.timeout, profile=self.profile
        ) as client:
            return client.lookup(self.url)


def _stdlib_order(robots: RobotsTxt) -> list[Group]:
    """Groups as the standard library prints them: specific groups first, `*` groups last."""
    groups = list(robots.groups)
    return [g for g in groups if not g.is_global] + [g for g in groups if g.is_global]


def _render_group(robots: RobotsTxt, group: Group) -> str:
    lines = [f"User-agent: {agent}" for agent in group.raw_agents]
    for record in robots.records:
        if record.group == group.index and record.key in ("crawl-delay", "request-rate"):
            name = "Crawl-delay" if record.key == "crawl-delay" else "Request-rate"
            lines.append(f"{name}: {record.value}")
    for rule in group.rules:
        if rule.derived:
            continue
        kind = "Allow" if rule.allow else "Disallow"
        lines.append(f"{kind}: {rule.raw or rule.pattern}")
    return "\n".join(lines)
