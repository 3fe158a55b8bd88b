"""A lazy reading of a robots.txt for the first check: user-agent lines and group bounds only.

`parser.parse_file` reads every line in Python before the first check can be answered. That
check needs much less: every user-agent line (line, value), where the groups start and end, the
rules of the few groups the agent uses, and the preamble. `read_skeleton` finds those with C-level
scans of the text and reads in Python only the lines the scans point at:

- every key Google accepts as user-agent ("user-agent", "useragent", "user agent", compared
  case-insensitively as a prefix of the key, with or without the colon) contains "agent", so the
  candidate user-agent lines are the lines holding "agent";
- every key Google accepts as allow / disallow (including its accepted misspellings, see
  `_lexer._PREFIX_KEYS`) contains "ll" or "alo", so the candidate rule lines are the lines
  holding one of those. A user-agent line starts a new group iff a rule line stands between it
  and the previous user-agent line (RFC 9309 2.1, Google's state machine), and the search for
  that stops at the first real rule line;
- block lists (hundreds of consecutive `User-agent: x` lines) are read in bulk: a regex finds
  the run, C-level maps split it (see `_UA_RUN`);
- a group's rules are read from its own lines only when `SkeletonGroup.rules` is first asked for;
  a file's first check reads only the rule lines whose pattern can match its path
  (`region_rules`, one regular-expression pass over the group's lines, or a few C-level passes
  over a long list of one kind of rule line; see `core.first_check`).

Each candidate line is classified exactly as `parser._read_groups` does (`FAST_KEYS` and
`fast_value`, else `lex_line`; a line cut by `cap_line` when the parser cuts lines), so for
every input the skeleton's groups (agents and rules, with line numbers) and preamble equal
`parse_file`'s: there is no input it declines. (In a file with a NUL or an over-long line the
parser cuts every line with `cap_line`, and so does the skeleton; the cut is the identity on any
other line, so reading such a file "cut" is exact even where detection errs on the safe side.)
The scans work on the lower-cased bytes: `bytes.lower` only maps A-Z, and no other latin-1
character lower-cases to ASCII, so a key prefix found by `classify_key` (which lower-cases
latin-1 text) is found at the same place in the lowered bytes. Line breaks are only ever
searched as "\n" (never `splitlines`), as the parser splits, so \v, \f and other separators
stay inside lines, as there.
"""

from __future__ import annotations

import re
from itertools import compress, repeat
from itertools import count as numbers
from operator import itemgetter, not_

from robotskit.core.lexer import (
    DEFAULT_MAX_BYTES,
    FAST_KEYS,
    MAX_LINE_BYTES,
    WHITESPACE,
    cap_line,
    lex_line,
    prepare,
)
from robotskit.core.model import LineKind
from robotskit.core.parser import MAX_FIRST_CHECK_STARS, RawRule

__all__ = [
    "DEFAULT_MAX_BYTES",
    "Skeleton",
    "SkeletonGroup",
    "directive",
    "has_long_line",
    "read_skeleton",
    "region_rules",
    "rule_between",
]

_USER_AGENT = LineKind.USER_AGENT
_ALLOW = LineKind.ALLOW
_DISALLOW = LineKind.DISALLOW
_INVALID = LineKind.INVALID
_RULE_KINDS = (_ALLOW, _DISALLOW)
_WHITESPACES = repeat(WHITESPACE)  # map() arguments
_ASTERISKS = repeat("*")
# A run of consecutive user-agent lines written the common way, matched in the lowered bytes:
# "user-agent" in any case at the line start, the colon right after it, a line break. For such
# a line without `#` the parser (FAST_KEYS or `lex_line`: an exact key, so no typo) gives
# USER_AGENT and, as value, the text after the colon stripped of whitespace, so block lists of
# hundreds of user-agent lines are read with a few C-level calls. (`[^\n]` rather than a set
# excluding `#` too: the engine matches a single excluded character several times faster; a
# `#` is looked for afterwards.)
_UA_RUN = re.compile(rb"(?:user-agent:[^\n]*\n)+")
_AFTER_KEY = itemgetter(slice(len("user-agent:"), None))


