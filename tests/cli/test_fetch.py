"""Commands that fetch: check/explain/lint/fetch against a robots.txt served on 127.0.0.1."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from .conftest import Run, Server

pytestmark = pytest.mark.integration

BODY = b"User-agent: *\nDisallow: /private/\nSitemap: https://example.com/sitemap.xml\n"


def test_check_against_fetched_robots(run: Run, server: Server) -> None:
    """ROBOTS given as a /robots.txt URL is fetched; bare paths are checked against its host."""
    server.routes["/robots.txt"] = (200, {"Content-Type": "text/plain"}, BODY)
    robots = f"{server.base}/robots.txt"
    assert run("check", robots, "/public", "--agent", "MyBot", "--no-cache").code == 0
    result = run(
        "check", robots, "/private/a", f"{server.base}/ok", "--agent", "MyBot", "--no-cache", "--json"
    )
    doc = json.loads(result.out)
    assert result.code == 1 and [r["allowed"] for r in doc["results"]] == [False, True]


def test_check_without_robots_fetches_each_urls_own(run: Run, server: Server) -> None:
    """Without ROBOTS, each URL's own robots.txt is fetched (once per host)."""
    server.routes["/robots.txt"] = (200, {}, BODY)
    result = run("check", f"{server.base}/private/x", f"{server.base}/y", "--agent", "MyBot", "--no-cache")
    assert result.code == 1
    assert server.hits.count("/robots.txt") == 1


def test_unavailable_allows_and_unreachable_disallows(run: Run, server: Server) -> None:
    """A 404 robots.txt allows everything (exit 0); a 503 disallows everything (exit 1), RFC 9309 2.3.1."""
    assert run("check", f"{server.base}/x", "--agent", "A", "--no-cache").code == 0
    server.routes["/robots.txt"] = (503, {}, b"busy")
    result = run("check", f"{server.base}/x", "--agent", "A", "--no-cache", "--json")
    assert result.code == 1 and json.loads(result.out)["results"][0]["allowed"] is False


def test_url_on_another_host_is_a_usage_error(run: Run, server: Server) -> None:
    """A URL outside ROBOTS' authority cannot be judged by it: exit 2."""
    server.routes["/robots.txt"] = (200, {}, BODY)
    result = run(
        "check", f"{server.base}/robots.txt", "https://elsewhere.example/x", "--agent", "A", "--no-cache"
    )
    assert result.code == 2 and "only its own host" in result.err


def test_fetch_reports_outcome_redirects_and_expiry(run: Run, server: Server) -> None:
    """fetch --json names the outcome, status, redirect chain, size, expiry and the policy."""
    server.routes["/robots.txt"] = (301, {"Location": "/real-robots.txt"}, b"")
    server.routes["/real-robots.txt"] = (200, {"Cache-Control": "max-age=7200"}, BODY)
    result = run("fetch", f"{server.base}/page", "--no-cache", "--json")
    doc = json.loads(result.out)
    fetched = doc["fetch"]
    assert result.code == 0 and doc["command"] == "fetch"
    assert fetched["outcome"] == "ok" and fetched["status"] == 200 and fetched["size"] == len(BODY)
    assert fetched["redirects"] == [f"{server.base}/real-robots.txt"]
    assert fetched["expires_at"] > fetched["fetched_at"]
    assert doc["sitemaps"] == ["https://example.com/sitemap.xml"]


def test_fetch_with_agent_decides(run: Run, server: Server) -> None:
    """fetch --agent also decides the URL: exit 1 when disallowed, and the human output says so."""
    server.routes["/robots.txt"] = (200, {}, BODY)
    result = run("fetch", f"{server.base}/private/p", "--agent", "MyBot", "--no-cache")
    assert result.code == 1
    assert "outcome   ok" in result.out and "disallowed" in result.out


def test_fetch_unreachable_host(run: Run) -> None:
    """A host that refuses connections is `unreachable` (everything disallowed), not a crash: exit 2."""
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    result = run("fetch", f"http://127.0.0.1:{port}/", "--no-cache", "--timeout", "2", "--json")
    doc = json.loads(result.out)
    assert result.code == 2 and doc["exit_code"] == 2 and doc["fetch"]["outcome"] == "unreachable"


