"""AI-era usage preferences in robots.txt, typed: Content-Signal, Content-Usage, LLM-Policy, License.

Owns: reading these records out of `ParsedRobots.records` and deciding which ones speak to an
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
via `ParsedRobots.groups_for`). For Content-Signal only, when those groups carry no Content-Signal
line, the `*` group's and ungrouped lines stand in, because Cloudflare presents the signal as a
site-wide condition of access (the `scope` field says which happened).

The value classes live in `robotskit._ai_prefs_model` and the RFC 9651 Dictionary parser in
`robotskit._structured_fields`; both are re-exported here, the public home of every name.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from robotskit.ai_prefs.model import (
    SIGNAL_KEYS,
    USAGE_LABELS,
    ContentSignal,
    ContentUsage,
    Signal,
    UsagePreference,
    restrictiveness,
)
from robotskit.ai_prefs.structured_fields import parse_sf_dictionary
from robotskit.core.model import Group, Record
from robotskit.core.pattern import pattern_matches
from robotskit.core.profiles import get_profile, profile_for_url
from robotskit.core.url import (
    google_escape_pattern,
    path_params_query,
    rfc_normalise_path,
    rfc_normalise_pattern,
)

if TYPE_CHECKING:
    from robotskit.core.agents import Agent
    from robotskit.core.robots import ParsedRobots

CONTENT_SIGNAL = "content-signal"
CONTENT_USAGE = "content-usage"
LLM_POLICY = "llm-policy"
LICENSE = "license"

__all__ = [
    "CONTENT_SIGNAL",
    "CONTENT_USAGE",
    "LICENSE",
    "LLM_POLICY",
    "SIGNAL_KEYS",
    "USAGE_LABELS",
    "ContentSignal",
    "ContentUsage",
    "Signal",
    "UsagePreference",
    "content_signal",
    "content_usage",
    "licenses",
    "llm_policies",
    "parse_sf_dictionary",
]

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

    def __init__(self, robots: ParsedRobots, url: str) -> None:
        profile = get_profile(robots.profile) if robots.profile else profile_for_url(url)
        self.google = not profile.normalise_urls
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


def _records(robots: ParsedRobots, key: str) -> tuple[Record, ...]:
    return tuple(r for r in robots.records if r.key == key)


def _applicable_groups(robots: ParsedRobots, agent: str | Agent | None, url: str | None) -> tuple[Group, ...]:
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
    robots: ParsedRobots, agent: str | Agent | None, url: str | None
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
    robots: ParsedRobots, agent: str | Agent | None, url: str | None = None
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
            elif priority > current[0] or (
                priority == current[0]
                and restrictiveness(signal.allowed) > restrictiveness(current[1].allowed)
            ):
                best[signal.key] = (priority, signal)
    if not best:
        return None
    return ContentSignal(
        signals=tuple(best[key][1] for key in order),
        scope=scope,
        lines=tuple(sorted(set(lines))),
        scoped_paths=tuple(dict.fromkeys(skipped)),
    )


# --- Content-Usage -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _UsageRule:
    line: int
    path: str
    expression: str
    members: dict[str, str] | None


def _usage_rules(robots: ParsedRobots, agent: str | Agent | None, url: str) -> tuple[_UsageRule, ...]:
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
            if current is None or restrictiveness(pref.allowed) > restrictiveness(current.allowed):
                chosen[label] = pref
    return tuple(chosen.values()), valid


def content_usage(robots: ParsedRobots, url: str, agent: str | Agent | None) -> ContentUsage | None:
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


def llm_policies(robots: ParsedRobots) -> tuple[Record, ...]:
    """Every `LLM-Policy:` line, raw (line, key, value, group): no settled format exists yet."""
    return _records(robots, LLM_POLICY)


def licenses(robots: ParsedRobots) -> tuple[Record, ...]:
    """Every `License:` line (e.g. an RSL licence URL), raw."""
    return _records(robots, LICENSE)
