"""The linter: every problem robotskit can see in a robots.txt, with a stable id.

This module owns the lint rules (ids RK2xx: directives and values, RK3xx: rules and groups)
and the merge with the parser's own diagnostics (RK1xx). Each rule is a small pure function of
a `_Context` (the parsed file's `lines`, `groups`, `records`, `body`) registered in `_RULES`;
nothing here does I/O. Rules may also re-derive an RK1xx diagnostic from the lexer's per-line
metadata so `lint` stays complete if the parser omits one; those are dropped when the parser
already reported the same code on the same line. Every id is documented in docs/lint.md.
"""

from __future__ import annotations

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
    "RK121": (ERR, "user-agent with no usable token"),
    "RK122": (WARN, "user-agent value reduced to a product token"),
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


def _octets(pattern: str) -> int:
    # SPEC.md 3: priority is the pattern length in octets, after normalisation.
    return len(pattern.encode("utf-8", "surrogatepass"))


def _literal_prefix(pattern: str) -> str:
    cut = [i for i in (pattern.find("*"), pattern.find("$")) if i >= 0]
    return pattern[: min(cut)] if cut else pattern


def _by_star_insertion(wide: str, narrow: str) -> bool:
    """True if `narrow` is `wide` with some `*` removed: then `wide` matches all `narrow` does."""
    j = 0
    for char in wide:
        if j < len(narrow) and char == narrow[j]:
            j += 1
        elif char != "*":
            return False
    return j == len(narrow)


def _covers(wide: str, narrow: str) -> bool:
    """A sufficient test that every path `narrow` matches is also matched by `wide`."""
    if _by_star_insertion(wide, narrow):
        return True
    if wide.endswith("$"):
        return False
    # Without `$`, a pattern that matches a string matches all its extensions; every path
    # `narrow` matches starts with its literal prefix, and every path starts with `/`.
    return match_end(wide, "/") is not None or match_end(wide, _literal_prefix(narrow)) is not None


