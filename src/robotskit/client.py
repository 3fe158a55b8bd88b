"""RobotsClient and AsyncRobotsClient: "may I fetch this URL?", answered end to end.

The one module that joins the policy (robotskit.policy), a cache (robotskit.cache) and the
fetch adapters (robotskit.fetch.*). A client fetches each authority's robots.txt once, keeps
it in the cache until it expires, and decides per agent. Fetches of one authority are
single-flight: concurrent callers (threads for RobotsClient, tasks for AsyncRobotsClient)
wait for one shared request (SPEC.md section 6).

Default adapters are created on first use for each scheme, so `import robotskit` never
imports httpx; pass `fetchers={"https": ...}` to supply your own.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import threading
import time
from collections.abc import Callable, Mapping
from types import TracebackType
from typing import Generic, TypeVar
from urllib.parse import urlsplit

from robotskit._authority import authority_key
from robotskit._model import Decision
from robotskit.agents import Agent, as_agent, product_token
from robotskit.cache import Cache, MemoryCache, open_cache
from robotskit.errors import FetchError, InvalidArgument
from robotskit.fetch._types import (
    DEFAULT_MAX_BYTES,
    DEFAULT_TIMEOUT,
    AsyncFetcher,
    Fetcher,
    FetchRequest,
    FetchResponse,
)
from robotskit.policy import (
    DEFAULT_POLICY,
    Flow,
    PolicyConfig,
    RobotsEntry,
    arun_flow,
    decide,
    fetch_flow,
    run_flow,
)
from robotskit.profiles import get_profile

__all__ = ["AsyncRobotsClient", "RobotsClient"]

# scheme -> (module, sync class, async class); imported lazily (httpx is heavy and optional here)
_ADAPTERS: dict[str, tuple[str, str, str]] = {
    "http": ("robotskit.fetch.http", "HttpFetcher", "AsyncHttpFetcher"),
    "https": ("robotskit.fetch.http", "HttpFetcher", "AsyncHttpFetcher"),
    "gemini": ("robotskit.fetch.gemini", "GeminiFetcher", "AsyncGeminiFetcher"),
    "ftp": ("robotskit.fetch.ftp", "FtpFetcher", "AsyncFtpFetcher"),
}

F = TypeVar("F")


def _default_user_agent(agent: str | Agent) -> str:
    token = agent.token if isinstance(agent, Agent) else product_token(agent)
    return token or "robotskit"


class _Core(Generic[F]):
    """Configuration and pure helpers shared by the sync and async clients."""

    def __init__(
        self,
        agent: str | Agent,
        *,
        user_agent: str | None,
        cache: str | Cache | None,
        profile: str | None,
        timeout: float,
        max_bytes: int,
        fetchers: Mapping[str, F] | None,
        clock: Callable[[], float] | None,
        policy: PolicyConfig,
        is_async: bool,
    ) -> None:
        as_agent(agent)  # validates: a string or an Agent
        if profile is not None:
            get_profile(profile)  # raises UnknownProfile early, not at the first decision
        if max_bytes < DEFAULT_MAX_BYTES:
            # SPEC.md 2: the size limit is configurable "but never below" 500 KiB (RFC 9309 2.5).
            raise InvalidArgument(f"max_bytes must be at least {DEFAULT_MAX_BYTES}, got {max_bytes}")
        if timeout <= 0:
            raise InvalidArgument(f"timeout must be positive, got {timeout}")
        self.agent = agent
        self.user_agent = user_agent or _default_user_agent(agent)
        self.profile = profile
        self.timeout = timeout
        self.max_bytes = max_bytes
        self.policy = policy
        self.clock: Callable[[], float] = clock or time.time
        self.cache = open_cache(cache)
        self.owns_cache = cache is None or isinstance(cache, str)
        self.fetchers: dict[str, F] = dict(fetchers or {})
        self.created: dict[str, F] = {}  # adapters this client made, and so closes
        self.is_async = is_async
        self.lock = threading.Lock()

    def fetcher(self, url: str) -> F:
        scheme = urlsplit(url).scheme.lower()
        found = self.fetchers.get(scheme)
        if found is not None:
            return found
        if scheme not in _ADAPTERS:
            raise FetchError(f"no fetcher for scheme {scheme!r}", url=url, kind="unsupported")
        module_name, sync_name, async_name = _ADAPTERS[scheme]
        name = f"{module_name}.{async_name if self.is_async else sync_name}"
        with self.lock:
            if name not in self.created:
                module = importlib.import_module(module_name)
                self.created[name] = getattr(module, async_name if self.is_async else sync_name)()
            adapter = self.created[name]
            self.fetchers.setdefault(scheme, adapter)
        return adapter

    def flow(self, authority: str, previous: RobotsEntry | None) -> Flow:
        return fetch_flow(
            authority,
            clock=self.clock,
            previous=previous,
            user_agent=self.user_agent,
            timeout=self.timeout,
            max_bytes=self.max_bytes,
            config=self.policy,
        )

    def fresh(self, entry: RobotsEntry | None) -> bool:
        return entry is not None and entry.is_fresh(self.clock())

    def decide(self, entry: RobotsEntry, url: str, agent: str | Agent | None) -> Decision:
        return decide(entry, url, self.agent if agent is None else agent, self.profile)

    def crawl_delay(self, entry: RobotsEntry, agent: str | Agent | None) -> float | None:
        robots = entry.parsed(self.profile)
        return None if robots is None else robots.crawl_delay(self.agent if agent is None else agent)

    def sitemaps(self, entry: RobotsEntry) -> tuple[str, ...]:
        robots = entry.parsed(self.profile)
        return () if robots is None else robots.sitemaps


def _wrap_os_error(request: FetchRequest, exc: OSError) -> FetchError:
    # Adapters should raise FetchError; a stray socket error still means "unreachable".
    return FetchError(f"{type(exc).__name__}: {exc}", url=request.url, kind="connection")


class _Flight:
    """One in-progress fetch that other threads wait on."""

    def __init__(self) -> None:
        self.event = threading.Event()
        self.entry: RobotsEntry | None = None
        self.error: BaseException | None = None

    def wait(self) -> RobotsEntry:
        self.event.wait()
        if self.error is not None:
            raise self.error
        assert self.entry is not None
        return self.entry


class RobotsClient:
    """Fetches, caches and applies robots.txt for one crawler (thread-safe).

    `agent`: the product token (or `Agent`) rules are matched for. `user_agent`: the full
    User-Agent sent with every fetch (default: the token). `cache`: a `Cache` or a URL for
    `open_cache` (default: an in-memory LRU). `profile`: None chooses per URL (gemini for
    gemini://, rfc9309 otherwise). `fetchers`: adapters by scheme. `clock`: epoch seconds.
    """

    def __init__(
        self,
        agent: str | Agent,
        *,
        user_agent: str | None = None,
        cache: str | Cache | None = None,
        profile: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        max_bytes: int = DEFAULT_MAX_BYTES,
        fetchers: Mapping[str, Fetcher] | None = None,
        clock: Callable[[], float] | None = None,
        policy: PolicyConfig = DEFAULT_POLICY,
    ) -> None:
        self._core: _Core[Fetcher] = _Core(
            agent,
            user_agent=user_agent,
            cache=cache,
            profile=profile,
            timeout=timeout,
            max_bytes=max_bytes,
            fetchers=fetchers,
            clock=clock,
            policy=policy,
            is_async=False,
        )
        self._flights: dict[str, _Flight] = {}
        self._mutex = threading.Lock()

    @property
    def agent(self) -> str | Agent:
        return self._core.agent

    @property
    def user_agent(self) -> str:
        return self._core.user_agent

    @property
    def cache(self) -> Cache:
        return self._core.cache

    def lookup(self, url: str) -> RobotsEntry:
        """The entry for `url`'s authority: from the cache while fresh, else fetched once."""
        key = authority_key(url)
        cached = self._core.cache.get(key)
        if self._core.fresh(cached):
            assert cached is not None
            return cached
        with self._mutex:
            flight = self._flights.get(key)
            leader = flight is None
            if flight is None:
                flight = self._flights[key] = _Flight()
        if not leader:
            return flight.wait()
        try:
            flight.entry = self._refresh(key)
        except BaseException as exc:
            flight.error = exc
            raise
        finally:
            with self._mutex:
                del self._flights[key]
            flight.event.set()
        return flight.entry

    def _refresh(self, key: str) -> RobotsEntry:
        previous = self._core.cache.get(key)
        if self._core.fresh(previous):  # another caller refreshed it while we queued
            assert previous is not None
            return previous
        entry = run_flow(self._core.flow(key, previous), self._fetch)
        self._core.cache.put(entry)
        return entry

    def _fetch(self, request: FetchRequest) -> FetchResponse:
        fetcher = self._core.fetcher(request.url)
        try:
            return fetcher.fetch(request)
        except OSError as exc:
            raise _wrap_os_error(request, exc) from exc

    def decide(self, url: str, agent: str | Agent | None = None) -> Decision:
        """The decision for `url`; its `reason` and `source` name the fetch outcome."""
        return self._core.decide(self.lookup(url), url, agent)

    def allowed(self, url: str, agent: str | Agent | None = None) -> bool:
        """May the agent fetch `url`? Fetches and caches robots.txt as needed."""
        return self.decide(url, agent).allowed

    def crawl_delay(self, url: str, agent: str | Agent | None = None) -> float | None:
        """The crawl-delay (seconds) that `url`'s robots.txt sets for the agent, if any."""
        return self._core.crawl_delay(self.lookup(url), agent)

    def sitemaps(self, url: str) -> tuple[str, ...]:
        """The sitemap URLs listed by the robots.txt of `url`'s authority."""
        return self._core.sitemaps(self.lookup(url))

    def close(self) -> None:
        """Close the adapters and the cache this client created (not ones passed in)."""
        for adapter in self._core.created.values():
            close = getattr(adapter, "close", None)
            if callable(close):
                close()
        self._core.created.clear()
        if self._core.owns_cache:
            self._core.cache.close()

    def __enter__(self) -> RobotsClient:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


class AsyncRobotsClient:
    """The asyncio twin of `RobotsClient`: same arguments, awaitable methods, `async with`.

    Single-flight holds across tasks of one event loop. A persistent cache (SQLite, Redis) is
    used from a worker thread so the loop never blocks on it.
    """

    def __init__(
        self,
        agent: str | Agent,
        *,
        user_agent: str | None = None,
        cache: str | Cache | None = None,
        profile: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        max_bytes: int = DEFAULT_MAX_BYTES,
        fetchers: Mapping[str, AsyncFetcher] | None = None,
        clock: Callable[[], float] | None = None,
        policy: PolicyConfig = DEFAULT_POLICY,
    ) -> None:
        self._core: _Core[AsyncFetcher] = _Core(
            agent,
            user_agent=user_agent,
            cache=cache,
            profile=profile,
            timeout=timeout,
            max_bytes=max_bytes,
            fetchers=fetchers,
            clock=clock,
            policy=policy,
            is_async=True,
        )
        self._flights: dict[str, asyncio.Future[RobotsEntry]] = {}

    @property
    def agent(self) -> str | Agent:
        return self._core.agent

    @property
    def user_agent(self) -> str:
        return self._core.user_agent

    @property
    def cache(self) -> Cache:
        return self._core.cache

    async def _cache_get(self, key: str) -> RobotsEntry | None:
        if isinstance(self._core.cache, MemoryCache):
            return self._core.cache.get(key)
        return await asyncio.to_thread(self._core.cache.get, key)

    async def _cache_put(self, entry: RobotsEntry) -> None:
        if isinstance(self._core.cache, MemoryCache):
            self._core.cache.put(entry)
        else:
            await asyncio.to_thread(self._core.cache.put, entry)

    async def lookup(self, url: str) -> RobotsEntry:
        """The entry for `url`'s authority: from the cache while fresh, else fetched once."""
        key = authority_key(url)
        cached = await self._cache_get(key)
        if self._core.fresh(cached):
            assert cached is not None
            return cached
        flight = self._flights.get(key)
        if flight is None:
            flight = asyncio.ensure_future(self._refresh(key))
            self._flights[key] = flight
            flight.add_done_callback(lambda done: self._land(key, done))
        # shield: one caller giving up (cancelled) must not cancel the fetch the others await
        return await asyncio.shield(flight)

    def _land(self, key: str, done: asyncio.Future[RobotsEntry]) -> None:
        if self._flights.get(key) is done:
            del self._flights[key]
        if not done.cancelled():
            done.exception()  # mark retrieved: followers re-raise it; no "never retrieved" noise

    async def _refresh(self, key: str) -> RobotsEntry:
        previous = await self._cache_get(key)
        if self._core.fresh(previous):
            assert previous is not None
            return previous
        entry = await arun_flow(self._core.flow(key, previous), self._fetch)
        await self._cache_put(entry)
        return entry

    async def _fetch(self, request: FetchRequest) -> FetchResponse:
        fetcher = self._core.fetcher(request.url)
        try:
            return await fetcher.fetch(request)
        except OSError as exc:
            raise _wrap_os_error(request, exc) from exc

    async def decide(self, url: str, agent: str | Agent | None = None) -> Decision:
        """The decision for `url`; its `reason` and `source` name the fetch outcome."""
        return self._core.decide(await self.lookup(url), url, agent)

    async def allowed(self, url: str, agent: str | Agent | None = None) -> bool:
        """May the agent fetch `url`? Fetches and caches robots.txt as needed."""
        return (await self.decide(url, agent)).allowed

    async def crawl_delay(self, url: str, agent: str | Agent | None = None) -> float | None:
        """The crawl-delay (seconds) that `url`'s robots.txt sets for the agent, if any."""
        return self._core.crawl_delay(await self.lookup(url), agent)

    async def sitemaps(self, url: str) -> tuple[str, ...]:
        """The sitemap URLs listed by the robots.txt of `url`'s authority."""
        return self._core.sitemaps(await self.lookup(url))

    async def close(self) -> None:
        """Close the adapters and the cache this client created (not ones passed in)."""
        for adapter in self._core.created.values():
            closer = getattr(adapter, "aclose", None) or getattr(adapter, "close", None)
            if callable(closer):
                result = closer()
                if inspect.isawaitable(result):
                    await result
        self._core.created.clear()
        if self._core.owns_cache:
            await asyncio.to_thread(self._core.cache.close)

    async def __aenter__(self) -> AsyncRobotsClient:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()
