"""The linter: every problem robotskit can see in a robots.txt, with a stable id.

This module owns the lint rules (ids RK2xx: directives and values, RK3xx: rules and groups)
and the merge with the parser's own diagnostics (RK1xx). Each rule is a small pure function of
a `_Context` (the parsed file's `lines`, `groups`, `records`, `body`) registered in `_RULES`;
nothing here does I/O. Rules may also re-derive an RK1xx diagnostic from the lexer's per-line
metadata so `lint` stays complete if the parser omits one; those are dropped when the parser
already reported the same code on the same line. Every id is documented in docs/lint.md.
"""

from __future__ import annotations

import bisect
import difflib
import math
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from robotskit._model import Diagnostic, Group, Line, LineKind, Rule, RuleKind, Severity
from robotskit.ai_prefs import SIGNAL_KEYS, USAGE_LABELS, parse_sf_dictionary
from robotskit.errors import UnknownProfile

if TYPE_CHECKING:
    from robotskit import RobotsTxt

__all__ = ["CODES", "lint", "match_end"]

ERR, WARN, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO

#: Every id `lint` can return, with its severity and a title (docs/lint.md explains each).
CODES: Mapping[str, tuple[Severity, str]] = {
    # Parser diagnostics (robotskit.parse reports these; lint passes them on).
    "RK101": (INFO, "byte order mark skipped"),
    "RK102": (WARN, "invalid UTF-8"),
    "RK103": (WARN, "line too long, cut"),
    "RK104": (WARN, "file over the size limit, rest ignored"),
    "RK105": (WARN, "NUL byte, rest of line ignored"),
    "RK110": (WARN, "missing colon accepted"),
    "RK111": (WARN, "misspelt key accepted"),
    "RK112": (ERR, "line is not `key: value`"),
    "RK120": (WARN, "rule before any user-agent"),
    "RK121": (WARN, "user-agent with no usable token"),
    "RK122": (INFO, "user-agent value reduced to a product token"),
    "RK130": (WARN, "invalid crawl-delay"),
    "RK131": (WARN, "invalid request-rate"),
    "RK132": (WARN, "sitemap is not an absolute URL"),
    # Directives and values.
    "RK201": (WARN, "unknown directive"),
    "RK202": (INFO, "directive known but not supported"),
    "RK203": (WARN, "user-agent token differs between profiles"),
    "RK204": (WARN, "wildcard in a user-agent name"),
    "RK210": (WARN, "path does not start with `/` or `*`"),
    "RK211": (WARN, "`$` not at the end of a pattern"),
    "RK220": (WARN, "malformed Content-Signal"),
    "RK221": (WARN, "malformed Content-Usage"),
    "RK222": (INFO, "unknown AI-preference key"),
    "RK230": (ERR, "HTML served as robots.txt"),
    "RK231": (WARN, "served as text/html"),
    # Rules and groups.
    "RK301": (INFO, "duplicate rule"),
    "RK302": (INFO, "redundant rule"),
    "RK303": (WARN, "rule overridden by a longer rule"),
    "RK304": (WARN, "equal-length allow/disallow tie"),
    "RK305": (WARN, "`Disallow: /` for every crawler"),
    "RK306": (WARN, "named group drops the `*` rules"),
}

_PROFILES = ("rfc9309", "google", "gemini")
_SIZE_LIMIT = 512_000  # SPEC.md 2: the first 500 KiB are parsed
_RULE_KINDS = (LineKind.ALLOW, LineKind.DISALLOW)
_TYPO_KEYS = {
    LineKind.USER_AGENT: "user-agent",
    LineKind.ALLOW: "allow",
    LineKind.DISALLOW: "disallow",
    LineKind.SITEMAP: "sitemap",
}
# SPEC.md 5: records robotskit parses and exposes.
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
_GOOGLE_IGNORES = frozenset({"crawl-delay", "request-rate"})
_ALL_KEYS = sorted({*_KNOWN_RECORDS, *_UNSUPPORTED, "user-agent", "allow", "disallow", "sitemap"})
_SIGNAL_USE = frozenset({"immediate", "reference", "full"})  # Cloudflare's auxiliary `use=`
_RATE = re.compile(r"\d+/\d+[smhd]?\Z")
_FILE_CODES = frozenset({"RK101", "RK104"})  # about the whole file: one report is enough
_HTML_NOISE = frozenset({"RK110", "RK111", "RK112", "RK201"})
_HTML_START = (b"<!doctype html", b"<html", b"<head", b"<body", b"<?xml")


