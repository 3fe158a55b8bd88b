"""The bundled table of well-known crawlers, as the audit reads it.

The table is pure data and lives in `robotskit.core.crawlers` (so the core's `Agent.crawler`
can read fallback chains without importing upward); this module keeps the audit's import path.
"""

from robotskit.core.crawlers import (
    CATEGORIES,
    Crawler,
    CrawlerTable,
    load_crawlers,
    table_from_json,
)

__all__ = [
    "CATEGORIES",
    "Crawler",
    "CrawlerTable",
    "load_crawlers",
    "table_from_json",
]
