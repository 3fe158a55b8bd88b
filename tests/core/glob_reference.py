"""A reference for wildcard matching that shares no code with robotskit's matchers: each pattern as
a backtracking regular expression (exact, and fast enough on the tests' small inputs)."""

from __future__ import annotations

import re
from collections.abc import Callable

from robotskit.core.model import Rule, RuleKind


def regex_matches(pattern: str, path: str) -> bool:
    """`*` as `.*` and a final `$` as the end, matched at the path's start (backtracking)."""
    anchored = pattern.endswith("$")
    body = pattern[:-1] if anchored else pattern
    source = ".*".join(map(re.escape, body.split("*"))) + (r"\Z" if anchored else "")
    return re.match(source, path, re.DOTALL) is not None


def reference_best(
    rules: list[Rule], path: str, matches: Callable[[str, str], bool] = regex_matches
) -> Rule | None:
    """RFC 9309 2.2.2: every rule tried (`matches(pattern, path)`); the longest matching pattern,
    allow on equal length, then the earliest line (patterns that start with neither '/' nor '*'
    match no path)."""
    best: Rule | None = None
    for rule in rules:
        if rule.pattern[:1] in ("/", "*") and matches(rule.pattern, path):
            key = (len(rule.pattern), rule.kind is RuleKind.ALLOW, -rule.line)
            if best is None or key > (len(best.pattern), best.kind is RuleKind.ALLOW, -best.line):
                best = rule
    return best
