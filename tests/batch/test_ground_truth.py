"""A generated Common-Crawl-like WARC set: every response record is one row, as its truth says.

The set (benchmarks/warc_set.py) mixes plain, gzip and chunked 200s, redirect chains, soft-404
HTML pages, 4xx/5xx/429, `Retry-After` and `max-age` in non-ASCII digits, undecodable gzip,
bodies cut by the crawler or short of their Content-Length, non-HTTP status lines, empty
response blocks, junk gzip members and a record cut by the end of its file.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

import robotskit
from robotskit.batch import BatchConfig, default_agents
from robotskit.batch.runner import run_batch
from tests.batch.conftest import CORPUS, generated_set

# Rows of these kinds are judged; a policy that cannot read a non-ASCII-digit Retry-After or
# max-age may add a note (`policy: ...`) to `error`, but the outcome must stand.
NOTED = {"ok-maxage", "5xx-retry-digits", "429-retry-digits"}
KINDS = {
    "ok", "ok-gzip", "ok-chunked", "ok-maxage", "redirect", "redirect-missing", "soft404", "404", "403",
    "5xx", "5xx-retry-digits", "429", "bad-gzip", "truncated", "short", "bad-status", "empty-block",
    "corrupt", "cut-end", "recrawl",
}  # fmt: skip


def _real_error(row: dict[str, Any], kind: str) -> bool:
    error = row["error"]
    if error is None:
        return False
    # lint failing on one file is a library bug reported in the row; the verdicts still stand
    if error.startswith("lint:"):
        return False
    return not (kind in NOTED and error.startswith("policy:"))


def _check(rows: list[dict[str, Any]], truths: list[dict[str, Any]]) -> None:
    by_key = {(r["source"], r["record"]): r for r in rows}
    assert len(by_key) == len(rows), "two rows for one record"
    assert len(rows) == len(truths), "one row per response record, no more, no less"
    for truth in truths:
        row = by_key[(truth["source"], truth["record"])]
        where = f"{truth['kind']} at {truth['source']}:{truth['record']} {row['error']!r}"
        assert row["outcome"] == truth["outcome"], where
        assert _real_error(row, truth["kind"]) == truth["error"], where
        if truth["outcome"] is None:
            assert row["agents"] == [], where  # a damaged record is never a verdict
        if truth["html"]:
            assert row["html"], where
        if truth["outcome"] == "ok" and truth["body"]:
            robots = robotskit.parse((CORPUS / "files" / truth["body"]).read_bytes(), "rfc9309")
            gpt = next(a for a in row["agents"] if a["agent"] == "GPTBot")
            assert gpt["root"] == robots.allowed("/", "GPTBot"), where
            assert row["final_status"] == 200 and row["status"] == truth["status"], where
        if truth["outcome"] == "unreachable":
            assert all(not a["root"] for a in row["agents"]), where
        if truth["outcome"] == "unavailable":
            assert all(a["root"] for a in row["agents"]), where


@pytest.fixture(scope="module")
def small_rows(
    tmp_path_factory: pytest.TempPathFactory, small_set: tuple[list[Path], list[dict[str, Any]]]
) -> list[dict[str, Any]]:
    out = tmp_path_factory.mktemp("truth") / "r.parquet"
    summary = run_batch(small_set[0], out, BatchConfig(agents=default_agents()), scheduler="sync")
    assert summary.rows == len(small_set[1])
    return list(pq.read_table(out).to_pylist())


def test_every_record_kind_gives_its_expected_row(
    small_set: tuple[list[Path], list[dict[str, Any]]], small_rows: list[dict[str, Any]]
) -> None:
    """800 captures: each response record is one row with the outcome and error its kind implies."""
    truths = small_set[1]
    assert {t["kind"] for t in truths} >= KINDS - {"recrawl"}, Counter(t["kind"] for t in truths)
    _check(small_rows, truths)


def test_a_cut_body_is_an_error_not_a_verdict(
    small_set: tuple[list[Path], list[dict[str, Any]]], small_rows: list[dict[str, Any]]
) -> None:
    """Bodies cut by the crawler or by the end of the file, and empty or non-HTTP records, say why."""
    truths = small_set[1]
    rows = {(r["source"], r["record"]): r for r in small_rows}
    reasons = {
        "truncated": "WARC-Truncated",
        "short": "Content-Length",
        "bad-status": "status line is not HTTP",
        "empty-block": "empty response block",
        "corrupt": "corrupt record",
        "cut-end": "cut short",
    }
    for truth in truths:
        expected = reasons.get(truth["kind"])
        if expected is not None and truth["error"]:  # a crawler's cut past the parse limit is judged
            row = rows[(truth["source"], truth["record"])]
            assert expected in row["error"], (truth["kind"], row["error"])
            assert row["outcome"] is None


@pytest.mark.slow
def test_twenty_thousand_captures_match_their_truth(tmp_path: Path) -> None:
    """The same on a 20,000-capture set in 10 WARC files (the benchmark's size)."""
    warcs, truths = generated_set(tmp_path / "set", 20_000, 2_000)
    out = tmp_path / "r.parquet"
    run_batch(warcs, out, BatchConfig(agents=default_agents()), scheduler="sync")
    _check(pq.read_table(out).to_pylist(), truths)