# --------------------------------------------------------------------------- helpers


def match_end(pattern: str, path: str) -> int | None:
    """Where the shortest match of `pattern` at the start of `path` ends, or None if it does not match.

    RFC 9309 2.2.3: `*` matches any run of characters, a final `$` anchors the end; everything
    else is a prefix match. A set of positions keeps this linear per pattern character, so a
    pattern from a stranger cannot make it backtrack.
    """
    anchored = pattern.endswith("$")
    positions = {0}
    for char in pattern[:-1] if anchored else pattern:
        if char == "*":
            positions = set(range(min(positions), len(path) + 1))
        else:
            positions = {p + 1 for p in positions if p < len(path) and path[p] == char}
        if not positions:
            return None
    if anchored:
        return len(path) if len(path) in positions else None
    return min(positions)


def _by_star_insertion(wide: str, narrow: str) -> bool:
    """True if `narrow` is `wide` with some `*` removed: then `wide` matches all `narrow` does."""
    j = 0
    for char in wide:
        if j < len(narrow) and char == narrow[j]:
            j += 1
        elif char != "*":
            return False
    return j == len(narrow)


@dataclass(frozen=True, slots=True, eq=False)  # compared by identity: cheap to de-duplicate
class _Pattern:
    """A rule with the facts the pair checks need, computed once."""

    rule: Rule
    size: int  # SPEC.md 3: priority is the length in octets, after normalisation
    plain: str  # the pattern without its `*`s
    literal: str  # what every matching path starts with: the text before the first `*` or `$`
    chunks: tuple[str, ...]  # the literal runs between `*`s
    anchored: bool
    matches_all: bool  # matches every path (e.g. `/`, `*`, `/*`)
    sample: str  # a plain path the pattern matches

    @classmethod
    def of(cls, rule: Rule) -> _Pattern:
        pattern = rule.pattern
        cut = [i for i in (pattern.find("*"), pattern.find("$")) if i >= 0]
        anchored = pattern.endswith("$")
        return cls(
            rule,
            len(pattern.encode("utf-8", "surrogatepass")),
            pattern.replace("*", ""),
            pattern[: min(cut)] if cut else pattern,
            tuple(pattern.split("*")),
            anchored,
            not anchored and match_end(pattern, "/") is not None,
            (pattern[:-1] if anchored else pattern).replace("*", ""),
        )

    def covers(self, narrow: _Pattern) -> bool:
        """A sufficient test that every path `narrow` matches is also matched by this pattern."""
        if self.plain == narrow.plain and _by_star_insertion(self.rule.pattern, narrow.rule.pattern):
            return True
        if self.anchored:
            return False
        if self.matches_all:
            return True
        # Without `$`, matching a string means matching all its extensions, and every path
        # `narrow` matches starts with its literal prefix. Cheap substring tests go first.
        literal = narrow.literal
        if not literal.startswith(self.chunks[0]) or any(c not in literal for c in self.chunks[1:]):
            return False
        return match_end(self.rule.pattern, literal) is not None

    def overlaps(self, other: _Pattern) -> bool:
        """A conservative test that both match some path: each one's plainest path is tried.

        Unrelated wildcard rules of equal length can nearly always be made to meet on some
        contrived path (`/*.ps$` and `/watl/` both match `/watl/.ps`); such ties are left out.
        """
        a, b = self.rule.pattern, other.rule.pattern
        return any(
            match_end(a, s) is not None and match_end(b, s) is not None for s in (self.sample, other.sample)
        )


