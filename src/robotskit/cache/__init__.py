"""Caches of fetched robots.txt entries behind one interface: memory, SQLite, Redis.

- `MemoryCache` (robotskit.cache.memory): an in-process LRU, thread-safe; the default.
- `SQLiteCache` (robotskit.cache.sqlite): one file, WAL mode, crash-safe, shared by processes.
- `RedisCache` (robotskit.cache.redis): a fleet of crawlers shares one copy per authority.

The protocol and an entry's (de)serialisation are in robotskit.cache.base; `open_cache`
(robotskit.cache.open) builds a backend from a URL.
"""

from robotskit.cache.base import Cache, entry_from_dict, entry_to_dict
from robotskit.cache.memory import MemoryCache
from robotskit.cache.open import open_cache
from robotskit.cache.redis import REDIS_TTL, RedisCache
from robotskit.cache.sqlite import SQLiteCache

__all__ = [
    "REDIS_TTL",
    "Cache",
    "MemoryCache",
    "RedisCache",
    "SQLiteCache",
    "entry_from_dict",
    "entry_to_dict",
    "open_cache",
]
