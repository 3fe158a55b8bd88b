"""Lint and the parser agree, line by line, on every file of the shared corpus.

Lint reads the parser's events and values and never re-reads a line its own way: the token a
user-agent line stands for, whether a crawl-delay or request-rate value is used, and which key
spellings are records are the parser's answers. Corpus-wide, so marked slow.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import robotskit
from robotskit.core.model import Diagnostic
from robotskit.lint import lint
from robotskit.lint.context import Context, token_for
from robotskit.lint.parse_checks import CHECKS as PARSE_CHECKS

from ..conftest import CORPUS, read_jsonl, require_shared

pytestmark = pytest.mark.slow


def _corpus() -> Iterator[tuple[str, bytes, str]]:
    require_shared()
    for item in read_jsonl(CORPUS / "manifest.jsonl"):
        profile = "gemini" if item.get("kind") == "gemini" else "rfc9309"
        yield item["file"], (CORPUS / "files" / item["file"]).read_bytes(), profile


def _lint_own(robots: robotskit.RobotsTxt, profile: str) -> list[Diagnostic]:
    """The RK1xx diagnostics lint derives itself (before merging the parser's)."""
    ctx = Context(robots, profile, None, {line.number: line for line in robots.lines})
    return [d for check in PARSE_CHECKS for d in check(ctx)]


def _disagreements(name: str, body: bytes, profile: str) -> Iterator[str]:
    for chosen in (profile, "google"):
        robots = robotskit.parse(body, chosen)
        lines = {line.number: line for line in robots.lines}
        # The token of every user-agent line: lint's reading is the group's token in the parse.
        for group in robots.groups:
            mine = {number: token_for(chosen, lines[number].value) for number in group.agent_lines}
            # ("" is "no token": rfc9309 drops such a value, Google keeps an empty token)
            if set(mine.values()) - {""} != set(group.agents) - {""}:
                diff = set(mine.values()) ^ set(group.agents)
                yield f"{name}:{group.line} ({chosen}): lint and the parser differ on {sorted(diff)[:5]}"
        # Record values: lint calls a value unusable exactly where the parser does.
        for code in ("RK120", "RK130", "RK131", "RK132"):
            parser = {d.line for d in robots.diagnostics if d.code == code}
            own = {d.line for d in _lint_own(robots, chosen) if d.code == code}
            if parser != own:
                yield f"{name} ({chosen}): {code} parser lines {sorted(parser)}, lint lines {sorted(own)}"
        # A record the parser uses is never an unknown directive to lint.
        used = {r.line for r in robots.records}
        unknown = {d.line for d in lint(robots, profile=chosen, select=("RK201",))}
        for number in sorted(unknown & used):
            key = lines[number].key.lower()
            if key in ("crawl-delay", "request-rate") or key.replace("_", "-") in (
                "crawl-delay",
                "request-rate",
            ):
                yield f"{name}:{number}: lint calls '{key}' unknown, the parser reads it"


def test_corpus_parser_and_lint_agree_line_by_line() -> None:
    """Over the whole corpus, lint's reading of every user-agent and record line is the parser's."""
    problems = [p for name, body, profile in _corpus() for p in _disagreements(name, body, profile)]
    assert not problems, "\n".join(problems[:30])


def test_a_reading_lint_used_to_get_wrong(tmp_path: Path) -> None:
    """`Crawl-delay: 10 seconds` is honoured as 10 by the parser, and lint says so (no RK130)."""
    robots = robotskit.parse(b"User-agent: *\nCrawl-delay: 10 seconds\n")
    assert robots.crawl_delay("x") == 10
    found = {d.code: d.message for d in lint(robots)}
    assert "RK130" not in found and "accepted as 10 seconds" in found["RK133"]
