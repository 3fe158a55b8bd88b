"""`authorities()` of the memory and SQLite caches: what `robotskit cache info` lists."""

from __future__ import annotations

from pathlib import Path

from robotskit.cache import MemoryCache, SQLiteCache

from .test_cache_backends import make_entry


def test_memory_and_sqlite_list_their_authorities(tmp_path: Path) -> None:
    """Both backends list every cached authority, sorted; a deleted one is gone."""
    for cache in (MemoryCache(), SQLiteCache(tmp_path / "c.db")):
        for authority in ("https://b.example", "gemini://a.example", "http://c.example:8080"):
            cache.put(make_entry(authority))
        assert cache.authorities() == ["gemini://a.example", "http://c.example:8080", "https://b.example"]
        cache.delete("https://b.example")
        assert cache.authorities() == ["gemini://a.example", "http://c.example:8080"]
        cache.close()
