"""One compiled regular expression that answers a whole check for a hot rule set.

A crawler asks the same rule set about many URLs. Once it has asked often enough, the rule set
is compiled into a single pattern matched against the URL itself:

    scheme://authority (or a bare /path)
    (?= the path needs no normalisation, up to '#' or the end )
    (?: (/robots.txt exactly) | (rule 1) | (rule 2) | ... | )     rules in priority order

The first alternative that matches is the deciding rule (SPEC.md 3: longest pattern, allow on
ties), and the final empty alternative means "no rule matched". Wildcards become atomic lazy
groups over `[^#]` (the path, never the fragment), so a pattern cannot backtrack into itself:
each alternative costs at most linear time in the path. A URL the expression does not match
(a path that needs normalising, an odd shape) takes the ordinary path in `_checker.make_checker`.
Only modest rule sets are compiled, and only modest URLs use the result: a huge or hostile rule
set stays with the index in `_pattern`, whose cost does not grow with the number of rules.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from robotskit._model import Rule, RuleKind
from robotskit._pattern import split_pattern
from robotskit._url import FAST_PATH_CHARACTERS, KEPT_ESCAPE, SCHEME_AUTHORITY
from robotskit.profiles import Profile

MAX_RULES = 160
MAX_WILDCARDS = 24
MAX_URL = 2048

UrlCheck = tuple[Callable[[str], "re.Match[str] | None"], tuple[bool, ...]]


def _rule_source(pattern: str) -> str:
    """The regex for one normalised pattern, matched at the start of the path."""
    segments, anchored = split_pattern(pattern)
    parts = [re.escape(segments[0])]
    for segment in segments[1:-1]:
        if segment:
            parts.append(f"(?>[^#]*?{re.escape(segment)})")
    if len(segments) > 1:
        last = segments[-1]
        if anchored:
            parts.append(f"[^#]*{re.escape(last)}")
        elif last:
            parts.append(f"(?>[^#]*?{re.escape(last)})")
    if anchored:
        parts.append("(?=#|\\Z)")
    return "".join(parts)


def compile_url_check(rules: Sequence[Rule], profile: Profile) -> UrlCheck | None:
    """The compiled check for `rules` under `profile`, or None when the set is not worth compiling."""
    usable = [rule for rule in rules if rule.pattern[:1] in ("/", "*")]
    wildcards = sum("*" in rule.pattern for rule in usable)
    if len(usable) > MAX_RULES or wildcards > MAX_WILDCARDS:
        return None
    ordered = sorted(usable, key=lambda rule: (-len(rule.pattern), not rule.allow, rule.line))
    # Every path starts with '/'. When every pattern does too, match it once: each alternative
    # then starts with the path's second character, and the regex engine skips an alternative
    # whose first literal differs after a single comparison.
    shared = "/" if all(rule.pattern[0] == "/" for rule in ordered) else ""
    alternatives: list[str] = []
    verdicts: list[bool] = [True]  # group 0 / no group: the empty alternative, no rule matched
    if profile.robots_txt_always_allowed:
        robots_txt = "/robots\\.txt(?=#|\\Z)"
        alternatives.append(f"({robots_txt[len(shared) :]})")  # RFC 9309 2.2.2, before every rule
        verdicts.append(True)
    for rule in ordered:
        alternatives.append(f"({_rule_source(rule.pattern)[len(shared) :]})")
        verdicts.append(rule.kind is RuleKind.ALLOW)
    alternatives.append("")
    if profile.normalise_urls:
        # The path must be one the rfc9309 normalisation leaves unchanged (as FAST_RFC_PATH).
        clean = f"(?=/(?:[{FAST_PATH_CHARACTERS}]++|{KEPT_ESCAPE})*+(?:#|\\Z))"
    else:
        clean = "(?=/)"  # Google matches the path as given; '?' or ';' first take the slow path
    source = SCHEME_AUTHORITY + clean + shared + "(?:" + "|".join(alternatives) + ")"
    try:
        compiled = re.compile(source, re.DOTALL)
    except (re.error, RecursionError, OverflowError):  # pragma: no cover - defensive
        return None
    return compiled.match, tuple(verdicts)
