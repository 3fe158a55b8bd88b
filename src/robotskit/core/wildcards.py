"""Many wildcard rules matched together: rules that share their first segments share the search.

A wildcard pattern `s0*s1*...*sk` matches greedily (`glob.glob_match`): `s0` at the start of the
path, then each segment at its leftmost occurrence after the previous one. The position reached after
`s0*...*sj` depends on that prefix only, so rules that share a prefix of segments can share its
searches. A `WildcardTrie` keeps deep wildcard rules (a bucket of the index, or the wildcard rules
of a big set) in a trie of segments: one `str.find` per node, and a node whose segment is not found
prunes every rule below it. A rule that shares no further segment with another (a "solo") is walked
on its own from its node, after the cheap tail test of `glob.tail_fits`.

The trie grows lazily so that no check pays for all of it: the rules not yet sorted into children
wait as `pending` (at the root: not even split yet), each check sorts at most `LastAt.budget` of them,
and the rules still pending are matched by the greedy walk from where they wait. One thread grows a
trie at a time (a lock taken without waiting: the others only read); growth replaces a node's whole
state at once, and hands rules to a child before the parent's state lets them go, so a thread
reading mid-growth sees every rule at least once (twice is harmless: the best match is the same).

The trie pays off for rules that get far along the path and part there; a near miss that fails
only at its end costs a walk to its last node either way. So a check first runs the tail test
over every rule in bulk (`Tails`: a few C-level passes), taken deeper when more than
`DEEP_WALKS` pass it (`Tails.deeper`: each rule walked back from its last literal, a literal per
pass): when at most `RAW_WALKS` rules are left, walking those is the whole check, and the trie
is neither consulted nor grown. A path that lets more through is answered by the trie, and the
next `BULK_RETRY` checks go to it directly (a set whose rules pass the test would otherwise pay for
it on every check). So do they when the bulk test cost more than `BULK_PROBE_NS` or than the trie's last check
(long literals searched far along the path: the trie, which searches from further on, can be
cheaper), except while the trie has never answered and the deeper test was needed (a cold trie
walks each rule that test rejects: a stall): each way is timed when it runs, and the cheaper one
kept. Timings only choose the way; both give the same, exact answer.

Before all of this, a path of FILTER_PATH characters or more goes to the literal filter
(`literal_filter`): the rules whose literals' first bytes the path lacks cannot match, and when few
are left, walking them is the check (numbered or random literals: `/*ab*cd<i>`). Where the path
holds the literals (near misses), the filter says so from a sample, builds nothing, and waits.

Priority (RFC 9309 2.2.2: the longest pattern wins, allow wins ties): each node knows the longest
pattern below it, and a subtree that cannot reach the best match's length is skipped.
"""

from __future__ import annotations

import threading
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from itertools import chain, compress, filterfalse, repeat, zip_longest
from operator import add, and_, eq, ge, is_not, itemgetter, le, not_, sub
from time import perf_counter_ns
from typing import cast

from robotskit.core.forward_walk import ForwardWalk
from robotskit.core.forward_walk import substrings as _substrings
from robotskit.core.glob import (
    TAIL_AFTER,
    last_at,
    outranks,
    pattern_matches,
    tail_fits,
)
from robotskit.core.literal_filter import LiteralFilter, path_grams
from robotskit.core.memo import LastAt
from robotskit.core.model import Rule

# One rule as the trie sees it: the first segment (matched at the start of the path), the later
# non-empty segments (each found after the previous), the `$`-anchored last literal or None, the
# pattern's length and the rule's key (`rule_of(key)` builds the rule).
Entry = tuple[str, tuple[str, ...], str | None, int, int]
# `Tails.deeper`'s literals of one depth, by rule index: a dict of the rules split so far, or a
# sequence of every rule's.
Columns = dict[int, str | None] | Sequence[str | None]
# What a reader of a node needs, replaced whole: chain, depth, children, solos, ends, tails, pending.
State = tuple[
    tuple[str, ...],
    int,
    tuple["_Node", ...],
    tuple[Entry, ...],
    tuple[int, ...],
    tuple[tuple[str, int], ...],
    tuple[Entry, ...],
]
# Rules not yet in the trie that pass the bulk tail test are walked one by one, up to this many; more,
# and the check splits every rule into the trie instead.
RAW_WALKS = 64
# A check whose bulk tail test over every rule leaves more than RAW_WALKS rules is answered by the
# trie; the next this many checks go to the trie at once (a set whose rules pass the test would pay
# for it twice), then the test is tried again.
BULK_RETRY = 15
# A bulk test (with its walks) that cost more than this, or than the trie's last check, hands the
# next BULK_RETRY checks to the trie: long literals searched far, or many rules passing, can make
# the bulk test dearer than the trie's shared searches (ns; a heuristic: either way is exact).
BULK_PROBE_NS = 250_000
# The bulk tail test searches each literal before the last once, unbounded, when rules share them
# this many to one (else each rule's own search, bounded by its last literal, scans less).
SHARED_BEFORES = 4
# The bulk tail test finds the last occurrences of this many distinct last literals of one length
# (or more) with one table of the path's substrings of that length, not a scan per literal (a
# scan costs about as much as this many table entries).
GRAM_FINALS = 256
# ... but only for literals of at most this many characters: a table holds a substring per path
# position, so one for long literals is that many times the path (300 rules whose literal before
# the last is 301 characters: 1.5 MB of substrings, 13 ms a check), where a search for a long
# literal skips ahead fast.
GRAM_LENGTH = 16
# Literals before the last whose length has no table (fewer than GRAM_FINALS distinct of it) are
# searched one by one when they are at most this share of the rules; more, and every rule is.
UNTABLED_SHARE = 0.1
# `Tails.deeper`: how many literals before the last it walks back at most, and the share of the
# rules a pass may keep before it gives up (rules sharing long runs pass pass after pass).
DEEP_LITERALS = 8
DEEP_KEEPS = 0.75
DEEP_FEW = 8  # rules left that are walked rather than taken a pass deeper
DEEP_WALKS = 8  # `narrowed`: more rules than this pass the tail test, and it is taken deeper first
_AFTER_HEAD = itemgetter(slice(1, None))  # a split pattern's pieces after its head
# Splitting a pattern costs about as much as sorting it four levels down: budget units per rule entered.
ENTER_COST = 4
# A path this long is first put to the literal filter (`literal_filter`): the rules one of whose
# literals it lacks are out, and when at most FILTER_WALKS are left, walking those is the check
# (5,000 `/*ab*cd<i>` rules on a random 5,000-character path: 26 left). A shorter path's searches
# are cheap enough that the filter's pass over every rule would not pay. (The long-path threshold
# of `pattern.LONG_PATH`, which imports this module: the value is repeated, not imported.)
FILTER_PATH = 256
FILTER_WALKS = 128
FILTER_SHARE = 0.25  # (and at most this share of the rules: else the bulk test's walks are cheaper)
# A filter pass that keeps more than this share of the rules it tests gives up (the path holds
# their literals: near misses built from the path) ...
FILTER_KEEP = 0.9
# ... and the filter then waits this many checks, doubled after each further check it fails on
# (up to FILTER_WAIT_MAX): on a set where it never pays, it costs one check in hundreds.
FILTER_WAIT = 16
FILTER_WAIT_MAX = 1024
# No cutoff (see `WildcardTrie._walk_raw`): above every key.
_NO_CUTOFF = 1 << 62
# A check first tries the rules in order of precedence (longest first, then by key), as a matcher
# without an index would, for this many matches and this long (ns) at most: when one matches and no
# rule after it can outrank it, that is the answer, with no bulk test and no trie (rules that nearly
# all match: 1,000 allow and 1,000 disallow rules `/*ab*cd` of equal length against a random
# 5,000-character path: 11.2 -> 4.4 ms a first check, 80 -> 20 µs a median one, and no
# check over 0.03 ms where the trie's growth cost 2 ms). When it does not decide, it is tried again
# after PRECEDENCE_WAIT checks, doubled after each further one it fails on (up to FILTER_WAIT_MAX):
# near misses, which no rule matches, pay it once in hundreds of checks.
PRECEDENCE_WALKS = 8
PRECEDENCE_NS = 30_000
PRECEDENCE_WAIT = 16
# Two trie checks in a row that cost more than this (ns) hand the next checks to a walk of every rule
# forward at once (`forward_walk`), as long as that walk costs less than the trie's last check: rules of
# random literals share no searches, and the trie walks each (1,000 rules of 50 random two-letter
# literals against a random 5,000-character path: 10-11 -> 4.8 ms a check). Not for tries of more than
# FORWARD_RULES rules: the walk's first passes cost about 0.4 µs a rule, and would stall a check.
FORWARD_NS = 2_000_000
FORWARD_RULES = 4096
# Only tries built to walk by precedence do (`precedence`: the caller's rules hold few `*`, so one
# walk costs a few searches, where a near miss of many `*` may cost 100 µs on a long path), and of
# this many rules at most: ordering more would stall a check.
PRECEDENCE_RULES = 4096


