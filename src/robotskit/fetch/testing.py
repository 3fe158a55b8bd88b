"""Helpers for testing code that uses robotskit, without a network or a real clock.

    clock = FrozenClock()
    robots = http_response(200, b"User-agent: *\\nDisallow: /x")
    fetcher = MockFetcher({"https://example.com/robots.txt": robots})
    client = RobotsClient("MyBot", fetchers={"https": fetcher}, clock=clock)
    assert not client.allowed("https://example.com/x")
    clock.advance(86_400)   # the entry expires; the next call fetches again
    assert fetcher.count() == 1

A scripted URL answers with one response (every time), a list (in order, the last one
repeating), a `FetchError` (raised), or a function of the request. Unscripted URLs answer
"not found" in their protocol (HTTP 404, Gemini 51, FTP 550) unless `default` says otherwise.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from urllib.parse import urlsplit

from robotskit.errors import FetchError
from robotskit.policy.messages import FetchRequest, FetchResponse

__all__ = [
    "AsyncMockFetcher",
    "FrozenClock",
    "MockFetcher",
    "ftp_response",
    "gemini_response",
    "http_response",
]

Answer = FetchResponse | FetchError | Callable[[FetchRequest], FetchResponse]
Script = Answer | Sequence[Answer]


def _bytes(body: bytes | str) -> bytes:
    return body.encode("utf-8") if isinstance(body, str) else body


def http_response(
    status: int = 200,
    body: bytes | str = b"",
    *,
    headers: Mapping[str, str] | None = None,
    url: str = "",
    truncated: bool = False,
) -> FetchResponse:
    """An HTTP response (header names are lower-cased, as adapters deliver them)."""
    lowered = {k.lower(): v for k, v in (headers or {}).items()}
    return FetchResponse(url, "http", status, _bytes(body), lowered, truncated=truncated)


def gemini_response(
    status: int = 20, meta: str = "text/gemini", body: bytes | str = b"", *, url: str = ""
) -> FetchResponse:
    """A Gemini response: two-digit status, META (MIME type, redirect target, wait seconds)."""
    return FetchResponse(url, "gemini", status, _bytes(body), meta=meta)


def ftp_response(
    status: int = 226, body: bytes | str = b"", *, meta: str = "", url: str = ""
) -> FetchResponse:
    """An FTP result: the final reply code (226 transfer complete, 550 no such file, 530 ...)."""
    return FetchResponse(url, "ftp", status, _bytes(body), meta=meta)


def _not_found(request: FetchRequest) -> FetchResponse:
    scheme = urlsplit(request.url).scheme
    if scheme == "gemini":
        return gemini_response(51, "not found")
    if scheme == "ftp":
        return ftp_response(550, meta="No such file or directory")
    return http_response(404)


class _Scripted:
    """The shared bookkeeping of both mock fetchers: scripts, call log, counting."""

    def __init__(
        self,
        responses: Mapping[str, Script] | None = None,
        *,
        delay: float = 0.0,
        default: Script | None = None,
    ) -> None:
        self.delay = delay
        self.calls: list[FetchRequest] = []
        self._scripts: dict[str, list[Answer]] = {}
        self._default: list[Answer] = [_not_found] if default is None else self._as_list(default)
        self._lock = threading.Lock()
        for url, script in (responses or {}).items():
            self.add(url, script)

    @staticmethod
    def _as_list(script: Script) -> list[Answer]:
        if isinstance(script, (FetchResponse, FetchError)) or callable(script):
            return [script]
        return list(script)

    def add(self, url: str, script: Script) -> None:
        """Script (or re-script) the answers for one URL."""
        with self._lock:
            self._scripts[url] = self._as_list(script)

    def count(self, url: str | None = None) -> int:
        """How many requests were made (for `url` only, if given)."""
        with self._lock:
            return sum(1 for c in self.calls if url is None or c.url == url)

    @property
    def urls(self) -> list[str]:
        """The URLs requested, in order."""
        with self._lock:
            return [c.url for c in self.calls]

    def _answer(self, request: FetchRequest) -> FetchResponse:
        with self._lock:
            self.calls.append(request)
            queue = self._scripts.get(request.url, self._default)
            answer = queue.pop(0) if len(queue) > 1 else queue[0]
        if isinstance(answer, FetchError):
            raise answer
        response = answer if isinstance(answer, FetchResponse) else answer(request)
        return response if response.url else replace(response, url=request.url)


class MockFetcher(_Scripted):
    """A scripted synchronous `Fetcher`; `delay` seconds of sleep per request."""

    def fetch(self, request: FetchRequest) -> FetchResponse:
        if self.delay:
            time.sleep(self.delay)
        return self._answer(request)


class AsyncMockFetcher(_Scripted):
    """A scripted `AsyncFetcher`; `delay` seconds of `asyncio.sleep` per request."""

    async def fetch(self, request: FetchRequest) -> FetchResponse:
        if self.delay:
            await asyncio.sleep(self.delay)
        return self._answer(request)


class FrozenClock:
    """A clock that moves only when told: pass it as `clock=` to the client or the policy."""

    def __init__(self, start: float = 1_767_225_600.0) -> None:  # 2026-01-01T00:00:00Z
        self._now = float(start)
        self._lock = threading.Lock()

    def __call__(self) -> float:
        with self._lock:
            return self._now

    def advance(self, seconds: float) -> float:
        """Move forward by `seconds`; returns the new time."""
        with self._lock:
            self._now += seconds
            return self._now

    def set(self, now: float) -> None:
        """Jump to an absolute epoch time."""
        with self._lock:
            self._now = float(now)

    def __repr__(self) -> str:
        return f"<FrozenClock {self._now}>"
