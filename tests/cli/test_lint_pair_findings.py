"""The pair checks' shortcuts (RK301-RK304) find exactly what comparing every pair finds.

`rule_checks._findings` skips the pattern analysis for pools without `*` or `$`, indexes only
wildcard patterns as possible longer coverers, tests plain overlaps by prefix and remembers
findings by pool shape. The reference below is the plain definition: for each distinct rule
in file order, the first longer rule (in `CoverIndex.coverers` order, all patterns indexed)
that covers it, else, for a disallow, the first equal-length allow both of whose sample paths
test is decided by `match_end` alone.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import robotskit
from robotskit.core.model import Rule, RuleKind
from robotskit.lint import rule_checks
from robotskit.lint.patterns import CoverIndex, Pattern, match_end

from .conftest import REPO

CORPUS = (REPO / ".." / "shared" / "corpus" / "files").resolve()


def _overlaps(a: Pattern, b: Pattern) -> bool:
    return any(
        match_end(a.rule.pattern, s) is not None and match_end(b.rule.pattern, s) is not None
        for s in (a.sample, b.sample)
    )


def _reference(rules: list[Rule]) -> list[tuple[str, int, int]]:
    first: dict[tuple[RuleKind, str], int] = {}
    found: list[tuple[str, int, int]] = []
    for at, rule in enumerate(rules):
        original = first.setdefault((rule.kind, rule.pattern), at)
        if original != at:
            found.append(("RK301", at, original))
    patterns = [Pattern(rules[at]) for at in first.values()]
    position = {id(p.rule): at for p, at in zip(patterns, first.values(), strict=True)}
    index = CoverIndex(patterns)
    for pat in patterns:
        other = next((o for o in index.coverers(pat) if o.size > pat.size), None)
        if other is not None:
            code = "RK302" if other.rule.kind is pat.rule.kind else "RK303"
            found.append((code, position[id(pat.rule)], position[id(other.rule)]))
        elif pat.rule.kind is RuleKind.DISALLOW:
            allows = [a for a in patterns if a.rule.kind is RuleKind.ALLOW and a.size == pat.size]
            tie = next((a for a in allows if _overlaps(a, pat)), None)
            if tie is not None:
                found.append(("RK304", position[id(pat.rule)], position[id(tie.rule)]))
    return found


_PATTERNS = st.lists(
    st.sampled_from(["/", "a", "b", "*", "$", "/a", "/ab", "?"]), min_size=1, max_size=4
).map("".join)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.booleans(), _PATTERNS), min_size=1, max_size=12))
def test_pool_findings_equal_the_pairwise_reference(spec: list[tuple[bool, str]]) -> None:
    """Property: on random pools (plain, wildcard, anchored, duplicates, same-text allow and
    disallow), the findings and their order are the reference's."""
    rules = [
        Rule(n + 1, RuleKind.ALLOW if allow else RuleKind.DISALLOW, pattern)
        for n, (allow, pattern) in enumerate(spec)
    ]
    rule_checks._shape_memo.clear()
    assert list(rule_checks._findings(rules)) == _reference(rules)
    # ... and the memo by shape hands the same findings to a pool with other lines
    moved = [rule._replace(line=rule.line + 100) for rule in rules]
    assert list(rule_checks._pool_findings(moved, {})) == _reference(moved)


def test_corpus_pools_equal_the_pairwise_reference() -> None:
    """Every pool of a sample of corpus files (wildcard-heavy ones included) gives the reference's findings."""
    files = sorted(CORPUS.glob("*.txt"))[::13]
    assert len(files) > 300
    checked = 0
    for path in files:
        robots = robotskit.parse(path.read_bytes())
        pools: dict[str, list[Rule]] = {}
        for group in robots.groups:
            for token in dict.fromkeys(group.agents):
                pools.setdefault(token, []).extend(r for r in group.rules if r.pattern and not r.derived)
        for rules in pools.values():
            if len(rules) > 400:
                continue  # the quadratic reference would dominate the test's time
            assert list(rule_checks._findings(rules)) == _reference(rules), path.name
            checked += 1
    assert checked > 500
