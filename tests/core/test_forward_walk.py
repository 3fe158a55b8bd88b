"""Many wildcard patterns walked forward at once (`core.forward_walk`) match exactly as each alone.

The reference shares no code with the walk: each pattern as a backtracking regular expression
(`tests.core.glob_reference`). Tiny alphabets make literals occur, repeat and overlap; the table
branch (occurrences read from a table of the path's substrings by bisect) is forced with a
threshold of one literal, the `find` branch with a threshold no pass reaches.
"""

from __future__ import annotations

from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robotskit.core import forward_walk as _forward_walk
from robotskit.core.forward_walk import ForwardWalk
from robotskit.core.glob import pattern_matches
from tests.core.glob_reference import regex_matches

# The mypyc build (docs/benchmarks.md) calls its own functions natively: a spy patched onto the
# module never sees those calls, so the test that counts them runs on the pure-Python build only.
_needs_spies = pytest.mark.skipif(
    not (_forward_walk.__file__ or "").endswith(".py"), reason="spies on calls inside a compiled module"
)

_PIECE = st.sampled_from(["a", "b", "ab", "ba", "aa", "bb", "", "/", "$", "abab", "b/a"])
_PATTERN = st.builds(
    lambda head, pieces, anchor: head + "*".join(pieces) + anchor,
    st.sampled_from(["/", "/a", "", "/*", "/b", "/ab"]),
    st.lists(_PIECE, min_size=0, max_size=8),
    st.sampled_from(["", "", "$"]),
).filter(lambda p: p[:1] in ("/", "*"))
_PATH = st.lists(st.sampled_from(["a", "b", "/", "ab", "$", "*", "ba"]), max_size=16).map(
    lambda p: "/" + "".join(p)
)


@settings(max_examples=600, deadline=None)
@given(st.lists(_PATTERN, min_size=1, max_size=24), _PATH, st.sampled_from([1, 3, 10**9]), st.integers(1, 4))
def test_forward_walk_equals_each_pattern_alone(
    patterns: list[str], path: str, table_literals: int, table_length: int
) -> None:
    """Property: the patterns the walk finds matching are exactly those the reference matches,
    through the `find` branch and the table branch (with tables for literals of up to
    `table_length` characters), `$`-anchored patterns and exact `$` patterns included."""
    with (
        mock.patch.object(_forward_walk, "TABLE_LITERALS", table_literals),
        mock.patch.object(_forward_walk, "TABLE_LENGTH", table_length),
    ):
        walk = ForwardWalk(patterns)
        found = walk.matching(path, range(len(patterns)))
    assert found is not None
    assert sorted(found) == [i for i, pattern in enumerate(patterns) if regex_matches(pattern, path)]


@settings(max_examples=200, deadline=None)
@given(st.lists(_PATTERN, min_size=1, max_size=12), _PATH, st.data())
def test_forward_walk_of_some_patterns_and_past_its_deadline(
    patterns: list[str], path: str, data: st.DataObject
) -> None:
    """Property: walking a subset finds the matching patterns of that subset only; past its
    deadline, a walk that still has patterns to walk says None (the caller answers otherwise)."""
    some = data.draw(st.lists(st.integers(0, len(patterns) - 1), unique=True))
    walk = ForwardWalk(patterns)
    assert sorted(walk.matching(path, some) or []) == sorted(
        i for i in some if regex_matches(patterns[i], path)
    )
    late = walk.matching(path, range(len(patterns)), deadline=1)
    assert late is None or sorted(late) == [i for i, p in enumerate(patterns) if regex_matches(p, path)]
    if any(_walked(pattern) and path.startswith(pattern.partition("*")[0]) for pattern in patterns):
        assert late is None  # (a pattern was left to walk: the first pass saw the deadline)


def _walked(pattern: str) -> int:
    """How many literals the walk looks for in the path for `pattern` (after its head; a `$`
    pattern's final is tested at the end instead)."""
    anchored = pattern.endswith("$")
    pieces = (pattern[:-1] if anchored else pattern).split("*")
    return len(pieces) - 1 - (anchored and len(pieces) > 1)


@_needs_spies
def test_random_two_letter_literals_are_read_from_a_table() -> None:
    """1,000 patterns of 50 random two-letter literals against a random path: each pass asks for
    hundreds of literals of two letters, read from one table of the path's bigrams, and the
    patterns that match are exactly those the greedy matcher matches one by one (`glob`, which the
    trie's tests hold to the regular expressions; these would backtrack for hours here)."""
    import random

    rng = random.Random(7)
    letters = "abcdefghij"
    patterns = [
        "/*" + "*".join(rng.choice(letters) + rng.choice(letters) for _ in range(rng.randint(5, 50)))
        for _ in range(1000)
    ]
    path = "/" + "".join(rng.choice(letters) for _ in range(3000))
    with mock.patch.object(_forward_walk, "_substring_table", wraps=_forward_walk._substring_table) as tables:
        found = ForwardWalk(patterns).matching(path, range(len(patterns)))
    assert found is not None
    assert sorted(found) == [i for i, pattern in enumerate(patterns) if pattern_matches(pattern, path)]
    assert tables.call_count == 1
