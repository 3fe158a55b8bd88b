"""Deep wildcard rule sets (issue 15's near misses) decide exactly as the plain greedy matcher does.

The trie (`core.wildcards`), the tail test and the per-check memos (`core.glob`) are held to a
reference that shares no code with them: each pattern as a backtracking regular expression, which is
exact (and fast enough on these tiny inputs). Thresholds and budgets are forced low so that small
random rule sets take every branch: rules walked before they are split, a trie grown a few rules per
check, solos, ends, `$` tails, and checks from several threads while it grows.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import cast
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import robotskit
from robotskit.core import glob as _glob
from robotskit.core import pattern as _pattern
from robotskit.core import wildcards as _wildcards
from robotskit.core.glob import find_after, glob_match, last_at, pattern_matches, split_pattern
from robotskit.core.memo import LastAt
from robotskit.core.model import Rule, RuleKind
from robotskit.core.pattern import RuleSet, wildcard_test
from robotskit.core.wildcards import WildcardTrie
from tests.core.glob_reference import reference_best, regex_matches

# The mypyc build (docs/benchmarks.md) calls its own functions natively: a spy patched onto the
# module never sees those calls, so the tests that count them run on the pure-Python build only.
_SPIES_SEE_CALLS = _wildcards.__file__ is not None and _wildcards.__file__.endswith(".py")
_needs_spies = pytest.mark.skipif(
    not _SPIES_SEE_CALLS, reason="spies on calls inside a module the mypyc build compiled"
)

# Deep patterns over a tiny alphabet: many share segment prefixes, many almost match.
_PIECE = st.sampled_from(["a", "b", "ab", "ba", "aa", "", "/", "$"])
_PATTERN = st.builds(
    lambda head, pieces, anchor: head + "*".join(pieces) + anchor,
    st.sampled_from(["/", "/a", "", "/*", "/b"]),
    st.lists(_PIECE, min_size=0, max_size=9),
    st.sampled_from(["", "", "$"]),
).filter(lambda p: p[:1] in ("/", "*"))
_PATH = st.lists(st.sampled_from(["a", "b", "/", "ab", "$", "*"]), max_size=14).map(
    lambda p: "/" + "".join(p)
)


def _in_threads(run: Callable[[int], None], count: int = 8) -> None:
    """`run(n)` in `count` threads at once, n = 0 .. count - 1; returns when all are done."""
    threads = [threading.Thread(target=run, args=(n,)) for n in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def _rules(patterns: list[tuple[str, bool]]) -> list[Rule]:
    return [
        Rule(i + 1, RuleKind.ALLOW if allow else RuleKind.DISALLOW, p)
        for i, (p, allow) in enumerate(patterns)
    ]


@settings(max_examples=400, deadline=None)
@given(_PATTERN, _PATH)
def test_glob_match_with_tail_test_equals_regex(pattern: str, path: str) -> None:
    """Property: the greedy matcher with its tail test, with and without the check's memo, is exact."""
    segments, anchored = split_pattern(pattern)
    expected = regex_matches(pattern, path)
    assert glob_match(segments, anchored, path) is expected
    memo = LastAt()
    assert glob_match(segments, anchored, path, memo) is expected
    assert glob_match(segments, anchored, path, memo) is expected  # memo warm


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(["/", "", "/a", "/ab", "/ba/", "/b"]), _PATTERN, _PATH)
def test_wildcard_tests_equal_regex(head: str, pattern: str, path: str) -> None:
    """Property: the test the per-rule index gives a wildcard pattern (`pattern.wildcard_test`:
    its head, then its longest literal, searched first when the head is longer than `/`) is exact."""
    pattern = head + pattern.lstrip("/")
    if "*" not in pattern:
        pattern += "*"
    assert wildcard_test(pattern)(path, LastAt()) is regex_matches(pattern, path)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(["a", "ab", "b", "ba", ""]), st.integers(0, 16)), max_size=30), _PATH
)
def test_memos_equal_plain_searches(asks: list[tuple[str, int]], path: str) -> None:
    """Property: `find_after` and `last_at` answer every sequence of asks as `str.find` / `str.rfind` do."""
    memo = LastAt()
    for literal, start in asks:
        assert find_after(memo, path, literal, start) == path.find(literal, start)
        assert last_at(memo, path, literal) == path.rfind(literal)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.tuples(_PATTERN, st.booleans()), min_size=1, max_size=16),
    st.lists(_PATH, min_size=1, max_size=6),
    st.integers(1, 6),
    st.sampled_from([0, 1, 64]),
    st.sampled_from([0, 10**12]),
    st.sampled_from([None, 0, 1, 2, 16]),
    st.sampled_from([0, 10**12]),
)
def test_trie_equals_reference_while_it_grows(
    patterns: list[tuple[str, bool]],
    paths: list[str],
    budget: int,
    raw_walks: int,
    probe_ns: int,
    precedence_walks: int | None,
    forward_ns: int,
) -> None:
    """Property: with a tiny growth budget, the trie's answer equals the reference at every check
    (raw patterns walked after the bulk tail test or split at once, pending rules, chains and their
    splits, solos, ends and `$` tails), until fully grown; whether a bulk test is deemed slow (the
    trie then answers the next checks) or not; with or without a walk by precedence first
    (`precedence_walks`: its budget, None for a trie without it), deciding or not, waiting or not;
    whether every trie check is deemed slow (`forward_ns` 0: the next check walks every rule
    forward at once, `forward_walk`) or none is."""
    rules = [
        rule for rule in _rules(patterns) if not (rule.pattern.endswith("$") and "*" not in rule.pattern)
    ]
    if not rules:
        return
    trie = WildcardTrie(
        [rule.pattern for rule in rules],
        range(len(rules)),
        rules.__getitem__,
        precedence=precedence_walks is not None,
    )
    with (
        mock.patch.object(LastAt, "budget", budget),
        mock.patch.object(_wildcards, "RAW_WALKS", raw_walks),
        mock.patch.object(_wildcards, "BULK_PROBE_NS", probe_ns),
        mock.patch.object(_wildcards, "BULK_RETRY", 2),
        mock.patch.object(_wildcards, "PRECEDENCE_WALKS", precedence_walks or 0),
        mock.patch.object(_wildcards, "PRECEDENCE_NS", 10**12),
        mock.patch.object(_wildcards, "PRECEDENCE_WAIT", 1),
        mock.patch.object(_wildcards, "FORWARD_NS", forward_ns),
        mock.patch.object(_wildcards, "FILTER_WAIT", 1),
    ):
        for path in paths * 6:
            assert trie.best(path, None, LastAt()) == reference_best(rules, path), path


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(_PATTERN, st.booleans()), min_size=1, max_size=16),
    st.lists(_PATH, min_size=1, max_size=5),
    st.integers(1, 4),
    st.booleans(),
    st.booleans(),
)
def test_rule_sets_with_tries_equal_reference(
    patterns: list[tuple[str, bool]], paths: list[str], budget: int, big: bool, scan_tails: bool
) -> None:
    """Property: rule sets whose wildcard rules go to tries (the per-bucket index of a small set, or
    the flat index of a big one, plain and deferred) decide as the reference does, check after check;
    so do their first, unindexed scans, with the bulk tail test or without."""
    rules = _rules(patterns)
    forced = {"TRIE_SEGMENTS": 0, "TRIE_DEPTH": 1, "INDEX_AFTER": 3, "SMALL_RULE_SET": 4}
    forced["SCAN_TAILS_RULES"] = 1 if scan_tails else 10**9
    if big:
        forced |= {"BIG_SET": 0, "SPECIAL_CHUNK": 2}
    small = mock.patch.object(_wildcards, "RAW_WALKS", 1)
    with mock.patch.multiple(_pattern, **forced), mock.patch.object(LastAt, "budget", budget), small:
        plain = RuleSet(rules)
        deferred = RuleSet.deferred(
            "\n".join(r.pattern for r in rules), lambda: rules, lambda i, pattern: rules[i]
        )
        for path in paths * 4:
            expected = reference_best(rules, path)
            assert plain.best(path) == expected, path
            assert deferred.best(path) == expected, path


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(["Allow", "Disallow"]), _PATTERN), max_size=12),
    st.lists(_PATH.filter(lambda p: "\n" not in p), min_size=1, max_size=4),
    st.sampled_from(["rfc9309", "google"]),
)
def test_allowed_with_tries_equals_decide(
    lines: list[tuple[str, str]], paths: list[str], profile: str
) -> None:
    """Property: through `allowed`, with the trie thresholds forced low, every verdict is `decide`'s."""
    body = "User-agent: *\n" + "".join(f"{kind}: {value}\n" for kind, value in lines)
    expected = {path: robotskit.parse(body, profile).decide(path).allowed for path in paths}
    with mock.patch.multiple(_pattern, TRIE_SEGMENTS=0, TRIE_DEPTH=1, BIG_SET=0, INDEX_AFTER=2):
        robots = robotskit.parse(body, profile)
        for path in paths * 4:
            assert robots.allowed(path) is expected[path], path


