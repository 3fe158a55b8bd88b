"""Which verdicts change between two versions of a robots.txt: the engine behind `robotskit diff`.

Owns: `diff_verdicts(old, new, urls, agents)` -> `VerdictDiff`. Every (URL, agent) pair is
decided under both files; a pair whose verdict (allowed or not) differs is a `VerdictChange`
carrying both decisions, so the deciding lines before and after can be shown. Site owners run
it before deploying a new file. Pure: no I/O. The `to_dict()` schema is in docs/cli.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from robotskit.audit.report import sample_paths
from robotskit.core.agents import Agent
from robotskit.core.model import Decision, Rule
from robotskit.document import RobotsTxt

if TYPE_CHECKING:
    from robotskit.core.model import Group

__all__ = ["SCHEMA", "VerdictChange", "VerdictDiff", "default_agents", "default_urls", "diff_verdicts"]

SCHEMA = "robotskit.diff/1"


def _rule_dict(rule: Rule | None) -> dict[str, Any] | None:
    if rule is None:
        return None
    return {"line": rule.line, "kind": str(rule.kind), "pattern": rule.pattern, "raw": rule.raw}


def _decision_dict(decision: Decision) -> dict[str, Any]:
    return {
        "allowed": decision.allowed,
        "reason": decision.reason,
        "profile": decision.profile,
        "groups": list(decision.groups),
        "rule": _rule_dict(decision.rule),
    }


def agent_label(agent: str | Agent) -> str:
    """How an agent is named in a report: its token (or its purposes when it has none)."""
    if isinstance(agent, str):
        return agent
    return agent.token if agent.token is not None else "+".join(agent.purposes) or "*"


@dataclass(frozen=True, slots=True)
class VerdictChange:
    """One (URL, agent) pair whose verdict differs between the old and the new file."""

    url: str
    agent: str
    before: Decision
    after: Decision

    def to_dict(self) -> dict[str, Any]:
        return {
            "url": self.url,
            "agent": self.agent,
            "before": _decision_dict(self.before),
            "after": _decision_dict(self.after),
        }


@dataclass(frozen=True, slots=True)
class VerdictDiff:
    """What `diff_verdicts` found: the changed pairs (URL, then agent order) and the unchanged count."""

    changes: tuple[VerdictChange, ...]
    unchanged: int
    urls: tuple[str, ...]
    agents: tuple[str, ...]

    def __bool__(self) -> bool:
        """True when some verdict changes (as diff(1): a difference is the interesting outcome)."""
        return bool(self.changes)

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "urls": list(self.urls),
            "agents": list(self.agents),
            "changes": [change.to_dict() for change in self.changes],
            "summary": {
                "compared": len(self.changes) + self.unchanged,
                "changed": len(self.changes),
                "unchanged": self.unchanged,
                "now_disallowed": sum(1 for c in self.changes if not c.after.allowed),
                "now_allowed": sum(1 for c in self.changes if c.after.allowed),
            },
        }


def default_urls(old: RobotsTxt, new: RobotsTxt) -> tuple[str, ...]:
    """`/` and one path per rule of either file (audit.sample_paths): every rule gets a path it decides."""
    paths = dict.fromkeys(sample_paths(old))
    paths.update(dict.fromkeys(sample_paths(new)))
    return tuple(paths)


def _named(groups: Sequence[Group]) -> list[str]:
    return [token for group in groups if not group.is_global for token in group.raw_agents]


def default_agents(old: RobotsTxt, new: RobotsTxt) -> tuple[str, ...]:
    """Every token either file names in a User-agent line (first spelling wins), then `*` for the rest."""
    seen: dict[str, str] = {}
    for token in [*_named(old.groups), *_named(new.groups)]:
        seen.setdefault(token.lower(), token)
    return (*seen.values(), "*")


def _with_profile(robots: RobotsTxt, profile: str | None) -> RobotsTxt:
    if profile is None or robots.profile == profile:
        return robots
    return RobotsTxt(robots.body, profile, robots_url=robots.robots_url)


def _check_args(
    old: object, new: object, urls: object, agents: object
) -> tuple[tuple[str, ...], tuple[str | Agent, ...]]:
    for name, value in (("old", old), ("new", new)):
        if not isinstance(value, RobotsTxt):
            raise TypeError(f"{name} must be a robotskit.RobotsTxt, not {type(value).__name__}")
    if isinstance(urls, str) or not isinstance(urls, Sequence):
        raise TypeError(f"urls must be a sequence of strings, not {type(urls).__name__}")
    if isinstance(agents, str) or not isinstance(agents, Sequence):
        raise TypeError(f"agents must be a sequence of str or robotskit.Agent, not {type(agents).__name__}")
    for url in urls:
        if not isinstance(url, str):
            raise TypeError(f"urls must hold strings, not {type(url).__name__}")
    for agent in agents:
        if not isinstance(agent, (str, Agent)):
            raise TypeError(f"agents must hold str or robotskit.Agent, not {type(agent).__name__}")
    return tuple(urls), tuple(agents)


def diff_verdicts(
    old: RobotsTxt,
    new: RobotsTxt,
    urls: Sequence[str] = (),
    agents: Sequence[str | Agent] = (),
    *,
    profile: str | None = None,
) -> VerdictDiff:
    """Decide every URL for every agent under `old` and `new`; report the pairs whose verdict changes.

    `urls` are absolute URLs or bare paths; empty means `/` plus a path for each rule of either
    file. `agents` are judged separately; empty means every token either file names, plus `*`.
    `profile` re-reads both files under that profile (default: each file's own, else per URL).
    """
    url_list, agent_list = _check_args(old, new, urls, agents)
    old, new = _with_profile(old, profile), _with_profile(new, profile)
    url_list = url_list or default_urls(old, new)
    agent_list = agent_list or default_agents(old, new)
    # Agent by agent: a file keeps a bounded number of agents' checks, so going URL by URL over
    # thousands of agents rebuilt each agent's check for every URL (a 13,000-group file took
    # minutes). The verdicts are compared with `allowed`; only a change is explained (`decide`).
    changed: list[tuple[int, int, VerdictChange]] = []
    for a, agent in enumerate(agent_list):
        for u, url in enumerate(url_list):
            if old.allowed(url, agent) != new.allowed(url, agent):
                change = VerdictChange(
                    url, agent_label(agent), old.decide(url, agent), new.decide(url, agent)
                )
                changed.append((u, a, change))
    changed.sort(key=lambda item: (item[0], item[1]))  # reported URL by URL, as the pairs are listed
    changes = [change for _, _, change in changed]
    unchanged = len(url_list) * len(agent_list) - len(changes)
    return VerdictDiff(
        changes=tuple(changes),
        unchanged=unchanged,
        urls=url_list,
        agents=tuple(agent_label(a) for a in agent_list),
    )
