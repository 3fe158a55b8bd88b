"""The parser's fast path equals the per-line reference (`lex_line` on every line).

`parser._read_groups` splits lines whose text before the first colon is in `FAST_KEYS` itself and
hands every other line to `lex_line`. Parsing with an empty `FAST_KEYS` sends every line through
`lex_line`: that is the reference, and the whole `ParsedFile` (groups, rules, records, sitemaps,
diagnostics with lines and columns, line count) must come out the same.
"""

from __future__ import annotations

from unittest import mock

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from robotskit.core import parser
from robotskit.core.lexer import FAST_KEYS, MAX_LINE_BYTES, WHITESPACE, fast_value, lex_line
from robotskit.core.model import LineKind
from robotskit.core.parser import ParsedFile, parse_file


def _reference(data: bytes, robots_url: str | None = None) -> ParsedFile:
    with mock.patch.object(parser, "FAST_KEYS", {}):
        return parse_file(data, robots_url=robots_url)


_PIECES = st.sampled_from(
    [
        *sorted({key.encode("latin-1") for key in FAST_KEYS}),
        b"Disalow",
        b"useragent",
        b"User agent",
        b"site-map",
        b"Disallowed",
        b"DIsallow",
        b"Sitemaps",
        b"Crawl-delay",
        b"Request-rate",
        b"Unknown",
        b":",
        b": ",
        b"::",
        b" ",
        b"\t",
        b"\x0b",
        b"\x0c",
        b"\x00",
        b"#",
        b"# c",
        b"\n",
        b"\r",
        b"\r\n",
        b"/",
        b"/a b",
        b"*",
        b"$",
        b"x",
        b"x y",
        b"\xc3\xa9",
        b"\xff",
        b"\xa0",
        b"\x85",
        b"\xef\xbb\xbf",
        b"http://h/s.xml",
        b"s.xml",
        b"5",
        b"-1",
        b"1/5s",
        b"<div a=b>",
    ]
)


@pytest.mark.slow
@settings(max_examples=3000, deadline=None)
@given(st.lists(_PIECES, max_size=30).map(b"".join))
@example(b"User-agent: a\nDisallow: /x # c\n  Disallow :\t/y\t\nDisallow\nDisallow x\nAllow: /z\x0b\n")
@example(b"Disallow: /p\nUser-agent: *\nSitemap: s.xml\nSitemap: http://h/s\nSitemap: http://h/s\n")
@example(b"Disallow:" + b"/" * (MAX_LINE_BYTES - 8) + b"\nUser-agent: b\nNoindex: /q\x00: x\n")
def test_fast_path_equals_per_line_reference(data: bytes) -> None:
    """Property: with and without the fast path, every field of the parse is the same."""
    assert parse_file(data) == _reference(data)
    assert parse_file(data, robots_url="https://h/robots.txt") == _reference(data, "https://h/robots.txt")


@pytest.mark.slow
@settings(max_examples=1000, deadline=None)
@given(
    st.sampled_from(sorted(FAST_KEYS)),
    st.lists(st.sampled_from([" ", "\t", "\x0b", "\x0c", "#", ":", "/", "a", "é", "x y"]), max_size=8).map(
        "".join
    ),
)
def test_each_fast_key_splits_as_lex_line(raw_key: str, rest: str) -> None:
    """Property: `<raw key>:<rest>` is what lex_line reads: FAST_KEYS' kind, no typo, no missing colon."""
    lexed = lex_line(raw_key + ":" + rest)
    assert lexed is not None
    kind, key, value, _, _, _, typo, missing_colon = lexed
    assert (kind, key, value, typo, missing_colon) == (
        FAST_KEYS[raw_key],
        raw_key.strip(WHITESPACE),
        fast_value(rest),
        False,
        False,
    )


def test_fast_keys_cover_the_common_spellings() -> None:
    """The spellings real files use are on the fast path (a silent regression would only be slower)."""
    for key in ("Disallow", "User-agent", "Allow", "Sitemap", "User-Agent", "disallow", "Crawl-delay"):
        assert key in FAST_KEYS
    assert FAST_KEYS["Disallow"] is LineKind.DISALLOW
    assert FAST_KEYS["Noindex"] is LineKind.OTHER


def test_large_file_fast_path_equals_reference() -> None:
    """Many groups, thousands of rules and sitemaps (first mention kept, in order), CRLF."""
    lines = []
    for group in range(50):
        lines += [f"User-agent: bot{group}", f"user-agent: other{group}"]
        lines += [f"Disallow: /g{group}/{rule} # why" for rule in range(40)] + ["Allow: /ok", ""]
        lines += [f"Sitemap: https://h/s{group % 7}.xml", "Crawl-delay: 2", "Noindex: /x"]
    data = "\r\n".join(lines).encode()
    parsed = parse_file(data)
    assert parsed == _reference(data)
    assert parsed.sitemaps == tuple(f"https://h/s{n}.xml" for n in range(7))
    assert parsed.sitemap_lines == tuple(47 * n + 45 for n in range(7))
