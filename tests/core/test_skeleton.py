"""`read_skeleton` equals `parse_file` on groups (agents and rules, with line numbers) and preamble.

The skeleton only reads the lines that C-level scans point at (lines holding "agent", lines
holding "ll" / "alo") and a group's other lines when its rules are asked for, so these tests
throw every spelling Google accepts at it, with the key words also inside values and comments,
and compare it field by field with the full parse (the reference).
"""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from robotskit.core.lexer import DEFAULT_MAX_BYTES, MAX_LINE_BYTES
from robotskit.core.parser import parse_file
from robotskit.core.skeleton import Skeleton, SkeletonGroup, read_skeleton
from tests.conftest import CORPUS, require_shared


def _assert_same(data: bytes | str, max_bytes: int = DEFAULT_MAX_BYTES) -> Skeleton:
    skeleton = read_skeleton(data, max_bytes)
    reference = parse_file(data, max_bytes)
    assert [g.agents for g in skeleton.groups] == [g.agents for g in reference.groups]
    # Rules last, in reverse group order: each group's lazy rules stand on their own.
    for group, expected in reversed(list(zip(skeleton.groups, reference.groups, strict=True))):
        assert group.rules == expected.rules
    assert skeleton.preamble == reference.preamble
    return skeleton


# Keys: every spelling Google accepts for user-agent and allow/disallow (typos included), in
# several cases, near misses, and keys that only contain the words the scans look for.
_KEYS = [
    "User-agent",
    "user-agent",
    "USER-AGENT",
    "User-Agent",
    "useragent",
    "UserAgent",
    "User agent",
    "user agent",
    "User-agents",
    "User-agentX",
    "User_agent",
    "Agent",
    "user",
    "X-User-agent",
    "Allow",
    "allow",
    "ALLOW",
    "Allowed",
    "Disallow",
    "disallow",
    "DisAllow",
    "Dissallow",
    "Dissalow",
    "Disalow",
    "Diasllow",
    "Disallaw",
    "disalow",
    "DISALLAW",
    "Disallowed",
    "Dis allow",
    "Dislow",
    "Sitemap",
    "site-map",
    "Crawl-delay",
    "Noindex",
    "Host",
    "Clean-param",
    "Request-rate",
    "Callout",
    "Gallery",
    "Halo",
    "Unknown",
    "#User-agent",
    "<a href",
    "",
]
_WS = st.sampled_from(["", "", " ", "  ", "\t", " \t", "\x0b", "\x0c", "    "])
_SEPARATOR = st.sampled_from([":", ":", ": ", " :", "", " ", "\t", "::", " : "])
_VALUE = st.sampled_from(
    [
        "",
        "*",
        "Googlebot",
        "googlebot-image",
        "Googlebot/2.1",
        "ExampleBot",
        "/",
        "/private",
        "/a b",
        "/agent",
        "/user-agent/x",
        "/allow",
        "/gallery",
        "/halo/",
        "/p?q=1&r=*$",
        "x y z",
        "a:b",
        "/é",
        "\xff\xfe",
        "\xa0",
        "\x85",
        "User-agent: *",
        "Disallow: /x",
    ]
)
_COMMENT = st.sampled_from(["", "", "#", "# c", "#User-agent: x", "# Disallow: /", " # allow agent"])
_BREAK = st.sampled_from(["\n", "\n", "\n", "\r\n", "\r", "\n\n", "\r\r\n"])


@st.composite
def _line(draw: st.DrawFn) -> str:
    shape = draw(st.integers(0, 9))
    if shape == 0:
        return draw(st.sampled_from(["", "#", "# just a comment with agent and allow", "<html>", "\x00x"]))
    return (
        draw(_WS)
        + draw(st.sampled_from(_KEYS))
        + draw(_WS)
        + draw(_SEPARATOR)
        + draw(_WS)
        + draw(_VALUE)
        + draw(_WS)
        + draw(_COMMENT)
    )


@st.composite
def _robots_txt(draw: st.DrawFn) -> bytes:
    lines = draw(st.lists(_line(), max_size=40))
    out = draw(st.sampled_from(["", "", "\xef\xbb\xbf", "\xef\xbb", "\xef"]))
    for line in lines:
        out += line + draw(_BREAK)
    if draw(st.booleans()) and out:
        out = out[: draw(st.integers(0, len(out)))]  # end anywhere: mid-line, no final break
    return out.encode("latin-1")


