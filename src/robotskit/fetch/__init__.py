"""Fetch adapters: the only modules that open sockets. See _types for the contract."""

from robotskit.policy.messages import (
    DEFAULT_MAX_BYTES,
    DEFAULT_TIMEOUT,
    AsyncFetcher,
    Fetcher,
    FetchRequest,
    FetchResponse,
)

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_TIMEOUT",
    "AsyncFetcher",
    "FetchRequest",
    "FetchResponse",
    "Fetcher",
]
