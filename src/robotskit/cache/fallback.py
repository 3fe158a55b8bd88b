"""What a shared cache does while its store is away: answer from process memory, log once.

`Fallback` wraps each call to a store (a Redis server, an SQLite file). When a call fails with
one of the store's errors, it logs one warning, keeps entries in an in-process LRU and does not
try the store again for `retry_interval` seconds, so a stopped, hung or locked store costs at
most one call's timeout per interval; the next call after the interval tries the store again,
and a success logs that it answers again.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TypeVar

from robotskit.cache.base import log
from robotskit.cache.memory import MemoryCache

__all__ = ["DEFAULT_RETRY_INTERVAL", "Fallback", "Unavailable"]

DEFAULT_RETRY_INTERVAL = 30.0

T = TypeVar("T")


class Unavailable(Exception):
    """The store was not asked (inside its retry interval) or did not answer."""


class Fallback:
    """The outage state and the in-memory entries of one cache backend."""

    def __init__(
        self,
        name: str,
        errors: tuple[type[BaseException], ...],
        *,
        retry_interval: float = DEFAULT_RETRY_INTERVAL,
        size: int = 10_000,
    ) -> None:
        self.name = name  # "Redis cache redis://host:6379/0", without secrets
        self.errors = errors
        self.retry_interval = retry_interval
        self.local = MemoryCache(size)
        self._lock = threading.Lock()
        self._down_until = 0.0  # monotonic time before which the store is not asked
        self._down = False

    def call(self, call: Callable[[], T], passthrough: tuple[type[BaseException], ...] = ()) -> T:
        """`call()` against the store, or `Unavailable` (logged once per outage).

        An error in `passthrough` is the data's fault, not the store's: it propagates as is.
        """
        with self._lock:
            if self._down and time.monotonic() < self._down_until:
                raise Unavailable
        try:
            result = call()
        except passthrough:
            raise
        except self.errors as exc:
            with self._lock:
                self._down_until = time.monotonic() + self.retry_interval
                first, self._down = not self._down, True
            if first:
                log.warning(
                    "%s unavailable (%s): keeping entries in process memory, retrying every %g s",
                    self.name,
                    exc,
                    self.retry_interval,
                )
            raise Unavailable from exc
        with self._lock:
            back, self._down = self._down, False
        if back:
            log.warning("%s answers again", self.name)
        return result
