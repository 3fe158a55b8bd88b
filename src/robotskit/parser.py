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
from typing import NamedTuple
from urllib.parse import urljoin

from robotskit._lexer import (
    DEFAULT_MAX_BYTES,
    MAX_LINE_BYTES,
    WHITESPACE,
    cap_line,
    classify_key,
    is_valid_utf8,
    lex_line,
    prepare,
    rows,
    split_lines,
    to_text,
)
from robotskit._model import Diagnostic, LineKind, Record, Severity
from robotskit.extensions import CRAWL_DELAY_KEYS, REQUEST_RATE_KEYS, parse_crawl_delay, parse_request_rate

# A rule line as written: (line, allow?, value as latin-1 text, one character per byte).
# Plain tuples: the parser builds thousands of them per large file.
RawRule = tuple[int, bool, str]


@dataclass(frozen=True, slots=True)
class RawGroup:
    """A group before any profile reads it: (line, user-agent value) pairs and rules."""

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


def parse_file(
    data: bytes | str, max_bytes: int = DEFAULT_MAX_BYTES, robots_url: str | None = None
) -> ParsedFile:
    """Read `data` into a `ParsedFile`. Never raises on content.

    Groups follow Google's state machine: consecutive user-agent lines share a group; the first
    user-agent line after an allow/disallow line (even an empty one) starts the next group.
    """
    max_bytes = max(int(max_bytes), DEFAULT_MAX_BYTES)  # SPEC 2: configurable, never below 500 KiB
    original_size = len(data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data)
    body, truncated, bom = prepare(data, max_bytes)
    text = body.decode("latin-1")
    if "\r" in text:
        text = "\n".join(split_lines(text))
    diagnostics: list[Diagnostic] = []
    if bom:
        message = "UTF-8 byte order mark skipped" if bom == 3 else "partial UTF-8 byte order mark skipped"
        diagnostics.append(_diag("RK101", Severity.INFO, 1, message, "save the file as UTF-8 without a BOM"))
    if not text.isascii() or "\x00" in text:
        _report_physical_lines(text, diagnostics)

    grouped = _read_groups(text, robots_url, diagnostics)
    line_count = grouped.line_count
    if truncated:
        diagnostics.append(
            _diag(
                "RK104",
                Severity.WARNING,
                line_count,
                f"file larger than {max_bytes:,} bytes: the rest is ignored",
                f"{original_size - max_bytes:,} bytes past the limit are not read",
            )
        )
    if len(diagnostics) > 1:
        diagnostics.sort(key=lambda d: (d.line, d.code))
    return ParsedFile(
        groups=grouped.groups,
        preamble=grouped.preamble,
        records=grouped.records,
        sitemaps=grouped.sitemaps,
        sitemap_lines=grouped.sitemap_lines,
        diagnostics=tuple(diagnostics),
        truncated=truncated,
        size=original_size,
        line_count=line_count,
    )


class _Grouped(NamedTuple):
    groups: tuple[RawGroup, ...]
    preamble: tuple[RawRule, ...]
    records: tuple[Record, ...]
    sitemaps: tuple[str, ...]
    sitemap_lines: tuple[int, ...]
    line_count: int


def _read_groups(text: str, robots_url: str | None, diagnostics: list[Diagnostic]) -> _Grouped:
    """The hot loop: one row per line, Google's group state machine (RFC 9309 2.1)."""
    groups: list[RawGroup] = []
    agents: list[tuple[int, str]] = []
    rules: list[RawRule] = []
    preamble: list[RawRule] = []
    records: list[Record] = []
    sitemaps: list[str] = []
    sitemap_lines: list[int] = []
    seen_rule = False  # an allow/disallow line closed the current run of user-agent lines
    user_agent, allow, disallow, sitemap = (
        LineKind.USER_AGENT,
        LineKind.ALLOW,
        LineKind.DISALLOW,
        LineKind.SITEMAP,
    )
    known = _KNOWN_SPELLINGS
    lines = _Lines(text)
    number = 0
    for number, row in enumerate(rows(text), 1):
        key = row[0]
        if key:
            kind = known.get(key) or _classify(number, key, lines, diagnostics)
            value = row[1]
        elif row[2]:
            directive = _lex_other(number, row[2], lines, diagnostics)
            if directive is None:
                continue
            kind, key, value = directive
        else:
            continue
        if kind is disallow or kind is allow:
            if agents:
                seen_rule = True
                rules.append((number, kind is allow, value))
            else:
                preamble.append((number, kind is allow, value))
                diagnostics.append(_rule_before_agent(number))
        elif kind is user_agent:
            if seen_rule:
                groups.append(RawGroup(tuple(agents), tuple(rules)))
                agents, rules, seen_rule = [], [], False
            agents.append((number, value))
        elif kind is sitemap:
            _add_sitemap(to_text(value), number, robots_url, sitemaps, sitemap_lines, diagnostics)
        else:
            group = len(groups) if agents else None
            _add_record(records, group, number, to_text(key).lower(), to_text(value), diagnostics)
    if agents:
        groups.append(RawGroup(tuple(agents), tuple(rules)))
    return _Grouped(
        tuple(groups), tuple(preamble), tuple(records), tuple(sitemaps), tuple(sitemap_lines), number
    )


