"""What one fetch response means: everything that reads a status, a header or a META lives here.

The other half of the fetch policy (robotskit.policy). Each function looks at one
`FetchResponse` in isolation and says which RFC 9309 2.3.1 outcome it is, or that it is a
redirect; chaining redirects, TTLs, backoff and stale copies are policy.py's job. Pure
functions of the response and, for Retry-After dates, an injected `now`: no I/O here.

    HTTP      2xx ok; 3xx redirect; 4xx but 429 unavailable; 5xx, 429, anything else unreachable
    Gemini    2x ok; 3x redirect; 1x 5x 6x unavailable; 4x (44 with its wait), invalid unreachable
    FTP       2yz ok; 5yz and "no such file" unavailable; 4yz, anything else unreachable
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from datetime import UTC
from email.utils import parsedate_to_datetime
from urllib.parse import urljoin, urlsplit

from robotskit.policy.authority import canonical_url
from robotskit.policy.messages import FetchResponse

__all__ = [
    "Outcome",
    "Verdict",
    "classify",
    "content_type_of",
    "parse_max_age",
    "parse_retry_after",
    "protocol_of",
    "resolve",
]


class Outcome(enum.StrEnum):
    """RFC 9309 2.3.1: what fetching robots.txt established. Compares equal to its value."""

    OK = "ok"  # 2.3.1.1: a file was read; its rules apply
    UNAVAILABLE = "unavailable"  # 2.3.1.3: no file (e.g. 404); everything is allowed
    UNREACHABLE = "unreachable"  # 2.3.1.4: no answer (e.g. 503); everything is disallowed


@dataclass(frozen=True, slots=True)
class Verdict:
    """What one response means, before redirects and history are taken into account."""

    outcome: Outcome | None  # None: a redirect to `location`
    reason: str
    location: str | None = None
    retry_after: float | None = None
    note: str = ""


def parse_max_age(cache_control: str) -> float | None:
    """The `max-age` of a Cache-Control header in seconds (RFC 9111 5.2.2.1), else None.

    `no-cache` and `no-store` count as max-age 0 (then clamped up to the 1-hour floor).
    """
    for directive in cache_control.split(","):
        name, _, value = directive.strip().partition("=")
        name = name.strip().lower()
        if name in ("no-cache", "no-store"):
            return 0.0
        if name == "max-age":
            value = value.strip().strip('"')
            if value.isdigit():
                return float(value)
    return None


def parse_retry_after(value: str, now: float) -> float | None:
    """Seconds to wait from a Retry-After value: delay-seconds or an HTTP-date (RFC 9110 10.2.3)."""
    value = value.strip()
    if not value:
        return None
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:  # RFC 9110 5.6.7: HTTP-dates are GMT
        when = when.replace(tzinfo=UTC)
    return max(0.0, when.timestamp() - now)


def content_type_of(response: FetchResponse) -> str:
    """The media type a file was served as: HTTP Content-Type, Gemini 2x META, else "".

    Kept whole (parameters such as `charset` included); readers split on ";" themselves.
    """
    if response.protocol == "gemini":
        # Gemini: META of a 2x success is the MIME type; clients read any 2x as 20.
        return response.meta.strip() if 20 <= response.status <= 29 else ""
    if response.protocol == "ftp":
        return ""  # FTP carries no media type
    return response.headers.get("content-type", "").strip()


def protocol_of(url: str) -> str:
    """The `FetchResponse.protocol` a URL is fetched with ("http" for https too)."""
    scheme = urlsplit(url).scheme.lower()
    return "http" if scheme in ("http", "https") else scheme


def resolve(base: str, reference: str) -> str | None:
    """Resolve a redirect target against the URL that answered; None if unusable."""
    reference = reference.strip()
    if not reference:
        return None
    try:
        scheme = urlsplit(base).scheme.lower()
        if scheme == "gemini" and not urlsplit(reference).scheme:
            # urllib knows nothing of gemini://; RFC 3986 resolution is scheme-blind, so borrow http's.
            joined = urljoin("http" + base[len(scheme) :], reference)
            target = "gemini" + joined[len("http") :]
        else:
            target = urljoin(base, reference)
        # The host requested is the host the key names (one spelling: IDNA 2008, IPv4 ...).
        return canonical_url(target)
    except ValueError:  # InvalidURL, and urllib's own (unbalanced IPv6 brackets)
        return None


_HTTP_REDIRECTS = frozenset({301, 302, 303, 307, 308})


def _classify_http(response: FetchResponse, now: float) -> Verdict:
    status, reason = response.status, f"HTTP {response.status}"
    if 200 <= status < 300:
        return Verdict(Outcome.OK, reason)  # RFC 9309 2.3.1.1: any MIME type
    if 300 <= status < 400:
        location = response.headers.get("location", "")
        if status in _HTTP_REDIRECTS or location:
            # RFC 9309 2.3.1.2; a 3xx without a usable Location is a bad response (below).
            return Verdict(None, reason, location=location)
    if status == 429 or 500 <= status < 600:
        # RFC 9309 2.3.1.4 (5xx); 429 is "slow down", treated as a server error as Google does.
        header = response.headers.get("retry-after", "")
        return Verdict(Outcome.UNREACHABLE, reason, retry_after=parse_retry_after(header, now))
    if 400 <= status < 500:
        return Verdict(Outcome.UNAVAILABLE, reason)  # RFC 9309 2.3.1.3, 401 and 403 included
    # 1xx as a final answer, 3xx without Location, codes outside 100..599: SPEC.md 6 "bad responses".
    return Verdict(Outcome.UNREACHABLE, reason, note=f"unexpected HTTP status {status}")


_GEMINI_TEXT = ("text/gemini", "text/plain")
_DIGITS = re.compile(r"\d+")


def _classify_gemini(response: FetchResponse) -> Verdict:
    status, reason = response.status, f"Gemini {response.status:02d}"
    # Gemini spec: clients act on the first digit when they do not know the second.
    kind = status // 10 if 10 <= status <= 69 else 0
    if kind == 2:
        mime = response.meta.split(";", 1)[0].strip().lower()
        note = ""
        if mime not in _GEMINI_TEXT:  # SPEC.md 6: other types are parsed, with a note
            note = f"MIME type {mime or '(none)'} is not text/gemini or text/plain: parsed anyway"
        return Verdict(Outcome.OK, reason, note=note)
    if kind == 3:
        return Verdict(None, reason, location=response.meta)
    if kind == 4:
        # 44 SLOW DOWN: META is the number of seconds to wait.
        meta = response.meta.strip()
        wait = float(meta) if status == 44 and _DIGITS.fullmatch(meta) else None
        return Verdict(Outcome.UNREACHABLE, reason, retry_after=wait)
    if kind in (1, 5, 6):
        # SPEC.md 6: input prompts, permanent failures (51 not found) and certificate requests
        # all mean "no robots.txt to read here", the analogue of an HTTP 4xx.
        return Verdict(Outcome.UNAVAILABLE, reason)
    return Verdict(Outcome.UNREACHABLE, reason, note=f"invalid Gemini status {status}")


_NO_SUCH_FILE = re.compile(r"no such file|not found|does not exist|file unavailable", re.IGNORECASE)


def _classify_ftp(response: FetchResponse) -> Verdict:
    status, reason = response.status, f"FTP {response.status}"
    kind = status // 100 if 100 <= status <= 599 else 0
    if kind == 2:
        return Verdict(Outcome.OK, reason)  # 226/250: the file was read
    if kind == 5:
        # RFC 959 4.2: 5yz is a *permanent* negative reply: 550 (no such file or no access),
        # 553, and 530 (anonymous login refused). RFC 9309 2.3.1.3 counts "unavailable to
        # the crawler" (its HTTP example includes 401/403) as unavailable: allow all. A refused
        # login is that case: the server's content is closed to us, so allowing everything
        # grants access to nothing, while disallowing would retry forever for no gain.
        return Verdict(Outcome.UNAVAILABLE, reason)
    if kind == 4:
        if _NO_SUCH_FILE.search(response.meta):
            # Some servers answer a missing file with 450: the text, not the class, says "no file".
            return Verdict(Outcome.UNAVAILABLE, reason, note=f"FTP {status} says no such file")
        # RFC 959 4.2: 4yz is transient (421 service not available, 450 busy): try again later.
        return Verdict(Outcome.UNREACHABLE, reason)
    return Verdict(Outcome.UNREACHABLE, reason, note=f"unexpected FTP reply {status}")


def classify(response: FetchResponse, now: float) -> Verdict:
    """The verdict on one response, by its protocol (SPEC.md 6 table, one row per branch)."""
    if response.protocol == "gemini":
        return _classify_gemini(response)
    if response.protocol == "ftp":
        return _classify_ftp(response)
    return _classify_http(response, now)