def test_trie_from_threads_while_growing_equals_reference() -> None:
    """Eight threads checking one big set of deep, prefix-sharing rules while its trie grows a few
    rules per check get the reference's answers."""
    heads = ["/*a*b*a", "/*b*a*b", "/x*a*a"]
    patterns = [
        f"{heads[i % 3]}{'*ab' * (i % 5)}{'*b' * (i % 4)}*{'a' * (1 + i % 3)}{'$' if i % 7 == 0 else ''}"
        for i in range(300)
    ]
    rules = [
        Rule(i + 1, RuleKind.ALLOW if i % 4 == 0 else RuleKind.DISALLOW, p) for i, p in enumerate(patterns)
    ]
    paths = [
        "/" + "".join("ab"[(i >> bit) & 1] * (1 + bit % 3) for bit in range(12)) + ("a" * (i % 4))
        for i in range(60)
    ] + ["/x" + "a" * i + "b" for i in range(10)]
    expected = {path: reference_best(rules, path) for path in paths}
    wrong: list[str] = []
    with mock.patch.multiple(_pattern, TRIE_DEPTH=2), mock.patch.object(LastAt, "budget", 7):
        index = RuleSet(rules)
        assert index.size > _pattern.BIG_SET

        def run(offset: int) -> None:
            for i in range(len(paths) * 3):
                path = paths[(i * 7 + offset) % len(paths)]
                if index.best(path) != expected[path]:
                    wrong.append(path)

        _in_threads(run)
    assert index._flat is not None and index._flat._trie is not None
    assert wrong == []


