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
import inspect
import threading
from types import TracebackType

from robotskit.cache import MemoryCache
from robotskit.client.core import ClientBase, wrap_foreign_error, wrap_os_error
from robotskit.core.agents import Agent
from robotskit.core.model import Decision
from robotskit.errors import RobotskitError
from robotskit.policy.flow import RobotsEntry, arun_flow, run_flow
from robotskit.policy.messages import AsyncFetcher, Fetcher, FetchRequest, FetchResponse

__all__ = ["AsyncRobotsClient", "RobotsClient"]


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


class RobotsClient(ClientBase[Fetcher, _Flight]):
    """Fetches, caches and applies robots.txt for one crawler (thread-safe).

    `agent`: the product token (or `Agent`) rules are matched for. `user_agent`: the full
    User-Agent sent with every fetch (default: the token). `cache`: a `Cache` or a URL for
    `open_cache` (default: an in-memory LRU). `profile`: None chooses per URL (gemini for
    gemini://, rfc9309 otherwise). `fetchers`: adapters by scheme. `clock`: epoch seconds.
    `public_only=True`: the default adapters refuse to connect to loopback, private,
    link-local, multicast and reserved addresses (checked on the resolved address, on every
    redirect hop); such a host is "unreachable" with the reason "address not public".
    `probe_5xx` (off by default): on an HTTP 5xx for robots.txt, request `/` and a page that
    cannot exist; when `/` answers 2xx and that page 5xx, the site answers 5xx for missing pages
    and the 5xx is read as a 4xx (everything allowed, the reason says so). The probes count
    against `timeout` and are cached with the entry.
    """

    _is_async = False

    def lookup(self, url: str, *, refresh: bool = False) -> RobotsEntry:
        """The entry for `url`'s authority: from the cache while fresh, else fetched once.

        `refresh=True` fetches again even while the cached copy is fresh (that copy still
        stands in, as a stale copy, if the site cannot be reached).
        """
        key = self._core.key_of(url)
        cached = self._core.cache.get(key)
        if not refresh and self._core.fresh(cached):
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
            flight.entry = self._refresh(key, refresh)
        except BaseException as exc:
            flight.error = exc
            raise
        finally:
            with self._mutex:
                del self._flights[key]
            flight.event.set()
        return flight.entry

    def _refresh(self, key: str, refresh: bool) -> RobotsEntry:
        previous = self._core.cache.get(key)
        if not refresh and self._core.fresh(previous):  # another caller refreshed it while we queued
            assert previous is not None
            return previous
        entry = run_flow(self._core.flow(key, previous), self._fetch)
        self._core.cache.put(entry)
        return entry

    def _fetch(self, request: FetchRequest) -> FetchResponse:
        fetcher = self._core.fetcher(request.url)
        try:
            return fetcher.fetch(request)
        except RobotskitError:
            raise
        except OSError as exc:
            raise wrap_os_error(request, exc) from exc
        except Exception as exc:
            raise wrap_foreign_error(request, exc) from exc

    def decide(self, url: str, agent: str | Agent | None = None) -> Decision:
        """The decision for `url`; its `reason` and `source` name the fetch outcome."""
        return self._core.decide(self.lookup(url), url, agent)

    def allowed(self, url: str, agent: str | Agent | None = None) -> bool:
        """May the agent fetch `url`? Fetches and caches robots.txt as needed."""
        # The common call, inlined: the client's agent, the authority asked last, the cache
        # unchanged since and the entry fresh; its parsed file answers from the check it keeps
        # ready for the agent (see ClientBase._ready_answer for the general case).
        ready = self._last_ready
        if (
            agent is None
            and type(url) is str
            and url.startswith(ready.prefix)
            and ready.generation == self._generations.generation
            and self._clock() < ready.expires_at
        ):
            robots = ready.robots()
            if robots is not None:
                return robots.allowed(url, self._core.agent)
        answer = self._ready_answer(url, agent)
        if answer is not None:
            return answer
        generation = self._generations.generation
        entry = self.lookup(url)
        self._keep_ready(url, entry, generation)
        return self._core.decide(entry, url, agent).allowed

    def crawl_delay(self, url: str, agent: str | Agent | None = None) -> float | None:
        """The crawl-delay (seconds) that `url`'s robots.txt sets for the agent, if any."""
        return self._core.crawl_delay(self.lookup(url), agent)

    def sitemaps(self, url: str) -> tuple[str, ...]:
        """The sitemap URLs listed by the robots.txt of `url`'s authority."""
        return self._core.sitemaps(self.lookup(url))

    def close(self) -> None:
        """Close the adapters and the cache this client created (not ones passed in); idempotent.

        A closed client raises `ClientClosed` when used again.
        """
        self._core.closed = True
        self._forget_ready()  # `allowed` must not answer from a closed client's hosts
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


