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

from robotskit.core.model import Rule, RuleKind
from robotskit.core.pattern import split_pattern
from robotskit.core.profiles import Profile
from robotskit.core.url import FAST_PATH_CHARACTERS, KEPT_ESCAPE, SCHEME_AUTHORITY

MAX_RULES = 160
MAX_WILDCARDS = 24
# Python's regex compiler costs about a microsecond per pattern character and several per `*`
# (each becomes a group): a rule set whose patterns weigh more than this (characters, plus
# STAR_WEIGHT per `*`) is not compiled, so no compile (there are three, each on first need)
# stalls a check for more than a few milliseconds.
MAX_WEIGHT = 4000
STAR_WEIGHT = 24
# A rule of more `*` than this keeps its set from being compiled at all: its regex costs the
# compiler about 10 µs per `*` on top of a fixed 0.5 ms (a 50-`*` rule's URL regex: about 1 ms,
# one check's stall on a hostile file) and buys nothing, since each `*` is an atomic lazy run
# that the regex engine steps through as the linear matcher does (measured: 13.0 µs per check
# on a 5,000-character path before the compile, 13.3 after). No real rule holds this many.
MAX_RULE_STARS = 16
MAX_URL = 2048
# A scheme://authority that ends where a '/' starts the path (as `SCHEME_AUTHORITY` reads it).
HOST_PREFIX = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://[^/?;#]*(?=/)")


def _rule_source(pattern: str) -> str:
    """The regex for one normalised pattern, matched at the start of the path.

    Middle segments must match leftmost (atomic lazy runs), as the linear matcher does; the
    last segment only has to occur somewhere after them, so it takes a greedy run, which the
    regex engine scans in C with a first-character test instead of one recursive step per
    position. Trailing `*`s of an unanchored pattern match anything and are dropped.
    """
    segments, anchored = split_pattern(pattern)
    if not anchored:
        while len(segments) > 1 and not segments[-1]:
            segments = segments[:-1]
    parts = [re.escape(segments[0])]
    for segment in segments[1:-1]:
        if segment:
            parts.append(f"(?>[^#]*?{re.escape(segment)})")
    if len(segments) > 1:
        parts.append(f"[^#]*{re.escape(segments[-1])}")
    if anchored:
        parts.append("(?=#|\\Z)")
    return "".join(parts)


# The rfc9309 normalisation encodes non-ASCII, controls, space, `"<>\\^`{|}`, `*` and `$` as `%HH`.
# With the printable characters it leaves alone, that is every character but '#' (which ends the
# path) and '%' (escapes are judged by KEPT_ESCAPE): `_raw_characters_safe` says when a rule set
# lets a path keep all of them raw. (Written `[^#%]`: a class spelt as ranges up to U+10FFFF costs
# the regex compiler milliseconds.)
_UPPER_HEX = frozenset("0123456789ABCDEF")


def _raw_characters_safe(rules: Sequence[Rule]) -> bool:
    """Whether a path may keep raw every character the normalisation would encode, for this rule set.

    Normalising turns such a character x into `%HH`. No normalised pattern can match x itself
    (patterns carry those characters escaped). If no pattern contains '%', no literal can match
    the '%' of `%HH` either, so the escape can only matter to a literal that starts on one of its
    hex digits: a segment after a `*` starting with 0-9 or A-F (the first segment is anchored at
    the path's start, before any escape). Without such patterns, every pattern matches the raw
    path exactly when it matches the normalised one (a `$` anchor included: a path ending in x or
    in `%HH` ends in no literal of such a pattern), so the verdict is the same.
    """
    for rule in rules:
        pattern = rule.pattern
        if "%" in pattern:
            return False
        if "*" in pattern:
            for segment in split_pattern(pattern)[0][1:]:
                if segment[:1] in _UPPER_HEX:
                    return False
    return True


class UrlCheck:
    """A compiled rule set: three anchored matchers and the verdict of each marker group.

    `url` takes a raw URL and fails (None) unless its fast shapes apply; `url_escaped` is the
    same for a URL with '%' escapes (a rule set whose `url` refuses every '%'), `path` takes a
    path already extracted and normalised, and matches unless it is longer than MAX_URL. Either
    way `verdicts[m.lastindex]` is the answer: every alternative, the final "no rule" one
    included, ends in an empty marker group, so the last group to close names the decision.
    Only `url` is compiled up front; the other two, needed only after a miss, on first use.
    """

    __slots__ = ("_path", "_path_source", "_url_escaped", "_url_escaped_source", "url", "verdicts")

    def __init__(self, url: Matcher, url_escaped_source: str, path_source: str, verdicts: tuple[bool, ...]):
        self.url = url
        self.verdicts = verdicts
        self._url_escaped_source = url_escaped_source
        self._path_source = path_source
        self._url_escaped: Matcher | None = None
        self._path: Matcher | None = None

    @property
    def url_escaped(self) -> Matcher:
        matcher = self._url_escaped
        if matcher is None:  # idempotent: racing threads compile equal patterns
            matcher = self._url_escaped = _compile(self._url_escaped_source)
        return matcher

    @property
    def path(self) -> Matcher:
        matcher = self._path
        if matcher is None:
            matcher = self._path = _compile(self._path_source)
        return matcher