def directive(line: str) -> tuple[LineKind, str] | None:
    """(kind, value) of one line, None for a line without a directive: `parser._read_groups`'s
    per-line reading, step for step (fast path, comment/empty skip, `lex_line`, INVALID dropped)."""
    key, colon, value = line.partition(":")
    kind = FAST_KEYS.get(key)
    if kind is not None and colon:
        if "#" in value:
            value = value.partition("#")[0]
        return kind, value.strip(WHITESPACE)
    if not line or line[0] == "#":
        return None
    lexed = lex_line(line)
    if lexed is None or lexed[0] is _INVALID:
        return None
    return lexed[0], lexed[2]


def _rules_of_lines(source: _Source, start: int, end: int, first_line: int) -> tuple[RawRule, ...]:
    """The allow/disallow lines of `text[start:end]` (whole lines; the first is `first_line`),
    each cut as the parser cuts it if the file has a NUL or an over-long line.

    Every line is read, as `parser._read_groups` reads it, with its fast path inlined: a group's
    rule region is mostly rule lines, so one split beats a candidate search here. (Bulk regex
    runs of rule lines, as for user-agent lines, were measured no faster: real rule lists are
    broken up by comments, blank lines and allow lines, and a run costs a few calls to set up.)
    """
    text = source.text
    if source.capped:
        return _cut_rules(text, start, end, first_line)
    if end - start >= _UNIFORM_BYTES:
        uniform = _uniform_rules(text, start, end, first_line)
        if uniform is not None:
            return uniform
    rules: list[RawRule] = []
    add = rules.append
    fast, whitespace, allow, disallow = FAST_KEYS.get, WHITESPACE, _ALLOW, _DISALLOW
    region = text[start:end]
    comments = "#" in region  # (most rule regions have none: no line then needs the test)
    for number, line in enumerate(region.split("\n"), first_line):
        key, colon, value = line.partition(":")
        kind = fast(key)
        if kind is not None and colon:
            if kind is disallow or kind is allow:
                if comments and "#" in value:
                    value = value.partition("#")[0]
                add((number, kind is allow, value.strip(whitespace)))
        elif line and line[0] != "#":
            lexed = lex_line(line)
            if lexed is not None and (lexed[0] is disallow or lexed[0] is allow):
                add((number, lexed[0] is allow, lexed[2]))
    return tuple(rules)


# A region this big whose lines all read `Disallow: VALUE` (or all `Allow: VALUE`) is read by
# `_uniform_rules`: a list of rules as a hostile (or generated) file writes it.
_UNIFORM_BYTES = 4096
_UNIFORM_KEYS = tuple(
    (f"\n{key}: ", FAST_KEYS[key] is _ALLOW) for key in ("Disallow", "Allow") if FAST_KEYS[key] in _RULE_KINDS
)
_NOT_IN_UNIFORM = ("\n", *WHITESPACE.replace("\n", ""))  # (the space included; `#` is looked for first)
_UNIFORM_SAMPLES = 8


def _uniform_rules(text: str, start: int, end: int, first_line: int) -> tuple[RawRule, ...] | None:
    """`_rules_of_lines` for a region whose every line is `Disallow: ` (or every line `Allow: `)
    and a value without whitespace or `#`, in a few C-level passes; None for any other region."""
    uniform = _uniform_values(text, start, end)
    if uniform is None:
        return None
    allows, values = uniform
    return tuple(zip(range(first_line, first_line + len(values)), allows, values, strict=True))


