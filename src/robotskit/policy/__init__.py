"""The sans-IO fetch policy (RFC 9309 section 2.3): a generator flow, outcome classification, TTL,
backoff and stale copies. No sockets here: `robotskit.fetch` holds the adapters.
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from robotskit.policy.flow import (
        DEFAULT_POLICY,
        Flow,
        Outcome,
        PolicyConfig,
        RobotsEntry,
        arun_flow,
        decide,
        fetch_flow,
        format_time,
        parse_max_age,
        parse_retry_after,
        resolve_profile,
        run_flow,
    )

__all__ = [
    "DEFAULT_POLICY",
    "Flow",
    "Outcome",
    "PolicyConfig",
    "RobotsEntry",
    "arun_flow",
    "decide",
    "fetch_flow",
    "format_time",
    "parse_max_age",
    "parse_retry_after",
    "resolve_profile",
    "run_flow",
]
# Loaded on first use (robotskit._lazy): `robotskit.policy.authority` alone must not import the
# flow, which imports it (two threads importing one and the other deadlocked on that cycle).
_LAZY = dict.fromkeys(__all__, "robotskit.policy.flow")

if not TYPE_CHECKING:
    from robotskit._lazy import lazy_names

    __getattr__, __dir__ = lazy_names(__name__, _LAZY, globals())
