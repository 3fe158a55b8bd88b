"""Audit a robots.txt against the table of well-known crawlers: who is blocked, and what does nothing.

Owns: `audit(robots)` -> `AuditReport`, the data behind `robotskit audit ROBOTS [--json]`. For
each crawler it reports whether the file blocks it fully, partly or not at all (judged on `/`
plus a sample of paths taken from the file's own rules), which rules do nothing for it, and the
notes a site owner needs (control-only tokens, crawlers that ignore `User-agent: *`). The
`to_dict()` schema is documented in docs/audit.md. Pure: no I/O beyond reading the bundled table.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from robotskit.core.agents import Agent
from robotskit.core.crawlers import Crawler, CrawlerTable, load_crawlers
from robotskit.core.model import Group
from robotskit.core.profiles import RFC9309, profile_for_url
from robotskit.document import RobotsTxt
from robotskit.lint.context import token_for

SCHEMA = "robotskit.audit/1"
FULL, PARTIAL, NONE = "full", "partial", "none"
MAX_SAMPLE_PATHS = 200


@dataclass(frozen=True, slots=True)
class IgnoredRule:
    """A rule that never applies to one crawler, and why."""

    line: int
    kind: str
    pattern: str
    group_line: int
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "line": self.line,
            "kind": self.kind,
            "pattern": self.pattern,
            "group_line": self.group_line,
            "reason": self.reason,
        }


@dataclass(frozen=True, slots=True)
class CrawlerAudit:
    """What the file means for one crawler."""

    crawler: Crawler
    status: str  # "full" | "partial" | "none"
    groups: tuple[int, ...]  # line of the first user-agent line of each group that applies
    own_group: bool  # a group names this crawler (not only `*`)
    obeys: str  # the token whose groups apply: the crawler's own, a fallback of its chain, or `*`
    blocked: tuple[str, ...]
    allowed: tuple[str, ...]
    ignored_rules: tuple[IgnoredRule, ...]
    notes: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.crawler.to_dict(),
            "status": self.status,
            "groups": list(self.groups),
            "own_group": self.own_group,
            "obeys": self.obeys,
            "blocked": list(self.blocked),
            "allowed": list(self.allowed),
            "ignored_rules": [rule.to_dict() for rule in self.ignored_rules],
            "notes": list(self.notes),
        }


@dataclass(frozen=True, slots=True)
class UnknownAgent:
    """A group token that matches no crawler of the table (`suggestion`: a close known token)."""

    token: str
    line: int
    suggestion: str | None

    def to_dict(self) -> dict[str, Any]:
        return {"token": self.token, "line": self.line, "suggestion": self.suggestion}


@dataclass(frozen=True, slots=True)
class AuditReport:
    """The result of `audit()`; `to_dict()` is the stable JSON form (schema `robotskit.audit/1`)."""

    crawlers: tuple[CrawlerAudit, ...]
    sample_paths: tuple[str, ...]
    unknown_agents: tuple[UnknownAgent, ...]
    table_version: str
    table_date: str
    profile: str | None

    def get(self, token: str) -> CrawlerAudit | None:
        wanted = token.lower()
        return next((c for c in self.crawlers if c.crawler.token.lower() == wanted), None)

    def summary(self) -> dict[str, int]:
        counts = {FULL: 0, PARTIAL: 0, NONE: 0}
        for item in self.crawlers:
            counts[item.status] += 1
        return counts

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "table": {"version": self.table_version, "date": self.table_date},
            "profile": self.profile,
            "sample_paths": list(self.sample_paths),
            "summary": self.summary(),
            "crawlers": [item.to_dict() for item in self.crawlers],
            "unknown_agents": [item.to_dict() for item in self.unknown_agents],
        }


def sample_paths(robots: RobotsTxt, limit: int = MAX_SAMPLE_PATHS) -> tuple[str, ...]:
    """`/` plus one concrete path per distinct rule pattern of the file (file order).

    A pattern becomes a path that it matches: `*` is filled with `x`, a final `$` dropped, and a
    leading `/` added if missing. That gives every rule a path on which it can decide.
    """
    paths: dict[str, None] = {"/": None}
    for group in robots.groups:
        for rule in group.rules:
            if not rule.pattern or rule.derived:
                continue
            path = rule.pattern[:-1] if rule.pattern.endswith("$") else rule.pattern
            path = path.replace("*", "x")
            if not path.startswith("/"):
                path = "/" + path
            paths.setdefault(path, None)
            if len(paths) >= limit:
                return tuple(paths)
    return tuple(paths)


def _as_crawlers(
    crawlers: Iterable[Crawler | str] | CrawlerTable | None,
) -> tuple[CrawlerTable, list[Crawler]]:
    table = load_crawlers()
    if crawlers is None:
        return table, list(table)
    if isinstance(crawlers, CrawlerTable):
        return crawlers, list(crawlers)
    resolved = []
    for item in crawlers:
        if isinstance(item, Crawler):
            resolved.append(item)
        else:
            resolved.append(table.get(item) or Crawler(token=item, operator="", categories=()))
    return table, resolved


def _ignored_global_rules(groups: Sequence[Group], reason: str) -> list[IgnoredRule]:
    return [
        IgnoredRule(rule.line, str(rule.kind), rule.raw or rule.pattern, group.line, reason)
        for group in groups
        if group.is_global
        for rule in group.rules
        if not rule.derived
    ]


def _near_miss_rules(robots: RobotsTxt, crawler: Crawler, used: set[int]) -> list[IgnoredRule]:
    """Groups whose token looks meant for this crawler but does not match it (`GPT-Bot`)."""
    wanted = _squash(crawler.token)
    found: list[IgnoredRule] = []
    for group in robots.groups:
        if group.index in used or group.is_global:
            continue
        for raw, line in zip(group.raw_agents, group.agent_lines, strict=True):
            if _squash(raw) == wanted or _close(raw, crawler.token):
                reason = (
                    f"'User-agent: {raw}' (line {line}) looks meant for {crawler.token} but does not match it"
                )
                found.extend(
                    IgnoredRule(rule.line, str(rule.kind), rule.raw or rule.pattern, group.line, reason)
                    for rule in group.rules
                    if not rule.derived
                )
                break
    return found


def _squash(token: str) -> str:
    return "".join(ch for ch in token.lower() if ch.isalnum())


def _close(a: str, b: str) -> bool:
    a, b = a.lower(), b.lower()
    return a != b and len(b) >= 6 and difflib.SequenceMatcher(None, a, b).ratio() >= 0.9


def _obeyed(robots: RobotsTxt, crawler: Crawler) -> str:
    """The token of the crawler's chain whose groups apply: its own, a fallback, or `*`."""
    for token in crawler.chain:
        if any(not g.is_global for g in robots.groups_for(token)):
            return token
    return "*"