def test_fetch_needs_a_url(run: Run) -> None:
    """fetch of something that is not a URL: exit 2."""
    assert run("fetch", "example.com").code == 2


def test_lint_fetched_html(run: Run, server: Server) -> None:
    """lint of a robots.txt URL that serves an HTML page reports RK230."""
    server.routes["/robots.txt"] = (
        200,
        {"Content-Type": "text/html"},
        b"<!doctype html><html><body>hi</body></html>",
    )
    result = run("lint", f"{server.base}/robots.txt", "--no-cache", "--json")
    assert result.code == 1 and "RK230" in {d["code"] for d in json.loads(result.out)["diagnostics"]}


def test_lint_of_missing_remote_file_exits_2(run: Run, server: Server) -> None:
    """lint of a robots.txt URL that answers 404 cannot read a file: exit 2."""
    assert run("lint", f"{server.base}/robots.txt", "--no-cache").code == 2


def test_explain_fetched(run: Run, server: Server) -> None:
    """explain on a URL alone fetches its robots.txt and shows the deciding line."""
    server.routes["/robots.txt"] = (200, {}, BODY)
    result = run("explain", f"{server.base}/private/x", "--agent", "MyBot", "--no-cache")
    assert result.code == 1 and "    2 | Disallow: /private/" in result.out and "ok (HTTP 200)" in result.out


def test_sqlite_cache_file(run: Run, server: Server, tmp_path: Path) -> None:
    """--cache PATH keeps fetched files in that SQLite file: a second run does not refetch."""
    server.routes["/robots.txt"] = (200, {}, BODY)
    db = tmp_path / "c" / "robots.db"
    assert run("check", f"{server.base}/a", "--agent", "A", "--cache", str(db)).code == 0
    assert run("check", f"{server.base}/b", "--agent", "A", "--cache", str(db)).code == 0
    assert db.is_file() and server.hits.count("/robots.txt") == 1


def test_default_cache_under_xdg(run: Run, server: Server, tmp_path: Path) -> None:
    """Without --cache the SQLite file lives under $XDG_CACHE_HOME/robotskit/."""
    server.routes["/robots.txt"] = (200, {}, BODY)
    assert run("check", f"{server.base}/a", "--agent", "A").code == 0
    assert (tmp_path / "cache" / "robotskit" / "robots.db").is_file()


def test_lint_of_a_fetched_file_uses_its_content_type(run: Run, server: Server) -> None:
    """`lint URL` lints with the Content-Type the server sent: text/html is RK231, text/plain is not."""
    server.routes["/robots.txt"] = (200, {"Content-Type": "text/html; charset=utf-8"}, BODY)
    doc = json.loads(run("lint", f"{server.base}/robots.txt", "--no-cache", "--json").out)
    assert "RK231" in [d["code"] for d in doc["diagnostics"]]
    server.routes["/robots.txt"] = (200, {"Content-Type": "text/plain"}, BODY)
    doc = json.loads(run("lint", f"{server.base}/robots.txt", "--no-cache", "--json").out)
    assert "RK231" not in [d["code"] for d in doc["diagnostics"]]


def test_fetch_with_several_agents_decides_each(run: Run, server: Server) -> None:
    """fetch --agent A --agent B decides the URL for each (one fetch); exit 1 if any is disallowed."""
    server.routes["/robots.txt"] = (200, {"Content-Type": "text/plain"}, b"User-agent: B\nDisallow: /\n")
    result = run("fetch", f"{server.base}/p", "--agent", "A", "--agent", "B", "--no-cache", "--json")
    doc = json.loads(result.out)
    assert result.code == 1 and [(d["agent"], d["allowed"]) for d in doc["decisions"]] == [
        ("A", True),
        ("B", False),
    ]
    assert doc["decision"]["allowed"] is True and server.hits.count("/robots.txt") == 1
