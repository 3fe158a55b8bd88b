"""The bundled table of well-known crawlers.

Kept for its import path; the code lives in `robotskit.core.crawlers`.
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
