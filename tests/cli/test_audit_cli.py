"""`robotskit audit`: near-miss tokens are named in the table and in `unknown_agents`."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import robotskit
from robotskit.audit import audit

from .conftest import Run

SHARED_GROUP = "User-agent: CCBot\nUser-agent: GPT-Bot\nDisallow: /\n\nUser-agent: *\nDisallow: /private/\n"


def test_near_miss_in_a_shared_group_is_an_unknown_agent() -> None:
    """`GPT-Bot` beside a known token is still reported as unknown, with its line and a suggestion."""
    report = audit(robotskit.parse(SHARED_GROUP))
    unknown = [(u.token, u.line, u.suggestion) for u in report.unknown_agents]
    assert unknown == [("GPT-Bot", 2, "GPTBot")]
    gptbot = report.get("GPTBot")
    assert gptbot is not None and gptbot.ignored_rules
    assert "'User-agent: GPT-Bot' (line 2)" in gptbot.ignored_rules[0].reason


def test_table_names_the_near_miss_token(run: Run, robots_file: Callable[[str], Path]) -> None:
    """The human table says which token looked meant for the crawler, not just a rule count."""
    result = run("audit", str(robots_file(SHARED_GROUP)))
    assert result.code == 0
    assert "GPT-Bot" in result.out.split("line 2:")[0]  # in the table, before the unknown-agent list
    assert "line 2: 'GPT-Bot' is not a known crawler (did you mean GPTBot?)" in result.out


def test_json_unknown_agents(run: Run, robots_file: Callable[[str], Path]) -> None:
    """--json lists the near miss in unknown_agents."""
    doc = json.loads(run("audit", str(robots_file(SHARED_GROUP)), "--json").out)
    assert doc["report"]["unknown_agents"] == [{"token": "GPT-Bot", "line": 2, "suggestion": "GPTBot"}]


def test_audit_and_lint_take_the_profile_from_robots_url() -> None:
    """A file parsed with a gemini:// robots_url (as batch and the client do) is audited and linted
    as Gemini crawlers read it: the preamble applies (no RK120), and the report says gemini."""
    from robotskit.lint import lint

    body = b"Disallow: /x\nUser-agent: *\nDisallow: /y\n"
    gemini = robotskit.parse(body, robots_url="gemini://example.org/robots.txt")
    web = robotskit.parse(body, robots_url="https://example.org/robots.txt")
    assert audit(gemini).profile == "gemini" and audit(web).profile == "rfc9309"
    assert "RK120" not in {d.code for d in lint(gemini)}
    assert "RK120" in {d.code for d in lint(web)}
    assert "RK120" in {d.code for d in lint(gemini, profile="rfc9309")}  # an explicit profile wins