def test_trie_grows_within_its_budget() -> None:
    """A check sorts at most about its budget of rules into the trie: the first check only walks,
    later checks enter and sort a budget's worth each, until every node the path reaches is grown
    (nodes it never reaches are never paid for)."""
    rules = [
        Rule(i + 1, RuleKind.DISALLOW, "/*a" * (3 + i % 20) + "*b" * (1 + i % 5) + "*a") for i in range(400)
    ]
    trie = WildcardTrie.of_pairs([(rule.pattern, key) for key, rule in enumerate(rules)], rules.__getitem__)
    # These near misses all fail the tail test, which alone would answer every check (see
    # `test_near_misses_are_answered_by_the_bulk_tail_test`): it is put off so the trie grows.
    trie._skip_bulk = 10**6
    path = "/" + "a" * 40 + "b" * 10
    assert trie.best(path, None, LastAt()) is None
    assert trie._entered == 0  # the first check walked the raw patterns in bulk
    spent = []
    for _ in range(40):
        memo = LastAt()
        assert trie.best(path, None, memo) is None
        spent.append(LastAt.budget - memo.budget)
    assert trie._entered == len(rules)
    assert max(spent) <= LastAt.budget + len(rules)  # one node sorted whole at most
    assert spent[-1] == 0 and len([s for s in spent if s]) >= 2  # grown over several checks, then done


def test_near_misses_are_answered_by_the_bulk_tail_test() -> None:
    """Rules that fail the tail test never reach the trie: a check walks the few that pass, and
    the trie is not grown. When a path lets more than RAW_WALKS rules through, the trie answers,
    and the next BULK_RETRY checks go to it at once."""
    patterns = ["/" + "*a" * (3 + i % 20) + "*b" * (1 + i % 5) + "*a" for i in range(400)]
    patterns += ["/" + "*a" * (3 + i) + "*x*y" for i in range(10)]
    rules = [Rule(i + 1, RuleKind.DISALLOW, pattern) for i, pattern in enumerate(patterns)]
    trie = WildcardTrie.of_pairs([(rule.pattern, key) for key, rule in enumerate(rules)], rules.__getitem__)
    miss = "/" + "a" * 40 + "b" * 10  # no `a` after the `b`s, no `x`: every rule fails the tail test
    hit = "/" + "a" * 8 + "xy"  # no `b`: only the `*x*y` rules pass; those of at most 8 `*a` match
    matching = [rule for rule in rules if pattern_matches(rule.pattern, hit)]
    assert len(matching) == 6
    expected = max(matching, key=lambda rule: len(rule.pattern))
    many = "/" + "a" * 2 + "b" * 10 + "a"  # the first 400 pass the tail test, none matches
    with mock.patch.object(_wildcards, "BULK_PROBE_NS", 10**12):  # no check is deemed slow
        for _ in range(50):
            assert trie.best(miss, None, LastAt()) is None
        assert trie._entered == 0 and not trie._heads
        assert trie.best(hit, None, LastAt()) == expected
        assert trie._entered == 0
        assert trie.best(many, None, LastAt()) is None
        assert trie._skip_bulk == _wildcards.BULK_RETRY
        assert trie._entered == len(rules)  # split into the trie at once, as a first check would be
        for _ in range(_wildcards.BULK_RETRY):
            assert trie.best(hit, None, LastAt()) == expected
        assert trie._skip_bulk == 0
    # More than DEEP_WALKS pass (the 10 `*x*y` rules): the deeper test answers, and a check it
    # answered is not judged against a trie that has not answered yet, however slow.
    trie = WildcardTrie.of_pairs([(rule.pattern, key) for key, rule in enumerate(rules)], rules.__getitem__)
    with mock.patch.object(_wildcards, "BULK_PROBE_NS", 0):
        for _ in range(3):
            assert trie.best(hit, None, LastAt()) == expected
        assert trie._skip_bulk == 0 and trie._trie_ns == -1 and trie._entered == 0
    # A bulk test deemed slow, its walks the rules that passed, hands the next checks to the trie;
    # the answers are the same.
    trie = WildcardTrie.of_pairs([(rule.pattern, key) for key, rule in enumerate(rules)], rules.__getitem__)
    with mock.patch.object(_wildcards, "BULK_PROBE_NS", 0), mock.patch.object(_wildcards, "DEEP_WALKS", 64):
        assert trie.best(hit, None, LastAt()) == expected
        assert trie._skip_bulk == 0  # the first check is not judged: it pays for its cold start
        assert trie.best(hit, None, LastAt()) == expected
        assert trie._skip_bulk == _wildcards.BULK_RETRY and trie._trie_ns == -1
        for round_ in range(3 * _wildcards.BULK_RETRY):
            assert (
                trie.best((hit, miss, many)[round_ % 3], None, LastAt()) == (expected, None, None)[round_ % 3]
            )
        assert trie._trie_ns >= 0


@_needs_spies  # (the clock the compiled module reads is not the one patched here)
@pytest.mark.parametrize(
    ("bulk", "before", "cost", "back"),
    [
        (400, 700, 800, True),  # dearer than the bulk test and than its own last check: back to bulk
        (400, 800, 800, True),  # no cheaper than its last check
        (400, 900, 800, False),  # getting cheaper as it grows: keeps its checks
        (900, 700, 800, False),  # cheaper than the bulk test
        (-1, 700, 800, False),  # no bulk check to compare with (the bulk test could not answer)
        (400, -1, 800, False),  # its first check: nothing to compare with yet
    ],
)
def test_a_trie_that_does_not_pay_hands_the_next_check_to_the_bulk_test(
    bulk: int, before: int, cost: int, back: bool
) -> None:
    """During the checks handed to the trie, one that cost more than the bulk test's last check and
    no less than the trie's own last one ends them: the next check tries the bulk test again
    (costs in ns, from a scripted clock; either way the answer is exact)."""
    patterns = ["/" + "*a" * (3 + i % 20) + "*b" * (1 + i % 5) + "*a" for i in range(100)]
    rules = [Rule(i + 1, RuleKind.DISALLOW, pattern) for i, pattern in enumerate(patterns)]
    trie = WildcardTrie.of_pairs([(rule.pattern, key) for key, rule in enumerate(rules)], rules.__getitem__)
    trie._skip_bulk, trie._bulk_ns, trie._trie_ns = _wildcards.BULK_RETRY, bulk, before
    ticks = iter((0, cost))
    with mock.patch.object(_wildcards, "perf_counter_ns", lambda: next(ticks)):
        assert trie.best("/" + "a" * 2 + "b" * 10 + "a", None, LastAt()) is None
    assert trie._trie_ns == cost
    assert trie._skip_bulk == (0 if back else _wildcards.BULK_RETRY - 1)