def trie_entry(pattern: str, key: int) -> Entry | None:
    """The pattern's segments for the trie, or None for a `$` pattern without `*` (an exact match).

    Empty segments (`**`, a trailing `*`) are dropped: `find("")` always succeeds where it is asked,
    so they change nothing. A `$` after a final `*` anchors nothing (`/a*$` matches as `/a` does).
    """
    anchored = pattern.endswith("$")
    parts = (pattern[:-1] if anchored else pattern).split("*")
    if anchored and len(parts) == 1:
        return None
    head = parts[0]
    parts[0] = ""  # (dropped with the empty segments: one C-level pass)
    later = tuple(filter(None, parts))
    if anchored and parts[-1]:
        return head, later[:-1], later[-1], len(pattern), key
    return head, later, None, len(pattern), key


class _Node:
    """The rules that share a prefix of later segments; reached once `segment` is found.

    Everything a reader needs is one `State`, replaced whole by growth, so a thread reading
    mid-growth sees an old state or a new one, never half of each. A state is:
    - chain: the segments every rule here shares after `segment`, found in turn first (a run of
      `*a` that a thousand rules repeat is one node, not a thousand levels);
    - depth: how many later segments the rules have consumed once the chain is found;
    - children (longest first), solos (the only rule under its next segment: walked on its own),
      ends (keys of rules with no later segment: they match if the node is reached), tails (`$`
      rules: the literal that must end the path), and pending (not sorted yet: walked).
    """

    __slots__ = ("first_key", "index", "longest", "segment", "state")

    def __init__(
        self, segment: str, depth: int, pending: Sequence[Entry], longest: int = -1, first_key: int = -1
    ) -> None:
        """`longest`: the longest pattern under the node (-1: that of `pending`); `first_key`: the
        least key under it (-1: that of `pending`)."""
        self.segment = segment
        self.longest = max(entry[3] for entry in pending) if longest < 0 else longest
        self.first_key = min(entry[4] for entry in pending) if first_key < 0 else first_key
        self.index: dict[str, _Node | Entry] = {}  # next segment -> child or solo (growth only)
        self.state: State = ((), depth, (), (), (), (), tuple(pending))

    def add(self, entries: Sequence[Entry]) -> None:
        """More rules for this node (growth only): `longest` and `first_key` first, so no reader
        prunes them.

        Rules that do not share the whole chain split it: the node keeps the part they share, and a
        new child takes the rest of the chain with everything the node held (a radix-tree split).
        """
        self.longest = max(self.longest, *(entry[3] for entry in entries))
        self.first_key = min(self.first_key, *(entry[4] for entry in entries))
        chain, depth, children, solos, ends, tails, pending = self.state
        base = depth - len(chain)
        shared = len(chain)
        for entry in entries:
            later = entry[1]
            common = 0
            while common < shared and base + common < len(later) and later[base + common] == chain[common]:
                common += 1
            shared = common
        if shared == len(chain):
            self.state = (chain, depth, children, solos, ends, tails, (*pending, *entries))
            return
        rest = _Node(
            chain[shared],
            depth,
            (),
            max(_longest(child) for child in (self, *children)),
            min(child.first_key for child in (self, *children)),
        )
        rest.index = self.index
        rest.state = (chain[shared + 1 :], depth, children, solos, ends, tails, pending)
        self.index = {rest.segment: rest}
        self.state = (chain[:shared], base + shared, (rest,), (), (), (), tuple(entries))

    def grow(self, limit: int) -> int:
        """Sort up to `limit` pending rules (at least one) into ends, tails, solos and children;
        returns the budget spent."""
        chain, depth, _, _, ends_before, tails_before, pending = self.state
        taken, left = pending[: max(limit, 1)], pending[max(limit, 1) :]
        index = self.index
        spent = len(taken)
        if not index and not ends_before and not tails_before and len(pending) > 1:
            # First growth: the segments all the node's rules share next join the chain (the rules
            # left pending share it too). The common prefix of all is that of the least and the
            # greatest: two C-level passes.
            laters = list(map(itemgetter(1), pending))
            low, high = min(laters), max(laters)
            shared = depth
            while shared < len(low) and shared < len(high) and low[shared] == high[shared]:
                shared += 1
            spent += len(pending) * (shared - depth) // 16
            chain = (*chain, *low[depth:shared])
            depth = shared
        more: dict[_Node, list[Entry]] = {}
        ends = list(ends_before)
        tails = list(tails_before)
        for entry in taken:
            later = entry[1]
            if len(later) > depth:
                segment = later[depth]
                found = index.get(segment)
                if found is None:
                    index[segment] = entry
                elif isinstance(found, _Node):
                    more.setdefault(found, []).append(entry)
                else:  # a second rule under this segment: the solo becomes a child node
                    index[segment] = _Node(segment, depth + 1, (found, entry))
            elif entry[2] is None:
                ends.append(entry[4])
            else:
                tails.append((entry[2], entry[4]))
        for child, entries in more.items():
            child.add(entries)  # (a reader still finds these rules here until the state below)
        nodes = sorted(
            (found for found in index.values() if isinstance(found, _Node)), key=_longest, reverse=True
        )
        solos = tuple(found for found in index.values() if not isinstance(found, _Node))
        self.state = (chain, depth, tuple(nodes), solos, tuple(ends), tuple(tails), left)
        return spent


