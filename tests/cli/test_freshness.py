"""Every answer says where its robots.txt came from: file, stdin, fetched now, cached, or a stale copy."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from .conftest import Run, Server

BODY = b"User-agent: *\nDisallow: /private/\n"
PLAIN = {"Content-Type": "text/plain"}


def test_file_and_stdin(
    run: Run, robots_file: Callable[[str], Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file says `file PATH`; stdin says `stdin`; age_seconds is null for both."""
    path = robots_file(BODY.decode())
    doc = json.loads(run("check", str(path), "/x", "--agent", "A", "--json").out)
    assert doc["source"]["kind"] == "file" and doc["source"]["age_seconds"] is None
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(BODY)))
    result = run("lint", "-")
    assert result.out.splitlines()[-1] == "source: standard input"


def test_fetched_then_cached_then_refreshed(run: Run, server: Server, tmp_path: Path) -> None:
    """First run fetches; the next answers from the cache and says so; --refresh fetches again."""
    server.routes["/robots.txt"] = (200, PLAIN, BODY)
    cache = str(tmp_path / "c.db")
    robots = f"{server.base}/robots.txt"
    first = json.loads(run("check", robots, "/private/x", "--agent", "A", "--cache", cache, "--json").out)
    assert first["source"]["kind"] == "fetched" and first["source"]["age_seconds"] == 0
    assert first["results"][0]["source"]["location"] == robots
    second = run("check", robots, "/private/x", "--agent", "A", "--cache", cache)
    assert f"source: {robots}, cached copy fetched under a minute ago" in second.out
    assert "--refresh" in second.out
    assert server.hits.count("/robots.txt") == 1
    third = json.loads(run("lint", robots, "--cache", cache, "--refresh", "--json").out)
    assert third["source"]["kind"] == "fetched" and server.hits.count("/robots.txt") == 2


def test_stale_copy_when_the_site_is_down(run: Run, server: Server, tmp_path: Path) -> None:
    """A refetch that fails (503) leaves the last good copy standing in: the answer says `stale`."""
    server.routes["/robots.txt"] = (200, PLAIN, BODY)
    cache = str(tmp_path / "c.db")
    robots = f"{server.base}/robots.txt"
    run("fetch", robots, "--cache", cache)
    server.routes["/robots.txt"] = (503, PLAIN, b"down")
    result = run("explain", robots, "/private/x", "--agent", "A", "--cache", cache, "--refresh", "--json")
    doc = json.loads(result.out)
    assert doc["source"]["kind"] == "stale" and doc["source"]["age_seconds"] is not None
    human = run("check", robots, "/private/x", "--agent", "A", "--cache", cache)
    assert "stale copy" in human.out and "cannot be reached" in human.out
    fetched = run("fetch", robots, "--cache", cache, "--refresh")
    assert fetched.code == 2 and "stale copy" in fetched.out  # the fetch failed: exit 2
    # The policy line says the copy's rules apply (it said "everything is disallowed").
    assert "the last good copy's rules apply" in fetched.out and "everything is disallowed" not in fetched.out


def test_each_urls_own_robots_txt_is_named(run: Run, server: Server) -> None:
    """Without ROBOTS, every result names the robots.txt it was decided by."""
    server.routes["/robots.txt"] = (200, PLAIN, BODY)
    doc = json.loads(
        run(
            "check", f"{server.base}/a", f"{server.base}/private/b", "--agent", "A", "--no-cache", "--json"
        ).out
    )
    assert doc["source"]["kind"] == "fetched" and len(doc["sources"]) == 1
    assert {r["source"]["location"] for r in doc["results"]} == {f"{server.base}/robots.txt"}


def test_cache_info_and_clear(run: Run, server: Server, tmp_path: Path) -> None:
    """`cache info` counts entries of the --cache given; `cache clear HOST` forgets that host's file."""
    server.routes["/robots.txt"] = (200, PLAIN, BODY)
    cache = str(tmp_path / "c.db")
    run("fetch", f"{server.base}/robots.txt", "--cache", cache)
    info = json.loads(run("cache", "info", "--cache", cache, "--json").out)
    assert info["entries"] == 1 and cache in info["cache"]
    [item] = info["authorities"]
    assert item["authority"] == server.base and item["kind"] == "cached" and item["reason"] == "HTTP 200"
    assert f"  {server.base}  cached, 0 min old (HTTP 200)" in run("cache", "info", "--cache", cache).out
    assert info["pins"] == str(tmp_path / "gemini-pins.json")
    cleared = run("cache", "clear", "127.0.0.1", "--cache", cache)  # a bare host: every port
    assert cleared.code == 0 and "removed http://127.0.0.1" in cleared.out
    assert json.loads(run("cache", "info", "--cache", cache, "--json").out)["entries"] == 0
    run("fetch", f"{server.base}/robots.txt", "--cache", cache)
    assert server.hits.count("/robots.txt") == 2  # fetched again after the clear
    assert run("cache", "clear", "--cache", cache).code == 0
    assert json.loads(run("cache", "info", "--cache", cache, "--json").out)["entries"] == 0


def test_cache_clear_refuses_a_non_host(run: Run, tmp_path: Path) -> None:
    """`cache clear a/b` is not a host: exit 2 with one line on stderr."""
    result = run("cache", "clear", "not a/host", "--cache", str(tmp_path / "c.db"))
    assert result.code == 2 and "not a host name" in result.err
