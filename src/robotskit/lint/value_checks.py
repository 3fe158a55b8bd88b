"""Lint rules RK2xx: directives and their values (keys, user-agent names, patterns, AI preferences, HTML).

Each rule reads one kind of line and says what a crawler would make of it; none compares two
rules (that is `_lint_rules`, RK3xx).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Iterator, Mapping
from functools import lru_cache
from urllib.parse import urlsplit

from robotskit.ai_prefs.lookup import SIGNAL_KEYS, USAGE_LABELS, parse_sf_dictionary
from robotskit.core.extensions import CRAWL_DELAY_KEYS, REQUEST_RATE_KEYS
from robotskit.core.model import Diagnostic, LineKind, Severity
from robotskit.core.profiles import get_profile
from robotskit.lint.context import (
    INFO,
    RULE_KINDS,
    WARN,
    Check,
    Context,
    lines_of,
    records_of,
    token_for,
    tokens_text,
)

__all__ = ["CHECKS"]

# Records robotskit parses and exposes (docs/profiles/README.md, other records).
_KNOWN_RECORDS = frozenset(
    {
        "crawl-delay",
        "request-rate",
        "visit-time",
        "host",
        "clean-param",
        "noindex",
        "content-signal",
        "content-usage",
        "llm-policy",
        "license",
    }
)
# Keys people write expecting an effect no major crawler gives them: key -> (severity, why).
_UNSUPPORTED: Mapping[str, tuple[Severity, str]] = {
    "noindex": (WARN, "Google stopped honouring `noindex` in robots.txt in 2019; use a robots meta tag"),
    "nofollow": (WARN, "`nofollow` is not a robots.txt directive; use a robots meta tag"),
    "noarchive": (WARN, "`noarchive` is not a robots.txt directive; use a robots meta tag"),
    "host": (INFO, "`host` is a Yandex extension; RFC 9309 and Google ignore it"),
    "clean-param": (INFO, "`clean-param` is a Yandex extension; RFC 9309 and Google ignore it"),
    "visit-time": (INFO, "`visit-time` is not in RFC 9309; Google ignores it"),
}
# Other spellings the parser reads as a known record (crawl_delay, requestrate, ...).
_SPELLINGS = {
    key: canonical
    for keys, canonical in ((CRAWL_DELAY_KEYS, "crawl-delay"), (REQUEST_RATE_KEYS, "request-rate"))
    for key in keys
    if key != canonical
}
_ALL_KEYS = sorted({*_KNOWN_RECORDS, *_UNSUPPORTED, "user-agent", "allow", "disallow", "sitemap"})
_SIGNAL_USE = frozenset({"immediate", "reference", "full"})  # Cloudflare's auxiliary `use=`
_HTML_START = (b"<!doctype html", b"<html", b"<head", b"<body", b"<?xml")


def _directives(ctx: Context) -> Iterable[Diagnostic]:
    for line in lines_of(ctx, LineKind.OTHER):
        key = line.key.lower()
        canonical = _SPELLINGS.get(key)
        if canonical is not None:
            # the parser accepts these spellings (core.extensions): say so, do not call it unknown
            yield ctx.on_key(
                "RK111",
                line,
                f"'{line.key}' read as '{canonical}'",
                f"write '{canonical}'; other crawlers may not",
            )
            key = canonical
        if key in _UNSUPPORTED:
            severity, why = _UNSUPPORTED[key]
            yield ctx.on_key("RK202", line, f"'{line.key}' has no effect for most crawlers", why, severity)
        elif key in get_profile(ctx.profile).ignored_records:
            yield ctx.on_key(
                "RK202",
                line,
                f"Google ignores '{line.key}'",
                "set Googlebot's crawl rate in Search Console; other crawlers may honour it",
            )
        elif key not in _KNOWN_RECORDS:
            yield ctx.on_key("RK201", line, f"unknown directive '{line.key}' is ignored", _unknown_hint(key))


@lru_cache(maxsize=4096)
def _unknown_hint(key: str) -> str:
    """The hint for an unknown key: the known key it is closest to, if any (the same keys recur)."""
    close = difflib.get_close_matches(key, _ALL_KEYS, n=1, cutoff=0.75)
    return f"did you mean '{close[0]}'?" if close else "crawlers skip lines they do not know"


_COMPATIBLE = re.compile(r"compatible;\s*([A-Za-z0-9_-]+)", re.IGNORECASE)
_BOT_WORD = re.compile(r"[A-Za-z0-9_-]*(?:bot|spider|crawler|slurp)[A-Za-z0-9_-]*", re.IGNORECASE)


def _meant_token(value: str) -> str | None:
    """The crawler a full user-agent string names (`... (compatible; Googlebot/2.1; ...)` -> Googlebot)."""
    found = _COMPATIBLE.search(value) or _BOT_WORD.search(value)
    return found.group(1 if found.re is _COMPATIBLE else 0) if found else None


def _is_user_agent_string(value: str) -> bool:
    """`Name/1.0 (...)`: a version after the token, or a comment, means a full User-Agent header."""
    token = value.split("/", 1)[0]
    return ("/" in value and bool(token) and " " not in token) or "(" in value


def _user_agents(ctx: Context) -> Iterable[Diagnostic]:
    for line in lines_of(ctx, LineKind.USER_AGENT):
        value = line.value
        rfc, google = token_for("rfc9309", value), token_for("google", value)
        if not rfc and not google:
            yield ctx.on_value(
                "RK121",
                line,
                f"user-agent '{value}' names no usable token",
                "write a product token such as 'MyBot', or '*'",
            )
            continue
        if _is_user_agent_string(value):
            meant = _meant_token(value)
            chosen = token_for(ctx.profile, value) or "(none)"
            yield ctx.on_value(
                "RK123",
                line,
                f"'{value}' is a full user-agent string: this group is for a crawler whose "
                f"product token is '{chosen}'",
                (f"write 'User-agent: {meant}'" if meant else "write the crawler's product token alone")
                + "; User-agent lines take a product token (RFC 9309 2.2.1)",
            )
            continue
        if "*" in value and value.strip() != "*":
            yield ctx.diag(
                "RK204",
                line.number,
                f"user-agent names cannot hold wildcards: {tokens_text(value)}",
                column=line.value_column + value.index("*"),
                length=1,
                hint="write the bare token ('Googlebot'), or '*' alone for every crawler",
            )
        elif rfc != google:
            yield ctx.on_value(
                "RK203",
                line,
                f"'{value}': {tokens_text(value)}",
                "Google's parser keeps letters, '-' and '_' only: use a token of those",
            )
        elif rfc != "*" and rfc != value.strip().lower():
            yield ctx.on_value(
                "RK122", line, f"user-agent '{value}' is read as '{rfc}'", f"write 'User-agent: {rfc}'"
            )


def _patterns(ctx: Context) -> Iterable[Diagnostic]:
    for line in lines_of(ctx, *RULE_KINDS):
        value = line.value
        url = urlsplit(value) if "://" in value else None
        if url is not None and url.scheme and url.netloc:
            path = url.path or "/"
            path += f"?{url.query}" if url.query else ""
            yield ctx.on_value(
                "RK210",
                line,
                f"'{value}' is a URL, but rules match paths: as written it matches no URL's path",
                f"write '{line.key}: {path}' (a robots.txt only governs its own host; RFC 9309 2.2.2)",
            )
        elif value and value[0] not in "/*":
            yield ctx.on_value(
                "RK210",
                line,
                f"pattern '{value}' does not start with '/' or '*'",
                f"write '/{value}'; crawlers disagree on what a bare name means",
            )
        dollar = value.find("$")
        if 0 <= dollar < len(value) - 1:
            yield ctx.diag(
                "RK211",
                line.number,
                "'$' before the end of a pattern is a literal dollar sign, not an end anchor",
                column=line.value_column + dollar,
                length=1,
                hint="only a final '$' anchors (RFC 9309 2.2.3); percent-encode a literal one as %24",
            )


def _members(value: str) -> Iterator[tuple[int, str]]:
    """The comma-separated members of a value, each with its offset in `value`."""
    offset = 0
    for part in value.split(","):
        stripped = part.strip()
        yield offset + (len(part) - len(part.lstrip())), stripped
        offset += len(part) + 1


def _split_path(value: str) -> tuple[int, str]:
    """draft-ietf-aipref-attach 3.2: a value starting with `/` begins with a path ending at whitespace."""
    if not value.startswith("/"):
        return 0, value
    cut = min((i for i in (value.find(" "), value.find("\t")) if i >= 0), default=len(value))
    rest = value[cut:]
    return cut + len(rest) - len(rest.lstrip()), rest.strip()


def _content_signal(ctx: Context) -> Iterable[Diagnostic]:
    for line in records_of(ctx, "content-signal"):
        start, value = _split_path(line.value)
        seen: set[str] = set()
        for offset, member in _members(value):
            key, _, answer = (x.strip().lower() for x in member.partition("="))
            span = (ctx.value_column(line.number, start + offset), len(member))
            allowed = _SIGNAL_USE if key == "use" else {"yes", "no"}
            if not key or answer not in allowed or key in seen:
                problem = "repeated" if key in seen else "not 'name=yes' or 'name=no'"
                yield ctx.diag(
                    "RK220",
                    line.number,
                    f"Content-Signal member '{member}' is {problem}",
                    hint="write e.g. 'Content-Signal: search=yes, ai-train=no'",
                    span=span,
                )
            elif key not in {*SIGNAL_KEYS, "use"}:
                yield ctx.diag(
                    "RK222",
                    line.number,
                    f"Content-Signal key '{key}' is not one of search, ai-input, ai-train",
                    hint="crawlers ignore keys they do not know",
                    span=span,
                )
            seen.add(key)


def _content_usage(ctx: Context) -> Iterable[Diagnostic]:
    for line in records_of(ctx, "content-usage"):
        start, value = _split_path(line.value)
        column = ctx.value_column(line.number, start)
        prefs = parse_sf_dictionary(value) if value else None
        if prefs is None:
            # draft-ietf-aipref-vocab 6.5: a value that is not a Dictionary states no preference at all.
            yield ctx.diag(
                "RK221",
                line.number,
                f"Content-Usage value '{value}' is not a structured-field "
                "dictionary, so it states no preference",
                column=column,
                length=len(value),
                hint="write e.g. 'Content-Usage: train-ai=n' (keys are lower-case)",
            )
            continue
        for key, answer in prefs.items():
            span = (column + max(value.find(key), 0), len(key))
            if answer not in ("tok:y", "tok:n"):
                yield ctx.diag(
                    "RK221",
                    line.number,
                    f"Content-Usage '{key}' is not y or n",
                    span=span,
                    hint="preferences are the tokens y and n: 'train-ai=n'",
                )
            elif key not in USAGE_LABELS:
                yield ctx.diag(
                    "RK222",
                    line.number,
                    f"Content-Usage category '{key}' is not in the AI-preferences vocabulary",
                    hint="known: " + ", ".join(USAGE_LABELS),
                    span=span,
                )


def looks_like_html(body: bytes) -> bool:
    """Does `body` start like an HTML (or XML) page rather than a robots.txt? (An error page served
    as robots.txt: lint's RK230, and the CLI's warning beside a verdict on such a file.)"""
    head = body[:2048].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    return head.startswith(_HTML_START) or b"<html" in head[:1024]


def _html(ctx: Context) -> Iterable[Diagnostic]:
    if looks_like_html(ctx.robots.body):
        yield ctx.diag(
            "RK230",
            1,
            "the body looks like an HTML page, not a robots.txt",
            hint="serve a plain-text robots.txt (or a 404 when there is none): crawlers "
            "read this page's lines as rules and skip the rest",
        )
    media = (ctx.content_type or "").split(";")[0].strip().lower()
    if media == "text/html":
        yield ctx.diag(
            "RK231",
            1,
            "served with Content-Type text/html",
            hint="serve robots.txt as text/plain; some crawlers reject HTML",
        )


CHECKS: tuple[Check, ...] = (_directives, _user_agents, _patterns, _content_signal, _content_usage, _html)
