"""The CLI against hostile servers, each run in a fresh process under a watchdog.

No traceback and no hang, whatever the server does: `fetch` reports the outcome (exit 2 when
robots.txt could not be read, 0 when there is none, as docs/cli.md's table says), `check`
disallows on "unreachable" (exit 1), and a bad `--timeout` is one usage line (exit 2).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from .servers.gemini_server import GeminiScenario, GeminiScriptServer
from .servers.raw_server import Conn, RawServer, Step, drip, ftp_play, http_play

pytestmark = [pytest.mark.integration, pytest.mark.slow]

SRC = str(Path(__file__).resolve().parents[2] / "src")
WATCHDOG = 60.0  # a hang would hit this; a correct run takes about the --timeout


def _cli(*args: str, tmp: Path) -> tuple[int, str, str, float]:
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp), "NO_COLOR": "1", "PYTHONPATH": SRC}
    start = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "robotskit.cli", *args],
        capture_output=True,
        text=True,
        timeout=WATCHDOG,
        env=env,
        check=False,
    )
    return done.returncode, done.stdout, done.stderr, time.monotonic() - start


def _raw(status_and_headers: bytes, body: bytes = b"") -> list[Step]:
    length = b"Content-Length: " + str(len(body)).encode() + b"\r\n"
    return [(0.0, b"HTTP/1.1 " + status_and_headers + length + b"Connection: close\r\n\r\n" + body)]


HOSTILE: dict[str, list[Step]] = {
    "dripped headers": [(0.0, b"HTTP/1.1 200 OK\r\n"), *drip(b"X-Pad: " + b"a" * 400 + b"\r\n\r\n", 0.05)],
    "dripped status line": drip(b"HTTP/1.1 200 OK" + b" " * 400 + b"\r\n\r\n", 0.05),
    "stacked codings": _raw(b"200 OK\r\nContent-Encoding: " + b"gzip," * 5000 + b"gzip\r\n", b"x"),
    "non-ASCII Retry-After": _raw("503 Busy\r\nRetry-After: \u00b2\r\n".encode()),
    "redirect to data:": _raw(b"301 Moved\r\nLocation: data:text/plain,hi\r\n"),
    "redirect to bad IDN": _raw("301 Moved\r\nLocation: http://\u2603.example/robots.txt\r\n".encode()),
    "redirect to FTP CRLF": _raw(b"301 Moved\r\nLocation: ftp://127.0.0.1:1/a%0d%0aDELE%20b\r\n"),
    "garbage": [(0.0, b"\x00\xff" * 100)],
}


@pytest.fixture
def hostile(request: pytest.FixtureRequest) -> Iterator[RawServer]:
    play: Callable[[Conn], None] = http_play(HOSTILE[request.param])
    server = RawServer(play).start()
    yield server
    server.stop()


@pytest.mark.parametrize("hostile", list(HOSTILE), indirect=True)
def test_cli_fetch_and_check_never_crash(hostile: RawServer, tmp_path: Path) -> None:
    """fetch: a JSON outcome and its documented exit; check: exit 1 (disallowed); no traceback; on time."""
    url = hostile.url("/page")
    code, out, err, elapsed = _cli("fetch", url, "--no-cache", "--timeout", "1", "--json", tmp=tmp_path)
    assert "Traceback" not in err, err
    outcome = json.loads(out)["fetch"]["outcome"]
    assert (outcome, code) in (("unreachable", 2), ("unavailable", 0)), (outcome, code, err)
    assert elapsed < 30
    code, out, err, _ = _cli("check", url, "--agent", "MyBot", "--no-cache", "--timeout", "1", tmp=tmp_path)
    assert "Traceback" not in err and code == 1, err


@pytest.mark.parametrize("value", ["nan", "NaN", "inf", "-inf", "infinity", "0", "-1", "1e400", "soon"])
def test_cli_timeout_must_be_finite_and_positive(value: str, tmp_path: Path) -> None:
    """--timeout nan/inf/0/negative/not a number: exit 2, one usage error line, nothing fetched."""
    code, out, err, _ = _cli("fetch", "http://127.0.0.1:9/", "--timeout", value, tmp=tmp_path)
    assert code == 2 and out == ""
    assert "Traceback" not in err
    assert [line for line in err.splitlines() if "error:" in line] and "--timeout" in err


def test_cli_dripping_ftp_and_gemini_servers(tmp_path: Path, gemini_server: GeminiScriptServer) -> None:
    """FTP dripping its banner and Gemini dripping its header: unreachable (exit 2) on time."""
    ftp = RawServer(ftp_play([drip(b"220 " + b"w" * 200 + b"\r\n", 0.05)])).start()
    gemini = gemini_server.route(
        "/robots.txt", GeminiScenario(b"20 text/plain" + b" " * 400 + b"\r\n", drip=0.05)
    )
    try:
        for url in (ftp.url("/", scheme="ftp"), gemini):
            code, out, err, elapsed = _cli(
                "fetch", url, "--no-cache", "--timeout", "1", "--json", tmp=tmp_path
            )
            assert "Traceback" not in err, err
            assert (json.loads(out)["fetch"]["outcome"], code) == ("unreachable", 2)
            assert elapsed < 30
    finally:
        ftp.stop()
