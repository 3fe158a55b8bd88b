"""`batch report`: sites and captures counted apart, fully blocked vs unreachable, tables and figures."""

from __future__ import annotations

import csv
import struct
from pathlib import Path

import pyarrow.parquet as pq

from robotskit.batch import BatchConfig, Capture
from robotskit.batch._values import AgentSpec
from robotskit.batch.analysis import Analyzer
from robotskit.batch.output import metadata, to_table
from robotskit.batch.report import write_report

AGENTS = (AgentSpec("GPTBot", "GPTBot"), AgentSpec("Googlebot", "Googlebot"), AgentSpec("CCBot", "CCBot"))
BLOCK_GPT = b"User-agent: GPTBot\nDisallow: /\n\nUser-agent: *\nDisallow: /private/\n"
OPEN = b"User-agent: *\nDisallow:\n"


def _results(path: Path) -> None:
    """Six captures of four sites: a recrawl changes site a's file; 503, 429, an HTML page, a 404."""
    config = BatchConfig(agents=AGENTS)
    analyzer = Analyzer(config)
    captures = [
        Capture("w", 1, "https://a.example/robots.txt", fetched_at=1.0, status=200, final_status=200,
                outcome="ok", body=OPEN),
        Capture("w", 2, "https://a.example/robots.txt", fetched_at=9.0, status=200, final_status=200,
                outcome="ok", body=BLOCK_GPT),  # a's latest capture
        Capture("w", 3, "https://b.example/robots.txt", fetched_at=2.0, status=200, final_status=200,
                outcome="ok", body=BLOCK_GPT),
        Capture("w", 4, "https://c.example/robots.txt", fetched_at=2.0, status=503, final_status=503,
                outcome="unreachable"),
        Capture("w", 5, "https://d.example/robots.txt", fetched_at=2.0, status=200, final_status=200,
                outcome="ok", content_type="text/html", body=b"<html><body>Disallow: /</body></html>"),
        Capture("w", 6, "https://e.example/robots.txt", fetched_at=2.0, status=429, final_status=429,
                outcome="unreachable"),
        Capture("w", 7, None, error="corrupt record: junk"),
    ]  # fmt: skip
    rows = [analyzer.analyze(c) for c in captures]
    names = [a.name for a in AGENTS]
    pq.write_table(to_table(rows, names, metadata((), names)), path)


def _png_dpi(path: Path) -> float:
    data = path.read_bytes()
    at = data.index(b"pHYs")
    per_metre = struct.unpack(">I", data[at + 4 : at + 8])[0]
    return per_metre * 0.0254


def test_report_counts_sites_and_captures_and_keeps_unreachable_apart(tmp_path: Path) -> None:
    """Sites are latest captures of distinct authorities; 5xx/429 are unreachable, never "blocked";
    an HTML page is not a robots.txt file; shares name their denominator."""
    results = tmp_path / "r.parquet"
    _results(results)
    text = write_report(results, tmp_path / "rep")
    assert "sites: 6 " in text and "captures: 7" in text  # a, b, c, d, e and the URL-less row
    with (tmp_path / "rep" / "agents.csv").open(encoding="utf-8") as fh:
        rows = {r["agent"]: r for r in csv.DictReader(fh)}
    assert set(rows) == {"GPTBot", "Googlebot", "CCBot"}
    gpt = rows["GPTBot"]
    assert (gpt["sites_robots_txt"], gpt["sites_fully_blocked"]) == ("2", "2")  # a (latest) and b
    assert (gpt["captures_robots_txt"], gpt["captures_fully_blocked"]) == ("3", "2")
    assert gpt["sites_fully_blocked_pct_of_robots_txt"] == "100.0"
    assert gpt["captures_fully_blocked_pct_of_robots_txt"] == "66.67"
    assert (gpt["sites_unreachable"], gpt["sites_known"]) == ("2", "5")
    assert rows["Googlebot"]["sites_fully_blocked"] == "0"  # the HTML page and 503s block nobody
    assert rows["Googlebot"]["sites_partly_blocked"] == "2"
    markdown = (tmp_path / "rep" / "agents.md").read_text(encoding="utf-8")
    assert all(f"| {name} |" in markdown for name in rows)


def test_report_figures_are_svg_and_300_dpi_png_with_their_numbers(tmp_path: Path) -> None:
    """Each figure is an SVG and a 300-dpi PNG, and its numbers sit beside it as a CSV."""
    results = tmp_path / "r.parquet"
    _results(results)
    write_report(results, tmp_path / "rep")
    for name in ("blocking", "outcomes_chart", "sizes"):
        base = tmp_path / "rep" / name
        assert base.with_suffix(".svg").read_text(encoding="utf-8").lstrip().startswith("<?xml")
        assert round(_png_dpi(base.with_suffix(".png"))) == 300
        assert base.with_suffix(".csv").read_text(encoding="utf-8").count("\n") >= 2