def _uniform_values(text: str, start: int, end: int) -> tuple[list[bool], list[str]] | None:
    """(allow? per line, values) of the whole lines of `text[start:end]` (`start` > 0 starts a
    line; blank lines at its end are no rules) when every one is `Disallow: ` (or every one
    `Allow: `) and a value without whitespace or `#`, in a few C-level passes (one split at the
    key, one look for what would make a line read otherwise); None for any other region.

    Such a line reads (FAST_KEYS) as that kind with the text after ": " as its value: nothing
    to cut at `#`, nothing to strip. A piece of the split that holds a line break is a line
    without the key (a blank line, a comment, another directive): then the region is read line
    by line. 1,000 rules of issue 7's near misses: 283 -> 138 µs. (Lines of both keys mixed, read
    in C-level maps over the lines, measured no faster than line by line: 2,000 lines, 640-870
    against 610-720 µs.)"""
    if start == 0 or text[start - 1] != "\n":
        return None
    # (the key is tested before any copy: most regions are no such list)
    keyed = [pair for pair in _UNIFORM_KEYS if text.startswith(pair[0], start - 1)]
    if not keyed:
        return None
    key, allow = keyed[0]
    region = text[start - 1 : end].rstrip("\n")
    # Lines sampled across the region must start with the key: most long regions of a real file
    # hold comments, blank lines or other keys, and are turned down here without a pass over
    # the region (a first check of a 7 KB one paid 10 µs for a split).
    size = len(region)
    step = size // _UNIFORM_SAMPLES
    for probe in range(step, size - step, step):
        at = region.find("\n", probe)
        if at >= 0 and not region.startswith(key, at):
            return None
    if "#" in region:
        return None
    values = region.split(key)
    if any(map("".join(values).__contains__, _NOT_IN_UNIFORM)):
        return None
    del values[0]  # (the empty text before the first key)
    return [allow] * len(values), values


def _cut_rules(text: str, start: int, end: int, first_line: int) -> tuple[RawRule, ...]:
    """`_rules_of_lines` in a file with a NUL or an over-long line: each line cut as the parser
    cuts it (`cap_line` leaves every other line as it is)."""
    rules: list[RawRule] = []
    for number, line in enumerate(map(cap_line, text[start:end].split("\n")), first_line):
        found = directive(line[0])
        if found is not None and found[0] in _RULE_KINDS:
            rules.append((number, found[0] is _ALLOW, found[1]))
    return tuple(rules)


def _rule_lines(
    text: str, low: bytes, capped: bool, start: int, end: int, first_line: int, first_only: bool
) -> list[RawRule]:
    """Rule lines among the whole lines of `text[start:end]` (`start` begins line `first_line`),
    found as candidates: lines holding "ll" or "alo" in the lowered bytes `low` (see the module
    docstring). With `first_only`, stop after the first one (the group-boundary test).
    """
    found: list[RawRule] = []
    line = first_line
    counted = start  # `line` is the number of the line starting at `counted`
    pos = start
    next_ll = next_alo = -2  # the next hit of each needle, kept while ahead of `pos`; -1: none left
    while pos < end:
        if next_ll != -1 and next_ll < pos:
            next_ll = low.find(b"ll", pos, end)
        if next_alo != -1 and next_alo < pos:
            next_alo = low.find(b"alo", pos, end)
        if next_ll < 0:
            if next_alo < 0:
                break
            hit = next_alo
        elif next_alo < 0 or next_ll < next_alo:
            hit = next_ll
        else:
            hit = next_alo
        line_start = low.rfind(b"\n", start, hit) + 1 or start
        line_end = low.find(b"\n", hit, end)
        if line_end < 0:
            line_end = end
        content = text[line_start:line_end]
        read = directive(cap_line(content)[0] if capped else content)
        if read is not None:
            kind, value = read
            if kind is _DISALLOW or kind is _ALLOW:
                line += low.count(b"\n", counted, line_start)
                counted = line_start
                found.append((line, kind is _ALLOW, value))
                if first_only:
                    break
        pos = line_end + 1
    return found


def rule_between(text: str, low: bytes, capped: bool, start: int, end: int, first_line: int) -> bool:
    """Is one of the whole lines of `text[start:end]` an allow/disallow line? Nearly always the
    first line is one, written the common way (`FAST_KEYS`): that is decided on the spot."""
    colon = low.find(b":", start, end)
    # A FAST_KEYS key holds no line break, so a hit is the first line's own key and colon; nor a
    # NUL, and it is far shorter than the cap, so a cut line keeps that key and colon too.
    if colon >= 0 and FAST_KEYS.get(text[start:colon]) in _RULE_KINDS:
        return True
    return bool(_rule_lines(text, low, capped, start, end, first_line, True))