class AsyncRobotsClient(ClientBase[AsyncFetcher, asyncio.Future[RobotsEntry]]):
    """The asyncio twin of `RobotsClient`: same arguments, awaitable methods, `async with`.

    Single-flight holds across tasks of one event loop. A persistent cache (SQLite, Redis) is
    used from a worker thread so the loop never blocks on it.
    """

    _is_async = True

    async def _cache_get(self, key: str) -> RobotsEntry | None:
        if isinstance(self._core.cache, MemoryCache):
            return self._core.cache.get(key)
        return await asyncio.to_thread(self._core.cache.get, key)

    async def _cache_put(self, entry: RobotsEntry) -> None:
        if isinstance(self._core.cache, MemoryCache):
            self._core.cache.put(entry)
        else:
            await asyncio.to_thread(self._core.cache.put, entry)

    async def lookup(self, url: str, *, refresh: bool = False) -> RobotsEntry:
        """The entry for `url`'s authority: from the cache while fresh, else fetched once.

        `refresh=True` fetches again even while the cached copy is fresh (see `RobotsClient.lookup`).
        """
        key = self._core.key_of(url)
        cached = await self._cache_get(key)
        if not refresh and self._core.fresh(cached):
            assert cached is not None
            return cached
        flight = self._flights.get(key)
        if flight is None:
            flight = asyncio.ensure_future(self._refresh(key, refresh))
            self._flights[key] = flight
            flight.add_done_callback(lambda done: self._land(key, done))
        # shield: one caller giving up (cancelled) must not cancel the fetch the others await
        return await asyncio.shield(flight)

    def _land(self, key: str, done: asyncio.Future[RobotsEntry]) -> None:
        if self._flights.get(key) is done:
            del self._flights[key]
        if not done.cancelled():
            done.exception()  # mark retrieved: followers re-raise it; no "never retrieved" noise

    async def _refresh(self, key: str, refresh: bool) -> RobotsEntry:
        previous = await self._cache_get(key)
        if not refresh and self._core.fresh(previous):
            assert previous is not None
            return previous
        entry = await arun_flow(self._core.flow(key, previous), self._fetch)
        await self._cache_put(entry)
        return entry

    async def _fetch(self, request: FetchRequest) -> FetchResponse:
        fetcher = self._core.fetcher(request.url)
        try:
            return await fetcher.fetch(request)
        except RobotskitError:
            raise
        except OSError as exc:
            raise wrap_os_error(request, exc) from exc
        except Exception as exc:
            raise wrap_foreign_error(request, exc) from exc

    async def decide(self, url: str, agent: str | Agent | None = None) -> Decision:
        """The decision for `url`; its `reason` and `source` name the fetch outcome."""
        return self._core.decide(await self.lookup(url), url, agent)

    async def allowed(self, url: str, agent: str | Agent | None = None) -> bool:
        """May the agent fetch `url`? Fetches and caches robots.txt as needed."""
        # The common call, inlined: the client's agent, the authority asked last, the cache
        # unchanged since and the entry fresh; its parsed file answers from the check it keeps
        # ready for the agent (see ClientBase._ready_answer for the general case).
        ready = self._last_ready
        if (
            agent is None
            and type(url) is str
            and url.startswith(ready.prefix)
            and ready.generation == self._generations.generation
            and self._clock() < ready.expires_at
        ):
            robots = ready.robots()
            if robots is not None:
                return robots.allowed(url, self._core.agent)
        answer = self._ready_answer(url, agent)
        if answer is not None:
            return answer
        generation = self._generations.generation
        entry = await self.lookup(url)
        self._keep_ready(url, entry, generation)
        return self._core.decide(entry, url, agent).allowed

    async def crawl_delay(self, url: str, agent: str | Agent | None = None) -> float | None:
        """The crawl-delay (seconds) that `url`'s robots.txt sets for the agent, if any."""
        return self._core.crawl_delay(await self.lookup(url), agent)

    async def sitemaps(self, url: str) -> tuple[str, ...]:
        """The sitemap URLs listed by the robots.txt of `url`'s authority."""
        return self._core.sitemaps(await self.lookup(url))

    async def close(self) -> None:
        """Close the adapters and the cache this client created (not ones passed in); idempotent.

        A closed client raises `ClientClosed` when used again.
        """
        self._core.closed = True
        self._forget_ready()  # `allowed` must not answer from a closed client's hosts
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