def _longest(node: _Node) -> int:
    return node.longest


def _walk(entry: Entry, depth: int, path: str, position: int, memo: LastAt) -> bool:
    """The greedy match of the entry's later segments from `depth` on, starting at `position`."""
    later, tail = entry[1], entry[2]
    count = len(later)
    if tail is None:
        if count == depth:
            return True
        count -= 1  # the last segment only has to occur somewhere after the others
        final = later[count]
    else:
        final = tail
    # A cheap necessary condition first: the last two segments fit from here.
    if count - depth >= TAIL_AFTER - 1 and not tail_fits(
        later[count - 1], final, tail is not None, path, position, memo
    ):
        return False
    for index in range(depth, count):
        segment = later[index]
        found = path.find(segment, position)
        if found < 0:
            return False
        position = found + len(segment)
    return _final_fits(final, tail is not None, path, position, memo)


def _final_fits(final: str, anchored: bool, path: str, position: int, memo: LastAt) -> bool:
    if anchored:
        return len(path) - len(final) >= position and path.endswith(final)
    return last_at(memo, path, final) >= position


class Tails:
    """The tail test of `glob.tail_fits` for many rules at once, in a few C-level passes per check.

    For each rule: the literal before its last must occur at or after the position the rules are
    walked from (its first occurrence there is a lower bound on where the walk leaves it), and the
    last literal must occur after that, or, for a `$` rule, end the path with room for it. Each
    distinct literal is searched once per check. Rules too short for the test always pass.
    """

    __slots__ = (
        "_always",
        "_anchored",
        "_columns",
        "_deep_lengths",
        "_free",
        "_lock",
        "_patterns",
        "_unmeasured",
    )

    def __init__(
        self, always: list[int], free: _TailGroup, anchored: _TailGroup, patterns: Sequence[str] = ()
    ) -> None:
        self._always = always  # the indexes of the rules too short for the test
        self._free = free
        self._anchored = anchored
        self._patterns = patterns  # (for `deeper`, which reads more of each rule)
        # `deeper`'s literals, per depth, by rule index (see `_deep_columns`): dicts of the rules
        # split so far, or (True) lists of every rule's; and the lengths of the literals before
        # the last of the rules split so far.
        self._columns: tuple[list[Columns], bool] = ([{} for _ in range(DEEP_LITERALS + 1)], False)
        self._deep_lengths: set[int] = set()
        # The literals of rules split since `_deep_lengths` was last brought up to date: measured
        # only when a check has tables to read (most sets never do: 0.3 ms for 1,000 rules).
        self._unmeasured: list[list[tuple[str | None, ...]]] = []
        self._lock = threading.Lock()

    @classmethod
    def of_patterns(cls, patterns: Sequence[str]) -> Tails:
        """The test for `patterns` (rule i is pattern i), built in a few C-level passes: most sets
        (every pattern of two `*` or more, all or none `$`-anchored) need no Python step per pattern."""
        parts = list(map(str.rsplit, patterns, repeat("*"), repeat(2)))
        count = len(parts)
        try:  # every pattern in three pieces (two `*` or more)? zip then makes three columns
            _, befores, finals = zip(*parts, strict=True) if count else ((), (), ())
        except ValueError:
            count = 0  # (a shorter pattern: the general case below)
        if count:
            ends = 0 if "$" not in "".join(finals) else sum(map(str.endswith, finals, repeat("$")))
            if not ends:
                free_group = _TailGroup(range(count), befores, finals)
                return cls([], free_group, _TailGroup(range(0), (), ()), patterns)
            if ends == count:  # every rule `$`-anchored (a hostile file's, say)
                finals = tuple(map(str.removesuffix, finals, repeat("$")))
                anchored_group = _TailGroup(range(count), befores, finals, True)
                return cls([], _TailGroup(range(0), (), ()), anchored_group, patterns)
        # The general case: (literal before the last or None, last literal, `$`-anchored) per rule.
        always: list[int] = []
        free: list[tuple[int, str, str]] = []
        anchored: list[tuple[int, str, str]] = []
        for index, part in enumerate(parts):
            final = part[-1]
            if len(part) < 3:
                always.append(index)
            elif final.endswith("$"):
                anchored.append((index, part[1], final[:-1]))
            else:
                free.append((index, part[1], final))
        return cls(always, _TailGroup.of_rules(free, False), _TailGroup.of_rules(anchored, True), patterns)

    def passing(self, path: str, position: int, memo: LastAt, start: int = 0) -> list[int]:
        """The indexes (from `start`) of the rules that pass the test, walked from `position`."""
        always = self._always[bisect_left(self._always, start) :]
        free, anchored = self._free, self._anchored
        out = [*always]
        if free.indexes:
            # The final literal first: the one before it must end by the final's last occurrence
            # (an absent final bounds it to nothing). Each final is searched once, into the memo.
            begin = bisect_left(free.indexes, start)
            uniques = free.uniques
            # Many distinct last literals of one length: one table of the path's substrings of that
            # length (the last occurrence of each is the one kept) beats a scan per literal.
            substrings: dict[int, list[str]] = {}  # the path's, by length
            last_of: dict[str, int] = {}  # (substrings of several lengths never collide)
            for length, _, _ in free.gram_spans:
                grams = substrings[length] = _substrings(path, length)
                last_of.update(zip(grams, range(len(grams)), strict=True))
            if free.gram_spans:  # (a first table for some of these lengths may follow: `_first_ends`)
                memo.grams_last, memo.grams_first, memo.gram_lengths = last_of, None, frozenset()
            tabled = free.gram_spans[-1][2] if free.gram_spans else 0  # uniques[:tabled] are in it
            lasts = list(map(last_of.get, uniques[:tabled], repeat(-1)))
            lasts += map(path.rfind, uniques[tabled:])
            memo.update(zip(uniques, lasts, strict=True))  # (what `last_at` would find)
            limits: Iterator[int]
            if tabled == len(uniques):  # (an occurrence is at 0 or later: its own bound)
                limits = map(last_of.get, free.finals[begin:], repeat(0))
            else:
                bounds = dict(zip(uniques, map(max, lasts, repeat(0)), strict=True))
                limits = map(bounds.__getitem__, free.finals[begin:])
            highest = max(lasts)  # (a rule's bound: its last literal's last start, at least 0)
            if highest <= 0:
                # Every rule's bound is 0 (no last literal occurs after the path's start: 1,000
                # `/*a*<i>*b` rules against a path without `b`, 1.0 ms -> 0.1 ms a check through
                # the trie): only an empty literal before the last, found at 0, ends by there.
                if position == 0 and free.empty_before:
                    out += compress(free.indexes[begin:], map(not_, free.befores[begin:]))
            elif free.before_lengths:
                # Rules sharing their literal before the last: each such literal is searched once,
                # from `position`, and a rule passes when that first occurrence ends by its bound
                # (the first one is the one most likely to); an absent literal ends past any bound.
                missing = len(path) + 1
                firsts = {
                    literal: first if (first := path.find(literal, position)) >= 0 else missing
                    for literal in free.unique_befores
                }
                # Rules that share these literals mostly share the verdict: when the earliest end of
                # any is past every bound, or the latest by the least bound, it needs no step per
                # rule (near misses that all end on the same two literals: 100 -> 10 µs a check).
                reach = list(map(add, firsts.values(), map(len, firsts)))
                if min(reach) > highest:
                    pass  # no rule of the group passes
                elif max(reach) <= max(min(lasts), 0):
                    out += free.indexes[begin:]
                else:
                    ends = map(firsts.__getitem__, free.befores[begin:])
                    out += compress(
                        free.indexes[begin:], map(le, map(add, ends, free.before_lengths[begin:]), limits)
                    )
            elif free.before_grams and (
                ends_at := _first_ends(free, path, position, begin, substrings, memo)
            ):
                # Many distinct literals before the last, all of lengths that many share: where each
                # first occurs, from tables of the path's substrings, as for the last literals.
                out += compress(free.indexes[begin:], map(le, ends_at, limits))
            else:  # each rule's own search, bounded there
                found = map(path.find, free.befores[begin:], repeat(position), limits)
                out += compress(free.indexes[begin:], map(ge, found, repeat(0)))
        if anchored.indexes:
            out += anchored.anchored_passing(path, position, start)
        return out

    def narrowed(
        self, path: str, position: int, memo: LastAt, enough: int
    ) -> tuple[list[int], list[int] | None]:
        """The rules that pass the test, and the few (`enough` at most) a walk must try: those that
        pass when DEEP_WALKS or fewer do, else those that pass the test taken deeper (or all that
        pass, when that does not pay and they are `enough` or fewer); None when more than `enough`
        are left."""
        passing = self.passing(path, position, memo)
        if len(passing) <= min(DEEP_WALKS, enough):
            return passing, passing
        # Even when few enough to walk, a few C-level passes walking back from their ends cost
        # less than their walks (`near miss: distinct literals`: 43 rules of 12-64 literals pass,
        # a handful are left; steady check 450 -> 250 µs).
        walks = self.deeper(passing, path, position, memo, enough)
        return passing, passing if walks is None and len(passing) <= enough else walks

    def deeper(
        self, indexes: list[int], path: str, position: int, memo: LastAt, enough: int
    ) -> list[int] | None:
        """Of the rules at `indexes` (they passed `passing` with this `position` and `memo`), those
        that pass the test taken deeper, or None when it does not pay.

        The test walks each unanchored rule backwards from its last literal's last occurrence: the
        literal before must end by there (the tail test), the one before that by where that one
        starts, and so on, each the last such occurrence (`str.rfind` bounded by the next one's
        start), one literal deeper per pass over the rules still in (a few C-level `map`s). A rule
        whose literals run out, `$`-anchored or not, stays in. A rule it rejects cannot match:
        its last literals cannot all fit in order after `position`, as any match needs. Passes
        stop at DEEP_LITERALS literals, at DEEP_FEW rules left, or when a pass keeps more than
        DEEP_KEEPS of the rules, as rules sharing long runs do; more than `enough` left then, and
        the test does not pay (None: the trie serves those).
        """
        columns = self._deep_columns(indexes)
        if len(columns) < 3 or not any(map(is_not, map(columns[2].__getitem__, indexes), repeat(None))):
            # None of these rules has two literals before its last: the first pass would only
            # repeat the tail test they passed (the last occurrence of the literal before the last
            # that ends by where the last starts at the latest exists when its first occurrence
            # does), and nothing is left to walk back (2,000 rules `/*ab*cd`, nearly all passing:
            # 2,000 searches for nothing, each time the bulk test is tried again)
            return None
        found_finals = list(map(columns[0].__getitem__, indexes))
        known = list(map(is_not, found_finals, repeat(None)))
        kept = list(compress(indexes, map(not_, known)))  # `$`-anchored or without a final
        live = list(compress(indexes, known))
        finals = cast(list[str], list(compress(found_finals, known)))
        for final in set(finals).difference(memo):
            memo[final] = path.rfind(final)
        starts = list(map(memo.__getitem__, finals))  # where each final may start at the latest
        present = list(map(ge, starts, repeat(position)))  # (-1: absent; a negative end would wrap)
        live = list(compress(live, present))
        starts = list(compress(starts, present))
        first = columns[1]
        # Every literal of a length whose first and last occurrences the bulk tail test tabled:
        # most searches are then answered from the tables (`_last_before`).
        # (the lengths of every rule split so far, these among them)
        tabled = bool(memo.gram_lengths) and self._literal_lengths() <= memo.gram_lengths
        for column in columns[1:]:
            if len(kept) + len(live) <= DEEP_FEW:
                break
            found_literals = list(map(column.__getitem__, live))
            known = list(map(is_not, found_literals, repeat(None)))
            if not all(known):  # rules whose literals ran out: they stay in
                kept += compress(live, map(not_, known))
                live = list(compress(live, known))
                starts = list(compress(starts, known))
                found_literals = list(compress(found_literals, known))
            literals = cast(list[str], found_literals)
            if tabled:
                found = _last_before(literals, starts, path, position, memo)
            else:
                found = list(map(path.rfind, literals, repeat(position), starts))
            fits = list(map(ge, found, repeat(0)))
            before = len(live)
            live = list(compress(live, fits))
            starts = list(compress(found, fits))
            # (the first pass repeats the tail test the rules passed: it finds where to go on from)
            if column is not first and len(live) > before * DEEP_KEEPS:
                break  # passes no longer pay
        return kept + live if len(kept) + len(live) <= enough else None

    def _literal_lengths(self) -> set[int]:
        """The lengths of the literals before the last of every rule split so far. Under the lock:
        a thread that reads a rule's literals must not see a set still without their lengths
        (it would read a missing table as no occurrence)."""
        with self._lock:
            unmeasured = self._unmeasured
            while unmeasured:
                every = list(chain.from_iterable(unmeasured.pop()))
                self._deep_lengths.update(
                    map(len, cast(Iterator[str], compress(every, map(is_not, every, repeat(None)))))
                )
            return set(self._deep_lengths)

    def _deep_columns(self, indexes: list[int]) -> list[Columns]:
        """Per depth, by rule index, each rule's literal: the last (None for a `$`-anchored rule),
        the one before it, and so on up to DEEP_LITERALS (None past a rule's first literal after
        its head), for the rules at `indexes` at least. A rule is split on first use, in C-level
        passes over the rules not split yet: a big set's first check splits only the rules that
        passed its tail test (500 KiB of near misses: 154 of 3,422), not all of them; when the
        first rules asked for are all of them (or once every rule is split), the columns are lists,
        cheaper to make, read and keep.

        Safe with threads: a rule's row is in every depth's dict and its literals are among those
        `_literal_lengths` measures before the last literal's dict (the one read to find rules not
        split yet) has it; the lists replace the dicts whole, after that; racing threads store
        equal values."""
        columns, whole = self._columns
        if whole:
            return columns
        finals = columns[0]
        missing = list(filterfalse(finals.__contains__, indexes))
        if not missing:
            return columns
        whole = not finals and len(missing) == len(self._patterns) and len(set(missing)) == len(missing)
        if whole:  # every rule asked for before any was split: lists by rule index
            missing = list(range(len(missing)))
        parts = map(str.rsplit, map(self._patterns.__getitem__, missing), repeat("*"), repeat(len(columns)))
        rows = list(zip_longest(*map(reversed, map(_AFTER_HEAD, parts))))
        rows += [(None,) * len(missing)] * (len(columns) - len(rows))  # (depths no rule here reaches)
        self._unmeasured.append(rows[1:])  # (before the rows are seen as split: see `_literal_lengths`)
        last = list(rows[0])
        for at in compress(range(len(last)), map(str.endswith, map(str, last), repeat("$"))):  # (str(None))
            last[at] = None  # a `$`-anchored rule: its last literal is tested as the path's end
        if whole:
            built: list[Columns] = [last, *rows[1:]]
            self._columns = (built, True)
            return built
        for column, literals in zip(columns[1:], rows[1:], strict=True):
            cast(dict[int, str | None], column).update(zip(missing, literals, strict=True))
        cast(dict[int, str | None], finals).update(zip(missing, last, strict=True))
        if len(finals) == len(self._patterns):  # every rule split by now: lists take less memory
            every_rule = range(len(finals))
            columns = [list(map(column.__getitem__, every_rule)) for column in columns]
            self._columns = (columns, True)
        return columns