class _CoverIndex:
    """Finds the patterns that may cover a pattern without comparing every pair (big files stay fast).

    A pattern N can be covered only by one equal to N once `*`s are removed, by one that matches
    every path, or by an unanchored wildcard pattern whose literal runs all fit in N's literal
    prefix (so its first run is a prefix of it and its `*`-less text is no longer than it).
    """

    def __init__(self, patterns: Iterable[_Pattern]) -> None:
        self.by_plain: dict[str, list[_Pattern]] = {}
        self.everything: list[_Pattern] = []
        self.by_head: dict[str, list[_Pattern]] = {}
        for pat in patterns:
            self.by_plain.setdefault(pat.plain, []).append(pat)
            if pat.matches_all:
                self.everything.append(pat)
            elif len(pat.chunks) > 1 and not pat.anchored:
                self.by_head.setdefault(pat.chunks[0], []).append(pat)
        for head in self.by_head.values():
            head.sort(key=lambda p: len(p.plain))
        self.head_sizes = {k: [len(p.plain) for p in v] for k, v in self.by_head.items()}
        self.head_lengths = sorted({len(k) for k in self.by_head})

    def coverers(self, narrow: _Pattern) -> Iterator[_Pattern]:
        found = [*self.by_plain.get(narrow.plain, ()), *self.everything]
        literal = narrow.literal
        for end in self.head_lengths:  # only the lengths some wildcard head has
            if end > len(literal):
                break
            head = self.by_head.get(literal[:end])
            if head:  # sorted by `*`-less length: take those no longer than the literal prefix
                found += head[: bisect.bisect_right(self.head_sizes[literal[:end]], len(literal))]
        return (p for p in dict.fromkeys(found) if p.rule is not narrow.rule and p.covers(narrow))


def token_for(profile: str, value: str) -> str:
    """The group token `profile` reads from a user-agent value ("" if none), lower-cased (SPEC.md 1)."""
    value = value.strip()
    if profile == "google":
        # Google's reference: `*` followed by whitespace or nothing is the global agent;
        # otherwise the leading run of [A-Za-z_-] (so digits end the token).
        if value[:1] == "*" and (len(value) == 1 or value[1].isspace()):
            return "*"
        match = re.match(r"[A-Za-z_-]+", value)
    else:
        if value == "*":
            return "*"
        match = re.match(r"[A-Za-z0-9_-]+", value)
    return match.group(0).lower() if match else ""


def _tokens_text(value: str) -> str:
    names = {p: token_for(p, value) or "(none)" for p in _PROFILES}
    return ", ".join(f"{p} uses '{t}'" for p, t in names.items())


def _rule_text(rule: Rule) -> str:
    return f"{'Allow' if rule.kind is RuleKind.ALLOW else 'Disallow'}: {rule.raw or rule.pattern}"


@dataclass(frozen=True, slots=True)
class _Context:
    robots: RobotsTxt
    profile: str
    content_type: str | None
    lines: Mapping[int, Line]

    def diag(
        self,
        code: str,
        line: int,
        message: str,
        *,
        column: int = 0,
        hint: str = "",
        length: int = 0,
        severity: Severity | None = None,
        span: tuple[int, int] | None = None,
    ) -> Diagnostic:
        if span is not None:
            column, length = span
        return Diagnostic(code, severity or CODES[code][0], line, message, column, hint, length)

    def value_column(self, number: int, offset: int = 0) -> int:
        line = self.lines.get(number)
        return line.value_column + offset if line and line.value_column else 0

    def pools(self) -> dict[str, list[Rule]]:
        """The rules each token obeys: all groups naming it, merged (SPEC.md 1); authored, non-empty rules."""
        pools: dict[str, list[Rule]] = {}
        for group in self.robots.groups:
            for token in dict.fromkeys(group.agents):
                pools.setdefault(token, []).extend(r for r in group.rules if r.pattern and not r.derived)
        return pools


_Check = Callable[[_Context], Iterable[Diagnostic]]
_RULES: list[_Check] = []


def _rule(check: _Check) -> _Check:
    _RULES.append(check)
    return check


def _lines(ctx: _Context, *kinds: LineKind) -> Iterator[Line]:
    return (line for line in ctx.robots.lines if line.kind in kinds)


def _records(ctx: _Context, key: str) -> Iterator[Line]:
    return (line for line in ctx.robots.lines if line.kind is LineKind.OTHER and line.key.lower() == key)


# --------------------------------------------------------------------------- RK1xx re-derived


@_rule
def _byte_order_mark(ctx: _Context) -> Iterable[Diagnostic]:
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


