"""`RobotsTxt` answers checks from the skeleton (`_skeleton`) and builds the full parse only on need."""

from __future__ import annotations

import json

import pytest

import robotskit
from robotskit.core import robots as _robots
from tests.conftest import CORPUS, require_shared

AGENTS = ("Googlebot", "ExampleBot", "*")


def _big_file() -> bytes:
    groups = []
    for i in range(400):
        rules = "".join(f"Disallow: /g{i}/p{j}/\nAllow: /g{i}/p{j}/ok\n" for j in range(10))
        groups.append(f"User-agent: bot{i}\n{rules}Crawl-delay: 3\n")
    head = "Sitemap: https://example.com/s.xml\nUser-agent: *\nDisallow: /private/\n"
    return (head + "\n".join(groups)).encode()


def test_big_file_first_check_skips_the_full_parse() -> None:
    """A big file with many groups answers its first check without reading every line."""
    body = _big_file()
    assert _robots._worth_a_skeleton(body)
    robots = robotskit.parse(body)
    assert not robots.allowed("https://example.com/g7/p3/x", "bot7")
    assert robots.allowed("https://example.com/g7/p3/ok", "bot7")
    assert not robots.allowed("https://example.com/private/x", "other")
    assert robots._parsed is None, "the full parse was built for a check"
    assert robots.sitemaps == ("https://example.com/s.xml",)  # what only the full parse has
    assert robots._parsed is not None
    assert robots.crawl_delay("bot7") == 3.0


def _corpus_cases() -> list[tuple[bytes, list[str]]]:
    require_shared()
    urls = {}
    for line in (CORPUS / "urls.jsonl").read_text(encoding="utf-8").split("\n"):
        if not line:
            continue
        row = json.loads(line)
        urls[row["file"]] = [(row["base_url"] or "https://example.com") + p for p in row["paths"]]
    files = sorted((CORPUS / "files").glob("*.txt"))
    return [(path.read_bytes(), urls.get(path.name, [])) for path in files[::7]]


@pytest.mark.slow
@pytest.mark.parametrize("profile", [None, "google"])
def test_skeleton_and_full_parse_agree_on_the_corpus(
    monkeypatch: pytest.MonkeyPatch, profile: str | None
) -> None:
    """Every seventh corpus file: decisions, groups and records equal whichever way the file is read."""
    cases = _corpus_cases()
    for body, urls in cases:
        # The groups are read on first need, skeleton or full parse as `_worth_a_skeleton` says.
        monkeypatch.setattr(_robots, "_worth_a_skeleton", lambda data: True)
        lazy = robotskit.parse(body, profile)
        lazy._groups_source()
        monkeypatch.setattr(_robots, "_worth_a_skeleton", lambda data: False)
        eager = robotskit.parse(body, profile)
        eager._groups_source()
        assert lazy._parsed is None and eager._parsed is not None
        for agent in AGENTS:
            for url in urls:
                assert lazy.allowed(url, agent) is eager.allowed(url, agent), (url, agent)
                assert lazy.decide(url, agent).rule == eager.decide(url, agent).rule, (url, agent)
            assert lazy.crawl_delay(agent) == eager.crawl_delay(agent)
        assert lazy.groups == eager.groups
        assert lazy.records == eager.records and lazy.sitemaps == eager.sitemaps
        assert lazy.diagnostics == eager.diagnostics
