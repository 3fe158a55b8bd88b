"""`ParsedRobots`, the parsed file: the entry point of the core.

The public `robotskit.RobotsTxt` (robotskit.document) is this class plus the AI-preference
accessors, which live in a layer above the core. A parsed file is immutable: it holds the
profile-neutral parse and builds each profile's `View` on first use (a cache, not state:
two threads racing build equal views). It pickles as its input bytes and options and is parsed
again on load, which keeps pickles small and always consistent with the running version.
"""

from __future__ import annotations

from typing import Any

from robotskit.core.agents import Agent
from robotskit.core.checker import Check, Matcher, make_checker
from robotskit.core.extensions import (
    CRAWL_DELAY_KEYS,
    REQUEST_RATE_KEYS,
    VISIT_TIME_KEYS,
    RequestRate,
    VisitTime,
    parse_crawl_delay,
    parse_request_rate,
    parse_visit_time,
)
from robotskit.core.first_check import Left, first_verdict, quick_verdict
from robotskit.core.lexer import DEFAULT_MAX_BYTES, lex
from robotskit.core.matcher import View, decide
from robotskit.core.model import Decision, Diagnostic, Group, Line, Record
from robotskit.core.parser import MAX_FIRST_CHECK_STARS, GroupedFile, ParsedFile, parse_file
from robotskit.core.profiles import PROFILES, RFC9309, Profile, get_profile, profile_for_url
from robotskit.core.skeleton import Skeleton, read_skeleton

AgentLike = str | Agent | None
_MAX_CHECKERS = 1024
# Files from this size are read through the skeleton first; below it the full parse is as cheap.
# (The second check, which reads the groups, over corpus files, 2026-11-28: 1-4 KiB 193 against 190
# µs with the skeleton, 4-16 KiB 481 against 430, 16-32 KiB 1,366 against 1,071; 1,000 rules of a
# hostile 19 KiB file 1.7 against 0.8 ms, its rule lines then read in a few C-level passes.)
_SKELETON_FROM = 4096
# How much of the head of a file `_worth_a_skeleton` looks at.
_ESTIMATE_FROM = 8192
# ... unless user-agent lines are more than this share of all lines: the skeleton reads those
# one by one, and the full parse is then as cheap (and is often needed later anyway).
_MAX_AGENT_SHARE = 8


def _worth_a_skeleton(data: bytes | str) -> bool:
    """Will reading the skeleton first save more than it costs? (C-level counts only.)"""
    if len(data) < _SKELETON_FROM:
        return False
    # An estimate from the head of the file is enough, and keeps this cheap on huge files.
    head = _ESTIMATE_FROM
    if isinstance(data, str):
        return data.count("gent", 0, head) * _MAX_AGENT_SHARE <= data.count("\n", 0, head)
    return data.count(b"gent", 0, head) * _MAX_AGENT_SHARE <= data.count(b"\n", 0, head)


# The first check answered without a check leaves the building of the agent's check (the
# groups read, the view, the plan) to the second, which must not stall: on files past this size
# the first check builds it (as a first check always did), unless the file is small enough and
# names few agents (about 1 µs per user-agent line and 25 µs per KiB of rules to build).
_QUICK_UP_TO = 65536
_QUICK_FEW_AGENTS_UP_TO = 163840
_FEW_AGENTS = 512


def _cheap_to_build(data: bytes | str) -> bool:
    """Is the check of a file cheap enough to build on its second check (see `_QUICK_UP_TO`)?

    Past `_QUICK_UP_TO`, a file whose head says it holds more than `MAX_FIRST_CHECK_STARS`
    asterisks is not: a first check reading its rules (`quick_verdict`, `first_verdict`) would
    most likely find that many in the judged groups and leave the check to be built after all,
    having read them for nothing. (An estimate from the head, as `_worth_a_skeleton`'s: a count
    over the whole file would cost a first check of a big plain file more than it saves.)
    """
    size = len(data)
    if size <= _QUICK_UP_TO:
        return True
    if size > _QUICK_FEW_AGENTS_UP_TO:
        return False
    head = _ESTIMATE_FROM  # (the estimate first: it reads 8 KiB, the agent count the whole file)
    if isinstance(data, str):
        return (
            data.count("*", 0, head) * size <= MAX_FIRST_CHECK_STARS * head
            and data.count("gent") <= _FEW_AGENTS
        )
    return (
        data.count(b"*", 0, head) * size <= MAX_FIRST_CHECK_STARS * head
        and data.count(b"gent") <= _FEW_AGENTS
    )


