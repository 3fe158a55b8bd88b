"""The literal filter (`core.literal_filter`) drops only rules that cannot match, and the trie that
consults it (`core.wildcards.WildcardTrie`) still decides exactly.

The q-grams are checked against the bytes they stand for, the survivors against a backtracking
regular expression per pattern (no code shared with the filter or the greedy matcher), and the
trie with the filter forced on for every path against the same reference.
"""

from __future__ import annotations

import random
from typing import Any
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robotskit.core import literal_filter as _literal_filter
from robotskit.core import wildcards as _wildcards
from robotskit.core.literal_filter import ALWAYS, LiteralFilter, literal_keys, path_grams
from robotskit.core.memo import LastAt
from robotskit.core.model import Rule, RuleKind
from robotskit.core.wildcards import FILTER_WAIT, FILTER_WALKS, WildcardTrie
from tests.core.glob_reference import reference_best, regex_matches

# The mypyc build calls its own methods natively: spies patched onto the class never see them.
_needs_spies = pytest.mark.skipif(
    _wildcards.__file__ is None or not _wildcards.__file__.endswith(".py"),
    reason="spies on calls inside a module the mypyc build compiled",
)

# Characters of one, two, three and four UTF-8 bytes, and a lone surrogate (a google-profile path
# is the URL as given): a gram may start or end inside a character.
_CHAR = st.sampled_from(["a", "b", "c", "1", "2", "/", "$", "é", "字", "\U0001f600", "\udc80"])
_TEXT = st.lists(_CHAR, max_size=40).map("".join)


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


@settings(max_examples=500, deadline=None)
@given(_TEXT, _TEXT, st.sampled_from([3, 4]))
def test_a_literal_key_is_in_the_grams_exactly_when_its_bytes_are_in_the_path(
    path: str, literal: str, size: int
) -> None:
    """Property: the grams are the path's `size`-byte substrings, by position; a literal's key is
    one of them iff the literal's first `size` bytes occur in the path's bytes; a literal shorter
    than that has the key ALWAYS."""
    grams = path_grams(path, size)
    data = _utf8(path)
    assert grams == [data[i : i + size] for i in range(len(data) - size + 1)]
    (key,) = literal_keys([literal], size)
    head = _utf8(literal)[:size]
    if len(head) < size:
        assert key == ALWAYS
    else:
        assert key == head
        assert (key in grams) is (head in data)


@settings(max_examples=300, deadline=None)
@given(_TEXT, st.integers(0, 40), st.integers(0, 40), st.sampled_from([3, 4]))
def test_every_substring_of_the_path_passes(path: str, start: int, stop: int, size: int) -> None:
    """Property: a literal cut from the path (on character bounds) always has its key among the
    grams, or the key ALWAYS."""
    (key,) = literal_keys([path[start:stop]], size)
    assert key == ALWAYS or key in path_grams(path, size)


_LITERAL = st.lists(st.sampled_from(["a", "b", "1", "2", "é", "字"]), max_size=5).map("".join)
_PATTERN = st.builds(
    lambda head, pieces, anchor: head + "*".join(pieces) + anchor,
    st.sampled_from(["/", "/a", "/*", "/b1"]),
    st.lists(_LITERAL, min_size=1, max_size=9),
    st.sampled_from(["", "", "$"]),
)
_PATH = st.lists(st.sampled_from(["a", "b", "1", "2", "é", "字", "/", "ab12", "é字a"]), max_size=30).map(
    lambda pieces: "/" + "".join(pieces)
)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(_PATTERN, min_size=1, max_size=30),
    _PATH,
    st.integers(0, 40),
    st.sampled_from([0.25, 1.0]),
    st.sampled_from([0.5, 0.9, 1.0]),
    st.sampled_from([1, 3, 256]),
    st.sampled_from([1, 16]),
)
def test_survivors_hold_every_rule_that_matches(
    patterns: list[str], path: str, limit: int, share: float, keep: float, rows: int, short: int
) -> None:
    """Property: the filter's survivors (when it gives any) are ascending, within the limits it was
    given, and hold every rule whose pattern matches the path; so do they on a second path, whose
    survivors need the rows of keys the first one made and more, whatever the budget of rows a
    check makes (`rows`), with the last literals one byte short of a gram keyed by themselves
    (`short`: from how many such rules) or not."""
    with (
        mock.patch.object(_literal_filter, "ROWS", rows),
        mock.patch.object(_literal_filter, "SHORT_RULES", short),
    ):
        _survivors_hold_every_rule_that_matches(patterns, path, limit, share, keep)


