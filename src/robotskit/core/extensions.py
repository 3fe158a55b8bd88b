"""Records that never affect allow/disallow, typed: crawl-delay, request-rate, visit-time (SPEC.md 5).

Pure functions over record values. Group-scoped records are looked up in the groups that apply
to an agent, with the same group selection as the rules (the agent's own groups, else `*`).
The AI-era records (Content-Signal, Content-Usage) live in `robotskit.ai_prefs`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import time

CRAWL_DELAY_KEYS = frozenset({"crawl-delay", "crawl_delay", "crawldelay"})
REQUEST_RATE_KEYS = frozenset({"request-rate", "request_rate", "requestrate"})
VISIT_TIME_KEYS = frozenset({"visit-time", "visit_time", "visittime"})

_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)")
_RATE = re.compile(
    r"\s*(\d+)\s*/\s*(\d*(?:\.\d+)?)\s*([smhd]?)\s*(?:\s+(\d{1,2}:?\d{2})\s*-\s*(\d{1,2}:?\d{2}))?\s*$",
    re.IGNORECASE,
)
# A visit-time window, as Protego reads it: `0400-0845`, `0400 0845` (HMM or HHMM; `04:00` too).
_WINDOW = re.compile(r"\s*(\d{1,2}:?\d{2})\s*(?:-|\s)\s*(\d{1,2}:?\d{2})\s*(?:UTC|GMT)?\s*$", re.IGNORECASE)
_UNIT_SECONDS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}


@dataclass(frozen=True, slots=True)
class RequestRate:
    """`Request-rate: n/Ts`: at most `requests` fetches every `seconds` seconds (like urllib's)."""

    requests: int
    seconds: float
    line: int = 0
    start_time: time | None = None  # the optional window the rate applies in (`1/5s 0600-0845`)
    end_time: time | None = None

    @property
    def delay(self) -> float:
        """The seconds to wait between two requests that this rate implies."""
        return self.seconds / self.requests if self.requests else math.inf


def parse_crawl_delay(value: str) -> float | None:
    """Seconds from a crawl-delay value; None when absent or unusable (negative, NaN, infinite).

    Fractional seconds are accepted (most crawlers honour them); a trailing unit word such as
    `10 seconds` is tolerated, as Protego and crawler-commons do.
    """
    match = _NUMBER.match(value.strip())
    if match is None:
        return None
    try:
        seconds = float(match.group(0))
    except ValueError:  # pragma: no cover - the regex admits only float syntax
        return None
    if not math.isfinite(seconds) or seconds < 0:
        return None
    return seconds


def crawl_delay_leftover(value: str) -> str:
    """The text after the number that `parse_crawl_delay` reads and ignores (`10 seconds` -> `seconds`).

    "" when the value is a plain number (or has no number at all). Lint reports what is left over,
    so it describes the parser's reading instead of re-reading the value its own way.
    """
    text = value.strip()
    match = _NUMBER.match(text)
    return text[match.end() :].strip() if match else ""


def parse_request_rate(value: str, line: int = 0) -> RequestRate | None:
    """`n/s`, `n/Nm`, `1/5` (seconds), optionally followed by a visit-time window; None if invalid."""
    match = _RATE.match(value)
    if match is None:
        return None
    digits = match.group(1).lstrip("0") or "0"
    if len(digits) > 18:  # no crawler counts that far (and int() refuses 4,300 digits or more)
        return None
    requests = int(digits)
    amount_text = match.group(2)
    amount = float(amount_text) if amount_text else 1.0
    seconds = amount * _UNIT_SECONDS[match.group(3).lower()]
    if requests <= 0 or seconds <= 0 or not math.isfinite(seconds):
        return None
    start, end = _time_of_day(match.group(4)), _time_of_day(match.group(5))
    if (start is None) != (end is None):
        return None  # half a window: the value is malformed
    return RequestRate(requests, seconds, line, start, end)


@dataclass(frozen=True, slots=True)
class VisitTime:
    """`Visit-time: 0600-0845`: the window (UTC, as the extension defines it) to crawl in."""

    start_time: time
    end_time: time
    line: int = 0


def _time_of_day(text: str | None) -> time | None:
    """`HMM`, `HHMM` or `HH:MM` as a time of day; None when absent or out of range."""
    if not text:
        return None
    digits = text.replace(":", "")
    hour, minute = int(digits[:-2]), int(digits[-2:])
    if hour > 23 or minute > 59:
        return None
    return time(hour, minute)


def parse_visit_time(value: str, line: int = 0) -> VisitTime | None:
    """`0400-0845` or `0400 0845` (Protego's forms; `04:00-08:45` too); None if invalid."""
    match = _WINDOW.match(value)
    if match is None:
        return None
    start, end = _time_of_day(match.group(1)), _time_of_day(match.group(2))
    if start is None or end is None:
        return None
    return VisitTime(start, end, line)
