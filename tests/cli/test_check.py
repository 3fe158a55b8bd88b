"""`robotskit check`: verdicts, exit codes 0/1/2, JSON, stdin, URL lists, profiles and purposes."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from .conftest import EXAMPLE, Run

ROBOTS = (
    "User-agent: *\nDisallow: /private/\nAllow: /private/press/\n\n"
    "User-agent: Googlebot\nAllow: /dir/index.html\nDisallow: /dir/\n"
)


def test_all_allowed_exits_0(run: Run, robots_file: Callable[[str], Path]) -> None:
    """Every URL allowed: exit 0 and one `allowed` line per URL."""
    path = robots_file(ROBOTS)
    result = run("check", str(path), "https://example.com/", "/private/press/a", "--agent", "MyBot")
    assert result.code == 0
    lines = result.out.splitlines()
    assert [line.split()[0] for line in lines[:-1]] == ["allowed", "allowed"]
    assert lines[-1] == f"source: file {path}"


def test_any_disallowed_exits_1(run: Run, robots_file: Callable[[str], Path]) -> None:
    """One disallowed URL among allowed ones: exit 1, and the deciding line is named."""
    path = robots_file(ROBOTS)
    result = run("check", str(path), "/index.html", "https://example.com/private/x", "--agent", "MyBot")
    assert result.code == 1
    lines = result.out.splitlines()
    assert lines[0].startswith("allowed") and lines[1].startswith("disallowed")
    assert "line 2: Disallow: /private/" in lines[1]


def test_missing_file_exits_2(run: Run, tmp_path: Path) -> None:
    """An unreadable ROBOTS file: exit 2 with an error on stderr, nothing on stdout."""
    result = run("check", str(tmp_path / "nope.txt"), "/x", "--agent", "MyBot")
    assert result.code == 2
    assert "cannot read" in result.err and result.out == ""


def test_no_url_exits_2(run: Run, robots_file: Callable[[str], Path]) -> None:
    """ROBOTS without any URL is a usage error (exit 2)."""
    result = run("check", str(robots_file(ROBOTS)), "--agent", "MyBot")
    assert result.code == 2 and "no URL" in result.err


def test_missing_agent_is_a_usage_error(run: Run, robots_file: Callable[[str], Path]) -> None:
    """--agent is required: argparse's usage error becomes exit 2."""
    result = run("check", str(robots_file(ROBOTS)), "/x")
    assert result.code == 2 and "--agent" in result.err


def test_json_document(run: Run, robots_file: Callable[[str], Path]) -> None:
    """--json prints one document with a result per URL, the deciding rule and a summary."""
    path = robots_file(ROBOTS)
    result = run("check", str(path), "/a", "/private/b", "--agent", "MyBot", "--json")
    doc = json.loads(result.out)
    assert result.code == 1 and doc["exit_code"] == 1
    assert doc["command"] == "check" and doc["version"] == 2 and doc["agent"] == "MyBot"
    assert doc["source"] == {
        "kind": "file",
        "location": str(path),
        "age_seconds": None,
        "fetched_at": None,
        "outcome": None,
        "reason": "",
    }
    assert doc["summary"] == {"total": 2, "allowed": 1, "disallowed": 1}
    second = doc["results"][1]
    assert second["url"] == "/private/b" and second["allowed"] is False
    assert second["rule"] == {
        "line": 2,
        "kind": "disallow",
        "pattern": "/private/",
        "raw": "/private/",
        "derived": False,
    }
    assert doc["results"][0]["rule"] is None and doc["results"][0]["reason"] == "no matching rule"


def test_json_error_document(run: Run, tmp_path: Path) -> None:
    """With --json an I/O error is still one JSON document, with exit_code 2."""
    result = run("check", str(tmp_path / "missing"), "/x", "--agent", "A", "--json")
    doc = json.loads(result.out)
    assert result.code == 2 and doc["exit_code"] == 2 and "cannot read" in doc["error"]


