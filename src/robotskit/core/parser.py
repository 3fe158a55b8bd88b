"""Line events -> a parsed robots.txt: groups, rules, records, sitemaps and diagnostics.

Owns SPEC.md section 2 from the key onwards: consecutive `user-agent` lines share one group,
a `user-agent` line after an `allow`/`disallow` line starts a new one (RFC 9309 2.1; empty rule
lines count too, as in Google's parser), `sitemap` is global wherever it stands, and unknown
keys never end a group. The parse is total: it never raises on content, it reports.

What is profile-neutral is done here once; how a profile reads user-agent values and patterns
is applied later by `robotskit.matcher`, so one parse serves every profile.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import repeat
from operator import itemgetter
from typing import NamedTuple, Protocol
from urllib.parse import urljoin

from robotskit.core.extensions import (
    CRAWL_DELAY_KEYS,
    REQUEST_RATE_KEYS,
    parse_crawl_delay,
    parse_request_rate,
)
from robotskit.core.lexer import (
    DEFAULT_MAX_BYTES,
    FAST_KEYS,
    MAX_LINE_BYTES,
    WHITESPACE,
    cap_line,
    is_valid_utf8,
    lex_line,
    prepare,
    split_lines,
    to_text,
)
from robotskit.core.model import Diagnostic, LineKind, Record, Severity

# A rule line as written: (line, allow?, value as latin-1 text, one character per byte).
# Plain tuples: the parser builds thousands of them per large file.
RawRule = tuple[int, bool, str]


class RawGroup(NamedTuple):
    """A group before any profile reads it: (line, user-agent value) pairs and rules.

    (A NamedTuple, like `ParsedFile`: built once per group of every parsed file, and a frozen
    dataclass costs several times as much to build.)
    """

    agents: tuple[tuple[int, str], ...]
    rules: tuple[RawRule, ...]

    def candidate_rules(self, second: str) -> tuple[list[bool], list[str]] | None:
        """The allow flags and values of the rules a first check reads: all of them here
        (see `SkeletonGroup.candidate_rules`); None past `MAX_FIRST_CHECK_STARS`."""
        rules = self.rules
        values = list(map(_VALUE_OF, rules))
        if sum(map(str.count, values, repeat("*"))) > MAX_FIRST_CHECK_STARS:
            return None
        return list(map(_ALLOW_OF, rules)), values


_ALLOW_OF = itemgetter(1)  # of a RawRule
_VALUE_OF = itemgetter(2)
# A group whose rules hold more `*` than this is left to its rule set by a first check
# (`first_check`): a hostile file, whose cost the rule set's filters and index bound.
MAX_FIRST_CHECK_STARS = 4096


class GroupLike(Protocol):
    """A group as `matcher.View` reads it: a `RawGroup`, or a lazily read `_skeleton.SkeletonGroup`."""

    @property
    def agents(self) -> tuple[tuple[int, str], ...]: ...

    @property
    def rules(self) -> tuple[RawRule, ...]: ...

    def candidate_rules(self, second: str) -> tuple[list[bool], list[str]] | None:
        """Allow flags and values of (at least) the rules whose pattern may match a path whose
        second character is `second` (`first_check.first_verdict`); None: too many wildcards."""
        ...


class GroupedFile(Protocol):
    """What `matcher.View` needs of a file: a `ParsedFile`, or a `_skeleton.Skeleton`."""

    @property
    def groups(self) -> Sequence[GroupLike]: ...

    @property
    def preamble(self) -> tuple[RawRule, ...]: ...


class ParsedFile(NamedTuple):
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
    physical = split_lines(text)
    diagnostics: list[Diagnostic] = []
    if bom:
        message = "UTF-8 byte order mark skipped" if bom == 3 else "partial UTF-8 byte order mark skipped"
        diagnostics.append(_diag("RK101", Severity.INFO, 1, message, "save the file as UTF-8 without a BOM"))
    has_nul = "\x00" in text
    capped = has_nul or (len(text) > MAX_LINE_BYTES and max(map(len, physical)) > MAX_LINE_BYTES)
    # Google reads a line up to a NUL and at most MAX_LINE_BYTES of it.
    lines = [cap_line(line)[0] for line in physical] if capped else physical
    if not text.isascii() or has_nul:
        _report_physical_lines(text, physical, capped, diagnostics)

    grouped = _read_groups(lines, physical, robots_url, diagnostics, FAST_KEYS)
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


_KINDS = (LineKind.USER_AGENT, LineKind.ALLOW, LineKind.DISALLOW, LineKind.SITEMAP)


def _read_groups(
    lines: list[str],
    physical: list[str],
    robots_url: str | None,
    diagnostics: list[Diagnostic],
    fast_keys: dict[str, LineKind],
) -> _Grouped:
    """The hot loop: one (capped) line at a time, Google's group state machine (RFC 9309 2.1).

    A line whose text before the first colon is in `fast_keys` is split here (see FAST_KEYS);
    every other line goes through `lex_line`. With an empty `fast_keys` every line does, which
    is the reference the tests compare the fast path with.
    """
    groups: list[RawGroup] = []
    agents: list[tuple[int, str]] = []
    rules: list[RawRule] = []
    preamble: list[RawRule] = []
    records: list[Record] = []
    sitemaps: dict[str, int] = {}  # URL -> line of its first mention, in order of appearance
    seen_rule = False  # an allow/disallow line closed the current run of user-agent lines
    user_agent, allow, disallow, sitemap = _KINDS  # locals: enum attribute loads are slow
    fast = fast_keys.get
    whitespace = WHITESPACE
    add_rule = rules.append
    for number, line in enumerate(lines, 1):
        key, colon, value = line.partition(":")
        kind = fast(key)
        if kind is not None and colon:
            if "#" in value:
                value = value.partition("#")[0]
            value = value.strip(whitespace)
        elif not line or line[0] == "#":
            continue  # empty or comment-only: nothing for lex_line to find
        else:
            directive = _lex_other(number, line, physical, diagnostics)
            if directive is None:
                continue
            kind, key, value = directive
        if kind is disallow or kind is allow:
            if agents:
                seen_rule = True
                add_rule((number, kind is allow, value))
            else:
                preamble.append((number, kind is allow, value))
                diagnostics.append(_rule_before_agent(number))
        elif kind is user_agent:
            if seen_rule:
                groups.append(RawGroup(tuple(agents), tuple(rules)))
                agents, rules, seen_rule = [], [], False
                add_rule = rules.append
            agents.append((number, value))
        elif kind is sitemap:
            _add_sitemap(to_text(value), number, robots_url, sitemaps, diagnostics)
        else:
            group = len(groups) if agents else None
            key = to_text(key.strip(whitespace)).lower()  # a FAST_KEYS key may carry whitespace
            _add_record(records, group, number, key, to_text(value), diagnostics)
    if agents:
        groups.append(RawGroup(tuple(agents), tuple(rules)))
    return _Grouped(
        tuple(groups),
        tuple(preamble),
        tuple(records),
        tuple(sitemaps),
        tuple(sitemaps.values()),
        len(lines),
    )


def _lex_other(
    number: int, line: str, physical: list[str], diagnostics: list[Diagnostic]
) -> tuple[LineKind, str, str] | None:
    """Any line off the fast path: `lex_line`, with Google's accepted mistakes reported (RK110,
    RK111) and junk reported (RK112); None for a line without a directive."""
    lexed = lex_line(line)
    if lexed is None:
        return None
    kind, key, value, typo, missing_colon = lexed[0], lexed[1], lexed[2], lexed[6], lexed[7]
    if kind is LineKind.INVALID:
        diagnostics.append(_diag("RK112", Severity.ERROR, number, "not a `key: value` line: ignored"))
        return None
    if typo or missing_colon:
        _report_leniency(number, kind, key, typo, missing_colon, physical, diagnostics)
    return kind, key, value


def _rule_before_agent(number: int) -> Diagnostic:
    return _diag(
        "RK120",
        Severity.WARNING,
        number,
        "rule before any user-agent line",
        "crawlers ignore it (the Gemini profile applies it to every agent); put it under `User-agent: *`",
    )


def _report_physical_lines(
    text: str, physical: list[str], check_caps: bool, diagnostics: list[Diagnostic]
) -> None:
    """Per-line problems of the bytes themselves: NUL, over-long lines (`check_caps`: the file
    has some), invalid UTF-8."""
    check_utf8 = not text.isascii() and not is_valid_utf8(text)
    if not (check_caps or check_utf8):
        return
    for number, whole in enumerate(physical, 1):
        line = whole
        if check_caps:
            line, too_long, had_nul = cap_line(whole)
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


def _report_leniency(
    number: int,
    kind: LineKind,
    key: str,
    typo: bool,
    missing_colon: bool,
    physical: list[str],
    out: list[Diagnostic],
) -> None:
    """Google's accepted mistakes, reported (SPEC 2). Rare, so the column is found from the text here."""
    whole = physical[number - 1]
    column = len(whole) - len(whole.lstrip(WHITESPACE)) + 1
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
    sitemaps: dict[str, int],
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
    if url not in sitemaps:  # a dict: files listing thousands of sitemaps stay linear
        sitemaps[url] = number
