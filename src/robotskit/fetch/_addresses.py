"""public_only: which resolved addresses a crawler may connect to. Standard library only.

A crawler fed URLs from the web must not be steered into the network it runs in (SSRF):
`public_only` adapters resolve the host themselves, refuse the fetch unless every address is
public, and connect to the address they checked, so a second DNS answer cannot swap it.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

from robotskit.errors import FetchError

__all__ = ["check_public", "is_public"]


def is_public(address: str) -> bool:
    """False for loopback, private, link-local, multicast, reserved, shared and unspecified addresses.

    IPv4-mapped IPv6 addresses (`::ffff:127.0.0.1`) are judged as the IPv4 address they carry.
    """
    ip = ipaddress.ip_address(address.split("%", 1)[0])  # drop an IPv6 zone index
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast


def check_public(host: str, infos: Iterable[tuple[object, ...]], url: str = "") -> str:
    """The first address of a getaddrinfo answer, or FetchError(kind="not-public").

    Every address must be public: a name that resolves to one public and one private address
    is refused, since the connection could otherwise be steered to either.
    """
    addresses = [str(info[4][0]) for info in infos if isinstance(info[4], tuple)]
    if not addresses:
        raise FetchError(f"DNS lookup for {host} returned no address", url=url, kind="dns")
    for address in addresses:
        if not is_public(address):
            raise FetchError(
                f"{host} resolves to {address}, which is not a public address (public_only)",
                url=url,
                kind="not-public",
            )
    return addresses[0]
