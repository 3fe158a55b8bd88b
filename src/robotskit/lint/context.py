"""What every lint rule shares: the ids (`CODES`), the `Context` a rule reads, and line helpers.

A rule is a pure function of a `Context` (the parsed file's `lines`, `groups`, `records`, `body`,
the chosen profile and the Content-Type) that yields `Diagnostic`s; `Check` is its type. The rule
groups live in `_lint_parse` (RK1xx), `_lint_values` (RK2xx) and `_lint_rules` (RK3xx);
`robotskit.lint` runs them. Every id is documented in docs/lint.md.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from robotskit.core.model import Diagnostic, Line, LineKind, Rule, RuleKind, Severity
from robotskit.core.profiles import PROFILES as ALL_PROFILES
from robotskit.core.profiles import get_profile, group_token

if TYPE_CHECKING:
    from robotskit.core.robots import ParsedRobots

__all__ = [
    "CODES",
    "INFO",
    "PROFILES",
    "RULE_KINDS",
    "WARN",
    "Check",
    "Context",
    "lines_of",
    "records_of",
    "rule_text",
    "token_for",
    "tokens_text",
]

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
    "RK123": (WARN, "full user-agent string in User-agent"),
    "RK130": (WARN, "invalid crawl-delay"),
    "RK131": (WARN, "invalid request-rate"),
    "RK132": (WARN, "sitemap is not an absolute URL"),
    "RK133": (WARN, "crawl-delay read leniently"),
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


PROFILES = tuple(ALL_PROFILES)
RULE_KINDS = (LineKind.ALLOW, LineKind.DISALLOW)


@lru_cache(maxsize=8192)  # a pure function of short strings that recur in every file
def token_for(profile: str, value: str) -> str:
    """The group token `profile` reads from a user-agent value ("" if none), lower-cased.

    The matcher's own reading (`core.profiles.group_token`), so lint and verdicts never disagree.
    The matcher reads the file's bytes (as latin-1 text); a `Line.value` is UTF-8 decoded text,
    so it is turned back into those bytes first (a non-ASCII token would otherwise be decoded twice).
    """
    raw = value.strip().encode("utf-8", "surrogatepass").decode("latin-1")
    return group_token(get_profile(profile), raw) or ""


def tokens_text(value: str) -> str:
    """How each profile reads a user-agent value: "rfc9309 uses 'a1', google uses 'a', ..."."""
    names = {p: token_for(p, value) or "(none)" for p in PROFILES}
    return ", ".join(f"{p} uses '{t}'" for p, t in names.items())


def rule_text(rule: Rule) -> str:
    """A rule as it would be written: `Disallow: /x`."""
    return f"{'Allow' if rule.kind is RuleKind.ALLOW else 'Disallow'}: {rule.raw or rule.pattern}"


@dataclass(frozen=True, slots=True)
class Context:
    """What a rule may read: the parsed file, the profile to check for, and how it was served."""

    robots: ParsedRobots
    profile: str
    content_type: str | None
    lines: Mapping[int, Line]
    # What `pools` found (it is asked by more than one rule); filled on first use.
    _pools: dict[str, list[Rule]] = field(default_factory=dict, init=False, repr=False, compare=False)

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
        """A diagnostic with `code`'s severity unless told otherwise; `span` is (column, length)."""
        if span is not None:
            column, length = span
        return Diagnostic(code, severity or CODES[code][0], line, message, column, hint, length)

    def on_value(self, code: str, line: Line, message: str, hint: str) -> Diagnostic:
        """A diagnostic whose caret underlines the whole value of `line`."""
        return self.diag(code, line.number, message, span=(line.value_column, len(line.value)), hint=hint)

    def on_key(
        self, code: str, line: Line, message: str, hint: str, severity: Severity | None = None
    ) -> Diagnostic:
        """A diagnostic whose caret underlines the key of `line`."""
        span = (line.key_column, len(line.key))
        return self.diag(code, line.number, message, span=span, hint=hint, severity=severity)

    def value_column(self, number: int, offset: int = 0) -> int:
        """The 1-based column of line `number`'s value plus `offset` (0 if the line has no value)."""
        line = self.lines.get(number)
        return line.value_column + offset if line and line.value_column else 0

    def pools(self) -> dict[str, list[Rule]]:
        """The rules each token obeys: all groups naming it, merged (RFC 9309 2.2.1); authored rules only.

        Computed once per context and shared: callers must not modify it.
        """
        pools = self._pools
        if pools:
            return pools
        for group in self.robots.groups:
            for token in dict.fromkeys(group.agents):
                pools.setdefault(token, []).extend(r for r in group.rules if r.pattern and not r.derived)
        return pools


Check = Callable[[Context], Iterable[Diagnostic]]


def lines_of(ctx: Context, *kinds: LineKind) -> Iterator[Line]:
    """The file's lines of these kinds, in order."""
    return (line for line in ctx.robots.lines if line.kind in kinds)


def records_of(ctx: Context, key: str) -> Iterator[Line]:
    """The file's `key: value` lines for one non-rule key (lower-case), in order."""
    return (line for line in ctx.robots.lines if line.kind is LineKind.OTHER and line.key.lower() == key)