def test_stdin(run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    """ROBOTS `-` reads the file from standard input."""
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"User-agent: *\nDisallow: /\n")))
    result = run("check", "-", "/anything", "--agent", "MyBot")
    assert result.code == 1 and result.out.startswith("disallowed")


def test_urls_from_a_file(run: Run, robots_file: Callable[[str], Path], tmp_path: Path) -> None:
    """--urls FILE adds one URL per line (blank lines and # comments skipped)."""
    urls = tmp_path / "urls.txt"
    urls.write_text("# to check\n/a\n\n/private/b\n", encoding="utf-8")
    result = run("check", str(robots_file(ROBOTS)), "--urls", str(urls), "--agent", "MyBot", "--json")
    assert [r["url"] for r in json.loads(result.out)["results"]] == ["/a", "/private/b"]


def test_google_profile_changes_the_verdict(run: Run, robots_file: Callable[[str], Path]) -> None:
    """`Allow: /dir/index.html` also allows `/dir/` under --profile google only (SPEC.md 1)."""
    path = str(robots_file(ROBOTS))
    assert run("check", path, "/dir/", "--agent", "Googlebot").code == 1
    assert run("check", path, "/dir/", "--agent", "Googlebot", "--profile", "google").code == 0


def test_gemini_purposes_are_judged(run: Run, robots_file: Callable[[str], Path]) -> None:
    """A Gemini purpose (virtual agent) is obeyed: the archiver group blocks an archiving bot."""
    path = str(robots_file("User-agent: archiver\nDisallow: /\n"))
    url = "gemini://example.org/log.gmi"
    assert run("check", path, url, "--agent", "MyBot").code == 0
    assert run("check", path, url, "--agent", "MyBot", "--purpose", "archiver").code == 1


def test_no_colour_when_not_a_terminal(run: Run) -> None:
    """Captured (non-terminal) output carries no ANSI escape codes."""
    result = run("check", str(EXAMPLE), "/private/x", "--agent", "MyBot")
    assert "\x1b[" not in result.out


COLOUR = re.compile(r"\x1b\[[0-9;]*(?:3[0-8]|9[0-7])(?:;[0-9;]*)?m")


def test_colour_when_forced(run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    """FORCE_COLOR makes rich colour the verdict; NO_COLOR removes the colours (bold may stay)."""
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert COLOUR.search(run("check", str(EXAMPLE), "/private/x", "--agent", "MyBot").out)
    monkeypatch.setenv("NO_COLOR", "1")
    assert not COLOUR.search(run("check", str(EXAMPLE), "/private/x", "--agent", "MyBot").out)


def test_readme_first_command(run: Run) -> None:
    """The README's first command works offline on the shipped example and disallows the PDF."""
    result = run(
        "check",
        str(EXAMPLE),
        "https://www.example.com/private/report.pdf",
        "https://www.example.com/private/press/launch.html",
        "--agent",
        "MyBot",
    )
    assert result.code == 1
    assert result.out.splitlines()[0].startswith("disallowed")
    assert result.out.splitlines()[1].startswith("allowed")


def test_shipped_url_list(run: Run) -> None:
    """examples/urls.txt against examples/robots.txt: `$` anchors the PDF rule, the query escapes it."""
    urls = str(EXAMPLE.parent / "urls.txt")
    doc = json.loads(run("check", str(EXAMPLE), "--urls", urls, "--agent", "MyBot", "--json").out)
    verdicts = {r["url"].removeprefix("https://www.example.com"): r["allowed"] for r in doc["results"]}
    assert verdicts == {
        "/": True,
        "/private/report.pdf": False,
        "/private/press/launch.html": True,
        "/docs/manual.pdf": False,
        "/docs/manual.pdf?download=1": True,
        "/search?q=robots": False,
        "/drafts/next-post.html": True,
    }
