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


def test_many_agents_in_one_group_stay_linear() -> None:
    """20,000 user-agent lines in one group (a 500 KiB file of agents) parse and decide within a second."""
    body = (
        "User-agent: *\n" + "".join(f"User-agent: bot{i}x\n" for i in range(20_000)) + "Disallow: /a\n"
    ).encode()
    started = time.perf_counter()
    robots = robotskit.parse(body)
    assert not robots.allowed("/a", "bot19999x")
    assert robots.allowed("/b", "MyBot")
    assert time.perf_counter() - started < BOUND_SECONDS


@pytest.mark.slow
def test_corpus_urls_with_non_ascii_suffixes_stay_fast() -> None:
    """Every corpus sample URL with a raw non-ASCII suffix is decided fast (a backtracking regex once hung here)."""
    from tests.conftest import CORPUS, read_jsonl, require_shared

    require_shared()
    started = time.perf_counter()
    checked = 0
    for row in read_jsonl(CORPUS / "urls.jsonl"):
        odd = [path for path in row["paths"] if not path.isascii()]
        if not odd:
            continue
        robots = robotskit.parse((CORPUS / "files" / row["file"]).read_bytes())
        for path in odd:
            robots.allowed((row["base_url"] or "https://example.com") + path + "é", "Bot")
            checked += 1
    assert checked > 100
    assert time.perf_counter() - started < 60
