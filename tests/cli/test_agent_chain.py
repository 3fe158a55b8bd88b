"""`--agent` with a known crawler: the bundled table's fallback chain is used, and said on stderr."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from .conftest import Run

GOOGLE_EXAMPLE = (
    "user-agent: googlebot-news\ndisallow: /fish\n\n"
    "user-agent: *\ndisallow: /carrots\n\n"
    "user-agent: googlebot\ndisallow: /shrimp\n"
)


def test_known_crawler_follows_its_chain_and_says_so(run: Run, robots_file: Callable[[str], Path]) -> None:
    """--agent Googlebot-Image obeys the googlebot group (exit 1 on /shrimp) and stderr names the chain."""
    path = robots_file(GOOGLE_EXAMPLE)
    result = run(
        "check",
        str(path),
        "https://x.test/shrimp",
        "https://x.test/carrots",
        "--agent",
        "Googlebot-Image",
        "--json",
    )
    data = json.loads(result.out)
    assert result.code == 1
    assert [r["allowed"] for r in data["results"]] == [False, True]
    assert data["results"][0]["tokens"] == ["googlebot"]
    assert "next in its fallback chain" in data["results"][0]["reason"]
    assert "known crawler" in result.err and "Googlebot-Image, then Googlebot" in result.err


def test_unknown_or_chainless_token_is_unchanged(run: Run, robots_file: Callable[[str], Path]) -> None:
    """A token without a chain (or not in the table) keeps today's reading: `*` applies, no note."""
    path = robots_file(GOOGLE_EXAMPLE)
    for token in ("GPTBot", "SomeNewBot"):
        result = run("check", str(path), "https://x.test/shrimp", "https://x.test/carrots", "--agent", token)
        assert result.code == 1  # /carrots disallowed by `*`, /shrimp allowed
        assert [line.split()[0] for line in result.out.splitlines()[:2]] == ["allowed", "disallowed"]
        assert "known crawler" not in result.err