@_rule
def _line_metadata(ctx: _Context) -> Iterable[Diagnostic]:
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
            yield ctx.diag(
                "RK110",
                line.number,
                f"missing colon after '{line.key}'",
                column=line.key_column,
                length=len(line.key),
                hint=f"write '{line.key}: {line.value}'",
            )
        if line.typo and line.kind in _TYPO_KEYS:
            right = _TYPO_KEYS[line.kind]
            yield ctx.diag(
                "RK111",
                line.number,
                f"'{line.key}' read as '{right}'",
                column=line.key_column,
                length=len(line.key),
                hint=f"write '{right}'; crawlers other than Google may ignore this line",
            )


@_rule
def _size_limit(ctx: _Context) -> Iterable[Diagnostic]:
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


@_rule
def _rule_before_agent(ctx: _Context) -> Iterable[Diagnostic]:
    if ctx.profile == "gemini":
        return  # the Gemini companion applies them to every agent (SPEC.md 1)
    for line in ctx.robots.lines:
        if line.kind is LineKind.USER_AGENT:
            return
        if line.kind in _RULE_KINDS:
            yield ctx.diag(
                "RK120",
                line.number,
                "rule before any user-agent line is ignored",
                column=line.key_column,
                hint="add 'User-agent: *' above it",
            )


@_rule
def _record_values(ctx: _Context) -> Iterable[Diagnostic]:
    for line in _records(ctx, "crawl-delay"):
        try:
            delay = float(line.value)
        except ValueError:
            delay = math.nan
        if not math.isfinite(delay) or delay < 0:
            yield ctx.diag(
                "RK130",
                line.number,
                f"crawl-delay '{line.value}' is not a number of seconds",
                column=line.value_column,
                length=len(line.value),
                hint="write e.g. 'Crawl-delay: 5'",
            )
    for line in _records(ctx, "request-rate"):
        if not _RATE.match(line.value.replace(" ", "")):
            yield ctx.diag(
                "RK131",
                line.number,
                f"request-rate '{line.value}' is not 'n/seconds'",
                column=line.value_column,
                length=len(line.value),
                hint="write e.g. '1/5' or '10/1m'",
            )
    for line in _lines(ctx, LineKind.SITEMAP):
        parts = urlsplit(line.value)
        if not (parts.scheme and parts.netloc):
            yield ctx.diag(
                "RK132",
                line.number,
                f"sitemap '{line.value}' is not an absolute URL",
                column=line.value_column,
                length=len(line.value),
                hint="write the full URL, e.g. 'Sitemap: https://example.com/sitemap.xml'",
            )


# --------------------------------------------------------------------------- RK2xx directives


@_rule
def _directives(ctx: _Context) -> Iterable[Diagnostic]:
    for line in _lines(ctx, LineKind.OTHER):
        key = line.key.lower()
        span = (line.key_column, len(line.key))
        if key in _UNSUPPORTED:
            severity, why = _UNSUPPORTED[key]
            yield ctx.diag(
                "RK202",
                line.number,
                f"'{line.key}' has no effect for most crawlers",
                hint=why,
                severity=severity,
                span=span,
            )
        elif key in _GOOGLE_IGNORES and ctx.profile == "google":
            yield ctx.diag(
                "RK202",
                line.number,
                f"Google ignores '{line.key}'",
                hint="set Googlebot's crawl rate in Search Console; other crawlers may honour it",
                span=span,
            )
        elif key not in _KNOWN_RECORDS:
            close = difflib.get_close_matches(key, _ALL_KEYS, n=1, cutoff=0.75)
            hint = f"did you mean '{close[0]}'?" if close else "crawlers skip lines they do not know"
            yield ctx.diag(
                "RK201", line.number, f"unknown directive '{line.key}' is ignored", hint=hint, span=span
            )


@_rule
def _user_agents(ctx: _Context) -> Iterable[Diagnostic]:
    for line in _lines(ctx, LineKind.USER_AGENT):
        value, column = line.value, line.value_column
        rfc, google = token_for("rfc9309", value), token_for("google", value)
        if not rfc and not google:
            yield ctx.diag(
                "RK121",
                line.number,
                f"user-agent '{value}' names no usable token",
                column=column,
                length=len(value),
                hint="write a product token such as 'MyBot', or '*'",
            )
            continue
        if "*" in value and value.strip() != "*":
            yield ctx.diag(
                "RK204",
                line.number,
                f"user-agent names cannot hold wildcards: {_tokens_text(value)}",
                column=column + value.index("*"),
                length=1,
                hint="write the bare token ('Googlebot'), or '*' alone for every crawler",
            )
        elif rfc != google:
            yield ctx.diag(
                "RK203",
                line.number,
                f"'{value}': {_tokens_text(value)}",
                column=column,
                length=len(value),
                hint="Google drops digits from user-agent tokens; use letters only",
            )
        elif rfc != "*" and rfc != value.strip().lower():
            yield ctx.diag(
                "RK122",
                line.number,
                f"user-agent '{value}' is read as '{rfc}'",
                column=column,
                length=len(value),
                hint=f"write 'User-agent: {rfc}'",
            )