def _last_before(literals: list[str], bounds: list[int], path: str, position: int, memo: LastAt) -> list[int]:
    """`path.rfind(literal, position, bound)` for each literal and bound, read from the memo's
    tables of where each substring occurs first and last (every literal of a tabled length): the
    last occurrence when it fits, none when the last is before `position` or the first ends past
    the bound, a search only when occurrences lie on both sides of the bound."""
    last_get, first_get = (
        cast(dict[str, int], memo.grams_last).get,
        cast(dict[str, int], memo.grams_first).get,
    )
    beyond = len(path) + 1
    return [
        last
        if (last := last_get(literal, -1)) >= position and last + len(literal) <= bound
        else -1
        if last < position or first_get(literal, beyond) + len(literal) > bound
        else path.rfind(literal, position, bound)
        for literal, bound in zip(literals, bounds, strict=True)
    ]


def _first_ends(
    group: _TailGroup, path: str, position: int, begin: int, substrings: dict[int, list[str]], memo: LastAt
) -> list[int] | None:
    """Where the first occurrence of each rule's literal before the last ends (from `begin`; past
    the path for an absent one), from tables of the path's substrings (`substrings`: those built
    already, by length); None when one occurs first before `position` (the rule's own search
    from there is then needed). The tables go to the memo, for `Tails.deeper`."""
    in_last = frozenset(substrings)  # the lengths the last table holds
    firsts: dict[str, int] = {}
    for length in group.before_grams:
        grams = substrings.get(length)
        if grams is None:
            grams = substrings[length] = _substrings(path, length)
        firsts.update(zip(reversed(grams), range(len(grams) - 1, -1, -1), strict=True))  # the first one kept
    memo.grams_first, memo.gram_lengths = firsts, in_last.intersection(group.before_grams)
    missing = len(path) + 1
    found = list(map(firsts.get, group.befores[begin:], repeat(missing)))
    if found and min(found) < position:
        return None
    for index in group.untabled[bisect_left(group.untabled, begin) :]:  # lengths not tabled
        first = path.find(group.befores[index], position)
        found[index - begin] = missing if first < 0 else first
    return list(map(add, found, group.before_sizes[begin:]))


