"""`robotskit serve`: prints the address it listens on, answers, warns beyond loopback, names the extra."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from robotskit.web.server import is_loopback, page_url

SRC = Path(__file__).resolve().parents[2] / "src"
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(SRC), os.environ.get("PYTHONPATH")]))}


def _robotskit(*args: str, prelude: str = "") -> list[str]:
    code = f"{prelude}import sys\nfrom robotskit.cli import main\nsys.exit(main({list(args)!r}))"
    return [sys.executable, "-c", code]


@pytest.mark.integration
@pytest.mark.slow
def test_serve_prints_its_address_and_answers() -> None:
    """`serve --port 0` prints http://127.0.0.1:PORT/ once listening; the page answers at once."""
    with subprocess.Popen(
        _robotskit("serve", "--port", "0", "--no-cache"), stdout=subprocess.PIPE, text=True, env=ENV
    ) as proc:
        _check_address(proc)


def _check_address(proc: subprocess.Popen[str]) -> None:
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        found = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert found, line
        assert int(found.group(1)) > 0
        with urllib.request.urlopen(found.group(0), timeout=5) as response:
            assert response.status == 200
            assert b'id="robots"' in response.read()
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_serve_without_the_web_extra_names_it() -> None:
    """Without Starlette and uvicorn, `serve` says which extra to install and exits 2."""
    blocked = "import sys\nsys.modules['starlette'] = None\nsys.modules['uvicorn'] = None\n"
    result = subprocess.run(
        _robotskit("serve", prelude=blocked), capture_output=True, text=True, env=ENV, timeout=60, check=False
    )
    assert result.returncode == 2
    assert "pip install 'robotskit[web]'" in result.stderr


def test_a_taken_port_is_an_error_not_a_traceback() -> None:
    """A port already in use is reported on stderr with exit status 2."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = str(taken.getsockname()[1])
        result = subprocess.run(
            _robotskit("serve", "--port", port),
            capture_output=True,
            text=True,
            env=ENV,
            timeout=60,
            check=False,
        )
    assert result.returncode == 2
    assert "cannot listen on 127.0.0.1" in result.stderr
    assert "Traceback" not in result.stderr


def test_binding_beyond_loopback_warns_first() -> None:
    """A non-loopback --host gets a warning before binding (192.0.2.1 is a documentation address: the bind fails)."""
    result = subprocess.run(
        _robotskit("serve", "--host", "192.0.2.1", "--port", "0"),
        capture_output=True,
        text=True,
        env=ENV,
        timeout=60,
        check=False,
    )
    assert "warning: binding to 192.0.2.1" in result.stderr
    assert result.returncode == 2


def test_loopback_names_and_page_addresses() -> None:
    """localhost, 127/8 and ::1 are loopback; IPv6 addresses are bracketed; wildcards show as loopback."""
    assert all(is_loopback(h) for h in ("localhost", "127.0.0.1", "127.1.2.3", "::1", "[::1]"))
    assert not any(is_loopback(h) for h in ("0.0.0.0", "::", "192.168.1.2", "example.com"))
    assert page_url("::1", 8009) == "http://[::1]:8009/"
    assert page_url("0.0.0.0", 80) == "http://127.0.0.1:80/"
    assert page_url("127.0.0.1", 8009) == "http://127.0.0.1:8009/"


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--port", "70000"], "not a port"),
        (["--port", "-1"], "not a port"),
        (["--timeout", "0"], "positive number of seconds"),
        (["--timeout", "nan"], "positive number of seconds"),
    ],
)
def test_bad_options_are_usage_errors(
    argv: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Out-of-range ports and timeouts exit 2 with the reason, before anything is bound."""
    from robotskit.cli import main

    assert main(["serve", *argv]) == 2
    assert words in capsys.readouterr().err
