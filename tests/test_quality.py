"""The house rules hold for the whole package: mypy --strict and ruff (lint and format) are clean."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PATHS = ["src", "tests", "tools", "benchmarks"]


def _tool(name: str) -> str:
    found = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    if found is None:
        pytest.skip(f"{name} is not installed")
    return found


def _run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=REPO, capture_output=True, text=True, check=False)


def test_ruff_lint_clean() -> None:
    """`ruff check` finds nothing (the rule set and its commented ignores are in pyproject.toml)."""
    result = _run(_tool("ruff"), "check", *PATHS)
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_clean() -> None:
    """`ruff format --check` would change nothing."""
    result = _run(_tool("ruff"), "format", "--check", *PATHS)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.slow
def test_mypy_strict_clean() -> None:
    """`mypy --strict` (configured in pyproject.toml) reports no error in src/robotskit."""
    result = _run(sys.executable, "-m", "mypy", "--no-incremental")
    assert result.returncode == 0, result.stdout + result.stderr
