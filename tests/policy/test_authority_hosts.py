"""Hosts spelled once (issue 14): IDNA 2008 + UTS 46, trailing dots, IPv4 numeric forms, IPv6 compressions.

The vectors follow the WHATWG URL Standard's host parser (what browsers do) and IDNA 2008 with
UTS 46 non-transitional mapping; each spelling of one host must give one authority key.
"""

from __future__ import annotations

import pytest

from robotskit import authority_key, robots_txt_url
from robotskit.errors import InvalidURL
from robotskit.policy.authority import canonical_host, canonical_url
from robotskit.policy.classify import resolve

SPELLINGS = [
    # (url, key)
    ("https://faß.de/", "https://xn--fa-hia.de"),  # IDNA 2008: ß stays (IDNA 2003 made it fass.de)
    ("https://FAß.DE./x", "https://xn--fa-hia.de"),
    ("https://xn--fa-hia.de/", "https://xn--fa-hia.de"),
    ("https://fass.de/", "https://fass.de"),  # a different host
    ("http://\u1e9ea.de/", "http://xn--a-pfa.de"),  # capital sharp s maps to ß under UTS 46
    ("http://\uff25\uff38\uff21\uff2d\uff30\uff2c\uff25\uff0ecom/", "http://example.com"),  # full-width
    ("http://ex%61mple.com/", "http://example.com"),  # percent-escapes in a host are decoded
    ("http://Example.COM.:80/", "http://example.com"),  # trailing dot, case, default port
    ("http://my_host.example/", "http://my_host.example"),  # "_" is no forbidden host character
    ("http://[::0:1]/", "http://[::1]"),
    ("http://[0:0:0:0:0:0:0:1]:80/", "http://[::1]"),
    ("http://[::FFFF:127.0.0.1]/", "http://[::ffff:7f00:1]"),
    ("http://[2001:DB8:0:0:1::1]:8080/", "http://[2001:db8::1:0:0:1]:8080"),
    ("http://2130706433/", "http://127.0.0.1"),
    ("http://127.1/", "http://127.0.0.1"),
    ("http://127.0.1/", "http://127.0.0.1"),
    ("http://0177.0.0.1/", "http://127.0.0.1"),
    ("http://0x7f.0.0.1/", "http://127.0.0.1"),
    ("http://0X7F000001:8080/", "http://127.0.0.1:8080"),
    ("http://127.0.0.1./", "http://127.0.0.1"),
    ("http://4294967295/", "http://255.255.255.255"),
    ("http://0x/", "http://0.0.0.0"),
    ("http://user:pw@Example.com/", "http://example.com"),
]


@pytest.mark.parametrize(("url", "key"), SPELLINGS, ids=[u for u, _ in SPELLINGS])
def test_one_key_per_host(url: str, key: str) -> None:
    """Every spelling of a host gives the key that names it once (WHATWG host parser, IDNA 2008 / UTS 46)."""
    assert authority_key(url) == key
    assert robots_txt_url(url) == key + "/robots.txt"


INVALID = [
    "http://1.2.3.4.5/",  # ends in a number: must be IPv4, five parts is not
    "http://256.0.0.1/",
    "http://4294967296/",
    "http://1.2.3.09/",  # 0-led octal with a 9
    "http://foo.1/",  # a domain cannot end in a number
    "http://xn--zz.example/",  # an A-label that does not decode
    "http://a\u200db.example/",  # a joiner outside its allowed context
    "http://a..b/",
    "http://./",
    "http://%ff.example/",  # not UTF-8 once decoded
    "http://a%2fb.example/",  # a forbidden host character once decoded
    "http://a%00b.example/",
    "http://[fe80::1%25eth0]/",  # a zone identifier names no Internet host
    "http://[v1.fe]/",  # IPvFuture: nothing to connect to
    "http://[::1/",
    "http://\u2488.example/",  # disallowed by UTS 46 (a digit with a full stop)
]


@pytest.mark.parametrize("url", INVALID)
def test_invalid_hosts_are_invalid_url(url: str) -> None:
    """A caller's URL whose host is not one raises InvalidURL (a caller error), never a foreign exception."""
    with pytest.raises(InvalidURL) as info:
        authority_key(url)
    assert info.value.url == url


@pytest.mark.parametrize("url", INVALID)
def test_invalid_redirect_targets_are_unusable(url: str) -> None:
    """A redirect target with such a host resolves to None (the policy's "unusable target"), not an exception."""
    assert resolve("https://example.com/robots.txt", url) is None


def test_canonical_host_and_url() -> None:
    """The request URL is rebuilt from the key: host canonical, no userinfo, no fragment."""
    assert canonical_host("Faß.DE.") == "xn--fa-hia.de"
    assert canonical_host("[::0:1]") == "[::1]"
    assert canonical_url("HTTP://u:p@Faß.de:80/robots.txt?x=1#top") == "http://xn--fa-hia.de/robots.txt?x=1"
    assert canonical_url("gemini://127.1:1965") == "gemini://127.0.0.1/"
    with pytest.raises(InvalidURL):
        canonical_host("a b")


def test_redirect_targets_are_requested_under_their_canonical_host() -> None:
    """A redirect to another spelling of a host is followed under the spelling its key names."""
    assert resolve("http://a.example/robots.txt", "http://Faß.DE.:80/r.txt#x") == "http://xn--fa-hia.de/r.txt"
    assert resolve("http://a.example/robots.txt", "//2130706433/r") == "http://127.0.0.1/r"
