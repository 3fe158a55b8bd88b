"""Where a robots.txt came from and how fresh it is: the `source` every answer reports.

A file or stdin is read now; a URL's file was fetched now, answered from the cache (fresh), or
is a stale copy standing in because the site cannot be reached. Human output prints
`Origin.describe()`; `--json` prints `Origin.to_json()` as `"source"` (docs/cli.md).
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rich.text import Text

from robotskit.cli._output import Output, iso

if TYPE_CHECKING:
    from robotskit.client.clients import RobotsClient
    from robotskit.policy.flow import RobotsEntry

__all__ = ["FILE", "STDIN", "Origin", "fetch_entry", "of_entry", "origins_json", "print_origins"]

FILE, STDIN, FETCHED, CACHED, STALE = "file", "stdin", "fetched", "cached", "stale"


def _ago(seconds: float) -> str:
    minutes = int(seconds // 60)
    if minutes < 1:
        return "under a minute"
    if minutes < 120:
        return f"{minutes} minute{'s' if minutes != 1 else ''}"
    hours = minutes // 60
    return f"{hours} hours" if hours < 48 else f"{hours // 24} days"


@dataclass(frozen=True, slots=True)
class Origin:
    """Where one robots.txt came from: `kind` is file, stdin, fetched, cached or stale.

    `age_seconds` is how old the copy is (None for a file or stdin, 0 when fetched now; for a
    stale copy, the age of the last good fetch). `reason` is the fetch outcome's reason (for a
    stale copy: why the latest fetch failed).
    """

    kind: str
    location: str
    age_seconds: float | None = None
    fetched_at: float | None = None
    outcome: str | None = None
    reason: str = ""

    def to_json(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "location": self.location,
            "age_seconds": None if self.age_seconds is None else round(self.age_seconds, 1),
            "fetched_at": iso(self.fetched_at),
            "outcome": self.outcome,
            "reason": self.reason,
        }

    def describe(self) -> str:
        if self.kind == FILE:
            return f"file {self.location}"
        if self.kind == STDIN:
            return "standard input"
        age = _ago(self.age_seconds or 0.0)
        if self.kind == FETCHED and self.outcome == "unreachable":
            return f"{self.location}, fetch failed now ({self.reason}): unreachable, everything disallowed"
        if self.kind == FETCHED:
            return f"{self.location}, fetched now ({self.reason or self.outcome})"
        if self.kind == CACHED:
            return (
                f"{self.location}, cached copy fetched {age} ago ({self.reason}; --refresh fetches it again)"
            )
        return f"{self.location}, stale copy from {age} ago: the site cannot be reached now ({self.reason})"


def of_entry(entry: RobotsEntry, started: float, now: float) -> Origin:
    """Classify a client's entry: fetched by this lookup (at or after `started`), cached, or stale."""
    if entry.stale:
        good = entry.good_at if entry.good_at is not None else entry.fetched_at
        kind, age = STALE, max(now - good, 0.0)
    elif entry.fetched_at >= started:
        kind, age = FETCHED, 0.0
    else:
        kind, age = CACHED, max(now - entry.fetched_at, 0.0)
    return Origin(kind, entry.robots_url, age, entry.fetched_at, str(entry.outcome), entry.reason)


def fetch_entry(client: RobotsClient, url: str, *, refresh: bool = False) -> tuple[RobotsEntry, Origin]:
    """The client's entry for `url`'s robots.txt, and where it came from."""
    started = time.time()
    entry = client.lookup(url, refresh=refresh)
    return entry, of_entry(entry, started - 0.001, time.time())


def print_origins(out: Output, origins: Iterable[Origin]) -> None:
    """The closing `source:` line(s) of a human answer: where each robots.txt came from."""
    for origin in dict.fromkeys(origins):
        out.print(Text(f"source: {origin.describe()}", style="dim"))


def origins_json(origins: Iterable[Origin]) -> dict[str, Any]:
    """`source` (the one robots.txt, or null when several answered) and `sources` (all of them)."""
    unique = [o.to_json() for o in dict.fromkeys(origins)]
    return {"source": unique[0] if len(unique) == 1 else None, "sources": unique}