def _overlap(a: str, b: str) -> bool:
    """A heuristic: some path is matched by both (tried on each pattern's plainest path)."""
    for pattern in (a, b):
        sample = pattern.rstrip("$").replace("*", "")
        if match_end(a, sample) is not None and match_end(b, sample) is not None:
            return True
    return False


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
    ) -> Diagnostic:
        return Diagnostic(code, severity or CODES[code][0], line, message, column, hint, length)

    def value_column(self, number: int, offset: int = 0) -> int:
        line = self.lines.get(number)
        return line.value_column + offset if line and line.value_column else 0

    def pools(self) -> dict[str, list[Rule]]:
        """The rules each token obeys: all groups naming it, merged (SPEC.md 1), authored rules only."""
        pools: dict[str, list[Rule]] = {}
        for group in self.robots.groups:
            for token in dict.fromkeys(group.agents):
                pools.setdefault(token, []).extend(r for r in group.rules if not r.derived)
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
        span = {"column": line.key_column, "length": len(line.key)}
        if key in _UNSUPPORTED:
            severity, why = _UNSUPPORTED[key]
            yield ctx.diag(
                "RK202",
                line.number,
                f"'{line.key}' has no effect for most crawlers",
                hint=why,
                severity=severity,
                **span,
            )
        elif key in _GOOGLE_IGNORES and ctx.profile == "google":
            yield ctx.diag(
                "RK202",
                line.number,
                f"Google ignores '{line.key}'",
                hint="set Googlebot's crawl rate in Search Console; other crawlers may honour it",
                **span,
            )
        elif key not in _KNOWN_RECORDS:
            close = difflib.get_close_matches(key, _ALL_KEYS, n=1, cutoff=0.75)
            hint = f"did you mean '{close[0]}'?" if close else "crawlers skip lines they do not know"
            yield ctx.diag(
                "RK201", line.number, f"unknown directive '{line.key}' is ignored", hint=hint, **span
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
            where = {"column": ctx.value_column(line.number, start + offset), "length": len(member)}
            allowed = _SIGNAL_USE if key == "use" else {"yes", "no"}
            if not key or answer not in allowed or key in seen:
                problem = "repeated" if key in seen else "not 'name=yes' or 'name=no'"
                yield ctx.diag(
                    "RK220",
                    line.number,
                    f"Content-Signal member '{member}' is {problem}",
                    hint="write e.g. 'Content-Signal: search=yes, ai-train=no'",
                    **where,
                )
            elif key not in {*SIGNAL_KEYS, "use"}:
                yield ctx.diag(
                    "RK222",
                    line.number,
                    f"Content-Signal key '{key}' is not one of search, ai-input, ai-train",
                    hint="crawlers ignore keys they do not know",
                    **where,
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
            where = {"column": column + max(value.find(key), 0), "length": len(key)}
            if answer not in ("tok:y", "tok:n"):
                yield ctx.diag(
                    "RK221",
                    line.number,
                    f"Content-Usage '{key}' is not y or n",
                    **where,
                    hint="preferences are the tokens y and n: 'train-ai=n'",
                )
            elif key not in USAGE_LABELS:
                yield ctx.diag(
                    "RK222",
                    line.number,
                    f"Content-Usage category '{key}' is not in the AI-preferences vocabulary",
                    hint="known: " + ", ".join(USAGE_LABELS),
                    **where,
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


def _pair_diagnostics(ctx: _Context, rules: list[Rule]) -> Iterator[Diagnostic]:
    for index, rule in enumerate(rules):
        column = ctx.value_column(rule.line)
        for other in rules:
            if other is rule:
                continue
            if other.kind is rule.kind and other.pattern == rule.pattern:
                if rules.index(other) < index:  # report the later copy, pointing at the first
                    yield ctx.diag(
                        "RK301",
                        rule.line,
                        f"duplicate of line {other.line}: '{_rule_text(rule)}'",
                        column=column,
                        hint="delete one of them",
                    )
                    break
                continue
            longer = _octets(other.pattern) > _octets(rule.pattern)
            if longer and _covers(other.pattern, rule.pattern):
                code, verb = ("RK302", "redundant") if other.kind is rule.kind else ("RK303", "overridden")
                yield ctx.diag(
                    code,
                    rule.line,
                    f"'{_rule_text(rule)}' never decides ({verb}): '{_rule_text(other)}' "
                    f"(line {other.line}) is longer and matches every URL it matches",
                    column=column,
                    hint="the longest matching rule wins (RFC 9309 2.2.2)",
                )
                break
            tie = _octets(other.pattern) == _octets(rule.pattern) and other.kind is not rule.kind
            if tie and rule.kind is RuleKind.DISALLOW and _overlap(rule.pattern, other.pattern):
                yield ctx.diag(
                    "RK304",
                    rule.line,
                    f"'{_rule_text(rule)}' ties with '{_rule_text(other)}' (line {other.line}): "
                    "equal length, so the allow wins where both match",
                    column=column,
                    hint="RFC 9309 2.2.2: on a tie the least restrictive rule wins; "
                    "lengthen the rule you mean to win",
                )
                break


@_rule
def _rule_pairs(ctx: _Context) -> Iterable[Diagnostic]:
    for rules in ctx.pools().values():
        yield from _pair_diagnostics(ctx, rules)


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


def _first_line(groups: Iterable[Group], token: str) -> int:
    return min(
        line
        for g in groups
        if token in g.agents
        for line, raw in zip(g.agent_lines, g.raw_agents, strict=False)
        if token_for("rfc9309", raw) == token or token_for("google", raw) == token
    )


@_rule
def _dropped_global_rules(ctx: _Context) -> Iterable[Diagnostic]:
    if ctx.profile == "gemini":
        return  # every token is judged with `*` as well (SPEC.md 4): nothing is dropped
    pools = ctx.pools()
    star = [r for r in pools.get("*", []) if r.kind is RuleKind.DISALLOW]
    for token, rules in pools.items():
        if token == "*" or not star:
            continue
        own = [r.pattern for r in rules if r.kind is RuleKind.DISALLOW]
        lost = [r for r in star if not any(_covers(p, r.pattern) for p in own)]
        if not lost:
            continue
        try:
            line = _first_line(ctx.robots.groups, token)
        except ValueError:
            line = next(g.line for g in ctx.robots.groups if token in g.agents)
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
    reported = {(d.code, d.line) for d in found}
    seen = {(d.code, d.line, d.column, d.message) for d in found}
    for check in _RULES:
        for diag in check(ctx):
            key = (diag.code, diag.line, diag.column, diag.message)
            # Re-derived parser codes give way to the parser's own report of the same line.
            if (diag.code < "RK2" and (diag.code, diag.line) in reported) or key in seen:
                continue
            seen.add(key)
            found.append(diag)
    if any(d.code == "RK230" for d in found):
        # An HTML page makes every tag line RK112; the one RK230 says it better.
        found = [d for d in found if d.code != "RK112"]
    return tuple(sorted(found, key=lambda d: (d.line, d.column, d.code)))