# The rule lines of a group's region a first check reads (`SkeletonGroup.candidate_rules`), one
# pattern per second character of the path (c), in the text with LF line breaks, each match led
# by the "\n" before its line (so the engine skips from line to line in C):
# - an allow or disallow line written `key: value` (any case, whitespace around the colon) whose
#   value starts with `/c`, `/%`, `/*`, `*` or is `/` alone: the only values whose pattern can
#   match such a path. (Patterns are prefix matches of paths starting with '/'; normalising a
#   value changes its second character only from an escape (`/%63` may become `/c`) or from a
#   character it escapes (which then reads `%`), and the caller reads every line when the
#   path's own second character is '%'.) For such a line the parser's fast path (`FAST_KEYS`)
#   or `lex_line` gives this kind and this value, whitespace-stripped: its key is the text
#   before the first colon, stripped, and is exactly `allow` or `disallow`. (The match runs to
#   the line's end and a comment is cut off after: sre scans `.*` in a tight loop, where a class
#   that stops at `#` too is tested per character, and the Wikipedia file's 287 candidate lines
#   took 212 against 135 µs to read);
# - suspect: any other line whose content starts with `a` or `d` and holds "ll" or "alo" before
#   a `#`. Every key Google accepts as allow or disallow (`lexer._PREFIX_KEYS`) starts so and holds
#   one of those, and the key starts the line's content: so with no suspect line in a region,
#   every rule line of the region is a `key: value` line and the first branch missed none that
#   could match. (A region holds no user-agent line: the skeleton read each of those.)
_CANDIDATES: dict[str, re.Pattern[str]] = {}
_SPACE = "[ \\t\\v\\f\\r]"
_DIS = itemgetter(1)  # of a match: (key, "dis" or "", value, suspect)
_VALUE = itemgetter(2)
_SUSPECT = itemgetter(3)
_HASHES = repeat("#")  # map() arguments
_ALLOW_OF = itemgetter(1)  # of a RawRule
_VALUE_OF = itemgetter(2)


def region_rules(
    text: str, low: bytes, start: int, end: int, second: str
) -> tuple[list[bool], list[str]] | None:
    """The allow flags and values of the rule lines among the whole lines of `text[start:end]`
    (LF breaks, no cut line, `start` > 0; `low` the lowered bytes) whose pattern may match a path
    whose second character is `second`, read in one pass (`_candidates`), or, in a long region
    of one kind of rule line, in a few C-level passes (`_uniform_values`); every rule line, read
    line by line, if a line needs the exact reading or no pass serves `second`. None when the
    lines hold more than `MAX_FIRST_CHECK_STARS` asterisks."""
    if end - start > MAX_FIRST_CHECK_STARS and text.count("*", start, end) > MAX_FIRST_CHECK_STARS:
        return None
    if end - start >= _UNIFORM_BYTES:
        # A long list of one kind of rule, as hostile and generated files write it: read whole
        # in a few C-level passes, where the candidate pass would step through it line by line
        # (1,000 wildcard rules: 0.43 ms for the pass); then the candidate test, in C-level maps.
        uniform = _uniform_values(text, start, end)
        if uniform is not None:
            allows, values = uniform
            if _serves(second):  # the candidate pass's own test, in C-level maps
                heads = ("/" + second, "/%", "/*", "*")
                if "/" in values:  # (a value "/" alone: rare in such a list)
                    kept = [value.startswith(heads) or value == "/" for value in values]
                else:
                    kept = list(map(str.startswith, values, repeat(heads)))
                allows = list(compress(allows, kept))
                values = list(compress(values, kept))
            return allows, values
    candidates = _CANDIDATES.get(second) or _candidates(second)
    if candidates is not None:
        # the region starts a line: the "\n" before it leads the first match
        found = candidates.findall(text, start - 1, end)
        if not found:
            return [], []
        if not any(map(_SUSPECT, found)):
            values = list(map(_VALUE, found))  # (up to the line's end: a comment cut off here)
            if any(map(str.__contains__, values, _HASHES)):
                values = [value.partition("#")[0] for value in values]
            return list(map(not_, map(_DIS, found))), list(map(str.rstrip, values, _WHITESPACES))
    rules = _rules_of_lines(_Source(text, low, False), start, end, 1)
    return list(map(_ALLOW_OF, rules)), list(map(_VALUE_OF, rules))


