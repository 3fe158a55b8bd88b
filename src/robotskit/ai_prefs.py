"""AI-era usage preferences in robots.txt, typed: Content-Signal, Content-Usage, LLM-Policy, License.

Owns: reading these records out of `RobotsTxt.records` and deciding which ones speak to an
agent (and a URL). They never change allow/disallow (SPEC.md 5); they say what a crawler may
*do* with what it is allowed to fetch. Pure functions of a parsed file: no I/O.

Two vocabularies exist and are kept apart:

- Cloudflare's Content Signals Policy (contentsignals.org): `Content-Signal: search=yes,
  ai-input=no, ai-train=no`, written inside a group (usually `User-agent: *`). Values are
  `yes`/`no`; keys other than the three are kept (Cloudflare's managed files add `use=`).
  An optional leading path (`Content-Signal: /blog/ ai-train=no`) scopes a line, the form
  contentsignals.org tooling and many sites use.
- IETF AI preferences (draft-ietf-aipref-attach section 3, draft-ietf-aipref-vocab section 6):
  `Content-Usage: [path SP] train-ai=n, search=y` is a group rule. The value is an RFC 9651
  Dictionary, case-sensitive, whose `y`/`n` Tokens are the preferences; a value that does not
  parse means every preference is unknown. The rule with the longest matching path wins (the
  same byte-length prefix matching as Allow/Disallow, RFC 9309 2.2.2); rules with identical
  paths combine most-restrictively (vocab section 7.1); a disallowed URL has no preferences.

Group scoping (both keys): the groups that apply to the agent (RFC 9309 2.2.1 group selection,
via `RobotsTxt.groups_for`). For Content-Signal only, when those groups carry no Content-Signal
line, the `*` group's and ungrouped lines stand in, because Cloudflare presents the signal as a
site-wide condition of access (the `scope` field says which happened).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from robotskit._model import Group, Record
from robotskit._pattern import pattern_matches
from robotskit._url import (
    google_escape_pattern,
    path_params_query,
    rfc_normalise_path,
    rfc_normalise_pattern,
    scheme_of,
)

if TYPE_CHECKING:
    from robotskit._robots import RobotsTxt
    from robotskit.agents import Agent

CONTENT_SIGNAL = "content-signal"
CONTENT_USAGE = "content-usage"
LLM_POLICY = "llm-policy"
LICENSE = "license"

SIGNAL_KEYS = ("search", "ai-input", "ai-train")  # Cloudflare's three signals
USAGE_LABELS = ("train-ai", "ai-use", "search")  # draft-ietf-aipref-vocab section 6.1


def _yes_no(value: str) -> bool | None:
    lowered = value.strip().lower()
    if lowered == "yes":
        return True
    if lowered == "no":
        return False
    return None


@dataclass(frozen=True, slots=True)
class Signal:
    """One `key=value` of a Content-Signal line. `allowed` is True for yes, False for no, else None."""

    key: str
    value: str
    line: int
    path: str = ""

    @property
    def allowed(self) -> bool | None:
        return _yes_no(self.value)


@dataclass(frozen=True, slots=True)
class ContentSignal:
    """The Content-Signal preferences that speak to one agent (and URL, if one was given).

    `signals` holds one entry per key (file order of first appearance), each with its line and
    path. `scope` is "group" (from a group naming the agent) or "global" (the `*` group, or
    lines outside any group). `lines` are the contributing line numbers. `scoped_paths` lists
    the paths of path-scoped lines that were skipped because no URL was given.
    """

    signals: tuple[Signal, ...]
    scope: str
    lines: tuple[int, ...]
    scoped_paths: tuple[str, ...] = ()

    def get(self, key: str) -> Signal | None:
        wanted = key.lower()
        return next((s for s in self.signals if s.key == wanted), None)

    def _flag(self, key: str) -> bool | None:
        signal = self.get(key)
        return None if signal is None else signal.allowed

    @property
    def search(self) -> bool | None:
        return self._flag("search")

    @property
    def ai_input(self) -> bool | None:
        return self._flag("ai-input")

    @property
    def ai_train(self) -> bool | None:
        return self._flag("ai-train")

    @property
    def extra(self) -> tuple[Signal, ...]:
        """Keys other than Cloudflare's three (e.g. `use=reference`), kept as written."""
        return tuple(s for s in self.signals if s.key not in SIGNAL_KEYS)

    def to_dict(self) -> dict[str, Any]:
        return {
            "scope": self.scope,
            "lines": list(self.lines),
            "signals": {
                s.key: {"value": s.value, "allowed": s.allowed, "line": s.line, "path": s.path}
                for s in self.signals
            },
            "scoped_paths": list(self.scoped_paths),
        }


