"""Input that can mean more than one thing is refused (one line on stderr, exit 2) or accepted with
a warning on stderr saying what was assumed; never silently."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from .conftest import Run, Server

BODY = "User-agent: *\nDisallow: /private/\n\nUser-agent: Mozilla\nDisallow: /\n"


def _last_err_line(err: str) -> str:
    return [line for line in err.splitlines() if line.strip()][-1]


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (("check", "{robots}", "checkout", "--agent", "MyBot"), "neither a URL nor a path"),
        (("check", "{robots}", "example.com/x", "--agent", "MyBot"), "neither a URL nor a path"),
        (("check", "{robots}", "MyBot", "--agent", "https://example.com/x"), "looks like a URL"),
        (("check", "{robots}", "MyBot", "--agent", "/private/x"), "looks like a URL or a path"),
        (("check", "{robots}", "/x", "--agent", ""), "--agent is empty"),
        (("check", "{robots}", "/x", "--agent", "   "), "--agent is empty"),
        (("check", "{robots}", "/x", "--agent", "MyBot", "--purpose", "bogus"), "unknown --purpose 'bogus'"),
        (("explain", "{robots}", "checkout", "--agent", "MyBot"), "neither a URL nor a path"),
        (("diff", "{robots}", "{robots}", "--purpose", "indexer"), "give --agent NAME too"),
        (("check", "example.com", "/x", "--agent", "MyBot"), "give https://example.com/robots.txt"),
        (("check", "{robots}", "", "--agent", "MyBot"), "an empty URL"),
        (("check", "{robots}", "/x", "--agent", "MyBot", "--alias", ""), "--alias '' is not a product token"),
        (("check", "-", "--urls", "-", "--agent", "MyBot"), "stdin can be read once"),
        (("diff", "-", "{robots}", "--urls", "-"), "stdin can be read once"),
    ],
)
def test_refused_with_one_line_and_exit_2(
    run: Run, robots_file: Callable[[str], Path], argv: tuple[str, ...], needle: str
) -> None:
    """Each ambiguous command line exits 2 and its last stderr line says why."""
    path = str(robots_file(BODY))
    result = run(*(arg.format(robots=path) for arg in argv))
    assert result.code == 2, result
    assert result.out == ""
    assert needle in _last_err_line(result.err)


def test_diff_urls_file_with_a_bare_word_is_refused(
    run: Run, robots_file: Callable[[str], Path], tmp_path: Path
) -> None:
    """A --urls file line that is neither a URL nor a path is refused, as on the command line."""
    urls = tmp_path / "urls.txt"
    urls.write_text("/ok\ncheckout\n")
    path = str(robots_file(BODY))
    result = run("diff", path, path, "--urls", str(urls))
    assert result.code == 2 and "neither a URL nor a path" in result.err


def test_browser_user_agent_is_reduced_with_a_warning(run: Run, robots_file: Callable[[str], Path]) -> None:
    """A full user-agent string is judged as its product token, and stderr says so."""
    ua = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/120.0 Safari/537.36"
    result = run("check", str(robots_file(BODY)), "/public", "--agent", ua)
    assert result.code == 1  # the Mozilla group disallows everything
    assert "warning" in result.err and "judged as 'Mozilla'" in result.err
    doc = json.loads(run("check", str(robots_file(BODY)), "/public", "--agent", ua, "--json").out)
    assert len(doc["warnings"]) == 1 and "judged as 'Mozilla'" in doc["warnings"][0]
    assert "warnings" not in json.loads(
        run("check", str(robots_file(BODY)), "/x", "--agent", "A", "--json").out
    )


def test_repeated_agent_judges_each_separately(run: Run, robots_file: Callable[[str], Path]) -> None:
    """--agent A --agent B: every URL for each agent, in order; the JSON names each result's agent."""
    doc = json.loads(
        run(
            "check", str(robots_file(BODY)), "/public", "--agent", "MyBot", "--agent", "Mozilla", "--json"
        ).out
    )
    assert doc["agents"] == ["MyBot", "Mozilla"]
    assert [(r["agent"], r["allowed"]) for r in doc["results"]] == [("MyBot", True), ("Mozilla", False)]
    explain = json.loads(
        run(
            "explain", str(robots_file(BODY)), "/public", "--agent", "MyBot", "--agent", "Mozilla", "--json"
        ).out
    )
    assert [e["agent"] for e in explain["explanations"]] == ["MyBot", "Mozilla"] and explain["exit_code"] == 1


def test_bare_path_joins_a_gemini_robots_url(run: Run, tmp_path: Path) -> None:
    """A bare path after a gemini:// robots.txt is joined to that host (not 'not covered')."""
    result = run(
        "check", "gemini://127.0.0.1:1/robots.txt", "/log/", "--agent", "MyBot", "--no-cache", "--timeout", "1",
        "--json",
    )  # fmt: skip
    doc = json.loads(result.out)
    assert doc["results"][0]["url"] == "/log/"
    assert doc["source"]["location"] == "gemini://127.0.0.1:1/robots.txt"
    assert doc["results"][0]["profile"] == "gemini"


def test_lint_and_audit_use_the_gemini_profile_for_a_gemini_url(run: Run, server: Server) -> None:
    """The profile follows the ROBOTS URL: rules before any User-agent apply under Gemini (no RK120)."""
    body = b"Disallow: /private/\nUser-agent: *\nDisallow: /tmp/\n"
    server.routes["/robots.txt"] = (200, {"Content-Type": "text/plain"}, body)
    http = json.loads(run("lint", f"{server.base}/robots.txt", "--no-cache", "--json").out)
    assert "RK120" in {d["code"] for d in http["diagnostics"]}
    gemini = json.loads(
        run("lint", f"{server.base}/robots.txt", "--no-cache", "--json", "--profile", "gemini").out
    )
    assert "RK120" not in {d["code"] for d in gemini["diagnostics"]}


def test_urls_may_follow_options(run: Run, robots_file: Callable[[str], Path]) -> None:
    """`check ROBOTS --agent A URL URL`: URLs after an option are still URLs, in order."""
    result = run("check", str(robots_file(BODY)), "/a", "--agent", "MyBot", "/private/b", "/c", "--json")
    assert [r["url"] for r in json.loads(result.out)["results"]] == ["/a", "/private/b", "/c"]
    assert run("check", str(robots_file(BODY)), "/a", "--agent", "MyBot", "--bogus").code == 2


def test_lint_of_a_page_url_says_which_robots_txt(run: Run, server: Server) -> None:
    """`lint https://host/shop` lints the robots.txt governing it, and a warning names that file."""
    server.routes["/robots.txt"] = (200, {"Content-Type": "text/plain"}, b"User-agent: *\nDisallow: /x\n")
    result = run("lint", f"{server.base}/shop", "--no-cache")
    assert result.code == 0
    assert f"using {server.base}/robots.txt" in result.err and "warning" in result.err
