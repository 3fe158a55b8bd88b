"""Compiled rule sets: the fast, linear-time half of matching (SPEC.md section 3).

A pattern is a prefix match where `*` matches any run of characters and a final `$` anchors
to the end of the path. Priority is the pattern's length in octets; on equal length `allow`
wins. Patterns come from strangers, so nothing here backtracks: a wildcard pattern is split
at its `*`s and matched greedily, leftmost first, which is exact for `*`-only globs and costs
O(len(path)) string searches per pattern.

A `RuleSet` indexes the rules of one agent view once, so a check does not scan every rule:
plain prefixes sit in one dict per length (probed longest first), exact `$` patterns in one
dict, and only wildcard patterns are tried one by one, longest first, stopping as soon as no
remaining pattern could outrank the best match found.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from robotskit._model import Rule


def split_pattern(pattern: str) -> tuple[tuple[str, ...], bool]:
    """Split a normalised pattern into its literal segments and whether it is `$`-anchored."""
    anchored = pattern.endswith("$")
    body = pattern[:-1] if anchored else pattern
    return tuple(body.split("*")), anchored


def glob_match(segments: tuple[str, ...], anchored: bool, path: str) -> bool:
    """True if `path` starts with a match of the split pattern (greedy, leftmost; linear)."""
    first = segments[0]
    if not path.startswith(first):
        return False
    last_index = len(segments) - 1
    if last_index == 0:
        return len(path) == len(first) if anchored else True
    position = len(first)
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
    return not last or path.find(last, position) >= 0


def pattern_matches(pattern: str, path: str) -> bool:
    """True if the normalised `pattern` matches `path` (the unindexed form, for explain and tests)."""
    segments, anchored = split_pattern(pattern)
    return glob_match(segments, anchored, path)


def _outranks(rule: Rule, other: Rule | None) -> bool:
    """RFC 9309 2.2.2: the longest pattern wins; on equal length allow wins; else the earlier line."""
    if other is None:
        return True
    length, other_length = len(rule.pattern), len(other.pattern)
    if length != other_length:
        return length > other_length
    if rule.allow != other.allow:
        return rule.allow
    return rule.line < other.line


class RuleSet:
    """The rules that apply to one agent view, indexed for fast `best()` lookups.

    Immutable after construction; safe to share between threads.
    """

    __slots__ = ("_complex", "_exact", "_prefix_lengths", "_prefixes", "rules")

    def __init__(self, rules: Iterable[Rule]) -> None:
        kept = [rule for rule in rules if rule.pattern]  # SPEC 2: an empty pattern is no rule
        self.rules: tuple[Rule, ...] = tuple(kept)
        prefixes: dict[int, dict[str, Rule]] = {}
        exact: dict[str, Rule] = {}
        complex_rules: list[tuple[int, bool, tuple[str, ...], bool, Rule]] = []
        for rule in kept:
            pattern = rule.pattern
            segments, anchored = split_pattern(pattern)
            if len(segments) == 1 and not anchored:
                bucket = prefixes.setdefault(len(pattern), {})
                if _outranks(rule, bucket.get(pattern)):
                    bucket[pattern] = rule
            elif len(segments) == 1:
                if _outranks(rule, exact.get(segments[0])):
                    exact[segments[0]] = rule
            else:
                complex_rules.append((len(pattern), rule.allow, segments, anchored, rule))
        complex_rules.sort(key=lambda item: (-item[0], not item[1], item[4].line))
        self._prefixes = prefixes
        self._prefix_lengths = tuple(sorted(prefixes, reverse=True))
        self._exact = exact
        self._complex = tuple(complex_rules)

    def best(self, path: str) -> Rule | None:
        """The deciding rule for `path`, or None when no rule matches."""
        best: Rule | None = None
        path_length = len(path)
        prefixes = self._prefixes
        for length in self._prefix_lengths:
            if length <= path_length:
                rule = prefixes[length].get(path[:length])
                if rule is not None:
                    best = rule
                    break
        if self._exact:
            rule = self._exact.get(path)
            if rule is not None and _outranks(rule, best):
                best = rule
        if self._complex:
            for _, _, segments, anchored, rule in self._complex:
                if best is not None and not _outranks(rule, best):
                    break  # sorted in _outranks order: nothing left can outrank the best match
                if glob_match(segments, anchored, path):
                    return rule
        return best

    def matching(self, path: str) -> list[Rule]:
        """Every rule that matches `path`, deciding one first (for explain; scans all rules)."""
        found = [rule for rule in self.rules if pattern_matches(rule.pattern, path)]
        found.sort(key=lambda rule: (-len(rule.pattern), not rule.allow, rule.line))
        return found


def merge_rule_sets(groups_rules: Sequence[Sequence[Rule]]) -> RuleSet:
    """RFC 9309 2.2.1: the rules of every group that applies are combined into one set."""
    return RuleSet(rule for rules in groups_rules for rule in rules)
