"""Pattern facts for the lint rules that compare rules (RK3xx): coverage, overlap, match ends.

This module owns the reasoning about what two robots.txt path patterns match: `match_end`
(the shortest match of a pattern, linear so a stranger's pattern cannot make it backtrack),
`Pattern` (one rule's facts, computed once) and `CoverIndex` (which patterns may cover which,
without comparing every pair). It decides nothing about allow/disallow: matcher.py does that.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Iterator
from functools import lru_cache

from robotskit.core.model import Rule

__all__ = ["CoverIndex", "Pattern", "PatternFacts", "by_star_insertion", "match_end", "pattern_facts"]


def match_end(pattern: str, path: str) -> int | None:
    """Where the shortest match of `pattern` at the start of `path` ends, or None if it does not match.

    RFC 9309 2.2.3: `*` matches any run of characters, a final `$` anchors the end; everything
    else is a prefix match. A set of positions keeps this linear per pattern character, so a
    pattern from a stranger cannot make it backtrack.
    """
    anchored = pattern.endswith("$")
    positions = {0}
    for char in pattern[:-1] if anchored else pattern:
        if char == "*":
            positions = set(range(min(positions), len(path) + 1))
        else:
            positions = {p + 1 for p in positions if p < len(path) and path[p] == char}
        if not positions:
            return None
    if anchored:
        return len(path) if len(path) in positions else None
    return min(positions)


def by_star_insertion(wide: str, narrow: str) -> bool:
    """True if `narrow` is `wide` with some `*` removed: then `wide` matches all `narrow` does."""
    j = 0
    for char in wide:
        if j < len(narrow) and char == narrow[j]:
            j += 1
        elif char != "*":
            return False
    return j == len(narrow)


# What the pair checks need of a pattern string (see `Pattern`): the same strings recur in
# every group of a file and across files, so they are worked out once per string.
PatternFacts = tuple[int, str, str, tuple[str, ...], bool, bool, str, bool]


@lru_cache(maxsize=16384)
def pattern_facts(pattern: str) -> PatternFacts:
    """(size, plain, literal, chunks, anchored, matches_all, sample, wild) of a pattern (see `Pattern`)."""
    cut = [i for i in (pattern.find("*"), pattern.find("$")) if i >= 0]
    anchored = pattern.endswith("$")
    return (
        len(pattern.encode("utf-8", "surrogatepass")),
        pattern.replace("*", ""),
        pattern[: min(cut)] if cut else pattern,
        tuple(pattern.split("*")),
        anchored,
        # `match_end(pattern, "/") is not None`, said directly: only `*`s around one `/` match it
        not anchored and pattern.replace("*", "") in ("", "/"),
        (pattern[:-1] if anchored else pattern).replace("*", ""),
        anchored or "*" in pattern,
    )


class Pattern:
    """A rule with the facts the pair checks need, computed once; compared by identity.

    (A plain slotted class: large files make hundreds of thousands, and a frozen dataclass
    costs several times as much to build.)
    """

    __slots__ = ("anchored", "chunks", "literal", "matches_all", "plain", "rule", "sample", "size", "wild")

    rule: Rule
    size: int  # RFC 9309 2.2.2: priority is the length in octets, after normalisation
    plain: str  # the pattern without its `*`s
    literal: str  # what every matching path starts with: the text before the first `*` or `$`
    chunks: tuple[str, ...]  # the literal runs between `*`s
    anchored: bool
    matches_all: bool  # matches every path (e.g. `/`, `*`, `/*`)
    sample: str  # a plain path the pattern matches
    wild: bool  # has a `*` or a final `$` (else it matches exactly the paths it prefixes)

    def __init__(self, rule: Rule) -> None:
        self.rule = rule
        (
            self.size,
            self.plain,
            self.literal,
            self.chunks,
            self.anchored,
            self.matches_all,
            self.sample,
            self.wild,
        ) = pattern_facts(rule.pattern)

    @classmethod
    def of(cls, rule: Rule) -> Pattern:
        return cls(rule)

    def covers(self, narrow: Pattern) -> bool:
        """A sufficient test that every path `narrow` matches is also matched by this pattern."""
        if self.plain == narrow.plain and by_star_insertion(self.rule.pattern, narrow.rule.pattern):
            return True
        if self.anchored:
            return False
        if self.matches_all:
            return True
        # Without `$`, matching a string means matching all its extensions, and every path
        # `narrow` matches starts with its literal prefix. Cheap substring tests go first.
        literal = narrow.literal
        if not literal.startswith(self.chunks[0]) or any(c not in literal for c in self.chunks[1:]):
            return False
        return match_end(self.rule.pattern, literal) is not None

    def overlaps(self, other: Pattern) -> bool:
        """A conservative test that both match some path: each one's plainest path is tried.

        Unrelated wildcard rules of equal length can nearly always be made to meet on some
        contrived path (`/*.ps$` and `/watl/` both match `/watl/.ps`); such ties are left out.
        """
        a, b = self.rule.pattern, other.rule.pattern
        if not (self.wild or other.wild):
            # Plain prefixes both match a path only if one prefixes the other; in particular,
            # of equal length (the ties asked about), only if they are the same text.
            return a.startswith(b) or b.startswith(a)
        x, y = self.literal, other.literal
        if not (x.startswith(y) or y.startswith(x)):
            return False  # every path either matches starts with its literal: none starts with both
        return any(self.matches(s) and other.matches(s) for s in (self.sample, other.sample))

    def matches(self, path: str) -> bool:
        """Does the pattern match `path` (at its start)? A plain one is a prefix test."""
        if self.wild:
            return match_end(self.rule.pattern, path) is not None
        return path.startswith(self.rule.pattern)


class CoverIndex:
    """Finds the patterns that may cover a pattern without comparing every pair (big files stay fast).

    A pattern N can be covered only by one equal to N once `*`s are removed, by one that matches
    every path, or by an unanchored wildcard pattern whose literal runs all fit in N's literal
    prefix (so its first run is a prefix of it and its `*`-less text is no longer than it).
    """

    def __init__(self, patterns: Iterable[Pattern]) -> None:
        self.by_plain: dict[str, list[Pattern]] = {}
        self.everything: list[Pattern] = []
        self.by_head: dict[str, list[Pattern]] = {}
        for pat in patterns:
            self.by_plain.setdefault(pat.plain, []).append(pat)
            if pat.matches_all:
                self.everything.append(pat)
            elif len(pat.chunks) > 1 and not pat.anchored:
                self.by_head.setdefault(pat.chunks[0], []).append(pat)
        for head in self.by_head.values():
            head.sort(key=lambda p: len(p.plain))
        self.head_sizes = {k: [len(p.plain) for p in v] for k, v in self.by_head.items()}
        self.head_lengths = sorted({len(k) for k in self.by_head})

    def coverers(self, narrow: Pattern) -> Iterator[Pattern]:
        found = [*self.by_plain.get(narrow.plain, ()), *self.everything]
        literal = narrow.literal
        for end in self.head_lengths:  # only the lengths some wildcard head has
            if end > len(literal):
                break
            head = self.by_head.get(literal[:end])
            if head:  # sorted by `*`-less length: take those no longer than the literal prefix
                found += head[: bisect.bisect_right(self.head_sizes[literal[:end]], len(literal))]
        return (p for p in dict.fromkeys(found) if p.rule is not narrow.rule and p.covers(narrow))

    def longer_coverer(self, narrow: Pattern) -> Pattern | None:
        """The first of `coverers(narrow)` that is longer than `narrow`, or None.

        The size test goes before `covers`: most candidates fail it. A candidate listed twice
        is met first where `coverers` puts it, so skipping the de-duplication changes nothing.
        """
        size, rule = narrow.size, narrow.rule
        for group in (self.by_plain.get(narrow.plain, ()), self.everything):
            for pat in group:
                if pat.size > size and pat.rule is not rule and pat.covers(narrow):
                    return pat
        literal = narrow.literal
        for end in self.head_lengths:
            if end > len(literal):
                break
            head = self.by_head.get(literal[:end])
            if head:
                for pat in head[: bisect.bisect_right(self.head_sizes[literal[:end]], len(literal))]:
                    if pat.size > size and pat.rule is not rule and pat.covers(narrow):
                        return pat
        return None
