"""Agents: product tokens, aliases and Gemini purposes.

Kept for its import path; the code lives in `robotskit.core.agents`.
"""

from robotskit.core.agents import (
    GEMINI_PURPOSES,
    MERGE,
    MOST_RESTRICTIVE,
    Agent,
    as_agent,
    product_token,
)

__all__ = [
    "GEMINI_PURPOSES",
    "MERGE",
    "MOST_RESTRICTIVE",
    "Agent",
    "as_agent",
    "product_token",
]
