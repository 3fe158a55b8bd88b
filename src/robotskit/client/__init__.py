"""RobotsClient and AsyncRobotsClient: the one place that joins the policy, a cache and the fetchers."""

from robotskit.client.clients import (
    AsyncRobotsClient,
    RobotsClient,
)

__all__ = [
    "AsyncRobotsClient",
    "RobotsClient",
]