@dataclass(frozen=True, slots=True)
class UsagePreference:
    """One category of a Content-Usage rule: `value` is the Token (`y`/`n`) or the raw member text."""

    label: str
    value: str
    line: int

    @property
    def allowed(self) -> bool | None:
        """vocab section 6.5: Token `y` allows, Token `n` disallows, anything else is unknown."""
        return {"y": True, "n": False}.get(self.value)


@dataclass(frozen=True, slots=True)
class ContentUsage:
    """The Content-Usage preferences for one URL and agent: the winning rule(s) and their values.

    `path` is the winning rule's path as written ("" for a rule without a path, which covers
    every URL). `preferences` holds one entry per label; when several rules share the winning
    path, a label disallowed by any of them is disallowed (vocab section 7.1). `valid` is False
    when a winning value failed to parse as an RFC 9651 Dictionary (all its preferences unknown).
    """

    path: str
    preferences: tuple[UsagePreference, ...]
    lines: tuple[int, ...]
    raw: tuple[str, ...]
    valid: bool = True

    def get(self, label: str) -> UsagePreference | None:
        return next((p for p in self.preferences if p.label == label), None)

    def _flag(self, label: str) -> bool | None:
        pref = self.get(label)
        return None if pref is None else pref.allowed

    @property
    def train_ai(self) -> bool | None:
        return self._flag("train-ai")

    @property
    def ai_use(self) -> bool | None:
        return self._flag("ai-use")

    @property
    def search(self) -> bool | None:
        return self._flag("search")

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "lines": list(self.lines),
            "raw": list(self.raw),
            "valid": self.valid,
            "preferences": {
                p.label: {"value": p.value, "allowed": p.allowed, "line": p.line} for p in self.preferences
            },
        }


# --- RFC 9651 Dictionary (only what Content-Usage needs: keys and Token/other bare items) -------

_LCALPHA = "abcdefghijklmnopqrstuvwxyz"
_KEY_FIRST = frozenset(_LCALPHA + "*")
_KEY_REST = frozenset(_LCALPHA + "0123456789_-.*")
_ALPHA = frozenset(_LCALPHA + _LCALPHA.upper())
_TCHAR = frozenset("!#$%&'*+-.^_`|~0123456789") | _ALPHA
_TOKEN_REST = _TCHAR | frozenset(":/")
_BASE64 = frozenset(_LCALPHA + _LCALPHA.upper() + "0123456789+/=")


class _SFError(ValueError):
    """The text is not an RFC 9651 Dictionary."""