@_rule
def _patterns(ctx: _Context) -> Iterable[Diagnostic]:
    for line in _lines(ctx, *_RULE_KINDS):
        value = line.value
        if value and value[0] not in "/*":
            yield ctx.diag(
                "RK210",
                line.number,
                f"pattern '{value}' does not start with '/' or '*'",
                column=line.value_column,
                length=len(value),
                hint=f"write '/{value}'; crawlers disagree on what a bare name means",
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


@_rule
def _content_signal(ctx: _Context) -> Iterable[Diagnostic]:
    for line in _records(ctx, "content-signal"):
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


@_rule
def _content_usage(ctx: _Context) -> Iterable[Diagnostic]:
    for line in _records(ctx, "content-usage"):
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


@_rule
def _html(ctx: _Context) -> Iterable[Diagnostic]:
    head = ctx.robots.body[:2048].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if head.startswith(_HTML_START) or b"<html" in head[:1024]:
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


# --------------------------------------------------------------------------- RK3xx rules and groups


def _unique(rules: Iterable[Rule]) -> tuple[list[_Pattern], list[tuple[Rule, Rule]]]:
    """Distinct (kind, pattern) rules in file order, and the (copy, original) pairs of duplicates."""
    first: dict[tuple[RuleKind, str], Rule] = {}
    copies = []
    for rule in rules:
        original = first.setdefault((rule.kind, rule.pattern), rule)
        if original is not rule:
            copies.append((rule, original))
    return [_Pattern.of(r) for r in first.values()], copies


def _never_decides(ctx: _Context, pat: _Pattern, index: _CoverIndex) -> Diagnostic | None:
    rule = pat.rule
    for other in index.coverers(pat):
        if other.size > pat.size:
            code, verb = ("RK302", "redundant") if other.rule.kind is rule.kind else ("RK303", "overridden")
            return ctx.diag(
                code,
                rule.line,
                f"'{_rule_text(rule)}' never decides ({verb}): '{_rule_text(other.rule)}' "
                f"(line {other.rule.line}) is longer and matches every URL it matches",
                column=ctx.value_column(rule.line),
                hint="the longest matching rule wins (RFC 9309 2.2.2)",
            )
    return None


def _tie(ctx: _Context, pat: _Pattern, allows: Iterable[_Pattern]) -> Diagnostic | None:
    rule = pat.rule
    for other in allows:
        if other.overlaps(pat):
            return ctx.diag(
                "RK304",
                rule.line,
                f"'{_rule_text(rule)}' ties with '{_rule_text(other.rule)}' (line {other.rule.line}): "
                "equal length, so the allow wins where both match",
                column=ctx.value_column(rule.line),
                hint="RFC 9309 2.2.2: on a tie the least restrictive rule wins; "
                "lengthen the rule you mean to win",
            )
    return None


@_rule
def _rule_pairs(ctx: _Context) -> Iterable[Diagnostic]:
    for rules in ctx.pools().values():
        patterns, copies = _unique(rules)
        for copy, original in copies:
            yield ctx.diag(
                "RK301",
                copy.line,
                f"duplicate of line {original.line}: '{_rule_text(copy)}'",
                column=ctx.value_column(copy.line),
                hint="delete one of them",
            )
        index = _CoverIndex(patterns)
        allows_by_size: dict[int, list[_Pattern]] = {}
        for pat in patterns:
            if pat.rule.kind is RuleKind.ALLOW:
                allows_by_size.setdefault(pat.size, []).append(pat)
        for pat in patterns:
            found = _never_decides(ctx, pat, index)
            if found is None and pat.rule.kind is RuleKind.DISALLOW:
                found = _tie(ctx, pat, allows_by_size.get(pat.size, ()))
            if found is not None:
                yield found


@_rule
def _disallow_all(ctx: _Context) -> Iterable[Diagnostic]:
    for group in ctx.robots.groups:
        if not group.is_global:
            continue
        for rule in group.rules:
            if rule.kind is RuleKind.DISALLOW and not rule.derived and rule.pattern in ("/", "*", "/*"):
                yield ctx.diag(
                    "RK305",
                    rule.line,
                    "'Disallow: /' in the '*' group shuts the whole site to every crawler "
                    "without a group of its own",
                    column=ctx.value_column(rule.line),
                    hint="fine for a staging site; in production, search engines will drop the site",
                )


def _agent_lines(groups: Iterable[Group]) -> dict[str, int]:
    """The first user-agent line naming each token (as rfc9309 or google reads the value)."""
    lines: dict[str, int] = {}
    for group in groups:
        for line, raw in zip(group.agent_lines, group.raw_agents, strict=False):
            for profile in ("rfc9309", "google"):
                lines.setdefault(token_for(profile, raw), line)
        for token in group.agents:
            lines.setdefault(token, group.line)
    return lines


@_rule
def _dropped_global_rules(ctx: _Context) -> Iterable[Diagnostic]:
    if ctx.profile == "gemini":
        return  # every token is judged with `*` as well (SPEC.md 4): nothing is dropped
    pools = ctx.pools()
    star = _unique(r for r in pools.get("*", []) if r.kind is RuleKind.DISALLOW)[0]
    first_lines = _agent_lines(ctx.robots.groups)
    for token, rules in pools.items():
        if token == "*" or not star:
            continue
        disallows = _unique(r for r in rules if r.kind is RuleKind.DISALLOW)[0]
        own = _CoverIndex(disallows)
        lost = [p.rule for p in star if not disallows or next(own.coverers(p), None) is None]
        if not lost:
            continue
        line = first_lines.get(token, 0)
        shown = ", ".join(f"'{_rule_text(r)}' (line {r.line})" for r in lost[:5])
        more = f" and {len(lost) - 5} more" if len(lost) > 5 else ""
        yield ctx.diag(
            "RK306",
            line,
            f"'{token}' has a group of its own, so it ignores the '*' group: {shown}{more} "
            "do not apply to it",
            column=ctx.value_column(line),
            hint=f"repeat those rules in the '{token}' group if they should bind it too",
        )


# --------------------------------------------------------------------------- entry point


def lint(
    robots: RobotsTxt, *, profile: str | None = None, content_type: str | None = None
) -> tuple[Diagnostic, ...]:
    """Every diagnostic for `robots`: the parser's own plus the lint rules', sorted by line and column.

    `profile` selects profile-specific checks (default: the file's profile, else `rfc9309`).
    `content_type` is the HTTP Content-Type the file was served with, if known.
    """
    chosen = profile or robots.profile or "rfc9309"
    if chosen not in _PROFILES:
        raise UnknownProfile(f"unknown profile {chosen!r}; expected one of {', '.join(_PROFILES)}")
    ctx = _Context(robots, chosen, content_type, {line.number: line for line in robots.lines})
    found: list[Diagnostic] = list(robots.diagnostics)
    reported = {(d.code, d.line) for d in found} | {(d.code, 0) for d in found if d.code in _FILE_CODES}
    seen = {(d.code, d.line, d.column, d.message) for d in found}
    for check in _RULES:
        for diag in check(ctx):
            key = (diag.code, diag.line, diag.column, diag.message)
            # Re-derived parser codes give way to the parser's own report of the same line.
            parser_has = {(diag.code, diag.line), (diag.code, 0)} & reported
            if (diag.code < "RK2" and parser_has) or key in seen:
                continue
            seen.add(key)
            found.append(diag)
    if any(d.code == "RK230" for d in found):
        # An HTML page makes its tag lines look like bad keys; the one RK230 says it better.
        tags = {n for n, line in ctx.lines.items() if line.raw.lstrip().startswith("<")}
        found = [d for d in found if not (d.code in _HTML_NOISE and d.line in tags)]
    return tuple(sorted(found, key=lambda d: (d.line, d.column, d.code)))
