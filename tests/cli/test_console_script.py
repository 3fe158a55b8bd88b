"""The installed `robotskit` console script runs and keeps the exit-code contract."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import EXAMPLE, REPO


def _script() -> str:
    found = shutil.which("robotskit") or str(Path(sys.executable).parent / "robotskit")
    candidates = [found, str(REPO / ".venv" / "bin" / "robotskit")]
    for candidate in candidates:
        if Path(candidate).is_file():
            return candidate
    pytest.skip("the robotskit console script is not installed")
    raise AssertionError  # unreachable: skip raises


def test_console_script_check(tmp_path: Path) -> None:
    """`robotskit check examples/robots.txt URL --agent MyBot --json` exits 1 with a JSON verdict."""
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path), "NO_COLOR": "1"}
    done = subprocess.run(
        [
            _script(),
            "check",
            str(EXAMPLE),
            "https://www.example.com/private/report.pdf",
            "--agent",
            "MyBot",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    assert json.loads(done.stdout)["results"][0]["rule"]["line"] == 5
