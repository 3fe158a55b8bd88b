"""Directories, host lists fetched live from 127.0.0.1, the agents file, the CLI and the report."""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pyarrow.parquet as pq
import pytest

import robotskit
from robotskit.batch import BatchConfig, load_agents
from robotskit.batch.agentlist import default_agents, parse_agents
from robotskit.batch.cli import main
from robotskit.batch.runner import run_batch
from tests.batch.conftest import CORPUS, PATHS, build_warc, corpus_files


def test_directory_with_manifest_judges_gemini_files_with_the_gemini_profile(
    tmp_path: Path, agents_file: Path
) -> None:
    """Files of a directory are rows; a manifest's gemini:// base URL selects the gemini profile."""
    root = tmp_path / "robots"
    root.mkdir()
    names = ["0001.txt", "0002.txt", "0050.txt", "0051.txt"]
    with (
        (root / "manifest.jsonl").open("w", encoding="utf-8") as manifest,
        (CORPUS / "urls.jsonl").open(encoding="utf-8") as urls,
    ):
        bases = {e["file"]: e["base_url"] for e in map(json.loads, urls) if e["file"] in names}
        for name in names:
            shutil.copy(CORPUS / "files" / name, root / name)
            manifest.write(json.dumps({"file": name, "base_url": bases[name]}) + "\n")
    config = BatchConfig(agents=load_agents(agents_file), paths=PATHS)
    out = tmp_path / "d.parquet"
    summary = run_batch([root], out, config, scheduler="sync", chunk=3)
    rows = {Path(r["source"]).name: r for r in pq.read_table(out).to_pylist()}
    assert summary.units == 2 and set(rows) == set(names)
    for name in names:
        robots = robotskit.parse((root / name).read_bytes())
        archiver = robotskit.Agent(None, purposes=("archiver",))
        expected = [robots.allowed(bases[name] + p, archiver) for p in PATHS]
        agent_row = next(a for a in rows[name]["agents"] if a["agent"] == "archiver")
        assert rows[name]["outcome"] == "ok" and rows[name]["status"] is None
        assert agent_row["paths"] == expected
    assert rows["0001.txt"]["url"].startswith("gemini://")


class _Robots(BaseHTTPRequestHandler):
    """Serves /robots.txt per port: 200 with rules, 404, or 503."""

    bodies: ClassVar[dict[int, tuple[int, bytes]]] = {}
    hits: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        status, body = self.bodies[self.server.server_address[1]]
        self.hits.append(self.path)
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def servers() -> Iterator[list[int]]:
    """Three HTTP servers on 127.0.0.1 (ephemeral ports), stopped after the test."""
    started = []
    answers = [
        (200, b"User-agent: GPTBot\nDisallow: /\n\nUser-agent: *\nDisallow: /admin/\n"),
        (404, b"not here"),
        (503, b""),
    ]
    for status, body in answers:
        server = ThreadingHTTPServer(("127.0.0.1", 0), _Robots)
        _Robots.bodies[server.server_address[1]] = (status, body)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        started.append(server)
    yield [s.server_address[1] for s in started]
    for server in started:
        server.shutdown()
        server.server_close()


@pytest.mark.integration
def test_host_list_is_fetched_with_the_client_policy(
    tmp_path: Path, servers: list[int], agents_file: Path
) -> None:
    """Hosts are fetched once each (shared cache) and judged by the client's outcome for their status."""
    if not hasattr(robotskit, "RobotsClient"):
        pytest.skip("robotskit.RobotsClient not available yet")
    hosts = tmp_path / "hosts.txt"
    lines = [f"http://127.0.0.1:{port}/" for port in servers]
    hosts.write_text("# hosts\n" + "\n".join(lines + lines[:1]) + "\n", encoding="utf-8")
    config = BatchConfig(agents=load_agents(agents_file), paths=PATHS)
    out = tmp_path / "h.parquet"
    _Robots.hits.clear()
    run_batch([hosts], out, config, scheduler="sync")
    rows = pq.read_table(out).to_pylist()
    assert [r["outcome"] for r in rows] == ["ok", "unavailable", "unreachable", "ok"]
    assert _Robots.hits.count("/robots.txt") <= 3 + 2  # one per host (5xx may be retried once)
    gpt = {r["record"]: next(a for a in r["agents"] if a["agent"] == "GPTBot") for r in rows}
    assert gpt[2]["verdict"] == "disallowed" and gpt[3]["verdict"] == "allowed" and not gpt[4]["root"]
    bing = next(a for a in rows[0]["agents"] if a["agent"] == "Bingbot")
    assert bing["verdict"] == "partial" and bing["paths"] == [True, False, True, True]


def test_agents_file_format_and_default_list() -> None:
    """The agents file gives tokens, aliases and token-less purposes; the default has the crawler table."""
    specs = parse_agents("GPTBot\nGooglebot-News aliases=Googlebot\n- purposes=archiver,indexer name=g\n")
    assert [(s.name, s.token, s.purposes, s.aliases) for s in specs] == [
        ("GPTBot", "GPTBot", (), ()),
        ("Googlebot-News", "Googlebot-News", (), ("Googlebot",)),
        ("g", None, ("archiver", "indexer"), ()),
    ]
    with pytest.raises(ValueError, match="duplicate"):
        parse_agents("GPTBot\nGPTBot\n")
    names = [s.name for s in default_agents()]
    assert (
        "GPTBot" in names
        and "Google-Extended" in names
        and names[-4:] == ["archiver", "indexer", "researcher", "webproxy"]
    )


@pytest.mark.slow
def test_cli_runs_a_batch_and_renders_the_report(
    tmp_path: Path, agents_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`batch` writes results and prints a summary; `batch report` writes report.md and three PNGs."""
    warc = tmp_path / "in.warc.gz"
    build_warc(warc, corpus_files(12, start=300))
    out = tmp_path / "res.parquet"
    code = main([str(warc), "--out", str(out), "--agents", str(agents_file), "--scheduler", "sync"])
    assert code == 0 and "captures ->" in capsys.readouterr().out
    assert main(["report", str(out), "--report-dir", str(tmp_path / "rep")]) == 0
    text = capsys.readouterr().out
    assert "GPTBot" in text and "unreachable" in text
    for name in ("report.md", "blocking.png", "outcomes.png", "sizes.png"):
        assert (tmp_path / "rep" / name).stat().st_size > 0
    assert main(["report"]) == 2
