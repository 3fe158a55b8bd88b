"""Caches of fetched robots.txt entries behind one interface: memory, SQLite, Redis."""

from robotskit.cache.backends import (
    REDIS_TTL,
    Cache,
    MemoryCache,
    RedisCache,
    SQLiteCache,
    entry_from_dict,
    entry_to_dict,
    open_cache,
)

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
