"""The lexer's all-ASCII path (with its FAST_KEYS shortcut) gives exactly the events of the general path."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from robotskit.core.lexer import FAST_KEYS, lex

CORPUS = (Path(__file__).resolve().parents[2] / ".." / "shared" / "corpus" / "files").resolve()


def test_ascii_files_lex_as_the_general_path_does() -> None:
    """For every ASCII corpus file, `lex` equals the general path, forced by one non-ASCII line at
    the end (which leaves every earlier line's event unchanged)."""
    if not CORPUS.is_dir():
        pytest.skip(f"shared corpus not found at {CORPUS}")
    checked = 0
    for path in sorted(CORPUS.glob("*.txt"))[::7]:
        body = path.read_bytes()
        if not body.isascii() or b"\r" in body[-2:] or len(body) > 200_000:
            continue
        separator = b"" if body.endswith((b"\n", b"\r")) or not body else b"\n"
        general = lex(body + separator + "# caf\u00e9\n".encode())
        assert lex(body) == general[:-1], path.name
        checked += 1
    assert checked > 500


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from([*sorted(FAST_KEYS), "Dissalow", "user agent", "Foo", "", " "]),
            st.sampled_from(["", ":"]),
            st.lists(
                st.sampled_from([" ", "\t", "\x0b", "#", ":", "/", "a", "*", "$", "x y", "\x00"]), max_size=6
            ).map("".join),
        ),
        min_size=1,
        max_size=8,
    )
)
@example([("", "", "")])  # an empty body (found by Hypothesis)
def test_fast_key_lines_lex_as_the_general_path_does(lines: list[tuple[str, str, str]]) -> None:
    """Property: lines split on the FAST_KEYS shortcut (any spacing, comments, colons, NULs in the
    value, empty values) give the events the general path's `lex_line` gives."""
    body = "\n".join(key + colon + rest for key, colon, rest in lines).encode()
    # one extra line, never two; an empty body is one empty line, as b"\n" is
    separator = b"" if body.endswith(b"\n") else b"\n"
    general = lex(body + separator + "# caf\u00e9\n".encode())
    assert lex(body) == general[:-1]


def test_a_line_event_is_an_immutable_record_with_named_fields() -> None:
    """`robotskit.Line` is a named tuple (cheap to build, one per physical line): its fields read
    by name with their defaults, and it cannot be changed in place."""
    first, second = lex(b"Disallow: /x # why\nfoo\n")
    assert (first.number, first.kind.value, first.key, first.value) == (1, "disallow", "Disallow", "/x")
    assert (first.key_column, first.value_column, first.has_comment) == (1, 11, True)
    assert (second.number, second.kind.value, second.raw, second.typo, second.invalid_utf8) == (
        2,
        "invalid",
        "foo",
        False,
        False,
    )
    with pytest.raises(AttributeError):
        first.value = "/y"  # type: ignore[misc]
    assert first._replace(value="/y").value == "/y" and first.value == "/x"