class _TailGroup:
    """The unanchored or the anchored rules of a `Tails`, as parallel sequences: the rules'
    indexes (ascending), literals before the last, and last literals (`$` dropped)."""

    __slots__ = (
        "before_grams",
        "before_lengths",
        "before_sizes",
        "befores",
        "empty_before",
        "finals",
        "gram_spans",
        "indexes",
        "lengths",
        "unique_befores",
        "uniques",
        "untabled",
    )

    def __init__(
        self, indexes: Sequence[int], befores: Sequence[str], finals: Sequence[str], anchored: bool = False
    ) -> None:
        self.indexes = indexes
        self.befores = befores
        self.finals = finals
        # The unanchored rules' distinct last literals, each searched once per check: first those
        # of each length that GRAM_FINALS or more share (gram_spans: length, start, end), which
        # one table of the path's substrings of that length answers, then the rest.
        uniques = set(finals)
        self.gram_spans: list[tuple[int, int, int]] = []
        ordered: list[str] = []
        if len(uniques) >= GRAM_FINALS and not anchored:
            listed = list(uniques)
            lengths = list(map(len, listed))
            for length, count in Counter(lengths).items():
                if count >= GRAM_FINALS and 0 < length <= GRAM_LENGTH:
                    self.gram_spans.append((length, len(ordered), len(ordered) + count))
                    ordered += compress(listed, map(eq, lengths, repeat(length)))
            uniques.difference_update(ordered)
        self.uniques = (*ordered, *uniques)
        self.unique_befores = tuple(set(befores))
        self.empty_before = "" in self.unique_befores  # (a rule with `**` before its last literal)
        # The unanchored rules' only when they share their literals before the last (searched
        # once each then, see `Tails.passing` and SHARED_BEFORES); every anchored rule's.
        shared = anchored or len(self.unique_befores) * SHARED_BEFORES <= len(befores)
        self.before_lengths: list[int] = list(map(len, befores)) if shared else []
        self.lengths: list[int] = list(map(len, finals)) if anchored else []
        # Unshared literals before the last, GRAM_FINALS or more distinct of a length: their first
        # occurrences come from tables of the path's substrings (see `_first_ends`). The few of
        # other lengths (at most one rule in UNTABLED_SHARE) are searched one by one.
        self.before_grams: tuple[int, ...] = ()
        self.before_sizes: list[int] = []
        self.untabled: list[int] = []  # positions in `befores` of those searched one by one
        if not shared and len(self.unique_befores) >= GRAM_FINALS:
            counts = Counter(map(len, self.unique_befores))
            tabled = {
                length
                for length, count in counts.items()
                if count >= GRAM_FINALS and 0 < length <= GRAM_LENGTH
            }
            sizes = list(map(len, befores))
            untabled = (
                [i for i, size in enumerate(sizes) if size not in tabled] if len(tabled) < len(counts) else []
            )
            if tabled and len(untabled) <= len(befores) * UNTABLED_SHARE:
                self.before_grams, self.before_sizes, self.untabled = tuple(tabled), sizes, untabled

    @classmethod
    def of_rules(cls, rules: list[tuple[int, str, str]], anchored: bool) -> _TailGroup:
        """A group of (index, literal before the last, last literal) rules, `$`-anchored or not
        (an anchored rule's last literal without its `$`)."""
        if not rules:
            return cls(range(0), (), ())
        indexes, befores, finals = zip(*rules, strict=True)
        return cls(indexes, befores, finals, anchored)

    def anchored_passing(self, path: str, position: int, start: int) -> list[int]:
        """The indexes (from `start`) of this anchored group's rules that pass the tail test: the
        last literal ends the path, with room for it after the first occurrence (from `position`)
        of the literal before it (an absent one counts as ending before its real end would: the
        test still passes).

        Rules that share their literals mostly share the verdict: when no last literal ends the
        path, or none has room after the earliest end of a literal before, or all have room
        after the latest, no step per rule is needed (1,000 `$` near misses: 190 -> 15 µs)."""
        ending = list(filter(path.endswith, self.uniques))
        if not ending:
            return []
        firsts = {literal: path.find(literal, position) for literal in self.unique_befores}
        reach = list(map(add, firsts.values(), map(len, firsts)))
        if min(reach) > len(path) - min(map(len, ending)):
            return []
        begin = bisect_left(self.indexes, start)
        if len(ending) == len(self.uniques) and max(reach) <= len(path) - max(map(len, ending)):
            return list(self.indexes[begin:])
        bounds = map(add, map(firsts.__getitem__, self.befores[begin:]), self.before_lengths[begin:])
        room = map(le, bounds, map(sub, repeat(len(path)), self.lengths[begin:]))
        return list(compress(self.indexes[begin:], map(and_, map(path.endswith, self.finals[begin:]), room)))


