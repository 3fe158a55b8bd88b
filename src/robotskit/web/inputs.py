"""What the JSON endpoints accept: typed requests read from untrusted JSON, and the input limits.

Every field is checked for type and size before any parsing happens, so a bad request becomes
one `InputError` (answered as a 4xx with `{"error": ...}`), never a traceback. The limits keep
one request's work and answer bounded: a robots.txt is cut by parsers at 500 KiB anyway
(RFC 9309 2.5), and a grid of URLs x agents is capped so its answer stays a few megabytes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from robotskit import PROFILES

__all__ = [
    "MAX_AGENTS",
    "MAX_AGENT_CHARS",
    "MAX_BODY_BYTES",
    "MAX_CELLS",
    "MAX_FILE_BYTES",
    "MAX_URLS",
    "MAX_URL_CHARS",
    "PROFILE_NAMES",
    "DecideRequest",
    "ExplainRequest",
    "FetchSiteRequest",
    "InputError",
    "decide_request",
    "explain_request",
    "fetch_request",
    "robots_only",
]

MAX_FILE_BYTES = 512_000  # 500 KiB: what the parser reads (RFC 9309 2.5)
MAX_URLS = 10_000
MAX_AGENTS = 200
MAX_CELLS = 100_000  # URLs x agents in one answer: about 10 MB of JSON and 2 s of work
MAX_URL_CHARS = 8_192
MAX_AGENT_CHARS = 512
# Two files (a diff) plus the longest URL and agent lists, with room for JSON escaping.
MAX_BODY_BYTES = 4 * MAX_FILE_BYTES + MAX_URLS * 256 + MAX_AGENTS * MAX_AGENT_CHARS
PROFILE_NAMES = tuple(PROFILES)  # rfc9309, google, gemini


class InputError(Exception):
    """A request the endpoints refuse; `status` is the HTTP status of the answer (400 or 413)."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


@dataclass(frozen=True, slots=True)
class DecideRequest:
    """The grid to decide: one robots.txt (and, for a diff, the file it replaces)."""

    robots_txt: str
    urls: tuple[str, ...]
    agents: tuple[str, ...]
    profile: str | None
    old_robots_txt: str | None = None


@dataclass(frozen=True, slots=True)
class ExplainRequest:
    """One cell of the grid, to explain."""

    robots_txt: str
    url: str
    agent: str
    profile: str | None


@dataclass(frozen=True, slots=True)
class FetchSiteRequest:
    """A site whose robots.txt to fetch: any URL on it."""

    url: str


def _object(data: object) -> Mapping[str, object]:
    if not isinstance(data, dict):
        raise InputError("the request body must be a JSON object")
    return data


def _file(data: Mapping[str, object], key: str, *, required: bool = True) -> str | None:
    value = data.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str):
        raise InputError(f"{key!r} must be a string holding the robots.txt")
    size = len(value.encode("utf-8", "surrogatepass"))
    if size > MAX_FILE_BYTES:
        raise InputError(
            f"{key!r} is {size:,} bytes; the limit is 500 KiB ({MAX_FILE_BYTES:,} bytes), "
            "as much as a crawler reads (RFC 9309 2.5)",
            413,
        )
    return value


def _strings(data: Mapping[str, object], key: str, limit: int, each: int, noun: str) -> tuple[str, ...]:
    value = data.get(key, [])
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise InputError(f"{key!r} must be a list of strings")
    if len(value) > limit:
        raise InputError(f"{len(value):,} {noun}s; the limit is {limit:,} per request", 413)
    for item in value:
        if len(item) > each:
            raise InputError(f"a {noun} of {len(item):,} characters; the limit is {each:,}", 413)
    return tuple(value)


def _profile(data: Mapping[str, object]) -> str | None:
    value = data.get("profile")
    if value is None or value == "":
        return None
    if value not in PROFILE_NAMES:
        raise InputError(f"unknown profile {value!r}; expected one of {', '.join(PROFILE_NAMES)} or null")
    return str(value)


def _grid(data: Mapping[str, object]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    urls = _strings(data, "urls", MAX_URLS, MAX_URL_CHARS, "URL")
    agents = _strings(data, "agents", MAX_AGENTS, MAX_AGENT_CHARS, "agent")
    if len(urls) * len(agents) > MAX_CELLS:
        raise InputError(
            f"{len(urls):,} URLs x {len(agents):,} agents is {len(urls) * len(agents):,} verdicts; "
            f"the limit is {MAX_CELLS:,} per request: split the URLs into several requests",
            413,
        )
    return urls, agents


def decide_request(body: object, *, diff: bool = False) -> DecideRequest:
    """Read `{"robots_txt", "urls", "agents", "profile"}` (and `old_robots_txt` for a diff)."""
    data = _object(body)
    robots = _file(data, "robots_txt") or ""
    old = _file(data, "old_robots_txt") if diff else None
    urls, agents = _grid(data)
    return DecideRequest(robots, urls, agents, _profile(data), old)


def explain_request(body: object) -> ExplainRequest:
    """Read `{"robots_txt", "url", "agent", "profile"}`."""
    data = _object(body)
    robots = _file(data, "robots_txt") or ""
    url, agent = data.get("url"), data.get("agent")
    if not isinstance(url, str) or not isinstance(agent, str):
        raise InputError("'url' and 'agent' must be strings")
    if len(url) > MAX_URL_CHARS or len(agent) > MAX_AGENT_CHARS:
        raise InputError("the URL or the agent is too long", 413)
    return ExplainRequest(robots, url, agent, _profile(data))


def robots_only(body: object) -> tuple[str, str | None]:
    """Read `{"robots_txt", "profile"}` (the audit)."""
    data = _object(body)
    return _file(data, "robots_txt") or "", _profile(data)


def fetch_request(body: object) -> FetchSiteRequest:
    """Read `{"url"}`: a URL of the site whose robots.txt to fetch."""
    data = _object(body)
    url = data.get("url")
    if not isinstance(url, str) or not url.strip():
        raise InputError("'url' must be the address of a site, e.g. https://example.com/")
    if len(url) > MAX_URL_CHARS:
        raise InputError("the URL is too long", 413)
    return FetchSiteRequest(url.strip())