def test_deep_near_misses_share_searches() -> None:
    """The reason for the trie: 300 near-miss rules that share a run of 40 `*a` segments cost one
    search per trie node once grown, far fewer than one per segment of every rule."""
    rules = [
        Rule(i + 1, RuleKind.DISALLOW, "/" + "*a" * (40 + i % 30) + "*b" + "*a" * (1 + i // 30))
        for i in range(300)
    ]
    path = "/" + "a" * 80 + "b" + "c" * 500  # the a-run fits, the b fits, no `a` after it
    trie = WildcardTrie.of_pairs([(rule.pattern, key) for key, rule in enumerate(rules)], rules.__getitem__)
    for _ in range(60):
        assert trie.best(path, None, LastAt()) is None
    assert trie._entered == len(rules)  # (nodes the path never reaches stay pending: never paid for)
    nodes, stack = 0, list(trie._heads)
    while stack:
        node = stack.pop()
        nodes += 1
        stack.extend(node.state[2])
    segments = sum(rule.pattern.count("*") for rule in rules)
    assert nodes * 20 < segments


def test_default_budget_is_used() -> None:
    """The per-check budget is the documented default (guards against a test leaving it patched)."""
    assert LastAt().budget == LastAt.budget == 250
    assert _wildcards.ENTER_COST >= 1
    assert _glob.TAIL_AFTER >= 3


# Patterns of at least two `*` (every one gets the bulk tail test), all `$`-anchored or none.
_DEEP_PATTERN = st.builds(
    lambda head, pieces: head + "*" + "*".join(pieces),
    st.sampled_from(["/", "/a", "/b"]),
    st.lists(_PIECE.filter(lambda piece: piece != "$"), min_size=2, max_size=9),
)


@_needs_spies
@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(_DEEP_PATTERN, st.booleans()), min_size=1, max_size=16),
    st.lists(_PATH, min_size=1, max_size=4),
    st.sampled_from(["", "$", "mixed"]),
    st.sampled_from([0, 1, 64]),
    st.booleans(),
)
def test_big_deep_sets_first_check_equals_reference(
    patterns: list[tuple[str, bool]], paths: list[str], anchor: str, walks: int, all_deep: bool
) -> None:
    """Property: a big set of wildcard rules is first answered from the bulk tail test (its
    survivors walked, no index built, when at most BIG_FIRST_WALKS pass) and then by the flat
    index, whose trie reuses the test (its indexes) and the first check's survivors when they
    were too many to walk; every answer is the reference's, anchored sets and mixed ones too."""
    if anchor == "mixed":
        patterns = [(p + "$" * (i % 2), allow) for i, (p, allow) in enumerate(patterns)]
    else:
        patterns = [(p + anchor, allow) for p, allow in patterns]
    rules = _rules(patterns)
    forced = {"TRIE_SEGMENTS": 0, "BIG_SET": 0, "BIG_FIRST_WALKS": walks, "TRIE_DEPTH": 2 if all_deep else 4}
    built: list[_wildcards.Tails] = []  # every tail test made, in order
    of_patterns = _wildcards.Tails.of_patterns.__func__  # type: ignore[attr-defined]

    def spy(cls: type[_wildcards.Tails], patterns: list[str]) -> _wildcards.Tails:
        built.append(of_patterns(cls, patterns))
        return built[-1]

    for path in paths:
        built.clear()
        spied = mock.patch.object(_wildcards.Tails, "of_patterns", classmethod(spy))
        with mock.patch.multiple(_pattern, **forced), spied:
            deferred = RuleSet.deferred(
                "\n".join(r.pattern for r in rules), lambda: rules, lambda i, pattern: rules[i]
            )
            expected = reference_best(rules, path)
            assert deferred.best(path) == expected, path
            walked = deferred._flat is None
            tails = _wildcards.Tails.of_patterns([r.pattern for r in rules])
            memo = LastAt()
            survivors = tails.passing(path, 0, memo)
            if len(survivors) > walks:
                deeper = tails.deeper(survivors, path, 0, memo, walks)
                survivors = survivors if deeper is None else deeper
            deep = min(r.pattern.count("*") for r in rules[: _pattern._SAMPLE]) >= forced["TRIE_DEPTH"]
            assert walked is (deep and len(survivors) <= walks), (survivors, walks)
            for again in paths * 2:
                assert deferred.best(again) == reference_best(rules, again), again
            assert deferred._flat is not None
            trie = deferred._flat._trie
            # the trie holds the test the set's first check made (when it holds every rule: of
            # equal patterns, only the rule that decides is kept)
            if all_deep and len({rule.pattern for rule in rules}) == len(rules) > 1:
                assert trie is not None and trie._raw_tails is built[0]


