"""Shared test fixtures: where ../shared lives, and its data loaded once."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = (REPO / ".." / "shared").resolve()
CONFORMANCE = SHARED / "conformance"
CORPUS = SHARED / "corpus"


def require_shared() -> Path:
    """Skip the calling test cleanly when ../shared is not beside the checkout."""
    if not SHARED.is_dir():
        pytest.skip(f"shared test data not found at {SHARED}")
    return SHARED


def read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                yield json.loads(line)


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    return require_shared()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests that start a real server are slow too: `pytest -m "not slow"` is the fast inner loop."""
    for item in items:
        if item.get_closest_marker("integration") is not None and item.get_closest_marker("slow") is None:
            item.add_marker(pytest.mark.slow)
