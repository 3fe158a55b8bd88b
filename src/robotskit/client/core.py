"""What RobotsClient and AsyncRobotsClient share; private to robotskit.client.

`ClientCore` validates and holds one client's settings, creates the default fetch adapter
for a scheme on first use, starts policy flows and turns a cached entry into answers for an
agent. `ClientBase` gives both clients their constructor and read-only properties. Nothing here waits: the
clients drive the flows and run single-flight themselves (threads or tasks).
"""

from __future__ import annotations

import importlib
import logging
import math
import threading
import time
from collections.abc import Callable, Mapping
from typing import ClassVar, Generic, TypeVar
from urllib.parse import urlsplit

from robotskit.cache import Cache, open_cache
from robotskit.core.agents import Agent, as_agent, product_token
from robotskit.core.model import Decision
from robotskit.core.profiles import get_profile
from robotskit.errors import ClientClosed, FetchError, InvalidArgument
from robotskit.policy.authority import authority_key
from robotskit.policy.flow import DEFAULT_POLICY, Flow, PolicyConfig, RobotsEntry, decide, fetch_flow
from robotskit.policy.messages import DEFAULT_MAX_BYTES, DEFAULT_TIMEOUT, FetchRequest

__all__ = ["ClientBase", "ClientCore", "wrap_foreign_error", "wrap_os_error"]

log = logging.getLogger("robotskit.client")

# scheme -> (module, sync class, async class); imported lazily (httpx is heavy and optional here)
_ADAPTERS: dict[str, tuple[str, str, str]] = {
    "http": ("robotskit.fetch.http", "HttpFetcher", "AsyncHttpFetcher"),
    "https": ("robotskit.fetch.http", "HttpFetcher", "AsyncHttpFetcher"),
    "gemini": ("robotskit.fetch.gemini", "GeminiFetcher", "AsyncGeminiFetcher"),
    "ftp": ("robotskit.fetch.ftp", "FtpFetcher", "AsyncFtpFetcher"),
}

F = TypeVar("F")  # the fetcher type
W = TypeVar("W")  # a waiting caller's handle on a fetch in progress


def _default_user_agent(agent: str | Agent) -> str:
    token = agent.token if isinstance(agent, Agent) else product_token(agent)
    return token or "robotskit"


class ClientCore(Generic[F]):
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
        public_only: bool = False,
        probe_5xx: bool = False,
    ) -> None:
        as_agent(agent)  # validates: a string or an Agent
        if profile is not None:
            get_profile(profile)  # raises UnknownProfile early, not at the first decision
        if max_bytes < DEFAULT_MAX_BYTES:
            # SPEC.md 2: the size limit is configurable "but never below" 500 KiB (RFC 9309 2.5).
            raise InvalidArgument(f"max_bytes must be at least {DEFAULT_MAX_BYTES}, got {max_bytes}")
        if not (math.isfinite(timeout) and timeout > 0):
            raise InvalidArgument(f"timeout must be a positive number of seconds, got {timeout}")
        self.agent = agent
        self.user_agent = user_agent or _default_user_agent(agent)
        self.profile = profile
        self.timeout = timeout
        self.max_bytes = max_bytes
        self.policy = policy
        self.probe_5xx = probe_5xx
        self.clock: Callable[[], float] = clock or time.time
        self.cache = open_cache(cache)
        self.owns_cache = cache is None or isinstance(cache, str)
        self.fetchers: dict[str, F] = dict(fetchers or {})
        self.created: dict[str, F] = {}  # adapters this client made, and so closes
        self.is_async = is_async
        # Default adapters only: adapters passed in `fetchers` apply their own address policy.
        self.public_only = public_only
        self.lock = threading.Lock()
        self.closed = False

    def key_of(self, url: str) -> str:
        """The cache key (authority) of `url`, after checking the client is open and `url` a string."""
        if self.closed:
            raise ClientClosed("this robots.txt client is closed: create a new one")
        if not isinstance(url, str):
            raise TypeError(f"url must be a str, not {type(url).__name__}")
        return authority_key(url)

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
                adapter_class = getattr(module, async_name if self.is_async else sync_name)
                self.created[name] = adapter_class(public_only=self.public_only)
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
            probe_5xx=self.probe_5xx,
        )

    def fresh(self, entry: RobotsEntry | None) -> bool:
        return entry is not None and entry.is_fresh(self.clock())

    def decide(self, entry: RobotsEntry, url: str, agent: str | Agent | None) -> Decision:
        return decide(entry, url, self.agent if agent is None else agent, self.profile)

    def crawl_delay(self, entry: RobotsEntry, agent: str | Agent | None) -> float | None:
        chosen = self.agent if agent is None else agent
        robots = entry.answers(self.profile, chosen)  # what is kept per authority: docs/client.md
        return None if robots is None else robots.crawl_delay(chosen)

    def sitemaps(self, entry: RobotsEntry) -> tuple[str, ...]:
        robots = entry.answers(self.profile, self.agent)
        return () if robots is None else robots.sitemaps


