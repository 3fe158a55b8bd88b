"""The bundled table of well-known crawler tokens: who runs them and what they fetch for.

Owns: loading `robotskit/data/crawlers.json` (versioned: `version` and `date` fields) into
frozen `Crawler` values. The table is data, not policy: `robotskit.audit` reads it to tell a
site owner which crawlers a robots.txt blocks, and `Agent.crawler` reads a crawler's fallback
chain from it. It lives in the core (standard library only, reads package data) so that the
core's `Agent.crawler` needs nothing above it; `robotskit.crawlers` re-exports it.
Nothing here touches the network.

Fallback chains: where an operator documents that a crawler with no group of its own obeys
another crawler's group (Google's common-crawlers list gives Googlebot-Image the tokens
`Googlebot-Image, Googlebot`; Apple documents that Applebot follows Googlebot's rules when none
name Applebot), the entry carries `fallbacks` (the further tokens, in order), `fallbacks_source`
(the operator's page) and `fallbacks_read` (the date that page was read).

Categories (a crawler may have several, the first is its main purpose):

    search          builds a search index
    ai-training     collects content to train AI models
    ai-answers      retrieves content to ground AI answers / assistants (RAG, AI search)
    user-triggered  fetches a page because a person asked for it right now
    archiver        keeps copies for an archive
    seo             SEO and site-audit tools
    social-preview  renders link previews
    ads             ad-quality and ad-targeting checks
    gemini          a Gemini virtual agent (companion spec: archiver, indexer, researcher, webproxy)

Flags: `control_only` marks tokens that never appear as a crawler's User-Agent but control how
content fetched by another crawler is used (Google-Extended, Applebot-Extended); `ignores_star`
marks crawlers documented to skip `User-agent: *` groups (AdsBot-Google): only a group naming
them applies.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")

CATEGORIES: tuple[str, ...] = (
    "search",
    "ai-training",
    "ai-answers",
    "user-triggered",
    "archiver",
    "seo",
    "social-preview",
    "ads",
    "gemini",
)


@dataclass(frozen=True, slots=True)
class Crawler:
    """One well-known robots.txt token and what it is for."""

    token: str
    operator: str
    categories: tuple[str, ...]
    control_only: bool = False
    ignores_star: bool = False
    notes: str = ""
    fallbacks: tuple[str, ...] = ()  # tokens obeyed, in order, when no group names `token`
    fallbacks_source: str = ""  # the operator's page documenting the chain
    fallbacks_read: str = ""  # ISO date that page was read

    @property
    def chain(self) -> tuple[str, ...]:
        """The tokens this crawler obeys, in order: its own, then its documented fallbacks."""
        return (self.token, *self.fallbacks)

    @property
    def category(self) -> str:
        """The main purpose (the first category; "" for an ad-hoc crawler with none)."""
        return self.categories[0] if self.categories else ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "token": self.token,
            "operator": self.operator,
            "categories": list(self.categories),
            "control_only": self.control_only,
            "ignores_star": self.ignores_star,
            "notes": self.notes,
            "fallbacks": list(self.fallbacks),
            "fallbacks_source": self.fallbacks_source,
            "fallbacks_read": self.fallbacks_read,
        }


@dataclass(frozen=True, slots=True)
class CrawlerTable:
    """The bundled table: `version` and `date` say which edition a report was made with."""

    version: str
    date: str
    crawlers: tuple[Crawler, ...]

    def __iter__(self) -> Iterator[Crawler]:
        return iter(self.crawlers)

    def __len__(self) -> int:
        return len(self.crawlers)

    def get(self, token: str) -> Crawler | None:
        """The entry for `token`, compared case-insensitively (RFC 9309 2.2.1), or None."""
        wanted = token.lower()
        for crawler in self.crawlers:
            if crawler.token.lower() == wanted:
                return crawler
        return None

    def by_category(self, category: str) -> tuple[Crawler, ...]:
        """Every crawler with `category` among its categories, in table order."""
        if category not in CATEGORIES:
            raise ValueError(f"unknown crawler category {category!r}; expected one of {CATEGORIES}")
        return tuple(c for c in self.crawlers if category in c.categories)


def _crawler_from_json(item: dict[str, Any]) -> Crawler:
    categories = tuple(str(c) for c in item["categories"])
    unknown = [c for c in categories if c not in CATEGORIES]
    if unknown or not categories:
        raise ValueError(f"crawler {item.get('token')!r}: bad categories {categories!r}")
    fallback = item.get("fallbacks") or {}
    fallbacks = tuple(str(token) for token in fallback.get("tokens", ()))
    source, read = str(fallback.get("source", "")), str(fallback.get("read", ""))
    if fallbacks and not (source.startswith("https://") and _ISO_DATE.fullmatch(read)):
        raise ValueError(
            f"crawler {item.get('token')!r}: a fallback chain needs its source URL and read date"
        )
    return Crawler(
        token=str(item["token"]),
        operator=str(item["operator"]),
        categories=categories,
        control_only=bool(item.get("control_only", False)),
        ignores_star=bool(item.get("ignores_star", False)),
        notes=str(item.get("notes", "")),
        fallbacks=fallbacks,
        fallbacks_source=source,
        fallbacks_read=read,
    )


def table_from_json(text: str | bytes) -> CrawlerTable:
    """Build a table from JSON text in the bundled file's format (for custom tables)."""
    data = json.loads(text)
    return CrawlerTable(
        version=str(data["version"]),
        date=str(data["date"]),
        crawlers=tuple(_crawler_from_json(item) for item in data["crawlers"]),
    )


@lru_cache(maxsize=1)
def load_crawlers() -> CrawlerTable:
    """The bundled table, read once through importlib.resources (works from wheels and zips)."""
    text = resources.files("robotskit").joinpath("data/crawlers.json").read_text(encoding="utf-8")
    return table_from_json(text)