# Raw byte pieces, freely mixed: anything the structured lines above miss.
_PIECES = st.sampled_from(
    [
        b"User-agent",
        b"user agent",
        b"useragent",
        b"Allow",
        b"disallow",
        b"Disalow",
        b"Disallaw",
        b"Diasllow",
        b"agent",
        b"ll",
        b"alo",
        b":",
        b" ",
        b"\t",
        b"\x0b",
        b"\x0c",
        b"\x00",
        b"#",
        b"\n",
        b"\r",
        b"\r\n",
        b"/",
        b"*",
        b"x",
        b"x y",
        b"\xc3\xa9",
        b"\xff",
        b"\xef\xbb\xbf",
    ]
)


@pytest.mark.slow
@settings(max_examples=3000, deadline=None)
@given(_robots_txt())
@example(b"")
@example(b"User-agent: a\nDisallow: /x\nUser-agent: b\n")
@example(b"Disallow: /pre\nUser-agent: a\nuser agent: b\nAllow:\nUseragent c\nDisalow /x\n")
@example(b"User-agent: a\n# Disallow: /x\nNoindex: /gallery\nUser-agent: b\nDisallaw /\n")
@example(b"User-agent: a\nDiasllow\nUser-agent: b\n")  # no value, no colon: INVALID, not a rule
@example(b"User-agent: a\nDiasllow:\nUser-agent: b\n")  # empty rule: still ends the group
@example(b"User-agent: a\rDisallow: /x\r\nUser-agent: b\r")
@example(b"\xef\xbb\xbfUser-agent: a\nAllow: /\x0b\nUser-agent:\x0cb\n")
@example(b"User-agent: a\nDisallow: /x\x00\nUser-agent: b\x00c\nAllow: /\x00\n")
def test_skeleton_equals_parse(data: bytes) -> None:
    """Property: groups (agents, rules with line numbers) and preamble equal parse_file's."""
    _assert_same(data)


# Block lists: long runs of user-agent lines (read in bulk by the skeleton) broken up by
# spellings off that path, comments, blank lines and rules.
_RUN_LINE = st.sampled_from(
    [
        "User-agent: GPTBot",
        "user-agent:CCBot",
        "USER-AGENT:  x y ",
        "User-Agent:",
        "User-agent: a # note",
        "User-agent: #",
        "User-agent: a\x0b",
        "User-agent:\tb\t",
        "User-agent: é/1.0",
        " User-agent: c",
        "User-agent : d",
        "Useragent: e",
        "User agent: f",
        "User-agent g",
        "User-agentX: h",
        "User-agent: i:j",
        "#User-agent: k",
        "",
        "Disallow: /",
        "Disallow:",
        "Allow: /agent",
        "Disalow /x",
        "Noindex: /user-agent:",
        "Sitemap: /s.xml",
    ]
)


@pytest.mark.slow
@settings(max_examples=2000, deadline=None)
@given(st.lists(_RUN_LINE, max_size=40), st.sampled_from(["\n", "\r\n", "\r"]), st.booleans())
def test_skeleton_equals_parse_on_block_lists(lines: list[str], newline: str, final_break: bool) -> None:
    """Property: runs of user-agent lines, with or without a final line break, as parse_file."""
    text = newline.join(lines) + (newline if final_break else "")
    _assert_same(text.encode("latin-1"))


# Rule lines for big rule regions (4 KiB and more are read by `_uniform_rules` when every line
# is `Disallow: VALUE`, or every one `Allow: VALUE`): mostly such lines, and every way a line can
# read otherwise (another key's spelling, no space or two, whitespace or `#` in the value, a
# blank line, the other kind, a value holding a key).
_UNIFORM_VALUE = st.text(alphabet="/*$ab:\x85\xa0Dl", max_size=12)  # (whitespace comes from _ODD_RULE_LINE)
_ODD_RULE_LINE = st.sampled_from(
    [
        "",
        "# c",
        "Disallow:/x",
        "Disallow:  /x",
        "disallow: /x",
        "Disallow : /x",
        " Disallow: /x",
        "Allow: /y",
        "Disallow: /x # c",
        "Disallow: /x\t",
        "Disallow: /x ",
        "Disallow: \x0c/x",
        "Allow:",
        "Disallow: /a\x0bb",
        "Disallow: Disallow: /z",
        "Sitemap: /s",
        "Crawl-delay: 1",
    ]
)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(["Disallow", "Allow"]),
    st.lists(_UNIFORM_VALUE, min_size=1, max_size=30),
    st.lists(st.tuples(st.integers(0, 400), _ODD_RULE_LINE), max_size=2),
    st.integers(520, 900),  # 4 KiB and more, however short the lines
    st.sampled_from(["\n", "\r\n"]),
    st.booleans(),
)
def test_skeleton_equals_parse_on_big_rule_lists(
    key: str,
    values: list[str],
    odd: list[tuple[int, str]],
    count: int,
    newline: str,
    final_break: bool,
) -> None:
    """Property: a group of hundreds of rule lines (read in bulk when they are all written alike)
    reads as parse_file reads it, whatever line breaks the run."""
    lines = [f"{key}: {values[i % len(values)]}" for i in range(count)]
    for where, line in odd:
        lines.insert(min(where, len(lines)), line)
    text = "User-agent: *" + newline + newline.join(lines) + (newline if final_break else "")
    _assert_same(text.encode("latin-1"))


