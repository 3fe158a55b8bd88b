"""The sans-IO fetch policy (RFC 9309 section 2.3): a generator flow, outcome classification, TTL,
backoff and stale copies. No sockets here: `robotskit.fetch` holds the adapters.
"""

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
