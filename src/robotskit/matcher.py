"""The matcher: groups and a URL to a Decision.

Kept for its import path; the code lives in `robotskit.core.matcher`.
"""

from robotskit.core.matcher import (
    PREAMBLE_LABEL,
    REASON_ALLOW,
    REASON_DISALLOW,
    REASON_NO_GROUP,
    REASON_NO_RULE,
    REASON_ROBOTS_TXT,
    Judgement,
    Plan,
    View,
    decide,
    match_path,
)

__all__ = [
    "PREAMBLE_LABEL",
    "REASON_ALLOW",
    "REASON_DISALLOW",
    "REASON_NO_GROUP",
    "REASON_NO_RULE",
    "REASON_ROBOTS_TXT",
    "Judgement",
    "Plan",
    "View",
    "decide",
    "match_path",
]
