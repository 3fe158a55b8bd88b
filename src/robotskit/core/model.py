"""The values robotskit hands out: frozen, slotted, picklable, and free of behaviour.

This module depends on nothing else in the package. Every other module builds these
values; nothing mutates them after construction, so they are safe to share between threads.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import NamedTuple


class RuleKind(enum.StrEnum):
    """What a rule does when it is the deciding match. Compares equal to its string value."""

    ALLOW = "allow"
    DISALLOW = "disallow"

    def __str__(self) -> str:
        return self.value


class Severity(enum.StrEnum):
    """How bad a diagnostic is. `error`: the line was dropped; `warning`: kept but likely wrong."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    def __str__(self) -> str:
        return self.value


class LineKind(enum.StrEnum):
    """What the lexer made of one physical line."""

    EMPTY = "empty"
    COMMENT = "comment"
    USER_AGENT = "user-agent"
    ALLOW = "allow"
    DISALLOW = "disallow"
    SITEMAP = "sitemap"
    OTHER = "other"  # a `key: value` pair with a key robots.txt matching does not use
    INVALID = "invalid"  # content that is not a `key: value` pair


class Line(NamedTuple):
    """One physical line of a robots.txt, as the lexer saw it (Google's per-line metadata).

    `raw` is the line's text (bytes decoded as UTF-8 with replacement, after the BOM, cut at
    the line-length limit and at a NUL). `key` is the field name as written, `value` the value
    with whitespace stripped (text, not yet normalised as a pattern). `key_column` and
    `value_column` are 1-based columns of both in `raw` (0 when absent).

    A named tuple, as `Rule` is: the lexer makes one per line for the linter, explain and
    reports, and a frozen dataclass cost 2.0 us to build against 0.4 us (its `__init__` sets
    each of the 13 fields through `object.__setattr__`): lexing the corpus's 502,765 lines
    took about twice as long.
    """

    number: int
    kind: LineKind
    raw: str
    key: str = ""
    value: str = ""
    key_column: int = 0
    value_column: int = 0
    has_comment: bool = False
    typo: bool = False  # an accepted misspelling such as `disalow` or `useragent`
    missing_colon: bool = False  # `Disallow /x`: whitespace stood in for the colon
    too_long: bool = False  # cut at the line-length limit
    had_nul: bool = False  # cut at a NUL byte
    invalid_utf8: bool = False


class Rule(NamedTuple):
    """An `allow` or `disallow` rule.

    `pattern` is the pattern as matched (after the profile's normalisation); `raw` is the value
    as written in the file. `line` is 1-based. `derived` marks rules the profile added (Google's
    `index.html` rule), which share the line of the rule they come from.

    A named tuple rather than a dataclass: large files hold tens of thousands of rules, and a
    tuple is built an order of magnitude faster while staying immutable and picklable.
    """

    line: int
    kind: RuleKind
    pattern: str
    raw: str = ""
    derived: bool = False

    @property
    def allow(self) -> bool:
        return self.kind is RuleKind.ALLOW


@dataclass(frozen=True, slots=True)
class Record:
    """Any other `key: value` line, kept so nothing is lost.

    `group` is the index (into `RobotsTxt.groups`) of the group the line stands in, or None
    before the first `user-agent` line. `key` is lower-cased.
    """

    line: int
    key: str
    value: str
    group: int | None = None


@dataclass(frozen=True, slots=True)
class Group:
    """A group: consecutive `user-agent` lines and the rules that follow them.

    `agents` are the tokens the group names, lower-cased, as the profile extracts them
    (`*` for the global agent). `agent_lines` are the line numbers of its user-agent lines,
    `raw_agents` the values as written.
    """

    index: int
    agents: tuple[str, ...]
    agent_lines: tuple[int, ...]
    raw_agents: tuple[str, ...]
    rules: tuple[Rule, ...]
    line: int = 0  # line of the first user-agent line; 0 for the Gemini preamble group

    @property
    def is_global(self) -> bool:
        return "*" in self.agents


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """A problem found in a robots.txt. Stable `code`s are documented in docs/lint.md.

    `line` and `column` are 1-based (column 0: the whole line). Parsing never raises; it
    reports through these.
    """

    code: str
    severity: Severity
    line: int
    message: str
    column: int = 0
    hint: str = ""
    length: int = 0  # how many characters from `column` the problem spans (0: to end of line)


@dataclass(frozen=True, slots=True)
class TokenVerdict:
    """The verdict for one agent token judged alone (one per token in multi-token decisions)."""

    token: str
    allowed: bool
    rule: Rule | None
    groups: tuple[int, ...]  # line numbers of the user-agent lines of the groups used
    matched: tuple[Rule, ...] = ()  # every rule that matched, deciding one first (explain only)


@dataclass(frozen=True, slots=True)
class Decision:
    """The answer to "may this agent fetch this URL?", with its provenance (SPEC.md section 7).

    `rule` is the deciding rule, or None when no rule matched (or the decision came from the
    fetch policy, e.g. an unreachable robots.txt). `verdicts` holds one entry per token judged.
    `path` is the path that was matched, after the profile's normalisation.
    """

    allowed: bool
    rule: Rule | None
    reason: str
    profile: str
    path: str = ""
    tokens: tuple[str, ...] = ()
    groups: tuple[int, ...] = ()
    verdicts: tuple[TokenVerdict, ...] = field(default=())
    source: str = ""  # fetch provenance when a client decided ("HTTP 200 fetched 2026-...")

    def __bool__(self) -> bool:
        return self.allowed
