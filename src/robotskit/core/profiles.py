"""The three profiles as data: SPEC.md section 1's table, and the only home of leniency switches.

Every place where RFC 9309, Google's reference parser and the Gemini companion disagree is a
field here; the parser and matcher read these fields and never test a profile's name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from robotskit.core.lexer import to_text
from robotskit.errors import UnknownProfile

RFC9309 = "rfc9309"
GOOGLE = "google"
GEMINI = "gemini"


@dataclass(frozen=True, slots=True)
class Profile:
    """One column of SPEC.md section 1."""

    name: str
    # URL and pattern normalisation: rfc9309 decodes %xx of unreserved characters on both
    # sides; google only upper-cases %xx and escapes bytes >= 0x80 in patterns.
    normalise_urls: bool
    # RFC 9309 2.2.2: "/robots.txt" is implicitly allowed.
    robots_txt_always_allowed: bool
    # Characters of the product token read from a `user-agent` value in the file.
    group_token: re.Pattern[str]
    # rfc9309: user-agent values are read as UTF-8 text; google: as bytes (ASCII letters only).
    unicode_tokens: bool
    # Google: `* anything` is still the global agent; rfc9309: only `*` alone.
    star_with_trailing_text_is_global: bool
    # rfc9309: the caller's user agent is reduced to its product token; google: compared as given.
    reduce_caller_agent: bool
    # Google: `Allow: /dir/index.html` also allows `/dir/` (as `/dir/$`).
    index_html_allows_directory: bool
    # Gemini companion: rules before the first user-agent line apply to every agent.
    preamble_applies: bool
    # Gemini companion: `*`, every purpose and the bot's own token are each judged alone.
    judge_every_token: bool
    # URL schemes for which this profile is the default when the caller chose none.
    default_for_schemes: frozenset[str] = frozenset()
    # Records this profile's crawler ignores (Google: crawl-delay, request-rate); lint says so.
    ignored_records: frozenset[str] = frozenset()


_C_SPACE = frozenset(" \t\n\v\f\r")  # C isspace(), what Google's check uses
# rfc9309: ASCII letters, digits, '-' and '_'; a non-ASCII letter continues the token rather than
# cutting it (`Jävla-Foobot` must not become `J`, which would capture every agent starting with J).
_RFC_TOKEN = re.compile(r"(?:[A-Za-z0-9_-]|[^\x00-\x7f\s])*")
_GOOGLE_TOKEN = re.compile(r"[A-Za-z_-]*")

_RFC9309_PROFILE = Profile(
    name=RFC9309,
    normalise_urls=True,
    robots_txt_always_allowed=True,
    group_token=_RFC_TOKEN,
    unicode_tokens=True,
    star_with_trailing_text_is_global=False,
    reduce_caller_agent=True,
    index_html_allows_directory=False,
    preamble_applies=False,
    judge_every_token=False,
)

PROFILES: dict[str, Profile] = {
    RFC9309: _RFC9309_PROFILE,
    GOOGLE: Profile(
        name=GOOGLE,
        normalise_urls=False,
        robots_txt_always_allowed=False,
        group_token=_GOOGLE_TOKEN,
        unicode_tokens=False,
        star_with_trailing_text_is_global=True,
        reduce_caller_agent=False,
        index_html_allows_directory=True,
        preamble_applies=False,
        judge_every_token=False,
        # Google's robots.txt documentation: "Google doesn't support the crawl-delay rule".
        ignored_records=frozenset({"crawl-delay", "request-rate"}),
    ),
    # The Gemini companion reads files as RFC 9309 does; only who is judged, and how, differs.
    GEMINI: replace(
        _RFC9309_PROFILE,
        name=GEMINI,
        preamble_applies=True,
        judge_every_token=True,
        default_for_schemes=frozenset({"gemini"}),
    ),
}
_DEFAULT_PROFILE = PROFILES[RFC9309]
# scheme -> the profile chosen for its URLs when the caller chose none (from the fields above)
_BY_SCHEME = {scheme: p for p in PROFILES.values() for scheme in p.default_for_schemes}


def get_profile(name: str) -> Profile:
    """The profile called `name` (case-insensitive); UnknownProfile for anything else."""
    profile = PROFILES.get(name.lower()) if isinstance(name, str) else None
    if profile is None:
        raise UnknownProfile(f"unknown profile {name!r}: expected one of {', '.join(PROFILES)}")
    return profile


def profile_for_url(url: str) -> Profile:
    """The default profile for a URL when the caller chose none: gemini for gemini://, else rfc9309."""
    if url[:9].lower() == "gemini://":  # the one scheme with its own default today: no split needed
        return _BY_SCHEME["gemini"]
    scheme, colon, _ = url.partition(":")
    if colon and _BY_SCHEME and scheme.lower() in _BY_SCHEME:
        return _BY_SCHEME[scheme.lower()]
    return _DEFAULT_PROFILE


def group_token(profile: Profile, value: str) -> str | None:
    """The token a `user-agent` value in the file stands for: `*`, a lower-cased token, or None.

    SPEC 1: the product token is the leading run of the profile's token characters
    (`Googlebot/2.1` -> `googlebot`; Google also cuts at digits, so `AB42bot` -> `ab`).
    None means the value names no agent this profile can match.
    """
    if value == "*":
        return "*"
    if profile.unicode_tokens:
        value = to_text(value)
    if profile.star_with_trailing_text_is_global and value[:1] == "*" and value[1:2] in _C_SPACE:
        return "*"
    match = profile.group_token.match(value)
    token = match.group(0) if match else ""
    if not token and profile.reduce_caller_agent:
        return None  # rfc9309: a value with no product token applies to no one (lint reports it)
    return token.lower()


# A file names few distinct agents and the same ones recur across files (`*`, `Googlebot`,
# `Bingbot`...): each profile remembers the token of every value it has read, so building a
# view costs a dict lookup per user-agent line instead of a regex match. Bounded (values come
# from strangers); two threads racing store equal tokens.
_MAX_CACHED_TOKENS = 8192
# Keyed by the profile's identity (hashing a frozen dataclass hashes every field: slower than
# the token lookups it serves); the entry keeps the profile alive, so its id is never reused.
_TOKEN_CACHES: dict[int, tuple[Profile, dict[str, str | None]]] = {}
_MAX_PROFILES = 64


def group_token_cache(profile: Profile) -> dict[str, str | None]:
    """The profile's memo of `group_token`: fill it with `cached_group_token`, read it directly."""
    entry = _TOKEN_CACHES.get(id(profile))
    if entry is None:
        if len(_TOKEN_CACHES) >= _MAX_PROFILES:  # bounded: callers may build profiles of their own
            _TOKEN_CACHES.clear()
        entry = _TOKEN_CACHES[id(profile)] = (profile, {})
    return entry[1]


def cached_group_token(profile: Profile, cache: dict[str, str | None], value: str) -> str | None:
    """`group_token(profile, value)`, remembered in `cache` (from `group_token_cache(profile)`)."""
    token = group_token(profile, value)
    if len(cache) >= _MAX_CACHED_TOKENS:
        cache.clear()
    cache[value] = token
    return token
