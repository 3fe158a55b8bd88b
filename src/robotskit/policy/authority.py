"""Which robots.txt governs a URL: authority keys and robots.txt URLs (SPEC.md section 6).

RFC 9309 2.3: the rules of `/robots.txt` cover only the scheme, host and port they were
fetched from. Two spellings of one authority must share one cache entry, so the key is
canonical: scheme and host lower-cased, default ports dropped, IDN hosts as punycode.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from robotskit.errors import InvalidURL

__all__ = ["DEFAULT_PORTS", "SUPPORTED_SCHEMES", "authority_key", "robots_txt_url"]

# SPEC.md section 6: "default ports are equal to no port".
DEFAULT_PORTS: dict[str, int] = {"http": 80, "https": 443, "ftp": 21, "gemini": 1965}
SUPPORTED_SCHEMES: frozenset[str] = frozenset(DEFAULT_PORTS)


def _ascii_host(host: str, url: str) -> str:
    """Lower-case a host and turn an IDN into punycode (SPEC.md 6: IDN = its punycode)."""
    host = host.lower()
    if host.isascii():
        return host
    try:
        # The stdlib codec implements IDNA 2003 (RFC 3490), label by label; it also maps
        # full-width dots and other compatibility forms, so equal hosts meet.
        return host.encode("idna").decode("ascii")
    except UnicodeError as exc:
        raise InvalidURL(f"host {host!r} is not a valid internationalised domain name", url) from exc


def authority_key(url: str) -> str:
    """Return the canonical `scheme://host[:port]` whose robots.txt governs `url`.

    >>> authority_key("HTTPS://Example.COM:443/a?b")
    'https://example.com'
    >>> authority_key("http://bücher.example:8080/")
    'http://xn--bcher-kva.example:8080'

    Raises `InvalidURL` for a URL without a host, with a scheme other than http, https,
    ftp or gemini, or with a port that is not a number in 0..65535.
    """
    if not isinstance(url, str):
        raise TypeError(f"url must be a str, not {type(url).__name__}")
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as exc:  # bad port, unbalanced IPv6 brackets
        raise InvalidURL(f"cannot parse URL {url!r}: {exc}", url) from exc
    scheme = parts.scheme.lower()
    if scheme not in SUPPORTED_SCHEMES:
        shown = scheme or "(none)"
        raise InvalidURL(f"unsupported scheme {shown!r} in {url!r} (http, https, ftp, gemini)", url)
    host = parts.hostname  # already without userinfo and brackets, lower-cased
    if not host:
        raise InvalidURL(f"URL {url!r} has no host", url)
    host = _ascii_host(host, url)
    if ":" in host:  # an IPv6 literal gets its brackets back
        host = f"[{host}]"
    if port is None or port == DEFAULT_PORTS[scheme]:
        return f"{scheme}://{host}"
    return f"{scheme}://{host}:{port}"


def robots_txt_url(url: str) -> str:
    """Return the URL of the robots.txt that governs `url` (RFC 9309 2.3: `/robots.txt`).

    >>> robots_txt_url("https://example.com/shop/item?id=1")
    'https://example.com/robots.txt'
    """
    return authority_key(url) + "/robots.txt"
