"""The value shapes Protego's API returns, for the Scrapy parser and the urllib drop-in.

Protego (Scrapy's default robots.txt parser) answers `request_rate(ua)` with
`RequestRate(requests, seconds, start_time, end_time)` and `visit_time(ua)` with
`VisitTime(start_time, end_time)`, both named tuples of `datetime.time` windows. These are the
same shapes, built from robotskit's typed records, so code written against Protego keeps working.
"""

from __future__ import annotations

from datetime import time
from typing import NamedTuple

from robotskit.core.extensions import RequestRate as _Rate
from robotskit.core.extensions import VisitTime as _Window

__all__ = ["RequestRate", "VisitTime", "request_rate_of", "visit_time_of"]


class RequestRate(NamedTuple):
    """As Protego's: at most `requests` every `seconds`, optionally only between the two times."""

    requests: int
    seconds: int | float
    start_time: time | None
    end_time: time | None


class VisitTime(NamedTuple):
    """As Protego's: the window to crawl in."""

    start_time: time
    end_time: time


def whole(value: float) -> int | float:
    """Integral values as int, as Protego and the standard library return them."""
    return int(value) if float(value).is_integer() else value


def request_rate_of(rate: _Rate | None) -> RequestRate | None:
    if rate is None:
        return None
    return RequestRate(rate.requests, whole(rate.seconds), rate.start_time, rate.end_time)


def visit_time_of(window: _Window | None) -> VisitTime | None:
    return None if window is None else VisitTime(window.start_time, window.end_time)
