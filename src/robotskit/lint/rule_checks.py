"""Lint rules RK3xx: rules and groups, judged against each other.

Duplicates, rules that never decide because a longer one covers them, allow/disallow ties,
`Disallow: /` for everyone, and named groups that silently drop the `*` rules. The reasoning
about what patterns match lives in `_lint_patterns`; RFC 9309 2.2.2 (longest match wins, allow
wins ties) is the yardstick.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from operator import itemgetter

from robotskit.core.model import Diagnostic, Group, Rule, RuleKind
from robotskit.core.profiles import get_profile
from robotskit.lint.context import Check, Context, rule_text, token_for
from robotskit.lint.patterns import CoverIndex, Pattern

__all__ = ["CHECKS"]

_KIND, _PATTERN = itemgetter(1), itemgetter(2)  # Rule fields, read without attribute lookups


_pattern = Pattern  # (cheap: a pattern's facts are remembered by its text, see `pattern_facts`)


# What the pair checks find in one pool, by position in the pool: (code, rule, other rule).
# RK301: a duplicate and its original; RK302/RK303: a rule that never decides and the longer
# rule covering it; RK304: a disallow and the allow it ties with.
Finding = tuple[str, int, int]
# A pool's (kind, pattern) sequence: the findings depend on nothing else (lines and raw text
# only go into the messages), so pools that repeat one rule list, in a file with hundreds of
# bot groups or across the files of a crawl, are judged once.
Shape = tuple[tuple[RuleKind, ...], tuple[str, ...]]
_SHARED_SHAPE = 64  # pools up to this many rules are remembered across files (bounded memory)
_shape_memo: dict[Shape, tuple[Finding, ...]] = {}
_SHAPE_MEMO = 4096


def _shape(rules: Sequence[Rule]) -> Shape:
    return tuple(map(_KIND, rules)), tuple(map(_PATTERN, rules))


def _findings(rules: Sequence[Rule]) -> tuple[Finding, ...]:
    """The pair checks' findings for one pool of rules, in report order (see `Finding`)."""
    first: dict[tuple[RuleKind, str], int] = {}
    found: list[Finding] = []
    for at, rule in enumerate(rules):
        original = first.setdefault((rule.kind, rule.pattern), at)
        if original != at:
            found.append(("RK301", at, original))
    text = "".join(map(_PATTERN, rules))
    if "*" not in text and "$" not in text:
        return (*found, *_plain_ties(first))
    patterns = [Pattern(rules[at]) for at in first.values()]
    position = {id(pat.rule): at for pat, at in zip(patterns, first.values(), strict=True)}
    # Only a wildcard or `$` pattern can be longer than a rule and match all it matches (the
    # longer one must reach past the rule's text with a `*`), so only those are indexed.
    index = CoverIndex(pat for pat in patterns if pat.wild)
    allows_by_size: dict[int, list[Pattern]] = {}
    for pat in patterns:
        if pat.rule.kind is RuleKind.ALLOW:
            allows_by_size.setdefault(pat.size, []).append(pat)
    for pat in patterns:
        at = position[id(pat.rule)]
        other = index.longer_coverer(pat)
        if other is not None:
            code = "RK302" if other.rule.kind is pat.rule.kind else "RK303"
            found.append((code, at, position[id(other.rule)]))
        elif pat.rule.kind is RuleKind.DISALLOW:
            tie = next((a for a in allows_by_size.get(pat.size, ()) if a.overlaps(pat)), None)
            if tie is not None:
                found.append(("RK304", at, position[id(tie.rule)]))
    return tuple(found)


def _plain_ties(first: dict[tuple[RuleKind, str], int]) -> Iterator[Finding]:
    """`_findings` past the duplicates for a pool without `*` or `$`: no rule covers a longer
    one, and a disallow ties only with an allow of the very same text (RFC 9309 2.2.2)."""
    allows = {pattern: at for (kind, pattern), at in first.items() if kind is RuleKind.ALLOW}
    if not allows:
        return
    for (kind, pattern), at in first.items():
        if kind is RuleKind.DISALLOW and pattern in allows:
            yield ("RK304", at, allows[pattern])


def _pool_findings(rules: Sequence[Rule], known: dict[Shape, tuple[Finding, ...]]) -> tuple[Finding, ...]:
    """`_findings`, remembered by shape: in `known` (this file) and, for small pools, across files."""
    shape = _shape(rules)
    found = known.get(shape)
    if found is None:
        small = len(rules) <= _SHARED_SHAPE
        found = _shape_memo.get(shape) if small else None
        if found is None:
            found = _findings(rules)
            if small:
                if len(_shape_memo) >= _SHAPE_MEMO:
                    _shape_memo.clear()
                _shape_memo[shape] = found
        known[shape] = found
    return found