def _classify(number: int, key: str, lines: _Lines, diagnostics: list[Diagnostic]) -> LineKind:
    kind, typo = classify_key(key)
    if typo:
        _report_leniency(number, kind, key, True, False, lines, diagnostics)
    return kind


def _lex_other(
    number: int, content: str, lines: _Lines, diagnostics: list[Diagnostic]
) -> tuple[LineKind, str, str] | None:
    """A line without a colon: Google's two-word leniency, or junk (RK112)."""
    lexed = lex_line(content)
    if lexed is None or lexed[0] is LineKind.INVALID:
        diagnostics.append(_diag("RK112", Severity.ERROR, number, "not a `key: value` line: ignored"))
        return None
    _report_leniency(number, lexed[0], lexed[1], lexed[6], lexed[7], lines, diagnostics)
    return lexed[0], lexed[1], lexed[2]


# Exact spellings seen in nearly every file skip the lower-casing and prefix tests.
_KNOWN_SPELLINGS: dict[str, LineKind] = {
    spelling: kind
    for kind, names in (
        (LineKind.USER_AGENT, ("User-agent", "User-Agent", "user-agent", "USER-AGENT", "User-agent ")),
        (LineKind.DISALLOW, ("Disallow", "disallow", "DISALLOW")),
        (LineKind.ALLOW, ("Allow", "allow", "ALLOW")),
        (LineKind.SITEMAP, ("Sitemap", "sitemap", "SITEMAP", "SiteMap")),
    )
    for spelling in names
}


def _rule_before_agent(number: int) -> Diagnostic:
    return _diag(
        "RK120",
        Severity.WARNING,
        number,
        "rule before any user-agent line",
        "crawlers ignore it (the Gemini profile applies it to every agent); put it under `User-agent: *`",
    )


def _report_physical_lines(text: str, diagnostics: list[Diagnostic]) -> None:
    """Per-line problems of the bytes themselves: NUL, over-long lines, invalid UTF-8."""
    check_caps = "\x00" in text or len(text) > MAX_LINE_BYTES
    check_utf8 = not text.isascii() and not is_valid_utf8(text)
    if not (check_caps or check_utf8):
        return
    for number, physical in enumerate(text.split("\n"), 1):
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


class _Lines:
    """The physical lines of the text under parse, split on first need (diagnostic columns only)."""

    __slots__ = ("_lines", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self._lines: list[str] | None = None

    def __getitem__(self, number: int) -> str:
        if self._lines is None:
            self._lines = self.text.split("\n")
        return self._lines[number - 1] if 0 < number <= len(self._lines) else ""


def _report_leniency(
    number: int,
    kind: LineKind,
    key: str,
    typo: bool,
    missing_colon: bool,
    lines: _Lines,
    out: list[Diagnostic],
) -> None:
    """Google's accepted mistakes, reported (SPEC 2). Rare, so the column is found from the text here."""
    physical = lines[number]
    column = len(physical) - len(physical.lstrip(WHITESPACE)) + 1
    if missing_colon:
        out.append(
            _diag(
                "RK110",
                Severity.WARNING,
                number,
                "missing colon after the field name",
                "write `key: value`",
                column=column,
            )
        )
    if typo:
        out.append(
            _diag(
                "RK111",
                Severity.WARNING,
                number,
                f"misspelt field name {to_text(key)!r} accepted as {kind.value!r}",
                f"write `{kind.value.title()}:`",
                column=column,
            )
        )


def _add_record(
    records: list[Record], group: int | None, number: int, key: str, value: str, out: list[Diagnostic]
) -> None:
    records.append(Record(number, key, value, group))
    if key in CRAWL_DELAY_KEYS and parse_crawl_delay(value) is None:
        out.append(
            _diag(
                "RK130",
                Severity.WARNING,
                number,
                f"crawl-delay {value!r} is not a non-negative number of seconds",
            )
        )
    elif key in REQUEST_RATE_KEYS and parse_request_rate(value) is None:
        out.append(
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
