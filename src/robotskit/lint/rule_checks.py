"""Lint rules RK3xx: rules and groups, judged against each other.

Duplicates, rules that never decide because a longer one covers them, allow/disallow ties,
`Disallow: /` for everyone, and named groups that silently drop the `*` rules. The reasoning
about what patterns match lives in `_lint_patterns`; RFC 9309 2.2.2 (longest match wins, allow
wins ties) is the yardstick.
"""

from __future__ import annotations

from collections.abc import Iterable

from robotskit.core.model import Diagnostic, Group, Rule, RuleKind
from robotskit.core.profiles import get_profile
from robotskit.lint.context import Check, Context, rule_text, token_for
from robotskit.lint.patterns import CoverIndex, Pattern

__all__ = ["CHECKS"]


def _unique(rules: Iterable[Rule]) -> tuple[list[Pattern], list[tuple[Rule, Rule]]]:
    """Distinct (kind, pattern) rules in file order, and the (copy, original) pairs of duplicates."""
    first: dict[tuple[RuleKind, str], Rule] = {}
    copies = []
    for rule in rules:
        original = first.setdefault((rule.kind, rule.pattern), rule)
        if original is not rule:
            copies.append((rule, original))
    return [Pattern.of(r) for r in first.values()], copies


def _never_decides(ctx: Context, pat: Pattern, index: CoverIndex) -> Diagnostic | None:
    rule = pat.rule
    for other in index.coverers(pat):
        if other.size > pat.size:
            code, verb = ("RK302", "redundant") if other.rule.kind is rule.kind else ("RK303", "overridden")
            return ctx.diag(
                code,
                rule.line,
                f"'{rule_text(rule)}' never decides ({verb}): '{rule_text(other.rule)}' "
                f"(line {other.rule.line}) is longer and matches every URL it matches",
                column=ctx.value_column(rule.line),
                hint="the longest matching rule wins (RFC 9309 2.2.2)",
            )
    return None


def _tie(ctx: Context, pat: Pattern, allows: Iterable[Pattern]) -> Diagnostic | None:
    rule = pat.rule
    for other in allows:
        if other.overlaps(pat):
            return ctx.diag(
                "RK304",
                rule.line,
                f"'{rule_text(rule)}' ties with '{rule_text(other.rule)}' (line {other.rule.line}): "
                "equal length, so the allow wins where both match",
                column=ctx.value_column(rule.line),
                hint="RFC 9309 2.2.2: on a tie the least restrictive rule wins; "
                "lengthen the rule you mean to win",
            )
    return None


def _rule_pairs(ctx: Context) -> Iterable[Diagnostic]:
    for rules in ctx.pools().values():
        patterns, copies = _unique(rules)
        for copy, original in copies:
            yield ctx.diag(
                "RK301",
                copy.line,
                f"duplicate of line {original.line}: '{rule_text(copy)}'",
                column=ctx.value_column(copy.line),
                hint="delete one of them",
            )
        index = CoverIndex(patterns)
        allows_by_size: dict[int, list[Pattern]] = {}
        for pat in patterns:
            if pat.rule.kind is RuleKind.ALLOW:
                allows_by_size.setdefault(pat.size, []).append(pat)
        for pat in patterns:
            found = _never_decides(ctx, pat, index)
            if found is None and pat.rule.kind is RuleKind.DISALLOW:
                found = _tie(ctx, pat, allows_by_size.get(pat.size, ()))
            if found is not None:
                yield found


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


def _dropped_global_rules(ctx: Context) -> Iterable[Diagnostic]:
    if get_profile(ctx.profile).judge_every_token:
        return  # every token is judged with `*` as well (the Gemini companion): nothing is dropped
    pools = ctx.pools()
    star = _unique(r for r in pools.get("*", []) if r.kind is RuleKind.DISALLOW)[0]
    first_lines = _agentlines_of(ctx.robots.groups)
    for token, rules in pools.items():
        if token == "*" or not star:
            continue
        disallows = _unique(r for r in rules if r.kind is RuleKind.DISALLOW)[0]
        own = CoverIndex(disallows)
        lost = [p.rule for p in star if not disallows or next(own.coverers(p), None) is None]
        if not lost:
            continue
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