@settings(max_examples=400, deadline=None)
@given(
    st.lists(_PATTERN, min_size=1, max_size=24),
    _PATH,
    st.integers(0, 4),
    st.integers(0, 6),
)
def test_bulk_tail_test_is_the_per_rule_test(
    patterns: list[str], path: str, position: int, start: int
) -> None:
    """Property: `Tails.passing` keeps every rule that matches from `position`, and for a rule of
    two `*` or more it is exactly the per-rule test, whether the literals before the last are
    searched once each (shared) or once per rule, and whether the rules' shared literals decide
    the whole group at once or each rule is tested: unanchored, the literal before the last ends
    by the last literal's last occurrence; `$`-anchored, the last literal ends the path with room
    after the first occurrence of the one before (an absent one taken to end at its length - 1).
    The memo it fills holds `rfind`'s answers."""
    position = min(position, len(path))
    answers = []
    settings_ = (
        (1, 1, 16),
        (10**9, 10**9, 16),
        (1, 10**9, 16),
        (10**9, 1, 16),
        (10**9, 2, 16),
        (10**9, 1, 1),
    )
    for shared, grams, longest in settings_:  # (longest: literals longer than this get no table)
        forced = {
            "SHARED_BEFORES": shared,
            "GRAM_FINALS": grams,
            "GRAM_LENGTH": longest,
            "UNTABLED_SHARE": 1.0,
        }
        with mock.patch.multiple(_wildcards, **forced):
            memo = LastAt()
            passing = _wildcards.Tails.of_patterns(patterns).passing(path, position, memo, start)
        assert all(memo[literal] == path.rfind(literal) for literal in memo)
        answers.append(sorted(passing))
    assert all(answer == answers[0] for answer in answers)
    passing = set(answers[0])
    for index, pattern in enumerate(patterns):
        if index < start:
            assert index not in passing
            continue
        parts = pattern.rsplit("*", 2)
        if len(parts) == 3 and not parts[2].endswith("$"):
            expected = path.find(parts[1], position, max(path.rfind(parts[2]), 0)) >= 0
            assert (index in passing) is expected, (pattern, path, position)
        elif len(parts) == 3:
            final = parts[2].removesuffix("$")
            room = len(path) - len(final)
            expected = path.endswith(final) and path.find(parts[1], position) + len(parts[1]) <= room
            assert (index in passing) is expected, (pattern, path, position)
        segments = pattern.removesuffix("$").split("*")
        rest = "*".join(["", *segments[1:]]) + ("$" if pattern.endswith("$") else "")
        if len(segments) > 1 and regex_matches(rest, path[position:]):
            assert index in passing, (pattern, path, position)  # a necessary condition


# Rules that share a few (literal before the last, last literal) pairs, as near misses do: the
# bulk test may then decide the whole group at once (none passes, or all do).
_SHARED_TAIL = st.builds(
    lambda middle, before, final, anchor: "/*" + middle + before + "*" + final + anchor,
    st.sampled_from(["", "a*", "b*a*"]),
    st.sampled_from(["a", "ab", "b", ""]),
    st.sampled_from(["a", "b", "ab", "ba", ""]),
    st.sampled_from(["", "", "$"]),
)


@settings(max_examples=600, deadline=None)
@given(st.lists(_SHARED_TAIL, min_size=4, max_size=30), _PATH, st.integers(0, 4))
def test_shared_tails_give_each_rule_its_own_verdict(patterns: list[str], path: str, position: int) -> None:
    """Property: where the rules share their last two literals (searched once each), the bulk tail
    test keeps exactly the rules the per-rule test keeps, at the bounds too (an end right at the
    last literal's last occurrence, a `$` literal with just enough room)."""
    position = min(position, len(path))
    with mock.patch.multiple(_wildcards, SHARED_BEFORES=1):
        passing = _wildcards.Tails.of_patterns(patterns).passing(path, position, LastAt())
    expected = []
    for index, pattern in enumerate(patterns):
        _, before, final = pattern.rsplit("*", 2)
        if final.endswith("$"):
            final = final.removesuffix("$")
            room = len(path) - len(final)
            kept = path.endswith(final) and path.find(before, position) + len(before) <= room
        else:
            kept = path.find(before, position, max(path.rfind(final), 0)) >= 0
        if kept:
            expected.append(index)
    assert sorted(passing) == expected, (patterns, path, position)


def _matches_from(pattern: str, path: str, position: int) -> bool:
    """Do the pattern's segments after its head match, in order, from `position` (its final one
    anywhere after, or ending the path for a `$` pattern)?"""
    segments = pattern.removesuffix("$").split("*")
    rest = "*".join(["", *segments[1:]]) + ("$" if pattern.endswith("$") else "")
    return len(segments) > 1 and regex_matches(rest, path[position:])


