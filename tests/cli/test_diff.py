"""`robotskit diff OLD NEW` and `robotskit.diff_verdicts`: verdicts that change between two files."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path

import pytest

import robotskit

from .conftest import Run, Server

OLD = "User-agent: *\nDisallow: /private/\n\nUser-agent: GPTBot\nDisallow: /\n"
NEW = "User-agent: *\nDisallow: /private/\nDisallow: /tmp/\n\nUser-agent: GPTBot\nAllow: /public/\nDisallow: /\n"


def test_api_reports_changed_pairs_with_both_decisions() -> None:
    """Only pairs whose verdict flips are changes; each carries the deciding rules before and after."""
    old, new = robotskit.parse(OLD), robotskit.parse(NEW)
    result = robotskit.diff_verdicts(old, new, ["/tmp/x", "/public/a", "/private/b"], ["MyBot", "GPTBot"])
    flips = {(c.url, c.agent): (c.before.allowed, c.after.allowed) for c in result.changes}
    assert flips == {("/tmp/x", "MyBot"): (True, False), ("/public/a", "GPTBot"): (False, True)}
    tmp = next(c for c in result.changes if c.url == "/tmp/x")
    assert tmp.before.rule is None and tmp.after.rule is not None and tmp.after.rule.line == 3
    assert result.unchanged == 4 and result.to_dict()["summary"]["changed"] == 2


def test_api_defaults_sample_urls_and_agents_from_both_files() -> None:
    """Without URLs and agents, every rule's path and every named token (and *) are compared."""
    result = robotskit.diff_verdicts(robotskit.parse(OLD), robotskit.parse(NEW), [], [])
    assert "/tmp/" in result.urls and "/public/" in result.urls
    assert result.agents == ("GPTBot", "*")
    assert {(c.url, c.agent) for c in result.changes} == {("/tmp/", "*"), ("/public/", "GPTBot")}


def test_api_identical_files_have_no_changes() -> None:
    """The same file twice: no change, and the diff is falsy."""
    result = robotskit.diff_verdicts(
        robotskit.parse(NEW), robotskit.parse(NEW), ["/a"], [robotskit.Agent("X")]
    )
    assert not result and result.changes == () and result.unchanged == 1


def test_api_many_agents_give_every_change_url_by_url() -> None:
    """More agents than a file keeps checks for (the diff goes agent by agent, compares with
    `allowed`): the changes are those `decide` gives pair by pair, listed URL by URL."""
    old = robotskit.parse("".join(f"User-agent: bot{i}\nDisallow: /p{i % 7}/\n" for i in range(700)))
    new = robotskit.parse("User-agent: *\nDisallow: /p3/\nAllow: /p3/open\n")
    diff = robotskit.diff_verdicts(old, new)
    expected = [
        (url, agent)
        for url in diff.urls
        for agent in diff.agents
        if old.decide(url, agent).allowed != new.decide(url, agent).allowed
    ]
    assert [(c.url, c.agent) for c in diff.changes] == expected and len(expected) > 700
    assert diff.unchanged == len(diff.urls) * len(diff.agents) - len(expected)
    assert all(c.before.allowed != c.after.allowed for c in diff.changes)


def test_api_profile_rereads_both_files() -> None:
    """`profile="google"` decides both files as Google does (here: `Allow: /d/index.html` also allows `/d/`)."""
    old = robotskit.parse("User-agent: *\nDisallow: /d/\n")
    new = robotskit.parse("User-agent: *\nDisallow: /d/\nAllow: /d/index.html\n")
    plain = robotskit.diff_verdicts(old, new, ["/d/", "/d/index.html"], ["a"])
    google = robotskit.diff_verdicts(old, new, ["/d/", "/d/index.html"], ["a"], profile="google")
    assert [c.url for c in plain.changes] == ["/d/index.html"]
    assert [c.url for c in google.changes] == ["/d/", "/d/index.html"]


