"""Fixtures for the web tester: the app under Starlette's TestClient, addressed as the loopback page."""

from __future__ import annotations

import warnings
from collections.abc import Iterator

import pytest

pytest.importorskip("starlette", reason="the web extra (starlette, uvicorn) is not installed")

with warnings.catch_warnings():
    # Starlette 1.x prefers httpx2 for its TestClient and warns when it falls back to httpx,
    # which robotskit already depends on; the client works the same with either.
    warnings.filterwarnings("ignore", message=".*httpx2", category=UserWarning)
    from starlette.testclient import TestClient

from robotskit.web import create_app

PAGE = "http://127.0.0.1:8009"


@pytest.fixture
def client() -> Iterator[TestClient]:
    """The app as `robotskit serve` runs it (loopback Host names only), reached at 127.0.0.1:8009."""
    with TestClient(create_app(), base_url=PAGE) as test_client:
        yield test_client