def _candidates(second: str) -> re.Pattern[str] | None:
    """The candidate-line pattern for paths whose second character is `second` (None: read every line)."""
    pattern = _CANDIDATES.get(second)
    if pattern is None:
        if not _serves(second):
            return None  # one pattern per printable ASCII character at most
        # (A `key:` taken possessively commits the line to the first branch: when its value is no
        # candidate, the match fails there at once instead of trying the suspect branch.)
        pattern = _CANDIDATES[second] = re.compile(
            r"\n" + _SPACE + r"*+((?i:(dis)?allow)" + _SPACE + r"*+:" + _SPACE + r"*+)?+"
            r"(?(1)((?:/(?:[" + re.escape(second) + r"%*]|(?=[ \t\v\f\r#\n]|\Z))|\*).*)"
            r"|([aAdD])[^\n#]*?(?i:ll|alo))",
            re.ASCII,
        )
    return pattern


def _serves(second: str) -> bool:
    """Do the candidate lines for paths whose second character is `second` leave any line out?"""
    return len(second) == 1 and "!" <= second <= "~" and second != "%"


class _Source:
    """What a group's rules are read from, shared by all the groups of a file."""

    __slots__ = ("capped", "low", "text")

    def __init__(self, text: str, low: bytes, capped: bool) -> None:
        self.text = text  # LF line breaks, latin-1
        self.low = low  # the same, lower-cased bytes
        self.capped = capped  # the parser cuts lines (a NUL or an over-long line)


class SkeletonGroup:
    """One group: its user-agent lines, read eagerly, and its rules, read on first access.

    Duck-compatible with `parser.RawGroup` (`agents`, `rules`). The rule cache is idempotent:
    two threads racing compute equal tuples.
    """

    __slots__ = ("_end", "_first_line", "_rules", "_source", "_start", "agents")

    def __init__(
        self, agents: tuple[tuple[int, str], ...], source: _Source, start: int, end: int, first_line: int
    ) -> None:
        self.agents = agents
        self._source = source
        self._start = start  # the rule region: whole lines after the group's last user-agent line
        self._end = end
        self._first_line = first_line
        self._rules: tuple[RawRule, ...] | None = None

    @property
    def rules(self) -> tuple[RawRule, ...]:
        rules = self._rules
        if rules is None:
            rules = self._rules = _rules_of_lines(self._source, self._start, self._end, self._first_line)
        return rules

    def candidate_rules(self, second: str) -> tuple[list[bool], list[str]] | None:
        """The allow flags and values of (at least) the rule lines whose pattern may match a
        path whose second character is `second` (see `region_rules`); all of them when they
        are read already or the file's lines are cut; None past `MAX_FIRST_CHECK_STARS`."""
        rules = self._rules
        source = self._source
        if rules is None and not source.capped:
            return region_rules(source.text, source.low, self._start, self._end, second)
        rules = self.rules
        values = list(map(_VALUE_OF, rules))
        if sum(map(str.count, values, _ASTERISKS)) > MAX_FIRST_CHECK_STARS:
            return None
        return list(map(_ALLOW_OF, rules)), values

    def __repr__(self) -> str:
        return f"SkeletonGroup(agents={self.agents!r})"


class Skeleton:
    """The groups and preamble of a file, duck-compatible with `parser.ParsedFile` for `View`."""

    __slots__ = ("groups", "preamble")

    def __init__(self, groups: tuple[SkeletonGroup, ...], preamble: tuple[RawRule, ...]) -> None:
        self.groups = groups
        self.preamble = preamble

    def __repr__(self) -> str:
        return f"Skeleton(groups={len(self.groups)}, preamble={len(self.preamble)})"


def has_long_line(body: bytes) -> bool:
    """Does a line of `body` (breaks already LF) exceed `MAX_LINE_BYTES`? In a few C-level
    searches: from a line start `pos`, the last break within the next `MAX_LINE_BYTES + 1` bytes
    ends every line that starts before it, and those lines are short; none there means the line
    at `pos` is too long. The next search starts after that break, so each two searches advance
    by at least the cap."""
    size = len(body)
    window = MAX_LINE_BYTES + 1
    pos = 0
    while pos + window <= size:
        last = body.rfind(b"\n", pos, pos + window)
        if last < 0:
            return True
        pos = last + 1
    return False


