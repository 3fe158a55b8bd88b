"""`MemoryCache`: an in-process LRU of entries, thread-safe; the library's default cache."""

from __future__ import annotations

import threading
from collections import OrderedDict

from robotskit.errors import InvalidArgument
from robotskit.policy.flow import RobotsEntry

__all__ = ["MemoryCache"]


class MemoryCache:
    """A thread-safe LRU of at most `maxsize` authorities, in this process only."""

    def __init__(self, maxsize: int = 10_000) -> None:
        if maxsize < 1:
            raise InvalidArgument(f"maxsize must be at least 1, got {maxsize}")
        self.maxsize = maxsize
        self._entries: OrderedDict[str, RobotsEntry] = OrderedDict()
        self._lock = threading.Lock()
        # Changes with every put, delete and clear: a client that read an entry may answer from
        # it again without a `get` while this has not changed (RobotsClient.allowed).
        self.generation = 0

    def get(self, authority: str) -> RobotsEntry | None:
        with self._lock:
            entry = self._entries.get(authority)
            if entry is not None:
                self._entries.move_to_end(authority)
            return entry

    def put(self, entry: RobotsEntry) -> None:
        with self._lock:
            self.generation += 1
            self._entries[entry.authority] = entry
            self._entries.move_to_end(entry.authority)
            while len(self._entries) > self.maxsize:
                self._entries.popitem(last=False)  # least recently used

    def delete(self, authority: str) -> None:
        with self._lock:
            self.generation += 1
            self._entries.pop(authority, None)

    def clear(self) -> None:
        with self._lock:
            self.generation += 1
            self._entries.clear()

    def close(self) -> None:
        """Nothing to release."""

    def __len__(self) -> int:
        return len(self._entries)

    def authorities(self) -> list[str]:
        """Every cached authority, sorted (for `robotskit cache info` and `cache clear HOST`)."""
        with self._lock:
            return sorted(self._entries)

    def __repr__(self) -> str:
        return f"<MemoryCache {len(self)}/{self.maxsize}>"
