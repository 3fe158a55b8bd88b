"""Line events -> a parsed robots.txt: groups, rules, records, sitemaps and diagnostics.

Owns SPEC.md section 2 from the key onwards: consecutive `user-agent` lines share one group,
a `user-agent` line after an `allow`/`disallow` line starts a new one (RFC 9309 2.1; empty rule
lines count too, as in Google's parser), `sitemap` is global wherever it stands, and unknown
keys never end a group. The parse is total: it never raises on content, it reports.

What is profile-neutral is done here once; how a profile reads user-agent values and patterns
is applied later by `robotskit.matcher`, so one parse serves every profile.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urljoin

from robotskit._lexer import (
    DEFAULT_MAX_BYTES,
    cap_line,
    is_valid_utf8,
    lex_line,
    prepare,
    split_lines,
    to_text,
)
from robotskit._model import Diagnostic, LineKind, Record, Severity
from robotskit.extensions import CRAWL_DELAY_KEYS, REQUEST_RATE_KEYS, parse_crawl_delay, parse_request_rate


@dataclass(frozen=True, slots=True)
class RawRule:
    """A rule line as written: `value` is latin-1 text (one character per byte)."""

    line: int
    allow: bool
    value: str


@dataclass(frozen=True, slots=True)
class RawGroup:
    """A group before any profile reads it: user-agent values (latin-1) and rules."""

    agents: tuple[tuple[int, str], ...]
    rules: tuple[RawRule, ...]


@dataclass(frozen=True, slots=True)
class ParsedFile:
    """The profile-neutral result of reading a file."""

    groups: tuple[RawGroup, ...]
    preamble: tuple[RawRule, ...]  # rules before the first user-agent line
    records: tuple[Record, ...]
    sitemaps: tuple[str, ...]
    sitemap_lines: tuple[int, ...]
    diagnostics: tuple[Diagnostic, ...]
    truncated: bool
    size: int
    line_count: int


def _diag(
    code: str, severity: Severity, line: int, message: str, hint: str = "", column: int = 0
) -> Diagnostic:
    return Diagnostic(code, severity, line, message, column=column, hint=hint)


class _Builder:
    """Accumulates groups while lines stream past (a small state machine, Google's semantics)."""

    __slots__ = ("agents", "diagnostics", "groups", "preamble", "records", "rules", "seen_rule")

    def __init__(self) -> None:
        self.groups: list[RawGroup] = []
        self.agents: list[tuple[int, str]] = []
        self.rules: list[RawRule] = []
        self.preamble: list[RawRule] = []
        self.records: list[Record] = []
        self.diagnostics: list[Diagnostic] = []
        self.seen_rule = False  # an allow/disallow line closed the current run of user-agent lines

    def user_agent(self, number: int, value: str) -> None:
        if self.seen_rule:
            self.close_group()
        self.agents.append((number, value))

    def rule(self, number: int, allow: bool, value: str) -> None:
        if not self.agents:
            self.preamble.append(RawRule(number, allow, value))
            self.diagnostics.append(
                _diag(
                    "RK120",
                    Severity.WARNING,
                    number,
                    "rule before any user-agent line",
                    "crawlers ignore it (the Gemini profile applies it to every agent); "
                    "put it under `User-agent: *`",
                )
            )
            return
        self.seen_rule = True
        self.rules.append(RawRule(number, allow, value))

    def close_group(self) -> None:
        if self.agents:
            self.groups.append(RawGroup(tuple(self.agents), tuple(self.rules)))
        self.agents = []
        self.rules = []
        self.seen_rule = False

    def current_group(self) -> int | None:
        return len(self.groups) if self.agents else None


def parse_file(
    data: bytes | str, max_bytes: int = DEFAULT_MAX_BYTES, robots_url: str | None = None
) -> ParsedFile:
    """Read `data` into a `ParsedFile`. Never raises on content."""
    max_bytes = max(int(max_bytes), DEFAULT_MAX_BYTES)  # SPEC 2: configurable, never below 500 KiB
    original_size = len(data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data)
    body, truncated, bom = prepare(data, max_bytes)
    text = body.decode("latin-1")
    lines = split_lines(text)
    builder = _Builder()
    diagnostics = builder.diagnostics
    if bom:
        message = "UTF-8 byte order mark skipped" if bom == 3 else "partial UTF-8 byte order mark skipped"
        diagnostics.append(_diag("RK101", Severity.INFO, 1, message, "save the file as UTF-8 without a BOM"))
    check_caps = "\x00" in text or len(text) > 16000
    check_utf8 = not text.isascii() and not is_valid_utf8(text)
    sitemaps: list[str] = []
    sitemap_lines: list[int] = []
    number = 0
    for number, physical in enumerate(lines, 1):
        line = physical
        if check_caps:
            line, too_long, had_nul = cap_line(physical)
            if too_long:
                diagnostics.append(
                    _diag(
                        "RK103",
                        Severity.WARNING,
                        number,
                        "line longer than 16,663 bytes: the rest is ignored",
                    )
                )
            if had_nul:
                diagnostics.append(
                    _diag("RK105", Severity.WARNING, number, "NUL byte: the rest of the line is ignored")
                )
        if check_utf8 and not is_valid_utf8(line):
            diagnostics.append(
                _diag(
                    "RK102",
                    Severity.WARNING,
                    number,
                    "invalid UTF-8",
                    "non-UTF-8 bytes in paths are percent-encoded",
                )
            )
        lexed = lex_line(line)
        if lexed is None:
            continue
        kind, key, value, key_offset, _, _, typo, missing_colon = lexed
        if missing_colon:
            diagnostics.append(
                _diag(
                    "RK110",
                    Severity.WARNING,
                    number,
                    "missing colon after the field name",
                    "write `key: value`",
                    column=key_offset + 1,
                )
            )
        if typo:
            diagnostics.append(
                _diag(
                    "RK111",
                    Severity.WARNING,
                    number,
                    f"misspelt field name {to_text(key)!r} accepted as {kind.value!r}",
                    f"write `{kind.value.title()}:`",
                    column=key_offset + 1,
                )
            )
        if kind is LineKind.USER_AGENT:
            builder.user_agent(number, value)
        elif kind is LineKind.ALLOW or kind is LineKind.DISALLOW:
            builder.rule(number, kind is LineKind.ALLOW, value)
        elif kind is LineKind.SITEMAP:
            _add_sitemap(to_text(value), number, robots_url, sitemaps, sitemap_lines, diagnostics)
        elif kind is LineKind.OTHER:
            _add_record(builder, number, to_text(key).lower(), to_text(value))
        else:
            diagnostics.append(
                _diag(
                    "RK112", Severity.ERROR, number, "not a `key: value` line: ignored", column=key_offset + 1
                )
            )
    builder.close_group()
    if truncated:
        diagnostics.append(
            _diag(
                "RK104",
                Severity.WARNING,
                number,
                f"file larger than {max_bytes:,} bytes: the rest is ignored",
                f"{original_size - max_bytes:,} bytes past the limit are not read",
            )
        )
    return ParsedFile(
        groups=tuple(builder.groups),
        preamble=tuple(builder.preamble),
        records=tuple(builder.records),
        sitemaps=tuple(sitemaps),
        sitemap_lines=tuple(sitemap_lines),
        diagnostics=tuple(sorted(diagnostics, key=lambda d: (d.line, d.code))),
        truncated=truncated,
        size=original_size,
        line_count=number,
    )


def _add_record(builder: _Builder, number: int, key: str, value: str) -> None:
    builder.records.append(Record(number, key, value, builder.current_group()))
    if key in CRAWL_DELAY_KEYS and parse_crawl_delay(value) is None:
        builder.diagnostics.append(
            _diag(
                "RK130",
                Severity.WARNING,
                number,
                f"crawl-delay {value!r} is not a non-negative number of seconds",
            )
        )
    elif key in REQUEST_RATE_KEYS and parse_request_rate(value) is None:
        builder.diagnostics.append(
            _diag("RK131", Severity.WARNING, number, f"request-rate {value!r} is not of the form n/Ts")
        )


def _add_sitemap(
    value: str,
    number: int,
    robots_url: str | None,
    sitemaps: list[str],
    sitemap_lines: list[int],
    diagnostics: list[Diagnostic],
) -> None:
    """SPEC 5: sitemaps are absolute URLs; relative ones are resolved against the robots.txt URL."""
    if not value:
        return
    url = value
    if "://" not in value:
        diagnostics.append(
            _diag(
                "RK132",
                Severity.WARNING,
                number,
                "sitemap is not an absolute URL",
                "resolved against the robots.txt URL" if robots_url else "write the full https:// URL",
            )
        )
        if robots_url:
            try:
                url = urljoin(robots_url, value)
            except ValueError:
                url = value
    if url not in sitemaps:
        sitemaps.append(url)
        sitemap_lines.append(number)