class _Reader:
    """A cursor over the field value; each method consumes one production of RFC 9651 section 4.2."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def skip(self, chars: str) -> None:
        while self.peek() and self.peek() in chars:
            self.pos += 1

    def key(self) -> str:
        if self.peek() not in _KEY_FIRST:
            raise _SFError("bad key")
        start = self.pos
        while self.peek() in _KEY_REST:
            self.pos += 1
        return self.text[start : self.pos]

    def bare_item(self) -> str:
        """Return `tok:<token>` for Tokens, else `<kind>:<text>` (only Tokens carry preferences)."""
        char = self.peek()
        start = self.pos
        if char == "-" or char.isdigit():
            self.pos += 1
            self.skip("0123456789.")
            return "num:" + self.text[start : self.pos]
        if char == '"':
            self.pos += 1
            while True:
                char = self.peek()
                if not char or not (" " <= char <= "~"):
                    raise _SFError("unterminated string")
                self.pos += 1
                if char == "\\":
                    if self.peek() not in ('"', "\\"):
                        raise _SFError("bad escape")
                    self.pos += 1
                elif char == '"':
                    return "str:" + self.text[start : self.pos]
        if char == "*" or char in _ALPHA:
            self.pos += 1
            while self.peek() in _TOKEN_REST:
                self.pos += 1
            return "tok:" + self.text[start : self.pos]
        if char == ":":
            self.pos += 1
            while self.peek() in _BASE64:
                self.pos += 1
            if self.peek() != ":":
                raise _SFError("bad byte sequence")
            self.pos += 1
            return "bin:" + self.text[start : self.pos]
        if char == "?":
            self.pos += 1
            if self.peek() not in ("0", "1"):
                raise _SFError("bad boolean")
            self.pos += 1
            return "bool:" + self.text[start : self.pos]
        raise _SFError("bad item")

    def parameters(self) -> None:
        # vocab 6.4: parameters carry no meaning; they are parsed only to be skipped.
        while self.peek() == ";":
            self.pos += 1
            self.skip(" ")
            self.key()
            if self.peek() == "=":
                self.pos += 1
                self.bare_item()

    def item_or_inner_list(self) -> str:
        if self.peek() == "(":
            self.pos += 1
            while True:
                self.skip(" ")
                if self.peek() == ")":
                    self.pos += 1
                    self.parameters()
                    return "list:"
                self.bare_item()
                self.parameters()
                if self.peek() not in (" ", ")"):
                    raise _SFError("bad inner list")
        value = self.bare_item()
        self.parameters()
        return value

    def dictionary(self) -> dict[str, str]:
        """RFC 9651 4.2.2: members separated by `,` and optional whitespace; no trailing comma."""
        result: dict[str, str] = {}
        self.skip(" ")
        while self.peek():
            key = self.key()
            if self.peek() == "=":
                self.pos += 1
                result[key] = self.item_or_inner_list()
            else:
                result[key] = "bool:?1"
                self.parameters()
            self.skip(" \t")
            if not self.peek():
                break
            if self.peek() != ",":
                raise _SFError("expected ','")
            self.pos += 1
            self.skip(" \t")
            if not self.peek():
                raise _SFError("trailing ','")
        return result


def parse_sf_dictionary(text: str) -> dict[str, str] | None:
    """Parse an RFC 9651 Dictionary; values are `tok:<token>`, `str:...`, `bool:?1` etc.

    Returns None when the text is not a Dictionary (vocab 6.5: then every preference is
    unknown). A repeated key keeps its last value (RFC 9651 4.2.2).
    """
    try:
        return _Reader(text).dictionary()
    except _SFError:
        return None


# --- shared helpers ------------------------------------------------------------------------------


def _split_path(value: str) -> tuple[str, str]:
    """attach section 3.2: a value starting with `/` begins with a path that ends at SP or HTAB."""
    value = value.strip()
    if not value.startswith("/"):
        return "", value
    for index, char in enumerate(value):
        if char in " \t":
            return value[:index], value[index:].strip()
    return value, ""


class _PathMatcher:
    """Matches record paths against one URL with the profile's normalisation (SPEC.md 1)."""

    def __init__(self, robots: RobotsTxt, url: str) -> None:
        profile = robots.profile or ("gemini" if scheme_of(url) == "gemini" else "rfc9309")
        self.google = profile == "google"
        path = path_params_query(url)
        self.path = path if self.google else rfc_normalise_path(path)

    def pattern(self, raw_path: str) -> str:
        # Record values are UTF-8 text; patterns are normalised from their bytes (latin-1 view).
        as_bytes = raw_path.encode("utf-8").decode("latin-1")
        return google_escape_pattern(as_bytes) if self.google else rfc_normalise_pattern(as_bytes)

    def matches(self, raw_path: str) -> tuple[bool, int]:
        """(matched, priority): priority is the normalised pattern's length (RFC 9309 2.2.2)."""
        if not raw_path:
            return True, 0
        pattern = self.pattern(raw_path)
        return pattern_matches(pattern, self.path), len(pattern)


def _records(robots: RobotsTxt, key: str) -> tuple[Record, ...]:
    return tuple(r for r in robots.records if r.key == key)


def _applicable_groups(robots: RobotsTxt, agent: str | Agent | None, url: str | None) -> tuple[Group, ...]:
    # The URL picks the profile (gemini:// URLs judge every purpose token, SPEC.md 4).
    return tuple(robots.groups_for(agent, url or "/"))


# --- Content-Signal ------------------------------------------------------------------------------


def _parse_signal_line(record: Record) -> tuple[str, tuple[Signal, ...]]:
    path, rest = _split_path(record.value)
    signals = []
    for part in rest.split(","):
        if not part.strip():
            continue
        key, _, value = part.partition("=")
        signals.append(Signal(key.strip().lower(), value.strip().lower(), record.line, path))
    return path, tuple(signals)


def _signal_records(
    robots: RobotsTxt, agent: str | Agent | None, url: str | None
) -> tuple[tuple[Record, ...], str]:
    records = _records(robots, CONTENT_SIGNAL)
    groups = _applicable_groups(robots, agent, url)
    indices = {g.index for g in groups}
    own = tuple(r for r in records if r.group is not None and r.group in indices)
    if own:
        return own, "global" if all(g.is_global for g in groups) else "group"
    # The agent's groups say nothing: the `*` groups and ungrouped lines stand in (module docstring).
    global_indices = {g.index for g in robots.groups if g.is_global}
    fallback = tuple(r for r in records if r.group is None or r.group in global_indices)
    return fallback, "global"


