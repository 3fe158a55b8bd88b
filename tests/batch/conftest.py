"""Fixtures for the batch tests: WARC files built from ../shared/corpus with real HTTP headers."""

from __future__ import annotations

import gzip
import importlib.util
import io
import json
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

pytest.importorskip("warcio")
pytest.importorskip("pyarrow")

from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

CORPUS = (Path(__file__).resolve().parents[2] / ".." / "shared" / "corpus").resolve()
DATE = "2025-03-04T05:06:07Z"

# A small agent list: tokens with groups of their own in many files, `*`-only ones, and a Gemini
# virtual agent (no token, a purpose), so every kind of AgentSpec is exercised.
AGENTS_FILE = """\
Googlebot
Bingbot
GPTBot
CCBot
ClaudeBot
Google-Extended
Googlebot-News aliases=Googlebot
- purposes=archiver name=archiver
"""
PATHS = ("/search", "/admin/", "/wp-admin/", "/private?x=1")


@dataclass
class Capture:
    """What the test wrote for one WARC record, so rows can be checked against the library."""

    url: str
    status: int
    body: bytes  # the decoded body the library should judge (after redirects)
    expect: str | None  # the outcome SPEC.md 6 gives
    redirects: list[str] = field(default_factory=list)
    source: str = ""


def corpus_files(count: int, *, start: int = 10) -> list[Path]:
    """`count` web files of the corpus (skipping the Gemini ones at the start), plus HTML pages."""
    if not CORPUS.is_dir():
        pytest.skip(f"shared corpus not found at {CORPUS}")
    with (CORPUS / "manifest.jsonl").open(encoding="utf-8") as fh:
        manifest = [json.loads(line) for line in fh]
    web = [m["file"] for m in manifest if m["kind"] == "web"]
    html = [m["file"] for m in manifest if m["is_html"]][:3]
    chosen = list(dict.fromkeys([*web[start : start + count], *html]))
    return [CORPUS / "files" / name for name in chosen]


def _record(
    writer: WARCWriter, uri: str, status: str, body: bytes, headers: Iterable[tuple[str, str]]
) -> None:
    http = StatusAndHeaders(status, [*headers, ("Content-Length", str(len(body)))], protocol="HTTP/1.1")
    record = writer.create_warc_record(
        uri, "response", payload=io.BytesIO(body), http_headers=http, warc_headers_dict={"WARC-Date": DATE}
    )
    writer.write_record(record)
    record.raw_stream.close()  # warcio spools the payload to a temp file to measure it


def build_warc(path: Path, files: list[Path], *, gz: bool = True, prefix: str = "") -> list[Capture]:
    """A WARC mixing the statuses crawlers meet; returns what each capture must come out as.

    Most files are served 200 text/plain; every 7th with gzip Content-Encoding; every 11th
    behind a two-hop 301/302 chain (across hosts); plus 404 HTML, 503, 429, a redirect to a
    URL not captured, and a body whose gzip is corrupt (a bad response: unreachable).
    """
    expected: list[Capture] = []
    with path.open("wb") as fh:
        writer = WARCWriter(fh, gzip=gz)
        for i, file in enumerate(files):
            body = file.read_bytes()
            host = f"site{prefix}{i}.example"
            url = f"http://{host}/robots.txt"
            if i % 11 == 5:
                hop1, hop2 = f"https://{host}/robots.txt", f"https://www.{host}/robots.txt"
                _record(writer, url, "301 Moved Permanently", b"", [("Location", hop1)])
                _record(writer, hop1, "302 Found", b"", [("Location", hop2)])
                expected.append(Capture(url, 301, body, "ok", [hop1, hop2]))
                expected.append(Capture(hop1, 302, body, "ok", [hop2]))
                url = hop2
            if i % 7 == 3:
                headers = [("Content-Type", "text/plain"), ("Content-Encoding", "gzip")]
                _record(writer, url, "200 OK", gzip.compress(body), headers)
            else:
                _record(writer, url, "200 OK", body, [("Content-Type", "text/plain; charset=utf-8")])
            expected.append(Capture(url, 200, body, "ok"))
        page = b"<!DOCTYPE html><html><body><h1>Not Found</h1></body></html>"
        extra = [
            (
                "http://gone.example/robots.txt",
                "404 Not Found",
                page,
                [("Content-Type", "text/html")],
                "unavailable",
            ),
            (
                "http://busy.example/robots.txt",
                "503 Service Unavailable",
                b"",
                [("Retry-After", "120")],
                "unreachable",
            ),
            ("http://slow.example/robots.txt", "429 Too Many Requests", b"", [], "unreachable"),
            (
                "http://lost.example/robots.txt",
                "301 Moved Permanently",
                b"",
                [("Location", "http://nowhere.example/robots.txt")],
                None,
            ),
            (
                "http://badgz.example/robots.txt",
                "200 OK",
                b"\x1f\x8b\x08\x00garbage-not-gzip",
                [("Content-Encoding", "gzip")],
                "unreachable",
            ),
        ]
        for url, status, body, headers, outcome in extra:
            _record(writer, url, status, body, headers)
            expected.append(Capture(url, int(status.split()[0]), b"", outcome))
    return expected


def corrupt_copy(source: Path, target: Path, *, at_record: int = 2) -> None:
    """Copy a gzipped WARC, overwriting the inside of one gzip member with junk bytes."""
    data = bytearray(source.read_bytes())
    starts = [i for i in range(len(data) - 2) if data[i : i + 3] == b"\x1f\x8b\x08"]
    begin, end = starts[at_record], starts[at_record + 1]
    middle = begin + 12
    data[middle : end - 4] = b"\x00" * (end - 4 - middle)
    target.write_bytes(bytes(data))


@pytest.fixture(scope="session")
def agents_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("agents") / "agents.txt"
    path.write_text(AGENTS_FILE, encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def warc_set(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Path], list[Capture]]:
    """Three WARC files (two gzipped, one plain) over 75 corpus files: 100-odd captures."""
    root = tmp_path_factory.mktemp("warcs")
    files = corpus_files(75)
    expected: list[Capture] = []
    paths: list[Path] = []
    for n, (lo, hi, gz) in enumerate([(0, 30, True), (30, 55, False), (55, len(files), True)]):
        path = root / (f"cc-{n}.warc.gz" if gz else f"cc-{n}.warc")
        for capture in build_warc(path, files[lo:hi], gz=gz, prefix=f"{n}-"):
            capture.source = str(path)
            expected.append(capture)
        paths.append(path)
    return paths, expected


def _warc_set_module() -> ModuleType:
    """benchmarks/warc_set.py, the Common-Crawl-like set generator (a script, not a package)."""
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "warc_set.py"
    spec = importlib.util.spec_from_file_location("robotskit_bench_warc_set", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while it loads
    spec.loader.exec_module(module)
    return module


def generated_set(root: Path, captures: int, per_warc: int) -> tuple[list[Path], list[dict[str, Any]]]:
    """A generated WARC set and its ground truth (one expected row per response record)."""
    if not CORPUS.is_dir():
        pytest.skip(f"shared corpus not found at {CORPUS}")
    module = _warc_set_module()
    warcs = module.build(root, captures, per_warc=per_warc, seed=16)
    return list(warcs), list(module.truths(root))


@pytest.fixture(scope="session")
def small_set(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Path], list[dict[str, Any]]]:
    """800 captures in 4 WARC files: every record kind the generator makes, with its truth."""
    return generated_set(tmp_path_factory.mktemp("ccset"), 800, 200)
