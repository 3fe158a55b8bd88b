"""The ASGI middleware that stands between the browser and the endpoints.

- CSRF: a POST (any unsafe method) whose `Origin` is not the page's own, or that a browser marks
  as cross-site (`Sec-Fetch-Site`), is refused with 403 before the endpoint runs. Requests with
  no `Origin` (curl, scripts) are served: a browser always sends one on a cross-origin POST.
- DNS rebinding: when bound to loopback, only loopback `Host` names are answered, so a page of
  another site whose name was re-pointed at 127.0.0.1 cannot read the answers.
- Every response says how it may be used: a strict Content-Security-Policy (scripts and styles
  from this server only, no inline script), no sniffing, no referrer, no framing.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["LOOPBACK_HOSTS", "Guard"]

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
_DEFAULT_PORTS = {"http": 80, "https": 443}
_HEADERS = [
    (
        b"content-security-policy",
        b"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        b"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    ),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cache-control", b"no-store"),
]


def _origin_key(url: str) -> tuple[str, str, int] | None:
    """(scheme, host, port) of an origin or base URL; None when it cannot be read."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if not parts.hostname or scheme not in _DEFAULT_PORTS:
        return None
    return scheme, parts.hostname.lower(), port if port is not None else _DEFAULT_PORTS[scheme]


def _host_name(host: str) -> str | None:
    try:
        return urlsplit(f"//{host}").hostname
    except ValueError:
        return None


class Guard:
    """Refuse cross-origin POSTs and foreign Host names; add the security headers to every answer.

    `allowed_hosts`: the Host names answered (lower-case, IPv6 without brackets), or None for any.
    """

    def __init__(self, app: ASGIApp, allowed_hosts: Collection[str] | None) -> None:
        self.app = app
        self.allowed_hosts = None if allowed_hosts is None else frozenset(h.lower() for h in allowed_hosts)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        host = headers.get("host", "")
        refusal = self._refusal(scope, headers, host)
        if refusal is not None:
            await _refuse(send, *refusal)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *_HEADERS]
            await send(message)

        await self.app(scope, receive, send_with_headers)

    def _refusal(self, scope: Scope, headers: dict[str, str], host: str) -> tuple[int, str] | None:
        if self.allowed_hosts is not None and (_host_name(host) or "") not in self.allowed_hosts:
            return 421, f"this server answers only for {', '.join(sorted(self.allowed_hosts))}"
        if scope["method"] in _SAFE_METHODS:
            return None
        if headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none"):
            return 403, "cross-site request refused"
        origin = headers.get("origin")
        if origin is None:
            return None  # not a browser page: curl, scripts, tests
        own = _origin_key(f"{scope['scheme']}://{host}")
        if own is None or _origin_key(origin) != own:
            return 403, f"cross-origin request refused: Origin {origin!r} is not this page's"
        return None


async def _refuse(send: Send, status: int, message: str) -> None:
    body = json.dumps({"error": message}).encode("utf-8")
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode("ascii")),
                *_HEADERS,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
