"""The parsed files behind cached entries: one shared memo, bounded by what it holds.

A client keeps, per authority, only its `RobotsEntry`: the body (at most the size limit) and a
few small fields. Parsing is deterministic, so the parse of a body is a cache, not state: it is
shared by every entry with the same bytes and kept in this memo, least recently used first
out, within `PARSE_MEMO_BUDGET` bytes. The size of a parse is estimated from its body: a
used parse of a dense file holds about 26 bytes of Python objects per byte (19,000 one-rule
groups in 460 KiB measure 12.5 MB with tracemalloc), so the estimate is 32 bytes per byte. A
parse larger than the whole budget (a size limit raised far above 500 KiB) is used and dropped.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable

from robotskit.document import RobotsTxt

__all__ = ["PARSE_MEMO_BUDGET", "ParseMemo", "estimated_size"]

PARSE_MEMO_BUDGET = 32 * 1024 * 1024
# At most this many parses however small (each costs some bookkeeping of its own).
_MAX_PARSES = 1024
_BYTES_PER_BODY_BYTE = 32
_OVERHEAD = 4096  # an empty parse, its views and checkers

Key = tuple[bytes, bool, str | None, str]


def estimated_size(body: bytes) -> int:
    """An upper estimate of the memory a parse of `body` holds once used (see the module doc)."""
    return _OVERHEAD + _BYTES_PER_BODY_BYTE * len(body)


class ParseMemo:
    """An LRU of parses keyed by (body, truncated, profile, robots URL), bounded in bytes."""

    def __init__(self, budget: int = PARSE_MEMO_BUDGET, max_parses: int = _MAX_PARSES) -> None:
        self.budget = budget
        self.max_parses = max_parses
        self._parses: OrderedDict[Key, tuple[RobotsTxt, int]] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()

    def get(self, key: Key, build: Callable[[], RobotsTxt]) -> RobotsTxt:
        with self._lock:
            found = self._parses.get(key)
            if found is not None:
                self._parses.move_to_end(key)
                return found[0]
        # Parsed outside the lock: two threads racing build equal parses; one is kept.
        robots = build()
        size = estimated_size(key[0])
        if size > self.budget:
            return robots
        with self._lock:
            if key not in self._parses:
                self._parses[key] = (robots, size)
                self._size += size
            while self._size > self.budget or len(self._parses) > self.max_parses:
                _, (_, dropped) = self._parses.popitem(last=False)
                self._size -= dropped
        return robots

    @property
    def size(self) -> int:
        """The estimated bytes held now (at most `budget`)."""
        return self._size

    def __len__(self) -> int:
        return len(self._parses)

    def clear(self) -> None:
        with self._lock:
            self._parses.clear()
            self._size = 0


PARSES = ParseMemo()