@pytest.mark.parametrize(
    ("args", "name"),
    [
        (("x", robotskit.parse(""), [], []), "old"),
        ((robotskit.parse(""), b"x", [], []), "new"),
        ((robotskit.parse(""), robotskit.parse(""), "/a", []), "urls"),
        ((robotskit.parse(""), robotskit.parse(""), [], "MyBot"), "agents"),
        ((robotskit.parse(""), robotskit.parse(""), [1], []), "urls"),
        ((robotskit.parse(""), robotskit.parse(""), [], [None]), "agents"),
    ],
)
def test_api_wrong_types_raise_type_error_naming_the_parameter(args: tuple[object, ...], name: str) -> None:
    """A wrong argument type is a TypeError that names the parameter (a bare string is not a list)."""
    with pytest.raises(TypeError, match=name):
        robotskit.diff_verdicts(*args)  # type: ignore[arg-type]


def test_cli_changes_exit_1_with_deciding_lines(run: Run, robots_file: Callable[[str], Path]) -> None:
    """Something changes: exit 1, one line per change and the deciding lines before and after."""
    result = run("diff", str(robots_file(OLD)), str(robots_file(NEW)))
    assert result.code == 1, result.err
    assert "allowed -> disallowed  /tmp/  for *" in result.out
    assert "3 | Disallow: /tmp/" in result.out
    assert "5 | Disallow: /" in result.out and "6 | Allow: /public/" in result.out
    assert "2 of 8 verdicts change" in result.out


def test_cli_nothing_changes_exits_0(run: Run, robots_file: Callable[[str], Path]) -> None:
    """The same rules in both: exit 0 and a summary saying so."""
    result = run("diff", str(robots_file(OLD)), str(robots_file(OLD + "\n# a comment\n")))
    assert result.code == 0 and "no verdict changes" in result.out


def test_cli_urls_file_agents_and_json(run: Run, robots_file: Callable[[str], Path], tmp_path: Path) -> None:
    """--urls and repeated --agent choose the pairs; --json gives the changes and the summary."""
    urls = tmp_path / "urls.txt"
    urls.write_text("# pages\n/tmp/a\n/other\n")
    result = run(
        "diff", str(robots_file(OLD)), str(robots_file(NEW)), "--urls", str(urls),
        "--agent", "A", "--agent", "B", "--json",
    )  # fmt: skip
    doc = json.loads(result.out)
    assert result.code == 1 and doc["exit_code"] == 1 and doc["command"] == "diff"
    assert doc["diff"]["urls"] == ["/tmp/a", "/other"] and doc["diff"]["agents"] == ["A", "B"]
    assert [(c["url"], c["agent"]) for c in doc["diff"]["changes"]] == [("/tmp/a", "A"), ("/tmp/a", "B")]
    assert doc["diff"]["changes"][0]["after"]["rule"]["line"] == 3


def test_cli_reads_stdin_and_urls(
    run: Run, robots_file: Callable[[str], Path], server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """OLD may be a robots.txt URL and NEW `-` (stdin): the deployed file against the candidate."""
    server.routes["/robots.txt"] = (200, {"Content-Type": "text/plain"}, OLD.encode())
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(NEW.encode())))
    result = run("diff", f"{server.base}/robots.txt", "-", "--no-cache", "--agent", "MyBot")
    assert result.code == 1, result.err
    assert "/tmp/" in result.out


@pytest.mark.parametrize(
    "argv",
    [
        ("diff", "-", "-"),
        ("diff", "/nonexistent/old.txt", "/nonexistent/new.txt"),
        ("diff", "only-one"),
    ],
)
def test_cli_trouble_exits_2(run: Run, argv: tuple[str, ...]) -> None:
    """Trouble (both from stdin, unreadable files, a missing operand): exit 2, as diff(1)."""
    result = run(*argv)
    assert result.code == 2 and result.err
