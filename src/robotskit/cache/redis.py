"""`RedisCache`: a fleet of crawlers shares one copy per authority (needs the `redis` extra).

A cache must never be why a crawler stops. Every call to the server is bounded by
`connect_timeout` and `socket_timeout` (redis-py's own retries are off, so one failed call
costs at most one timeout). When the server cannot be reached, is hung or refuses a write,
`get` and `put` log one warning, keep entries in process memory (an LRU of `fallback_size`
authorities) and do not try the server again for `retry_interval` seconds; then the next call
tries it, and a success logs that the server is back. A value that is not an entry this
library wrote (garbled JSON, a wrong-typed field, a key of another Redis type) is a logged
miss, so the authority is fetched again. `delete` and `clear`, which a caller asks for
explicitly, raise `CacheError` when the server cannot do them.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from robotskit.cache.base import entry_from_dict, entry_to_dict, log, unreadable
from robotskit.cache.fallback import DEFAULT_RETRY_INTERVAL, Fallback, Unavailable
from robotskit.errors import CacheError
from robotskit.policy.flow import DEFAULT_POLICY, RobotsEntry

if TYPE_CHECKING:
    import redis

__all__ = [
    "DEFAULT_CONNECT_TIMEOUT",
    "DEFAULT_RETRY_INTERVAL",
    "DEFAULT_SOCKET_TIMEOUT",
    "REDIS_TTL",
    "RedisCache",
]

# A little longer than the 30-day stale window (RFC 9309 2.3.1.4), so the last good copy outlives it.
REDIS_TTL = int(DEFAULT_POLICY.stale_window + 86_400)
# Redis on a LAN answers in well under a millisecond; a second means it is not answering.
DEFAULT_CONNECT_TIMEOUT = 1.0
DEFAULT_SOCKET_TIMEOUT = 1.0


class RedisCache:
    """Entries in Redis, one JSON string per authority under `prefix`, expiring after 31 days.

    Pass a URL (`redis://host:port/db`; query parameters such as `socket_timeout=2` go to
    redis-py and win over the keyword arguments) or a ready `redis.Redis` client, whose own
    timeouts then apply. Needs the `redis` extra (`pip install robotskit[redis]`).
    """

    def __init__(
        self,
        url: str = "redis://127.0.0.1:6379/0",
        *,
        prefix: str = "robotskit:robots:",
        client: redis.Redis | None = None,
        ttl: int = REDIS_TTL,
        connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
        socket_timeout: float = DEFAULT_SOCKET_TIMEOUT,
        retry_interval: float = DEFAULT_RETRY_INTERVAL,
        fallback_size: int = 10_000,
    ) -> None:
        try:
            import redis as redis_module  # noqa: PLC0415 - optional dependency
        except ImportError as exc:
            raise CacheError("RedisCache needs the redis package: pip install 'robotskit[redis]'") from exc
        if client is None:
            from redis.backoff import NoBackoff  # noqa: PLC0415 - optional dependency
            from redis.retry import Retry  # noqa: PLC0415

            try:
                client = redis_module.Redis.from_url(
                    url,
                    socket_connect_timeout=connect_timeout,
                    socket_timeout=socket_timeout,
                    retry=Retry(NoBackoff(), 0),  # one call, one timeout at most
                )
            except ValueError as exc:
                raise CacheError(f"bad Redis URL {url!r}: {exc}", backend="redis") from exc
        self.url, self.prefix, self.ttl = url, prefix, ttl
        self._shown = _without_password(url)  # for logs and repr
        self.retry_interval = retry_interval
        self._client = client
        self._errors: tuple[type[BaseException], ...] = (redis_module.RedisError, OSError)
        self._wrong_type: type[BaseException] = redis_module.ResponseError
        name = f"Redis cache {self._shown}"
        self._fallback = Fallback(name, self._errors, retry_interval=retry_interval, size=fallback_size)
        self._local = self._fallback.local  # entries kept while the server is away

    def _key(self, authority: str) -> str:
        return self.prefix + authority

    def get(self, authority: str) -> RobotsEntry | None:
        key = self._key(authority)
        try:
            raw = self._fallback.call(lambda: self._client.get(key), (self._wrong_type,))
        except Unavailable:
            return self._local.get(authority)
        except self._wrong_type as exc:  # WRONGTYPE: the key holds a list, a hash ...
            unreadable("redis", authority, exc)
            return None
        if raw is None:
            return self._local.get(authority)  # written while the server was away
        try:
            return entry_from_dict(json.loads(raw))
        except (CacheError, ValueError) as exc:
            unreadable("redis", authority, exc)
            return None

    def put(self, entry: RobotsEntry) -> None:
        payload = json.dumps(entry_to_dict(entry))
        key = self._key(entry.authority)
        try:
            # SET replaces the value atomically; readers see the old or the new entry.
            self._fallback.call(lambda: self._client.set(key, payload, ex=self.ttl))
        except Unavailable:
            self._local.put(entry)
        else:
            self._local.delete(entry.authority)

    def delete(self, authority: str) -> None:
        self._local.delete(authority)
        try:
            self._client.delete(self._key(authority))
        except self._errors as exc:
            raise CacheError(f"Redis cache delete failed: {exc}", backend="redis") from exc

    def clear(self) -> None:
        """Delete every key under this cache's prefix (and nothing else)."""
        self._local.clear()
        try:
            keys = list(self._client.scan_iter(match=self.prefix + "*", count=500))
            if keys:
                self._client.delete(*keys)
        except self._errors as exc:
            raise CacheError(f"Redis cache clear failed: {exc}", backend="redis") from exc

    def close(self) -> None:
        try:
            self._client.close()
        except self._errors as exc:
            log.warning("Redis cache %s: close failed (%s)", self._shown, exc)

    def __repr__(self) -> str:
        return f"<RedisCache {self._shown} prefix={self.prefix!r}>"


def _without_password(url: str) -> str:
    """`url` with any password replaced by `***`: logs and reprs must not carry secrets."""
    head, sep, rest = url.partition("://")
    userinfo, at, host = rest.rpartition("@")
    if not sep or not at:
        return url
    user, colon, _ = userinfo.partition(":")
    return f"{head}://{user}{':***' if colon else ''}@{host}"
