"""The CLI against a loopback Gemini server: TOFU pins persisted beside the cache, the fingerprint
shown by `fetch`, a changed certificate reported as such, and the gemini profile from the URL."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from ..integration.servers.certs import CertPair, make_cert
from ..integration.servers.gemini_server import GeminiScenario, GeminiScriptServer
from .conftest import Run

pytestmark = [pytest.mark.integration, pytest.mark.slow]

ROBOTS = b"Disallow: /private/\nUser-agent: indexer\nDisallow: /gemlog/\n"


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> tuple[CertPair, CertPair]:
    """Two self-signed certificates for 127.0.0.1: the server's, and the one it changes to."""
    return make_cert(tmp_path_factory.mktemp("c1")), make_cert(tmp_path_factory.mktemp("c2"))


@pytest.fixture
def capsule(certs: tuple[CertPair, CertPair]) -> Iterator[GeminiScriptServer]:
    """A scripted Gemini server on 127.0.0.1 serving ROBOTS."""
    server = GeminiScriptServer(certs[0]).start()
    server.route("/robots.txt", GeminiScenario(b"20 text/plain\r\n", ROBOTS))
    yield server
    server.stop()


def test_fetch_shows_and_persists_the_pin(run: Run, capsule: GeminiScriptServer, tmp_path: Path) -> None:
    """`fetch` prints the certificate's SHA-256; the pin is saved beside the cache file."""
    cache = tmp_path / "robots.db"
    result = run("fetch", capsule.url("/robots.txt"), "--cache", str(cache))
    assert result.code == 0, result.err
    assert f"SHA-256 {capsule.cert.sha256}" in result.out
    pins = json.loads((tmp_path / "gemini-pins.json").read_text())
    assert [p["sha256"] for p in pins["pins"].values()] == [capsule.cert.sha256]
    doc = json.loads(run("fetch", capsule.url("/robots.txt"), "--cache", str(cache), "--json").out)
    assert doc["certificate"]["sha256"] == capsule.cert.sha256 and doc["certificate"]["changed"] is False


def test_changed_certificate_is_reported(
    run: Run, capsule: GeminiScriptServer, certs: tuple[CertPair, CertPair], tmp_path: Path
) -> None:
    """A server presenting another certificate than the pinned one: fetch says CHANGED and exits 2;
    `cache clear HOST` forgets the pin so the new certificate is trusted on the next use."""
    cache = str(tmp_path / "robots.db")
    port = capsule.port
    assert run("fetch", capsule.url("/robots.txt"), "--cache", cache).code == 0
    capsule.stop()
    other = GeminiScriptServer(certs[1], port).start()
    try:
        other.route("/robots.txt", GeminiScenario(b"20 text/plain\r\n", ROBOTS))
        result = run("fetch", other.url("/robots.txt"), "--cache", cache, "--refresh")
        assert result.code == 2
        assert "CHANGED" in result.out and certs[1].sha256 in result.out and certs[0].sha256 in result.out
        doc = json.loads(run("fetch", other.url("/robots.txt"), "--cache", cache, "--refresh", "--json").out)
        assert doc["certificate"]["changed"] is True
        assert doc["certificate"]["presented_sha256"] == certs[1].sha256
        assert run("cache", "clear", "127.0.0.1", "--cache", cache).code == 0  # every port, pins too
        again = run("fetch", other.url("/robots.txt"), "--cache", cache)
        assert again.code == 0 and f"SHA-256 {certs[1].sha256}" in again.out
    finally:
        other.stop()  # (the fixture stops `capsule` again: a no-op on a stopped server)


def test_gemini_url_uses_the_gemini_profile(run: Run, capsule: GeminiScriptServer, tmp_path: Path) -> None:
    """lint, audit and check of a gemini:// robots.txt use the gemini profile; bare paths join its host."""
    cache = str(tmp_path / "robots.db")
    robots = capsule.url("/robots.txt")
    lint = json.loads(run("lint", robots, "--cache", cache, "--json").out)
    assert "RK120" not in {d["code"] for d in lint["diagnostics"]}  # the preamble applies in Gemini
    audit = json.loads(run("audit", robots, "--cache", cache, "--json").out)
    assert audit["report"]["profile"] == "gemini"
    check = json.loads(
        run("check", robots, "/private/x", "/gemlog/1", "--agent", "MyBot", "--purpose", "indexer",
            "--cache", cache, "--json").out
    )  # fmt: skip
    assert [r["allowed"] for r in check["results"]] == [False, False]
    assert check["source"]["kind"] == "cached"