def read_skeleton(data: bytes | str, max_bytes: int = DEFAULT_MAX_BYTES) -> Skeleton:
    """The skeleton of `data`: size limit, BOM, line breaks and line cuts as `parse_file`."""
    max_bytes = max(int(max_bytes), DEFAULT_MAX_BYTES)  # as parse_file: never below 500 KiB
    body = prepare(data, max_bytes)[0]
    if b"\r" in body:  # CR, LF and CRLF each end one line (split_lines)
        body = body.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    # As parse_file: in a file with a NUL or an over-long line, every line is read through
    # `cap_line` (cut at the NUL, at the cap). A cut line is a prefix of the whole line, so the
    # key that makes it a candidate is still found in the whole line.
    capped = b"\x00" in body or (len(body) > MAX_LINE_BYTES and has_long_line(body))
    # latin-1: one character per byte, so offsets in the lowered bytes are offsets in the text.
    return _read(body.decode("latin-1"), body.lower(), capped)


def _read(text: str, low: bytes, capped: bool) -> Skeleton:
    """One pass over the candidate user-agent lines, building the groups as it goes."""
    size = len(text)
    source = _Source(text, low, capped)
    groups: list[SkeletonGroup] = []
    agents: list[tuple[int, str]] = []
    first_start = size  # where the first user-agent line starts: the preamble ends there
    previous_end = previous_line = 0  # end and number of the last user-agent line
    line = 1
    pos = 0  # the start of line `line`
    find, rfind, count = low.find, low.rfind, low.count
    fast, whitespace, user_agent = FAST_KEYS.get, WHITESPACE, _USER_AGENT
    ua_run = _UA_RUN.match
    while True:
        hit = find(b"agent", pos)
        if hit < 0:
            break
        breaks = count(b"\n", pos, hit)
        if breaks:
            line += breaks
            line_start = rfind(b"\n", pos, hit) + 1
        else:
            line_start = pos
        line_end = find(b"\n", hit)
        if line_end < 0:
            line_end = size
        content = cap_line(text[line_start:line_end])[0] if capped else text[line_start:line_end]
        # `directive`, with its fast path inlined: most candidates are `User-agent: x` lines.
        key, colon, value = content.partition(":")
        kind = fast(key)
        if kind is not None and colon:
            if kind is user_agent:
                value = (value.partition("#")[0] if "#" in value else value).strip(whitespace)
        else:
            kind, value = directive(content) or (None, "")
        if kind is user_agent:
            if not agents:
                first_start = line_start
            # A rule line between the previous user-agent line and this one closes the group
            # (none can stand between two adjacent lines).
            elif line_start != previous_end + 1 and rule_between(
                text, low, capped, previous_end + 1, line_start, previous_line + 1
            ):
                rules = previous_end + 1  # the group's rule lines are among those up to here
                groups.append(SkeletonGroup(tuple(agents), source, rules, line_start, previous_line + 1))
                agents = []
            agents.append((line, value))
            # More user-agent lines follow? Read them in bulk. (A first-byte test spares most
            # lines the regex; a file whose lines are cut is read line by line.)
            if low[line_end + 1 : line_end + 2] == b"u" and not capped and (run := ua_run(low, line_end + 1)):
                line, line_end = _add_run(agents, text, low, line, line_end, run.end() - 1)
            previous_end, previous_line = line_end, line
        pos = line_end + 1
        line += 1
    if agents:
        groups.append(SkeletonGroup(tuple(agents), source, previous_end + 1, size, previous_line + 1))
    preamble = _rule_lines(text, low, capped, 0, first_start, 1, False) if first_start else ()
    return Skeleton(tuple(groups), tuple(preamble))


def _add_run(
    agents: list[tuple[int, str]], text: str, low: bytes, line: int, start: int, end: int
) -> tuple[int, int]:
    """Add the lines of a `_UA_RUN` match: those after line `line` (which ends at `start`) up to
    the break at `end`, or up to the first line with a `#`. Returns the last line and its end."""
    comment = low.find(b"#", start, end)
    if comment >= 0:
        end = low.rfind(b"\n", start, comment)  # `start` itself at least: the line break
    if end > start:
        lines = text[start + 1 : end].split("\n")
        agents.extend(
            zip(numbers(line + 1), map(str.strip, map(_AFTER_KEY, lines), _WHITESPACES), strict=False)
        )
        line += len(lines)
    return line, end
