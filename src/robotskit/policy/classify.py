"""What one fetch response means: everything that reads a status, a header or a META lives here.

The other half of the fetch policy (robotskit.policy). Each function looks at one
`FetchResponse` in isolation and says which RFC 9309 2.3.1 outcome it is, or that it is a
redirect; chaining redirects, TTLs, backoff and stale copies are policy.py's job. Pure
functions of the response and, for Retry-After dates, an injected `now`: no I/O here.

    HTTP      2xx ok; 3xx redirect; 4xx but 429 unavailable; 5xx, 429, anything else unreachable
    Gemini    2x ok; 3x redirect; 1x 5x 6x unavailable; 4x (44 with its wait), invalid unreachable
    FTP       2yz ok; 5yz unavailable; 4yz (transient, whatever its text), anything else unreachable

Every number a server writes (Retry-After, max-age, the Gemini 44 wait) is read as ASCII digits
only: `str.isdigit()` and a `\\d` pattern also accept superscripts and other scripts' digits, which
`float()` then rejects or reads as a number the server never meant.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from datetime import UTC
from email.utils import parsedate_to_datetime
from urllib.parse import unquote, urljoin, urlsplit

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
    "redirect_target",
    "resolve",
]

_ASCII_DIGITS = re.compile(r"[0-9]+")
_GEMINI_MAX_URL_BYTES = 1024  # Gemini specification 2: a request is at most 1024 bytes of URL


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
            if _ASCII_DIGITS.fullmatch(value):
                return float(value)
    return None


def parse_retry_after(value: str, now: float) -> float | None:
    """Seconds to wait from a Retry-After value: delay-seconds or an HTTP-date (RFC 9110 10.2.3)."""
    value = value.strip()
    if not value:
        return None
    if _ASCII_DIGITS.fullmatch(value):
        return float(value)
    if not value.isascii():
        return None  # an HTTP-date is ASCII (RFC 9110 5.6.7)
    try:
        when = parsedate_to_datetime(value)
        if when.tzinfo is None:  # RFC 9110 5.6.7: HTTP-dates are GMT
            when = when.replace(tzinfo=UTC)
        return max(0.0, when.timestamp() - now)
    except (TypeError, ValueError, IndexError, OverflowError, OSError):
        return None  # not a date, or a year no clock can hold


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


def redirect_target(base: str, reference: str) -> tuple[str | None, str]:
    """A redirect's `Location` resolved against the URL that answered: (target, "") or (None, why).

    The target loses its fragment and any userinfo (`user:password@`): credentials are never
    sent to a redirect target, whoever wrote them. It must name an authority robotskit fetches
    (http, https, ftp, gemini with a host and a valid port), an FTP path without a line break
    (it would become a second FTP command) and a Gemini URL of at most 1024 bytes.
    """
    reference = reference.strip()
    if not reference:
        return None, "redirect without a Location"
    scheme = urlsplit(base).scheme.lower()
    try:
        if scheme == "gemini" and not urlsplit(reference).scheme:
            # urllib knows nothing of gemini://; RFC 3986 resolution is scheme-blind, so borrow http's.
            joined = urljoin("http" + base[len(scheme) :], reference)
            target = "gemini" + joined[len("http") :]
        else:
            target = urljoin(base, reference)
        # The host requested is the host the key names (one spelling: IDNA 2008, IPv4 ...);
        # userinfo and fragment are dropped: credentials never reach a redirect target.
        target = canonical_url(target)  # a supported scheme, a host, a port in 0..65535
        parts = urlsplit(target)
    except ValueError as exc:  # InvalidURL, and urllib's own (unbalanced IPv6 brackets)
        return None, f"redirect to an unusable target: {exc}"
    target_scheme = parts.scheme.lower()
    if target_scheme == "ftp" and any(c in unquote(parts.path) for c in "\r\n"):
        return None, "redirect to an FTP path with a line break"
    if target_scheme == "gemini" and len(target.encode("utf-8")) > _GEMINI_MAX_URL_BYTES:
        return None, f"redirect to a Gemini URL over {_GEMINI_MAX_URL_BYTES} bytes"
    return target, ""


def resolve(base: str, reference: str) -> str | None:
    """Resolve a redirect target against the URL that answered; None if unusable (see `redirect_target`)."""
    return redirect_target(base, reference)[0]


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
        wait = float(meta) if status == 44 and _ASCII_DIGITS.fullmatch(meta) else None
        return Verdict(Outcome.UNREACHABLE, reason, retry_after=wait)
    if kind in (1, 5, 6):
        # SPEC.md 6: input prompts, permanent failures (51 not found) and certificate requests
        # all mean "no robots.txt to read here", the analogue of an HTTP 4xx.
        return Verdict(Outcome.UNAVAILABLE, reason)
    return Verdict(Outcome.UNREACHABLE, reason, note=f"invalid Gemini status {status}")


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
        # RFC 959 4.2: 4yz is transient (421 service not available, 450 busy, 451 aborted),
        # whatever its text says: a busy server that writes "file unavailable" must not turn
        # into "no robots.txt, allow everything for a day". Try again later.
        return Verdict(Outcome.UNREACHABLE, reason)
    return Verdict(Outcome.UNREACHABLE, reason, note=f"unexpected FTP reply {status}")


def classify(response: FetchResponse, now: float) -> Verdict:
    """The verdict on one response, by its protocol (SPEC.md 6 table, one row per branch)."""
    if response.protocol == "gemini":
        return _classify_gemini(response)
    if response.protocol == "ftp":
        return _classify_ftp(response)
    return _classify_http(response, now)
