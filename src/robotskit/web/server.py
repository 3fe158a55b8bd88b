"""Bind a socket, say where, and run the app under uvicorn until interrupted.

The socket is bound and listening before the address is printed, so whoever reads the line
(a person, a test that asked for `--port 0`) can connect at once.
"""

from __future__ import annotations

import ipaddress
import socket
import sys
from typing import TextIO

import uvicorn

from robotskit.web.app import create_app
from robotskit.web.guard import LOOPBACK_HOSTS

__all__ = ["is_loopback", "page_url", "serve"]


def is_loopback(host: str) -> bool:
    """True for `localhost` and loopback addresses (127.0.0.0/8, ::1)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def page_url(host: str, port: int) -> str:
    """The address to open: IPv6 literals in brackets; a wildcard bind shown as loopback."""
    shown = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}.get(host, host)
    if ":" in shown:
        shown = f"[{shown.strip('[]')}]"
    return f"http://{shown}:{port}/"


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host.strip("[]"), port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    return sock


def serve(
    host: str = "127.0.0.1",
    port: int = 8009,
    *,
    cache: str = "memory://",
    timeout: float = 10.0,
    out: TextIO | None = None,
) -> None:
    """Serve the tester on `host`:`port` (0: any free port) until Ctrl-C; raises OSError if it cannot bind."""
    out = out or sys.stdout
    loopback = is_loopback(host)
    if not loopback:
        print(
            f"warning: binding to {host} makes the tester reachable from other machines; anyone who can "
            "reach it can make this machine fetch robots.txt files from any site",
            file=sys.stderr,
        )
    sock = _bind(host, port)
    bound_port = int(sock.getsockname()[1])
    # A loopback bind answers only loopback Host names (no DNS rebinding); a wider bind cannot
    # know the names it is reached by, and its "fetch from site" must not reach this machine's
    # network on a stranger's behalf (public_only: no loopback, private or link-local targets).
    app = create_app(
        cache=cache,
        timeout=timeout,
        allowed_hosts=LOOPBACK_HOSTS if loopback else None,
        public_only=not loopback,
    )
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on")
    server = uvicorn.Server(config)
    print(f"robotskit serve: {page_url(host, bound_port)} (Ctrl-C to stop)", file=out, flush=True)
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
