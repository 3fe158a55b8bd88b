"""`RobotsTxt`, the public parsed file, and `parse`, the entry point of the library.

`RobotsTxt` is the core's `ParsedRobots` (bytes to verdicts) plus the AI-preference accessors
(Content-Signal, Content-Usage), which read the same groups and records in the layer above
the core. Immutable, thread-safe and picklable, like its base.
"""

from __future__ import annotations

from robotskit.ai_prefs.lookup import ContentSignal, ContentUsage, content_signal, content_usage
from robotskit.core.lexer import DEFAULT_MAX_BYTES
from robotskit.core.robots import AgentLike, ParsedRobots, check_types

__all__ = ["AgentLike", "RobotsTxt", "parse"]


class RobotsTxt(ParsedRobots):
    """A parsed robots.txt. Build it with `robotskit.parse`; never raises on content."""

    __slots__ = ()

    def content_signal(self, agent: AgentLike = None) -> ContentSignal | None:
        """Cloudflare Content-Signal preferences that apply to `agent` (see robotskit.ai_prefs)."""
        check_types("/", agent)
        return content_signal(self, agent)

    def content_usage(self, url: str, agent: AgentLike = None) -> ContentUsage | None:
        """IETF AI-preferences Content-Usage that applies to `url` for `agent` (see robotskit.ai_prefs)."""
        check_types(url, agent)
        return content_usage(self, url, agent)


def parse(
    data: bytes | str,
    profile: str | None = None,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    robots_url: str | None = None,
) -> RobotsTxt:
    """Parse a robots.txt body. Never raises on content.

    `profile`: "rfc9309", "google", "gemini", or None to choose per URL at decision time
    (gemini for gemini:// URLs, rfc9309 otherwise). `max_bytes`: how much to read (at least
    500 KiB). `robots_url`: where the file came from, to resolve relative sitemap URLs.
    """
    if profile is not None and not isinstance(profile, str):
        raise TypeError(f"profile must be a str or None, not {type(profile).__name__}")
    if type(max_bytes) is not int and (not isinstance(max_bytes, int) or isinstance(max_bytes, bool)):
        raise TypeError(f"max_bytes must be an int, not {type(max_bytes).__name__}")
    if robots_url is not None and not isinstance(robots_url, str):
        raise TypeError(f"robots_url must be a str or None, not {type(robots_url).__name__}")
    return RobotsTxt(data, profile, max_bytes=max_bytes, robots_url=robots_url)
