"""`robotskit check` (may an agent fetch these URLs?) and `robotskit explain` (why?)."""

from __future__ import annotations

import argparse
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from rich.text import Text

import robotskit
from robotskit.audit.diff import agent_label
from robotskit.cli._origin import Origin, origins_json, print_origins
from robotskit.cli._output import (
    Output,
    decision_json,
    entry_json,
    numbered,
    rule_json,
    rule_label,
    verdict_text,
    warn,
)
from robotskit.cli._sources import (
    FOUND,
    OK,
    URL_SCHEMES,
    CliError,
    Loaded,
    agents_of,
    is_url,
    load,
    make_client,
    read_url_file,
    split_targets,
)
from robotskit.core.agents import product_token
from robotskit.core.model import Decision, Group
from robotskit.errors import InvalidURL
from robotskit.lint.runner import match_end, token_for
from robotskit.lint.value_checks import looks_like_html
from robotskit.policy.authority import authority_key, robots_txt_url

if TYPE_CHECKING:
    from robotskit import RobotsTxt

__all__ = ["check_url", "cmd_check", "cmd_explain"]


@dataclass(frozen=True, slots=True)
class _Result:
    agent: str
    url: str
    decision: Decision
    origin: Origin


def check_url(url: str) -> None:
    """Refuse a URL argument that is malformed or can mean more than one thing (exit 2): it must
    be a well-formed absolute URL with a scheme and host, or a path starting with a single `/`.
    `checkout` is neither a host nor a path; `//example.com/x` could be either."""
    if any(ord(char) < 0x20 or ord(char) == 0x7F for char in url):
        raise CliError(
            f"{url!r} holds a control character: percent-encode it (a line break would also "
            "forge a line of this command's output)"
        )
    if url.startswith("//"):
        host = url[2:].partition("/")[0]
        raise CliError(
            f"{url!r} has no scheme: write https:{url} for the host {host!r}, "
            f"or /{url.lstrip('/')} for a path"
        )
    if url.startswith("/"):
        return
    if is_url(url):
        try:
            robots_txt_url(url)  # the host, port and brackets as a fetch would read them
        except InvalidURL as exc:
            raise CliError(str(exc)) from None
        if urlsplit(url).hostname:
            return
    if not url.strip():
        raise CliError("an empty URL: give an absolute URL or a path starting with /")
    if "://" in url:
        raise CliError(f"{url!r}: unsupported or hostless URL (use {', '.join(URL_SCHEMES)} with a host)")
    scheme = url.partition(":")[0]
    port_like = url.partition(":")[2][:1].isdigit()  # `localhost:8080/x` is a host and port
    if (
        ":" in url
        and not port_like
        and scheme[:1].isalpha()
        and all(c.isalnum() or c in "+.-" for c in scheme)
    ):
        raise CliError(f"{url!r} is a {scheme}: URL: a robots.txt rules only {', '.join(URL_SCHEMES)} URLs")
    if url[:1] in "?#":
        raise CliError(f"{url!r} has no path: write /{url} for the root's {url[:1]} part")
    token = product_token(url)
    if token == url and "." not in url:
        raise CliError(
            f"{url!r} is neither a URL nor a path: write /{url} for a path, https://{url}/ for a host, "
            f"or --agent {url} if it is the crawler"
        )
    raise CliError(f"{url!r} is neither a URL nor a path: write https://{url} or /{url.lstrip('/')}")


def warn_doubts(source: str, robots: RobotsTxt) -> None:
    """Warn when a verdict stands on a file that is cut or may not be what it seems: the verdict
    is the one a crawler would reach, but the user should not take it for the whole story."""
    shown = "standard input" if source == "-" else source
    codes = Counter(diagnostic.code for diagnostic in robots.diagnostics)
    if robots.truncated:
        last = robots.lines[-1].number if robots.lines else 1
        warn(
            f"{shown} is {robots.size:,} bytes: only the first 512,000 are read (RFC 9309 2.5), "
            f"so its rules after line {last} do not count"
        )
    if codes["RK105"] or b"\x00" in robots.body[:65536]:
        warn(
            f"{shown} holds NUL bytes (UTF-16, or not a text file?): a robots.txt is UTF-8 text "
            "(RFC 9309 2.2) and each line is read up to its first NUL"
        )
    elif codes["RK102"] * 2 > max(len(robots.lines), 1):
        warn(f"{shown} is mostly not UTF-8 text: is it a robots.txt file? (RFC 9309 2.2)")
    if looks_like_html(robots.body):
        warn(f"{shown} looks like an HTML page (an error page?), not a robots.txt file")
    elif not robots.groups and (unread := codes["RK110"] + codes["RK112"]):
        warn(
            f"{shown} has no group that could be read ({unread} line(s) are not `key: value`): "
            "no rule applies to any agent; `robotskit lint` says which lines"
        )


