"""What every cache backend shares: the `Cache` protocol and an entry's (de)serialisation.

A cache keeps whole `RobotsEntry` values (body, fetch time, outcome, status, expiry,
redirects, reason, content type, and the last good copy's time) so the decision that governed
a fetch can be reproduced. Entries are kept past `expires_at`: an expired entry still carries
the last good copy that RFC 9309 2.3.1.4 lets stand in for 30 days while the server is
unreachable.

Stored data is read as hostile: a field of the wrong type, a body that is not strict base64 or
an unknown outcome makes the whole entry unreadable (`CacheError` from `entry_from_dict`), and
the backends treat an unreadable entry as a miss, logged once per read, so it is fetched again
rather than guessed at (a garbled body must never read as "no rules, allow everything").
"""

from __future__ import annotations

import base64
import binascii
import logging
import math
from typing import Any, Protocol, runtime_checkable

from robotskit.errors import CacheError
from robotskit.policy.flow import Outcome, RobotsEntry

__all__ = ["Cache", "entry_from_dict", "entry_to_dict", "log", "unreadable"]

log = logging.getLogger("robotskit.cache")


@runtime_checkable
class Cache(Protocol):
    """A store of `RobotsEntry` values keyed by authority (`robotskit.authority_key`)."""

    def get(self, authority: str) -> RobotsEntry | None: ...

    def put(self, entry: RobotsEntry) -> None: ...

    def delete(self, authority: str) -> None: ...

    def clear(self) -> None: ...

    def close(self) -> None: ...


# --- serialisation ------------------------------------------------------------------------

_SCALARS = (
    "authority",
    "robots_url",
    "status",
    "protocol",
    "fetched_at",
    "expires_at",
    "size",
    "truncated",
    "reason",
    "stale",
    "retry_after",
    "good_at",
    "outage_since",
    "failures",
    # Added after the first release: `entry_from_fields` gives an older entry (a Redis JSON
    # string, an SQLite row's meta) that lacks it a default. Adding one needs no schema
    # migration: SQLite keeps every non-column field in the `meta` JSON.
    "content_type",
)
_VERSION = 1


def entry_to_dict(entry: RobotsEntry) -> dict[str, Any]:
    """A JSON-ready dict of an entry (body as base64)."""
    data: dict[str, Any] = {name: getattr(entry, name) for name in _SCALARS}
    data["outcome"] = entry.outcome.value
    data["redirects"] = list(entry.redirects)
    data["notes"] = list(entry.notes)
    data["body"] = base64.b64encode(entry.body).decode("ascii")
    data["v"] = _VERSION
    return data


def _text(value: object, name: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} is {type(value).__name__}, not text")
    return value


def _time(value: object, name: str) -> float:
    # bool is an int subclass: `true` is no time
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise TypeError(f"{name} is {value!r}, not a finite number")
    return float(value)


def _optional_time(value: object, name: str) -> float | None:
    return None if value is None else _time(value, name)


def _count(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise TypeError(f"{name} is {value!r}, not a count")
    return value


def _flag(value: object, name: str) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{name} is {value!r}, not true or false")
    return value


def _texts(value: object, name: str) -> tuple[str, ...]:
    if not isinstance(value, list | tuple):
        raise TypeError(f"{name} is {type(value).__name__}, not a list")
    return tuple(_text(item, name) for item in value)


def _status(value: object) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"status is {value!r}, not a number")
    return value


def body_from_base64(value: object) -> bytes:
    """Strict base64 (RFC 4648 alphabet and padding only): anything else is unreadable."""
    try:
        return base64.b64decode(_text(value, "body"), validate=True)
    except binascii.Error as exc:
        raise ValueError(f"body is not base64: {exc}") from exc


def _fields(data: object) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise TypeError(f"an entry is a JSON object, not {type(data).__name__}")
    version = data.get("v", _VERSION)
    if version != _VERSION:
        raise ValueError(f"unknown entry version {version!r}")
    return data


def entry_from_fields(data: object, body: bytes) -> RobotsEntry:
    """An entry from its stored fields and body; `CacheError` when any field is missing or mistyped."""
    try:
        data = _fields(data)
        return RobotsEntry(
            authority=_text(data["authority"], "authority"),
            robots_url=_text(data["robots_url"], "robots_url"),
            outcome=Outcome(data["outcome"]),
            status=_status(data["status"]),
            protocol=_text(data["protocol"], "protocol"),
            body=body,
            fetched_at=_time(data["fetched_at"], "fetched_at"),
            expires_at=_time(data["expires_at"], "expires_at"),
            redirects=_texts(data["redirects"], "redirects"),
            size=_count(data["size"], "size"),
            truncated=_flag(data["truncated"], "truncated"),
            reason=_text(data["reason"], "reason"),
            stale=_flag(data["stale"], "stale"),
            retry_after=_optional_time(data["retry_after"], "retry_after"),
            good_at=_optional_time(data["good_at"], "good_at"),
            outage_since=_optional_time(data["outage_since"], "outage_since"),
            failures=_count(data["failures"], "failures"),
            notes=_texts(data["notes"], "notes"),
            # added after the first release: an older entry lacks it
            content_type=_text(data.get("content_type", ""), "content_type"),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise CacheError(f"unreadable cache entry: {exc!r}") from exc


def entry_from_dict(data: dict[str, Any]) -> RobotsEntry:
    """The inverse of `entry_to_dict`; `CacheError` for anything it did not write."""
    try:
        body = body_from_base64(data["body"]) if isinstance(data, dict) else b""
    except (KeyError, TypeError, ValueError) as exc:
        raise CacheError(f"unreadable cache entry: {exc!r}") from exc
    return entry_from_fields(data, body)


def unreadable(backend: str, authority: str, exc: BaseException) -> None:
    """Log an entry that cannot be read; the caller then treats it as a miss and refetches."""
    log.warning("%s cache: unreadable entry for %s treated as a miss (%s)", backend, authority, exc)
