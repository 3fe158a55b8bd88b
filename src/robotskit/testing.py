"""Test helpers: scripted fetchers and a frozen clock for your own tests.

Kept for its import path; the code lives in `robotskit.fetch.testing`.
"""

from robotskit.fetch.testing import (
    AsyncMockFetcher,
    FrozenClock,
    MockFetcher,
    ftp_response,
    gemini_response,
    http_response,
)

__all__ = [
    "AsyncMockFetcher",
    "FrozenClock",
    "MockFetcher",
    "ftp_response",
    "gemini_response",
    "http_response",
]