def wrap_os_error(request: FetchRequest, exc: OSError) -> FetchError:
    # Adapters should raise FetchError; a stray socket error still means "unreachable".
    from robotskit.fetch._errors import os_error  # noqa: PLC0415 - keeps the fetch package lazy

    return os_error(exc, request.url, request.url)


def wrap_foreign_error(request: FetchRequest, exc: Exception) -> FetchError:
    """Whatever else an adapter lets escape while talking to a server is that server's fault.

    A server must never crash the caller: the exception becomes an "unreachable" outcome
    (reason "bad response") and is logged with its traceback, since it marks a gap in an
    adapter's error mapping that deserves a bug report.
    """
    log.warning("fetch adapter raised %s for %s", type(exc).__name__, request.url, exc_info=exc)
    return FetchError(f"unexpected failure fetching {request.url}: {exc!r}", url=request.url, kind="protocol")


class ClientBase(Generic[F, W]):
    """What both clients share: their one constructor and their read-only properties.

    `F` is the fetcher type (`Fetcher` or `AsyncFetcher`); `W` what a caller waiting on
    another's fetch holds (a thread's flight or an asyncio future). Subclasses set `_is_async`.
    """

    _is_async: ClassVar[bool]

    def __init__(
        self,
        agent: str | Agent,
        *,
        user_agent: str | None = None,
        cache: str | Cache | None = None,
        profile: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        max_bytes: int = DEFAULT_MAX_BYTES,
        fetchers: Mapping[str, F] | None = None,
        clock: Callable[[], float] | None = None,
        policy: PolicyConfig = DEFAULT_POLICY,
        public_only: bool = False,
        probe_5xx: bool = False,
    ) -> None:
        self._core: ClientCore[F] = ClientCore(
            agent,
            user_agent=user_agent,
            cache=cache,
            profile=profile,
            timeout=timeout,
            max_bytes=max_bytes,
            fetchers=fetchers,
            clock=clock,
            policy=policy,
            is_async=self._is_async,
            public_only=public_only,
            probe_5xx=probe_5xx,
        )
        # Single-flight (SPEC.md 6): authority -> the fetch in progress; `_mutex` guards it
        # across threads (an event loop's tasks need no lock).
        self._flights: dict[str, W] = {}
        self._mutex = threading.Lock()

    @property
    def agent(self) -> str | Agent:
        """The product token (or `Agent`) decisions are made for when none is passed."""
        return self._core.agent

    @property
    def user_agent(self) -> str:
        """The User-Agent sent with every robots.txt fetch."""
        return self._core.user_agent

    @property
    def profile(self) -> str | None:
        """The profile decisions are made under (None: chosen per URL, gemini for gemini://)."""
        return self._core.profile

    @property
    def cache(self) -> Cache:
        """Where entries are kept between fetches."""
        return self._core.cache
