"""The flat index of big rule sets (`pattern._Flat`) decides exactly as a scan of every rule does.

Its thresholds are forced low here so that small random rule sets take every branch: the flat
dict with equal patterns, the chunks of wildcard and `$` rules built one per check, and the
character-filtered scan of the rules no chunk holds yet.
"""

from __future__ import annotations

import threading
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

import robotskit
from robotskit.core import pattern as _pattern
from robotskit.core.model import Rule, RuleKind
from robotskit.core.pattern import RuleSet, pattern_matches
from tests.core.glob_reference import reference_best

_PATTERN = st.lists(st.sampled_from(["/", "a", "b", "*", "$", "ab", "\u00e9"]), min_size=0, max_size=6).map(
    lambda p: "/" + "".join(p)
) | st.sampled_from(["", "*", "*a", "a", "$", "/$", "*$"])
_PATH = st.lists(st.sampled_from(["/", "a", "b", "$", "*", "\u00e9", "\n"]), max_size=10).map(
    lambda p: "/" + "".join(p)
)


def _reference(rules: list[Rule], path: str) -> Rule | None:
    """Slow reference (SPEC 3): every rule tried with the plain greedy matcher."""
    return reference_best(rules, path, pattern_matches)


def _forced(chunk: int, index_after: int, paths: str = "short", few: int = 16) -> mock._patch_default_new:  # type: ignore[name-defined]
    """`paths`: "short" as they are; "long" or "long, trie": every path taken as long, so that a
    flat index with a rule of two `*` or more answers its `/*X` rules from the path's character
    filter, or ("long, trie") from its long-path trie however few the filter leaves. `few`: how
    many rules the character filter leaves before they are tested on their literals first."""
    loose: dict[str, int] = {}
    if paths != "short":
        loose = {"LONG_PATH": 0, "LOOSE_TRIE_RULES": 1, "LONG_PATH_WALKS": -1 if "trie" in paths else 64}
    return mock.patch.multiple(
        _pattern, BIG_SET=0, SPECIAL_CHUNK=chunk, INDEX_AFTER=index_after, FEW_CANDIDATES=few, **loose
    )


@settings(max_examples=1500, deadline=None)
@given(
    st.lists(st.tuples(_PATTERN, st.booleans()), min_size=1, max_size=14),
    st.lists(_PATH, min_size=1, max_size=8),
    st.integers(1, 4),
    st.integers(1, 3),
    st.sampled_from(["short", "long", "long, trie"]),
    st.sampled_from([0, 16]),
    st.sampled_from(["ascending", "descending", "repeated"]),
)
def test_flat_index_equals_scan(
    patterns: list[tuple[str, bool]],
    paths: list[str],
    chunk: int,
    index_after: int,
    taken_as: str,
    few: int,
    lines: str,
) -> None:
    """Property: the flat index (plain and deferred sets, the latter with and without the rules as
    read, every chunk state, paths taken as short or as long, the rules the character filter
    leaves tested on their literals first or not) returns the rule a full scan picks, check
    after check. `lines`: the rules' lines in position order, against it (equal patterns are then
    ranked rule by rule), or with repeats (a line may hold two rules: Google's derived ones)."""
    count = len(patterns)
    numbers = {
        "ascending": range(1, count + 1),
        "descending": range(count, 0, -1),
        "repeated": [1 + i // 2 for i in range(count)],
    }[lines]
    rules = [
        Rule(line, RuleKind.ALLOW if allow else RuleKind.DISALLOW, p)
        for line, (p, allow) in zip(numbers, patterns, strict=True)
    ]
    raws = [(rule.line, rule.allow, rule.pattern) for rule in rules]
    with _forced(chunk, index_after, taken_as, few):
        plain = RuleSet(rules)
        joined = "\n".join(r.pattern for r in rules)
        deferred = RuleSet.deferred(joined, lambda: rules, lambda i, pattern: rules[i])
        ranked = RuleSet.deferred(joined, lambda: rules, lambda i, pattern: rules[i], None, raws)
        for path in paths * 3:  # repeated: chunks are indexed while the checks go on
            expected = _reference(rules, path)
            found = [plain.best(path), deferred.best(path), ranked.best(path)]
            if lines != "ascending":
                # (the tries walk rules in position order, which a rule set's lines follow: against
                # it, only which of equally long allow rules is reported may differ, not the
                # verdict; nor is it told which of two equally long rules of one kind on one line,
                # which no file holds, is reported)
                assert [rule and rule.allow for rule in found] == [expected and expected.allow] * 3, path
            else:
                assert found == [expected] * 3, path
        assert deferred._flat is not None and ranked._flat is not None
        assert (plain._flat is not None) is (plain.size > 0)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(["Allow", "Disallow"]), _PATTERN), max_size=12),
    st.lists(_PATH.filter(lambda p: "\n" not in p), min_size=1, max_size=6),
    st.sampled_from(["rfc9309", "google", "gemini"]),
)
def test_flat_index_allowed_equals_decide(
    lines: list[tuple[str, str]], paths: list[str], profile: str
) -> None:
    """Property: through `allowed`, with big-set thresholds forced low, every verdict is `decide`'s
    on a parse with the ordinary index."""
    body = "User-agent: *\n" + "".join(f"{kind}: {value}\n" for kind, value in lines)
    expected = {path: robotskit.parse(body, profile).decide(path).allowed for path in paths}
    with _forced(1, 2):
        robots = robotskit.parse(body, profile)
        for path in paths * 3:
            assert robots.allowed(path) is expected[path], path


