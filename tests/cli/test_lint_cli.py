"""`robotskit lint`: carets and hints, exit 0 clean / 1 findings / 2 unreadable, and --json."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from .conftest import EXAMPLE, Run


def test_clean_file_exits_0(run: Run, robots_file: Callable[[str], Path]) -> None:
    """A file with no findings: exit 0 and `clean`."""
    result = run("lint", str(robots_file("User-agent: *\nDisallow: /private/\n")))
    assert result.code == 0 and result.out.splitlines()[-2].endswith("clean")


def test_info_only_exits_0(run: Run, robots_file: Callable[[str], Path]) -> None:
    """Info-level findings alone (a duplicate rule) do not fail the run."""
    result = run("lint", str(robots_file("User-agent: *\nDisallow: /a\nDisallow: /a\n")))
    assert result.code == 0 and "info RK301" in result.out


def test_findings_exit_1_with_caret_and_hint(run: Run, robots_file: Callable[[str], Path]) -> None:
    """A warning: exit 1, `file:line:column`, the numbered line, a caret under the problem, the hint."""
    path = robots_file("User-agent: *\nDisallow: /a$b\n")
    result = run("lint", str(path))
    lines = result.out.splitlines()
    assert result.code == 1
    assert lines[0].startswith(f"{path}:2:13: warning RK211")
    assert lines[1] == "    2 | Disallow: /a$b"
    assert lines[2] == "      |             ^"
    assert lines[3].startswith("      = hint:")


def test_unreadable_exits_2(run: Run, tmp_path: Path) -> None:
    """A file that cannot be read: exit 2."""
    assert run("lint", str(tmp_path / "absent.txt")).code == 2


def test_json(run: Run) -> None:
    """--json lists every diagnostic with id, severity, position, message, hint and the line text."""
    result = run("lint", str(EXAMPLE), "--json")
    doc = json.loads(result.out)
    assert doc["command"] == "lint" and doc["exit_code"] == result.code == 1
    typo = next(d for d in doc["diagnostics"] if d["code"] == "RK111")
    assert typo["line"] == 15 and typo["severity"] == "warning" and typo["text"] == "Disalow: /drafts/"
    assert set(typo) == {"code", "severity", "line", "column", "length", "message", "hint", "text"}
    assert doc["summary"]["warning"] == sum(d["severity"] == "warning" for d in doc["diagnostics"])


def test_content_type_option(run: Run, robots_file: Callable[[str], Path]) -> None:
    """--content-type text/html reports RK231."""
    path = robots_file("User-agent: *\nDisallow: /x\n")
    result = run("lint", str(path), "--content-type", "text/html", "--json")
    assert [d["code"] for d in json.loads(result.out)["diagnostics"]] == ["RK231"]


def test_profile_option(run: Run, robots_file: Callable[[str], Path]) -> None:
    """--profile google adds Google-only findings (crawl-delay is ignored by Google)."""
    path = str(robots_file("User-agent: *\nCrawl-delay: 3\nDisallow: /x\n"))
    assert "RK202" not in run("lint", path).out
    assert "RK202" in run("lint", path, "--profile", "google").out


def test_stdin(run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    """`lint -` reads standard input and names it `-` in the report."""
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"User-agent: *\nDisallow /x\n")))
    result = run("lint", "-")
    assert result.code == 1 and result.out.startswith("-:2:1: warning RK110")
