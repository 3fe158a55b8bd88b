"""Compiled rule sets: the fast, linear-time half of matching (SPEC.md section 3).

A pattern is a prefix match where `*` matches any run of characters and a final `$` anchors
to the end of the path. Priority is the pattern's length in octets; on equal length `allow`
wins. Patterns come from strangers, so nothing here backtracks: a wildcard pattern is split
at its `*`s and matched greedily, leftmost first, which is exact for `*`-only globs and costs
O(len(path)) string searches per pattern.

A `RuleSet` indexes the rules of one agent view once, so a check does not scan every rule:
plain prefixes sit in one dict per length (probed longest first), exact `$` patterns in one
dict, and only wildcard patterns are tried one by one, longest first, stopping as soon as no
remaining pattern could outrank the best match found. Lists of deep wildcard rules (hostile
near misses of dozens of `*`) go to a `wildcards.WildcardTrie` instead, where rules that share
their first segments share the searches. One check shares one `memo.LastAt` memo across every
rule it tries, so a literal many rules end on is searched once.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from itertools import compress, filterfalse, islice, repeat
from itertools import count as numbers
from operator import eq, itemgetter, le, lt, not_

from robotskit.core.glob import (
    Test,
    glob_match,
    last_at,
    outranks,
    pattern_matches,
    split_pattern,
)
from robotskit.core.memo import LastAt
from robotskit.core.model import Rule
from robotskit.core.parser import RawRule  # (line, allow?, value): a rule as the parser reads it
from robotskit.core.wildcards import RAW_WALKS, Tails, WildcardTrie

__all__ = ["RuleSet", "glob_match", "last_at", "pattern_matches", "split_pattern"]


def _kept(rules: Iterable[Rule]) -> tuple[Rule, ...]:
    """SPEC 2: an empty pattern is no rule. Paths always start with '/', so a pattern starting
    with anything but '/' or '*' can never match (Google keeps them and never matches them)."""
    every = tuple(rules)
    # One C-level pass tells whether any pattern must go; usually none does and the tuple is
    # kept as given.
    if _UNMATCHABLE.search("\n" + "\n".join(map(_pattern_of, every))) is not None:
        every = tuple(rule for rule in every if rule.pattern[:1] in ("/", "*"))
    return every


def _dispatch_key(pattern: str) -> str | None:
    """The second character every path this pattern matches must have; None if it could be any.

    Paths start with '/'. `/abc` needs `a`; `/$` needs the path to be `/` (key ""); `/`, `/*x`
    and `*x` can match any path.
    """
    if len(pattern) < 2 or pattern[0] == "*" or pattern[1] == "*":
        return None
    if pattern == "/$":
        return ""
    return pattern[1]


_outranks = outranks


def _priority(rule: Rule) -> tuple[int, bool, int]:
    return (-len(rule.pattern), not rule.allow, rule.line)


def _by_head(patterns: list[str], positions: list[int]) -> tuple[dict[str, list[int]], list[int]]:
    """The wildcard and `$` rules at `positions` whose head is more than `/`, by head, and the
    others' positions. A head is what a matching path starts with: the literal before the first
    `*`, or an exact pattern without its `$`. In C-level passes, but for a Python step per rule
    that shares its head with another.

    Rules whose sample (the first _SAMPLE) is mostly `/*X` get no index: their few headed rules
    stay with the others, tried as before, and a big set of `/*X` rules pays nothing for it
    (19,000 such rules: 3.5 ms of a first check)."""
    sample = map(patterns.__getitem__, positions[:_SAMPLE])
    headed_in_sample = sum(
        map(lt, repeat(1), map(len, map(itemgetter(0), map(str.partition, sample, repeat("*")))))
    )
    if headed_in_sample * 4 < min(len(positions), _SAMPLE):
        return {}, positions
    specials = list(map(patterns.__getitem__, positions))
    heads = list(map(itemgetter(0), map(str.partition, specials, repeat("*"))))
    exact = list(map(eq, heads, specials))  # (no `*`: a special rule is then an exact `$` pattern)
    if any(exact):
        heads = [head[:-1] if whole else head for head, whole in zip(heads, exact, strict=True)]
    headed = list(map(lt, repeat(1), map(len, heads)))
    loose = list(compress(positions, map(not_, headed)))
    heads = list(compress(heads, headed))
    kept = list(compress(positions, headed))
    distinct = set(heads)
    if len(distinct) == len(heads):
        return dict(zip(heads, map(list, zip(kept)), strict=True)), loose
    if len(distinct) == 1:  # (one head: a hostile file's, say)
        return {heads[0]: kept}, loose
    groups: dict[str, list[int]] = {}
    for head, position in zip(heads, kept, strict=True):
        groups.setdefault(head, []).append(position)
    return groups, loose


def _deciders(
    patterns: list[str], rule_at: Callable[[int, str], Rule], raws: Sequence[RawRule] | None = None
) -> dict[str, int]:
    """For each pattern that repeats, the position of the rule that outranks the others (RFC 9309
    2.2.2: equal patterns are equally long; allow wins, then the earlier line). From `raws` (the
    rules as read, aligned with `patterns`) in C-level maps when their lines run in position
    order; else a Python step per rule whose pattern repeats, each rule built."""
    repeated = {pattern for pattern, seen in Counter(patterns).items() if seen > 1}
    copies = list(compress(range(len(patterns)), map(repeated.__contains__, patterns)))
    if raws is not None:
        found = _deciders_in_line_order(patterns, copies, raws)
        if found is not None:
            return found
    deciding: dict[str, Rule] = {}
    positions: dict[str, int] = {}
    for position in copies:
        pattern = patterns[position]
        rule = rule_at(position, pattern)
        if _outranks(rule, deciding.get(pattern)):
            deciding[pattern] = rule
            positions[pattern] = position
    return positions


def _deciders_in_line_order(
    patterns: list[str], copies: list[int], raws: Sequence[RawRule]
) -> dict[str, int] | None:
    """`_deciders` of the rules at `copies` (ascending) when their lines do not decrease (a rule
    set's, built from its groups in file order): each pattern's first allow rule, else its first
    rule. None when the lines run otherwise. (10,000 copies of one rule: a Rule built and
    compared per copy took 15 ms of a first check.)"""
    rows = list(map(raws.__getitem__, copies))
    lines = list(map(itemgetter(0), rows))
    if not all(map(le, lines, islice(lines, 1, None))):
        return None
    copied = list(map(patterns.__getitem__, copies))
    deciders = dict(zip(reversed(copied), reversed(copies), strict=True))  # (a dict keeps the last)
    allowed = list(map(itemgetter(1), rows))
    if any(allowed):  # an allow rule outranks its disallow copies, wherever they stand
        firsts = reversed(list(compress(copies, allowed)))
        deciders.update(zip(reversed(list(compress(copied, allowed))), firsts, strict=True))
    return deciders


def _without_repeats(
    patterns: list[str], deciders: dict[str, int], special: list[int], starred: list[int], stars: list[int]
) -> tuple[list[int], list[int], list[int]]:
    """`special`, `starred` and `stars` (the wildcard and `$` rules' positions, ascending; those
    holding a `*`, and how many each holds) without the rules whose pattern repeats and that do
    not decide among its copies (`deciders`, from `_deciders`)."""
    # A rule is kept when its pattern does not repeat (its own position stands in) or it decides.
    kept = list(
        compress(special, map(eq, map(deciders.get, map(patterns.__getitem__, special), special), special))
    )
    if len(kept) == len(special):
        return special, starred, stars
    held = list(map(set(kept).__contains__, starred))
    return kept, list(compress(starred, held)), list(compress(stars, held))


def _always(path: str, memo: LastAt) -> bool:
    return True


def wildcard_test(pattern: str) -> Test:
    """A fast test for one wildcard pattern: the common shapes get one string operation, and
    every other shape first checks that its longest literal segment occurs at all (a C-speed
    rejection that keeps thousands of hostile patterns cheap) before the greedy match."""
    segments, anchored = split_pattern(pattern)
    if len(segments) == 2 and segments[0] in ("", "/"):
        head, tail = len(segments[0]), segments[1]
        if anchored:  # `/*.pdf$`
            return lambda path, memo: path.endswith(tail) and len(path) - len(tail) >= head
        if not tail:  # `/*` or `*`
            return _always if head == 0 else (lambda path, memo: path.startswith("/"))
        return lambda path, memo: path.find(tail, head) >= 0  # `/*?`, `/*/feed/`
    longest = max(segments, key=len)
    if not longest:
        return lambda path, memo: glob_match(segments, anchored, path, memo)
    first = segments[0]
    if len(first) > 1:
        # The head must start the path: a test of its few characters, where the search for the
        # longest literal scans the whole path to fail (1,000 `/ab*cd<i>` rules in a list, a
        # 5,000-character path: 3.2 ms a check, each rule's search 3 µs).
        def test_head_first(path: str, memo: LastAt) -> bool:
            return path.startswith(first) and longest in path and glob_match(segments, anchored, path, memo)

        return test_head_first

    def test(path: str, memo: LastAt) -> bool:
        return longest in path and glob_match(segments, anchored, path, memo)

    return test


# A wildcard rule ready to test: the rule, its test, and the characters any match must contain.
Wildcard = tuple[Rule, Test, frozenset[str]]
# On paths at least this long, and with at least this many wildcard rules, a check first takes
# the set of the path's characters: a rule needing a character the path lacks is skipped for
# the price of a subset test, which keeps thousands of hostile `/*a*<i>*b` rules cheap.
LONG_PATH = 256
MANY_WILDCARDS = 16
# Below this many rules a rule set is one bucket (see RuleSet).
SMALL_RULE_SET = 32
# Checks answered by a plain scan before the index is built.
INDEX_AFTER = 4
# A rule set of more rules than this gets the flat index (`_Flat`) on its first check: a few
# C-level passes over its patterns, where a scan or the per-rule index would cost milliseconds.
BIG_SET = 256
# A deferred set's text this long per rule of BIG_SET: telling its size by splitting off BIG_SET
# patterns costs less than counting its line breaks.
_LONG_TEXT_PER_RULE = 128
# How many of a big set's first patterns tell whether it is mostly wildcards (`_Flat`).
_SAMPLE = 32
# A big set of deep wildcard rules has its first check answered by walking the rules that pass
# the bulk tail test, when at most this many do, as the trie would (`_big_best`); more, and the
# check builds the index ...
BIG_FIRST_WALKS = RAW_WALKS
# ... for a set of at most this many rules (its index, about 0.2 ms per 1,000 deep rules, is then
# built by the second check; a bigger one is built by the first, as for any big set).
BIG_FIRST_RULES = 8000
# An unindexed scan of a set of at least this many rules and TRIE_SEGMENTS `*` first runs the bulk
# tail test over its patterns (`wildcards.Tails`), and walks only the rules that pass it.
SCAN_TAILS_RULES = 16
# A flat index gives its wildcard and `$` rules the per-rule index this many at a time (a
# chunk of 24 costs about 0.3 ms to index, so that no check of a hostile file passes 1 ms).
SPECIAL_CHUNK = 24
# A flat index whose rules neither headed nor deep (`/*X...`) hold this many of one `*` or more
# matches a long path (LONG_PATH) against them with a trie (`_Flat`), whose literal filter and
# bulk tail test reject most at once: 5,000 `/*ab*cd<i>` rules on a 5,000-character path, 19 ms
# a check searched one by one; 1,000 `*<six random characters>` rules, 3.7 ms -> 0.4 ms (one
# `find` each over the whole path before). Short paths keep the per-rule tests, which their
# character filter makes cheaper there (a real file of 925 such rules and its own URLs: 37 µs a
# check, against 307 µs through the trie).
LOOSE_TRIE_STARS = 1
LOOSE_TRIE_RULES = 64
# ... unless the path's characters leave at most this many of them: those are tried one by one
# (1,000 `/*a*<i>*b` rules and a path without `b`: none left, 0.05 ms a check).
LONG_PATH_WALKS = RAW_WALKS
# More rules left to try than this by the path's characters are first tested on their literals.
FEW_CANDIDATES = 16
# After this many empty lines found one by one, `emptied_lines` takes the rest from one split.
MANY_EMPTIED = 32
# The one-search pre-test for `/*X` rules is an alternation of their literals; compiling one of
# more characters than this costs the regex compiler milliseconds, so they are tried one by one.
MAX_NEEDLE_CHARS = 400
# In "\n" + the "\n"-joined patterns of a rule set: a pattern that is empty or starts with
# neither '/' nor '*'. Led by a literal, so the regex engine skips ahead to each "\n" in C.
_UNMATCHABLE = re.compile(r"\n(?![/*])")
_pattern_of = itemgetter(2)  # Rule.pattern, without the property call


def _wildcard(rule: Rule, segments: tuple[str, ...], anchored: bool) -> Wildcard:
    if len(segments) > TRIE_DEPTH:
        # Deep: meant for a trie, which reads neither; should its list stay a list, the plain greedy
        # test (with its tail test) is what the pre-tests would end in anyway. Its segments are
        # split on its first test (the index holds `_DEEP` for them, see `_build_index`).
        split: list[tuple[tuple[str, ...], bool]] = []

        def deep_test(path: str, memo: LastAt) -> bool:
            if not split:
                split.append(split_pattern(rule.pattern))  # (racing threads append equal pairs)
            return glob_match(*split[0], path, memo)

        return rule, deep_test, _NO_CHARS
    test = wildcard_test(rule.pattern) if len(segments) > 1 else _always
    return rule, test, frozenset("".join(segments))


_NO_CHARS: frozenset[str] = frozenset()


# Wildcard rules in priority order, and a trie of them when they are many and deep (see `_group`).
WildcardGroup = tuple[tuple[Wildcard, ...], WildcardTrie | None]
# A list of wildcard rules gets a trie when its rules hold at least this many segments in all, and
# this many per rule on average: near misses of dozens of `*` then share their searches, while
# lists of short patterns keep the per-rule character filter, which rejects them for less.
TRIE_SEGMENTS = 256
TRIE_DEPTH = 6
# What the index holds as the segments of a deep rule (TRIE_DEPTH `*` or more): only its count
# is read (more than TRIE_DEPTH: deep), never its segments (`_wildcard` splits the pattern).
_DEEP: tuple[str, ...] = ("",) * (TRIE_DEPTH + 1)


def _group(entries: Sequence[Wildcard]) -> WildcardGroup:
    ordered = tuple(sorted(entries, key=lambda item: _priority(item[0])))
    segments = sum(rule.pattern.count("*") + 1 for rule, _, _ in ordered)
    if segments < TRIE_SEGMENTS or segments < TRIE_DEPTH * len(ordered):
        return ordered, None
    rules = tuple(rule for rule, _, _ in ordered)
    if any("*" not in rule.pattern and rule.pattern.endswith("$") for rule in rules):
        return ordered, None  # an exact `$` pattern is no trie path (never in these lists, but be sure)
    return ordered, WildcardTrie.of_pairs(
        [(rule.pattern, key) for key, rule in enumerate(rules)], rules.__getitem__
    )


def _best_wildcard(
    group: WildcardGroup, path: str, best: Rule | None, chars: frozenset[str] | None, memo: LastAt
) -> Rule | None:
    """The best-ranked entry that matches and outranks `best`, else `best`."""
    entries, trie = group
    if trie is not None:
        return trie.best(path, best, memo)
    for rule, test, required in entries:
        if best is not None and not _outranks(rule, best):
            break  # sorted by priority: nothing left can outrank the best match
        if (chars is None or required <= chars) and test(path, memo):
            return rule
    return best


def _required_literal(segments: tuple[str, ...]) -> str:
    """The longest literal any match of the split pattern must contain ("" if none is worth testing).

    The leading '/' is left out: every path has it.
    """
    candidates = segments[1:] if segments[0] in ("", "/") else segments
    return max(candidates, key=len, default="")


def _split_anywhere(
    anywhere: list[tuple[Rule, tuple[str, ...], bool]],
) -> tuple[
    tuple[Callable[[str], re.Match[str] | None], WildcardGroup] | None,
    tuple[tuple[str, ...], WildcardGroup] | None,
    WildcardGroup,
]:
    """Sort rules that can match any path by shape, each shape with a one-call pre-test.

    `/*X$` and `*X$` can only match a path ending in X: one `endswith` with a tuple rules them
    all out at once. Any other rule with a literal (`/*X`, `/*/a/*/`) can only match a path
    containing its longest literal: one search for any of them (a literal alternation, which
    cannot backtrack) rules them all out. Rules with no literal (`/`, `/*`) are always tried.
    Each list keeps priority order; a pre-test hit only means "try these".
    """
    literal: list[tuple[Wildcard, str]] = []
    suffixes: list[tuple[Wildcard, str]] = []
    always: list[Wildcard] = []
    for rule, segments, anchored in anywhere:
        entry = _wildcard(rule, segments, anchored)
        deep = len(segments) > TRIE_DEPTH  # for a trie: no regex to compile for them
        required = "" if deep else _required_literal(segments)
        if anchored and len(segments) == 2 and segments[0] in ("", "/") and segments[1]:
            suffixes.append((entry, segments[1]))
        elif required:
            literal.append((entry, required))
        else:
            always.append(entry)
    literal_test = None
    needles = sorted({needle for _, needle in literal}, key=len, reverse=True)
    if sum(map(len, needles)) > MAX_NEEDLE_CHARS:  # bounded compile: these are tried one by one
        always = [*always, *(entry for entry, _ in literal)]
        literal = []
    if literal:
        literal_test = (re.compile("|".join(map(re.escape, needles))).search, _group([e for e, _ in literal]))
    suffix_test = None
    if suffixes:
        suffix_test = (tuple({end for _, end in suffixes}), _group([e for e, _ in suffixes]))
    return literal_test, suffix_test, _group(always)


class _Bucket:
    """The rules whose pattern starts with `/c` for one character c (or every other rule)."""

    __slots__ = ("exact", "lengths", "prefixes", "wildcards")

    def __init__(self, rules: Sequence[tuple[Rule, tuple[str, ...], bool]]) -> None:
        prefixes: dict[int, dict[str, Rule]] = {}
        exact: dict[str, Rule] = {}
        wildcards: list[Wildcard] = []
        for rule, segments, anchored in rules:
            if len(segments) > 1:
                wildcards.append(_wildcard(rule, segments, anchored))
            elif anchored:
                if _outranks(rule, exact.get(segments[0])):
                    exact[segments[0]] = rule
            else:
                bucket = prefixes.setdefault(len(rule.pattern), {})
                if _outranks(rule, bucket.get(rule.pattern)):
                    bucket[rule.pattern] = rule
        self.prefixes = prefixes
        self.lengths = tuple(sorted(prefixes, reverse=True))
        self.exact = exact
        self.wildcards = _group(wildcards) if wildcards else None

    def best_beyond_prefix(
        self, path: str, best: Rule | None, chars: frozenset[str] | None, memo: LastAt
    ) -> Rule | None:
        """Given the best prefix match, the bucket's exact or wildcard rule that outranks it, if any."""
        if self.exact:
            rule = self.exact.get(path)
            if rule is not None and _outranks(rule, best):
                best = rule
        wildcards = self.wildcards
        return best if wildcards is None else _best_wildcard(wildcards, path, best, chars, memo)


class _Flat:
    """The index of a big rule set, built by C-level passes over its patterns (no Python step per rule).

    Plain prefixes: one dict from pattern to the position of the rule that decides among equal
    patterns (allow, then the earlier line), probed with the path's prefixes, longest first. A
    dict hit is a match unless the pattern ends in `$` (a path with a literal `*` matches the same
    pattern as a wildcard too). Wildcard and `$` rules get the per-rule index in chunks of
    `SPECIAL_CHUNK`, one chunk per check from the INDEX_AFTER-th on, so no check pays for all of
    them; the rules no chunk holds yet are scanned, trying only the patterns whose every literal
    character occurs in the path (found with one `bytes.translate` over their text: a pattern can
    only match a path that holds all its characters; when many are left, then only those whose
    every literal occurs in it). Deep wildcard rules (at least TRIE_DEPTH
    `*`) go to one `WildcardTrie` instead, which grows by itself, a budget per check.

    A wildcard or `$` rule whose head (what comes before its first `*`, or an exact pattern
    without its `$`) is more than `/` can only match a path that starts with that head: such
    rules are found by probing the path's prefixes in one dict, per head length, and only
    those tested (the chunks and the scan, which try every rule whose characters the path
    holds, tried them all on a long path: 22,000 `/ab*cd<i>` rules, 10 ms a check).
    """

    __slots__ = (
        "_calls",
        "_first",
        "_head_lengths",
        "_head_tries",
        "_heads",
        "_left",
        "_lengths",
        "_long_path_trie",
        "_loose_deep",
        "_patterns",
        "_rule_at",
        "_special",
        "_special_text",
        "_trie",
    )

    _head_tries: dict[str, tuple[WildcardTrie, list[int]]]

    def __init__(
        self,
        patterns: list[str],
        rule_at: Callable[[int, str], Rule],
        text: str,
        tails: Tails | None = None,
        raws: Sequence[RawRule] | None = None,
    ) -> None:
        """`text`: the patterns joined by "\n" (only searched, for `*` and `$`); `tails`: the bulk
        tail test of `patterns`, if known (the trie takes it when it holds every pattern); `raws`:
        the rules as read, aligned with `patterns`, if known (equal patterns are then ranked
        without building their rules)."""
        count = len(patterns)
        # The patterns holding a `*` and how many each holds (one or two C-level passes).
        starred: list[int] = []
        stars: list[int] = []
        if "*" in text:
            if sum(map(str.__contains__, patterns[:_SAMPLE], repeat("*"))) * 2 > min(count, _SAMPLE):
                # Mostly wildcards (a hostile file): one count per pattern tells both.
                every = list(map(str.count, patterns, repeat("*")))
                starred = list(compress(range(count), every))
                stars = every if len(starred) == count else list(compress(every, every))
            else:
                starred = list(compress(range(count), map(str.__contains__, patterns, repeat("*"))))
                stars = list(map(str.count, map(patterns.__getitem__, starred), repeat("*")))
        special = starred
        if "$" in text:
            special = sorted({*starred, *compress(range(count), map(str.endswith, patterns, repeat("$")))})
        first: dict[str, int] = {}
        if len(special) < count:  # else no plain prefix: the dict would only repeat the special rules
            first = dict(zip(reversed(patterns), range(count - 1, -1, -1), strict=True))
        if (len(first) if first else len(set(patterns))) < count:
            # Equal patterns: the rule that outranks the others decides, in the prefix dict, and
            # only it is kept among the wildcard and `$` rules (10,000 copies of `/*a*b` were
            # each walked on every check: 9.7 ms a check on a 5,000-character path).
            deciders = _deciders(patterns, rule_at, raws)
            if first:
                first.update(deciders)
            special, starred, stars = _without_repeats(patterns, deciders, special, starred, stars)
        deep = list(compress(starred, map(TRIE_DEPTH.__le__, stars)))
        self._trie: WildcardTrie | None = None
        if len(deep) > 1:
            deep_patterns = patterns
            if len(deep) < count:
                special = list(filterfalse(set(deep).__contains__, special))
                deep_patterns = list(map(patterns.__getitem__, deep))
            else:
                special = []
            self._trie = WildcardTrie(
                deep_patterns,
                deep,
                lambda position: rule_at(position, patterns[position]),
                tails if deep_patterns is patterns else None,  # (its indexes are those of `patterns`)
            )
        heads, special = _by_head(patterns, special)
        self._heads, self._head_tries = heads, {}  # (the tries: see `_head_trie_best`)
        self._loose_deep = -1  # how many of `special` hold LOOSE_TRIE_STARS `*` or more (-1: not counted yet)
        self._long_path_trie: tuple[WildcardTrie, list[int]] | None = None
        self._head_lengths = tuple(sorted(set(map(len, heads)), reverse=True))
        self._patterns = patterns
        self._rule_at = rule_at
        self._first = first
        self._lengths = tuple(sorted(set(map(len, first)) - {0}, reverse=True))
        self._special = special
        self._calls = 0
        # `_left` is one tuple, replaced whole, so a racing thread reads a consistent state.
        # (bytes: `bytes.translate` deletes the path's characters in a table pass, where
        # `str.translate` looks each one up in a dict; the filter took 0.6-1.0 against 2.5-3.5 ms
        # a check over the 320 KB of patterns of the 500 KiB benchmark file of wildcards)
        self._special_text = "\n".join(map(patterns.__getitem__, special)).encode("utf-8", "surrogatepass")
        # (chunks, where the rest of `special` starts, and where its patterns start in the text)
        self._left: tuple[tuple[RuleSet, ...], int, int] = ((), 0, 0)

    def best(self, path: str, tested: tuple[Tails, LastAt, list[int]] | None = None) -> Rule | None:
        """`tested`: the tail test given to `__init__`, this check's memo and the rules that passed
        it (the set's first check ran it), so the trie does not run it again."""
        best: Rule | None = None
        first = self._first
        path_length = len(path)
        for length in self._lengths:
            if length <= path_length:
                prefix = path[:length]
                position = first.get(prefix)
                if position is not None and prefix[-1] != "$":
                    best = self._rule_at(position, prefix)
                    break
        if self._heads:
            best = self._headed_best(path, best)
        trie = self._trie
        if not self._special:
            if trie is None:
                return best
            if tested is not None:
                tails, memo, passing = tested
                return trie.best(path, best, memo, (tails, passing))
            return trie.best(path, best, LastAt())
        # The other wildcard rules (`/*X...`) are each searched for in the path, which on a long
        # path costs microseconds a rule: when many hold a `*` (LOOSE_TRIE_STARS), a long path is
        # matched against them all by a trie's filters instead (counted and built on the first
        # long path: a set asked only about short ones never pays for either).
        if len(path) >= LONG_PATH and self._loose_starred_rules() >= LOOSE_TRIE_RULES:
            memo = LastAt()
            best = self._long_path_best(path, best, memo)
            return best if trie is None else trie.best(path, best, memo)
        chunks, start, offset = self._left
        if start < len(self._special):
            self._calls += 1
            if self._calls >= INDEX_AFTER:  # index one more chunk: this check pays for one only
                chunks, start, offset = self._left = self._next_chunk(chunks, start, offset)
        chars = frozenset(path) if chunks and len(path) >= LONG_PATH else None  # once for all chunks
        memo = LastAt()  # one for the check: chunks that end on the same literal search it once
        for chunk in chunks:
            other = chunk._indexed_best(path, chars, memo)
            if other is not None and _outranks(other, best):
                best = other
        if start < len(self._special):
            other = self._filtered_scan(path, start, offset, memo)
            if other is not None and _outranks(other, best):
                best = other
        return best if trie is None else trie.best(path, best, memo)

    def _loose_starred_rules(self) -> int:
        count = self._loose_deep
        if count < 0:
            if LOOSE_TRIE_STARS <= 1 and b"$" not in self._special_text:
                count = len(self._special)  # (no `$` rule among them: every one holds a `*`)
            else:
                stars = map(str.count, map(self._patterns.__getitem__, self._special), repeat("*"))
                count = sum(map(LOOSE_TRIE_STARS.__le__, stars))
            self._loose_deep = count
        return count

    def _long_path_best(self, path: str, best: Rule | None, memo: LastAt) -> Rule | None:
        """`best` against the rules neither headed nor deep, for a long path: their trie (racing
        threads build equal ones) and, tried one by one, those without `*` among them (`/$`:
        exact, the trie takes none); or, on the first checks, the rules whose every character
        the path holds, tried one by one, when they are few (LONG_PATH_WALKS)."""
        found = self._long_path_trie
        if found is None:
            # Before the trie is built, the filter may leave few enough to try; from the
            # INDEX_AFTER-th check on (short paths count too: one counter paces the chunks and
            # this) the trie is built anyway: its bulk test costs a fraction of the filter's pass
            # over every pattern (50 against 200 µs a check).
            self._calls += 1
            holding = holding_every_character(path, 0, self._special_text)
            if len(holding) <= LONG_PATH_WALKS and self._calls < INDEX_AFTER:
                return self._best_at(holding, path, best, memo)
            found = self._long_path_trie = self._trie_of(self._special)
        trie, exact = found
        return trie.best(path, self._best_among(exact, path, best, memo), memo)

    def _trie_of(self, positions: list[int]) -> tuple[WildcardTrie, list[int]]:
        """The trie of the rules at `positions` that hold a `*`, and the others' positions (exact
        `$` patterns: no trie path; they are tried one by one)."""
        patterns, rule_at = self._patterns, self._rule_at
        starred = list(map(str.__contains__, map(patterns.__getitem__, positions), repeat("*")))
        keys = list(compress(positions, starred))
        trie = WildcardTrie(
            list(map(patterns.__getitem__, keys)),
            keys,
            lambda position: rule_at(position, patterns[position]),
            precedence=True,  # (rules of fewer than TRIE_DEPTH `*`: the deep ones have their own trie)
        )
        return trie, list(compress(positions, map(not_, starred)))

    def _headed_best(self, path: str, best: Rule | None) -> Rule | None:
        """`best` against the headed rules whose head starts the path (one dict probe per length):
        tried one by one, or, for LOOSE_TRIE_RULES or more on a long path, through a trie of
        theirs (its literal filter and bulk tail test: 1,000 `/%E2%82%AC*<three random letters>`
        rules against a path of 1,666 `€`, 15,000 characters once encoded, cost 6.3 ms a check
        one by one)."""
        heads = self._heads
        memo = LastAt()
        path_length = len(path)
        for length in self._head_lengths:
            if length > path_length:
                continue
            head = path[:length]
            positions = heads.get(head)
            if positions is not None:
                if path_length >= LONG_PATH and len(positions) >= LOOSE_TRIE_RULES:
                    best = self._head_trie_best(head, positions, path, best, memo)
                else:
                    best = self._best_among(positions, path, best, memo)
        return best

    def _head_trie_best(
        self, head: str, positions: list[int], path: str, best: Rule | None, memo: LastAt
    ) -> Rule | None:
        """`best` against the rules at `positions` (one head's), through their trie and, one by one,
        those without `*` among them (exact `$` patterns: no trie path). Racing threads build
        equal tries."""
        found = self._head_tries.get(head)
        if found is None:
            found = self._head_tries[head] = self._trie_of(positions)
        trie, exact = found
        return trie.best(path, self._best_among(exact, path, best, memo), memo)

    def _next_chunk(
        self, chunks: tuple[RuleSet, ...], start: int, offset: int
    ) -> tuple[tuple[RuleSet, ...], int, int]:
        patterns, special, text = self._patterns, self._special, self._special_text
        end = min(start + SPECIAL_CHUNK, len(special))
        chunk = RuleSet([self._rule_at(position, patterns[position]) for position in special[start:end]])
        chunk._build_index()
        # The rest's patterns start after the chunk's line breaks (a chunk's worth of C-level
        # searches; joining the rest anew cost 1 ms a check on 19,000 rules).
        for _ in range(end - start):
            offset = text.find(b"\n", offset) + 1
        return (*chunks, chunk), end, offset if offset > 0 else len(text)

    def _filtered_scan(self, path: str, start: int, offset: int, memo: LastAt) -> Rule | None:
        """The best wildcard or `$` rule from `special[start:]` (their patterns start at `offset`
        of the special text)."""
        return self._best_at(
            holding_every_character(path, start, self._special_text, offset), path, None, memo
        )

    def _best_at(self, indexes: list[int], path: str, best: Rule | None, memo: LastAt) -> Rule | None:
        """`best` against the rules at `special[i]` for i in `indexes`, each tried on its own (when
        they are many, only those whose every literal occurs in the path: a containment test per
        literal costs a fraction of the greedy walk, and a path holding a near miss's characters
        seldom holds its literals; 500 KiB of `/*<n>a*b<i>*.php` rules, 668 left by the
        characters, none by the literals)."""
        positions = list(map(self._special.__getitem__, indexes))
        if len(positions) > FEW_CANDIDATES:
            held = map(_literals_in, map(self._patterns.__getitem__, positions), repeat(path))
            positions = list(compress(positions, held))
        return self._best_among(positions, path, best, memo)

    def _best_among(
        self, positions: Iterable[int], path: str, best: Rule | None, memo: LastAt
    ) -> Rule | None:
        """`best` against the rules at `positions` (of the set), each tried on its own."""
        patterns, rule_at = self._patterns, self._rule_at
        for position in positions:
            pattern = patterns[position]
            if pattern_matches(pattern, path, memo):
                rule = rule_at(position, pattern)
                if _outranks(rule, best):
                    best = rule
        return best


def _literals_in(pattern: str, path: str) -> bool:
    """Does `path` hold every literal of `pattern` (a necessary condition for a match)?"""
    contains = path.__contains__
    return all(map(contains, (pattern[:-1] if pattern[-1:] == "$" else pattern).split("*")))


def holding_every_character(path: str, start: int, text: bytes, offset: int = 0) -> list[int]:
    """The indexes (from `start`) of the "\n"-joined patterns of `text[offset:]` (their UTF-8) whose
    every literal character the path holds: one `bytes.translate` deletes the path's bytes (and
    `*`, `$`, which are no literal a path must hold), and the patterns left empty are these. A
    safe superset: a character whose bytes all occur in the path's, itself absent, is deleted too."""
    deleted = path.encode("utf-8", "surrogatepass").replace(b"\n", b"") + b"*$"  # keep the separators
    return emptied_lines(b"\n" + text[offset:].translate(None, deleted) + b"\n", start)


def emptied_lines(left: bytes, first: int = 0) -> list[int]:
    """The indexes (the first line's is `first`) of the empty lines of `left`, which starts and
    ends with "\n" (and has a line between each two): C-level searches, a Python step per empty
    line only; after MANY_EMPTIED of them among the first 4 * MANY_EMPTIED lines, the rest from
    one split, in C-level passes (a filter that empties every line, a long random path holding
    every character: 1,000 `/*ab*cd<i>` patterns, about 300 µs by the searches)."""
    found: list[int] = []
    index = first  # line `index` (less `first`) follows that many line breaks, counted up to `counted`
    counted = 0
    at = left.find(b"\n\n")
    while at >= 0:
        index += left.count(b"\n", counted, at)
        counted = at
        found.append(index)
        if len(found) == MANY_EMPTIED and (index - first + 1) <= 4 * MANY_EMPTIED:
            # (dense: a quarter of the lines so far or more; a split of a long text with few empty
            # lines would cost more than their searches: 19,000 patterns, a few hundred empty)
            # left[at + 1:] has the form of `left` (its first line is line index + 1): the lines
            # between its first and last "\n", empty ones false under `not_`
            lines = left[at + 1 :].split(b"\n")
            found += compress(numbers(index + 1), map(not_, lines[1:-1]))
            break
        at = left.find(b"\n\n", at + 1)
    return found


def _best_of(
    indexes: Iterable[int],
    patterns: Sequence[str],
    shift: int,
    rule_at: Callable[[int, str], Rule],
    path: str,
    memo: LastAt,
) -> Rule | None:
    """The best rule among `patterns[i]` for i in `indexes` that match `path`, each tried on its
    own; `rule_at(i - shift, pattern)` is pattern i's rule. Empty patterns are no rules."""
    best: Rule | None = None
    best_length = 1
    for index in indexes:
        pattern = patterns[index]
        if len(pattern) < best_length:
            continue  # shorter than the best match: cannot outrank it
        if "*" in pattern or pattern[-1] == "$":
            if not pattern_matches(pattern, path, memo):
                continue
        elif not path.startswith(pattern):
            continue
        rule = rule_at(index - shift, pattern)
        if _outranks(rule, best):
            best, best_length = rule, len(pattern)
    return best


class RuleSet:
    """The rules that apply to one agent view, indexed so a check does not scan every rule.

    Rules are split by the second character of their pattern (paths all start with '/'): a
    path only consults its own bucket, plus the few rules that can match anywhere (`/`, `/*x`).
    Within a bucket, plain prefixes are probed by length in one dict per length, exact `$`
    patterns in one dict, and wildcard patterns are tried longest first with an early stop.
    Immutable after construction; safe to share between threads.
    """

    __slots__ = (
        "_anywhere",
        "_big_tails",
        "_buckets",
        "_build",
        "_calls",
        "_contains",
        "_flat",
        "_line_tails",
        "_listed",
        "_many_wildcards",
        "_only",
        "_raws",
        "_rule_at",
        "_rule_tails",
        "_rules",
        "_suffixes",
        "_text",
    )

    def __init__(self, rules: Iterable[Rule]) -> None:
        self._rules: tuple[Rule, ...] | None = _kept(rules)
        # Deferred sets only (see `deferred`): the patterns as "\n" + joined + "\n", and how
        # to build the rules.
        self._text = ""
        self._build: Callable[[], Iterable[Rule]] | None = None
        self._listed: list[str] | None = None  # the patterns as a list, if the caller had one
        self._raws: Sequence[RawRule] | None = None  # the rules as read, if the caller had them
        self._rule_at: Callable[[int, str], Rule] | None = None
        # The index is built on the INDEX_AFTER-th check: a file checked once or twice (a batch
        # audit, a one-off CLI run) never pays for it, a crawler's hot host pays once.
        self._calls = 0
        self._only: _Bucket | None = None
        self._buckets: dict[str, _Bucket] = {}
        self._anywhere: WildcardGroup | None = None
        self._contains: tuple[Callable[[str], re.Match[str] | None], WildcardGroup] | None = None
        self._suffixes: tuple[tuple[str, ...], WildcardGroup] | None = None
        self._many_wildcards = False
        self._flat: _Flat | None = None
        # A big set's tail test, built by its first check (`_big_best`) and handed to its index.
        self._big_tails: Tails | None = None
        # The scans' bulk tail tests (`_scan_tails`), once known: of the text's lines; of the rules,
        # with their patterns.
        self._line_tails: tuple[Tails | None] | None = None
        self._rule_tails: tuple[Tails | None, list[str]] | None = None

    @classmethod
    def deferred(
        cls,
        patterns: str,
        build: Callable[[], Iterable[Rule]],
        rule_at: Callable[[int, str], Rule],
        listed: list[str] | None = None,
        raws: Sequence[RawRule] | None = None,
    ) -> RuleSet:
        """A rule set whose `Rule`s are only built when needed (the index, `matching`, `.rules`).

        `build()` returns the rules, `patterns` their patterns joined by "\n" (none holds one),
        and `rule_at(i, pattern)` equals the i-th rule `build` returns. Until the index is built
        a check reads `patterns` with C-level searches for the lines that could match, so the
        first checks of a big group cost little more than one pass over its text. `listed`: the
        same patterns as a list, if the caller has one (the index then needs no split; never
        changed here). `raws`: the rules as read, (line, allow?, value) with the line and kind
        of `rule_at(i, ...)` at i, if the caller has them (see `_deciders`).
        """
        rule_set = cls(())
        rule_set._rules = None
        rule_set._text = "\n" + patterns + "\n"
        rule_set._build = build
        rule_set._rule_at = rule_at
        rule_set._listed = listed
        rule_set._raws = raws
        return rule_set

    @property
    def rules(self) -> tuple[Rule, ...]:
        """The rules that can match some path, in the order given."""
        rules = self._rules
        if rules is None:
            assert self._build is not None
            rules = self._rules = _kept(self._build())  # idempotent: racing threads build equal tuples
        return rules

    @property
    def size(self) -> int:
        """How many rules the set holds, without building a deferred set's rules (an upper bound:
        a deferred set counts the patterns that can never match too)."""
        rules = self._rules
        return len(rules) if rules is not None else self._text.count("\n") - 1

    def _more_than(self, count: int) -> bool:
        """`size > count`, found for a long deferred text by splitting off its first `count` + 1
        patterns (a cost bounded by `count`), not by counting every line break."""
        text = self._text
        if self._rules is not None or len(text) < _LONG_TEXT_PER_RULE * count:
            return self.size > count
        # "\n" + the patterns joined + "\n": more than `count` patterns split off `count` + 3 pieces
        return len(text.split("\n", count + 2)) == count + 3

    def _flat_patterns(
        self,
    ) -> tuple[list[str], Callable[[int, str], Rule], str, Sequence[RawRule] | None] | None:
        """Every pattern, the rule at a position, the patterns joined and the rules as read (if
        known), for `_Flat`; None if a pattern holds a "\n"."""
        if self._rules is None:
            assert self._rule_at is not None
            listed = self._listed
            patterns = listed if listed is not None else self._text[1:-1].split("\n")
            return patterns, self._rule_at, self._text, self._raws
        rules = self._rules
        patterns = list(map(_pattern_of, rules))
        joined = "\n".join(patterns)
        if joined.count("\n") != len(patterns) - 1:
            return None
        return patterns, lambda position, pattern: rules[position], joined, None

    @property
    def empty(self) -> bool:
        """True if no rule can match any path (without building a deferred set's rules)."""
        if self._rules is not None:
            return not self._rules
        text = self._text
        return "\n/" not in text and "\n*" not in text

    def _build_index(self) -> None:
        kept = self.rules
        by_key: dict[str, list[tuple[Rule, tuple[str, ...], bool]]] = {}
        anywhere: list[tuple[Rule, tuple[str, ...], bool]] = []
        small = len(kept) < SMALL_RULE_SET
        for rule in kept:
            if rule.pattern.count("*") >= TRIE_DEPTH:
                # A deep rule goes to a trie, which splits patterns itself: splitting 100 rules
                # of 200 `*` here cost 0.5 ms of one check (the index's), for nothing.
                segments, anchored = _DEEP, rule.pattern.endswith("$")
            else:
                segments, anchored = split_pattern(rule.pattern)
            key = _dispatch_key(rule.pattern)
            if key is None:
                anywhere.append((rule, segments, anchored))
            else:
                by_key.setdefault("" if small else key, []).append((rule, segments, anchored))
        buckets = {key: _Bucket(bucket) for key, bucket in by_key.items()}
        wildcard_count = len(anywhere) + sum(
            len(bucket.wildcards[0]) for bucket in buckets.values() if bucket.wildcards is not None
        )
        contains, suffixes, general = _split_anywhere(anywhere)
        # Assign the finished index last: a thread racing this one sees either no index or all of it.
        self._contains = contains
        self._suffixes = suffixes
        self._anywhere = general if general[0] else None
        self._many_wildcards = wildcard_count >= MANY_WILDCARDS
        self._buckets = {} if small else buckets
        # A small set keeps one bucket for every path: dispatching would cost more than it saves.
        self._only = buckets.get("") if small else None
        self._calls = -1

    def _scan_tails(self, patterns: Sequence[str], text: str) -> tuple[Tails | None]:
        """The bulk tail test of the scanned `patterns` (joined: `text`) for a set of many `*`, or
        None: the scans then walk only the rules that pass it (a necessary condition)."""
        tails = None
        if len(patterns) >= SCAN_TAILS_RULES and text.count("*") >= TRIE_SEGMENTS:
            tails = Tails.of_patterns(patterns)
        return (tails,)

    def _scan(self, path: str) -> Rule | None:
        """The unindexed answer: one pass over the rules keeping the best match (SPEC 3)."""
        rules = self.rules
        known = self._rule_tails  # (built on the first scan; indexes of `rules`, and their patterns)
        if known is None:
            patterns = list(map(_pattern_of, rules))
            known = self._rule_tails = (*self._scan_tails(patterns, "\n".join(patterns)), patterns)
        tails, patterns = known
        memo = LastAt()
        indexes = range(len(rules)) if tails is None else tails.passing(path, 0, memo)
        return _best_of(indexes, patterns, 0, lambda index, pattern: rules[index], path, memo)

    def _scan_text(self, path: str) -> Rule | None:
        """`_scan` on a deferred set's text, building a `Rule` only for the patterns that match."""
        rule_at = self._rule_at
        assert rule_at is not None
        memo = LastAt()
        lines = self._text.split("\n")  # the text starts and ends with "\n": pattern i is line i + 1
        known = self._line_tails  # (built on the first scan; indexes of `lines`)
        if known is None:
            known = self._line_tails = self._scan_tails(lines, self._text)
        tails = known[0]
        indexes = range(len(lines)) if tails is None else tails.passing(path, 0, memo)
        return _best_of(indexes, lines, 1, rule_at, path, memo)

    def best(self, path: str) -> Rule | None:
        """The deciding rule for `path`, or None when no rule matches."""
        flat = self._flat
        if flat is not None:
            return flat.best(path)
        if self._calls >= 0:
            if self._calls == 0 and self._more_than(BIG_SET):
                found = self._flat_patterns()
                if found is not None:
                    return self._big_best(path, *found)
            self._calls += 1
            if self._calls < INDEX_AFTER:
                if self._rules is None and "\n" not in path:
                    return self._scan_text(path)
                return self._scan(path)
            self._build_index()
        return self._indexed_best(
            path, frozenset(path) if self._many_wildcards and len(path) >= LONG_PATH else None, None
        )

    def _big_best(
        self,
        path: str,
        patterns: list[str],
        rule_at: Callable[[int, str], Rule],
        text: str,
        raws: Sequence[RawRule] | None,
    ) -> Rule | None:
        """A big set's check, from the flat index. But the first check of a set of deep wildcard
        rules (at most BIG_FIRST_RULES) runs the bulk tail test first: when at most BIG_FIRST_WALKS
        rules pass it (near misses fail it), walking those is the answer, and the index (about
        0.2 ms per 1,000 rules) waits for a second check, which reuses the test (as does this
        check's index, with its survivors, when more passed)."""
        tails = self._big_tails
        tested = None
        # Deep wildcard rules, as a sample tells (a count of the whole text's `*` would cost a tenth
        # of this check), and not so many that building the index would stall the second check.
        if (
            tails is None
            and len(patterns) <= BIG_FIRST_RULES
            and min(map(str.count, patterns[:_SAMPLE], repeat("*"))) >= TRIE_DEPTH
        ):
            tails = Tails.of_patterns(patterns)
            memo = LastAt()
            passing, walks = tails.narrowed(path, 0, memo, BIG_FIRST_WALKS)
            if walks is not None:  # else the trie does better than walking them all
                self._big_tails = tails
                return _best_of(walks, patterns, 0, rule_at, path, memo)
            tested = (tails, memo, passing)
        flat = self._flat = _Flat(patterns, rule_at, text, tails, raws)
        self._calls = -1
        self._big_tails = None
        return flat.best(path, tested)

    def _indexed_best(self, path: str, chars: frozenset[str] | None, memo: LastAt | None) -> Rule | None:
        """`best` once the index is built; `chars`, the path's characters or None, filters wildcards;
        `memo`, the check's `LastAt` (one is made here when the check needs it and has none)."""
        bucket = self._only or self._buckets.get(path[1:2])
        best = None
        if bucket is not None:
            # The common case inlined: the longest plain prefix in the path's bucket.
            path_length = len(path)
            prefixes = bucket.prefixes
            for length in bucket.lengths:
                if length <= path_length:
                    best = prefixes[length].get(path[:length])
                    if best is not None:
                        break
            if bucket.exact or bucket.wildcards is not None:
                memo = LastAt() if memo is None else memo
                best = bucket.best_beyond_prefix(path, best, chars, memo)
        contains = self._contains
        if contains is not None and (chars is not None or contains[0](path) is not None):
            memo = LastAt() if memo is None else memo
            best = _best_wildcard(contains[1], path, best, chars, memo)  # some `/*X` may match: try them
        suffixes = self._suffixes
        if suffixes is not None and path.endswith(suffixes[0]):
            memo = LastAt() if memo is None else memo
            best = _best_wildcard(suffixes[1], path, best, chars, memo)  # some `/*X$` may match
        anywhere = self._anywhere
        if anywhere is None:
            return best
        return _best_wildcard(anywhere, path, best, chars, LastAt() if memo is None else memo)

    def matching(self, path: str) -> list[Rule]:
        """Every rule that matches `path`, deciding one first (for explain; scans all rules)."""
        found = [rule for rule in self.rules if pattern_matches(rule.pattern, path)]
        found.sort(key=_priority)
        return found