def _survivors_hold_every_rule_that_matches(
    patterns: list[str], path: str, limit: int, share: float, keep: float
) -> None:
    literal_filter = LiteralFilter(patterns)
    literal_filter.worth_trying(path)  # (whatever it says: it chooses the gram size)
    assert literal_filter.size in (3, 4)
    size = literal_filter.size
    survivors = literal_filter.survivors(path_grams(path, size), limit, share, keep, _utf8(path))
    matching = [i for i, pattern in enumerate(patterns) if regex_matches(pattern, path)]
    if survivors is not None:
        assert survivors == sorted(set(survivors))
        assert len(survivors) <= min(limit, int(len(patterns) * share))
        assert set(matching) <= set(survivors)
    everything = literal_filter.survivors(path_grams(path, size), len(patterns), 1.0, 1.0)
    assert everything is not None and set(matching) <= set(everything)
    with_bytes = literal_filter.survivors(path_grams(path, size), len(patterns), 1.0, 1.0, _utf8(path))
    assert with_bytes is not None and set(matching) <= set(with_bytes)
    other = "/" + path[:0:-1] + patterns[-1].replace("*", "").rstrip("$")  # (another rule's literals)
    matching = [i for i, pattern in enumerate(patterns) if regex_matches(pattern, other)]
    survivors = literal_filter.survivors(path_grams(other, size), len(patterns), 1.0, 1.0, _utf8(other))
    assert survivors is not None and set(matching) <= set(survivors)


def test_last_literals_one_byte_short_of_a_gram_are_tested_on_the_path() -> None:
    """With 4-byte grams, rules whose last literal is 3 bytes are kept only when the path holds
    that literal (not all kept, as a literal shorter than the gram is), found by the path's 3-byte
    grams, the path's last three bytes included."""
    patterns = [f"/*c*ab*{i}x" for i in range(300)]  # 10 of 2 bytes, 90 of 3, 200 of 4
    literal_filter = LiteralFilter(patterns)
    path = "/cab" + "q" * 300 + "12x" + "q" * 300 + "45x"
    assert literal_filter.worth_trying(path) and literal_filter.size == 4
    survivors = literal_filter.survivors(path_grams(path, 4), 300, 1.0, 1.0, _utf8(path))
    assert survivors is not None
    assert {12, 45} <= set(survivors) and set(survivors) <= {*range(10), 12, 45}
    assert set(range(10, 100)) <= set(literal_filter.survivors(path_grams(path, 4), 300, 1.0, 1.0) or ())


def test_a_last_literal_shorter_than_a_gram_gives_way_to_the_literal_before_it() -> None:
    """A rule whose last literal is shorter than a gram (it tests nothing) is keyed by the literal
    before it when that is longer: such rules no longer make the filter look useless."""
    patterns = [f"/*x*k{i:03d}z*ab" for i in range(200)]
    literal_filter = LiteralFilter(patterns)
    path = "/x" + "q" * 100 + "k042z" + "q" * 100 + "ab"
    assert literal_filter.worth_trying(path) and literal_filter.size == 4
    assert literal_filter.survivors(path_grams(path, 4), 200, 1.0, 0.5, _utf8(path)) == [42]


def test_short_last_literals_the_path_lacks_leave_the_rules_to_the_bulk_test() -> None:
    """When most rules end on a literal too short for a gram that the path lacks, the bulk tail
    test rejects them at once: the filter, which cannot test those literals, is not tried (even
    with its index built), though it would be on a path that holds them."""
    literal_filter = LiteralFilter([f"/*a*{i}*b" for i in range(1000)])
    assert literal_filter.worth_trying("/" + "a" * 300 + "b")  # (builds nothing yet)
    literal_filter.survivors(path_grams("/" + "a" * 300 + "b", literal_filter.size), 1000, 1.0, 1.0)
    assert literal_filter._first is not None
    assert not literal_filter.worth_trying("/" + "a" * 4999)


def test_a_sample_of_last_literals_tells_whether_the_filter_may_pay() -> None:
    """Before any index is built, the filter tries a path against a sample of the rules' last
    literals: a path holding them (near misses built from it) is not worth filtering, one lacking
    them is; the first sample picks 4-byte grams for long last literals, 3-byte ones for short."""
    rng = random.Random(5)
    path = "/" + "".join(rng.choice("abcdefgh") for _ in range(2000))
    near = LiteralFilter([f"/*{path[i : i + 3]}*{path[i + 7 : i + 12]}" for i in range(1, 500)])
    assert not near.worth_trying(path) and near.size == 4
    assert near._first is None  # (nothing built for it)
    numbered = LiteralFilter([f"/*a*zz{i}" for i in range(500)])
    assert numbered.worth_trying(path) and numbered.size == 4
    short = LiteralFilter([f"/*{path[i : i + 3]}*xyz" for i in range(500)])
    assert short.worth_trying(path) and short.size == 3


