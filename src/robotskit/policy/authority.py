"""Which robots.txt governs a URL: authority keys and robots.txt URLs (SPEC.md section 6).

RFC 9309 2.3: the rules of `/robots.txt` cover only the scheme, host and port they were
fetched from. Every spelling of one authority must share one cache entry, and the host
robotskit connects to must be the host that entry names, so a host is read once, here, the way
browsers read it (the WHATWG URL Standard's host parser):

- percent-escapes decoded, then IDNA 2008 with UTS 46 mapping, non-transitional (`faß.de` is
  `xn--fa-hia.de`, not `fass.de`; `Bücher.example` is `xn--bcher-kva.example`); A-labels
  must decode; a label may not be empty, and no forbidden host character survives;
- one trailing dot dropped (`example.com.` is `example.com`);
- a host ending in a number is an IPv4 address in any of its numeric spellings (`2130706433`,
  `127.1`, `0x7f.1`, `0177.0.0.1` are all `127.0.0.1`);
- an IPv6 literal in its RFC 5952 compressed form (`[::0:1]` is `[::1]`);
- scheme lower-cased and its default port dropped.

Whatever does not read as a host is `InvalidURL`: a caller's error when the caller passed the
URL; the fetch policy turns a redirect target's into an outcome.
"""

from __future__ import annotations

import functools
import ipaddress
import re
from urllib.parse import unquote_to_bytes, urlsplit

from robotskit.errors import InvalidURL

__all__ = [
    "DEFAULT_PORTS",
    "SUPPORTED_SCHEMES",
    "authority_key",
    "canonical_host",
    "canonical_url",
    "robots_txt_url",
]

# SPEC.md section 6: "default ports are equal to no port".
DEFAULT_PORTS: dict[str, int] = {"http": 80, "https": 443, "ftp": 21, "gemini": 1965}
SUPPORTED_SCHEMES: frozenset[str] = frozenset(DEFAULT_PORTS)

# WHATWG URL: forbidden domain code points (C0 controls, space, "#%/:<>?@[\]^|", DEL).
_FORBIDDEN = re.compile(r"[\x00-\x20#%/:<>?@\[\\\]^|\x7f]")
# The common case needs no IDNA: lower-case ASCII letters, digits, "-" and "_", no A-label.
_PLAIN = re.compile(r"(?!.*(?:^|\.)xn--)[a-z0-9_-]+(?:\.[a-z0-9_-]+)*")
_DECIMAL = re.compile(r"[0-9]+")
_HEX = re.compile(r"0[xX][0-9a-fA-F]*")


def _ipv4_number(part: str) -> int | None:
    """WHATWG "IPv4 number parser": decimal, 0x hex or 0-led octal; None if not a number."""
    if not part:
        return None
    if part[:2] in ("0x", "0X"):
        digits, base = part[2:], 16
        if digits and not _HEX.fullmatch(part):
            return None
    elif len(part) > 1 and part[0] == "0":
        digits, base = part[1:], 8
    else:
        digits, base = part, 10
    if not digits:
        return 0
    if base != 16 and not _DECIMAL.fullmatch(digits):
        return None
    try:
        return int(digits, base)
    except ValueError:  # an 8 or 9 in an octal part
        return None


def _ends_in_a_number(labels: list[str]) -> bool:
    """WHATWG "ends in a number": the last label is digits or a whole IPv4 number."""
    last = labels[-1]
    return bool(_DECIMAL.fullmatch(last)) or (bool(last) and _ipv4_number(last) is not None)


def _ipv4(labels: list[str], host: str) -> str:
    """The dotted-quad form of a host that ends in a number (WHATWG "IPv4 parser")."""
    numbers = [_ipv4_number(label) for label in labels]
    if len(labels) > 4 or any(number is None for number in numbers):
        raise ValueError(f"{host!r} ends in a number but is not an IPv4 address")
    *head, last = [number for number in numbers if number is not None]
    if any(number > 255 for number in head) or last >= 256 ** (5 - len(numbers)):
        raise ValueError(f"IPv4 address {host!r} is out of range")
    value = last + sum(number * 256 ** (3 - i) for i, number in enumerate(head))
    return str(ipaddress.IPv4Address(value))


def _to_ascii(label: str) -> str:
    """One label, already UTS 46 mapped, as ASCII (IDNA 2008); raises on an invalid label."""
    import idna  # noqa: PLC0415 - its tables load only for a host that needs them

    if label.isascii():
        if label.startswith("xn--"):
            idna.ulabel(label)  # an A-label must decode to a valid U-label
        return label
    return idna.alabel(label).decode("ascii")


def _domain(host: str) -> str:
    """A domain name through UTS 46 (non-transitional) and IDNA 2008, as ASCII."""
    if not host.isascii() or "xn--" in host:
        import idna  # noqa: PLC0415

        host = idna.uts46_remap(host, std3_rules=False, transitional=False)
    labels = host.lower().split(".")
    return ".".join(_to_ascii(label) for label in labels)


