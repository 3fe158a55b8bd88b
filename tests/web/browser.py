"""Headless Debian Chromium driven by Playwright, and `robotskit serve` started for it on 127.0.0.1.

Playwright's own browser download cannot run here; it drives the system browser through
`executable_path`. The flags are those Chromium needs as root in a closed network: no sandbox,
no GPU, and none of its background connections (update checks, sync, QUIC probes).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import Browser

SRC = Path(__file__).resolve().parents[2] / "src"
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_path() -> str | None:
    """The system Chromium ($ROBOTSKIT_CHROMIUM, else chromium on PATH, else /usr/bin/chromium)."""
    for candidate in (os.environ.get("ROBOTSKIT_CHROMIUM"), shutil.which("chromium"), "/usr/bin/chromium"):
        if candidate and Path(candidate).is_file():
            return candidate
    return None


@contextmanager
def served() -> Iterator[str]:
    """Run `robotskit serve --port 0 --no-cache` from this checkout; yields the printed page address."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(SRC), os.environ.get("PYTHONPATH")])),
    }
    code = (
        "import sys\nfrom robotskit.cli import main\nsys.exit(main(['serve', '--port', '0', '--no-cache']))"
    )
    with subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, env=env) as proc:
        try:
            assert proc.stdout is not None
            line = proc.stdout.readline()
            found = re.search(r"http://127\.0\.0\.1:\d+/", line)
            if found is None:
                raise RuntimeError(f"robotskit serve printed no address: {line!r}")
            yield found.group(0)
        finally:
            proc.terminate()
            proc.wait(timeout=10)


@contextmanager
def browser(executable: str) -> Iterator[Browser]:
    """Chromium, closed afterwards. Playwright gives every launch a new, empty profile directory."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as play:
        launched = play.chromium.launch(executable_path=executable, args=CHROMIUM_FLAGS)
        try:
            yield launched
        finally:
            launched.close()