Matcher = Callable[[str], "re.Match[str] | None"]
_NEVER: Matcher = re.compile(r"(?!)").match


def _compile(source: str) -> Matcher:
    try:
        return re.compile(source, re.DOTALL).match
    except (re.error, RecursionError, OverflowError):  # pragma: no cover - defensive: `url` compiled
        return _NEVER  # a miss: the caller takes the general path


def compile_url_check(rules: Sequence[Rule], profile: Profile, host: str = "") -> UrlCheck | None:
    """The compiled check for `rules` under `profile`, or None when the set is not worth compiling.

    `host`, a scheme://authority matched by `HOST_PREFIX`, is the one the URLs are expected on: the
    URL regexes compare it as a literal first, which costs the regex engine less than scanning
    it as a scheme and an authority (the result is the same either way).
    """
    usable = [rule for rule in rules if rule.pattern[:1] in ("/", "*")]
    wildcards = sum("*" in rule.pattern for rule in usable)
    if len(usable) > MAX_RULES or wildcards > MAX_WILDCARDS:
        return None
    counts = [rule.pattern.count("*") for rule in usable]
    if max(counts, default=0) > MAX_RULE_STARS:
        return None
    if sum(len(rule.pattern) for rule in usable) + STAR_WEIGHT * sum(counts) > MAX_WEIGHT:
        return None
    ordered = sorted(usable, key=lambda rule: (-len(rule.pattern), not rule.allow, rule.line))
    # Every path starts with '/'. When every pattern does too, match it once: each alternative
    # then starts with the path's second character, and the regex engine skips an alternative
    # whose first literal differs after a single comparison (the marker group comes last for
    # that reason: an alternative that opens with a group is entered before it can fail).
    shared = "/" if all(rule.pattern[0] == "/" for rule in ordered) else ""
    alternatives: list[str] = []
    verdicts: list[bool] = [True]  # group 0 is the whole match, never a marker
    if profile.robots_txt_always_allowed:
        robots_txt = "/robots\\.txt(?=#|\\Z)"
        alternatives.append(f"{robots_txt[len(shared) :]}()")  # RFC 9309 2.2.2, before every rule
        verdicts.append(True)
    for rule in ordered:
        alternatives.append(f"{_rule_source(rule.pattern)[len(shared) :]}()")
        verdicts.append(rule.kind is RuleKind.ALLOW)
    alternatives.append("()")  # no rule matched
    verdicts.append(True)
    rules_source = shared + "(?:" + "|".join(alternatives) + ")"
    # Long input never reaches the alternatives (their cost grows with its length): the
    # possessive bounded run costs O(1) in DOTALL mode, where '.' needs no per-character test.
    short = f"(?=.{{0,{MAX_URL}}}+\\Z)"
    # Without a chosen profile a gemini:// URL is judged by the gemini profile, not this one.
    not_gemini = "" if "gemini" in profile.default_for_schemes else "(?![Gg][Ee][Mm][Ii][Nn][Ii]://)"
    # `before`: tests on the whole URL; `after`: tests where the path starts (after the authority)
    before, after = "", "(?=/)"
    clean = after  # google matches the path as given: a path starting at '?' or ';' takes the slow path
    if profile.normalise_urls:
        # The path must be one the rfc9309 normalisation leaves unchanged (as FAST_RFC_PATH), or
        # differ from it only where no pattern of this set can tell (see `_raw_characters_safe`).
        if _raw_characters_safe(ordered):
            # Then only '%' can matter: a run to the end that stops at a '%' that is not a kept
            # escape (a single-character loop in the regex engine for the usual URL without one).
            clean = f"(?=/(?:[^#%]++|{KEPT_ESCAPE})*+(?:#|\\Z))"
            before = f"(?=[^%]*+(?:{KEPT_ESCAPE}[^%]*+)*+\\Z)"
        else:
            clean = after = f"(?=/(?:[{FAST_PATH_CHARACTERS}]++|{KEPT_ESCAPE})*+(?:#|\\Z))"
    # The expected host is tried first: a URL starting with it followed by '/' has exactly it as
    # its scheme://authority, so both alternatives end in the same place. (The gemini test only
    # where the host is not the expected one: that host is never gemini:// unless the check is
    # meant for gemini:// URLs, i.e. its profile was chosen at parse time.)
    scheme_authority = not_gemini + SCHEME_AUTHORITY
    found = HOST_PREFIX.match(host + "/") if host else None
    if found is not None and found.end() == len(host):
        scheme_authority = f"(?:{re.escape(host)}(?=/)|{scheme_authority})"
    try:
        url = re.compile(short + before + scheme_authority + after + rules_source, re.DOTALL)
    except (re.error, RecursionError, OverflowError):  # pragma: no cover - defensive
        return None
    escaped_source = short + scheme_authority + clean + rules_source
    return UrlCheck(url.match, escaped_source, short + rules_source, tuple(verdicts))