@settings(max_examples=500, deadline=None)
@given(
    st.lists(_PATTERN, min_size=1, max_size=30),
    _PATH,
    st.integers(0, 3),
    st.sampled_from([1, 2, 8]),
    st.sampled_from([0.0, 0.75, 1.0]),
    st.sampled_from([0, 1, 8]),
    st.sampled_from([0, 4, 64]),
    st.sampled_from([False, True, "mixed"]),
)
def test_deeper_tail_test_keeps_every_rule_that_can_match(
    patterns: list[str],
    path: str,
    position: int,
    literals: int,
    keeps: float,
    few: int,
    enough: int,
    tables: object,
) -> None:
    """Property: the tail test taken deeper (`Tails.deeper`, walking back from each rule's last
    literal) keeps every rule that passed the tail test and can match from `position`, keeps
    nothing that had not passed, and answers None only when more than `enough` would be left;
    a rule it drops has a later literal that cannot fit. With the passes unbounded it is exact
    for unanchored rules whose literals it reads to the end."""
    position = min(position, len(path))
    forced = {"DEEP_LITERALS": literals, "DEEP_KEEPS": keeps, "DEEP_FEW": few, **_TABLES[tables]}
    with mock.patch.multiple(_wildcards, **forced):
        tails = _wildcards.Tails.of_patterns(patterns)
        memo = LastAt()
        passing = tails.passing(path, position, memo)
        deeper = tails.deeper(passing, path, position, memo, enough)
    assert all(memo[literal] == path.rfind(literal) for literal in memo)
    if deeper is None:
        return
    assert len(deeper) == len(set(deeper)) and set(deeper) <= set(passing)
    for index in passing:
        if _matches_from(patterns[index], path, position):
            assert index in deeper, (patterns[index], path, position)
    if keeps == 1.0 and few == 0:  # every pass taken: the walk back decides the rules it reads whole
        for index in passing:
            pattern = patterns[index]
            later = pattern.split("*")[1:]
            if not pattern.endswith("$") and 2 <= len(later) <= literals + 1:
                assert (index in deeper) is _matches_from(pattern, path, position), (pattern, path, position)


# Literals of lengths 1 to 4: a rule split late may bring a length the tables lack.
_VARIED_PATTERN = st.builds(
    lambda pieces, anchor: "/*" + "*".join(pieces) + anchor,
    st.lists(st.sampled_from(["a", "b", "ab", "ba", "aab", "bba", "abab", ""]), min_size=1, max_size=6),
    st.sampled_from(["", "", "$"]),
)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.one_of(_PATTERN, _VARIED_PATTERN), min_size=1, max_size=20),
    st.lists(st.tuples(_PATH, st.integers(0, 3), st.integers(1, 3)), min_size=1, max_size=5),
    st.sampled_from([False, True, "mixed"]),
)
def test_deeper_tail_test_splits_rules_as_checks_ask_for_them(
    patterns: list[str], checks: list[tuple[str, int, int]], tables: object
) -> None:
    """Property: the walk back splits a rule the first time a check asks about it (a big set's
    first check splits only the rules that passed its tail test); a test reused over checks that
    ask about different rules (every rule that passed, or every second or third of them) answers
    each as a test made for that check alone does."""
    forced = {"DEEP_LITERALS": 3, "DEEP_KEEPS": 1.0, "DEEP_FEW": 0, **_TABLES[tables]}
    with mock.patch.multiple(_wildcards, **forced):
        reused = _wildcards.Tails.of_patterns(patterns)
        for path, asked, step in checks:
            position = min(asked, len(path))
            answers = []
            for tails in (reused, _wildcards.Tails.of_patterns(patterns)):
                memo = LastAt()
                passing = tails.passing(path, position, memo)[::step]
                answers.append(tails.deeper(passing, path, position, memo, len(patterns)))
            assert answers[0] == answers[1], (path, position, step)
        columns, whole = reused._columns
        if whole:  # every rule split at once: lists by rule index
            assert all(len(column) == len(patterns) for column in columns)
        else:  # the rules split so far, each at every depth
            split = set(cast(dict[int, object], columns[0]))
            assert all(set(cast(dict[int, object], column)) == split for column in columns)


@settings(max_examples=500, deadline=None)
@given(
    st.lists(_PATTERN, min_size=1, max_size=12),
    _PATH,
    st.integers(0, 3),
    st.sampled_from([False, True, "mixed"]),
)
def test_deeper_tail_test_taken_to_the_end_is_exact(
    patterns: list[str], path: str, position: int, tables: object
) -> None:
    """Property: with every pass taken, the walk back decides each unanchored wildcard rule (it
    reads them whole here) exactly as matching does; the others stay in. With `tables`, the
    bulk tail test tables the path's substrings for every literal length it can, so the walk
    back reads its searches from them where every literal's length is tabled."""
    position = min(position, len(path))
    forced = {"DEEP_LITERALS": 10, "DEEP_KEEPS": 1.0, "DEEP_FEW": 0, **_TABLES[tables]}
    with mock.patch.multiple(_wildcards, **forced):
        tails = _wildcards.Tails.of_patterns(patterns)
        memo = LastAt()
        passing = tails.passing(path, position, memo)
        deeper = tails.deeper(passing, path, position, memo, len(patterns))
    if deeper is None:
        # nothing to go deeper on: no rule that passed has two literals before its last (with
        # one, the first pass would only repeat the tail test they passed)
        assert all(patterns[index].count("*") < 3 for index in passing)
        return
    for index in passing:
        pattern = patterns[index]
        if not pattern.endswith("$") and len(pattern.split("*")) >= 2:
            assert (index in deeper) is _matches_from(pattern, path, position), (pattern, path, position)
        else:
            assert index in deeper


# Thresholds that make the bulk tail test table the path's substrings for any set of rules (one
# distinct literal of a length is enough, literals before the last never counted as shared).
# "mixed": tables for the lengths of two distinct literals or more, the other literals before the
# last searched one by one however many they are.
_TABLES: dict[object, dict[str, float]] = {
    False: {},
    True: {"GRAM_FINALS": 1, "SHARED_BEFORES": 10**9},
    "mixed": {"GRAM_FINALS": 2, "SHARED_BEFORES": 10**9, "UNTABLED_SHARE": 1.0},
}


