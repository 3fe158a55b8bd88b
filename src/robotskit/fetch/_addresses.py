"""Where the adapters connect: a DNS lookup bounded by the deadline, and public_only. Stdlib only.

`getaddrinfo` blocks for as long as the system resolver likes and cannot be interrupted, so
the synchronous adapters run it in a daemon thread of its own and stop waiting at the fetch's
deadline (a thread per lookup: a pool would let a few hung lookups starve every other host).

A crawler fed URLs from the web must not be steered into the network it runs in (SSRF):
`public_only` adapters refuse a host unless every address it resolves to is public, and then
connect to those very addresses, so a second DNS answer cannot swap them (DNS rebinding).
"""

from __future__ import annotations

import ipaddress
import socket
import threading
from collections.abc import Iterable

from robotskit.errors import FetchError, FetchTimeout

__all__ = ["addresses_of", "check_public", "is_public", "resolve"]


def is_public(address: str) -> bool:
    """False for loopback, private, link-local, multicast, reserved, shared and unspecified addresses.

    IPv4-mapped IPv6 addresses (`::ffff:127.0.0.1`) are judged as the IPv4 address they carry.
    """
    ip = ipaddress.ip_address(address.split("%", 1)[0])  # drop an IPv6 zone index
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast


def addresses_of(infos: Iterable[tuple[object, ...]]) -> list[str]:
    """The addresses of a getaddrinfo answer, in its order, each once."""
    found: list[str] = []
    for info in infos:
        sockaddr = info[4]
        if isinstance(sockaddr, tuple) and str(sockaddr[0]) not in found:
            found.append(str(sockaddr[0]))
    return found


def check_public(host: str, addresses: list[str], url: str = "") -> list[str]:
    """`addresses` when every one is public, else FetchError(kind="not-public").

    A name that resolves to one public and one private address is refused: the connection could
    otherwise be steered to either.
    """
    if not addresses:
        raise FetchError(f"DNS lookup for {host} returned no address", url=url, kind="dns")
    for address in addresses:
        if not is_public(address):
            raise FetchError(
                f"{host} resolves to {address}, which is not a public address (public_only)",
                url=url,
                kind="not-public",
            )
    return addresses


def resolve(host: str, port: int, timeout: float, url: str = "") -> list[str]:
    """The addresses of `host`, waiting at most `timeout` seconds (FetchTimeout after that).

    A failed lookup raises the resolver's `socket.gaierror`. An IP literal is its own answer.
    """
    try:
        ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        pass
    else:
        return [host]
    result: list[str] = []
    failure: list[OSError] = []
    done = threading.Event()

    def lookup() -> None:
        try:
            result.extend(addresses_of(socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)))
        except OSError as exc:
            failure.append(exc)
        finally:
            done.set()

    threading.Thread(target=lookup, name="robotskit-dns", daemon=True).start()
    if not done.wait(timeout):
        raise FetchTimeout(f"timed out resolving {host}", url=url)
    if failure:
        raise failure[0]
    return result