@functools.lru_cache(maxsize=4096)
def _host(raw: str) -> str:
    """The canonical form of a URL's host (brackets kept); ValueError/UnicodeError if unusable."""
    if raw[:1] == "[":
        if raw[-1:] != "]" or "%" in raw:  # a zone identifier names no host on the Internet
            raise ValueError("not an IPv6 literal")
        return f"[{ipaddress.IPv6Address(raw[1:-1]).compressed}]"
    # str.lower() only on ASCII: UTS 46 maps the rest (U+1E9E and friends differ)
    host = raw.lower() if raw.isascii() else raw
    if _PLAIN.fullmatch(host) and not _ends_in_a_number(host.split(".")):
        return host
    if "%" in host:
        host = unquote_to_bytes(host).decode("utf-8")  # strict: an invalid sequence raises
    host = _domain(host)
    labels = host.split(".")
    if len(labels) > 1 and labels[-1] == "":
        labels.pop()  # one trailing dot: the same host
    if "" in labels:
        raise ValueError("empty label")
    if _ends_in_a_number(labels):
        return _ipv4(labels, raw)
    host = ".".join(labels)
    bad = _FORBIDDEN.search(host)
    if bad is not None:
        raise ValueError(f"forbidden character {bad.group()!r}")
    return host


def canonical_host(host: str) -> str:
    """The one spelling of a host: IDNA 2008/UTS 46 A-labels, IPv4 dotted quad, IPv6 in brackets.

    >>> canonical_host("Faß.DE.")
    'xn--fa-hia.de'
    >>> canonical_host("0177.0.0.1"), canonical_host("[::0:1]")
    ('127.0.0.1', '[::1]')

    Raises `InvalidURL` for anything that is not a host.
    """
    try:
        return _host(host)
    except (ValueError, UnicodeError) as exc:  # idna's errors are UnicodeErrors
        raise InvalidURL(f"host {host!r} is not a valid host name: {exc}", host) from exc


def _authority(url: str) -> tuple[str, str, int | None]:
    """(scheme, canonical host, port or None when default) of `url`; InvalidURL if it has none."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as exc:  # bad port, unbalanced or invalid IPv6 brackets
        raise InvalidURL(f"cannot parse URL {url!r}: {exc}", url) from exc
    scheme = parts.scheme.lower()
    if scheme not in SUPPORTED_SCHEMES:
        shown = scheme or "(none)"
        raise InvalidURL(f"unsupported scheme {shown!r} in {url!r} (http, https, ftp, gemini)", url)
    netloc = parts.netloc.rpartition("@")[2]  # userinfo never names the host
    # urlsplit checked the brackets and the port; the host is what precedes the port.
    raw = netloc[: netloc.find("]") + 1] if netloc[:1] == "[" else netloc.partition(":")[0]
    if not raw:
        raise InvalidURL(f"URL {url!r} has no host", url)
    try:
        host = _host(raw)
    except (ValueError, UnicodeError) as exc:
        raise InvalidURL(f"URL {url!r}: host {raw!r} is not a valid host name: {exc}", url) from exc
    return scheme, host, None if port == DEFAULT_PORTS[scheme] else port


def authority_key(url: str) -> str:
    """Return the canonical `scheme://host[:port]` whose robots.txt governs `url`.

    >>> authority_key("HTTPS://Example.COM.:443/a?b")
    'https://example.com'
    >>> authority_key("http://bücher.example:8080/")
    'http://xn--bcher-kva.example:8080'
    >>> authority_key("http://2130706433/")
    'http://127.0.0.1'

    Raises `InvalidURL` for a URL without a host or with a host that is not one, with a scheme
    other than http, https, ftp or gemini, or with a port that is not a number in 0..65535.
    """
    if not isinstance(url, str):
        raise TypeError(f"url must be a str, not {type(url).__name__}")
    scheme, host, port = _authority(url)
    return f"{scheme}://{host}" if port is None else f"{scheme}://{host}:{port}"


def canonical_url(url: str) -> str:
    """`url` as robotskit requests it: its authority key, then its path (`/` if none) and query.

    Userinfo and fragment are dropped: neither is ever sent.

    >>> canonical_url("HTTP://user:pw@Faß.de:80/robots.txt#top")
    'http://xn--fa-hia.de/robots.txt'
    """
    key = authority_key(url)
    parts = urlsplit(url.strip())
    path = parts.path or "/"
    return f"{key}{path}?{parts.query}" if parts.query else f"{key}{path}"


def robots_txt_url(url: str) -> str:
    """Return the URL of the robots.txt that governs `url` (RFC 9309 2.3: `/robots.txt`).

    >>> robots_txt_url("https://example.com/shop/item?id=1")
    'https://example.com/robots.txt'
    """
    return authority_key(url) + "/robots.txt"