@_needs_spies
def test_deeper_tail_test_reads_the_tables_when_every_length_is_tabled() -> None:
    """The walk back on tabled literals (all of length 2 here) gives the searches' answers, and
    is taken: occurrences before, after and on both sides of each bound."""
    path = "/abxyabcdxyab"
    # (the last: `ab` then ends exactly where the walk back must find it by, and occurs later too)
    patterns = [
        "/*ab*xy*ab",
        "/*xy*xy*ab",
        "/*cd*ab*xy",
        "/*zz*ab*ab",
        "/*ab*cd*ab",
        "/*xy*cd*xy",
        "/*ab*xy*cd",
    ]
    forced = {"DEEP_LITERALS": 10, "DEEP_KEEPS": 1.0, "DEEP_FEW": 0, **_TABLES[True]}
    with (
        mock.patch.multiple(_wildcards, **forced),
        mock.patch.object(_wildcards, "_last_before", wraps=_wildcards._last_before) as read,
    ):
        tails = _wildcards.Tails.of_patterns(patterns)
        memo = LastAt()
        passing = tails.passing(path, 0, memo)
        deeper = tails.deeper(passing, path, 0, memo, 10)
    assert read.called and memo.gram_lengths == {2}
    assert deeper is not None
    for index in passing:
        assert (index in deeper) is _matches_from(patterns[index], path, 0), patterns[index]


def test_deeper_tail_test_examples() -> None:
    """The walk back on hand-made cases: order, a literal only at the path's start, a `**`."""
    path = "/abcabc"
    patterns = ["/*c*a*b", "/*c*b*a", "/*/*a*c", "/*a**b*c", "/*x*a*b", "/a*b$", "/*c*c*c"]
    expected = {0: True, 1: False, 2: True, 3: True, 4: False, 5: True, 6: False}
    forced = {"DEEP_LITERALS": 10, "DEEP_KEEPS": 1.0, "DEEP_FEW": 0}
    with mock.patch.multiple(_wildcards, **forced):
        tails = _wildcards.Tails.of_patterns(patterns)
        memo = LastAt()
        passing = tails.passing(path, 0, memo)
        deeper = tails.deeper(passing, path, 0, memo, 10)
    assert deeper is not None
    assert {index: index in deeper for index in range(len(patterns))} == expected


def test_near_misses_from_threads_equal_the_greedyreference_best() -> None:
    """Eight threads checking one big set of distinct near misses (each rule's literals taken from
    the path in order, its last literal placed so that the tail test passes and the walk fails),
    a few rules that match among them: every answer is the greedy matcher's, whichever way the
    check goes (first check walked from the tail test, the deeper test, the trie)."""
    import random

    rng = random.Random(9309)
    path = "/" + "".join(rng.choice("abcdefghijklmnop") for _ in range(600))
    patterns = []
    for i in range(400):
        position, chain = 1, []
        for _ in range(rng.randint(6, 20)):
            size = rng.randint(2, 4)
            chain.append(path[position : position + size])
            position += size + rng.randint(0, 25)
        if i % 50 == 0:  # one in 50 matches: its last literal comes after the chain
            final = path[position : position + 4]
        else:  # a near miss: its last literal occurs within the chain only
            final = ""
            while not final or path.find(final, position - 3) >= 0:
                start = rng.randrange(1, position - 4)
                final = path[start : start + 4]
        patterns.append("/*" + "*".join([*chain, final]) + ("$" if i % 97 == 0 else ""))
    rules = [Rule(i + 1, RuleKind.ALLOW if i % 3 else RuleKind.DISALLOW, p) for i, p in enumerate(patterns)]
    paths = [path, path + "?x=1", path[:300], path[:450] + "zz", path.replace("a", "b", 5)]
    expected = {
        p: max(
            (rule for rule in rules if pattern_matches(rule.pattern, p)),
            key=lambda rule: (len(rule.pattern), rule.kind is RuleKind.ALLOW, -rule.line),
            default=None,
        )
        for p in paths
    }
    assert any(expected.values())  # some paths are matched, by the longest matching rule
    wrong: list[str] = []
    index = RuleSet.deferred("\n".join(patterns), lambda: rules, lambda i, pattern: rules[i])
    assert index.size > _pattern.BIG_SET

    def run(offset: int) -> None:
        for i in range(len(paths) * 8):
            checked = paths[(i + offset) % len(paths)]
            if index.best(checked) != expected[checked]:
                wrong.append(checked)

    _in_threads(run)
    assert wrong == []


@_needs_spies
def test_rules_as_long_as_a_matching_allow_rule_are_not_walked() -> None:
    """Once an allow rule of the trie matches, its rules of the same length and later lines cannot
    outrank it (RFC 9309 2.2.2): they are not walked. Before it, every rule is (a disallow rule as
    long may still lose to an allow rule)."""
    path = "/" + "abcdefgh" * 20
    literals = ["ab", "cd", "ef", "gh", "bc", "de", "fg", "ha"]
    patterns = [
        (f"/*{first}*{second}", i % 3 == 1)
        for i, (first, second) in enumerate((a, b) for a in literals for b in literals)
    ]
    rules = _rules(patterns)  # every one matches the path; rule 1 is the first allow rule
    assert all(regex_matches(rule.pattern, path) for rule in rules)
    trie = WildcardTrie.of_pairs([(rule.pattern, rule.line - 1) for rule in rules], rules.__getitem__)
    with mock.patch.object(_wildcards, "pattern_matches", wraps=pattern_matches) as walked:
        best, _ = trie._walk_raw(list(range(len(rules))), path, None, LastAt())
    assert best == rules[1] == reference_best(rules, path)
    assert walked.call_count == 2  # rule 0 (a disallow rule) and rule 1


