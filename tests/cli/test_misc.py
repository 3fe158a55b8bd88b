"""The rest of the command line: help, version, audit, batch, ROBOTS detection, cache path, progress."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from robotskit.cli import build_parser, default_cache_path, split_targets

from .conftest import EXAMPLE, Run


def test_help_exits_0(run: Run) -> None:
    """--help prints usage listing every command and exits 0."""
    result = run("--help")
    assert result.code == 0
    for command in ("check", "explain", "lint", "fetch", "audit", "batch"):
        assert command in result.out


def test_no_command_exits_2(run: Run) -> None:
    """No subcommand is a usage error."""
    assert run().code == 2


def test_version(run: Run) -> None:
    """--version prints the installed version."""
    result = run("--version")
    assert result.code == 0 and result.out.startswith("robotskit ")


def test_unknown_profile_is_a_usage_error(run: Run) -> None:
    """--profile accepts only rfc9309, google or gemini."""
    assert run("check", str(EXAMPLE), "/x", "--agent", "A", "--profile", "bing").code == 2


@pytest.mark.parametrize(
    ("targets", "robots", "expected"),
    [
        (["robots.txt", "/a"], None, ("robots.txt", ["/a"])),
        (["-", "/a"], None, ("-", ["/a"])),
        (["https://x.org/robots.txt", "/a"], None, ("https://x.org/robots.txt", ["/a"])),
        (["gemini://x.org/robots.txt", "/a"], None, ("gemini://x.org/robots.txt", ["/a"])),
        (["https://x.org/a", "https://y.org/b"], None, (None, ["https://x.org/a", "https://y.org/b"])),
        (["https://x.org/robots.txt.bak"], None, (None, ["https://x.org/robots.txt.bak"])),
        (["https://x.org/a"], "local.txt", ("local.txt", ["https://x.org/a"])),
    ],
)
def test_robots_is_told_from_urls(
    targets: list[str], robots: str | None, expected: tuple[str | None, list[str]]
) -> None:
    """ROBOTS is `-`, a path, or a URL whose path is /robots.txt; any other URL starts the URL list."""
    assert split_targets(targets, robots) == expected


def test_default_cache_path_follows_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The default cache is $XDG_CACHE_HOME/robotskit/robots.db; $ROBOTSKIT_CACHE overrides it."""
    monkeypatch.delenv("ROBOTSKIT_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    if sys.platform not in ("win32", "darwin"):
        assert default_cache_path() == tmp_path / "robotskit" / "robots.db"
    monkeypatch.setenv("ROBOTSKIT_CACHE", str(tmp_path / "mine.db"))
    assert default_cache_path() == tmp_path / "mine.db"


def test_audit_json(run: Run) -> None:
    """audit --json wraps robotskit.audit's report: GPTBot is fully blocked by the example."""
    result = run("audit", str(EXAMPLE), "--json")
    doc = json.loads(result.out)
    assert result.code == 0 and doc["command"] == "audit"
    gptbot = next(c for c in doc["report"]["crawlers"] if c["token"].lower() == "gptbot")
    assert gptbot["status"] == "full"


def test_audit_human(run: Run) -> None:
    """audit without --json prints a readable report naming the crawlers."""
    result = run("audit", str(EXAMPLE))
    assert result.code == 0 and "GPTBot" in result.out


def test_audit_unreadable_exits_2(run: Run, tmp_path: Path) -> None:
    """audit of a missing file exits 2."""
    assert run("audit", str(tmp_path / "none.txt")).code == 2


def test_batch_without_extra_explains_and_exits_2(run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    """If the batch extra cannot be imported, `robotskit batch` says how to install it and exits 2."""
    monkeypatch.setitem(sys.modules, "robotskit.batch.cli", None)  # import now raises ImportError
    result = run("batch", "in.warc", "--out", "x.parquet")
    assert result.code == 2 and "pip install 'robotskit[batch]'" in result.err


def test_batch_is_registered_when_available() -> None:
    """build_parser() includes the batch engineer's `batch` subcommand when it imports."""
    pytest.importorskip("robotskit.batch.cli")
    parser = build_parser()
    help_text = parser.format_help()
    assert "batch" in help_text


def test_progress_bar_only_on_a_terminal(
    run: Run, robots_file: Callable[[str], Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Many URLs show a progress bar on stderr when it is a terminal, and none otherwise."""
    urls = tmp_path / "urls.txt"
    urls.write_text("".join(f"/p{i}\n" for i in range(40)), encoding="utf-8")
    path = str(robots_file("User-agent: *\nDisallow: /x\n"))
    plain = run("check", path, "--urls", str(urls), "--agent", "A")
    assert plain.code == 0 and plain.err == ""
    monkeypatch.setenv("FORCE_COLOR", "1")  # rich treats the stream as a terminal
    monkeypatch.setenv("TTY_COMPATIBLE", "1")
    forced = run("check", path, "--urls", str(urls), "--agent", "A")
    assert forced.code == 0 and "checking" in forced.err


def test_batch_help_is_forwarded(run: Run) -> None:
    """`robotskit batch --help` shows the batch engineer's options (exit 0) when the module imports."""
    pytest.importorskip("robotskit.batch.cli")
    result = run("batch", "--help")
    assert result.code == 0 and "--out" in result.out