def _rule_pairs(ctx: Context) -> Iterable[Diagnostic]:
    done: set[tuple[int, ...]] = set()
    known: dict[Shape, tuple[Finding, ...]] = {}
    for rules in ctx.pools().values():
        # A group naming many agents gives each the same pool: its findings would repeat exactly.
        identity = tuple(map(id, rules))
        if identity in done:
            continue
        done.add(identity)
        for code, at, other_at in _pool_findings(rules, known):
            rule, other = rules[at], rules[other_at]
            column = ctx.value_column(rule.line)
            if code == "RK301":
                yield ctx.diag(
                    code,
                    rule.line,
                    f"duplicate of line {other.line}: '{rule_text(rule)}'",
                    column=column,
                    hint="delete one of them",
                )
            elif code == "RK304":
                yield ctx.diag(
                    code,
                    rule.line,
                    f"'{rule_text(rule)}' ties with '{rule_text(other)}' (line {other.line}): "
                    "equal length, so the allow wins where both match",
                    column=column,
                    hint="RFC 9309 2.2.2: on a tie the least restrictive rule wins; "
                    "lengthen the rule you mean to win",
                )
            else:
                verb = "redundant" if code == "RK302" else "overridden"
                yield ctx.diag(
                    code,
                    rule.line,
                    f"'{rule_text(rule)}' never decides ({verb}): '{rule_text(other)}' "
                    f"(line {other.line}) is longer and matches every URL it matches",
                    column=column,
                    hint="the longest matching rule wins (RFC 9309 2.2.2)",
                )


def _disallow_all(ctx: Context) -> Iterable[Diagnostic]:
    for group in ctx.robots.groups:
        if not group.is_global:
            continue
        for rule in group.rules:
            if rule.kind is RuleKind.DISALLOW and not rule.derived and rule.pattern in ("/", "*", "/*"):
                yield ctx.diag(
                    "RK305",
                    rule.line,
                    "'Disallow: /' in the '*' group shuts the whole site to every crawler "
                    "without a group of its own",
                    column=ctx.value_column(rule.line),
                    hint="fine for a staging site; in production, search engines will drop the site",
                )


def _agentlines_of(groups: Iterable[Group]) -> dict[str, int]:
    """The first user-agent line naming each token (as rfc9309 or google reads the value)."""
    lines: dict[str, int] = {}
    for group in groups:
        for line, raw in zip(group.agent_lines, group.raw_agents, strict=False):
            for profile in ("rfc9309", "google"):
                lines.setdefault(token_for(profile, raw), line)
        for token in group.agents:
            lines.setdefault(token, group.line)
    return lines


def _first_disallows(rules: Iterable[Rule]) -> dict[str, Rule]:
    """The first disallow rule of each pattern, in file order."""
    firsts: dict[str, Rule] = {}
    disallow = RuleKind.DISALLOW
    for rule in rules:
        if rule.kind is disallow:
            firsts.setdefault(rule.pattern, rule)
    return firsts


def _dropped_global_rules(ctx: Context) -> Iterable[Diagnostic]:
    if get_profile(ctx.profile).judge_every_token:
        return  # every token is judged with `*` as well (the Gemini companion): nothing is dropped
    pools = ctx.pools()
    if len(pools) < 2 or "*" not in pools:
        return  # nothing is dropped without a `*` group and a named one
    star_rules = _first_disallows(pools["*"])
    if not star_rules:
        return  # no `*` disallow rule: a named group drops nothing
    star_ids = {id(rule): i for i, rule in enumerate(star_rules.values())}
    star: list[Pattern] = []  # built on the first pool that needs it
    first_lines: dict[str, int] | None = None
    # Files with hundreds of bot groups repeat the same few rule lists: what is lost depends only
    # on the patterns (and on which rules are the `*` group's own, as coverers skips a rule itself),
    # so the key is read from the rules and patterns are built only for a new key.
    known: dict[tuple[tuple[str, ...], tuple[int, ...]], list[Rule]] = {}
    for token, rules in pools.items():
        if token == "*":
            continue
        firsts = _first_disallows(rules)
        key = (tuple(firsts), tuple(star_ids[id(r)] for r in firsts.values() if id(r) in star_ids))
        lost = known.get(key)
        if lost is None:
            star = star or [_pattern(rule) for rule in star_rules.values()]
            disallows = [_pattern(r) for r in firsts.values()]
            own = CoverIndex(disallows)
            lost = known[key] = [p.rule for p in star if not disallows or next(own.coverers(p), None) is None]
        if not lost:
            continue
        if first_lines is None:
            first_lines = _agentlines_of(ctx.robots.groups)
        line = first_lines.get(token, 0)
        shown = ", ".join(f"'{rule_text(r)}' (line {r.line})" for r in lost[:5])
        more = f" and {len(lost) - 5} more" if len(lost) > 5 else ""
        yield ctx.diag(
            "RK306",
            line,
            f"'{token}' has a group of its own, so it ignores the '*' group: {shown}{more} "
            "do not apply to it",
            column=ctx.value_column(line),
            hint=f"repeat those rules in the '{token}' group if they should bind it too",
        )


CHECKS: tuple[Check, ...] = (_rule_pairs, _disallow_all, _dropped_global_rules)
