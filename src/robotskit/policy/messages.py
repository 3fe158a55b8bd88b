"""What the fetch policy asks for and what the fetch adapters answer: plain values, no I/O.

The sans-IO policy (robotskit.policy) yields `FetchRequest`s and receives `FetchResponse`s
(or has a `FetchError` thrown in). Adapters in robotskit.fetch.* implement `Fetcher` (sync)
or `AsyncFetcher` (async) for one or more schemes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

DEFAULT_TIMEOUT = 10.0
DEFAULT_MAX_BYTES = 512_000
# Body-decoding bounds every reader of a served body applies (the HTTP fetchers, and the batch
# reader of archived responses): defined here, with no I/O, so the batch need not import httpx.
# Real servers send one coding, rarely two; a long stack is hostile (each layer is a decoder).
MAX_CODINGS = 4
# Concatenated gzip members are legal but rare (BGZF writes one per 64 KiB: ~8 for 500 KiB).
# Each new member costs a decompressor and an empty one yields nothing, so millions of empty
# members would never trip the size limit: past this many the body is hostile.
MAX_GZIP_MEMBERS = 1024


@dataclass(frozen=True, slots=True)
class FetchRequest:
    """One request for one URL (a robots.txt URL, or a redirect target).

    `max_bytes`: stop reading the body after this many bytes (after decompression).
    `headers`: extra request headers (HTTP only; User-Agent is always set by the adapter
    from `user_agent`).
    """

    url: str
    user_agent: str = "robotskit"
    timeout: float = DEFAULT_TIMEOUT
    max_bytes: int = DEFAULT_MAX_BYTES
    headers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class FetchResponse:
    """One response as the wire gave it.

    `protocol`: "http" (also https), "gemini" or "ftp".
    `status`: the HTTP status; the Gemini two-digit status; for FTP the final reply code
    (226/250 after a successful RETR, 550 no such file, 530 login refused, ...).
    `headers`: HTTP headers with lower-cased names (empty for Gemini and FTP).
    `meta`: the Gemini META (MIME type, redirect target, wait seconds, prompt); the FTP reply text.
    `truncated`: the body was cut at `max_bytes`.
    """

    url: str
    protocol: str
    status: int
    body: bytes = b""
    headers: Mapping[str, str] = field(default_factory=dict)
    meta: str = ""
    truncated: bool = False
    elapsed: float = 0.0


@runtime_checkable
class Fetcher(Protocol):
    """A synchronous adapter: performs one request, never follows redirects itself."""

    def fetch(self, request: FetchRequest) -> FetchResponse: ...


@runtime_checkable
class AsyncFetcher(Protocol):
    """An asynchronous adapter: performs one request, never follows redirects itself."""

    async def fetch(self, request: FetchRequest) -> FetchResponse: ...
