"""The Starlette application behind `robotskit serve`: the page, its static files and the JSON endpoints.

    GET  /                 the tester page (static HTML; scripts and styles under /static/)
    GET  /api/crawlers     the bundled crawler table, by category
    POST /api/decide       verdicts for URLs x agents, and the lint findings
    POST /api/explain      one cell: every rule that matched, the deciding one first
    POST /api/audit        the AI-crawler audit of the file
    POST /api/diff         the cells whose verdict differs between two files
    POST /api/fetch        a site's robots.txt, fetched through RobotsClient (cache and policy)

Every endpoint but /api/fetch works on the request alone: nothing leaves the machine. Request
bodies are read up to a bound, checked (robotskit.web.inputs) and decided in a worker thread so
a large grid never stalls the event loop. Errors are JSON `{"error": ...}` with a 4xx status.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Collection
from importlib import resources
from typing import Any
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse as StarletteJSONResponse
from starlette.responses import Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from robotskit import AsyncRobotsClient, Outcome, RobotsEntry, RobotskitError
from robotskit.web import analysis
from robotskit.web.guard import LOOPBACK_HOSTS, Guard
from robotskit.web.inputs import (
    MAX_BODY_BYTES,
    InputError,
    decide_request,
    explain_request,
    fetch_request,
    robots_only,
)

__all__ = ["create_app"]

_SCHEMES = ("http", "https", "ftp", "gemini")
_BARE_HOST = re.compile(r"[A-Za-z0-9.-]+(:[0-9]+)?(/\S*)?\Z")  # `example.com`, `example.com:8080/x`
# What a fetch outcome means for crawling, in the words of RFC 9309 2.3.1.3 and 2.3.1.4.
_POLICY = {
    Outcome.OK: "the file's rules apply",
    Outcome.UNAVAILABLE: "complete allow",
    Outcome.UNREACHABLE: "complete disallow",
}

Handler = Callable[[Request], Awaitable[Response]]


class JSONResponse(StarletteJSONResponse):
    """JSON with every non-ASCII character escaped: a lone surrogate in an echoed URL or agent
    (valid in JSON strings, not encodable as UTF-8) comes back exactly instead of failing."""

    def render(self, content: Any) -> bytes:
        return json.dumps(content, ensure_ascii=True, allow_nan=False, separators=(",", ":")).encode("ascii")


async def _read_json(request: Request) -> object:
    """The body as JSON, read at most MAX_BODY_BYTES (a longer body is refused, not buffered)."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BODY_BYTES:
        raise InputError(f"the request is {int(declared):,} bytes; the limit is {MAX_BODY_BYTES:,}", 413)
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise InputError(f"the request is over {MAX_BODY_BYTES:,} bytes", 413)
        chunks.append(chunk)
    try:
        return json.loads(b"".join(chunks))
    except (ValueError, RecursionError) as exc:
        raise InputError(f"the request body is not JSON: {exc}") from None


def _endpoint(work: Callable[[object], Any]) -> Handler:
    """A POST endpoint: read the JSON body, run `work` on it in a worker thread, answer JSON."""

    async def handler(request: Request) -> Response:
        try:
            body = await _read_json(request)
            answer = await run_in_threadpool(work, body)
        except InputError as exc:
            return JSONResponse({"error": exc.message}, status_code=exc.status)
        return JSONResponse(answer)

    return handler


def _decide(body: object) -> Any:
    req = decide_request(body)
    return analysis.decide_json(req.robots_txt, req.urls, req.agents, req.profile)


def _explain(body: object) -> Any:
    req = explain_request(body)
    return analysis.explain_json(req.robots_txt, req.url, req.agent, req.profile)


def _audit(body: object) -> Any:
    return analysis.audit_json(*robots_only(body))


def _diff(body: object) -> Any:
    req = decide_request(body, diff=True)
    return analysis.diff_json(req.old_robots_txt or "", req.robots_txt, req.urls, req.agents, req.profile)


def _site_url(text: str) -> str:
    """`example.com` is taken as `https://example.com/`; other schemes must be ones robotskit fetches."""
    if "://" not in text and not _BARE_HOST.match(text):
        raise InputError(f"not a site address: {text!r}; use one of {', '.join(_SCHEMES)}://host/")
    url = text if "://" in text else f"https://{text}"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError as exc:
        raise InputError(f"not a URL: {text!r} ({exc})") from None
    if parts.scheme.lower() not in _SCHEMES or not parts.hostname or "@" in parts.netloc:
        raise InputError(f"not a site address: {text!r}; use one of {', '.join(_SCHEMES)}://host/")
    return url


