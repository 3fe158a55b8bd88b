"""Fixtures that start real servers on 127.0.0.1 (ephemeral ports) and stop them afterwards."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from .servers.certs import CertPair, make_cert
from .servers.ftp_server import FtpServer
from .servers.gemini_server import GeminiScriptServer, JetforceServer
from .servers.http_server import HttpScenarioServer
from .servers.raw_server import RawServer

ROBOTS = b"User-agent: *\nDisallow: /private/\nAllow: /private/open\nCrawl-delay: 2\n"


@pytest.fixture
def raw_servers() -> Iterator[Callable[[RawServer], RawServer]]:
    """Starts each scripted raw server a test passes it; all are stopped after the test."""
    started: list[RawServer] = []

    def start(server: RawServer) -> RawServer:
        started.append(server.start())
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture
def http_server() -> Iterator[HttpScenarioServer]:
    """A scripted HTTP server, fresh for each test."""
    server = HttpScenarioServer().start()
    yield server
    server.stop()


@pytest.fixture
def http_server2() -> Iterator[HttpScenarioServer]:
    """A second HTTP server on another port: another authority, for cross-host redirects."""
    server = HttpScenarioServer().start()
    yield server
    server.stop()


@pytest.fixture
def https_server(cert: CertPair) -> Iterator[HttpScenarioServer]:
    """The scripted HTTP server behind TLS with the self-signed `cert`."""
    server = HttpScenarioServer(tls=cert).start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def cert(tmp_path_factory: pytest.TempPathFactory) -> CertPair:
    """A self-signed certificate for localhost / 127.0.0.1."""
    return make_cert(tmp_path_factory.mktemp("certs"))


@pytest.fixture(scope="session")
def cert2(tmp_path_factory: pytest.TempPathFactory) -> CertPair:
    """Another self-signed certificate, to play a server whose certificate changed."""
    return make_cert(tmp_path_factory.mktemp("certs2"))


@pytest.fixture
def gemini_server(cert: CertPair) -> Iterator[GeminiScriptServer]:
    """A scripted Gemini TLS server (asyncio, its own thread) for odd statuses and misbehaviour."""
    server = GeminiScriptServer(cert).start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def jetforce(tmp_path_factory: pytest.TempPathFactory, cert: CertPair) -> Iterator[JetforceServer]:
    """A real Gemini server (jetforce, a separate process) serving robots.txt from a temp dir."""
    root = tmp_path_factory.mktemp("capsule")
    (root / "robots.txt").write_bytes(ROBOTS)
    (root / "index.gmi").write_text("# hello\n", encoding="utf-8")
    server = JetforceServer(root, cert).start()
    yield server
    server.stop()


@pytest.fixture
def ftp_root(tmp_path: Path) -> Path:
    """The directory the FTP server shares, with a robots.txt in it."""
    root = tmp_path / "ftp"
    root.mkdir()
    (root / "robots.txt").write_bytes(ROBOTS)
    return root


@pytest.fixture
def ftp_server(ftp_root: Path) -> Iterator[FtpServer]:
    """pyftpdlib, anonymous read-only on `ftp_root`."""
    server = FtpServer(ftp_root, anonymous=True).start()
    yield server
    server.stop()


@pytest.fixture
def ftp_refusing(ftp_root: Path) -> Iterator[FtpServer]:
    """pyftpdlib with no anonymous user: anonymous login gets 530."""
    server = FtpServer(ftp_root, anonymous=False).start()
    yield server
    server.stop()
