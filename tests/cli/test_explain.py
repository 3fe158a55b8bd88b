"""`robotskit explain`: the verdict, the groups used, the numbered deciding line, the rules that lost."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from .conftest import EXAMPLE, Run


def test_deciding_line_and_losers(run: Run) -> None:
    """The deciding rule is printed with its line number and the other matching rules as losers."""
    result = run("explain", str(EXAMPLE), "https://www.example.com/private/report.pdf", "--agent", "MyBot")
    assert result.code == 1
    out = result.out
    assert "    5 | Disallow: /private/" in out  # deciding line, numbered
    assert "also matched, but lost" in out and "    6 | Disallow: /*.pdf$" in out
    assert "group at line 4" in out and "no group names 'mybot'" in out


def test_matched_part_is_marked(run: Run, robots_file: Callable[[str], Path]) -> None:
    """Carets mark the part of the path the deciding pattern matched."""
    path = robots_file("User-agent: *\nDisallow: /shop/*/cart\n")
    result = run("explain", str(path), "/shop/books/cart/items", "--agent", "A")
    lines = result.out.splitlines()
    index = next(i for i, line in enumerate(lines) if line.strip().startswith("path"))
    caret = lines[index + 1]
    assert caret.strip() == "^" * len("/shop/books/cart")
    assert lines[index].index("/shop") == caret.index("^")


def test_allowed_without_rule_exits_0(run: Run, robots_file: Callable[[str], Path]) -> None:
    """A URL no rule matches is allowed (exit 0) and explain says why."""
    result = run("explain", str(robots_file("User-agent: *\nDisallow: /x\n")), "/y", "--agent", "A")
    assert result.code == 0 and "no rule matched" in result.out


def test_own_group_is_named(run: Run) -> None:
    """When the agent has a group of its own, explain says the group names it."""
    result = run("explain", str(EXAMPLE), "/drafts/a", "--agent", "Googlebot")
    assert (
        result.code == 1 and "names 'googlebot'" in result.out and "   15 | Disalow: /drafts/" in result.out
    )


def test_json(run: Run) -> None:
    """--json gives the verdict per token with its groups, deciding rule, matched path and losing rules."""
    result = run(
        "explain", str(EXAMPLE), "https://www.example.com/private/report.pdf", "--agent", "MyBot", "--json"
    )
    doc = json.loads(result.out)
    assert doc["command"] == "explain" and doc["allowed"] is False and doc["exit_code"] == 1
    (verdict,) = doc["verdicts"]
    assert verdict["token"] == "mybot" and verdict["rule"]["line"] == 5
    assert verdict["matched_path"] == "/private/"
    assert [r["line"] for r in verdict["lost"]] == [6]
    assert verdict["groups"][0]["line"] == 4


def test_gemini_judges_every_token(run: Run, robots_file: Callable[[str], Path]) -> None:
    """Under Gemini, `*` and each purpose are judged separately and all are shown."""
    path = robots_file("User-agent: *\nDisallow: /private/\n\nUser-agent: archiver\nDisallow: /log/\n")
    result = run(
        "explain",
        str(path),
        "gemini://example.org/log/1.gmi",
        "--agent",
        "MyBot",
        "--purpose",
        "archiver",
        "--json",
    )
    doc = json.loads(result.out)
    tokens = {v["token"]: v["allowed"] for v in doc["verdicts"]}
    assert result.code == 1 and tokens["archiver"] is False and tokens["*"] is True


def test_two_urls_is_a_usage_error(run: Run) -> None:
    """explain takes exactly one URL (exit 2 otherwise)."""
    assert run("explain", str(EXAMPLE), "/a", "/b", "--agent", "A").code == 2


def test_stacked_user_agents_across_a_blank_line_name_the_right_line(
    run: Run, robots_file: Callable[[str], Path]
) -> None:
    """`User-agent: a`, a blank line, `User-agent: b`: one group, named once; for b, line 3 names it."""
    path = str(robots_file("User-agent: a\n\nUser-agent: b\nDisallow: /x\n"))
    out = run("explain", path, "/x", "--agent", "b").out
    assert "group at line 1: line 3 names 'b'" in out
    assert out.count("group at line") == 1
    doc = json.loads(run("explain", path, "/x", "--agent", "a", "--json").out)
    assert doc["verdicts"][0]["groups"] == [{"line": 1, "why": "names 'a'"}]