def entry_json(entry: RobotsEntry) -> dict[str, Any]:
    """A fetch's outcome as the page shows it: "HTTP 503: complete disallow", and the body as text."""
    policy = _POLICY.get(entry.outcome, str(entry.outcome))
    summary = f"{entry.reason or entry.outcome}: {policy}"
    if entry.stale:
        summary = f"{entry.reason}: unreachable, the last good copy applies"
    return {
        "robots_url": entry.robots_url,
        "final_url": entry.final_url,
        "outcome": str(entry.outcome),
        "status": entry.status,
        "protocol": entry.protocol,
        "reason": entry.reason,
        "policy": policy,
        "summary": summary,
        "stale": entry.stale,
        "size": entry.size,
        "truncated": entry.truncated,
        "redirects": list(entry.redirects),
        # The page edits text: a body that is not UTF-8 shows U+FFFD where its bytes were.
        "robots_txt": entry.body.decode("utf-8", "replace") if entry.has_rules else None,
    }


class _Fetcher:
    """The one client of the app, made on first use (so a page that never fetches opens nothing)."""

    def __init__(
        self, client: AsyncRobotsClient | None, cache: str, timeout: float, public_only: bool
    ) -> None:
        self.client = client
        self.owned = client is None
        self.cache = cache
        self.timeout = timeout
        self.public_only = public_only

    def get(self) -> AsyncRobotsClient:
        if self.client is None:
            self.client = AsyncRobotsClient(
                "robotskit", cache=self.cache, timeout=self.timeout, public_only=self.public_only
            )
        return self.client

    async def close(self) -> None:
        if self.owned and self.client is not None:
            await self.client.close()
            self.client = None

    async def endpoint(self, request: Request) -> Response:
        try:
            url = _site_url(fetch_request(await _read_json(request)).url)
        except InputError as exc:
            return JSONResponse({"error": exc.message}, status_code=exc.status)
        try:
            # Network failures are outcomes (unreachable), not errors; this catches what the
            # client refuses outright, such as a URL it cannot fetch.
            entry = await self.get().lookup(url)
        except RobotskitError as exc:
            return JSONResponse({"error": f"cannot fetch {url}: {exc}"}, status_code=422)
        return JSONResponse(entry_json(entry))


def _page() -> bytes:
    return resources.files("robotskit.web").joinpath("static/index.html").read_bytes()


async def _index(request: Request) -> Response:
    return Response(_page(), media_type="text/html; charset=utf-8")


async def _crawlers(request: Request) -> Response:
    return JSONResponse(analysis.crawlers_json())


async def _http_error(request: Request, exc: Exception) -> Response:
    if isinstance(exc, HTTPException):
        return JSONResponse({"error": exc.detail}, status_code=exc.status_code)
    return JSONResponse({"error": "internal error (a bug in robotskit: please report it)"}, status_code=500)


def create_app(
    *,
    client: AsyncRobotsClient | None = None,
    cache: str = "memory://",
    timeout: float = 10.0,
    allowed_hosts: Collection[str] | None = LOOPBACK_HOSTS,
    public_only: bool = False,
) -> Starlette:
    """The tester as an ASGI app.

    `client` fetches "fetch from site" requests (default: one made on first use with `cache`
    and `timeout`; the app closes only a client it made). `allowed_hosts`: the Host names
    answered (default loopback names; None answers any, for a server bound beyond loopback).
    `public_only`: "fetch from site" refuses loopback, private, link-local and multicast
    addresses (on for a server bound beyond loopback, where strangers choose the URLs).
    """
    fetcher = _Fetcher(client, cache, timeout, public_only)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        await fetcher.close()

    routes = [
        Route("/", _index, methods=["GET"]),
        Route("/api/crawlers", _crawlers, methods=["GET"]),
        Route("/api/decide", _endpoint(_decide), methods=["POST"]),
        Route("/api/explain", _endpoint(_explain), methods=["POST"]),
        Route("/api/audit", _endpoint(_audit), methods=["POST"]),
        Route("/api/diff", _endpoint(_diff), methods=["POST"]),
        Route("/api/fetch", fetcher.endpoint, methods=["POST"]),
        Mount("/static", StaticFiles(packages=[("robotskit.web", "static")]), name="static"),
    ]
    return Starlette(
        routes=routes,
        middleware=[Middleware(Guard, allowed_hosts=allowed_hosts)],
        exception_handlers={HTTPException: _http_error, Exception: _http_error},
        lifespan=lifespan,
    )
