"""`robotskit check` (may an agent fetch these URLs?) and `robotskit explain` (why?)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin

from rich.text import Text

import robotskit
from robotskit.audit.diff import agent_label
from robotskit.cli._output import (
    Output,
    decision_json,
    entry_json,
    numbered,
    rule_json,
    rule_label,
    verdict_text,
)
from robotskit.cli._sources import (
    FOUND,
    OK,
    CliError,
    agents_of,
    is_url,
    load,
    make_client,
    read_local,
    read_url_file,
    split_targets,
)
from robotskit.core.model import Decision, Group
from robotskit.lint.runner import match_end, token_for
from robotskit.policy.authority import authority_key

if TYPE_CHECKING:
    from robotskit import RobotsTxt

__all__ = ["cmd_check", "cmd_explain"]


def _decide_all(
    args: argparse.Namespace, out: Output, source: str | None, urls: list[str]
) -> list[tuple[str, str, Decision]]:
    """Every URL for every `--agent` (each judged separately): (agent label, URL, decision)."""
    results: list[tuple[str, str, Decision]] = []
    agents = agents_of(args)
    if source is not None and not is_url(source):
        robots = robotskit.parse(read_local(source), args.profile)
        for agent in agents:
            label = agent_label(agent)
            results += [(label, url, robots.decide(url, agent)) for url in out.progress(urls, "checking")]
        return results
    targets = [_on_authority(source, url) for url in urls]
    for agent in agents:
        with make_client(args, agent) as client:
            label = agent_label(agent)
            for url, target in zip(out.progress(urls, "checking"), targets, strict=True):
                results.append((label, url, client.decide(target)))
    return results


def _on_authority(source: str | None, url: str) -> str:
    """The absolute URL to decide when ROBOTS is a URL (or absent): bare paths join its authority."""
    if source is None:
        if not is_url(url):
            raise CliError(f"{url!r} is not an absolute URL: give ROBOTS, or URLs with a scheme and host")
        return url
    target = urljoin(source, url) if url.startswith("/") else url
    # Rules cover only their own scheme, host and port (SPEC.md 6).
    if not is_url(target) or authority_key(target) != authority_key(source):
        raise CliError(f"{url} is not covered by {source}: a robots.txt rules only its own host")
    return target


def cmd_check(args: argparse.Namespace, out: Output) -> int:
    source, urls = split_targets(args.targets, args.robots)
    if args.urls:
        urls += read_url_file(args.urls)
    if not urls:
        raise CliError("no URL to check: robotskit check [ROBOTS] URL... --agent NAME")
    results = _decide_all(args, out, source, urls)
    code = OK if all(d.allowed for _, _, d in results) else FOUND
    agents = list(dict.fromkeys(label for label, _, _ in results))
    if out.json:
        allowed = sum(d.allowed for _, _, d in results)
        body = {
            "robots": source,
            "agent": agents[0],
            "agents": agents,
            "purposes": list(args.purpose or ()),
            "results": [{"agent": label, **decision_json(url, d)} for label, url, d in results],
            "summary": {"total": len(results), "allowed": allowed, "disallowed": len(results) - allowed},
        }
        return out.document("check", body, code)
    several = len(agents) > 1
    for label, url, decision in results:
        line = Text.assemble(verdict_text(decision.allowed), "  ", url, "  ")
        if several:
            line.append(f"[{label}]  ", style="bold")
        detail = (
            f"line {decision.rule.line}: {rule_label(decision.rule)}" if decision.rule else decision.reason
        )
        line.append(f"({detail})", style="dim")
        out.print(line)
    return code


def _groups_of(robots: RobotsTxt, lines: tuple[int, ...]) -> list[tuple[int, Group | None]]:
    """The distinct groups behind a verdict's user-agent line numbers: (line to name, group).

    A verdict lists every user-agent line of the groups it used; stacked User-agent lines (even
    with a blank line between them) are one group, named once, by its first line.
    """
    found: dict[int, tuple[int, Group | None]] = {}
    for line in lines:
        group = next((g for g in robots.groups if line in g.agent_lines or g.line == line), None)
        key = group.index if group is not None else -1 - line
        found.setdefault(key, (group.line if group is not None else line, group))
    return list(found.values())


def _group_reason(group: Group | None, token: str, profile: str) -> str:
    if group is None or not group.agent_lines:
        return "rules before any user-agent (the Gemini profile applies them to every agent)"
    # Which line names the token, read as the matcher reads it (raw_agents align with agent_lines).
    lines = {
        token_for(profile, raw): line
        for line, raw in reversed(list(zip(group.agent_lines, group.raw_agents, strict=True)))
    }
    if token != "*" and token.lower() in lines:
        return f"line {lines[token.lower()]} names '{token}'"
    if "*" in lines:
        why = "" if token == "*" else f": no group names '{token}'"
        return f"the '*' group (line {lines['*']}){why}"
    return f"names '{token}'"


def _explain_json(robots: RobotsTxt, decision: Decision) -> list[dict[str, Any]]:
    verdicts = []
    for verdict in decision.verdicts:
        deciding = verdict.matched[0] if verdict.matched else verdict.rule
        end = match_end(deciding.pattern, decision.path) if deciding else None
        verdicts.append(
            {
                "token": verdict.token,
                "allowed": verdict.allowed,
                "groups": [
                    {"line": line, "why": _group_reason(group, verdict.token, decision.profile)}
                    for line, group in _groups_of(robots, verdict.groups)
                ],
                "rule": rule_json(deciding),
                "matched_path": decision.path[:end] if end is not None else None,
                "lost": [rule_json(r) for r in verdict.matched[1:]],
            }
        )
    return verdicts


def _render_verdict(out: Output, robots: RobotsTxt, decision: Decision, index: int) -> None:
    verdict = decision.verdicts[index]
    out.print(Text.assemble("token ", (repr(verdict.token), "bold"), ": ", verdict_text(verdict.allowed)))
    if not verdict.groups:
        out.print("  no group applies to it, so nothing is disallowed")
    for line, group in _groups_of(robots, verdict.groups):
        out.print(
            Text.assemble(
                "  group at line ", str(line), ": ", _group_reason(group, verdict.token, decision.profile)
            )
        )
    deciding = verdict.matched[0] if verdict.matched else verdict.rule
    if deciding is None:
        out.print("  no rule matched: allowed (RFC 9309 2.2.2)")
        return
    out.print("  deciding rule (the longest match; allow wins ties):")
    out.print(Text("  ") + numbered(robots, deciding.line, deciding.raw or deciding.pattern))
    end = match_end(deciding.pattern, decision.path)
    if end is not None:
        path = Text(decision.path)
        path.stylize("bold reverse", 0, end)
        out.print(Text("  path  ") + path)
        out.print(Text("        " + "^" * max(end, 1), style="bold"))
    lost = verdict.matched[1:]
    if lost:
        out.print("  also matched, but lost:")
    for rule in lost:
        out.print(Text("  ") + numbered(robots, rule.line, rule.raw or rule.pattern))


def cmd_explain(args: argparse.Namespace, out: Output) -> int:
    """Explain one URL for each `--agent` (judged separately); exit 1 if any is disallowed."""
    source, urls = split_targets(args.targets, args.robots)
    if len(urls) != 1:
        raise CliError("explain takes one URL: robotskit explain [ROBOTS] URL --agent NAME")
    url = urls[0]
    bodies = [_explain_one(args, out, source, url, agent) for agent in agents_of(args)]
    code = OK if all(body["allowed"] for body in bodies) else FOUND
    if out.json:
        # The first agent's explanation at the top (one agent is the common case); all in "explanations".
        return out.document("explain", {**bodies[0], "explanations": bodies}, code)
    return code


def _explain_one(
    args: argparse.Namespace, out: Output, source: str | None, url: str, agent: str | robotskit.Agent
) -> dict[str, Any]:
    entry = None
    if source is None or is_url(source):
        target = _on_authority(source, url)
        with make_client(args, agent) as client:
            loaded = load(source or target, args, client)
            entry = loaded.entry
            policy = client.decide(target)
        robots = loaded.robots
        # The client's decision carries the fetch outcome; the file, when there is one, explains it.
        decision = robots.decide(target, agent, explain=True) if robots is not None else policy
    else:
        robots = robotskit.parse(read_local(source), args.profile)
        decision = robots.decide(url, agent, explain=True)
    body = {
        "robots": source,
        "agent": agent_label(agent),
        **decision_json(url, decision),
        "fetch": entry_json(entry) if entry else None,
        "verdicts": _explain_json(robots, decision) if robots else [],
    }
    if out.json:
        return body
    out.print(Text.assemble(verdict_text(decision.allowed), "  ", url, f"  for {agent_label(agent)}"))
    out.print(f"profile {decision.profile}; path {decision.path or '/'}; reason: {decision.reason}")
    if entry is not None:
        out.print(f"robots.txt {entry.robots_url}: {entry.outcome} ({entry.reason})")
    if robots is not None:
        for index in range(len(decision.verdicts)):
            _render_verdict(out, robots, decision, index)
    return body
