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
import re
import threading
import time
import weakref
from collections.abc import Callable, Mapping
from typing import ClassVar, Generic, NamedTuple, TypeVar
from urllib.parse import urlsplit

from robotskit.cache import Cache, MemoryCache, open_cache
from robotskit.core.agents import Agent, as_agent, product_token
from robotskit.core.model import Decision
from robotskit.core.profiles import get_profile
from robotskit.document import RobotsTxt, parse
from robotskit.errors import ClientClosed, FetchError, InvalidArgument
from robotskit.policy.authority import authority_key
from robotskit.policy.classify import Outcome
from robotskit.policy.flow import DEFAULT_POLICY, Flow, PolicyConfig, RobotsEntry, decide, fetch_flow
from robotskit.policy.messages import DEFAULT_MAX_BYTES, DEFAULT_TIMEOUT, FetchRequest
from robotskit.policy.parses import REDUCE_FROM

__all__ = ["ClientBase", "ClientCore", "wrap_foreign_error", "wrap_os_error"]

log = logging.getLogger("robotskit.client")

# A URL's scheme://authority as `urlsplit` reads it, when it holds no space or control character
# (which `authority_key` would strip or refuse): URLs with the same one have the same authority key.
_PREFIX = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://[^/?#\s\x00-\x20\x7f]*(?=[/?#]|\Z)")
# Authorities a client keeps ready for `allowed` (cleared when full).
_MAX_READY = 1024


class _Ready(NamedTuple):
    """One authority `allowed` can answer for without a lookup (see ClientBase._ready_answer).

    The parsed file and its check are held weakly: the bounded parse memo owns them, so what a
    client keeps per host is a few strings (when the memo drops a parse, `allowed` looks it up).
    """

    prefix: str  # scheme://authority/ as the URLs write it
    key: str  # the cache key
    expires_at: float  # the entry's
    generation: int  # the MemoryCache's generation when the entry was last seen in it
    # the entry's parsed file, which keeps the client's agent's check ready (RobotsTxt.allowed)
    robots: Callable[[], RobotsTxt | None]
    # the parse is the whole file's (a small body), so it answers for any agent, not only the
    # client's own (a large body's parse is reduced to the client's agent's groups)
    whole: bool = False


def _gone() -> None:
    return None


_NO_MEMORY = MemoryCache(1)
# What answers for a host without a robots.txt (RFC 9309 2.3.1.3, e.g. a 404): `decide` allows
# every URL, and so does an empty file.
_ALLOW_ALL = parse(b"")
# No URL starts with a NUL, so this one never matches.
_NOT_READY = _Ready("\x00", "", 0.0, -1, _gone)

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
        for name, value, kinds in (
            ("user_agent", user_agent, (str, type(None))),
            ("profile", profile, (str, type(None))),
            ("timeout", timeout, (int, float)),
            ("max_bytes", max_bytes, (int,)),
        ):
            if not isinstance(value, kinds) or isinstance(value, bool):
                raise TypeError(f"{name} has the wrong type: {type(value).__name__}")
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
        # `allowed` on a cached host: per authority, the entry and its parsed file, whose check
        # for the agent is kept ready by the file itself. Used while the cache still holds that
        # very entry and it is fresh, so a replaced, deleted or expired entry is never answered
        # from; only for a MemoryCache, whose `get` is cheap and returns the object it was given.
        cache = self._core.cache
        self._memory: MemoryCache | None = cache if isinstance(cache, MemoryCache) else None
        # the cache whose generation `allowed` compares (a stand-in, never changed, without one)
        self._generations: MemoryCache = self._memory if self._memory is not None else _NO_MEMORY
        self._clock = self._core.clock
        # the authority `allowed` was last answered for: its prefix ends in "/" (one `startswith`)
        self._last_ready: _Ready = _NOT_READY
        self._ready: dict[str, _Ready] = {}

    def _ready_answer(self, url: str, agent: str | Agent | None) -> bool | None:
        """`allowed` answered from a ready authority, or None: take the full path (`decide`).

        A ready authority answers while its entry is fresh and the cache still holds an entry with
        the same parsed file: checked with a `get` (which also keeps it recent in the LRU) whenever
        the cache changed since (its generation), so a deleted, replaced or expired entry is never
        answered from.
        """
        memory = self._memory
        if memory is None or not self._ready or not isinstance(url, str):
            return None
        if agent is not None and not isinstance(agent, (str, Agent)):
            return None  # the full path says what is wrong with it
        found = _PREFIX.match(url)
        ready = self._ready.get(found[0]) if found is not None else None
        if ready is None:
            return None
        if not (ready.whole or agent is None or agent == self._core.agent):
            # a large file's ready parse is reduced to the client's agent's groups
            # (robotskit.policy.parses): another agent takes the full path
            return None
        robots = ready.robots()
        if robots is None:
            return None
        generation = memory.generation  # read before the get: a put in between re-checks next time
        if ready.generation != generation:
            # the cache changed: still an entry for this host, fresh, with this very parse (the
            # parse memo is keyed by body, so an equal body answers equally)?
            entry = memory.get(ready.key)
            if entry is None or self._answering(entry) is not robots:
                return None
            ready = ready._replace(generation=generation, expires_at=entry.expires_at)
            self._ready[ready.prefix[:-1]] = ready
        if not self._clock() < ready.expires_at:
            return None
        self._last_ready = ready
        # equal to decide(...).allowed: with a parsed file, `decide` answers from it (fresh or stale)
        return robots.allowed(url, self._core.agent if agent is None else agent)

    def _forget_ready(self) -> None:
        self._last_ready = _NOT_READY
        self._ready.clear()

    def _answering(self, entry: RobotsEntry) -> RobotsTxt | None:
        """The parsed file whose `allowed` equals `decide(entry, ...).allowed`, if there is one
        (none for an unreachable host: its answer depends on the path in another way). For a
        large file, a parse reduced to the client's agent's groups: what a client keeps per host
        stays bounded (robotskit.policy.parses)."""
        robots = entry.answers(self._core.profile, self._core.agent)
        if robots is None and entry.outcome is Outcome.UNAVAILABLE:
            return _ALLOW_ALL
        return robots

    def _keep_ready(self, url: str, entry: RobotsEntry, generation: int) -> None:
        """Remember `entry`, looked up for `url` when the cache was at `generation`, for `allowed`."""
        if self._memory is None:
            return
        found = _PREFIX.match(url)
        robots = self._answering(entry)
        if found is None or robots is None:
            return
        if len(self._ready) >= _MAX_READY:
            self._ready.clear()
        prefix = found[0]
        whole = len(entry.body) < REDUCE_FROM
        ready = _Ready(
            prefix + "/", entry.authority, entry.expires_at, generation, weakref.ref(robots), whole
        )
        self._ready[prefix] = self._last_ready = ready

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
