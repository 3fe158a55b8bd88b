"""How a socket-level OSError becomes a FetchError, shared by the adapters that open raw sockets."""

from __future__ import annotations

import socket
import ssl

from robotskit.errors import FetchError, FetchTimeout


def os_error(exc: OSError, url: str, where: str) -> FetchError:
    """The FetchError (with its `kind`) for an OSError raised while talking to `where`."""
    if isinstance(exc, socket.gaierror):
        return FetchError(f"DNS lookup failed for {where}: {exc}", url=url, kind="dns")
    if isinstance(exc, ssl.SSLError):
        return FetchError(f"TLS failure talking to {where}: {exc}", url=url, kind="tls")
    if isinstance(exc, ConnectionResetError):
        return FetchError(f"connection reset by {where}", url=url, kind="reset")
    if isinstance(exc, TimeoutError):
        return FetchTimeout(f"timed out talking to {where}", url=url)
    return FetchError(f"cannot talk to {where}: {exc}", url=url, kind="connection")
