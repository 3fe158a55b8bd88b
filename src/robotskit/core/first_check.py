"""The first check of a freshly parsed file, answered without building a check.

A crawler that parses a file and asks it once (a broad crawl, an audit) would otherwise pay for
everything a check is built from: the groups read, the view's token index, the plan, the rule
set, the check and its closures, each group's rules read and normalised line by line. Here the
verdict comes from a few C-level passes over the text instead:

- `quick_verdict` reads nothing but what judges the agent: the user-agent lines that name its
  token or `*` (one pass over the occurrences of "agent", each line found read exactly), their
  groups' extent, and among those groups' rule lines only the ones whose pattern can match the
  path at all (`skeleton.region_rules`, one regular-expression pass per group, or a few
  C-level passes over a long list of one kind of rule line);
- `first_verdict` does the same from groups read already (the view's `group_set`).

Either way the candidates' patterns are normalised as one joined string, and only those whose
every character occurs in the path (one `bytes.translate` tells) are tried, one by one: Python
steps are spent per group and per pattern that may match, never per line. The verdict is the
plan's (`checker.make_checker` over `View.plan`), which the property tests hold it to. None
means "left to the general path", for what these readings do not cover; `quick_verdict`'s
`Left.TO_RULE_SET` means the same where `first_verdict` would decline too (too many wildcards
or asterisks: the check is then built at once, the groups not read again first):

- `quick_verdict`: a line holding "agent" that is not written `User-agent:` at its start but may
  be a user-agent line (indented, misspelt: the skeleton reads those exactly), a file whose
  lines the parser cuts (a NUL, an over-long line), the gemini profile (every token judged
  alone, the preamble applies), an `Agent` with aliases, fallbacks or no token (a plain `Agent`
  is read as its token), a caller token that is empty or not ASCII;
- both: more than `_MAX_WILDCARDS` wildcard patterns left to try (a hostile file: the rule set
  bounds that cost).
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable, Sequence
from itertools import repeat

from robotskit.core.agents import Agent, product_token
from robotskit.core.lexer import DEFAULT_MAX_BYTES, MAX_LINE_BYTES, WHITESPACE, prepare
from robotskit.core.model import LineKind
from robotskit.core.parser import GroupLike
from robotskit.core.pattern import holding_every_character, pattern_matches
from robotskit.core.profiles import Profile, cached_group_token, group_token_cache
from robotskit.core.skeleton import directive, has_long_line, region_rules, rule_between
from robotskit.core.url import (
    google_escape_patterns,
    google_match_path,
    patterns_need_normalising,
    rfc_match_path,
    rfc_normalise_patterns,
)

__all__ = ["Left", "first_verdict", "quick_verdict"]


class Left(enum.Enum):
    """Why `quick_verdict` left a first check to the rule set, when `first_verdict` would too."""

    # More wildcard patterns to try than `_MAX_WILDCARDS`, or more asterisks in a group's lines
    # than a first check reads (`region_rules`; `first_verdict` counts its values' only, so a
    # group whose comments hold thousands may lose a first verdict it could have had: its check
    # is built, as any check after the first). Reading the groups again for `first_verdict`
    # would only repeat the work (1,000 shallow wildcard rules against a long path: the
    # candidate scan and the filter twice, about a third of the first check).
    TO_RULE_SET = "rule set"


# More wildcard or `$` patterns than this to try (see `_verdict`), or more `*` in a group's
# rules than `parser.MAX_FIRST_CHECK_STARS`: left to the rule set (whose filters and index bound
# a hostile file's cost).
_MAX_WILDCARDS = 32
# Up to this many candidates, each is tried (filtering them would cost more than it saves).
_FEW = 6
# More candidates than this are first filtered as a sample of about _SAMPLE (see `_verdict`).
_SAMPLED_FROM = 256
_SAMPLE = 32
# A file longer than this is searched for its user-agent lines between the first and the last
# "agent" only (see `_regions`).
_LONG_FILE = 8192
# A user-agent line as nearly every file writes it, in "\n" + the lowered bytes: the key at the
# line start, the colon right after it. For such a line the parser's fast path (`FAST_KEYS`) or
# `lex_line` reads a user-agent line whose value is the rest up to `#`, whitespace-stripped.
_USER_AGENT = b"\nuser-agent:"
_VALUE_START = len(_USER_AGENT)
_KEY_BEFORE_AGENT = len(b"\nuser-")
# Per caller token, such lines whose value may have that token or `*` (see `_judged_lines`).
_JUDGED_LINES: dict[str, re.Pattern[bytes]] = {}
_MAX_JUDGED_LINES = 256
# (profile reduces the caller's agent?, agent) -> the caller's token, for a valid one.
_CALLER_TOKENS: dict[tuple[bool, str], str] = {}
# UTF-8 of the two characters whose lower case holds an ASCII letter (U+0130 İ: "i" and a
# combining dot, U+212A KELVIN SIGN: "k"): a user-agent value holding one may have a token that
# its lowered bytes do not spell (only a token holding "i" or "k" can be such a one).
_LOWERS_TO_ASCII = (b"\xc4\xb0", b"\xe2\x84\xaa")


def quick_verdict(
    data: bytes | str, max_bytes: int, profile: Profile, agent: object, url: str
) -> bool | Left | None:
    """May `agent` (a string, an `Agent` with a token and no aliases or fallbacks, or None)
    fetch `url` under `profile`, `data` read as `parse_file` reads it? None when left to the
    general path, `Left.TO_RULE_SET` when left to the rule set (see the module docstring)."""
    if profile.judge_every_token or type(url) is not str:
        return None
    if agent is None:
        token = "*"
    else:
        if type(agent) is not str:
            agent = agent.lone_token if isinstance(agent, Agent) else None
            if agent is None:
                return None
        key = (profile.reduce_caller_agent, agent)
        token = _CALLER_TOKENS.get(key, "")
        if not token:
            token = (product_token(agent) if profile.reduce_caller_agent else agent).lower()
            if not token or not token.isascii():
                return None
            if len(_CALLER_TOKENS) >= _MAX_JUDGED_LINES:  # bounded: callers may pass ever-new agents
                _CALLER_TOKENS.clear()
            _CALLER_TOKENS[key] = token
    if type(data) is bytes and len(data) <= max_bytes and data[:1] != b"\xef":
        body = data  # (what `prepare` returns for it: no cut, no BOM)
    else:
        body = prepare(data, max(max_bytes, DEFAULT_MAX_BYTES))[0]  # as parse_file: never below
    if b"\r" in body:  # CR, LF and CRLF each end one line (split_lines)
        body = body.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    if b"\x00" in body or (len(body) > MAX_LINE_BYTES and has_long_line(body)):
        return None  # the parser cuts lines here
    body = b"\n" + body  # every line, the first too, follows a "\n"
    low = body.lower()  # only A-Z change: offsets in `low` are offsets in `text`
    text = body.decode("latin-1")
    if ("k" in token or "i" in token) and not low.isascii() and any(map(low.__contains__, _LOWERS_TO_ASCII)):
        return None
    regions = _regions(text, low, group_token_cache(profile), profile, token)
    if regions is None:
        return None  # a user-agent line written otherwise: read by the skeleton
    if not regions:
        return True  # no group applies
    path = rfc_match_path(url) if profile.normalise_urls else google_match_path(url)
    if profile.robots_txt_always_allowed and path == "/robots.txt":
        return True  # RFC 9309 2.2.2
    second = path[1:2]
    allows: list[bool] = []
    values: list[str] = []
    for start, end in regions:
        candidates = region_rules(text, low, start, end, second)
        if candidates is None:
            return Left.TO_RULE_SET  # too many asterisks
        allows += candidates[0]
        values += candidates[1]
    verdict = _verdict(profile, path, allows, values)
    return Left.TO_RULE_SET if verdict is None else verdict


def first_verdict(groups: Sequence[GroupLike], profile: Profile, url: str) -> bool | None:
    """May the agent judged by `groups` (merged, as one token's judgement) fetch `url` under
    `profile`? None when left to the general path (see the module docstring)."""
    path = rfc_match_path(url) if profile.normalise_urls else google_match_path(url)
    if profile.robots_txt_always_allowed and path == "/robots.txt":
        return True  # RFC 9309 2.2.2
    second = path[1:2]
    allows: list[bool] = []
    values: list[str] = []
    for group in groups:
        candidates = group.candidate_rules(second)
        if candidates is None:
            return None
        allows += candidates[0]
        values += candidates[1]
    return _verdict(profile, path, allows, values)


def _other_agent_line(text: str, low: bytes, at: int) -> bool:
    """Is the "agent" at `at` (not the key of a plain user-agent line) on a user-agent line
    written otherwise (indented, misspelt, no colon)? Read exactly, as the parser reads it."""
    line = low.rfind(b"\n", 0, at)
    if low.startswith(_USER_AGENT, line):
        return False  # in the value or comment of a plain user-agent line
    end = low.find(b"\n", at)
    found = directive(text[line + 1 : end if end >= 0 else len(text)])
    return found is not None and found[0] is LineKind.USER_AGENT


def _token_of_line(
    text: str, low: bytes, cache: dict[str, str | None], profile: Profile, line: int
) -> tuple[str | None, int]:
    """The group token of the plain user-agent line after the "\\n" at `line`, and its end
    (`cache`: the profile's `group_token_cache`)."""
    end = low.find(b"\n", line + 1)
    if end < 0:
        end = len(low)
    value = text[line + _VALUE_START : end]
    if "#" in value:
        value = value.partition("#")[0]
    value = value.strip(WHITESPACE)
    return (cache[value] if value in cache else cached_group_token(profile, cache, value)), end


def _judged_lines(token: str) -> re.Pattern[bytes]:
    """The pattern of every "agent" in the lowered bytes that matters to the caller `token`:
    - in the key of a plain user-agent line (`_USER_AGENT`) whose value may have the token
      `token` or `*` (a value's token is a prefix of it; the lines found are read exactly):
      group `exact` set when the value is `*` alone, which every profile reads as `*`, group
      `named` when it starts with `token`;
    - anywhere but in such a key (group `other`): a user-agent line may be written otherwise.
    Led by the literal "agent", so the engine scans for it in C; a plain user-agent line naming
    another agent is no match."""
    pattern = _JUDGED_LINES.get(token)
    if pattern is None:
        if len(_JUDGED_LINES) >= _MAX_JUDGED_LINES:  # bounded: callers may pass ever-new agents
            _JUDGED_LINES.clear()
        named = b"|(?P<named>" + re.escape(token.encode("ascii")) + b")" if token != "*" else b""
        pattern = _JUDGED_LINES[token] = re.compile(
            rb"agent(?:(?<=\nuser-agent):[ \t\v\f\r]*+(?:\*(?P<exact>[ \t\v\f\r]*+(?=[#\n]|\Z))?"
            + named
            + rb")|(?:(?<!\nuser-agent)|(?!:))(?P<other>))"
        )
    return pattern


def _regions(
    text: str, low: bytes, cache: dict[str, str | None], profile: Profile, token: str
) -> list[tuple[int, int]] | None:
    """The rule regions of the groups naming `token`, else of the `*` groups (`View.group_set`),
    found in one pass over the file; None if a user-agent line is not written plainly."""
    named: list[tuple[int, int]] = []
    star: list[tuple[int, int]] = []
    # where the last region of each kind starts: the lines before it are in groups found already
    named_from = star_from = 0
    # The engine steps through the text a character at a time looking for the leading "agent":
    # in a long file it starts at the first one and stops at the end of the last one's line,
    # both found by `bytes.find` (a 75 KB list of rules after one user-agent line: 147 against
    # 80 µs; in a short file the three searches cost more than they save). (No match ends past
    # that line: `\Z` there reads as its line break would.)
    first, stop = 0, len(low)
    if stop > _LONG_FILE:
        first = low.find(b"agent")
        if first < 0:
            return []
        stop = low.find(b"\n", low.rfind(b"agent"))
        if stop < 0:
            stop = len(low)
    search = (_JUDGED_LINES.get(token) or _judged_lines(token)).search  # (most files: one match)
    found = search(low, first, stop)
    while found is not None:
        next_from = found.end()
        if found.group("other") is not None:
            if _other_agent_line(text, low, found.start()):
                return None
            found = search(low, next_from, stop)
            continue
        line = found.start() - _KEY_BEFORE_AGENT  # the "\n" before the line
        if found.group("exact") is not None:
            read: str | None = "*"
            end = low.find(b"\n", next_from)
            if end < 0:
                end = len(low)
        else:
            read, end = _token_of_line(text, low, cache, profile, line)
        if read == token and token != "*":
            if line >= named_from:
                named.append(_region(text, low, end))
                named_from = named[-1][0]
        elif read == "*" and not named and line >= star_from:
            star.append(_region(text, low, end))
            star_from = star[-1][0]
        found = search(low, next_from, stop)
    return named or star


def _region(text: str, low: bytes, end: int) -> tuple[int, int]:
    """The rule region of the group of the user-agent line ending at `end` (its "\\n"): from
    the end of the group's last user-agent line to the next user-agent line, which starts the
    next group (RFC 9309 2.1: consecutive user-agent lines share a group, one after a rule
    line starts a new one)."""
    size = len(low)
    while end < size:
        following = low.find(_USER_AGENT, end)  # the "\n" before the next user-agent line
        if following < 0:
            break
        if following != end and rule_between(text, low, False, end + 1, following + 1, 1):
            return end + 1, following + 1
        end = low.find(b"\n", following + 1)
        if end < 0:
            end = size
    return end + 1, size


def _verdict(profile: Profile, path: str, allows: list[bool], values: list[str]) -> bool | None:
    """The verdict of the rules `values` (raw patterns) for `path`, or None (too many wildcards)."""
    if not values:
        return True
    joined = "\n".join(values)
    google = not profile.normalise_urls
    if patterns_need_normalising(joined, google=google):
        joined = google_escape_patterns(joined) if google else rfc_normalise_patterns(joined)
        values = joined.split("\n")
    if (
        profile.index_html_allows_directory
        and "/index.htm" in joined
        and _add_index_html_rules(allows, values)
    ):
        joined = "\n".join(values)
    tried: Iterable[int]
    if len(values) <= _FEW:
        tried = range(len(values))
    else:
        # A pattern can only match a path holding each of its literal characters (a prefix too):
        # deleting the path's characters from the patterns (in C) leaves the others non-empty,
        # so only the few left empty are tried one by one.
        if len(values) > _SAMPLED_FROM and _many_wildcards_left(path, values):
            return None
        tried = holding_every_character(path, 0, joined.encode("latin-1"))
        if len(tried) > _MAX_WILDCARDS and (
            sum(map(str.__contains__, map(values.__getitem__, tried), repeat("*"))) > _MAX_WILDCARDS
        ):
            return None  # (the loop below would give up too, after trying as many on the path)
    length = 0
    allow = True
    wildcards = 0
    for index in tried:
        pattern = values[index]
        if "*" in pattern or pattern[-1:] == "$":
            wildcards += 1
            if wildcards > _MAX_WILDCARDS:
                return None
            if not pattern_matches(pattern, path):
                continue
        elif not path.startswith(pattern):
            continue
        # RFC 9309 2.2.2: the longest matching pattern decides, allow on equal length. An
        # empty pattern is no rule: length 0 never beats "none matched".
        if len(pattern) > length:
            length = len(pattern)
            allow = allows[index]
        elif len(pattern) == length and allows[index]:
            allow = True
    return length == 0 or allow


def _many_wildcards_left(path: str, values: list[str]) -> bool:
    """Would the filter leave, by a sample of `values`, four times `_MAX_WILDCARDS` wildcard
    patterns or more? The rule set would then answer anyway, so the filter's pass over every
    pattern is spared (1,000 `/*ab*cd<i>` rules against a random 5,000-character path that
    holds their characters: about 200 µs of a first check). A guess that only chooses the path:
    either answer is exact."""
    sample = values[:: len(values) // _SAMPLE]
    held = map(sample.__getitem__, holding_every_character(path, 0, "\n".join(sample).encode("latin-1")))
    left = sum(map(str.__contains__, held, repeat("*")))
    return left * len(values) >= 4 * _MAX_WILDCARDS * len(sample)


def _add_index_html_rules(allows: list[bool], values: list[str]) -> bool:
    """Google: `Allow: /dir/index.htm(l)` also allows `/dir/`, as the pattern `/dir/$`
    (`matcher._with_index_html_rules`, on patterns). True if it added one."""
    added = False
    for index in range(len(values)):
        if allows[index]:
            pattern = values[index]
            slash = pattern.rfind("/")
            if slash >= 0 and pattern.startswith("/index.htm", slash):
                allows.append(True)
                values.append(pattern[: slash + 1] + "$")
                added = True
    return added
