"""httpx transports that obey robots.txt and pace themselves per authority.

    client = robotskit.RobotsClient("MyBot", user_agent="MyBot/1.0 (+https://example.org/bot)")
    with httpx.Client(transport=RobotsTransport(client)) as http:
        http.get("https://example.com/page")        # raises DisallowedByRobots if disallowed

Owns: the judging and pacing of each request an httpx client sends. Before a request leaves,
the given `RobotsClient` / `AsyncRobotsClient` (its agent, profile, policy and cache: memory,
SQLite or Redis) decides whether the URL is allowed; a disallowed request raises
`DisallowedByRobots` (an `httpx.RequestError` carrying the `Decision`) and never reaches the
network. Allowed requests to one authority are spaced by the site's `Crawl-delay` or
`Request-rate` for the agent (the larger, capped by `max_delay`); a 429 or 503 with
`Retry-After` holds that authority back for the time asked (also capped). Concurrent requests
to one authority queue for their slots; different authorities never wait for each other.

Pacing reserves slots: each request takes the next free start time of its authority under a
short lock and then waits outside it, so a delay of 0 costs nothing and nobody holds a lock
while a request is in flight.

This module imports httpx at the top (httpx is already a robotskit dependency); importing
`robotskit` does not import it.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import httpx

from robotskit.client.clients import AsyncRobotsClient, RobotsClient
from robotskit.core.agents import Agent
from robotskit.core.model import Decision
from robotskit.policy.authority import authority_key
from robotskit.policy.classify import parse_retry_after
from robotskit.policy.flow import RobotsEntry, decide

__all__ = ["AsyncRobotsTransport", "DisallowedByRobots", "RobotsTransport"]

DEFAULT_MAX_DELAY = 60.0
# RFC 9110 10.2.3: Retry-After accompanies 503 (and RFC 6585 4: 429) to say when to come back.
_RETRY_STATUSES = frozenset({429, 503})


class DisallowedByRobots(httpx.RequestError):
    """The URL is disallowed for the agent by its site's robots.txt; the request was not sent.

    `decision` says why (the deciding rule or the fetch outcome, e.g. "robots.txt unreachable").
    """

    def __init__(self, decision: Decision, *, request: httpx.Request) -> None:
        super().__init__(f"disallowed by robots.txt: {request.url} ({decision.reason})", request=request)
        self.decision = decision


@dataclass
class _Slot:
    """One authority's pacing: the earliest start of the next request, and why it is that late."""

    next_at: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock)


class _Pacer:
    """Per-authority start times (monotonic clock); shared logic of both transports."""

    def __init__(self, max_delay: float, clock: Callable[[], float]) -> None:
        if max_delay < 0:
            raise ValueError(f"max_delay must be >= 0, got {max_delay}")
        self.max_delay = max_delay
        self.clock = clock
        self._slots: dict[str, _Slot] = {}
        self._lock = threading.Lock()

    def _slot(self, key: str) -> _Slot:
        with self._lock:
            slot = self._slots.get(key)
            if slot is None:
                slot = self._slots[key] = _Slot()
            return slot

    def reserve(self, key: str, delay: float) -> float:
        """Take the authority's next start time; returns how long the caller must wait for it."""
        slot = self._slot(key)
        with slot.lock:
            now = self.clock()
            start = max(now, slot.next_at)
            slot.next_at = start + min(delay, self.max_delay)
            return start - now

    def hold_back(self, key: str, response: httpx.Response) -> None:
        """Honour Retry-After on 429 and 503: no request to the authority before then."""
        if response.status_code not in _RETRY_STATUSES:
            return
        wait = parse_retry_after(response.headers.get("retry-after", ""), time.time())
        if wait is None or wait <= 0:
            return
        slot = self._slot(key)
        with slot.lock:
            slot.next_at = max(slot.next_at, self.clock() + min(wait, self.max_delay))


def _delay_for(entry: RobotsEntry, profile: str | None, agent: str | Agent) -> float:
    """The spacing the site asks of the agent: the larger of Crawl-delay and Request-rate's."""
    robots = entry.parsed(profile)
    if robots is None:
        return 0.0
    delay = robots.crawl_delay(agent) or 0.0
    rate = robots.request_rate(agent)
    if rate is not None:
        delay = max(delay, rate.delay)
    return delay


def _judge(entry: RobotsEntry, request: httpx.Request, client: RobotsClient | AsyncRobotsClient) -> float:
    """Raise DisallowedByRobots for a disallowed URL; else the delay to keep for its authority."""
    url = str(request.url)
    decision = decide(entry, url, client.agent, client.profile)
    if not decision.allowed:
        raise DisallowedByRobots(decision, request=request)
    return _delay_for(entry, client.profile, client.agent)


class RobotsTransport(httpx.BaseTransport):
    """A sync httpx transport judging every request with `client` and pacing per authority.

    `transport`: the transport that sends allowed requests (default `httpx.HTTPTransport()`,
    closed with this one). `max_delay`: cap in seconds on Crawl-delay, Request-rate and
    Retry-After waits, so one site cannot stall a crawl.
    """

    def __init__(
        self,
        client: RobotsClient,
        transport: httpx.BaseTransport | None = None,
        *,
        max_delay: float = DEFAULT_MAX_DELAY,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.client = client
        self.transport = transport if transport is not None else httpx.HTTPTransport()
        self._pacer = _Pacer(max_delay, clock)
        self._sleep = sleep

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        url = str(request.url)
        delay = _judge(self.client.lookup(url), request, self.client)
        key = authority_key(url)
        wait = self._pacer.reserve(key, delay)
        if wait > 0:
            self._sleep(wait)
        response = self.transport.handle_request(request)
        self._pacer.hold_back(key, response)
        return response

    def close(self) -> None:
        self.transport.close()


class AsyncRobotsTransport(httpx.AsyncBaseTransport):
    """The asyncio twin of `RobotsTransport`, judging with an `AsyncRobotsClient`."""

    def __init__(
        self,
        client: AsyncRobotsClient,
        transport: httpx.AsyncBaseTransport | None = None,
        *,
        max_delay: float = DEFAULT_MAX_DELAY,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.client = client
        self.transport = transport if transport is not None else httpx.AsyncHTTPTransport()
        self._pacer = _Pacer(max_delay, clock)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        url = str(request.url)
        delay = _judge(await self.client.lookup(url), request, self.client)
        key = authority_key(url)
        wait = self._pacer.reserve(key, delay)
        if wait > 0:
            await asyncio.sleep(wait)
        response = await self.transport.handle_async_request(request)
        self._pacer.hold_back(key, response)
        return response

    async def aclose(self) -> None:
        await self.transport.aclose()
