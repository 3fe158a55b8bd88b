"""The profiles rfc9309, google and gemini.

Kept for its import path; the code lives in `robotskit.core.profiles`.
"""

from robotskit.core.profiles import (
    GEMINI,
    GOOGLE,
    PROFILES,
    RFC9309,
    Profile,
    cached_group_token,
    get_profile,
    group_token,
    group_token_cache,
    profile_for_url,
)

__all__ = [
    "GEMINI",
    "GOOGLE",
    "PROFILES",
    "RFC9309",
    "Profile",
    "cached_group_token",
    "get_profile",
    "group_token",
    "group_token_cache",
    "profile_for_url",
]
