"""The answers of the JSON endpoints, as plain JSON-ready values: verdicts, lint, explanations, audit, diff.

Pure functions of the request values (no I/O, no framework): the app module calls them from a
worker thread and serialises what they return. Field names are the documented contract
(docs/web.md); `line` is always the 1-based line of the file, or None.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from typing import Any

import robotskit
from robotskit import Decision, Diagnostic, RobotsTxt, Rule, diff_verdicts
from robotskit.audit import audit
from robotskit.audit.diff import default_agents, default_urls
from robotskit.core.crawlers import CATEGORIES, load_crawlers
from robotskit.lint import lint
from robotskit.web.inputs import MAX_AGENTS, MAX_CELLS, InputError

__all__ = [
    "audit_json",
    "crawlers_json",
    "decide_json",
    "diff_json",
    "explain_json",
    "lint_json",
    "verdicts",
]

JSON = dict[str, Any]


def _rule_json(rule: Rule) -> JSON:
    return {"line": rule.line, "kind": str(rule.kind), "pattern": rule.pattern, "raw": rule.raw}


def _decide(robots: RobotsTxt, url: str, agent: str, *, explain: bool = False) -> Decision | str:
    """The decision, or the reason there is none (an argument the matcher refuses)."""
    try:
        return robots.decide(url, agent, explain=explain)
    except robotskit.InvalidArgument as exc:
        return str(exc)


def _verdict(url: str, agent: str, decision: Decision | str) -> JSON:
    if isinstance(decision, str):
        return {
            "url": url,
            "agent": agent,
            "allowed": None,
            "verdict": "error",
            "line": None,
            "error": decision,
        }
    rule = decision.rule
    return {
        "url": url,
        "agent": agent,
        "allowed": decision.allowed,
        "verdict": "allowed" if decision.allowed else "disallowed",
        "line": rule.line if rule is not None else None,
        "reason": decision.reason,
        "profile": decision.profile,
    }


# The most work one grid may take. The cell cap bounds the answer's size, not its cost: a file
# of many wildcard rules checked against long distinct URLs can cost milliseconds a cell
# (a fuzzed request within every limit took 173 s). Past this the request is refused whole.
WORK_SECONDS = 10.0


def verdicts(robots: RobotsTxt, urls: Sequence[str], agents: Sequence[str]) -> Iterator[JSON]:
    """One verdict per (URL, agent), URL-major: the order the grid reads in; InputError (413)
    when the grid takes more than WORK_SECONDS."""
    deadline = time.monotonic() + WORK_SECONDS
    for count, url in enumerate(urls):
        if count % 16 == 0 and time.monotonic() > deadline:
            raise InputError(
                f"this grid takes more than {WORK_SECONDS:.0f} s to decide ({count:,} of "
                f"{len(urls):,} URLs done): send fewer URLs or agents per request",
                413,
            )
        for agent in agents:
            yield _verdict(url, agent, _decide(robots, url, agent))


def lint_json(robots: RobotsTxt, profile: str | None) -> list[JSON]:
    """Every lint finding, in line order, with the rule id (`rule`) and the hint."""
    found: Sequence[Diagnostic] = lint(robots, profile=profile)
    return [
        {
            "line": item.line,
            "column": item.column,
            "rule": item.code,
            "severity": str(item.severity),
            "message": item.message,
            "hint": item.hint,
        }
        for item in found
    ]


def decide_json(robots_txt: str, urls: Sequence[str], agents: Sequence[str], profile: str | None) -> JSON:
    """The answer of POST /api/decide."""
    robots = robotskit.parse(robots_txt, profile)
    return {
        "profile": profile,
        "verdicts": list(verdicts(robots, urls, agents)),
        "lint": lint_json(robots, profile),
        "lines": robots.line_count,
        "size": robots.size,
        "truncated": robots.truncated,
    }


def explain_json(robots_txt: str, url: str, agent: str, profile: str | None) -> JSON:
    """The answer of POST /api/explain: one cell, with every rule that matched (the deciding one first)."""
    robots = robotskit.parse(robots_txt, profile)
    decision = _decide(robots, url, agent, explain=True)
    answer = _verdict(url, agent, decision)
    if isinstance(decision, str):
        return answer
    matched: dict[tuple[int, str, str], JSON] = {}
    for token in decision.verdicts:
        for rule in token.matched:
            matched.setdefault((rule.line, str(rule.kind), rule.pattern), _rule_json(rule))
    deciding = decision.rule
    for key, item in matched.items():
        item["deciding"] = deciding is not None and key == (
            deciding.line,
            str(deciding.kind),
            deciding.pattern,
        )
    answer["path"] = decision.path
    answer["groups"] = list(decision.groups)
    answer["tokens"] = list(decision.tokens)
    answer["matched"] = list(matched.values())
    return answer


def audit_json(robots_txt: str, profile: str | None) -> JSON:
    """The answer of POST /api/audit: `robotskit.audit`'s report (schema robotskit.audit/1)."""
    return audit(robotskit.parse(robots_txt, profile)).to_dict()


def diff_json(
    old_txt: str, new_txt: str, urls: Sequence[str], agents: Sequence[str], profile: str | None
) -> JSON:
    """The answer of POST /api/diff: `robotskit.diff_verdicts` (the engine of `robotskit diff`).

    Its `to_dict()` (schema robotskit.diff/1), plus `compared` and, in each side of a change, the
    deciding `line` (or None), which the page shows beside the verdict.
    """
    old, new = robotskit.parse(old_txt, profile), robotskit.parse(new_txt, profile)
    # With no URLs or agents given, the grid is every rule's path x every agent either file
    # names: the request's own limits hold for it too (14,000 groups made 2.8 million pairs).
    urls = list(urls) or default_urls(old, new)
    agents = list(agents) or default_agents(old, new)
    if len(agents) > MAX_AGENTS or len(urls) * len(agents) > MAX_CELLS:
        raise InputError(
            f"the diff would compare {len(urls):,} URLs x {len(agents):,} agents; the limits are "
            f"{MAX_AGENTS:,} agents and {MAX_CELLS:,} pairs per request: give `urls` and `agents`",
            413,
        )
    answer = diff_verdicts(old, new, urls, agents).to_dict()
    for change in answer["changes"]:
        for side in (change["before"], change["after"]):
            side["line"] = side["rule"]["line"] if side["rule"] else None
    answer["compared"] = answer["summary"]["compared"]
    return answer


def crawlers_json() -> JSON:
    """The answer of GET /api/crawlers: the bundled crawler table, for picking agents by category."""
    table = load_crawlers()
    return {
        "table": {"version": table.version, "date": table.date},
        "categories": list(CATEGORIES),
        "crawlers": [crawler.to_dict() for crawler in table],
    }
