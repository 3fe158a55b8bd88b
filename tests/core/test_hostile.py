"""Hostile input stays linear: no regex in the core may backtrack on what strangers send.

The bounds are generous (a second) so a loaded machine does not make them flaky; a backtracking
regex would take minutes or forever on these inputs, so the tests still fail when one creeps in.
"""

from __future__ import annotations

import time

import pytest

import robotskit

BOUND_SECONDS = 1.0


@pytest.mark.parametrize(
    "url",
    [
        "http://h/" + "a%20" * 20_000 + "~%7e",  # clean runs and kept escapes, then one that needs work
        "http://h/" + "a" * 60_000 + "<",
        "/" + "%41" * 20_000,
        "http://" + "h" * 60_000,
    ],
    ids=["escapes-then-unreserved", "long-then-raw-special", "many-unreserved-escapes", "long-authority"],
)
@pytest.mark.parametrize("profile", ["rfc9309", "google"])
def test_hostile_urls_check_fast(url: str, profile: str) -> None:
    """A 60 KB URL built to defeat a backtracking path regex is decided well within a second."""
    robots = robotskit.parse(b"User-agent: *\nDisallow: /a*b*c$\nAllow: /a\n", profile)
    started = time.perf_counter()
    robots.allowed(url, "Bot")
    robots.decide(url, "Bot")
    assert time.perf_counter() - started < BOUND_SECONDS


@pytest.mark.parametrize(
    "line",
    [
        "a" + " " * 16_000 + "b",  # no colon, long inner whitespace
        "Disallow: x" + " " * 16_000 + "y",  # value with a long inner whitespace run
        "k" + "\t " * 8_000 + ":",  # key followed by a long whitespace run
        "#" * 16_000,
        ":" * 16_000,
    ],
    ids=["no-colon-spaces", "value-spaces", "key-spaces", "hashes", "colons"],
)
def test_hostile_lines_parse_fast(line: str) -> None:
    """A file of 30 lines of 16 KB built against the tokenizer's regex parses well within a second."""
    body = ("User-agent: *\n" + (line + "\n") * 30).encode()
    started = time.perf_counter()
    robots = robotskit.parse(body)
    robots.allowed("/x", "Bot")
    assert time.perf_counter() - started < BOUND_SECONDS