def _audit_one(robots: RobotsTxt, crawler: Crawler, paths: Sequence[str]) -> CrawlerAudit:
    # The crawler's documented fallback chain (Googlebot-Image -> Googlebot) decides which
    # groups apply when none names it; a crawler without a chain is its plain token.
    agent = Agent(crawler.token, fallbacks=crawler.fallbacks)
    groups = tuple(robots.groups_for(agent))
    obeys = _obeyed(robots, crawler)
    own = obeys.lower() == crawler.token.lower()
    notes: list[str] = []
    ignored: list[IgnoredRule] = []
    if crawler.control_only:
        notes.append(
            f"{crawler.token} is a control-only token: it is never sent as a User-Agent; rules for it "
            f"control how {crawler.operator or 'its operator'} may use content fetched by its other crawlers"
        )
    if crawler.ignores_star and not own:
        # Documented to skip `User-agent: *` (e.g. AdsBot-Google): only a group naming it applies.
        ignored += _ignored_global_rules(groups, f"{crawler.token} ignores 'User-agent: *' groups")
        notes.append(f"{crawler.token} ignores 'User-agent: *'; name it in a group to restrict it")
        verdicts = [(path, True) for path in paths]
        groups = ()
    else:
        if crawler.ignores_star:
            notes.append(f"{crawler.token} ignores 'User-agent: *'; only its own group applies")
        if own:
            unused = tuple(g for g in robots.groups if g.is_global and g not in groups)
            reason = f"{crawler.token} has its own group, so the '*' group does not apply to it"
            ignored += _ignored_global_rules(unused, reason)
        elif obeys != "*":
            unused = tuple(g for g in robots.groups if g.is_global and g not in groups)
            reason = f"{crawler.token} obeys the {obeys} group (its fallback chain), not the '*' group"
            ignored += _ignored_global_rules(unused, reason)
            notes.append(
                f"no group names {crawler.token}: it obeys the {obeys} group, as "
                f"{crawler.operator or 'its operator'} documents ({crawler.fallbacks_source})"
            )
        verdicts = [(path, robots.allowed(path, agent)) for path in paths]
    ignored += _near_miss_rules(robots, crawler, {g.index for g in groups})
    blocked = tuple(path for path, ok in verdicts if not ok)
    allowed = tuple(path for path, ok in verdicts if ok)
    status = FULL if blocked and not allowed else (PARTIAL if blocked else NONE)
    return CrawlerAudit(
        crawler=crawler,
        status=status,
        groups=tuple(g.line for g in groups),
        own_group=own,
        obeys=obeys,
        blocked=blocked,
        allowed=allowed,
        ignored_rules=tuple(ignored),
        notes=tuple(notes),
    )