def _decide_all(args: argparse.Namespace, out: Output, source: str | None, urls: list[str]) -> list[_Result]:
    """Every URL for every `--agent` (each judged separately)."""
    agents = agents_of(args)
    for url in urls:
        check_url(url)
    if source is not None and not is_url(source):
        loaded = load(source, args)
        robots = loaded.robots
        assert robots is not None  # a file or stdin always parses
        warn_doubts(loaded.source, robots)
        return [
            _Result(agent_label(agent), url, robots.decide(url, agent), loaded.origin)
            for agent in agents
            for url in out.progress(urls, "checking")
        ]
    targets = [_on_authority(source, url) for url in urls]
    results: list[_Result] = []
    with make_client(args, agents[0]) as client:
        for agent in agents:
            for url, target in zip(out.progress(urls, "checking"), targets, strict=True):
                decision, origin = client.decide(target, agent)
                results.append(_Result(agent_label(agent), url, decision, origin))
    return results


def _on_authority(source: str | None, url: str) -> str:
    """The absolute URL to decide when ROBOTS is a URL (or absent): bare paths join its authority."""
    if source is None:
        if not is_url(url):
            raise CliError(f"{url!r} is not an absolute URL: give ROBOTS, or URLs with a scheme and host")
        return url
    # urljoin knows only some schemes (not gemini://): a bare path takes ROBOTS' scheme and host.
    if url.startswith("/"):
        parts = urlsplit(source)
        target = f"{parts.scheme}://{parts.netloc}{url}"
    else:
        target = url
    # A robots.txt rules only its own scheme, host and port (RFC 9309 2.3).
    if not is_url(target) or authority_key(target) != authority_key(source):
        raise CliError(f"{url} is not covered by {source}: a robots.txt rules only its own host")
    return target


def cmd_check(args: argparse.Namespace, out: Output) -> int:
    source, urls = split_targets(args.targets, args.robots)
    if args.urls == "-" and source == "-":
        raise CliError("ROBOTS and --urls cannot both be - (stdin can be read once)")
    if args.urls:
        urls += read_url_file(args.urls)
    if not urls:
        raise CliError("no URL to check: robotskit check [ROBOTS] URL... --agent NAME")
    results = _decide_all(args, out, source, urls)
    code = OK if all(r.decision.allowed for r in results) else FOUND
    agents = list(dict.fromkeys(r.agent for r in results))
    if out.json:
        allowed = sum(r.decision.allowed for r in results)
        body = {
            "robots": source,
            **origins_json(r.origin for r in results),
            "agent": agents[0],
            "agents": agents,
            "purposes": list(args.purpose or ()),
            "results": [
                {"agent": r.agent, **decision_json(r.url, r.decision), "source": r.origin.to_json()}
                for r in results
            ],
            "summary": {"total": len(results), "allowed": allowed, "disallowed": len(results) - allowed},
        }
        return out.document("check", body, code)
    several = len(agents) > 1
    for r in results:
        line = Text.assemble(verdict_text(r.decision.allowed), "  ", r.url, "  ")
        if several:
            line.append(f"[{r.agent}]  ", style="bold")
        rule = r.decision.rule
        detail = f"line {rule.line}: {rule_label(rule)}" if rule else r.decision.reason
        line.append(f"({detail})", style="dim")
        out.print(line)
    print_origins(out, (r.origin for r in results))
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
        line = lines[token.lower()]
        return f"names '{token}'" if line == group.line else f"line {line} names '{token}'"
    if "*" in lines:
        why = "" if token == "*" else f": no group names '{token}'"
        at = "" if lines["*"] == group.line else f" (line {lines['*']})"
        return f"the '*' group{at}{why}"
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
    check_url(url)
    agents = agents_of(args)
    if source is None or is_url(source):
        target = _on_authority(source, url)
        with make_client(args, agents[0]) as client:
            loaded = load(source or target, args, client)
            policies: list[Decision | None] = [client.decide(target, agent)[0] for agent in agents]
    else:
        target, loaded = url, load(source, args)
        policies = [None for _ in agents]
    if loaded.robots is not None:
        warn_doubts(loaded.source, loaded.robots)
    bodies = [
        _explain_one(out, loaded, url, target, agent, policy)
        for agent, policy in zip(agents, policies, strict=True)
    ]
    code = OK if all(body["allowed"] for body in bodies) else FOUND
    if out.json:
        # The first agent's explanation at the top (one agent is the common case); all in "explanations".
        return out.document("explain", {**bodies[0], "explanations": bodies}, code)
    print_origins(out, [loaded.origin])
    return code


def _explain_one(
    out: Output,
    loaded: Loaded,
    url: str,
    target: str,
    agent: str | robotskit.Agent,
    policy: Decision | None,
) -> dict[str, Any]:
    robots, entry = loaded.robots, loaded.entry
    # The client's decision carries the fetch outcome; the file, when there is one, explains it.
    if robots is not None:
        decision = robots.decide(target, agent, explain=True)
    else:
        assert policy is not None  # no file: only a fetch gives none, and then the client decided
        decision = policy
    body = {
        "robots": loaded.source if loaded.entry is None else loaded.entry.robots_url,
        "source": loaded.origin.to_json(),
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
