"""Fixtures for the fetch-policy, cache and client tests: a frozen clock and a flow driver."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import pytest

from robotskit.fetch.testing import FrozenClock, MockFetcher, Script
from robotskit.policy import DEFAULT_POLICY, PolicyConfig, RobotsEntry, fetch_flow, run_flow

Drive = Callable[..., tuple[RobotsEntry, MockFetcher]]


@pytest.fixture
def clock() -> FrozenClock:
    """A clock frozen at 2026-01-01T00:00:00Z."""
    return FrozenClock()


@pytest.fixture
def drive(clock: FrozenClock) -> Drive:
    """Run the sans-IO policy for `url` against scripted responses; return (entry, fetcher)."""

    def run(
        url: str,
        script: Mapping[str, Script],
        *,
        previous: RobotsEntry | None = None,
        config: PolicyConfig | None = None,
    ) -> tuple[RobotsEntry, MockFetcher]:
        fetcher = MockFetcher(script)
        flow = fetch_flow(
            url, clock=clock, previous=previous, user_agent="TestBot/1.0", config=config or DEFAULT_POLICY
        )
        return run_flow(flow, fetcher.fetch), fetcher

    return run