@_needs_spies
def test_rules_that_nearly_all_match_are_decided_by_precedence() -> None:
    """1,000 allow and 1,000 disallow rules of equal length that nearly all match a long path: a
    trie that walks by precedence tries the first rules in line order and stops at the first allow
    rule that matches (nothing after it can outrank it), check after check, without a bulk tail
    test or a trie; the answer is the reference's. Without the walk, every check runs the tail
    test. A set it cannot decide (no rule matches) waits PRECEDENCE_WAIT checks, doubled after each
    further one it fails on, before walking again."""
    letters = "abcdefgh"
    pairs = [a + b for a in letters for b in letters]
    path = (
        "/" + "".join(a + b + c for a in pairs for b, c in zip(pairs[::-1], pairs[3:], strict=False))[:5000]
    )
    patterns = [(f"/*{pairs[i % 64]}*{pairs[(i * 7) % 64]}", i % 2 == 1) for i in range(2000)]
    rules = _rules(patterns)
    expected = reference_best(rules, path)
    assert expected is not None and expected.allow
    for precedence in (True, False):
        trie = WildcardTrie(
            [rule.pattern for rule in rules], range(len(rules)), rules.__getitem__, precedence=precedence
        )
        with (
            mock.patch.object(_wildcards, "PRECEDENCE_NS", 10**12),  # (a slow machine: still walked)
            mock.patch.object(_wildcards, "pattern_matches", wraps=pattern_matches) as walked,
            mock.patch.object(
                _wildcards.Tails, "passing", autospec=True, side_effect=_wildcards.Tails.passing
            ) as bulk,
        ):
            for _ in range(3):
                assert trie.best(path, None, LastAt()) == expected
        if precedence:
            assert bulk.call_count == 0
            assert walked.call_count <= 3 * (expected.line)  # rules 0 .. the first allow rule that matches
            assert trie._entered == 0
        else:
            assert bulk.call_count >= 1
    misses = [rule for rule in rules if not rule.allow]
    trie = WildcardTrie(
        ["/*zz*" + rule.pattern[2:] for rule in misses],
        range(len(misses)),
        misses.__getitem__,
        precedence=True,
    )
    with mock.patch.object(
        WildcardTrie, "_precedence_walk", autospec=True, side_effect=WildcardTrie._precedence_walk
    ) as tried:
        for _ in range(1 + 16 + 1 + 32 + 1):
            assert trie.best(path, None, LastAt()) is None
    assert tried.call_count == 3  # the first check, then after 16 and after 32 more


@_needs_spies
def test_rules_that_share_no_searches_are_walked_forward_at_once() -> None:
    """1,000 rules of 5-50 random two-letter literals against a random path: after two trie
    checks in a row deemed slow, the next checks walk every rule forward at once (`ForwardWalk`), without the
    bulk tail test, and answer as the rules matched one by one do; a forward walk that costs more
    than the trie's last check hands the checks back to the trie, which counts down FILTER_WAIT
    slow checks before the walk is tried again."""
    import random

    rng = random.Random(11)
    letters = "abcdefghij"
    patterns = [
        (
            "/*" + "*".join(rng.choice(letters) + rng.choice(letters) for _ in range(rng.randint(5, 50))),
            i % 7 == 0,
        )
        for i in range(1000)
    ]
    rules = _rules(patterns)
    paths = ["/" + "".join(rng.choice(letters) for _ in range(rng.randint(5, 3000))) for _ in range(12)]
    expected = [_greedy_best(rules, path) for path in paths]
    assert any(found is not None for found in expected) and any(found is None for found in expected)
    trie = WildcardTrie([rule.pattern for rule in rules], range(len(rules)), rules.__getitem__)
    with (
        mock.patch.object(_wildcards, "FORWARD_NS", 0),
        mock.patch.object(
            _wildcards.ForwardWalk, "matching", autospec=True, side_effect=_wildcards.ForwardWalk.matching
        ) as walked,
        mock.patch.object(
            _wildcards.Tails, "passing", autospec=True, side_effect=_wildcards.Tails.passing
        ) as bulk,
    ):
        assert trie.best(paths[0], None, LastAt()) == expected[0]  # the trie's check, deemed slow
        trie._trie_ns = 1  # (as if it had cost 1 ns: the next, dearer, is a second slow one in a row)
        assert trie.best(paths[0], None, LastAt()) == expected[0]
        bulk.reset_mock()
        for path, found in zip(paths[1:], expected[1:], strict=True):
            trie._trie_ns = 10**12  # (the trie's last check stays dearer than any walk)
            assert trie.best(path, None, LastAt()) == found
        assert walked.call_count == len(paths) - 1
        assert bulk.call_count == 0
        trie._trie_ns = 0  # a walk dearer than the trie's last check: the trie answers next
        walked.reset_mock()
        for path, found in zip(paths, expected, strict=True):
            assert trie.best(path, None, LastAt()) == found
        assert walked.call_count == 1
        assert 0 < trie._forward_wait < _wildcards.FILTER_WAIT  # (counting down the slow trie checks)


def _greedy_best(rules: list[Rule], path: str) -> Rule | None:
    """The deciding rule by RFC 9309 2.2.2 among those `glob.pattern_matches` matches one by one
    (the regular expressions of `reference_best` would backtrack for hours on these rules)."""
    best = None
    for rule in rules:
        if pattern_matches(rule.pattern, path) and (
            best is None
            or len(rule.pattern) > len(best.pattern)
            or (len(rule.pattern) == len(best.pattern) and rule.allow and not best.allow)
        ):
            best = rule
    return best