def content_signal(
    robots: RobotsTxt, agent: str | Agent | None, url: str | None = None
) -> ContentSignal | None:
    """The Cloudflare Content-Signal preferences for `agent` (and `url`), or None if none apply.

    Without `url`, only lines without a path count (path-scoped ones are listed in
    `scoped_paths`). With `url`, path-scoped lines whose path matches join in and, per key, the
    longest matching path wins; on a tie `no` beats `yes` (the most restrictive reading).
    """
    records, scope = _signal_records(robots, agent, url)
    if not records:
        return None
    matcher = _PathMatcher(robots, url) if url is not None else None
    best: dict[str, tuple[int, Signal]] = {}
    order: list[str] = []
    lines: list[int] = []
    skipped: list[str] = []
    for record in records:
        path, signals = _parse_signal_line(record)
        priority = 0
        if path:
            if matcher is None:
                skipped.append(path)
                continue
            matched, priority = matcher.matches(path)
            if not matched:
                continue
        if signals:
            lines.append(record.line)
        for signal in signals:
            current = best.get(signal.key)
            if current is None:
                order.append(signal.key)
                best[signal.key] = (priority, signal)
            elif priority > current[0] or (priority == current[0] and _more_restrictive(signal, current[1])):
                best[signal.key] = (priority, signal)
    if not best:
        return None
    return ContentSignal(
        signals=tuple(best[key][1] for key in order),
        scope=scope,
        lines=tuple(sorted(set(lines))),
        scoped_paths=tuple(dict.fromkeys(skipped)),
    )


def _more_restrictive(new: Signal, old: Signal) -> bool:
    rank = {False: 2, True: 1, None: 0}
    return rank[new.allowed] > rank[old.allowed]


# --- Content-Usage -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _UsageRule:
    line: int
    path: str
    expression: str
    members: dict[str, str] | None


def _usage_rules(robots: RobotsTxt, agent: str | Agent | None, url: str) -> tuple[_UsageRule, ...]:
    indices = {g.index for g in _applicable_groups(robots, agent, url)}
    rules = []
    for record in _records(robots, CONTENT_USAGE):
        # attach section 3: Content-Usage is a group rule; lines outside the agent's groups do not apply.
        if record.group is None or record.group not in indices:
            continue
        path, expression = _split_path(record.value)
        rules.append(_UsageRule(record.line, path, expression, parse_sf_dictionary(expression)))
    return tuple(rules)


def _combine_usage(rules: Iterable[_UsageRule]) -> tuple[tuple[UsagePreference, ...], bool]:
    """vocab 7.1: for each label, any `n` wins, else any `y`, else unknown (kept as written)."""
    chosen: dict[str, UsagePreference] = {}
    valid = True
    for rule in rules:
        if rule.members is None:
            valid = False
            continue
        for label, item in rule.members.items():
            value = item[4:] if item.startswith("tok:") else item
            pref = UsagePreference(label, value, rule.line)
            current = chosen.get(label)
            if current is None or _usage_rank(pref) > _usage_rank(current):
                chosen[label] = pref
    return tuple(chosen.values()), valid


def _usage_rank(pref: UsagePreference) -> int:
    return {False: 2, True: 1, None: 0}[pref.allowed]


def content_usage(robots: RobotsTxt, url: str, agent: str | Agent | None) -> ContentUsage | None:
    """The IETF Content-Usage preferences for `url` as seen by `agent`, or None.

    None when no rule of the agent's groups matches the URL, and when the agent may not crawl
    the URL at all (attach section 3.1: "no preferences are implied for resources that are
    disallowed").
    """
    rules = _usage_rules(robots, agent, url)
    if not rules:
        return None
    matcher = _PathMatcher(robots, url)
    scored: list[tuple[int, _UsageRule]] = []
    for rule in rules:
        matched, priority = matcher.matches(rule.path)
        if matched:
            scored.append((priority, rule))
    if not scored or not robots.allowed(url, agent):
        return None
    top = max(priority for priority, _ in scored)
    winners = [rule for priority, rule in scored if priority == top]
    preferences, valid = _combine_usage(winners)
    return ContentUsage(
        path=winners[0].path,
        preferences=preferences,
        lines=tuple(rule.line for rule in winners),
        raw=tuple(rule.expression for rule in winners),
        valid=valid,
    )


# --- records kept raw ----------------------------------------------------------------------------


def llm_policies(robots: RobotsTxt) -> tuple[Record, ...]:
    """Every `LLM-Policy:` line, raw (line, key, value, group): no settled format exists yet."""
    return _records(robots, LLM_POLICY)


def licenses(robots: RobotsTxt) -> tuple[Record, ...]:
    """Every `License:` line (e.g. an RSL licence URL), raw."""
    return _records(robots, LICENSE)