def test_flat_index_from_threads_equals_scan() -> None:
    """Eight threads racing on one big rule set while its chunks are being indexed get the scan's answers."""
    rules = [
        Rule(i + 1, RuleKind.ALLOW if i % 3 == 0 else RuleKind.DISALLOW, pattern)
        for i, pattern in enumerate(
            [f"/p{i % 40}" for i in range(300)]
            + [f"/*{i % 7}a*b{i % 11}" for i in range(200)]
            + [f"/q{i}$" for i in range(50)]
        )
    ]
    paths = [f"/{head}{i}a/b{i % 11}" for i in range(40) for head in ("p", "x", "q")] + [
        f"/q{i}" for i in range(50)
    ]
    expected = {path: _reference(rules, path) for path in paths}
    with mock.patch.multiple(_pattern, SPECIAL_CHUNK=16):
        index = RuleSet(rules)
        wrong: list[str] = []

        def run(offset: int) -> None:
            for i in range(len(paths)):
                path = paths[(i * 5 + offset) % len(paths)]
                if index.best(path) != expected[path]:
                    wrong.append(path)

        threads = [threading.Thread(target=run, args=(n,)) for n in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert index._flat is not None
    assert wrong == []


@settings(max_examples=800, deadline=None)
@given(st.lists(st.tuples(_PATTERN, st.booleans()), max_size=14), st.lists(_PATH, min_size=1, max_size=6))
def test_index_without_literal_pretest_equals_scan(
    patterns: list[tuple[str, bool]], paths: list[str]
) -> None:
    """Property: past MAX_NEEDLE_CHARS the `/*X` rules are tried one by one, with the same answers."""
    rules = [
        Rule(i + 1, RuleKind.ALLOW if allow else RuleKind.DISALLOW, p)
        for i, (p, allow) in enumerate(patterns)
    ]
    with mock.patch.multiple(_pattern, MAX_NEEDLE_CHARS=0, INDEX_AFTER=1):
        index = RuleSet(rules)
        for path in paths:
            assert index.best(path) == _reference(rules, path), path


@settings(max_examples=500, deadline=None)
@given(
    st.lists(_PATTERN, max_size=5),
    st.lists(_PATTERN, min_size=1, max_size=12),
    _PATH,
    st.integers(0, 50),
)
def test_characters_filter_keeps_every_match(
    before: list[str], patterns: list[str], path: str, start: int
) -> None:
    """Property: the character filter over the special text from an offset (UTF-8 bytes, one
    `bytes.translate`) keeps every pattern that matches, and every pattern whose characters the
    path holds; the literal test keeps every pattern that matches."""
    text = "\n".join([*before, *patterns]).encode("utf-8")
    offset = len("".join(f"{p}\n" for p in before).encode("utf-8"))
    held = _pattern.holding_every_character(path, start, text, offset)
    assert held == sorted(set(held)) and all(start <= i < start + len(patterns) for i in held)
    for i, pattern in enumerate(patterns):
        matches = pattern_matches(pattern, path)
        if matches or set(pattern) - {"*", "$"} <= set(path):
            assert start + i in held, (pattern, path)
        if matches:
            assert _pattern._literals_in(pattern, path), (pattern, path)


@given(
    st.lists(st.sampled_from(["", "", "a", "bc", "é"]), min_size=1, max_size=20),
    st.integers(0, 9),
    st.sampled_from([1, 2, 3, _pattern.MANY_EMPTIED]),
)
def test_emptied_lines(lines: list[str], first: int, many: int) -> None:
    """The empty lines' indexes, counted from `first`, as a split would tell them, whether the
    searches find them all or hand over to the split after `many`."""
    left = ("\n" + "\n".join(lines) + "\n").encode("utf-8")
    expected = [first + i for i, line in enumerate(lines) if not line]
    with mock.patch.object(_pattern, "MANY_EMPTIED", many):
        assert list(_pattern.emptied_lines(left, first)) == expected


def test_equal_wildcard_patterns_leave_only_the_rule_that_decides() -> None:
    """Of equal wildcard patterns (equally long), the first allow rule decides, else the first
    rule: the flat index keeps that one only (10,000 copies were each walked on every check)."""
    rules = [Rule(i + 1, RuleKind.DISALLOW, "/*a*b") for i in range(300)]
    rules += [
        Rule(301, RuleKind.ALLOW, "/*a*b"),
        Rule(302, RuleKind.ALLOW, "/*a*b"),
        Rule(303, RuleKind.DISALLOW, "/*c"),
    ]
    rule_set = RuleSet(rules)
    assert rule_set.best("/xaxb") == rules[300] == _reference(rules, "/xaxb")
    assert rule_set._flat is not None and rule_set._flat._special == [300, 302]
    disallowed = RuleSet(rules[:300] + rules[302:])
    assert disallowed.best("/xaxb") == rules[0]
    assert disallowed._flat is not None and disallowed._flat._special == [0, 300]
    raws = [(rule.line, rule.allow, rule.pattern) for rule in rules]
    ranked = RuleSet.deferred(
        "\n".join(r.pattern for r in rules), lambda: rules, lambda i, p: rules[i], None, raws
    )
    assert ranked.best("/xaxb") == rules[300]
    assert ranked._flat is not None and ranked._flat._special == [300, 302]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["/*a", "/*b", "*$", "/x"]), st.booleans(), st.integers(1, 9)), max_size=12
    )
)
def test_equal_patterns_ranked_from_the_rules_as_read_equal_ranked_rule_by_rule(
    rows: list[tuple[str, bool, int]],
) -> None:
    """Property: the deciding copy of each repeated pattern, found from the rules as read (lines in
    any order, repeated or not), is the one that building and comparing each rule finds."""
    rules = [Rule(line, RuleKind.ALLOW if allow else RuleKind.DISALLOW, p) for p, allow, line in rows]
    patterns = [rule.pattern for rule in rules]
    raws = [(rule.line, rule.allow, rule.pattern) for rule in rules]
    by_rule = _pattern._deciders(patterns, lambda i, pattern: rules[i])
    assert _pattern._deciders(patterns, lambda i, pattern: rules[i], raws) == by_rule