class WildcardTrie:
    """The best-ranked rule of many wildcard rules that matches a path, searching shared prefixes once."""

    __slots__ = (
        "_asked",
        "_bulk_ns",
        "_entered",
        "_filter",
        "_filter_wait",
        "_filter_waited",
        "_forward",
        "_forward_ns",
        "_forward_wait",
        "_forward_waited",
        "_head_index",
        "_heads",
        "_keys",
        "_lock",
        "_order",
        "_patterns",
        "_precedence_wait",
        "_precedence_waited",
        "_raw_tails",
        "_rule_of",
        "_skip_bulk",
        "_trie_ns",
    )

    def __init__(
        self,
        patterns: Sequence[str],
        keys: Sequence[int],
        rule_of: Callable[[int], Rule],
        tails: Tails | None = None,
        precedence: bool = False,
    ) -> None:
        """The trie of `patterns[i]` with key `keys[i]`, none a `$` pattern without `*`;
        `rule_of(key)`: the rule. The sequences are kept as given, so a big set's patterns are
        not copied (the caller never changes them). `tails`: `Tails.of_patterns(patterns)` if
        the caller has it already (its set's first check built it). `precedence`: each check
        first walks the rules by precedence (PRECEDENCE_WALKS)."""
        self._rule_of = rule_of
        self._patterns = patterns
        self._keys = keys
        self._entered = 0  # the patterns before this one are in the trie; the rest are walked as they are
        self._asked = False  # the first check only walks: a set asked once never pays for a trie
        self._raw_tails = tails
        self._skip_bulk = 0  # checks left before the bulk tail test is tried again (see `best`)
        self._trie_ns = -1  # what the trie's last check cost, ns (-1: not asked yet)
        self._bulk_ns = -1  # what the last check the bulk test answered cost, ns (-1: none since)
        self._heads: tuple[_Node, ...] = ()
        self._head_index: dict[str, _Node] = {}
        self._lock = threading.Lock()
        self._filter: LiteralFilter | None = None  # built by the first long path's check
        self._filter_wait = 0  # checks left before the filter is tried again
        self._filter_waited = 0  # how long it waited last (doubled on each failure in a row)
        # The rules' indexes in order of precedence and their lengths (see `_precedence_walk`),
        # made by the first check that needs them.
        self._order: tuple[list[int], list[int]] | None = None
        self._forward: ForwardWalk | None = None  # built by the first check that walks forward
        self._forward_ns = -1  # what the last forward walk cost, ns (-1: the trie answers)
        self._forward_wait = 0  # slow trie checks left before the forward walk is tried again
        self._forward_waited = 0  # how long it waited last (doubled on each loss in a row)
        # checks left before the next walk by precedence
        self._precedence_wait = 0 if precedence and len(patterns) <= PRECEDENCE_RULES else _NO_CUTOFF
        self._precedence_waited = 0  # how long it waited last (doubled on each failure in a row)

    @classmethod
    def of_pairs(cls, pairs: Sequence[tuple[str, int]], rule_of: Callable[[int], Rule]) -> WildcardTrie:
        """The trie of (pattern, key) pairs (as `__init__`)."""
        return cls(tuple(map(itemgetter(0), pairs)), tuple(map(itemgetter(1), pairs)), rule_of)

    def _enter(self, limit: int) -> int:
        """Split up to `limit` raw patterns (at least one) into the head nodes; growth only."""
        entered = self._entered
        end = entered + max(limit, 1)
        taken = self._patterns[entered:end]
        groups: dict[str, list[Entry]] = {}
        for pattern, key in zip(taken, self._keys[entered:end], strict=True):
            entry = trie_entry(pattern, key)
            assert entry is not None  # the caller keeps exact `$` patterns out
            groups.setdefault(entry[0], []).append(entry)
        index = self._head_index
        for head, entries in groups.items():
            found = index.get(head)
            if found is None:
                index[head] = _Node(head, 0, entries)
            else:
                found.add(entries)
        heads = sorted(index.values(), key=_longest, reverse=True)
        self._heads = tuple(heads)
        self._entered = entered + len(taken)
        return len(taken)

    def best(
        self, path: str, best: Rule | None, memo: LastAt, tested: tuple[Tails, list[int]] | None = None
    ) -> Rule | None:
        """The rule that outranks `best` and every other matching rule of the trie, else `best`.
        `tested`: a tail test and the rules that passed it on this check (with `memo`), used when
        it is this trie's own (`__init__` was given it)."""
        if self._precedence_wait > 0:
            self._precedence_wait -= 1  # (racy counts: a heuristic, either way is exact)
        else:
            best, decided = self._precedence_walk(path, best, memo)
            if decided:
                self._precedence_waited = 0
                return best
            waited = min(max(self._precedence_waited * 2, PRECEDENCE_WAIT), FILTER_WAIT_MAX)
            self._precedence_waited = self._precedence_wait = waited
        if len(path) >= FILTER_PATH:
            if self._filter_wait > 0:
                self._filter_wait -= 1  # (racy counts: a heuristic, either way is exact)
            else:
                survivors = self._filtered(path, memo)
                if survivors is not None:
                    return self._walk_raw(survivors, path, best, memo)[0]
        skip = self._skip_bulk
        passing = tested[1] if tested is not None and tested[0] is self._raw_tails else None
        if passing is not None:
            self._skip_bulk = BULK_RETRY  # more than RAW_WALKS passed (else the caller walked them)
        elif self._forward_ns >= 0:
            pass  # the forward walk answers (see `_forward_best`): it needs no tail test
        elif skip <= 0:
            # Near misses mostly fail the tail test: when it leaves few rules, walking them is the
            # whole check, and the trie (which would walk to each near miss's end) is not consulted.
            started = perf_counter_ns()
            passing, walks = self._tails().narrowed(path, 0, memo, RAW_WALKS)
            if walks is not None:
                best = self._walk_raw(walks, path, best, memo)[0]
                spent = perf_counter_ns() - started
                # (not judged on the first check, which pays for its cold start; nor, while the
                # trie has not answered, one the deeper test answered: a cold trie would walk every
                # rule that test rejects, several times this check's cost)
                probe = walks is passing or self._trie_ns >= 0
                if self._asked and probe and spent > (BULK_PROBE_NS if self._trie_ns < 0 else self._trie_ns):
                    self._skip_bulk = BULK_RETRY  # the trie may be cheaper: it answers the next checks
                self._asked = True
                self._bulk_ns = spent
                return best
            self._skip_bulk = BULK_RETRY  # (racy counts and times: a heuristic, any value is exact)
            self._bulk_ns = -1  # (the bulk test cannot answer such paths: no cost to compare with)
        else:
            self._skip_bulk = skip - 1
        if self._forward_ns >= 0:
            return self._forward_best(path, best, memo, passing)
        return self._trie_best(path, best, memo, passing)

    def _trie_best(
        self, path: str, best: Rule | None, memo: LastAt, passing: list[int] | None
    ) -> Rule | None:
        """`best` against the rules through the trie, grown by this check's budget first."""
        started = perf_counter_ns()
        lock = self._lock
        growing = memo.budget > 0 and lock.acquire(blocking=False)
        try:
            if growing and self._entered < len(self._patterns) and self._asked:
                memo.budget -= ENTER_COST * self._enter(memo.budget // ENTER_COST)
            self._asked = True
            return self._best(path, best, memo, growing, passing)
        finally:
            if growing:
                lock.release()
            spent, before = perf_counter_ns() - started, self._trie_ns
            # A trie dearer than the bulk test's last check, and no cheaper than its own last one,
            # is not paying off as it grows (near misses that it walks to their ends: `literals
            # out of order`, 0.7 -> 1.1 ms over 15 checks, against 0.4 ms in bulk): the next
            # check tries the bulk test again. A trie that gets cheaper as it grows keeps going.
            if 0 <= self._bulk_ns < spent and 0 <= before <= spent:
                self._skip_bulk = 0
            self._trie_ns = spent
            # Two slow checks in a row, the trie not growing cheaper fast (its first checks pay for
            # its growth: near misses sharing a run cost 15 ms, then 0.15), hand the next check to
            # the forward walk.
            if (
                spent > FORWARD_NS
                and before > FORWARD_NS
                and spent * 2 > before
                and len(self._patterns) <= FORWARD_RULES
            ):
                if self._forward_wait > 0:
                    self._forward_wait -= 1
                else:
                    self._forward_ns = 0  # the next check walks forward (see `_forward_best`)

    def _forward_best(
        self, path: str, best: Rule | None, memo: LastAt, passing: list[int] | None
    ) -> Rule | None:
        """`best` against the rules (those at `passing`, when the bulk tail test ran) walked
        forward together (`ForwardWalk`), for a trie whose checks stayed over FORWARD_NS (see
        `_trie_best`): rules that share no searches (random literals) cost the trie a walk each.
        Back to the trie when this costs more than the trie's last check (a walk that would stop
        there, and the trie answers)."""
        walk = self._forward
        if walk is None:  # (racing threads build equal ones)
            walk = self._forward = ForwardWalk(self._patterns)
        started = perf_counter_ns()  # (the walk's cost, against the trie's: its split once is not)
        indexes = range(len(self._patterns)) if passing is None else passing
        matches = walk.matching(path, indexes, started + self._trie_ns)
        if matches is None:
            self._forward_lost()
            return self._trie_best(path, best, memo, passing)
        patterns, keys = self._patterns, self._keys
        best_length = -1 if best is None else len(best.pattern)
        cutoff = _NO_CUTOFF  # (see `_walk_raw`)
        for index in sorted(matches):
            length = len(patterns[index])
            if length > best_length or (length == best_length and keys[index] < cutoff):
                best, best_length, cutoff = self._ranked(keys[index], length, best, best_length, cutoff)
        spent = perf_counter_ns() - started
        if spent > self._trie_ns:
            self._forward_lost()
        else:
            self._forward_ns, self._forward_waited = spent, 0
        return best

    def _forward_lost(self) -> None:
        """The forward walk cost more than the trie's last check: the trie answers, and the walk
        waits FILTER_WAIT slow trie checks, doubled after each further loss (up to FILTER_WAIT_MAX),
        before it is tried again. (Racy counts: a heuristic, either way is exact.)"""
        self._forward_ns = -1
        waited = self._forward_waited = min(max(self._forward_waited * 2, FILTER_WAIT), FILTER_WAIT_MAX)
        self._forward_wait = waited

    def _filtered(self, path: str, memo: LastAt) -> list[int] | None:
        """The rules the literal filter leaves for `path`, when at most FILTER_WALKS; else None,
        and the filter waits (see FILTER_WAIT)."""
        literal_filter = self._filter
        if literal_filter is None:  # (racing threads build equal filters)
            literal_filter = self._filter = LiteralFilter(self._patterns)
        survivors = None
        if literal_filter.worth_trying(path):
            size = literal_filter.size
            grams = memo.grams_of_path
            if grams is None or grams[0] != size:  # (another trie of the check may have read them)
                grams = memo.grams_of_path = (size, path_grams(path, size))
            survivors = literal_filter.survivors(
                grams[1], FILTER_WALKS, FILTER_SHARE, FILTER_KEEP, path.encode("utf-8", "surrogatepass")
            )
        if survivors is None:
            waited = self._filter_waited = min(max(self._filter_waited * 2, FILTER_WAIT), FILTER_WAIT_MAX)
            self._filter_wait = waited
        else:
            self._filter_waited = 0
        return survivors

    def _tails(self) -> Tails:
        """The tail test of every rule (idempotent: racing threads build equal ones)."""
        tails = self._raw_tails
        if tails is None:
            tails = self._raw_tails = Tails.of_patterns(self._patterns)
        return tails

    def _best_raw(
        self, path: str, best: Rule | None, memo: LastAt, growing: bool, passing: list[int] | None
    ) -> tuple[Rule | None, int]:
        """`best` against the rules not split yet: the tail test in bulk, then the survivors'
        walk; and the cutoff (see `_walk_raw`). `passing`: the rules of this check that passed
        the test over every rule, if it ran."""
        entered, patterns = self._entered, self._patterns
        if passing is None or entered:
            passing = self._tails().passing(path, 0, memo, entered)
        if len(passing) > RAW_WALKS and growing:
            # Walking them would cost a Python step per segment: splitting them into the trie
            # costs less, and they then share their searches. This check pays for the split past
            # its budget and keeps the budget to grow the trie's first levels, which is what
            # spares it the walks.
            self._enter(len(patterns))
            return best, _NO_CUTOFF
        return self._walk_raw(passing, path, best, memo)

    def _walk_raw(
        self, indexes: list[int], path: str, best: Rule | None, memo: LastAt
    ) -> tuple[Rule | None, int]:
        """`best` against the rules at `indexes`, each matched on its own; and the cutoff: the
        key of the best rule when it is an allow rule of this trie, else `_NO_CUTOFF`.

        A rule no longer than the best is not walked, unless it is as long and its key is below
        the cutoff. A rule of the trie as long as an allow rule of the trie can only outrank it
        with an earlier line (RFC 9309 2.2.2: allow wins equal lengths, then the earlier line),
        and a key above the best's means a later line: keys are a rule set's positions, in line
        order, or a priority order (`pattern._group`). 1,000 allow and 1,000 disallow rules of
        two random two-character literals against a random 5,000-character path, which nearly
        all match: every matching rule was walked and built, 6.4 ms a check."""
        patterns, keys = self._patterns, self._keys
        best_length = -1 if best is None else len(best.pattern)
        cutoff = _NO_CUTOFF
        for index in indexes:
            pattern = patterns[index]
            length = len(pattern)
            if (length > best_length or (length == best_length and keys[index] < cutoff)) and pattern_matches(
                pattern, path, memo
            ):
                best, best_length, cutoff = self._ranked(keys[index], length, best, best_length, cutoff)
        return best, cutoff

    def _ranked(
        self, key: int, length: int, best: Rule | None, best_length: int, cutoff: int
    ) -> tuple[Rule | None, int, int]:
        """The best rule, its length and the cutoff (see `_walk_raw`) once the rule of `key`, a
        match `length` long, is ranked against `best` (RFC 9309 2.2.2)."""
        rule = self._rule_of(key)
        if outranks(rule, best):
            return rule, length, key if rule.allow else _NO_CUTOFF
        return best, best_length, cutoff

    def _precedence_walk(self, path: str, best: Rule | None, memo: LastAt) -> tuple[Rule | None, bool]:
        """`best` against the rules in order of precedence (longest first, then by key: a rule
        set's line order), for PRECEDENCE_WALKS matches and PRECEDENCE_NS at most; and whether that
        decided: no rule left can outrank the best found (a longer rule could, or an equally long
        one with a lower key when the best is not an allow rule of the trie). Undecided, the best
        is still a match (or `best`) that the rest must outrank."""
        known = self._order
        if known is None:
            lengths = list(map(len, self._patterns))
            # (sorting is stable: equally long rules stay in index order, which is key order)
            order = sorted(range(len(lengths)), key=lengths.__getitem__, reverse=True)
            known = self._order = (order, lengths)
        order, lengths = known
        patterns, keys = self._patterns, self._keys
        best_length = -1 if best is None else len(best.pattern)
        cutoff = _NO_CUTOFF  # (see `_walk_raw`)
        walks = PRECEDENCE_WALKS
        deadline = perf_counter_ns() + PRECEDENCE_NS
        for index in order:
            length = lengths[index]
            if length < best_length or (length == best_length and keys[index] > cutoff):
                return best, True  # every rule after this one is shorter, or as long and later
            if not walks or perf_counter_ns() > deadline:
                return best, False
            walks -= 1
            if pattern_matches(patterns[index], path, memo):
                best, best_length, cutoff = self._ranked(keys[index], length, best, best_length, cutoff)
        return best, True

    def _best(
        self, path: str, best: Rule | None, memo: LastAt, growing: bool, passing: list[int] | None
    ) -> Rule | None:
        cutoff = _NO_CUTOFF  # (see `_walk_raw`)
        if self._entered < len(self._patterns):
            best, cutoff = self._best_raw(path, best, memo, growing, passing)
        rule_of = self._rule_of
        best_length = -1 if best is None else len(best.pattern)
        stack: list[tuple[_Node, int]] = []
        for head in self._heads:
            if head.longest < best_length:
                break
            if path.startswith(head.segment):
                stack.append((head, len(head.segment)))
        find = path.find
        while stack:
            node, position = stack.pop()
            if node.longest < best_length or (node.longest == best_length and node.first_key > cutoff):
                continue  # nothing below can outrank the best match found since it was pushed
            if growing and memo.budget > 0 and node.state[6]:
                memo.budget -= node.grow(memo.budget)
            chain, depth, children, solos, ends, tails, pending = node.state
            for segment in chain:
                found = find(segment, position)
                if found < 0:
                    break
                position = found + len(segment)
            else:
                for entry in (*pending, *solos):
                    length = entry[3]
                    if (length > best_length or (length == best_length and entry[4] < cutoff)) and _walk(
                        entry, depth, path, position, memo
                    ):
                        rule = rule_of(entry[4])
                        if outranks(rule, best):
                            best, best_length = rule, length
                            cutoff = entry[4] if rule.allow else _NO_CUTOFF
                for key in ends:
                    rule = rule_of(key)
                    if outranks(rule, best):
                        best, best_length = rule, len(rule.pattern)
                        cutoff = key if rule.allow else _NO_CUTOFF
                for tail, key in tails:
                    if len(path) - len(tail) >= position and path.endswith(tail):
                        rule = rule_of(key)
                        if outranks(rule, best):
                            best, best_length = rule, len(rule.pattern)
                            cutoff = key if rule.allow else _NO_CUTOFF
                for child in children:
                    if child.longest < best_length:
                        break  # longest first: no later child can outrank the best match either
                    if child.longest == best_length and child.first_key > cutoff:
                        continue  # as long as the allow rule found, and later lines (see `_walk_raw`)
                    segment = child.segment
                    found = find(segment, position)
                    if found >= 0:
                        stack.append((child, found + len(segment)))
        return best
