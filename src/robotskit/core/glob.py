"""Matching one wildcard pattern against one path (SPEC.md section 3; RFC 9309 2.2.2).

A pattern is a prefix match where `*` matches any run of characters and a final `$` anchors to the
end of the path. Patterns come from strangers, so nothing here backtracks: a pattern is split at its
`*`s and matched greedily, leftmost first, which is exact for `*`-only globs and costs one string
search per segment. Priority among matching rules: the longest pattern in octets; on equal length
`allow` wins (then the earlier line, so a verdict never depends on dict or thread order).
"""

from __future__ import annotations

from collections.abc import Callable

from robotskit.core.memo import LastAt
from robotskit.core.model import Rule

# A test of one wildcard pattern against a path, with the check's memo.
Test = Callable[[str, "LastAt"], bool]


def last_at(memo: LastAt, path: str, literal: str) -> int:
    """`path.rfind(literal)`, searched once per check (see `LastAt`)."""
    found = memo.get(literal)
    if found is None:
        found = memo[literal] = path.rfind(literal)
    return found


def find_after(memo: LastAt, path: str, literal: str, start: int) -> int:
    """`path.find(literal, start)`, answered without a scan when the check's last search of the
    same literal covered `start`: it found the first occurrence at `low` or later to be `hit`, so
    there is none in [low, hit) and, for `low <= start <= hit`, the first at `start` or later is
    `hit` (none at all when `hit` is -1). Hostile rules repeat rare literals; each costs one scan."""
    after = memo.after
    if after is None:
        after = memo.after = {}
    known = after.get(literal)
    if known is not None:
        low, hit = known
        if low <= start and (hit < 0 or start <= hit):
            return hit
    hit = path.find(literal, start)
    after[literal] = (start, hit)
    return hit


def split_pattern(pattern: str) -> tuple[tuple[str, ...], bool]:
    """Split a normalised pattern into its literal segments and whether it is `$`-anchored."""
    anchored = pattern.endswith("$")
    body = pattern[:-1] if anchored else pattern
    return tuple(body.split("*")), anchored


def glob_match(segments: tuple[str, ...], anchored: bool, path: str, memo: LastAt | None = None) -> bool:
    """True if `path` starts with a match of the split pattern (greedy, leftmost; linear).

    `memo`, when given, is the check's `LastAt`: rules that end on the same literal search it once.
    """
    first = segments[0]
    if not path.startswith(first):
        return False
    last_index = len(segments) - 1
    if last_index == 0:
        return len(path) == len(first) if anchored else True
    position = len(first)
    if last_index >= TAIL_AFTER and not _tail_fits(segments, anchored, path, position, memo):
        return False
    for index in range(1, last_index):
        segment = segments[index]
        if segment:
            found = path.find(segment, position)
            if found < 0:
                return False
            position = found + len(segment)
    last = segments[last_index]
    if anchored:
        return len(path) - len(last) >= position and path.endswith(last)
    if not last:
        return True
    if memo is None:
        return path.find(last, position) >= 0
    return last_at(memo, path, last) >= position


# Patterns of at least this many segments first try `_tail_fits`: two C-level searches that reject
# most near misses before the greedy walk spends one Python step per segment.
TAIL_AFTER = 4


def _tail_fits(
    segments: tuple[str, ...], anchored: bool, path: str, position: int, memo: LastAt | None
) -> bool:
    last = len(segments) - 1
    return tail_fits(segments[last - 1], segments[last], anchored, path, position, memo)


# A tail test whose literal must end within this many characters searches just that stretch.
BOUNDED_SEARCH = 256


def tail_fits(before: str, final: str, anchored: bool, path: str, position: int, memo: LastAt | None) -> bool:
    """A necessary condition for a greedy walk that is at `position` or beyond: `before` (the
    literal before the last) occurs from `position` on, and the final literal after it (at the end
    of the path if `anchored`).

    A search that starts later never ends earlier, so if the tail cannot follow from `position`
    it cannot follow from where the walk really is. Near misses (every literal occurs, the order or
    the end fails) are mostly rejected here, for two searches instead of one per segment. The final
    literal is looked for first, from the end: `before` then only has to end by where it starts,
    a short search when that is near (the memo answers the long ones a check repeats).
    """
    if anchored:
        if not path.endswith(final):
            return False
        limit = len(path) - len(final)
    elif memo is None:
        limit = path.rfind(final)
    else:
        limit = last_at(memo, path, final)
    if limit < position:
        return False
    if memo is None or limit - position <= BOUNDED_SEARCH:
        return path.find(before, position, limit) >= 0
    found = find_after(memo, path, before, position)
    return found >= 0 and found + len(before) <= limit


def pattern_matches(pattern: str, path: str, memo: LastAt | None = None) -> bool:
    """True if the normalised `pattern` matches `path` (the unindexed form, for explain and tests).

    `memo`: the check's `LastAt`, when one check tries many patterns against one path.
    """
    segments, anchored = split_pattern(pattern)
    return glob_match(segments, anchored, path, memo)


def outranks(rule: Rule, other: Rule | None) -> bool:
    """RFC 9309 2.2.2: the longest pattern wins; on equal length allow wins; else the earlier line."""
    if other is None:
        return True
    length, other_length = len(rule.pattern), len(other.pattern)
    if length != other_length:
        return length > other_length
    if rule.allow != other.allow:
        return rule.allow
    return rule.line < other.line
