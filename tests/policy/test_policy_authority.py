"""SPEC.md section 6, first paragraph: which robots.txt governs a URL."""

from __future__ import annotations

import pytest

from robotskit.errors import InvalidArgument, InvalidURL
from robotskit.policy.authority import authority_key, robots_txt_url

SAME_AUTHORITY = [
    # (url, expected key)
    ("http://example.com/a", "http://example.com"),
    ("http://example.com:80/a", "http://example.com"),
    ("HTTP://EXAMPLE.com/a", "http://example.com"),
    ("https://example.com:443/", "https://example.com"),
    ("https://example.com:8443/x", "https://example.com:8443"),
    ("http://example.com:443/", "http://example.com:443"),
    ("ftp://ftp.example.org:21/pub/", "ftp://ftp.example.org"),
    ("ftp://ftp.example.org:2121/pub/", "ftp://ftp.example.org:2121"),
    ("gemini://gem.example:1965/log/", "gemini://gem.example"),
    ("gemini://gem.example:1966/", "gemini://gem.example:1966"),
    ("https://user:pw@example.com/x", "https://example.com"),
    ("https://bücher.example/", "https://xn--bcher-kva.example"),
    ("https://BÜCHER.example/", "https://xn--bcher-kva.example"),
    ("https://xn--bcher-kva.example/", "https://xn--bcher-kva.example"),
    ("http://[::1]:8080/x", "http://[::1]:8080"),
    ("http://127.0.0.1/x", "http://127.0.0.1"),
]


@pytest.mark.parametrize(("url", "key"), SAME_AUTHORITY, ids=[u for u, _ in SAME_AUTHORITY])
def test_authority_key_canonical(url: str, key: str) -> None:
    """SPEC.md 6: default ports equal no port, IDN hosts equal their punycode, case is ignored."""
    assert authority_key(url) == key


def test_robots_txt_url_is_root_of_authority() -> None:
    """RFC 9309 2.3 / SPEC.md 6: robots.txt lives at /robots.txt of scheme, host and port."""
    assert robots_txt_url("https://Example.com:443/shop/item?id=1#top") == "https://example.com/robots.txt"
    assert robots_txt_url("gemini://gem.example:1966/a") == "gemini://gem.example:1966/robots.txt"


@pytest.mark.parametrize(
    "url",
    [
        "/relative/path",
        "https:///nohost",
        "mailto:someone@example.com",
        "file:///etc/passwd",
        "",
        "http://x:99999/",
    ],
)
def test_invalid_urls_raise(url: str) -> None:
    """SPEC.md 6 / issue 3: no host, unsupported scheme or a bad port is a clear InvalidURL."""
    with pytest.raises(InvalidURL) as info:
        authority_key(url)
    assert isinstance(info.value, InvalidArgument)
    assert isinstance(info.value, ValueError)
    assert info.value.url == url