@pytest.mark.slow
@settings(max_examples=2000, deadline=None)
@given(st.lists(_PIECES, max_size=40).map(b"".join))
def test_skeleton_equals_parse_on_raw_pieces(data: bytes) -> None:
    """Property: the same over free byte soup (keys split by breaks, NULs, stray BOM bytes)."""
    _assert_same(data)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(_robots_txt())
def test_skeleton_equals_parse_on_text(data: bytes) -> None:
    """Property: `str` input (encoded as UTF-8 by both) gives the same groups and preamble."""
    _assert_same(data.decode("latin-1"))


@settings(max_examples=30, deadline=None)
@given(_robots_txt(), st.integers(0, 40), st.sampled_from([b"\x00", b""]))
def test_skeleton_equals_parse_with_long_lines(data: bytes, where: int, nul: bytes) -> None:
    """Property: a file with an over-long line is read with every line cut, as the parser does."""
    lines = data.split(b"\n")
    where %= len(lines)
    lines[where] = lines[where] + b"/" * MAX_LINE_BYTES + nul + b"User-agent: z"
    _assert_same(b"\n".join(lines))


def test_long_line_edges() -> None:
    """Lines of exactly the cap and one byte more (cut by the parser), CRLF or LF, first,
    middle or last line, and a NUL: the skeleton cuts exactly the lines the parser cuts."""
    for extra in (-1, 0, 1, 2):
        rule = b"Disallow: /" + b"x" * (MAX_LINE_BYTES - len(b"Disallow: /") + extra)
        agent = b"User-agent: " + b"y" * (MAX_LINE_BYTES - len(b"User-agent: ") + extra)
        for data in (
            rule + b"\nUser-agent: a\nAllow: /x\n" + rule,
            b"User-agent: a\n" + rule + b"\nUser-agent: b\nDisallow: /y\n",
            b"User-agent: a\n" + rule,
            b"User-agent: a\r\n" + rule + b"\r\nUser-agent: b\r\nDisallow: /y",
            agent + b"\nUser-agent: q\nDisallow: /z\n" + agent + b"\nAllow: /w",
            b"User-agent: a\nDisallow: /n\x00ul\n" + rule[:100] + b"\nUser-agent: b\x00c\n",
        ):
            _assert_same(data)


@pytest.mark.slow
def test_size_limit_and_max_bytes() -> None:
    """The size limit (a line cut by it dropped) and `max_bytes` (never below 500 KiB) as parse_file."""
    block = b"User-agent: bot%d\nDisallow: /g%d/\nAllow: /g%d/ok # agent allow\n\n"
    data = b"".join(block.replace(b"%d", str(n).encode()) for n in range(20_000))
    assert len(data) > 2 * DEFAULT_MAX_BYTES
    skeleton = _assert_same(data)
    assert 1000 < len(skeleton.groups) < 20_000  # cut by the limit
    _assert_same(data, max_bytes=DEFAULT_MAX_BYTES + 12_345)
    _assert_same(data, max_bytes=10)  # raised to the minimum
    _assert_same(data, max_bytes=len(data))


def test_rules_are_lazy_and_cached() -> None:
    data = b"User-agent: a\nDisallow: /a\n\nUser-agent: b\nUser-agent: c\nAllow: /b\nDisallow: /c # x\n"
    skeleton = read_skeleton(data)
    assert len(skeleton.groups) == 2
    second = skeleton.groups[1]
    assert isinstance(second, SkeletonGroup)
    assert second.agents == ((4, "b"), (5, "c"))
    assert second._rules is None  # not read before it is asked for
    rules = second.rules
    assert rules == ((6, True, "/b"), (7, False, "/c"))
    assert second.rules is rules
    assert skeleton.groups[0]._rules is None


@pytest.mark.slow
def test_corpus() -> None:
    """Every corpus file: groups and preamble equal parse_file's."""
    require_shared()
    files = sorted((CORPUS / "files").glob("*.txt"))
    assert len(files) > 5000
    for path in files:
        _assert_same(path.read_bytes())