def _unknown_agents(robots: RobotsTxt, crawlers: Sequence[Crawler]) -> tuple[UnknownAgent, ...]:
    """Every user-agent line whose token names no crawler of the table, even in a group that also
    names known ones (`User-agent: CCBot` + `User-agent: GPT-Bot`: the second matches nobody)."""
    known = {c.token.lower() for c in crawlers}
    tokens = [c.token for c in crawlers]
    profile = robots.profile or RFC9309
    unknown = []
    for group in robots.groups:
        if not group.agent_lines:
            continue
        for raw, line in zip(group.raw_agents, group.agent_lines, strict=True):
            token = token_for(profile, raw)
            if token == "*" or token in known:
                continue
            matches = difflib.get_close_matches(raw, tokens, n=1, cutoff=0.75)
            squashed = [t for t in tokens if _squash(t) == _squash(raw)]
            candidates = squashed or matches
            suggestion = candidates[0] if candidates else None
            unknown.append(UnknownAgent(raw, line, suggestion))
    return tuple(unknown)


def audit(
    robots: RobotsTxt,
    crawlers: Iterable[Crawler | str] | CrawlerTable | None = None,
    *,
    paths: Iterable[str] | None = None,
) -> AuditReport:
    """Audit `robots` for `crawlers` (default: the bundled table) on `/` and sample paths.

    `crawlers` may mix `Crawler` values and plain tokens (looked up in the table, else audited
    as an unknown crawler). `paths` replaces the sample paths (each an absolute path).
    """
    if not isinstance(robots, RobotsTxt):
        raise TypeError(
            f"robots must be a robotskit.RobotsTxt (from robotskit.parse), not {type(robots).__name__}"
        )
    if robots.profile is None and robots.robots_url:
        # Judge the file as the crawlers of its own scheme do (gemini:// -> the gemini profile).
        robots = RobotsTxt(robots.body, profile_for_url(robots.robots_url).name, robots_url=robots.robots_url)
    table, chosen = _as_crawlers(crawlers)
    sample = tuple(paths) if paths is not None else sample_paths(robots)
    if not sample:
        sample = ("/",)
    results = tuple(_audit_one(robots, crawler, sample) for crawler in chosen)
    return AuditReport(
        crawlers=results,
        sample_paths=sample,
        unknown_agents=_unknown_agents(robots, chosen),
        table_version=table.version,
        table_date=table.date,
        profile=robots.profile,
    )


__all__ = [
    "AuditReport",
    "CrawlerAudit",
    "IgnoredRule",
    "UnknownAgent",
    "audit",
    "sample_paths",
]