def _rules(patterns: list[tuple[str, bool]]) -> list[Rule]:
    return [
        Rule(i + 1, RuleKind.ALLOW if allow else RuleKind.DISALLOW, pattern)
        for i, (pattern, allow) in enumerate(patterns)
    ]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(_PATTERN, st.booleans()), min_size=1, max_size=24),
    st.lists(_PATH, min_size=1, max_size=6),
    st.sampled_from([0, 1, 4, 64]),
    st.sampled_from([0.5, 1.0]),
)
def test_trie_with_the_filter_on_every_path_equals_reference(
    patterns: list[tuple[str, bool]], paths: list[str], walks: int, keep: float
) -> None:
    """Property: with the filter consulted on every path (however short), answering whenever it
    leaves at most `walks` rules and backing off otherwise, the trie's answer is the reference's."""
    rules = [rule for rule in _rules(patterns) if "*" in rule.pattern]
    if not rules:
        return
    trie = WildcardTrie.of_pairs([(rule.pattern, key) for key, rule in enumerate(rules)], rules.__getitem__)
    with (
        mock.patch.object(_wildcards, "FILTER_PATH", 0),
        mock.patch.object(_wildcards, "FILTER_WALKS", walks),
        mock.patch.object(_wildcards, "FILTER_SHARE", 1.0),
        mock.patch.object(_wildcards, "FILTER_KEEP", keep),
        mock.patch.object(_wildcards, "FILTER_WAIT", 1),
        mock.patch.object(_wildcards, "FILTER_WAIT_MAX", 2),
    ):
        for path in paths * 4:
            assert trie.best(path, None, LastAt()) == reference_best(rules, path), path


def _numbered(count: int, seed: int) -> tuple[list[Rule], str]:
    """`count` rules `/*ab*cd<i>` of random pairs (as a generator of hostile files writes them),
    and a random 5,000-character path over their characters."""
    rng = random.Random(seed)
    chars = "abcdefghijklmnopqrstuvwxyz0123456789"

    def pair() -> str:
        return rng.choice(chars) + rng.choice(chars)

    rules = _rules([(f"/*{pair()}*{pair()}{i}", i % 3 == 0) for i in range(count)])
    return rules, "/" + "".join(rng.choice(chars) for _ in range(4999))


@_needs_spies
def test_numbered_rules_on_a_long_path_are_answered_by_the_filter() -> None:
    """1,000 `/*ab*cd<i>` rules on a random 5,000-character path: the filter leaves a few, whose
    walk answers the check, so the bulk tail test never runs and the trie never grows; a path
    that holds one rule's literals in order is disallowed by that rule."""
    rules, path = _numbered(1000, 15)
    trie = WildcardTrie.of_pairs([(rule.pattern, key) for key, rule in enumerate(rules)], rules.__getitem__)
    walked: list[int] = []
    real_walk = WildcardTrie._walk_raw

    def walk(self: WildcardTrie, indexes: list[int], *args: Any) -> Rule | None:
        walked.append(len(indexes))
        return real_walk(self, indexes, *args)

    with (
        mock.patch.object(WildcardTrie, "_walk_raw", walk),
        mock.patch.object(WildcardTrie, "_tails", side_effect=AssertionError("the bulk tail test ran")),
    ):
        for n in range(20):
            probe = path[: 4000 + n] + "-" + str(n)
            assert trie.best(probe, None, LastAt()) == reference_best(rules, probe)
        target = rules[777]
        planted = path + "/" + target.pattern[2:].replace("*", "/")
        expected = reference_best(rules, planted)
        assert expected is not None and len(expected.pattern) >= len(target.pattern)
        assert trie.best(planted, None, LastAt()) == expected
    assert len(walked) == 21 and max(walked) <= FILTER_WALKS
    assert trie._entered == 0  # (the trie was not grown: nothing was split into it)


@_needs_spies
def test_the_filter_backs_off_where_the_path_holds_every_literal() -> None:
    """Near misses built from the path keep every rule: the filter gives up after its first pass,
    waits FILTER_WAIT checks, then twice as long after each further failure, and starts over
    after a check it answers."""
    rng = random.Random(3)
    path = "/" + "".join(rng.choice("abcdefgh") for _ in range(999))
    near = _rules([(f"/*{path[500 + i : 504 + i]}*{path[i : i + 5]}", False) for i in range(1, 301)])
    trie = WildcardTrie.of_pairs([(rule.pattern, key) for key, rule in enumerate(near)], near.__getitem__)
    asked: list[bool] = []
    real = WildcardTrie._filtered

    def spy(self: WildcardTrie, path: str, memo: LastAt) -> list[int] | None:
        asked.append(True)
        return real(self, path, memo)

    with mock.patch.object(WildcardTrie, "_filtered", spy):
        trie.best(path, None, LastAt())
        assert trie._filter_wait == FILTER_WAIT
        for _ in range(FILTER_WAIT):
            trie.best(path, None, LastAt())
        assert len(asked) == 1 and trie._filter_wait == 0
        trie.best(path, None, LastAt())  # fails again: twice the wait
        assert len(asked) == 2 and trie._filter_wait == 2 * FILTER_WAIT
        trie._filter_wait = 0
        other = "/" + "".join(rng.choice("ijkl") for _ in range(999))
        assert trie.best(other, None, LastAt()) is None  # no rule's literals: every rule out
        assert len(asked) == 3 and trie._filter_waited == 0