_RFC = PROFILES[RFC9309]
_NO_AGENT = object()


def _never_called(url: str) -> bool:  # pragma: no cover - guarded by _NO_AGENT
    raise AssertionError("no checker cached yet")


_NO_CHECK = Check(_never_called)
# (agent, its check's URL regex, that regex's verdicts, the check): flat, so the hot path of
# `allowed` reads no attributes
_LastCheck = tuple[object, Matcher, tuple[bool, ...], Check]


def _last_check(agent: object, check: Check) -> _LastCheck:
    return (agent, check.url_match, check.verdicts, check)


_NO_LAST = _last_check(_NO_AGENT, _NO_CHECK)


class ParsedRobots:
    """A parsed robots.txt. Build it with `robotskit.parse`; never raises on content."""

    __slots__ = (
        "__weakref__",  # a client keeps its hosts' parsed files weakly (the parse memo owns them)
        "_body",
        "_checkers",
        "_fresh",
        "_last",
        "_lines",
        "_max_bytes",
        "_parsed",
        "_profile",
        "_robots_url",
        "_shared",
        "_skeleton",
        "_views",
    )

    def __init__(
        self,
        data: bytes | str,
        profile: str | None = None,
        *,
        max_bytes: int = DEFAULT_MAX_BYTES,
        robots_url: str | None = None,
    ) -> None:
        if type(data) is not bytes:  # (the common case costs one test)
            if not isinstance(data, (bytes, bytearray, memoryview, str)):
                raise TypeError(f"robots.txt data must be bytes or str, not {type(data).__name__}")
            if not isinstance(data, str):
                data = bytes(data)
        self._body = data
        self._profile: Profile | None = get_profile(profile) if profile is not None else None
        self._max_bytes = max_bytes
        self._robots_url = robots_url
        # Nothing is read here. The first check reads only what judges its agent (`_first_check`).
        # The full parse is built when something asks for what only it has (records, sitemaps,
        # diagnostics, ...). A check needs only the groups: for all but small files they come
        # from the skeleton, which reads the user-agent lines and, on first use, the rules of
        # the groups a check needs (`_skeleton`; equal to the full parse's, property-tested).
        self._parsed: ParsedFile | None = None
        self._skeleton: Skeleton | None = None
        # No check answered yet: the first one is answered without building a check (see
        # `_first_check`); the next ones build and keep theirs.
        self._fresh = True
        self._views: dict[str, View] = {}
        # (profile name, agent) -> compiled check; bounded because agents may be ever-new strings
        self._checkers: dict[tuple[str, AgentLike], Check] = {}
        # (profile name, group positions) -> the check every plain agent judged by exactly those
        # groups shares (see `View.group_set`); cleared with `_checkers`
        self._shared: dict[tuple[str, tuple[int, ...]], Check] = {}
        # The last (agent, check) asked for under the parse profile (or rfc9309 when chosen by
        # scheme): a crawler asks with the same agent object again and again.
        self._last: _LastCheck = _NO_LAST
        self._lines: tuple[Line, ...] | None = None

    # -- decisions ---------------------------------------------------------------------------

    @property
    def _file(self) -> ParsedFile:
        """The full parse, built on first need (an idempotent cache: racing threads build equal ones)."""
        parsed = self._parsed
        if parsed is None:
            parsed = self._parsed = parse_file(self._body, self._max_bytes, self._robots_url)
        return parsed

    def _groups_source(self) -> GroupedFile:
        """What the views read the groups from: the full parse if built, else the skeleton
        (read first when it saves more than it costs)."""
        source: GroupedFile | None = self._parsed or self._skeleton  # (a ParsedFile is a non-empty tuple)
        if source is None:
            if _worth_a_skeleton(self._body):
                source = self._skeleton = read_skeleton(self._body, self._max_bytes)
            else:
                source = self._file
        return source

    def _resolve(self, url: str) -> tuple[View, Profile]:
        profile = self._profile or profile_for_url(url)
        return self._view(profile), profile

    def _view(self, profile: Profile) -> View:
        # Keyed by profile, not by family: a View holds what its profile reads into the file
        # (the Gemini preamble group, diagnostics), so sharing one made verdicts depend on
        # which profile asked first.
        view = self._views.get(profile.name)
        if view is None:
            view = self._views[profile.name] = View(self._groups_source(), profile)
        return view

    def allowed(self, url: str, agent: AgentLike = None) -> bool:
        """May `agent` fetch `url`? `url` is absolute or a bare path (`/x?y`)."""
        try:  # zero-cost until it raises (3.11+): wrong argument types are named below
            # The same caller asking again is the common case: `_last` holds its compiled check's
            # URL regex and verdicts (see _checker), so most checks are this one regex match.
            last = self._last  # one tuple, read atomically: safe under threads
            if agent is last[0]:
                hit = last[1](url)
                if hit is not None:
                    # never None: every alternative of the regex ends in a marker group
                    return last[2][hit.lastindex]  # type: ignore[index]
                if self._profile is not None or url[:1] not in "gG":  # not a gemini:// URL
                    same = last[3]
                    answer = same.after_miss(url)
                    if same.url_match is not last[1]:  # compiled by this very call
                        self._last = _last_check(agent, same)
                    return answer
            profile = self._profile
            if profile is None:  # by scheme; the cheap first-letter test keeps http(s) fast
                profile = profile_for_url(url) if url[:1] in "gG" else _RFC
            if self._fresh:  # the file's first check: no check built yet
                self._fresh = False
                first = self._first_check(profile, agent, url)
                if first is not None:
                    return first
            check = self._checkers.get((profile.name, agent))
            if check is None:
                check = self._checker(profile, agent)
            if profile is self._profile or profile is _RFC:
                self._last = _last_check(agent, check)
            memo = check.memo  # another agent of the same group set may have just asked about this URL
            if memo[0] == url:
                return memo[1]
            answer = check(url)
        except (TypeError, AttributeError):
            check_types(url, agent)
            raise
        check.memo = (url, answer)
        return answer

    def _first_check(self, profile: Profile, agent: AgentLike, url: str) -> bool | None:
        """The verdict of the check `_checker` would build, for a plain agent, read from the
        bytes (`first_check.quick_verdict`) or from the groups read already (`first_verdict`);
        None: left to the check, built now."""
        if len(self._body) > _QUICK_UP_TO and not _cheap_to_build(self._body):
            return None  # built now, as a first check always did: the next checks stay cheap
        if self._parsed is None and self._skeleton is None:  # nothing read yet
            answer = quick_verdict(self._body, self._max_bytes, profile, agent, url)
            if answer is not None:
                return None if answer is Left.TO_RULE_SET else answer
        positions = self._view(profile).group_set(profile, agent)
        if positions is None:
            return None
        groups = self._groups_source().groups
        return first_verdict([groups[position] for position in positions], profile, url)

    def _checker(self, profile: Profile, agent: AgentLike) -> Check:
        view = self._view(profile)
        if len(self._checkers) >= _MAX_CHECKERS:
            self._checkers.clear()
            self._shared.clear()
        # A plain agent's group set is found without building its plan; agents judged by the
        # same groups share one check (a check depends on nothing but the profile and the groups).
        positions = view.group_set(profile, agent)
        shared = None if positions is None else self._shared.get((profile.name, positions))
        if shared is not None:
            check = shared
        else:
            check = make_checker(profile, view.plan(profile, agent))
            if positions is not None:
                self._shared[(profile.name, positions)] = check
        self._checkers[(profile.name, agent)] = check
        return check

    def decide(self, url: str, agent: AgentLike = None, *, explain: bool = False) -> Decision:
        """Like `allowed`, with the deciding rule, groups and reason; `explain` lists every match too."""
        check_types(url, agent)
        view, profile = self._resolve(url)
        return decide(view, profile, url, agent, explain=explain)

    def groups_for(self, agent: AgentLike = None, url: str = "/") -> tuple[Group, ...]:
        """The groups whose rules apply to `agent` (in the profile that governs `url`)."""
        check_types(url, agent)
        view, profile = self._resolve(url)
        plan = view.plan(profile, agent)
        seen: dict[int, Group] = {}
        for judgement in plan.judgements:
            for group in judgement.groups:
                seen.setdefault(group.index, group)
        return tuple(seen.values())

    # -- what the file says ---------------------------------------------------------------------

    @property
    def profile(self) -> str | None:
        """The profile chosen at parse time, or None: chosen per URL (gemini for gemini://, else rfc9309)."""
        return self._profile.name if self._profile is not None else None

    def _default_view(self) -> View:
        return self._resolve("/")[0]

    @property
    def groups(self) -> tuple[Group, ...]:
        """Every group, in file order, as the parse profile (rfc9309 when none) reads it."""
        return self._default_view().groups

    @property
    def records(self) -> tuple[Record, ...]:
        """Every line that is not a rule, user-agent or sitemap line, with its group (SPEC 5)."""
        return self._file.records

    @property
    def sitemaps(self) -> tuple[str, ...]:
        """Sitemap URLs in file order, duplicates removed, relative ones resolved against robots_url."""
        return self._file.sitemaps

    @property
    def diagnostics(self) -> tuple[Diagnostic, ...]:
        """Problems found while parsing, with line numbers (see docs/lint.md for the codes)."""
        found = self._file.diagnostics + self._default_view().diagnostics
        if self._profile is not None and self._profile.preamble_applies:
            # The parse reports rules before any user-agent as ignored; this profile applies them.
            found = tuple(d for d in found if d.code != "RK120")
        return tuple(sorted(found, key=lambda d: (d.line, d.code)))

    @property
    def lines(self) -> tuple[Line, ...]:
        """One `Line` event per physical line (built on first use)."""
        if self._lines is None:
            self._lines = lex(self._body, max(self._max_bytes, DEFAULT_MAX_BYTES))
        return self._lines

    @property
    def truncated(self) -> bool:
        """True if the input was larger than the size limit and its tail was not read."""
        return self._file.truncated

    @property
    def size(self) -> int:
        """Size of the input in bytes."""
        return self._file.size

    @property
    def body(self) -> bytes:
        """The input as bytes."""
        body = self._body
        return body.encode("utf-8", "surrogatepass") if isinstance(body, str) else body

    @property
    def robots_url(self) -> str | None:
        return self._robots_url

    @property
    def line_count(self) -> int:
        return self._file.line_count

    # -- records for an agent -------------------------------------------------------------------

    def _group_records(self, agent: AgentLike, keys: frozenset[str]) -> list[Record]:
        positions = {group.index for group in self.groups_for(agent)}
        return [r for r in self._file.records if r.key in keys and r.group in positions]

    def crawl_delay(self, agent: AgentLike = None) -> float | None:
        """Seconds between requests asked of `agent` by its groups (first valid value), or None."""
        for record in self._group_records(agent, CRAWL_DELAY_KEYS):
            seconds = parse_crawl_delay(record.value)
            if seconds is not None:
                return seconds
        return None

    def request_rate(self, agent: AgentLike = None) -> RequestRate | None:
        """The request rate asked of `agent` by its groups (first valid value), or None."""
        for record in self._group_records(agent, REQUEST_RATE_KEYS):
            rate = parse_request_rate(record.value, record.line)
            if rate is not None:
                return rate
        return None

    def visit_time(self, agent: AgentLike = None) -> VisitTime | None:
        """The Visit-time window asked of `agent` by its groups (first valid value), or None."""
        for record in self._group_records(agent, VISIT_TIME_KEYS):
            window = parse_visit_time(record.value, record.line)
            if window is not None:
                return window
        return None

    # -- value semantics ------------------------------------------------------------------------

    def __reduce__(self) -> tuple[Any, ...]:
        return (_restore, (type(self), self._body, self.profile, self._max_bytes, self._robots_url))

    def __repr__(self) -> str:
        return (
            f"<{type(self).__name__} profile={self.profile or 'auto'} "
            f"groups={len(self._groups_source().groups)} size={self.size} truncated={self.truncated}>"
        )


def check_types(url: object, agent: object) -> None:
    """Raise TypeError naming the argument whose type is wrong (called off the fast path only)."""
    if not isinstance(url, str):
        raise TypeError(f"url must be a str (an absolute URL or a path), not {type(url).__name__}")
    if agent is not None and not isinstance(agent, (str, Agent)):
        raise TypeError(f"agent must be a str, a robotskit.Agent or None, not {type(agent).__name__}")


def _restore(
    cls: type[ParsedRobots], body: bytes | str, profile: str | None, max_bytes: int, robots_url: str | None
) -> ParsedRobots:
    return cls(body, profile, max_bytes=max_bytes, robots_url=robots_url)
