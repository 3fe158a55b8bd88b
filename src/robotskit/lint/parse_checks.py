"""Lint rules RK1xx: the parser's diagnostics, re-derived from the lexer's per-line metadata.

The parser reports these itself; deriving them again here keeps `lint` complete if the parser
omits one. `robotskit.lint` drops a re-derived one when the parser already reported the same
code on the same line.
"""

from __future__ import annotations

from collections.abc import Iterable

from robotskit.core.extensions import (
    CRAWL_DELAY_KEYS,
    REQUEST_RATE_KEYS,
    crawl_delay_leftover,
    parse_crawl_delay,
    parse_request_rate,
)
from robotskit.core.model import Diagnostic, Line, LineKind
from robotskit.core.profiles import get_profile
from robotskit.lint.context import RULE_KINDS, Check, Context, lines_of

__all__ = ["CHECKS"]

_SIZE_LIMIT = 512_000  # RFC 9309 2.5: the first 500 KiB are parsed
_TYPO_KEYS = {
    LineKind.USER_AGENT: "user-agent",
    LineKind.ALLOW: "allow",
    LineKind.DISALLOW: "disallow",
    LineKind.SITEMAP: "sitemap",
}


def _byte_order_mark(ctx: Context) -> Iterable[Diagnostic]:
    body = ctx.robots.body
    if (
        body.startswith(b"\xef\xbb\xbf")
        or body in (b"\xef", b"\xef\xbb")
        or (
            (body[:1] == b"\xef" and body[1:2] != b"\xbb")
            or (body[:2] == b"\xef\xbb" and body[2:3] != b"\xbf")
        )
    ):
        yield ctx.diag("RK101", 1, "byte order mark skipped", hint="save the file as UTF-8 without a BOM")


def _line_metadata(ctx: Context) -> Iterable[Diagnostic]:
    for line in ctx.robots.lines:
        if line.invalid_utf8:
            yield ctx.diag(
                "RK102",
                line.number,
                "invalid UTF-8 on this line",
                hint="save the file as UTF-8; bytes in patterns are percent-encoded as written",
            )
        if line.too_long:
            yield ctx.diag(
                "RK103",
                line.number,
                "line longer than 16,664 bytes: the rest is ignored",
                column=len(line.raw),
                hint="split long patterns; Google stops reading a line there",
            )
        if line.had_nul:
            yield ctx.diag(
                "RK105", line.number, "NUL byte: the rest of the line is ignored", column=len(line.raw) + 1
            )
        if line.missing_colon:
            yield ctx.on_key(
                "RK110", line, f"missing colon after '{line.key}'", f"write '{line.key}: {line.value}'"
            )
        if line.typo and line.kind in _TYPO_KEYS:
            right = _TYPO_KEYS[line.kind]
            yield ctx.on_key(
                "RK111",
                line,
                f"'{line.key}' read as '{right}'",
                f"write '{right}'; crawlers other than Google may ignore this line",
            )


def _size_limit(ctx: Context) -> Iterable[Diagnostic]:
    robots = ctx.robots
    if robots.truncated or robots.size > _SIZE_LIMIT:
        last = robots.lines[-1].number if robots.lines else 1
        ignored = max(robots.size - _SIZE_LIMIT, 0)
        yield ctx.diag(
            "RK104",
            last,
            f"file is {robots.size:,} bytes; only the first {_SIZE_LIMIT:,} are read, so "
            f"{ignored:,} bytes after line {last} (and any rules in them) are ignored",
            hint="keep robots.txt under 500 KiB: move rules to fewer, broader patterns",
        )


def _rule_before_agent(ctx: Context) -> Iterable[Diagnostic]:
    if get_profile(ctx.profile).preamble_applies:
        return  # the Gemini companion applies them to every agent
    for line in ctx.robots.lines:
        if line.kind is LineKind.USER_AGENT:
            return
        if line.kind in RULE_KINDS:
            yield ctx.diag(
                "RK120",
                line.number,
                "rule before any user-agent line is ignored",
                column=line.key_column,
                hint="add 'User-agent: *' above it",
            )


def _records_in(ctx: Context, keys: frozenset[str]) -> Iterable[Line]:
    """The file's lines for a record under any of the spellings the parser accepts."""
    return (line for line in ctx.robots.lines if line.kind is LineKind.OTHER and line.key.lower() in keys)


def _record_values(ctx: Context) -> Iterable[Diagnostic]:
    # The parser's own readers decide what a value means; lint only describes their reading.
    for line in _records_in(ctx, CRAWL_DELAY_KEYS):
        delay = parse_crawl_delay(line.value)
        if delay is None:
            yield ctx.on_value(
                "RK130",
                line,
                f"crawl-delay '{line.value}' is not a number of seconds: ignored",
                "write e.g. 'Crawl-delay: 5'",
            )
        elif leftover := crawl_delay_leftover(line.value):
            shown = f"{delay:g}"
            yield ctx.on_value(
                "RK133",
                line,
                f"crawl-delay '{line.value}' is accepted as {shown} seconds ('{leftover}' is ignored); "
                "a plain number of seconds is expected",
                f"write 'Crawl-delay: {shown}'; stricter crawlers skip the whole line",
            )
    for line in _records_in(ctx, REQUEST_RATE_KEYS):
        if parse_request_rate(line.value) is None:
            yield ctx.on_value(
                "RK131",
                line,
                f"request-rate '{line.value}' is not 'n/seconds': ignored",
                "write e.g. '1/5' or '10/1m'",
            )
    for line in lines_of(ctx, LineKind.SITEMAP):
        # The parser's own test (core.parser._add_sitemap): a value without `://` is relative.
        if line.value and "://" not in line.value:
            yield ctx.on_value(
                "RK132",
                line,
                f"sitemap '{line.value}' is not an absolute URL",
                "write the full URL, e.g. 'Sitemap: https://example.com/sitemap.xml'",
            )


CHECKS: tuple[Check, ...] = (
    _byte_order_mark,
    _line_metadata,
    _size_limit,
    _rule_before_agent,
    _record_values,
)
